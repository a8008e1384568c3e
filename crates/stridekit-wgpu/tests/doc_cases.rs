//! The DirectML documentation examples on the GPU, through Slice1 and Slice (v0).

mod common;

use stridekit_testkit::cases;

#[test]
fn doc_cases_give_the_documented_values() {
    let Some(ctx) = common::gpu() else { return };
    eprintln!("adapter: {}", ctx.adapter());
    for case in cases::doc_cases() {
        let plans =
            std::iter::once(case.desc.validate().unwrap()).chain(case.slice_v0.as_ref().map(|d| d.validate().unwrap()));
        for plan in plans {
            let mut output = vec![0u8; case.desc.output.total_tensor_size_in_bytes as usize];
            stridekit_wgpu::slice1(ctx, &plan, &case.input, &mut output).unwrap();
            assert_eq!(cases::f32_values(&output)[..case.expected.len()], case.expected[..], "{}", case.name);
        }
    }
}
