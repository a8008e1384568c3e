//! Short rows: `rows` contiguous runs of `bytes` bytes (at most [`SHORT_ROW_MAX_BYTES`], 1 KiB), `src` and `dst`
//! bytes apart. Pixels of 3-4 channels, boxes and keypoints under strided, reversed or padded outer dimensions make
//! the innermost contiguous run only a few bytes long; one `memcpy` call per run costs more than the bytes. This
//! kernel takes the run and the dimension around it at once and copies each run of up to 128 bytes with two
//! overlapping fixed-size moves, longer ones with one `memcpy` each; runs close together in the source and
//! contiguous in the destination take a periodic byte shuffle instead, several runs per load and store (x86: a
//! 64-byte `vpermb` with AVX-512 VBMI when the runs fit 64-byte windows two or more at a time, else a 16-byte
//! `pshufb` when they fit 16-byte ones). Runs that are not whole cache lines and go to a
//! contiguous destination with streaming stores are assembled in an L1 stage first: streamed alone, each would leave
//! partial lines at both ends (written with ordinary stores, read for ownership).

use super::copy::copy_bytes;
use crate::kernels::footprint::Footprint;
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86;
use crate::kernels::{Ctx, Simd};

/// The longest run that takes this kernel (longer runs are bulk copies, where a `memcpy` call is amortised).
pub(crate) const SHORT_ROW_MAX_BYTES: usize = 1024;

/// The longest run copied with two fixed-size moves (`rows_with`); longer ones are one `memcpy` each.
pub(crate) const MOVES_MAX_BYTES: usize = 128;

/// One call reads and writes `rows` runs of `bytes` bytes (whole elements of `esize` bytes), `src` / `dst` apart.
pub(crate) fn footprint(rows: usize, bytes: usize, src: isize, dst: isize, esize: usize) -> Footprint {
    let run = (bytes / esize, esize as isize);
    Footprint { src: [(rows, src), run], dst: [(rows, dst), run] }
}

/// Bytes of the L1-resident block that rows bound for streaming stores are assembled in.
const STAGE_BYTES: usize = 4096;

/// Whether [`rows`] assembles its runs in the L1 stage: with streaming stores (`nt`), into a contiguous destination
/// (`d == bytes`), at least a stage's worth of bytes, unless the runs are long runs of whole lines at line-aligned
/// addresses, which stream on their own (a bulk copy each). Runs of up to [`MOVES_MAX_BYTES`] are moved with
/// ordinary stores even when they are whole lines, so they take the stage too: every other 64-byte row of a 51 MB
/// copy, unstaged, read each destination line for ownership (0.34 of the roofline).
fn staged(rows: usize, bytes: usize, d: isize, dst: *const u8, nt: bool) -> bool {
    let whole_lines = bytes > MOVES_MAX_BYTES && bytes.is_multiple_of(64) && (dst as usize).is_multiple_of(64);
    nt && d == bytes as isize && rows.saturating_mul(bytes) >= STAGE_BYTES && !whole_lines
}

/// Whether a call of `rows` runs of `bytes` bytes, `d` apart in the destination, writes with ordinary stores
/// even when the copy streams: runs of up to [`MOVES_MAX_BYTES`] are moved with ordinary stores, and only the
/// stage ([`staged`]: a contiguous destination, a stage's worth of bytes) streams them. The planner then keeps the
/// destination of the outer loops rising (`planner`, step 3), as the hardware prefetcher's requests for ownership
/// need.
pub(crate) fn stores_ordinarily(rows: usize, bytes: usize, d: isize) -> bool {
    // Runs this short are never whole lines for `staged`, so its answer does not depend on the destination address.
    bytes <= MOVES_MAX_BYTES && !staged(rows, bytes, d, std::ptr::null(), true)
}

/// Copies `rows` runs of `bytes` bytes (1 ..= [`SHORT_ROW_MAX_BYTES`]) from `src + r * s` to `dst + r * d`.
///
/// With streaming stores and a contiguous destination (`d == bytes`), the runs are assembled in a 4 KiB stack
/// block and streamed out from there, so that the destination lines are not read for ownership first; the short
/// moves themselves cannot stream (they are not whole aligned vectors).
///
/// Long runs far apart request the runs [`LONG_RUNS_AHEAD`] further on as they go ([`requests_long_runs`]).
///
/// `next` is the source pointer of the next call, given only when [`takes_next_call`] holds: the row loop then
/// requests the next call's first runs as it copies its own last ones, instead of the dispatch requesting them all
/// before the call. `dst_continues` says that the next call's destination runs follow this call's at the same step
/// `d` (the loop around the call steps `rows * d`), so that the destination requests of [`dst_reach`] may pass this
/// call's last run.
///
/// # Safety
/// Every source run is readable and every destination run writable; the sides do not overlap.
#[allow(clippy::too_many_arguments)] // the row walk's fields and the next call
#[inline]
pub(crate) unsafe fn rows(
    src: *const u8,
    dst: *mut u8,
    rows: usize,
    bytes: usize,
    s: isize,
    d: isize,
    ctx: Ctx,
    (next, dst_continues): (Option<*const u8>, bool),
) {
    debug_assert!(next.is_none() || takes_next_call(bytes, s, ctx));
    // Long runs read backwards (rows bottom-up) are walked from the last row, so that the reads rise: the hardware
    // prefetcher follows rising streams (1 KiB rows read bottom-up ran at 0.55 of the roofline, forwards 0.85).
    let backwards = s < 0 && !descends(bytes, s);
    // How many runs the walk has whose lines the row loop may request ahead (none when it requests nothing); each
    // chunk below is told how many of them lie from its first run on.
    let walk = if requests_long_runs(bytes, s, ctx) { rows } else { 0 };
    if !staged(rows, bytes, d, dst, ctx.nt) {
        if backwards {
            let last = rows as isize - 1;
            // From the last run down: the next call's runs never follow the first.
            let walk = (rows, walk, dst_reach(rows, bytes, -d, false, ctx));
            // SAFETY: the same runs, from run rows - 1 down to run 0 (the caller's contract).
            unsafe { rows_any(src.offset(last * s), dst.offset(last * d), walk, bytes, -s, -d, ctx, None) };
        } else {
            let reach = dst_reach(rows, bytes, d, dst_continues, ctx);
            // SAFETY: the caller's contract.
            unsafe { rows_any(src, dst, (rows, walk, reach), bytes, s, d, ctx, next) };
        }
        return;
    }
    let mut stage = std::mem::MaybeUninit::<[u8; STAGE_BYTES]>::uninit();
    let stage = stage.as_mut_ptr().cast::<u8>();
    let per = STAGE_BYTES / bytes;
    let mut done = 0;
    while done < rows {
        let k = per.min(rows - done);
        // Runs r .. r + k: the next ones forwards, or the last ones not yet copied backwards.
        let r = if backwards { rows - done - k } else { done };
        // SAFETY: runs r .. r + k of the caller's source; the stage holds k * bytes <= STAGE_BYTES bytes, written
        // here in full before `copy_bytes` reads them (backwards: run r + k - 1 into the stage's last slot first,
        // the slots going down); destination bytes r * bytes .. (r + k) * bytes are runs r .. r + k of the
        // contiguous destination (d == bytes), the caller's range.
        unsafe {
            if backwards {
                let last = (r + k - 1) as isize;
                let slot = stage.add((k - 1) * bytes);
                rows_any(
                    src.offset(last * s),
                    slot,
                    (k, walk.min(r + k), 0),
                    bytes,
                    -s,
                    -(bytes as isize),
                    Ctx { nt: false, ..ctx },
                    None,
                );
            } else {
                // The last runs of the call request the next call's first ones (`next`); the others, runs of
                // this call further on.
                let next = if r + k == rows { next } else { None };
                rows_any(
                    src.offset(r as isize * s),
                    stage,
                    (k, walk.saturating_sub(r), 0),
                    bytes,
                    s,
                    bytes as isize,
                    Ctx { nt: false, ..ctx },
                    next,
                );
            }
            copy_bytes(stage, dst.add(r * bytes), k * bytes, ctx);
        }
        done += k;
    }
}

/// [`rows`] with ordinary stores: a periodic shuffle where the runs are close together in the source and
/// contiguous in the destination (64-byte windows first: on the sweep's short rows that fit them, e.g. 4.5 million
/// 6-byte runs 12 bytes apart at 0.38 of the roofline through the row loop and 0.55 through the 64-byte permute,
/// 8-byte runs 20 apart 0.60 -> 0.72, 5-byte runs 50 apart 0.75 -> 0.83; three alternating rounds, 2026-11-26;
/// only for calls of a KiB or more, `x86::rows_shuffle64_pays`), the row loop otherwise.
///
/// # Safety
/// As for [`rows`].
#[allow(clippy::too_many_arguments)] // the row walk's fields
#[inline]
unsafe fn rows_any(
    src: *const u8,
    dst: *mut u8,
    (rows, walk, dst_reach): (usize, usize, usize),
    bytes: usize,
    s: isize,
    d: isize,
    ctx: Ctx,
    next: Option<*const u8>,
) {
    #[cfg(target_arch = "x86_64")]
    if ctx.vbmi
        && d == bytes as isize
        && x86::rows_shuffle64_fits(rows, bytes, s)
        && x86::rows_shuffle64_pays(rows, bytes)
    {
        // SAFETY: AVX-512 VBMI detected (`ctx.vbmi`); the caller's ranges, with a contiguous destination.
        if unsafe { x86::rows_shuffle64(src, dst, rows, bytes, s) } {
            return;
        }
    }
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 && d == bytes as isize && x86::rows_shuffle_fits(rows, bytes, s) {
        // SAFETY: AVX2 detected; the caller's ranges, with a contiguous destination (d == bytes).
        if unsafe { x86::rows_shuffle(src, dst, rows, bytes, s) } {
            return;
        }
    }
    let _ = Simd::None;
    if bytes > MOVES_MAX_BYTES {
        // SAFETY: the caller's contract.
        unsafe {
            match walk > 0 {
                true => long_runs::<true>((src, s), (dst, d), (rows, walk, dst_reach), bytes, ctx),
                false => long_runs::<false>((src, s), (dst, d), (rows, 0, dst_reach), bytes, ctx),
            }
        };
        return;
    }
    let ahead = requests_ahead(s, ctx);
    let next = if ahead { next } else { None };
    let walk = Walk { src: (src, s), dst: (dst, d), rows, bytes, next, dst_reach, nt: ctx.nt };
    // One instance per kind of request, so that a loop without requests tests nothing per run.
    macro_rules! plain {
        ($f:ident) => {
            match (ahead, dst_reach > 0) {
                (true, true) => $f::<true, true>(walk),
                (true, false) => $f::<true, false>(walk),
                (false, true) => $f::<false, true>(walk),
                (false, false) => $f::<false, false>(walk),
            }
        };
    }
    // SAFETY: every arm runs the caller's contract; the AVX2 build only where AVX2 was detected.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        if ctx.simd == Simd::Avx2 && bytes >= 32 {
            return plain!(rows_plain_avx2);
        }
        plain!(rows_plain_apart)
    }
}

/// [`rows_plain`] in a function of its own: inlined into [`rows_any`], its instances (four kinds of request, seven
/// widths) left the loops short of registers, and each run stored and reloaded the destination pointer on the stack
/// (16538 runs of 16 bytes, sweep1_166: 1.5x the time).
///
/// # Safety
/// As for [`rows`].
#[inline(never)]
unsafe fn rows_plain_apart<const AHEAD: bool, const DST: bool>(walk: Walk) {
    // SAFETY: the caller's contract.
    unsafe { rows_plain::<AHEAD, DST>(walk) }
}

/// The numbers of one call of the row loop ([`rows_plain`]): runs `r < rows` of `bytes` bytes from `src.0 + r
/// src.1` to `dst.0 + r dst.1` (each side's pointer with its step, as [`long_runs`] takes them), the next call's
/// source when its runs are requested ahead, and how far the destination runs may be requested ([`dst_reach`]).
#[derive(Clone, Copy)]
struct Walk {
    src: (*const u8, isize),
    dst: (*mut u8, isize),
    rows: usize,
    bytes: usize,
    next: Option<*const u8>,
    dst_reach: usize,
    /// Whether the copy streams: its requests then go to L2 (`x86::Level`).
    nt: bool,
}

/// [`rows_plain`] compiled for AVX2: the fixed-size moves of runs of 32 bytes and more take 32-byte vectors (the
/// portable build moves 16 bytes at a time). The 42 row cases of 32-128-byte runs of seeds 1-4 ran in 0.96 of the
/// time (two sets of six and four alternating rounds; `docs/PERFORMANCE.md`, thirty-first round).
///
/// # Safety
/// AVX2 is available; as for [`rows`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn rows_plain_avx2<const AHEAD: bool, const DST: bool>(walk: Walk) {
    // SAFETY: the caller's contract.
    unsafe { rows_plain::<AHEAD, DST>(walk) }
}

/// The long runs' loop of [`rows_any`]: a bulk copy each (it streams whole lines when the copy streams). With
/// `REQUEST`, each run first requests the lines of the run [`LONG_RUNS_AHEAD`] further on while that run is one of
/// the `walk` runs from this chunk's first (a separate instance, so that the loop without requests tests nothing);
/// each run up to `dst_reach` requests the destination of the run as far on with write intent ([`dst_reach`]).
///
/// # Safety
/// As for [`rows`].
#[inline]
unsafe fn long_runs<const REQUEST: bool>(
    (src, s): (*const u8, isize),
    (dst, d): (*mut u8, isize),
    (rows, walk, dst_reach): (usize, usize, usize),
    bytes: usize,
    ctx: Ctx,
) {
    for r in 0..rows as isize {
        #[cfg(target_arch = "x86_64")]
        if ((r + LONG_RUNS_AHEAD) as usize) < dst_reach {
            // A hint: it never faults.
            x86::prefetch_bytes_for_write(dst.wrapping_offset((r + LONG_RUNS_AHEAD) * d), bytes);
        }
        #[cfg(target_arch = "x86_64")]
        if REQUEST && ((r + LONG_RUNS_AHEAD) as usize) < walk {
            // A hint: it never faults.
            x86::prefetch_bytes(src.wrapping_offset((r + LONG_RUNS_AHEAD) * s), bytes, x86::Level::of(ctx.nt));
        }
        // SAFETY: run r of the caller's ranges (bytes long at src + r s and dst + r d); the sides do not overlap.
        unsafe { copy_bytes(src.offset(r * s), dst.offset(r * d), bytes, ctx) };
    }
    let _ = (walk, dst_reach);
}

/// Whether a call of runs of `bytes` bytes `s` apart reads its source downwards: runs read bottom-up that are
/// walked from the first (runs of more than [`MOVES_MAX_BYTES`] read bottom-up are walked from the last, so that
/// their reads rise, see [`rows`]). The dispatch requests the next call's lines before such a call when its loop
/// steps upwards (`dispatch::next_call`): each call starts its descent where the hardware prefetcher, following the
/// previous one down, is not. Measured over the 74 row programs of `--sweep 200 --sweep-max-bytes 64M` seeds 1-20
/// whose runs descend under a loop that rises, three ABBA rounds on the Zen 4 of `docs/PERFORMANCE.md`'s
/// sixty-first round: the 41 of short runs 0.863 (seeds 1-10) and 0.907 (11-20) of the time (every other u64 of
/// f16, sweep8_098, 0.49; 46 of them under three loops, sweep2_081, 0.43); the 33 of longer runs, which rise, 1.04.
/// Backward gathers under the same rule: 1.04 over 52.
pub(crate) fn descends(bytes: usize, s: isize) -> bool {
    s < 0 && bytes <= MOVES_MAX_BYTES
}

/// Whether the row loop requests the lines of runs ahead: runs that start a line of their own each are not a stream
/// the hardware follows (see [`PREFETCH_AHEAD`]).
fn requests_ahead(s: isize, ctx: Ctx) -> bool {
    ctx.simd == Simd::Avx2 && s.unsigned_abs() > 64
}

/// How many runs ahead [`rows_any`] requests the lines of a run longer than [`MOVES_MAX_BYTES`] when more than
/// [`LONG_RUNS_GAP`] bytes lie between runs. The hardware prefetcher does not fetch across such gaps, so each run
/// waited for its own lines, from the last-level cache or from memory: in a C loop of `memcpy` calls on this
/// machine, 364-byte runs 728 bytes apart from an 8.9 MB source took 166 ns a run on one core, 30-36 ns with the
/// run 2-8 runs ahead requested. In stridekit, runs of 240-590 bytes 700-2100 bytes apart (sweep1_031, sweep2_012,
/// 060, 075) ran in 0.66-0.81 of the time (five alternating rounds; `docs/PERFORMANCE.md`, twentieth round).
#[cfg(target_arch = "x86_64")]
const LONG_RUNS_AHEAD: isize = 8;

/// The gap between long runs, in bytes, beyond which [`rows_any`] requests them ahead: the hardware prefetcher
/// still follows runs a line or so apart (608-byte runs 688 bytes apart gained nothing).
const LONG_RUNS_GAP: usize = 128;

/// Whether [`rows_any`] requests the lines of long runs ahead ([`LONG_RUNS_AHEAD`]): runs of more than
/// [`MOVES_MAX_BYTES`] (shorter ones request theirs in [`rows_with`]) more than [`LONG_RUNS_GAP`] apart, in a copy
/// that streams (its footprint exceeds the caches, `ExecOptions::streaming`). In cache-sized copies the
/// runs come from L1 and L2, where the requests only cost.
fn requests_long_runs(bytes: usize, s: isize, ctx: Ctx) -> bool {
    ctx.nt && ctx.simd == Simd::Avx2 && bytes > MOVES_MAX_BYTES && s.unsigned_abs() > bytes + LONG_RUNS_GAP
}

/// Whether a call of runs of `bytes` bytes `s` apart takes the requests for the next call's runs into its row loop
/// (the `next` of [`rows`]): runs of at most [`MOVES_MAX_BYTES`] whose row loop requests runs ahead (runs more than a
/// line apart never take the shuffles, whose windows hold two runs). Requested all at once before the call, as the
/// dispatch does for other kernels, the next call's runs held up this call's own loads: 12 runs of 74 bytes from
/// 3.5 KB (sweep1_049) in 0.51 of the time, 50 runs of 42 bytes bottom-up (sweep1_015) 0.58, 14 of 116 bytes
/// (sweep1_061) 0.72; six alternating rounds, `docs/PERFORMANCE.md`, seventeenth round.
pub(crate) fn takes_next_call(bytes: usize, s: isize, ctx: Ctx) -> bool {
    bytes <= MOVES_MAX_BYTES && requests_ahead(s, ctx)
}

/// How many runs from a call's first one the row loops may request the destination lines of, with write intent,
/// some runs ahead ([`PREFETCH_AHEAD`], [`LONG_RUNS_AHEAD`]; 0: none), so that their ordinary stores do not wait
/// to own each line: runs of at most [`MOVES_MAX_BYTES`] more than a line apart in the destination, and longer runs
/// unless the copy streams (their whole lines stream then). Up to the call's last run, or past it when the next
/// call's runs follow at the same step (`continues`). Never for the stage (whose lines are in L1), nor for short
/// runs within a line of each other: requested per run (1.07x the time over the 73 such row cases of seeds 1-4,
/// up to 1.9x), the hardware follows those on its own.
///
/// Measured over the row cases of seeds 1-4, four alternating rounds each (`docs/PERFORMANCE.md`, thirty-second
/// round): the 24 of short runs a line apart 0.70 of the time (40-byte runs 284 bytes apart, sweep4_153, 0.32;
/// 80-byte runs 240 apart from the cache, sweep2_145, 0.57), where requests past the call's end though the next
/// call jumped had cost calls of 12-25 runs 1.2-2.5x (sweep1_023, sweep1_065); the 21 of runs of 129 bytes to
/// 1 KiB that do not stream 0.83 (368-byte runs 19872 bytes apart, sweep4_108, 0.47-0.78; 708-byte runs into a
/// contiguous destination, sweep3_138, 0.69).
fn dst_reach(rows: usize, bytes: usize, d: isize, continues: bool, ctx: Ctx) -> usize {
    let requests = ctx.simd == Simd::Avx2
        && match bytes <= MOVES_MAX_BYTES {
            true => d.unsigned_abs() > 64,
            false => !ctx.nt,
        };
    match (requests, continues) {
        (false, _) => 0,
        (true, false) => rows,
        (true, true) => usize::MAX,
    }
}

/// The row loop. The destination runs may interleave with another thread's bytes (channel-last
/// outputs), so no slice may span them: this is a pointer loop.
///
/// # Safety
/// As for [`rows`].
#[inline(always)] // into `rows_plain_avx2` too, which compiles it for AVX2
unsafe fn rows_plain<const AHEAD: bool, const DST: bool>(walk: Walk) {
    let bytes = walk.bytes;
    assert!((1..=MOVES_MAX_BYTES).contains(&bytes));
    // SAFETY: for every arm, the caller's contract, and `W <= bytes` (each arm's range).
    unsafe {
        match bytes {
            64.. => rows_with::<64, AHEAD, DST>(walk),
            32..=63 => rows_with::<32, AHEAD, DST>(walk),
            16..=31 => rows_with::<16, AHEAD, DST>(walk),
            8..=15 => rows_with::<8, AHEAD, DST>(walk),
            4..=7 => rows_with::<4, AHEAD, DST>(walk),
            2..=3 => rows_with::<2, AHEAD, DST>(walk),
            _ => rows_with::<1, AHEAD, DST>(walk),
        }
    }
}

/// How many runs ahead [`rows_with`] requests the source lines of a run, when the runs are more than a line apart.
/// The hardware prefetcher follows streams of adjacent lines; runs of 40 or 68 bytes every 136 or 400 bytes are
/// not one, and each run waited for its own misses: 40-50 ns a run on one core, half the speed of two threads, a
/// sign of latency, not bandwidth. Requested 16 runs ahead, such copies ran 1.3-1.7x faster on one thread
/// (sweep1_075, 079, 026, 040 of `--sweep 200 --seed 1`: 0.26 -> 0.46, 0.26 -> 0.42, 0.37 -> 0.46, 0.48 -> 0.59 of
/// the roofline, four alternating rounds; 6 runs ahead gained less, 32 the same, 2026-11-26).
#[cfg(target_arch = "x86_64")]
const PREFETCH_AHEAD: isize = 16;

/// [`rows`] with runs of `W ..= 2 W` bytes: each run is the `W` bytes at its start and the `W` bytes at its end
/// (overlapping when the run is shorter than `2 W`), each a fixed-size copy (the sides do not overlap, so the end
/// may be read after the start is written). Reading both into `[u8; W]` values first made the compiler keep the
/// end's value on the stack, a third store per run: the 126 row cases of seeds 1-4 ran in 0.95 of the time without
/// it, runs of 16-127 bytes in 0.87-0.92 (two sets of four alternating rounds; `docs/PERFORMANCE.md`, thirty-first
/// round). With `AHEAD`, the lines
/// of the run [`PREFETCH_AHEAD`] runs later are requested first (a hint: past the last run it names bytes that are
/// never read, which costs a wasted request only); with `next` (the next call's source), the last runs request
/// the next call's first ones instead, as many runs ahead (or, in a call of fewer runs, the next call's run of the
/// same index). With `DST`, the destination of the run as far on, with write intent, up to the walk's `dst_reach`.
///
/// # Safety
/// As for [`rows`], with `W <= bytes <= 2 W`.
#[inline(always)]
unsafe fn rows_with<const W: usize, const AHEAD: bool, const DST: bool>(walk: Walk) {
    let Walk { src: (src, s), dst: (dst, d), rows, bytes, next, dst_reach, nt } = walk;
    debug_assert!(W <= bytes && bytes <= 2 * W);
    let tail = bytes - W;
    // Runs this far from the end request the next call's runs (with `next`; requests are x86 only).
    #[cfg(target_arch = "x86_64")]
    let dist = (PREFETCH_AHEAD as usize).min(rows) as isize;
    #[cfg(not(target_arch = "x86_64"))]
    let _ = next;
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (dst_reach, nt);
    for r in 0..rows as isize {
        #[cfg(target_arch = "x86_64")]
        if DST && ((r + PREFETCH_AHEAD) as usize) < dst_reach {
            // A hint: it never faults.
            x86::prefetch_bytes_for_write(dst.wrapping_offset((r + PREFETCH_AHEAD) * d), bytes);
        }
        #[cfg(target_arch = "x86_64")]
        if AHEAD {
            // The first and last line of the run; a run of 65-128 bytes may touch a third line between them.
            // Fixed points rather than `prefetch_bytes`' loop over the lines: this is the per-run loop.
            let next = match next {
                Some(n) if r + dist >= rows as isize => n.wrapping_offset((r + dist - rows as isize) * s),
                _ => src.wrapping_offset((r + PREFETCH_AHEAD) * s),
            };
            let (three, two) = ([0, 64, bytes as i32 - 1], [0, bytes as i32 - 1]);
            x86::prefetch_lines(next, if W == 64 { &three } else { &two }, x86::Level::of(nt));
        }
        // SAFETY: run r spans bytes 0 .. bytes from src + r s and dst + r d (the caller's ranges); the moves cover
        // 0 .. W and tail .. tail + W = bytes, both inside the run.
        unsafe {
            let (sp, dp) = (src.offset(r * s), dst.offset(r * d));
            std::ptr::copy_nonoverlapping(sp, dp, W);
            std::ptr::copy_nonoverlapping(sp.add(tail), dp.add(tail), W);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::footprint::Bounds;

    /// A call's context with streaming stores on `simd` (1-byte elements, no bounds to re-check, no next call).
    fn streaming(simd: Simd) -> Ctx {
        Ctx { esize: 1, simd, vbmi: false, nt: true, bounds: Bounds { src: (0, 0), dst: (0, 0) }, next: None }
    }

    #[test]
    fn runs_of_whole_lines_take_the_stage_unless_they_are_long_runs() {
        let line = std::ptr::without_provenance::<u8>(64);
        // 64- and 128-byte runs at a line: the row loop's ordinary stores would read each line for ownership.
        assert!(staged(64, 64, 64, line, true) && staged(32, 128, 128, line, true));
        // Long runs of whole lines at a line stream on their own; not at a line, they are staged.
        assert!(!staged(16, 256, 256, line, true) && staged(16, 256, 256, line.wrapping_add(8), true));
        // Partial lines are staged; without streaming stores, into a padded destination or under a stage's worth
        // of bytes, nothing is.
        assert!(staged(64, 100, 100, line, true));
        assert!(
            !staged(64, 64, 64, line, false) && !staged(64, 64, 128, line, true) && !staged(63, 64, 64, line, true)
        );
    }

    /// Every other 64-byte run into a contiguous line-aligned destination, with streaming stores: through the
    /// stage, each run where it belongs and nothing past the runs written.
    #[test]
    fn every_other_line_through_the_stage() {
        #[repr(C, align(64))]
        struct Lines([u8; 4096 + 64]);
        let rows = 64;
        let src: Vec<u8> = (0..rows * 128).map(|i| (i * 7 % 251) as u8).collect();
        let mut out = Box::new(Lines([0xEE; 4096 + 64]));
        let ctx = Ctx { esize: 4, ..streaming(crate::kernels::dispatch::detect(true)) };
        assert!(staged(rows, 64, 64, out.0.as_ptr(), true));
        // SAFETY: runs r < 64 of 64 bytes at 64 + 128 r in `src` (8192 bytes); 64 * 64 bytes of `out`.
        unsafe { super::rows(src.as_ptr().add(64), out.0.as_mut_ptr(), rows, 64, 128, 64, ctx, (None, false)) };
        for r in 0..rows {
            assert_eq!(out.0[r * 64..r * 64 + 64], src[64 + r * 128..128 + r * 128], "run {r}");
        }
        assert!(out.0[4096..].iter().all(|&b| b == 0xEE));
    }

    #[test]
    fn destination_runs_a_line_apart_are_requested_up_to_the_call_or_past_it_when_the_next_follows() {
        let ctx = Ctx { nt: false, ..streaming(Simd::Avx2) };
        // 40-byte runs 284 bytes apart (sweep4_153): the call's own runs, or past them when the next call follows.
        assert_eq!(dst_reach(495, 40, 284, false, ctx), 495);
        assert_eq!(dst_reach(495, 40, 284, true, ctx), usize::MAX);
        // Runs of 80 bytes into a contiguous destination are a line apart too; with streaming stores as well.
        assert_eq!(dst_reach(15, 80, 80, false, streaming(Simd::Avx2)), 15);
        // Longer runs too, unless they stream.
        assert_eq!(dst_reach(100, 368, 19872, false, ctx), 100);
        assert_eq!(dst_reach(100, 708, 708, true, ctx), usize::MAX);
        assert_eq!(dst_reach(100, 368, 19872, false, streaming(Simd::Avx2)), 0);
        // Runs within a line of each other, bottom-up destinations a line apart (requested as well), no AVX2.
        assert_eq!(dst_reach(100, 16, 64, true, ctx), 0);
        assert_eq!(dst_reach(100, 40, -284, false, ctx), 100);
        assert_eq!(dst_reach(100, 40, 284, true, Ctx { simd: Simd::None, ..ctx }), 0);
    }

    /// Runs a line or more apart under ordinary stores, their destination requested ahead (short runs, long runs
    /// walked forwards and bottom-up; within the call, and past its end as when the next call's runs follow): every
    /// run where it belongs, and the gaps between them untouched.
    #[test]
    fn runs_with_their_destination_requested_land_where_they_belong() {
        let simd = crate::kernels::dispatch::detect(true);
        let ctx = Ctx { nt: false, ..streaming(simd) };
        let rows = if cfg!(miri) { 20 } else { 100 };
        for (bytes, s, d) in [(40usize, 40isize, 284usize), (200, 300, 260), (200, -256, 300)] {
            assert_eq!(dst_reach(rows, bytes, d as isize, false, ctx) > 0, simd == Simd::Avx2);
            let span = |step: usize| (rows - 1) * step + bytes;
            let src: Vec<u8> = (0..span(s.unsigned_abs())).map(|i| (i * 7 + i / 251) as u8).collect();
            // Bottom-up: run 0 is the last run of the source.
            let s0 = if s < 0 { (rows - 1) * s.unsigned_abs() } else { 0 };
            for continues in [false, true] {
                let mut out = vec![0xEEu8; span(d)];
                // SAFETY: runs r < rows of `bytes` at s0 + r s inside `src` and at r d inside `out`; no overlap.
                unsafe {
                    super::rows(
                        src.as_ptr().add(s0),
                        out.as_mut_ptr(),
                        rows,
                        bytes,
                        s,
                        d as isize,
                        ctx,
                        (None, continues),
                    )
                };
                for r in 0..rows {
                    let from = (s0 as isize + r as isize * s) as usize;
                    assert_eq!(out[r * d..r * d + bytes], src[from..from + bytes], "{bytes} {s} {d}: run {r}");
                    let gap = &out[(r * d + bytes).min(out.len())..((r + 1) * d).min(out.len())];
                    assert!(gap.iter().all(|&b| b == 0xEE), "{bytes} {s} {d}: gap after run {r}");
                }
            }
        }
    }

    #[test]
    fn only_long_runs_far_apart_in_a_streaming_copy_request_runs_ahead() {
        let ctx = streaming(Simd::Avx2);
        // 364-byte runs 728 apart, either direction: requested.
        assert!(requests_long_runs(364, 728, ctx));
        assert!(requests_long_runs(364, -728, ctx));
        // Gaps of at most LONG_RUNS_GAP, short runs (their row loop requests its own), cache-sized copies and no
        // AVX2: not requested.
        assert!(!requests_long_runs(608, 688, ctx));
        assert!(!requests_long_runs(364, 364 + 128, ctx));
        assert!(requests_long_runs(364, 364 + 129, ctx));
        assert!(!requests_long_runs(128, 1000, ctx));
        assert!(!requests_long_runs(364, 728, Ctx { nt: false, ..ctx }));
        assert!(!requests_long_runs(364, 728, Ctx { simd: Simd::None, ..ctx }));
    }
}
