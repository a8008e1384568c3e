//! The two size helpers of D5: [`calc_buffer_tensor_size`] (exact, checked) and [`dmlx_calc_buffer_tensor_size`]
//! (DirectMLX's `DMLCalcBufferTensorSize`, bit for bit, its 32-bit wrap included).

use crate::error::{TensorDescError, TensorDescErrorKind as K};
use crate::{DataType, FeatureLevel, limits};

/// Row-major packed strides for `sizes` (R-BT-4: the last dimension has stride 1, `stride[i] = prod(sizes[i+1..])`),
/// in 64 bits. The caller decides whether the values fit the u32 of a descriptor.
pub(crate) fn packed_strides_u64(sizes: &[u32]) -> Result<Vec<u64>, TensorDescError> {
    let mut strides = vec![0u64; sizes.len()];
    let mut running: u64 = 1;
    for (dim, &size) in sizes.iter().enumerate().rev() {
        strides[dim] = running;
        running = running.checked_mul(u64::from(size)).ok_or(K::Overflow {
            what: "the packed stride",
            dim,
            size,
            stride: running,
        })?;
    }
    Ok(strides)
}

/// Checks R-BT-2 (rank 1..=max at the level), R-BT-3 (no zero size) and R-BT-4 (stride count).
pub(crate) fn check_shape(sizes: &[u32], strides: Option<&[u32]>, level: FeatureLevel) -> Result<(), TensorDescError> {
    let max = level.max_dimension_count();
    if sizes.is_empty() || sizes.len() > max as usize {
        return Err(K::DimensionCount { count: sizes.len(), max, level }.into());
    }
    if let Some(dim) = sizes.iter().position(|&s| s == 0) {
        return Err(K::ZeroSize { dim }.into());
    }
    if let Some(strides) = strides
        && strides.len() != sizes.len()
    {
        return Err(K::StrideCountMismatch { sizes: sizes.len(), strides: strides.len() }.into());
    }
    Ok(())
}

/// `IndexOfLastElement = dot(Sizes - 1, Strides)` in checked 64-bit arithmetic (sizes must be non-zero).
pub(crate) fn index_of_last_element(sizes: &[u32], strides: &[u64]) -> Result<u64, TensorDescError> {
    sizes.iter().zip(strides).enumerate().try_fold(0u64, |acc, (dim, (&size, &stride))| {
        u64::from(size - 1)
            .checked_mul(stride)
            .and_then(|term| acc.checked_add(term))
            .ok_or_else(|| K::Overflow { what: "the index of the last element", dim, size, stride }.into())
    })
}

/// Bytes for `element_count` elements of `data_type`, rounded bits -> bytes -> multiple of 4 (R-CALC-5), checked.
pub(crate) fn bytes_for_elements(data_type: DataType, element_count: u64) -> Option<u64> {
    let bits = element_count.checked_mul(u64::from(data_type.size_in_bits()))?;
    bits.div_ceil(8).checked_next_multiple_of(limits::BUFFER_SIZE_GRANULARITY)
}

/// The exact minimum implied size in bytes of a buffer tensor (R-BT-5): `roundup((IndexOfLastElement + 1) *
/// ElementSize, 4)`, with element sizes in bits so that UINT4/INT4 round like DirectMLX.
///
/// Unlike DirectML's helper, this one never wraps: it checks R-BT-2 (rank 1..=8), R-BT-3 (no zero size) and R-BT-4
/// (stride count), and returns an R-BT-6 error when the arithmetic leaves 64 bits. It does **not** apply the 2^32 - 1
/// element limit of R-BT-6: that is a property of a valid descriptor ([`crate::BufferTensorDesc::validate`]), not of the
/// size, and the true size of an over-large tensor is still useful to report.
///
/// ```
/// use stridekit::{DataType, calc_buffer_tensor_size};
/// // The padded 2x3 example of the strides page: height stride 5 -> last index 7 -> 8 floats -> 32 bytes.
/// assert_eq!(calc_buffer_tensor_size(DataType::Float32, &[2, 3], Some(&[5, 1])), Ok(32));
/// // A single byte still needs a whole DWORD.
/// assert_eq!(calc_buffer_tensor_size(DataType::Uint8, &[1], None), Ok(4));
/// ```
pub fn calc_buffer_tensor_size(
    data_type: DataType,
    sizes: &[u32],
    strides: Option<&[u32]>,
) -> Result<u64, TensorDescError> {
    check_shape(sizes, strides, FeatureLevel::LATEST)?;
    let strides: Vec<u64> = match strides {
        Some(s) => s.iter().map(|&x| u64::from(x)).collect(),
        None => packed_strides_u64(sizes)?,
    };
    let last = index_of_last_element(sizes, &strides)?;
    let extent = last.checked_add(1).ok_or(K::Overflow {
        what: "the physical extent",
        dim: sizes.len() - 1,
        size: sizes[sizes.len() - 1],
        stride: strides[sizes.len() - 1],
    })?;
    bytes_for_elements(data_type, extent).ok_or_else(|| {
        K::Overflow {
            what: "the size in bytes",
            dim: sizes.len() - 1,
            size: sizes[sizes.len() - 1],
            stride: strides[sizes.len() - 1],
        }
        .into()
    })
}

/// DirectMLX's `DMLCalcBufferTensorSize`, reproduced bit for bit for callers that need parity (D5, SPEC §3).
///
/// `data_type` is the raw `DML_TENSOR_DATA_TYPE` value, because the reference returns 0 for UNKNOWN and undefined
/// values (R-CALC-6) instead of failing. Its quirks are kept on purpose:
/// - the strided path sums `IndexOfLastElement` in a **u32** that wraps (R-CALC-1);
/// - the packed path multiplies in u64, wrapping only modulo 2^64 (R-CALC-2);
/// - a size of 0 is not guarded: packed gives 0, strided wraps `0 - 1` to `0xFFFFFFFF` (R-CALC-3).
///
/// Where the reference reads `sizes[0]` of an empty array (undefined behaviour in C++), this returns 0.
/// A `strides` slice shorter than `sizes` is read as if the missing strides were 0 (the reference would read past the
/// end). Use [`calc_buffer_tensor_size`] for anything but parity checks.
///
/// ```
/// use stridekit::dmlx_calc_buffer_tensor_size;
/// // FLOAT32 (1) sizes [65537, 65537], strides [65536, 1]: the u32 index wraps; the true size is 17180131332.
/// assert_eq!(dmlx_calc_buffer_tensor_size(1, &[65537, 65537], Some(&[65536, 1])), 262148);
/// ```
pub fn dmlx_calc_buffer_tensor_size(data_type: u32, sizes: &[u32], strides: Option<&[u32]>) -> u64 {
    let element_size_in_bits: u32 = match DataType::from_raw(data_type) {
        Some(t) => t.size_in_bits(),
        None => return 0,
    };
    let Some((&first, rest)) = sizes.split_first() else {
        return 0;
    };
    let minimum_implied_size_in_bits: u64 = match strides {
        None => {
            let mut bits = u64::from(first);
            for &s in rest {
                bits = bits.wrapping_mul(u64::from(s));
            }
            bits.wrapping_mul(u64::from(element_size_in_bits))
        }
        Some(strides) => {
            let mut index_of_last_element: u32 = 0;
            for (i, &size) in sizes.iter().enumerate() {
                let stride = strides.get(i).copied().unwrap_or(0);
                index_of_last_element = index_of_last_element.wrapping_add(size.wrapping_sub(1).wrapping_mul(stride));
            }
            (u64::from(index_of_last_element) + 1) * u64::from(element_size_in_bits)
        }
    };
    // (bits + 7) / 8 then (bytes + 3) & ~3, both in u64 and wrapping like the C++ code.
    let bytes = minimum_implied_size_in_bits.wrapping_add(7) / 8;
    bytes.wrapping_add(3) & !3u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_examples_r_calc_5() {
        assert_eq!(calc_buffer_tensor_size(DataType::Uint4, &[5], None), Ok(4));
        assert_eq!(calc_buffer_tensor_size(DataType::Float16, &[3], None), Ok(8));
        assert_eq!(calc_buffer_tensor_size(DataType::Uint8, &[1], None), Ok(4));
        assert_eq!(dmlx_calc_buffer_tensor_size(12, &[5], None), 4);
        assert_eq!(dmlx_calc_buffer_tensor_size(2, &[3], None), 8);
    }

    #[test]
    fn wrap_examples_r_calc_1_and_3() {
        assert_eq!(calc_buffer_tensor_size(DataType::Float32, &[65537, 65537], Some(&[65536, 1])), Ok(17180131332));
        assert_eq!(dmlx_calc_buffer_tensor_size(1, &[65537, 65537], Some(&[65536, 1])), 262148);
        assert_eq!(dmlx_calc_buffer_tensor_size(1, &[0, 4], Some(&[4, 1])), 17179869184);
        assert_eq!(dmlx_calc_buffer_tensor_size(1, &[0, 4], None), 0);
        assert_eq!(dmlx_calc_buffer_tensor_size(0, &[2, 2], None), 0);
        assert_eq!(dmlx_calc_buffer_tensor_size(14, &[2, 2], None), 0);
        assert_eq!(dmlx_calc_buffer_tensor_size(1, &[], None), 0);
    }

    #[test]
    fn onnxruntime_emulated_int64_example_r_calc_9() {
        // UINT32 sizes {2,3} strides {6,2}: last index 10, 11 elements, 44 bytes (the value in ORT's comment).
        assert_eq!(calc_buffer_tensor_size(DataType::Uint32, &[2, 3], Some(&[6, 2])), Ok(44));
    }

    #[test]
    fn exact_helper_rejects_invalid_input() {
        let e = calc_buffer_tensor_size(DataType::Float32, &[2, 0], None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "error[R-BT-3]: Sizes[1] is 0; every size must be >= 1 (DirectML cannot express empty tensors)"
        );
        let e = calc_buffer_tensor_size(DataType::Float32, &[], None).unwrap_err();
        assert_eq!(e.rule(), "R-BT-2");
        let e = calc_buffer_tensor_size(DataType::Float32, &[2, 2], Some(&[1])).unwrap_err();
        assert_eq!(e.rule(), "R-BT-4");
        let e = calc_buffer_tensor_size(DataType::Float64, &[u32::MAX; 3], None).unwrap_err();
        assert_eq!(e.rule(), "R-BT-6");
        let e = calc_buffer_tensor_size(DataType::Float64, &[u32::MAX, 3], Some(&[u32::MAX, u32::MAX])).unwrap_err();
        assert_eq!(e.rule(), "R-BT-6", "{e}");
    }
}
