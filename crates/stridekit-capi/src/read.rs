//! Reading C descriptions into the model's types, and validating them with the model.
//!
//! This module reads; it decides nothing. Every rule is the model's (`Slice1Desc::validate_at`,
//! `SliceDesc::validate_at`, `BufferTensorDesc::from_raw`); only what a Rust type cannot hold is checked here, with
//! the rule id `capi`: null pointers, a tensor type other than BUFFER, an operator type other than SLICE/SLICE1.
//!
//! # Counts too large to read
//! A `DimensionCount` above `DML_TENSOR_DIMENSION_COUNT_MAX1` (8) is never valid, and its array may be garbage, so its
//! array is not read: the model validates an empty array in its place (which fails the same rule at the same point
//! of its check order: R-BT-2 for a tensor, R-S0-1/R-S1-1 for the window arrays), and the count the model reports is
//! then replaced by the caller's. Reading is bounded by 8 values per array; nothing is allocated from a caller's count.
#![allow(unsafe_code)]

use crate::abi::{
    DML_BUFFER_TENSOR_DESC, DML_OPERATOR_DESC, DML_SLICE_OPERATOR_DESC, DML_SLICE1_OPERATOR_DESC, DML_TENSOR_DESC,
    DML_TENSOR_TYPE_BUFFER,
};
use crate::error_info::Failure;
use stridekit::limits::TENSOR_DIMENSION_COUNT_MAX1;
use stridekit::{
    BufferTensorDesc, FeatureLevel, Operator, ParseFeatureLevelError, Slice1Desc, Slice1Plan, SliceDesc, SliceError,
    TensorDescErrorKind, TensorRole,
};

/// The feature level with DirectML value `raw`, or a D7 error naming the value (the model's message).
pub(crate) fn feature_level(raw: u32) -> Result<FeatureLevel, Failure> {
    FeatureLevel::ALL.into_iter().find(|l| l.raw() == raw).ok_or_else(|| {
        let e = ParseFeatureLevelError { given: format!("{raw:#x}") };
        Failure { hr: crate::abi::E_INVALIDARG, rule: "D7", message: e.to_string() }
    })
}

/// `count` values at `ptr`, copied, or `None` when `count` is above 8 (see the module docs).
///
/// # Safety
/// When `count` is 1..=8, `ptr` is non-null and valid for reads of `count` values of `T`.
unsafe fn read_array<T: Copy>(ptr: *const T, count: u32) -> Option<Vec<T>> {
    if count == 0 {
        return Some(Vec::new());
    }
    if count > TENSOR_DIMENSION_COUNT_MAX1 {
        return None;
    }
    // SAFETY: the caller promises `ptr` is valid for `count` (1..=8) reads of T; `read_unaligned` because C callers
    // may hand us arrays inside packed data.
    Some((0..count as usize).map(|i| unsafe { ptr.add(i).read_unaligned() }).collect())
}

/// Reads the array `field` of `count` values: null with a non-zero count is an error; counts above 8 give an empty
/// array and `Some(count)` as the count to report.
///
/// # Safety
/// `ptr` is null or valid for reads of `count` values (only the first 8 are ever read).
unsafe fn array_field<T: Copy>(ptr: *const T, count: u32, field: &str) -> Result<(Vec<T>, Option<u32>), Failure> {
    if ptr.is_null() && count != 0 {
        return Err(Failure::invalid(format_args!(
            "{field} is NULL but DimensionCount is {count}; it must point to {count} values"
        )));
    }
    // SAFETY: non-null (or count 0, which reads nothing) and, per the caller, valid for `count` reads.
    Ok(match unsafe { read_array(ptr, count) } {
        Some(values) => (values, None),
        None => (Vec::new(), Some(count)),
    })
}

/// A tensor read from C: the model's description and, when its `DimensionCount` was too large to read, that count.
struct ReadTensor {
    desc: BufferTensorDesc,
    unread_count: Option<u32>,
}

/// Reads `*tensor` (the operator's `InputTensor` or `OutputTensor`).
///
/// # Safety
/// `tensor` is null or points to a readable `DML_TENSOR_DESC` whose `Desc` is null or points to a readable
/// `DML_BUFFER_TENSOR_DESC` whose arrays hold `DimensionCount` values (or are null).
unsafe fn read_tensor(tensor: *const DML_TENSOR_DESC, role: TensorRole) -> Result<ReadTensor, Failure> {
    let name = match role {
        TensorRole::Output => "OutputTensor",
        _ => "InputTensor",
    };
    // SAFETY: null or readable, per the caller.
    let Some(tensor) = (unsafe { tensor.as_ref() }) else {
        return Err(Failure::invalid(format_args!("{name} is NULL; it must point to a DML_TENSOR_DESC")));
    };
    if tensor.Type != DML_TENSOR_TYPE_BUFFER {
        return Err(Failure::invalid(format_args!(
            "{name}.Type is {}; the only tensor type is DML_TENSOR_TYPE_BUFFER ({DML_TENSOR_TYPE_BUFFER})",
            tensor.Type
        )));
    }
    // SAFETY: null or a readable DML_BUFFER_TENSOR_DESC, per the caller.
    let Some(buffer) = (unsafe { tensor.Desc.cast::<DML_BUFFER_TENSOR_DESC>().as_ref() }) else {
        return Err(Failure::invalid(format_args!("{name}.Desc is NULL; it must point to a DML_BUFFER_TENSOR_DESC")));
    };
    let count = buffer.DimensionCount;
    // SAFETY: the arrays hold `DimensionCount` values or are null, per the caller.
    let (sizes, unread_count) = unsafe { array_field(buffer.Sizes, count, &format!("{name}.Sizes")) }?;
    let strides = if buffer.Strides.is_null() || unread_count.is_some() {
        None
    } else {
        // SAFETY: as for Sizes.
        Some(unsafe { array_field(buffer.Strides, count, &format!("{name}.Strides")) }?.0)
    };
    let desc = BufferTensorDesc::from_raw(
        buffer.DataType,
        buffer.Flags,
        &sizes,
        strides.as_deref(),
        buffer.TotalTensorSizeInBytes,
        buffer.GuaranteedBaseOffsetAlignment,
    )
    .map_err(|e| SliceError::from(e.with_role(role)))?;
    Ok(ReadTensor { desc, unread_count })
}

/// Puts the counts that were too large to read back into the model's error (see the module docs).
fn restore_counts(
    error: SliceError,
    input: Option<u32>,
    output: Option<u32>,
    arrays: Option<u32>,
    array_fields: [&str; 3],
) -> SliceError {
    match error {
        SliceError::Tensor(mut e) => {
            let unread = if e.role == TensorRole::Output { output } else { input };
            if let (Some(real), TensorDescErrorKind::DimensionCount { count, .. }) = (unread, &mut e.kind) {
                *count = real as usize;
            }
            SliceError::Tensor(e)
        }
        SliceError::RankMismatch { operator, field, len, rank } => {
            let len = match arrays {
                Some(real) if array_fields.contains(&field) => real as usize,
                _ => len,
            };
            SliceError::RankMismatch { operator, field, len, rank }
        }
        other => other,
    }
}

/// Reads and validates an operator description at the raw feature level `level`: the plan, or why not.
///
/// # Safety
/// `desc` is null or points to a readable `DML_OPERATOR_DESC` whose pointers, recursively, are null or valid for
/// the counts they declare (only the first 8 values of any array are read).
pub(crate) unsafe fn validate(desc: *const DML_OPERATOR_DESC, level: u32) -> Result<Slice1Plan, Failure> {
    // SAFETY: null or readable, per the caller.
    let Some(desc) = (unsafe { desc.as_ref() }) else {
        return Err(Failure::null_argument("desc"));
    };
    let level = feature_level(level)?;
    if desc.Desc.is_null() {
        return Err(Failure::invalid(format_args!(
            "DML_OPERATOR_DESC.Desc is NULL; it must point to the operator's description"
        )));
    }
    if desc.Type == Operator::Slice1.raw() {
        // SAFETY: Type says Desc points to a DML_SLICE1_OPERATOR_DESC; the caller promises it is readable.
        let op = unsafe { desc.Desc.cast::<DML_SLICE1_OPERATOR_DESC>().read_unaligned() };
        // SAFETY: the caller's promise covers the nested pointers.
        unsafe { validate_slice1(&op, level) }
    } else if desc.Type == Operator::Slice.raw() {
        // SAFETY: as above, for a DML_SLICE_OPERATOR_DESC.
        let op = unsafe { desc.Desc.cast::<DML_SLICE_OPERATOR_DESC>().read_unaligned() };
        // SAFETY: as above.
        unsafe { validate_slice(&op, level) }
    } else {
        Err(Failure::invalid(format_args!(
            "DML_OPERATOR_DESC.Type is {}; stridekit implements DML_OPERATOR_SLICE ({}) and DML_OPERATOR_SLICE1 ({})",
            desc.Type,
            Operator::Slice.raw(),
            Operator::Slice1.raw()
        )))
    }
}

/// # Safety
/// As for [`validate`].
unsafe fn validate_slice1(op: &DML_SLICE1_OPERATOR_DESC, level: FeatureLevel) -> Result<Slice1Plan, Failure> {
    const FIELDS: [&str; 3] = ["InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"];
    let n = op.DimensionCount;
    // SAFETY: the caller promises each pointer is null or valid for its count (here and in the four reads below).
    let input = unsafe { read_tensor(op.InputTensor, TensorRole::Input) }?;
    // SAFETY: as above.
    let output = unsafe { read_tensor(op.OutputTensor, TensorRole::Output) }?;
    // SAFETY: as above.
    let (offsets, unread) = unsafe { array_field(op.InputWindowOffsets, n, FIELDS[0]) }?;
    // SAFETY: as above.
    let (sizes, _) = unsafe { array_field(op.InputWindowSizes, n, FIELDS[1]) }?;
    // SAFETY: as above.
    let (strides, _) = unsafe { array_field(op.InputWindowStrides, n, FIELDS[2]) }?;
    let desc = Slice1Desc {
        input: input.desc,
        output: output.desc,
        input_window_offsets: offsets,
        input_window_sizes: sizes,
        input_window_strides: strides,
    };
    desc.validate_at(level)
        .map_err(|e| restore_counts(e, input.unread_count, output.unread_count, unread, FIELDS).into())
}

/// # Safety
/// As for [`validate`].
unsafe fn validate_slice(op: &DML_SLICE_OPERATOR_DESC, level: FeatureLevel) -> Result<Slice1Plan, Failure> {
    const FIELDS: [&str; 3] = ["Offsets", "Sizes", "Strides"];
    let n = op.DimensionCount;
    // SAFETY: the caller promises each pointer is null or valid for its count (here and in the four reads below).
    let input = unsafe { read_tensor(op.InputTensor, TensorRole::Input) }?;
    // SAFETY: as above.
    let output = unsafe { read_tensor(op.OutputTensor, TensorRole::Output) }?;
    // SAFETY: as above.
    let (offsets, unread) = unsafe { array_field(op.Offsets, n, FIELDS[0]) }?;
    // SAFETY: as above.
    let (sizes, _) = unsafe { array_field(op.Sizes, n, FIELDS[1]) }?;
    // SAFETY: as above.
    let (strides, _) = unsafe { array_field(op.Strides, n, FIELDS[2]) }?;
    let desc = SliceDesc { input: input.desc, output: output.desc, offsets, sizes, strides };
    desc.validate_at(level)
        .map_err(|e| restore_counts(e, input.unread_count, output.unread_count, unread, FIELDS).into())
}

/// Reads the arrays of `skCalcBufferTensorSize`: `None` when the count is not 1..=8 or `sizes` is null (the exact
/// helper then returns 0, as for every other invalid description).
///
/// # Safety
/// `sizes` (and `strides`, when not null) are null or valid for `count` reads.
pub(crate) unsafe fn size_helper_arrays(
    count: u32,
    sizes: *const u32,
    strides: *const u32,
) -> Option<(Vec<u32>, Option<Vec<u32>>)> {
    if sizes.is_null() || count == 0 {
        return None;
    }
    // SAFETY: non-null and valid for `count` reads, per the caller; None above 8.
    let sizes = unsafe { read_array(sizes, count) }?;
    // SAFETY: as above.
    let strides = if strides.is_null() { None } else { Some(unsafe { read_array(strides, count) }?) };
    Some((sizes, strides))
}
