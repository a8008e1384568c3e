//! Short rows: `rows` contiguous runs of `bytes` bytes (at most [`SHORT_ROW_MAX_BYTES`]), `src` and `dst` bytes
//! apart. Pixels of 3-4 channels, boxes and keypoints under strided, reversed or padded outer dimensions make the
//! innermost contiguous run only a few bytes long; one `memcpy` call per run costs more than the bytes. This kernel
//! takes the run and the dimension around it at once and copies each run with two overlapping fixed-size moves.

use crate::kernels::footprint::Footprint;

/// The longest run that takes this kernel (longer runs are bulk copies, where a `memcpy` call is amortised).
pub(crate) const SHORT_ROW_MAX_BYTES: usize = 64;

/// One call reads and writes `rows` runs of `bytes` bytes (whole elements of `esize` bytes), `src` / `dst` apart.
pub(crate) fn footprint(rows: usize, bytes: usize, src: isize, dst: isize, esize: usize) -> Footprint {
    let run = (bytes / esize, esize as isize);
    Footprint { src: [(rows, src), run], dst: [(rows, dst), run] }
}

/// Copies `rows` runs of `bytes` bytes (1 ..= [`SHORT_ROW_MAX_BYTES`]) from `src + r * s` to `dst + r * d`.
///
/// The destination runs may interleave with another thread's bytes (channel-last outputs), so no slice may span
/// them: this is a pointer loop.
///
/// # Safety
/// Every source run is readable and every destination run writable; the sides do not overlap.
pub(crate) unsafe fn rows(src: *const u8, dst: *mut u8, rows: usize, bytes: usize, s: isize, d: isize) {
    assert!((1..=SHORT_ROW_MAX_BYTES).contains(&bytes));
    // SAFETY: for every arm, the caller's contract, and `W <= bytes` (each arm's range).
    unsafe {
        match bytes {
            32.. => rows_with::<32>(src, dst, rows, bytes, s, d),
            16..=31 => rows_with::<16>(src, dst, rows, bytes, s, d),
            8..=15 => rows_with::<8>(src, dst, rows, bytes, s, d),
            4..=7 => rows_with::<4>(src, dst, rows, bytes, s, d),
            2..=3 => rows_with::<2>(src, dst, rows, bytes, s, d),
            _ => rows_with::<1>(src, dst, rows, bytes, s, d),
        }
    }
}

/// [`rows`] with runs of `W ..= 2 W` bytes: each run is the `W` bytes at its start and the `W` bytes at its end
/// (overlapping when the run is shorter than `2 W`), both read before either is written.
///
/// # Safety
/// As for [`rows`], with `W <= bytes <= 2 W`.
#[inline(always)]
unsafe fn rows_with<const W: usize>(src: *const u8, dst: *mut u8, rows: usize, bytes: usize, s: isize, d: isize) {
    debug_assert!(W <= bytes && bytes <= 2 * W);
    let tail = bytes - W;
    for r in 0..rows as isize {
        // SAFETY: run r spans bytes 0 .. bytes from src + r s and dst + r d (the caller's ranges); the moves cover
        // 0 .. W and tail .. tail + W = bytes, both inside the run.
        unsafe {
            let (sp, dp) = (src.offset(r * s), dst.offset(r * d));
            let head = sp.cast::<[u8; W]>().read_unaligned();
            let last = sp.add(tail).cast::<[u8; W]>().read_unaligned();
            dp.cast::<[u8; W]>().write_unaligned(head);
            dp.add(tail).cast::<[u8; W]>().write_unaligned(last);
        }
    }
}
