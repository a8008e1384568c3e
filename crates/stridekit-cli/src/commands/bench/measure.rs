//! Timing and verifying one case.

use super::roofline::{self, Best, Class, CopyBaseline};
use crate::error::CliError;
use std::time::Instant;
use stridekit::ops::case::Slice1Case;
use stridekit::ops::traffic::Traffic;
use stridekit::{DataType, Slice1Desc, Slice1Plan};
use stridekit_cpu::{CpuBuffer, ExecOptions, PreparedSlice1};

/// The measurements of one case.
#[derive(Debug, Clone)]
pub struct Row {
    /// The case as run (for the worst-case list).
    pub case: Slice1Case,
    /// Seconds per call (median).
    pub median_s: f64,
    /// Output element bytes (the useful bytes written; as many are read).
    pub out_bytes: u64,
    /// Lines the copy must move.
    pub traffic: Traffic,
    /// The best copy over the same bytes.
    pub copy: Best,
    /// `copy time for the lines / median_s`.
    pub roofline: f64,
    /// Threads stridekit used (the prepared operator's own decision, not the pool's size).
    pub threads: usize,
    /// The kernel the CPU planner chose for the innermost loops ([`PreparedSlice1::kernel`]).
    pub kernel: &'static str,
    /// The whole compiled program ([`PreparedSlice1::describe`]).
    pub plan: String,
    /// Whether the output equals the reference's.
    pub verified: bool,
    /// `Some(true)` when the case's `expect` matched, `Some(false)` when not, `None` without one.
    pub expect_ok: Option<bool>,
    /// How the case and its copy were timed.
    pub timing: Timing,
}

/// How `bench` times a case and its baseline copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timing {
    /// Samples of the case and of the copy alternate, so that a change in the machine's load touches both and each
    /// evicts the other's lines alike (the default: the roofline compares them under the same conditions).
    Interleaved,
    /// The case's samples back to back, then the copy's, as the peer harness (`../shared/bench`) times NumPy,
    /// ndarray and its memcpy: a case's buffers stay as warm as repeating it leaves them, so a copy whose source
    /// and destination fit the last-level cache reads them from there (in the alternation the copy evicts them).
    /// For comparisons with the peers' figures.
    BackToBack,
}

impl Timing {
    /// The name in the JSON lines.
    pub fn name(self) -> &'static str {
        match self {
            Timing::Interleaved => "interleaved",
            Timing::BackToBack => "back-to-back",
        }
    }
}

impl Row {
    /// GB/s counting useful bytes read plus written (2 x output element bytes), as the peers count.
    pub fn gbps(&self) -> f64 {
        2.0 * self.out_bytes as f64 / self.median_s / 1e9
    }

    /// The size class.
    pub fn class(&self) -> Class {
        Class::of(self.out_bytes)
    }

    /// Verified against the reference and, when given, the expectation.
    pub fn ok(&self) -> bool {
        self.verified && self.expect_ok != Some(false)
    }
}

/// Bytes a case needs in memory at once: input, output, the reference's output, and the copy baseline's two buffers.
pub fn memory_needed(desc: &Slice1Desc, traffic: &Traffic) -> u64 {
    desc.input.total_tensor_size_in_bytes
        + 2 * desc.output.total_tensor_size_in_bytes
        + baseline_bytes(traffic).saturating_mul(2)
        + 3 * 64
}

/// The size of the baseline copy: half the bytes the case moves, so that the copy moves as many lines.
pub fn baseline_bytes(traffic: &Traffic) -> u64 {
    traffic.bytes() / 2
}

/// Calls `f` in batches so that each batch lasts at least about a millisecond; returns the median seconds per call
/// over `reps` batches.
pub fn time_per_call(reps: usize, mut f: impl FnMut()) -> f64 {
    let batch = batch_size(&mut f);
    let mut samples: Vec<f64> = (0..reps).map(|_| sample(batch, &mut f)).collect();
    median(&mut samples)
}

/// Like [`time_per_call`] for two functions, sampled alternately so that a change in the machine's load touches
/// both: the medians of `a` and of `b`.
pub fn time_interleaved(reps: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let medians = time_alternating(reps, &mut [&mut a, &mut b]);
    (medians[0], medians[1])
}

/// [`time_interleaved`] for any number of functions: each sampled in turn, `reps` rounds; their medians.
pub fn time_alternating(reps: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let batches: Vec<usize> = fs.iter_mut().map(batch_size).collect();
    let mut samples: Vec<Vec<f64>> = fs.iter().map(|_| Vec::with_capacity(reps)).collect();
    for _ in 0..reps {
        for ((f, &batch), s) in fs.iter_mut().zip(&batches).zip(&mut samples) {
            s.push(sample(batch, f));
        }
    }
    samples.iter_mut().map(|s| median(s)).collect()
}

/// The geometric mean of `values` (NaN when there are none): the mean of ratios, in `bench`'s distributions and
/// in `calibrate`.
pub fn geometric_mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, n) = values.into_iter().fold((0.0, 0usize), |(sum, n), x| (sum + x.ln(), n + 1));
    (sum / n as f64).exp()
}

fn batch_size(f: &mut impl FnMut()) -> usize {
    let start = Instant::now();
    f();
    let once = start.elapsed().as_secs_f64().max(1e-9);
    ((1e-3 / once).ceil() as usize).clamp(1, 1 << 22)
}

fn sample(batch: usize, f: &mut impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..batch {
        f();
    }
    t.elapsed().as_secs_f64() / batch as f64
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Fills the input elements `plan` reads with the case files' pattern, or the whole buffer when the plan reads most
/// of it. Elements the plan never reads stay zero and their pages are never touched, so that a slice of a few
/// elements over a padded input of gigabytes costs neither the time nor the resident memory of the whole extent
/// (the buffer comes from a zeroed allocation, which the OS maps lazily).
pub fn fill_read_elements(buf: &mut [u8], plan: &Slice1Plan) {
    let e = plan.element_size() as u64;
    if plan.element_count().saturating_mul(e).saturating_mul(2) >= buf.len() as u64 {
        return fill_input(buf, plan.data_type());
    }
    let norm = plan.normalized();
    let dims = norm.dims();
    let (outer, inner) = dims.split_at(dims.len() - 1);
    let inner = inner[0];
    let mut idx = vec![0u64; outer.len()];
    let mut base = norm.input_start() as i64;
    loop {
        for i in 0..inner.size {
            let at = (base + i as i64 * inner.input_stride) as u64;
            let e = e as usize;
            let start = at as usize * e;
            write_element(&mut buf[start..start + e], plan.data_type(), at);
        }
        let mut k = outer.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            base += outer[k].input_stride;
            if idx[k] < outer[k].size {
                break;
            }
            base -= outer[k].input_stride * outer[k].size as i64;
            idx[k] = 0;
        }
    }
}

/// Writes the pattern value of physical element `i` into `chunk` (one element).
fn write_element(chunk: &mut [u8], dt: DataType, i: u64) {
    let e = chunk.len();
    match dt {
        DataType::Float32 => chunk.copy_from_slice(&(((i % 16_777_213) + 1) as f32).to_le_bytes()),
        DataType::Float16 => chunk.copy_from_slice(&half::f16::from_f32(((i % 2039) + 1) as f32).to_le_bytes()),
        DataType::Uint8 => chunk[0] = ((i % 251) + 1) as u8,
        DataType::Int64 => chunk.copy_from_slice(&((i + 1) as i64).wrapping_mul(1_000_003).to_le_bytes()),
        _ => chunk.copy_from_slice(&(i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes()[..e]),
    }
}

/// Fills `buf` with the case files' input pattern ([`Slice1Case::input_value`]; other types: the low bytes of
/// `(i + 1) * 0x9E3779B97F4A7C15`).
pub fn fill_input(buf: &mut [u8], dt: DataType) {
    let e = dt.size_in_bytes_rounded_up() as usize;
    for (i, chunk) in buf.chunks_exact_mut(e).enumerate() {
        write_element(chunk, dt, i as u64);
    }
}

/// The value of one element's little-endian bytes.
fn decode(dt: DataType, b: &[u8]) -> f64 {
    let a = |n: usize| -> [u8; 8] {
        let mut x = [0u8; 8];
        x[..n].copy_from_slice(&b[..n]);
        x
    };
    match dt {
        DataType::Float32 => f32::from_le_bytes(b[..4].try_into().unwrap_or_default()) as f64,
        DataType::Float16 => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
        DataType::Float64 => f64::from_le_bytes(a(8)),
        DataType::Uint8 => b[0] as f64,
        DataType::Int8 => b[0] as i8 as f64,
        DataType::Uint16 => u16::from_le_bytes([b[0], b[1]]) as f64,
        DataType::Int16 => i16::from_le_bytes([b[0], b[1]]) as f64,
        DataType::Uint32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        DataType::Int32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        DataType::Uint64 => u64::from_le_bytes(a(8)) as f64,
        _ => i64::from_le_bytes(a(8)) as f64,
    }
}

/// Compares the output's elements in logical order with `expect`: `Ok(())` or the first difference as text.
pub fn check_expect(plan: &Slice1Plan, output: &[u8], expect: &[f64]) -> Result<(), String> {
    let e = plan.element_size();
    let sizes = plan.output_sizes();
    let strides = plan.output_strides();
    let mut coords = vec![0u32; sizes.len()];
    for (i, &want) in expect.iter().enumerate() {
        let offset: i64 = coords.iter().zip(strides).map(|(&c, &s)| i64::from(c) * s).sum();
        let at = offset as usize * e;
        let got = decode(plan.data_type(), &output[at..at + e]);
        if got != want && !(got.is_nan() && want.is_nan()) {
            return Err(format!("output element {i} is {got} but \"expect\" says {want}"));
        }
        for d in (0..coords.len()).rev() {
            coords[d] += 1;
            if coords[d] < sizes[d] {
                break;
            }
            coords[d] = 0;
        }
    }
    Ok(())
}

/// Runs one case: compile, fill, run once, verify (reference and `expect`), pick the best copy, then time the case
/// and that copy as `timing` says (alternately by default).
pub fn bench_case(
    case: &Slice1Case,
    desc: &Slice1Desc,
    plan: &Slice1Plan,
    options: &ExecOptions,
    reps: usize,
    timing: Timing,
) -> Result<Row, CliError> {
    let traffic = Traffic::of_slice1(plan);
    let op = PreparedSlice1::new(plan, options.clone())?;
    let mut input = CpuBuffer::zeroed(desc.input.total_tensor_size_in_bytes as usize);
    fill_read_elements(input.as_bytes_mut(), plan);
    let out_len = desc.output.total_tensor_size_in_bytes as usize;
    let mut output = CpuBuffer::zeroed(out_len);
    op.execute(input.as_bytes(), output.as_bytes_mut())?;
    let mut expected = vec![0u8; out_len];
    stridekit::reference::slice1_reference(desc, input.as_bytes(), &mut expected)
        .map_err(|e| CliError::Args(e.to_string()))?;
    let verified = output.as_bytes() == expected.as_slice();
    drop(expected);
    let expect_ok = case.expect.as_deref().map(|x| match check_expect(plan, output.as_bytes(), x) {
        Ok(()) => true,
        Err(why) => {
            eprintln!("  {}: {why}", super::report::escape(&case.name));
            false
        }
    });
    let mut baseline = CopyBaseline::new(baseline_bytes(&traffic))?;
    // Pick the fastest copy on a few samples, then time it as the case is timed.
    let kind = baseline.fastest((reps / 3).max(3));
    // Checked by the first run: later runs of the same op on the same buffers cannot fail.
    let mut case_call = || {
        let _ = op.execute(input.as_bytes(), output.as_bytes_mut());
    };
    let (median_s, copy_s) = match timing {
        Timing::Interleaved => time_interleaved(reps, case_call, || baseline.run(kind)),
        Timing::BackToBack => (time_per_call(reps, &mut case_call), time_per_call(reps, || baseline.run(kind))),
    };
    // The copy's time is its median timed as the case was: in the alternation, where the case and the copy evict
    // each other's lines alike, or back to back, both as warm as repeating them leaves them. The picking samples
    // ran back to back, with the copy's buffers still in the cache from the previous sample: crediting the copy
    // with those (as this bench did until 2026-11-25) judged a case against a copy warmer than any it ran beside
    // (a 6.6 MiB contiguous copy of stridekit's own kernel measured 0.5-0.8 of it).
    let copy = baseline.best_of(kind, copy_s);
    Ok(Row {
        case: case.clone(),
        median_s,
        out_bytes: plan.element_count() * plan.element_size() as u64,
        traffic,
        roofline: roofline::ratio(traffic.bytes(), &copy, median_s),
        copy,
        threads: op.threads(),
        kernel: op.kernel(),
        plan: op.describe(),
        verified,
        expect_ok,
        timing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_fill_writes_exactly_the_elements_read() {
        // Every other row of a padded input, reversed columns: the plan reads 3 x 4 of 10 x 16 elements.
        let case = Slice1Case {
            name: "s".into(),
            dtype: DataType::Float16,
            in_sizes: vec![10, 16],
            in_strides: Some(vec![40, 1]),
            window_offsets: vec![1, 2],
            window_sizes: vec![5, 4],
            window_strides: vec![2, -1],
            out_sizes: vec![3, 4],
            out_strides: None,
            note: None,
            expect: None,
        };
        let desc = case.desc().unwrap();
        let plan = desc.validate().unwrap();
        let mut sparse = vec![0u8; desc.input.total_tensor_size_in_bytes as usize];
        fill_read_elements(&mut sparse, &plan);
        let mut full = sparse.clone();
        fill_input(&mut full, DataType::Float16);
        let (mut a, mut b) = (vec![0u8; 24], vec![0u8; 24]);
        stridekit::reference::slice1_reference(&desc, &sparse, &mut a).unwrap();
        stridekit::reference::slice1_reference(&desc, &full, &mut b).unwrap();
        assert_eq!(a, b, "the elements read hold the pattern");
        let written = sparse.chunks(2).filter(|c| c != &[0, 0]).count();
        assert_eq!(written, 12, "nothing else is touched");
    }

    #[test]
    fn fill_matches_the_documented_pattern() {
        for dt in [DataType::Float32, DataType::Float16, DataType::Uint8, DataType::Int64] {
            let e = dt.size_in_bytes_rounded_up() as usize;
            let mut buf = vec![0u8; 300 * e];
            fill_input(&mut buf, dt);
            for i in [0usize, 1, 250, 299] {
                let want = Slice1Case::input_value(dt, i as u64).unwrap();
                assert_eq!(decode(dt, &buf[i * e..(i + 1) * e]), want, "{dt} element {i}");
            }
        }
    }
}
