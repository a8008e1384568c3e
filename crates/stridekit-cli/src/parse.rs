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
            parsed.map_err(|_| CliError::Args(format!("--flags '{text}' is not none, owned_by_dml or a number")))?
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
