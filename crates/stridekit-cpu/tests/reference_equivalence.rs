//! Property: for every valid case and every option set, the whole output buffer (padding included) equals the
//! reference's.

mod common;

use proptest::prelude::*;
use stridekit_testkit::strategies::{near_invalid_slice1_case, slice1_case_with};

const CASES: u32 = if cfg!(miri) { 3 } else { 512 };

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn matches_reference(case in slice1_case_with(8, if cfg!(miri) { 256 } else { 4096 }), extra in 0usize..24) {
        common::check_against_reference(&case.desc, &case.input, extra).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn matches_reference_low_rank(case in slice1_case_with(3, if cfg!(miri) { 256 } else { 4096 })) {
        common::check_against_reference(&case.desc, &case.input, 0).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn near_invalid_descriptions_are_rejected((case, breakage) in near_invalid_slice1_case()) {
        prop_assert!(case.desc.validate().is_err(), "{breakage:?}");
    }
}
