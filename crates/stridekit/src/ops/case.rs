//! The benchmark case schema, defined once: a named Slice1 description as the case files (`bench/*.json`, the
//! peers' `cases.json`), `stridekit bench` and the criterion benchmark of `stridekit-cpu` all write it.
//!
//! A case file is `{"cases": [case, ...]}` (other top-level keys are free text) or a bare list of cases. A case:
//!
//! ```json
//! {"name": "flip", "dtype": "f32", "in_sizes": [1, 1, 4, 4], "in_strides": null,
//!  "window_offsets": [0, 0, 0, 1], "window_sizes": [1, 1, 4, 3], "window_strides": [1, 1, -2, 2],
//!  "out_sizes": [1, 1, 2, 2], "out_strides": null, "note": "free text", "expect": [14, 16, 6, 8]}
//! ```
//!
//! Sizes and strides count elements; a `null` stride list is packed (row-major). `expect`, when present, lists every
//! output element in logical (row-major) order for the input filled with [`Slice1Case::input_value`]'s pattern.
//!
//! With the crate feature `serde`, [`Slice1Case`] derives `Serialize` and `Deserialize` with exactly these keys
//! (`dtype` as a data type name; unknown keys are ignored), so that no reader keeps a copy of the schema.

use crate::{BufferTensorDesc, DataType, Slice1Desc, TensorDescError};

/// One benchmark case.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Slice1Case {
    /// The case's name in reports.
    pub name: String,
    /// The data type of both tensors (written as a name: `f32`, `float16`, `UINT8`, ...).
    #[cfg_attr(feature = "serde", serde(with = "dtype_name"))]
    pub dtype: DataType,
    /// `InputTensor.Sizes`.
    pub in_sizes: Vec<u32>,
    /// `InputTensor.Strides` (`None` = packed).
    pub in_strides: Option<Vec<u32>>,
    /// `InputWindowOffsets`.
    pub window_offsets: Vec<u32>,
    /// `InputWindowSizes`.
    pub window_sizes: Vec<u32>,
    /// `InputWindowStrides`.
    pub window_strides: Vec<i32>,
    /// `OutputTensor.Sizes`.
    pub out_sizes: Vec<u32>,
    /// `OutputTensor.Strides` (`None` = packed).
    pub out_strides: Option<Vec<u32>>,
    /// Free text.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub note: Option<String>,
    /// The expected output values in logical order, for the input of [`Slice1Case::input_value`].
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub expect: Option<Vec<f64>>,
}

impl Slice1Case {
    /// The Slice1 description (not yet validated: call [`Slice1Desc::validate`]). Fails only when a tensor's size
    /// in bytes cannot be computed (R-BT-6 and the rules [`crate::calc_buffer_tensor_size`] applies).
    pub fn desc(&self) -> Result<Slice1Desc, TensorDescError> {
        Ok(Slice1Desc {
            input: BufferTensorDesc::new(self.dtype, &self.in_sizes, self.in_strides.as_deref())?,
            output: BufferTensorDesc::new(self.dtype, &self.out_sizes, self.out_strides.as_deref())?,
            input_window_offsets: self.window_offsets.clone(),
            input_window_sizes: self.window_sizes.clone(),
            input_window_strides: self.window_strides.clone(),
        })
    }

    /// The value the case files' input pattern puts at physical element `i` (the peers' `cases.json` convention):
    /// f32 `(i % 16777213) + 1`, f16 `(i % 2039) + 1`, u8 `(i % 251) + 1`, i64 `(i + 1) * 1000003`; other types:
    /// the low bytes of `(i + 1) * 0x9E3779B97F4A7C15`, as `None` here (no `expect` for them).
    pub fn input_value(dtype: DataType, i: u64) -> Option<f64> {
        Some(match dtype {
            DataType::Float32 => ((i % 16_777_213) + 1) as f64,
            DataType::Float16 => ((i % 2039) + 1) as f64,
            DataType::Uint8 => ((i % 251) + 1) as f64,
            DataType::Int64 => ((i + 1) as i64).wrapping_mul(1_000_003) as f64,
            _ => return None,
        })
    }
}

#[cfg(feature = "serde")]
mod dtype_name {
    use crate::DataType;

    pub fn serialize<S: serde::Serializer>(dtype: &DataType, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&dtype.name().to_ascii_lowercase())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<DataType, D::Error> {
        let name = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn desc_of_the_doc_case() {
        let case = Slice1Case {
            name: "doc".into(),
            dtype: DataType::Float32,
            in_sizes: vec![1, 1, 4, 4],
            in_strides: None,
            window_offsets: vec![0, 0, 0, 1],
            window_sizes: vec![1, 1, 4, 3],
            window_strides: vec![1, 1, -2, 2],
            out_sizes: vec![1, 1, 2, 2],
            out_strides: None,
            note: None,
            expect: Some(vec![14.0, 16.0, 6.0, 8.0]),
        };
        let plan = case.desc().unwrap().validate().unwrap();
        assert_eq!(plan.element_count(), 4);
        // The expectation is the pattern at the elements the plan reads: 13, 15, 5, 7 (value = index + 1).
        let expect: Vec<f64> =
            [13, 15, 5, 7].iter().map(|&i| Slice1Case::input_value(case.dtype, i).unwrap()).collect();
        assert_eq!(Some(expect), case.expect);
        assert_eq!(Slice1Case::input_value(DataType::Int32, 0), None);
    }
}
