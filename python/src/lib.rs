//! `stridekit._stridekit`: the Python extension. A thin layer over the model crate (`stridekit`: front ends,
//! validation, explain) and the CPU backend (`stridekit_cpu`): it describes NumPy arrays as buffer tensors over their
//! own memory ([`mapping`]), folds reversed axes into the window ([`window`]), validates, and runs the copy with the
//! GIL released. The Python-facing documentation is in `python/stridekit/__init__.pyi` and `python/README.md`.

mod cache;
mod dtype;
mod errors;
mod explain;
mod key;
mod mapping;
mod run;
mod window;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _stridekit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RuleError", m.py().get_type::<errors::RuleError>())?;
    m.add_function(wrap_pyfunction!(run::slice1, m)?)?;
    m.add_function(wrap_pyfunction!(run::slice, m)?)?;
    m.add_function(wrap_pyfunction!(run::index, m)?)?;
    m.add_function(wrap_pyfunction!(explain::calc_buffer_tensor_size, m)?)?;
    m.add_function(wrap_pyfunction!(explain::dmlx_calc_buffer_tensor_size, m)?)?;
    m.add_function(wrap_pyfunction!(explain::explain, m)?)?;
    m.add_class::<explain::Layout>()?;
    m.add("SUPPORTED_DTYPES", errors::SUPPORTED_DTYPES.split(", ").collect::<Vec<_>>())?;
    Ok(())
}
