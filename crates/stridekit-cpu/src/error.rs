//! `ExecError`: why a CPU execution refused to run. Every check happens before a byte moves (D9).

use stridekit::BindingError;

/// A rejected execution; the output buffer is unchanged. Messages start with `error[<rule id>]:`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// R-BIND-1 / R-BIND-2: a bound range is too small, outside its buffer or misaligned; D10: a host slice does not
    /// hold the bytes the plan touches.
    #[error(transparent)]
    Binding(#[from] BindingError),
    /// R-BIND-1: the bytes the copy touches reach past the bound range. Validation makes this unreachable for
    /// ranges that pass [`stridekit::check_binding`]; the kernels check it again on their own before any unsafe code.
    #[error("error[R-BIND-1]: {tensor} binding: the copy touches bytes up to {needed}, but the bound range has {len}")]
    OutOfRange {
        /// `InputTensor` or `OutputTensor`.
        tensor: &'static str,
        /// One past the last byte the copy touches.
        needed: u64,
        /// The bound range's length.
        len: u64,
    },
    /// The plan's byte offsets do not fit this machine's address space (a 32-bit target with a tensor over 2 GiB).
    #[error(
        "error[address-space]: the tensors need byte offsets up to {needed}, which do not fit this machine's address space"
    )]
    AddressSpace {
        /// The input's TotalTensorSizeInBytes.
        needed: u64,
    },
    /// The plan's element size is not one the kernels move (1, 2, 4 or 8 bytes). Validated Slice1 plans never
    /// carry another; this guards the kernels' own soundness check.
    #[error("error[element-size]: elements of {size} bytes cannot be copied (the kernels move 1, 2, 4 or 8)")]
    ElementSize {
        /// The element size in bytes.
        size: usize,
    },
}

impl ExecError {
    /// The rule id of the message (`R-BIND-1`, `D10`, ...), or the category for the two errors no rule covers.
    pub fn rule(&self) -> &'static str {
        match self {
            ExecError::Binding(e) => e.rule(),
            ExecError::OutOfRange { .. } => "R-BIND-1",
            ExecError::AddressSpace { .. } => "address-space",
            ExecError::ElementSize { .. } => "element-size",
        }
    }
}
