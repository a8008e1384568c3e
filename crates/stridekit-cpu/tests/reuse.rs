//! Outer loops that read again what the loops inside them read (windows sliding by a few elements over an input
//! whose strides overlap): the planner takes the inner kernel in tiles under every outer loop (`reuse.rs`). Each
//! case checks that the tiles are taken (with the test options' 256-byte tiles) and that every option set, tiled or
//! not, on one thread or split over several, matches the reference.

mod common;

use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
use stridekit_cpu::{ExecOptions, PreparedSlice1};

fn tiled_case(dt: DataType, sizes: &[u32], strides: &[u32]) {
    let desc = Slice1Desc {
        input: BufferTensorDesc::new(dt, sizes, Some(strides)).unwrap(),
        output: BufferTensorDesc::packed(dt, sizes).unwrap(),
        input_window_offsets: vec![0; sizes.len()],
        input_window_sizes: sizes.to_vec(),
        input_window_strides: vec![1; sizes.len()],
    };
    let plan = desc.validate().unwrap();
    let op = PreparedSlice1::new(&plan, ExecOptions::exercise_all_paths(1)).unwrap();
    assert!(format!("{op:?}").contains("reuse_tile: Some("), "{sizes:?} {strides:?} is not tiled: {op:?}");
    let input = stridekit_testkit::strategies::pseudo_random_bytes(5, desc.input.total_tensor_size_in_bytes as usize);
    common::check_against_reference(&desc, &input, 40).unwrap();
}

const R: u32 = if cfg!(miri) { 24 } else { 300 };
/// The transpose's sides: at least a tile of the partner and three grains (64 elements) of the long side.
const NA: u32 = if cfg!(miri) { 16 } else { 40 };
const NB: u32 = if cfg!(miri) { 130 } else { 200 };

#[test]
fn tables_under_a_sliding_window() {
    // 11 elements 21 apart per row (a table block), rows 273 apart, read again by 7 steps 3 elements apart (wider
    // elements take gather tiles with the 7 steps as partner instead).
    for dt in common::types_for_run(&[DataType::Float16, DataType::Uint8]) {
        tiled_case(dt, &[7, R, 11], &[3, 273, 21]);
    }
}

#[test]
fn copies_transposes_and_short_rows_under_a_sliding_window() {
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float32]) {
        // Contiguous rows of 10 R elements read again 5 times, 2 elements further on: tiles of a bulk copy.
        tiled_case(dt, &[5, 10 * R], &[2, 1]);
        // A transpose (NB elements 70 apart, under a partner of NA reading contiguously) read again 3 steps 2 apart.
        tiled_case(dt, &[3, NA, NB], &[2, 1, 70]);
        // Short contiguous rows of 20 elements, 37 apart, read again 4 times 5 elements further on.
        tiled_case(dt, &[4, R, 20], &[5, 37, 1]);
    }
}
