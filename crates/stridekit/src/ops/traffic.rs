//! Memory traffic of a copy, independent of any device: the distinct 64-byte cache lines a [`Slice1Plan`] reads and
//! the lines it writes. This is what the memory system must move whatever the kernels do, so a benchmark can judge a
//! strided copy against the lines it touches (a stride-3 gather of 4-byte elements reads every input line) instead
//! of against a contiguous copy of its useful bytes.
//!
//! Both buffers are assumed to start on a cache line (a `CpuBuffer` does; DirectML guarantees only 16 bytes, which
//! changes the counts by at most one line per row). Elements never straddle lines: every offset is a multiple of the
//! element size (1, 2, 4 or 8 bytes), which divides 64.
//!
//! # How the lines are counted without enumerating elements
//!
//! Each side is a set of element offsets `start + sum(i_k * s_k)`. Broadcast (stride 0) and single-element
//! dimensions do not change the set and are dropped; negative strides are flipped (the set is the same, walked the
//! other way); dimensions are ordered by stride and merged where contiguous. With `L = 64 / element size` elements
//! per line, the lines of a block of dimensions placed at base `b` depend only on `b mod L`. So:
//!
//! - the innermost dimension (`n` elements `s` apart) touches `n` lines when `s >= L`, and every line from its first
//!   to its last element otherwise; such a dense run absorbs the next dimensions while their copies leave no line
//!   out between them (pixels of 3 bytes 4 bytes apart, rows that meet inside a line);
//! - an outer dimension whose copies of the block inside it can never share a line (checked for every residue its
//!   bases take) multiplies: the count is the sum, over the residues of the outer bases (a histogram of `L` bins,
//!   built by convolution), of the inner block's count at that residue;
//! - the dimensions inside the outermost one whose copies may share lines (rows of a gather that meet in a line,
//!   overlapping input strides) are counted exactly on a bitmap of their lines, once per residue.
//!
//! The result is exact unless that bitmap would exceed a fixed budget (`Traffic::exact` is then `false`): the count
//! is then the upper bound that treats every row as disjoint, capped at the lines between the first and last
//! element.

use crate::Slice1Plan;

/// The cache line size the counts use, in bytes.
pub const CACHE_LINE_BYTES: u64 = 64;

/// Work (bitmap bits plus rows marked) above which a side is bounded instead of counted exactly, by
/// [`Traffic::of_slice1`] and [`lines_touched`] (at most 16 MiB of bitmap). A caller that counts on every call takes
/// a smaller budget with [`Traffic::of_slice1_within`].
pub const EXACT_BUDGET: u64 = 1 << 27;

/// The cache lines a copy reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Traffic {
    /// Distinct 64-byte lines of the input that hold an element the copy reads.
    pub lines_read: u64,
    /// Distinct 64-byte lines of the output that hold an element the copy writes.
    pub lines_written: u64,
    /// `false` when a count is the documented upper bound rather than exact.
    pub exact: bool,
}

impl Traffic {
    /// The traffic of `plan`, with both buffers starting on a cache line.
    pub fn of_slice1(plan: &Slice1Plan) -> Traffic {
        Traffic::of_slice1_within(plan, EXACT_BUDGET)
    }

    /// [`of_slice1`](Self::of_slice1) with at most `budget` units of work (bitmap words and rows marked) for each
    /// side's exact count; beyond it that side is the upper bound and `exact` is `false`. The work, and the bitmap's
    /// memory, are bounded by the budget whatever the plan: the CPU planner counts every plan it compiles this way.
    pub fn of_slice1_within(plan: &Slice1Plan, budget: u64) -> Traffic {
        let e = plan.element_size() as u64;
        let sizes = plan.output_sizes();
        let dims = |strides: &[i64]| -> Vec<(u64, i64)> {
            sizes.iter().zip(strides).map(|(&n, &s)| (u64::from(n), s)).collect()
        };
        let read = lines_touched_within(e, plan.input_start(), &dims(plan.input_strides()), budget);
        let written = lines_touched_within(e, 0, &dims(plan.output_strides()), budget);
        Traffic { lines_read: read.lines, lines_written: written.lines, exact: read.exact && written.exact }
    }

    /// Bytes the memory system moves: `(lines_read + lines_written) x 64`.
    pub fn bytes(&self) -> u64 {
        (self.lines_read + self.lines_written) * CACHE_LINE_BYTES
    }
}

/// The lines of one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCount {
    /// Distinct lines (or the upper bound when not exact).
    pub lines: u64,
    /// Whether `lines` is exact.
    pub exact: bool,
}

/// The distinct 64-byte lines holding the elements at offsets `start + sum(i_k * stride_k)` for `0 <= i_k < size_k`
/// (offsets in elements of `element_size` bytes, a power of two up to 64; `dims` as `(size, stride)`, any order).
/// The smallest offset must not be negative. An empty dimension (size 0) means no element and no line.
pub fn lines_touched(element_size: u64, start: u64, dims: &[(u64, i64)]) -> LineCount {
    lines_touched_within(element_size, start, dims, EXACT_BUDGET)
}

/// [`lines_touched`] with at most `budget` units of work for the exact count (bitmap words and rows marked, per
/// residue of the line the rows start at); beyond it the result is the upper bound, `exact: false`.
pub fn lines_touched_within(element_size: u64, start: u64, dims: &[(u64, i64)], budget: u64) -> LineCount {
    assert!(element_size.is_power_of_two() && element_size <= CACHE_LINE_BYTES, "element size {element_size}");
    if dims.iter().any(|&(n, _)| n == 0) {
        return LineCount { lines: 0, exact: true };
    }
    let l = CACHE_LINE_BYTES / element_size;
    // Canonical form: positive strides, largest first, contiguous pairs merged. (start, n, stride) in u64.
    let mut base = i128::from(start);
    let mut ds: Vec<(u64, u64)> = Vec::with_capacity(dims.len());
    for &(n, s) in dims {
        if n <= 1 || s == 0 {
            continue;
        }
        if s < 0 {
            base += i128::from(s) * i128::from(n - 1);
        }
        ds.push((n, s.unsigned_abs()));
    }
    let start = u64::try_from(base).expect("lines_touched: an element offset is negative");
    ds.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.cmp(&a.0)));
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ds.len());
    for (n, s) in ds {
        if let Some(last) = merged.last_mut()
            && last.1 == s.saturating_mul(n)
        {
            *last = (last.0 * n, s);
            continue;
        }
        merged.push((n, s));
    }
    // Inside out from here on: dims[0] is the innermost.
    merged.reverse();
    let dims = merged;
    if dims.is_empty() {
        return LineCount { lines: 1, exact: true };
    }
    // spans[k]: elements from the first to the last offset of the block of dims[..k].
    let mut spans = vec![0u64; dims.len() + 1];
    for (k, &(n, s)) in dims.iter().enumerate() {
        spans[k + 1] = spans[k] + (n - 1) * s;
    }
    // The row: the innermost dimension, one line per element when its stride is a line or more; otherwise a dense
    // run of lines, which absorbs the next dimensions while their copies leave no line out between them.
    let (n0, s0) = dims[0];
    let mut row = if s0 >= l { Row::Points(n0, s0) } else { Row::Dense(spans[1]) };
    let mut first_middle = 1;
    while let Row::Dense(span) = row
        && first_middle < dims.len()
    {
        let (n, s) = dims[first_middle];
        let h = residues(l, start, &dims[first_middle..]);
        if !(0..l).all(|r| h[r as usize] == 0 || (r + s) / l <= (r + span) / l + 1) {
            break;
        }
        row = Row::Dense(span + (n - 1) * s);
        first_middle += 1;
    }
    // Outer dimensions, from the outermost inward, while their copies provably never share a line.
    let mut hist = residues(l, start, &[]);
    let mut first_outer = dims.len();
    while first_outer > first_middle {
        let k = first_outer - 1;
        let (n, s) = dims[k];
        let with_k = convolve(l, &hist, n, s);
        let disjoint = (0..l as usize).all(|r| with_k[r] == 0 || (r as u64 + spans[k]) / l < (r as u64 + s) / l);
        if !disjoint {
            break;
        }
        hist = with_k;
        first_outer = k;
    }
    let middle = &dims[first_middle..first_outer];
    let rows: u64 = middle.iter().map(|&(n, _)| n).product();
    let span_lines = spans[first_outer] / l + 2;
    let used = hist.iter().filter(|&&c| c > 0).count() as u64;
    let work = used.saturating_mul(span_lines.saturating_add(rows.saturating_mul(row.work(l))));
    if middle.is_empty() || work <= budget {
        let lines =
            (0..l).filter(|&r| hist[r as usize] > 0).map(|r| hist[r as usize] * block_lines(l, r, row, middle)).sum();
        return LineCount { lines, exact: true };
    }
    // Bound: every row disjoint, capped at the lines the whole set spans.
    let mut row_hist = hist;
    for &(n, s) in middle {
        row_hist = convolve(l, &row_hist, n, s);
    }
    let sum: u64 = (0..l).map(|r| row_hist[r as usize] * row.lines(l, r)).sum();
    let all = (start + spans[dims.len()]) / l - start / l + 1;
    LineCount { lines: sum.min(all), exact: false }
}

/// The innermost run of a block.
#[derive(Debug, Clone, Copy)]
enum Row {
    /// Every line from the first element to `span` elements further.
    Dense(u64),
    /// `n` elements `s >= L` apart: one line each.
    Points(u64, u64),
}

impl Row {
    /// Lines of the row starting at residue `r` of a line.
    fn lines(self, l: u64, r: u64) -> u64 {
        match self {
            Row::Dense(span) => (r + span) / l + 1,
            Row::Points(n, _) => n,
        }
    }

    /// Bitmap operations to mark the row.
    fn work(self, l: u64) -> u64 {
        match self {
            Row::Dense(span) => 1 + span / l / 64,
            Row::Points(n, _) => n,
        }
    }

    /// Marks the row's lines for a row starting at element `base`.
    fn mark(self, l: u64, base: u64, bits: &mut [u64]) {
        match self {
            Row::Dense(span) => set_range(bits, base / l, (base + span) / l),
            Row::Points(n, s) => {
                for i in 0..n {
                    let line = (base + i * s) / l;
                    bits[(line / 64) as usize] |= 1 << (line % 64);
                }
            }
        }
    }

    /// Elements from the first to the last element of the row.
    fn span(self) -> u64 {
        match self {
            Row::Dense(span) => span,
            Row::Points(n, s) => (n - 1) * s,
        }
    }
}

/// Exact lines of `row` repeated over the `middle` dimensions (innermost first), the whole placed at residue `r`,
/// by marking a bitmap of its lines.
fn block_lines(l: u64, r: u64, row: Row, middle: &[(u64, u64)]) -> u64 {
    if middle.is_empty() {
        return row.lines(l, r);
    }
    let span = row.span() + middle.iter().map(|&(n, s)| (n - 1) * s).sum::<u64>();
    let mut bits = vec![0u64; ((r + span) / l / 64 + 1) as usize];
    let mut idx = vec![0u64; middle.len()];
    let mut base = r;
    loop {
        row.mark(l, base, &mut bits);
        // Odometer over the middle dimensions.
        let mut k = 0;
        loop {
            if k == middle.len() {
                return bits.iter().map(|w| u64::from(w.count_ones())).sum();
            }
            idx[k] += 1;
            base += middle[k].1;
            if idx[k] < middle[k].0 {
                break;
            }
            base -= middle[k].1 * middle[k].0;
            idx[k] = 0;
            k += 1;
        }
    }
}

/// Sets bits `first..=last`.
fn set_range(bits: &mut [u64], first: u64, last: u64) {
    let (fw, lw) = ((first / 64) as usize, (last / 64) as usize);
    let lo = !0u64 << (first % 64);
    let hi = !0u64 >> (63 - last % 64);
    if fw == lw {
        bits[fw] |= lo & hi;
    } else {
        bits[fw] |= lo;
        bits[fw + 1..lw].iter_mut().for_each(|w| *w = !0);
        bits[lw] |= hi;
    }
}

/// The histogram (over residues mod `l`) of `start + sum(i_k * s_k)`.
fn residues(l: u64, start: u64, dims: &[(u64, u64)]) -> Vec<u64> {
    let mut h = vec![0u64; l as usize];
    h[(start % l) as usize] = 1;
    for &(n, s) in dims {
        h = convolve(l, &h, n, s);
    }
    h
}

/// `h` shifted by `i * s` for every `0 <= i < n`, summed.
fn convolve(l: u64, h: &[u64], n: u64, s: u64) -> Vec<u64> {
    // i * s mod l repeats with period p = l / gcd(s, l); count the i of each class in 0..n.
    let p = l / gcd(s % l, l);
    let mut step = vec![0u64; l as usize];
    for i in 0..p.min(n) {
        step[((i * s) % l) as usize] += (n - i).div_ceil(p);
    }
    let mut out = vec![0u64; l as usize];
    for (r, &c) in h.iter().enumerate().filter(|(_, c)| **c > 0) {
        for (t, &m) in step.iter().enumerate().filter(|(_, m)| **m > 0) {
            out[(r + t) % l as usize] += c * m;
        }
    }
    out
}

fn gcd(a: u64, b: u64) -> u64 {
    if a == 0 { b } else { gcd(b % a, a) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// Every element, every line: the definition.
    fn brute(e: u64, start: u64, dims: &[(u64, i64)]) -> u64 {
        let mut offsets = vec![i128::from(start)];
        for &(n, s) in dims {
            offsets = offsets.iter().flat_map(|&o| (0..n).map(move |i| o + i128::from(i) * i128::from(s))).collect();
        }
        offsets.iter().map(|&o| (o as u64) * e / CACHE_LINE_BYTES).collect::<BTreeSet<_>>().len() as u64
    }

    fn check(e: u64, start: u64, dims: &[(u64, i64)]) {
        let got = lines_touched(e, start, dims);
        assert!(got.exact, "{e} {start} {dims:?}");
        assert_eq!(got.lines, brute(e, start, dims), "e {e} start {start} dims {dims:?}");
    }

    #[test]
    fn common_shapes() {
        // Contiguous 4 KiB of f32, aligned and not.
        check(4, 0, &[(1024, 1)]);
        check(4, 3, &[(1024, 1)]);
        // Stride-3 gather over back-to-back rows (rows meet inside lines), and stride 2.
        check(4, 1, &[(64, 3072), (1024, 3)]);
        check(4, 0, &[(64, 4096), (2048, 2)]);
        // Every other row of 2 KiB, rows in reverse order, reversed inner.
        check(4, 0, &[(32, 1024), (512, 1)]);
        check(1, 127 * 128, &[(128, -128), (100, 1)]);
        check(2, 500, &[(10, 64), (50, -1)]);
        // Channel-last output (planes to pixels), broadcast input, overlapping input strides.
        check(1, 0, &[(3, 1), (8, 120), (40, 3)]);
        check(4, 0, &[(4, 0), (3, 0), (5, 0), (256, 1)]);
        check(4, 0, &[(50, 1), (50, 1)]);
        // Large inner stride: one line per element; huge outer stride.
        check(8, 5, &[(7, 100_000), (300, 9)]);
        check(1, 0, &[(4, 1_000_000_000), (4, 1)]);
        // Single elements and empty sets.
        check(8, 77, &[]);
        check(8, 77, &[(1, 5), (1, -3)]);
        assert_eq!(lines_touched(4, 0, &[(0, 1), (4, 1)]), LineCount { lines: 0, exact: true });
    }

    #[test]
    fn large_sets_are_counted_without_enumerating() {
        // 512 MiB of u8 pixels of 3 bytes, 4 apart: rows that share lines, absorbed into one dense run.
        let c = lines_touched(1, 0, &[(1 << 27, 4), (3, 1)]);
        assert_eq!(c, LineCount { lines: (1u64 << 29) / 64, exact: true });
        // The same pixels a line apart: disjoint rows, counted by residue.
        let c = lines_touched(1, 0, &[(1 << 23, 64), (3, 1)]);
        assert_eq!(c, LineCount { lines: 1 << 23, exact: true });
        // Every other 4 KiB row of 256 MiB.
        let c = lines_touched(4, 0, &[(1 << 14, 2048), (1024, 1)]);
        assert_eq!(c, LineCount { lines: (1 << 14) * 64, exact: true });
    }

    #[test]
    fn over_budget_is_an_upper_bound() {
        // f64 elements a line apart (one line each), 2^14 rows of 2^14 of them overlapping at stride 9: beyond the
        // budget. Offset 8a + 9b is in line a + b + b / 8: every line up to the last one.
        let c = lines_touched(8, 0, &[(1 << 14, 9), (1 << 14, 8)]);
        assert!(!c.exact);
        assert_eq!(c.lines, (17 * ((1u64 << 14) - 1)) / 8 + 1);
        // A smaller budget bounds sets that the default counts: 2^9 rows of 2^9 such elements.
        let dims = [(1 << 9, 9), (1 << 9, 8)];
        let exact = lines_touched(8, 0, &dims);
        assert!(exact.exact);
        assert_eq!(exact.lines, brute(8, 0, &dims));
        let bounded = lines_touched_within(8, 0, &dims, 1 << 16);
        assert!(!bounded.exact && bounded.lines >= exact.lines);
        assert_eq!(bounded.lines, (17 * ((1u64 << 9) - 1)) / 8 + 1);
    }

    #[test]
    fn plan_traffic() {
        use crate::{BufferTensorDesc, DataType, Slice1Desc};
        // Stride-3 gather of f32 over 64 rows of 3072: every input line is read, a third of them written.
        let desc = Slice1Desc {
            input: BufferTensorDesc::packed(DataType::Float32, &[64, 3072]).unwrap(),
            output: BufferTensorDesc::packed(DataType::Float32, &[64, 1024]).unwrap(),
            input_window_offsets: vec![0, 0],
            input_window_sizes: vec![64, 3072],
            input_window_strides: vec![1, 3],
        };
        let t = Traffic::of_slice1(&desc.validate().unwrap());
        assert_eq!(t, Traffic { lines_read: 64 * 3072 / 16, lines_written: 64 * 1024 / 16, exact: true });
        assert_eq!(t.bytes(), 64 * 4096 * 4);
    }

    fn dims_strategy() -> impl Strategy<Value = (u64, u64, Vec<(u64, i64)>)> {
        (0u32..4, 0u64..200, prop::collection::vec((1u64..9, -300i64..300), 0..5)).prop_map(|(ez, pad, dims)| {
            let e = 1u64 << ez;
            // Start far enough in that negative strides stay at or above offset 0.
            let neg: u64 = dims.iter().map(|&(n, s)| if s < 0 { (n - 1) * s.unsigned_abs() } else { 0 }).sum();
            (e, neg + pad, dims)
        })
    }

    proptest! {
        #[test]
        fn matches_brute_force((e, start, dims) in dims_strategy()) {
            let got = lines_touched(e, start, &dims);
            prop_assert!(got.exact);
            prop_assert_eq!(got.lines, brute(e, start, &dims));
        }
    }
}
