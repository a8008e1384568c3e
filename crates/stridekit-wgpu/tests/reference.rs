//! Random Slice1 cases (ranks 1-8, every element size, broadcast/padded/permuted inputs, padded/permuted outputs,
//! negative strides) give the naive reference's output byte for byte, padding included (D6).

mod common;

use proptest::prelude::*;
use stridekit_testkit::strategies::{Slice1Case, pseudo_random_bytes, slice1_case_with};
use stridekit_wgpu::{PrepareOptions, PreparedSlice1Gpu};

/// Runs `case` with `options` on outputs pre-filled with random bytes (4 more than TotalTensorSizeInBytes) and
/// compares with the reference on the same bytes.
pub fn check(case: &Slice1Case, options: PrepareOptions) -> Result<(), TestCaseError> {
    let Some(ctx) = common::gpu() else { return Ok(()) };
    let plan = case.desc.validate().unwrap();
    let len = case.desc.output.total_tensor_size_in_bytes as usize + 4;
    let before = pseudo_random_bytes(0x5eed ^ len as u64, len);
    let mut expected = before.clone();
    stridekit_testkit::slice1_reference(&case.desc, &case.input, &mut expected).unwrap();
    let mut actual = before;
    let op = PreparedSlice1Gpu::with_options(ctx, &plan, options).unwrap();
    op.execute(ctx, &case.input, &mut actual).unwrap();
    prop_assert!(actual == expected, "{} differs: {:?}\n got {actual:?}\nwant {expected:?}", op.describe(), case.desc);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn matches_the_reference(case in slice1_case_with(8, 2048)) {
        check(&case, PrepareOptions::default())?;
    }

    #[test]
    fn matches_the_reference_without_buffer_copies(case in slice1_case_with(4, 1024)) {
        check(&case, PrepareOptions { buffer_copies: false, ..PrepareOptions::default() })?;
    }
}
