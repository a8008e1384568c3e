//! Binding checks (SPEC §2.2): a bound range `(offset, size)` of a buffer against a validated tensor.

use crate::{TensorLayout, limits};

/// A bound range that cannot hold the tensor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BindingError {
    /// R-BIND-1: the bound range is smaller than TotalTensorSizeInBytes.
    #[error("error[R-BIND-1]: {tensor} binding: SizeInBytes is {size_in_bytes}, but TotalTensorSizeInBytes is {total}")]
    SizeTooSmall {
        /// Which tensor.
        tensor: &'static str,
        /// The bound size.
        size_in_bytes: u64,
        /// The tensor's TotalTensorSizeInBytes.
        total: u64,
    },
    /// R-BIND-1: the bound range does not lie inside the buffer.
    #[error(
        "error[R-BIND-1]: {tensor} binding: Offset {offset} + SizeInBytes {size_in_bytes} runs past the end of the {buffer_size}-byte buffer"
    )]
    OutsideBuffer {
        /// Which tensor.
        tensor: &'static str,
        /// The bound offset.
        offset: u64,
        /// The bound size.
        size_in_bytes: u64,
        /// The buffer size.
        buffer_size: u64,
    },
    /// R-BIND-2: the offset is not a multiple of max(GuaranteedBaseOffsetAlignment, 16).
    #[error(
        "error[R-BIND-2]: {tensor} binding: Offset {offset} is not a multiple of {required} (max of 16 and GuaranteedBaseOffsetAlignment)"
    )]
    Misaligned {
        /// Which tensor.
        tensor: &'static str,
        /// The bound offset.
        offset: u64,
        /// The required alignment.
        required: u32,
    },
}

/// The alignment a binding offset needs: `max(GuaranteedBaseOffsetAlignment, 16)` (R-BIND-2, as pydirectml does).
pub fn required_binding_alignment(layout: &TensorLayout) -> u32 {
    layout.desc().guaranteed_base_offset_alignment.max(limits::MINIMUM_BUFFER_TENSOR_ALIGNMENT)
}

/// Checks R-BIND-1 and R-BIND-2 for the range `offset .. offset + size_in_bytes` of a `buffer_size`-byte buffer bound
/// to the tensor `layout`. `tensor` names it in the message ("InputTensor", ...).
pub fn check_binding(
    tensor: &'static str,
    layout: &TensorLayout,
    offset: u64,
    size_in_bytes: u64,
    buffer_size: u64,
) -> Result<(), BindingError> {
    let total = layout.total_tensor_size_in_bytes();
    if size_in_bytes < total {
        return Err(BindingError::SizeTooSmall { tensor, size_in_bytes, total });
    }
    if offset.checked_add(size_in_bytes).is_none_or(|end| end > buffer_size) {
        return Err(BindingError::OutsideBuffer { tensor, offset, size_in_bytes, buffer_size });
    }
    let required = required_binding_alignment(layout);
    if !offset.is_multiple_of(u64::from(required)) {
        return Err(BindingError::Misaligned { tensor, offset, required });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BufferTensorDesc, DataType};

    #[test]
    fn rules() {
        let mut d = BufferTensorDesc::packed(DataType::Float32, &[2, 3]).unwrap();
        let l = d.validate().unwrap();
        assert_eq!(check_binding("InputTensor", &l, 0, 24, 24), Ok(()));
        assert_eq!(
            check_binding("InputTensor", &l, 0, 20, 24).unwrap_err().to_string(),
            "error[R-BIND-1]: InputTensor binding: SizeInBytes is 20, but TotalTensorSizeInBytes is 24"
        );
        assert!(matches!(check_binding("X", &l, 16, 24, 32), Err(BindingError::OutsideBuffer { .. })));
        assert!(matches!(check_binding("X", &l, u64::MAX, 24, 32), Err(BindingError::OutsideBuffer { .. })));
        assert_eq!(
            check_binding("X", &l, 8, 24, 64).unwrap_err().to_string(),
            "error[R-BIND-2]: X binding: Offset 8 is not a multiple of 16 (max of 16 and GuaranteedBaseOffsetAlignment)"
        );
        d.guaranteed_base_offset_alignment = 64;
        let l = d.validate().unwrap();
        assert!(matches!(check_binding("X", &l, 16, 24, 64), Err(BindingError::Misaligned { required: 64, .. })));
        assert_eq!(check_binding("X", &l, 64, 24, 128), Ok(()));
    }
}
