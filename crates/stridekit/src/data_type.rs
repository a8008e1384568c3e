//! `DataType`: DML_TENSOR_DATA_TYPE (SPEC §1.1).

use std::fmt;
use std::str::FromStr;

/// A DirectML tensor data type, with DirectML's numeric enum values.
///
/// `DML_TENSOR_DATA_TYPE_UNKNOWN` (0) is deliberately not a variant: it is "never valid" (R-BT-1), so
/// [`DataType::from_raw`] rejects it instead of letting it travel through the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
pub enum DataType {
    /// `DML_TENSOR_DATA_TYPE_FLOAT32` (1).
    Float32 = 1,
    /// `DML_TENSOR_DATA_TYPE_FLOAT16` (2).
    Float16 = 2,
    /// `DML_TENSOR_DATA_TYPE_UINT32` (3).
    Uint32 = 3,
    /// `DML_TENSOR_DATA_TYPE_UINT16` (4).
    Uint16 = 4,
    /// `DML_TENSOR_DATA_TYPE_UINT8` (5).
    Uint8 = 5,
    /// `DML_TENSOR_DATA_TYPE_INT32` (6).
    Int32 = 6,
    /// `DML_TENSOR_DATA_TYPE_INT16` (7).
    Int16 = 7,
    /// `DML_TENSOR_DATA_TYPE_INT8` (8).
    Int8 = 8,
    /// `DML_TENSOR_DATA_TYPE_FLOAT64` (9), since feature level 3_0.
    Float64 = 9,
    /// `DML_TENSOR_DATA_TYPE_UINT64` (10), since feature level 3_0.
    Uint64 = 10,
    /// `DML_TENSOR_DATA_TYPE_INT64` (11), since feature level 3_0.
    Int64 = 11,
    /// `DML_TENSOR_DATA_TYPE_UINT4` (12), since feature level 6_3. Two elements per byte, first in the low nibble.
    Uint4 = 12,
    /// `DML_TENSOR_DATA_TYPE_INT4` (13), since feature level 6_3. Two elements per byte, first in the low nibble.
    Int4 = 13,
}

/// The name given to [`DataType::from_str`] is not a known type name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "error[R-BT-1]: DataType '{given}' is not a tensor data type; use a DirectML name (FLOAT32, UINT8, ...), \
     a NumPy name or code (float32, <f4, u1, ...) or a Rust name (f32, u8, ...)"
)]
pub struct ParseDataTypeError {
    /// What the caller wrote.
    pub given: String,
}

impl DataType {
    /// Every data type, in DirectML enum order.
    pub const ALL: [DataType; 13] = [
        DataType::Float32,
        DataType::Float16,
        DataType::Uint32,
        DataType::Uint16,
        DataType::Uint8,
        DataType::Int32,
        DataType::Int16,
        DataType::Int8,
        DataType::Float64,
        DataType::Uint64,
        DataType::Int64,
        DataType::Uint4,
        DataType::Int4,
    ];

    /// The 11 byte-sized types that Slice and Slice1 accept at the newest feature level (D7).
    pub const BYTE_SIZED: [DataType; 11] = [
        DataType::Float32,
        DataType::Float16,
        DataType::Uint32,
        DataType::Uint16,
        DataType::Uint8,
        DataType::Int32,
        DataType::Int16,
        DataType::Int8,
        DataType::Float64,
        DataType::Uint64,
        DataType::Int64,
    ];

    /// The type with DirectML enum value `value`, or `None` for UNKNOWN (0) and values DirectML does not define.
    pub const fn from_raw(value: u32) -> Option<DataType> {
        Some(match value {
            1 => DataType::Float32,
            2 => DataType::Float16,
            3 => DataType::Uint32,
            4 => DataType::Uint16,
            5 => DataType::Uint8,
            6 => DataType::Int32,
            7 => DataType::Int16,
            8 => DataType::Int8,
            9 => DataType::Float64,
            10 => DataType::Uint64,
            11 => DataType::Int64,
            12 => DataType::Uint4,
            13 => DataType::Int4,
            _ => return None,
        })
    }

    /// DirectML's numeric value of the enum.
    pub const fn raw(self) -> u32 {
        self as u32
    }

    /// DirectML's name without the `DML_TENSOR_DATA_TYPE_` prefix, e.g. `FLOAT32`.
    pub const fn name(self) -> &'static str {
        match self {
            DataType::Float32 => "FLOAT32",
            DataType::Float16 => "FLOAT16",
            DataType::Uint32 => "UINT32",
            DataType::Uint16 => "UINT16",
            DataType::Uint8 => "UINT8",
            DataType::Int32 => "INT32",
            DataType::Int16 => "INT16",
            DataType::Int8 => "INT8",
            DataType::Float64 => "FLOAT64",
            DataType::Uint64 => "UINT64",
            DataType::Int64 => "INT64",
            DataType::Uint4 => "UINT4",
            DataType::Int4 => "INT4",
        }
    }

    /// The Rust spelling (`f32`, `u8`, ...; `u4`/`i4` for the 4-bit types, which have no Rust primitive).
    pub const fn rust_name(self) -> &'static str {
        match self {
            DataType::Float32 => "f32",
            DataType::Float16 => "f16",
            DataType::Uint32 => "u32",
            DataType::Uint16 => "u16",
            DataType::Uint8 => "u8",
            DataType::Int32 => "i32",
            DataType::Int16 => "i16",
            DataType::Int8 => "i8",
            DataType::Float64 => "f64",
            DataType::Uint64 => "u64",
            DataType::Int64 => "i64",
            DataType::Uint4 => "u4",
            DataType::Int4 => "i4",
        }
    }

    /// The little-endian NumPy type string (`<f4`, `|u1`, ...), or `None` for the 4-bit types (NumPy has none).
    pub const fn numpy_descr(self) -> Option<&'static str> {
        Some(match self {
            DataType::Float32 => "<f4",
            DataType::Float16 => "<f2",
            DataType::Uint32 => "<u4",
            DataType::Uint16 => "<u2",
            DataType::Uint8 => "|u1",
            DataType::Int32 => "<i4",
            DataType::Int16 => "<i2",
            DataType::Int8 => "|i1",
            DataType::Float64 => "<f8",
            DataType::Uint64 => "<u8",
            DataType::Int64 => "<i8",
            DataType::Uint4 | DataType::Int4 => return None,
        })
    }

    /// The type of a NumPy type code without its byte-order character (`f4`, `u1`, `i8`): the kind letter and byte
    /// count of [`numpy_descr`](Self::numpy_descr), so that the codes are defined once. `u8` is NumPy's UINT64 here.
    pub fn from_numpy_code(code: &str) -> Option<DataType> {
        DataType::ALL.into_iter().find(|t| t.numpy_descr().is_some_and(|d| &d[1..] == code))
    }

    /// Bits per element, as DMLCalcBufferTensorSize counts them (4 for UINT4/INT4).
    pub const fn size_in_bits(self) -> u32 {
        match self {
            DataType::Uint4 | DataType::Int4 => 4,
            DataType::Uint8 | DataType::Int8 => 8,
            DataType::Float16 | DataType::Uint16 | DataType::Int16 => 16,
            DataType::Float32 | DataType::Uint32 | DataType::Int32 => 32,
            DataType::Float64 | DataType::Uint64 | DataType::Int64 => 64,
        }
    }

    /// Bytes per element, or `None` for the 4-bit types (half a byte is not a whole number of bytes).
    pub const fn size_in_bytes(self) -> Option<u32> {
        match self.size_in_bits() {
            4 => None,
            bits => Some(bits / 8),
        }
    }

    /// Bytes per element with sub-byte types rounded up to 1: the comparison R-BT-7 makes for alignments.
    pub const fn size_in_bytes_rounded_up(self) -> u32 {
        self.size_in_bits().div_ceil(8)
    }

    /// `true` for UINT4 and INT4.
    pub const fn is_sub_byte(self) -> bool {
        self.size_in_bits() < 8
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DataType {
    type Err = ParseDataTypeError;

    /// Accepts, case-insensitively: DirectML names with or without the `DML_TENSOR_DATA_TYPE_` prefix (`FLOAT32`),
    /// NumPy names (`float32`, `half`, `single`, `double`), NumPy type codes with an optional byte-order
    /// character that is little-endian or byte-order-free (`f4`, `<f4`, `=f4`, `|u1`), and Rust names (`f32`).
    /// Big-endian codes (`>f4`) are rejected: stridekit buffers are little-endian, as on every DirectML device.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseDataTypeError { given: s.to_owned() };
        let lower = s.trim().to_ascii_lowercase();
        let name = lower.strip_prefix("dml_tensor_data_type_").unwrap_or(&lower);
        let by_name = match name {
            "float32" | "f32" | "single" => Some(DataType::Float32),
            "float16" | "f16" | "half" => Some(DataType::Float16),
            "float64" | "f64" | "double" => Some(DataType::Float64),
            "uint8" | "u8" => Some(DataType::Uint8),
            "uint16" | "u16" => Some(DataType::Uint16),
            "uint32" | "u32" => Some(DataType::Uint32),
            "uint64" | "u64" => Some(DataType::Uint64),
            "int8" | "i8" => Some(DataType::Int8),
            "int16" | "i16" => Some(DataType::Int16),
            "int32" | "i32" => Some(DataType::Int32),
            "int64" | "i64" => Some(DataType::Int64),
            "uint4" | "u4" => Some(DataType::Uint4),
            "int4" | "i4" => Some(DataType::Int4),
            _ => None,
        };
        if let Some(t) = by_name {
            return Ok(t);
        }
        // NumPy type codes: optional byte order, kind letter, byte count ("<f4", "u1").
        let code = name.strip_prefix(['<', '=', '|']).unwrap_or(name);
        DataType::from_numpy_code(code).ok_or_else(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_values_match_directml() {
        for (i, t) in DataType::ALL.iter().enumerate() {
            assert_eq!(t.raw(), i as u32 + 1);
            assert_eq!(DataType::from_raw(t.raw()), Some(*t));
        }
        assert_eq!(DataType::from_raw(0), None);
        assert_eq!(DataType::from_raw(14), None);
    }

    #[test]
    fn parses_every_spelling() {
        for t in DataType::ALL {
            assert_eq!(t.name().parse::<DataType>(), Ok(t));
            assert_eq!(t.name().to_lowercase().parse::<DataType>(), Ok(t));
            assert_eq!(format!("DML_TENSOR_DATA_TYPE_{}", t.name()).parse::<DataType>(), Ok(t));
            if let Some(d) = t.numpy_descr() {
                assert_eq!(d.parse::<DataType>(), Ok(t));
                let code = &d[1..];
                if !matches!(code, "u4" | "u8" | "i4" | "i8") {
                    assert_eq!(code.parse::<DataType>(), Ok(t));
                }
            }
        }
        // "u4"/"u8"/"i4"/"i8" are Rust names first: u8 means UINT8, as every Rust user expects; the NumPy code for
        // UINT32 must be written with its byte order ("<u4") to be unambiguous.
        assert_eq!("u8".parse::<DataType>(), Ok(DataType::Uint8));
        assert_eq!("<u8".parse::<DataType>(), Ok(DataType::Uint64));
        assert_eq!("<u4".parse::<DataType>(), Ok(DataType::Uint32));
        assert_eq!("Half".parse::<DataType>(), Ok(DataType::Float16));
        assert_eq!("float32".parse::<DataType>(), Ok(DataType::Float32));
        assert!(">f4".parse::<DataType>().is_err());
        assert!("unknown".parse::<DataType>().is_err());
        assert_eq!(
            "bool".parse::<DataType>().unwrap_err().to_string(),
            "error[R-BT-1]: DataType 'bool' is not a tensor data type; use a DirectML name (FLOAT32, UINT8, ...), \
             a NumPy name or code (float32, <f4, u1, ...) or a Rust name (f32, u8, ...)"
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(DataType::Uint4.size_in_bits(), 4);
        assert_eq!(DataType::Uint4.size_in_bytes(), None);
        assert_eq!(DataType::Uint4.size_in_bytes_rounded_up(), 1);
        assert_eq!(DataType::Float16.size_in_bytes(), Some(2));
        assert_eq!(DataType::Int64.size_in_bytes(), Some(8));
    }
}
