//! The DirectML documentation examples, through every entry point.

mod common;

use stridekit_cpu::{ExecOptions, PreparedSlice1, slice1};
use stridekit_testkit::cases::{doc_cases, f32_values};

#[test]
fn doc_examples_give_the_documented_values() {
    for case in doc_cases() {
        let plan = case.desc.validate().unwrap();
        let mut out = vec![0u8; case.desc.output.total_tensor_size_in_bytes as usize];
        slice1(&plan, &case.input, &mut out).unwrap();
        assert_eq!(f32_values(&out), case.expected, "{}", case.name);
        if let Some(v0) = &case.slice_v0 {
            let plan = v0.validate().unwrap();
            let op = PreparedSlice1::new(&plan, ExecOptions::with_threads(1)).unwrap();
            let mut out = vec![0u8; out.len()];
            op.execute(&case.input, &mut out).unwrap();
            assert_eq!(f32_values(&out), case.expected, "{} (Slice v0)", case.name);
        }
        common::check_against_reference(&case.desc, &case.input, 8).unwrap();
    }
}
