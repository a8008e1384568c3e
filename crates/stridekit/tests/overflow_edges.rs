//! Arithmetic at the edges: sizes and strides near u32::MAX, element counts at 2^32 - 1 and 2^32, window ends that
//! wrap 32 bits, window strides of i32::MIN and i32::MAX, products beyond 64 bits. Each is a precise error or a
//! correct plan, never a wrap.

use stridekit::{BufferTensorDesc, DataType, Slice1Desc, SliceDesc, TensorRole, calc_buffer_tensor_size};

fn raw(sizes: &[u32], strides: Option<&[u32]>, total: u64) -> BufferTensorDesc {
    BufferTensorDesc::from_raw(DataType::Uint8.raw(), 0, sizes, strides, total, 0).unwrap()
}

#[test]
fn logical_count_at_2_pow_32_minus_1_and_2_pow_32() {
    // 65535 * 65537 = 2^32 - 1 elements, all broadcast onto one byte: valid.
    let ok = raw(&[65535, 65537], Some(&[0, 0]), 4).validate().unwrap();
    assert_eq!(ok.element_count(), u64::from(u32::MAX));
    assert_eq!(ok.physical_extent(), 1);
    // 65536 * 65536 = 2^32: one too many.
    let e = raw(&[65536, 65536], Some(&[0, 0]), 4).validate().unwrap_err();
    assert_eq!(e.rule(), "R-BT-6");
    assert!(e.to_string().contains("logical element count is 4294967296"), "{e}");
}

#[test]
fn physical_extent_at_2_pow_32_minus_1_and_2_pow_32() {
    let ok = raw(&[2], Some(&[u32::MAX - 1]), 1 << 32).validate().unwrap();
    assert_eq!(ok.physical_extent(), u64::from(u32::MAX));
    assert_eq!(ok.min_size_in_bytes(), 1 << 32);
    let e = raw(&[2], Some(&[u32::MAX]), 1 << 33).validate().unwrap_err();
    assert!(e.to_string().contains("physical extent is 4294967296 elements"), "{e}");
    // The same extent through a sum of dimensions, where DirectMLX's u32 index would wrap to 0.
    let e = raw(&[2, 2], Some(&[1 << 31, 1 << 31]), 1 << 33).validate().unwrap_err();
    assert!(e.to_string().contains("physical extent is 4294967297 elements"), "{e}");
    assert_eq!(stridekit::dmlx_calc_buffer_tensor_size(5, &[2, 2], Some(&[1 << 31, 1 << 31])), 4);
}

#[test]
fn sizes_and_strides_at_u32_max() {
    // A size of u32::MAX with stride 1 is exactly at the limit.
    let ok = raw(&[u32::MAX], None, 1 << 32).validate().unwrap();
    assert_eq!(ok.element_count(), u64::from(u32::MAX));
    // Strides of u32::MAX on size-1 dimensions are never used: the extent stays 1.
    let ok = raw(&[1, 1, 3], Some(&[u32::MAX, u32::MAX, 1]), 4).validate().unwrap();
    assert_eq!(ok.physical_extent(), 3);
    // Float64 elements: the byte size of a maximal extent does not overflow and is exact.
    let t = DataType::Float64;
    assert_eq!(calc_buffer_tensor_size(t, &[u32::MAX], None), Ok(u64::from(u32::MAX) * 8));
}

#[test]
fn products_beyond_64_bits_are_errors() {
    let e = raw(&[u32::MAX; 8], None, 4).validate().unwrap_err();
    assert_eq!(e.rule(), "R-BT-6");
    assert!(e.to_string().contains("overflows 64-bit arithmetic"), "{e}");
    let e = raw(&[u32::MAX; 8], Some(&[u32::MAX; 8]), 4).validate().unwrap_err();
    assert_eq!(e.rule(), "R-BT-6");
    let e = calc_buffer_tensor_size(DataType::Int64, &[u32::MAX; 3], Some(&[u32::MAX; 3])).unwrap_err();
    assert!(e.to_string().contains("overflows 64-bit arithmetic"), "{e}");
}

fn window(input_size: u32, offset: u32, size: u32, stride: i32, out: u32) -> Slice1Desc {
    Slice1Desc {
        input: raw(&[input_size], Some(&[0]), 4),
        output: raw(&[out], None, u64::from(out).next_multiple_of(4)),
        input_window_offsets: vec![offset],
        input_window_sizes: vec![size],
        input_window_strides: vec![stride],
    }
}

#[test]
fn window_end_wrapping_32_bits() {
    let e = window(10, u32::MAX, 2, 1, 1).validate().unwrap_err();
    assert_eq!(
        e.to_string(),
        "error[R-S1-2]: InputWindowOffsets[0] + InputWindowSizes[0] = 4294967295 + 2 = 4294967297 exceeds \
         InputTensor.Sizes[0] = 10; out-of-bounds reads are not permitted"
    );
    let e = window(u32::MAX, 1, u32::MAX, 1, 1).validate().unwrap_err();
    assert_eq!(e.rule(), "R-S1-2");
    // The last legal window.
    assert!(window(u32::MAX, 0, u32::MAX, 1, 1).validate().is_ok());
}

#[test]
fn window_strides_i32_min_and_max() {
    // A window of u32::MAX elements (the input broadcasts, so its buffer is one byte): |i32::MIN| = 2^31, so
    // 1 + (2^32 - 2) / 2^31 = 2 elements can be copied; CopyStart is the window's last element.
    let plan = window(u32::MAX, 0, u32::MAX, i32::MIN, 2).validate().unwrap();
    assert_eq!(plan.copy_start(), [u32::MAX - 1]);
    assert_eq!(plan.input_strides(), [0]);
    let e = window(u32::MAX, 0, u32::MAX, i32::MIN, 3).validate().unwrap_err();
    assert_eq!(
        e.to_string(),
        "error[R-S1-5]: OutputTensor.Sizes[0] is 3, but a window of 4294967295 with stride -2147483648 copies at most 2 \
         (1 + (4294967295 - 1) / |-2147483648|)"
    );
    let plan = window(u32::MAX, 0, u32::MAX, i32::MAX, 3).validate().unwrap();
    assert_eq!(plan.copy_start(), [0]);
    assert!(window(u32::MAX, 0, u32::MAX, i32::MAX, 4).validate().is_err());
}

#[test]
fn plan_strides_with_huge_layout_strides() {
    // Input 3 x 2 with row stride 2^31 - 2 (extent 2^32 - 2 elements, of which 6 are used): the window walks rows
    // backwards; the plan's signed strides are exact.
    let input = raw(&[3, 2], Some(&[(1 << 31) - 2, 1]), 1 << 32);
    let d = Slice1Desc {
        input,
        output: raw(&[2, 2], None, 4),
        input_window_offsets: vec![0, 0],
        input_window_sizes: vec![3, 2],
        input_window_strides: vec![-2, 1],
    };
    let plan = d.validate().unwrap();
    assert_eq!(plan.input_start(), 2 * ((1u64 << 31) - 2));
    assert_eq!(plan.input_strides(), [-2 * ((1i64 << 31) - 2), 1]);
}

#[test]
fn slice_v0_strides_above_i32_max_are_kept_exact() {
    // Two elements 3e9 apart: legal for Slice (u32 strides), beyond any Slice1 stride.
    let input = raw(&[3_000_000_001], Some(&[1]), 3_000_000_004);
    let d =
        SliceDesc { input, output: raw(&[2], None, 4), offsets: vec![0], sizes: vec![2], strides: vec![3_000_000_000] };
    let plan = d.validate().unwrap();
    assert_eq!(plan.input_strides(), [3_000_000_000]);
    assert_eq!(plan.input_window_strides(), [3_000_000_000]);
    assert_eq!(plan.input_window_sizes(), [3_000_000_001]);
    let mut d = d;
    d.strides = vec![3_000_000_001];
    assert_eq!(d.validate().unwrap_err().rule(), "R-S0-3");
}

#[test]
fn output_role_checks_use_64_bits() {
    // An output whose overlap test sums extents beyond u32: a valid permuted layout near the limit.
    let d = raw(&[2, 65536, 32767], Some(&[1, 2, 131072]), 1 << 32);
    let l = d.validate_as(TensorRole::Output, stridekit::FeatureLevel::LATEST).unwrap();
    assert!(!l.is_overlapping());
}
