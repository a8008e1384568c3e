//! Hostile command lines: broken files, absurd headers, bad lists, unwritable outputs. Each gets a clear error with
//! the documented exit code, no panic, no partial output file, and an existing output left untouched.

mod common;
use common::{npy_header as header, run, stderr};
use std::path::{Path, PathBuf};

const EXISTING: &[u8] = b"precious bytes that must survive a failed run";

fn good_npy() -> Vec<u8> {
    let mut v = header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }");
    v.extend((1..=4).flat_map(|i| (i as f32).to_le_bytes()));
    v
}

/// Runs `slice IN OUT args` in a fresh directory whose OUT already exists; asserts the exit code, that stderr starts
/// with `expected`, that OUT is untouched and that no other file appeared.
fn fails(input: &[u8], args: &[&str], code: i32, expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    let input_path = dir.path().join("in.npy");
    std::fs::write(&input_path, input).unwrap();
    let out = dir.path().join("out.npy");
    std::fs::write(&out, EXISTING).unwrap();
    fails_at(&input_path, &out, args, code, expected);
    assert_eq!(std::fs::read(&out).unwrap(), EXISTING, "{args:?}: the existing output was changed");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "{args:?}: stray files left behind: {names:?}");
}

fn fails_at(input: &Path, out: &Path, args: &[&str], code: i32, expected: &str) {
    let mut full = vec!["slice", input.to_str().unwrap(), out.to_str().unwrap()];
    full.extend_from_slice(args);
    let o = run(&full);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.starts_with(expected), "{args:?}: expected '{expected}...', got: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn truncated_and_garbled_files() {
    let good = good_npy();
    fails(&good[..good.len() - 3], &[], 2, "error[npy]");
    fails(&good[..20], &[], 2, "error[npy]");
    fails(&good[..5], &[], 2, "error[npy]");
    fails(b"", &[], 2, "error[npy]");
    fails(b"PK\x03\x04 this is a zip, not an npy", &[], 2, "error[npy]");
    let mut bad_dict = header("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 2), }");
    bad_dict.extend([0u8; 16]);
    fails(&bad_dict, &[], 2, "error[npy]");
    let mut bad_version = good.clone();
    bad_version[6] = 9;
    fails(&bad_version, &[], 2, "error[npy]");
}

#[test]
fn header_claiming_a_huge_shape_allocates_nothing() {
    // 2^60 float32 elements claimed by a 100-byte file: rejected by comparing with the file size, instantly.
    let mut v = header("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824, 1073741824), }");
    v.extend([0u8; 36]);
    fails(&v, &[], 2, "error[npy]");
    let mut v = header("{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551615, 3), }");
    v.extend([0u8; 8]);
    fails(&v, &[], 2, "error[npy]");
}

#[test]
fn header_longer_than_the_file() {
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&60000u16.to_le_bytes());
    v.extend_from_slice(b"{'descr': '<f4', ");
    fails(&v, &[], 2, "error[npy]");
    let mut v = b"\x93NUMPY\x02\x00".to_vec();
    v.extend_from_slice(&u32::MAX.to_le_bytes());
    fails(&v, &[], 2, "error[npy]");
}

#[test]
fn unsupported_types() {
    let mut v = header("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }");
    v.extend([0u8; 4]);
    fails(&v, &[], 2, "error[npy]");
    let mut v = header("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }");
    v.extend([0u8; 8]);
    fails(&v, &[], 2, "error[npy]");
}

#[test]
fn bad_lists() {
    let good = good_npy();
    fails(&good, &["--offsets", "0,x"], 2, "error[args]: --offsets item 2");
    fails(&good, &["--offsets", "0,-1"], 2, "error[args]: --offsets item 2");
    fails(&good, &["--sizes", "1,,1"], 2, "error[args]: --sizes item 2");
    fails(&good, &["--strides", "1,99999999999"], 2, "error[args]: --strides item 2");
    fails(&good, &["--output-sizes", ""], 2, "error[args]: --output-sizes");
    fails(
        &good,
        &["--offsets", "0,0,0"],
        2,
        "error[R-S1-1]: --offsets (DirectML's InputWindowOffsets) has 3 entries, but the input has 2 dimensions",
    );
    fails(&good, &["--strides", "1"], 2, "error[R-S1-1]: --strides (DirectML's InputWindowStrides) has 1 entries");
    fails(&good, &["--strides", "1,0"], 2, "error[R-S1-4]: InputWindowStrides[1] is 0");
    // The default size is the rest of the dimension, 0 here: the message says it was a default (D11: explicit flags
    // reject empty windows).
    fails(&good, &["--offsets", "0,2"], 2, "error[R-S1-3]: InputWindowSizes[1] is 0: --sizes was not given");
    fails(&good, &["--offsets", "0,3"], 2, "error[R-S1-2]: InputWindowOffsets[1] = 3 (from --offsets) lies past");
    fails(&good, &["--output-sizes", "2,3"], 2, "error[R-S1-5]: OutputTensor.Sizes[1] is 3");
    fails(&good, &["--output-strides", "0,1"], 2, "error[D1]: OutputTensor.Strides");
    fails(&good, &["--input-sizes", "2,2"], 2, "error[args]: --input-sizes reads");
    fails(&good, &["--numpy", "1:2:0"], 2, "error[numpy]");
    fails(&good, &["--numpy", "5"], 2, "error[numpy]");
    fails(&good, &["--onnx-starts", "0", "--onnx-ends", "1", "--onnx-axes", "7"], 2, "error[onnx]");
    fails(&good, &["--numpy", "0", "--offsets", "1,1"], 2, "error: the argument");
    fails(&good, &["--feature-level", "2_1"], 2, "error[R-S1-1]: DimensionCount is 2");
}

#[test]
fn strided_flat_input_errors() {
    let mut v = header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }");
    v.extend([0u8; 12]);
    fails(&v, &["--input-sizes", "2,3", "--input-strides", "1"], 2, "error[R-BT-4]: InputTensor.Strides has 1 entries");
    fails(&v, &["--input-sizes", "2,0"], 2, "error[R-BT-3]: InputTensor.Sizes[1] is 0");
    fails(&v, &["--input-sizes", "2,3", "--input-strides", "4294967295,1"], 2, "error[R-BT-6]");
}

#[test]
fn nonexistent_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    fails_at(&dir.path().join("missing.npy"), &out, &[], 1, "error[io]");
    assert!(!out.exists());
}

#[test]
fn unwritable_output_directory() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npy");
    std::fs::write(&input, good_npy()).unwrap();
    fails_at(&input, &dir.path().join("no/such/dir/out.npy"), &[], 1, "error[io]");
    // A directory where the file should go: an argument error, not an I/O failure.
    let target = dir.path().join("is_a_dir");
    std::fs::create_dir(&target).unwrap();
    fails_at(&input, &target, &[], 2, "error[npy]");
}

#[test]
fn output_to_a_device_is_refused() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npy");
    std::fs::write(&input, good_npy()).unwrap();
    // An atomic .npy writer does not write into devices (tests/cli_files.rs covers FIFOs).
    fails_at(&input, &PathBuf::from("/dev/full"), &[], 2, "error[npy]: /dev/full: it is a device, not a regular file");
    // The device is still a device (not replaced by a regular file).
    let meta = std::fs::metadata("/dev/full").unwrap();
    assert!(!meta.is_file());
}
