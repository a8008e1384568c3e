//! Broadcast dimensions over destination-contiguous blocks: one block is computed, the others are copies of it
//! (doubled with ordinary stores up to 16 KiB, then copied as a whole; copied one by one into padded outputs, where
//! the blocks are spaced), on one thread and split over several, also where the broadcast loop lies inside another
//! loop (the threads' parts then start inside it).

mod common;

use stridekit::{BufferTensorDesc, DataType, Slice1Desc};

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
            broadcast_padded(dt, count, 4, width, 0, &[1, 1, 1]);
            broadcast_padded(dt, count, 4, width, 0, &[1, -1, -1]);
        }
    }
}

#[test]
fn short_blocks_replicated_from_their_pattern() {
    // Blocks of 1-31 bytes (one row of 1-7 elements) replicated 3 to 700 times: under 64 bytes in all (doubled),
    // within the 512 bytes of the repeated pattern, and past them into the doubling and the whole copies; a row
    // forwards and reversed. Under Miri bytes only, blocks of 5 and 24 bytes 150 times (pattern, doubling, copy),
    // forwards.
    let (counts, widths): (&[u32], &[u32]) =
        if cfg!(miri) { (&[150], &[5, 24]) } else { (&[3, 9, 100, 700], &[1, 2, 3, 5, 7]) };
    let strides: &[[i32; 3]] = if cfg!(miri) { &[[1, 1, 1]] } else { &[[1, 1, 1], [1, 1, -1]] };
    let types = if cfg!(miri) {
        vec![DataType::Uint8]
    } else {
        common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32])
    };
    for &dt in &types {
        for &width in widths {
            for &count in counts {
                for s in strides {
                    broadcast_padded(dt, count, 1, width, 0, s);
                }
            }
        }
    }
}

/// `count` broadcast steps of `rows` rows of `width` elements into an output whose steps are `pad` elements apart
/// beyond their block (0: a packed output, the blocks adjacent); `strides` walk the window (a reversed row, rows
/// bottom-up).
fn broadcast_padded(dt: DataType, count: u32, rows: u32, width: u32, pad: u32, strides: &[i32]) {
    broadcast_under(dt, None, count, rows, width, pad, strides);
}

/// [`broadcast_padded`] under `outer` steps of a loop around the broadcast one, when given: each step reads its own
/// rows and writes its own `count` steps (the window walks it forwards).
fn broadcast_under(dt: DataType, outer: Option<u32>, count: u32, rows: u32, width: u32, pad: u32, strides: &[i32]) {
    let pitch = rows * width + pad;
    let (mut sizes, mut in_strides, mut out_strides) =
        (vec![count, rows, width], vec![0, width, 1], vec![pitch, width, 1]);
    let mut window_strides = strides.to_vec();
    if let Some(outer) = outer {
        sizes.insert(0, outer);
        in_strides.insert(0, rows * width);
        out_strides.insert(0, count * pitch);
        window_strides.insert(0, 1);
    }
    let desc = Slice1Desc {
        input: BufferTensorDesc::new(dt, &sizes, Some(&in_strides)).unwrap(),
        output: BufferTensorDesc::new(dt, &sizes, Some(&out_strides)).unwrap(),
        input_window_offsets: vec![0; sizes.len()],
        input_window_sizes: sizes.clone(),
        input_window_strides: window_strides,
    };
    let input = stridekit_testkit::strategies::pseudo_random_bytes(5, desc.input.total_tensor_size_in_bytes as usize);
    common::check_against_reference(&desc, &input, 40).unwrap();
}

#[test]
fn replicated_blocks_into_padded_outputs() {
    // Steps spaced by 1-13 elements of padding, whose bytes must keep the sentinel: blocks of a reversed row
    // (a reverse kernel), of rows bottom-up (with streaming stores, walked top-down in the source and bottom-up in
    // the destination: the block starts below the step's pointer) and of both.
    // Rows of 1100 elements are bulk copies under a loop of rows (longer than the short-rows kernel takes). Under
    // Miri, which pays for every element of the reference, two steps of the shapes that reach both block starts.
    let (count, shapes): (u32, &[(u32, u32, u32)]) = if cfg!(miri) {
        (2, &[(3, 20, 13), (2, 1100, 5)])
    } else {
        (40, &[(1, 37, 3), (3, 20, 13), (5, 72, 1), (3, 1100, 5)])
    };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Float64]) {
        for &(rows, width, pad) in shapes {
            for strides in [[1, 1, -1], [1, -1, 1], [1, -1, -1]] {
                broadcast_padded(dt, count, rows, width, pad, &strides);
            }
        }
    }
}

#[test]
fn replicated_loops_inside_outer_loops_split_over_threads() {
    // `outer` steps reading their own rows, each broadcast over `count` steps: the split stops before the broadcast
    // loop (enough steps around it) or takes it as its last loop (two steps for three threads), so that a thread's
    // part starts inside it and replicates from there. Blocks of a row copy and of a reversed row (a table block).
    let (count, outers): (u32, &[u32]) = if cfg!(miri) { (5, &[2]) } else { (72, &[2, 5]) };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float32]) {
        for &outer in outers {
            for (width, stride) in [(37, 1), (6, -1)] {
                broadcast_under(dt, Some(outer), count, 3, width, 0, &[1, 1, stride]);
            }
        }
    }
}
