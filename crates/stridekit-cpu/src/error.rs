//! `ExecError`: why a CPU execution refused to run. Every check happens before a byte moves (D9).

use stridekit::BindingError;

/// A rejected execution; the output buffer is unchanged. Messages start with `error[<rule id>]:`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// R-BIND-1 / R-BIND-2: a bound range is too small, outside its buffer or misaligned.
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
}
