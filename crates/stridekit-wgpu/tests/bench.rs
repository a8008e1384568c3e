//! The bench helper runs the copy, the reference buffer copy and the readback, and leaves a correct output (times
//! are printed, never asserted).

mod common;

use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
use stridekit_testkit::{cases, strategies::pseudo_random_bytes};
use stridekit_wgpu::bench::bench_slice1;

#[test]
fn bench_reports_and_leaves_a_verified_output() {
    let Some(ctx) = common::gpu() else { return };
    let crop = Slice1Desc {
        input: BufferTensorDesc::packed(DataType::Float32, &[64, 256]).unwrap(),
        output: BufferTensorDesc::packed(DataType::Float32, &[64, 96]).unwrap(),
        input_window_offsets: vec![0, 64],
        input_window_sizes: vec![64, 192],
        input_window_strides: vec![1, -2],
    };
    let doc = cases::slice1_ex2();
    for (desc, input) in [(crop.clone(), pseudo_random_bytes(9, 64 * 256 * 4)), (doc.desc.clone(), doc.input.clone())] {
        let plan = desc.validate().unwrap();
        let mut expected = vec![0u8; desc.output.total_tensor_size_in_bytes as usize];
        stridekit_testkit::slice1_reference(&desc, &input, &mut expected).unwrap();
        let mut output = vec![0u8; expected.len()];
        let r = bench_slice1(ctx, &plan, &input, &mut output, 8).unwrap();
        assert_eq!(output, expected);
        assert_eq!(r.bytes_moved, 2 * plan.element_count() * 4);
        assert_eq!(r.iterations, 8);
        assert!(r.adapter.contains(&ctx.adapter().name));
        eprintln!(
            "{}: {} ({}) kernel {:?} ({:.3} GB/s), copy {:?} ({:.3} GB/s), ratio {:.2}, upload {:?}, readback {:?}, \
             record {:?}",
            r.adapter,
            r.path,
            r.timing.name(),
            r.kernel,
            r.gb_per_s(),
            r.copy,
            r.copy_gb_per_s(),
            r.ratio_to_copy(),
            r.upload,
            r.readback,
            r.record_cpu
        );
    }
}
