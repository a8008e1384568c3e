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
    // Miri's first pass (no AVX2) would repeat what its AVX2 pass runs with the portable option set.
    if cfg!(miri) && !cfg!(target_feature = "avx2") {
        return;
    }
    let input = stridekit_testkit::strategies::pseudo_random_bytes(5, desc.input.total_tensor_size_in_bytes as usize);
    common::check_against_reference(&desc, &input, 40).unwrap();
}

/// Rows of the table case: more than one pass of the table (46 rows of 11 f16, 93 of 11 bytes).
const R: u32 = if cfg!(miri) { 60 } else { 300 };
/// Rows of the short-row case: several grains of 16 rows.
const RS: u32 = if cfg!(miri) { 40 } else { 150 };
/// Elements of the bulk copy: beyond the short-row kernel's 1 KiB (which would take the sliding loop itself).
const C: u32 = if cfg!(miri) { 1100 } else { 3000 };
/// The transpose's sides: a partner, and at least two grains (64 elements) of the long side; whole SIMD tiles of
/// every element size (a transpose whose tiles would leave a tenth of it to their edge goes through a table
/// instead, `planner::ragged`).
const NA: u32 = if cfg!(miri) { 2 } else { 48 };
const NB: u32 = if cfg!(miri) { 130 } else { 208 };
/// Steps of the sliding loops (Miri pays for every element).
const S: u32 = if cfg!(miri) { 3 } else { 5 };

#[test]
fn tables_under_a_sliding_window() {
    // 11 elements 21 apart per row (a table block), rows 273 apart, read again by 7 steps 3 elements apart (wider
    // elements take gather tiles with the 7 steps as partner instead).
    // Under Miri f16 only: 60 rows are two passes of 11 f16 but not of 11 bytes.
    let types: &[DataType] = if cfg!(miri) { &[DataType::Float16] } else { &[DataType::Float16, DataType::Uint8] };
    for &dt in types {
        tiled_case(dt, &[7, R, 11], &[3, 273, 21]);
    }
}

#[test]
fn copies_transposes_and_short_rows_under_a_sliding_window() {
    let types: &[DataType] = if cfg!(miri) { &[DataType::Uint8] } else { &[DataType::Uint8, DataType::Float32] };
    for &dt in types {
        // Contiguous rows of C elements read again S times, 2 elements further on: tiles of a bulk copy.
        tiled_case(dt, &[S, C], &[2, 1]);
        // A transpose (NB elements 70 apart, under a partner of NA reading contiguously) read again 3 steps 3 apart.
        tiled_case(dt, &[3, NA, NB], &[3, 1, 70]);
        // Short contiguous rows of 20 elements, 37 apart, read again S times 5 elements further on.
        tiled_case(dt, &[S, RS, 20], &[5, 37, 1]);
    }
}

/// Rows of the destination-tile case: more than a tile of 8-byte rows (64 under the test options).
const RD: u32 = if cfg!(miri) { 72 } else { 200 };
/// Its columns: whole SIMD tiles; for 4-byte elements, more than a table block a row (a transpose into strided rows
/// of at most a block goes through a table, which takes every column of every row as its offsets).
const ND: u32 = if cfg!(miri) { 8 } else { 72 };
/// Its source strides: the columns (rows of RD elements and some padding), the loop of 4 steps (past ND columns).
const BD: u32 = if cfg!(miri) { 80 } else { 200 };
const JD: u32 = if cfg!(miri) { 700 } else { 15000 };

#[test]
fn transposes_whose_rows_an_outer_loop_writes_again() {
    // Output rows of 4 x ND elements; a call transposes RD rows (contiguous in the source) by ND columns (source rows
    // BD apart) and writes ND elements of every row; the loop of 4 steps (JD apart in the source) writes the next ND
    // of every row. Tiles of the rows under it (`reuse::destination_tile`).
    let types: &[DataType] = if cfg!(miri) { &[DataType::Uint64] } else { &[DataType::Float32, DataType::Uint64] };
    for &dt in types {
        tiled_case(dt, &[RD, 4, ND], &[1, JD, BD]);
    }
}
