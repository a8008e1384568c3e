//! `TensorFlags`: DML_TENSOR_FLAGS (SPEC §1.2, R-BT-9, D8).

use std::fmt;

/// DML_TENSOR_FLAGS: a bit set with two defined values.
///
/// Construct with [`TensorFlags::from_bits`], which rejects bits DirectML does not define (D8), or use the constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TensorFlags(u32);

impl TensorFlags {
    /// `DML_TENSOR_FLAG_NONE`.
    pub const NONE: TensorFlags = TensorFlags(0);
    /// `DML_TENSOR_FLAG_OWNED_BY_DML`: the tensor is bound at initialization and copied into DirectML's persistent
    /// resource. Legal on input tensors only (R-FL-1).
    pub const OWNED_BY_DML: TensorFlags = TensorFlags(1);
    /// Every bit DirectML defines.
    pub const KNOWN_BITS: u32 = 1;

    /// The flags for `bits`, or the undefined bits as the error (R-BT-9, D8).
    pub const fn from_bits(bits: u32) -> Result<TensorFlags, u32> {
        if bits & !Self::KNOWN_BITS != 0 { Err(bits & !Self::KNOWN_BITS) } else { Ok(TensorFlags(bits)) }
    }

    /// The raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// `true` when every bit of `other` is set in `self`.
    pub const fn contains(self, other: TensorFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl fmt::Display for TensorFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.contains(TensorFlags::OWNED_BY_DML) { f.write_str("OWNED_BY_DML") } else { f.write_str("NONE") }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_bits_rejected() {
        assert_eq!(TensorFlags::from_bits(0), Ok(TensorFlags::NONE));
        assert_eq!(TensorFlags::from_bits(1), Ok(TensorFlags::OWNED_BY_DML));
        assert_eq!(TensorFlags::from_bits(0b110), Err(0b110));
        assert_eq!(TensorFlags::from_bits(0x8000_0001), Err(0x8000_0000));
        assert!(TensorFlags::OWNED_BY_DML.contains(TensorFlags::NONE));
        assert_eq!(TensorFlags::OWNED_BY_DML.to_string(), "OWNED_BY_DML");
    }
}
