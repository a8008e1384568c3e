//! Runs of 129 bytes to 1 KiB under strided and reversed outer dimensions: the short-row kernel copies each with
//! one `memcpy`, and assembles runs that are not whole lines in an L1 stage before streaming them.

mod common;

use stridekit::{BufferTensorDesc, DataType, Slice1Desc};

#[test]
fn medium_runs_every_other_row_and_reversed() {
    // Under Miri: 4-byte elements only (a quarter of the elements per byte) and 6 rows (6 x 1000 bytes are staged).
    let rows: u32 = if cfg!(miri) { 6 } else { 90 };
    let types: &[DataType] = if cfg!(miri) { &[DataType::Float32] } else { &[DataType::Uint8, DataType::Float32] };
    for &dt in types {
        let e = dt.size_in_bytes().unwrap();
        let (lengths, steps): (&[u32], &[[i32; 2]]) = if cfg!(miri) {
            (&[200, 1000], &[[2, 1], [-1, 1]])
        } else {
            (&[129, 200, 256, 364, 1000, 1024], &[[2, 1], [-1, 1], [-2, 1]])
        };
        for &bytes in lengths {
            let c = bytes / e;
            for &strides in steps {
                let desc = Slice1Desc {
                    input: BufferTensorDesc::packed(dt, &[2 * rows, c + 3]).unwrap(),
                    output: BufferTensorDesc::packed(dt, &[rows, c]).unwrap(),
                    input_window_offsets: vec![0, 1],
                    input_window_sizes: vec![2 * rows, c],
                    input_window_strides: strides.to_vec(),
                };
                let input = stridekit_testkit::strategies::pseudo_random_bytes(
                    5,
                    desc.input.total_tensor_size_in_bytes as usize,
                );
                let desc = Slice1Desc {
                    output: BufferTensorDesc::packed(dt, &[(2 * rows - 1) / strides[0].unsigned_abs() + 1, c]).unwrap(),
                    ..desc
                };
                common::check_against_reference(&desc, &input, 40).unwrap();
            }
        }
    }
}
