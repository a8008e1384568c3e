//! ONNX `Slice` (opsets 10, 11, 13: inputs `starts`, `ends`, optional `axes` and `steps`) translated into Slice1
//! parameters, as onnxruntime's DirectML execution provider does it (SPEC §7).
//!
//! # ONNX semantics
//!
//! 1. `axes` defaults to `[0, 1, ..., len(starts) - 1]` and `steps` to all 1. A negative axis counts from the end;
//!    an axis outside `[-r, r-1]`, a repeated axis, a step of 0 and arrays of different lengths are errors.
//! 2. For each listed axis of size `dim`: negative `start`/`end` get `dim` added; then with a positive step both clamp
//!    to `[0, dim]`; with a negative step `start` clamps to `[0, dim-1]` and `end` to `[-1, dim-1]`. So
//!    `i64::MAX` as an end means "to the end" and `i64::MIN` "to the beginning, backwards". An axis of size 0 gives 0.
//! 3. The output size is `max(0, ceil((end - start) / step))`; axes not listed stay whole.
//!
//! # Mapping (onnxruntime `SliceHelper::Initialize`)
//!
//! With a positive step the window is `[start, end)`; with a negative one it is `[end + 1, start + 1)` and the
//! negative stride makes DirectML start at the window's last element, the ONNX `start`. The window size is
//! `end - start` (or `start - end`), not trimmed to the last element copied, and the output size is
//! `ceil(size / |step|)`, DirectML's MaxCopiedElements. An output size of 0 anywhere gives [`SliceOutcome::Empty`].
//!
//! ```
//! use stridekit::frontends::{SliceOutcome, onnx::onnx_slice};
//! // ONNX test_slice_neg_steps: x[20:0:-1, 10:0:-3, 4:1:-2] on a (20, 10, 5) input.
//! let outcome = onnx_slice(&[20, 10, 5], &[20, 10, 4], &[0, 0, 1], Some(&[0, 1, 2]), Some(&[-1, -3, -2])).unwrap();
//! let SliceOutcome::Window(p) = outcome else { unreachable!() };
//! assert_eq!(p.input_window_offsets, [1, 1, 2]);
//! assert_eq!(p.input_window_sizes, [19, 9, 3]);
//! assert_eq!(p.input_window_strides, [-1, -3, -2]);
//! assert_eq!(p.output_sizes, [19, 3, 2]);
//! ```
//!
//! # Where this differs from Python slicing
//!
//! For values inside `[-dim, dim]` ONNX Slice is Python's `x[start:end:step]`. Outside, one case differs: a negative
//! step with `start < -dim` clamps `start` to 0 in ONNX (one element, index 0, when `end < 0` after adjustment) but
//! to -1 in Python (nothing). This module follows the ONNX text and onnxruntime; ONNX's Python reference
//! implementation, which slices with Python, gives the empty result there.

use super::{Slice1Params, SliceOutcome, ceil_div, narrow_u32, shape_to_u32, stride_for};

/// Why an ONNX Slice cannot be mapped. Messages start with `error[onnx]:`; array positions and axes count from 0.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OnnxError {
    /// `ends`, `axes` or `steps` has a different length from `starts`.
    #[error("error[onnx]: {field} has {len} entries but starts has {expected}; they must have the same length")]
    LengthMismatch {
        /// `ends`, `axes` or `steps`.
        field: &'static str,
        /// Its length.
        len: usize,
        /// The length of `starts`.
        expected: usize,
    },
    /// Without `axes`, more starts than axes.
    #[error(
        "error[onnx]: starts has {len} entries but the input has rank {rank}; without axes, starts[i] slices axis i"
    )]
    TooManyStarts {
        /// The length of `starts`.
        len: usize,
        /// The input rank.
        rank: usize,
    },
    /// An axis outside `[-rank, rank - 1]`.
    #[error("error[onnx]: axes[{index}] is {axis}, outside [-{rank}, {}] for a rank-{rank} input", *rank as i64 - 1)]
    AxisOutOfRange {
        /// The position in `axes`.
        index: usize,
        /// The axis as given.
        axis: i64,
        /// The input rank.
        rank: usize,
    },
    /// The same axis twice (after adding the rank to negative axes).
    #[error("error[onnx]: axes[{first}] and axes[{second}] both name axis {axis}; each axis may be sliced once")]
    DuplicateAxis {
        /// The axis (normalized, from 0).
        axis: usize,
        /// The first position naming it.
        first: usize,
        /// The second.
        second: usize,
    },
    /// A step of 0.
    #[error("error[onnx]: steps[{index}] (axis {axis}) is 0; a step must not be 0")]
    ZeroStep {
        /// The position in `steps`.
        index: usize,
        /// The axis it applies to.
        axis: usize,
    },
    /// A step beyond i32 that selects more than one element.
    #[error(
        "error[onnx]: steps[{index}] (axis {axis}) is {step} and selects {count} elements; Slice1 strides are i32, so a step selecting more than one element must lie in [-2147483648, 2147483647]"
    )]
    StepTooLarge {
        /// The position in `steps`.
        index: usize,
        /// The axis it applies to.
        axis: usize,
        /// The step.
        step: i64,
        /// How many elements it selects.
        count: u64,
    },
    /// An axis larger than a DirectML size.
    #[error("error[onnx]: axis {axis} has size {dim}; DirectML sizes are at most 4294967295")]
    DimensionTooLarge {
        /// The axis.
        axis: usize,
        /// Its size.
        dim: u64,
    },
}

impl OnnxError {
    /// The error kind shown in brackets at the start of every message: `onnx`.
    pub const KIND: &'static str = "onnx";
}

/// The effective ONNX range of one axis and its Slice1 window: the window is `[lo, lo + size)`, walked with `step`,
/// copying `count` elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OnnxAxis {
    lo: i128,
    size: i128,
    count: i128,
}

/// Steps 2 and 3 of the ONNX semantics and the onnxruntime mapping for one axis of size `dim` (`step != 0`).
fn onnx_axis(start: i64, end: i64, step: i128, dim: u64) -> OnnxAxis {
    let dim = i128::from(dim);
    if dim == 0 {
        // ONNX shape inference short-circuits; the negative-step clamp range [0, -1] would be inverted.
        return OnnxAxis { lo: 0, size: 0, count: 0 };
    }
    // In i128, adding dim to any i64 cannot overflow (INT64_MIN/INT64_MAX included).
    let wrap = |v: i64| {
        let v = i128::from(v);
        if v < 0 { v + dim } else { v }
    };
    let (start, end) = (wrap(start), wrap(end));
    let (lo, hi) = if step > 0 {
        (start.clamp(0, dim), end.clamp(0, dim))
    } else {
        // Window [end + 1, start + 1): CopyStart = lo + size - 1 = start.
        (end.clamp(-1, dim - 1) + 1, start.clamp(0, dim - 1) + 1)
    };
    let size = (hi - lo).max(0);
    OnnxAxis { lo, size, count: ceil_div(size, step.abs()) }
}

/// Maps an ONNX `Slice` on an input of shape `shape` to Slice1 parameters (see the [module docs](self)).
/// `axes` and `steps` are the optional inputs; `None` means the ONNX default.
///
/// ```
/// use stridekit::frontends::{SliceOutcome, onnx::onnx_slice};
/// // test_slice_start_out_of_bounds: x[:, 1000:1000] is empty, and DirectML cannot express it.
/// let outcome = onnx_slice(&[20, 10, 5], &[1000], &[1000], Some(&[1]), Some(&[1])).unwrap();
/// assert_eq!(outcome, SliceOutcome::Empty { output_shape: vec![20, 0, 5] });
///
/// let err = onnx_slice(&[20, 10, 5], &[0, 0], &[1, 1], Some(&[1, -2]), None).unwrap_err();
/// assert_eq!(err.to_string(), "error[onnx]: axes[0] and axes[1] both name axis 1; each axis may be sliced once");
/// ```
pub fn onnx_slice(
    shape: &[u64],
    starts: &[i64],
    ends: &[i64],
    axes: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> Result<SliceOutcome, OnnxError> {
    let rank = shape.len();
    let input_sizes = shape_to_u32(shape).map_err(|(axis, dim)| OnnxError::DimensionTooLarge { axis, dim })?;
    let expected = starts.len();
    for (field, len) in
        [("ends", Some(ends.len())), ("axes", axes.map(<[i64]>::len)), ("steps", steps.map(<[i64]>::len))]
    {
        if let Some(len) = len.filter(|&len| len != expected) {
            return Err(OnnxError::LengthMismatch { field, len, expected });
        }
    }
    if axes.is_none() && expected > rank {
        return Err(OnnxError::TooManyStarts { len: expected, rank });
    }

    let mut params = Slice1Params::whole(&input_sizes);
    let mut output_shape: Vec<u64> = shape.to_vec();
    let mut named_by: Vec<Option<usize>> = vec![None; rank];
    let mut too_large: Option<OnnxError> = None;
    for index in 0..expected {
        // Step 1: the axis, normalized and checked; rank <= isize::MAX, so it fits i128.
        let given = axes.map_or(index as i64, |a| a[index]);
        let normalized = if given < 0 { i128::from(given) + rank as i128 } else { i128::from(given) };
        if normalized < 0 || normalized >= rank as i128 {
            return Err(OnnxError::AxisOutOfRange { index, axis: given, rank });
        }
        let axis = normalized as usize;
        if let Some(first) = named_by[axis] {
            return Err(OnnxError::DuplicateAxis { axis, first, second: index });
        }
        named_by[axis] = Some(index);
        let step = steps.map_or(1, |s| s[index]);
        if step == 0 {
            return Err(OnnxError::ZeroStep { index, axis });
        }

        // Steps 2 and 3.
        let range = onnx_axis(starts[index], ends[index], i128::from(step), shape[axis]);
        // 0 <= count <= size <= dim <= u32::MAX.
        output_shape[axis] = u64::from(narrow_u32(range.count));
        if range.count == 0 {
            continue;
        }
        let Some(stride) = stride_for(i128::from(step), range.count) else {
            // Reported only if the result is not empty: an empty result dispatches nothing.
            too_large.get_or_insert(OnnxError::StepTooLarge { index, axis, step, count: output_shape[axis] });
            continue;
        };
        // lo in [0, dim - 1] and lo + size <= dim when count >= 1.
        params.input_window_offsets[axis] = narrow_u32(range.lo);
        params.input_window_sizes[axis] = narrow_u32(range.size);
        params.input_window_strides[axis] = stride;
        params.output_sizes[axis] = narrow_u32(range.count);
    }
    if output_shape.contains(&0) {
        return Ok(SliceOutcome::Empty { output_shape });
    }
    match too_large {
        Some(error) => Err(error),
        None => Ok(SliceOutcome::Window(params)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_clamps() {
        // Forward to the end, backward to the start, with the INT64 sentinels.
        assert_eq!(onnx_axis(0, i64::MAX, 1, 5), OnnxAxis { lo: 0, size: 5, count: 5 });
        assert_eq!(onnx_axis(-1, i64::MIN, -1, 5), OnnxAxis { lo: 0, size: 5, count: 5 });
        assert_eq!(onnx_axis(i64::MAX, i64::MIN, -2, 5), OnnxAxis { lo: 0, size: 5, count: 3 });
        // A negative step and a start below -dim: ONNX clamps the start to 0 (one element).
        assert_eq!(onnx_axis(-10, -20, -1, 5), OnnxAxis { lo: 0, size: 1, count: 1 });
        assert_eq!(onnx_axis(3, 3, 1, 5).count, 0);
        assert_eq!(onnx_axis(0, 5, -1, 0).count, 0);
    }
}
