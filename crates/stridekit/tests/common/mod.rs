//! Helpers shared by the front-end tests: the parameter arrays, the Slice1 rule check, and the real-NumPy oracle
//! (`tests/slice_oracle.py`) with its fixed-seed generator and naive DirectML gather.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};
use stridekit::DataType;
use stridekit::frontends::Slice1Params;

/// `(offsets, sizes, strides, output sizes)`.
pub type Arrays = (Vec<u32>, Vec<u32>, Vec<i32>, Vec<u32>);

pub fn arrays(p: &Slice1Params) -> Arrays {
    (
        p.input_window_offsets.clone(),
        p.input_window_sizes.clone(),
        p.input_window_strides.clone(),
        p.output_sizes.clone(),
    )
}

/// Checks the Slice1 rules R-S1-2..5 on the parameters, then validates them as a Slice1 on packed tensors.
pub fn assert_valid(p: &Slice1Params) {
    for d in 0..p.rank() {
        let (offset, size, stride, out) =
            (p.input_window_offsets[d], p.input_window_sizes[d], p.input_window_strides[d], p.output_sizes[d]);
        assert!(u64::from(offset) + u64::from(size) <= u64::from(p.input_sizes[d]), "window outside the input: {p:?}");
        assert!(size >= 1 && stride != 0, "{p:?}");
        assert!(out >= 1 && out <= 1 + (size - 1) / stride.unsigned_abs(), "{p:?}");
    }
    p.to_packed_desc(DataType::Float32).unwrap().validate().unwrap();
}

/// SplitMix64: a fixed-seed generator, so that the cases are the same on every run.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
}

/// Runs the oracle script on the lines; `None` if python3 or numpy is missing.
pub fn run_oracle(lines: &[String]) -> Option<Vec<String>> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/slice_oracle.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    stdin.write_all(lines.join("\n").as_bytes()).ok()?;
    drop(stdin);
    let output = child.wait_with_output().ok()?;
    if output.status.code() == Some(3) {
        return None;
    }
    assert!(output.status.success(), "oracle failed: {}", String::from_utf8_lossy(&output.stderr));
    Some(String::from_utf8(output.stdout).ok()?.lines().map(str::to_string).collect())
}

/// Whether a missing NumPy fails the test (CI sets STRIDEKIT_REQUIRE_NUMPY=1) or only prints a note.
pub fn numpy_unavailable() {
    if std::env::var("STRIDEKIT_REQUIRE_NUMPY").is_ok_and(|v| v == "1") {
        panic!("STRIDEKIT_REQUIRE_NUMPY=1 but python3 with numpy is not available");
    }
    eprintln!("note: python3 with numpy is not available; skipping the comparison with NumPy");
}

/// The naive gather from DirectML's pseudocode on `arange(prod(shape))`: Output[o] = Input[CopyStart + stride * o].
pub fn gather(p: &Slice1Params) -> Vec<i64> {
    let rank = p.rank();
    let copy_start = p.copy_start();
    let mut packed = vec![1i64; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        packed[d] = packed[d + 1] * i64::from(p.input_sizes[d + 1]);
    }
    let count: u64 = p.output_sizes.iter().map(|&n| u64::from(n)).product();
    let mut out = Vec::with_capacity(count as usize);
    let mut o = vec![0u32; rank];
    for _ in 0..count {
        let mut linear = 0i64;
        for d in 0..rank {
            let coord = copy_start[d] as i64 + i64::from(p.input_window_strides[d]) * i64::from(o[d]);
            assert!((0..i64::from(p.input_sizes[d])).contains(&coord), "read outside the input: {p:?}");
            linear += coord * packed[d];
        }
        out.push(linear);
        for d in (0..rank).rev() {
            o[d] += 1;
            if o[d] < p.output_sizes[d] {
                break;
            }
            o[d] = 0;
        }
    }
    out
}
