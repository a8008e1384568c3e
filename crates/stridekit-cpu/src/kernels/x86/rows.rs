//! Short rows as one periodic byte shuffle: runs of `g` bytes whose sources lie close together (a pixel flip reads
//! the runs backwards `g` bytes apart; every other pixel reads them `2 g` apart) are `p` runs per 16-byte source
//! window. One `pshufb` with a mask built once per call moves all `p` runs of a window into place; the 16-byte
//! store writes the `p g` bytes of those runs and the first bytes of the next runs, which the next store (blocks
//! go forward through the destination) or the scalar tail overwrites.

use std::arch::x86_64::*;

/// Whether [`rows_shuffle`] takes `rows` runs of `g` bytes `s` apart: at least two runs fit a 16-byte window, both
/// in the source and in the destination (runs that overlap in the source, from overlapping input strides, can lie
/// within 16 source bytes while their destination bytes do not fit 16), and there are enough runs for a block.
/// Checked before the call, which cannot be inlined (its target feature).
#[inline]
pub(crate) fn rows_shuffle_fits(rows: usize, g: usize, s: isize) -> bool {
    g > 0 && s != 0 && s.unsigned_abs() + g <= 16 && 2 * g <= 16 && rows >= 4
}

/// Runs per `width`-byte window of a periodic shuffle of runs of `g` bytes `step` apart: as many as lie within the
/// window in the source and whose `g` bytes each fit the window's store in the destination.
#[inline]
fn runs_per_window(width: usize, g: usize, step: usize) -> usize {
    ((width - g) / step + 1).min(width / g)
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
    let step = s.unsigned_abs();
    // Runs per window: the `p` runs span (p - 1) |s| + g <= 16 source bytes and p g <= 16 destination bytes.
    let p = runs_per_window(16, g, step);
    // The window of the block starting at run i: from run i's first byte forwards (s > 0), or ending with run i's
    // last byte (s < 0, its runs lie below it). `shift` is where run i starts inside the window.
    let shift = if s > 0 { 0 } else { 16 - g };
    // Built per call (per row of pixels), so without a division per byte: 32 divisions by the variable `g` cost
    // more than the shuffles of a 1 KiB row (a flip of 384 RGB pixels ran at a third of the speed of the same loop
    // with the mask built once).
    let mut mask = [0u8; 16];
    let mut j = 0;
    for q in 0..p as isize {
        for b in 0..g as isize {
            mask[j] = (shift as isize + q * s + b) as u8;
            j += 1;
        }
    }
    // SAFETY: `mask` is 16 bytes.
    let mask = unsafe { _mm_loadu_si128(mask.as_ptr().cast()) };
    // The caller's source range, relative to run 0: [lo, hi).
    let span = (rows as isize - 1) * s;
    let (lo, hi) = (span.min(0), span.max(0) + g as isize);
    let one = |r: usize| {
        // SAFETY: run r < rows of the caller's ranges.
        unsafe { std::ptr::copy_nonoverlapping(src.offset(r as isize * s), dst.add(r * g), g) };
    };
    // Block b (runs b p .. b p + p) needs its window inside the source range and its 16-byte store inside the
    // destination. Both tests are monotone in b (the windows move one way, the stores forwards), so the blocks that
    // pass are a prefix: counted once, then a loop without tests (the tests in the loop cost two thirds of its
    // speed: a flip of 384 RGB pixels per row, 7.8 -> 24 GB/s).
    let fits = |b: usize| {
        let i = b * p;
        let window = i as isize * s - shift as isize;
        i + p <= rows && window >= lo && window + 16 <= hi && i * g + 16 <= rows * g
    };
    let mut blocks = rows / p;
    while blocks > 0 && !fits(blocks - 1) {
        blocks -= 1;
    }
    debug_assert!((0..blocks).all(fits));
    let (stride_src, stride_dst) = (p as isize * s, p * g);
    // Block 0's window (run 0's position minus the shift); each later block moves by p runs.
    let mut from = src.wrapping_offset(-(shift as isize));
    let mut to = dst;
    for _ in 0..blocks {
        // SAFETY: `fits` holds for every block below `blocks` (monotone, tested at the last one): the 16-byte
        // window lies in the caller's source range and the 16-byte store in the destination's rows * g bytes; its
        // bytes past the block's runs belong to later runs, written after it in rising order.
        unsafe {
            let v = _mm_loadu_si128(from.cast());
            _mm_storeu_si128(to.cast(), _mm_shuffle_epi8(v, mask));
        }
        from = from.wrapping_offset(stride_src);
        to = to.wrapping_add(stride_dst);
    }
    let i = blocks * p;
    (i..rows).for_each(one);
    true
}

/// Whether [`rows_shuffle64`] takes `rows` runs of `g` bytes `s` apart: at least two runs fit a 64-byte window in the
/// source and in the destination (as for [`rows_shuffle_fits`]), and there are enough runs for a block.
#[inline]
pub(crate) fn rows_shuffle64_fits(rows: usize, g: usize, s: isize) -> bool {
    g > 0 && s != 0 && s.unsigned_abs() + g <= 64 && 2 * g <= 64 && rows >= 8
}

/// [`rows_shuffle`] with 64-byte windows and `vpermb` (AVX-512 VBMI): `p` runs per window, where `(p - 1) |s| + g
/// <= 64` and `p g <= 64`. 6-byte runs 12 bytes apart are five runs (30 bytes) per load, permute and store, where the row loop moves
/// each run with two overlapping 4-byte moves. Returns `false`, having written nothing, when
/// [`rows_shuffle64_fits`] does not hold.
///
/// # Safety
/// AVX-512 F, BW and VBMI are available; every source run is readable and the `rows * g` destination bytes
/// writable; no overlap.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn rows_shuffle64(src: *const u8, dst: *mut u8, rows: usize, g: usize, s: isize) -> bool {
    if !rows_shuffle64_fits(rows, g, s) {
        return false;
    }
    let step = s.unsigned_abs();
    let p = runs_per_window(64, g, step);
    // As in `rows_shuffle`: the window of the block at run i starts at run i (s > 0) or ends with its last byte.
    let shift = if s > 0 { 0 } else { 64 - g };
    let mut index = [0u8; 64];
    let mut j = 0;
    for q in 0..p as isize {
        for b in 0..g as isize {
            index[j] = (shift as isize + q * s + b) as u8;
            j += 1;
        }
    }
    // SAFETY: `index` is 64 bytes.
    let index = unsafe { _mm512_loadu_si512(index.as_ptr().cast()) };
    let span = (rows as isize - 1) * s;
    let (lo, hi) = (span.min(0), span.max(0) + g as isize);
    let fits = |b: usize| {
        let i = b * p;
        let window = i as isize * s - shift as isize;
        i + p <= rows && window >= lo && window + 64 <= hi && i * g + 64 <= rows * g
    };
    let mut blocks = rows / p;
    while blocks > 0 && !fits(blocks - 1) {
        blocks -= 1;
    }
    debug_assert!((0..blocks).all(fits));
    let (stride_src, stride_dst) = (p as isize * s, p * g);
    let mut from = src.wrapping_offset(-(shift as isize));
    let mut to = dst;
    for _ in 0..blocks {
        // SAFETY: `fits` holds for every block below `blocks` (monotone, tested at the last one): the 64-byte
        // window lies in the caller's source range and the 64-byte store in the destination's rows * g bytes; its
        // bytes past the block's runs belong to later runs, written after it in rising order.
        unsafe {
            let v = _mm512_loadu_si512(from.cast());
            _mm512_storeu_si512(to.cast(), _mm512_permutexvar_epi8(index, v));
        }
        from = from.wrapping_offset(stride_src);
        to = to.wrapping_add(stride_dst);
    }
    for r in blocks * p..rows {
        // SAFETY: run r < rows of the caller's ranges.
        unsafe { std::ptr::copy_nonoverlapping(src.offset(r as isize * s), dst.add(r * g), g) };
    }
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
    }
}
