//! The front ends on arbitrary text and integers: `numpy_slice`, `onnx_slice` and the list parsers never panic, and
//! their answers agree with small independent models written here from the semantics they document:
//!
//! - NumPy: Python's `slice.indices` per axis (CPython `PySlice_AdjustIndices`), items assigned around `...`.
//! - ONNX: the Slice-13 text (SPEC §7): negative values get `dim` added, then the step-dependent clamps.
//! - Lists: what parses prints back and parses to the same values; the three widths agree on values in range.
//!
//! Whenever a front end returns a window, its parameters keep the Slice1 rules they promise, select exactly the
//! model's elements, and validate as a Slice1 on packed tensors of the given shape (rank 1..=8, at most 2^32 - 1
//! elements).

#![no_main]

use arbitrary::{Arbitrary, Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use stridekit::DataType;
use stridekit::frontends::lists::{parse_i32_list, parse_i64_list, parse_u32_list};
use stridekit::frontends::numpy::{IndexItem, NumpyIndex, numpy_slice, parse_numpy_index};
use stridekit::frontends::onnx::onnx_slice;
use stridekit::frontends::{Slice1Params, SliceOutcome};

/// Pieces of NumPy expressions and lists; most fuzz inputs are built from these so that they parse.
const TOKENS: [&str; 22] = [
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-2",
    "5",
    "7",
    ":",
    ":",
    "::",
    ",",
    ",",
    " ",
    "...",
    "[",
    "]",
    "-",
    "None",
    "2147483648",
    "-9223372036854775809",
    "99999999999999999999999",
];

/// Dimensions: mostly small, sometimes at the u32 edge or past it.
const EDGE_DIMS: [u64; 6] = [0, 1, 1 << 31, u32::MAX as u64, u32::MAX as u64 + 1, u64::MAX];
/// ONNX starts/ends/steps on the edges.
const EDGE_I64: [i64; 10] =
    [i64::MIN, i64::MIN + 1, -(1 << 31) - 1, -(1 << 31), -1, 0, 1, 1 << 31, i64::MAX - 1, i64::MAX];

#[derive(Debug)]
struct Input {
    shape: Vec<u64>,
    expr: String,
    starts: Vec<i64>,
    ends: Vec<i64>,
    axes: Option<Vec<i64>>,
    steps: Option<Vec<i64>>,
    list: String,
    data_type: DataType,
}

fn text(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(1, 4)? {
        return u.arbitrary();
    }
    let mut s = String::new();
    for _ in 0..u.int_in_range(0..=24)? {
        if u.ratio(1, 16)? {
            s.push_str(&u.int_in_range(-100i64..=100)?.to_string());
        } else {
            s.push_str(u.choose(&TOKENS)?);
        }
    }
    Ok(s)
}

fn small_i64(u: &mut Unstructured<'_>) -> Result<i64> {
    Ok(match u.int_in_range(0..=7u8)? {
        0..=4 => u.int_in_range(-8..=8)?,
        5 => *u.choose(&EDGE_I64)?,
        _ => u.arbitrary()?,
    })
}

fn i64_vec(u: &mut Unstructured<'_>, len: usize) -> Result<Vec<i64>> {
    (0..len).map(|_| small_i64(u)).collect()
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let rank = u.int_in_range(0..=9)?;
        let mut shape = Vec::with_capacity(rank);
        for _ in 0..rank {
            shape.push(match u.int_in_range(0..=15u8)? {
                0..=12 => u.int_in_range(1..=6)?,
                13 | 14 => *u.choose(&EDGE_DIMS)?,
                _ => u.arbitrary()?,
            });
        }
        let expr = text(u)?;
        let n = if u.ratio(7, 8)? { u.int_in_range(0..=rank)? } else { u.int_in_range(0..=10)? };
        let starts = i64_vec(u, n)?;
        let ends_len = if u.ratio(15, 16)? { n } else { n + 1 };
        let ends = i64_vec(u, ends_len)?;
        let axes = if u.ratio(1, 2)? {
            let mut axes = Vec::with_capacity(n);
            for _ in 0..n {
                axes.push(if u.ratio(7, 8)? {
                    u.int_in_range(-(rank as i64)..=(rank as i64).max(1) - 1)?
                } else {
                    small_i64(u)?
                });
            }
            Some(axes)
        } else {
            None
        };
        let steps = if u.ratio(1, 2)? {
            let mut steps = Vec::with_capacity(n);
            for _ in 0..n {
                steps.push(match u.int_in_range(0..=7u8)? {
                    0..=5 => u.int_in_range(-3..=3)?,
                    _ => small_i64(u)?,
                });
            }
            Some(steps)
        } else {
            None
        };
        let list = text(u)?;
        let data_type = *u.choose(&DataType::BYTE_SIZED)?;
        Ok(Input { shape, expr, starts, ends, axes, steps, list, data_type })
    }
}

/// The model's answer for one axis: `count` elements from `start`, `step` apart.
#[derive(Debug, Clone, Copy)]
struct Selection {
    start: i128,
    step: i128,
    count: i128,
}

/// What a model expects from a front end.
#[derive(Debug)]
enum Expected {
    /// The input is wrong whatever the data (index out of range, step 0, bad axes, ...).
    Error,
    /// Per axis selections; the front end must give exactly these, or an error when one is not expressible.
    Axes(Vec<Selection>),
}

/// CPython's `slice.indices(length)` (PySlice_AdjustIndices) and `len(range(...))`, for `step != 0`.
fn python_indices(start: Option<i64>, stop: Option<i64>, step: Option<i64>, len: i128) -> Option<Selection> {
    let step = i128::from(step.unwrap_or(1));
    if step == 0 {
        return None;
    }
    let (lower, upper) = if step < 0 { (-1, len - 1) } else { (0, len) };
    let adjust = |v: Option<i64>, default: i128| match v {
        None => default,
        Some(v) => {
            let mut v = i128::from(v);
            if v < 0 {
                v += len;
                if v < lower {
                    v = lower;
                }
            } else if v > upper {
                v = upper;
            }
            v
        }
    };
    let start = adjust(start, if step < 0 { upper } else { lower });
    let stop = adjust(stop, if step < 0 { lower } else { upper });
    let count = if step > 0 {
        if stop > start { (stop - start - 1) / step + 1 } else { 0 }
    } else if start > stop {
        (start - stop - 1) / (-step) + 1
    } else {
        0
    };
    Some(Selection { start, step, count })
}

fn numpy_model(index: &NumpyIndex, shape: &[u64]) -> Expected {
    if shape.iter().any(|&d| d > u64::from(u32::MAX)) {
        return Expected::Error;
    }
    let rank = shape.len();
    let items = &index.items;
    let ellipsis = items.iter().position(|i| matches!(i, IndexItem::Ellipsis));
    let explicit = items.len() - usize::from(ellipsis.is_some());
    if explicit > rank {
        return Expected::Error;
    }
    // Axis -> the item that indexes it, or None for a whole axis.
    let mut per_axis: Vec<Option<IndexItem>> = vec![None; rank];
    match ellipsis {
        None => items.iter().enumerate().for_each(|(a, &item)| per_axis[a] = Some(item)),
        Some(e) => {
            items[..e].iter().enumerate().for_each(|(a, &item)| per_axis[a] = Some(item));
            let after = &items[e + 1..];
            after.iter().enumerate().for_each(|(k, &item)| per_axis[rank - after.len() + k] = Some(item));
        }
    }
    let mut selections = Vec::with_capacity(rank);
    for (item, &dim) in per_axis.iter().zip(shape) {
        let len = i128::from(dim);
        let selection = match item {
            None | Some(IndexItem::Ellipsis) => Some(Selection { start: 0, step: 1, count: len }),
            Some(IndexItem::Index(i)) => {
                let i = i128::from(*i);
                if i < -len || i >= len {
                    None
                } else {
                    Some(Selection { start: if i < 0 { i + len } else { i }, step: 1, count: 1 })
                }
            }
            Some(IndexItem::Slice { start, stop, step }) => python_indices(*start, *stop, *step, len),
        };
        match selection {
            Some(s) => selections.push(s),
            None => return Expected::Error,
        }
    }
    Expected::Axes(selections)
}

/// ONNX Slice-13 (SPEC §7 steps 1-3).
fn onnx_model(input: &Input) -> Expected {
    let shape = &input.shape;
    let rank = shape.len();
    if shape.iter().any(|&d| d > u64::from(u32::MAX)) {
        return Expected::Error;
    }
    let n = input.starts.len();
    let lens_ok = input.ends.len() == n
        && input.axes.as_ref().is_none_or(|a| a.len() == n)
        && input.steps.as_ref().is_none_or(|s| s.len() == n);
    if !lens_ok || (input.axes.is_none() && n > rank) {
        return Expected::Error;
    }
    let mut selections: Vec<Selection> =
        shape.iter().map(|&d| Selection { start: 0, step: 1, count: i128::from(d) }).collect();
    let mut seen = vec![false; rank];
    for k in 0..n {
        let axis = i128::from(input.axes.as_ref().map_or(k as i64, |a| a[k]));
        let axis = if axis < 0 { axis + rank as i128 } else { axis };
        if axis < 0 || axis >= rank as i128 || seen[axis as usize] {
            return Expected::Error;
        }
        let axis = axis as usize;
        seen[axis] = true;
        let step = i128::from(input.steps.as_ref().map_or(1, |s| s[k]));
        if step == 0 {
            return Expected::Error;
        }
        let dim = i128::from(shape[axis]);
        let (mut start, mut end) = (i128::from(input.starts[k]), i128::from(input.ends[k]));
        if start < 0 {
            start += dim;
        }
        if end < 0 {
            end += dim;
        }
        if dim == 0 {
            selections[axis] = Selection { start: 0, step, count: 0 };
            continue;
        }
        if step > 0 {
            start = start.clamp(0, dim);
            end = end.clamp(0, dim);
        } else {
            start = start.clamp(0, dim - 1);
            end = end.clamp(-1, dim - 1);
        }
        // max(0, ceil((end - start) / step)).
        let span = (end - start) * step.signum();
        let count = if span <= 0 { 0 } else { (span + step.abs() - 1) / step.abs() };
        selections[axis] = Selection { start, step, count };
    }
    Expected::Axes(selections)
}

/// Checks a front end's answer against the model's.
fn check(who: &str, shape: &[u64], data_type: DataType, got: Result<SliceOutcome, String>, expected: Expected) {
    let selections = match expected {
        Expected::Error => {
            assert!(got.is_err(), "{who}: the model rejects it, the front end gave {got:?}");
            return;
        }
        Expected::Axes(s) => s,
    };
    assert_eq!(selections.len(), shape.len());
    let empty = selections.iter().any(|s| s.count == 0);
    // A step outside i32 cannot be a Slice1 stride once it selects two or more elements.
    let inexpressible = selections.iter().any(|s| s.count >= 2 && i32::try_from(s.step).is_err());
    let outcome = match got {
        Ok(outcome) => outcome,
        Err(e) => {
            assert!(inexpressible, "{who}: the model selects {selections:?}, the front end says {e}");
            return;
        }
    };
    let counts: Vec<u64> = selections.iter().map(|s| s.count as u64).collect();
    assert_eq!(outcome.output_shape(), counts, "{who}: output shape");
    match outcome {
        SliceOutcome::Empty { .. } => assert!(empty, "{who}: Empty but no axis is empty"),
        SliceOutcome::Window(params) => {
            assert!(!empty && !inexpressible, "{who}: a window for {selections:?}");
            check_window(who, shape, data_type, &params, &selections);
        }
    }
}

fn check_window(who: &str, shape: &[u64], data_type: DataType, p: &Slice1Params, selections: &[Selection]) {
    let rank = shape.len();
    for (field, len) in [
        ("input_sizes", p.input_sizes.len()),
        ("offsets", p.input_window_offsets.len()),
        ("sizes", p.input_window_sizes.len()),
        ("strides", p.input_window_strides.len()),
        ("output_sizes", p.output_sizes.len()),
    ] {
        assert_eq!(len, rank, "{who}: {field} length");
    }
    let copy_start = p.copy_start();
    for (i, s) in selections.iter().enumerate() {
        assert_eq!(u64::from(p.input_sizes[i]), shape[i], "{who}: input size {i}");
        // The rules Slice1Params promises (R-S1-2..5).
        let (offset, size, stride) = (p.input_window_offsets[i], p.input_window_sizes[i], p.input_window_strides[i]);
        assert!(size >= 1 && stride != 0, "{who}: axis {i}: size {size}, stride {stride}");
        assert!(u64::from(offset) + u64::from(size) <= u64::from(p.input_sizes[i]), "{who}: axis {i} window");
        let max = 1 + (size - 1) / stride.unsigned_abs();
        assert!((1..=max).contains(&p.output_sizes[i]), "{who}: axis {i}: output {} > {max}", p.output_sizes[i]);
        // The elements: the same first element, count and (when it matters) step as the model.
        assert_eq!(i128::from(p.output_sizes[i]), s.count, "{who}: axis {i} count");
        assert_eq!(i128::from(copy_start[i]), s.start, "{who}: axis {i} first element");
        if s.count >= 2 {
            assert_eq!(i128::from(stride), s.step, "{who}: axis {i} stride");
        } else {
            assert_eq!(stride.signum() as i128, s.step.signum(), "{who}: axis {i} stride direction");
        }
    }
    // Packed tensors of this shape: when the shape is a valid buffer tensor (rank 1..=8, at most 2^32 - 1 elements,
    // R-BT-2 and R-BT-6), the Slice1 validates. (`to_packed_desc` itself does not check R-BT-6: it can return a
    // description that `validate` then rejects, so the shape is checked here.)
    let elements = shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
    if (1..=8).contains(&rank) && elements.is_some_and(|n| n <= u64::from(u32::MAX)) {
        let desc = p.to_packed_desc(data_type).unwrap_or_else(|e| panic!("{who}: to_packed_desc: {e}"));
        if let Err(e) = desc.validate() {
            panic!("{who}: the window does not validate on packed tensors: {e}\n{desc:?}");
        }
    }
}

fn lists(text: &str) {
    let u32s = parse_u32_list("--fuzz", text);
    let i32s = parse_i32_list("--fuzz", text);
    let i64s = parse_i64_list("--fuzz", text);
    if let Ok(values) = &i64s {
        // Printed back, the values parse to themselves (with and without brackets).
        let printed = values.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
        assert_eq!(parse_i64_list("--fuzz", &printed).as_ref(), Ok(values), "reparse of {printed:?}");
        assert_eq!(parse_i64_list("--fuzz", &format!("[{printed}]")).as_ref(), Ok(values));
        // The narrower parsers accept exactly the lists whose values fit them, with the same values.
        let fits_u32: Option<Vec<u32>> = values.iter().map(|&v| u32::try_from(v).ok()).collect();
        let fits_i32: Option<Vec<i32>> = values.iter().map(|&v| i32::try_from(v).ok()).collect();
        assert_eq!(u32s.as_ref().ok(), fits_u32.as_ref(), "u32 list of {text:?}");
        assert_eq!(i32s.as_ref().ok(), fits_i32.as_ref(), "i32 list of {text:?}");
    } else {
        assert!(u32s.is_err() && i32s.is_err(), "{text:?}: a narrower list parses but the i64 list does not");
    }
    // Error messages are printable (Display never panics) and follow the convention.
    for e in [u32s.err(), i32s.err(), i64s.err()].into_iter().flatten() {
        assert!(e.to_string().starts_with("error[args]:"), "{e}");
    }
}

fuzz_target!(|input: Input| {
    let shape = &input.shape;

    // NumPy: the parser alone, its printed form, then resolution against the model.
    let parsed = parse_numpy_index(&input.expr);
    let got = numpy_slice(shape, &input.expr).map_err(|e| e.to_string());
    if let Err(e) = &got {
        assert!(e.starts_with("error[numpy]:"), "{e}");
    }
    match parsed {
        Ok(index) => {
            let printed = index.to_string();
            assert_eq!(parse_numpy_index(&printed).as_ref(), Ok(&index), "reparse of {printed:?}");
            check("numpy", shape, input.data_type, got, numpy_model(&index, shape));
        }
        Err(_) => assert!(got.is_err(), "numpy_slice accepted what parse_numpy_index rejects"),
    }

    // ONNX.
    let got = onnx_slice(shape, &input.starts, &input.ends, input.axes.as_deref(), input.steps.as_deref())
        .map_err(|e| e.to_string());
    if let Err(e) = &got {
        assert!(e.starts_with("error[onnx]:"), "{e}");
    }
    check("onnx", shape, input.data_type, got, onnx_model(&input));

    lists(&input.list);
});
