//! Parsing of argument values that clap leaves as text: lists, data types, flags, feature levels.

use crate::error::CliError;
use stridekit::frontends::lists;
use stridekit::{DataType, FeatureLevel, TensorDescError, TensorDescErrorKind, TensorFlags};

/// A comma-separated list of u32 (`1,1,4,4`), for the flag `field`.
pub fn u32_list(field: &str, text: &str) -> Result<Vec<u32>, CliError> {
    Ok(lists::parse_u32_list(field, text)?)
}

/// A comma-separated list of i32 (`1,1,-2,2`), for the flag `field`.
pub fn i32_list(field: &str, text: &str) -> Result<Vec<i32>, CliError> {
    Ok(lists::parse_i32_list(field, text)?)
}

/// A comma-separated list of i64, for the flag `field`.
pub fn i64_list(field: &str, text: &str) -> Result<Vec<i64>, CliError> {
    Ok(lists::parse_i64_list(field, text)?)
}

/// A data type by name, or by DirectML enum value (so that `0`, UNKNOWN, gives R-BT-1's error).
pub fn data_type(text: &str) -> Result<DataType, CliError> {
    if let Ok(value) = text.trim().parse::<u32>() {
        return DataType::from_raw(value)
            .ok_or_else(|| TensorDescError::new(TensorDescErrorKind::UnknownDataType { value }).into());
    }
    Ok(text.parse::<DataType>()?)
}

/// Flags: `none`, `owned_by_dml` or raw bits (decimal or 0x hex); unknown bits give R-BT-9's error.
pub fn flags(text: &str) -> Result<TensorFlags, CliError> {
    let t = text.trim().to_ascii_lowercase();
    let bits = match t.trim_start_matches("dml_tensor_flag_") {
        "none" => 0,
        "owned_by_dml" => 1,
        other => {
            let parsed = match other.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16),
                None => other.parse::<u32>(),
            };
            parsed.map_err(|_| {
                CliError::Args(format!(
                    "--flags '{text}' is not none, owned_by_dml or a number from 0 to 4294967295 (DML_TENSOR_FLAGS \
                     is a UINT; decimal or 0x hex)"
                ))
            })?
        }
    };
    TensorFlags::from_bits(bits)
        .map_err(|unknown| TensorDescError::new(TensorDescErrorKind::UnknownFlags { bits, unknown }).into())
}

/// A feature level, default the newest.
pub fn feature_level(text: Option<&str>) -> Result<FeatureLevel, CliError> {
    Ok(match text {
        Some(t) => t.parse()?,
        None => FeatureLevel::LATEST,
    })
}

/// An unsigned integer of the flag `flag` and DirectML field `field`, with the allowed range in the message (clap
/// value parser: a negative number reaches it instead of being taken for an option).
fn unsigned<T: std::str::FromStr>(flag: &str, field: &str, max: u64, text: &str) -> Result<T, String> {
    text.trim().parse::<T>().map_err(|_| {
        format!("{flag} '{text}' is not a whole number from 0 to {max} ({field} is an unsigned {}-bit integer)", {
            if max == u64::MAX { 64 } else { 32 }
        })
    })
}

/// `--total-bytes`: TotalTensorSizeInBytes, a UINT64.
pub fn total_bytes(text: &str) -> Result<u64, String> {
    unsigned("--total-bytes", "TotalTensorSizeInBytes", u64::MAX, text)
}

/// `--alignment`: GuaranteedBaseOffsetAlignment, a UINT.
pub fn alignment(text: &str) -> Result<u32, String> {
    unsigned("--alignment", "GuaranteedBaseOffsetAlignment", u64::from(u32::MAX), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_numbers_say_the_range() {
        let e = flags("4294967296").unwrap_err().to_string();
        assert!(e.contains("a number from 0 to 4294967295"), "{e}");
        assert_eq!(
            total_bytes("-1").unwrap_err(),
            "--total-bytes '-1' is not a whole number from 0 to 18446744073709551615 (TotalTensorSizeInBytes is an \
             unsigned 64-bit integer)"
        );
        assert!(alignment("4294967296").unwrap_err().contains("from 0 to 4294967295"));
        assert_eq!(total_bytes("24"), Ok(24));
        assert_eq!(alignment("16"), Ok(16));
    }
}
