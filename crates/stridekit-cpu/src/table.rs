//! Small blocks as a table of source offsets: the plan for copies whose innermost dimension is only a few elements
//! long and not a plain contiguous run (a gather, a reversed run, a broadcast element, a run under a broadcast row).
//!
//! One kernel call per 2-8 elements cannot reach bandwidth: the loops around it cost more than its bytes. Here the
//! innermost dimensions whose destination is contiguous form a *block* (at most [`BLOCK_MAX_BYTES`]), the next
//! dimension is fused as the kernel's *rows*, and consecutive rows that are contiguous in the destination form a
//! *pass* of up to [`PASS_MAX_BYTES`]. The source offset of every element of one pass is computed once, when the
//! operator is prepared; a call then only walks the table. Where the source bytes of every 16 destination bytes of a
//! pass lie within a few 16-byte windows (reversed pixels, stride 2-4 gathers of 1-2 byte elements, short runs under
//! strided rows), the pass is also compiled to byte shuffles: per 16 destination bytes, one load and one `pshufb`
//! per window (x86 kernel in `kernels/x86/table.rs`).
//!
//! Everything here is safe code: it only computes numbers. The kernel (`kernels/portable/table.rs`) trusts them only
//! through the footprint check (every table offset lies in `[lo, hi)` of a pass, asserted at build time and
//! re-checked in debug builds) and the bounds of the windows, which [`Table::build`] proves (see [`Chunks`]).

/// The largest block, in destination bytes: small blocks are the ones that need a table.
pub(crate) const BLOCK_MAX_BYTES: usize = 256;
/// The largest pass, in destination bytes: its table and shuffle masks (up to 4 KiB + 5 KiB) stay in L1.
pub(crate) const PASS_MAX_BYTES: usize = 1024;
/// The most 16-byte source windows one 16-byte destination chunk may need for the shuffle path.
const MAX_WINDOWS: usize = 8;

/// A block's innermost dimension qualifies when it is at most this many bytes.
pub(crate) const SMALL_RUN_MAX_BYTES: usize = 64;

/// One pass of a table copy: `offsets[i]` is the source byte offset of destination element `i` (destination
/// offset `i * esize`), relative to the pass's source pointer. A pass covers `per` rows of `block` elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    pub offsets: Vec<i32>,
    /// The shuffle form of a full pass, when every chunk fits [`MAX_WINDOWS`] windows (and SIMD pays off).
    pub chunks: Option<Chunks>,
    /// Source offsets of one full pass at least a cache line apart that together cover (nearly) every line it
    /// reads, rising: the kernel prefetches the next pass's lines with them (rows a line or more apart defeat the
    /// hardware prefetcher; a pass reading 4 of every 12 lines backwards ran at 0.04 of the roofline). Empty when a
    /// pass reads few lines or many (its own loads then overlap enough, or the next pass would not fit L1).
    pub lines: Vec<i32>,
    /// The shuffle form of one row when each pass is one row (padded destination rows) of at most 32 bytes read
    /// from at most 16 (SIMD builds only).
    pub row_shuffle: Option<RowShuffle>,
}

/// One row of at most 32 destination bytes whose source bytes lie within 16 (its hull), for calls of one row per
/// pass (the destination rows are padded, so passes cannot join them): per row, one 16-byte load and one or two
/// `pshufb` and stores instead of a table walk per element (5 bytes of every 6 written, gathered from 9: one call
/// per row ran at 0.08 of the roofline). Mask byte `k` of `first` is the hull byte of destination byte `k` for
/// `k < width`, of `last` the hull byte of destination byte `bytes - width + k`; the two stores of `width` bytes
/// (the largest power of two at most `bytes`, at most 16) cover the row, overlapping when `bytes` is not a power of
/// two (a fill of 7 f32 into padded rows: two 16-byte stores 12 bytes apart).
/// Bytes with the top bit set contribute nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RowShuffle {
    pub bytes: usize,
    pub width: usize,
    pub first: [u8; 16],
    pub last: [u8; 16],
}

impl RowShuffle {
    /// The form for a row with these element offsets (`0 <= offset < hull` bytes), or `None` when the row is longer
    /// than 32 bytes (two 16-byte stores) or its source bytes span more than 16.
    fn build(offsets: &[i32], esize: usize, hull: usize) -> Option<RowShuffle> {
        let bytes = offsets.len() * esize;
        if bytes == 0 || bytes > 32 || hull > 16 {
            return None;
        }
        let source = |b: usize| -> Option<u8> { u8::try_from(offsets[b / esize] as usize + b % esize).ok() };
        let width = 1 << bytes.ilog2().min(4);
        let mut first = [0x80u8; 16];
        let mut last = [0x80u8; 16];
        for k in 0..width {
            first[k] = source(k)?;
            last[k] = source(bytes - width + k)?;
        }
        debug_assert!(first.iter().chain(&last).all(|&m| m & 0x80 != 0 || (m as usize) < hull));
        Some(RowShuffle { bytes, width, first, last })
    }
}

/// The shuffle form of one full pass of `pass_bytes` destination bytes (at least 16): chunk `c` writes the 16
/// destination bytes at `16 c`, except the last, which writes the last 16 bytes of the pass (overlapping its
/// predecessor when `pass_bytes` is not a multiple of 16; the overlap is written twice with the same values).
/// Its value is the OR over `w < windows` of `pshufb(load16(src + starts[c * windows + w]), masks[...])`; mask
/// bytes with the top bit set contribute zero. Every window `[start, start + 16)` lies inside the pass's source
/// interval `[lo, hi)` (asserted when built), which the kernel's footprint covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunks {
    pub windows: usize,
    pub starts: Vec<i32>,
    pub masks: Vec<[u8; 16]>,
}

/// A dimension as the planner sees it: `n` steps, strides in elements.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TDim {
    pub n: u64,
    pub src: i64,
    pub dst: i64,
}

/// The numbers of a table kernel call (they go into `Inner::Table`), and the table.
#[derive(Debug, Clone)]
pub(crate) struct TablePlan {
    /// Rows of the fused dimension (1 when there is none).
    pub rows: usize,
    /// Byte strides of the rows.
    pub row_src: isize,
    pub row_dst: isize,
    /// Rows per pass.
    pub per: usize,
    /// Elements per row (the block).
    pub block: usize,
    /// Bytes from the lowest to one past the highest source byte of one row's block.
    pub hull: usize,
    /// Elements from the block's first element (the one the plan starts at) down to its lowest source element:
    /// the kernel's source pointer is moved down by this many elements so that block offsets are >= 0.
    pub shift: i64,
    pub table: Table,
}

impl TablePlan {
    /// Plans a table copy over the innermost dimensions of `dims` (outermost first; the last one is the
    /// innermost), consuming the block dimensions and the fused row dimension from the end of `dims`. `None`
    /// (with `dims` untouched) when the numbers do not fit the table's 32-bit offsets.
    pub(crate) fn build(dims: &mut Vec<TDim>, esize: usize, simd: bool) -> Option<TablePlan> {
        Self::build_with(dims, esize, simd, true)
    }

    /// [`build`](Self::build) without the fused row dimension: one row per call, every dimension around the block
    /// left to the caller (which may take the next one as the table's partner instead).
    pub(crate) fn build_block(dims: &mut Vec<TDim>, esize: usize, simd: bool) -> Option<TablePlan> {
        Self::build_with(dims, esize, simd, false)
    }

    fn build_with(dims: &mut Vec<TDim>, esize: usize, simd: bool, fuse_rows: bool) -> Option<TablePlan> {
        let e = esize as i64;
        // The block: innermost dimensions while the destination stays contiguous and small.
        let mut take = 0;
        let mut block: u64 = 1;
        for d in dims.iter().rev() {
            let contiguous = d.dst == block as i64 || d.n == 1;
            let grown = block.checked_mul(d.n)?;
            if !contiguous || grown * esize as u64 > BLOCK_MAX_BYTES as u64 {
                break;
            }
            block = grown;
            take += 1;
        }
        if take == 0 {
            return None;
        }
        let block_dims = &dims[dims.len() - take..];
        // Source offsets of the block's elements, row-major (the destination order), in elements.
        let mut offsets = vec![0i64; block as usize];
        let mut len = 1usize;
        for d in block_dims.iter().rev() {
            // Element k of the block so far is element k of each step of d; steps are `len` apart.
            for step in 1..d.n as usize {
                for k in 0..len {
                    offsets[step * len + k] = offsets[k] + step as i64 * d.src;
                }
            }
            len *= d.n as usize;
        }
        let min = *offsets.iter().min()?;
        let max = *offsets.iter().max()?;
        let hull = (max - min + 1).checked_mul(e)?;
        let rows_dim = if fuse_rows && dims.len() > take { Some(dims[dims.len() - take - 1]) } else { None };
        let (rows, row_src, row_dst) = match rows_dim {
            Some(d) => (d.n, d.src.checked_mul(e)?, d.dst.checked_mul(e)?),
            None => (1, 0, 0),
        };
        let block_bytes = block as i64 * e;
        let contiguous_rows = row_dst == block_bytes || rows == 1;
        let mut per = if contiguous_rows { (PASS_MAX_BYTES as u64 / block_bytes as u64).clamp(1, rows) } else { 1 };
        // The offsets of a pass must fit i32: |(per - 1) row_src| + hull.
        let fits = |per: u64| -> bool {
            (per as i128 - 1) * (row_src.unsigned_abs() as i128) + hull as i128 <= i32::MAX as i128
        };
        while per > 1 && !fits(per) {
            per /= 2;
        }
        if !fits(per) {
            return None;
        }
        let table_offsets: Vec<i32> =
            (0..per as i64).flat_map(|r| offsets.iter().map(move |&o| (r * row_src + (o - min) * e) as i32)).collect();
        let pass_bytes = per as usize * block as usize * esize;
        let (lo, hi) = pass_interval(per as usize, row_src as isize, hull as usize);
        debug_assert!(table_offsets.iter().all(|&o| lo <= o as isize && o as isize + esize as isize <= hi));
        let chunks = if simd { Chunks::build(&table_offsets, esize, pass_bytes, lo, hi) } else { None };
        let plan = TablePlan {
            rows: usize::try_from(rows).ok()?,
            row_src: isize::try_from(row_src).ok()?,
            row_dst: isize::try_from(row_dst).ok()?,
            per: per as usize,
            block: block as usize,
            hull: usize::try_from(hull).ok()?,
            shift: min,
            table: Table {
                lines: prefetch_lines(&table_offsets, esize),
                row_shuffle: if simd && per == 1 {
                    RowShuffle::build(&table_offsets, esize, hull as usize)
                } else {
                    None
                },
                offsets: table_offsets,
                chunks,
            },
        };
        dims.truncate(dims.len() - take - usize::from(rows_dim.is_some()));
        Some(plan)
    }
}

/// The fewest lines a pass must read for [`Table::lines`] to prefetch them, and the most (256 lines: 16 KiB, half
/// of L1).
const PREFETCH_MIN_LINES: usize = 4;
const PREFETCH_MAX_LINES: usize = 256;

/// [`Table::lines`] of a pass with these element offsets: a greedy cover of the sorted element bytes by 64-byte
/// spans, each starting at its lowest uncovered byte (a span may straddle two lines, so a line can be missed:
/// prefetches are hints).
fn prefetch_lines(offsets: &[i32], esize: usize) -> Vec<i32> {
    let mut sorted = offsets.to_vec();
    sorted.sort_unstable();
    let mut lines: Vec<i32> = Vec::new();
    for o in sorted {
        let last = o.saturating_add(esize as i32 - 1);
        if lines.last().is_none_or(|&l| last >= l.saturating_add(64)) {
            lines.push(o);
            if lines.len() > PREFETCH_MAX_LINES {
                return Vec::new();
            }
        }
    }
    if lines.len() < PREFETCH_MIN_LINES { Vec::new() } else { lines }
}

/// The source bytes `[lo, hi)` one pass of `per` rows reaches, relative to its source pointer.
pub(crate) fn pass_interval(per: usize, row_src: isize, hull: usize) -> (isize, isize) {
    let span = (per as isize - 1) * row_src;
    (span.min(0), span.max(0) + hull as isize)
}

impl Chunks {
    /// The shuffle form of a pass, or `None` when a chunk needs more windows than pay off for `esize`-byte
    /// elements (gathers of 4-8 byte elements from far apart are as fast as scalar moves), the pass is shorter
    /// than one chunk, or its source interval is shorter than one window.
    fn build(offsets: &[i32], esize: usize, pass_bytes: usize, lo: isize, hi: isize) -> Option<Chunks> {
        if pass_bytes < 16 || hi - lo < 16 {
            return None;
        }
        // A window costs a load and a shuffle: up to 8 for 16 one-byte elements (each would otherwise be a table
        // load, a load and a store), down to 1 for two 8-byte elements.
        let limit = (8 / esize).clamp(1, MAX_WINDOWS);
        let count = pass_bytes.div_ceil(16);
        let mut per_chunk: Vec<Vec<(isize, [u8; 16])>> = Vec::with_capacity(count);
        for c in 0..count {
            let at = if c + 1 == count { pass_bytes - 16 } else { c * 16 };
            let sources: [isize; 16] = std::array::from_fn(|b| {
                let byte = at + b;
                offsets[byte / esize] as isize + (byte % esize) as isize
            });
            let mut sorted = sources;
            sorted.sort_unstable();
            // Greedy cover of the sorted source bytes by 16-byte windows, each starting at the lowest uncovered
            // byte, moved down where it would pass `hi` (it stays >= lo because hi - lo >= 16).
            let mut starts: Vec<isize> = Vec::new();
            for &s in &sorted {
                if starts.last().is_some_and(|&w| s < w + 16) {
                    continue;
                }
                starts.push(s.min(hi - 16));
            }
            if starts.len() > limit {
                return None;
            }
            let windows: Vec<(isize, [u8; 16])> = starts
                .iter()
                .enumerate()
                .map(|(w, &start)| {
                    let mut mask = [0x80u8; 16];
                    for (b, &s) in sources.iter().enumerate() {
                        // Each byte from the first window holding it.
                        let first = starts.iter().position(|&x| x <= s && s < x + 16);
                        if first == Some(w) {
                            mask[b] = (s - start) as u8;
                        }
                    }
                    (start, mask)
                })
                .collect();
            per_chunk.push(windows);
        }
        let windows = per_chunk.iter().map(Vec::len).max()?.next_power_of_two();
        let mut starts = Vec::with_capacity(count * windows);
        let mut masks = Vec::with_capacity(count * windows);
        for chunk in per_chunk {
            let first = chunk[0].0;
            for w in 0..windows {
                // Unused windows load the first window again and contribute nothing.
                let (start, mask) = chunk.get(w).copied().unwrap_or((first, [0x80; 16]));
                assert!(lo <= start && start + 16 <= hi, "window {start} outside the pass interval {lo}..{hi}");
                starts.push(i32::try_from(start).ok()?);
                masks.push(mask);
            }
        }
        Some(Chunks { windows, starts, masks })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a pass the way the shuffle kernel does, in safe code over a source vector (`base` = pass pointer).
    fn run_chunks(c: &Chunks, src: &[u8], base: isize, pass_bytes: usize) -> Vec<u8> {
        let mut out = vec![0u8; pass_bytes];
        let count = c.starts.len() / c.windows;
        for i in 0..count {
            let at = if i + 1 == count { pass_bytes - 16 } else { i * 16 };
            let mut acc = [0u8; 16];
            for w in 0..c.windows {
                let start = (base + c.starts[i * c.windows + w] as isize) as usize;
                let window = &src[start..start + 16];
                for (b, &m) in c.masks[i * c.windows + w].iter().enumerate() {
                    if m & 0x80 == 0 {
                        acc[b] |= window[m as usize];
                    }
                }
            }
            out[at..at + 16].copy_from_slice(&acc);
        }
        out
    }

    #[test]
    fn blocks_rows_and_shuffles_of_a_reversed_rgb_row() {
        // u8 image rows of 8 RGB pixels, pixels reversed: dims (rows 40: 24/24, pixels 8: -3/3, channels 3: 1/1).
        let mut dims =
            vec![TDim { n: 40, src: 24, dst: 24 }, TDim { n: 8, src: -3, dst: 3 }, TDim { n: 3, src: 1, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 1, true).unwrap();
        // The block is one row (24 bytes: 40 rows would pass BLOCK_MAX_BYTES); the 40 rows form one pass.
        assert!(dims.is_empty());
        assert_eq!((plan.block, plan.rows, plan.per, plan.hull, plan.shift), (24, 40, 40, 24, -21));
        let src: Vec<u8> = (0..960).map(|i| (i % 251) as u8).collect();
        let expected: Vec<u8> = (0..40)
            .flat_map(|r| (0..8).rev().flat_map(move |p| (0..3).map(move |c| ((r * 24 + p * 3 + c) % 251) as u8)))
            .collect();
        let scalar: Vec<u8> = plan.table.offsets.iter().map(|&o| src[o as usize]).collect();
        assert_eq!(scalar, expected);
        let chunks = plan.table.chunks.as_ref().unwrap();
        // 16 destination bytes are 5 1/3 pixels, whose sources span 18 bytes: two windows.
        assert_eq!(chunks.windows, 2);
        assert_eq!(run_chunks(chunks, &src, 0, 960), expected);
    }

    #[test]
    fn gathers_with_negative_rows_keep_windows_inside_the_pass() {
        // u16, stride-2 gather of 5 elements, rows going backwards 11 elements apart, contiguous destination.
        let mut dims = vec![TDim { n: 100, src: -11, dst: 5 }, TDim { n: 5, src: 2, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 2, true).unwrap();
        assert_eq!((plan.block, plan.rows, plan.per, plan.shift), (5, 100, 100, 0));
        let (lo, hi) = pass_interval(plan.per, plan.row_src, plan.hull);
        let src: Vec<u8> = (0..3000).map(|i| (i * 7 % 251) as u8).collect();
        let base = -lo;
        let pass_bytes = plan.per * plan.block * 2;
        let expected: Vec<u8> =
            plan.table.offsets.iter().flat_map(|&o| [0, 1].map(|b| src[(base + o as isize + b) as usize])).collect();
        assert!(hi - lo <= 3000);
        let chunks = plan.table.chunks.as_ref().expect("stride-2 u16 rows fit a few windows");
        assert_eq!(run_chunks(chunks, &src, base, pass_bytes), expected);
    }

    #[test]
    fn bytes_from_several_rows_take_up_to_eight_windows() {
        // u8, 3 elements at stride 4 per row, rows 22 bytes apart: 16 destination bytes come from 6-7 rows.
        let mut dims = vec![TDim { n: 300, src: 22, dst: 3 }, TDim { n: 3, src: 4, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 1, true).unwrap();
        let chunks = plan.table.chunks.as_ref().expect("at most 8 windows");
        assert_eq!(chunks.windows, 8);
        let src: Vec<u8> = (0..7000).map(|i| (i * 13 % 251) as u8).collect();
        let pass_bytes = plan.per * plan.block;
        let expected: Vec<u8> = plan.table.offsets.iter().map(|&o| src[o as usize]).collect();
        assert_eq!(run_chunks(chunks, &src, 0, pass_bytes), expected);
    }

    #[test]
    fn far_apart_wide_elements_stay_scalar_and_strided_outputs_take_one_row_per_pass() {
        // u64 transposed pairs: every element from another row: no shuffle form.
        let mut dims = vec![TDim { n: 64, src: 1, dst: 2 }, TDim { n: 2, src: 1000, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 8, true).unwrap();
        assert!(plan.table.chunks.is_none());
        assert_eq!((plan.per, plan.rows), (64, 64));
        // Rows of 3 elements 4 apart in the destination (padded output rows): one row per pass.
        let mut dims = vec![TDim { n: 64, src: 6, dst: 4 }, TDim { n: 3, src: 2, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 4, true).unwrap();
        assert_eq!((plan.per, plan.block, plan.row_dst), (1, 3, 16));
        // 12 bytes from a hull of 20: no row shuffle.
        assert_eq!(plan.table.row_shuffle, None);
    }

    /// Runs one row the way the row shuffle kernel does, in safe code over a 16-byte window.
    fn run_row(r: &RowShuffle, window: &[u8; 16]) -> Vec<u8> {
        let pick = |m: &[u8; 16], k: usize| if m[k] & 0x80 == 0 { window[m[k] as usize] } else { 0 };
        let mut out = vec![0u8; r.bytes];
        for k in 0..r.width {
            out[k] = pick(&r.first, k);
            out[r.bytes - r.width + k] = pick(&r.last, k);
        }
        out
    }

    #[test]
    fn padded_rows_of_a_few_bytes_take_the_row_shuffle() {
        // u8: 5 bytes at stride 2 (hull 9), rows 22 apart into rows 6 apart: two overlapping 4-byte stores.
        let mut dims = vec![TDim { n: 300, src: 22, dst: 6 }, TDim { n: 5, src: 2, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 1, true).unwrap();
        assert_eq!((plan.per, plan.block, plan.hull), (1, 5, 9));
        let r = plan.table.row_shuffle.as_ref().unwrap();
        assert_eq!((r.bytes, r.width), (5, 4));
        let window: [u8; 16] = std::array::from_fn(|i| 100 + i as u8);
        assert_eq!(run_row(r, &window), [100, 102, 104, 106, 108]);
        // f16 pairs reversed (2 elements, -1 apart) into padded rows: one 4-byte store (both masks the same).
        let mut dims = vec![TDim { n: 30, src: 7, dst: 18 }, TDim { n: 2, src: -1, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 2, true).unwrap();
        let r = plan.table.row_shuffle.as_ref().unwrap();
        assert_eq!((r.bytes, r.width), (4, 4));
        assert_eq!(run_row(r, &window), [102, 103, 100, 101]);
        // One f16 broadcast 8 times (a fill of 16 bytes from a hull of 2).
        let mut dims = vec![TDim { n: 11, src: 112, dst: 39 }, TDim { n: 8, src: 0, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 2, true).unwrap();
        let r = plan.table.row_shuffle.as_ref().unwrap();
        assert_eq!((r.bytes, r.width, plan.hull), (16, 16, 2));
        assert_eq!(run_row(r, &window), [100, 101].repeat(8));
        // 7 f32 of one element (28 bytes): two 16-byte stores.
        let mut dims = vec![TDim { n: 40, src: 14, dst: 20 }, TDim { n: 7, src: 0, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 4, true).unwrap();
        let r = plan.table.row_shuffle.as_ref().unwrap();
        assert_eq!((r.bytes, r.width), (28, 16));
        assert_eq!(run_row(r, &window), [100, 101, 102, 103].repeat(7));
        // Without SIMD, or with contiguous rows (passes of many rows): none.
        let mut dims = vec![TDim { n: 300, src: 22, dst: 6 }, TDim { n: 5, src: 2, dst: 1 }];
        assert_eq!(TablePlan::build(&mut dims, 1, false).unwrap().table.row_shuffle, None);
        let mut dims = vec![TDim { n: 300, src: 22, dst: 5 }, TDim { n: 5, src: 2, dst: 1 }];
        assert_eq!(TablePlan::build(&mut dims, 1, true).unwrap().table.row_shuffle, None);
    }
}
