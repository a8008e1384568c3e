//! Source reuse: tiles of the inner kernel for outer loops that read again what the loops inside them read.
//!
//! An outer loop whose source step is shorter than the bytes one of its steps reads (a window sliding by a few
//! elements, an input whose strides overlap, a broadcast dimension that cannot be replicated) reads those bytes again
//! at its next step. When one step reads more than the cache holds, every re-read comes from memory: seven steps 6
//! bytes apart over a 120 MiB table copy moved the 120 MiB seven times and ran at 0.08 of the roofline, which counts
//! each line once. The planner then takes the inner kernel in *tiles* of its count (rows of a table or of short rows,
//! bytes of a copy, the long side of a transpose), the tile loop outermost and every outer loop inside it, so that
//! the steps that read a tile again find its lines in cache. Only the order of the element pairs changes.
//!
//! The estimate is in cache lines, not byte spans: a table whose rows are 68 KiB apart and read 4 lines each reads
//! 8 KiB for 32 rows, not the 2 MiB they span.

use crate::kernels::{Split, inner_count};
use crate::planner::{Dim, Inner};
use crate::table::{LINE, Table};

/// The tile, in units of the inner kernel's count (a multiple of its split grain, fewer than the whole count), when
/// some outer loop re-reads more than `budget` bytes per step: the largest tile under which it re-reads at most
/// `budget`, or one grain when even that re-reads more, and then at least enough grains for a call to write
/// [`TILE_MIN_CALL_BYTES`]. `None` when no loop re-reads, its bytes already fit, a loop is replicated (its block is
/// the whole kernel's), or only the whole count writes that many bytes.
pub(crate) fn tile(outer: &[Dim], inner: Inner, table: Option<&Table>, esize: usize, budget: usize) -> Option<usize> {
    if outer.is_empty() || outer.iter().any(|d| d.replicate) {
        return None;
    }
    let (count, grain) = inner_count(inner);
    let grains = count.div_ceil(grain);
    if grains < 2 {
        return None;
    }
    let sub = |units: usize| Split::sub_kernel(inner, 0, units.min(count), esize).0;
    let distance = |units: usize| reread_distance(outer, kernel_reads(sub(units), table, esize));
    if distance(count)? <= budget {
        return None;
    }
    // The largest number of grains whose tile fits (the distance grows with the tile); one grain when none does
    // (the re-reads are then as near as tiles of this kernel can bring them).
    let (mut lo, mut hi) = (1, grains - 1);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if distance(mid * grain).is_some_and(|d| d <= budget) { lo = mid } else { hi = mid - 1 }
    }
    // Every tile runs the outer loops again, one call of the kernel per step, so a call must write enough to pay
    // for itself: tiles of one 12-byte table row (sweep3_085) ran the 3348 calls of the untiled copy six times, for
    // re-reads that came from L2 anyway, and took 2.3-4x its time (`docs/PERFORMANCE.md`, twenty-fifth round).
    // The bytes a call writes grow with its units, one grain's worth per grain.
    let least = TILE_MIN_CALL_BYTES.div_ceil(written_bytes(sub(grain), esize).max(1));
    let lo = lo.max(least);
    (lo < grains).then_some(lo * grain)
}

/// The tile, in rows `a` of a transpose (its count when a split divides its rows, `split.rs::inner_count`), under outer
/// loops that write again the destination rows one call writes: a loop stepping less than the rows' stride continues or
/// interleaves each row, so every call leaves a partial line at the ends of each row's piece, which a later step of
/// that loop completes. When more than `budget` bytes are written in between (a call and the loops inside the innermost
/// such loop), those lines have left L1 by then and are fetched for ownership again. In tiles of rows spanning at most
/// `budget` (at least [`TILE_MIN_SOURCE_RUN`] bytes of each source row), the tile loop outermost, the outer loops
/// complete a tile's lines while they are in L1. `None` when no loop writes the rows again, the lines are completed
/// within the budget already, a loop is replicated, a split divides the columns instead (the count is then `nb`), or
/// one tile would hold every row.
///
/// f64 rows of 152 elements written 19 at a time by 8 calls, 1109 rows (sweep3_197 of `--sweep 200 --seed 3`): 0.60
/// of the time; six more sweep cases 0.58-0.99 (six alternating rounds, `docs/PERFORMANCE.md`, thirtieth round).
/// Rows completed within a call's 9 KiB (sweep1_184) took 1.27x the time in tiles of 64 rows (1.5x in tiles of 32).
pub(crate) fn destination_tile(outer: &[Dim], inner: Inner, esize: usize, budget: usize) -> Option<usize> {
    let Inner::Transpose { na, a_dst, nb, .. } = inner else { return None };
    let (count, grain) = inner_count(inner);
    if count != na || outer.iter().any(|d| d.replicate) {
        return None;
    }
    let rows_apart = a_dst.unsigned_abs();
    let last = outer.iter().rposition(|d| d.dst.unsigned_abs() < rows_apart)?;
    let call = na.saturating_mul(nb).saturating_mul(esize);
    let between = outer[last + 1..].iter().fold(call, |bytes, d| bytes.saturating_mul(d.n));
    if between <= budget || na.saturating_mul(rows_apart) <= budget {
        return None;
    }
    let rows = (budget / rows_apart).max(TILE_MIN_SOURCE_RUN / esize.max(1));
    let tile = (rows / grain).max(1).saturating_mul(grain);
    (tile < na).then_some(tile)
}

/// The fewest bytes of each source row a tile of [`destination_tile`] reads: the transpose's chunks read 256 bytes
/// of a row at a time, and tiles of 256 bytes of each of 11 f64 rows 320 KB apart (sweep1_184) ran 1.5x the untiled
/// time.
const TILE_MIN_SOURCE_RUN: usize = 512;

/// Moves innermost the outer loops that read again the lines one call of `inner` reads (a source step shorter than
/// a line of those reads: a window sliding by a few elements, channels taken a few at a time out of pixels), when
/// between their re-reads, where they are, more than `budget` bytes are read; kept only where that brings the
/// re-reads within `budget`. Tiles of the kernel cannot do that when even one of its units under the other loops
/// reads more: 12 bytes of each of 29 pixels 1056 bytes apart, read again 44 times 12 bytes further under 3432 calls
/// (sweep3_142 of `--sweep 200 --seed 3`), re-read every line from memory, 7 MiB later; innermost, the 44 steps read
/// the same 29 lines from L1 (0.57 of the time; two more sweep cases 0.50 and 0.49, one 1.05-1.14;
/// `docs/PERFORMANCE.md`, twenty-eighth round). Nothing moves when a loop broadcasts (step 0): the planner's
/// replication of such a loop needs the contiguous blocks of the loops inside it, which a moved loop could break.
/// Returns whether the order changed.
pub(crate) fn rereading_loops_inside(
    outer: &mut Vec<Dim>,
    inner: Inner,
    table: Option<&Table>,
    esize: usize,
    budget: usize,
) -> bool {
    if outer.iter().any(|d| d.src == 0) {
        return false;
    }
    let kernel = kernel_reads(inner, table, esize);
    if reread_distance(outer, kernel).is_none_or(|d| d <= budget) {
        return false;
    }
    let (rereading, others): (Vec<Dim>, Vec<Dim>) = outer.iter().partition(|d| kernel.overlaps(d.src));
    if rereading.is_empty() || others.is_empty() {
        return false;
    }
    let moved: Vec<Dim> = others.into_iter().chain(rereading).collect();
    if reread_distance(&moved, kernel).is_some_and(|d| d > budget) {
        return false;
    }
    *outer = moved;
    true
}

/// The fewest bytes a tile's call of the inner kernel writes: a cache line.
const TILE_MIN_CALL_BYTES: usize = LINE;

/// The bytes one call of `inner` writes.
fn written_bytes(inner: Inner, esize: usize) -> usize {
    match inner {
        // `dst_block` gives a scatter's contiguous block, one element; the call writes `n` of them.
        Inner::Scatter { n, .. } => n.saturating_mul(esize),
        _ => inner.dst_block(esize).map_or(usize::MAX, |(_, bytes)| bytes),
    }
}

/// What a walk of the source reads, estimated in lines: `bytes`, the bytes of the distinct lines it reads, and
/// `dense`, the shortest run of bytes it reads without a gap of a line around any element it reads (a step shorter
/// than that reads some of the same lines again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reads {
    bytes: usize,
    dense: usize,
}

impl Reads {
    /// One element.
    fn element(esize: usize) -> Reads {
        Reads { bytes: esize.max(LINE), dense: esize }
    }

    /// Whether a step of `stride` reads some of these lines again.
    fn overlaps(self, stride: isize) -> bool {
        stride.unsigned_abs() < self.dense.max(LINE)
    }

    /// `n` steps of `stride` over these reads: one longer run when the steps are dense (within a line of each
    /// other), `n` separate copies otherwise.
    fn walk(self, n: usize, stride: isize) -> Reads {
        let s = stride.unsigned_abs();
        let more = n.saturating_sub(1).saturating_mul(s);
        if s <= self.dense.max(LINE) {
            Reads { bytes: self.bytes.saturating_add(more), dense: self.dense.saturating_add(more) }
        } else {
            Reads { bytes: self.bytes.saturating_mul(n), dense: self.dense }
        }
    }
}

/// The bytes read between two reads of the same line by the outermost loop of `outer` that reads some of its lines
/// again (one step of that loop), around an inner kernel that reads `kernel`; `None` when no loop does.
fn reread_distance(outer: &[Dim], kernel: Reads) -> Option<usize> {
    let mut reads = kernel;
    let mut distance = None;
    for d in outer.iter().rev() {
        if reads.overlaps(d.src) {
            distance = Some(reads.bytes);
        }
        reads = reads.walk(d.n, d.src);
    }
    distance
}

/// What one call of `inner` reads: its footprint's walks, shortest stride first; a table row reads the lines of
/// its offsets (each extended over the partner's steps).
fn kernel_reads(inner: Inner, table: Option<&Table>, esize: usize) -> Reads {
    if let (Inner::Table(c), Some(t)) = (inner, table) {
        let reach = esize + c.na.saturating_sub(1) * c.a_src.unsigned_abs();
        return row_reads(&t.offsets[..c.block.min(t.offsets.len())], reach).walk(c.rows, c.row_src);
    }
    let mut walks = inner.footprint(esize).src;
    walks.sort_by_key(|&(_, s)| s.unsigned_abs());
    walks.iter().fold(Reads::element(esize), |reads, &(n, s)| reads.walk(n, s))
}

/// What one table row reads: the elements at `offsets`, each `reach` bytes long, grouped into runs without a gap of a
/// line.
fn row_reads(offsets: &[i32], reach: usize) -> Reads {
    let mut sorted: Vec<i64> = offsets.iter().map(|&o| i64::from(o)).collect();
    sorted.sort_unstable();
    let reach = reach as i64;
    let line = LINE as i64;
    let (mut bytes, mut dense) = (0i64, i64::MAX);
    let mut run: Option<(i64, i64)> = None;
    for o in sorted {
        run = match run {
            Some((first, end)) if o <= end + line => Some((first, end.max(o + reach))),
            Some((first, end)) => {
                bytes += (end - first).max(line);
                dense = dense.min(end - first);
                Some((o, o + reach))
            }
            None => Some((o, o + reach)),
        };
    }
    if let Some((first, end)) = run {
        bytes += (end - first).max(line);
        dense = dense.min(end - first);
    }
    Reads { bytes: bytes.max(line) as usize, dense: dense.clamp(1, i64::MAX) as usize }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::TableCall;

    fn dim(n: usize, src: isize) -> Dim {
        Dim { n, src, dst: 1 << 30, replicate: false }
    }

    #[test]
    fn re_reading_loops_are_found() {
        let run = |bytes| Reads { bytes, dense: bytes };
        // Seven steps 6 bytes apart over 1 MiB: re-read, one step apart.
        assert_eq!(reread_distance(&[dim(7, 6)], run(1 << 20)), Some(1 << 20));
        // Steps beyond the bytes read: never re-read.
        assert_eq!(reread_distance(&[dim(7, 1 << 20)], run(1 << 20)), None);
        // The outermost re-reading loop counts every loop inside it: 8 separate copies of 1 MiB, then a loop 1 byte
        // apart.
        assert_eq!(reread_distance(&[dim(3, 1), dim(8, 1 << 21)], run(1 << 20)), Some(8 << 20));
        // A broadcast loop re-reads.
        assert_eq!(reread_distance(&[dim(3, 0)], run(4096)), Some(4096));
        // Single 8-byte elements 5 KiB apart: a step of 8 bytes reads the same lines, one of 120 bytes does not.
        let sparse = Reads::element(8).walk(4, 5240);
        assert_eq!(sparse, Reads { bytes: 256, dense: 8 });
        assert_eq!(reread_distance(&[dim(5, 8)], sparse), Some(256));
        assert_eq!(reread_distance(&[dim(5, 120)], sparse), None);
    }

    #[test]
    fn dense_gathers_read_their_span() {
        // Every other f16 of 10 KiB: one run of lines, not a line per element; the next run 4 bytes past its end
        // does not read it again.
        let gather = kernel_reads(Inner::Gather { n: 2711, src: -4 }, None, 2);
        assert_eq!(gather, Reads { bytes: 64 + 2710 * 4, dense: 2 + 2710 * 4 });
        assert_eq!(reread_distance(&[dim(14, 10844)], gather), None);
    }

    #[test]
    fn loops_that_reread_a_calls_lines_from_afar_go_innermost() {
        // sweep3_142: 12 bytes of 29 pixels 1056 bytes apart, read again 44 times 12 bytes further, outermost over
        // 3432 calls: 7 MiB between re-reads. Innermost, a call's 29 lines apart (the other loops keep their order).
        let call = Inner::Transpose { na: 12, a_src: 1, a_dst: 29, nb: 29, b_src: -1056 };
        let mut outer = vec![dim(44, 12), dim(22, 122_496), dim(39, 2_694_912), dim(4, 30_624)];
        assert!(rereading_loops_inside(&mut outer, call, None, 1, 64 << 10));
        let order: Vec<(usize, isize)> = outer.iter().map(|d| (d.n, d.src)).collect();
        assert_eq!(order, [(22, 122_496), (39, 2_694_912), (4, 30_624), (44, 12)]);
        // Already innermost, or re-reads within the budget: no change.
        assert!(!rereading_loops_inside(&mut outer, call, None, 1, 64 << 10));
        let mut near = vec![dim(44, 12), dim(4, 30_624)];
        assert!(!rereading_loops_inside(&mut near, call, None, 1, 64 << 10));
        // Steps of a line or more re-read nothing; nothing moves beside a broadcast loop (left to the replication).
        let mut apart = vec![dim(44, 64), dim(22, 122_496), dim(39, 2_694_912)];
        assert!(!rereading_loops_inside(&mut apart, call, None, 1, 64 << 10));
        let mut broadcast = vec![dim(44, 0), dim(22, 122_496), dim(39, 2_694_912)];
        assert!(!rereading_loops_inside(&mut broadcast, call, None, 1, 64 << 10));
        let mut beside = vec![dim(44, 12), dim(22, 122_496), dim(39, 2_694_912), dim(3, 0), dim(4, 30_624)];
        assert!(!rereading_loops_inside(&mut beside, call, None, 1, 64 << 10));
    }

    #[test]
    fn transposes_whose_rows_an_outer_loop_writes_again_take_tiles_of_rows() {
        let out = |n, dst| Dim { n, src: 1 << 20, dst, replicate: false };
        // sweep3_197: 1109 f64 rows 1216 bytes apart, 19 columns a call, 8 calls 152 bytes apart along the rows:
        // tiles of 64 rows (512 bytes of each source row; 64 KiB would hold 53 rows).
        let rows_by = |na, nb| Inner::Transpose { na, a_src: 8, a_dst: 1216, nb, b_src: 88720 };
        let call = rows_by(1109, 19);
        assert_eq!(destination_tile(&[out(8, -152)], call, 8, 64 << 10), Some(64));
        // Rows 80 bytes apart: as many as span 64 KiB, whole grains of 8.
        let close = Inner::Transpose { na: 2165, a_src: 8, a_dst: 80, nb: 5, b_src: 2917824 };
        assert_eq!(destination_tile(&[out(2, 40)], close, 8, 64 << 10), Some(816));
        // sweep1_184: 107 rows, 11 columns a call, completed by the innermost loop of 6 steps 88 bytes apart: 9 KiB
        // written in between. Completed only after a loop of 8 steps 4 MiB apart inside the continuing one: tiles.
        let near = Inner::Transpose { na: 107, a_src: 8, a_dst: 50688, nb: 11, b_src: 328704 };
        let far = Dim { n: 8, src: 1 << 20, dst: 1 << 22, replicate: false };
        assert_eq!(destination_tile(&[out(32, 528), out(6, 88)], near, 8, 64 << 10), None);
        assert_eq!(destination_tile(&[out(6, 88), far], near, 8, 64 << 10), Some(64));
        // No loop writes the rows again; the rows span less than the budget; a tile would hold every row.
        assert_eq!(destination_tile(&[out(8, 1 << 20)], call, 8, 64 << 10), None);
        assert_eq!(destination_tile(&[out(8, 152)], call, 8, 2 << 20), None);
        assert_eq!(destination_tile(&[out(8, 152)], rows_by(60, 19), 8, 64 << 10), None);
        // The columns are the longer side (the count tiles would divide); a replicated loop; another kernel.
        assert_eq!(destination_tile(&[out(8, 152)], rows_by(1109, 2000), 8, 64 << 10), None);
        let replicated = Dim { n: 3, src: 0, dst: 1 << 22, replicate: true };
        assert_eq!(destination_tile(&[replicated, out(8, 152)], call, 8, 64 << 10), None);
        assert_eq!(destination_tile(&[out(8, 152)], Inner::Copy { bytes: 1 << 20 }, 8, 64 << 10), None);
    }

    #[test]
    fn tiles_a_copy_under_a_sliding_loop() {
        // A 64 MiB copy read again 7 times 6 bytes further: tiles of at most 256 KiB, whole lines.
        let t = tile(&[dim(7, 6)], Inner::Copy { bytes: 64 << 20 }, None, 1, 256 << 10).unwrap();
        assert!(t <= 256 << 10 && t > 128 << 10 && t.is_multiple_of(64), "{t}");
        // Under the budget already, or steps that do not overlap: no tiles.
        assert_eq!(tile(&[dim(7, 6)], Inner::Copy { bytes: 64 << 10 }, None, 1, 256 << 10), None);
        assert_eq!(tile(&[dim(7, 64 << 20)], Inner::Copy { bytes: 64 << 20 }, None, 1, 256 << 10), None);
        // A replicated loop is not re-read.
        let replicated = Dim { n: 7, src: 0, dst: 64 << 20, replicate: true };
        assert_eq!(tile(&[replicated], Inner::Copy { bytes: 64 << 20 }, None, 1, 256 << 10), None);
    }

    #[test]
    fn table_rows_count_their_lines_not_their_span() {
        // Rows 68 KiB apart reading 4 elements 5 KiB apart (4 lines): 32 rows read 8 KiB, not 2 MiB.
        let offsets: Vec<i32> = (0..32).flat_map(|r| (0..4).map(move |k| r * 68120 + k * 5240)).collect();
        let table =
            Table { offsets, chunks: None, chunks64: None, lines: Vec::new(), followed: false, row_shuffle: None };
        let call = TableCall {
            rows: 1735,
            row_src: 68120,
            row_dst: 32,
            per: 32,
            block: 4,
            hull: 15728,
            na: 1,
            a_src: 0,
            a_dst: 0,
        };
        let pass = kernel_reads(Inner::Table(TableCall { rows: 32, ..call }), Some(&table), 8);
        assert_eq!(pass, Reads { bytes: 32 * 4 * 64, dense: 8 });
        // Under a loop 8 bytes apart (the same lines) the whole call re-reads 434 KiB per step: tiles of whole
        // passes; a loop 120 bytes apart around it reads other lines.
        let t = tile(&[dim(39, 120), dim(5, 8)], Inner::Table(call), Some(&table), 8, 256 << 10).unwrap();
        assert!(t.is_multiple_of(32) && t < 1735 && t * 256 <= 256 << 10, "{t}");
        // With a partner of 167 steps each element reads 334 bytes: a loop 696 bytes apart reads other lines.
        let partner = TableCall { rows: 154, row_src: 10440, na: 167, a_src: 2, a_dst: 2772, ..call };
        assert_eq!(tile(&[dim(11, 696)], Inner::Table(partner), Some(&table), 2, 1 << 10), None);
    }

    #[test]
    fn a_tile_writes_at_least_a_line_per_call() {
        // sweep3_085: six rows of six u16 (12 bytes each) read 132 bytes apart backwards, under loops stepping 48
        // bytes (re-reading them) and 11880, 792 and 463320 bytes. A tile of one row (its grain) would write 12
        // bytes a call; none of fewer than six rows (the whole call) writes a line: no tiles.
        let table = |offsets: Vec<i32>| Table {
            offsets,
            chunks: None,
            chunks64: None,
            lines: Vec::new(),
            followed: false,
            row_shuffle: None,
        };
        let call =
            TableCall { rows: 6, row_src: -132, row_dst: 140, per: 1, block: 6, hull: 12, na: 1, a_src: 0, a_dst: 0 };
        let outer = [dim(3, 48), dim(31, 11880), dim(9, 792), dim(4, 463320)];
        let narrow = table((0..6).map(|k| 2 * k).collect());
        assert_eq!(tile(&outer, Inner::Table(call), Some(&narrow), 2, 64 << 10), None);
        // With rows of 32 u16 (64 bytes), one row is a line: tiles of a row, as the re-reads ask.
        let wide = TableCall { block: 32, hull: 64, ..call };
        let wide_table = table((0..32).map(|k| 2 * k).collect());
        assert_eq!(tile(&outer, Inner::Table(wide), Some(&wide_table), 2, 64 << 10), Some(1));
        // Rows of 16 bytes under a budget that even one row exceeds: four rows a tile, the fewest that write a
        // line (a budget of 64 KiB takes more rows, as the re-reads ask).
        let quarter = TableCall { block: 8, hull: 16, rows: 600, row_dst: 16, ..call };
        let quarter_table = table((0..8).map(|k| 2 * k).collect());
        let outer = [dim(3, 48), dim(31, 1 << 20)];
        assert_eq!(tile(&outer, Inner::Table(quarter), Some(&quarter_table), 2, 8), Some(4));
        assert!(tile(&outer, Inner::Table(quarter), Some(&quarter_table), 2, 64 << 10).is_some_and(|t| t > 4));
        // A scatter writes an element per step of its count, not one element a call.
        assert_eq!(written_bytes(Inner::Scatter { n: 15, src: 2727990, dst: 3 }, 2), 30);
    }
}
