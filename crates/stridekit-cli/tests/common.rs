//! Shared helpers of the CLI tests: run the binary, compare with golden files.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `stridekit` with `args`.
pub fn run(args: &[&str]) -> Output {
    // Hermetic: a streaming profile of the developer's machine (`stridekit calibrate`) does not change the plans.
    Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(args)
        .env("STRIDEKIT_PROFILE", "off")
        .output()
        .expect("the stridekit binary runs")
}

/// Stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Compares `actual` with `tests/golden/<name>`; `UPDATE_GOLDEN=1` rewrites the file instead.
pub fn golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(actual, expected, "golden file {name} differs (UPDATE_GOLDEN=1 rewrites it)");
}

/// A .npy v1 preamble and header for the literal `dict` (padded so the data starts on a multiple of 64 bytes).
pub fn npy_header(dict: &str) -> Vec<u8> {
    let mut dict = dict.to_owned();
    while !(10 + dict.len() + 1).is_multiple_of(64) {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// A minimal .npy v1 file, written independently of the crate under test.
pub fn npy(descr: &str, fortran: bool, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let shape_text = match shape.len() {
        0 => "()".to_owned(),
        1 => format!("({},)", shape[0]),
        _ => format!("({})", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    };
    let fortran = if fortran { "True" } else { "False" };
    let mut out = npy_header(&format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape_text}, }}"));
    out.extend_from_slice(data);
    out
}

/// A case file holding DirectML's Slice1 doc example (4x4 f32, output 14, 16, 6, 8) with `"expect": <expect>`.
pub fn doc_case_with_expect(expect: &str) -> String {
    format!(
        r#"[{{"name": "doc", "dtype": "f32", "in_sizes": [1, 1, 4, 4], "in_strides": null,
        "window_offsets": [0, 0, 0, 1], "window_sizes": [1, 1, 4, 3], "window_strides": [1, 1, -2, 2],
        "out_sizes": [1, 1, 2, 2], "out_strides": null, "expect": {expect}}}]"#
    )
}
