//! `stridekit slice`: the DirectML doc examples, every way of naming a window, strided inputs and outputs, and the
//! data types, end to end through real files.

mod common;
use common::{npy, run, stderr, stdout};
use std::path::{Path, PathBuf};

/// The descr, shape and data of a .npy v1/v2 file written by stridekit (C order).
fn read(path: &Path) -> (String, Vec<usize>, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let (len, start) = if bytes[6] == 1 {
        (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)
    } else {
        (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12)
    };
    let header = std::str::from_utf8(&bytes[start..start + len]).unwrap();
    assert_eq!((start + len) % 64, 0, "data is 64-byte aligned");
    assert!(header.contains("'fortran_order': False"), "{header}");
    let descr = header.split("'descr': '").nth(1).unwrap().split('\'').next().unwrap().to_owned();
    let shape_text = header.split("'shape': (").nth(1).unwrap().split(')').next().unwrap();
    let shape = shape_text.split(',').filter(|s| !s.trim().is_empty()).map(|s| s.trim().parse().unwrap()).collect();
    (descr, shape, bytes[start + len..].to_vec())
}

/// The window of DirectML's Slice1 example 2.
const DOC_EXAMPLE_2: [&str; 6] = ["--offsets", "0,0,0,1", "--sizes", "1,1,4,3", "--strides", "1,1,-2,2"];

fn f32s(data: &[u8]) -> Vec<f32> {
    data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn f32_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Self {
        Dir(tempfile::tempdir().unwrap())
    }
    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
    fn doc_input(&self) -> PathBuf {
        self.file("in.npy", &npy("<f4", false, &[1, 1, 4, 4], &f32_bytes((1..=16).map(|v| v as f32))))
    }
    /// Runs `stridekit slice IN out.npy args...`.
    fn slice(&self, input: &Path, args: &[&str]) -> std::process::Output {
        let out = self.path("out.npy");
        let mut full = vec!["slice", input.to_str().unwrap(), out.to_str().unwrap()];
        full.extend_from_slice(args);
        run(&full)
    }
    /// [`Dir::slice`], asserting success; returns the output file's contents.
    fn slice_ok(&self, input: &Path, args: &[&str]) -> (String, Vec<usize>, Vec<u8>) {
        let o = self.slice(input, args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        read(&self.path("out.npy"))
    }
}

#[test]
fn slice1_doc_example_2_negative_stride() {
    let d = Dir::new();
    let (descr, shape, data) = d.slice_ok(&d.doc_input(), &DOC_EXAMPLE_2);
    assert_eq!(descr, "<f4");
    assert_eq!(shape, [1, 1, 2, 2]);
    assert_eq!(f32s(&data), [14.0, 16.0, 6.0, 8.0]);
}

#[test]
fn slice1_doc_example_1() {
    let d = Dir::new();
    let (_, _, data) = d.slice_ok(
        &d.doc_input(),
        &["--offsets", "0,0,0,1", "--sizes", "1,1,4,3", "--strides", "1,1,2,2", "--output-sizes", "1,1,2,2"],
    );
    assert_eq!(f32s(&data), [2.0, 4.0, 10.0, 12.0]);
}

#[test]
fn slice_v0_doc_examples_as_slice1() {
    let d = Dir::new();
    let input = d.doc_input();
    let (_, _, data) = d.slice_ok(&input, &["--offsets", "0,0,1,2", "--sizes", "1,1,3,2"]);
    assert_eq!(f32s(&data), [7.0, 8.0, 11.0, 12.0, 15.0, 16.0]);
    // Slice v0 (Offsets {0,0,1,0}, Sizes {1,1,2,2}, Strides {1,1,2,3}) = Slice1 with window (Sizes-1)*Strides+1.
    let (_, _, data) = d.slice_ok(&input, &["--offsets", "0,0,1,0", "--sizes", "1,1,3,4", "--strides", "1,1,2,3"]);
    assert_eq!(f32s(&data), [5.0, 8.0, 13.0, 16.0]);
}

#[test]
fn smaller_output_than_the_window_holds() {
    let d = Dir::new();
    let (_, shape, data) = d.slice_ok(
        &d.doc_input(),
        &["--offsets", "0,0,0,1", "--sizes", "1,1,4,3", "--strides", "1,1,-2,2", "--output-sizes", "1,1,1,2"],
    );
    assert_eq!(shape, [1, 1, 1, 2]);
    assert_eq!(f32s(&data), [14.0, 16.0]);
}

#[test]
fn explain_prints_parameters_and_plan() {
    let d = Dir::new();
    let o = d.slice(&d.doc_input(), &[&DOC_EXAMPLE_2[..], &["--explain"]].concat());
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(text.contains("InputWindowStrides: [1, 1, -2, 2]"), "{text}");
    assert!(text.contains("CopyStart:          [0, 0, 3, 1]"), "{text}");
    assert!(text.contains("input start offset: 13 elements"), "{text}");
}

#[test]
fn numpy_expression() {
    let d = Dir::new();
    let (_, shape, data) = d.slice_ok(&d.doc_input(), &["--numpy", "0, 0, ::-2, 1:"]);
    assert_eq!(shape, [1, 1, 2, 3]);
    assert_eq!(f32s(&data), [14.0, 15.0, 16.0, 6.0, 7.0, 8.0]);
}

#[test]
fn onnx_slice() {
    let d = Dir::new();
    let (_, shape, data) = d.slice_ok(
        &d.doc_input(),
        &[
            "--onnx-starts",
            "-1,1",
            "--onnx-ends",
            "-9223372036854775808,3",
            "--onnx-axes",
            "2,3",
            "--onnx-steps",
            "-2,1",
        ],
    );
    assert_eq!(shape, [1, 1, 2, 2]);
    assert_eq!(f32s(&data), [14.0, 15.0, 6.0, 7.0]);
}

#[test]
fn empty_slice_writes_an_empty_array() {
    let d = Dir::new();
    let out = d.path("out.npy");
    let o = run(&["slice", d.doc_input().to_str().unwrap(), out.to_str().unwrap(), "--numpy", "..., 3:1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("empty"), "{}", stderr(&o));
    let (_, shape, data) = read(&out);
    assert_eq!(shape, [1, 1, 4, 0]);
    assert!(data.is_empty());
}

#[test]
fn broadcast_input_from_a_flat_buffer() {
    let d = Dir::new();
    let input = d.file("flat.npy", &npy("<f4", false, &[3], &f32_bytes([1.0, 2.0, 3.0])));
    let (_, shape, data) = d.slice_ok(&input, &["--input-sizes", "2,3", "--input-strides", "0,1"]);
    assert_eq!(shape, [2, 3]);
    assert_eq!(f32s(&data), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
}

#[test]
fn padded_input_and_padded_output() {
    let d = Dir::new();
    // A 2x3 tensor with row stride 5 (the strides page's padded example): A B C x x D E F.
    let input = d.file("flat.npy", &npy("<f4", false, &[8], &f32_bytes([1.0, 2.0, 3.0, -1.0, -1.0, 4.0, 5.0, 6.0])));
    let (_, shape, data) = d.slice_ok(
        &input,
        &["--input-sizes", "2,3", "--input-strides", "5,1", "--strides", "1,-1", "--output-strides", "4,1"],
    );
    // Output buffer: rows reversed horizontally, row stride 4, padding zero.
    assert_eq!(shape, [7]);
    assert_eq!(f32s(&data), [3.0, 2.0, 1.0, 0.0, 6.0, 5.0, 4.0]);
}

#[test]
fn flat_buffer_needs_only_the_physical_extent() {
    let d = Dir::new();
    // 5 bytes of u8: the DirectML minimum is 8 bytes, but the file need only hold the 5 elements.
    let input = d.file("flat.npy", &npy("|u1", false, &[5], &[1, 2, 3, 4, 5]));
    let (descr, _, data) = d.slice_ok(&input, &["--input-sizes", "5", "--strides", "-1"]);
    assert_eq!(descr, "|u1");
    assert_eq!(data, [5, 4, 3, 2, 1]);
    // A shorter one is an error naming both lengths.
    let short = d.file("short.npy", &npy("|u1", false, &[4], &[1, 2, 3, 4]));
    let out = d.path("o.npy");
    let o = run(&["slice", short.to_str().unwrap(), out.to_str().unwrap(), "--input-sizes", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("holds 4 elements (4 bytes)") && stderr(&o).contains("reaches 5 elements"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn fortran_order_input() {
    let d = Dir::new();
    // Logical 2x3 [[1,2,3],[4,5,6]] stored column-major: 1 4 2 5 3 6.
    let input = d.file("f.npy", &npy("<f4", true, &[2, 3], &f32_bytes([1.0, 4.0, 2.0, 5.0, 3.0, 6.0])));
    let (_, shape, data) = d.slice_ok(&input, &["--numpy", "::-1, 1:"]);
    assert_eq!(shape, [2, 2]);
    assert_eq!(f32s(&data), [5.0, 6.0, 2.0, 3.0]);
}

#[test]
fn big_endian_input_is_swapped() {
    let d = Dir::new();
    let data: Vec<u8> = [1.0f32, 2.0, 3.0].iter().flat_map(|v| v.to_be_bytes()).collect();
    let input = d.file("be.npy", &npy(">f4", false, &[3], &data));
    let (descr, _, out) = d.slice_ok(&input, &["--strides", "-1"]);
    assert_eq!(descr, "<f4");
    assert_eq!(f32s(&out), [3.0, 2.0, 1.0]);
}

#[test]
fn every_data_type() {
    let d = Dir::new();
    for (descr, size) in [
        ("|u1", 1),
        ("|i1", 1),
        ("<u2", 2),
        ("<i2", 2),
        ("<f2", 2),
        ("<u4", 4),
        ("<i4", 4),
        ("<f4", 4),
        ("<u8", 8),
        ("<i8", 8),
        ("<f8", 8),
    ] {
        // 3x4 elements whose bytes are all distinct; reverse both dims, take every other column.
        let data: Vec<u8> = (0..12 * size).map(|i| i as u8).collect();
        let input = d.file("t.npy", &npy(descr, false, &[3, 4], &data));
        let (out_descr, shape, out) = d.slice_ok(&input, &["--strides", "-1,-2"]);
        assert_eq!(out_descr, descr);
        assert_eq!(shape, [3, 2]);
        let expected: Vec<u8> = [(2, 3), (2, 1), (1, 3), (1, 1), (0, 3), (0, 1)]
            .iter()
            .flat_map(|&(r, c)| data[(r * 4 + c) * size..(r * 4 + c + 1) * size].to_vec())
            .collect();
        assert_eq!(out, expected, "{descr}");
    }
}

#[test]
fn zero_d_input_reads_as_one_element() {
    let d = Dir::new();
    let input = d.file("s.npy", &npy("<f4", false, &[], &f32_bytes([7.0])));
    let (_, shape, data) = d.slice_ok(&input, &[]);
    assert_eq!(shape, [1]);
    assert_eq!(f32s(&data), [7.0]);
}

#[test]
fn threads_flag() {
    let d = Dir::new();
    let (_, _, data) = d.slice_ok(&d.doc_input(), &["--strides", "1,1,-1,-1", "--threads", "2"]);
    assert_eq!(f32s(&data), (1..=16).rev().map(|v| v as f32).collect::<Vec<_>>());
}

#[test]
fn print_shows_the_output_values() {
    let d = Dir::new();
    let o = d.slice(&d.doc_input(), &[&DOC_EXAMPLE_2[..], &["--print"]].concat());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "FLOAT32 [1, 1, 2, 2]: [14.0, 16.0, 6.0, 8.0]\n");
    let f16: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|&v| half_bits(v).to_le_bytes()).collect();
    let input = d.file("h.npy", &npy("<f2", false, &[2], &f16));
    let o = d.slice(&input, &["--strides", "-1", "--print"]);
    assert_eq!(stdout(&o), "FLOAT16 [2]: [-2.0, 1.5]\n");
}

/// f32 -> IEEE half bits for the exactly representable test values.
fn half_bits(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let mant = ((b >> 13) & 0x3ff) as u16;
    sign | ((exp as u16) << 10) | mant
}
