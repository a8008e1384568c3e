//! Empty results (SPEC D11): one rule on every path that may produce them.
//!
//! DirectML cannot express an empty tensor or window (R-BT-3, R-S1-3). The DirectML-shaped entry points reject them
//! as DirectML does; the NumPy and ONNX front ends (and the command line's default window) follow NumPy, where an
//! empty input or selection gives an empty result. An empty result must not slip past the checks a non-empty one
//! gets, so [`validate_empty`] validates the **stand-in** of the slice: the same tensors and layouts with every
//! zero size made one, and a one-element window in those dimensions. Whatever would make the non-empty slice
//! invalid (the rank, the data type, the feature level, an output layout that overlaps or overflows) makes the empty
//! one invalid too, with the same error.
//!
//! ```
//! use stridekit::frontends::validate_empty;
//! use stridekit::{DataType, FeatureLevel};
//! // numpy.zeros((0, 3))[...] is an empty result...
//! assert!(validate_empty(DataType::Float32, &[0, 3], None, &[0, 3], None, FeatureLevel::LATEST).is_ok());
//! // ...but not at rank 9, nor at feature level 1_0, where Slice1 does not exist.
//! let e = validate_empty(DataType::Float32, &[0; 9], None, &[0; 9], None, FeatureLevel::LATEST).unwrap_err();
//! assert_eq!(e.rule(), "R-BT-2");
//! let e = validate_empty(DataType::Uint8, &[3, 0], None, &[3, 0], None, FeatureLevel::L1_0).unwrap_err();
//! assert_eq!(e.rule(), "D7");
//! ```

use crate::{BufferTensorDesc, DataType, FeatureLevel, Slice1Desc, SliceError};

/// Validates, at `level`, the stand-in of a slice whose result is empty (SPEC D11: the same slice with every zero
/// size made one, which carries every other rule): input
/// `input_sizes` (with `input_strides`, or packed), output `output_shape` (with `output_strides`, or packed), the
/// window covering the first `output_shape[i]` elements of each dimension with stride 1. Zero sizes become one.
/// `output_shape[i] <= max(input_sizes[i], 1)` is the front ends' guarantee; a larger value fails R-S1-2.
pub fn validate_empty(
    data_type: DataType,
    input_sizes: &[u32],
    input_strides: Option<&[u32]>,
    output_shape: &[u64],
    output_strides: Option<&[u32]>,
    level: FeatureLevel,
) -> Result<(), SliceError> {
    let input_sizes: Vec<u32> = input_sizes.iter().map(|&n| n.max(1)).collect();
    let output_sizes: Vec<u32> = output_shape.iter().map(|&n| u32::try_from(n.max(1)).unwrap_or(u32::MAX)).collect();
    let desc = Slice1Desc {
        input: BufferTensorDesc::new(data_type, &input_sizes, input_strides)?,
        output: BufferTensorDesc::new(data_type, &output_sizes, output_strides)?,
        input_window_offsets: vec![0; output_sizes.len()],
        input_window_sizes: output_sizes.clone(),
        input_window_strides: vec![1; output_sizes.len()],
    };
    desc.validate_at(level).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stand_in_carries_every_rule() {
        let l = FeatureLevel::LATEST;
        assert_eq!(validate_empty(DataType::Uint8, &[0], None, &[0], None, l), Ok(()));
        // An output layout that overlaps itself (D1) is refused even when the result is empty.
        let e = validate_empty(DataType::Uint8, &[4, 0], None, &[4, 0], Some(&[0, 1]), l).unwrap_err();
        assert_eq!(e.rule(), "D1");
        // 4-bit types are never sliced (R-S1-7).
        let e = validate_empty(DataType::Uint4, &[0, 2], None, &[0, 2], None, l).unwrap_err();
        assert_eq!(e.rule(), "R-S1-7");
        // 64-bit types need 4_1.
        let e = validate_empty(DataType::Float64, &[0, 2], None, &[0, 2], None, FeatureLevel::L3_1).unwrap_err();
        assert_eq!(e.rule(), "R-S1-7");
        // Another dimension too large for DirectML (R-BT-6: the extent must stay below 2^32 elements).
        let e = validate_empty(DataType::Uint8, &[0, 65536, 65536], None, &[0, 65536, 65536], None, l).unwrap_err();
        assert_eq!(e.rule(), "R-BT-6");
        // Ranks beyond the level's range.
        let e = validate_empty(DataType::Float32, &[0, 1, 1], None, &[0, 1, 1], None, FeatureLevel::L2_1).unwrap_err();
        assert_eq!(e.rule(), "R-S1-1");
    }
}
