//! The CPU planner: turns a [`Slice1Plan`] into a [`Program`], the fewest loops around one inner kernel.
//!
//! It builds on the model's normalised view ([`Slice1Plan::normalized`]: size-1 dimensions dropped, dimensions
//! ordered by output stride, dimensions contiguous on both sides merged), which every backend shares, and adds only
//! what is CPU-specific (all pure traversal changes: every (source, destination) element pair is kept):
//!
//! 1. **Pick the inner kernel** from the innermost dimension: a contiguous run (bulk copy), a reversed run, a fill
//!    (source stride 0), a strided gather, a cache-blocked transpose (when the innermost source stride is large and
//!    another dimension reads contiguously), or a general strided scatter when the output itself is strided.
//! 2. **Flip backward outer loops** when the copy will use streaming stores: an outer dimension with a negative
//!    source stride is walked from its other end on both sides (source stride made positive, destination stride
//!    negative, both start offsets moved to the far end). Only the order changes, so that reads run forward, which
//!    this machine's hardware prefetcher needs (a copy reading 1 KiB rows bottom-up runs at a third of the speed),
//!    while streaming stores do not care about direction. Not when the inner calls store ordinarily all the same
//!    (short rows below a stage's worth, [`crate::kernels::stores_ordinarily`]): their requests for ownership
//!    need a rising destination more than the reads need a rising source (68-byte rows under loops read last to
//!    first, sweep1_108: 0.24 of the roofline flipped, 0.40 not; `docs/PERFORMANCE.md`, fortieth round).
//!    Nor an innermost loop whose calls write adjacent blocks that only a rising loop streams through the stage
//!    ([`crate::kernels::stage_block`]). Transposes into contiguous pixels whose calls write only a few lines, and
//!    gathers, reverses and fills of short blocks that share lines, do not stream at all ([`short_pixels`],
//!    [`short_calls`]).
//!    Before that, the outer loops keep the destination's order (consecutive calls write nearby bytes), except that
//!    loops that read again, from beyond the reuse budget, the lines of one call go innermost
//!    ([`crate::reuse::rereading_loops_inside`]).
//! 3. **Mark replicable dimensions**: a broadcast (source stride 0) dimension over a destination-contiguous block is
//!    executed once and then copied block by block (to adjacent steps, or to steps spaced by the output's padding).
//! 4. **Tile for source reuse** ([`crate::reuse`]): when an outer loop reads again, from beyond the cache, bytes the
//!    loops inside it read, the inner kernel is taken in tiles under every outer loop; so is a transpose whose
//!    destination rows an outer loop writes again, so that their partial lines are completed while in L1.

use crate::ExecOptions;
use crate::kernels::{
    ADJACENT_BLOCK_MIN, MOVES_MAX_BYTES, SHORT_ROW_MAX_BYTES, TableCall, broadcast_rows, narrow_partner, short_partner,
    stage_block, stores_ordinarily, tile_size,
};
use crate::table::{BLOCK_MAX_BYTES, SMALL_GATHER_MAX_BYTES, SMALL_RUN_MAX_BYTES, TDim, Table, TablePlan};
use std::sync::Arc;
use stridekit::Slice1Plan;

/// The largest transpose call (bytes written) that [`ragged`] sends through a table. Small calls under outer loops
/// pay the tiles' set-up (chunks, prefetches, edges) at every step, where the table computed its offsets when the
/// operator was prepared; large ones amortise it, and the transpose's cache blocking and streaming pay.
///
/// Measured over the eight transposes of `stridekit bench --sweep 200 --sweep-max-bytes 64M` seeds 1-4 that a
/// table takes when contiguous rows are allowed, and the three such case-file transposes (`bench/transposes.json`):
/// a run of four alternating rounds, then two of six; time ratios table / tiles in the two of six
/// (`docs/PERFORMANCE.md`, twenty-fourth round): calls of 0.4-136 KiB with edges of 11-100% 0.50 and 0.51 (sweep4_162, 20 pixels of 5 u32 a call),
/// 0.79 and 0.82 (sweep3_024), 0.81 and 0.85 (sweep2_091), 0.88 and 0.95 (sweep1_074), 0.85 and 1.03 (sweep1_171),
/// 1.05 and 0.98 (sweep3_152); edges of 2-4% 1.09 (sweep1_081) and 1.24 (sweep4_018); whole images of 6 f32 or f16
/// planes into pixels 1.25 and 1.36 (`t_f32_chw6_to_hwc`, `t_f16_chw6_to_hwc`, 12 u8 planes 0.74), and, in the
/// first run, single calls of 1 and 53 MiB 1.46 and 5.2 (sweep2_058, sweep2_053, edges of 6%).
const SMALL_TRANSPOSE_MAX_BYTES: usize = 256 << 10;

/// The source step (bytes) from which each source row of a small transpose ([`small_run`]) reads lines of its own:
/// from it, such a transpose goes through a table even without a partner for it (step 1b). The seven cases of
/// `stridekit bench --sweep 200 --sweep-max-bytes 64M` seeds 1-16 that change plan (`bench/small_transposes.json`),
/// six alternating rounds, time ratios table / tiles (`docs/PERFORMANCE.md`, forty-fourth round): rows 84 bytes
/// apart 0.30 (sweep11_014, 6 x 7 f32), 1904 bytes 0.66 (sweep7_023), 7296 bytes 0.17 (sweep11_112), 14 KB to
/// 5.6 MB 0.23-0.78 (sweep16_063, sweep10_121, sweep11_095, sweep3_029); geometric mean 0.39. Rows 34 bytes apart
/// (sweep1_098, 8 x 11 u16, several rows to a line) keep the tiles: the table's walk took 1.47x their time.
const FAR_ROW_BYTES: usize = 64;

/// Whether the SIMD tiles of a transpose of `na` rows of `nb` elements of `e` bytes leave at least a tenth of its
/// elements to their scalar edge (the rows and columns outside whole tiles, [`tile_size`]). A small such transpose
/// into contiguous rows ([`SMALL_TRANSPOSE_MAX_BYTES`]) goes through a table whose partner tiles take the
/// transpose's rows (step 1b), 16 bytes of them per offset, with no edge but the last partial tile.
fn ragged(na: usize, nb: usize, e: usize) -> bool {
    let t = tile_size(e);
    let all = na.saturating_mul(nb);
    let whole = (na / t * t).saturating_mul(nb / t * t);
    all.saturating_sub(whole).saturating_mul(10) >= all
}

/// The largest block of fills that step 2 replicates (half the L2 of the development machine): above it the fills run
/// again. `broadcast_chan_f32` (4 MiB blocks of per-channel fills broadcast 32 times) ran at 0.62 of a copy's speed
/// per byte replicated and 0.79-0.85 with the fills run again (one run each, 2 threads, under load).
const REPLICATE_FILL_MAX_BLOCK: usize = 256 << 10;

/// Planner dimensions from table dimensions (the same numbers).
fn dims_of(t: &[TDim]) -> Vec<PDim> {
    t.iter().map(|d| PDim { n: d.n, src: d.src, dst: d.dst }).collect()
}

/// Whether `inner` is a small run that the table kernel does better, with the dimensions around it: a gather of at
/// most [`SMALL_GATHER_MAX_BYTES`], a reversed run of at most a table block ([`BLOCK_MAX_BYTES`]), a fill of at most
/// [`SMALL_RUN_MAX_BYTES`], a short copy under a
/// broadcast, short rows whose call moves at most [`BLOCK_MAX_BYTES`] (the short-row kernel keeps longer walks
/// of short runs, which its periodic shuffle covers), or a transpose of at most [`BLOCK_MAX_BYTES`] a call. Only
/// with dimensions around it (`outer`): a single small call is cheap.
///
/// The reversed runs of 65-256 bytes: the five cases of the sweep seeds 1-4 that change plan, six alternating rounds,
/// time ratios table / reverse (`docs/PERFORMANCE.md`, thirty-ninth round): 0.52 (sweep3_117, 15 f64 from rows 1440
/// bytes apart, each written twice), 0.69 (sweep4_154, 55 u16 under rows bottom-up), 0.77 (sweep2_075, 44 f32),
/// 0.82 (sweep1_019, 103 u16), 0.83 (sweep3_154, 29 f32); one call per row of a few lines cost more than its bytes.
/// Runs of 65-128 bytes alone (the gathers' limit) gave 0.52-1.01.
///
/// The transposes: the four cases of `stridekit bench --sweep 200 --sweep-max-bytes 64M` seeds 1-4 that change
/// plan, six alternating rounds, time ratios table / transpose (`docs/PERFORMANCE.md`, twenty-fourth round): 0.13
/// (sweep3_093, 8 x 6 bytes a call), 0.18 (sweep2_198, 3 x 8 u16 whose 8 lie 9.5 MB apart; NumPy had taken a third
/// of stridekit's time), 0.35 (sweep2_069, 7 x 8 bytes), 0.56 (sweep2_057, 6 x 3 u64).
fn small_run(inner: Inner, esize: usize, outer: bool) -> bool {
    outer
        && match inner {
            Inner::Gather { n, .. } => n * esize <= SMALL_GATHER_MAX_BYTES,
            Inner::Reverse { n } => n * esize <= BLOCK_MAX_BYTES,
            Inner::Fill { n } => n * esize <= SMALL_RUN_MAX_BYTES,
            Inner::Copy { bytes } => bytes <= SMALL_RUN_MAX_BYTES,
            // Short rows whose whole call is a few hundred bytes: the table takes the dimension around them too.
            Inner::Rows { rows, bytes, .. } => rows.saturating_mul(bytes) <= BLOCK_MAX_BYTES,
            // A transpose whose whole call is at most a table block (3 x 8 u16, each of the 8 in a page of its
            // own): the tiles' set-up and edges cost more than its elements.
            Inner::Transpose { na, nb, .. } => na.saturating_mul(nb).saturating_mul(esize) <= BLOCK_MAX_BYTES,
            _ => false,
        }
}

/// The kernel call of a table plan, without a partner.
fn call_of(t: &TablePlan) -> TableCall {
    TableCall {
        rows: t.rows,
        row_src: t.row_src,
        row_dst: t.row_dst,
        per: t.per,
        block: t.block,
        hull: t.hull,
        na: 1,
        a_src: 0,
        a_dst: 0,
    }
}

/// The outer dimension a table call takes as its partner ([`TableCall::na`]): one that reads the next element
/// (source stride +1) for at least a tile of the x86 partner tiles (16 bytes of elements), around a call whose
/// rows are contiguous in the destination and whose passes are at least a tile long, or, with shorter passes, one
/// whose steps are contiguous in the destination behind the call's single pass ([`narrow_partner`]: 12 planes of
/// bytes at irregular distances into 12-byte pixels). Each source line the table's elements read then serves a
/// whole tile of partner steps, instead of being read again (usually from memory) at every step of an outer loop
/// (u16 pairs 1 KiB apart under 25 output planes: 0.04 of the roofline). A partner shorter than a tile
/// ([`short_partner`]: pixels of a few channels into planes) only when the table has no shuffle form (`shuffles`).
///
/// Without such a dimension, one that reads the previous element or every second to fourth element either way
/// (source stride -1, +-2, +-3 or +-4), the nearest first, for a table without a shuffle form (whose chunks do
/// better than tiles: 1.1x the time over an outer loop of 8 u32 steps 2 apart, sweep2_146): reversed channels, or
/// bytes every other one from rows far apart, a tile of whose steps the tiles gather from the 32-64 bytes they
/// span ([`partner_step`]; more than a tile of steps when they are spaced). A partner that reads backwards is
/// flipped by the caller ([`forwards`]).
fn table_partner(dims: &[PDim], call: &TableCall, esize: usize, shuffles: bool) -> Option<usize> {
    let tile = 16 / esize;
    let contiguous = call.rows == 1 || call.row_dst == (call.block * esize) as isize;
    let fits = matches!(esize, 1 | 2 | 4) && contiguous;
    let wide = call.per * call.block >= tile;
    let narrow = |d: &PDim| {
        let step = forwards(d).dst.checked_mul(esize as i64).and_then(|b| isize::try_from(b).ok());
        call.rows <= call.per && step.is_some_and(|b| narrow_partner(call.rows * call.block, b, esize))
    };
    // A shorter partner ([`short_partner`]) over passes of a tile or more whose table has no shuffle form.
    let short = |d: &PDim| wide && !shuffles && usize::try_from(d.n).is_ok_and(|n| short_partner(n, esize));
    // The other partners not over a broadcast row either, which computes one pass and copies it
    // (`portable::table`): the partner's tiles would run every row (39 u16 steps 2 apart over 370 broadcast rows of
    // 6 elements: 2.4x the time, sweep1_048).
    let others = !shuffles && (call.rows == 1 || call.row_src != 0);
    let takes = |d: &PDim| match d.src.unsigned_abs() {
        1 if d.src > 0 => (d.n >= tile as u64 && (wide || narrow(d))) || short(d),
        1 => others && ((d.n >= tile as u64 && (wide || narrow(d))) || short(d)),
        2..=4 => others && d.n > tile as u64 && (wide || narrow(d)),
        _ => false,
    };
    if !fits {
        return None;
    }
    // The innermost such dimension (its destination stride is the smallest).
    let adjacent = (0..dims.len()).rev().find(|&i| dims[i].src == 1 && takes(&dims[i]));
    adjacent.or_else(|| {
        (0..dims.len())
            .rev()
            .filter(|&i| dims[i].src != 1 && takes(&dims[i]))
            .min_by_key(|&i| dims[i].src.unsigned_abs())
    })
}

/// A partner dimension as the table's partner tiles take it, reading forwards: one that reads backwards walks its
/// steps from the last, so both of its strides change sign ([`Program::compile`] moves the call's pointers to that
/// step).
fn forwards(d: &PDim) -> PDim {
    match d.src < 0 {
        true => PDim { n: d.n, src: -d.src, dst: -d.dst },
        false => *d,
    }
}

/// Whether the row dimension a table fused is better taken as its partner ([`table_partner`]): it reads the next
/// element or one 1-4 elements away (the rows of a pass read the same lines, a few elements further on), the
/// passes have no shuffle form (their offsets would be walked one element at a time), and the block and the rows
/// are each at least a tile of the partner tiles, which then gather a tile of rows per offset and transpose them
/// in registers (f16 pairs reversed 56 elements apart, 44 to a block, 22 rows a call: 0.16 of the roofline
/// walked), or a shorter block whose rows are contiguous in the destination ([`narrow_partner`]). The caller
/// keeps the fused rows unless [`table_partner`] then takes them.
fn rows_as_partner(t: &TablePlan, esize: usize) -> bool {
    let e = esize as isize;
    matches!(esize, 1 | 2 | 4)
        && t.table.chunks.is_none()
        && t.table.row_shuffle.is_none()
        && t.row_src % e == 0
        && (1..=4).contains(&(t.row_src / e).unsigned_abs())
        && t.rows >= 16 / esize
        && (t.block * esize >= 16 || narrow_partner(t.block, forwards_bytes(t.row_src, t.row_dst), esize))
}

/// The destination step of a partner reading `src` bytes on and writing `dst` bytes on, once read forwards
/// ([`forwards`]).
fn forwards_bytes(src: isize, dst: isize) -> isize {
    if src < 0 { -dst } else { dst }
}

/// The bytes moved from which a copy streams its stores: the threshold of its inner kernel's kind
/// ([`ExecOptions::streaming`]), or the bulk copy's when replicated loops write `replicas` copies of each block the
/// kernel writes (2 or more: at least half of the output is written by the block copies of the replicated loops,
/// `kernels/dispatch.rs::replicate`, whose stores are the bulk copy's). Fills keep their own threshold: their
/// replicas are the same repeated bytes a fill writes. A gather of 4121 u16 under 1599 broadcast steps (12.6 MiB
/// moved, sweep1_020 of `--sweep 40 --seed 1 --sweep-max-bytes 64M`) streamed from the gathers' 10.7 MiB on a Zen 4;
/// with ordinary stores it took 0.74-0.79 of the time (`docs/PERFORMANCE.md`, forty-second round).
///
/// Short rows of runs moved by fixed-size moves (at most [`MOVES_MAX_BYTES`]) take the higher of the bulk copy's
/// threshold and the others': they are copies of short runs, and streamed, they are assembled in a stage first,
/// which costs more than it saves where the last-level cache absorbs ordinary stores (the bulk copy's threshold is
/// above the others' only under the Zen rule, [`crate::StreamingRule::Zen`]: the last-level cache). On a Zen 4
/// (2 vCPUs, 32 MiB L3; `docs/PERFORMANCE.md`, fifty-fourth round), the row cases of `stridekit bench --sweep 200
/// --sweep-max-bytes 64M` whose plan this changes, each in its own process, three alternating rounds: seeds 1-14,
/// 63 cases, 0.87 of the time (0.45-1.20; 6-byte runs 14 bytes apart, sweep10_099, 0.45); seeds 15-34, drawn
/// after the rule was fixed, 84 cases, 0.91 (0.41-1.97; 12-byte runs 20 bytes apart, sweep17_076, 0.41). Longer
/// runs, a bulk copy each, which streams whole lines without a stage, lost with it (29 cases, 1.09): they keep the
/// others' threshold.
///
/// A table whose rows are broadcast into contiguous rows takes the fills' threshold: it computes its first pass and
/// copies it to the other rows (`kernels/portable/table.rs`), so, like a fill, it writes what it does not read. On
/// the same Zen 4 (32 MiB for fills, 8 MiB for the others), the 48 such cases of seeds 1-34 whose plan this changes
/// (each in its own process, three alternating rounds) ran in 0.78 of the time (0.35-1.36; 14 bytes broadcast over
/// 687774 rows, sweep14_164, 0.35), the 40 of seeds 35-70, drawn after, in 0.82; those broadcast into spaced rows (a padded output), which copy the row to each
/// place, did not gain (1.03 over six) and keep the others' threshold; so do tables with a partner, whose passes
/// are not copied.
fn streaming_min_bytes(inner: Inner, replicas: usize, esize: usize, options: &ExecOptions) -> usize {
    let t = options.streaming;
    match inner {
        Inner::Fill { .. } => t.fill,
        _ if replicas >= 2 => t.copy,
        Inner::Table(c) if broadcast_rows(c, esize) => t.fill,
        Inner::Copy { .. } => t.copy,
        Inner::Reverse { .. } | Inner::Gather { .. } => t.contiguous,
        Inner::Rows { bytes, .. } if bytes <= MOVES_MAX_BYTES => t.other.max(t.copy),
        _ => t.other,
    }
}

/// Whether the copy's footprint reaches `threshold` bytes: the distinct lines it reads plus the lines it writes
/// (`stridekit::ops::traffic`, what the memory system must move and the cache must hold), counted exactly within
/// [`FOOTPRINT_BUDGET`], else `moved` ([`moved_bytes`], the estimate). The estimate charges every element read its
/// innermost input stride: a transpose reading 120-byte pixels 1720 bytes apart into planes (sweep1_158 of
/// `stridekit bench --sweep 200 --seed 1 --sweep-max-bytes 64M`) was charged 45 MiB, where it reads 4.4 MiB of
/// lines and writes 2.8 MiB; and rows of a few bytes a page apart were charged their bytes, where each reads a line.
/// Thresholds of 0 and `usize::MAX` (streaming always or never) count nothing.
///
/// Measured on the Zen 4 of `docs/PERFORMANCE.md`'s forty-fifth round: the exact count changes the streaming
/// decision of 269 of the 4000 cases of seeds 1-20; 102 of them (25 of each group) timed in three alternating
/// rounds, time ratios exact / estimate: tables that no longer stream 0.87 (geometric mean, 0.49-1.28), tables
/// that now stream 0.83 (0.50-1.37), transposes that no longer stream 0.94 (0.63-1.30), short rows that now stream
/// 0.98 (0.73-1.54); all 102: 0.905. On seeds 81-90, drawn after the rule was fixed, it changes 139 of 2000
/// plans; three alternating rounds of all of them: 0.943 (tables no longer streaming 0.88, now streaming 0.96,
/// transposes 0.98, short rows 1.00; 0.49-1.82).
fn footprint_reaches(plan: &Slice1Plan, moved: u64, threshold: usize) -> bool {
    match threshold {
        0 => true,
        usize::MAX => false,
        t => {
            let traffic = stridekit::ops::traffic::Traffic::of_slice1_within(plan, FOOTPRINT_BUDGET);
            (if traffic.exact { traffic.bytes() } else { moved }) >= t as u64
        }
    }
}

/// The work (bitmap words and rows marked) within which [`footprint_reaches`] counts a plan's lines exactly: at most
/// a few milliseconds when a plan is compiled, and in practice microseconds (the sweep's 4000 cases of seeds 1-20
/// compile in 0.01 s more with the count than without).
const FOOTPRINT_BUDGET: u64 = 1 << 20;

/// Whether `inner` is a transpose into contiguous pixels (`a_dst == nb * esize`) whose call writes less than
/// [`SHORT_PIXELS_MAX_BYTES`]: such a copy stores ordinarily (step 3), unless replicated loops write most of its
/// output (their copies stream on their own terms). Streamed, a call streams its aligned middle and stores its
/// ends ordinarily, so that the line where two calls meet is written both ways, and a call of a few lines is
/// mostly such lines: two planes of f32 interleaved 43 pairs a call (344 bytes, 107 MiB, sweep5_168) ran at
/// 0.06 of the roofline streamed and 0.65 stored ordinarily.
fn short_pixels(inner: Inner, esize: usize) -> bool {
    matches!(inner, Inner::Transpose { .. })
        && matches!(inner.dst_block(esize), Some((true, block)) if block < SHORT_PIXELS_MAX_BYTES)
}

/// The block of the innermost loop of `outer` when its calls of `inner` write adjacent blocks that are not whole lines,
/// the loops the stage streams (`kernels::stage_block`; the fills among them from registers).
fn staged_block(inner: Inner, esize: usize, outer: &[Dim]) -> Option<usize> {
    outer.last().and_then(|d| stage_block(inner, d.n, d.dst, esize)).filter(|b| b % 64 != 0)
}

/// Whether `inner` is a gather, reverse or fill whose call writes a block of less than [`SHORT_CALL_MAX_BYTES`]
/// under an innermost loop that reads forwards and whose destination rises by less than a line more than the block
/// (so that the blocks of neighbouring calls share lines). Streamed, each call streams the whole lines of its block
/// and stores its ends ordinarily, so that the lines two calls share are written both ways. A loop that reads
/// backwards keeps streaming, for which step 3 turns it to read forwards.
fn short_calls(inner: Inner, esize: usize, outer: &[Dim]) -> bool {
    let rows_share_lines = |block: usize| {
        outer
            .last()
            .is_some_and(|d| d.src >= 0 && usize::try_from(d.dst).is_ok_and(|step| step > 0 && step < block + 64))
    };
    // Fills of adjacent blocks of 32 bytes or more stream whole lines straight from registers
    // (`portable::fill::fill_adjacent`): no line is written both ways, and the calls' boundaries cost nothing.
    let adjacent = staged_block(inner, esize, outer).is_some_and(|b| b >= ADJACENT_BLOCK_MIN);
    matches!(inner, Inner::Gather { .. } | Inner::Reverse { .. } | Inner::Fill { .. })
        && !adjacent
        && inner.dst_block(esize).is_some_and(|(_, block)| block < SHORT_CALL_MAX_BYTES && rows_share_lines(block))
}

/// The block (bytes a call writes) below which a gather, reverse or fill into blocks that share lines stores
/// ordinarily ([`short_calls`]). Measured as time ratios ordinary / streamed (`docs/PERFORMANCE.md`, forty-fourth
/// round): first every such call of under 512 bytes (77 cases of `stridekit bench --sweep 200 --sweep-max-bytes 64M`
/// seeds 1-30, three alternating rounds: 0.37-2.3, geometric mean 0.93), from which the rule was drawn: blocks of
/// 384 bytes and more were mostly slower (1.04-2.3), and so were loops reading backwards (1.1-2.5, which ordinary
/// stores leave unflipped) and blocks further apart than a line (2.4 for 288-byte blocks 992 apart). The rule as it
/// stands changes 62 cases of seeds 1-50 (geometric mean 0.72 in those rounds, worst 1.49) and 19 of seeds 51-70,
/// drawn after it was fixed: four rounds, geometric mean 0.79, 0.35-1.23. Fills of adjacent blocks of 32 bytes or
/// more stream since their lines are assembled in registers (`fill_adjacent`): with the new kernel, the 14 such
/// cases of `--sweep 200` seeds 1-40 ran in 0.30-1.05 of the time (sweep31_154 0.30, sweep1_044's shape 0.8; two
/// alternating rounds, `docs/PERFORMANCE.md`, fifty-second round).
const SHORT_CALL_MAX_BYTES: usize = 384;

/// The call size (bytes written) below which a transpose into contiguous pixels stores ordinarily ([`short_pixels`]).
/// The ten cases of `stridekit bench --sweep 200 --sweep-max-bytes 64M` seeds 1-16 whose plan it changes, six
/// alternating rounds, time ratios ordinary / streamed (`docs/PERFORMANCE.md`, forty-fourth round): 0.11
/// (sweep5_168), 0.48 (sweep3_198, 7 x 7 u64), 0.74 (sweep15_167), 0.80 (sweep4_189), 0.84 (sweep2_029), 0.91-0.97
/// (sweep13_194, sweep1_098, sweep3_142), 1.04 and 1.12 (sweep5_163, sweep5_022); geometric mean 0.69. Calls of up
/// to 4 KiB (36 cases, four rounds) were split: 1.4-1.8x slower for six calls of 0.5-3.5 KiB (sweep10_130,
/// sweep15_103, sweep4_110, sweep11_104, sweep12_150) and a replicated one (sweep10_067).
const SHORT_PIXELS_MAX_BYTES: usize = 512;

/// A normalised dimension in elements while planning (a [`stridekit::CopyDim`] with shorter names).
#[derive(Debug, Clone, Copy)]
struct PDim {
    n: u64,
    src: i64,
    dst: i64,
}

/// One outer loop: `n` steps, strides in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dim {
    pub n: usize,
    pub src: isize,
    pub dst: isize,
    /// Source stride 0 over a destination-contiguous block (the inner kernel's block and every loop inside this
    /// one, [`Program::replicated_block`]), steps `dst` >= that block bytes apart: run once, then copy the block to
    /// the other steps (in place when `dst` is the block, as blocks spaced by the output's padding otherwise).
    pub replicate: bool,
}

/// The innermost kernel. Counts are elements unless named bytes; strides are bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inner {
    /// A contiguous run on both sides.
    Copy { bytes: usize },
    /// Destination contiguous, source walking backwards one element at a time.
    Reverse { n: usize },
    /// Destination contiguous, source stride 0: one element repeated.
    Fill { n: usize },
    /// Destination contiguous, any other source stride.
    Gather { n: usize, src: isize },
    /// A 2-D tile walk: dimension `a` reads nearby bytes (source stride `a_src`, below a cache line: one element
    /// for a transpose proper) and writes with stride `a_dst`; dimension `b` writes contiguously and reads with
    /// stride `b_src`.
    Transpose { na: usize, a_src: isize, a_dst: isize, nb: usize, b_src: isize },
    /// Short contiguous runs (at most 1 KiB) of the innermost dimension together with the dimension around
    /// them: `rows` runs of `bytes` bytes, `src` / `dst` bytes apart.
    Rows { rows: usize, bytes: usize, src: isize, dst: isize },
    /// Both sides strided.
    Scatter { n: usize, src: isize, dst: isize },
    /// Small blocks through a table of source offsets ([`crate::table`]), the program's `table`.
    Table(TableCall),
}

impl Inner {
    /// The kernel's name in reports (`stridekit bench`): the variant in lower case.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Inner::Copy { .. } => "copy",
            Inner::Reverse { .. } => "reverse",
            Inner::Fill { .. } => "fill",
            Inner::Gather { .. } => "gather",
            Inner::Transpose { .. } => "transpose",
            Inner::Rows { .. } => "rows",
            Inner::Scatter { .. } => "scatter",
            Inner::Table(_) => "table",
        }
    }

    /// Whether one call's destination bytes form one contiguous block, and how many bytes that block has (of the
    /// call's destination bytes, when not contiguous); `None` when the count overflows.
    pub(crate) fn dst_block(self, esize: usize) -> Option<(bool, usize)> {
        Some(match self {
            Inner::Copy { bytes } => (true, bytes),
            Inner::Reverse { n } | Inner::Fill { n } | Inner::Gather { n, .. } => (true, n.checked_mul(esize)?),
            Inner::Transpose { na, a_dst, nb, .. } => {
                (usize::try_from(a_dst).ok() == nb.checked_mul(esize), na.checked_mul(nb)?.checked_mul(esize)?)
            }
            Inner::Rows { rows, bytes, dst, .. } => {
                (usize::try_from(dst).ok() == Some(bytes), rows.checked_mul(bytes)?)
            }
            Inner::Scatter { n, .. } => (n == 1, esize),
            // With a partner, the rows are contiguous and written once per partner step, `a_dst` apart.
            Inner::Table(c) if c.na > 1 => {
                let rows = c.rows.checked_mul(c.block)?.checked_mul(esize)?;
                (usize::try_from(c.a_dst).ok() == Some(rows), c.na.checked_mul(rows)?)
            }
            Inner::Table(c) => (
                c.rows == 1 || c.row_dst == c.block as isize * esize as isize,
                c.rows.checked_mul(c.block)?.checked_mul(esize)?,
            ),
        })
    }
}

/// A normalised copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Program {
    pub esize: usize,
    /// Byte offset in the input of the first element copied.
    pub src_start: usize,
    /// Byte offset in the output of the first element written (non-zero only for flipped loops).
    pub dst_start: usize,
    /// Outer loops, outermost first.
    pub outer: Vec<Dim>,
    pub inner: Inner,
    /// The bytes the copy moves through the memory system ([`moved_bytes`]: output bytes written plus input bytes
    /// read): what the thread split is decided on (`ExecOptions::parallel_min_bytes`).
    pub moved_bytes: usize,
    /// Use streaming stores: the lines the copy reads and writes reach its kernel's threshold of
    /// `ExecOptions::streaming` (see [`footprint_reaches`], [`streaming_min_bytes`]) and SIMD is allowed. Decided once here; the loop flip of step 3 depends on it.
    pub streaming: bool,
    /// The destination bytes of one inner kernel call form one contiguous block.
    pub inner_dst_contiguous: bool,
    /// Bytes of destination covered by one inner kernel call, when contiguous.
    pub inner_block_bytes: usize,
    /// The table of [`Inner::Table`] (shared by the clones of a prepared operator).
    pub table: Option<Arc<Table>>,
    /// Step 4: the inner kernel is run in tiles of this many units of its count ([`crate::kernels::inner_count`]),
    /// the tile loop outside every outer loop, so that outer loops that read their bytes again find them in cache
    /// (or, around a transpose, complete the lines of its rows while they are in L1).
    pub reuse_tile: Option<usize>,
}

impl Program {
    /// The bytes of the destination-contiguous block one step of the replicated loop `level` writes: the inner
    /// kernel's block times the steps of every loop inside it (all contiguous, the condition of a replicated loop).
    pub(crate) fn replicated_block(&self, level: usize) -> usize {
        self.outer[level + 1..].iter().fold(self.inner_block_bytes, |b, d| b * d.n)
    }

    /// Where that block starts, in bytes from the step's destination pointer: at or below it, by the loops inside
    /// that walk the destination backwards (a window read bottom-up into rows written top-down).
    pub(crate) fn replicated_low(&self, level: usize) -> isize {
        self.outer[level + 1..].iter().filter(|d| d.dst < 0).map(|d| (d.n as isize - 1) * d.dst).sum()
    }

    /// Plans `plan`. `None` only if the plan's numbers do not fit this machine's address space.
    pub(crate) fn compile(plan: &Slice1Plan, options: &ExecOptions) -> Option<Program> {
        let copy = plan.normalized();
        let esize = copy.element_size();
        let mut dims: Vec<PDim> =
            copy.dims().iter().map(|d| PDim { n: d.size, src: d.input_stride, dst: d.output_stride }).collect();
        // The normalised view is never empty (a one-element copy is one loop of size 1).
        // The dimensions as normalised, for the table of step 1b (the arms of step 1 may take the dimension around the
        // innermost one).
        let all: Vec<TDim> = dims.iter().map(|d| TDim { n: d.n, src: d.src, dst: d.dst }).collect();
        let inner_dim = dims.pop()?;
        let e = i64::try_from(esize).ok()?;
        let bytes = |v: i64| -> Option<isize> { isize::try_from(v.checked_mul(e)?).ok() };
        let count = |n: u64| usize::try_from(n).ok();
        let n = count(inner_dim.n)?;
        // Step 1: the inner kernel.
        let inner = match (inner_dim.dst, inner_dim.src) {
            (1, 1) => {
                let run = n.checked_mul(esize)?;
                // Short runs take the dimension around them too: one call per run would cost more than its bytes.
                // A broadcast dimension around them is replicated instead (step 2).
                match dims.last() {
                    Some(d) if run <= SHORT_ROW_MAX_BYTES && d.src != 0 => {
                        let d = dims.pop()?;
                        Inner::Rows { rows: count(d.n)?, bytes: run, src: bytes(d.src)?, dst: bytes(d.dst)? }
                    }
                    _ => Inner::Copy { bytes: run },
                }
            }
            (1, -1) => Inner::Reverse { n },
            (1, 0) => Inner::Fill { n },
            (1, src) => {
                // A transpose pairs this dimension with the outer one that reads the nearest bytes (the smallest
                // source stride, innermost on ties), when that is below a cache line: then the lines a block of
                // this dimension reads serve every step of the partner. A transpose proper (the partner reads
                // contiguously) from `transpose_min_stride`, except tiny ones (runs of at most 16 bytes or calls of
                // at most 256 elements) into strided rows, which the table kernel takes with the dimensions around
                // them (its block spans every dimension the destination is contiguous over: 25 rows of 2-element
                // runs under 18972 steps ran 2.5x faster); gather tiles (any other partner) only for runs longer
                // than the table kernel's small runs.
                let partner = (0..dims.len())
                    .rev()
                    .filter(|&i| dims[i].src != 0 && dims[i].src.unsigned_abs().saturating_mul(e as u64) < 64)
                    .min_by_key(|&i| dims[i].src.unsigned_abs());
                let long = n.saturating_mul(esize) > SMALL_RUN_MAX_BYTES;
                let tiles = |i: usize| match dims[i].src {
                    1 => {
                        let contiguous = i64::try_from(n).ok() == Some(dims[i].dst);
                        let tiny = n.saturating_mul(esize) <= 16 || dims[i].n.saturating_mul(n as u64) <= 256;
                        long || (src.unsigned_abs() >= options.transpose_min_stride && (contiguous || !tiny))
                    }
                    _ => long,
                };
                match partner {
                    Some(i) if tiles(i) => {
                        let a = dims.remove(i);
                        let (na, a_src, a_dst) = (count(a.n)?, bytes(a.src)?, bytes(a.dst)?);
                        Inner::Transpose { na, a_src, a_dst, nb: n, b_src: bytes(src)? }
                    }
                    _ => Inner::Gather { n, src: bytes(src)? },
                }
            }
            (dst, src) => Inner::Scatter { n, src: bytes(src)?, dst: bytes(dst)? },
        };
        // Step 1b: small runs that are not plain copies go through a table with the dimensions around them, and so
        // does a whole copy of at most one table block (one walk of a table beats any loop nest at that size).
        let tiny = copy.element_count().saturating_mul(esize as u64) <= BLOCK_MAX_BYTES as u64
            && !(dims.is_empty() && matches!(inner, Inner::Copy { .. }));
        // A transpose proper into strided destination rows of at most a table block (a few channel-last pixels
        // into planes) goes through a table too when its partner becomes the table's partner: the partner tiles
        // take every row of a pass at once, where the transpose tiles take one short row at a time and leave
        // its ragged end to scalar moves (u16 pixels of 12 channels, 39 to a row, into 12 planes: 0.11 of the
        // roofline).
        // So does a small one into contiguous rows (pixels of a few channels gathered from as many planes, at most
        // [`SMALL_TRANSPOSE_MAX_BYTES`] a call) when the tiles would leave a tenth of it or more to their edge
        // ([`ragged`]).
        let transposed = match inner {
            Inner::Transpose { na, a_src, a_dst, nb, .. } => {
                let row = nb.saturating_mul(esize);
                let contiguous_rows = usize::try_from(a_dst).ok() == Some(row);
                options.simd
                    && matches!(esize, 1 | 2 | 4)
                    && a_src == esize as isize
                    && na >= 16 / esize
                    && row <= BLOCK_MAX_BYTES
                    && (!contiguous_rows
                        || (row.saturating_mul(na) <= SMALL_TRANSPOSE_MAX_BYTES && ragged(na, nb, esize)))
            }
            _ => false,
        };
        // A small transpose ([`small_run`]) whose source rows each read lines of their own ([`FAR_ROW_BYTES`])
        // keeps the table even where `transposed` finds no partner for it (below): the table walks a call's
        // elements from offsets computed once and requests the next pass's lines, where the tiles set up every
        // small call and leave its ragged part to scalar moves.
        let small = small_run(inner, esize, !dims.is_empty());
        let far_small =
            small && matches!(inner, Inner::Transpose { b_src, .. } if b_src.unsigned_abs() >= FAR_ROW_BYTES);
        let (inner, table, shift) = match small || tiny || transposed {
            true => {
                // Where in its cache line the first call's first element lies, for a buffer that starts on a line
                // (`CpuBuffer` does; others may not, and the table is then as right as a table placed blind): the
                // table places its windows so that they reach into no line the pass does not read otherwise (only
                // the low bits of the byte offset matter, which a wrapping product keeps).
                let phase = (copy.input_start().wrapping_mul(esize as u64) % crate::table::LINE as u64) as usize;
                let mut tdims = all.clone();
                let mut built = TablePlan::build(&mut tdims, esize, options.simd, phase);
                if options.simd && built.as_ref().is_some_and(|t| rows_as_partner(t, esize)) {
                    let mut block_dims = all;
                    if let Some(t) = TablePlan::build_block(&mut block_dims, esize, true, phase) {
                        // The rows, now the innermost dimension around the block, must become its partner.
                        let rows = dims_of(&block_dims);
                        if table_partner(&rows, &call_of(&t), esize, t.table.shuffles()) == Some(rows.len() - 1) {
                            (built, tdims) = (Some(t), block_dims);
                        }
                    }
                }
                // A transpose proper keeps its tiles unless the table takes its partner, a whole tile of steps
                // (`na >= 16 / esize` above): `shuffles` is passed as true so that no short partner counts.
                match built {
                    Some(t)
                        if transposed
                            && !far_small
                            && table_partner(&dims_of(&tdims), &call_of(&t), esize, true).is_none() =>
                    {
                        (inner, None, (0, 0))
                    }
                    Some(t) => {
                        // The table took the innermost dimensions; the outer ones are the first `tdims.len()`.
                        dims = dims_of(&tdims);
                        let mut call = call_of(&t);
                        let mut shift = (t.shift, 0);
                        if options.simd
                            && let Some(i) = table_partner(&dims, &call, esize, t.table.shuffles())
                        {
                            let a = dims.remove(i);
                            // A backward partner starts at its last step: the source and destination pointers move
                            // there, and it walks back forwards.
                            if a.src < 0 {
                                let last = a.n.checked_sub(1).and_then(|n| i64::try_from(n).ok())?;
                                shift.0 = shift.0.checked_add(last.checked_mul(a.src)?)?;
                                shift.1 = last.checked_mul(a.dst)?;
                            }
                            let a = forwards(&a);
                            (call.na, call.a_src, call.a_dst) = (count(a.n)?, bytes(a.src)?, bytes(a.dst)?);
                        }
                        (Inner::Table(call), Some(Arc::new(t.table)), shift)
                    }
                    None => (inner, None, (0, 0)),
                }
            }
            false => (inner, None, (0, 0)),
        };
        let (inner_dst_contiguous, inner_block_bytes) = inner.dst_block(esize)?;
        let mut outer = Vec::with_capacity(dims.len());
        for d in &dims {
            outer.push(Dim { n: count(d.n)?, src: bytes(d.src)?, dst: bytes(d.dst)?, replicate: false });
        }
        // The outer loops stay in the normalised view's order, by destination stride, whatever the kernel writes a
        // call: consecutive calls write nearby bytes. Ordering them by source stride for calls writing 512 bytes or
        // more (so that consecutive calls read nearby bytes) cost time on the Zen 4 of `docs/PERFORMANCE.md`'s
        // forty-fifth round: the 91 cases of `stridekit bench --sweep 200 --sweep-max-bytes 64M` seeds 1-10 whose
        // plan it changed ran in 0.934 of the time in destination order (copies 0.84, gathers 0.91, tables 0.92,
        // transposes and short rows 0.98-1.00; three alternating rounds), and the 82 of seeds 81-90 in 0.923.
        // Loops that re-read the lines of one call from beyond the reuse budget where they are go innermost.
        crate::reuse::rereading_loops_inside(&mut outer, inner, table.as_deref(), esize, options.reuse_tile_bytes);
        // Step 2: replicable broadcast dimensions, from the inside out (before the streaming decision of step 3,
        // which follows the replicas' stores; the flip of step 3 turns only loops that read backwards, never a
        // broadcast one, and a replicated block's contiguity does not depend on its loops' directions). Not a large
        // block of fills: copying it back reads every line of it again (from L3 at best), while running the fills
        // again only writes.
        // A loop inside may walk the destination backwards (its block still contiguous, starting below the step's
        // pointer: `Program::replicated_low`).
        let mut contiguous = inner_dst_contiguous;
        let mut block = inner_block_bytes;
        let fills = matches!(inner, Inner::Fill { .. });
        for d in outer.iter_mut().rev() {
            let dst = usize::try_from(d.dst).ok();
            // Padded steps (`dst` beyond the block) copy the block too: running a gather, a reverse or a table again
            // for every step of a broadcast dimension costs more than copying its block from L1/L2 (a reverse of 103
            // u16 under 272 broadcast steps 156560 bytes apart: 0.12 of the roofline run again, 0.34 copied).
            if contiguous
                && d.src == 0
                && dst.is_some_and(|x| x >= block)
                && !(fills && block > REPLICATE_FILL_MAX_BLOCK)
            {
                d.replicate = true;
            }
            contiguous = contiguous && d.dst.unsigned_abs() == block;
            block = block.checked_mul(d.n)?;
        }
        let moved = moved_bytes(&copy);
        // Step 3: flip backward outer loops when streaming stores will be used.
        let start = i64::try_from(copy.input_start()).ok()?.checked_add(shift.0)?;
        let mut src_start = isize::try_from(usize::try_from(start).ok()?.checked_mul(esize)?).ok()?;
        let mut dst_start = bytes(shift.1)?;
        let replicas = outer.iter().filter(|d| d.replicate).try_fold(1usize, |k, d| k.checked_mul(d.n))?;
        let streaming = options.simd
            && footprint_reaches(plan, moved, streaming_min_bytes(inner, replicas, esize, options))
            && !(replicas < 2 && (short_pixels(inner, esize) || short_calls(inner, esize, &outer)));
        let ordinary = matches!(inner, Inner::Rows { rows, bytes, dst, .. } if stores_ordinarily(rows, bytes, dst));
        if streaming && !ordinary {
            // The innermost loop stays rising where its calls write adjacent blocks that are not whole lines, which
            // only a rising loop streams through the stage (`kernels/stage.rs`): flipped, each call streamed its
            // middle and stored the lines it shares with its neighbours ordinarily.
            let staged = staged_block(inner, esize, &outer).is_some();
            let keep = if staged { outer.len() - 1 } else { outer.len() };
            for d in outer[..keep].iter_mut().filter(|d| d.src < 0) {
                let steps = isize::try_from(d.n - 1).ok()?;
                src_start = src_start.checked_add(steps.checked_mul(d.src)?)?;
                dst_start = dst_start.checked_add(steps.checked_mul(d.dst)?)?;
                (d.src, d.dst) = (-d.src, -d.dst);
            }
        }
        // Step 4: tiles for outer loops that read their bytes again, or (transposes) write their rows again.
        let budget = options.reuse_tile_bytes;
        let reuse_tile = crate::reuse::tile(&outer, inner, table.as_deref(), esize, budget)
            .or_else(|| crate::reuse::destination_tile(&outer, inner, esize, budget));
        Some(Program {
            esize,
            src_start: usize::try_from(src_start).ok()?,
            dst_start: usize::try_from(dst_start).ok()?,
            outer,
            inner,
            moved_bytes: usize::try_from(moved).unwrap_or(usize::MAX),
            streaming,
            inner_dst_contiguous,
            inner_block_bytes,
            table,
            reuse_tile,
        })
    }

    /// One line of text for people: the inner kernel with its numbers (bytes and byte strides), the table's form,
    /// the outer loops (outermost first, `steps:src/dst` in bytes, `r` for a replicated loop), streaming stores and
    /// the reuse tile. What `stridekit bench` reports as `plan`, to read a slow case without a debugger.
    pub(crate) fn describe(&self) -> String {
        let e = self.esize;
        let mut s = match self.inner {
            Inner::Copy { bytes } => format!("copy {bytes}B"),
            Inner::Reverse { n } => format!("reverse {n}x{e}B"),
            Inner::Fill { n } => format!("fill {n}x{e}B"),
            Inner::Gather { n, src } => format!("gather {n}x{e}B src {src}"),
            Inner::Transpose { na, a_src, a_dst, nb, b_src } => {
                format!("transpose a {na}:{a_src}/{a_dst} b {nb}:{b_src}/{e} ({e}B)")
            }
            Inner::Rows { rows, bytes, src, dst } => format!("rows {rows}x{bytes}B {src}/{dst}"),
            Inner::Scatter { n, src, dst } => format!("scatter {n}x{e}B {src}/{dst}"),
            Inner::Table(c) => {
                let form = self.table.as_deref().map_or("none".to_string(), Table::form);
                let mut t = format!(
                    "table block {}x{e}B hull {} rows {}:{}/{} per {} {form}",
                    c.block, c.hull, c.rows, c.row_src, c.row_dst, c.per
                );
                if c.na > 1 {
                    t += &format!(" partner {}:{}/{}", c.na, c.a_src, c.a_dst);
                }
                t
            }
        };
        let loops: Vec<String> = self
            .outer
            .iter()
            .map(|d| format!("{}:{}/{}{}", d.n, d.src, d.dst, if d.replicate { "r" } else { "" }))
            .collect();
        s += &format!("; outer [{}]", loops.join(" "));
        if self.streaming {
            s += "; streaming";
        }
        if let Some(t) = self.reuse_tile {
            s += &format!("; reuse tile {t}");
        }
        s
    }
}

/// The bytes a copy moves through the memory system: the output bytes written plus an estimate of the input bytes
/// read, for the streaming-store decision. Each element read costs its innermost input stride (a gather at stride 2
/// reads every byte between its elements), at most one cache line and at least the element; elements read again
/// through a broadcast dimension cost nothing more, and the whole read costs at most the input byte range
/// (transposes that reuse lines). Cheap enough for every call.
pub(crate) fn moved_bytes(copy: &stridekit::NormalizedCopy) -> u64 {
    let e = copy.element_size() as u64;
    let count = copy.element_count();
    let per_element = (copy.inner().input_stride.unsigned_abs().saturating_mul(e)).clamp(e, 64);
    let span = copy.input_byte_range();
    // Broadcast dimensions read the same elements again (from the cache): only distinct elements count.
    let distinct: u64 = copy.dims().iter().filter(|d| d.input_stride != 0).map(|d| d.size).product();
    let read = distinct.saturating_mul(per_element).min(span.end - span.start);
    count.saturating_mul(e).saturating_add(read)
}

// Not under Miri: safe code that runs no kernel (scripts/miri.sh says why).
#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;
    use crate::StreamingThresholds;
    use stridekit::{BufferTensorDesc, DataType, Slice1Desc};

    fn compile(
        dt: DataType,
        in_sizes: &[u32],
        in_strides: Option<&[u32]>,
        strides: &[i32],
        out_sizes: &[u32],
        out_strides: Option<&[u32]>,
    ) -> Program {
        let windows: Vec<u32> = in_sizes.to_vec();
        let desc = Slice1Desc {
            input: BufferTensorDesc::new(dt, in_sizes, in_strides).unwrap(),
            output: BufferTensorDesc::new(dt, out_sizes, out_strides).unwrap(),
            input_window_offsets: vec![0; in_sizes.len()],
            input_window_sizes: windows,
            input_window_strides: strides.to_vec(),
        };
        Program::compile(&desc.validate().unwrap(), &early_streaming()).unwrap()
    }

    /// The defaults with the streaming thresholds of [`crate::StreamingRule::EarlyStreaming`] whatever this machine
    /// detects, so that the kernels these tests expect do not depend on the CPU that runs them.
    fn early_streaming() -> ExecOptions {
        ExecOptions { streaming: crate::StreamingRule::EarlyStreaming.thresholds(None), ..ExecOptions::default() }
    }

    #[test]
    fn pixels_of_a_few_channels_into_planes_take_the_channels_as_a_short_partner() {
        // sweep1_001's shape, whole: pixels of c channels, 43 to a row, into c planes, each plane's 18-element runs
        // read a row apart (bytes: 16 windows per chunk, u16: no cover either: no shuffle form). From 4 channels of
        // bytes the channels are the table's partner (short tiles); with 3 channels the 43 pixels, 3 elements apart
        // (spaced tiles: 0.09-0.11 -> 0.10-0.15 of the roofline over 4-400 rows, four alternating runs).
        let r = 4;
        let (u8, u16) = (DataType::Uint8, DataType::Uint16);
        for (dt, c, na) in [(u8, 5, 5), (u8, 4, 4), (u8, 7, 7), (u8, 3, 43), (u16, 3, 43)] {
            let sizes = [r, 18, 43, c];
            let p = compile(dt, &sizes, None, &[1; 4], &sizes, Some(&[774, 1, 18, r * 774]));
            match p.inner {
                Inner::Table(t) => assert_eq!((t.na, t.block), (na, 18), "{dt:?}, {c} channels"),
                other => panic!("{dt:?}, {c} channels: {other:?}"),
            }
        }
    }

    #[test]
    fn backward_partners_start_at_their_last_step_and_write_backwards() {
        // Every other pixel of 37 channels, 19 of them every second one backwards, into 19 planes of 10 rows: the
        // table of pixels takes the channels as its partner, read forwards from the last one (2 bytes a step), its
        // planes written from the last (80 bytes a step down, from 18 planes on).
        let p = compile(DataType::Uint8, &[10, 15, 37], None, &[1, 2, -2], &[10, 8, 19], Some(&[8, 1, 80]));
        match p.inner {
            Inner::Table(t) => assert_eq!((t.na, t.a_src, t.a_dst), (19, 2, -80)),
            other => panic!("{other:?}"),
        }
        assert_eq!(p.dst_start, 18 * 80);
        // The window's first pixel reads channel 36; the partner's first step (its last) channel 0.
        assert_eq!(p.src_start % 37, 0);
    }

    #[test]
    fn transposes_of_a_table_block_under_loops_take_a_table() {
        // 64 steps of a 3 x 8 u16 transpose whose 8 source elements are 5000 apart (sweep2_198's shape, smaller):
        // one table, its block the 24 elements of a call, the 64 steps (4 elements apart) its partner, read by
        // spaced tiles (0.065 -> 0.08 of the roofline; 640 steps 0.22 -> 0.23).
        let u16 = DataType::Uint16;
        let p = compile(u16, &[64, 3, 8], Some(&[4, 1, 5000]), &[1; 3], &[64, 3, 8], None);
        match p.inner {
            Inner::Table(t) => assert_eq!((t.block, t.rows, t.na, t.a_src, t.a_dst), (24, 1, 64, 8, 48)),
            other => panic!("{other:?}"),
        }
        // A call of more than a table block (3 x 48) keeps the transpose.
        let p = compile(u16, &[64, 3, 48], Some(&[4, 1, 5000]), &[1; 3], &[64, 3, 48], None);
        assert!(matches!(p.inner, Inner::Transpose { na: 3, nb: 48, .. }), "{:?}", p.inner);
    }

    #[test]
    fn small_transposes_of_rows_a_page_apart_take_a_table_without_a_partner() {
        // 4 steps of 12 pixels of 7 u16 gathered from 7 rows (sweep16_063's shape, smaller): the table takes the
        // whole call when each row reads lines of its own (rows 10000 bytes apart: 0.23 of the time; 80 bytes:
        // sweep11_014 took 0.30), the tiles keep rows 34 bytes apart (sweep1_098: the table's walk took 1.47x the
        // time; `docs/PERFORMANCE.md`, forty-fourth round).
        let u16 = DataType::Uint16;
        for (row, table) in [(5000, true), (40, true), (32, true), (17, false), (31, false)] {
            let p = compile(u16, &[4, 7, 12], Some(&[24, row, 1]), &[1; 3], &[4, 7, 12], Some(&[84, 1, 7]));
            match p.inner {
                Inner::Table(t) => assert!(table && t.block == 84, "rows {row} apart: {t:?}"),
                Inner::Transpose { na: 12, nb: 7, .. } => assert!(!table, "rows {row} apart"),
                other => panic!("rows {row} apart: {other:?}"),
            }
        }
    }

    #[test]
    fn small_ragged_transposes_into_pixels_take_a_table() {
        // The edge the SIMD tiles leave: sweep4_162 (20 pixels of 5 u32: all of it), sweep3_024 (1515 x 45 u16:
        // 11%) against sweep4_018 (1227 x 25 u32: 4%) and sweep1_081 (252 x 16 u16: 2%).
        assert!(ragged(20, 5, 4) && ragged(1515, 45, 2));
        assert!(!ragged(1227, 25, 4) && !ragged(252, 16, 2) && !ragged(64, 8, 4));
        // Planes of c channels into pixels (CHW -> HWC) under a loop of images: the pixels (a transpose's rows)
        // become the table's partner, each pixel's c channels its block, when the call is ragged and small.
        let f32 = DataType::Float32;
        let image = |c: u32, pixels: u32| {
            compile(f32, &[3, c, pixels], None, &[1; 3], &[3, c, pixels], Some(&[c * pixels, 1, c]))
        };
        match image(5, 20).inner {
            Inner::Table(t) => assert_eq!((t.na, t.block, t.a_dst), (20, 5, 20)),
            other => panic!("5 channels of 20 pixels: {other:?}"),
        }
        // Whole tiles (8 channels), or a call beyond SMALL_TRANSPOSE_MAX_BYTES: the transpose tiles.
        assert!(matches!(image(8, 64).inner, Inner::Transpose { na: 64, nb: 8, .. }));
        assert!(matches!(image(5, 20000).inner, Inner::Transpose { na: 20000, nb: 5, .. }));
    }

    #[test]
    fn streaming_copies_flip_backward_loops_unless_their_short_rows_store_ordinarily() {
        // 68-byte f32 rows 104 bytes apart under a loop of images read last to first (sweep1_108's shape, smaller):
        // `rows` rows of a call, into a contiguous output. Under a stage's worth of bytes per call the rows are
        // moved with ordinary stores, so the destination keeps rising and the source walks backwards (flipped, the
        // destination fell: 0.24 -> 0.40 of the roofline, seven such sweep cases 0.87 of the time); from a stage's
        // worth on the stage streams them, and the loop is flipped so that the reads rise.
        let f32 = DataType::Float32;
        for (rows, flipped) in [(50, false), (70, true)] {
            let desc = Slice1Desc {
                input: BufferTensorDesc::new(f32, &[40, rows, 26], None).unwrap(),
                output: BufferTensorDesc::new(f32, &[40, rows, 17], None).unwrap(),
                input_window_offsets: vec![0; 3],
                input_window_sizes: vec![40, rows, 17],
                input_window_strides: vec![-1, 1, 1],
            };
            let always = ExecOptions { streaming: StreamingThresholds::all(0), simd: true, ..ExecOptions::default() };
            let p = Program::compile(&desc.validate().unwrap(), &always).unwrap();
            assert!(p.streaming, "{rows} rows: {}", p.describe());
            let rows = rows as usize;
            assert_eq!(p.inner, Inner::Rows { rows, bytes: 68, src: 104, dst: 68 }, "{}", p.describe());
            let (image_src, image_dst) = ((rows * 104) as isize, (rows * 68) as isize);
            let expected = if flipped { (image_src, -image_dst) } else { (-image_src, image_dst) };
            assert_eq!((p.outer[0].src, p.outer[0].dst), expected, "{}", p.describe());
            assert_eq!(stores_ordinarily(rows, 68, 68), !flipped);
        }
        // Rows longer than the short moves stream their whole lines; short rows spaced in the destination are never
        // staged, so they store ordinarily at any count.
        assert!(!stores_ordinarily(50, 132, 132) && stores_ordinarily(70, 68, 72));
    }

    #[test]
    fn short_transposes_into_contiguous_pixels_store_ordinarily() {
        // Two planes of u32 interleaved into pairs under a loop of images (sweep5_168's shape, smaller): a call of
        // 43 pairs (344 bytes) stores ordinarily even where everything streams (0.11 of the time), a call of 80
        // (640 bytes) streams.
        let u32 = DataType::Uint32;
        let always = ExecOptions { streaming: StreamingThresholds::all(0), simd: true, ..ExecOptions::default() };
        for (pixels, streams) in [(43, false), (80, true)] {
            let desc = Slice1Desc {
                input: BufferTensorDesc::new(u32, &[50, 2, pixels + 17], None).unwrap(),
                output: BufferTensorDesc::new(u32, &[50, 2, pixels], Some(&[2 * pixels, 1, 2])).unwrap(),
                input_window_offsets: vec![0; 3],
                input_window_sizes: vec![50, 2, pixels],
                input_window_strides: vec![1; 3],
            };
            let p = Program::compile(&desc.validate().unwrap(), &always).unwrap();
            let pixels = pixels as usize;
            assert!(matches!(p.inner, Inner::Transpose { na, nb: 2, .. } if na == pixels), "{}", p.describe());
            assert_eq!(p.streaming, streams, "{}", p.describe());
        }
    }

    #[test]
    fn short_gathers_into_rows_that_share_lines_store_ordinarily() {
        // Every other byte of 142 (sweep35_030's shape, smaller) into rows 142 bytes apart, or 30 more: the calls'
        // blocks share lines, so even where everything streams the copy stores ordinarily; rows 100 bytes apart
        // from each other's ends (no line shared), rows of 400 bytes, or rows read bottom-up stream.
        let u8 = DataType::Uint8;
        let always = ExecOptions { streaming: StreamingThresholds::all(0), simd: true, ..ExecOptions::default() };
        for (n, pad, down, streams) in [
            (142, 0, false, false),
            (142, 30, false, false),
            (142, 100, false, true),
            (400, 0, false, true),
            (142, 0, true, true),
        ] {
            let desc = Slice1Desc {
                input: BufferTensorDesc::new(u8, &[60, 2 * n + 15], None).unwrap(),
                output: BufferTensorDesc::new(u8, &[60, n], Some(&[n + pad, 1])).unwrap(),
                input_window_offsets: vec![0; 2],
                input_window_sizes: vec![60, 2 * n],
                input_window_strides: vec![if down { -1 } else { 1 }, 2],
            };
            let p = Program::compile(&desc.validate().unwrap(), &always).unwrap();
            assert!(matches!(p.inner, Inner::Gather { .. }), "{}", p.describe());
            assert_eq!(p.streaming, streams, "{n} bytes, {pad} padding, down {down}: {}", p.describe());
        }
    }

    #[test]
    fn short_fills_of_adjacent_blocks_stream_from_32_bytes() {
        // A u64 per row filling 42 (336 bytes, sweep1_044's block) or 12 (96 bytes): adjacent blocks that share
        // lines. From 32 bytes the lines are assembled in registers and streamed whole (`fill_adjacent`), so the
        // copy streams. Rows 16 bytes apart share lines but are not adjacent, and store ordinarily.
        let always = ExecOptions { streaming: StreamingThresholds::all(0), simd: true, ..ExecOptions::default() };
        for (dt, n, pad, streams) in
            [(DataType::Uint64, 42, 0, true), (DataType::Uint64, 12, 0, true), (DataType::Uint64, 12, 2, false)]
        {
            let desc = Slice1Desc {
                input: BufferTensorDesc::new(dt, &[60, n], Some(&[1, 0])).unwrap(),
                output: BufferTensorDesc::new(dt, &[60, n], Some(&[n + pad, 1])).unwrap(),
                input_window_offsets: vec![0; 2],
                input_window_sizes: vec![60, n],
                input_window_strides: vec![1, 1],
            };
            let p = Program::compile(&desc.validate().unwrap(), &always).unwrap();
            assert!(matches!(p.inner, Inner::Fill { .. }), "{}", p.describe());
            assert_eq!(p.streaming, streams, "{dt:?} x {n}, {pad} padding: {}", p.describe());
        }
        // Below 32 bytes (12 u16), the calls would go through the stage, each run's end lines written ordinarily
        // twice: such calls store ordinarily.
        let rows = |n: usize, d: isize| [Dim { n, src: 2, dst: d, replicate: false }];
        assert!(short_calls(Inner::Fill { n: 12 }, 2, &rows(60, 24)));
        assert!(!short_calls(Inner::Fill { n: 16 }, 2, &rows(60, 32)));
        assert!(short_calls(Inner::Fill { n: 16 }, 2, &rows(60, 40)));
    }

    #[test]
    fn streaming_copies_keep_a_staged_innermost_loop_rising() {
        // A value per row filling 213 bytes, the rows read bottom-up (sweep8_132's shape, smaller), and two planes
        // of u32 interleaved 83 pairs a call under images read last to first: the calls write adjacent blocks that
        // are not whole lines, which only a rising loop streams through the stage, so the loop is not flipped
        // (0.69 of the time for sweep8_132, 0.59 for sweep17_181). A block of whole lines (256 bytes) is flipped.
        let always = ExecOptions { streaming: StreamingThresholds::all(0), simd: true, ..ExecOptions::default() };
        let plan = |input: BufferTensorDesc, output: BufferTensorDesc, offsets: Vec<u32>, strides: Vec<i32>| {
            let sizes = output.sizes.clone();
            let desc = Slice1Desc {
                input,
                output,
                input_window_offsets: offsets,
                input_window_sizes: sizes,
                input_window_strides: strides,
            };
            Program::compile(&desc.validate().unwrap(), &always).unwrap()
        };
        for (row, rising) in [(213, true), (256, false)] {
            let u8 = DataType::Uint8;
            let input = BufferTensorDesc::new(u8, &[50, row], Some(&[659, 0])).unwrap();
            let output = BufferTensorDesc::new(u8, &[50, row], None).unwrap();
            let p = plan(input, output, vec![0, 0], vec![-1, 1]);
            assert!(p.streaming && matches!(p.inner, Inner::Fill { .. }), "{}", p.describe());
            let row = row as isize;
            let expected = if rising { (-659, row) } else { (659, -row) };
            assert_eq!((p.outer[0].src, p.outer[0].dst), expected, "{}", p.describe());
        }
        let u32 = DataType::Uint32;
        let input = BufferTensorDesc::new(u32, &[50, 2, 97], None).unwrap();
        let output = BufferTensorDesc::new(u32, &[50, 2, 83], Some(&[166, 1, 2])).unwrap();
        let p = plan(input, output, vec![0; 3], vec![-1, 1, 1]);
        assert!(p.streaming && matches!(p.inner, Inner::Transpose { na: 83, nb: 2, .. }), "{}", p.describe());
        assert_eq!((p.outer[0].src, p.outer[0].dst), (-776, 664), "{}", p.describe());
    }

    #[test]
    fn describes_the_kernel_its_numbers_and_the_loops() {
        // Rows of 100 f32 read backwards under two outer loops, the outer one reversed.
        let p = compile(DataType::Float32, &[3, 5, 100], None, &[-1, 2, -1], &[3, 3, 100], None);
        assert_eq!(p.describe(), "reverse 100x4B; outer [3:-2000/1200 3:800/400]");
        // A transpose of 64 x 48 f32 planes.
        let p = compile(DataType::Float32, &[64, 48], None, &[1, 1], &[64, 48], Some(&[1, 64]));
        assert_eq!(p.describe(), "transpose a 48:4/256 b 64:192/4 (4B); outer []");
    }

    #[test]
    fn picks_the_kernels() {
        let f32 = DataType::Float32;
        // Identity copy: everything merges into one run.
        let p = compile(f32, &[2, 3, 4], None, &[1, 1, 1], &[2, 3, 4], None);
        assert_eq!((p.outer.len(), p.inner), (0, Inner::Copy { bytes: 96 }));
        // Horizontal flip of rows longer than a table block (`small_run`: up to 256 bytes the table takes them).
        let p = compile(DataType::Uint8, &[3, 257], None, &[1, -1], &[3, 257], None);
        assert_eq!(p.inner, Inner::Reverse { n: 257 });
        assert_eq!(p.src_start, 256);
        // Horizontal flip of short rows: all three rows in one table block, the source pointer at the lowest byte.
        let p = compile(DataType::Uint8, &[3, 64], None, &[1, -1], &[3, 64], None);
        let call =
            TableCall { rows: 1, row_src: 0, row_dst: 0, per: 1, block: 192, hull: 192, na: 1, a_src: 0, a_dst: 0 };
        assert_eq!((p.outer.len(), p.inner, p.src_start), (0, Inner::Table(call), 0));
        assert_eq!(p.table.as_ref().unwrap().offsets[..3], [63, 62, 61]);
        // Stride 2 gather: the rows merge too (32 x 2 = the row pitch 64).
        let p = compile(f32, &[4, 64], None, &[1, 2], &[4, 32], None);
        assert_eq!((p.outer.len(), p.inner), (0, Inner::Gather { n: 128, src: 8 }));
        // NCHW -> NHWC: a transpose of (HW, C) under N.
        let p = compile(f32, &[2, 32, 4, 8], None, &[1; 4], &[2, 32, 4, 8], Some(&[1024, 1, 256, 32]));
        assert_eq!(p.inner, Inner::Transpose { na: 32, a_src: 4, a_dst: 128, nb: 32, b_src: 128 });
        assert_eq!(p.outer.len(), 1);
        // 2 KiB rows written in another order than they are read: the outer loops follow the destination.
        let p = compile(f32, &[4, 8, 512], None, &[1; 3], &[4, 8, 512], Some(&[512, 2048, 1]));
        assert_eq!(p.inner, Inner::Copy { bytes: 2048 });
        let order: Vec<(usize, isize, isize)> = p.outer.iter().map(|d| (d.n, d.src, d.dst)).collect();
        assert_eq!(order, [(8, 2048, 8192), (4, 16384, 2048)]);
        // Row broadcast: one outer loop, replicated.
        let p = compile(f32, &[8, 4, 32], Some(&[0, 0, 1]), &[1; 3], &[8, 4, 32], None);
        assert_eq!(p.inner, Inner::Copy { bytes: 128 });
        assert_eq!(p.outer, [Dim { n: 32, src: 0, dst: 128, replicate: true }]);
        // A reversed row under a broadcast into padded rows (120 of 128 elements): run once, then its 480-byte
        // block is copied to the other steps, 512 bytes apart.
        let p = compile(f32, &[8, 120], Some(&[0, 1]), &[1, -1], &[8, 120], Some(&[128, 1]));
        assert_eq!(p.inner, Inner::Reverse { n: 120 });
        assert_eq!(p.outer, [Dim { n: 8, src: 0, dst: 512, replicate: true }]);
        assert_eq!(p.replicated_block(0), 480);
        // Two loops inside the broadcast one: the block is theirs too (2 x 3 rows of 120).
        let p = compile(
            f32,
            &[8, 2, 3, 120],
            Some(&[0, 1000, 120, 1]),
            &[1, 1, 1, -1],
            &[8, 2, 3, 120],
            Some(&[1000, 360, 120, 1]),
        );
        assert!(p.outer[0].replicate && !p.outer[1].replicate);
        assert_eq!(p.replicated_block(0), 2880);
        // Rows read bottom-up under streaming stores are walked top-down in the source (step 3), so bottom-up in the
        // destination: the block of the broadcast step starts below its pointer.
        let pitch = 2048 * 300 + 64;
        let p = compile(f32, &[4, 2048, 300], Some(&[0, 300, 1]), &[1, -1, 1], &[4, 2048, 300], Some(&[pitch, 300, 1]));
        assert!(p.streaming);
        assert_eq!(p.outer[1].dst, -1200);
        assert!(p.outer[0].replicate);
        assert_eq!((p.replicated_block(0), p.replicated_low(0)), (2048 * 1200, -2047 * 1200));
        // A stride-2 gather of 77 bytes backwards per row (more than the small runs' 64 bytes), rows 154 bytes
        // apart: a table, 13 rows per pass, rather than a gather call per row (sweep1_112).
        let p = compile(DataType::Uint8, &[16, 154], None, &[1, -2], &[16, 77], None);
        let call =
            TableCall { rows: 16, row_src: 154, row_dst: 77, per: 13, block: 77, hull: 153, na: 1, a_src: 0, a_dst: 0 };
        assert_eq!((p.outer.len(), p.inner), (0, Inner::Table(call)));
        // 129 bytes per row: gathers.
        let p = compile(DataType::Uint8, &[16, 258], None, &[1, -2], &[16, 129], None);
        assert_eq!((p.outer.len(), p.inner), (1, Inner::Gather { n: 129, src: -2 }));
        // Short rows under a broadcast: a table pass of 16 rows, computed once and copied.
        let p = compile(f32, &[8, 4, 16], Some(&[0, 0, 1]), &[1; 3], &[8, 4, 16], None);
        let call =
            TableCall { rows: 32, row_src: 0, row_dst: 64, per: 16, block: 16, hull: 64, na: 1, a_src: 0, a_dst: 0 };
        assert_eq!((p.outer.len(), p.inner), (0, Inner::Table(call)));
        // Channel broadcast: a fill per channel.
        let p = compile(f32, &[2, 3, 4, 5], Some(&[0, 1, 0, 0]), &[1; 4], &[2, 3, 4, 5], None);
        assert_eq!(p.inner, Inner::Fill { n: 20 });
        assert!(p.outer[0].replicate && !p.outer[1].replicate);
        // The same with blocks larger than REPLICATE_FILL_MAX_BLOCK (3 x 128 KiB): the fills run again.
        let p = compile(f32, &[2, 3, 256, 128], Some(&[0, 1, 0, 0]), &[1; 4], &[2, 3, 256, 128], None);
        assert_eq!(p.inner, Inner::Fill { n: 32768 });
        assert!(!p.outer[0].replicate && !p.outer[1].replicate);
        // RGB pixels, columns reversed: 3-byte runs, one row of them per call.
        let p = compile(DataType::Uint8, &[2, 100, 3], None, &[1, -1, 1], &[2, 100, 3], None);
        assert_eq!(p.inner, Inner::Rows { rows: 100, bytes: 3, src: -3, dst: 3 });
        assert_eq!(p.outer.len(), 1);
        // Pixels of 19 channels, every other one, into 19 planes: a table of the pixels with the channels as its
        // partner (each source line serves a tile of channels).
        let p = compile(DataType::Uint8, &[300, 5, 19], None, &[1, 2, 1], &[300, 3, 19], Some(&[3, 1, 900]));
        let call = TableCall {
            rows: 300,
            row_src: 95,
            row_dst: 3,
            per: 300,
            block: 3,
            hull: 77,
            na: 19,
            a_src: 1,
            a_dst: 900,
        };
        assert_eq!((p.outer.len(), p.inner), (0, Inner::Table(call)));
        // f16 pairs reversed 28 elements apart, 22 pairs 56 apart to a block, 22 blocks one element apart into rows
        // 44 elements apart: the passes of fused rows have no shuffle form, so the rows become the partner.
        let p =
            compile(DataType::Float16, &[22, 2, 22], Some(&[56, 28, 1]), &[1, -1, 1], &[22, 2, 22], Some(&[2, 1, 44]));
        match p.inner {
            Inner::Table(c) => assert_eq!((c.rows, c.block, c.na, c.a_dst), (1, 44, 22, 88)),
            other => panic!("{other:?}"),
        }
        // Twelve byte planes at irregular distances (a 3 x 4 grid, its rows padded) into 12-byte pixels: a block of
        // fewer than 16 bytes, its pixels contiguous, so the pixels become a (narrow) partner; padded pixels do not.
        let grid = [3, 4, 40];
        let planes = [4 * 45 + 13, 45, 1];
        let p = compile(DataType::Uint8, &grid, Some(&planes), &[1; 3], &grid, Some(&[4, 1, 12]));
        match p.inner {
            Inner::Table(c) => assert_eq!((c.rows, c.block, c.na, c.a_dst), (1, 12, 40, 12)),
            other => panic!("{other:?}"),
        }
        let p = compile(DataType::Uint8, &grid, Some(&planes), &[1; 3], &grid, Some(&[4, 1, 13]));
        assert!(matches!(p.inner, Inner::Table(c) if c.na == 1), "{:?}", p.inner);
        // Strided output: scatter.
        let p = compile(f32, &[8, 40], None, &[1, -1], &[8, 40], Some(&[80, 2]));
        assert_eq!(p.inner, Inner::Scatter { n: 40, src: -4, dst: 8 });
        // A whole copy of at most one table block: one table walk (DirectML's 4x4 examples).
        let p = compile(f32, &[4, 4], None, &[-2, 2], &[2, 2], None);
        let call = TableCall { rows: 1, row_src: 0, row_dst: 0, per: 1, block: 4, hull: 44, na: 1, a_src: 0, a_dst: 0 };
        // Rows 3 and 1 (bottom up), columns 0 and 2: the lowest source element is (1, 0), element 4.
        assert_eq!((p.outer.len(), p.inner, p.src_start), (0, Inner::Table(call), 16));
        assert_eq!(p.table.as_ref().unwrap().offsets, [32, 40, 0, 8]);
    }

    #[test]
    fn streaming_is_decided_on_the_lines_read_plus_written() {
        let f32 = DataType::Float32;
        let plan = |in_sizes: &[u32], in_strides: Option<&[u32]>, strides: &[i32], out: &[u32]| {
            let desc = Slice1Desc {
                input: BufferTensorDesc::new(f32, in_sizes, in_strides).unwrap(),
                output: BufferTensorDesc::new(f32, out, None).unwrap(),
                input_window_offsets: vec![0; in_sizes.len()],
                input_window_sizes: in_sizes.to_vec(),
                input_window_strides: strides.to_vec(),
            };
            desc.validate().unwrap()
        };
        let lines = |p: &Slice1Plan| stridekit::ops::traffic::Traffic::of_slice1(p).bytes() as usize;
        // The estimate of the thread split: a plain copy of 4 KiB moves 8 KiB; a stride-2 gather of 4 KiB reads
        // 8 KiB more; a broadcast row reads 64 B.
        let copy = plan(&[16, 64], None, &[1, 1], &[16, 64]);
        let gather = plan(&[16, 128], None, &[1, 2], &[16, 64]);
        let broadcast = plan(&[16, 16], Some(&[0, 1]), &[1, 1], &[16, 16]);
        assert_eq!(moved_bytes(&copy.normalized()), 8192);
        assert_eq!(moved_bytes(&gather.normalized()), 4096 + 8192 - 4);
        assert_eq!(moved_bytes(&broadcast.normalized()), 1024 + 64);
        // Four elements far apart, each broadcast 64 times: 16 bytes read, not 1 KiB.
        let far = plan(&[64, 2, 2], Some(&[0, 100_000, 1]), &[1, 1, 1], &[64, 2, 2]);
        assert_eq!(moved_bytes(&far.normalized()), 1024 + 16);
        // Streaming follows the lines: the gather's 128 lines read and 64 written.
        assert_eq!((lines(&copy), lines(&gather)), (8192, 12288));
        let t = StreamingThresholds { copy: 8192, contiguous: 8192, fill: 65536, other: 65536 };
        let options = ExecOptions { streaming: t, ..ExecOptions::default() };
        let streams = |p: &Slice1Plan, options: &ExecOptions| Program::compile(p, options).unwrap().streaming;
        // Each kernel streams from its own kind's threshold, whatever the others say: the copy's 8 KiB from 8192,
        // not 8193; the gather's 12288 bytes from 12288, not 12289; a fill from its lines.
        let (x, o) = (StreamingThresholds::NEVER, StreamingThresholds::ALWAYS);
        let at = |t: StreamingThresholds| ExecOptions { streaming: t, ..options.clone() };
        assert!(streams(&copy, &at(StreamingThresholds { copy: 8192, ..x })));
        assert!(!streams(&copy, &at(StreamingThresholds { copy: 8193, ..o })));
        assert!(streams(&gather, &at(StreamingThresholds { contiguous: 12288, ..x })));
        assert!(!streams(&gather, &at(StreamingThresholds { contiguous: 12289, ..o })));
        let fill = plan(&[4, 1024], Some(&[1, 0]), &[1, 1], &[4, 1024]);
        assert!(matches!(Program::compile(&fill, &options).unwrap().inner, Inner::Fill { .. }));
        assert_eq!(lines(&fill), 16384 + 64);
        assert!(streams(&fill, &at(StreamingThresholds { fill: 16384 + 64, ..x })));
        assert!(!streams(&fill, &at(StreamingThresholds { fill: 16384 + 65, ..o })));
        // The other kernels from the last threshold: a transpose of 64 x 64 f32 moves 32 KiB.
        let transpose = plan(&[64, 64], Some(&[1, 64]), &[1, 1], &[64, 64]);
        assert!(matches!(Program::compile(&transpose, &options).unwrap().inner, Inner::Transpose { .. }));
        assert_eq!(lines(&transpose), 32768);
        assert!(streams(&transpose, &at(StreamingThresholds { other: 32768, ..x })));
        assert!(!streams(&transpose, &at(StreamingThresholds { other: 32769, ..o })));
        // Short rows moved by fixed-size moves (28 of every 48 bytes, 64 rows) from the higher of the bulk copy's
        // threshold and the others'; longer runs (132 of every 160 bytes) from the others' alone.
        let short = plan(&[64, 12], None, &[1, 1], &[64, 7]);
        let long = plan(&[64, 40], None, &[1, 1], &[64, 33]);
        assert!(matches!(Program::compile(&short, &options).unwrap().inner, Inner::Rows { bytes: 28, .. }));
        assert!(matches!(Program::compile(&long, &options).unwrap().inner, Inner::Rows { bytes: 132, .. }));
        let (s, l) = (lines(&short), lines(&long));
        for (copy, other) in [(s, 1), (1, s)] {
            assert!(streams(&short, &at(StreamingThresholds { copy, other, ..x })), "copy {copy}, other {other}");
        }
        for (copy, other) in [(s + 1, 1), (1, s + 1)] {
            assert!(!streams(&short, &at(StreamingThresholds { copy, other, ..o })), "copy {copy}, other {other}");
        }
        assert!(streams(&long, &at(StreamingThresholds { copy: l + 1, other: l, ..x })));
        assert!(!streams(&long, &at(StreamingThresholds { copy: 1, other: l + 1, ..o })));
        // Four elements read backwards every third, broadcast over 1000 contiguous rows (sweep1_086's shape,
        // smaller): a table of broadcast rows, one pass copied to every row, which streams from the fills'
        // threshold; the same rows spaced in a padded output keep the others'.
        let desc = |out_strides: Option<&[u32]>| {
            let d = Slice1Desc {
                input: BufferTensorDesc::new(f32, &[1000, 11], Some(&[0, 1])).unwrap(),
                output: BufferTensorDesc::new(f32, &[1000, 4], out_strides).unwrap(),
                input_window_offsets: vec![0, 0],
                input_window_sizes: vec![1000, 11],
                input_window_strides: vec![1, -3],
            };
            d.validate().unwrap()
        };
        for (padded, fill) in [(None, true), (Some(&[5u32, 1][..]), false)] {
            let p = desc(padded);
            let table = Program::compile(&p, &options).unwrap().inner;
            assert!(matches!(table, Inner::Table(c) if c.row_src == 0 && c.rows == 1000), "{table:?}");
            let n = lines(&p);
            // Streams at its kind's threshold whatever the other kinds say, and not one byte above it.
            let (at_n, above) = if fill {
                (StreamingThresholds { fill: n, ..x }, StreamingThresholds { fill: n + 1, ..o })
            } else {
                (StreamingThresholds { other: n, ..x }, StreamingThresholds { other: n + 1, ..o })
            };
            assert!(streams(&p, &at(at_n)), "fill {fill}: {}", Program::compile(&p, &at(at_n)).unwrap().describe());
            assert!(!streams(&p, &at(above)), "fill {fill}: {}", Program::compile(&p, &at(above)).unwrap().describe());
        }
        // A kernel under replicated loops from the bulk copy's threshold, whose block copies write most of the
        // output: a stride-2 gather of 64 f32 broadcast 16 times writes 4 KiB and reads the 8 lines it spans.
        let replicated = plan(&[16, 128], Some(&[0, 1]), &[1, 2], &[16, 64]);
        let p = Program::compile(&replicated, &options).unwrap();
        assert!(matches!(p.inner, Inner::Gather { .. }) && p.outer.iter().any(|d| d.replicate && d.n == 16));
        assert_eq!(lines(&replicated), 4096 + 512);
        assert!(streams(&replicated, &at(StreamingThresholds { copy: 4096 + 512, ..x })));
        assert!(!streams(&replicated, &at(StreamingThresholds { copy: 4096 + 513, ..o })));
        // A fill's replicas are fills: it keeps the fills' threshold (a broadcast element under a broadcast loop
        // of 16 rows of 64 elements written once each, then replicated, or run again: either way, a fill's).
        let filled = plan(&[16, 64], Some(&[0, 0]), &[1, 1], &[16, 64]);
        assert!(matches!(Program::compile(&filled, &options).unwrap().inner, Inner::Fill { .. }));
        assert_eq!(lines(&filled), 4096 + 64);
        assert!(streams(&filled, &at(StreamingThresholds { fill: 4096 + 64, ..x })));
        assert!(!streams(&filled, &at(StreamingThresholds { fill: 4096 + 65, ..o })));
        // A transpose of 120-byte pixels 1720 bytes apart into 120 planes of 2000 (sweep1_158's shape, smaller):
        // the estimate charges each element a line, capped at the 3.4 MB the input spans; the transpose reads 2-3
        // lines a pixel and writes its 240 KB, under a 1 MiB threshold.
        let u8 = DataType::Uint8;
        let desc = Slice1Desc {
            input: BufferTensorDesc::new(u8, &[2000, 120], Some(&[1720, 1])).unwrap(),
            output: BufferTensorDesc::new(u8, &[2000, 120], Some(&[1, 2000])).unwrap(),
            input_window_offsets: vec![0, 0],
            input_window_sizes: vec![2000, 120],
            input_window_strides: vec![1, 1],
        };
        let pixels = desc.validate().unwrap();
        let estimate = moved_bytes(&pixels.normalized()) as usize;
        let footprint = lines(&pixels);
        assert!(estimate > 3 << 20 && footprint < 1 << 20, "{estimate} {footprint}");
        let other = |other| at(StreamingThresholds { other, ..x });
        let p = Program::compile(&pixels, &other(1 << 20)).unwrap();
        assert!(matches!(p.inner, Inner::Transpose { .. } | Inner::Table(_)) && !p.streaming, "{}", p.describe());
        assert!(Program::compile(&pixels, &other(footprint)).unwrap().streaming);
        // Beyond the count's budget the estimate decides: f32 elements a line apart, 1024 rows of 2048 overlapping
        // at a stride of 17 (rows that share lines, counted on a bitmap).
        let overlapping = plan(&[1024, 2048], Some(&[17, 16]), &[1, 1], &[1024, 2048]);
        assert!(!stridekit::ops::traffic::Traffic::of_slice1_within(&overlapping, FOOTPRINT_BUDGET).exact);
        let moved = moved_bytes(&overlapping.normalized());
        let threshold = usize::try_from(moved).unwrap();
        assert!(footprint_reaches(&overlapping, moved, threshold));
        assert!(!footprint_reaches(&overlapping, moved, threshold + 1));
        // The thread split is decided on the same bytes (twice as many for a bulk copy): the gather writes 4 KiB but
        // moves 12 KiB.
        let options = ExecOptions { threads: 2, parallel_min_bytes: 4096, ..ExecOptions::default() };
        let parts = |p: &Slice1Plan, options: &ExecOptions| {
            crate::kernels::threads(&crate::kernels::check(Program::compile(p, options).unwrap()).unwrap(), options)
        };
        assert_eq!((parts(&copy, &options), parts(&gather, &options), parts(&broadcast, &options)), (2, 2, 1));
        let options = ExecOptions { parallel_min_bytes: 4097, ..options };
        assert_eq!((parts(&copy, &options), parts(&gather, &options)), (1, 2));
        // A fill is bound by its stores and splits at twice the threshold, as a bulk copy does: 4 KiB written and
        // one element read move 4100 bytes.
        let fill = plan(&[1024], Some(&[0]), &[1], &[1024]);
        assert_eq!(Program::compile(&fill, &options).unwrap().inner.name(), "fill");
        assert_eq!(moved_bytes(&fill.normalized()), 4100);
        let at = |bytes| ExecOptions { parallel_min_bytes: bytes, ..options };
        assert_eq!((parts(&fill, &at(2050)), parts(&fill, &at(2051)), parts(&gather, &at(2051))), (2, 1, 2));
    }
}
