//! Recording a prepared Slice1 into the caller's command encoder, on the caller's buffers.
//!
//! A tensor is bound as DirectML binds it: a buffer, an offset and a size ([`GpuBinding`], `DML_BUFFER_BINDING`).
//! [`PreparedSlice1Gpu::record`] checks R-BIND-1 (the range holds TotalTensorSizeInBytes and lies inside the buffer)
//! and R-BIND-2 (the offset is a multiple of max(16, GuaranteedBaseOffsetAlignment)) with the model's
//! [`check_binding`], the same check and message as on the CPU, before anything is recorded.
//!
//! Each chunk is bound as windows of the two buffers starting at offsets rounded down to the device's
//! `min_storage_buffer_offset_alignment`; the remainders come from the residue table (see [`crate::kernels`]), so
//! recording writes no buffer and allocates only the bind groups.

use crate::GpuError;
use crate::context::{check_lost, scoped};
use crate::kernels::{Entry, TILE, WORKGROUP_SIZE};
use crate::prepare::PreparedSlice1Gpu;
use std::sync::Arc;
use stridekit::{TensorRole, check_binding};

/// The bind groups of the last buffers and offsets an operator was recorded on.
pub(crate) struct BindCache {
    input: wgpu::Buffer,
    input_offset: u64,
    output: wgpu::Buffer,
    output_offset: u64,
    groups: Arc<[(wgpu::BindGroup, u32, u32)]>,
}

/// A tensor's bound range: DirectML's `DML_BUFFER_BINDING` (a buffer, `Offset`, `SizeInBytes`).
#[derive(Debug, Clone, Copy)]
pub struct GpuBinding<'a> {
    /// The buffer. Inputs need `STORAGE | COPY_SRC`, outputs `STORAGE | COPY_DST`.
    pub buffer: &'a wgpu::Buffer,
    /// `Offset` in bytes: a multiple of max(16, GuaranteedBaseOffsetAlignment) (R-BIND-2).
    pub offset: u64,
    /// `SizeInBytes`: at least TotalTensorSizeInBytes, inside the buffer (R-BIND-1).
    pub size_in_bytes: u64,
}

impl<'a> GpuBinding<'a> {
    /// The range `offset .. offset + size_in_bytes` of `buffer`.
    pub fn new(buffer: &'a wgpu::Buffer, offset: u64, size_in_bytes: u64) -> Self {
        GpuBinding { buffer, offset, size_in_bytes }
    }

    /// The whole buffer.
    pub fn whole(buffer: &'a wgpu::Buffer) -> Self {
        GpuBinding { buffer, offset: 0, size_in_bytes: buffer.size() }
    }
}

fn check_usage(tensor: TensorRole, buffer: &wgpu::Buffer, needed: wgpu::BufferUsages) -> Result<(), GpuError> {
    let has = buffer.usage();
    for (flag, name) in [
        (wgpu::BufferUsages::STORAGE, "STORAGE"),
        (wgpu::BufferUsages::COPY_SRC, "COPY_SRC"),
        (wgpu::BufferUsages::COPY_DST, "COPY_DST"),
    ] {
        if needed.contains(flag) && !has.contains(flag) {
            return Err(GpuError::BufferUsage { tensor, usage: name, has: format!("{has:?}") });
        }
    }
    Ok(())
}

fn align_down(value: u64, align: u64) -> u64 {
    value / align * align
}

impl PreparedSlice1Gpu {
    /// Records the copy from `input` to `output` into `encoder` (one compute pass, and a buffer copy for contiguous
    /// runs). Checks the bindings first (R-BIND-1/2, the same errors as the CPU backend), the buffers' usages, and
    /// that input and output are distinct buffers; on an error nothing is recorded. Only the output's element bytes
    /// change when the encoder's commands run (D6).
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        input: GpuBinding<'_>,
        output: GpuBinding<'_>,
    ) -> Result<(), GpuError> {
        check_lost(&self.lost)?;
        check_binding(TensorRole::Input, self.plan.input(), input.offset, input.size_in_bytes, input.buffer.size())?;
        check_binding(
            TensorRole::Output,
            self.plan.output(),
            output.offset,
            output.size_in_bytes,
            output.buffer.size(),
        )?;
        check_usage(TensorRole::Input, input.buffer, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC)?;
        check_usage(TensorRole::Output, output.buffer, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST)?;
        if input.buffer == output.buffer {
            return Err(GpuError::SameBuffer);
        }
        scoped(&self.device, &self.lost, "record Slice1", || {
            self.record_unchecked(encoder, input.buffer, input.offset, output.buffer, output.offset);
            Ok(())
        })
    }

    /// Records without checks. The callers guarantee: the offsets are multiples of 16, every byte the copy touches
    /// (rounded out to whole words) lies inside the buffers, and the buffers are distinct with the usages above.
    pub(crate) fn record_unchecked(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        input: &wgpu::Buffer,
        input_offset: u64,
        output: &wgpu::Buffer,
        output_offset: u64,
    ) {
        if let Some(c) = self.buffer_copy {
            encoder.copy_buffer_to_buffer(input, input_offset + c.in_lo, output, output_offset + c.out_lo, c.len);
        }
        let (Some(pipeline), Some(params)) = (&self.pipeline, &self.params) else { return };
        let residue = self.residues.entry_offset(input_offset, output_offset);
        let bind_groups = self.bind_groups(input, input_offset, output, output_offset, params);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("stridekit slice1"),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        for (i, (bind_group, x, y)) in bind_groups.iter().enumerate() {
            pass.set_bind_group(0, bind_group, &[(i as u64 * self.params_stride) as u32, residue]);
            pass.dispatch_workgroups(*x, *y, 1);
        }
    }

    /// The bind groups and dispatch sizes of every chunk for these buffers and offsets. The last set is cached:
    /// recording the same operator on the same buffers again (the common case of a prepared operator) creates no
    /// bind group. The cache keeps those two buffers alive until the next record on other buffers or the drop of
    /// the operator.
    fn bind_groups(
        &self,
        input: &wgpu::Buffer,
        input_offset: u64,
        output: &wgpu::Buffer,
        output_offset: u64,
        params: &wgpu::Buffer,
    ) -> Arc<[(wgpu::BindGroup, u32, u32)]> {
        let mut cache = self.bind_cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = &*cache
            && c.input == *input
            && c.output == *output
            && (c.input_offset, c.output_offset) == (input_offset, output_offset)
        {
            return Arc::clone(&c.groups);
        }
        let align = self.residues.align;
        let groups: Arc<[(wgpu::BindGroup, u32, u32)]> = self
            .chunks
            .iter()
            .map(|c| {
                let in_start = align_down(input_offset + c.in_lo, align);
                let in_end = (input_offset + c.in_hi).div_ceil(4) * 4;
                let out_start = align_down(output_offset + c.out_lo, align);
                let words = (output_offset + c.out_lo - out_start + (c.out_hi - c.out_lo)).div_ceil(4);
                let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("stridekit slice1"),
                    layout: &self.bind_group_layout,
                    entries: &[
                        buffer_entry(0, input, in_start, in_end - in_start),
                        buffer_entry(1, output, out_start, words * 4),
                        buffer_entry(2, params, 0, size_of::<crate::kernels::ChunkParams>() as u64),
                        buffer_entry(3, &self.residues.buffer, 0, 16),
                    ],
                });
                let groups = match self.entry {
                    Entry::Words => words.div_ceil(WORKGROUP_SIZE),
                    // One 16 x 16 tile per workgroup over loops 0 and 1, times the batch.
                    Entry::Transpose => {
                        c.dims[0].size.div_ceil(TILE)
                            * c.dims[1].size.div_ceil(TILE)
                            * c.dims[2..].iter().map(|d| d.size).product::<u64>()
                    }
                };
                // The splitter keeps groups <= max_groups^2, so both dimensions fit the device's limit.
                let x = groups.min(u64::from(self.max_groups));
                let y = groups.div_ceil(x);
                (bind_group, x as u32, y as u32)
            })
            .collect();
        *cache = Some(BindCache {
            input: input.clone(),
            input_offset,
            output: output.clone(),
            output_offset,
            groups: Arc::clone(&groups),
        });
        groups
    }
}

fn buffer_entry(binding: u32, buffer: &wgpu::Buffer, offset: u64, size: u64) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset,
            size: wgpu::BufferSize::new(size),
        }),
    }
}
