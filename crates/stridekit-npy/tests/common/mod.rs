//! Helpers shared by the integration tests: fixture paths and the values the fixtures hold.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::PathBuf;

use stridekit::DataType;

/// The NumPy type codes of the 11 supported types, as in the fixture names.
pub const CODES: [&str; 11] = ["f2", "f4", "f8", "u1", "i1", "u2", "u4", "u8", "i2", "i4", "i8"];

/// `tests/fixtures/NAME`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures").join(name)
}

/// The bytes of fixture NAME.
pub fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// The data type of a NumPy code.
pub fn data_type(code: &str) -> DataType {
    match code {
        "f2" => DataType::Float16,
        "f4" => DataType::Float32,
        "f8" => DataType::Float64,
        "u1" => DataType::Uint8,
        "i1" => DataType::Int8,
        "u2" => DataType::Uint16,
        "u4" => DataType::Uint32,
        "u8" => DataType::Uint64,
        "i2" => DataType::Int16,
        "i4" => DataType::Int32,
        "i8" => DataType::Int64,
        _ => panic!("unknown code {code}"),
    }
}

/// Little-endian bytes of the small integer `k` (0..=31) as an element of `data_type`.
pub fn le_value(data_type: DataType, k: u8) -> Vec<u8> {
    match data_type {
        // binary16: exponent bias 15, 10 mantissa bits; exact for small integers.
        DataType::Float16 => {
            let bits: u16 = if k == 0 {
                0
            } else {
                let e = 7 - k.leading_zeros() as u16; // floor(log2 k)
                let mantissa = (u16::from(k) << (10 - e)) & 0x3ff;
                ((e + 15) << 10) | mantissa
            };
            bits.to_le_bytes().to_vec()
        }
        DataType::Float32 => f32::from(k).to_le_bytes().to_vec(),
        DataType::Float64 => f64::from(k).to_le_bytes().to_vec(),
        DataType::Uint8 | DataType::Int8 => vec![k],
        DataType::Uint16 | DataType::Int16 => u16::from(k).to_le_bytes().to_vec(),
        DataType::Uint32 | DataType::Int32 => u32::from(k).to_le_bytes().to_vec(),
        DataType::Uint64 | DataType::Int64 => u64::from(k).to_le_bytes().to_vec(),
        DataType::Uint4 | DataType::Int4 => panic!("no 4-bit fixtures"),
    }
}

/// Little-endian bytes of `arange(n)` as `data_type`.
pub fn arange(data_type: DataType, n: u8) -> Vec<u8> {
    (0..n).flat_map(|k| le_value(data_type, k)).collect()
}
