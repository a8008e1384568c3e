//! Property: every near-invalid description (one rule broken by one step) is rejected before a backend sees it. The
//! reference-equivalence properties of the CPU backend are the shared conformance suite (tests/conformance.rs).

use proptest::prelude::*;
use stridekit_testkit::strategies::near_invalid_slice1_case;

const CASES: u32 = if cfg!(miri) { 3 } else { 512 };

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn near_invalid_descriptions_are_rejected((case, breakage) in near_invalid_slice1_case()) {
        prop_assert!(case.desc.validate().is_err(), "{breakage:?}");
    }
}
