//! Front ends: NumPy basic slicing, ONNX Slice and command-line lists, translated into Slice1 parameters.
//!
//! Each front end takes the input's shape and its own way of naming a slice, and returns a [`SliceOutcome`]:
//! either the four Slice1 arrays ([`Slice1Params`]) or, when some output dimension would be 0, the empty output shape.
//! DirectML cannot express a zero-size tensor (R-BT-3, R-S1-3, R-S1-5), so an empty result has to be short-circuited
//! above it: the caller produces an empty array and dispatches nothing.
//!
//! - [`numpy`]: `"1:3, ::-1, 5, ..."` with NumPy's exact clamping (Python's `slice.indices`).
//! - [`onnx`]: ONNX `Slice` (starts, ends, axes, steps) mapped as onnxruntime's DirectML EP does (SPEC §7).
//! - [`lists`]: `"1,1,4,4"` lists of u32, i32 or i64 for command-line flags.
//!
//! Conventions shared by all three: axes and array positions (`starts[2]`) count from 0, like NumPy and ONNX;
//! "item n" in an expression or list counts from 1, the way a person reads a list. Every error message starts with
//! `error[numpy]:`, `error[onnx]:` or `error[args]:`, and no input makes a front end panic.
//!
//! ```
//! use stridekit::frontends::{SliceOutcome, numpy::numpy_slice};
//! use stridekit::DataType;
//!
//! // A 4x5 array, rows 1 and 2, columns reversed.
//! let SliceOutcome::Window(params) = numpy_slice(&[4, 5], "1:3, ::-1").unwrap() else { unreachable!() };
//! assert_eq!(params.input_window_offsets, [1, 0]);
//! assert_eq!(params.input_window_sizes, [2, 5]);
//! assert_eq!(params.input_window_strides, [1, -1]);
//! assert_eq!(params.output_sizes, [2, 5]);
//! // The parameters validate as a Slice1 on packed tensors.
//! params.to_packed_desc(DataType::Float32).unwrap().validate().unwrap();
//!
//! assert_eq!(numpy_slice(&[4, 5], "2:2").unwrap(), SliceOutcome::Empty { output_shape: vec![0, 5] });
//! ```

mod empty;
pub mod lists;
pub mod numpy;
pub mod onnx;

pub use empty::validate_empty;

use crate::{BufferTensorDesc, DataType, Slice1Desc, TensorDescError};

/// The parameters of one `DML_SLICE1_OPERATOR_DESC`, one entry per dimension, plus the input sizes they were
/// computed for. Every front end guarantees, for each dimension `i` (the Slice1 rules R-S1-2..5):
/// `input_window_offsets[i] + input_window_sizes[i] <= input_sizes[i]`, `input_window_sizes[i] >= 1`,
/// `input_window_strides[i] != 0`, and `1 <= output_sizes[i] <= 1 + (input_window_sizes[i] - 1) / |input_window_strides[i]|`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Slice1Params {
    /// The input shape the window was computed for (`InputTensor.Sizes` of a packed input).
    pub input_sizes: Vec<u32>,
    /// `InputWindowOffsets`.
    pub input_window_offsets: Vec<u32>,
    /// `InputWindowSizes`.
    pub input_window_sizes: Vec<u32>,
    /// `InputWindowStrides`: negative walks the window from its end.
    pub input_window_strides: Vec<i32>,
    /// `OutputTensor.Sizes`.
    pub output_sizes: Vec<u32>,
}

impl Slice1Params {
    /// The identity window over `input_sizes`: offset 0, the whole dimension, stride 1.
    pub fn whole(input_sizes: &[u32]) -> Self {
        Slice1Params {
            input_sizes: input_sizes.to_vec(),
            input_window_offsets: vec![0; input_sizes.len()],
            input_window_sizes: input_sizes.to_vec(),
            input_window_strides: vec![1; input_sizes.len()],
            output_sizes: input_sizes.to_vec(),
        }
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.input_sizes.len()
    }

    /// DirectML's CopyStart, the input coordinate of output element 0: the window offset, plus `size - 1` where the
    /// stride is negative. Computed in 64 bits (it is below the input size).
    pub fn copy_start(&self) -> Vec<u64> {
        self.input_window_offsets
            .iter()
            .zip(&self.input_window_sizes)
            .zip(&self.input_window_strides)
            .map(|((&offset, &size), &stride)| crate::ops::slice1::copy_start(offset, size, i64::from(stride)))
            .collect()
    }

    /// A [`Slice1Desc`] with these parameters on packed input and output tensors of `data_type`. Fails only when the
    /// minimum size of a packed tensor of these sizes cannot be computed ([`crate::calc_buffer_tensor_size`]'s errors:
    /// a rank outside 1..=8, a zero size, 64-bit overflow). The description is not validated:
    /// [`Slice1Desc::validate`] checks the buffer-tensor rules (such as R-BT-6's limit of 2^32 - 1 elements), the
    /// rank and the type tables; the window rules hold by construction.
    pub fn to_packed_desc(&self, data_type: DataType) -> Result<Slice1Desc, TensorDescError> {
        Ok(Slice1Desc {
            input: BufferTensorDesc::packed(data_type, &self.input_sizes)?,
            output: BufferTensorDesc::packed(data_type, &self.output_sizes)?,
            input_window_offsets: self.input_window_offsets.clone(),
            input_window_sizes: self.input_window_sizes.clone(),
            input_window_strides: self.input_window_strides.clone(),
        })
    }
}

/// What a front end's slice comes to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SliceOutcome {
    /// A non-empty result: one Slice1 does it.
    Window(Slice1Params),
    /// Some output dimension is 0. DirectML cannot express zero-size tensors, so nothing is dispatched; the result is
    /// an empty array of this shape (same rank as the input), once [`validate_empty`] has checked every other rule
    /// (D11).
    Empty {
        /// The output shape; at least one entry is 0.
        output_shape: Vec<u64>,
    },
}

impl SliceOutcome {
    /// The output shape, whichever the outcome.
    pub fn output_shape(&self) -> Vec<u64> {
        match self {
            SliceOutcome::Window(params) => params.output_sizes.iter().map(|&n| u64::from(n)).collect(),
            SliceOutcome::Empty { output_shape } => output_shape.clone(),
        }
    }

    /// The Slice1 parameters, unless the result is empty.
    pub fn window(&self) -> Option<&Slice1Params> {
        match self {
            SliceOutcome::Window(params) => Some(params),
            SliceOutcome::Empty { .. } => None,
        }
    }
}

/// The largest dimension a front end accepts: DirectML sizes are u32.
pub const MAX_DIMENSION: u64 = u32::MAX as u64;

/// A shape as DirectML sizes (u32), or the first `(axis, size)` larger than [`MAX_DIMENSION`]. Shared by the front
/// ends, which each report it in their own words.
fn shape_to_u32(shape: &[u64]) -> Result<Vec<u32>, (usize, u64)> {
    shape.iter().enumerate().map(|(axis, &dim)| u32::try_from(dim).map_err(|_| (axis, dim))).collect()
}

/// How a decimal literal failed to parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DecimalError {
    /// Not `[+-]?[0-9]+`.
    NotANumber,
    /// Digits only, but beyond i128: `negative` tells which way.
    Overflow { negative: bool },
}

/// Parses `[+-]?[0-9]+` (no inner whitespace, no underscores) into an i128, without panicking on any input.
fn parse_decimal(text: &str) -> Result<i128, DecimalError> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DecimalError::NotANumber);
    }
    let mut value: i128 = 0;
    for b in digits.bytes() {
        let digit = i128::from(b - b'0');
        // Accumulate with the literal's sign so that i128::MIN itself parses.
        value = value
            .checked_mul(10)
            .and_then(|v| if negative { v.checked_sub(digit) } else { v.checked_add(digit) })
            .ok_or(DecimalError::Overflow { negative })?;
    }
    Ok(value)
}

/// `ceil(a / b)` for `a >= 0`, `b > 0`.
fn ceil_div(a: i128, b: i128) -> i128 {
    (a + b - 1) / b
}

/// Narrows a value the caller has proven to lie in `[0, u32::MAX]`. The debug assertion documents and tests the
/// proof; release builds saturate instead of panicking (D9: no panic on any input).
fn narrow_u32(value: i128) -> u32 {
    debug_assert!((0..=i128::from(u32::MAX)).contains(&value), "{value} outside u32");
    value.clamp(0, i128::from(u32::MAX)) as u32
}

/// Narrows a stride whose magnitude is at most `i32::MAX`, or which is only used for a single output element (then
/// any non-zero value of the same sign is equivalent: see [`stride_for`]).
fn clamp_i32(value: i128) -> i32 {
    value.clamp(-i128::from(i32::MAX), i128::from(i32::MAX)) as i32
}

/// The Slice1 stride for a step, or `None` when it cannot be expressed.
///
/// Equivalence of the clamp: when `count == 1` the only output coordinate is `o = 0`, which reads
/// `Input[CopyStart]` whatever the stride; the callers give such an axis a window whose `CopyStart` is the selected
/// index for either sign of the stride, and R-S1-5 only needs `1 <= 1 + (size - 1) / |stride|`, true for any
/// non-zero stride. So a step of any magnitude selecting one element becomes `±i32::MAX` (keeping its sign) with no
/// change in the result. With `count >= 2` the stride is used (`Input[CopyStart + stride]`) and must equal the step,
/// so a step beyond i32 cannot be expressed in Slice1.
fn stride_for(step: i128, count: i128) -> Option<i32> {
    match i32::try_from(step) {
        Ok(stride) => Some(stride),
        Err(_) if count <= 1 => Some(clamp_i32(step)),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_literals() {
        assert_eq!(parse_decimal("0"), Ok(0));
        assert_eq!(parse_decimal("-12"), Ok(-12));
        assert_eq!(parse_decimal("+7"), Ok(7));
        assert_eq!(parse_decimal("-170141183460469231731687303715884105728"), Ok(i128::MIN));
        assert_eq!(
            parse_decimal("170141183460469231731687303715884105728"),
            Err(DecimalError::Overflow { negative: false })
        );
        assert_eq!(
            parse_decimal("-999999999999999999999999999999999999999"),
            Err(DecimalError::Overflow { negative: true })
        );
        for bad in ["", "-", "+", "1 2", "1_0", "0x10", "--1", "1e3", "١"] {
            assert_eq!(parse_decimal(bad), Err(DecimalError::NotANumber), "{bad:?}");
        }
    }

    #[test]
    fn huge_steps_clamp_only_for_one_element() {
        assert_eq!(stride_for(-3, 5), Some(-3));
        assert_eq!(stride_for(1 << 40, 1), Some(i32::MAX));
        assert_eq!(stride_for(-(1 << 40), 1), Some(-i32::MAX));
        assert_eq!(stride_for(1 << 31, 2), None);
        assert_eq!(stride_for(-(1 << 31), 2), Some(i32::MIN));
    }
}
