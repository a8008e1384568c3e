//! `calc_buffer_tensor_size`, its DirectMLX twin, and `explain` (the model's [`Explanation`] as a Python object).

use crate::dtype;
use crate::errors::{rule_error, tensor_error};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use stridekit::explain::{ExplainOptions, Explanation, PictureValues, StridesSource};
use stridekit::{FeatureLevel, TensorDescError, TensorDescErrorKind, TensorFlags, TensorLayout, TensorRole};

/// The exact minimum buffer size in bytes (DMLCalcBufferTensorSize without its wrap); `RuleError` when the shape is
/// invalid or the size overflows 64 bits.
#[pyfunction]
#[pyo3(signature = (dtype, sizes, strides=None))]
pub fn calc_buffer_tensor_size(
    py: Python<'_>,
    dtype: &Bound<'_, PyAny>,
    sizes: Vec<u32>,
    strides: Option<Vec<u32>>,
) -> PyResult<u64> {
    let data_type = dtype::parse(dtype)?;
    stridekit::calc_buffer_tensor_size(data_type, &sizes, strides.as_deref()).map_err(|e| tensor_error(py, &e))
}

/// DirectMLX's `DMLCalcBufferTensorSize`, bit for bit (its 32-bit wrap included): for parity checks only.
#[pyfunction]
#[pyo3(signature = (dtype, sizes, strides=None))]
pub fn dmlx_calc_buffer_tensor_size(
    dtype: &Bound<'_, PyAny>,
    sizes: Vec<u32>,
    strides: Option<Vec<u32>>,
) -> PyResult<u64> {
    let data_type = dtype::parse(dtype)?;
    Ok(stridekit::dmlx_calc_buffer_tensor_size(data_type.raw(), &sizes, strides.as_deref()))
}

/// What `stridekit.explain` returns: the figures of `stridekit explain --json` as attributes, the text report as
/// `str()`, an HTML table in notebooks.
#[pyclass(module = "stridekit", name = "Layout", frozen)]
pub struct Layout {
    explanation: Explanation,
    values: PictureValues,
}

fn layout_flag(l: Option<&TensorLayout>, f: impl Fn(&TensorLayout) -> bool) -> Option<bool> {
    l.map(f)
}

#[pymethods]
impl Layout {
    /// DirectML's name of the data type (`"FLOAT32"`).
    #[getter]
    fn data_type(&self) -> &'static str {
        self.explanation.desc.data_type.name()
    }
    /// Bits per element.
    #[getter]
    fn element_size_bits(&self) -> u32 {
        self.explanation.desc.data_type.size_in_bits()
    }
    /// The sizes.
    #[getter]
    fn sizes(&self) -> Vec<u32> {
        self.explanation.desc.sizes.clone()
    }
    /// The strides in elements (given, from the layout label, or packed); `None` when the packed strides do not fit.
    #[getter]
    fn strides(&self) -> Option<Vec<u32>> {
        self.explanation.effective_strides.clone()
    }
    /// Whether strides were given (or computed from a layout label).
    #[getter]
    fn strides_given(&self) -> bool {
        self.explanation.desc.strides.is_some()
    }
    /// TotalTensorSizeInBytes.
    #[getter]
    fn total_tensor_size_in_bytes(&self) -> u64 {
        self.explanation.desc.total_tensor_size_in_bytes
    }
    /// GuaranteedBaseOffsetAlignment.
    #[getter]
    fn guaranteed_base_offset_alignment(&self) -> u32 {
        self.explanation.desc.guaranteed_base_offset_alignment
    }
    /// DML_TENSOR_FLAGS bits.
    #[getter]
    fn flags(&self) -> u32 {
        self.explanation.desc.flags.bits()
    }
    /// The feature level (`"6_4"`).
    #[getter]
    fn feature_level(&self) -> String {
        self.explanation.feature_level.label()
    }
    /// The product of the sizes (`None` on overflow).
    #[getter]
    fn logical_element_count(&self) -> Option<u64> {
        self.explanation.logical_element_count
    }
    /// Index of the last element + 1.
    #[getter]
    fn physical_element_extent(&self) -> Option<u64> {
        self.explanation.physical_element_extent
    }
    /// DMLCalcBufferTensorSize, exact.
    #[getter]
    fn min_buffer_size_bytes(&self) -> Option<u64> {
        self.explanation.min_buffer_size_bytes
    }
    /// What DirectMLX's helper returns.
    #[getter]
    fn dmlx_buffer_size_bytes(&self) -> u64 {
        self.explanation.dmlx_buffer_size_bytes
    }
    /// Why DirectMLX's helper disagrees, or `None`.
    #[getter]
    fn dmlx_warning(&self) -> Option<String> {
        self.explanation.dmlx_warning()
    }
    /// Every element has its own offset and there is no padding.
    #[getter]
    fn packed(&self) -> Option<bool> {
        layout_flag(self.explanation.layout.as_ref(), TensorLayout::is_packed)
    }
    /// Some dimension has stride 0.
    #[getter]
    fn broadcast(&self) -> Option<bool> {
        layout_flag(self.explanation.layout.as_ref(), |l| !l.broadcast_dims().is_empty())
    }
    /// The dimensions with stride 0.
    #[getter]
    fn broadcast_dims(&self) -> Option<Vec<usize>> {
        self.explanation.layout.as_ref().map(TensorLayout::broadcast_dims)
    }
    /// Some offsets of the extent hold no element.
    #[getter]
    fn padded(&self) -> Option<bool> {
        layout_flag(self.explanation.layout.as_ref(), TensorLayout::is_padded)
    }
    /// Bytes of the buffer that hold no element.
    #[getter]
    fn padding_bytes(&self) -> Option<u64> {
        self.explanation.layout.as_ref().and_then(TensorLayout::padding_bytes)
    }
    /// Two elements share an offset.
    #[getter]
    fn overlapping(&self) -> Option<bool> {
        layout_flag(self.explanation.layout.as_ref(), TensorLayout::is_overlapping)
    }
    /// The layout's properties in words.
    #[getter]
    fn properties(&self) -> Vec<String> {
        self.explanation.properties()
    }
    /// Whether the description is valid.
    #[getter]
    fn valid(&self) -> bool {
        self.explanation.is_valid()
    }
    /// The broken rules as `{"rule": ..., "message": ...}` (at most one: the first that fails).
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.explanation
            .error
            .iter()
            .map(|e| {
                let d = PyDict::new(py);
                d.set_item("rule", e.rule())?;
                d.set_item("message", e.to_string())?;
                Ok(d)
            })
            .collect()
    }
    /// The logical view (blocks of the last two dimensions), or `None` when the tensor is too large to draw.
    #[getter]
    fn logical_view(&self) -> Option<String> {
        self.explanation.pictures(self.values).map(|(l, _)| l)
    }
    /// The buffer view (offset -> element, `x` = padding), or `None` when the tensor is too large to draw.
    #[getter]
    fn buffer_view(&self) -> Option<String> {
        self.explanation.pictures(self.values).map(|(_, b)| b)
    }
    /// Raises the `RuleError` of the first broken rule, if any.
    fn check(&self, py: Python<'_>) -> PyResult<()> {
        match &self.explanation.error {
            Some(e) => Err(tensor_error(py, e)),
            None => Ok(()),
        }
    }
    /// An HTML table of the figures, and the pictures, for notebooks.
    fn _repr_html_(&self) -> String {
        let e = &self.explanation;
        let opt = |v: Option<u64>| v.map_or_else(|| "overflow / not computable".to_owned(), |v| v.to_string());
        let rows = [
            (
                "Data type",
                format!("{} ({})", e.desc.data_type, stridekit::explain::element_size_text(e.desc.data_type)),
            ),
            ("Sizes", stridekit::explain::list(&e.desc.sizes)),
            (
                "Strides",
                e.effective_strides.as_ref().map_or_else(
                    || e.strides_note.clone().unwrap_or_default(),
                    |s| format!("{} ({})", stridekit::explain::list(s), e.strides_source),
                ),
            ),
            ("Logical elements", opt(e.logical_element_count)),
            ("Physical extent", opt(e.physical_element_extent)),
            ("Minimum buffer size (bytes)", opt(e.min_buffer_size_bytes)),
            ("DirectMLX helper (bytes)", e.dmlx_buffer_size_bytes.to_string()),
            ("TotalTensorSizeInBytes", e.desc.total_tensor_size_in_bytes.to_string()),
            ("Layout", e.properties().join("; ")),
            ("Valid", e.error.as_ref().map_or_else(|| "yes".to_owned(), |err| format!("no: {err}"))),
        ];
        let mut html = String::from("<table>");
        for (name, value) in rows {
            html.push_str(&format!(
                "<tr><th style=\"text-align:left\">{}</th><td>{}</td></tr>",
                escape(name),
                escape(&value)
            ));
        }
        html.push_str("</table>");
        if let Some((logical, buffer)) = e.pictures(self.values) {
            html.push_str(&format!(
                "<pre>Logical view:\n{}\nBuffer view (offset -&gt; element, x = padding):\n{}</pre>",
                escape(&logical),
                escape(&buffer)
            ));
        }
        html
    }
    fn __str__(&self) -> String {
        self.explanation.text(self.values)
    }
    fn __repr__(&self) -> String {
        let e = &self.explanation;
        let strides = e.effective_strides.as_ref().map_or_else(|| "?".to_owned(), |s| stridekit::explain::list(s));
        let validity = match &e.error {
            None => "valid".to_owned(),
            Some(err) => format!("invalid, {}", err.rule()),
        };
        format!(
            "<stridekit.Layout {} sizes {} strides {}: {validity}>",
            e.desc.data_type,
            stridekit::explain::list(&e.desc.sizes),
            strides
        )
    }
}

/// Validates and explains a buffer-tensor description.
#[pyfunction]
#[pyo3(signature = (dtype, sizes, strides=None, *, layout=None, total_tensor_size_in_bytes=None, alignment=0, flags=None, as_output=false, feature_level=None, values="labels"))]
#[allow(clippy::too_many_arguments)]
pub fn explain(
    py: Python<'_>,
    dtype: &Bound<'_, PyAny>,
    sizes: Vec<u32>,
    strides: Option<Vec<u32>>,
    layout: Option<&str>,
    total_tensor_size_in_bytes: Option<u64>,
    alignment: u32,
    flags: Option<&Bound<'_, PyAny>>,
    as_output: bool,
    feature_level: Option<&str>,
    values: &str,
) -> PyResult<Layout> {
    let data_type = dtype::parse(dtype)?;
    let flags = parse_flags(py, flags)?;
    let feature_level = match feature_level {
        None => FeatureLevel::LATEST,
        Some(t) => t.parse::<FeatureLevel>().map_err(|e| rule_error(py, "D7", e.to_string()))?,
    };
    let values = match values {
        "labels" => PictureValues::Labels,
        "offsets" => PictureValues::Offsets,
        other => {
            return Err(PyValueError::new_err(format!("stridekit: values is '{other}'; give 'labels' or 'offsets'")));
        }
    };
    let (strides, source) = match (strides, layout) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err("stridekit: give strides or layout, not both"));
        }
        (Some(s), None) => (Some(s), StridesSource::Given),
        (None, Some(label)) => (
            Some(stridekit::strides_for_label(&sizes, label).map_err(|e| rule_error(py, "layout", e.to_string()))?),
            StridesSource::Layout(label.to_owned()),
        ),
        (None, None) => (None, StridesSource::Packed),
    };
    let options = ExplainOptions {
        total_tensor_size_in_bytes,
        guaranteed_base_offset_alignment: alignment,
        flags,
        role: if as_output { TensorRole::Output } else { TensorRole::Standalone },
        feature_level,
    };
    Ok(Layout { explanation: Explanation::new(data_type, &sizes, strides.as_deref(), source, &options), values })
}

fn parse_flags(py: Python<'_>, flags: Option<&Bound<'_, PyAny>>) -> PyResult<TensorFlags> {
    let Some(flags) = flags else {
        return Ok(TensorFlags::NONE);
    };
    let bits: u32 = if let Ok(text) = flags.cast::<PyString>() {
        match text.to_cow()?.trim().to_ascii_lowercase().trim_start_matches("dml_tensor_flag_") {
            "none" => 0,
            "owned_by_dml" => 1,
            other => {
                return Err(PyValueError::new_err(format!(
                    "stridekit: flags '{other}' is not 'none', 'owned_by_dml' or an int in [0, 4294967295]"
                )));
            }
        }
    } else {
        flags.extract()?
    };
    TensorFlags::from_bits(bits)
        .map_err(|unknown| tensor_error(py, &TensorDescError::new(TensorDescErrorKind::UnknownFlags { bits, unknown })))
}

/// Text as HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
