//! `TensorDescError`: why a buffer-tensor description is rejected.
//!
//! Every message starts with `error[<rule id>]:` where the rule id is the one in SPEC.md, then names the field (prefixed
//! with the tensor's role inside an operator, e.g. `InputTensor.Sizes[2]`), the dimension and the numbers involved.

use crate::{DataType, FeatureLevel};
use std::fmt;

/// Which tensor of an operator a description plays; it prefixes field names in error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TensorRole {
    /// A tensor on its own (no prefix).
    #[default]
    Standalone,
    /// An operator's `InputTensor` (may broadcast or overlap).
    Input,
    /// An operator's `OutputTensor` (must not overlap, D1).
    Output,
}

impl TensorRole {
    /// The tensor's name in DirectML's operator descs: `"InputTensor"`, `"OutputTensor"`, or `"Tensor"` on its own.
    pub const fn name(self) -> &'static str {
        match self {
            TensorRole::Standalone => "Tensor",
            TensorRole::Input => "InputTensor",
            TensorRole::Output => "OutputTensor",
        }
    }

    /// The prefix put before field names: `""`, `"InputTensor."` or `"OutputTensor."`.
    pub const fn prefix(self) -> &'static str {
        match self {
            TensorRole::Standalone => "",
            TensorRole::Input => "InputTensor.",
            TensorRole::Output => "OutputTensor.",
        }
    }
}

/// A rejected buffer-tensor description: the tensor's role and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorDescError {
    /// Which tensor of an operator this is.
    pub role: TensorRole,
    /// What is wrong, with the numbers.
    pub kind: TensorDescErrorKind,
}

/// What is wrong with a buffer-tensor description. The `Display` text starts with the field name; the rule id is
/// [`TensorDescErrorKind::rule`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TensorDescErrorKind {
    /// R-BT-1: DataType is UNKNOWN or not a DirectML value.
    #[error("DataType is {value}, which is not a tensor data type (UNKNOWN is 0; the defined types are 1..=13)")]
    UnknownDataType {
        /// The raw enum value.
        value: u32,
    },
    /// R-BT-1 with D7: the type does not exist at the chosen feature level.
    #[error("DataType {data_type} does not exist at feature level {level} (it needs {since} or later)")]
    DataTypeNotAtLevel {
        /// The type.
        data_type: DataType,
        /// The chosen level.
        level: FeatureLevel,
        /// The first level with the type.
        since: FeatureLevel,
    },
    /// R-BT-2: rank out of range.
    #[error("DimensionCount is {count}; it must be between 1 and {max} at feature level {level}")]
    DimensionCount {
        /// The rank given.
        count: usize,
        /// The largest rank allowed.
        max: u32,
        /// The level whose table applies.
        level: FeatureLevel,
    },
    /// R-BT-3: a size of zero.
    #[error("Sizes[{dim}] is 0; every size must be >= 1 (DirectML cannot express empty tensors)")]
    ZeroSize {
        /// The dimension.
        dim: usize,
    },
    /// R-BT-4: strides of the wrong length.
    #[error("Strides has {strides} entries but Sizes has {sizes}; they must have the same length")]
    StrideCountMismatch {
        /// Number of sizes.
        sizes: usize,
        /// Number of strides.
        strides: usize,
    },
    /// R-BT-6 / D4: arithmetic on sizes and strides does not fit 64 bits.
    #[error("{}", overflow_message(what, *dim, *size, *stride))]
    Overflow {
        /// Which quantity overflowed.
        what: &'static str,
        /// The dimension being added when it overflowed.
        dim: usize,
        /// Its size.
        size: u32,
        /// Its stride (not shown for the logical element count, a product of sizes only).
        stride: u64,
    },
    /// R-BT-6 / D4: the physical extent (index of the last element + 1) exceeds 2^32 - 1.
    #[error(
        "Sizes/Strides: the physical extent is {extent} elements (index of the last element + 1); at most {max} are allowed"
    )]
    PhysicalExtentTooLarge {
        /// The extent in elements.
        extent: u64,
        /// 2^32 - 1.
        max: u64,
    },
    /// R-BT-6 / D4: the logical element count exceeds 2^32 - 1.
    #[error("Sizes: the logical element count is {count} (product of the sizes); at most {max} are allowed")]
    LogicalCountTooLarge {
        /// The product of the sizes.
        count: u64,
        /// 2^32 - 1.
        max: u64,
    },
    /// R-BT-5: TotalTensorSizeInBytes below the minimum implied size.
    #[error(
        "TotalTensorSizeInBytes is {given}, but the elements need at least {required} bytes (DMLCalcBufferTensorSize)"
    )]
    TotalSizeTooSmall {
        /// The size given.
        given: u64,
        /// The minimum implied size.
        required: u64,
    },
    /// R-BT-8: TotalTensorSizeInBytes covers the element bytes but not the round-up to a DWORD multiple.
    #[error(
        "TotalTensorSizeInBytes is {given}: it covers the {element_bytes} element bytes, but the minimum is rounded up \
         to a multiple of 4 ({required}), because DirectML binds buffers in whole DWORDs"
    )]
    TotalSizeNotRounded {
        /// The size given.
        given: u64,
        /// The bytes the elements themselves occupy.
        element_bytes: u64,
        /// The minimum implied size.
        required: u64,
    },
    /// R-BT-7: a non-zero alignment that is not a power of two.
    #[error("GuaranteedBaseOffsetAlignment is {alignment}; it must be 0 or a power of two")]
    AlignmentNotPowerOfTwo {
        /// The value given.
        alignment: u32,
    },
    /// R-BT-7: a non-zero alignment below the element size.
    #[error(
        "GuaranteedBaseOffsetAlignment is {alignment}; it must be 0 or at least the element size ({element_size} bytes for {data_type})"
    )]
    AlignmentBelowElementSize {
        /// The value given.
        alignment: u32,
        /// The element size in bytes (sub-byte types count as 1).
        element_size: u32,
        /// The type.
        data_type: DataType,
    },
    /// R-BT-9 / D8: flag bits DirectML does not define.
    #[error(
        "Flags is {bits:#x}; the bits {unknown:#x} are not DML_TENSOR_FLAGS (only NONE = 0 and OWNED_BY_DML = 0x1 exist)"
    )]
    UnknownFlags {
        /// The flags given.
        bits: u32,
        /// The undefined bits.
        unknown: u32,
    },
    /// R-FL-1 / D8: OWNED_BY_DML on a tensor that is not an input.
    #[error("Flags has OWNED_BY_DML, which is legal on input tensors only")]
    OwnedByDmlNotInput,
    /// D1: an output layout in which two logical elements share an address.
    #[error(
        "Strides: dimension {dim} (size {size}, stride {stride}) overlaps the dimensions with smaller strides, which span \
         {inner_extent} elements; an output must give every element its own address (stride 0 broadcasts and overlaps are for inputs only)"
    )]
    OverlappingOutput {
        /// The dimension whose stride is too small.
        dim: usize,
        /// Its size.
        size: u32,
        /// Its stride.
        stride: u32,
        /// The extent of the dimensions below it (in stride order).
        inner_extent: u64,
    },
}

/// The `what` of an [`TensorDescErrorKind::Overflow`] of the product of the sizes, which involves no stride.
pub(crate) const LOGICAL_ELEMENT_COUNT: &str = "the logical element count";

/// Issue 9: the logical count's overflow named "stride 0", a stride it never read.
fn overflow_message(what: &str, dim: usize, size: u32, stride: u64) -> String {
    if what == LOGICAL_ELEMENT_COUNT {
        format!("Sizes: {what} overflows 64-bit arithmetic at dimension {dim} (size {size})")
    } else {
        format!("Sizes/Strides: {what} overflows 64-bit arithmetic at dimension {dim} (size {size}, stride {stride})")
    }
}

impl TensorDescErrorKind {
    /// The SPEC.md rule id this error enforces.
    pub const fn rule(&self) -> &'static str {
        match self {
            TensorDescErrorKind::UnknownDataType { .. } | TensorDescErrorKind::DataTypeNotAtLevel { .. } => "R-BT-1",
            TensorDescErrorKind::DimensionCount { .. } => "R-BT-2",
            TensorDescErrorKind::ZeroSize { .. } => "R-BT-3",
            TensorDescErrorKind::StrideCountMismatch { .. } => "R-BT-4",
            TensorDescErrorKind::TotalSizeTooSmall { .. } => "R-BT-5",
            TensorDescErrorKind::Overflow { .. }
            | TensorDescErrorKind::PhysicalExtentTooLarge { .. }
            | TensorDescErrorKind::LogicalCountTooLarge { .. } => "R-BT-6",
            TensorDescErrorKind::AlignmentNotPowerOfTwo { .. }
            | TensorDescErrorKind::AlignmentBelowElementSize { .. } => "R-BT-7",
            TensorDescErrorKind::TotalSizeNotRounded { .. } => "R-BT-8",
            TensorDescErrorKind::UnknownFlags { .. } => "R-BT-9",
            TensorDescErrorKind::OwnedByDmlNotInput => "R-FL-1",
            TensorDescErrorKind::OverlappingOutput { .. } => "D1",
        }
    }
}

impl TensorDescError {
    /// An error for a standalone tensor.
    pub const fn new(kind: TensorDescErrorKind) -> Self {
        TensorDescError { role: TensorRole::Standalone, kind }
    }

    /// The SPEC.md rule id this error enforces.
    pub const fn rule(&self) -> &'static str {
        self.kind.rule()
    }

    /// The same error attributed to a tensor of an operator.
    pub fn with_role(mut self, role: TensorRole) -> Self {
        self.role = role;
        self
    }
}

impl From<TensorDescErrorKind> for TensorDescError {
    fn from(kind: TensorDescErrorKind) -> Self {
        TensorDescError::new(kind)
    }
}

impl fmt::Display for TensorDescError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}{}", self.rule(), self.role.prefix(), self.kind)
    }
}

impl std::error::Error for TensorDescError {}
