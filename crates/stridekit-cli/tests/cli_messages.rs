//! Messages that must not mislead (issue 9): flags named as typed, defaults named as defaults, ranges given, one
//! rule id per error, floats printed as NumPy prints them, list indices refused, empty results checked like any
//! other (D11), and examples at the end of every `--help`.

mod common;
use common::{npy, run, stderr, stdout};
use std::path::{Path, PathBuf};

/// Writes `bytes` as `in.npy` in a new directory; returns the directory, IN and OUT.
fn input(bytes: &[u8]) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (i, o) = (dir.path().join("in.npy"), dir.path().join("out.npy"));
    std::fs::write(&i, bytes).unwrap();
    (dir, i, o)
}

fn u8_npy(shape: &[usize]) -> Vec<u8> {
    let n: usize = shape.iter().product();
    npy("|u1", false, shape, &(0..n).map(|i| i as u8).collect::<Vec<_>>())
}

/// Runs `slice IN OUT args`; returns (exit code, stderr, stdout).
fn slice(i: &Path, o: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut full = vec!["slice", i.to_str().unwrap(), o.to_str().unwrap()];
    full.extend_from_slice(args);
    let out = run(&full);
    (out.status.code(), stderr(&out), stdout(&out))
}

#[test]
fn a_list_of_the_wrong_length_names_the_flag_typed() {
    let (_d, i, o) = input(&u8_npy(&[2, 3]));
    let (code, err, _) = slice(&i, &o, &["--sizes", "3"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "error[R-S1-1]: --sizes (DirectML's InputWindowSizes) has 1 entries, but the input has 2 dimensions \
         (InputTensor.DimensionCount); give one entry per dimension\n"
    );
}

#[test]
fn a_default_size_is_named_as_the_default_it_is() {
    // 6x7 with --offsets 6,0 and no --sizes: the help says the default is the rest of the input, 0 here.
    let (_d, i, o) = input(&u8_npy(&[6, 7]));
    let (code, err, _) = slice(&i, &o, &["--offsets", "6,0"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "error[R-S1-3]: InputWindowSizes[0] is 0: --sizes was not given, and its default is the rest of dimension 0 \
         from its offset, InputTensor.Sizes[0] - InputWindowOffsets[0] = 6 - 6 = 0 (offset from --offsets); the window \
         must not be empty in any dimension\n"
    );
    assert!(!o.exists());
}

#[test]
fn numbers_out_of_range_say_the_range() {
    let base = ["explain", "--dtype", "f32", "--sizes", "2"];
    let o = run(&[&base[..], &["--flags", "4294967296"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--flags '4294967296' is not none, owned_by_dml or a number from 0 to 4294967295"));
    let o = run(&[&base[..], &["--total-bytes", "-1"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "--total-bytes '-1' is not a whole number from 0 to 18446744073709551615 (TotalTensorSizeInBytes is an \
             unsigned 64-bit integer)"
        ),
        "{}",
        stderr(&o)
    );
    let o = run(&[&base[..], &["--alignment", "-16"]].concat());
    assert!(stderr(&o).contains("--alignment '-16' is not a whole number from 0 to 4294967295"), "{}", stderr(&o));
}

#[test]
fn a_file_shape_beyond_directml_is_one_input_file_error() {
    // Dimension 10^12 (with a 0 beside it, so the file is valid and tiny).
    let (_d, i, o) = input(&npy("|u1", false, &[1_000_000_000_000, 0], &[]));
    let (code, err, _) = slice(&i, &o, &[]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        format!(
            "error[R-BT-6]: {}: dimension 0 of the .npy shape [1000000000000, 0] is 1000000000000; a DirectML size is \
             a UINT, at most 4294967295, so this file cannot be read as an input tensor\n",
            i.display()
        )
    );
    assert_eq!(err.matches("error[").count(), 1);
}

#[test]
fn print_writes_floats_as_numpy() {
    let values = [1.7e308f64, 0.1, 1e-5, 3.0, 1e16, -0.0];
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let (_d, i, o) = input(&npy("<f8", false, &[6], &data));
    let (code, err, out) = slice(&i, &o, &["--print"]);
    assert_eq!(code, Some(0), "{err}");
    // str(np.float64(x)) for each value.
    assert_eq!(out, "FLOAT64 [6]: [1.7e+308, 0.1, 1e-05, 3.0, 1e+16, -0.0]\n");
    let data: Vec<u8> = [3.4e38f32, 1e6, 0.1].iter().flat_map(|v| v.to_le_bytes()).collect();
    let (_d, i, o) = input(&npy("<f4", false, &[3], &data));
    let (_, _, out) = slice(&i, &o, &["--print"]);
    assert_eq!(out, "FLOAT32 [3]: [3.4e+38, 1e+06, 0.1]\n");
}

#[test]
fn a_list_index_is_fancy_indexing_and_refused() {
    let (_d, i, o) = input(&u8_npy(&[4, 3]));
    let (code, err, _) = slice(&i, &o, &["--numpy", "[1,2]"]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error[numpy]: '[1,2]' is a list of integers, which NumPy reads as integer-array (fancy)"));
    assert!(!o.exists());
}

#[test]
fn empty_results_are_checked_like_any_other() {
    // D11: rank, feature level and the rest apply whatever the window; explicit windows are never empty.
    let (_d, i, o) = input(&u8_npy(&[1; 9]));
    let (code, err, _) = slice(&i, &o, &["--numpy", "0:0"]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error[R-BT-2]"), "{err}");
    let (_d, i, o) = input(&u8_npy(&[4, 4]));
    let (code, err, _) = slice(&i, &o, &["--numpy", "3:3", "--feature-level", "1_0"]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error[D7]"), "{err}");
    assert!(!o.exists());
    // An empty input: the default window and NumPy's '...' both give the empty result; explicit flags refuse it.
    let (_d, i, o) = input(&u8_npy(&[0, 3]));
    for args in [&[][..], &["--numpy", "..."][..]] {
        let (code, err, _) = slice(&i, &o, args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(err.starts_with("note: the slice is empty (shape [0, 3])"), "{err}");
        std::fs::remove_file(&o).unwrap();
    }
    let (code, err, _) = slice(&i, &o, &["--offsets", "0,0"]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error[R-S1-3]: InputWindowSizes[0] is 0: --sizes was not given"), "{err}");
    // The output layout is checked for an empty result too.
    let (code, err, _) = slice(&i, &o, &["--output-strides", "1"]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error[R-BT-4]"), "{err}");
}

#[test]
fn every_help_ends_with_examples() {
    for command in ["explain", "slice", "bench"] {
        let o = run(&[command, "--help"]);
        assert!(o.status.success());
        let text = stdout(&o);
        let tail = &text[text.rfind("Examples:").unwrap_or_else(|| panic!("{command}: no examples"))..];
        let examples: Vec<&str> = tail.lines().skip(1).filter(|l| l.trim_start().starts_with("stridekit ")).collect();
        assert!((2..=3).contains(&examples.len()), "{command}: {tail}");
        assert!(examples.iter().all(|l| l.contains(&format!("stridekit {command} "))), "{command}: {tail}");
    }
}
