//! DirectML-shaped bindings on GPU buffers: R-BIND-1/2 checked before anything is recorded, with the model's
//! messages; every offset residue works; bytes outside the output's elements keep their values (D6); host slices
//! follow D10.

mod common;

use stridekit::{BufferTensorDesc, DataType, Slice1Desc, TensorRole, check_binding};
use stridekit_testkit::strategies::pseudo_random_bytes;
use stridekit_wgpu::{GpuBinding, GpuError, PreparedSlice1Gpu};
use wgpu::BufferUsages as U;

/// A u16 crop with a reversed, strided inner dimension: [3, 10] -> [2, 3], 12 output bytes.
fn desc() -> Slice1Desc {
    Slice1Desc {
        input: BufferTensorDesc::packed(DataType::Uint16, &[3, 10]).unwrap(),
        output: BufferTensorDesc::packed(DataType::Uint16, &[2, 3]).unwrap(),
        input_window_offsets: vec![1, 2],
        input_window_sizes: vec![2, 7],
        input_window_strides: vec![1, -3],
    }
}

#[test]
fn every_offset_residue_copies_exactly_the_elements() {
    let Some(ctx) = common::gpu() else { return };
    let d = desc();
    let op = PreparedSlice1Gpu::new(ctx, &d.validate().unwrap()).unwrap();
    let (in_total, out_total) = (d.input.total_tensor_size_in_bytes, d.output.total_tensor_size_in_bytes);
    let input_tensor = pseudo_random_bytes(1, in_total as usize);
    let mut expected_tensor = pseudo_random_bytes(2, out_total as usize);
    let before_tensor = expected_tensor.clone();
    stridekit_testkit::slice1_reference(&d, &input_tensor, &mut expected_tensor).unwrap();
    let align = u64::from(ctx.limits().min_storage_buffer_offset_alignment).max(16);
    for in_off in (0..align + 16).step_by(16) {
        for out_off in (0..align + 16).step_by(32) {
            let mut input = pseudo_random_bytes(3, (in_off + in_total + 16) as usize);
            input[in_off as usize..(in_off + in_total) as usize].copy_from_slice(&input_tensor);
            let mut output = pseudo_random_bytes(4, (out_off + out_total + 20) as usize);
            output[out_off as usize..(out_off + out_total) as usize].copy_from_slice(&before_tensor);
            let (ib, ob) =
                (common::buffer_with(ctx, &input, U::STORAGE), common::buffer_with(ctx, &output, U::STORAGE));
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            op.record(&mut encoder, GpuBinding::new(&ib, in_off, in_total), GpuBinding::new(&ob, out_off, out_total))
                .unwrap();
            ctx.queue().submit([encoder.finish()]);
            let mut expected = output.clone();
            expected[out_off as usize..(out_off + out_total) as usize].copy_from_slice(&expected_tensor);
            assert_eq!(&common::read(ctx, &ob)[..output.len()], &expected[..], "offsets {in_off} {out_off}");
        }
    }
}

#[test]
fn bad_bindings_are_rejected_with_the_model_errors() {
    let Some(ctx) = common::gpu() else { return };
    let d = desc();
    let plan = d.validate().unwrap();
    let op = PreparedSlice1Gpu::new(ctx, &plan).unwrap();
    let ib = common::buffer_with(ctx, &[0u8; 128], U::STORAGE);
    let ob = common::buffer_with(ctx, &[0u8; 64], U::STORAGE);
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let cases = [
        ((8, 60), (0, 12), check_binding(TensorRole::Input, plan.input(), 8, 60, 128)),
        ((0, 56), (0, 12), check_binding(TensorRole::Input, plan.input(), 0, 56, 128)),
        ((0, 60), (16, 12), Ok(())),
        ((0, 60), (0, 8), check_binding(TensorRole::Output, plan.output(), 0, 8, 64)),
        ((0, 60), (48, 20), check_binding(TensorRole::Output, plan.output(), 48, 20, 64)),
    ];
    for ((io, is), (oo, os), model) in cases {
        let got = op.record(&mut encoder, GpuBinding::new(&ib, io, is), GpuBinding::new(&ob, oo, os));
        match model {
            Ok(()) => got.unwrap(),
            Err(e) => {
                let got = got.unwrap_err();
                assert_eq!(got, GpuError::Binding(e.clone()));
                assert_eq!(got.to_string(), e.to_string());
                assert!(got.to_string().starts_with("error[R-BIND-"), "{got}");
            }
        }
    }
    // Usages and aliasing are wgpu's rules, reported before wgpu would reject the pass.
    let uniform = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 64,
        usage: U::UNIFORM | U::COPY_DST,
        mapped_at_creation: false,
    });
    let err = op.record(&mut encoder, GpuBinding::whole(&ib), GpuBinding::whole(&uniform)).unwrap_err();
    assert!(matches!(err, GpuError::BufferUsage { tensor: TensorRole::Output, usage: "STORAGE", .. }), "{err}");
    let err = op.record(&mut encoder, GpuBinding::new(&ib, 0, 60), GpuBinding::new(&ib, 64, 12)).unwrap_err();
    assert_eq!(err, GpuError::SameBuffer);
    // The encoder holds only the valid recording: it finishes and runs without a validation error.
    ctx.queue().submit([encoder.finish()]);
    ctx.device().poll(wgpu::PollType::wait_indefinitely()).unwrap();
}

#[test]
fn host_slices_need_only_the_bytes_the_copy_touches() {
    let Some(ctx) = common::gpu() else { return };
    // u8 [1, 7] -> first 5 bytes: TotalTensorSizeInBytes rounds to 8, but 7 input and 5 output bytes suffice (D10).
    let d = Slice1Desc {
        input: BufferTensorDesc::packed(DataType::Uint8, &[7]).unwrap(),
        output: BufferTensorDesc::packed(DataType::Uint8, &[5]).unwrap(),
        input_window_offsets: vec![2],
        input_window_sizes: vec![5],
        input_window_strides: vec![1],
    };
    let plan = d.validate().unwrap();
    let mut output = [9u8; 5];
    stridekit_wgpu::slice1(ctx, &plan, &[1, 2, 3, 4, 5, 6, 7], &mut output).unwrap();
    assert_eq!(output, [3, 4, 5, 6, 7]);
    let err = stridekit_wgpu::slice1(ctx, &plan, &[1, 2, 3, 4, 5, 6], &mut output).unwrap_err();
    assert_eq!(err.rule(), "D10", "{err}");
    let mut short = [0u8; 4];
    let err = stridekit_wgpu::slice1(ctx, &plan, &[1, 2, 3, 4, 5, 6, 7], &mut short).unwrap_err();
    assert_eq!(err.rule(), "D10", "{err}");
    assert_eq!(short, [0; 4], "a rejected call writes nothing (D9)");
}

#[test]
fn recording_again_on_the_same_or_other_buffers_uses_the_right_ones() {
    let Some(ctx) = common::gpu() else { return };
    let d = desc();
    let op = PreparedSlice1Gpu::new(ctx, &d.validate().unwrap()).unwrap();
    let (in_total, out_total) = (d.input.total_tensor_size_in_bytes as usize, d.output.total_tensor_size_in_bytes);
    let inputs = [pseudo_random_bytes(10, in_total), pseudo_random_bytes(11, in_total)];
    let a = common::buffer_with(ctx, &inputs[0], U::STORAGE);
    let b = common::buffer_with(ctx, &[0; 64], U::STORAGE);
    let c = common::buffer_with(ctx, &[0; 64], U::STORAGE);
    // a -> b, then new bytes in a -> b again (cached bind groups), then a -> c at another offset, then a -> b.
    for (step, (content, target, offset)) in
        [(0, &b, 0u64), (1, &b, 0), (1, &c, 32), (0, &b, 16)].into_iter().enumerate()
    {
        ctx.queue().write_buffer(&a, 0, &inputs[content]);
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        op.record(&mut encoder, GpuBinding::whole(&a), GpuBinding::new(target, offset, out_total)).unwrap();
        ctx.queue().submit([encoder.finish()]);
        let mut expected = common::read(ctx, target)[offset as usize..(offset + out_total) as usize].to_vec();
        stridekit_testkit::slice1_reference(&d, &inputs[content], &mut expected).unwrap();
        let got = common::read(ctx, target);
        assert_eq!(&got[offset as usize..(offset + out_total) as usize], &expected[..], "step {step}");
    }
}
