//! Helpers shared by the integration tests (included with `mod common;`).
#![allow(dead_code)]

use stridekit::{Binding, Slice1Desc, Slice1Plan};
use stridekit_cpu::{ExecOptions, slice1_bound, slice1_with};
use stridekit_testkit::conformance::{self, Backend};

/// Option sets that together take every path: portable and SIMD kernels, one and several threads, streaming
/// stores, transposes from stride 2.
pub fn option_sets() -> Vec<(&'static str, ExecOptions)> {
    let portable = |o: ExecOptions| ExecOptions { simd: false, ..o };
    if cfg!(miri) {
        // Miri pays for every instruction: the sets that still reach every kernel and the threaded split.
        // Without AVX2 at compile time (scripts/miri.sh's first pass) run-time detection finds none either, so the
        // SIMD sets run the portable kernels and the portable set would repeat them.
        let mut sets = vec![
            ("all-paths-1t", ExecOptions::exercise_all_paths(1)),
            ("all-paths-2t", ExecOptions::exercise_all_paths(2)),
        ];
        if cfg!(target_feature = "avx2") {
            sets.push(("portable-all-paths-1t", portable(ExecOptions::exercise_all_paths(1))));
        }
        return sets;
    }
    vec![
        ("default-1t", ExecOptions::with_threads(1)),
        ("default", ExecOptions::default()),
        ("all-paths-1t", ExecOptions::exercise_all_paths(1)),
        ("all-paths-2t", ExecOptions::exercise_all_paths(2)),
        ("all-paths-3t", ExecOptions::exercise_all_paths(3)),
        ("portable-all-paths-1t", portable(ExecOptions::exercise_all_paths(1))),
        ("portable-all-paths-2t", portable(ExecOptions::exercise_all_paths(2))),
        ("no-transpose-2t", ExecOptions { transpose_min_stride: u64::MAX, ..ExecOptions::exercise_all_paths(2) }),
    ]
}

/// The CPU backend under one option set, as the conformance suite sees it.
pub struct Cpu {
    /// The option set's name in [`option_sets`].
    pub name: &'static str,
    /// The options.
    pub options: ExecOptions,
}

impl Backend for Cpu {
    fn name(&self) -> String {
        format!("cpu {}", self.name)
    }
    fn slice1(&self, plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), String> {
        slice1_with(plan, input, output, &self.options).map_err(|e| e.to_string())
    }
    fn slice1_bound(
        &self,
        plan: &Slice1Plan,
        input: &[u8],
        input_binding: Binding,
        output: &mut [u8],
        output_binding: Binding,
    ) -> Result<(), String> {
        slice1_bound(plan, input, input_binding, output, output_binding, &self.options).map_err(|e| e.to_string())
    }
    fn cases(&self) -> u32 {
        if cfg!(miri) { 3 } else { 128 }
    }
}

/// The CPU backend under the option set called `name` in [`option_sets`].
pub fn cpu(name: &str) -> Option<Cpu> {
    option_sets().into_iter().find(|(n, _)| *n == name).map(|(name, options)| Cpu { name, options })
}

/// The option sets of the targeted cases ([`check_against_reference`]): every set of [`option_sets`], except under
/// Miri the threaded one. A thread's part of a split copy is a smaller call of the same kernels, and the split's own
/// unsafe code (the shared job, the parts' bounds) runs under Miri in `kernels::split`'s unit tests, `tests/threads.rs`
/// and the conformance suite's 2-thread module (on the targeted cases it was one of Miri's three runs per case).
pub fn kernel_option_sets() -> Vec<(&'static str, ExecOptions)> {
    let mut sets = option_sets();
    if cfg!(miri) {
        sets.retain(|(_, o)| o.threads == 1);
    }
    sets
}

/// Runs the reference and the CPU backend with every option set of [`kernel_option_sets`] on sentinel-filled outputs
/// of `TotalTensorSizeInBytes + extra` bytes and compares the whole buffers (the conformance suite's check). Returns
/// a description of the first mismatch.
pub fn check_against_reference(desc: &Slice1Desc, input: &[u8], extra: usize) -> Result<(), String> {
    let backends: Vec<Cpu> = kernel_option_sets().into_iter().map(|(name, options)| Cpu { name, options }).collect();
    let backends: Vec<&dyn Backend> = backends.iter().map(|b| b as &dyn Backend).collect();
    conformance::check_case_on(&backends, desc, input, extra)
}

/// `types`, or under Miri only its first and last entries, and in the portable Miri pass (no AVX2 at compile time:
/// the kernel tests' SIMD forms are not reached, only the portable kernels, which are generic over the element and
/// which the conformance suite covers for every type) only the first.
pub fn types_for_run(types: &[stridekit::DataType]) -> Vec<stridekit::DataType> {
    if cfg!(miri) && !cfg!(target_feature = "avx2") {
        types[..1].to_vec()
    } else if cfg!(miri) && types.len() > 2 {
        vec![types[0], types[types.len() - 1]]
    } else {
        types.to_vec()
    }
}
