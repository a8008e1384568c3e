//! Named DirectML constants (SPEC §1.4) and this project's limits.

/// `DML_TENSOR_DIMENSION_COUNT_MAX`: the maximum rank before feature level 3_0.
pub const TENSOR_DIMENSION_COUNT_MAX: u32 = 5;
/// `DML_TENSOR_DIMENSION_COUNT_MAX1`: the maximum rank from feature level 3_0 on.
pub const TENSOR_DIMENSION_COUNT_MAX1: u32 = 8;
/// `DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT`: every buffer-tensor binding starts on a multiple of this many bytes
/// (R-BIND-2), whatever GuaranteedBaseOffsetAlignment says.
pub const MINIMUM_BUFFER_TENSOR_ALIGNMENT: u32 = 16;
/// `DML_TEMPORARY_BUFFER_ALIGNMENT`.
pub const TEMPORARY_BUFFER_ALIGNMENT: u32 = 256;
/// `DML_PERSISTENT_BUFFER_ALIGNMENT`.
pub const PERSISTENT_BUFFER_ALIGNMENT: u32 = 256;
/// R-BT-6 / D4: the physical extent and the logical element count of a buffer tensor are each at most this.
pub const MAX_ELEMENT_COUNT: u64 = u32::MAX as u64;
/// R-BT-8: DirectML requires bound buffer sizes to be DWORD multiples; the minimum implied size is rounded up to this.
pub const BUFFER_SIZE_GRANULARITY: u64 = 4;
