//! Short rows as one periodic byte shuffle: runs of `g` bytes whose sources lie close together (a pixel flip reads
//! the runs backwards `g` bytes apart; every other pixel reads them `2 g` apart) are `p` runs per 16-byte source
//! window. One `pshufb` with a mask built once per call moves all `p` runs of a window into place; the 16-byte
//! store writes the `p g` bytes of those runs and the first bytes of the next runs, which the next store (blocks
//! go forward through the destination) or the scalar tail overwrites.

use std::arch::x86_64::*;

/// Whether [`rows_shuffle`] takes `rows` runs of `g` bytes `s` apart: at least two runs fit a 16-byte window, and
/// there are enough runs for a block. Checked before the call, which cannot be inlined (its target feature).
#[inline]
pub(crate) fn rows_shuffle_fits(rows: usize, g: usize, s: isize) -> bool {
    g > 0 && s != 0 && s.unsigned_abs() + g <= 16 && rows >= 4
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
    // Runs per window: the `p` runs span (p - 1) |s| + g <= 16 bytes.
    let p = (16 - g) / step + 1;
    // The window of the block starting at run i: from run i's first byte forwards (s > 0), or ending with run i's
    // last byte (s < 0, its runs lie below it). `shift` is where run i starts inside the window.
    let shift = if s > 0 { 0 } else { 16 - g };
    let mut mask = [0u8; 16];
    for (j, m) in mask.iter_mut().enumerate().take(p * g) {
        let (q, b) = ((j / g) as isize, (j % g) as isize);
        *m = (shift as isize + q * s + b) as u8;
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
    let mut i = 0;
    while i + p <= rows {
        let window = i as isize * s - shift as isize;
        if window >= lo && window + 16 <= hi && i * g + 16 <= rows * g {
            // SAFETY: the 16-byte window lies in the caller's source range (tested), and the 16-byte store in the
            // destination's rows * g bytes (tested); its bytes past run i + p - 1 belong to later runs, written
            // after this block in rising order.
            unsafe {
                let v = _mm_loadu_si128(src.offset(window).cast());
                _mm_storeu_si128(dst.add(i * g).cast(), _mm_shuffle_epi8(v, mask));
            }
            i += p;
        } else {
            one(i);
            i += 1;
        }
    }
    (i..rows).for_each(one);
    true
}
