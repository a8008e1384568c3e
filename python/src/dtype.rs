//! NumPy dtypes and DirectML data types.

use crate::errors::dtype_error;
use numpy::{PyArrayDescr, PyArrayDescrMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use stridekit::DataType;

/// The DirectML type of an array's dtype: the 11 NumPy dtypes DirectML has (any byte order: the copy moves whole
/// elements, so a big-endian array stays big-endian). Anything else is a `TypeError` naming the 11.
pub fn of_descr(descr: &Bound<'_, PyArrayDescr>, what: &str) -> PyResult<DataType> {
    let data_type = match (descr.kind(), descr.itemsize()) {
        (b'f', 2) => Some(DataType::Float16),
        (b'f', 4) => Some(DataType::Float32),
        (b'f', 8) => Some(DataType::Float64),
        (b'i', 1) => Some(DataType::Int8),
        (b'i', 2) => Some(DataType::Int16),
        (b'i', 4) => Some(DataType::Int32),
        (b'i', 8) => Some(DataType::Int64),
        (b'u', 1) => Some(DataType::Uint8),
        (b'u', 2) => Some(DataType::Uint16),
        (b'u', 4) => Some(DataType::Uint32),
        (b'u', 8) => Some(DataType::Uint64),
        _ => None,
    };
    // Subarray and structured dtypes have kind 'V'; only plain scalars reach here with a type.
    data_type.ok_or_else(|| dtype_error(what, &descr.to_string()))
}

/// A data type given by name or as anything `numpy.dtype()` accepts: DirectML, NumPy and Rust names (`"FLOAT16"`,
/// `"<f2"`, `"u8"`; also the 4-bit `"uint4"`/`"int4"`, which have no NumPy dtype), `numpy.float32`, a dtype.
pub fn parse(ob: &Bound<'_, PyAny>) -> PyResult<DataType> {
    if let Ok(text) = ob.cast::<PyString>() {
        let text = text.to_cow()?;
        if let Ok(data_type) = text.parse::<DataType>() {
            return Ok(data_type);
        }
    }
    let descr = PyArrayDescr::new(ob.py(), ob).map_err(|_| {
        PyTypeError::new_err(format!(
            "stridekit: {} is not a data type; give a NumPy dtype or a name such as 'float32', 'FLOAT16' or 'uint4'",
            ob.repr().map_or_else(|_| "the value".to_owned(), |r| r.to_string())
        ))
    })?;
    of_descr(&descr, "the data type")
}
