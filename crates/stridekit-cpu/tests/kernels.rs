//! One targeted case per kernel, large enough for full SIMD vectors and tiles, against the reference.

mod common;

use stridekit::{BufferTensorDesc, DataType, Slice1Desc};

#[allow(clippy::too_many_arguments)] // one argument per Slice1 field keeps the cases readable
fn case(
    dt: DataType,
    in_sizes: &[u32],
    in_strides: Option<&[u32]>,
    offsets: &[u32],
    windows: &[u32],
    strides: &[i32],
    out_sizes: &[u32],
    out_strides: Option<&[u32]>,
) {
    // Miri's first pass (scripts/miri.sh: no AVX2 at compile time, so run-time detection finds none) would only run
    // the portable kernels on these cases; its AVX2 pass runs them too, on the same cases (the portable option set
    // of `common::kernel_option_sets`), so the first pass skips them (they were 9 of its 20 minutes).
    if cfg!(miri) && !cfg!(target_feature = "avx2") {
        return;
    }
    let desc = Slice1Desc {
        input: BufferTensorDesc::new(dt, in_sizes, in_strides).unwrap(),
        output: BufferTensorDesc::new(dt, out_sizes, out_strides).unwrap(),
        input_window_offsets: offsets.to_vec(),
        input_window_sizes: windows.to_vec(),
        input_window_strides: strides.to_vec(),
    };
    let input = stridekit_testkit::strategies::pseudo_random_bytes(7, desc.input.total_tensor_size_in_bytes as usize);
    common::check_against_reference(&desc, &input, 40).unwrap();
}

const M: u32 = if cfg!(miri) { 8 } else { 37 };

#[test]
fn contiguous_runs_and_crops() {
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int64]) {
        case(dt, &[3, 10 * M], None, &[0, 5], &[3, 10 * M - 10], &[1, 1], &[3, 10 * M - 10], None);
        case(dt, &[1, 130 * M], None, &[0, 3], &[1, 130 * M - 10], &[1, 1], &[1, 130 * M - 10], None);
        case(dt, &[4, 70], None, &[0, 0], &[4, 70], &[-1, 1], &[4, 70], Some(&[80, 1]));
    }
}

#[test]
fn reversed_runs_every_element_size() {
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Int16, DataType::Uint32, DataType::Float64]) {
        case(dt, &[3, 4 * M], None, &[0, 1], &[3, 4 * M - 2], &[1, -1], &[3, 4 * M - 2], None);
        case(dt, &[2, 5 * M], None, &[0, 0], &[2, 5 * M], &[-1, -1], &[2, 5 * M], Some(&[5 * M + 3, 1]));
    }
}

#[test]
fn gathers_stride_2_3_4_and_negative() {
    for dt in common::types_for_run(&[DataType::Int8, DataType::Uint16, DataType::Float32, DataType::Uint64]) {
        // Rows long enough for several 32-byte vector blocks of 1-byte elements at stride 4, under Miri too.
        const ROW: u32 = 222;
        for s in [2, 3, 4, -2, -3, -4, 7, 9] {
            let s: i32 = s;
            case(dt, &[2, ROW], None, &[0, 1], &[2, ROW - 1], &[1, s], &[2, (ROW - 2) / s.unsigned_abs() + 1], None);
        }
    }
}

// Not under Miri: Miri runs no prefetch (`next_call` is `None` there), and the gathers themselves are tested above.
#[test]
#[cfg_attr(miri, ignore)]
fn backward_gathers_whose_calls_jump_request_the_next_call() {
    // Gathers read backwards whose next call jumps request that call's elements first (`dispatch::next_call`):
    // 44 u32 three apart per row from the end, rows bottom-up (sweep1_039); 79 u64 three apart, rows top-down
    // (sweep1_000); 100 u16 a hundred elements apart (each element a line of its own), rows bottom-up.
    let rows: u32 = 60;
    case(DataType::Uint32, &[rows + 2, 3, 133], None, &[0, 0, 1], &[rows, 1, 132], &[-1, 1, -3], &[rows, 1, 44], None);
    case(DataType::Uint64, &[rows + 6, 7, 235], None, &[6, 6, 0], &[rows, 1, 235], &[1, 1, -3], &[rows, 1, 79], None);
    case(DataType::Uint16, &[rows, 10000], None, &[0, 5], &[rows, 9901], &[-1, -100], &[rows, 100], None);
}

#[test]
fn gathers_stride_5_to_8_of_small_elements() {
    // Strides of 5-8 elements take the shuffle form for 1-byte elements (up to 8 source chunks per 16-byte lane),
    // forwards and backwards: rows of 41 and 160 outputs are vector blocks, overlapping edge blocks and a scalar
    // end; 2- and 4-byte elements keep the scalar loop.
    let outs: &[u32] = if cfg!(miri) { &[41] } else { &[41, 160] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32]) {
        for &out in outs {
            for s in [5i32, 6, 7, 8, -5, -6, -7, -8] {
                let row = (out - 1) * s.unsigned_abs() + 3;
                case(dt, &[2, row], None, &[0, 1], &[2, row - 1], &[1, s], &[2, out], None);
            }
        }
    }
}

#[test]
fn streamed_vector_regions_at_every_line_offset() {
    // The reverse, gather and fill kernels stream whole 64-byte lines only and store the block at either end of
    // their vector region normally (x86 `store::store_blocks`). Rows of n elements at a pitch of n + 1 start at
    // every offset modulo 64 bytes (one element later each row), and the two lengths leave odd and even numbers of
    // 32-byte blocks after the alignment head, with a scalar tail: every split of a region into lines is met.
    let rows: u32 = if cfg!(miri) { 4 } else { 65 };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float32, DataType::Float64]) {
        let e = dt.size_in_bytes_rounded_up();
        for n in [160 / e + 3, 192 / e + 1] {
            let out = [rows, n];
            let pitch: &[u32] = &[n + 1, 1];
            case(dt, &[rows, n], None, &[0, 0], &[rows, n], &[1, -1], &out, Some(pitch));
            case(dt, &[rows, 2 * n], None, &[0, 0], &[rows, 2 * n - 1], &[1, 2], &out, Some(pitch));
            case(dt, &[rows, 3 * n], None, &[0, 0], &[rows, 3 * n - 2], &[1, -3], &out, Some(pitch));
            case(dt, &[rows, n], Some(&[1, 0]), &[0, 0], &[rows, n], &[1, 1], &out, Some(pitch));
        }
    }
}

#[test]
fn transposes_nchw_to_nhwc_and_back() {
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int64]) {
        // At least 17 channels, so that full 16 x 16 byte tiles and a ragged edge occur under Miri too.
        let (c, h, w) = (M.max(17), 5, 11);
        // NCHW input -> NHWC output (output strides: C innermost).
        case(dt, &[2, c, h, w], None, &[0; 4], &[2, c, h, w], &[1; 4], &[2, c, h, w], Some(&[c * h * w, 1, w * c, c]));
        // NHWC input -> NCHW output.
        let nhwc = [c * h * w, 1, w * c, c];
        case(dt, &[2, c, h, w], Some(&nhwc), &[0; 4], &[2, c, h, w], &[1; 4], &[2, c, h, w], None);
        // The same with the channels read in reverse order (BGR pixels -> RGB planes): the source rows of the
        // transpose run backwards, so its tiles walk from the last channel.
        case(dt, &[2, c, h, w], Some(&nhwc), &[0; 4], &[2, c, h, w], &[1, -1, 1, 1], &[2, c, h, w], None);
        // A plain 2-D transpose with a reversed side.
        case(dt, &[M, 19], None, &[0, 0], &[M, 19], &[-1, 1], &[M, 19], Some(&[1, M]));
    }
}

#[test]
fn transposes_of_long_source_rows_in_strips() {
    // Source rows of at least 1 KiB (the strips of x86/transpose.rs, for elements of 1-4 bytes; Int64 checks that
    // its chunked walk still takes them), a ragged tile on both sides and a partial last strip of rows; then with
    // the rows read bottom-up, and into padded destination rows.
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int64]) {
        let e = dt.size_in_bytes().unwrap();
        // The SIMD tile's side (`kernels::tile_size`, private to the crate).
        let tile = match e {
            1 => 16,
            8 => 4,
            _ => 8,
        };
        // Under Miri, fewer rows than a strip (the partial one only).
        let (na, nb) = (1024 / e + 3, if cfg!(miri) { tile + 1 } else { 64 / e + tile + 1 });
        case(dt, &[nb, na], None, &[0, 0], &[nb, na], &[1, 1], &[nb, na], Some(&[1, nb]));
        case(dt, &[nb, na], None, &[0, 0], &[nb, na], &[-1, 1], &[nb, na], Some(&[1, nb + 3]));
    }
}

#[test]
fn transposes_of_fewer_rows_than_a_tile_out_of_pixels() {
    // A few channels of each pixel into planes (the short tiles of x86/short.rs): 12 of 16-byte pixels, 3 u16 and
    // u64 and 5 f32 of pixels a line or more apart; a ragged last tile of pixels (its tile overlapping the one
    // before); forwards, then with the pixels reversed (the highest pixel, whose load would pass the source's end,
    // is then the first) and into padded planes.
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int64]) {
        let e = dt.size_in_bytes().unwrap();
        let (c, pixel) = match e {
            1 => (12, 16),
            2 => (3, 32),
            4 => (5, 20),
            _ => (3, 8),
        };
        let nb = if cfg!(miri) { 19 } else { 67 };
        case(dt, &[nb, pixel], None, &[0, 1], &[nb, c], &[1, 1], &[nb, c], Some(&[1, nb]));
        case(dt, &[nb, pixel], None, &[0, pixel - c], &[nb, c], &[-1, 1], &[nb, c], Some(&[1, nb + 3]));
    }
}

#[test]
fn planes_out_of_short_pixels_by_64_byte_permutes() {
    // A few channels of short pixels into planes, 16 steps of 64 bytes per plane and more (the 64-byte permutes of
    // x86/planes.rs where AVX-512 VBMI is detected, other tiles elsewhere): every channel of each pixel, every second
    // channel backwards, both with the pixels reversed and into padded planes; a ragged last step (37 pixels past
    // the 16 steps). Under Miri no AVX-512 runs, and the other kernels have their own cases above.
    if cfg!(miri) {
        return;
    }
    for dt in [DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int64] {
        let e = dt.size_in_bytes().unwrap();
        let nb = 16 * 64 / e + 37;
        // (pixel, channels) read whole, and (pixel, channels) read every second one backwards (a window of 2n - 1
        // elements at stride -2 starts from its last).
        let ((pixel, c), (spaced, n)) = match e {
            1 => ((10, 5), (12, 5)),
            2 => ((5, 5), (16, 8)),
            4 => ((5, 5), (6, 3)),
            _ => ((4, 4), (5, 3)),
        };
        for flip in [1, -1] {
            for pad in [0, 3] {
                let planes = [1, nb + pad];
                case(dt, &[nb, pixel], None, &[0, 0], &[nb, c], &[flip, 1], &[nb, c], Some(&planes));
                let last = 2 * (n - 1);
                case(dt, &[nb, spaced], None, &[0, 0], &[nb, last + 1], &[flip, -2], &[nb, n], Some(&planes));
            }
        }
    }
}

#[test]
fn pixels_out_of_a_few_planes_by_64_byte_permutes() {
    // The mirror image: 5-12 planes into pixels, large enough that the planner takes a transpose (smaller ones go to
    // a table), forwards and backwards, with a ragged last step (the 64-byte permutes of x86/planes.rs for elements
    // of 1-4 bytes where AVX-512 VBMI is detected, the interleaves and tiles otherwise). Under Miri no AVX-512 runs.
    if cfg!(miri) {
        return;
    }
    for dt in [DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int64] {
        let e = dt.size_in_bytes().unwrap();
        let n = 1024 * 64 / e + 37;
        let c = match e {
            1 => 12,
            2 => 7,
            4 => 6,
            _ => 5,
        };
        for flip in [1, -1] {
            case(dt, &[c, n], None, &[0, 0], &[c, n], &[1, flip], &[c, n], Some(&[1, c]));
        }
    }
}

#[test]
fn interleaves_planes_into_pixels() {
    // CHW -> HWC with 2, 3 and 4 channels (the interleave kernel) and 5 (the tiles' edge loop). Planes of 3 x 13
    // values: more than two 16-byte blocks of 1-byte elements with a ragged tail. The second image's output starts
    // one element later (padded batch stride), so its destination is misaligned whatever the first one's was.
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int64]) {
        let (h, w) = (3, 13);
        for c in [2, 3, 4, 5] {
            let hwc = [c * h * w + 1, 1, w * c, c];
            case(dt, &[2, c, h, w], None, &[0; 4], &[2, c, h, w], &[1; 4], &[2, c, h, w], Some(&hwc));
            // A cropped, column-reversed window: source rows start anywhere, read through a reversed outer loop.
            case(dt, &[2, c, h, w + 3], None, &[0, 0, 0, 2], &[2, c, h, w], &[1, 1, -1, 1], &[2, c, h, w], Some(&hwc));
        }
    }
}

#[test]
fn deinterleaves_pixels_into_planes() {
    // HWC -> CHW with 2, 3 and 4 channels (the deinterleave kernel). Planes of 2 x 96 values: several whole 64-byte
    // lines of every element size, so that streamed lines, a head before them (the output buffer's alignment is
    // arbitrary) and a tail occur; planes of 3 x 13: blocks and a ragged tail, no whole line for small elements. A
    // padded output (planes 5 elements apart beyond their size, images one element) makes the rows' alignments
    // differ, which must fall back to ordinary stores.
    let shapes: &[(u32, u32)] = if cfg!(miri) { &[(2, 96)] } else { &[(2, 96), (3, 13), (4, 160)] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Int64]) {
        for &(h, w) in shapes {
            for c in [2, 3, 4] {
                let hwc = [c * h * w, 1, w * c, c];
                case(dt, &[2, c, h, w], Some(&hwc), &[0; 4], &[2, c, h, w], &[1; 4], &[2, c, h, w], None);
                let padded = [c * (h * w + 5) + 1, h * w + 5, w, 1];
                case(dt, &[2, c, h, w], Some(&hwc), &[0; 4], &[2, c, h, w], &[1; 4], &[2, c, h, w], Some(&padded));
                // The first 2 .. c - 1 channels of the pixels (RGBA -> RGB planes): the blocks read whole pixels, so
                // the last pixel (whose unread channels end the buffer) is left to the scalar tail.
                for n in 2..c {
                    case(dt, &[2, c, h, w], Some(&hwc), &[0; 4], &[2, n, h, w], &[1; 4], &[2, n, h, w], None);
                }
            }
        }
    }
}

#[test]
fn interleaves_eight_byte_planes_into_pixels() {
    // 8 planes of bytes into 8-byte pixels (the unpack network, 32 pixels per block): 90 pixels per image are a
    // head, whole blocks and a ragged tail; the second image starts one byte later (padded batch stride), so its
    // head differs. 2-byte elements take the square tiles (8 rows are a tile there).
    let ws: &[u32] = if cfg!(miri) { &[45] } else { &[45, 8 * M] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16]) {
        for &w in ws {
            let (c, h) = (8, 2);
            let hwc = [c * h * w + 1, 1, w * c, c];
            case(dt, &[2, c, h, w], None, &[0; 4], &[2, c, h, w], &[1; 4], &[2, c, h, w], Some(&hwc));
            // Planes read through a reversed channel loop: the source rows are b_src < 0 apart.
            case(dt, &[2, c, h, w], None, &[0; 4], &[2, c, h, w], &[1, -1, 1, 1], &[2, c, h, w], Some(&hwc));
        }
    }
}

#[test]
fn interleaves_padded_planes_into_pixels() {
    // 9-15 planes of bytes and 5-7 of 2 bytes (the padded unpack network, 16 or 8 pixels per block, each chunk the
    // OR of up to three shuffled pixels): 90 pixels per image are a head, whole blocks and a ragged tail; the second
    // image starts one element later, so its head differs; planes read through a reversed channel loop.
    let planes: &[(DataType, &[u32])] = if cfg!(miri) {
        &[(DataType::Uint8, &[12]), (DataType::Float16, &[6])]
    } else {
        &[(DataType::Uint8, &[9, 10, 11, 12, 13, 14, 15]), (DataType::Float16, &[5, 6, 7])]
    };
    for &(dt, cs) in planes {
        for &c in cs {
            let (h, w) = (2, 45);
            let hwc = [c * h * w + 1, 1, w * c, c];
            case(dt, &[2, c, h, w], None, &[0; 4], &[2, c, h, w], &[1; 4], &[2, c, h, w], Some(&hwc));
            case(dt, &[2, c, h, w], None, &[0; 4], &[2, c, h, w], &[1, -1, 1, 1], &[2, c, h, w], Some(&hwc));
        }
    }
}

#[test]
fn narrow_transposes_into_pixels() {
    // 5 to 15 planes of 1-byte elements (5 to 7 of 2 and 4 bytes): fewer rows than a tile. 32 pixels end a tile
    // exactly at the end of the range (its last row store goes through the spill block); 8 M pixels span several
    // chunks (not under Miri, where the first shape already takes both store paths).
    let shapes: &[(u32, u32)] = if cfg!(miri) { &[(2, 16)] } else { &[(2, 16), (2, 8 * M)] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Uint64]) {
        for &(h, w) in shapes {
            for c in [5, 7, 12] {
                let hwc = [c * h * w, 1, w * c, c];
                case(dt, &[2, c, h, w], None, &[0; 4], &[2, c, h, w], &[1; 4], &[2, c, h, w], Some(&hwc));
            }
        }
    }
}

#[test]
fn transposes_of_whole_line_rows_stream_in_line_blocks() {
    // Source rows and destination rows whole lines apart (3 lines and 5), as in the square power-of-two transposes,
    // streamed: the blocks of a line of each of 64 / e rows (`x86/lines.rs`). The window starts off line boundaries
    // and its sides are not whole blocks, so the edges around the blocks run too; forwards, with the source rows
    // reversed, and with the destination rows reversed (a reversed innermost window dimension).
    for dt in common::types_for_run(&[DataType::Float32, DataType::Uint8, DataType::Float16, DataType::Uint64]) {
        let c = 64 / dt.size_in_bytes_rounded_up();
        let (h, w) = (4 * c + 7, 3 * c);
        let (win_h, win_w) = (h - 2, w - 5);
        let out_strides = [1, 5 * c];
        for steps in [[1, 1], [-1, 1], [1, -1]] {
            let (sizes, offsets, windows) = ([h, w], [2, 3], [win_h, win_w]);
            case(dt, &sizes, None, &offsets, &windows, &steps, &[win_h, win_w], Some(&out_strides));
        }
    }
}

#[test]
fn transposes_into_long_rows_stream_whole_lines() {
    // NHWC -> NCHW with planes of 320 elements: every destination row a multiple of 32 bytes long, long enough for
    // whole 256-byte column blocks after the alignment head, and a channel count that leaves a ragged tile.
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Uint64]) {
        let (c, h, w) = (M.max(17), 8, 40);
        let nhwc = [c * h * w, 1, w * c, c];
        if !cfg!(miri) {
            case(dt, &[2, c, h, w], Some(&nhwc), &[0; 4], &[2, c, h, w], &[1; 4], &[2, c, h, w], None);
            // The same with the channels read in reverse order (BGR pixels -> RGB planes): the source rows of the
            // transpose run backwards, so its tiles walk from the last channel.
            case(dt, &[2, c, h, w], Some(&nhwc), &[0; 4], &[2, c, h, w], &[1, -1, 1, 1], &[2, c, h, w], None);
        }
        // The same with a reversed W: the source walks backwards, the destination is unchanged. Under Miri only
        // this one, which reaches every branch of the kernel and the negative source stride.
        case(dt, &[1, c, h, w], Some(&nhwc), &[0; 4], &[1, c, h, w], &[1, 1, 1, -1], &[1, c, h, w], None);
    }
}

#[test]
fn broadcasts_fill_and_replicate() {
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Float64]) {
        // Row broadcast: the inner row is copied once, then replicated.
        case(dt, &[3, 4, 2 * M], Some(&[0, 0, 1]), &[0; 3], &[3, 4, 2 * M], &[1; 3], &[3, 4, 2 * M], None);
        // Channel broadcast: inner stride 0, a fill per channel.
        case(dt, &[2, 3, 5, M], Some(&[0, 1, 0, 0]), &[0; 4], &[2, 3, 5, M], &[1; 4], &[2, 3, 5, M], None);
        // A broadcast scalar into a padded output.
        case(dt, &[4, 3 * M], Some(&[0, 0]), &[0; 2], &[4, 3 * M], &[1, -1], &[4, 3 * M], Some(&[3 * M + 4, 1]));
    }
}

#[test]
fn scatter_into_strided_output() {
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Int32]) {
        case(dt, &[8, 9], None, &[0, 0], &[8, 9], &[1, -1], &[8, 9], Some(&[20, 2]));
    }
}

#[test]
fn rank_8_mixed() {
    let sizes = [2, 3, 2, 2, 3, 2, 2, if cfg!(miri) { 4 } else { 40 }];
    case(DataType::Float32, &sizes, None, &[0; 8], &sizes, &[1, -1, 1, -1, 1, 1, -1, 1], &sizes, None);
}

#[test]
fn short_rows_under_strided_reversed_and_padded_dimensions() {
    // Runs of 1 to 129 bytes (every width class of the short-row kernel up to 128, and the first length past it) under a
    // reversed, a strided and a padded outer dimension: pixels of 3-4 channels, boxes, keypoints.
    let widths: &[u32] = if cfg!(miri) {
        &[1, 3, 8, 17, 40]
    } else {
        &[1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129]
    };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Uint64]) {
        let e = dt.size_in_bytes().unwrap();
        for &bytes in widths {
            if bytes % e != 0 {
                continue;
            }
            let c = bytes / e;
            let w = if cfg!(miri) { 5 } else { 23 };
            // Columns reversed (an image flipped left-right, channels kept).
            case(dt, &[3, w, c], None, &[0; 3], &[3, w, c], &[1, -1, 1], &[3, w, c], None);
            // Every other column, rows bottom-up.
            case(dt, &[4, 2 * w, c], None, &[0; 3], &[4, 2 * w, c], &[-1, 2, 1], &[4, w, c], None);
            // Into a channel-padded output (each run followed by one element of padding).
            case(dt, &[2, w, c], None, &[0; 3], &[2, w, c], &[1; 3], &[2, w, c], Some(&[w * (c + 1), c + 1, 1]));
        }
    }
}

#[test]
fn short_row_shuffles_at_every_run_length() {
    // Rows long enough for the periodic shuffle rather than a table (more than 256 bytes per call): pixels of 1-15
    // bytes flipped left-right and every other pixel, with row lengths around 300 bytes so that the whole blocks
    // and the ragged tail of runs copied one by one both vary with the length.
    // The shuffle is AVX2 code: Miri's portable pass (no AVX2 at compile time) runs one length of the row loop.
    let lengths: &[u32] = match (cfg!(miri), cfg!(target_feature = "avx2")) {
        (true, false) => &[3],
        (true, true) => &[3, 5, 8],
        _ => &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    };
    for &g in lengths {
        for extra in 0..if cfg!(miri) { 2 } else { 6 } {
            let w = 300 / g + extra;
            case(DataType::Uint8, &[2, w, g], None, &[0, 0, 0], &[2, w, g], &[1, -1, 1], &[2, w, g], None);
            if 3 * g <= 16 {
                case(
                    DataType::Uint8,
                    &[2, 2 * w, g],
                    None,
                    &[0, 1, 0],
                    &[2, 2 * w - 1, g],
                    &[1, 2, 1],
                    &[2, w, g],
                    None,
                );
            }
        }
    }
}

#[test]
fn short_runs_within_64_bytes_of_each_other() {
    // Short runs whose source spans fit a 64-byte window several at a time, into contiguous rows: with AVX-512 VBMI
    // the short-row kernel's 64-byte periodic permute takes them (two overlapping moves per run, or the 16-byte
    // shuffle, elsewhere). Every other 6-byte pixel bottom-up (five runs per window, a ragged end), f16 triples 12
    // bytes apart, and calls of 50 runs under an outer dimension.
    let n: u32 = if cfg!(miri) { 64 } else { 6001 };
    case(DataType::Uint8, &[n, 6], None, &[1, 0], &[n - 1, 6], &[-2, 1], &[(n - 1) / 2, 6], None);
    case(DataType::Float16, &[n, 6], None, &[0, 0], &[n, 3], &[1, 1], &[n, 3], None);
    case(DataType::Uint8, &[M, 100, 6], None, &[0, 1, 0], &[M, 99, 6], &[1, -2, 1], &[M, 50, 6], None);
}

#[test]
fn short_runs_from_overlapping_input_strides() {
    // Rows of g bytes one or a few bytes apart (input strides that overlap: a window sliding over a row), into
    // packed rows: in the source every run lies within a shuffle window of the next, but their destination bytes do
    // not fit one store (15-byte runs 1 apart once panicked: 30 mask bytes for a 16-byte shuffle).
    let rows: u32 = if cfg!(miri) { 16 } else { 1000 };
    for g in [3, 8, 15, 17, 33, 40, 63] {
        for step in [1, 3] {
            let input = [rows, g];
            case(DataType::Uint8, &input, Some(&[step, 1]), &[0, 0], &input, &[1, 1], &input, None);
            case(DataType::Uint8, &input, Some(&[step, 1]), &[0, 0], &input, &[-1, 1], &input, None);
        }
    }
}

#[test]
fn small_runs_through_tables() {
    // Gathers, reversed runs and broadcast elements of 2-8 elements under many rows (several table passes and a
    // partial one; long enough for the streaming stage), rows forwards and backwards, into contiguous and padded
    // outputs, and short runs under a broadcast row (one pass computed, then copied).
    let rows: u32 = if cfg!(miri) { 24 } else { 700 };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Uint64]) {
        // Under Miri (which pays for every instruction) two lengths, two strides and one row direction.
        let (lengths, steps, row_steps): (&[u32], &[i32], &[i32]) =
            if cfg!(miri) { (&[3, 8], &[2, -1], &[-1]) } else { (&[2, 3, 5, 8], &[2, -1, 3, -2], &[1, -1]) };
        for &n in lengths {
            for &s in steps {
                let width = (n - 1) * s.unsigned_abs() + 1 + 2;
                for &rs in row_steps {
                    let out = [rows, n];
                    case(dt, &[rows, width], None, &[0, 1], &[rows, width - 1], &[rs, s], &out, None);
                    case(dt, &[rows, width], None, &[0, 1], &[rows, width - 1], &[rs, s], &out, Some(&[n + 3, 1]));
                }
            }
            // Each row's element broadcast n times (a fill of n), and a short row under a broadcast row.
            case(dt, &[rows, n], Some(&[1, 0]), &[0, 0], &[rows, n], &[1, 1], &[rows, n], None);
            case(dt, &[rows, n], Some(&[0, 1]), &[0, 0], &[rows, n], &[1, -1], &[rows, n], None);
            // A short run broadcast over the rows of a single pass (one row walked, then doubled), under an outer
            // loop that moves the source backwards: forwards and reversed (under Miri, reversed only).
            let (few, outer) = (rows.min(32), if cfg!(miri) { 3 } else { 9 });
            for &s in if cfg!(miri) { &[-1][..] } else { &[1, -1][..] } {
                let (sizes, strides) = ([outer, few, n], [n + 2, 0, 1]);
                case(dt, &sizes, Some(&strides), &[0; 3], &sizes, &[-1, 1, s], &sizes, None);
            }
            // Two dimensions in the block: 3-element pixels in reversed 4-pixel groups, every other group.
            case(dt, &[rows, 8, 3], None, &[0; 3], &[rows, 8, 3], &[1, 2, -1], &[rows, 4, 3], None);
        }
    }
}

#[test]
fn copies_of_long_rows_at_many_offsets_within_a_line() {
    // Rows of 2500 bytes (past glibc's `rep movsb` threshold, which `x86::copy_avx2` replaces where the destination's
    // offset within its line is past the source's) 3000 bytes apart into rows 2563 apart: row r reads from 56 r and
    // writes to 3 r mod 64, a difference of 11 r mod 64, so the 24 rows take 24 different relations of the two
    // offsets (9 under Miri); f32 rows likewise, 4 bytes apart (3000 and 2572 bytes: a difference of 20 r mod 64).
    let rows: u32 = if cfg!(miri) { 9 } else { 24 };
    case(DataType::Uint8, &[rows, 3000], None, &[0, 0], &[rows, 2500], &[1, 1], &[rows, 2500], Some(&[2563, 1]));
    case(DataType::Float32, &[rows, 750], None, &[0, 1], &[rows, 640], &[1, 1], &[rows, 640], Some(&[643, 1]));
}

#[test]
fn copies_of_rows_that_jump_request_the_next_row_as_they_go() {
    // Bulk copies whose next call jumps (skipped rows, rows bottom-up, a padded output) request the next run's lines
    // from inside the copy (`copy_bytes_ahead`), with ordinary and streaming stores: runs of 1500 bytes (longer
    // than the short rows' kernel takes) 8000 apart, forwards and bottom-up, at a source offset that is no multiple
    // of a line; 1204-byte f32 runs from every third row into rows padded to 2 KB.
    let rows: u32 = if cfg!(miri) { 6 } else { 40 };
    for s in [2, -2] {
        case(DataType::Uint8, &[2 * rows, 4000], None, &[0, 5], &[2 * rows, 1500], &[s, 1], &[rows, 1500], None);
    }
    case(DataType::Float32, &[3 * rows, 900], None, &[0, 3], &[3 * rows, 301], &[3, 1], &[rows, 301], Some(&[512, 1]));
}

#[test]
fn short_rows_far_apart_request_the_next_calls_rows() {
    // Short runs more than a line apart whose next call jumps request the next call's runs from their row loop
    // (`rows::takes_next_call`): 12 runs of 74 bytes 296 apart per call (fewer runs than the loop looks ahead), 60
    // runs of 74 bytes bottom-up (more; with streaming stores, two stage blocks, the last of which requests), and
    // 21 runs of 100 bytes into a padded destination; every call's rows are a window of taller blocks, so that the
    // calls jump.
    let calls: u32 = if cfg!(miri) { 3 } else { 30 };
    case(DataType::Uint8, &[calls, 20, 296], None, &[0, 2, 7], &[calls, 12, 74], &[1; 3], &[calls, 12, 74], None);
    case(DataType::Uint8, &[calls, 70, 296], None, &[0, 3, 9], &[calls, 60, 74], &[1, -1, 1], &[calls, 60, 74], None);
    case(
        DataType::Int16,
        &[2 * calls, 21, 70],
        None,
        &[0, 0, 3],
        &[2 * calls, 21, 50],
        &[2, 1, 1],
        &[calls, 21, 50],
        Some(&[1200, 56, 1]),
    );
}

// Not under Miri: Miri runs no prefetch (`next_call` is `None` there), so these shapes only repeat table paths
// that the other table tests cover, and they took over twenty minutes there even at a quarter of the size.
#[test]
#[cfg_attr(miri, ignore)]
fn table_calls_that_jump_request_the_next_calls_first_pass() {
    // Table calls whose outer loop jumps request the next call's first pass from their last pass
    // (`table::table`'s `next_call`): one pass of two f16 rows of 8 x 16 elements from a hull of 2.4 KB per call,
    // calls 16 KB apart, into a channel-planar output (sweep1_183); 40 rows of 8 reversed f16 per call, calls read
    // bottom-up under a loop of 15 steps (sweep1_041); and u32 triples from three rows far apart under a loop 12
    // bytes on, which reads the same lines again and requests nothing (sweep1_119).
    let calls: u32 = 30;
    case(
        DataType::Float16,
        &[4 * calls + 7, 26, 39, 2],
        None,
        &[7, 7, 16, 0],
        &[4 * calls, 16, 23, 2],
        &[4, 1, 3, 1],
        &[calls, 16, 8, 2],
        Some(&[256, 8, 1, 128]),
    );
    case(
        DataType::Int16,
        &[calls, 40, 3, 26, 10, 8],
        None,
        &[0, 10, 0, 10, 0, 0],
        &[calls, 29, 3, 8, 10, 8],
        &[-1, 2, 3, 1, 2, -1],
        &[calls, 15, 1, 8, 5, 8],
        None,
    );
    case(
        DataType::Uint32,
        &[3, 1, 13, 8, 29, 129],
        None,
        &[0, 0, 0, 1, 0, 0],
        &[3, 1, 13, 7, 29, 129],
        &[-1, 1, -2, 1, 1, 3],
        &[3, 1, 7, 7, 29, 43],
        Some(&[1, 3, 87, 26187, 3, 609]),
    );
}

#[test]
fn gathers_of_up_to_128_bytes_under_rows_take_the_table() {
    // Gathers of 65-128 bytes per row go through the table with the rows around them (`SMALL_GATHER_MAX_BYTES`):
    // a stride-2 gather of 77 bytes backwards, rows 154 bytes apart (sweep1_112); 41 u16 at stride 3 from padded
    // rows of 149 (sweep2_110); 18 u32 at stride 3, rows bottom-up, into padded rows (sweep4_161); and 129 bytes,
    // one more than the table takes. Enough rows for several passes and a partial one.
    let rows: u32 = if cfg!(miri) { 20 } else { 300 };
    case(DataType::Uint8, &[rows, 154], None, &[0, 0], &[rows, 154], &[1, -2], &[rows, 77], None);
    case(DataType::Uint16, &[rows, 121], Some(&[149, 1]), &[0, 0], &[rows, 121], &[1, 3], &[rows, 41], None);
    case(
        DataType::Uint32,
        &[rows + 1, 60],
        Some(&[105, 1]),
        &[0, 6],
        &[rows, 54],
        &[-1, 3],
        &[rows, 18],
        Some(&[76, 1]),
    );
    case(DataType::Uint8, &[rows, 258], None, &[0, 0], &[rows, 258], &[1, -2], &[rows, 129], None);
}

#[test]
fn reversed_runs_of_up_to_256_bytes_under_rows_take_the_table() {
    // Reversed runs of 65-256 bytes a row go through the table with the rows around them (`planner::small_run`):
    // 15 f64 from rows of 180 (1440 bytes apart, sweep3_117), 55 u16 with the rows bottom-up too (sweep4_154), 103
    // u16 (206 bytes, sweep1_019), 128 u16 (a whole table block); 257 bytes, one more than a block, stay with the
    // reverse kernel. Enough rows for several passes and a partial one.
    let rows: u32 = if cfg!(miri) { 20 } else { 300 };
    case(DataType::Float64, &[rows, 180], None, &[0, 0], &[rows, 15], &[1, -1], &[rows, 15], None);
    case(DataType::Uint16, &[rows, 55], None, &[0, 0], &[rows, 55], &[-1, -1], &[rows, 55], None);
    case(DataType::Uint16, &[rows, 110], None, &[0, 3], &[rows, 103], &[1, -1], &[rows, 103], Some(&[105, 1]));
    case(DataType::Uint16, &[rows, 128], None, &[0, 0], &[rows, 128], &[1, -1], &[rows, 128], None);
    case(DataType::Uint8, &[rows, 257], None, &[0, 0], &[rows, 257], &[1, -1], &[rows, 257], None);
    // The route: the table up to a block of 256 bytes a run, the reverse kernel beyond.
    let route = |dt, n: u32| {
        let desc = Slice1Desc {
            input: BufferTensorDesc::new(dt, &[rows, n], None).unwrap(),
            output: BufferTensorDesc::new(dt, &[rows, n], None).unwrap(),
            input_window_offsets: vec![0, 0],
            input_window_sizes: vec![rows, n],
            input_window_strides: vec![1, -1],
        };
        let op = stridekit_cpu::PreparedSlice1::new(&desc.validate().unwrap(), stridekit_cpu::ExecOptions::default());
        op.unwrap().kernel()
    };
    assert_eq!(route(DataType::Float64, 15), "table");
    assert_eq!(route(DataType::Uint16, 128), "table");
    assert_eq!(route(DataType::Uint8, 257), "reverse");
}

#[test]
fn table_passes_over_far_rows_request_the_next_pass() {
    // Passes whose rows are short streams far apart, with chunks of 4 or 8 windows, request the next pass's lines
    // before they run (`portable::table::request_lines`; they spread them over their chunks until the fifty-ninth
    // round): every eighth byte of two phases from 256-byte rows, every third row bottom-up (rows 768 bytes apart,
    // 8 windows per chunk; sweep1_080), and 7-byte runs of 11 rows of 17 bytes from blocks 5491 bytes apart (4
    // windows; sweep1_141). Enough rows for many passes and a partial one.
    let rows: u32 = if cfg!(miri) { 34 } else { 300 };
    case(
        DataType::Uint8,
        &[3 * rows + 2, 32, 8],
        None,
        &[0, 0, 5],
        &[3 * rows, 32, 3],
        &[-3, 1, 2],
        &[rows, 32, 2],
        Some(&[64, 1, 32]),
    );
    case(
        DataType::Uint8,
        &[rows, 17, 19, 17],
        None,
        &[0, 16, 0, 9],
        &[rows, 1, 11, 7],
        &[1; 4],
        &[rows, 1, 11, 7],
        None,
    );
}

#[test]
fn padded_rows_of_a_few_bytes_through_the_row_shuffle() {
    // Tables of one row per pass (the output rows are padded) whose row is at most 32 bytes from at most 16: a
    // gather of 5 at stride 2 (two overlapping stores), reversed pairs, one element broadcast over a row of 16 or 28
    // bytes (a fill of the row), rows forwards and backwards, 2 rows (the last window moved down) and many. Byte
    // elements under Miri's portable pass; its AVX2 pass adds 4-byte elements.
    let rows: &[u32] = if cfg!(miri) { &[2, 9] } else { &[2, 3, 70] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32]) {
        for &n in rows {
            for rs in [1, -1] {
                let out = Some(&[7u32, 1][..]);
                case(dt, &[n, 11], None, &[0, 0], &[n, 10], &[rs, 2], &[n, 5], out);
                case(dt, &[n, 3], None, &[0, 1], &[n, 2], &[rs, -1], &[n, 2], Some(&[5, 1]));
                // A row of 16 and of 28 bytes (two 16-byte stores).
                for w in [16, 28].map(|b| b / dt.size_in_bytes().unwrap()) {
                    case(dt, &[n, w], Some(&[3, 0]), &[0, 0], &[n, w], &[rs, 1], &[n, w], Some(&[w + 1, 1]));
                }
            }
        }
    }
}

#[test]
fn broadcast_rows_into_padded_rows_through_the_table() {
    // Every row of the table reads the same bytes (a broadcast row dimension) into destination rows spaced by the
    // output's padding: the row is computed once and copied to each (`portable/table.rs::table`). A stride-2 gather
    // of 6, a reversed run of 5 and a 64-byte-apart gather, into rows padded by one element and by 40, for 2 rows, 3
    // and many (under Miri, rows padded by 40 only).
    let rows: &[u32] = if cfg!(miri) { &[2, 9] } else { &[2, 3, 70] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Float64]) {
        for &n in rows {
            for &pad in if cfg!(miri) { &[40][..] } else { &[1, 40][..] } {
                case(dt, &[n, 13], Some(&[0, 1]), &[0, 1], &[n, 12], &[1, 2], &[n, 6], Some(&[6 + pad, 1]));
                case(dt, &[n, 7], Some(&[0, 1]), &[0, 1], &[n, 5], &[1, -1], &[n, 5], Some(&[5 + pad, 1]));
                let far = 64 / dt.size_in_bytes().unwrap();
                case(
                    dt,
                    &[n, 4 * far],
                    Some(&[0, 1]),
                    &[0, 0],
                    &[n, 4 * far],
                    &[1, far as i32],
                    &[n, 4],
                    Some(&[4 + pad, 1]),
                );
            }
        }
    }
    // Those shapes do take the table (a gather and a reverse of a few elements under rows).
    let desc = Slice1Desc {
        input: BufferTensorDesc::new(DataType::Float32, &[70, 13], Some(&[0, 1])).unwrap(),
        output: BufferTensorDesc::new(DataType::Float32, &[70, 6], Some(&[46, 1])).unwrap(),
        input_window_offsets: vec![0, 1],
        input_window_sizes: vec![70, 12],
        input_window_strides: vec![1, 2],
    };
    let op = stridekit_cpu::PreparedSlice1::new(&desc.validate().unwrap(), stridekit_cpu::ExecOptions::default());
    assert_eq!(op.unwrap().kernel(), "table");
}

#[test]
fn planes_into_padded_pixels_through_the_stage() {
    // Spaced destination rows (a padded output) whose dense passes have a shuffle form go pass by pass through an
    // L1 stage and are then copied row by row (`table::spaced_rows`, `portable/table.rs::table`): three planes, read
    // forwards or backwards, into the first 3 of 13 channels or of 4; four elements 3 apart into rows 40 elements
    // apart (whose one row alone has a shuffle form). 16 rows (the fewest), and enough for whole passes and a
    // partial one; u64 pairs into rows of 29, whose dense pass has no shuffle form and walks. The sentinel-filled
    // output shows that no padding byte is written.
    let rows: &[u32] = if cfg!(miri) { &[16] } else { &[16, 100, 700] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32]) {
        for &n in rows {
            for rs in [1, -1] {
                for pixel in [13, 4] {
                    let planes = Some(&[1, n][..]);
                    case(dt, &[n, 9], planes, &[0, 5], &[n, 3], &[rs, 1], &[n, 3], Some(&[pixel, 1]));
                }
                case(dt, &[n, 10], None, &[0, 0], &[n, 10], &[rs, 3], &[n, 4], Some(&[40, 1]));
            }
        }
    }
    // u64 pairs 2 apart into rows of 29 (a dense pass without a shuffle form, walked into the stage).
    for &n in rows {
        for rs in [1, -1] {
            case(DataType::Float64, &[n, 120], None, &[0, 0], &[n, 3], &[rs, 2], &[n, 2], Some(&[29, 1]));
        }
    }
    // Those shapes do take the stage: passes of several rows under destination rows further apart than a row.
    let desc = Slice1Desc {
        input: BufferTensorDesc::new(DataType::Float32, &[700, 9], Some(&[1, 700])).unwrap(),
        output: BufferTensorDesc::new(DataType::Float32, &[700, 3], Some(&[13, 1])).unwrap(),
        input_window_offsets: vec![0, 5],
        input_window_sizes: vec![700, 3],
        input_window_strides: vec![-1, 1],
    };
    let options = stridekit_cpu::ExecOptions { threads: 1, ..Default::default() };
    let op = stridekit_cpu::PreparedSlice1::new(&desc.validate().unwrap(), options).unwrap();
    let plan = op.describe();
    assert!(plan.starts_with("table block 3x4B") && plan.contains("/52 per 85 "), "{plan}");
}

#[test]
fn table_partners_over_a_few_passes_split_along_the_partner() {
    // Planes of bytes into pixels of 1260 channels: a table of 90-byte blocks (30 planes every third one, 15 of
    // them reversed), 14 rows in two passes of 11, under 196 partner steps (the pixels). The threaded option sets
    // split it along the pixels, a few tiles of them per part, each part running both passes
    // (`kernels/split.rs::along_partner`). Not under Miri: the threaded split is its unit tests' there.
    if cfg!(miri) {
        return;
    }
    let (sizes, strides) = ([200, 14, 15, 2, 9], [1, 6000, 200, 3000, 84000]);
    let (offsets, windows, steps) = ([0, 0, 0, 0, 2], [196, 14, 15, 2, 7], [1, 1, -1, 1, 3]);
    case(DataType::Int8, &sizes, Some(&strides), &offsets, &windows, &steps, &[196, 14, 15, 2, 3], None);
    let desc = Slice1Desc {
        input: BufferTensorDesc::new(DataType::Int8, &sizes, Some(&strides)).unwrap(),
        output: BufferTensorDesc::new(DataType::Int8, &[196, 14, 15, 2, 3], None).unwrap(),
        input_window_offsets: offsets.to_vec(),
        input_window_sizes: windows.to_vec(),
        input_window_strides: steps.to_vec(),
    };
    let op = stridekit_cpu::PreparedSlice1::new(&desc.validate().unwrap(), stridekit_cpu::ExecOptions::default());
    let plan = op.unwrap().describe();
    assert!(plan.contains("rows 14:") && plan.contains("per 11 ") && plan.contains("partner 196:1/1260"), "{plan}");
}

#[test]
fn gather_tiles_with_nearby_partners() {
    // The transpose partner reads nearby bytes without being one element: each row gathers at a large stride from
    // a start a few elements after the previous row's (rows that read the same lines), forwards and backwards;
    // pixels of 3 and 5 channels into planes (the partner is one element, fewer rows than a tile). Rows longer
    // than one block of the gather tiles (256 elements at strides of a line or more) and a ragged last block, except
    // under Miri (one block: the rows only need to be longer than the table kernel's small runs).
    let len: u32 = if cfg!(miri) { 90 } else { 1100 };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Uint64]) {
        for (rows, a, b) in [(7u32, 3u32, 19u32), (3, 3, 9), (5, 1, 5), (4, 2, 37)] {
            let input = [rows, len];
            let strides = [a, b];
            case(dt, &input, Some(&strides), &[0, 0], &input, &[1, 1], &input, None);
            // Rows backwards, columns backwards, into a padded output.
            case(dt, &input, Some(&strides), &[0, 0], &input, &[-1, -1], &input, Some(&[len + 3, 1]));
        }
        // HWC -> CHW with 3 channels: a transpose whose partner is contiguous, 3 destination rows.
        case(dt, &[len, 3], None, &[0, 0], &[len, 3], &[1, 1], &[len, 3], Some(&[1, len]));
    }
}

#[test]
fn table_partners_transpose_in_tiles() {
    // Channel-last pixels of P channels into P planes, every s-th pixel (a small gather far apart per channel):
    // the table takes the pixels and rows, the channel dimension (reading the next element) is its partner. P
    // a whole tile (16 bytes of elements), a tile and a ragged rest, and below a tile; rows forwards and
    // backwards, pixels backwards; planes contiguous and padded. Enough rows for several passes and a partial one.
    // Under Miri 8 rows: one partial pass, still a whole tile of pixels (3 x 8 >= 16 bytes of elements) and a
    // ragged partner (17 channels); 24 rows cost 6 of the 20 minutes of the kernel tests there.
    let rows: u32 = if cfg!(miri) { 8 } else { 300 };
    let partners: &[u32] = if cfg!(miri) { &[17] } else { &[4, 8, 16, 19, 37] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Uint64]) {
        for &p in partners {
            for (n, s, rs) in [(3u32, 2i32, 1i32), (2, -5, -1), (5, 3, 1)] {
                let width = (n - 1) * s.unsigned_abs() + 1;
                let input = [rows, width, p];
                let out = [rows, n, p];
                let planes = rows * n;
                case(dt, &input, None, &[0; 3], &input, &[rs, s, 1], &out, Some(&[n, 1, planes]));
                case(dt, &input, None, &[0; 3], &input, &[rs, s, 1], &out, Some(&[n, 1, planes + 7]));
            }
            // Padded rows of 39 pixels of p channels into p planes: a transpose into short strided rows, which
            // the table takes with the channels as its partner.
            let input = [rows, 41, p];
            case(dt, &input, None, &[0; 3], &[rows, 39, p], &[1; 3], &[rows, 39, p], Some(&[39, 1, rows * 39]));
            // One row of 40 pixels (the block alone, no row dimension), planes padded.
            let input = [1, 80, p];
            case(dt, &input, None, &[0; 3], &input, &[1, 2, 1], &[1, 40, p], Some(&[40, 1, 43]));
        }
    }
}

#[test]
fn table_partners_of_spaced_and_backward_steps() {
    // Every k-th channel of channel-last pixels, or the channels reversed (k = -1), into planes: the channel
    // dimension reads 1-4 elements away, and the table of pixels takes it as its partner (backward partners start
    // at their last step, and write their planes from the last). Pixels every other one from rows read either way;
    // planes contiguous and padded; more partner steps than a tile of every element size (16 bytes of elements),
    // a ragged count, and (100 planes) enough steps for several groups of the streaming stage.
    let rows: u32 = if cfg!(miri) { 4 } else { 40 };
    let planes: &[u32] = if cfg!(miri) { &[17] } else { &[17, 37, 100] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32]) {
        for &pc in planes {
            // Under Miri two of them (about 85 s; the unit tests of `x86/table.rs` run every step there).
            let ks: &[i32] = if cfg!(miri) { &[-2, 3] } else { &[-1, 2, -2, 3, 4, -4] };
            for &k in ks {
                let c = (pc - 1) * k.unsigned_abs() + 1;
                for (n, s, rs) in [(8u32, 2i32, 1i32), (9, -1, -1)] {
                    let width = (n - 1) * s.unsigned_abs() + 1;
                    let input = [rows, width, c];
                    let out = [rows, n, pc];
                    let plane = rows * n;
                    case(dt, &input, None, &[0; 3], &input, &[rs, s, k], &out, Some(&[n, 1, plane]));
                    case(dt, &input, None, &[0; 3], &input, &[rs, s, k], &out, Some(&[n, 1, plane + 5]));
                }
            }
        }
    }
}

/// The kernel the CPU planner picks for the whole window of `sizes` with these strides (default options).
fn kernel_of(dt: DataType, sizes: &[u32], in_strides: Option<&[u32]>, out_strides: Option<&[u32]>) -> &'static str {
    let desc = Slice1Desc {
        input: BufferTensorDesc::new(dt, sizes, in_strides).unwrap(),
        output: BufferTensorDesc::new(dt, sizes, out_strides).unwrap(),
        input_window_offsets: vec![0; sizes.len()],
        input_window_sizes: sizes.to_vec(),
        input_window_strides: vec![1; sizes.len()],
    };
    let op = stridekit_cpu::PreparedSlice1::new(&desc.validate().unwrap(), stridekit_cpu::ExecOptions::default());
    op.unwrap().kernel()
}

#[test]
fn transposes_of_a_table_block_under_loops_through_a_table() {
    // Transposes of at most 256 bytes a call (na x nb elements, the nb far apart) under a loop of steps: the table
    // takes the call as its block and the steps as its rows. Steps forwards and reversed, the far elements
    // forwards and reversed, calls of 3 x 8 and 7 x 8 elements. Under Miri 5 steps, one shape.
    let steps: u32 = if cfg!(miri) { 5 } else { 40 };
    let shapes: &[(u32, u32)] = if cfg!(miri) { &[(3, 8)] } else { &[(3, 8), (7, 8), (6, 3)] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Uint16, DataType::Uint32, DataType::Uint64]) {
        for &(na, nb) in shapes {
            for (s, sb) in [(1, 1), (-1, 1), (1, -1)] {
                let input = [steps, na, nb];
                let strides = [na + 1, 1, 300];
                case(dt, &input, Some(&strides), &[0; 3], &input, &[s, 1, sb], &input, None);
            }
        }
    }
    // The route: a table, not the transpose.
    assert_eq!(kernel_of(DataType::Uint16, &[steps, 3, 8], Some(&[4, 1, 300]), None), "table");
}

#[test]
fn small_transposes_of_rows_a_line_apart_through_a_table_without_a_partner() {
    // Pixels of 7 channels gathered from 7 rows a line or more apart, 12 pixels a call (at most 256 bytes), under a
    // loop of steps that reads neither the next element nor a few on (no partner for the table): the table takes
    // the call as its block (`planner::FAR_ROW_BYTES`). Rows forwards and reversed, pixels forwards and reversed,
    // rows 40 and 5000 elements apart. Under Miri 3 steps and one distance.
    let steps: u32 = if cfg!(miri) { 3 } else { 30 };
    let rows: &[u32] = if cfg!(miri) { &[40] } else { &[40, 5000] };
    for dt in common::types_for_run(&[DataType::Uint16, DataType::Float32]) {
        for &row in rows {
            for (sr, sp) in [(1, 1), (-1, 1), (1, -1)] {
                let input = [steps, 7, 12];
                let strides = [24, row, 1];
                case(dt, &input, Some(&strides), &[0; 3], &input, &[1, sr, sp], &input, Some(&[84, 1, 7]));
            }
        }
    }
    // The route: a table, not the transpose tiles.
    assert_eq!(kernel_of(DataType::Uint16, &[steps, 7, 12], Some(&[24, 40, 1]), Some(&[84, 1, 7])), "table");
}

#[test]
fn small_ragged_planes_into_pixels_through_table_partners() {
    // Planes of c channels into pixels (CHW -> HWC) under a loop of images, calls of 20-83 pixels: the SIMD tiles
    // would leave most of each call to their edge, so the table takes it with the pixels as its partner (one
    // block of c channels per pixel). Pixels forwards and reversed; pixel counts below, at and past a tile of
    // partner steps. Under Miri one type, one channel count, one count.
    let counts: &[u32] = if cfg!(miri) { &[21] } else { &[20, 37, 83] };
    let channels: &[u32] = if cfg!(miri) { &[5] } else { &[3, 5, 6, 7] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32]) {
        for &c in channels {
            for &p in counts {
                for s in [1, -1] {
                    let input = [3, c, p];
                    case(dt, &input, None, &[0; 3], &input, &[1, 1, s], &input, Some(&[c * p, 1, c]));
                }
            }
        }
    }
    // The route: a table (its partner tiles), not the transpose tiles.
    assert_eq!(kernel_of(DataType::Float32, &[3, 5, 20], None, Some(&[100, 1, 5])), "table");
}

#[test]
fn pixels_of_a_few_channels_into_planes_through_short_table_partners() {
    // Pixels of 8 channels of which c are taken (from channel 1), 5 to a row of 40 bytes, into c planes whose
    // 18-element runs read a row apart (sweep1_001's shape, smaller): the table's pass has no shuffle form (16
    // windows per chunk of bytes) and 4-15 channels of bytes are its short partner (16-byte loads, of which the
    // tiles store c bytes); 3 channels and u16 ones stay a loop. The pass's highest pixels are within 16 bytes of
    // its end: their tiles walk. Planes contiguous and padded; the rows of a pass forwards and backwards.
    // Under Miri one image (its last pixel ends the input: a load past the pass would leave the buffer), 5
    // channels, padded planes.
    let images: u32 = if cfg!(miri) { 1 } else { 7 };
    let channels: &[u32] = if cfg!(miri) { &[5] } else { &[3, 4, 7] };
    let pads: &[u32] = if cfg!(miri) { &[9] } else { &[0, 9] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Uint16]) {
        for &c in channels {
            for rs in [1, -1] {
                let input = [images, 24, 5, 8];
                let (offsets, windows) = ([0, 6, 0, 1], [images, 18, 5, c]);
                let plane = images * 90;
                for &pad in pads {
                    let out = Some(&[90, 1, 18, plane + pad][..]);
                    case(dt, &input, None, &offsets, &windows, &[1, 1, rs, 1], &windows, out);
                }
            }
        }
    }
}

#[test]
fn pixels_far_apart_into_a_few_planes_through_partner_tiles() {
    // The last c channels of pixels of 20 elements (a pixel 16 elements or more apart: a transpose), into c planes
    // padded by 3: fewer rows than a square tile, each pixel's channels contiguous, so 4-7 channels of 4 bytes take
    // the table's partner tiles with the pixels as offsets (4 x 4 tiles, the last one overlapping; each load ends
    // inside its pixel's channels). Channels forwards and reversed; pixel counts that are not a multiple of the 64
    // pixels a call of tiles takes. Bytes, 2-byte channels and 3 of 4 bytes stay with the gather tiles.
    // Under Miri one count, one channel count per size, reversed channels only.
    let counts: &[u32] = if cfg!(miri) { &[37] } else { &[16, 83, 150] };
    let steps: &[i32] = if cfg!(miri) { &[-1] } else { &[1, -1] };
    let sets: [(DataType, &[u32]); 3] = match cfg!(miri) {
        true => [(DataType::Uint8, &[7]), (DataType::Float32, &[6]), (DataType::Float16, &[5])],
        false => [(DataType::Uint8, &[4, 7, 15]), (DataType::Float32, &[3, 4, 6, 7]), (DataType::Float16, &[5])],
    };
    for (dt, channels) in sets {
        for &c in channels {
            for &nb in counts {
                for &s in steps {
                    let window = [nb, c];
                    let out = [1, nb + 3];
                    case(dt, &[nb, 20], None, &[0, 20 - c], &window, &[1, s], &window, Some(&out));
                }
            }
        }
    }
}

#[test]
fn interleaves_irregular_planes_through_narrow_table_partners() {
    // Planes at irregular distances (a grid of c1 x c2 planes, the grid's rows padded) into pixels of c1 c2
    // channels: a table block of fewer than 16 bytes whose pixels are contiguous, taken with the pixel dimension as
    // its partner (the narrow partner tiles: 16-byte stores overlapping the next pixels, the last ones written
    // short). Pixel counts that are not a multiple of a tile; a window that starts inside the planes; pixels padded
    // (no narrow form: the stores would reach the padding, which must keep the sentinel).
    // Under Miri (bytes and f32 there) one length, and the two grids of bytes of 12 and 15 channels.
    let lens: &[u32] = if cfg!(miri) { &[21] } else { &[16, 37, 300] };
    let grids: &[(u32, u32)] = if cfg!(miri) { &[(3, 4), (5, 3)] } else { &[(3, 4), (2, 4), (5, 3), (3, 2), (2, 2)] };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32]) {
        for &(c1, c2) in grids {
            for &len in lens {
                let plane = len + 5;
                let input = [c1, c2, plane];
                let strides = [c2 * plane + 13, plane, 1];
                let sizes = [c1, c2, len];
                let pixels = Some([c2, 1, c1 * c2]);
                case(dt, &input, Some(&strides), &[0, 0, 3], &sizes, &[1; 3], &sizes, pixels.as_ref().map(|s| &s[..]));
                case(dt, &input, Some(&strides), &[0, 0, 5], &sizes, &[1; 3], &sizes, Some(&[c2, 1, c1 * c2 + 1]));
            }
        }
    }
}

#[test]
fn fills_of_every_length() {
    // One fill of 1-40 elements (the short stores of every length class), and one fill per padded row of 65-200
    // bytes (a vector body, its head when streaming and its tail of every length; the padding keeps the sentinel),
    // or per adjacent row, the rows' values read last to first.
    let (short, long): (Vec<u32>, Vec<u32>) = if cfg!(miri) {
        (vec![1, 3, 4, 7, 8, 15, 16, 17, 31], vec![72, 104, 136])
    } else {
        ((1..=40).collect(), (65..=200).collect())
    };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Float64]) {
        let e = dt.size_in_bytes().unwrap();
        for &n in &short {
            case(dt, &[n], Some(&[0]), &[0], &[n], &[1], &[n], None);
        }
        for n in long.iter().filter(|&&b| b % e == 0).map(|&b| b / e) {
            case(dt, &[3, n], Some(&[1, 0]), &[0, 0], &[3, n], &[1, 1], &[3, n], Some(&[n + 3, 1]));
            // Adjacent rows, their values read bottom-up: streamed through the stage, the loop kept rising.
            case(dt, &[6, n], Some(&[1, 0]), &[0, 0], &[6, n], &[-1, 1], &[6, n], None);
        }
    }
}

#[test]
fn adjacent_small_blocks_stream_through_the_stage() {
    // With streaming stores, the calls of an innermost loop whose blocks are adjacent and not whole lines go through
    // an L1 stage (`kernels::stage`): fills of one value per row (4 rows a call group) and interleaves of two planes
    // into pixels, 5 calls a group. The batch pitch adds one element, so every group starts at another offset
    // modulo 64; the lengths give blocks below a line, of a few lines and a ragged tail, and groups that span
    // several stages (rows of 8 calls of up to 1 KiB). A single loop of fills (sweep2_113's shape) too: the threads'
    // parts of it go through the stage from wherever they start (`dispatch::run_range`). With AVX2, fills of blocks
    // of 32 bytes or more assemble their lines in registers instead (`fill::fill_adjacent`): the same cases check
    // it, and blocks of 24 bytes the stage.
    let batches: u32 = if cfg!(miri) { 2 } else { 9 };
    for dt in common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Float64]) {
        let e = dt.size_in_bytes().unwrap();
        let (blocks, rows_list): (&[u32], &[u32]) =
            if cfg!(miri) { (&[336], &[4]) } else { (&[24, 200, 336, 1000], &[4, 8]) };
        for &block in blocks {
            let n = block / e;
            let rows = if cfg!(miri) { 9 } else { 45 };
            case(dt, &[rows, n + 10], Some(&[n + 10, 0]), &[0, 10], &[rows, n], &[1, 1], &[rows, n], None);
            for &rows in rows_list {
                let pitch = [rows * n + 1, n, 1];
                case(
                    dt,
                    &[batches, rows, n],
                    Some(&[rows, 1, 0]),
                    &[0; 3],
                    &[batches, rows, n],
                    &[1; 3],
                    &[batches, rows, n],
                    Some(&pitch),
                );
            }
        }
        let planes: &[u32] = if cfg!(miri) { &[33] } else { &[5, 33, 70] };
        for &na in planes {
            // Planes far apart (the pixel's two values from other halves of the input), pixels of two values.
            let plane = batches * 5 * na;
            let pitch = [5 * na * 2 + 1, na * 2, 2, 1];
            case(
                dt,
                &[batches, 5, na, 2],
                Some(&[5 * na, na, 1, plane]),
                &[0; 4],
                &[batches, 5, na, 2],
                &[1; 4],
                &[batches, 5, na, 2],
                Some(&pitch),
            );
        }
    }
}

#[test]
fn table_chunks_of_three_and_six_windows() {
    // Chunk kernels compiled for three and six 16-byte windows (`table::chunk_windows`), not rounded up to four and
    // eight: 12 bytes of each row from a 48-byte block (a 4 x 3 transpose at strides 4 and 16) over rows 96 bytes
    // apart, three windows a row and six a chunk (sweep1_028's shape, smaller); every third byte of 200-byte rows,
    // three windows a chunk.
    let rows: u32 = if cfg!(miri) { 12 } else { 40 };
    case(
        DataType::Uint8,
        &[rows, 5, 16, 1, 3],
        Some(&[48, 48 * rows, 1, 240 * rows, 16]),
        &[0; 5],
        &[rows - 1, 5, 16, 1, 3],
        &[2, 2, 4, 1, 1],
        &[rows / 2, 3, 4, 1, 3],
        None,
    );
    case(DataType::Uint8, &[rows, 200], None, &[0, 1], &[rows, 192], &[1, 3], &[rows, 64], None);
}

#[test]
fn transposes_of_many_short_rows_split_along_them() {
    // 136 destination rows of 300 u16 out of source rows of 136 (plus padding): more columns than rows, but source
    // rows of 272 bytes, so a split divides the rows (`split.rs::splits_rows`), each part whole destination rows.
    // Backwards too (the rows then read from the last). Not under Miri, whose kernel option sets run one thread
    // (`common::kernel_option_sets`): there is no split to check, and the kernel is the transpose's of other tests.
    if cfg!(miri) {
        return;
    }
    for sign in [1, -1] {
        case(DataType::Uint16, &[300, 140], None, &[0, 2], &[300, 136], &[1, sign], &[300, 136], Some(&[1, 300]));
    }
}

#[test]
fn adjacent_fills_into_destinations_off_element_boundaries() {
    // A host byte slice may start anywhere (D10): fills of one value per row, adjacent blocks of 336 and 40 bytes
    // (the register-assembled lines of `fill::fill_adjacent`, which align their pattern to the elements) and 24 bytes
    // (the stage), into an output one to seven bytes past an element boundary, under every option set.
    if cfg!(miri) && !cfg!(target_feature = "avx2") {
        return;
    }
    for dt in common::types_for_run(&[DataType::Float16, DataType::Float32, DataType::Float64]) {
        let e = dt.size_in_bytes().unwrap();
        for block in [336, 40, 24] {
            let n = block / e;
            let rows = if cfg!(miri) { 9 } else { 45 };
            let desc = Slice1Desc {
                input: BufferTensorDesc::new(dt, &[rows, n], Some(&[1, 0])).unwrap(),
                output: BufferTensorDesc::new(dt, &[rows, n], None).unwrap(),
                input_window_offsets: vec![0; 2],
                input_window_sizes: vec![rows, n],
                input_window_strides: vec![1; 2],
            };
            let plan = desc.validate().unwrap();
            let input =
                stridekit_testkit::strategies::pseudo_random_bytes(3, desc.input.total_tensor_size_in_bytes as usize);
            let len = desc.output.total_tensor_size_in_bytes as usize;
            let mut expected = vec![0u8; len];
            stridekit::reference::slice1_reference(&desc, &input, &mut expected).unwrap();
            for (name, options) in common::kernel_option_sets() {
                for off in 1..e.max(2) as usize {
                    let mut buf = vec![0xEEu8; len + 128];
                    // An output starting `off` bytes past a line boundary (so past an element boundary too).
                    let at = (64 - buf.as_ptr() as usize % 64) % 64 + off;
                    stridekit_cpu::slice1_with(&plan, &input, &mut buf[at..at + len], &options).unwrap();
                    let wrong = buf[at..at + len].iter().zip(&expected).position(|(a, b)| a != b);
                    assert_eq!(wrong, None, "{dt:?}, block {block}, {name}, offset {off}: first wrong byte");
                    assert!(buf[..at].iter().chain(&buf[at + len..]).all(|&b| b == 0xEE));
                }
            }
        }
    }
}

#[test]
fn short_fills_into_adjacent_blocks_under_loops_that_do_not_stream() {
    // Loops of fills, one value per row, whose rows are adjacent blocks of 32-2056 bytes: `fill::adjacent_loop` takes
    // those up to 2 KiB as one call, each line assembled in registers (or, inside one call, its value) and stored
    // ordinarily when the copy does not stream (streamed, or longer, they keep their calls). Groups of 2, 3 and 13
    // rows, padded apart, so that the loop outside starts most groups off a line and off 32 bytes; every option set,
    // against the reference.
    let types = common::types_for_run(&[DataType::Uint8, DataType::Float16, DataType::Float32, DataType::Float64]);
    let (blocks, counts): (&[u32], &[u32]) =
        if cfg!(miri) { (&[40, 336], &[2, 3]) } else { (&[32, 40, 96, 336, 520, 1000, 2048, 2056], &[2, 3, 13]) };
    for dt in types {
        let e = dt.size_in_bytes().unwrap();
        for &block in blocks {
            let n = block / e;
            for &rows in counts {
                let groups = 3;
                let sizes = [groups, rows, n];
                let desc = Slice1Desc {
                    input: BufferTensorDesc::new(dt, &sizes, Some(&[rows, 1, 0])).unwrap(),
                    output: BufferTensorDesc::new(dt, &sizes, Some(&[rows * n + 5, n, 1])).unwrap(),
                    input_window_offsets: vec![0; 3],
                    input_window_sizes: sizes.to_vec(),
                    input_window_strides: vec![1; 3],
                };
                let input = stridekit_testkit::strategies::pseudo_random_bytes(
                    5,
                    desc.input.total_tensor_size_in_bytes as usize,
                );
                if let Err(why) = common::check_against_reference(&desc, &input, 64) {
                    panic!("{dt:?}, blocks of {block} bytes, {rows} rows a group: {why}");
                }
            }
        }
    }
}
