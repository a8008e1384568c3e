//! Comma-separated integer lists for command-line flags: `1,1,4,4`, `[1, 1, -2, 2]`.
//!
//! Whitespace around items and brackets is ignored, and the whole list may sit inside one pair of `[...]`. An item
//! is a decimal integer with an optional sign (`+3`, `-2`). Errors name the flag or field the caller passes, the item
//! (counted from 1) and its text:
//!
//! ```
//! use stridekit::frontends::lists::{parse_i32_list, parse_u32_list};
//! assert_eq!(parse_u32_list("--sizes", " [1, 1,4 ,4] ").unwrap(), [1, 1, 4, 4]);
//! assert_eq!(parse_i32_list("--strides", "1,1,-2,2").unwrap(), [1, 1, -2, 2]);
//! assert_eq!(
//!     parse_u32_list("--sizes", "1,1,x").unwrap_err().to_string(),
//!     "error[args]: --sizes item 3 ('x') is not a number"
//! );
//! ```

use super::{DecimalError, parse_decimal};

/// Why a command-line list cannot be parsed. Messages start with `error[args]:`, then the field, the item (from 1)
/// and its text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ListError {
    /// No items at all (`""` or `[]`).
    #[error("error[args]: {field} is empty; give a comma-separated list such as 1,1,4,4")]
    EmptyList {
        /// The flag or field.
        field: String,
    },
    /// A `[` without its `]`, or a bracket inside the list.
    #[error("error[args]: {field} ('{text}') has unbalanced brackets; write 1,2,3 or [1,2,3]")]
    UnbalancedBrackets {
        /// The flag or field.
        field: String,
        /// The whole list.
        text: String,
    },
    /// Nothing between two commas.
    #[error("error[args]: {field} item {item} is empty (two commas in a row, or a comma at an end?)")]
    EmptyItem {
        /// The flag or field.
        field: String,
        /// The item number (from 1).
        item: usize,
    },
    /// Not a decimal integer.
    #[error("error[args]: {field} item {item} ('{text}') is not a number")]
    NotANumber {
        /// The flag or field.
        field: String,
        /// The item number (from 1).
        item: usize,
        /// The item.
        text: String,
    },
    /// A negative number where only unsigned values are allowed.
    #[error("error[args]: {field} item {item} ('{text}') is negative; {field} takes values from 0 to {max}")]
    Negative {
        /// The flag or field.
        field: String,
        /// The item number (from 1).
        item: usize,
        /// The item.
        text: String,
        /// The largest value allowed.
        max: i128,
    },
    /// A number outside the element type's range.
    #[error("error[args]: {field} item {item} ('{text}') is out of range; {field} takes values from {min} to {max}")]
    OutOfRange {
        /// The flag or field.
        field: String,
        /// The item number (from 1).
        item: usize,
        /// The item.
        text: String,
        /// The smallest value allowed.
        min: i128,
        /// The largest value allowed.
        max: i128,
    },
}

impl ListError {
    /// The error kind shown in brackets at the start of every message: `args`.
    pub const KIND: &'static str = "args";
}

/// Parses a list of u32 (sizes, offsets, unsigned strides) for the flag or field `field`.
pub fn parse_u32_list(field: &str, text: &str) -> Result<Vec<u32>, ListError> {
    // parse_list checked the range, so the casts are exact.
    Ok(parse_list(field, text, i128::from(u32::MIN), i128::from(u32::MAX))?.into_iter().map(|v| v as u32).collect())
}

/// Parses a list of i32 (Slice1 window strides) for the flag or field `field`.
pub fn parse_i32_list(field: &str, text: &str) -> Result<Vec<i32>, ListError> {
    // parse_list checked the range, so the casts are exact.
    Ok(parse_list(field, text, i128::from(i32::MIN), i128::from(i32::MAX))?.into_iter().map(|v| v as i32).collect())
}

/// Parses a list of i64 (ONNX starts, ends, axes, steps) for the flag or field `field`.
///
/// ```
/// use stridekit::frontends::lists::parse_i64_list;
/// assert_eq!(parse_i64_list("--ends", "[-9223372036854775808, 9223372036854775807]").unwrap(), [i64::MIN, i64::MAX]);
/// assert_eq!(
///     parse_i64_list("--ends", "1,,2").unwrap_err().to_string(),
///     "error[args]: --ends item 2 is empty (two commas in a row, or a comma at an end?)"
/// );
/// ```
pub fn parse_i64_list(field: &str, text: &str) -> Result<Vec<i64>, ListError> {
    // parse_list checked the range, so the casts are exact.
    Ok(parse_list(field, text, i128::from(i64::MIN), i128::from(i64::MAX))?.into_iter().map(|v| v as i64).collect())
}

/// Splits, trims and parses; every returned value lies in `[min, max]`.
fn parse_list(field: &str, text: &str, min: i128, max: i128) -> Result<Vec<i128>, ListError> {
    let trimmed = text.trim();
    let inner = match (trimmed.strip_prefix('['), trimmed.ends_with(']')) {
        (Some(rest), true) => &rest[..rest.len() - 1],
        (None, false) => trimmed,
        _ => return Err(ListError::UnbalancedBrackets { field: field.to_string(), text: text.to_string() }),
    };
    if inner.contains(['[', ']']) {
        return Err(ListError::UnbalancedBrackets { field: field.to_string(), text: text.to_string() });
    }
    if inner.trim().is_empty() {
        return Err(ListError::EmptyList { field: field.to_string() });
    }
    inner
        .split(',')
        .enumerate()
        .map(|(n, item)| {
            let (item_no, item) = (n + 1, item.trim());
            let field = || field.to_string();
            let text = || item.to_string();
            if item.is_empty() {
                return Err(ListError::EmptyItem { field: field(), item: item_no });
            }
            let value = match parse_decimal(item) {
                Ok(value) => value,
                Err(DecimalError::NotANumber) => {
                    return Err(ListError::NotANumber { field: field(), item: item_no, text: text() });
                }
                // Beyond i128: beyond every element type, on the side the sign says.
                Err(DecimalError::Overflow { negative }) => {
                    if negative {
                        min - 1
                    } else {
                        max + 1
                    }
                }
            };
            if value < 0 && min == 0 {
                Err(ListError::Negative { field: field(), item: item_no, text: text(), max })
            } else if value < min || value > max {
                Err(ListError::OutOfRange { field: field(), item: item_no, text: text(), min, max })
            } else {
                Ok(value)
            }
        })
        .collect()
}
