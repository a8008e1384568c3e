//! Python exceptions for the model's errors: `RuleError(ValueError)` with `.rule` and the command line's message.

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use stridekit::frontends::numpy::NumpyError;
use stridekit::{SliceError, TensorDescError};

pyo3::create_exception!(
    _stridekit,
    RuleError,
    PyValueError,
    "A description breaks a rule of the specification. `.rule` is the rule id (`\"R-S1-5\"`, `\"D1\"`, `\"numpy\"`, ...); \
     the message is the command line's, starting with `error[<rule>]:`."
);

/// A `RuleError` with `.rule` set.
pub fn rule_error(py: Python<'_>, rule: &str, message: String) -> PyErr {
    let err = RuleError::new_err(message);
    // Setting an attribute on a fresh exception instance cannot fail short of memory exhaustion; the message still
    // carries the rule id if it does.
    let _ = err.value(py).setattr("rule", rule);
    err
}

/// A rejected Slice/Slice1 description.
pub fn slice_error(py: Python<'_>, e: &SliceError) -> PyErr {
    rule_error(py, e.rule(), e.to_string())
}

/// A rejected buffer-tensor description.
pub fn tensor_error(py: Python<'_>, e: &TensorDescError) -> PyErr {
    rule_error(py, e.rule(), e.to_string())
}

/// A NumPy index the front end refused: NumPy's own exception type where NumPy has one (`IndexError` for bounds,
/// too many indices, fancy indexing; `ValueError` for step 0), else `RuleError` with rule `"numpy"`.
pub fn numpy_error(py: Python<'_>, e: &NumpyError) -> PyErr {
    let message = e.to_string();
    match e {
        NumpyError::IndexOutOfRange { .. }
        | NumpyError::TooManyIndices { .. }
        | NumpyError::AdvancedIndexing { .. }
        | NumpyError::MultipleEllipsis { .. }
        | NumpyError::IntegerOverflow { .. } => PyIndexError::new_err(message),
        NumpyError::ZeroStep { .. } => PyValueError::new_err(message),
        _ => rule_error(py, NumpyError::KIND, message),
    }
}

/// The dtypes an array may have, in the order of the message.
pub const SUPPORTED_DTYPES: &str =
    "float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64";

/// An array dtype DirectML has no type for.
pub fn dtype_error(what: &str, dtype: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "stridekit: {what} has dtype {dtype}, which DirectML cannot express; the 11 supported dtypes are {SUPPORTED_DTYPES}"
    ))
}
