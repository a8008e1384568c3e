//! The shared conformance suite (`stridekit_testkit::conformance`) on the CPU backend, once per option set, so that
//! every kernel, the threaded split, streaming stores and the portable path each pass it.

mod common;

macro_rules! cpu_suite {
    ($($module:ident => $name:literal),* $(,)?) => {$(
        mod $module {
            stridekit_testkit::conformance_tests!(crate::common::cpu($name));
        }
    )*};
}

// The option sets Miri runs too (see common::option_sets).
cpu_suite! {
    all_paths_1t => "all-paths-1t",
    all_paths_2t => "all-paths-2t",
}

// Under Miri without AVX2 the two sets above already run the portable kernels.
#[cfg(any(not(miri), target_feature = "avx2"))]
cpu_suite! {
    portable_all_paths_1t => "portable-all-paths-1t",
}

#[cfg(not(miri))]
cpu_suite! {
    default_1t => "default-1t",
    default => "default",
    all_paths_3t => "all-paths-3t",
    portable_all_paths_2t => "portable-all-paths-2t",
    no_transpose_2t => "no-transpose-2t",
}

#[test]
fn every_option_set_has_a_suite() {
    // A new option set in common::option_sets must get its module above.
    let names: Vec<&str> = common::option_sets().iter().map(|(n, _)| *n).collect();
    let expected: &[&str] = if cfg!(miri) && cfg!(target_feature = "avx2") {
        &["all-paths-1t", "all-paths-2t", "portable-all-paths-1t"]
    } else if cfg!(miri) {
        &["all-paths-1t", "all-paths-2t"]
    } else {
        &[
            "default-1t",
            "default",
            "all-paths-1t",
            "all-paths-2t",
            "all-paths-3t",
            "portable-all-paths-1t",
            "portable-all-paths-2t",
            "no-transpose-2t",
        ]
    };
    assert_eq!(names, expected);
}
