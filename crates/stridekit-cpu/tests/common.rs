//! Helpers shared by the integration tests (included with `mod common;`).
#![allow(dead_code)]

use stridekit::Slice1Desc;
use stridekit_cpu::{ExecOptions, slice1_with};
use stridekit_testkit::slice1_reference;

/// The byte every output buffer is filled with first, so that untouched padding is visible.
pub const SENTINEL: u8 = 0xA5;

/// Option sets that together take every path: portable and SIMD kernels, one and several threads, streaming
/// stores, transposes from stride 2.
pub fn option_sets() -> Vec<(&'static str, ExecOptions)> {
    let portable = |o: ExecOptions| ExecOptions { simd: false, ..o };
    if cfg!(miri) {
        // Miri pays for every instruction: the three sets that still reach every kernel and the threaded split.
        return vec![
            ("all-paths-1t", ExecOptions::exercise_all_paths(1)),
            ("all-paths-2t", ExecOptions::exercise_all_paths(2)),
            ("portable-all-paths-1t", portable(ExecOptions::exercise_all_paths(1))),
        ];
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

/// Runs the reference and the CPU backend with every option set on sentinel-filled outputs of
/// `TotalTensorSizeInBytes + extra` bytes and compares the whole buffers. Returns a description of the first
/// mismatch.
pub fn check_against_reference(desc: &Slice1Desc, input: &[u8], extra: usize) -> Result<(), String> {
    let plan = desc.validate().map_err(|e| format!("invalid case: {e}"))?;
    let len = desc.output.total_tensor_size_in_bytes as usize + extra;
    let mut expected = vec![SENTINEL; len];
    slice1_reference(desc, input, &mut expected).map_err(|e| e.to_string())?;
    for (name, options) in option_sets() {
        let mut actual = vec![SENTINEL; len];
        slice1_with(&plan, input, &mut actual, &options).map_err(|e| format!("{name}: {e}"))?;
        if actual != expected {
            let at = actual.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(0);
            return Err(format!("{name}: first difference at byte {at} of {len}\n desc: {desc:?}"));
        }
    }
    Ok(())
}

/// `types`, or under Miri only its first and last entries.
pub fn types_for_run(types: &[stridekit::DataType]) -> Vec<stridekit::DataType> {
    if cfg!(miri) && types.len() > 2 { vec![types[0], types[types.len() - 1]] } else { types.to_vec() }
}
