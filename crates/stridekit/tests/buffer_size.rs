//! The two size helpers (D5) against brute force and against the reference formula in the reference's integer widths.

use proptest::prelude::*;
use stridekit::{DataType, calc_buffer_tensor_size, dmlx_calc_buffer_tensor_size};

/// DMLCalcBufferTensorSize as written in DirectMLX.h, transcribed with its C++ types: UINT (u32) for the strided index,
/// UINT64 for the packed product and the byte arithmetic.
fn reference(data_type: u32, sizes: &[u32], strides: Option<&[u32]>) -> u64 {
    let element_size_in_bits: u32 = match data_type {
        1 | 3 | 6 => 32,
        2 | 4 | 7 => 16,
        5 | 8 => 8,
        12 | 13 => 4,
        9..=11 => 64,
        _ => return 0,
    };
    let minimum_implied_size_in_bits: u64 = match strides {
        None => {
            let mut bits = sizes[0] as u64;
            for s in &sizes[1..] {
                bits = bits.wrapping_mul(*s as u64);
            }
            bits.wrapping_mul(element_size_in_bits as u64)
        }
        Some(strides) => {
            let mut index_of_last_element: u32 = 0;
            for i in 0..sizes.len() {
                index_of_last_element =
                    index_of_last_element.wrapping_add(sizes[i].wrapping_sub(1).wrapping_mul(strides[i]));
            }
            (index_of_last_element as u64 + 1) * element_size_in_bits as u64
        }
    };
    let bytes = minimum_implied_size_in_bits.wrapping_add(7) / 8;
    bytes.wrapping_add(3) & !3
}

fn data_type() -> impl Strategy<Value = DataType> {
    prop::sample::select(DataType::ALL.to_vec())
}

/// Small tensors: rank 1..=4, sizes 1..=4, strides 0..=20 (or packed).
fn small_tensor() -> impl Strategy<Value = (DataType, Vec<u32>, Option<Vec<u32>>)> {
    (data_type(), prop::collection::vec(1u32..=4, 1..=4)).prop_flat_map(|(t, sizes)| {
        let n = sizes.len();
        (Just(t), Just(sizes), prop::option::of(prop::collection::vec(0u32..=20, n)))
    })
}

proptest! {
    #[test]
    fn exact_helper_is_max_offset_plus_one(tensor in small_tensor()) {
        let (t, sizes, strides) = tensor;
        let packed = stridekit::packed_strides(&sizes).unwrap();
        let st = strides.clone().unwrap_or(packed);
        // Brute force: the largest offset over every coordinate.
        let count: u32 = sizes.iter().product();
        let mut max = 0u64;
        for mut i in 0..count {
            let mut off = 0u64;
            for d in (0..sizes.len()).rev() {
                off += u64::from(i % sizes[d]) * u64::from(st[d]);
                i /= sizes[d];
            }
            max = max.max(off);
        }
        let bits = (max + 1) * u64::from(t.size_in_bits());
        let expected = bits.div_ceil(8).next_multiple_of(4);
        prop_assert_eq!(calc_buffer_tensor_size(t, &sizes, strides.as_deref()), Ok(expected));
    }

    #[test]
    fn dmlx_helper_matches_reference(
        raw_type in 0u32..=15,
        sizes in prop::collection::vec(any::<u32>(), 1..=8),
        strides_seed in prop::collection::vec(any::<u32>(), 8),
        with_strides in any::<bool>(),
    ) {
        let strides = with_strides.then(|| strides_seed[..sizes.len()].to_vec());
        prop_assert_eq!(
            dmlx_calc_buffer_tensor_size(raw_type, &sizes, strides.as_deref()),
            reference(raw_type, &sizes, strides.as_deref())
        );
    }

    /// Where both are defined and the reference does not wrap, they agree; where it wraps, they differ and the exact
    /// helper gives the true size.
    #[test]
    fn helpers_agree_unless_the_reference_wraps(
        t in data_type(),
        sizes in prop::collection::vec(1u32..=70000, 1..=3),
        strides_seed in prop::collection::vec(0u32..=70000, 3),
    ) {
        let strides = &strides_seed[..sizes.len()];
        let exact = calc_buffer_tensor_size(t, &sizes, Some(strides)).unwrap();
        let last: u64 = sizes.iter().zip(strides).map(|(&s, &st)| u64::from(s - 1) * u64::from(st)).sum();
        let dmlx = dmlx_calc_buffer_tensor_size(t.raw(), &sizes, Some(strides));
        if last <= u64::from(u32::MAX) {
            prop_assert_eq!(exact, dmlx);
        } else {
            prop_assert_ne!(exact, dmlx);
            prop_assert_eq!(dmlx, reference(t.raw(), &sizes, Some(strides)));
        }
    }
}

#[test]
fn known_vectors() {
    // R-CALC-1: the reference wraps, the exact helper does not.
    assert_eq!(calc_buffer_tensor_size(DataType::Float32, &[65537, 65537], Some(&[65536, 1])), Ok(17180131332));
    assert_eq!(dmlx_calc_buffer_tensor_size(1, &[65537, 65537], Some(&[65536, 1])), 262148);
    // R-CALC-3: zero sizes.
    assert_eq!(dmlx_calc_buffer_tensor_size(1, &[0, 4], Some(&[4, 1])), 17179869184);
    assert_eq!(dmlx_calc_buffer_tensor_size(1, &[0, 4], None), 0);
    assert_eq!(calc_buffer_tensor_size(DataType::Float32, &[0, 4], None).unwrap_err().rule(), "R-BT-3");
    // R-CALC-4: no strides equals packed strides.
    assert_eq!(
        calc_buffer_tensor_size(DataType::Int16, &[3, 5, 7], None),
        calc_buffer_tensor_size(DataType::Int16, &[3, 5, 7], Some(&[35, 7, 1]))
    );
    // R-CALC-5 and the 4-bit packing: UINT4 [1,2,3,4,5] needs 3 bytes -> 4.
    assert_eq!(calc_buffer_tensor_size(DataType::Uint4, &[5], None), Ok(4));
    assert_eq!(calc_buffer_tensor_size(DataType::Int4, &[9], None), Ok(8));
}
