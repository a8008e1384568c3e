//! Running a checked program: the range test against the slices, the outer loops (an odometer around the inner
//! kernel, with replication of broadcast blocks), the threads, and the choice of each kernel.

use super::footprint::{Bounds, Checked, HERE};
use super::pattern::{PATTERN_MAX_BLOCK, PATTERN_MIN_BYTES, repeat_prefix};
use super::portable::{copy, fill, gather, reverse, rows, scatter, table, transpose};
use super::split::{Split, for_each_range};
use super::stage;
use super::{Ctx, Elem, Simd, by_size};
use crate::planner::{Dim, Inner, Program};
use crate::table::Table;
use crate::{ExecError, ExecOptions};

pub(super) fn detect(enabled: bool) -> Simd {
    #[cfg(target_arch = "x86_64")]
    if enabled && std::arch::is_x86_feature_detected!("avx2") {
        return Simd::Avx2;
    }
    let _ = enabled;
    Simd::None
}

/// Raw base pointers shared by the threads of one call.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bases {
    pub src: *const u8,
    pub dst: *mut u8,
}

// SAFETY: the pointers are the ranges `execute_raw`'s caller vouches for during the whole call (the threads are
// joined before it returns). Threads only read through `src`, and write through `dst` to pairwise disjoint bytes
// (the parts are disjoint sets of output coordinates and D1 makes their offsets distinct), so sharing them is
// data-race free.
unsafe impl Send for Bases {}
// SAFETY: as for `Send`: shared use is reads of the input and disjoint writes of the output.
unsafe impl Sync for Bases {}

/// Runs the program of `checked`, reading `src` and writing the element bytes of `dst` (nothing else). Fails,
/// without touching `dst`, when the program reaches outside either slice. A thin wrapper over [`execute_raw`].
pub(crate) fn execute(checked: &Checked, src: &[u8], dst: &mut [u8], options: &ExecOptions) -> Result<(), ExecError> {
    // SAFETY: a shared slice is readable for its whole length and nobody writes it while it is borrowed; an
    // exclusive slice is writable for its whole length and nobody else accesses it; both are single allocations,
    // and they cannot overlap (`&` and `&mut` at once).
    unsafe { execute_raw(checked, src.as_ptr(), src.len(), dst.as_mut_ptr(), dst.len(), options) }
}

/// Runs the program of `checked` on the `src_len` bytes at `src` (reads) and the `dst_len` bytes at `dst` (writes
/// of its element bytes only). Fails, without touching `dst`, when the program reaches outside either range.
///
/// No reference is ever formed over either whole range: kernels form slices only over runs of contiguous elements
/// they read or write, and address everything else through raw pointers, so the bytes between elements may belong
/// to other arrays that others use meanwhile (a NumPy `a[::2]` whose gaps are `a[1::2]`).
///
/// # Safety
/// - `src .. src + src_len` and `dst .. dst + dst_len` each lie inside one allocated object;
/// - every element byte the program reads is readable and nobody writes it during the call;
/// - every element byte the program writes is writable and nobody else reads or writes it during the call;
/// - no element byte read is an element byte written.
///
/// Bytes between elements (and outside the elements) may be read and written by others during the call.
// Inlined into the entry points, so that a tiny copy costs its range test, its size test and its walk (DirectML's
// 4x4 example); the general path is [`run_program`], out of line.
#[inline]
pub(crate) unsafe fn execute_raw(
    checked: &Checked,
    src: *const u8,
    src_len: usize,
    dst: *mut u8,
    dst_len: usize,
    options: &ExecOptions,
) -> Result<(), ExecError> {
    let p = &checked.program;
    // The soundness check of the kernels (see `footprint`): every byte any kernel touches lies in the ranges.
    if checked.src_end > src_len as u64 {
        return Err(out_of_range("InputTensor", checked.src_end, src_len));
    }
    if checked.dst_end > dst_len as u64 {
        return Err(out_of_range("OutputTensor", checked.dst_end, dst_len));
    }
    if !matches!(p.esize, 1 | 2 | 4 | 8) {
        // Slice1 plans only carry byte-sized types; anything else would be a plan this module does not know.
        return Err(ExecError::ElementSize { size: p.esize });
    }
    if let Some(t) = tiny(p) {
        // SAFETY: as for `run_program` below: the range test covers the whole program, here one table pass of a
        // few elements whose offsets `check` verified against the footprint; the caller's contract makes the
        // element bytes valid and unshared.
        unsafe { by_size!(p.esize, table::single_pass, src.add(p.src_start), dst.add(p.dst_start), t) };
        return Ok(());
    }
    // SAFETY: the range test above covers every byte the whole program touches; the caller's contract makes those
    // element bytes valid and unshared.
    unsafe { run_program(checked, src, dst, options) };
    Ok(())
}

/// The error of a range shorter than the program's footprint (out of line: the entry point's hot path is the
/// test, not the error).
#[cold]
#[inline(never)]
fn out_of_range(tensor: &'static str, needed: u64, len: usize) -> ExecError {
    ExecError::OutOfRange { tensor, needed, len: len as u64 }
}

/// [`execute_raw`] past its checks and its tiny path: the kernel's context, the threads, the loops.
///
/// # Safety
/// As for [`execute_raw`], whose range test has passed: every byte the program reaches from `src` (up to
/// `checked.src_end`) and `dst` (up to `checked.dst_end`) lies in the caller's ranges.
#[inline(never)]
unsafe fn run_program(checked: &Checked, src: *const u8, dst: *mut u8, options: &ExecOptions) {
    let p = &checked.program;
    let simd = detect(options.simd);
    let bounds = Bounds {
        src: (src as usize, src as usize + checked.src_end as usize),
        dst: (dst as usize, dst as usize + checked.dst_end as usize),
    };
    let nt = p.streaming && simd != Simd::None;
    let vbmi = simd == Simd::Avx2 && super::wide_permutes();
    let ctx = Ctx { esize: p.esize, simd, vbmi, nt, bounds, next: next_call(p, simd) };
    let threads = split_threads(p, options);
    // SAFETY: the caller's range from `src` lies in one allocation; adding `src_start` stays inside it because
    // `check` proved `src_start < src_end` and `execute_raw`'s range test `src_end <=` the range's length.
    let src = unsafe { src.add(p.src_start) };
    // SAFETY: likewise for the output: `dst_start < dst_end <=` its range's length.
    let dst = unsafe { dst.add(p.dst_start) };
    let bases = Bases { src, dst };
    if threads <= 1 {
        // SAFETY: the caller's range test covers every byte the whole program touches; its contract makes those
        // element bytes valid and unshared.
        unsafe {
            match p.reuse_tile {
                Some(tile) => run_tiles(p, tile, 0, super::inner_count(p.inner).0, bases.src, bases.dst, ctx),
                None => run_from(p, 0, p.inner, bases.src, bases.dst, ctx),
            }
        };
        if ctx.nt {
            fence();
        }
        return;
    }
    let split = Split::new(p, threads);
    for_each_range(split.parts, threads, &|lo, hi| {
        // SAFETY: as above for the byte ranges; distinct parts write disjoint output bytes (module docs).
        unsafe { split.run_parts(p, lo, hi, bases, ctx) }
    });
}

/// How many threads the program `p` is split over: every thread of `options` when it moves at least
/// `parallel_min_bytes` (written plus read, [`Program::moved_bytes`]; twice that for a bulk copy, which moves its
/// bytes fastest, and for a fill, whose stores alone bound it: [`ExecOptions::parallel_min_bytes`]), otherwise one.
pub(crate) fn split_threads(p: &Program, options: &ExecOptions) -> usize {
    let min = match p.inner {
        Inner::Copy { .. } | Inner::Fill { .. } => options.parallel_min_bytes.saturating_mul(2),
        _ => options.parallel_min_bytes,
    };
    if p.moved_bytes >= min { options.effective_threads() } else { 1 }
}

/// The threads one call of `checked` runs on: 1 for a [`tiny`] copy (it skips the loops and threads), otherwise
/// [`split_threads`].
pub(crate) fn threads(checked: &Checked, options: &ExecOptions) -> usize {
    if tiny(&checked.program).is_some() { 1 } else { split_threads(&checked.program, options) }
}

/// The table of a program that is a single pass of at most [`TINY_ELEMENTS`] elements (no outer loops, one row):
/// such copies (DirectML's 4x4 examples) skip the loops, threads and kernel choice and walk the table directly.
#[inline]
fn tiny(p: &Program) -> Option<&Table> {
    match p.inner {
        Inner::Table(c) if p.outer.is_empty() && c.rows == 1 && c.na <= 1 && c.block <= TINY_ELEMENTS => {
            p.table.as_deref()
        }
        _ => None,
    }
}

/// The most elements a copy may have to take the [`tiny`] path.
const TINY_ELEMENTS: usize = 32;

/// Orders this thread's non-temporal stores before whatever follows (the join that publishes them).
pub(super) fn fence() {
    // Miri has no `sfence` (and no weakly ordered stores to order): the streaming stores themselves run under it.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    super::x86::sfence();
}

/// Runs units `a .. b` of the inner kernel's count of `p` (from the pointers of the whole program) in tiles of
/// `tile` units, each under every outer loop (the program's [`reuse_tile`](Program::reuse_tile)).
///
/// # Safety
/// Every byte the whole program reaches from `src` (reads) and `dst` (writes) is valid; `a <= b <=` the count.
pub(super) unsafe fn run_tiles(p: &Program, tile: usize, a: usize, b: usize, src: *const u8, dst: *mut u8, ctx: Ctx) {
    let mut t = a;
    while t < b {
        let end = t.saturating_add(tile.max(1)).min(b);
        let (inner, so, d_o) = Split::sub_kernel(p.inner, t, end, ctx.esize);
        // SAFETY: the sub-range t .. end of the inner kernel's count reaches a subset of the bytes of the whole
        // kernel from the offset pointers, under the same outer loops: a subset of the program's bytes.
        unsafe { run_from(p, 0, inner, src.offset(so), dst.offset(d_o), ctx) };
        t = end;
    }
}

/// Runs the outer loops from `level` inward at `src`/`dst`, with `inner` as the inner kernel (the program's, or a
/// sub-range of its count for tiles).
///
/// # Safety
/// Every byte the remaining loops and the inner kernel reach from `src` (reads) and `dst` (writes) is valid.
pub(super) unsafe fn run_from(p: &Program, level: usize, inner: Inner, src: *const u8, dst: *mut u8, ctx: Ctx) {
    match p.outer.get(level) {
        // SAFETY: the caller's contract, for every step of this loop.
        Some(dim) => unsafe { run_range(p, level, 0, dim.n, inner, src, dst, ctx) },
        // SAFETY: the caller's contract covers the inner kernel (one step).
        None => unsafe { run_steps(inner, p.table.as_deref(), 1, 0, 0, src, dst, ctx) },
    }
}

/// Runs steps `j0 .. j1` (`j0 < j1 <= n`) of the outer loop `level` and everything inside them, from the pointers
/// `src`/`dst` of the loop's step 0, the way the whole loop runs them: a replicated loop runs step `j0` and copies
/// its block to the others, the innermost loop calls its kernel through [`run_steps`] (the stage, the next call's
/// requests). The threads' split runs its parts' ranges of a loop through here too ([`Split::run_parts`]), so
/// that a part of a replicated or staged loop is replicated or staged as well (step by step, a part ran the
/// kernel again for every step of a replicated loop: a gather under 72 broadcast steps took 3.2x the time on two
/// threads that it took on one, sweep2_051; and fills of 228-byte rows, unstaged, streamed partial lines: 2x,
/// sweep2_113).
///
/// # Safety
/// Every byte steps `j0 .. j1` of the loop and everything inside them reach from `src` (reads) and `dst` (writes)
/// is valid; `level` is an outer loop of `p`.
#[allow(clippy::too_many_arguments)] // the loop, its range, the kernel and its pointers
pub(super) unsafe fn run_range(
    p: &Program,
    level: usize,
    j0: usize,
    j1: usize,
    inner: Inner,
    src: *const u8,
    dst: *mut u8,
    ctx: Ctx,
) {
    let Dim { n, src: s, dst: d, replicate: broadcast } = p.outer[level];
    debug_assert!(j0 < j1 && j1 <= n);
    let steps = j1 - j0;
    // SAFETY: step j0 < n of this loop lies inside the caller's contract.
    let (src, dst) = unsafe { (src.offset(j0 as isize * s), dst.offset(j0 as isize * d)) };
    if broadcast {
        // The planner never tiles a program with a replicated loop (`reuse::tile`): the block is the whole kernel's.
        debug_assert_eq!(inner, p.inner);
        // SAFETY: step j0 of this loop, within the caller's contract. The first block is written with ordinary
        // stores: it is read back right away.
        unsafe { run_from(p, level + 1, inner, src, dst, Ctx { nt: false, ..ctx }) };
        // SAFETY: the block of step j0 is the `replicated_block` bytes from `dst + replicated_low` (the planner marks
        // only destination-contiguous blocks of at most `d` bytes); steps j0 + 1 .. j1 write the same bytes `i * d`
        // further on, inside the range.
        unsafe { replicate(dst.offset(p.replicated_low(level)), p.replicated_block(level), d as usize, steps, ctx) };
    } else if level + 1 == p.outer.len() {
        // The innermost loop calls the kernel itself, chosen once for the loop: small calls under many steps are
        // where the loops cost as much as the bytes.
        // SAFETY: steps j0 .. j1 of this loop, within the caller's contract (the offsets stay inside it).
        unsafe { run_steps(inner, p.table.as_deref(), steps, s, d, src, dst, ctx) };
    } else {
        for i in 0..steps as isize {
            // SAFETY: step j0 + i of this loop, within the caller's contract.
            unsafe { run_from(p, level + 1, inner, src.offset(i * s), dst.offset(i * d), ctx) };
        }
    }
}

/// The most bytes of each source run of the next call that [`prefetch_next_call`] requests: a page, since the runs
/// that need it are those that start a new one (over eleven row-copy cases, 512 bytes and 4 KiB measured within
/// noise of each other, geometric means 0.70 and 0.72 of the roofline).
#[cfg(target_arch = "x86_64")]
const PREFETCH_ROW_BYTES: usize = 4096;

/// The smallest gap between the end of one call's bytes and the start of the next call's for which
/// [`prefetch_next_call`] acts. 1024 until the eighteenth round: ten sweep cases with gaps of 400-1000 bytes, six
/// alternating rounds, ran in 0.93 of the time with 768 (u16 rows 818 bytes long 986 apart in 0.67) and 0.92 with
/// 256, where three of gaps of 400-500 bytes lost 8-23% (their next lines are streamed already). Calls of a few lines
/// in a streaming copy take [`PREFETCH_SHORT_GAP_MIN`] instead.
#[cfg(target_arch = "x86_64")]
const PREFETCH_GAP_MIN: isize = 768;

/// Calls whose source spans fewer bytes than this take [`PREFETCH_SHORT_GAP_MIN`] in a streaming copy: the
/// hardware prefetcher follows a long run across a gap, but a call of a few lines ends before it starts, and the
/// next call then waits for its own lines (from the last-level cache or memory alike: 364-byte runs 728 bytes apart
/// took 166 ns a run in a C loop of `memcpy` calls, 30-36 ns with the next runs requested).
#[cfg(target_arch = "x86_64")]
const PREFETCH_SHORT_EXTENT: isize = 1024;

/// [`PREFETCH_GAP_MIN`] for calls shorter than [`PREFETCH_SHORT_EXTENT`] in a streaming copy. Three sweep cases with
/// gaps of 256-621 bytes after calls of 292-928 bytes ran in 0.48-0.74 of the time (sweep1_091, sweep2_109,
/// sweep3_144; five alternating rounds, `docs/PERFORMANCE.md`, twentieth round); cache-sized copies with such gaps
/// did not gain (sweep1_066: 1.22, sweep2_142, sweep3_031: 1.03-1.05), and keep [`PREFETCH_GAP_MIN`], except short
/// rows whose gap is at least their extent (the call reads at most half of the bytes between calls): 5 f32 rows of
/// 72 bytes bottom-up per call, calls 1080 bytes apart, 9354 calls (sweep2_180), ran in 0.38-0.44 of the time
/// (three runs), 7 rows of 48 bytes 80 apart, calls 1200 apart (sweep2_165), in 0.77-0.96 (three runs). Reversed
/// runs under the same rule did not gain (sweep1_066 0.75-1.19, sweep8_136 1.04-1.08; twenty-sixth round). No other
/// case of seeds 1-8 or of the case files meets it.
#[cfg(target_arch = "x86_64")]
const PREFETCH_SHORT_GAP_MIN: isize = 128;

/// The shortest call whose next call's source [`next_call`] requests when the innermost outer loop is replicated (a
/// line; otherwise `x86::NT_MIN_RUN`, 256 bytes). The kernel then runs once per step of the loop outside, each call
/// followed by the copies of its block, and the next call's lines start a new run the hardware prefetcher has not
/// seen: 158-byte copies 1272 bytes apart, each copied once more (sweep3_058 of `--sweep 200 --seed 3`), waited
/// 220 ns a call on one core for their source, and ran in 0.30-0.35 of the time with the next call's lines
/// requested; 120-byte reverses 1440 apart (sweep3_117) 0.89-0.98, 175- and 176-byte copies (sweep2_174,
/// sweep2_124) 0.84-0.90 (two runs of six and eight alternating rounds, `docs/PERFORMANCE.md`, thirty-sixth round).
/// Calls of 256 bytes or more under such a loop had no request at all before (the replicated loop itself was taken
/// as the next call's step): 1456-byte copies 23680 bytes apart (sweep2_089) ran in 0.65-0.84 of the time.
#[cfg(target_arch = "x86_64")]
const PREFETCH_REPLICATED_MIN_EXTENT: isize = 64;

/// The most lines [`prefetch_next_call`] requests for the separate runs of a short-rows call.
#[cfg(target_arch = "x86_64")]
const PREFETCH_RUN_LINES: usize = 64;

/// What the outer loops ask for before each inner call (see [`next_call`]), decided once per execution from the
/// program: `runs` source runs of `per_run` bytes, `step` apart, the first `src` bytes from the kernel's pointer, and
/// the destination block of `dst` = (offset, bytes) when it is worth a write prefetch under ordinary stores.
// Built and read on x86 only (`next_call` is `None` elsewhere).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[derive(Debug, Clone, Copy)]
pub(super) struct NextCall {
    src: Option<isize>,
    per_run: usize,
    runs: usize,
    step: isize,
    dst: Option<(isize, usize)>,
}

/// Before the inner kernel runs, the lines the next call of the innermost outer loop reads (and, with ordinary
/// stores, the destination lines it writes, with write intent) are requested when those do not continue this call's
/// (skipped rows, rows bottom-up, reversed middle dimensions, blocks of a sparse output): for the kernels whose
/// source is one run or a few runs (bulk copy, reverse, forward gather, short rows, transpose tiles). The hardware
/// prefetcher follows a stream only inside a 4 KiB page and needs a few misses to start on a new one, so each jump
/// began with those misses (every other 2 KiB row of bytes: 0.51 of the roofline before, 0.71 after; every other
/// row bottom-up 0.44 -> 0.56; eight alternating rounds, `bench/shapes.json`). A crop's 1 KiB rows 1200 bytes apart
/// looked slower with it (0.82 -> 0.71, two rounds): the hardware already streams those, hence
/// [`PREFETCH_GAP_MIN`]. A hint: it never faults, and at the end of a loop it names bytes that are not touched,
/// which costs wasted requests only. A bulk copy takes its source requests inside the copy instead, one per line
/// copied (`copy::copy_bytes_ahead`), and short rows more than a line apart into their row loop
/// (`rows::takes_next_call`): issued all at once before the call, they held up the call's own loads (every other
/// 4 KiB row of f32 in 0.82 of the time, every other 2 KiB row bottom-up 0.88, `f16_rows_neg2` 0.83; four
/// alternating rounds, `docs/PERFORMANCE.md`, seventeenth round). A table's last pass requests the next call's
/// first pass with the table's own lines (`table::table`), as its passes do for each other: one pass of f16 rows
/// per call, calls 16 KB apart, in 0.68-0.81 of the time (sweep1_183), 40 rows bottom-up per call 0.51 (sweep1_041;
/// eighteenth round).
/// `None` when there is nothing to ask for, so that the calls themselves only test an `Option`.
pub(super) fn next_call(p: &Program, simd: Simd) -> Option<NextCall> {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // The loop whose next step is the next call: the innermost one that is not replicated (a replicated loop
        // runs the kernel on its first step only and copies that block to its other steps).
        let live = p.outer.iter().rposition(|d| !d.replicate)?;
        let last = &p.outer[live];
        // Tiles: the next call reads the lines this one read (and its numbers are a tile's, not the program's).
        if simd != Simd::Avx2 || p.reuse_tile.is_some() {
            return None;
        }
        let e = p.esize as isize;
        // The source as `count` runs of `len` bytes, `step` apart, the first at `low` from the kernel's pointer.
        // Runs within a line of each other read every line between them: one span.
        let runs = |low: isize, len: isize, count: usize, step: isize| {
            if step.unsigned_abs() <= 64 {
                let span = (count as isize - 1) * step;
                (low + span.min(0), span.abs() + len, 1, 0)
            } else {
                (low, len, count, step)
            }
        };
        let (low, len, count, step) = match p.inner {
            Inner::Copy { bytes } => (0, bytes as isize, 1, 0),
            Inner::Reverse { n } => (-(n as isize - 1) * e, n as isize * e, 1, 0),
            Inner::Gather { n, src } if src > 0 => (0, n as isize * src, 1, 0),
            // Backwards: the span below the kernel's pointer, or its elements when they are a line or more apart.
            // Rows of u32 three apart read from their end, 1596 bytes between calls, from a 9.5 MB source
            // (sweep1_039) ran in 0.61-0.65 of the time; 79 u64 three apart per row (sweep1_000) 0.82-0.87; over
            // the 14 backward gathers under outer loops of seeds 1-4, 0.96 (five alternating rounds; twentieth
            // round of `docs/PERFORMANCE.md`).
            Inner::Gather { n, src } => runs(0, e, n, src),
            Inner::Rows { rows, bytes, src, .. } => runs(0, bytes as isize, rows, src),
            // A transpose reads `nb` runs of its `na` nearby elements, `b_src` apart.
            Inner::Transpose { na, a_src, nb, b_src, .. } if a_src.unsigned_abs() < 64 => {
                let run = (na as isize - 1) * a_src;
                runs(run.min(0), run.abs() + e, nb, b_src)
            }
            // The table requests its own lines (`Table::lines`): the numbers only decide whether the next call
            // jumps, and `src` is the distance to the pointer of the call requested for (the next one, or its
            // counterpart one step of the loop outside on: `continued_jump`).
            Inner::Table(c) => {
                let (lo, hi) = crate::table::pass_interval(c.rows, c.row_src, c.hull);
                (0, hi - lo + (c.na.max(1) - 1) as isize * c.a_src, 1, 0)
            }
            _ => return None,
        };
        let extent = (count as isize - 1) * step.abs() + len;
        // The gap beyond which the next call is taken to jump: shorter for calls of a few lines in a streaming copy,
        // and for short rows reading at most half of the bytes between their calls.
        let short_rows = matches!(p.inner, Inner::Rows { .. });
        let gap_min = |extent: isize| match (p.streaming, extent < PREFETCH_SHORT_EXTENT) {
            (true, true) => PREFETCH_SHORT_GAP_MIN,
            (false, true) if short_rows => extent.clamp(PREFETCH_SHORT_GAP_MIN, PREFETCH_GAP_MIN),
            _ => PREFETCH_GAP_MIN,
        };
        let jumps = |stride: isize, extent: isize| stride < 0 || stride - extent >= gap_min(extent);
        // An outer loop stepping less than a line or a run reads the call's lines again: they come from the cache,
        // where a request only costs (u32 triples from three rows a megabyte apart, re-read by a loop 12 bytes on:
        // 1.37x the time with the next call's 87 lines requested). A table's runs are its elements.
        let run = if matches!(p.inner, Inner::Table(_)) { e } else { len };
        let reread = p.outer.iter().any(|d| d.n > 1 && d.src != 0 && d.src.unsigned_abs() < run.max(64) as usize);
        let replicated = p.outer.last().is_some_and(|d| d.replicate);
        let least_extent = if replicated { PREFETCH_REPLICATED_MIN_EXTENT } else { super::x86::NT_MIN_RUN as isize };
        // The step whose lines are requested: the next call's, or, when the next few calls continue this one's
        // bytes, the step of the loop outside them (see `PREFETCH_CONTINUED_CALLS`).
        // A transpose whose pixels descend walks each call's lines from its top down while its loop steps upwards:
        // the next call, adjacent as it is, starts where the hardware prefetcher (following the descent) is not. Nine
        // pixels of 13 f64 read bottom-up, calls 936 bytes on (sweep3_090 of `--sweep 200 --seed 3`), ran in
        // 0.76-0.81 of the time with the next call's lines requested, 3 of 9 u16 channels bottom-up (sweep4_189)
        // 0.80-0.81 on Intel, 0.50 on AMD Zen 5 (one run); over the 29 transposes of seeds 1-4 whose pixels
        // descend, 0.98 (six alternating rounds; thirty-eighth round of `docs/PERFORMANCE.md`). Short rows read
        // bottom-up the same way (`rows::descends`): every other u64 of f16 read downwards, 42 runs a call, nine
        // calls 680 bytes apart (sweep8_098), ran in 0.49 of the time with the next call requested.
        let descends = match p.inner {
            Inner::Transpose { b_src, .. } => b_src < 0,
            Inner::Rows { bytes, src, .. } => rows::descends(bytes, src),
            _ => false,
        };
        let descends_upwards = descends && last.src > 0;
        let step_src = match jumps(last.src, extent) || descends_upwards {
            true => Some(outer_step_ahead(p, live).unwrap_or(last.src)),
            false => continued_jump(p, live, (len, extent), jumps),
        };
        let src = step_src.filter(|_| extent >= least_extent && !reread).map(|s| s + low);
        let per_run = (len as usize).min(PREFETCH_ROW_BYTES);
        let runs = count.min((PREFETCH_RUN_LINES / per_run.div_ceil(64)).max(1));
        let block = p.inner_block_bytes;
        let dst = (p.inner_dst_contiguous && jumps(last.dst, block as isize))
            .then_some((last.dst, block.min(PREFETCH_ROW_BYTES)));
        (src.is_some() || dst.is_some()).then_some(NextCall { src, per_run, runs, step, dst })
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = (p, simd);
        None
    }
}

/// The most calls of an innermost loop that continue each other's source bytes (each starting where the one before
/// ended, or within a gap too short to jump) for which [`next_call`] requests, before each call, the lines of the
/// same call one step on in the loop outside, when that loop jumps. The block of calls is one run the hardware
/// prefetcher follows, but its next block starts a new one: pairs of 288-byte gathers, each pair 1152 bytes from the
/// next (sweep2_149 of `--sweep 200 --seed 2`), waited 86 ns a call on one core. Requested that many calls ahead,
/// the lines arrive in time for more calls than in the call before; with more calls the requests would run too far
/// ahead to be useful and cost L1 room (copies of [`PREFETCH_OUTER_MIN_MOVED`] or more take
/// [`PREFETCH_CONTINUED_CALLS_FAR`]).
#[cfg(target_arch = "x86_64")]
const PREFETCH_CONTINUED_CALLS: usize = 8;

/// [`PREFETCH_CONTINUED_CALLS`] in copies that move [`PREFETCH_OUTER_MIN_MOVED`] bytes or more, whose lines come
/// from memory: there the requests arrive in time only further ahead, and a streaming copy's go to L2
/// (`x86::Level::of`), not L1. Measured on the Zen 4 of `docs/PERFORMANCE.md`'s sixty-first round, ABBA rounds of
/// each case in its own process: the 27 programs of `--sweep 200 --sweep-max-bytes 64M` seeds 1-20 (16 MiB moved or
/// more) whose loop of continuing calls has 9-16 steps took 0.934 of the time (four rounds; four u32 rows of 112
/// bytes, twelve calls a block, sweep6_150: 0.52; 78 reversed u64, twelve calls, sweep14_154: 0.61; three rounds:
/// seeds 1-10 0.957, 11-20 0.953); smaller copies 1.02 over 86 (hence the size). Up to 32 steps: 0.974 over the 35
/// programs of 17-32 steps, with losses to 1.15: not taken.
#[cfg(target_arch = "x86_64")]
const PREFETCH_CONTINUED_CALLS_FAR: usize = 16;

/// The source step of the loop just outside loop `live` of `p` (the innermost non-replicated one, whose steps do not
/// jump), when a call's runs (`len` bytes each, `extent` in all) are at most a page, loop `live` has at most
/// [`PREFETCH_CONTINUED_CALLS`] steps ([`PREFETCH_CONTINUED_CALLS_FAR`] in copies of [`PREFETCH_OUTER_MIN_MOVED`]
/// or more) that continue each other's bytes forwards, and the loop outside (not replicated
/// itself) jumps (by `jumps`) from the end of their block. Across a replicated loop the requests ran too far ahead: a
/// table's calls 17280 bytes apart, four to a block copied 20 times (sweep4_161), took 1.68x as long; runs longer than
/// a page are streams the hardware follows (copies of 10952 bytes, five to a block, sweep1_087: 1.12x).
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn continued_jump(
    p: &Program,
    live: usize,
    (len, extent): (isize, isize),
    jumps: impl Fn(isize, isize) -> bool,
) -> Option<isize> {
    let inner = &p.outer[live];
    let outer = p.outer[..live].last().filter(|d| !d.replicate)?;
    let most = match p.moved_bytes >= PREFETCH_OUTER_MIN_MOVED {
        true => PREFETCH_CONTINUED_CALLS_FAR,
        false => PREFETCH_CONTINUED_CALLS,
    };
    let continues = len <= PREFETCH_ROW_BYTES as isize && inner.src > 0 && inner.n <= most;
    let block = (inner.n as isize - 1) * inner.src + extent;
    (continues && jumps(outer.src, block)).then_some(outer.src)
}

/// The fewest bytes a copy moves (read plus written, [`Program::moved_bytes`]) for which [`outer_step_ahead`] requests
/// a call one step of the outer loop ahead. Over two samples (118 runs, bulk copies aside) of the 442 programs of
/// `--sweep 200 --sweep-max-bytes 64M` seeds 1-40 whose requests it changes at any size (two alternating rounds
/// each; `docs/PERFORMANCE.md`, fifty-second round), the time ratio fell with the bytes moved: 1.01 below 1 MiB, 0.98
/// below 16 MiB (up to 1.27 on a cache-sized transpose), 0.88 from 16 MiB (24 programs, at most 1.05), 0.81 from 32
/// MiB. Out of sample, the 85 programs of seeds 41-80 that the rule as it stands changes: 0.97 (0.74-1.24, and one
/// noisy gather at 1.67). Further ahead pays where the lines come from memory; from the caches, the next call's
/// requests arrive in time, and more of them take L1's room.
#[cfg(all(target_arch = "x86_64", not(miri)))]
const PREFETCH_OUTER_MIN_MOVED: usize = 16 << 20;

/// The source step of the loop just outside loop `live` of `p` (the innermost non-replicated one), when loop `live`
/// has at most [`PREFETCH_CONTINUED_CALLS`] steps, the copy moves [`PREFETCH_OUTER_MIN_MOVED`] bytes or more, and the
/// kernel is not the bulk copy: [`next_call`] then requests, for each call whose next one jumps, the same call one
/// step of the loop outside on, as many calls ahead as loop `live` has steps, instead of the next call. One call
/// ahead is too late for a short call whose lines come from memory, and the first call of each pass of the short
/// loop was never requested at all: 8 x 11 f16 transposes, five calls 1496 bytes apart per step of a loop stepping
/// back 6358 bytes (sweep1_098 of `--sweep 200 --sweep-max-bytes 64M --seed 1`), ran in 0.50-0.84 of the time. The
/// bulk copy requests its next call line by line inside the copy (`copy::copy_bytes_ahead`); further ahead, over 24
/// programs of seeds 1-40, it was 1.04.
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn outer_step_ahead(p: &Program, live: usize) -> Option<isize> {
    let short = p.outer[live].n <= PREFETCH_CONTINUED_CALLS;
    let far = p.moved_bytes >= PREFETCH_OUTER_MIN_MOVED && !matches!(p.inner, Inner::Copy { .. });
    let outer = p.outer[..live].last().filter(|d| !d.replicate)?;
    (short && far).then_some(outer.src)
}

impl NextCall {
    /// These requests without the destination's part: for calls that write a stage, not the output (`stage`).
    pub(super) fn without_dst(self) -> NextCall {
        NextCall { dst: None, ..self }
    }
}

/// `ctx` whose next-call requests keep only the destination's part: for the kernels that request the next call's
/// source themselves (`copy::copy_bytes_ahead`, `rows::takes_next_call`).
fn dst_only(ctx: Ctx) -> Ctx {
    Ctx { next: ctx.next.map(|n| NextCall { src: None, ..n }), ..ctx }
}

/// Requests what [`next_call`] decided, from this call's pointers.
#[inline]
fn prefetch_next_call(src: *const u8, dst: *mut u8, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if let Some(next) = ctx.next {
        if let Some(at) = next.src {
            let first = src.wrapping_offset(at);
            for k in 0..next.runs as isize {
                super::x86::prefetch_bytes(
                    first.wrapping_offset(k * next.step),
                    next.per_run,
                    super::x86::Level::of(ctx.nt),
                );
            }
        }
        if let Some((at, len)) = next.dst
            && !ctx.nt
        {
            super::x86::prefetch_bytes_for_write(dst.wrapping_offset(at), len);
        }
    }
    let _ = (src, dst, ctx);
}

/// Below this many bytes, a replicated block is first doubled with ordinary stores (it stays in L1/L2) before
/// copies of it are streamed out: copying a 40-byte block a million times costs a million calls.
const REPLICATE_GROW_BYTES: usize = 16 << 10;

/// The most bytes of a replicated block shorter than 32 bytes that are written as its repeated pattern before the
/// doubling copies take over: the pattern's stores, one per block multiple of at most 32 bytes and often across a
/// line, write a few hundred bytes faster than the first doubling calls, not thousands (a 12-byte block over 370
/// rows, 4440 bytes as one pattern, took 1.2-1.5x as long as doubled).
const PATTERN_FILL_BYTES: usize = 512;

/// Fills blocks `1 .. count` of `block` bytes each at `dst + i * stride` with copies of block 0 (written). Adjacent
/// blocks (`stride == block`): the written prefix is first doubled up to [`REPLICATE_GROW_BYTES`] with ordinary
/// stores, then copied as a whole; a block of fewer than 32 bytes is first repeated up to that size by 32-byte
/// stores of its pattern ([`repeat_prefix`]). Spaced blocks (`stride > block`, a padded output): block 0 is copied
/// to each.
///
/// # Safety
/// `stride >= block`; the `block` bytes at `dst + i * stride` lie in the checked output range for every
/// `i < count`; the first `block` bytes are written.
pub(super) unsafe fn replicate(dst: *mut u8, block: usize, stride: usize, count: usize, ctx: Ctx) {
    debug_assert!(stride >= block);
    if stride != block {
        for i in 1..count {
            // SAFETY: block 0 (written) to block i at i * stride >= block bytes on (no overlap), in the range.
            unsafe { copy_block(dst, dst.add(i * stride), block, ctx) };
        }
        return;
    }
    let mut done = 1;
    if block < PATTERN_MAX_BLOCK && count.saturating_mul(block) >= PATTERN_MIN_BYTES {
        // The first doublings (the smallest copies, one call each) at once: the pattern repeated over the most
        // blocks the doubling would reach within PATTERN_FILL_BYTES, a power of two, so that every copy after it is
        // the one the doubling made (the distances of a copy's loads to its stores decide its speed: copies 16392
        // bytes on ran 3x slower than 24576 bytes on, 4 KiB-aliased loads waiting on the stores).
        // At least 16 blocks (block < 32), so the power of two covers more than 256 - 32 bytes, or all the blocks.
        done = count.min(1 << (PATTERN_FILL_BYTES / block).ilog2());
        debug_assert!(done * block >= PATTERN_MIN_BYTES);
        // SAFETY: blocks 0 .. done are adjacent output bytes of the caller's range (done <= count), block 0 written,
        // at least PATTERN_MIN_BYTES of them (count * block is, and so is a power of two of over 224 bytes).
        unsafe { repeat_prefix(dst, block, done * block) };
    }
    while done < count && done * block < REPLICATE_GROW_BYTES {
        let k = done.min(count - done);
        // SAFETY: blocks 0 .. k (written) to blocks done .. done + k (k <= done: no overlap), inside the range.
        unsafe { copy_block(dst, dst.add(done * block), k * block, Ctx { nt: false, ..ctx }) };
        done += k;
    }
    let grown = done;
    while done < count {
        let k = grown.min(count - done);
        // SAFETY: blocks 0 .. k (written, k <= grown <= done: no overlap) to blocks done .. done + k, in the range.
        unsafe { copy_block(dst, dst.add(done * block), k * block, ctx) };
        done += k;
    }
}

/// Copies a written output block of `len` bytes at `from` to `to` (replication of a broadcast dimension).
///
/// # Safety
/// `from` readable and `to` writable for `len` bytes, both inside the output, not overlapping.
pub(super) unsafe fn copy_block(from: *const u8, to: *mut u8, len: usize, ctx: Ctx) {
    let (lo, hi) = ctx.bounds.dst;
    debug_assert!(lo <= from as usize && from as usize + len <= hi && lo <= to as usize && to as usize + len <= hi);
    debug_assert!(from as usize + len <= to as usize || to as usize + len <= from as usize);
    // SAFETY: the caller's contract.
    unsafe { copy::copy_bytes(from, to, len, ctx) };
}

/// Runs one inner kernel (`table`: the program's table, for [`Inner::Table`]).
///
/// # Safety
/// The bytes `inner` reaches from `src` (reads) and `dst` (writes), as its footprint counts them, are valid and
/// do not overlap; `table` is the table the planner built with `inner`'s numbers.
pub(super) unsafe fn run_inner(inner: Inner, table: Option<&Table>, src: *const u8, dst: *mut u8, ctx: Ctx) {
    // SAFETY: the caller's contract, for the one step; nothing to prefetch after it.
    unsafe { run_steps(inner, table, 1, 0, 0, src, dst, Ctx { next: None, ..ctx }) };
}

/// Runs the inner kernel `steps` times, step `i` at `src + i s` / `dst + i d`, each after [`prefetch_next_call`]:
/// the kernel (and its element size) is chosen once for all the steps, so that a loop of small calls pays per call
/// only for the kernel itself (the choice per call had cost as much as a fill of 70 u16 did).
///
/// # Safety
/// For every step, the bytes `inner` reaches from its pointers, as its footprint counts them, are valid and do not
/// overlap; `table` is the table the planner built with `inner`'s numbers.
#[allow(clippy::too_many_arguments)] // the loop's numbers and the kernel's, as the callers have them
pub(super) unsafe fn run_steps(
    inner: Inner,
    table: Option<&Table>,
    steps: usize,
    s: isize,
    d: isize,
    src: *const u8,
    dst: *mut u8,
    ctx: Ctx,
) {
    // SAFETY: forwarded.
    unsafe { by_size!(ctx.esize, steps_of, inner, table, steps, s, d, src, dst, ctx) }
}

/// [`run_steps`] on elements of `T`.
///
/// # Safety
/// As for [`run_steps`], with `size_of T == ctx.esize`.
#[allow(clippy::too_many_arguments)]
unsafe fn steps_of<T: Elem>(
    inner: Inner,
    table: Option<&Table>,
    steps: usize,
    s: isize,
    d: isize,
    src: *const u8,
    dst: *mut u8,
    ctx: Ctx,
) {
    if let Some(block) = stage::staged(inner, steps, d, dst, ctx) {
        // Fills of blocks of 32 bytes or more stream their lines from registers, without the stage.
        if let Inner::Fill { n } = inner
            // SAFETY: the steps' blocks are the `steps * block` adjacent bytes from `dst` (`staged`: d == block,
            // each call's block contiguous), inside the caller's contract; step i reads its element at `src + i * s`.
            && unsafe { fill::fill_adjacent::<T>(src, s, steps, n, dst, ctx) }
        {
            return;
        }
        // SAFETY: the steps' blocks are the `steps * block` adjacent bytes from `dst` (`staged`: d == block, each
        // call's block contiguous), inside the caller's contract; each group of calls writes exactly its blocks,
        // from the stage pointer it is given, with the stage's bounds (the same kernels on the same numbers).
        unsafe {
            stage::run_staged(steps, block, dst, ctx, |i, k, to, staged| {
                steps_of::<T>(inner, table, k, s, d, src.wrapping_offset(i as isize * s), to, staged)
            })
        };
        return;
    }
    // Short fills into adjacent blocks that the stage does not take (ordinary stores, or too few calls): one call
    // for the loop, each line assembled in registers (`fill::adjacent_loop`).
    if let Inner::Fill { n } = inner
        && fill::adjacent_loop(n, T::SIZE, steps, d)
        && {
            let walks = ([(steps, s), HERE], [(steps * n, T::SIZE as isize), HERE]);
            ctx.bounds.debug_check_walks(walks.0, T::SIZE, src, walks.1, T::SIZE, dst);
            // SAFETY: the steps' blocks are the `steps * n` adjacent elements from `dst` (d is one block), inside the
            // caller's contract; step i reads its element at `src + i * s`.
            unsafe { fill::fill_adjacent::<T>(src, s, steps, n, dst, ctx) }
        }
    {
        return;
    }
    // One loop per kernel, `$call` on each step's pointers, after the requests of `$ctx` (the call's own by default).
    macro_rules! each {
        (|$a:ident, $b:ident| $call:expr) => {
            each!(ctx, |$a, $b| $call)
        };
        ($ctx:expr, |$a:ident, $b:ident| $call:expr) => {
            for i in 0..steps as isize {
                let ($a, $b) = (src.wrapping_offset(i * s), dst.wrapping_offset(i * d));
                prefetch_next_call($a, $b, $ctx);
                ctx.bounds.debug_check(inner, ctx.esize, $a, $b);
                // SAFETY: step i, within the caller's contract; each kernel touches exactly the bytes its
                // footprint counts.
                unsafe { $call };
            }
        };
    }
    match inner {
        Inner::Copy { bytes } => match ctx.next.and_then(|n| n.src.map(|at| (at, n.per_run))) {
            // The next run is requested by the copy itself, line by line (`copy_bytes_ahead`); the burst before the
            // call keeps only the destination's part.
            Some((at, len)) => {
                let before = dst_only(ctx);
                each!(before, |a, b| copy::copy_bytes_ahead(a, b, bytes, (a.wrapping_offset(at), len), ctx))
            }
            None => each!(|a, b| copy::copy_bytes(a, b, bytes, ctx)),
        },
        Inner::Reverse { n } => each!(|a, b| reverse::reverse::<T>(a, b, n, ctx)),
        Inner::Fill { n } => each!(|a, b| fill::fill::<T>(a, b, n, ctx)),
        Inner::Gather { n, src: gs } => each!(|a, b| gather::gather::<T>(a, b, n, gs, ctx)),
        Inner::Transpose { na, a_src, a_dst, nb, b_src } => {
            // The next call's pieces of the destination rows follow this call's (`transpose::next_rows`).
            let on = (d == (nb * T::SIZE) as isize).then_some(d);
            each!(|a, b| transpose::transpose::<T>(a, b, na, a_src, a_dst, nb, b_src, ctx, on))
        }
        Inner::Rows { rows: r, bytes, src: rs, dst: rd } => {
            // The next call's destination runs follow this call's (`rows::dst_reach`).
            let on = Some(d) == (r as isize).checked_mul(rd);
            match ctx.next.and_then(|n| n.src) {
                // As for the copy: the row loop requests the next call's runs (`rows::takes_next_call`).
                Some(at) if rows::takes_next_call(bytes, rs, ctx) => {
                    let before = dst_only(ctx);
                    each!(before, |a, b| rows::rows(a, b, r, bytes, rs, rd, ctx, (Some(a.wrapping_offset(at)), on)))
                }
                _ => each!(|a, b| rows::rows(a, b, r, bytes, rs, rd, ctx, (None, on))),
            }
        }
        Inner::Scatter { n, src: ss, dst: sd } => each!(|a, b| scatter::scatter::<T>(a, b, n, ss, sd)),
        // `check` refuses a table call without its table, so a `Checked` program always has one here.
        Inner::Table(call) => {
            if let Some(t) = table {
                // The last pass requests the next call's first pass (`table::table`), as passes do for each other;
                // one call site, so that the kernel stays inlined into this loop (two cost small calls 1.14x).
                let at = ctx.next.and_then(|n| n.src);
                let before = Ctx { next: None, ..ctx };
                each!(before, |a, b| table::table::<T>(a, b, call, t, ctx, at.map(|at| a.wrapping_offset(at))))
            }
        }
    }
}

#[cfg(all(test, target_arch = "x86_64", not(miri)))]
mod tests {
    use super::*;
    use crate::kernels::TableCall;

    fn program(outer: Vec<Dim>, inner: Inner) -> Program {
        Program {
            esize: 2,
            src_start: 0,
            dst_start: 0,
            outer,
            inner,
            moved_bytes: 1 << 20,
            streaming: false,
            inner_dst_contiguous: true,
            inner_block_bytes: 176,
            table: None,
            reuse_tile: None,
        }
    }

    fn dim(src: isize, dst: isize) -> Dim {
        Dim { n: 5, src, dst, replicate: false }
    }

    /// The range test refuses, before a byte moves, a range shorter than the program reaches, on either side, for
    /// a tiny copy (which skips the loops) as for any other.
    #[test]
    fn ranges_shorter_than_the_footprint_are_refused_untouched() {
        let desc = stridekit::Slice1Desc {
            input: stridekit::BufferTensorDesc::packed(stridekit::DataType::Float32, &[4, 4]).unwrap(),
            output: stridekit::BufferTensorDesc::packed(stridekit::DataType::Float32, &[2, 3]).unwrap(),
            input_window_offsets: vec![0, 1],
            input_window_sizes: vec![4, 3],
            input_window_strides: vec![2, 1],
        };
        let tiny = crate::planner::Program::compile(&desc.validate().unwrap(), &ExecOptions::default()).unwrap();
        let copy = crate::planner::Program::compile(
            &stridekit::Slice1Desc {
                input: stridekit::BufferTensorDesc::packed(stridekit::DataType::Float32, &[64, 64]).unwrap(),
                output: stridekit::BufferTensorDesc::packed(stridekit::DataType::Float32, &[32, 64]).unwrap(),
                input_window_offsets: vec![0, 0],
                input_window_sizes: vec![64, 64],
                input_window_strides: vec![2, 1],
            }
            .validate()
            .unwrap(),
            &ExecOptions::default(),
        )
        .unwrap();
        assert!(super::tiny(&tiny).is_some() && super::tiny(&copy).is_none());
        for program in [tiny, copy] {
            let checked = super::super::check(program).unwrap();
            let (src_end, dst_end) = (checked.src_end as usize, checked.dst_end as usize);
            let src = vec![1u8; src_end];
            for (tensor, src_len, dst_len) in
                [("InputTensor", src_end - 1, dst_end), ("OutputTensor", src_end, dst_end - 1)]
            {
                let mut dst = vec![0u8; dst_len];
                let err = execute(&checked, &src[..src_len], &mut dst, &ExecOptions::default()).unwrap_err();
                let needed = if tensor == "InputTensor" { src_end } else { dst_end };
                assert_eq!(err, ExecError::OutOfRange { tensor, needed: needed as u64, len: needed as u64 - 1 });
                assert!(dst.iter().all(|&b| b == 0), "{tensor}: nothing written");
            }
            let mut dst = vec![0u8; dst_end];
            execute(&checked, &src, &mut dst, &ExecOptions::default()).unwrap();
        }
    }

    #[test]
    fn next_call_covers_a_transposes_runs() {
        // An 8 x 11 transpose of f16 whose 11 runs of 16 bytes are 34 bytes apart: one span of 356 bytes, requested
        // 1496 bytes on (the next call), and its 176-byte destination block 176 bytes on does not jump.
        let t = Inner::Transpose { na: 8, a_src: 2, a_dst: 22, nb: 11, b_src: 34 };
        let next = next_call(&program(vec![dim(1496, 176)], t), Simd::Avx2).unwrap();
        assert_eq!((next.src, next.per_run, next.runs, next.step, next.dst), (Some(1496), 356, 1, 0, None));
        // Runs reading backwards, 76 bytes apart from the last one down: 64 runs of 56 bytes, each its own line.
        let t = Inner::Transpose { na: 28, a_src: -2, a_dst: 23936, nb: 64, b_src: -76 };
        let next = next_call(&program(vec![dim(-17784, 128)], t), Simd::Avx2).unwrap();
        assert_eq!((next.src, next.per_run, next.runs, next.step), (Some(-17784 - 54), 56, 64, -76));
        // Pixels read bottom-up by calls that step upwards, each continuing the one before (sweep3_090: 9 pixels of
        // 13 f64, 104 bytes apart, 936 bytes a call): the next call's nine pixels, from its top one down; none when
        // the pixels rise with the calls.
        let f64s = |b_src, outer| {
            let t = Inner::Transpose { na: 13, a_src: 8, a_dst: 72, nb: 9, b_src };
            Program { esize: 8, ..program(outer, t) }
        };
        let next = next_call(&f64s(-104, vec![dim(936, 936)]), Simd::Avx2).unwrap();
        assert_eq!((next.src, next.per_run, next.runs, next.step), (Some(936), 104, 9, -104));
        assert!(next_call(&f64s(104, vec![dim(936, 936)]), Simd::Avx2).is_none());
        // The next call continues this one's bytes: nothing to ask for. Nor without AVX2, or in tiles.
        let t = Inner::Transpose { na: 8, a_src: 2, a_dst: 22, nb: 11, b_src: 34 };
        assert!(next_call(&program(vec![dim(356, 176)], t), Simd::Avx2).is_none());
        assert!(next_call(&program(vec![dim(1496, 176)], t), Simd::None).is_none());
        let tiled = Program { reuse_tile: Some(4), ..program(vec![dim(1496, 176)], t) };
        assert!(next_call(&tiled, Simd::Avx2).is_none());
    }

    #[test]
    fn short_rows_read_downwards_by_calls_that_step_upwards_request_the_next_call() {
        // sweep8_098's shape: 42 runs of 8 bytes read downwards 16 bytes apart (a span of 664 bytes below the
        // kernel's pointer), nine calls 680 bytes apart: the next call's span, though it does not jump.
        let rows = |bytes, src| Inner::Rows { rows: 42, bytes, src, dst: bytes as isize };
        let outer =
            |step| vec![Dim { n: 842, src: 20400, dst: 3024, replicate: false }, Dim { n: 9, ..dim(step, 336) }];
        let p = |inner, step| Program { inner_block_bytes: 336, ..program(outer(step), inner) };
        let next = next_call(&p(rows(8, -16), 680), Simd::Avx2).unwrap();
        assert_eq!((next.src, next.per_run, next.runs), (Some(680 - 656), 664, 1));
        // Runs read upwards by calls stepping upwards: the hardware follows those. (Calls stepping downwards jump,
        // whichever way their runs go.)
        assert!(next_call(&p(rows(8, 16), 680), Simd::Avx2).is_none());
        assert_eq!(next_call(&p(rows(8, -16), -680), Simd::Avx2).unwrap().src, Some(-680 - 656));
        // Runs longer than MOVES_MAX_BYTES read downwards are walked from the last run up: their reads rise.
        assert!(rows::descends(128, -256) && !rows::descends(129, -256) && !rows::descends(8, 16));
        let long = Inner::Rows { rows: 4, bytes: 200, src: -200, dst: 200 };
        assert!(
            next_call(&Program { inner_block_bytes: 800, ..program(vec![dim(800, 800)], long) }, Simd::Avx2).is_none()
        );
    }

    #[test]
    fn short_loops_of_calls_that_jump_request_one_outer_step_ahead_in_large_copies() {
        // sweep1_098's shape: five 8 x 11 f16 transposes 1496 bytes apart per step of a loop stepping back 6358
        // bytes. From 16 MiB moved, the same call one outer step on (five calls ahead); below, the next call.
        let t = Inner::Transpose { na: 8, a_src: 2, a_dst: 22, nb: 11, b_src: 34 };
        let outer = vec![Dim { n: 21487, src: -6358, dst: 880, replicate: false }, dim(1496, 176)];
        let large = Program { moved_bytes: 16 << 20, ..program(outer.clone(), t) };
        assert_eq!(next_call(&large, Simd::Avx2).unwrap().src, Some(-6358));
        assert_eq!(next_call(&program(outer.clone(), t), Simd::Avx2).unwrap().src, Some(1496));
        // A loop of more than PREFETCH_CONTINUED_CALLS steps, a replicated loop outside, or no loop outside: the
        // next call.
        let long = vec![outer[0], Dim { n: 9, ..outer[1] }];
        assert_eq!(next_call(&Program { outer: long, ..large.clone() }, Simd::Avx2).unwrap().src, Some(1496));
        let replicated = vec![Dim { src: 0, replicate: true, ..outer[0] }, outer[1]];
        assert_eq!(next_call(&Program { outer: replicated, ..large.clone() }, Simd::Avx2).unwrap().src, Some(1496));
        assert_eq!(next_call(&Program { outer: vec![outer[1]], ..large.clone() }, Simd::Avx2).unwrap().src, Some(1496));
        // The bulk copy keeps its own requests: runs of 512 bytes 2048 apart, five per step of the loop outside.
        let copies = Program { moved_bytes: 16 << 20, ..program(outer, Inner::Copy { bytes: 512 }) };
        let copies = Program { outer: vec![Dim { src: 20480, ..copies.outer[0] }, dim(2048, 512)], ..copies };
        assert_eq!(next_call(&copies, Simd::Avx2).unwrap().src, Some(2048));
    }

    #[test]
    fn under_a_replicated_loop_the_next_call_is_the_next_step_of_the_loop_outside() {
        // 158-byte copies 1272 bytes apart, each block copied once more 158 bytes on (sweep3_058): the kernel's next
        // call is 1272 bytes on, and a call of a line or more asks for it.
        let copy = Inner::Copy { bytes: 158 };
        let twice = Dim { n: 2, src: 0, dst: 158, replicate: true };
        let p = Program { streaming: true, ..program(vec![dim(1272, 316), twice], copy) };
        assert_eq!(next_call(&p, Simd::Avx2).and_then(|n| n.src), Some(1272));
        // Without the replicated loop, a call of 158 bytes is too short (short runs under a loop are the row kernel's).
        let p = Program { streaming: true, ..program(vec![dim(1272, 158)], copy) };
        assert_eq!(next_call(&p, Simd::Avx2).and_then(|n| n.src), None);
        // A replicated loop outside the kernel's loop leaves the innermost loop's step as the next call.
        let p = program(
            vec![Dim { n: 3, src: 0, dst: 1 << 20, replicate: true }, dim(4096, 1024)],
            Inner::Copy { bytes: 1024 },
        );
        assert_eq!(next_call(&p, Simd::Avx2).and_then(|n| n.src), Some(4096));
    }

    #[test]
    fn calls_that_continue_each_other_ask_for_their_counterparts_one_step_of_the_loop_outside_on() {
        // Pairs of gathers of 18 u64 every other one (288 bytes), each pair 1152 bytes from the next, 16 pairs 53568
        // bytes apart (sweep2_149): each call asks for the call one step of the middle loop on.
        let src = |p: &Program| next_call(p, Simd::Avx2).and_then(|n| n.src);
        let g = Inner::Gather { n: 18, src: 16 };
        let d = |n, src| Dim { n, src, dst: 144, replicate: false };
        let outer = vec![d(3093, 53568), d(16, 1152), d(2, 288)];
        assert_eq!(src(&Program { streaming: true, ..program(outer.clone(), g) }), Some(1152));
        // More continuing calls than PREFETCH_CONTINUED_CALLS, a loop outside that continues their block too, or a
        // replicated loop between them: nothing.
        let many = vec![d(3093, 53568), d(16, 9 * 288 + 1152), d(9, 288)];
        assert_eq!(src(&Program { streaming: true, ..program(many.clone(), g) }), None);
        // In a copy of 16 MiB or more, up to PREFETCH_CONTINUED_CALLS_FAR of them.
        let far = |outer| Program { streaming: true, moved_bytes: 16 << 20, ..program(outer, g) };
        assert_eq!(src(&far(many)), Some(9 * 288 + 1152));
        assert_eq!(src(&far(vec![d(3093, 53568), d(16, 16 * 288 + 1152), d(16, 288)])), Some(16 * 288 + 1152));
        assert_eq!(src(&far(vec![d(3093, 53568), d(16, 17 * 288 + 1152), d(17, 288)])), None);
        let dense = vec![d(3093, 53568), d(16, 576), d(2, 288)];
        assert_eq!(src(&Program { streaming: true, ..program(dense, g) }), None);
        let across = vec![d(16, 1152), Dim { n: 3, src: 0, dst: 1 << 16, replicate: true }, d(2, 288)];
        assert_eq!(src(&Program { streaming: true, ..program(across, g) }), None);
        // Calls whose runs are longer than a page are streams the hardware follows: a copy of 10952 bytes, five to a
        // block 553600 bytes from the next (sweep1_087), asks for nothing.
        let copy = Inner::Copy { bytes: 10952 };
        let blocks = vec![d(25, 553_600), d(5, 11072)];
        assert_eq!(src(&Program { streaming: true, ..program(blocks, copy) }), None);
    }

    #[test]
    fn short_calls_jump_at_smaller_gaps_when_streamed_or_as_short_rows() {
        // 292-byte gathers of u8 two apart, 654 bytes between calls (sweep3_144): a gap of 362 bytes is a jump in a
        // streaming copy, not in a cache-sized one; a call of 1 KiB or more keeps the gap of PREFETCH_GAP_MIN.
        // (The source part only: the destination's is asked for under ordinary stores alone.)
        let src = |p: &Program| next_call(p, Simd::Avx2).and_then(|n| n.src);
        let g = Inner::Gather { n: 146, src: 2 };
        assert_eq!(src(&Program { streaming: true, ..program(vec![dim(654, 146)], g) }), Some(654));
        assert_eq!(src(&program(vec![dim(654, 146)], g)), None);
        // Short rows in a cache-sized copy jump where the gap is at least the call's extent (sweep2_180: 5 rows of
        // 72 bytes bottom-up, 360 bytes, calls 1080 apart: the next call's rows, from its first one down), not
        // below it, unless the runs descend while the calls rise (`rows::descends`).
        let r = Inner::Rows { rows: 5, bytes: 72, src: -72, dst: 72 };
        assert_eq!(src(&program(vec![dim(1080, 360)], r)), Some(1080));
        assert_eq!(src(&program(vec![dim(720, 360)], r)), Some(720));
        assert_eq!(src(&program(vec![dim(719, 360)], r)), Some(719));
        let up = Inner::Rows { rows: 5, bytes: 72, src: 72, dst: 72 };
        assert_eq!(src(&program(vec![dim(720, 360)], up)), Some(720));
        assert_eq!(src(&program(vec![dim(719, 360)], up)), None);
        // The gap at the threshold, just below it, and a long call with a gap below PREFETCH_GAP_MIN.
        assert_eq!(src(&Program { streaming: true, ..program(vec![dim(292 + 128, 146)], g) }), Some(420));
        assert_eq!(src(&Program { streaming: true, ..program(vec![dim(292 + 127, 146)], g) }), None);
        let long = Inner::Gather { n: 600, src: 2 };
        assert_eq!(src(&Program { streaming: true, ..program(vec![dim(1200 + 500, 600)], long) }), None);
    }

    #[test]
    fn next_call_of_a_table_is_the_step_between_calls_unless_a_loop_reads_them_again() {
        // One pass of two f16 rows 2 bytes apart, each 128 elements from a hull of 2426 bytes (sweep1_183): the next
        // call is 16224 bytes on, and the table requests its lines from there (`src` is the step itself).
        let t = Inner::Table(TableCall {
            rows: 2,
            row_src: 2,
            row_dst: 256,
            per: 2,
            block: 128,
            hull: 2426,
            na: 1,
            a_src: 0,
            a_dst: 0,
        });
        let next = next_call(&program(vec![dim(16224, 512)], t), Simd::Avx2).unwrap();
        assert_eq!(next.src, Some(16224));
        // Rows bottom-up: the next call is below this one.
        assert_eq!(next_call(&program(vec![dim(-499200, 512)], t), Simd::Avx2).unwrap().src, Some(-499200));
        // A loop around it 12 bytes on reads the same lines again (sweep1_119): they are in cache, nothing to ask.
        let reread = program(vec![Dim { n: 43, ..dim(12, 2436) }, dim(-239424, 512)], t);
        assert!(next_call(&reread, Simd::Avx2).is_none_or(|n| n.src.is_none()));
        // The next call continues this one's bytes, or starts 500 bytes after their end (streamed already); 800
        // bytes after, it jumps.
        assert!(next_call(&program(vec![dim(2430, 512)], t), Simd::Avx2).is_none_or(|n| n.src.is_none()));
        assert!(next_call(&program(vec![dim(2930, 512)], t), Simd::Avx2).is_none_or(|n| n.src.is_none()));
        assert_eq!(next_call(&program(vec![dim(3230, 512)], t), Simd::Avx2).unwrap().src, Some(3230));
    }
}
