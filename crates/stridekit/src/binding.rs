//! Binding checks (SPEC §2.2 and D10): a bound range `(offset, size)` of a buffer against a validated tensor, and a
//! plain host byte slice against the bytes a plan touches.
//!
//! Two kinds of entry point exist, and the distinction is deliberate (SPEC D10):
//! - **DirectML-shaped bindings** ([`Binding`]: a buffer, an offset and a size, as `DML_BUFFER_BINDING`) are checked
//!   exactly as DirectML states it ([`check_binding`]): the bound range holds at least TotalTensorSizeInBytes (which
//!   `DMLCalcBufferTensorSize` rounds up to 4 bytes, R-BIND-1) and its offset is aligned (R-BIND-2). The GPU backend,
//!   the C library and every `*_bound` function use them.
//! - **Host byte slices** (a memory-mapped `.npy`, a NumPy array's memory) need only hold every byte the plan reads
//!   or writes ([`check_host_buffer`]): no kernel touches a byte past the last element, so the DWORD rounding of
//!   the size helper must never force a copy of the data.

use crate::{TensorLayout, TensorRole, limits};

/// A bound range of a buffer: DirectML's `DML_BUFFER_BINDING` without the buffer (`Offset`, `SizeInBytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Binding {
    /// `Offset`: where the tensor starts in the buffer, in bytes. Must be a multiple of
    /// max(16, GuaranteedBaseOffsetAlignment) (R-BIND-2).
    pub offset: u64,
    /// `SizeInBytes`: at least the tensor's TotalTensorSizeInBytes (R-BIND-1).
    pub size_in_bytes: u64,
}

impl Binding {
    /// The whole of a `len`-byte buffer.
    pub fn whole(len: usize) -> Binding {
        Binding { offset: 0, size_in_bytes: len as u64 }
    }

    /// Checks this binding of a `buffer_len`-byte buffer to the tensor `layout` ([`check_binding`]) and returns the
    /// bound byte range.
    pub fn check(
        &self,
        tensor: TensorRole,
        layout: &TensorLayout,
        buffer_len: u64,
    ) -> Result<std::ops::Range<u64>, BindingError> {
        check_binding(tensor, layout, self.offset, self.size_in_bytes, buffer_len)?;
        Ok(self.offset..self.offset + self.size_in_bytes)
    }
}

/// A bound range that cannot hold the tensor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BindingError {
    /// R-BIND-1: the bound range is smaller than TotalTensorSizeInBytes.
    #[error("error[R-BIND-1]: {} binding: SizeInBytes is {size_in_bytes}, but TotalTensorSizeInBytes is {total}", tensor.name())]
    SizeTooSmall {
        /// Which tensor.
        tensor: TensorRole,
        /// The bound size.
        size_in_bytes: u64,
        /// The tensor's TotalTensorSizeInBytes.
        total: u64,
    },
    /// R-BIND-1: the bound range does not lie inside the buffer.
    #[error(
        "error[R-BIND-1]: {} binding: Offset {offset} + SizeInBytes {size_in_bytes} runs past the end of the {buffer_size}-byte buffer",
        tensor.name()
    )]
    OutsideBuffer {
        /// Which tensor.
        tensor: TensorRole,
        /// The bound offset.
        offset: u64,
        /// The bound size.
        size_in_bytes: u64,
        /// The buffer size.
        buffer_size: u64,
    },
    /// R-BIND-2: the offset is not a multiple of max(GuaranteedBaseOffsetAlignment, 16).
    #[error(
        "error[R-BIND-2]: {} binding: Offset {offset} is not a multiple of {required} (max of 16 and GuaranteedBaseOffsetAlignment)",
        tensor.name()
    )]
    Misaligned {
        /// Which tensor.
        tensor: TensorRole,
        /// The bound offset.
        offset: u64,
        /// The required alignment.
        required: u32,
    },
    /// D10: a host byte slice does not hold every byte the plan touches.
    #[error(
        "error[D10]: {}: the host buffer has {len} bytes, but the elements the slice {verb} end at byte {needed}",
        tensor.name()
    )]
    HostBufferTooSmall {
        /// Which tensor.
        tensor: TensorRole,
        /// "reads" or "writes".
        verb: &'static str,
        /// The slice's length.
        len: u64,
        /// One past the last byte touched.
        needed: u64,
    },
}

impl BindingError {
    /// The SPEC.md rule id this error enforces.
    pub const fn rule(&self) -> &'static str {
        match self {
            BindingError::SizeTooSmall { .. } | BindingError::OutsideBuffer { .. } => "R-BIND-1",
            BindingError::Misaligned { .. } => "R-BIND-2",
            BindingError::HostBufferTooSmall { .. } => "D10",
        }
    }
}

/// The alignment a binding offset needs: `max(GuaranteedBaseOffsetAlignment, 16)` (R-BIND-2, as pydirectml does).
pub fn required_binding_alignment(layout: &TensorLayout) -> u32 {
    layout.desc().guaranteed_base_offset_alignment.max(limits::MINIMUM_BUFFER_TENSOR_ALIGNMENT)
}

/// Checks R-BIND-1 and R-BIND-2 for the range `offset .. offset + size_in_bytes` of a `buffer_size`-byte buffer bound
/// to the tensor `layout`. `tensor` names it in the message.
pub fn check_binding(
    tensor: TensorRole,
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

/// Checks that a host byte slice of `len` bytes holds the bytes `needed` (one past the last byte the plan reads, for
/// `InputTensor`, or writes, for `OutputTensor`); see the module docs for why host slices are not held to R-BIND-1.
pub fn check_host_buffer(tensor: TensorRole, len: u64, needed: u64) -> Result<(), BindingError> {
    if len < needed {
        let verb = if tensor == TensorRole::Output { "writes" } else { "reads" };
        return Err(BindingError::HostBufferTooSmall { tensor, verb, len, needed });
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
        assert_eq!(check_binding(TensorRole::Input, &l, 0, 24, 24), Ok(()));
        assert_eq!(
            check_binding(TensorRole::Input, &l, 0, 20, 24).unwrap_err().to_string(),
            "error[R-BIND-1]: InputTensor binding: SizeInBytes is 20, but TotalTensorSizeInBytes is 24"
        );
        assert!(matches!(check_binding(TensorRole::Input, &l, 16, 24, 32), Err(BindingError::OutsideBuffer { .. })));
        assert!(matches!(
            check_binding(TensorRole::Input, &l, u64::MAX, 24, 32),
            Err(BindingError::OutsideBuffer { .. })
        ));
        assert_eq!(
            check_binding(TensorRole::Input, &l, 8, 24, 64).unwrap_err().to_string(),
            "error[R-BIND-2]: InputTensor binding: Offset 8 is not a multiple of 16 (max of 16 and GuaranteedBaseOffsetAlignment)"
        );
        d.guaranteed_base_offset_alignment = 64;
        let l = d.validate().unwrap();
        assert!(matches!(
            check_binding(TensorRole::Input, &l, 16, 24, 64),
            Err(BindingError::Misaligned { required: 64, .. })
        ));
        assert_eq!(check_binding(TensorRole::Input, &l, 64, 24, 128), Ok(()));
        assert_eq!(Binding { offset: 64, size_in_bytes: 24 }.check(TensorRole::Input, &l, 128), Ok(64..88));
        assert_eq!(Binding::whole(24).check(TensorRole::Input, &l, 20).unwrap_err().rule(), "R-BIND-1");
        assert_eq!(check_host_buffer(TensorRole::Input, 10, 10), Ok(()));
        let e = check_host_buffer(TensorRole::Output, 9, 10).unwrap_err();
        assert_eq!(e.rule(), "D10");
        assert_eq!(
            e.to_string(),
            "error[D10]: OutputTensor: the host buffer has 9 bytes, but the elements the slice writes end at byte 10"
        );
    }
}
