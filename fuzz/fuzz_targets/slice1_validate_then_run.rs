//! Validate-then-run: an arbitrary Slice1 description (two buffer tensors, a window, a feature level) goes through
//! `Slice1Desc::validate_at`; when it is accepted, every way stridekit-cpu can execute it must produce exactly the
//! bytes of the naive reference (`stridekit::reference`), padding and bytes outside the bound range untouched (D6), and a
//! binding that is too small must be refused without writing a byte (D9). No input may panic.
//!
//! The decoder below is biased towards descriptions that validate (windows inside the input, output sizes at most
//! MaxCopiedElements, TotalTensorSizeInBytes at the minimum implied size) while still reaching every rejection
//! (raw data type and flag values, rank 0 and 9, mismatched arrays, zero strides, sizes past u32 ranges).

#![no_main]

use arbitrary::{Arbitrary, Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use stridekit::{BufferTensorDesc, FeatureLevel, Slice1Desc, Slice1Plan, calc_buffer_tensor_size};
use stridekit_cpu::{Binding, CpuBuffer, ExecOptions, PreparedSlice1, slice1, slice1_bound, slice1_with};
use stridekit::reference::slice1_reference;

/// Accepted descriptions whose buffers exceed this are validated but not executed, so that one input stays fast.
/// Small-but-tricky descriptions (huge strides on size-1 dimensions, broadcasts) are small and still run.
const MAX_TENSOR_BYTES: u64 = 4 << 20;
/// The reference walks every output element; more than this would make a single input slow.
const MAX_OUTPUT_ELEMENTS: u64 = 1 << 18;
/// Output bytes start as this value; input bytes never take it (they are `pattern(i) % 255`), so a missed write
/// always shows.
const SENTINEL: u8 = 0xFF;

/// Values that sit on the edges of u32 arithmetic.
const EDGE_U32: [u32; 10] = [0, 1, 2, 3, 255, 65535, 65537, 1 << 31, u32::MAX - 1, u32::MAX];
/// Window strides that sit on the edges of i32 arithmetic.
const EDGE_I32: [i32; 8] = [i32::MIN, i32::MIN + 1, -65536, -1, 1, 65536, i32::MAX - 1, i32::MAX];

#[derive(Debug)]
struct Case {
    level: FeatureLevel,
    desc: Slice1Desc,
    /// Bytes past TotalTensorSizeInBytes in each buffer.
    input_extra: usize,
    output_extra: usize,
    /// Binding offsets for `slice1_bound`, in units of the tensor's required binding alignment.
    input_offset_units: u64,
    output_offset_units: u64,
    /// Start the slices handed to the kernels this many bytes after a 16-byte boundary.
    misalign: usize,
}

fn choose<T: Copy>(u: &mut Unstructured<'_>, values: &[T]) -> Result<T> {
    Ok(*u.choose(values)?)
}

/// A size: mostly small, sometimes on an edge, sometimes anything.
fn size(u: &mut Unstructured<'_>) -> Result<u32> {
    Ok(match u.int_in_range(0..=15u8)? {
        0..=9 => u.int_in_range(1..=4)?,
        10..=11 => u.int_in_range(1..=64)?,
        12..=13 => choose(u, &EDGE_U32)?,
        _ => u.arbitrary()?,
    })
}

/// Row-major packed strides, saturating (the library reports the overflow; here it only seeds choices).
fn packed(sizes: &[u32]) -> Vec<u32> {
    let mut strides = vec![0u32; sizes.len()];
    let mut acc = 1u32;
    for i in (0..sizes.len()).rev() {
        strides[i] = acc;
        acc = acc.saturating_mul(sizes[i]);
    }
    strides
}

/// Strides for `sizes`: none (packed), packed, a permutation of packed (NHWC and friends), padded, broadcast, or
/// each dimension anything from 0 to u32::MAX.
fn strides(u: &mut Unstructured<'_>, sizes: &[u32]) -> Result<Option<Vec<u32>>> {
    let rank = sizes.len();
    Ok(match u.int_in_range(0..=7u8)? {
        0 | 1 => None,
        2 => Some(packed(sizes)),
        3 => {
            // Packed strides of a permuted shape, then permuted back: a dense non-row-major layout.
            let mut order: Vec<usize> = (0..rank).collect();
            for i in (1..rank).rev() {
                let j = u.int_in_range(0..=i)?;
                order.swap(i, j);
            }
            let permuted: Vec<u32> = order.iter().map(|&d| sizes[d]).collect();
            let permuted_strides = packed(&permuted);
            let mut out = vec![0u32; rank];
            for (k, &d) in order.iter().enumerate() {
                out[d] = permuted_strides[k];
            }
            Some(out)
        }
        4 => {
            // Padded rows: each dimension's stride is at least what the dimensions below it span.
            let mut out = vec![0u32; rank];
            let mut acc = 1u32;
            for i in (0..rank).rev() {
                out[i] = acc.saturating_add(u.int_in_range(0..=3)?);
                acc = out[i].saturating_mul(sizes[i]);
            }
            Some(out)
        }
        _ => {
            let mut out = Vec::with_capacity(rank);
            for &s in sizes {
                out.push(match u.int_in_range(0..=7u8)? {
                    0 => 0,
                    1..=3 => u.int_in_range(1..=8)?,
                    // A huge stride on a size-1 dimension never moves: the tensor stays small.
                    4 if s == 1 => choose(u, &EDGE_U32)?,
                    4 | 5 => u.int_in_range(0..=64)?,
                    6 => choose(u, &EDGE_U32)?,
                    _ => u.arbitrary()?,
                });
            }
            // Sometimes a wrong number of strides.
            if u.ratio(1, 32)? {
                out.push(1);
            }
            Some(out)
        }
    })
}

/// TotalTensorSizeInBytes: usually the minimum implied size, sometimes a little more or less, sometimes anything.
fn total_size(u: &mut Unstructured<'_>, min: Option<u64>) -> Result<u64> {
    let Some(min) = min else { return u.arbitrary() };
    Ok(match u.int_in_range(0..=15u8)? {
        0..=9 => min,
        10..=12 => min.saturating_add(u.int_in_range(1..=64)?),
        13 => min.saturating_sub(u.int_in_range(1..=4)?),
        _ => u.arbitrary()?,
    })
}

/// A buffer tensor description; `None` when its raw data type or flags are not representable (also a rejection
/// the fuzzer reaches through `from_raw`).
fn tensor(u: &mut Unstructured<'_>, data_type: u32, sizes: Vec<u32>, input: bool) -> Result<Option<BufferTensorDesc>> {
    let flags = match u.int_in_range(0..=15u8)? {
        0..=12 => 0,
        13 | 14 => 1,
        _ => u.arbitrary()?,
    };
    // OWNED_BY_DML is legal on inputs only: keep it mostly off outputs so that outputs validate.
    let flags = if !input && flags == 1 && !u.ratio(1, 4)? { 0 } else { flags };
    let strides = strides(u, &sizes)?;
    let alignment = match u.int_in_range(0..=7u8)? {
        0..=3 => 0,
        4..=6 => 1 << u.int_in_range(0..=9)?,
        _ => u.arbitrary()?,
    };
    let min = stridekit::DataType::from_raw(data_type)
        .and_then(|dt| calc_buffer_tensor_size(dt, &sizes, strides.as_deref()).ok());
    let total = total_size(u, min)?;
    Ok(BufferTensorDesc::from_raw(data_type, flags, &sizes, strides.as_deref(), total, alignment).ok())
}

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let level = if u.ratio(1, 2)? { FeatureLevel::LATEST } else { choose(u, &FeatureLevel::ALL)? };
        let rank = match u.int_in_range(0..=31u8)? {
            0 => 0,
            1 => 9,
            _ => u.int_in_range(1..=8)?,
        };
        let data_type = match u.int_in_range(0..=15u8)? {
            0..=13 => u.int_in_range(1..=11)?,
            14 => u.int_in_range(12..=13)?, // UINT4/INT4: tensors exist, Slice1 rejects them
            _ => u.arbitrary()?,
        };
        let output_data_type = if u.ratio(1, 32)? { u.int_in_range(0..=14)? } else { data_type };

        let mut input_sizes = Vec::with_capacity(rank);
        for _ in 0..rank {
            input_sizes.push(size(u)?);
        }
        // The window, per dimension, and the output sizes it allows.
        let (mut offsets, mut window_sizes, mut window_strides, mut output_sizes) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for &dim in &input_sizes {
            let (offset, window) = if u.ratio(15, 16)? && dim >= 1 {
                let offset = u.int_in_range(0..=dim - 1)?;
                let window = u.int_in_range(1..=dim - offset)?;
                (offset, window)
            } else {
                (u.arbitrary()?, u.arbitrary()?)
            };
            let stride: i32 = match u.int_in_range(0..=15u8)? {
                0..=5 => u.int_in_range(1..=4)?,
                6..=10 => -u.int_in_range(1..=4)?,
                11 => 0,
                12..=13 => choose(u, &EDGE_I32)?,
                _ => u.arbitrary()?,
            };
            let max = if window == 0 || stride == 0 { 1 } else { 1 + (window - 1) / stride.unsigned_abs() };
            let output = match u.int_in_range(0..=15u8)? {
                0..=10 => max,
                11..=13 => u.int_in_range(1..=max)?,
                14 => max.saturating_add(1),
                _ => u.arbitrary()?,
            };
            offsets.push(offset);
            window_sizes.push(window);
            window_strides.push(stride);
            output_sizes.push(output);
        }
        // Sometimes one array of the wrong length.
        match u.int_in_range(0..=63u8)? {
            0 => offsets.push(0),
            1 => drop(window_sizes.pop()),
            2 => window_strides.push(1),
            3 => output_sizes.push(1),
            _ => {}
        }
        let input = tensor(u, data_type, input_sizes, true)?;
        let output = tensor(u, output_data_type, output_sizes, false)?;
        let (Some(input), Some(output)) = (input, output) else {
            return Err(arbitrary::Error::IncorrectFormat);
        };
        Ok(Case {
            level,
            desc: Slice1Desc {
                input,
                output,
                input_window_offsets: offsets,
                input_window_sizes: window_sizes,
                input_window_strides: window_strides,
            },
            input_extra: u.int_in_range(0..=8)?,
            output_extra: u.int_in_range(0..=8)?,
            input_offset_units: u.int_in_range(0..=2)?,
            output_offset_units: u.int_in_range(0..=2)?,
            misalign: u.int_in_range(0..=15)?,
        })
    }
}

/// The input byte at position `i`: varied, and never [`SENTINEL`].
fn pattern(i: usize) -> u8 {
    ((i as u32).wrapping_mul(2_654_435_761) >> 13) as u8 % 255
}

/// A 16-byte-aligned buffer of `len + misalign` bytes filled with `fill`, whose slice `[misalign..]` is used.
fn buffer(len: usize, misalign: usize, fill: impl Fn(usize) -> u8) -> CpuBuffer {
    let mut buf = CpuBuffer::zeroed(len + misalign);
    for (i, b) in buf.as_bytes_mut()[misalign..].iter_mut().enumerate() {
        *b = fill(i);
    }
    buf
}

fn run(case: Case) {
    let desc = &case.desc;
    let Ok(plan) = desc.validate_at(case.level) else { return };
    check_plan(&plan, desc);

    let (in_total, out_total) = (desc.input.total_tensor_size_in_bytes, desc.output.total_tensor_size_in_bytes);
    if in_total > MAX_TENSOR_BYTES || out_total > MAX_TENSOR_BYTES || plan.element_count() > MAX_OUTPUT_ELEMENTS {
        return;
    }
    let (in_total, out_total) = (in_total as usize, out_total as usize);
    let (in_len, out_len) = (in_total + case.input_extra, out_total + case.output_extra);
    let m = case.misalign;
    let input = buffer(in_len, m, pattern);
    let input = &input.as_bytes()[m..];

    // The expected output: the reference on a sentinel-filled buffer.
    let mut expected = vec![SENTINEL; out_len];
    slice1_reference(desc, input, &mut expected)
        .unwrap_or_else(|e| panic!("validate_at({:?}) accepted what the reference refuses: {e}", case.level));

    let run_whole = |name: &str, exec: &dyn Fn(&[u8], &mut [u8]) -> Result<(), stridekit_cpu::ExecError>| {
        let mut out = buffer(out_len, m, |_| SENTINEL);
        exec(input, &mut out.as_bytes_mut()[m..]).unwrap_or_else(|e| panic!("{name}: refused a valid plan: {e}"));
        assert!(out.as_bytes()[m..] == expected[..], "{name}: output differs from the reference");
    };
    run_whole("slice1", &|i, o| slice1(&plan, i, o));
    for threads in [1, 2] {
        let prepared = PreparedSlice1::new(&plan, ExecOptions::exercise_all_paths(threads))
            .unwrap_or_else(|e| panic!("PreparedSlice1::new: {e}"));
        run_whole(&format!("prepared exercise_all_paths({threads})"), &|i, o| prepared.execute(i, o));
        let portable = ExecOptions { simd: false, ..ExecOptions::exercise_all_paths(threads) };
        run_whole(&format!("slice1_with portable threads={threads}"), &|i, o| slice1_with(&plan, i, o, &portable));
    }
    run_whole("slice1_with threads=2", &|i, o| slice1_with(&plan, i, o, &ExecOptions::with_threads(2)));

    // Bound ranges at offsets that are multiples of the required alignment, inside larger buffers: the bytes before
    // and after the range stay untouched too.
    let in_align = u64::from(stridekit::required_binding_alignment(plan.input()));
    let out_align = u64::from(stridekit::required_binding_alignment(plan.output()));
    let (in_off, out_off) = (case.input_offset_units * in_align, case.output_offset_units * out_align);
    if in_off <= MAX_TENSOR_BYTES && out_off <= MAX_TENSOR_BYTES {
        let (in_off, out_off) = (in_off as usize, out_off as usize);
        let big_input = buffer(in_off + in_len, m, |i| if i < in_off { 0x11 } else { pattern(i - in_off) });
        let mut big_output = buffer(out_off + out_len, m, |_| SENTINEL);
        let ib = Binding { offset: in_off as u64, size_in_bytes: in_total as u64 };
        let ob = Binding { offset: out_off as u64, size_in_bytes: out_total as u64 };
        let options = ExecOptions::exercise_all_paths(1);
        slice1_bound(&plan, &big_input.as_bytes()[m..], ib, &mut big_output.as_bytes_mut()[m..], ob, &options)
            .unwrap_or_else(|e| panic!("slice1_bound refused a valid binding: {e}"));
        let got = &big_output.as_bytes()[m..];
        assert!(got[..out_off].iter().all(|&b| b == SENTINEL), "slice1_bound wrote before the bound range");
        assert!(got[out_off..out_off + out_total] == expected[..out_total], "slice1_bound: output differs");
        assert!(got[out_off + out_total..].iter().all(|&b| b == SENTINEL), "slice1_bound wrote past the bound range");
    }

    // D9 with D10: host slices one byte short of the last element touched are refused and nothing is written; so are
    // DirectML-shaped bindings one byte below TotalTensorSizeInBytes (R-BIND-1).
    let copy = plan.normalized();
    let (read_end, write_end) = (copy.input_byte_range().end as usize, copy.output_byte_range().end as usize);
    assert!(read_end <= in_total && write_end <= out_total, "the plan touches bytes past TotalTensorSizeInBytes");
    let mut out = vec![SENTINEL; write_end - 1];
    assert!(slice1(&plan, input, &mut out).is_err(), "accepted a host output without its last element");
    assert!(out.iter().all(|&b| b == SENTINEL), "a refused call wrote output bytes");
    let mut out = vec![SENTINEL; out_len];
    assert!(slice1(&plan, &input[..read_end - 1], &mut out).is_err(), "accepted a host input without its last element");
    assert!(out.iter().all(|&b| b == SENTINEL), "a refused call wrote output bytes");
    slice1(&plan, &input[..read_end], &mut out[..write_end]).unwrap_or_else(|e| panic!("exact host slices: {e}"));
    let mut out = vec![SENTINEL; out_len];
    let short = Binding { offset: 0, size_in_bytes: out_total as u64 - 1 };
    let r = slice1_bound(&plan, input, Binding::whole(in_total), &mut out, short, &ExecOptions::default());
    assert!(r.is_err(), "accepted an output binding below TotalTensorSizeInBytes");
    assert!(out.iter().all(|&b| b == SENTINEL), "a refused call wrote output bytes");
}

/// Properties of an accepted plan that hold whatever the buffers.
fn check_plan(plan: &Slice1Plan, desc: &Slice1Desc) {
    assert_eq!(plan.output_sizes(), &desc.output.sizes[..]);
    assert_eq!(plan.input().total_tensor_size_in_bytes(), desc.input.total_tensor_size_in_bytes);
    assert_eq!(plan.output().total_tensor_size_in_bytes(), desc.output.total_tensor_size_in_bytes);
    assert!(plan.input().min_size_in_bytes() <= desc.input.total_tensor_size_in_bytes);
    assert!(plan.output().min_size_in_bytes() <= desc.output.total_tensor_size_in_bytes);
    assert!(!plan.output().is_overlapping(), "D1: an accepted output overlaps");
    let element_size = plan.element_size() as u64;
    assert!(matches!(element_size, 1 | 2 | 4 | 8));
    // Every element read and written lies inside its tensor's physical extent: the lowest and the highest offset
    // over the copy's box, each dimension contributing at its first or its last output coordinate.
    let (mut in_lo, mut in_hi) = (i128::from(plan.input_start()), i128::from(plan.input_start()));
    let (mut out_lo, mut out_hi) = (0i128, 0i128);
    for (d, &n) in plan.output_sizes().iter().enumerate() {
        let steps = i128::from(n) - 1;
        let (i, o) = (steps * i128::from(plan.input_strides()[d]), steps * i128::from(plan.output_strides()[d]));
        in_lo += i.min(0);
        in_hi += i.max(0);
        out_lo += o.min(0);
        out_hi += o.max(0);
    }
    let in_extent = i128::from(plan.input().physical_extent());
    let out_extent = i128::from(plan.output().physical_extent());
    assert!(0 <= in_lo && in_hi < in_extent, "plan reads outside the input: [{in_lo}, {in_hi}] of {in_extent}");
    assert!(0 <= out_lo && out_hi < out_extent, "plan writes outside the output: [{out_lo}, {out_hi}] of {out_extent}");
}

fuzz_target!(|case: Case| run(case));
