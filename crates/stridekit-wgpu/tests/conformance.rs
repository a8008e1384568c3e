//! The shared conformance suite (`stridekit_testkit::conformance`) on the GPU: once with the device's limits, once
//! with limits lowered so that every copy is split into chunks and 2-D dispatches. Tensors stay small (a software
//! rasteriser such as lavapipe moves ~0.25 GB/s).

mod common;

use stridekit::{Binding, Slice1Plan, TensorRole};
use stridekit_testkit::conformance::Backend;
use stridekit_wgpu::{GpuBinding, GpuContext, PrepareOptions, PreparedSlice1Gpu};

struct Gpu {
    ctx: &'static GpuContext,
    options: PrepareOptions,
    cases: u32,
    max_elements: u64,
}

impl Backend for Gpu {
    fn name(&self) -> String {
        format!("gpu {} {:?}", self.ctx.adapter(), self.options)
    }

    fn slice1(&self, plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), String> {
        let op = PreparedSlice1Gpu::with_options(self.ctx, plan, self.options).map_err(|e| e.to_string())?;
        op.execute(self.ctx, input, output).map(|_| ()).map_err(|e| e.to_string())
    }

    fn slice1_bound(
        &self,
        plan: &Slice1Plan,
        input: &[u8],
        input_binding: Binding,
        output: &mut [u8],
        output_binding: Binding,
    ) -> Result<(), String> {
        // The host slices stand for the buffers: R-BIND-1 is checked against their lengths (the device buffers are
        // rounded up to whole words), then record() checks again against the device buffers.
        input_binding.check(TensorRole::Input, plan.input(), input.len() as u64).map_err(|e| e.to_string())?;
        output_binding.check(TensorRole::Output, plan.output(), output.len() as u64).map_err(|e| e.to_string())?;
        let op = PreparedSlice1Gpu::with_options(self.ctx, plan, self.options).map_err(|e| e.to_string())?;
        let ib = common::buffer_with(self.ctx, input, wgpu::BufferUsages::STORAGE);
        let ob = common::buffer_with(self.ctx, output, wgpu::BufferUsages::STORAGE);
        let mut encoder = self.ctx.device().create_command_encoder(&Default::default());
        op.record(
            &mut encoder,
            GpuBinding::new(&ib, input_binding.offset, input_binding.size_in_bytes),
            GpuBinding::new(&ob, output_binding.offset, output_binding.size_in_bytes),
        )
        .map_err(|e| e.to_string())?;
        self.ctx.queue().submit([encoder.finish()]);
        let n = output.len();
        output.copy_from_slice(&common::read(self.ctx, &ob)[..n]);
        Ok(())
    }

    fn max_elements(&self) -> u64 {
        self.max_elements
    }

    fn cases(&self) -> u32 {
        self.cases
    }
}

mod device_limits {
    stridekit_testkit::conformance_tests!(super::common::gpu().map(|ctx| super::Gpu {
        ctx,
        options: stridekit_wgpu::PrepareOptions::default(),
        cases: 48,
        max_elements: 2048,
    }));
}

mod split_everything {
    stridekit_testkit::conformance_tests!(super::common::gpu().map(|ctx| super::Gpu {
        ctx,
        options: stridekit_wgpu::PrepareOptions {
            max_binding_bytes: Some(4 * u64::from(ctx.limits().min_storage_buffer_offset_alignment).max(16)),
            max_workgroups_per_dimension: Some(2),
            buffer_copies: false,
            transposes: false,
        },
        cases: 16,
        max_elements: 1024,
    }));
}

mod kernel_only {
    stridekit_testkit::conformance_tests!(super::common::gpu().map(|ctx| super::Gpu {
        ctx,
        options: stridekit_wgpu::PrepareOptions { buffer_copies: false, transposes: false, ..Default::default() },
        cases: 24,
        max_elements: 2048,
    }));
}
