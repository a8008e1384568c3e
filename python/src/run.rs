//! `slice1`, `slice` and `index`: describe, validate, copy.

use crate::cache::{self, Desc, IndexEntry, IndexKey};
use crate::dtype;
use crate::errors::{numpy_error, rule_error, slice_error, tensor_error};
use crate::key::{self, Key, ResultAxis};
use crate::mapping::{self, Mapped, NotMappable};
use crate::window::{Axis, fold};
use numpy::npyffi::{self, NpyTypes, PY_ARRAY_API, npy_intp};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use stridekit::frontends::SliceOutcome;
use stridekit::{BufferTensorDesc, DataType, Slice1Desc, Slice1Plan, SliceDesc, TensorFlags, TensorRole};
use stridekit_cpu::{ExecError, ExecOptions, PreparedSlice1};

/// Copies writing at least this many bytes run with the GIL released.
const DETACH_MIN_BYTES: usize = 16 << 10;

/// The operator's parameters, as the caller gave them.
enum Params {
    /// DML_SLICE1: window offsets, sizes, signed strides, and the output sizes.
    Slice1 { offsets: Vec<u32>, sizes: Vec<u32>, strides: Vec<i32>, output_sizes: Vec<u32> },
    /// DML_SLICE: offsets, output sizes, strides >= 1.
    Slice { offsets: Vec<u32>, sizes: Vec<u32>, strides: Vec<u32> },
}

impl Params {
    fn output_sizes(&self) -> &[u32] {
        match self {
            Params::Slice1 { output_sizes, .. } => output_sizes,
            Params::Slice { sizes, .. } => sizes,
        }
    }

    /// The operator's description with the caller's parameters on the given tensors.
    fn desc(&self, input: BufferTensorDesc, output: BufferTensorDesc) -> Desc {
        match self {
            Params::Slice1 { offsets, sizes, strides, .. } => Desc::Slice1(Slice1Desc {
                input,
                output,
                input_window_offsets: offsets.clone(),
                input_window_sizes: sizes.clone(),
                input_window_strides: strides.clone(),
            }),
            Params::Slice { offsets, sizes, strides } => Desc::Slice(SliceDesc {
                input,
                output,
                offsets: offsets.clone(),
                sizes: sizes.clone(),
                strides: strides.clone(),
            }),
        }
    }

    /// Axis `d` as a Slice1 window (valid parameters only).
    fn axis(&self, d: usize) -> Axis {
        match self {
            Params::Slice1 { offsets, sizes, strides, output_sizes } => {
                Axis { offset: offsets[d], size: sizes[d], stride: i64::from(strides[d]), count: output_sizes[d] }
            }
            Params::Slice { offsets, sizes, strides } => {
                // R-S0-3 holds, so the window `(sizes - 1) * strides + 1` lies inside the input and fits u32.
                let window = u64::from(sizes[d] - 1) * u64::from(strides[d]) + 1;
                Axis {
                    offset: offsets[d],
                    size: u32::try_from(window).unwrap_or(u32::MAX),
                    stride: i64::from(strides[d]),
                    count: sizes[d],
                }
            }
        }
    }
}

/// An output tensor: the caller's `out` mapped in place, or a fresh C-ordered array allocated after validation.
struct Output<'py> {
    /// `out`, when given.
    array: Option<Bound<'py, PyUntypedArray>>,
    /// Per Slice1 axis: stride in elements and whether it runs backwards (`out` only).
    strides: Option<(Vec<u32>, Vec<bool>)>,
    /// The mapped memory of `out`.
    mapped: Option<Mapped>,
}

/// `a` as an ndarray (array-likes go through `numpy.asarray`).
fn as_array<'py>(py: Python<'py>, a: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    match a.cast::<PyUntypedArray>() {
        Ok(array) => Ok(array.clone()),
        Err(_) => Ok(py.import(intern!(py, "numpy"))?.call_method1(intern!(py, "asarray"), (a,))?.cast_into()?),
    }
}

fn options(threads: Option<usize>) -> PyResult<ExecOptions> {
    match threads {
        None => Ok(ExecOptions::default()),
        Some(0) => Err(PyValueError::new_err("stridekit: threads must be at least 1 (or None for all cores)")),
        Some(n) => Ok(ExecOptions::with_threads(n)),
    }
}

fn to_u32(py: Python<'_>, values: &[u64], what: &str) -> PyResult<Vec<u32>> {
    values
        .iter()
        .enumerate()
        .map(|(d, &v)| {
            u32::try_from(v).map_err(|_| {
                rule_error(
                    py,
                    "R-BT-6",
                    format!(
                        "error[R-BT-6]: {what}[{d}] is {v}; DirectML sizes and strides are 32-bit (at most 4294967295)"
                    ),
                )
            })
        })
        .collect()
}

/// `ceil(bytes / 4) * 4`: TotalTensorSizeInBytes for `bytes` of elements (the host slice itself stays exact, D10).
fn dword_round(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4) * 4
}

/// Maps `a`, copying it to C order only when its strides are not multiples of the item size (then `true`).
fn map_input<'py>(
    py: Python<'py>,
    a: Bound<'py, PyUntypedArray>,
    itemsize: usize,
) -> PyResult<(Bound<'py, PyUntypedArray>, Mapped, bool)> {
    match mapping::map(&a, itemsize) {
        Ok(m) => Ok((a, m, false)),
        Err(NotMappable::Unaligned) => {
            let copy: Bound<'py, PyUntypedArray> =
                py.import(intern!(py, "numpy"))?.call_method1(intern!(py, "ascontiguousarray"), (a,))?.cast_into()?;
            let m = mapping::map(&copy, itemsize).map_err(|_| PyValueError::new_err("stridekit: cannot map a copy"))?;
            Ok((copy, m, true))
        }
    }
}

/// Checks `out` (dtype, shape, writeable) and maps it; `axes` gives, per Slice1 output axis, the axis of `out` it is
/// (`None`: an integer-indexed axis, size 1).
fn prepare_out<'py>(
    py: Python<'py>,
    out: Option<Bound<'py, PyAny>>,
    input_descr: &Bound<'py, PyArrayDescr>,
    shape: &[u64],
    axes: &[Option<usize>],
) -> PyResult<Output<'py>> {
    let Some(out) = out else {
        return Ok(Output { array: None, strides: None, mapped: None });
    };
    let out = out
        .cast_into::<PyUntypedArray>()
        .map_err(|_| PyTypeError::new_err("stridekit: out must be a numpy.ndarray"))?;
    let descr = out.dtype();
    if !descr.is_equiv_to(input_descr) {
        return Err(PyTypeError::new_err(format!(
            "stridekit: out has dtype {descr} but the result has dtype {input_descr}; they must be the same"
        )));
    }
    let out_shape: Vec<u64> = out.shape().iter().map(|&n| n as u64).collect();
    if out_shape != shape {
        return Err(PyValueError::new_err(format!(
            "stridekit: out has shape {} but the result has shape {}",
            shape_text(&out_shape),
            shape_text(shape)
        )));
    }
    if !mapping::is_writeable(&out) {
        return Err(PyValueError::new_err("stridekit: out is read-only"));
    }
    let mapped = match mapping::map(&out, descr.itemsize()) {
        Ok(m) => m,
        // Not expressible in place: the copy goes to a fresh array, then NumPy copies it into `out`.
        Err(NotMappable::Unaligned) => return Ok(Output { array: Some(out), strides: None, mapped: None }),
    };
    let mut strides = Vec::with_capacity(axes.len());
    let mut flipped = Vec::with_capacity(axes.len());
    for axis in axes {
        match axis {
            Some(r) => {
                strides.push(mapped.strides[*r]);
                flipped.push(mapped.flipped[*r]);
            }
            None => {
                strides.push(0);
                flipped.push(false);
            }
        }
    }
    let strides = to_u32(py, &strides, "OutputTensor.Strides")?;
    Ok(Output { array: Some(out), strides: Some((strides, flipped)), mapped: Some(mapped) })
}

fn shape_text(shape: &[u64]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// A fresh C-ordered array of `shape` with the input's dtype.
#[allow(unsafe_code)]
fn empty_like<'py>(
    py: Python<'py>,
    descr: &Bound<'py, PyArrayDescr>,
    shape: &[u64],
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let mut dims: Vec<npy_intp> = shape.iter().map(|&n| n as npy_intp).collect();
    // SAFETY: PyArray_NewFromDescr steals the descriptor reference `into_dtype_ptr` hands over, reads `dims.len()`
    // dimensions from `dims`, and with null strides and data allocates a C-ordered array of its own. We hold the GIL.
    let ptr = unsafe {
        PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            npyffi::get_type_object(py, NpyTypes::PyArray_Type),
            descr.clone().into_dtype_ptr(),
            dims.len() as std::ffi::c_int,
            dims.as_mut_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
        )
    };
    // SAFETY: a null return has set a Python exception, which from_owned_ptr_or_err turns into the error.
    let any = unsafe { Bound::from_owned_ptr_or_err(py, ptr)? };
    Ok(any.cast_into()?)
}

/// Work NumPy may spend proving two arrays whose byte ranges intersect disjoint (`max_work` of
/// `numpy.shares_memory`); interleaved views such as `big[::2]` and `big[1::2]` take a few steps.
const SHARES_MEMORY_MAX_WORK: u64 = 1 << 20;

/// Whether `a` and `b`, whose byte ranges intersect, share an element byte: NumPy's exact test
/// (`numpy.shares_memory`). When NumPy gives up (`TooHardError`, past [`SHARES_MEMORY_MAX_WORK`]) they count as sharing.
fn shares_memory(py: Python<'_>, a: &Bound<'_, PyUntypedArray>, b: &Bound<'_, PyUntypedArray>) -> PyResult<bool> {
    let numpy = py.import(intern!(py, "numpy"))?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item(intern!(py, "max_work"), SHARES_MEMORY_MAX_WORK)?;
    match numpy.call_method(intern!(py, "shares_memory"), (a, b), Some(&kwargs)) {
        Ok(shared) => shared.is_truthy(),
        Err(e) if e.get_type(py).name().is_ok_and(|n| n == "TooHardError") => Ok(true),
        Err(e) => Err(e),
    }
}

/// Memory of mapped arrays as plain addresses: a raw pointer is not `Send`, and the detached closure must be.
#[derive(Clone, Copy)]
struct Ranges {
    input: (usize, usize),
    output: (usize, usize),
}

/// Runs `op` from `input`'s memory into `output`'s, with the GIL released for copies of at least
/// [`DETACH_MIN_BYTES`].
///
/// No Rust reference is ever formed over either array's memory: the byte hull of a strided view (`big[::2]`)
/// includes the elements of other arrays (`big[1::2]`) that another Python thread may write meanwhile, so the copy
/// goes through [`PreparedSlice1::execute_raw`], which touches element bytes only.
#[allow(unsafe_code)]
fn run(py: Python<'_>, op: &PreparedSlice1, input: (*mut u8, usize), output: (*mut u8, usize)) -> PyResult<()> {
    let ranges = Ranges { input: (input.0 as usize, input.1), output: (output.0 as usize, output.1) };
    let copy = move || {
        let Ranges { input: (src, src_len), output: (dst, dst_len) } = ranges;
        // SAFETY: `src .. + src_len` is the hull of the input array's elements and `dst .. + dst_len` that of the
        // output's (mapping::map, or the same figures remembered for an array of the same shape and strides), each
        // inside its array's allocation, which the caller keeps alive (it holds both arrays) for the call. The output is a fresh array or a writeable `out` that shares no element with the
        // input (checked before). As with any NumPy routine that releases the GIL, the caller's program must not
        // write the input's or touch the output's elements from another thread meanwhile; bytes between elements
        // may be used freely by others, since `execute_raw` reads and writes element bytes only.
        unsafe { op.execute_raw(src as *const u8, src_len, dst as *mut u8, dst_len) }
    };
    // Releasing and re-taking the GIL costs about as much as copying a few KiB: small copies keep it.
    if output.1 < DETACH_MIN_BYTES { copy() } else { py.detach(copy) }.map_err(|e| exec_error(py, &e))
}

fn exec_error(py: Python<'_>, e: &ExecError) -> PyErr {
    rule_error(py, e.rule(), e.to_string())
}

/// Validates a description.
fn validate(desc: &Desc) -> Result<Slice1Plan, stridekit::SliceError> {
    match desc {
        Desc::Slice1(d) => d.validate(),
        Desc::Slice(d) => d.validate(),
    }
}

/// Validates and runs `params` on `a`, writing `out` (whose NumPy shape is `result_shape`; `out_axes` maps Slice1
/// output axes to its axes) or a fresh array of `result_shape`. `remember`: the key under which a successful call
/// without `out` that read `a` in place stores what it computed (`stridekit.index`'s fast path).
#[allow(clippy::too_many_arguments)]
fn execute<'py>(
    py: Python<'py>,
    a: Bound<'py, PyUntypedArray>,
    data_type: DataType,
    params: &Params,
    result_shape: &[u64],
    out_axes: &[Option<usize>],
    out: Option<Bound<'py, PyAny>>,
    threads: Option<usize>,
    window_checked: bool,
    remember: Option<IndexKey>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = options(threads)?;
    let descr = a.dtype();
    let itemsize = descr.itemsize();
    let (a, input, copied) = map_input(py, a, itemsize)?;
    let output = prepare_out(py, out, &descr, result_shape, out_axes)?;
    let input_desc = BufferTensorDesc {
        data_type,
        flags: TensorFlags::NONE,
        sizes: to_u32(py, &input.sizes, "InputTensor.Sizes")?,
        strides: Some(to_u32(py, &input.strides, "InputTensor.Strides")?),
        total_tensor_size_in_bytes: dword_round(input.len),
        guaranteed_base_offset_alignment: 0,
    };
    let output_sizes = params.output_sizes();
    let count: u64 = output_sizes.iter().map(|&n| u64::from(n)).product();
    let output_desc = BufferTensorDesc {
        data_type,
        flags: TensorFlags::NONE,
        sizes: output_sizes.to_vec(),
        strides: output.strides.as_ref().map(|(s, _)| s.clone()),
        total_tensor_size_in_bytes: match &output.mapped {
            Some(m) => dword_round(m.len),
            None => count.saturating_mul(itemsize as u64).div_ceil(4) * 4,
        },
        guaranteed_base_offset_alignment: 0,
    };
    let out_flipped = output.strides.as_ref().is_some_and(|(_, f)| f.iter().any(|&x| x));
    let desc = if !input.any_flipped() && !out_flipped {
        params.desc(input_desc, output_desc)
    } else {
        if !window_checked {
            // The caller's numbers first, on packed tensors of the same shapes, so that errors name them.
            let packed = |sizes: &[u32], role: TensorRole| {
                BufferTensorDesc::packed(data_type, sizes).map_err(|e| tensor_error(py, &e.with_role(role)))
            };
            let logical_in = packed(&input_desc.sizes, TensorRole::Input)?;
            let logical_out = packed(output_sizes, TensorRole::Output)?;
            validate(&params.desc(logical_in, logical_out)).map_err(|e| slice_error(py, &e))?;
        }
        let rank = input_desc.sizes.len();
        let (mut offsets, mut sizes, mut strides) = (Vec::new(), Vec::new(), Vec::new());
        for d in 0..rank {
            let out_flip = output.strides.as_ref().is_some_and(|(_, f)| f[d]);
            let (o, s, t) = fold(params.axis(d), input_desc.sizes[d], input.flipped[d], out_flip).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "stridekit: axis {d}: the reversed stride of {} does not fit DirectML's i32; copy the array first",
                    params.axis(d).stride
                ))
            })?;
            offsets.push(o);
            sizes.push(s);
            strides.push(t);
        }
        Desc::Slice1(Slice1Desc {
            input: input_desc,
            output: output_desc,
            input_window_offsets: offsets,
            input_window_sizes: sizes,
            input_window_strides: strides,
        })
    };
    let op = cache::prepared(desc, threads, |desc| {
        let plan = validate(desc).map_err(|e| slice_error(py, &e))?;
        PreparedSlice1::new(&plan, options).map_err(|e| exec_error(py, &e))
    })?;
    let (target, out_mapped, copy_back) = match (&output.array, output.mapped) {
        (Some(out), Some(m)) => {
            if m.overlaps(&input) && shares_memory(py, &a, out)? {
                return Err(PyValueError::new_err(
                    "stridekit: out shares memory with the input; give an array that does not overlap it",
                ));
            }
            (out.clone(), m, false)
        }
        (array, _) => {
            let fresh = empty_like(py, &descr, result_shape)?;
            let m = mapping::map(&fresh, itemsize).map_err(|_| PyValueError::new_err("stridekit: cannot map"))?;
            (fresh, m, array.is_some())
        }
    };
    run(py, &op, (input.base, input.len), (out_mapped.base, out_mapped.len))?;
    if let Some(key) = remember
        && output.array.is_none()
        && !copied
    {
        let low = (input.base as isize).wrapping_sub(mapping::data(&a) as isize);
        cache::remember_index(key, IndexEntry { op, result_shape: result_shape.to_vec(), low, len: input.len });
    }
    drop(a);
    if copy_back {
        let out = output.array.expect("copy_back implies out");
        out.set_item(py.Ellipsis(), &target)?;
        return Ok(out.into_any());
    }
    Ok(target.into_any())
}

/// `stridekit.index` for a (type, shape, strides, key, threads) seen before: allocate the result, copy.
fn index_again<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyUntypedArray>,
    descr: &Bound<'py, PyArrayDescr>,
    entry: &IndexEntry,
) -> PyResult<Bound<'py, PyAny>> {
    let fresh = empty_like(py, descr, &entry.result_shape)?;
    let count: u64 = entry.result_shape.iter().product();
    let input = (mapping::data(a).wrapping_offset(entry.low), entry.len);
    let output = (mapping::data(&fresh), count as usize * descr.itemsize());
    run(py, &entry.op, input, output)?;
    Ok(fresh.into_any())
}

/// DML_SLICE1 on `a`.
#[pyfunction]
#[pyo3(signature = (a, offsets, sizes, strides, *, output_sizes=None, out=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn slice1<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    offsets: Vec<u32>,
    sizes: Vec<u32>,
    strides: Vec<i32>,
    output_sizes: Option<Vec<u32>>,
    out: Option<Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let a = as_array(py, a)?;
    let data_type = dtype::of_descr(&a.dtype(), "the input")?;
    // MaxCopiedElements per axis of the input, as the command line's default; degenerate values (and window arrays
    // of the wrong length) are left for validation to name, so the default itself always has the input's rank.
    let output_sizes = output_sizes.unwrap_or_else(|| {
        (0..a.ndim())
            .map(|d| match (sizes.get(d), strides.get(d)) {
                (Some(&size), Some(&stride)) if size != 0 && stride != 0 => 1 + (size - 1) / stride.unsigned_abs(),
                _ => 1,
            })
            .collect()
    });
    let shape: Vec<u64> = output_sizes.iter().map(|&n| u64::from(n)).collect();
    let axes: Vec<Option<usize>> = (0..shape.len()).map(Some).collect();
    let params = Params::Slice1 { offsets, sizes, strides, output_sizes };
    execute(py, a, data_type, &params, &shape, &axes, out, threads, false, None)
}

/// DML_SLICE (version 0) on `a`.
#[pyfunction]
#[pyo3(signature = (a, offsets, sizes, strides, *, out=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn slice<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    offsets: Vec<u32>,
    sizes: Vec<u32>,
    strides: Vec<u32>,
    out: Option<Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let a = as_array(py, a)?;
    let data_type = dtype::of_descr(&a.dtype(), "the input")?;
    let shape: Vec<u64> = sizes.iter().map(|&n| u64::from(n)).collect();
    let axes: Vec<Option<usize>> = (0..shape.len()).map(Some).collect();
    let params = Params::Slice { offsets, sizes, strides };
    execute(py, a, data_type, &params, &shape, &axes, out, threads, false, None)
}

/// `numpy.ascontiguousarray(a[key])` for a basic index.
#[pyfunction]
#[pyo3(signature = (a, key, *, out=None, threads=None))]
pub fn index<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    key: &Bound<'py, PyAny>,
    out: Option<Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let a = as_array(py, a)?;
    let descr = a.dtype();
    let data_type = dtype::of_descr(&descr, "the input")?;
    let parsed = key::parse(py, key)?;
    // Without `out`, a repeated (type, shape, strides, key, threads) skips straight to the copy.
    let (mut remember, with_out) = (None, out.is_some());
    let key = if with_out {
        parsed
    } else {
        let ikey =
            IndexKey { data_type, shape: a.shape().to_vec(), strides: a.strides().to_vec(), key: parsed, threads };
        if let Some(entry) = cache::index_entry(&ikey) {
            return index_again(py, &a, &descr, &entry);
        }
        remember = Some(ikey);
        Key::default()
    };
    let key = remember.as_ref().map_or(&key, |ikey| &ikey.key);
    let shape: Vec<u64> = a.shape().iter().map(|&n| n as u64).collect();
    let outcome = key.index.resolve(&shape).map_err(|e| numpy_error(py, &e))?;
    let integer_axes = key.index.integer_axes(shape.len()).map_err(|e| numpy_error(py, &e))?;
    let result_axes = key.result_axes(shape.len(), &integer_axes);
    let slice1_shape = outcome.output_shape();
    let mut result_shape: Vec<u64> = result_axes
        .iter()
        .map(|axis| match axis {
            ResultAxis::Output(k) => slice1_shape[*k],
            ResultAxis::NewAxis => 1,
        })
        .collect();
    if result_shape.is_empty() {
        // numpy.ascontiguousarray returns at least one dimension: a[0] of a 1-D array is shape (1,).
        result_shape.push(1);
    }
    let out_axes: Vec<Option<usize>> =
        (0..shape.len()).map(|k| result_axes.iter().position(|axis| *axis == ResultAxis::Output(k))).collect();
    match outcome {
        SliceOutcome::Window(p) => {
            let params = Params::Slice1 {
                offsets: p.input_window_offsets,
                sizes: p.input_window_sizes,
                strides: p.input_window_strides,
                output_sizes: p.output_sizes,
            };
            // The front end's window satisfies R-S1-2..5 by construction: no need to check the caller's numbers.
            execute(py, a, data_type, &params, &result_shape, &out_axes, out, threads, true, remember)
        }
        SliceOutcome::Empty { output_shape } => {
            // D11: an empty selection gives an empty result, after every rule a non-empty one gets (the model's
            // stand-in: rank, type, layouts). NumPy gives arrays without elements arbitrary strides (often 0), so an
            // empty array's layout is its packed one: only a non-empty input brings its own strides.
            let descr = a.dtype();
            let input = match mapping::map(&a, descr.itemsize()) {
                Ok(m) if m.len > 0 => Some(to_u32(py, &m.strides, "InputTensor.Strides")?),
                _ => None,
            };
            let input_sizes = to_u32(py, &shape, "InputTensor.Sizes")?;
            let output = prepare_out(py, out, &descr, &result_shape, &out_axes)?;
            stridekit::frontends::validate_empty(
                data_type,
                &input_sizes,
                input.as_deref(),
                &output_shape,
                None,
                stridekit::FeatureLevel::LATEST,
            )
            .map_err(|e| slice_error(py, &e))?;
            match output.array {
                Some(out) => Ok(out.into_any()),
                None => Ok(empty_like(py, &descr, &result_shape)?.into_any()),
            }
        }
    }
}
