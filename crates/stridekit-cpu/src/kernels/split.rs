//! Dividing a copy into disjoint output parts for threads: ranges of the flattened outer loops, or of the inner
//! kernel's count when there are no outer loops. Parts are whole sets of output coordinates, so (D1) they write
//! disjoint bytes.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::Ctx;
use super::dispatch::{Bases, fence, run_inner, run_range, run_tiles};
use super::portable::table::TableCall;
use crate::planner::{Inner, Program};

/// How many parts a split makes per thread: the threads claim them a few at a time (fewer as they run out), so a
/// thread that starts late finds the rest of the work already taken instead of a half left for it.
const PARTS_PER_THREAD: usize = 8;

/// Runs `f(lo, hi)` over consecutive ranges of `0 .. parts` that together cover it once: on the calling thread, and
/// on up to `threads - 1` rayon workers that join in when they get there.
///
/// The calling thread never waits for a worker to *start*, only for ranges a worker has claimed to finish. Waking a
/// sleeping pool thread can take far longer than the copy: on the sixth development machine (2 vCPUs of an AMD EPYC
/// under KVM) a gather of 1 MiB took 0.16 ms on one thread and 0.64-1.18 ms split in halves by `rayon::join`, whose
/// caller (outside the pool) sleeps until both halves are done. Here the caller claims ranges (each a
/// `1 / (2 threads)` share of what is left, at least one part) until none is left; a worker that wakes late claims
/// nothing and returns without touching `f`.
///
/// The caller claims from the front of the parts and the workers from the back, so that a slice run again (a
/// prepared operator in a loop) gives each thread nearly the same parts as the time before, and the output and input
/// lines a part reached are still in that core's private cache. Claimed from one end by whichever thread came
/// first, the parts changed cores from call to call: on an AMD EPYC (Zen 4) of 2 vCPUs with 1 MiB of L2 each, a
/// cache-sized transpose (`sweep1_170` of `stridekit bench --sweep 200 --seed 1 --sweep-max-bytes 64M`, 1.2 MiB of
/// lines) took 70 us on two threads and 35 us on one, its stores waiting on lines held by the other core
/// (`docs/PERFORMANCE.md`, fifty-fourth round).
///
/// Allocates the shared counters (an `Arc`: a late worker may still read them after the call returns) and one rayon
/// job per other thread.
pub(super) fn for_each_range(parts: usize, threads: usize, f: &Job<'_>) {
    if threads <= 1 || parts <= 1 {
        f(0, parts);
        return;
    }
    // The two ends are packed into one word; a split never makes that many parts (PARTS_PER_THREAD per thread).
    let Ok(parts32) = u32::try_from(parts) else {
        f(0, parts);
        return;
    };
    // SAFETY: only the lifetime bound of the trait object changes (same layout). `Claims::job` is called only for a
    // claimed range, every range is claimed before `Wait` below closes the counter, and `Wait` (run on return and on
    // unwinding) waits until every claimed range has finished: so no call of `job` outlives `f`'s borrow.
    let job = unsafe { std::mem::transmute::<*const Job<'_>, *const Job<'static>>(f) };
    let claims = Arc::new(Claims {
        ends: AtomicU64::new(Claims::pack(0, parts32)),
        done: AtomicUsize::new(0),
        parts,
        threads,
        job,
    });
    for _ in 1..threads.min(parts) {
        let claims = Arc::clone(&claims);
        // SAFETY: `work` calls `job` only for ranges claimed before `Wait` closes the counter (see above).
        rayon::spawn(move || unsafe { claims.work(End::Back) });
    }
    let wait = Wait(&claims);
    // SAFETY: as above: this thread's claims are waited for by `wait` too.
    unsafe { claims.work(End::Front) };
    drop(wait);
}

/// The work of one [`for_each_range`]: runs parts `lo .. hi`.
type Job<'a> = dyn Fn(usize, usize) + Sync + 'a;

/// The end of the unclaimed parts a thread claims from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Front,
    Back,
}

/// The shared state of one [`for_each_range`]: the unclaimed parts `front .. back` (packed in one word, so that
/// both ends move under one compare-and-swap) and the number of parts finished.
struct Claims {
    ends: AtomicU64,
    done: AtomicUsize,
    parts: usize,
    threads: usize,
    /// The caller's `f`, with its lifetime erased: valid while some range is claimed and not yet finished.
    job: *const Job<'static>,
}

// SAFETY: `job` points to a `Sync` closure, called only under the protocol of `for_each_range`; the rest is atomics.
unsafe impl Send for Claims {}
// SAFETY: as for `Send`.
unsafe impl Sync for Claims {}

impl Claims {
    /// The unclaimed parts `front .. back` as one word.
    fn pack(front: u32, back: u32) -> u64 {
        (u64::from(front) << 32) | u64::from(back)
    }

    /// The unclaimed parts of a packed word.
    fn unpack(w: u64) -> (usize, usize) {
        ((w >> 32) as usize, (w & u64::from(u32::MAX)) as usize)
    }

    /// Claims the next range from `end`: a `1 / (2 threads)` share of the parts left, at least one. `None` when
    /// none is left (or the counter is closed).
    fn claim(&self, end: End) -> Option<(usize, usize)> {
        let mut cur = self.ends.load(Ordering::Relaxed);
        loop {
            let (front, back) = Self::unpack(cur);
            if front >= back {
                return None;
            }
            let take = ((back - front) / (2 * self.threads)).max(1);
            let (range, next) = match end {
                End::Front => ((front, front + take), (front + take, back)),
                End::Back => ((back - take, back), (front, back - take)),
            };
            // The ends stay within 0 ..= parts, which fits u32 (`for_each_range`).
            let packed = Self::pack(next.0 as u32, next.1 as u32);
            match self.ends.compare_exchange_weak(cur, packed, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(range),
                Err(now) => cur = now,
            }
        }
    }

    /// Claims and runs ranges from `end` until none is left.
    ///
    /// # Safety
    /// `job` must be valid for the claims this call makes: the protocol of [`for_each_range`].
    unsafe fn work(&self, end: End) {
        while let Some((lo, hi)) = self.claim(end) {
            // Counted as finished on return and on unwinding alike, so that `Wait` never waits for a range that
            // will not finish.
            let _done = Finished(&self.done, hi - lo);
            // SAFETY: this range is claimed, so the caller of `for_each_range` is still waiting and `job` is valid.
            unsafe { (*self.job)(lo, hi) };
        }
    }
}

/// Adds a finished range's parts to the count when dropped.
struct Finished<'a>(&'a AtomicUsize, usize);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(self.1, Ordering::Release);
    }
}

/// Closes the counter (no claim succeeds after it) and waits until every claimed part has finished.
struct Wait<'a>(&'a Claims);

impl Drop for Wait<'_> {
    fn drop(&mut self) {
        // Closed: front above back, so every claim fails from now on.
        let (front, back) = Claims::unpack(self.0.ends.swap(Claims::pack(u32::MAX, 0), Ordering::Relaxed));
        // Claims never cross (a claim takes at most the parts between the ends), and this is the only close.
        debug_assert!(front <= back && back <= self.0.parts);
        let claimed = front + (self.0.parts - back);
        let mut spins = 0u32;
        // Acquire: the claimed ranges' writes (and their streaming stores, fenced by each range) happen before the
        // call returns.
        while self.0.done.load(Ordering::Acquire) < claimed {
            spins = spins.saturating_add(1);
            if spins < 1 << 12 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// The grain of a split along a table's partner steps ([`inner_count`]): four tiles of 16 steps.
const PARTNER_GRAIN: usize = 64;

/// Whether a table call splits along its partner rather than its rows: a single pass under a partner, in runs of
/// its steps a few tiles long (a spaced partner's tiles need more than a tile of steps), and several passes whose
/// partner makes more such runs than they make passes. Parts of whole passes were few and uneven there: 14 rows in
/// passes of 11 under 985 partner steps (sweep4_169 of `stridekit bench --sweep 200 --seed 4`) made two parts, of
/// 11 rows and 3, so that two threads took as long as one. Measured on the Intel Xeon of `docs/PERFORMANCE.md`'s
/// fiftieth round, time ratios along the partner / along the rows, each case in its own process, three ABBA
/// rounds: the 15 cases of `--sweep 200 --sweep-max-bytes 64M` seeds 1-20 it changes 0.72 (0.47-0.99, sweep4_169
/// 0.47), the 16 of seeds 21-40 0.79 (0.56-1.11).
fn along_partner(c: TableCall) -> bool {
    c.na > 1 && (c.rows <= c.per || c.na.div_ceil(PARTNER_GRAIN) > c.rows.div_ceil(c.per))
}

/// The fewest destination rows of a transpose that a split divides even when its columns are more: 16 parts (8 per
/// thread of two) of a grain of 8 rows.
const SPLIT_ROWS_MIN: usize = 128;

/// The destination row (`nb` steps of `|a_src|` bytes: a row's bytes when each pixel's elements are contiguous, more
/// otherwise) from which a transpose splits along its columns even where [`splits_rows`] would take its rows (a
/// part's piece of each row is then 2 KiB or more). 155 byte planes out of 89715 pixels of 310 bytes (sweep5_099 of
/// `stridekit bench --sweep 200 --seed 5 --sweep-max-bytes 64M`) took as long on two threads as on one, split along
/// its rows. Measured on the Intel Xeon of `docs/PERFORMANCE.md`'s fiftieth round, time ratios columns / rows, each
/// case in its own process, three ABBA rounds: the 9 such transposes of seeds 1-60, 0.77 (0.68-0.90; sweep5_099
/// 0.72); the 10 of seeds 61-160, drawn after the limit was fixed, 0.80 (0.62-1.16). Below it, rows 2844-21094
/// bytes long had run 1.2-1.6x as long split along their columns (sweep2_111, sweep56_164, sweep35_158).
const SPLIT_COLUMNS_MIN_ROW_BYTES: usize = 32 << 10;

/// The longest span of a source row (`na` steps of `a_src` bytes) of a transpose that a split divides along its
/// destination rows when its columns are more: eight lines.
const SPLIT_ROWS_MAX_SOURCE_BYTES: usize = 512;

/// Whether a split divides the destination rows `a` of a transpose of `na` rows by `nb` columns (else its columns
/// `b`): when they are at least as many, or at least [`SPLIT_ROWS_MIN`] of short source rows. Parts of whole
/// destination rows share no line, where parts of columns share the line at each boundary in every row: a 204 x
/// 1422 u16 transpose into rows of 2844 bytes (sweep2_111 of `--sweep 200 --seed 2`) ran slower on two threads than
/// on one, and split along its rows took 0.57 of the time, 172 x 141036 u16 0.59 (sweep2_137). Parts of rows read
/// a piece of every source row, and long source rows read whole by one part do better: 169 rows of every third u16
/// (1014 bytes of each source row, sweep1_052) took 0.96x and 1.19x the time in two runs split along its rows
/// (`docs/PERFORMANCE.md`, thirtieth round). A few planes out of long rows of pixels split along the pixels.
///
/// Destination rows of at least [`SPLIT_COLUMNS_MIN_ROW_BYTES`] split along their columns all the same: each part
/// along the rows reads a piece of every source pixel, so every part reads all of the source's lines, while parts
/// of columns that long share a line per row only every few KiB.
fn splits_rows(na: usize, nb: usize, a_src: isize) -> bool {
    let short = na.saturating_mul(a_src.unsigned_abs()) <= SPLIT_ROWS_MAX_SOURCE_BYTES;
    let narrow = nb.saturating_mul(a_src.unsigned_abs()) < SPLIT_COLUMNS_MIN_ROW_BYTES;
    nb <= na || (na >= SPLIT_ROWS_MIN && short && narrow)
}

/// The count a split of an inner kernel (without outer loops) divides, and the grain of part boundaries in that
/// count's units (64 bytes for bulk copies).
pub(crate) fn inner_count(inner: Inner) -> (usize, usize) {
    match inner {
        Inner::Copy { bytes } => (bytes, 64),
        Inner::Reverse { n } | Inner::Fill { n } | Inner::Gather { n, .. } | Inner::Scatter { n, .. } => (n, 64),
        Inner::Transpose { na, a_src, nb, .. } if !splits_rows(na, nb, a_src) => (nb, 64),
        Inner::Transpose { na, .. } => (na, 8),
        Inner::Rows { rows, .. } => (rows, 16),
        Inner::Table(c) if along_partner(c) => (c.na, PARTNER_GRAIN),
        Inner::Table(c) => (c.rows, c.per),
    }
}

/// How a program is divided into parts: either ranges of the first `levels` outer loops flattened, or ranges of
/// the inner kernel's count when there are no outer loops or the program runs in tiles of that count (then whole
/// tiles, each part running its tiles under every outer loop).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Split {
    pub parts: usize,
    levels: usize,
    total: usize,
    /// Alignment of part boundaries in inner-count units (64 bytes for bulk copies).
    grain: usize,
}

impl Split {
    /// The split of `p` for `threads` threads: [`PARTS_PER_THREAD`] parts per thread where the program has that many.
    pub(super) fn new(p: &Program, threads: usize) -> Split {
        // At least one thread, so that the loops below flatten at least the outermost loop.
        let threads = threads.max(1);
        let parts = threads.saturating_mul(PARTS_PER_THREAD);
        if let Some(tile) = p.reuse_tile {
            let total = inner_count(p.inner).0;
            let parts = parts.min(total.div_ceil(tile.max(1))).max(1);
            return Split { parts, levels: 0, total, grain: tile.max(1) };
        }
        if p.outer.is_empty() {
            let (total, grain) = inner_count(p.inner);
            let parts = parts.min(total.div_ceil(grain)).max(1);
            return Split { parts, levels: 0, total, grain };
        }
        // The outer loops are flattened from the outermost until they make enough parts, but a replicated loop only
        // as the last of them, and only when the loops around it make fewer parts than threads: each part's range
        // of a replicated loop runs its first step and copies that block to its other steps (`run_range`), so every
        // further part of it would run the inner kernel again instead of copying. A split with a replicated last
        // loop is one part per thread, for the same reason.
        let mut levels = 0;
        let mut total = 1usize;
        while levels < p.outer.len() && total < parts.saturating_mul(4) {
            let d = &p.outer[levels];
            if d.replicate && levels > 0 && total >= threads {
                break;
            }
            total = total.saturating_mul(d.n);
            levels += 1;
            if d.replicate {
                break;
            }
        }
        let parts = if p.outer[..levels].last().is_some_and(|d| d.replicate) { threads } else { parts };
        Split { parts: parts.min(total).max(1), levels, total, grain: 1 }
    }

    /// The half-open range of part `i`.
    fn range(&self, i: usize) -> (usize, usize) {
        let units = self.total.div_ceil(self.grain);
        let bound = |k: usize| ((units as u128 * k as u128 / self.parts as u128) as usize * self.grain).min(self.total);
        (bound(i), bound(i + 1))
    }

    /// The inner kernel restricted to the sub-range `a .. b` of its count, and the byte offsets of that sub-range's
    /// first element on each side (for splits without outer loops, and streaming ranges of such programs).
    pub(crate) fn sub_kernel(inner: Inner, a: usize, b: usize, esize: usize) -> (Inner, isize, isize) {
        let e = esize as isize;
        let (count, so, d_o) = (b - a, a as isize, a as isize);
        match inner {
            Inner::Copy { .. } => (Inner::Copy { bytes: count }, so, d_o),
            Inner::Reverse { .. } => (Inner::Reverse { n: count }, -so * e, d_o * e),
            Inner::Fill { .. } => (Inner::Fill { n: count }, 0, d_o * e),
            Inner::Gather { src, .. } => (Inner::Gather { n: count, src }, so * src, d_o * e),
            Inner::Transpose { na, a_src, a_dst, nb, b_src } if !splits_rows(na, nb, a_src) => {
                (Inner::Transpose { na, a_src, a_dst, nb: count, b_src }, so * b_src, d_o * e)
            }
            Inner::Transpose { a_src, a_dst, nb, b_src, .. } => {
                (Inner::Transpose { na: count, a_src, a_dst, nb, b_src }, so * a_src, d_o * a_dst)
            }
            Inner::Rows { bytes, src, dst, .. } => (Inner::Rows { rows: count, bytes, src, dst }, so * src, d_o * dst),
            Inner::Scatter { src, dst, .. } => (Inner::Scatter { n: count, src, dst }, so * src, d_o * dst),
            Inner::Table(c) if along_partner(c) => {
                (Inner::Table(TableCall { na: count, ..c }), so * c.a_src, d_o * c.a_dst)
            }
            Inner::Table(c) => (Inner::Table(TableCall { rows: count, ..c }), so * c.row_src, d_o * c.row_dst),
        }
    }

    /// Runs parts `lo .. hi` of `p` (one range of its outer loops or inner count).
    ///
    /// # Safety
    /// `bases.src` must be readable and `bases.dst` writable over every byte the program reaches (the check in
    /// [`execute`](super::execute)); no other thread may access the output bytes of these parts meanwhile.
    pub(super) unsafe fn run_parts(&self, p: &Program, lo: usize, hi: usize, bases: Bases, ctx: Ctx) {
        let (a, b) = (self.range(lo).0, self.range(hi - 1).1);
        if a >= b {
            return;
        }
        if let Some(tile) = p.reuse_tile {
            // SAFETY: tiles a .. b of the whole program, inside the caller's contract; another part's tiles are
            // other output coordinates.
            unsafe { run_tiles(p, tile, a, b, bases.src, bases.dst, ctx) };
        } else if self.levels == 0 {
            let (inner, so, d_o) = Self::sub_kernel(p.inner, a, b, ctx.esize);
            // SAFETY: the sub-range [a, b) of the inner kernel's count reaches a subset of the bytes of the whole
            // kernel (run_inner re-checks its footprint in debug builds).
            unsafe { run_inner(inner, p.table.as_deref(), bases.src.offset(so), bases.dst.offset(d_o), ctx) };
        } else {
            // The range as runs of the last flattened loop: each a range of its steps under one coordinate of the
            // loops around it (an odometer, started at index `a`), run as that loop runs them (`run_range`).
            let levels = &p.outer[..self.levels];
            let last = self.levels - 1;
            let mut coords = [0usize; 8];
            let mut rem = a / levels[last].n;
            for l in (0..last).rev() {
                coords[l] = rem % levels[l].n;
                rem /= levels[l].n;
            }
            let (mut so, mut d_o) = levels[..last].iter().enumerate().fold((0isize, 0isize), |(s, d), (l, dim)| {
                (s + coords[l] as isize * dim.src, d + coords[l] as isize * dim.dst)
            });
            let mut i = a;
            while i < b {
                let j0 = i % levels[last].n;
                let j1 = levels[last].n.min(j0 + (b - i));
                // SAFETY: (so, d_o) are the offsets of a valid coordinate of the loops around the last flattened
                // one, and j0 .. j1 a range of its steps; the rest is the caller's contract.
                unsafe { run_range(p, last, j0, j1, p.inner, bases.src.offset(so), bases.dst.offset(d_o), ctx) };
                i += j1 - j0;
                // Advance the odometer of the loops around.
                let mut l = last;
                while l > 0 {
                    l -= 1;
                    coords[l] += 1;
                    so += levels[l].src;
                    d_o += levels[l].dst;
                    if coords[l] < levels[l].n {
                        break;
                    }
                    so -= levels[l].src * levels[l].n as isize;
                    d_o -= levels[l].dst * levels[l].n as isize;
                    coords[l] = 0;
                }
            }
        }
        if ctx.nt {
            fence();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Inner, PARTNER_GRAIN, Split, TableCall, for_each_range, inner_count};
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn tables_split_along_whichever_of_passes_and_partner_makes_more_parts() {
        let c = TableCall {
            rows: 14,
            row_src: 118680,
            row_dst: 90,
            per: 11,
            block: 90,
            hull: 1,
            na: 985,
            a_src: 1,
            a_dst: 1260,
        };
        // Two passes, 16 runs of 64 partner steps: along the partner; a part of 64 steps runs every row.
        assert_eq!(inner_count(Inner::Table(c)), (985, PARTNER_GRAIN));
        let (part, so, d_o) = Split::sub_kernel(Inner::Table(c), 64, 128, 1);
        assert_eq!((part, so, d_o), (Inner::Table(TableCall { na: 64, ..c }), 64, 64 * 1260));
        // 30 passes and 16 runs: along the rows, whole passes.
        let rows = TableCall { rows: 330, ..c };
        assert_eq!(inner_count(Inner::Table(rows)), (330, 11));
        let (part, so, d_o) = Split::sub_kernel(Inner::Table(rows), 11, 22, 1);
        assert_eq!((part, so, d_o), (Inner::Table(TableCall { rows: 11, ..rows }), 11 * 118680, 11 * 90));
        // No partner: the rows.
        assert_eq!(inner_count(Inner::Table(TableCall { na: 1, ..c })), (14, 11));
    }

    #[test]
    fn transposes_split_along_their_rows_when_the_source_rows_are_short() {
        // sweep2_111: 204 rows of 1422 u16 out of source rows of 408 bytes: parts of rows (grain 8), each the whole
        // destination rows.
        let t = Inner::Transpose { na: 204, a_src: 2, a_dst: 2844, nb: 1422, b_src: 408 };
        assert_eq!(inner_count(t), (204, 8));
        let (part, src, dst) = Split::sub_kernel(t, 8, 16, 2);
        assert_eq!((src, dst), (16, 8 * 2844));
        assert!(matches!(part, Inner::Transpose { na: 8, nb: 1422, .. }));
        // Source rows of 1014 bytes (every third u16 of 169), or a few planes of long rows: parts of columns.
        let long = Inner::Transpose { na: 169, a_src: -6, a_dst: 31006, nb: 15503, b_src: -1142 };
        assert_eq!(inner_count(long), (15503, 64));
        let (part, src, dst) = Split::sub_kernel(long, 64, 128, 2);
        assert_eq!((src, dst), (64 * -1142, 128));
        assert!(matches!(part, Inner::Transpose { na: 169, nb: 64, .. }));
        assert_eq!(inner_count(Inner::Transpose { na: 3, a_src: 1, a_dst: 9000, nb: 9000, b_src: 3 }), (9000, 64));
        // At least as many rows as columns: rows, whatever their length.
        assert_eq!(inner_count(Inner::Transpose { na: 900, a_src: 4, a_dst: 40, nb: 10, b_src: 3600 }), (900, 8));
        // 155 byte planes out of 89715 pixels: many short source rows, but destination rows of 89715 bytes.
        let planes = Inner::Transpose { na: 155, a_src: 1, a_dst: 89715, nb: 89715, b_src: 310 };
        assert_eq!(inner_count(planes), (89715, 64));
        assert_eq!(inner_count(Inner::Transpose { na: 155, a_src: 1, a_dst: 30000, nb: 30000, b_src: 310 }), (155, 8));
    }

    /// Runs `for_each_range` and returns how often each part ran.
    fn coverage(parts: usize, threads: usize) -> Vec<usize> {
        let hits: Vec<AtomicUsize> = (0..parts).map(|_| AtomicUsize::new(0)).collect();
        for_each_range(parts, threads, &|lo, hi| {
            assert!(lo < hi && hi <= parts, "range {lo}..{hi} of {parts}");
            for h in &hits[lo..hi] {
                h.fetch_add(1, Ordering::Relaxed);
            }
        });
        hits.into_iter().map(AtomicUsize::into_inner).collect()
    }

    #[test]
    fn a_replicated_outer_loop_is_split_once_per_thread() {
        use crate::ExecOptions;
        use crate::planner::Program;
        use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
        let program = |in_strides: &[u32], window_strides: &[i32], out: &[u32]| {
            let desc = Slice1Desc {
                input: BufferTensorDesc::new(DataType::Float32, &[100, 128], Some(in_strides)).unwrap(),
                output: BufferTensorDesc::packed(DataType::Float32, out).unwrap(),
                input_window_offsets: vec![0, 0],
                input_window_sizes: vec![100, 128],
                input_window_strides: window_strides.to_vec(),
            };
            Program::compile(&desc.validate().unwrap(), &ExecOptions::default()).unwrap()
        };
        // 100 rows of a stride-3 gather: 8 parts per thread.
        let gather = program(&[128, 1], &[1, 3], &[100, 43]);
        assert!(!gather.outer[0].replicate);
        assert_eq!(super::Split::new(&gather, 2).parts, 16);
        // One row of that gather broadcast 100 times: one part per thread, each replicating its first block.
        let broadcast = program(&[0, 1], &[1, 3], &[100, 43]);
        assert!(broadcast.outer[0].replicate);
        let split = super::Split::new(&broadcast, 2);
        assert_eq!((split.parts, split.levels), (2, 1));
    }

    #[test]
    fn a_replicated_inner_loop_is_split_around_unless_the_loops_around_are_too_few() {
        use crate::ExecOptions;
        use crate::planner::Program;
        use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
        // `outer` steps, each a gather of 24 rows broadcast over 72 steps (sweep2_051's loops): the broadcast loop
        // is the second of three outer loops.
        let program = |outer: u32| {
            let desc = Slice1Desc {
                input: BufferTensorDesc::new(DataType::Float32, &[outer, 72, 24, 30], Some(&[4000, 0, 100, 3]))
                    .unwrap(),
                output: BufferTensorDesc::packed(DataType::Float32, &[outer, 72, 24, 30]).unwrap(),
                input_window_offsets: vec![0; 4],
                input_window_sizes: vec![outer, 72, 24, 30],
                input_window_strides: vec![1; 4],
            };
            Program::compile(&desc.validate().unwrap(), &ExecOptions::default()).unwrap()
        };
        let p = program(13);
        assert!(!p.outer[0].replicate && p.outer[1].replicate, "{:?}", p.outer);
        // Thirteen steps around it are enough parts for two threads: the split stops before it, one part a step.
        let split = super::Split::new(&p, 2);
        assert_eq!((split.parts, split.levels), (13, 1));
        // Two steps for three threads are not: the split takes the broadcast loop too, as its last loop, one part
        // per thread (each part's range of it runs one step and copies it).
        let p = program(2);
        assert!(p.outer[1].replicate, "{:?}", p.outer);
        let split = super::Split::new(&p, 3);
        assert_eq!((split.parts, split.levels), (3, 2));
    }

    #[test]
    fn every_part_runs_once() {
        let max = if cfg!(miri) { 9 } else { 40 };
        for parts in 1..=max {
            for threads in 1..=4 {
                assert_eq!(coverage(parts, threads), vec![1; parts], "{parts} parts on {threads} threads");
            }
        }
    }

    #[test]
    fn the_caller_finishes_alone_when_no_worker_comes() {
        // A pool of two threads: one is held by a job until the call is over, the other runs the call. The worker
        // the call asks for never comes, so the caller takes every range itself and returns.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (release, held) = std::sync::mpsc::channel::<()>();
        let (started, running) = std::sync::mpsc::channel::<()>();
        pool.spawn(move || {
            started.send(()).unwrap();
            held.recv().unwrap();
        });
        running.recv().unwrap();
        let ranges = Mutex::new(Vec::new());
        let caller = pool.install(|| {
            for_each_range(16, 2, &|lo, hi| ranges.lock().unwrap().push((lo, hi, std::thread::current().id())));
            std::thread::current().id()
        });
        release.send(()).unwrap();
        let mut ranges = ranges.into_inner().unwrap();
        ranges.sort_by_key(|r| r.0);
        assert!(ranges.iter().all(|r| r.2 == caller), "{ranges:?}");
        assert_eq!(ranges.first().map(|r| r.0), Some(0));
        assert!(ranges.windows(2).all(|w| w[0].1 == w[1].0) && ranges.last().map(|r| r.1) == Some(16), "{ranges:?}");
    }

    #[test]
    fn the_caller_claims_from_the_front_and_the_workers_from_the_back() {
        // Slow ranges, so that a worker joins in: the caller's ranges are a prefix of the parts and the worker's the
        // rest, so that a slice run again gives each thread nearly the same parts (their lines stay in its cache).
        let ranges = Mutex::new(Vec::new());
        let caller = std::thread::current().id();
        for_each_range(24, 2, &|lo, hi| {
            std::thread::sleep(std::time::Duration::from_millis(2));
            ranges.lock().unwrap().push((lo, hi, std::thread::current().id() == caller));
        });
        let mut ranges = ranges.into_inner().unwrap();
        ranges.sort_by_key(|r| r.0);
        assert!(ranges.windows(2).all(|w| w[0].1 == w[1].0), "{ranges:?}");
        assert_eq!((ranges.first().map(|r| r.0), ranges.last().map(|r| r.1)), (Some(0), Some(24)));
        // The caller's ranges (if it got any before a worker took the rest) come first, the workers' after them.
        let first_workers = ranges.iter().position(|r| !r.2).unwrap_or(ranges.len());
        assert!(ranges[first_workers..].iter().all(|r| !r.2), "{ranges:?}");
    }

    #[test]
    fn returns_after_the_workers_ranges_finish() {
        // Slow ranges: a worker that joins in is still inside one when the caller runs out of ranges to claim.
        let hits: Vec<AtomicUsize> = (0..32).map(|_| AtomicUsize::new(0)).collect();
        for_each_range(32, 2, &|lo, hi| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            for h in &hits[lo..hi] {
                h.fetch_add(1, Ordering::Relaxed);
            }
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn a_panic_waits_for_the_ranges_in_flight() {
        // The caller's first range panics once a worker is inside a range: the call must not unwind past `f` while
        // that range still borrows it.
        let caller = std::thread::current().id();
        let in_flight = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for_each_range(64, 2, &|_, _| {
                if std::thread::current().id() == caller {
                    // Give a worker up to a second to start a range (none may come: the check is then vacuous).
                    let start = std::time::Instant::now();
                    while in_flight.load(Ordering::SeqCst) == 0 && start.elapsed().as_secs() < 1 {
                        std::thread::yield_now();
                    }
                    panic!("a range of the caller");
                }
                in_flight.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(20));
                in_flight.fetch_sub(1, Ordering::SeqCst);
            })
        }));
        assert!(result.is_err());
        assert_eq!(in_flight.load(Ordering::SeqCst), 0);
    }
}
