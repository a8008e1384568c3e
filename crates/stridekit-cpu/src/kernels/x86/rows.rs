//! Short rows as one periodic byte shuffle: runs of `g` bytes whose sources lie close together (a pixel flip reads
//! the runs backwards `g` bytes apart; every other pixel reads them `2 g` apart) are `p` runs per 16-byte source
//! window. One `pshufb` with a mask built once per run length and step (each thread keeps its last, [`Mask`]) moves
//! all `p` runs of a window into place; the 16-byte store writes the `p g` bytes of those runs and the first bytes
//! of the next runs, which the next store (blocks go forward through the destination) or the scalar tail
//! overwrites.

use std::arch::x86_64::*;
use std::cell::Cell;
use std::thread::LocalKey;

/// Whether [`rows_shuffle`] takes `rows` runs of `g` bytes `s` apart: at least two runs fit a 16-byte window, both
/// in the source and in the destination (runs that overlap in the source, from overlapping input strides, can lie
/// within 16 source bytes while their destination bytes do not fit 16), and there are enough runs for a block.
/// Checked before the call, which cannot be inlined (its target feature).
#[inline]
pub(crate) fn rows_shuffle_fits(rows: usize, g: usize, s: isize) -> bool {
    fits::<16>(rows, g, s, 4)
}

/// Whether [`rows_shuffle64`] takes `rows` runs of `g` bytes `s` apart: as [`rows_shuffle_fits`], with 64-byte
/// windows.
#[inline]
pub(crate) fn rows_shuffle64_fits(rows: usize, g: usize, s: isize) -> bool {
    fits::<64>(rows, g, s, 8)
}

/// Whether a call of `rows` runs of `g` bytes that [`rows_shuffle64`] fits takes it rather than the 16-byte shuffle
/// or the row loop: calls of at least [`SHUFFLE64_MIN_BYTES`]. Building its 64-byte mask per call cost a loop over
/// the 64 mask bytes, more than the copy of a few hundred bytes: calls of 15-63 runs (300-700 bytes) under outer
/// loops ran in 0.65-0.94 of the time without it (sweep3_051, sweep2_081, sweep4_151, sweep3_038, sweep4_136,
/// sweep1_005, sweep4_048), calls of 1.5 KiB and more up to 1.6x slower (four alternating rounds over the 126 row
/// cases of seeds 1-4, Intel Xeon with AVX-512 VBMI, `docs/PERFORMANCE.md`, twenty-seventh round). With the mask
/// kept per thread ([`Mask::of`]), calls of 256 bytes or more through it ran in 0.98 of the time of the 15 such
/// cases of seeds 1-8 (0.84-1.19, within the noise; the Zen 4 of the sixtieth round): the threshold stays.
#[inline]
pub(crate) fn rows_shuffle64_pays(rows: usize, g: usize) -> bool {
    rows.saturating_mul(g) >= SHUFFLE64_MIN_BYTES
}

/// The fewest bytes a call takes the 64-byte shuffle for ([`rows_shuffle64_pays`]).
const SHUFFLE64_MIN_BYTES: usize = 1024;

/// At least two runs per `W`-byte window, in the source and in the destination, and at least `min_rows` runs.
#[inline]
fn fits<const W: usize>(rows: usize, g: usize, s: isize, min_rows: usize) -> bool {
    g > 0 && s != 0 && s.unsigned_abs() + g <= W && 2 * g <= W && rows >= min_rows
}

/// The mask of a periodic shuffle with `W`-byte windows for runs of `g` bytes `s` apart, computed in safe code before
/// any byte moves. It depends on `g` and `s` alone, which the calls of one innermost loop (and the stage's groups of
/// runs, `portable/rows.rs::rows`) share, so each thread keeps the last one it built ([`Mask::of`]): built per call,
/// its loop over the `W` mask bytes and two divisions took a third of the 64-byte shuffle's time in calls of 57 runs
/// of 28 bytes (sweep1_002 of `--sweep 200 --seed 1`: 0.77 of the time kept, three ABBA rounds; sweep6_178 0.78; the
/// 46 row cases of seeds 1-8 that fit either shuffle 0.996, `docs/PERFORMANCE.md`, sixtieth round).
#[derive(Clone, Copy)]
struct Mask<const W: usize> {
    /// The run length and step the mask was built for.
    g: usize,
    s: isize,
    /// Byte `k` of a window's store is byte `index[k]` of its window.
    index: [u8; W],
    /// Runs per block.
    p: usize,
    /// Where run 0 starts inside block 0's window.
    shift: usize,
}

thread_local! {
    /// The last mask of each width this thread built.
    static MASK16: Cell<Option<Mask<16>>> = const { Cell::new(None) };
    static MASK64: Cell<Option<Mask<64>>> = const { Cell::new(None) };
}

impl<const W: usize> Mask<W> {
    /// The mask for runs of `g` bytes `s` apart (for which [`fits`] holds): the thread's last one (`cache`) when it
    /// was built for them, else a new one, kept there.
    #[inline]
    fn of(g: usize, s: isize, cache: &'static LocalKey<Cell<Option<Mask<W>>>>) -> Mask<W> {
        cache.with(|last| match last.get() {
            Some(mask) if mask.g == g && mask.s == s => mask,
            _ => {
                let mask = Mask::build(g, s);
                last.set(Some(mask));
                mask
            }
        })
    }

    fn build(g: usize, s: isize) -> Mask<W> {
        // Runs per window: the `p` runs span (p - 1) |s| + g <= W source bytes and p g <= W destination bytes.
        let p = ((W - g) / s.unsigned_abs() + 1).min(W / g);
        // The window of the block starting at run i: from run i's first byte forwards (s > 0), or ending with run
        // i's last byte (s < 0, its runs lie below it). `shift` is where run i starts inside the window.
        let shift = if s > 0 { 0 } else { W - g };
        // Without a division per byte: 32 divisions by the variable `g` cost more than the shuffles of a 1 KiB row.
        let mut index = [0u8; W];
        let mut j = 0;
        for q in 0..p as isize {
            for b in 0..g as isize {
                index[j] = (shift as isize + q * s + b) as u8;
                j += 1;
            }
        }
        Mask { g, s, index, p, shift }
    }
}

/// The numbers of a periodic shuffle of one call: its mask and how many of its blocks the vector loop takes.
struct Periodic<const W: usize> {
    mask: Mask<W>,
    /// How many blocks (of `p` runs each) the vector loop takes; the runs after them are copied one by one.
    blocks: usize,
}

impl<const W: usize> Periodic<W> {
    /// The shuffle for `rows` runs of `mask`'s `g` bytes `s` apart (for which [`fits`] holds).
    fn new(rows: usize, mask: Mask<W>) -> Periodic<W> {
        let Mask { g, s, p, shift, .. } = mask;
        // The caller's source range, relative to run 0: [lo, hi).
        let span = (rows as isize - 1) * s;
        let (lo, hi) = (span.min(0), span.max(0) + g as isize);
        // Block b (runs b p .. b p + p) needs its window inside the source range and its W-byte store inside the
        // destination. Both tests are monotone in b (the windows move one way, the stores forwards), so the blocks
        // that pass are a prefix: counted once, then a loop without tests (the tests in the loop cost two thirds of
        // its speed: a flip of 384 RGB pixels per row, 7.8 -> 24 GB/s).
        let inside = |b: usize| {
            let i = b * p;
            let window = i as isize * s - shift as isize;
            i + p <= rows && window >= lo && window + W as isize <= hi && i * g + W <= rows * g
        };
        let mut blocks = rows / p;
        while blocks > 0 && !inside(blocks - 1) {
            blocks -= 1;
        }
        debug_assert!((0..blocks).all(inside));
        Periodic { mask, blocks }
    }
}

/// Copies runs `first .. rows` of `g` bytes from `src + r * s` to `dst + r * g`, one by one (a shuffle's tail).
///
/// # Safety
/// Those runs are readable and their destination bytes writable; no overlap.
#[inline]
unsafe fn runs_from(first: usize, src: *const u8, dst: *mut u8, rows: usize, g: usize, s: isize) {
    for r in first..rows {
        // SAFETY: run r < rows of the caller's ranges.
        unsafe { std::ptr::copy_nonoverlapping(src.offset(r as isize * s), dst.add(r * g), g) };
    }
}

/// Copies `rows` runs of `g` bytes from `src + r * s` to the contiguous `dst + r * g`. Returns `false`, having
/// written nothing, when [`rows_shuffle_fits`] does not hold (the caller's row loop then runs).
///
/// # Safety
/// AVX2 is available; every source run is readable and the `rows * g` destination bytes writable; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn rows_shuffle(src: *const u8, dst: *mut u8, rows: usize, g: usize, s: isize) -> bool {
    if !rows_shuffle_fits(rows, g, s) {
        return false;
    }
    let plan = Periodic::<16>::new(rows, Mask::of(g, s, &MASK16));
    let Mask { index, p, shift, .. } = plan.mask;
    // SAFETY: the index is 16 bytes.
    let mask = unsafe { _mm_loadu_si128(index.as_ptr().cast()) };
    let (stride_src, stride_dst) = (p as isize * s, p * g);
    // Block 0's window (run 0's position minus the shift); each later block moves by p runs.
    let mut from = src.wrapping_offset(-(shift as isize));
    let mut to = dst;
    for _ in 0..plan.blocks {
        // SAFETY: every block below `plan.blocks` passed `Periodic::new`'s test: the 16-byte window lies in the
        // caller's source range and the 16-byte store in the destination's rows * g bytes; its bytes past the
        // block's runs belong to later runs, written after it in rising order.
        unsafe {
            let v = _mm_loadu_si128(from.cast());
            _mm_storeu_si128(to.cast(), _mm_shuffle_epi8(v, mask));
        }
        from = from.wrapping_offset(stride_src);
        to = to.wrapping_add(stride_dst);
    }
    // SAFETY: the runs after the blocks, of the caller's ranges.
    unsafe { runs_from(plan.blocks * p, src, dst, rows, g, s) };
    true
}

/// [`rows_shuffle`] with 64-byte windows and `vpermb` (AVX-512 VBMI). 6-byte runs 12 bytes apart are five runs (30
/// bytes) per load, permute and store, where the row loop moves each run with two overlapping 4-byte moves. Returns
/// `false`, having written nothing, when [`rows_shuffle64_fits`] does not hold.
///
/// # Safety
/// AVX-512 F, BW and VBMI are available; every source run is readable and the `rows * g` destination bytes
/// writable; no overlap.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn rows_shuffle64(src: *const u8, dst: *mut u8, rows: usize, g: usize, s: isize) -> bool {
    if !rows_shuffle64_fits(rows, g, s) {
        return false;
    }
    let plan = Periodic::<64>::new(rows, Mask::of(g, s, &MASK64));
    let Mask { index, p, shift, .. } = plan.mask;
    // SAFETY: the index is 64 bytes.
    let index = unsafe { _mm512_loadu_si512(index.as_ptr().cast()) };
    let (stride_src, stride_dst) = (p as isize * s, p * g);
    let mut from = src.wrapping_offset(-(shift as isize));
    let mut to = dst;
    for _ in 0..plan.blocks {
        // SAFETY: as in `rows_shuffle`, with 64-byte windows and stores.
        unsafe {
            let v = _mm512_loadu_si512(from.cast());
            _mm512_storeu_si512(to.cast(), _mm512_permutexvar_epi8(index, v));
        }
        from = from.wrapping_offset(stride_src);
        to = to.wrapping_add(stride_dst);
    }
    // SAFETY: the runs after the blocks, of the caller's ranges.
    unsafe { runs_from(plan.blocks * p, src, dst, rows, g, s) };
    true
}

#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;

    /// Runs `rows` runs of `g` bytes `s` apart through the kernel `f` and the plain loop, from every start offset
    /// of a small source, and compares (the tail past the runs must stay untouched).
    fn check(f: unsafe fn(*const u8, *mut u8, usize, usize, isize) -> bool, rows: usize, g: usize, s: isize) {
        let span = (rows - 1) * s.unsigned_abs() + g;
        let src: Vec<u8> = (0..span + 64).map(|i| (i * 13 % 251) as u8).collect();
        for lead in [0, 1, 37] {
            // Run 0 at `lead` (s > 0) or at the top of the span (s < 0), so that every run lies inside `src`.
            let first = if s > 0 { lead } else { lead + span - g };
            let expected: Vec<u8> = (0..rows)
                .flat_map(|r| {
                    let at = (first as isize + r as isize * s) as usize;
                    src[at..at + g].to_vec()
                })
                .chain([0xEE; 64])
                .collect();
            let mut out = vec![0xEE; rows * g + 64];
            // SAFETY: the features are detected by the caller; runs r < rows lie in `src` from `first`; `out`
            // holds rows * g bytes (and 64 more, which must stay untouched).
            let taken = unsafe { f(src.as_ptr().add(first), out.as_mut_ptr(), rows, g, s) };
            assert!(taken, "rows {rows} g {g} s {s}");
            assert_eq!(out, expected, "rows {rows} g {g} s {s} lead {lead}");
        }
    }

    #[test]
    fn periodic_shuffles_move_every_run_and_nothing_else() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 here: the row loop runs");
            return;
        }
        // Runs that overlap in the source (g > |s|: overlapping input strides) too: their destination bytes, not
        // their source span, bound the runs per window (15-byte runs 1 apart: one per 16-byte store, no shuffle).
        for (g, s) in [(3, -3), (2, 10), (6, 6), (1, 2), (8, 1), (6, -2), (5, 3)] {
            for rows in [4, 9, 100] {
                check(rows_shuffle, rows, g, s);
            }
        }
        assert!(!rows_shuffle_fits(100, 15, 1) && !rows_shuffle_fits(100, 9, -4));
        if !crate::kernels::wide_permutes() {
            eprintln!("no AVX-512 VBMI here: only the 16-byte shuffle runs");
            return;
        }
        for (g, s) in [(6, -12), (6, 18), (8, -20), (5, 50), (12, -28), (32, 32), (1, 63), (2, -10), (32, 1), (20, -3)]
        {
            for rows in [8, 9, 31, 1000] {
                check(rows_shuffle64, rows, g, s);
            }
        }
        assert!(!rows_shuffle64_fits(1000, 40, 1) && !rows_shuffle64_fits(1000, 63, -1));
        // Each thread keeps its last mask per width: calls that alternate the run length or the step under one
        // another must each get their own (a mask kept for 4-byte runs 8 apart moves 6-byte runs wrongly).
        for (g, s) in [(4, 8), (6, 8), (4, 8), (4, -8), (4, 12), (4, 8)] {
            check(rows_shuffle64, 100, g, s);
            check(rows_shuffle, 100, g / 2, s / 2);
        }
    }

    #[test]
    fn the_64_byte_shuffle_pays_from_a_kib_per_call() {
        assert!(!rows_shuffle64_pays(47, 8) && !rows_shuffle64_pays(39, 24) && !rows_shuffle64_pays(0, 8));
        assert!(rows_shuffle64_pays(57, 28) && rows_shuffle64_pays(512, 2) && rows_shuffle64_pays(usize::MAX, 2));
    }
}
