//! `FeatureLevel`: DML_FEATURE_LEVEL and the per-level tables of SPEC §1.5, §4 and §5 (D7).

use crate::DataType;
use std::fmt;
use std::str::FromStr;

/// A DirectML feature level. Each level is a strict superset of the one below it, so levels are ordered.
///
/// Validation defaults to [`FeatureLevel::LATEST`] (6_4); a caller that targets older DirectML asks for that level
/// and gets its rank and type tables (D7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)] // the variant names are the DirectML names
#[repr(u32)]
pub enum FeatureLevel {
    L1_0 = 0x1000,
    L2_0 = 0x2000,
    L2_1 = 0x2100,
    L3_0 = 0x3000,
    L3_1 = 0x3100,
    L4_0 = 0x4000,
    L4_1 = 0x4100,
    L5_0 = 0x5000,
    L5_1 = 0x5100,
    L5_2 = 0x5200,
    L6_0 = 0x6000,
    L6_1 = 0x6100,
    L6_2 = 0x6200,
    L6_3 = 0x6300,
    L6_4 = 0x6400,
}

/// The operators whose tensor-support tables stridekit knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `DML_OPERATOR_SLICE` (60).
    Slice,
    /// `DML_OPERATOR_SLICE1` (111), since feature level 2_1.
    Slice1,
}

impl Operator {
    /// DirectML's operator type id.
    pub const fn raw(self) -> u32 {
        match self {
            Operator::Slice => 60,
            Operator::Slice1 => 111,
        }
    }

    /// The DirectML name, e.g. `DML_OPERATOR_SLICE1`.
    pub const fn name(self) -> &'static str {
        match self {
            Operator::Slice => "DML_OPERATOR_SLICE",
            Operator::Slice1 => "DML_OPERATOR_SLICE1",
        }
    }
}

/// The text given to [`FeatureLevel::from_str`] names no feature level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("error[D7]: feature level '{given}' is not a DirectML feature level; use one of {}", FeatureLevel::ALL.map(|l| l.label()).join(", "))]
pub struct ParseFeatureLevelError {
    /// What the caller wrote.
    pub given: String,
}

impl FeatureLevel {
    /// The newest level, the default for validation (D7).
    pub const LATEST: FeatureLevel = FeatureLevel::L6_4;

    /// Every level, oldest first.
    pub const ALL: [FeatureLevel; 15] = [
        FeatureLevel::L1_0,
        FeatureLevel::L2_0,
        FeatureLevel::L2_1,
        FeatureLevel::L3_0,
        FeatureLevel::L3_1,
        FeatureLevel::L4_0,
        FeatureLevel::L4_1,
        FeatureLevel::L5_0,
        FeatureLevel::L5_1,
        FeatureLevel::L5_2,
        FeatureLevel::L6_0,
        FeatureLevel::L6_1,
        FeatureLevel::L6_2,
        FeatureLevel::L6_3,
        FeatureLevel::L6_4,
    ];

    /// DirectML's value, e.g. `0x3000`.
    pub const fn raw(self) -> u32 {
        self as u32
    }

    /// The label used in DirectML's names, e.g. `3_0`.
    pub fn label(self) -> String {
        let v = self.raw();
        format!("{}_{}", v >> 12, (v >> 8) & 0xf)
    }

    /// R-BT-2: the largest DimensionCount of a buffer tensor at this level.
    pub const fn max_dimension_count(self) -> u32 {
        if (self as u32) < FeatureLevel::L3_0 as u32 {
            crate::limits::TENSOR_DIMENSION_COUNT_MAX
        } else {
            crate::limits::TENSOR_DIMENSION_COUNT_MAX1
        }
    }

    /// Whether the tensor data type exists at this level (64-bit types from 3_0, 4-bit types from 6_3).
    pub const fn has_data_type(self, data_type: DataType) -> bool {
        let since = match data_type {
            DataType::Float64 | DataType::Uint64 | DataType::Int64 => FeatureLevel::L3_0,
            DataType::Uint4 | DataType::Int4 => FeatureLevel::L6_3,
            _ => FeatureLevel::L1_0,
        };
        self as u32 >= since as u32
    }

    /// The first level at which `operator` exists.
    pub const fn operator_since(operator: Operator) -> FeatureLevel {
        match operator {
            Operator::Slice => FeatureLevel::L1_0,
            Operator::Slice1 => FeatureLevel::L2_1,
        }
    }

    /// The (min, max) DimensionCount the operator accepts at this level (R-S0-1, R-S1-1).
    pub const fn operator_dimension_range(self, _operator: Operator) -> (u32, u32) {
        if (self as u32) < FeatureLevel::L3_0 as u32 { (4, 5) } else { (1, 8) }
    }

    /// Whether the operator accepts `data_type` at this level (SPEC §4 and §5 tables; R-S1-7, D7).
    pub const fn operator_supports(self, operator: Operator, data_type: DataType) -> bool {
        let level = self as u32;
        if level < FeatureLevel::operator_since(operator) as u32 {
            return false;
        }
        match data_type {
            DataType::Float32
            | DataType::Float16
            | DataType::Int32
            | DataType::Int16
            | DataType::Uint32
            | DataType::Uint16 => true,
            // Slice at 1_0 has no 8-bit support; both have it from 2_1.
            DataType::Int8 | DataType::Uint8 => level >= FeatureLevel::L2_1 as u32,
            DataType::Float64 | DataType::Int64 | DataType::Uint64 => level >= FeatureLevel::L4_1 as u32,
            // Neither operator lists UINT4/INT4 at any level.
            DataType::Uint4 | DataType::Int4 => false,
        }
    }
}

impl fmt::Display for FeatureLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

impl FromStr for FeatureLevel {
    type Err = ParseFeatureLevelError;

    /// Accepts `3_0`, `3.0`, `0x3000` and `DML_FEATURE_LEVEL_3_0` (case-insensitive).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        let t = t.strip_prefix("dml_feature_level_").unwrap_or(&t).replace('.', "_");
        FeatureLevel::ALL
            .into_iter()
            .find(|l| l.label() == t || format!("{:#x}", l.raw()) == t)
            .ok_or_else(|| ParseFeatureLevelError { given: s.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_label() {
        assert_eq!("3_0".parse(), Ok(FeatureLevel::L3_0));
        assert_eq!("6.4".parse(), Ok(FeatureLevel::L6_4));
        assert_eq!("0x2100".parse(), Ok(FeatureLevel::L2_1));
        assert_eq!("DML_FEATURE_LEVEL_4_1".parse(), Ok(FeatureLevel::L4_1));
        assert!("7_0".parse::<FeatureLevel>().is_err());
        assert_eq!(FeatureLevel::L5_2.label(), "5_2");
    }

    #[test]
    fn tables() {
        assert_eq!(FeatureLevel::L2_1.max_dimension_count(), 5);
        assert_eq!(FeatureLevel::L3_0.max_dimension_count(), 8);
        assert!(!FeatureLevel::L2_1.has_data_type(DataType::Float64));
        assert!(FeatureLevel::L3_0.has_data_type(DataType::Float64));
        assert!(!FeatureLevel::L6_2.has_data_type(DataType::Uint4));
        assert!(FeatureLevel::L6_3.has_data_type(DataType::Int4));
        assert!(!FeatureLevel::L1_0.operator_supports(Operator::Slice, DataType::Uint8));
        assert!(FeatureLevel::L2_1.operator_supports(Operator::Slice, DataType::Uint8));
        assert!(!FeatureLevel::L2_0.operator_supports(Operator::Slice1, DataType::Float32));
        assert!(!FeatureLevel::L3_0.operator_supports(Operator::Slice1, DataType::Int64));
        assert!(FeatureLevel::L4_1.operator_supports(Operator::Slice1, DataType::Int64));
        assert!(!FeatureLevel::L6_4.operator_supports(Operator::Slice1, DataType::Uint4));
        assert_eq!(FeatureLevel::L2_1.operator_dimension_range(Operator::Slice1), (4, 5));
        assert_eq!(FeatureLevel::L3_0.operator_dimension_range(Operator::Slice), (1, 8));
    }
}
