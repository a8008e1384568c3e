//! Broadcast dimensions over destination-contiguous blocks: one block is computed, the others are copies of it
//! (doubled with ordinary stores up to 16 KiB, then copied as a whole), on one thread and split over several.

mod common;

use stridekit::{BufferTensorDesc, DataType, Slice1Desc};

fn broadcast_rows(dt: DataType, rows: u32, outer: u32, width: u32, strides: &[i32]) {
    let desc = Slice1Desc {
        input: BufferTensorDesc::new(dt, &[rows, outer, width], Some(&[0, width, 1])).unwrap(),
        output: BufferTensorDesc::packed(dt, &[rows, outer, width]).unwrap(),
        input_window_offsets: vec![0; 3],
        input_window_sizes: vec![rows, outer, width],
        input_window_strides: strides.to_vec(),
    };
    let input = stridekit_testkit::strategies::pseudo_random_bytes(3, desc.input.total_tensor_size_in_bytes as usize);
    common::check_against_reference(&desc, &input, 40).unwrap();
}

#[test]
fn replicated_blocks_past_the_doubling_size() {
    // Blocks of 4 rows (148 bytes to 2.3 KiB), replicated hundreds of times: well past 16 KiB, with a partial last
    // copy of the grown prefix; rows forwards and reversed (a table block), every element size class.
    // Under Miri: 10 blocks of 2.3 KiB (f64) still pass the doubling size.
    let (count, widths): (u32, &[u32]) = if cfg!(miri) { (10, &[72]) } else { (300, &[37, 72]) };
    let types: &[DataType] = if cfg!(miri) {
        &[DataType::Float64]
    } else {
        &[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Float64]
    };
    for &dt in types {
        for &width in widths {
            broadcast_rows(dt, count, 4, width, &[1, 1, 1]);
            broadcast_rows(dt, count, 4, width, &[1, -1, -1]);
        }
    }
}
