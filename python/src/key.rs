//! A Python index key (`numpy.s_[1:3, ::-1]`, `5`, `...`, or the command line's `--numpy` text) as the model's
//! [`NumpyIndex`], which does all the clamping. `None` (`numpy.newaxis`) items only insert size-1 axes into the
//! result's shape; they are set aside here and put back by [`Key::result_axes`].

use crate::errors::numpy_error;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyEllipsis, PyInt, PySlice, PyString, PyTuple};
use stridekit::frontends::numpy::{IndexItem, NumpyError, NumpyIndex, parse_numpy_index};

/// A parsed key.
#[derive(PartialEq, Eq, Hash, Default)]
pub struct Key {
    /// The items other than `None`, for the model.
    pub index: NumpyIndex,
    /// For each `None`, how many other items come before it.
    pub new_axes: Vec<usize>,
}

/// A Python int as i64, saturating (slice bounds: Python clamps any int) or `None` when it is not an integer.
fn int_of(ob: &Bound<'_, PyAny>) -> Option<Result<i64, bool>> {
    if ob.is_exact_instance_of::<PyInt>()
        && let Ok(v) = ob.extract::<i64>()
    {
        return Some(Ok(v));
    }
    if ob.is_instance_of::<PyBool>() {
        return None;
    }
    let index = ob.call_method0(intern!(ob.py(), "__index__")).ok()?;
    Some(match index.extract::<i64>() {
        Ok(v) => Ok(v),
        // Beyond i64: report the sign.
        Err(_) => Err(index.lt(0i64).unwrap_or(false)),
    })
}

/// A slice's start, stop and step as CPython's own indexing reads them (`PySlice_Unpack`): integers clamped to
/// `Py_ssize_t`, an omitted start or stop replaced by the extreme value that clamps to the default (`0` or
/// `PY_SSIZE_T_MAX` going forwards, `PY_SSIZE_T_MAX` or `PY_SSIZE_T_MIN` going backwards), an omitted step by 1. The
/// model's clamping (Python's `slice.indices`) gives these exactly the defaults' results. Errors are Python's and
/// NumPy's: `TypeError` for a non-integer bound, `ValueError` for a zero step.
#[allow(unsafe_code)]
fn unpack(slice: &Bound<'_, PySlice>) -> PyResult<(i64, i64, i64)> {
    let (mut start, mut stop, mut step): (pyo3::ffi::Py_ssize_t, pyo3::ffi::Py_ssize_t, pyo3::ffi::Py_ssize_t) =
        (0, 0, 0);
    // SAFETY: `slice` is a live slice object (the Bound proves it) and we hold the GIL; the three pointers are to
    // locals. On failure the function sets a Python exception, which PyErr::fetch takes.
    let status = unsafe { pyo3::ffi::PySlice_Unpack(slice.as_ptr(), &mut start, &mut stop, &mut step) };
    if status < 0 {
        return Err(PyErr::fetch(slice.py()));
    }
    Ok((start as i64, stop as i64, step as i64))
}

fn repr(ob: &Bound<'_, PyAny>) -> String {
    ob.repr().map_or_else(|_| "?".to_owned(), |r| r.to_string())
}

fn item_of(py: Python<'_>, number: usize, ob: &Bound<'_, PyAny>) -> PyResult<Option<IndexItem>> {
    if ob.is_none() {
        return Ok(None);
    }
    if ob.is_instance_of::<PyEllipsis>() {
        return Ok(Some(IndexItem::Ellipsis));
    }
    if let Ok(slice) = ob.cast::<PySlice>() {
        let (start, stop, step) = unpack(slice)?;
        return Ok(Some(IndexItem::Slice { start: Some(start), stop: Some(stop), step: Some(step) }));
    }
    match int_of(ob) {
        Some(Ok(v)) => Ok(Some(IndexItem::Index(v))),
        Some(Err(_)) => Err(numpy_error(py, &NumpyError::IntegerOverflow { item: number, text: repr(ob) })),
        None => {
            let kind =
                if ob.is_instance_of::<PyBool>() || is_bool_array(ob) { "boolean" } else { "integer-array (fancy)" };
            Err(numpy_error(py, &NumpyError::AdvancedIndexing { item: number, text: repr(ob), kind }))
        }
    }
}

fn is_bool_array(ob: &Bound<'_, PyAny>) -> bool {
    ob.getattr("dtype").and_then(|d| d.getattr("kind")).is_ok_and(|k| k.extract::<String>().is_ok_and(|k| k == "b"))
}

/// Parses a key: a tuple of items, a single item, or the command line's text.
pub fn parse(py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Key> {
    if let Ok(text) = key.cast::<PyString>() {
        let index = parse_numpy_index(&text.to_cow()?).map_err(|e| numpy_error(py, &e))?;
        return Ok(Key { index, new_axes: Vec::new() });
    }
    let mut items = Vec::new();
    let mut new_axes = Vec::new();
    let mut push = |number: usize, ob: &Bound<'_, PyAny>| -> PyResult<()> {
        match item_of(py, number, ob)? {
            Some(item) => items.push(item),
            None => new_axes.push(items.len()),
        }
        Ok(())
    };
    if let Ok(tuple) = key.cast::<PyTuple>() {
        for (n, ob) in tuple.iter().enumerate() {
            push(n + 1, &ob)?;
        }
    } else {
        push(1, key)?;
    }
    Ok(Key { index: NumpyIndex { items }, new_axes })
}

/// Where each axis of NumPy's result comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultAxis {
    /// Slice1 output axis `k` (a slice or an axis the key leaves whole).
    Output(usize),
    /// A `None` item: size 1, not in the Slice1 output.
    NewAxis,
}

impl Key {
    /// NumPy's result axes for an input of rank `rank`: integer-indexed axes dropped, `None` axes inserted where
    /// they stand in the key (`...` expands to the axes no item names).
    pub fn result_axes(&self, rank: usize, integer_axes: &[usize]) -> Vec<ResultAxis> {
        let items = &self.index.items;
        let indexed = items.iter().filter(|i| **i != IndexItem::Ellipsis).count();
        let mut out = Vec::with_capacity(rank + self.new_axes.len());
        let mut axis = 0;
        let mut new_axes = self.new_axes.iter().peekable();
        let emit = |out: &mut Vec<ResultAxis>, axis: usize| {
            if !integer_axes.contains(&axis) {
                out.push(ResultAxis::Output(axis));
            }
        };
        for (position, item) in items.iter().enumerate() {
            while new_axes.next_if(|&&p| p == position).is_some() {
                out.push(ResultAxis::NewAxis);
            }
            let span = if *item == IndexItem::Ellipsis { rank.saturating_sub(indexed) } else { 1 };
            for _ in 0..span {
                emit(&mut out, axis);
                axis += 1;
            }
        }
        for _ in new_axes {
            out.push(ResultAxis::NewAxis);
        }
        while axis < rank {
            emit(&mut out, axis);
            axis += 1;
        }
        out
    }
}
