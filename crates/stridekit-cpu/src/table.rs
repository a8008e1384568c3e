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
//! per window; on CPUs with AVX-512 VBMI, per 64 destination bytes, one load and one `vpermb` per 64-byte window
//! ([`Chunks64`], taken first: a quarter of the steps, and wider windows cover sparser sources). The x86 kernels are
//! in `kernels/x86/table.rs`.
//!
//! Everything here is safe code: it only computes numbers. The kernel (`kernels/portable/table.rs`) trusts them only
//! through the footprint check (every table offset lies in `[lo, hi)` of a pass, asserted at build time and
//! re-checked in debug builds) and the bounds of the windows, which [`TablePlan::build`] proves (see [`Chunks`]).

/// The largest block, in destination bytes: small blocks are the ones that need a table.
pub(crate) const BLOCK_MAX_BYTES: usize = 256;
/// The largest pass, in destination bytes: its table and shuffle masks (up to 4 KiB + 5 KiB) stay in L1.
pub(crate) const PASS_MAX_BYTES: usize = 1024;
/// The most 16-byte source windows one 16-byte destination chunk may need for the shuffle path.
const MAX_WINDOWS: usize = 8;
/// The most 64-byte source windows one 64-byte destination chunk may need for the 64-byte form ([`Chunks64`]): 16
/// registers, with the index and the chunk beside them, of the 32.
pub(crate) const MAX_WINDOWS64: usize = 16;

/// A block's innermost dimension qualifies when it is at most this many bytes.
pub(crate) const SMALL_RUN_MAX_BYTES: usize = 64;

/// A gather qualifies up to this many bytes: a gather call per 65-128 bytes (a stride-2 gather of 77 bytes
/// backwards per row, 435 rows 154 bytes apart) spent more on the calls than on the bytes. Five sweep cases of
/// seeds 1-4 changed plan (the only ones of 800 and of the case files), six-eight alternating rounds: time ratios
/// 0.37, 0.51, 0.50, 0.62 and 1.02 (`docs/PERFORMANCE.md`, eighteenth round). Reversed runs qualify up to a whole
/// block ([`BLOCK_MAX_BYTES`], `planner::small_run`); fills keep [`SMALL_RUN_MAX_BYTES`]: no case measured them.
pub(crate) const SMALL_GATHER_MAX_BYTES: usize = 128;

/// One pass of a table copy: `offsets[i]` is the source byte offset of destination element `i` (destination
/// offset `i * esize`), relative to the pass's source pointer. A pass covers `per` rows of `block` elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    pub offsets: Vec<i32>,
    /// The shuffle form of a full pass, when every chunk fits [`MAX_WINDOWS`] windows (and SIMD pays off).
    pub chunks: Option<Chunks>,
    /// The 64-byte form of a full pass, on CPUs with AVX-512 VBMI (`crate::kernels::wide_permutes`), when every
    /// chunk fits [`MAX_WINDOWS`] windows; the kernel takes it before [`chunks`](Self::chunks).
    pub chunks64: Option<Chunks64>,
    /// Source offsets of one full pass, rising, whose lines are the lines it reads wherever in its line the pass
    /// starts ([`prefetch_lines`]): the kernel prefetches the next pass's lines with them (rows a line or more apart defeat the
    /// hardware prefetcher; a pass reading 4 of every 12 lines backwards ran at 0.04 of the roofline). Empty when a
    /// pass reads few lines or many (its own loads then overlap enough, or the next pass would not fit L1).
    pub lines: Vec<i32>,
    /// The passes of a call form one dense stream the hardware prefetcher follows on its own ([`followed`]): a
    /// pass requests only the next call's lines, not the next pass's.
    pub followed: bool,
    /// The shuffle form of one row when each pass is one row (padded destination rows) of at most 32 bytes read
    /// from at most 16 (SIMD builds only).
    pub row_shuffle: Option<RowShuffle>,
}

impl Table {
    /// The form a full pass runs in, for reports ([`crate::planner::Program::describe`]), in the order the kernel
    /// takes them: `row shuffle`, `chunks64 w<windows>`, `chunks w<windows>x<halves>`, or `walk` (one element at a
    /// time); `followed` and the count of prefetched lines after it.
    pub(crate) fn form(&self) -> String {
        let mut s = if self.row_shuffle.is_some() {
            "row shuffle".to_string()
        } else if let Some(c) = &self.chunks64 {
            format!("chunks64 w{}", c.windows)
        } else if let Some(c) = &self.chunks {
            format!("chunks w{}x{}", c.windows, c.halves)
        } else {
            "walk".to_string()
        };
        if self.followed {
            s += " followed";
        }
        if !self.lines.is_empty() {
            s += &format!(" lines {}", self.lines.len());
        }
        s
    }

    /// Whether a full pass has a shuffle form (16- or 64-byte chunks, or the row shuffle).
    pub(crate) fn shuffles(&self) -> bool {
        self.chunks.is_some() || self.chunks64.is_some() || self.row_shuffle.is_some()
    }
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

/// The shuffle form of one full pass of `pass_bytes` destination bytes (at least 16), in chunks of `16 * halves`
/// bytes: chunk `c` writes the destination bytes at `16 halves c`, except the last, which writes the last
/// `16 halves` bytes of the pass (overlapping its predecessor when `pass_bytes` is not a multiple; the overlap is
/// written twice with the same values). Half `h` of chunk `c` is the 16 bytes from `16 h` on, and its value the OR
/// over `w < windows` of `pshufb(load16(src + starts[j]), masks[j])` with `j = (c windows + w) halves + h`; mask
/// bytes with the top bit set contribute zero. Every window `[start, start + 16)` lies inside the pass's source
/// interval `[lo, hi)` (asserted when built), which the kernel's footprint covers.
///
/// Passes of 32 bytes or more take two halves: the kernel then loads a window of each half into one 256-bit
/// register and shuffles both with the 32 contiguous mask bytes of `(c, w)`, half the shuffles, ORs and stores of
/// 16-byte chunks (a C model over passes of 1 KiB from L1 ran in 0.6-0.8 of the time for 2-8 windows; with each
/// half's mask loaded on its own, as two 16-byte chunks are laid out, it gained nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunks {
    pub windows: usize,
    /// 1 for passes of 16-31 bytes, 2 from 32 on.
    pub halves: usize,
    pub starts: Vec<i32>,
    pub masks: Vec<[u8; 16]>,
}

/// The 64-byte form of one full pass, for CPUs with AVX-512 VBMI (`vpermb`: any byte of a 64-byte register to any
/// position; `vpermt2b`: any byte of two). As [`Chunks`], with chunks of 64 destination bytes (the last one ending
/// with the pass) and windows of 64 source bytes, taken in pairs: the value of chunk `c` is, over the pairs `p <
/// pairs()` of its windows `2p` and `2p + 1`, the OR of `permute2(load64(src + starts[c * windows + 2p]),
/// index[c], load64(src + starts[c * windows + 2p + 1]))` under the byte mask `keep[c * pairs() + p]` (bit `b`:
/// destination byte `b` comes from this pair; bits 0-5 of `index[c][b]` its byte in its window, bit 6 which window
/// of the pair). A single window is one `vpermb` by the index, whose bit 6 is then clear. Every window `[start,
/// start + 64)` lies inside the pass's source interval (asserted when built). Per 64 bytes of a reversed 7-channel
/// i16 pixel row: one permute, where the 16-byte form takes eight shuffles and a scalar walk 32 element moves.
///
/// One permute per pair of windows and one index per chunk, where each window had a permute and an index of its own,
/// merged into the chunk one after the other: 0.905 of the time over 138 sweep passes (`docs/PERFORMANCE.md`,
/// forty-ninth round).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunks64 {
    pub windows: usize,
    pub starts: Vec<i32>,
    pub index: Vec<[u8; 64]>,
    pub keep: Vec<u64>,
}

impl Chunks64 {
    /// The pairs of windows of a chunk (1 for a single window).
    pub(crate) fn pairs(&self) -> usize {
        self.windows.div_ceil(2)
    }
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
    /// (with `dims` untouched) when the numbers do not fit the table's 32-bit offsets. `first_at`: where in its
    /// cache line the first call's first element lies in a buffer that starts on a line (the shuffle forms place
    /// their windows by it, [`cover`]).
    pub(crate) fn build(dims: &mut Vec<TDim>, esize: usize, simd: bool, first_at: usize) -> Option<TablePlan> {
        Self::build_with(dims, esize, simd, true, first_at)
    }

    /// [`build`](Self::build) without the fused row dimension: one row per call, every dimension around the block
    /// left to the caller (which may take the next one as the table's partner instead).
    pub(crate) fn build_block(dims: &mut Vec<TDim>, esize: usize, simd: bool, first_at: usize) -> Option<TablePlan> {
        Self::build_with(dims, esize, simd, false, first_at)
    }

    fn build_with(
        dims: &mut Vec<TDim>,
        esize: usize,
        simd: bool,
        fuse_rows: bool,
        first_at: usize,
    ) -> Option<TablePlan> {
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
        // Where in its line the lowest source byte of the first call's block lies (the table's offsets start there).
        let line_at = (first_at as i64 + min * e).rem_euclid(LINE as i64) as usize;
        let rows_dim = if fuse_rows && dims.len() > take { Some(dims[dims.len() - take - 1]) } else { None };
        // Calls start whole outer steps apart (a split divides the outer loops, a partner or whole passes): the
        // step in their lines that every one of them divides (wrapping products keep the low bits exact).
        let outer = &dims[..dims.len() - take - usize::from(rows_dim.is_some())];
        let outer_step =
            outer.iter().filter(|d| d.n > 1).map(|d| line_step(d.src.wrapping_mul(e))).min().unwrap_or(LINE);
        let (rows, row_src, row_dst) = match rows_dim {
            Some(d) => (d.n, d.src.checked_mul(e)?, d.dst.checked_mul(e)?),
            None => (1, 0, 0),
        };
        let block_bytes = block as i64 * e;
        let contiguous_rows = row_dst == block_bytes || rows == 1;
        let dense_per = (PASS_MAX_BYTES as u64 / block_bytes as u64).clamp(1, rows);
        // The offsets of a pass must fit i32: |(per - 1) row_src| + hull.
        let fits = |per: u64| -> bool {
            (per as i128 - 1) * (row_src.unsigned_abs() as i128) + hull as i128 <= i32::MAX as i128
        };
        // The table of a pass of `per` rows (fewer when its offsets would not fit i32), with every form it has.
        let forms = |mut per: u64| -> Option<(u64, Table)> {
            while per > 1 && !fits(per) {
                per /= 2;
            }
            if !fits(per) {
                return None;
            }
            let offsets: Vec<i32> = (0..per as i64)
                .flat_map(|r| offsets.iter().map(move |&o| (r * row_src + (o - min) * e) as i32))
                .collect();
            let pass_bytes = per as usize * block as usize * esize;
            let (lo, hi) = pass_interval(per as usize, row_src as isize, hull as usize);
            debug_assert!(offsets.iter().all(|&o| lo <= o as isize && o as isize + esize as isize <= hi));
            let pass_step = if rows > per { line_step((per as i64).wrapping_mul(row_src)) } else { LINE };
            let source = PassSource { lo, hi, line_at, line_step: outer_step.min(pass_step) };
            let sorted = sorted_distinct(&offsets);
            let source = if simd { Some(PassLines::new(&sorted, esize, source)) } else { None };
            let chunks = source.as_ref().and_then(|s| Chunks::build(&offsets, esize, pass_bytes, s));
            let chunks64 = if let Some(s) = source.as_ref().filter(|_| crate::kernels::wide_permutes()) {
                Chunks64::build(&offsets, esize, pass_bytes, s)
                    .filter(|c| chunks64_pays(c.windows, chunks.as_ref().map(|c| c.windows), esize))
            } else {
                None
            };
            let table = Table {
                lines: prefetch_lines(&sorted, esize),
                followed: followed(&offsets, esize, (lo, hi), per as i64 * row_src, row_src, block_bytes),
                row_shuffle: if simd && per == 1 { RowShuffle::build(&offsets, esize, hull as usize) } else { None },
                offsets,
                chunks,
                chunks64,
            };
            Some((per, table))
        };
        let (mut per, mut table) = forms(if contiguous_rows { dense_per } else { 1 })?;
        let walked = !table.shuffles();
        let small = table.row_shuffle.is_none() && block_bytes <= SPACED_SHUFFLED_MAX_BYTES as i64;
        if simd && !contiguous_rows && (walked || small) && spaced_rows(rows, row_src, row_dst, block_bytes, esize) {
            // Spaced destination rows (a padded output) pass by pass as if they were contiguous, through an L1
            // stage (`portable::table`), when that dense pass has a shuffle form: see [`spaced_rows`].
            // A dense pass without one still walks its rows in one loop where one row's block is small.
            let pays = |t: &Table| t.chunks.is_some() || t.chunks64.is_some() || (walked && small);
            if let Some(dense) = forms(dense_per).filter(|(p, t)| *p > 1 && pays(t)) {
                (per, table) = dense;
            }
        }
        let plan = TablePlan {
            rows: usize::try_from(rows).ok()?,
            row_src: isize::try_from(row_src).ok()?,
            row_dst: isize::try_from(row_dst).ok()?,
            per: per as usize,
            block: block as usize,
            hull: usize::try_from(hull).ok()?,
            shift: min,
            table,
        };
        dims.truncate(dims.len() - take - usize::from(rows_dim.is_some()));
        Some(plan)
    }
}

/// The fewest rows a call of spaced rows takes through the stage ([`spaced_rows`]): calls of 2-10 rows took
/// 1.06-1.36x the time through it (the stage's set-up and a partial pass per call).
const SPACED_MIN_ROWS: usize = 16;

/// The largest block of spaced rows that takes the stage where one row already has a shuffle form, or where the
/// dense pass has none either ([`spaced_rows`]): blocks of 16-32 bytes ran in 0.19-0.86 of the time through it
/// (four f32 3 apart into rows of 160 bytes, sweep6_155: 0.53), blocks of 33-244 bytes mostly in more (0.94-2.1:
/// 22 u32 into rows of 2728 bytes, sweep5_096, 2.1), where one row's own shuffles already fill whole 16- or 64-byte
/// stores and the stage adds a copy.
const SPACED_SHUFFLED_MAX_BYTES: usize = 32;

/// Whether `rows` rows of a block of `block_bytes` (`esize`-byte elements), `row_src` and `row_dst` bytes apart, are
/// spaced destination rows (a padded output: 3 of every 13 channels, RGB into RGBX) that a table runs as the passes
/// of contiguous rows, each into an L1 stage, from which the short-row kernel copies the rows to their places
/// (`portable::table`). Rows that do not meet or overlap in the destination, at least [`SPACED_MIN_ROWS`] of them,
/// read from a moving source (a broadcast row is computed once instead, `portable::table`), and not rows that the
/// partner tiles may take (`planner::rows_as_partner`: 1-4 elements apart, a tile of them, blocks of 16 bytes or
/// more). [`TablePlan::build`] takes it where one row has no shuffle form (its elements walked one by one) and the
/// dense pass has one, or where one row's block is at most [`SPACED_SHUFFLED_MAX_BYTES`] and the dense pass has a
/// shuffle form or one row has none (the dense pass then walks all of its rows in one loop).
///
/// One pass per row walked its elements one at a time: 3 reversed i32 planes into pixels of 13 (sweep1_088 of
/// `stridekit bench --sweep 200 --seed 1 --sweep-max-bytes 64M`) spent 1.9 ns an element. Measured on the Intel Xeon
/// of `docs/PERFORMANCE.md`'s fiftieth round, time ratios stage / one row per pass, each case in its own process,
/// ABBA rounds: the 57 cases of seeds 1-20 that any spaced rows changed, two rounds, 0.90 (0.19-2.1), from which the
/// two limits were drawn; the 22 of them the rule keeps, three rounds, 0.65 (sweep1_088 0.43, 0.26 -> 0.61 of the
/// roofline); the 19 of seeds 21-40, drawn after the rule was fixed, three rounds, 0.71 (0.31-1.13). Dense passes
/// that walk (small blocks only): the 6 such cases of seeds 1-20 with any block 0.96 (blocks of 40-144 bytes of
/// u64 1.1-1.76, of 6-32 bytes 0.43-1.00), the 9 of seeds 21-60 with the 32-byte limit 0.76 (0.36-1.35).
fn spaced_rows(rows: u64, row_src: i64, row_dst: i64, block_bytes: i64, esize: usize) -> bool {
    let e = esize as i64;
    let partner = matches!(esize, 1 | 2 | 4)
        && row_src % e == 0
        && (1..=4).contains(&(row_src / e).unsigned_abs())
        && rows >= 16 / esize as u64
        && block_bytes >= 16;
    rows >= SPACED_MIN_ROWS as u64 && row_src != 0 && row_dst.unsigned_abs() >= block_bytes.unsigned_abs() && !partner
}

/// How far past the last 64-byte grid point of a cluster of bytes its end must lie for [`prefetch_lines`] to request
/// it too: an element's own last bytes (elements are at most 8 bytes) are not requested on their own.
const END_MIN_BYTES: i64 = 8;

/// The fewest lines a pass must read for [`Table::lines`] to prefetch them, and the most (256 lines: 16 KiB, half
/// of L1).
const PREFETCH_MIN_LINES: usize = 4;
const PREFETCH_MAX_LINES: usize = 256;

/// A pass's element offsets sorted, each once: what [`prefetch_lines`] and [`PassLines::new`] read.
fn sorted_distinct(offsets: &[i32]) -> Vec<i32> {
    let mut sorted = offsets.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    sorted
}

/// [`Table::lines`] of a pass with these element offsets (sorted, [`sorted_distinct`]): addresses, relative to the
/// pass's pointer, whose lines are every line the pass reads wherever in its line that pointer lies (the pointer of
/// each pass is `row_src` bytes on from the last one, so it takes many places in its line).
///
/// The element bytes are taken in clusters, split where more than a line's worth of bytes lies unread between two
/// elements; a cluster of bytes `a ..= b` is requested at `a, a + 64, ...` up to `b` and at `b` itself: a 64-byte line
/// meeting `a ..= b` holds exactly one point of the 64-byte grid from `a`, which is either inside the cluster or past
/// `b`, and then the line holds `b`. The end is not requested when it lies fewer than [`END_MIN_BYTES`] past the
/// last grid point: it is in another line for fewer than 8 of the 64 places, not worth a second request for each
/// element of a sparse pass. The earlier cover (a request at each span's lowest byte, spans of 64 bytes) missed the line
/// holding the end of every span the pointer's place pushed across a line: rows of 177 bytes 5491 bytes apart
/// (sweep1_141) were requested at 3 of the 3-4 lines each row reads, and each pass waited on the missed ones
/// (`docs/PERFORMANCE.md`, fifty-ninth round).
///
/// Whether a pass is prefetched at all still counts its lines as the greedy 64-byte spans do (between
/// [`PREFETCH_MIN_LINES`] and [`PREFETCH_MAX_LINES`]), so the same tables prefetch as before.
fn prefetch_lines(sorted: &[i32], esize: usize) -> Vec<i32> {
    let mut spans = 0usize;
    let mut span_start: Option<i64> = None;
    let mut requests: Vec<i32> = Vec::new();
    let mut cluster: Option<(i64, i64)> = None;
    let (e, width) = (esize as i64, LINE as i64);
    let close = |(a, b): (i64, i64), requests: &mut Vec<i32>| {
        let mut at = a;
        while at <= b {
            requests.push(at as i32);
            at += width;
        }
        if b - (at - width) >= END_MIN_BYTES {
            requests.push(b as i32);
        }
    };
    for &o in sorted {
        let (o, last) = (i64::from(o), i64::from(o) + e - 1);
        if span_start.is_none_or(|l| last >= l + width) {
            span_start = Some(o);
            spans += 1;
            if spans > PREFETCH_MAX_LINES {
                return Vec::new();
            }
        }
        cluster = match cluster {
            Some((a, b)) if o - b <= width => Some((a, b.max(last))),
            Some(done) => {
                close(done, &mut requests);
                Some((o, last))
            }
            None => Some((o, last)),
        };
    }
    if let Some(done) = cluster {
        close(done, &mut requests);
    }
    if spans < PREFETCH_MIN_LINES { Vec::new() } else { requests }
}

/// Whether the passes of a call (consecutive rows `row_src` bytes apart, `block_bytes` written per row) read one
/// dense stream the hardware prefetcher follows, so that requesting the next pass's lines only competes with the
/// pass's own loads. The pass touches nearly every line of its interval (`interval`, from `pass_interval`; lines as
/// if the pass started on a line), the next pass (`pass_src` bytes on) leaves no line between them, and either
/// the rows walk backwards at most [`FOLLOWED_BACKWARD_ROW_BYTES`] apart (so the lines are read in falling order)
/// or they walk forwards reading at least three bytes per byte written.
///
/// Measured on the sweep's table calls of several passes (seeds 1-4, 6-10 alternating rounds, `docs/PERFORMANCE.md`,
/// nineteenth round): without the next pass's requests, rows 16-72 bytes apart backwards ran in 0.69-0.86 of the
/// time (sweep1_009, sweep1_016, sweep1_069, sweep2_170, sweep3_154) and forward rows reading 3-5.5 bytes per byte
/// written in 0.69-0.95 (sweep1_046, sweep2_110, sweep4_108, sweep2_011, sweep1_157). Forward rows reading 1.2-2.7
/// bytes per byte written were split (0.84 for sweep1_163, 1.07-1.13 for sweep2_054, sweep4_095, sweep4_008), and
/// rows 608 bytes apart backwards, each read forwards, ran 1.36x slower (sweep3_173): those keep the requests.
fn followed(
    offsets: &[i32],
    esize: usize,
    interval: (isize, isize),
    pass_src: i64,
    row_src: i64,
    block_bytes: i64,
) -> bool {
    let (lo, hi) = interval;
    let backward = row_src < 0 && row_src.unsigned_abs() <= FOLLOWED_BACKWARD_ROW_BYTES;
    let reads_more = row_src >= 3 * block_bytes;
    if !(backward || reads_more) || pass_src.unsigned_abs() >= (hi - lo) as u64 + 64 {
        return false;
    }
    let span = (line(hi - 1) - line(lo) + 1) as usize;
    let mut touched: Vec<isize> =
        offsets.iter().flat_map(|&o| [line(o as isize), line(o as isize + esize as isize - 1)]).collect();
    touched.sort_unstable();
    touched.dedup();
    // Nearly: a pass that does not start on a line may skip one more line between rows than this count shows.
    touched.len() * 8 >= span * 7
}

/// The farthest apart backward rows of a [`followed`] call are: two lines. Rows further apart are each read
/// forwards, a pattern the hardware does not follow as one stream.
const FOLLOWED_BACKWARD_ROW_BYTES: u64 = 128;

/// Bytes of a cache line: the unit the windows of a shuffle form are placed by ([`cover`]), and the reuse tiles'.
pub(crate) const LINE: usize = 64;

/// The source bytes `[lo, hi)` of one pass relative to its pointer ([`pass_interval`]), where in its cache line
/// the pointer lies (`line_at`, 0-63) in the first call of a buffer that starts on a line, and the steps by which
/// the other passes' pointers lie further on (`line_step`, a power of two up to [`LINE`]: every pass's pointer is
/// `line_at + k line_step` into its line).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PassSource {
    pub lo: isize,
    pub hi: isize,
    pub line_at: usize,
    pub line_step: usize,
}

/// The lines a pass reads, by the place in its line its pointer may take: what [`cover`] places windows by.
#[derive(Debug)]
pub(crate) struct PassLines {
    lo: isize,
    hi: isize,
    /// Per place (`line_at + k line_step` into the line, at most [`PLACED_MAX_PHASES`] of them, else none): the
    /// place, and the distinct lines the pass reads from there, rising. Places where the pass reads every line of its
    /// interval are left out: a window costs nothing there wherever it starts.
    places: Vec<(isize, Vec<isize>)>,
}

impl PassLines {
    /// The lines of a pass of elements at `sorted` (bytes from its pointer, `esize` bytes each; sorted and distinct,
    /// [`sorted_distinct`]) from `source`.
    pub(crate) fn new(sorted: &[i32], esize: usize, source: PassSource) -> PassLines {
        let PassSource { lo, hi, line_at, line_step } = source;
        let phases = match LINE / line_step {
            phases if phases <= PLACED_MAX_PHASES => phases,
            _ => return PassLines { lo, hi, places: Vec::new() },
        };
        let places = (0..phases)
            .filter_map(|k| {
                let at = ((line_at + k * line_step) % LINE) as isize;
                // An element's bytes lie in one line or two consecutive ones, and the elements rise: each line not
                // above the last one kept is already there.
                let mut read: Vec<isize> = Vec::new();
                for &o in sorted {
                    for l in [line(o as isize + at), line(o as isize + at + esize as isize - 1)] {
                        if read.last().is_none_or(|&x| l > x) {
                            read.push(l);
                        }
                    }
                }
                let span = line(hi - 1 + at) - line(lo + at) + 1;
                (read.len() < span as usize).then_some((at, read))
            })
            .collect();
        PassLines { lo, hi, places }
    }

    /// The start in `lowest..=first` of a `width`-byte window that reaches into the fewest lines the pass does not
    /// read, summed over the places; the highest among equals.
    fn place(&self, lowest: isize, first: isize, width: isize) -> isize {
        // Between starts `a` and `a + 1` the count changes only where, at some place, the window's first byte ends
        // a line or its last byte does: the highest start of each stretch of equal counts is one of those starts or
        // `first`, and no other start needs counting (the planner places every window of every pass; counting every
        // start took most of its time).
        let breaks = self.places.iter().fold(0u64, |m, &(at, _)| {
            m | 1 << (LINE as isize - 1 - at).rem_euclid(LINE as isize) | 1 << (-(at + width)).rem_euclid(LINE as isize)
        });
        debug_assert!(width <= LINE as isize && first - lowest < width);
        // The windows from `lowest` to `first` span at most three lines at each place (2 width - 1 bytes, width at
        // most a line): per place, its first line and which of the three the pass does not read, looked up once.
        let unread: Vec<(isize, u8)> = self
            .places
            .iter()
            .map(|(at, read)| {
                let base = line(lowest + at);
                let bits = (0..3).filter(|&k| read.binary_search(&(base + k)).is_err()).fold(0u8, |m, k| m | 1 << k);
                (base, bits)
            })
            .collect();
        let count = |a: isize| -> u32 {
            self.places
                .iter()
                .zip(&unread)
                .map(|((at, _), &(base, bits))| {
                    let (l0, l1) = (line(a + at) - base, line(a + at + width - 1) - base);
                    (bits >> l0 & ((2u8 << (l1 - l0)) - 1)).count_ones()
                })
                .sum()
        };
        (lowest..=first)
            .rev()
            .filter(|&a| a == first || breaks >> a.rem_euclid(LINE as isize) & 1 == 1)
            .min_by_key(|&a| count(a))
            .unwrap_or(first)
    }

    /// The lines a `width`-byte window from `a` reaches into that the pass does not read, summed over the places:
    /// what [`Self::place`] minimises, counted directly.
    #[cfg(test)]
    fn unread(&self, a: isize, width: isize) -> usize {
        let lines = |(at, read): &(isize, Vec<isize>)| {
            (line(a + at)..=line(a + at + width - 1)).filter(|l| read.binary_search(l).is_err()).count()
        };
        self.places.iter().map(lines).sum()
    }

    /// The lines of a pass whose pointer is `line_at` into its line in every call.
    #[cfg(test)]
    pub(crate) fn at(offsets: &[i32], esize: usize, lo: isize, hi: isize, line_at: usize) -> PassLines {
        PassLines::new(&sorted_distinct(offsets), esize, PassSource { lo, hi, line_at, line_step: LINE })
    }
}

/// The cache line of source byte `x` (relative to a line start).
fn line(x: isize) -> isize {
    x.div_euclid(LINE as isize)
}

/// The most places in their lines that the passes of a table may start at for [`cover`] to place windows by them
/// (`LINE / line_step`): with more, a window reaches into a line of its own about as often wherever it starts.
const PLACED_MAX_PHASES: usize = 8;

/// The power of two up to [`LINE`] that divides `bytes` (a step between passes' pointers).
fn line_step(bytes: i64) -> usize {
    1 << bytes.trailing_zeros().min(LINE.trailing_zeros())
}

/// The source bytes `[lo, hi)` one pass of `per` rows reaches, relative to its source pointer.
pub(crate) fn pass_interval(per: usize, row_src: isize, hull: usize) -> (isize, isize) {
    let span = (per as isize - 1) * row_src;
    (span.min(0), span.max(0) + hull as isize)
}

/// The destination offsets of the chunks of a pass of `pass_bytes` bytes, `width` bytes each: the last one ends
/// with the pass, overlapping its predecessor when `pass_bytes` is not a multiple of `width` (at least one chunk).
fn chunk_starts(pass_bytes: usize, width: usize) -> impl Iterator<Item = usize> {
    let count = pass_bytes.div_ceil(width);
    (0..count).map(move |c| if c + 1 == count { pass_bytes - width } else { c * width })
}

/// The chunks of `width` destination bytes at the offsets `at` of a pass of `pass_bytes` bytes, each covered by
/// windows of `width` source bytes: per chunk, the window starts and, per destination byte, its window and its byte
/// in that window. Greedy: each window covers the lowest source byte not yet covered and every byte up to `width`
/// from it (moved down where it would pass `hi`; it stays at or above `lo` because `hi - lo >= width`), and each
/// byte comes from the first window holding it. `None` when a chunk needs more than `limit` windows, a chunk does
/// not lie inside the pass or the source interval is shorter than a window.
///
/// Among the starts that hold the same bytes from that lowest one on, a window takes one that reaches into the
/// fewest cache lines no byte of the pass reads, summed over the places in their lines that the passes start at
/// (`line_at + k line_step`; at most [`PLACED_MAX_PHASES`] of them, else the lowest byte's start), the highest
/// start among equals. A window from the lowest byte loads the line after it wherever the bytes it holds end a
/// line: 12 bytes at the end of every third line (the last 3 of 16 i32, sweep2_199) read twice the lines the copy
/// needs. Measured on the Zen 4 of `docs/PERFORMANCE.md`'s fifty-seventh round, each case in its own process,
/// three ABBA rounds: placed by the first pass's place alone, sweep2_199 took 0.50-0.55 of the time and the 64
/// sweep passes of seeds 2-6 whose windows moved 0.96 (those above 1.05 re-run over five rounds: 0.88-1.02), the
/// 33 of seeds 7-10 1.00; placed by every pass's place, the 66 passes of seeds 1-6 that then differ 0.98 of that
/// (sweep3_134 0.55-0.65), and the 77 of seeds 21-30 that the rule moves 0.93 of the time before it (sweep25_098
/// 0.42).
#[allow(clippy::type_complexity)] // per chunk: its window starts, and per byte (window, byte)
fn cover(
    offsets: &[i32],
    esize: usize,
    pass_bytes: usize,
    at: impl Iterator<Item = usize>,
    width: usize,
    source: &PassLines,
    limit: usize,
) -> Option<Vec<(Vec<isize>, Vec<(usize, u8)>)>> {
    let (lo, hi) = (source.lo, source.hi);
    if pass_bytes < width || hi - lo < width as isize {
        return None;
    }
    let w = width as isize;
    let mut chunks = Vec::new();
    // Each chunk's source bytes in destination order and sorted (the buffers reused from chunk to chunk).
    let (mut sources, mut sorted) = (Vec::with_capacity(width), Vec::with_capacity(width));
    for at in at {
        if at + width > pass_bytes {
            return None;
        }
        sources.clear();
        sources.extend((at..at + width).map(|byte| offsets[byte / esize] as isize + (byte % esize) as isize));
        sorted.clear();
        sorted.extend_from_slice(&sources);
        sorted.sort_unstable();
        let mut starts: Vec<isize> = Vec::new();
        for (i, &s) in sorted.iter().enumerate() {
            if starts.last().is_some_and(|&x| s < x + w) {
                continue;
            }
            let first = s.min(hi - w);
            // The highest byte this window must hold: the last one it covers from `s`. Any start from `last - w + 1`
            // (and `lo`) up to `first` holds the same bytes from `s` on; the lowest count of lines the pass does not
            // otherwise read wins, the highest start among equals.
            let last = sorted[i..].iter().take_while(|&&x| x < first + w).last().copied().unwrap_or(s);
            let start = source.place((last - w + 1).max(lo), first, w);
            starts.push(start);
            if starts.len() > limit {
                return None;
            }
        }
        let picks = sources
            .iter()
            .map(|&s| {
                let k = starts.iter().position(|&x| x <= s && s < x + w)?;
                Some((k, u8::try_from(s - starts[k]).ok()?))
            })
            .collect::<Option<Vec<_>>>()?;
        chunks.push((starts, picks));
    }
    debug_assert!(chunks.iter().flat_map(|c| &c.0).all(|&x| lo <= x && x + w <= hi));
    Some(chunks)
}

/// The windows every 16-byte chunk of a pass takes when the most any chunk needs is `most`: the kernels are
/// compiled for [`CHUNK_WINDOWS`] windows, so the next of those (unused windows load the first one again and
/// contribute nothing). Three and six are among them because a window costs a load, a mask load and a shuffle on
/// every chunk: rounded up to four and eight, chunks of three (pixels of 3 bytes reversed, stride-3 gathers of
/// bytes over row boundaries) or five to six windows (12 bytes of each row from three windows) spent a quarter to
/// three eighths of their steps on windows that contribute nothing.
pub(crate) fn chunk_windows(most: usize) -> usize {
    CHUNK_WINDOWS.into_iter().find(|&w| w >= most).unwrap_or(MAX_WINDOWS)
}

/// The window counts the 16-byte chunk kernels are compiled for (`kernels/x86/table.rs`), rising.
pub(crate) const CHUNK_WINDOWS: [usize; 6] = [1, 2, 3, 4, 6, MAX_WINDOWS];

impl Chunks {
    /// The shuffle form of a pass, or `None` when a chunk needs more windows than pay off for `esize`-byte
    /// elements (gathers of 4-8 byte elements from far apart are as fast as scalar moves), the pass is shorter
    /// than one chunk, or its source interval is shorter than one window.
    fn build(offsets: &[i32], esize: usize, pass_bytes: usize, source: &PassLines) -> Option<Chunks> {
        let (lo, hi) = (source.lo, source.hi);
        // A window costs a load and a shuffle: up to 8 for 16 one-byte elements (each would otherwise be a table
        // load, a load and a store), down to 1 for two 8-byte elements.
        let limit = (8 / esize).clamp(1, MAX_WINDOWS);
        // Passes of 32 bytes or more take chunks of two halves (see `halves`); each half is covered as a 16-byte
        // chunk of its own, and consecutive halves are the chunk's.
        let halves = if pass_bytes >= 32 { 2 } else { 1 };
        let halves_at = chunk_starts(pass_bytes, 16 * halves).flat_map(move |at| (0..halves).map(move |h| at + 16 * h));
        let per_half = cover(offsets, esize, pass_bytes, halves_at, 16, source, limit)?;
        let windows = chunk_windows(per_half.iter().map(|c| c.0.len()).max()?);
        let mut starts = vec![0; per_half.len() * windows];
        let mut masks = vec![[0x80u8; 16]; per_half.len() * windows];
        for (i, (chunk, picks)) in per_half.into_iter().enumerate() {
            let (c, h) = (i / halves, i % halves);
            for w in 0..windows {
                // Unused windows load the first window again and contribute nothing.
                let mut mask = [0x80u8; 16];
                for (b, &(k, byte)) in picks.iter().enumerate() {
                    if k == w {
                        mask[b] = byte;
                    }
                }
                let start = chunk.get(w).copied().unwrap_or(chunk[0]);
                assert!(lo <= start && start + 16 <= hi, "window {start} outside the pass interval {lo}..{hi}");
                let j = (c * windows + w) * halves + h;
                starts[j] = i32::try_from(start).ok()?;
                masks[j] = mask;
            }
        }
        Some(Chunks { windows, halves, starts, masks })
    }
}

/// Whether the 64-byte form of a pass with `windows` windows per chunk of `esize`-byte elements is taken over its
/// 16-byte form of `windows16` windows (`None`: no 16-byte form, the pass is walked): when the 16-byte form needs more
/// than half as many windows, or there is none and the 64-byte form needs at most two windows, or at most one per
/// four elements of a chunk (`16 / esize`). Per 64 destination bytes the 64-byte form loads `windows` lines-crossing
/// 64-byte windows and permutes each pair; the 16-byte form in pairs of halves loads and shuffles `2 windows16` pairs
/// of 16-byte windows; the walk moves the chunk's `64 / esize` elements one by one.
///
/// Measured on an Intel Xeon with AVX-512 VBMI (2 vCPUs, 2026-11-28), four alternating rounds over the 132 sweep
/// cases of seeds 1-4 with a 64-byte form, time ratios of the 16-byte form (or the walk) over the 64-byte one, by
/// windows (64-byte, 16-byte), when each window had a permute of its own: (8, 2-4) 0.72-0.85 over 18 cases, (4, 1-2)
/// 0.80-0.81 over 26, (2, 1) 0.91 over 13, (4-8, walk) 0.77 and 0.89 over 16; kept: (1, 1) 1.11, (2, 2) 0.99, (4,
/// 3-4) 0.98-1.00, (8, 6) 1.01, (2, 3) 1.18, (4, 8) and (8, 8) 1.2-1.27, (2, walk) 1.03 (`docs/PERFORMANCE.md`,
/// twenty-seventh round). With the permutes in pairs (forty-ninth round), against the walk: the 109 passes of
/// seeds 1-20 with 3-8 windows, two ABBA rounds each in its own process, time ratios 64-byte form / walk: bytes
/// with 5-8 windows 0.40 (3 cases), u16 with 3-8 0.71-0.89 (12), u32 with 3-4 0.92 (21); u32 with 5-8 1.05 (16),
/// u64 with 3-4 1.18 (57).
pub(crate) fn chunks64_pays(windows: usize, windows16: Option<usize>, esize: usize) -> bool {
    match windows16 {
        Some(w16) => windows < 2 * w16,
        None => windows <= (16 / esize).max(2),
    }
}

impl Chunks64 {
    /// The 64-byte form of a pass, or `None` when a chunk needs more than [`MAX_WINDOWS64`] windows (half a
    /// window per element of a chunk for 2-8 byte elements: a pair of windows costs two loads and a permute, a
    /// chunk walked one element at a time a table load, a load and a store each), the pass is shorter than 64
    /// bytes or its source interval is.
    pub(crate) fn build(offsets: &[i32], esize: usize, pass_bytes: usize, source: &PassLines) -> Option<Chunks64> {
        let (lo, hi) = (source.lo, source.hi);
        let limit = (32 / esize).clamp(1, MAX_WINDOWS64);
        let per_chunk = cover(offsets, esize, pass_bytes, chunk_starts(pass_bytes, 64), 64, source, limit)?;
        let windows = per_chunk.iter().map(|c| c.0.len()).max()?.next_power_of_two();
        let pairs = windows.div_ceil(2);
        let mut chunks = Chunks64 {
            windows,
            starts: Vec::with_capacity(per_chunk.len() * windows),
            index: Vec::with_capacity(per_chunk.len()),
            keep: Vec::with_capacity(per_chunk.len() * pairs),
        };
        for (chunk, picks) in per_chunk {
            let (mut index, mut keep) = ([0u8; 64], vec![0u64; pairs]);
            for (b, &(k, byte)) in picks.iter().enumerate() {
                index[b] = byte | ((k % 2) as u8) << 6;
                keep[k / 2] |= 1 << b;
            }
            for w in 0..windows {
                // Unused windows load the first window again; no byte comes from them.
                let start = chunk.get(w).copied().unwrap_or(chunk[0]);
                assert!(lo <= start && start + 64 <= hi, "window {start} outside the pass interval {lo}..{hi}");
                chunks.starts.push(i32::try_from(start).ok()?);
            }
            chunks.index.push(index);
            chunks.keep.extend(keep);
        }
        Some(chunks)
    }
}

// Not under Miri: safe code that runs no kernel (scripts/miri.sh says why).
#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;

    /// Runs a pass the way the shuffle kernel does, in safe code over a source vector (`base` = pass pointer).
    fn run_chunks(c: &Chunks, src: &[u8], base: isize, pass_bytes: usize) -> Vec<u8> {
        let mut out = vec![0u8; pass_bytes];
        let width = 16 * c.halves;
        let count = c.starts.len() / (c.windows * c.halves);
        assert_eq!(count, pass_bytes.div_ceil(width));
        for i in 0..count {
            let at = if i + 1 == count { pass_bytes - width } else { i * width };
            for h in 0..c.halves {
                let mut acc = [0u8; 16];
                for w in 0..c.windows {
                    let j = (i * c.windows + w) * c.halves + h;
                    let start = (base + c.starts[j] as isize) as usize;
                    let window = &src[start..start + 16];
                    for (b, &m) in c.masks[j].iter().enumerate() {
                        if m & 0x80 == 0 {
                            acc[b] |= window[m as usize];
                        }
                    }
                }
                out[at + 16 * h..at + 16 * h + 16].copy_from_slice(&acc);
            }
        }
        out
    }

    #[test]
    fn dense_backward_rows_and_forward_rows_reading_three_times_what_they_write_are_left_to_the_hardware() {
        let followed =
            |mut dims: Vec<TDim>, esize: usize| TablePlan::build(&mut dims, esize, true, 0).unwrap().table.followed;
        // u32 triples at stride 3 from rows of 8, rows backwards (32 bytes apart): one falling stream.
        assert!(followed(vec![TDim { n: 4000, src: -8, dst: 3 }, TDim { n: 3, src: 3, dst: 1 }], 4));
        // 4 of every 16 u32 forwards: 4 bytes read per byte written, every line touched.
        assert!(followed(vec![TDim { n: 4000, src: 16, dst: 4 }, TDim { n: 4, src: 1, dst: 1 }], 4));
        // u16 pixels of 8 reversed in place: as many bytes read as written, so the requests stay.
        assert!(!followed(vec![TDim { n: 4000, src: 8, dst: 8 }, TDim { n: 8, src: -1, dst: 1 }], 2));
        // Twice as many read as written: the requests stay.
        assert!(!followed(vec![TDim { n: 4000, src: 6, dst: 3 }, TDim { n: 3, src: 1, dst: 1 }], 2));
        // Backward rows 608 bytes apart, each read forwards: not one stream.
        assert!(!followed(vec![TDim { n: 400, src: -304, dst: 57 }, TDim { n: 57, src: 5, dst: 1 }], 2));
        // 4 bytes of every 128: half the lines are skipped.
        assert!(!followed(vec![TDim { n: 4000, src: 128, dst: 4 }, TDim { n: 4, src: 1, dst: 1 }], 1));
        // One row per pass (padded destination rows) of 20 bytes at stride 3 (58 bytes): rows 100 bytes apart leave
        // no line between passes, 200 apart they do.
        assert!(followed(vec![TDim { n: 400, src: 100, dst: 32 }, TDim { n: 20, src: 3, dst: 1 }], 1));
        assert!(!followed(vec![TDim { n: 400, src: 200, dst: 32 }, TDim { n: 20, src: 3, dst: 1 }], 1));
    }

    #[test]
    fn spaced_rows_take_dense_passes_where_the_rule_says() {
        let per = |dims: Vec<TDim>, esize: usize, simd: bool| {
            let mut dims = dims;
            let plan = TablePlan::build(&mut dims, esize, simd, 0).unwrap();
            (plan.per, plan.table.shuffles())
        };
        // Three f32 planes 1000 elements apart into pixels of 13: no shuffle form for one row (walked), so 100 rows
        // take passes of 85 (1020 bytes) with a shuffle form, from 16 rows on; not without SIMD.
        let planes = |n: u64| vec![TDim { n, src: 1, dst: 13 }, TDim { n: 3, src: 1000, dst: 1 }];
        assert_eq!(per(planes(100), 4, true), (85, true));
        assert_eq!(per(planes(16), 4, true), (16, true));
        assert_eq!(per(planes(15), 4, true), (1, false));
        assert_eq!(per(planes(100), 4, false), (1, false));
        // A broadcast row is computed once (`portable::table`), not passed through the stage.
        let broadcast = vec![TDim { n: 100, src: 0, dst: 13 }, TDim { n: 3, src: 1000, dst: 1 }];
        assert_eq!(per(broadcast, 4, true).0, 1);
        // Four f32 3 apart into rows 40 elements apart: one row has a shuffle form, but a block of 16 bytes is at
        // most SPACED_SHUFFLED_MAX_BYTES; ten (40 bytes) are more, and keep one row per pass.
        let gather = |k: u64| vec![TDim { n: 100, src: 3 * k as i64, dst: 40 }, TDim { n: k, src: 3, dst: 1 }];
        assert_eq!(per(gather(4), 4, true), (64, true));
        assert_eq!(per(gather(10), 4, true), (1, true));
        // u64 pairs 2 apart into rows of 29: neither one row nor a dense pass has a shuffle form; a block of 16 bytes
        // still takes dense passes (walked in one loop), one of 40 bytes does not.
        let pairs = |k: u64| vec![TDim { n: 100, src: 120, dst: 29 }, TDim { n: k, src: 2, dst: 1 }];
        assert_eq!(per(pairs(2), 8, true), (64, false));
        assert_eq!(per(pairs(5), 8, true), (1, false));
        // Rows one element apart whose blocks are 16 bytes: the partner tiles' shape (`planner::rows_as_partner`).
        let partner = vec![TDim { n: 100, src: 1, dst: 40 }, TDim { n: 4, src: 1000, dst: 1 }];
        assert_eq!(per(partner, 4, true).0, 1);
    }

    #[test]
    fn blocks_rows_and_shuffles_of_a_reversed_rgb_row() {
        // u8 image rows of 8 RGB pixels, pixels reversed: dims (rows 40: 24/24, pixels 8: -3/3, channels 3: 1/1).
        let mut dims =
            vec![TDim { n: 40, src: 24, dst: 24 }, TDim { n: 8, src: -3, dst: 3 }, TDim { n: 3, src: 1, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 1, true, 0).unwrap();
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
        let plan = TablePlan::build(&mut dims, 2, true, 0).unwrap();
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
    fn windows_reach_into_no_line_the_pass_does_not_read() {
        // i32, the last 3 elements of every 16 (12 bytes at the end of a line), three such groups in reverse order
        // 48 elements apart, rows of 144 elements (sweep2_199's block). The block's first element (the highest
        // group) lies 52 bytes into its line in a buffer that starts on a line.
        let dims =
            || vec![TDim { n: 28, src: 144, dst: 9 }, TDim { n: 3, src: -48, dst: 3 }, TDim { n: 3, src: 1, dst: 1 }];
        let phase = (13 * 4 + 2 * 48 * 4) % LINE;
        let placed = TablePlan::build(&mut dims(), 4, true, phase).unwrap();
        let blind = TablePlan::build(&mut dims(), 4, true, 0).unwrap();
        assert_eq!((placed.per, placed.block, placed.shift), (28, 9, -96));
        let line_at = 52;
        let line = |x: isize| (x + line_at).div_euclid(LINE as isize);
        let offsets = &placed.table.offsets;
        let read: std::collections::BTreeSet<isize> =
            offsets.iter().flat_map(|&o| [line(o as isize), line(o as isize + 3)]).collect();
        let unread = |c: &Chunks| {
            c.starts.iter().filter(|&&s| (line(s as isize)..=line(s as isize + 15)).any(|l| !read.contains(&l))).count()
        };
        let (placed_chunks, blind_chunks) = (placed.table.chunks.unwrap(), blind.table.chunks.unwrap());
        // Only the first row's lowest group, which no window may start below (the pass starts there), reaches
        // into a line of its own; placed blind, the windows of every group did.
        assert!(unread(&placed_chunks) <= 2, "{} windows reach unread lines", unread(&placed_chunks));
        assert!(unread(&blind_chunks) >= 28, "{}", unread(&blind_chunks));
        assert_eq!(placed_chunks.windows, blind_chunks.windows);
        // Both place windows that copy the same bytes.
        let (lo, hi) = pass_interval(placed.per, placed.row_src, placed.hull);
        let src: Vec<u8> = (0..hi - lo).map(|i| (i * 13 % 251) as u8).collect();
        let pass_bytes = placed.per * placed.block * 4;
        let expected: Vec<u8> =
            offsets.iter().flat_map(|&o| &src[(o as isize - lo) as usize..][..4]).copied().collect();
        assert_eq!(run_chunks(&placed_chunks, &src, -lo, pass_bytes), expected);
        assert_eq!(run_chunks(&blind_chunks, &src, -lo, pass_bytes), expected);
    }

    /// Pseudo-random numbers below `n` from a xorshift state seeded with `seed` (non-zero).
    fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut state = seed;
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        }
    }

    #[test]
    fn prefetch_requests_reach_every_line_a_pass_reads_wherever_it_starts() {
        // Pseudo-random passes of 1-8 byte elements, alone or in runs, sparse and dense: at every place of the
        // pass's pointer in its line, each request lands in a line the pass reads, and each line the pass reads
        // holds a request, but for the line of a cluster's last bytes fewer than END_MIN_BYTES past its last grid
        // point (at most 7 bytes: the tail of one element).
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut checked = 0;
        for _ in 0..400 {
            let esize = 1usize << next(4);
            let (run, spread) = (1 + next(40) as i32, 1 + next(300) as i32);
            let offsets: Vec<i32> = (0..1 + next(30))
                .flat_map(|_| {
                    let start = next(spread as u64 * 16) as i32 * esize as i32;
                    (0..run).map(move |i| start + i * esize as i32)
                })
                .collect();
            let sorted = sorted_distinct(&offsets);
            let requests = prefetch_lines(&sorted, esize);
            if requests.is_empty() {
                continue;
            }
            checked += 1;
            // The clusters' last bytes within END_MIN_BYTES of their last grid point may be missed.
            let bytes: std::collections::BTreeSet<isize> =
                sorted.iter().flat_map(|&o| o as isize..o as isize + esize as isize).collect();
            for at in 0..LINE as isize {
                let read: std::collections::BTreeSet<isize> = bytes.iter().map(|&b| line(b + at)).collect();
                let asked: std::collections::BTreeSet<isize> =
                    requests.iter().map(|&r| line(r as isize + at)).collect();
                assert!(asked.is_subset(&read), "a request outside the pass's lines at place {at}");
                for &b in &bytes {
                    if asked.contains(&line(b + at)) {
                        continue;
                    }
                    // A missed line holds only bytes fewer than END_MIN_BYTES past the request below them.
                    let below = requests.iter().map(|&r| r as isize).filter(|&r| r <= b).max();
                    assert!(
                        below.is_some_and(|r| b > r && ((b - r) as i64) < END_MIN_BYTES),
                        "byte {b} (esize {esize}, run {run}) unrequested at place {at}: requests {requests:?}"
                    );
                }
            }
        }
        assert!(checked > 100, "{checked} passes prefetched");
        // The rows of sweep1_141: 11 runs of 7 bytes 17 apart (177 bytes), rows 5491 bytes apart, 13 rows a pass.
        // Each row reads 3 or 4 lines by its place; the requests reach all of them at every place.
        let offsets: Vec<i32> =
            (0..13).flat_map(|r| (0..11).flat_map(move |q| (0..7).map(move |x| r * 5491 + q * 17 + x))).collect();
        let requests = prefetch_lines(&sorted_distinct(&offsets), 1);
        for at in 0..LINE as isize {
            for &o in &offsets {
                let read = line(o as isize + at);
                assert!(requests.iter().any(|&r| line(r as isize + at) == read), "place {at}, byte {o}");
            }
        }
    }

    #[test]
    fn placing_by_the_starts_where_a_count_changes_equals_counting_every_start() {
        // Pseudo-random passes (1-8 byte elements, sparse and dense offsets, every place step) and windows of 16
        // and 64 bytes: the start `place` picks is the one an exhaustive search picks, the highest of the fewest.
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..400 {
            let esize = 1 << next(4);
            let spread = 1 + next(200) as i32;
            let offsets: Vec<i32> = (0..1 + next(40)).map(|_| next(spread as u64 * 8) as i32 * esize as i32).collect();
            let hi = *offsets.iter().max().unwrap() as isize + esize as isize + next(70) as isize;
            let source = PassSource { lo: 0, hi, line_at: next(64) as usize, line_step: 1 << next(7) };
            let lines = PassLines::new(&sorted_distinct(&offsets), esize, source);
            // Each place's lines are those some element's bytes lie in; a place is left out only where the pass
            // reads every line of its interval.
            let phases = LINE / source.line_step;
            for k in 0..if phases <= PLACED_MAX_PHASES { phases } else { 0 } {
                let at = ((source.line_at + k * source.line_step) % LINE) as isize;
                let read: std::collections::BTreeSet<isize> = offsets
                    .iter()
                    .flat_map(|&o| (o as isize..o as isize + esize as isize).map(|b| line(b + at)))
                    .collect();
                match lines.places.iter().find(|p| p.0 == at) {
                    Some((_, kept)) => assert_eq!(kept, &read.into_iter().collect::<Vec<_>>()),
                    None => assert_eq!(read.len() as isize, line(hi - 1 + at) - line(at) + 1),
                }
            }
            for width in [16isize, 64] {
                if hi < width {
                    continue;
                }
                let first = next((hi - width + 1) as u64) as isize;
                let lowest = (first - next(width as u64) as isize).max(0);
                let every = (lowest..=first).rev().min_by_key(|&a| lines.unread(a, width)).unwrap();
                assert_eq!(
                    lines.place(lowest, first, width),
                    every,
                    "{offsets:?} {source:?} {width} {lowest}..={first}"
                );
            }
        }
    }

    /// Runs a pass the way the 64-byte kernel does, in safe code: per chunk, each window's bytes under its mask.
    fn run_chunks64(c: &Chunks64, src: &[u8], base: isize, pass_bytes: usize) -> Vec<u8> {
        let mut out = vec![0u8; pass_bytes];
        let count = c.starts.len() / c.windows;
        for i in 0..count {
            let at = if i + 1 == count { pass_bytes - 64 } else { i * 64 };
            let mut acc = [0u8; 64];
            for p in 0..c.pairs() {
                for b in (0..64).filter(|&b| c.windows == 1 || c.keep[i * c.pairs() + p] >> b & 1 == 1) {
                    let index = c.index[i][b];
                    let w = 2 * p + usize::from(index >> 6 & 1);
                    let start = (base + c.starts[i * c.windows + w] as isize) as usize;
                    acc[b] = src[start + (index & 63) as usize];
                }
            }
            out[at..at + 64].copy_from_slice(&acc);
        }
        out
    }

    /// The table pass of `dims` (one pass: `per == rows`) through its 64-byte form against the table itself, over a
    /// source that covers the pass interval.
    fn check_chunks64(mut dims: Vec<TDim>, esize: usize, windows: usize) {
        let plan = TablePlan::build(&mut dims, esize, false, 0).unwrap();
        let pass_bytes = plan.per * plan.block * esize;
        let (lo, hi) = pass_interval(plan.per, plan.row_src, plan.hull);
        let c = Chunks64::build(
            &plan.table.offsets,
            esize,
            pass_bytes,
            &PassLines::at(&plan.table.offsets, esize, lo, hi, 0),
        )
        .expect("a 64-byte form");
        assert_eq!(c.windows, windows);
        assert!(c.starts.iter().all(|&s| lo <= s as isize && s as isize + 64 <= hi));
        let src: Vec<u8> = (0..hi - lo).map(|i| (i * 7 % 251) as u8).collect();
        let base = -lo;
        let expected: Vec<u8> = plan
            .table
            .offsets
            .iter()
            .flat_map(|&o| (0..esize as isize).map(move |b| base + o as isize + b))
            .map(|i| src[i as usize])
            .collect();
        assert_eq!(run_chunks64(&c, &src, base, pass_bytes), expected);
    }

    #[test]
    fn passes_take_64_byte_windows() {
        // Reversed pixels of 7 i16 (14 bytes): a 64-byte chunk reads at most 78 bytes, two windows; 73 pixels per
        // pass (1022 bytes: the last chunk overlaps its predecessor).
        check_chunks64(vec![TDim { n: 73, src: 7, dst: 7 }, TDim { n: 7, src: -1, dst: 1 }], 2, 2);
        // Every third byte: 64 destination bytes from 190 source bytes, three windows (four, a power of two).
        check_chunks64(vec![TDim { n: 16, src: 192, dst: 64 }, TDim { n: 64, src: 3, dst: 1 }], 1, 4);
        // Rows read bottom-up: RGB pixels reversed within rows of 8, the rows backwards; 64 destination bytes from
        // parts of three rows, two windows.
        check_chunks64(
            vec![TDim { n: 40, src: -24, dst: 24 }, TDim { n: 8, src: -3, dst: 3 }, TDim { n: 3, src: 1, dst: 1 }],
            1,
            2,
        );
        // u64 pairs swapped: one window per chunk.
        check_chunks64(vec![TDim { n: 100, src: 2, dst: 2 }, TDim { n: 2, src: -1, dst: 1 }], 8, 1);
    }

    #[test]
    fn the_64_byte_form_is_taken_where_the_16_byte_form_needs_more_than_half_its_windows() {
        assert!(chunks64_pays(1, Some(1), 1) && chunks64_pays(2, Some(2), 2) && chunks64_pays(4, Some(3), 4));
        assert!(chunks64_pays(8, Some(6), 1) && chunks64_pays(8, Some(8), 2) && chunks64_pays(2, None, 8));
        assert!(!chunks64_pays(2, Some(1), 1) && !chunks64_pays(4, Some(2), 2) && !chunks64_pays(8, Some(4), 1));
        // Without a 16-byte form: at most a window per four elements of a chunk, or two.
        assert!(chunks64_pays(8, None, 1) && chunks64_pays(8, None, 2) && chunks64_pays(4, None, 4));
        assert!(!chunks64_pays(8, None, 4) && !chunks64_pays(4, None, 8) && chunks64_pays(2, None, 8));
        // Through the plan: rows of 42 bytes 690 apart (sweep3_134) take two 16-byte windows per half (a row and
        // the next), and four 64-byte ones per chunk (parts of three rows, rounded up): the 16-byte form only.
        let mut dims = vec![TDim { n: 24, src: 690, dst: 42 }, TDim { n: 42, src: 1, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 1, true, 0).unwrap();
        let (lo, hi) = pass_interval(plan.per, plan.row_src, plan.hull);
        let c64 = Chunks64::build(
            &plan.table.offsets,
            1,
            plan.per * plan.block,
            &PassLines::at(&plan.table.offsets, 1, lo, hi, 0),
        )
        .unwrap();
        assert_eq!((c64.windows, plan.table.chunks.as_ref().map(|c| c.windows)), (4, Some(2)));
        assert!(plan.table.chunks64.is_none());
    }

    #[test]
    fn no_64_byte_form_for_far_apart_elements_or_short_passes() {
        // u64 elements each from another row 1000 elements apart: 8 windows per chunk of 8 elements, above the
        // limit of 4 for 8-byte elements.
        let offsets: Vec<i32> = (0..64).map(|i| i * 8000).collect();
        assert!(Chunks64::build(&offsets, 8, 512, &PassLines::at(&offsets, 8, 0, 63 * 8000 + 8, 0)).is_none());
        // A pass of 48 bytes.
        let offsets: Vec<i32> = (0..48).rev().collect();
        assert!(Chunks64::build(&offsets, 1, 48, &PassLines::at(&offsets, 1, 0, 48, 0)).is_none());
        // A source interval shorter than a window (a broadcast of 4 bytes).
        let offsets: Vec<i32> = (0..128).map(|i| i % 4).collect();
        assert!(Chunks64::build(&offsets, 1, 128, &PassLines::at(&offsets, 1, 0, 4, 0)).is_none());
    }

    #[test]
    fn chunks_take_the_next_window_count_a_kernel_is_compiled_for() {
        let taken: Vec<usize> = (1..=8).map(chunk_windows).collect();
        assert_eq!(taken, [1, 2, 3, 4, 6, 6, 8, 8]);
        assert!(CHUNK_WINDOWS.windows(2).all(|w| w[0] < w[1]) && CHUNK_WINDOWS.last() == Some(&MAX_WINDOWS));
    }

    #[test]
    fn bytes_from_several_rows_take_up_to_eight_windows() {
        // u8, 3 elements at stride 4 per row, rows 22 bytes apart: 16 destination bytes come from parts of 6 rows,
        // 6 windows (the kernel for six); pairs of such elements 100 bytes apart: 8 rows, 8 windows.
        let mut dims = vec![TDim { n: 300, src: 22, dst: 3 }, TDim { n: 3, src: 4, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 1, true, 0).unwrap();
        let chunks = plan.table.chunks.as_ref().expect("at most 8 windows");
        assert_eq!(chunks.windows, 6);
        let src: Vec<u8> = (0..7000).map(|i| (i * 13 % 251) as u8).collect();
        let pass_bytes = plan.per * plan.block;
        let expected: Vec<u8> = plan.table.offsets.iter().map(|&o| src[o as usize]).collect();
        assert_eq!(run_chunks(chunks, &src, 0, pass_bytes), expected);
        let mut dims = vec![TDim { n: 64, src: 100, dst: 2 }, TDim { n: 2, src: 4, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 1, true, 0).unwrap();
        let chunks = plan.table.chunks.as_ref().expect("at most 8 windows");
        assert_eq!(chunks.windows, 8);
        let pass_bytes = plan.per * plan.block;
        let expected: Vec<u8> = plan.table.offsets.iter().map(|&o| src[o as usize]).collect();
        assert_eq!(run_chunks(chunks, &src, 0, pass_bytes), expected);
    }

    #[test]
    fn far_apart_wide_elements_stay_scalar_and_few_strided_output_rows_take_one_row_per_pass() {
        // u64 transposed pairs: every element from another row: no shuffle form.
        let mut dims = vec![TDim { n: 64, src: 1, dst: 2 }, TDim { n: 2, src: 1000, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 8, true, 0).unwrap();
        assert!(plan.table.chunks.is_none());
        assert_eq!((plan.per, plan.rows), (64, 64));
        // Rows of 3 elements 4 apart in the destination (padded output rows): one row per pass, below
        // SPACED_MIN_ROWS rows or without SIMD.
        for (n, simd) in [(15, true), (64, false)] {
            let mut dims = vec![TDim { n, src: 6, dst: 4 }, TDim { n: 3, src: 2, dst: 1 }];
            let plan = TablePlan::build(&mut dims, 4, simd, 0).unwrap();
            assert_eq!((plan.per, plan.block, plan.row_dst), (1, 3, 16));
            // 12 bytes from a hull of 20: no row shuffle.
            assert_eq!(plan.table.row_shuffle, None);
        }
        // From 16 rows on, passes of the rows as if contiguous, through the stage (`spaced_rows`).
        let mut dims = vec![TDim { n: 64, src: 6, dst: 4 }, TDim { n: 3, src: 2, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 4, true, 0).unwrap();
        assert_eq!((plan.per, plan.block, plan.row_dst), (64, 3, 16));
        assert!(plan.table.shuffles());
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
        let plan = TablePlan::build(&mut dims, 1, true, 0).unwrap();
        assert_eq!((plan.per, plan.block, plan.hull), (1, 5, 9));
        let r = plan.table.row_shuffle.as_ref().unwrap();
        assert_eq!((r.bytes, r.width), (5, 4));
        let window: [u8; 16] = std::array::from_fn(|i| 100 + i as u8);
        assert_eq!(run_row(r, &window), [100, 102, 104, 106, 108]);
        // f16 pairs reversed (2 elements, -1 apart) into padded rows: one 4-byte store (both masks the same).
        let mut dims = vec![TDim { n: 30, src: 7, dst: 18 }, TDim { n: 2, src: -1, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 2, true, 0).unwrap();
        let r = plan.table.row_shuffle.as_ref().unwrap();
        assert_eq!((r.bytes, r.width), (4, 4));
        assert_eq!(run_row(r, &window), [102, 103, 100, 101]);
        // One f16 broadcast 8 times (a fill of 16 bytes from a hull of 2).
        let mut dims = vec![TDim { n: 11, src: 112, dst: 39 }, TDim { n: 8, src: 0, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 2, true, 0).unwrap();
        let r = plan.table.row_shuffle.as_ref().unwrap();
        assert_eq!((r.bytes, r.width, plan.hull), (16, 16, 2));
        assert_eq!(run_row(r, &window), [100, 101].repeat(8));
        // 7 f32 of one element (28 bytes): two 16-byte stores.
        let mut dims = vec![TDim { n: 40, src: 14, dst: 20 }, TDim { n: 7, src: 0, dst: 1 }];
        let plan = TablePlan::build(&mut dims, 4, true, 0).unwrap();
        let r = plan.table.row_shuffle.as_ref().unwrap();
        assert_eq!((r.bytes, r.width), (28, 16));
        assert_eq!(run_row(r, &window), [100, 101, 102, 103].repeat(7));
        // Without SIMD, or with contiguous rows (passes of many rows): none.
        let mut dims = vec![TDim { n: 300, src: 22, dst: 6 }, TDim { n: 5, src: 2, dst: 1 }];
        assert_eq!(TablePlan::build(&mut dims, 1, false, 0).unwrap().table.row_shuffle, None);
        let mut dims = vec![TDim { n: 300, src: 22, dst: 5 }, TDim { n: 5, src: 2, dst: 1 }];
        assert_eq!(TablePlan::build(&mut dims, 1, true, 0).unwrap().table.row_shuffle, None);
    }
}
