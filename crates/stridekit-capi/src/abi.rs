//! The C declarations of `include/stridekit.h` as Rust `#[repr(C)]` types, with DirectML's names.
//!
//! Enum-typed members (`DML_TENSOR_DATA_TYPE`, `DML_TENSOR_FLAGS`, ...) are plain `u32` here: a C program may store
//! any integer in them, and turning an out-of-range value into a Rust enum would be undefined behaviour. The model
//! converts the raw values ([`stridekit::DataType::from_raw`], [`stridekit::TensorFlags::from_bits`]) and rejects
//! the unknown ones with their rule ids.
#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::c_void;
use std::mem::{offset_of, size_of};

/// `HRESULT`: DirectML's return code (32 bits; negative means failure).
pub type HRESULT = i32;
/// `S_OK`.
pub const S_OK: HRESULT = 0;
/// `E_INVALIDARG`: an invalid description or argument.
pub const E_INVALIDARG: HRESULT = 0x8007_0057_u32 as i32;
/// `E_OUTOFMEMORY`: the operator does not fit this machine's address space.
pub const E_OUTOFMEMORY: HRESULT = 0x8007_000E_u32 as i32;
/// `E_POINTER`: a required pointer argument is null.
pub const E_POINTER: HRESULT = 0x8000_4003_u32 as i32;
/// `E_UNEXPECTED`: an internal error (a Rust panic caught at the boundary).
pub const E_UNEXPECTED: HRESULT = 0x8000_FFFF_u32 as i32;

/// `DML_TENSOR_TYPE_BUFFER`: the only tensor type (`DML_TENSOR_TYPE_INVALID` is 0).
pub const DML_TENSOR_TYPE_BUFFER: u32 = 1;

/// `DML_BUFFER_TENSOR_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DML_BUFFER_TENSOR_DESC {
    /// `DML_TENSOR_DATA_TYPE DataType`.
    pub DataType: u32,
    /// `DML_TENSOR_FLAGS Flags`.
    pub Flags: u32,
    /// `UINT DimensionCount`.
    pub DimensionCount: u32,
    /// `const UINT* Sizes`.
    pub Sizes: *const u32,
    /// `const UINT* Strides` (null: packed).
    pub Strides: *const u32,
    /// `UINT64 TotalTensorSizeInBytes`.
    pub TotalTensorSizeInBytes: u64,
    /// `UINT GuaranteedBaseOffsetAlignment`.
    pub GuaranteedBaseOffsetAlignment: u32,
}

/// `DML_TENSOR_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DML_TENSOR_DESC {
    /// `DML_TENSOR_TYPE Type`.
    pub Type: u32,
    /// `const void* Desc`: a `DML_BUFFER_TENSOR_DESC` for `DML_TENSOR_TYPE_BUFFER`.
    pub Desc: *const c_void,
}

/// `DML_OPERATOR_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DML_OPERATOR_DESC {
    /// `DML_OPERATOR_TYPE Type`.
    pub Type: u32,
    /// `const void* Desc`.
    pub Desc: *const c_void,
}

/// `DML_SLICE_OPERATOR_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DML_SLICE_OPERATOR_DESC {
    /// `const DML_TENSOR_DESC* InputTensor`.
    pub InputTensor: *const DML_TENSOR_DESC,
    /// `const DML_TENSOR_DESC* OutputTensor`.
    pub OutputTensor: *const DML_TENSOR_DESC,
    /// `UINT DimensionCount`.
    pub DimensionCount: u32,
    /// `const UINT* Offsets`.
    pub Offsets: *const u32,
    /// `const UINT* Sizes`.
    pub Sizes: *const u32,
    /// `const UINT* Strides`.
    pub Strides: *const u32,
}

/// `DML_SLICE1_OPERATOR_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DML_SLICE1_OPERATOR_DESC {
    /// `const DML_TENSOR_DESC* InputTensor`.
    pub InputTensor: *const DML_TENSOR_DESC,
    /// `const DML_TENSOR_DESC* OutputTensor`.
    pub OutputTensor: *const DML_TENSOR_DESC,
    /// `UINT DimensionCount`.
    pub DimensionCount: u32,
    /// `const UINT* InputWindowOffsets`.
    pub InputWindowOffsets: *const u32,
    /// `const UINT* InputWindowSizes`.
    pub InputWindowSizes: *const u32,
    /// `const INT* InputWindowStrides`.
    pub InputWindowStrides: *const i32,
}

/// Capacity of [`SK_ERROR_INFO::RuleId`] in bytes, NUL included (`SK_ERROR_RULE_ID_CAPACITY`).
pub const SK_ERROR_RULE_ID_CAPACITY: usize = 16;
/// Capacity of [`SK_ERROR_INFO::Message`] in bytes, NUL included (`SK_ERROR_MESSAGE_CAPACITY`).
pub const SK_ERROR_MESSAGE_CAPACITY: usize = 1024;

/// `SK_ERROR_INFO`: the rule id and the message of a failed call, NUL-terminated in fixed arrays.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SK_ERROR_INFO {
    /// `char RuleId[SK_ERROR_RULE_ID_CAPACITY]`: e.g. `R-S1-5`; empty on success.
    pub RuleId: [u8; SK_ERROR_RULE_ID_CAPACITY],
    /// `char Message[SK_ERROR_MESSAGE_CAPACITY]`: `error[<rule id>]: ...`; empty on success.
    pub Message: [u8; SK_ERROR_MESSAGE_CAPACITY],
}

impl Default for SK_ERROR_INFO {
    fn default() -> Self {
        SK_ERROR_INFO { RuleId: [0; SK_ERROR_RULE_ID_CAPACITY], Message: [0; SK_ERROR_MESSAGE_CAPACITY] }
    }
}

impl SK_ERROR_INFO {
    /// The rule id up to its NUL, as text (for Rust callers and tests).
    pub fn rule_id(&self) -> &str {
        c_text(&self.RuleId)
    }

    /// The message up to its NUL, as text.
    pub fn message(&self) -> &str {
        c_text(&self.Message)
    }
}

fn c_text(bytes: &[u8]) -> &str {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    // The writer only ever stores whole UTF-8 characters; a caller-modified array degrades to the valid prefix.
    match std::str::from_utf8(&bytes[..end]) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// One struct of the header: its C name, its size and its members `(name, offset)` in declaration order. The header
/// test compares the member names and order with `include/stridekit.h`; the offsets are those of the Rust
/// `#[repr(C)]` definitions above, which [`DIRECTML_LAYOUT_64`] pins to DirectML's 64-bit layout.
pub type StructLayout = (&'static str, usize, &'static [(&'static str, usize)]);

macro_rules! layout {
    ($t:ident { $($f:ident),* $(,)? }) => {
        (stringify!($t), size_of::<$t>(), &[$((stringify!($f), offset_of!($t, $f))),*])
    };
}

/// The layout of every struct of the header, as compiled for this target.
pub const LAYOUT: [StructLayout; 6] = [
    layout!(DML_BUFFER_TENSOR_DESC {
        DataType,
        Flags,
        DimensionCount,
        Sizes,
        Strides,
        TotalTensorSizeInBytes,
        GuaranteedBaseOffsetAlignment
    }),
    layout!(DML_TENSOR_DESC { Type, Desc }),
    layout!(DML_OPERATOR_DESC { Type, Desc }),
    layout!(DML_SLICE_OPERATOR_DESC { InputTensor, OutputTensor, DimensionCount, Offsets, Sizes, Strides }),
    layout!(DML_SLICE1_OPERATOR_DESC {
        InputTensor,
        OutputTensor,
        DimensionCount,
        InputWindowOffsets,
        InputWindowSizes,
        InputWindowStrides
    }),
    layout!(SK_ERROR_INFO { RuleId, Message }),
];

/// DirectML's layout on 64-bit targets (x86-64 and ARM64 compilers agree): sizes and member offsets, in the order of
/// [`LAYOUT`]. The C and C++ tests static-assert the same numbers against the header.
pub const DIRECTML_LAYOUT_64: [(usize, &[usize]); 6] = [
    (48, &[0, 4, 8, 16, 24, 32, 40]),
    (16, &[0, 8]),
    (16, &[0, 8]),
    (48, &[0, 8, 16, 24, 32, 40]),
    (48, &[0, 8, 16, 24, 32, 40]),
    (SK_ERROR_RULE_ID_CAPACITY + SK_ERROR_MESSAGE_CAPACITY, &[0, SK_ERROR_RULE_ID_CAPACITY]),
];

// The Rust definitions have DirectML's layout, checked at compile time on 64-bit targets.
#[cfg(target_pointer_width = "64")]
const _: () = {
    let mut i = 0;
    while i < LAYOUT.len() {
        assert!(LAYOUT[i].1 == DIRECTML_LAYOUT_64[i].0);
        assert!(LAYOUT[i].2.len() == DIRECTML_LAYOUT_64[i].1.len());
        let mut j = 0;
        while j < LAYOUT[i].2.len() {
            assert!(LAYOUT[i].2[j].1 == DIRECTML_LAYOUT_64[i].1[j]);
            j += 1;
        }
        i += 1;
    }
};
