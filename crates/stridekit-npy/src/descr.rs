//! NumPy type strings (`descr`) to [`DataType`] and byte order.
//!
//! A descr is an optional byte-order character and a type code of kind letter plus byte count: `<f4`, `|u1`, `>i8`.
//! This module reads it the way NumPy does, not the way `DataType::from_str` does: `u8` here is NumPy's 8-byte
//! unsigned integer (UINT64), where stridekit's `FromStr` reads the Rust name `u8` (UINT8).

use stridekit::DataType;

use crate::error::InvalidKind;

/// The byte order of the data a descr describes, as it matters to a little-endian reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ByteOrder {
    /// Little-endian, or byte order irrelevant (1-byte types).
    Little,
    /// Big-endian multi-byte elements: swap each element to read them.
    Big,
}

/// Parses a descr string as NumPy does.
///
/// Byte-order characters:
/// - `<` little-endian; `>` big-endian (reported as [`ByteOrder::Big`] only for multi-byte types, because NumPy
///   normalises `>u1` to `|u1`: one byte has no order);
/// - `|` "not applicable", `=` and no character mean the writer's native order. NumPy itself never writes them for
///   multi-byte types (it writes the actual order), and it reads them as the reading host's order; this crate reads
///   them as little-endian, as NumPy does on every little-endian host.
pub(crate) fn parse_descr(descr: &str) -> Result<(DataType, ByteOrder), InvalidKind> {
    let unsupported = || InvalidKind::UnsupportedDescr { descr: format!("'{descr}'") };
    let (big, code) = match descr.as_bytes().first() {
        Some(b'>') => (true, &descr[1..]),
        Some(b'<' | b'=' | b'|') => (false, &descr[1..]),
        _ => (false, descr),
    };
    let data_type = match code {
        "f2" => DataType::Float16,
        "f4" => DataType::Float32,
        "f8" => DataType::Float64,
        "u1" => DataType::Uint8,
        "u2" => DataType::Uint16,
        "u4" => DataType::Uint32,
        "u8" => DataType::Uint64,
        "i1" => DataType::Int8,
        "i2" => DataType::Int16,
        "i4" => DataType::Int32,
        "i8" => DataType::Int64,
        _ => return Err(unsupported()),
    };
    let multi_byte = data_type.size_in_bytes().is_some_and(|size| size > 1);
    let order = if big && multi_byte { ByteOrder::Big } else { ByteOrder::Little };
    Ok((data_type, order))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_supported_descr_round_trips_through_numpy_descr() {
        for t in DataType::BYTE_SIZED {
            let descr = t.numpy_descr().unwrap_or_default();
            assert_eq!(parse_descr(descr), Ok((t, ByteOrder::Little)), "{descr}");
            let code = &descr[1..];
            for prefix in ["", "=", "|", "<"] {
                assert_eq!(parse_descr(&format!("{prefix}{code}")), Ok((t, ByteOrder::Little)), "{prefix}{code}");
            }
            let expected_big = if t.size_in_bytes() == Some(1) { ByteOrder::Little } else { ByteOrder::Big };
            assert_eq!(parse_descr(&format!(">{code}")), Ok((t, expected_big)), ">{code}");
        }
    }

    #[test]
    fn numpy_meaning_of_u8_not_rust() {
        assert_eq!(parse_descr("u8"), Ok((DataType::Uint64, ByteOrder::Little)));
        assert_eq!(parse_descr("i8"), Ok((DataType::Int64, ByteOrder::Little)));
    }

    #[test]
    fn rejects_everything_else() {
        for d in
            ["|b1", "<c8", "<c16", "<U3", "|S5", "<M8[ns]", "<m8[s]", "|O", "|V4", "<f16", "f", "<f", "", "<", "<<f4"]
        {
            assert_eq!(parse_descr(d), Err(InvalidKind::UnsupportedDescr { descr: format!("'{d}'") }), "{d}");
        }
    }
}
