//! Prefetch hints: requests for lines a kernel or the next call will read (or write) soon. A prefetch never faults
//! and reads nothing the program can observe; `wrapping_offset` keeps the address computation defined for any
//! offset, so callers may name bytes past the end of a loop.

use std::arch::x86_64::*;

/// Prefetches (into L1) the line of each of `lines` bytes from `src`.
#[inline]
pub(crate) fn prefetch_lines(src: *const u8, lines: &[i32]) {
    for &l in lines {
        // SAFETY: SSE (part of x86_64); prefetching is a hint that never faults.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(src.wrapping_offset(l as isize).cast()) };
    }
}

/// Prefetches (into L1) the line `p` lies in.
#[inline]
pub(crate) fn prefetch_line(p: *const u8) {
    // SAFETY: SSE (part of x86_64); prefetching is a hint that never faults.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
}

/// The start of every line the `len` bytes from `at` touch (the first from the line `at` lies in).
#[inline]
fn lines_of(at: *const u8, len: usize) -> impl Iterator<Item = *const u8> {
    let head = at as usize & 63;
    let first = at.wrapping_sub(head);
    (0..head + len).step_by(64).map(move |off| first.wrapping_add(off))
}

/// Prefetches (into L1) every line the `len` bytes from `src` touch.
#[inline]
pub(crate) fn prefetch_bytes(src: *const u8, len: usize) {
    for line in lines_of(src, len) {
        // SAFETY: SSE (part of x86_64); prefetching is a hint that never faults.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(line.cast()) };
    }
}

/// Requests the line `p` lies in into the L2 cache, not L1 (`prefetcht1`): for lines wanted a pass ahead, far
/// apart, whose requests would otherwise hold L1's few miss buffers while the pass's own loads wait.
#[inline]
pub(crate) fn prefetch_line_l2(p: *const u8) {
    // SAFETY: SSE (part of x86_64); prefetching is a hint that never faults.
    unsafe { _mm_prefetch::<_MM_HINT_T1>(p.cast()) };
}

/// Prefetches every line the `len` bytes from `dst` touch with write intent (`prefetchw`: the lines arrive owned,
/// so the ordinary stores that follow do not wait for them).
#[inline]
pub(crate) fn prefetch_bytes_for_write(dst: *mut u8, len: usize) {
    for line in lines_of(dst.cast_const(), len) {
        // SAFETY: SSE (part of x86_64); prefetching is a hint that never faults.
        unsafe { _mm_prefetch::<_MM_HINT_ET0>(line.cast()) };
    }
}

/// Prefetches the line `p` lies in with write intent (`prefetchw`).
#[inline]
pub(crate) fn prefetch_line_for_write(p: *mut u8) {
    // SAFETY: SSE (part of x86_64); prefetching is a hint that never faults.
    unsafe { _mm_prefetch::<_MM_HINT_ET0>(p.cast_const().cast()) };
}

/// With `next`, the tile of `rows` destination rows from row `a`, `bytes` wide from byte `at` of each row, requests
/// with write intent the line `next` bytes on from each row's part, for the rows where the tile is the first to
/// reach that line: one request per line of each row's next piece, spread over the tiles (a row's whole piece
/// requested at its first tile, bursts of 24-128 requests held the fill buffers the tiles' own loads needed, and
/// two of three cases ran 1.15-1.2x slower). The transposes' tiled walks request a call's time before the next call
/// writes there (`portable::transpose::next_rows`), or further on in the same rows (`transpose::rows_ahead`); the
/// partner tiles of the tables a line on (`table::dst_ahead`). A hint: past the last tile it names bytes that may
/// never be written.
#[inline]
pub(crate) fn request_next_piece(
    dst: *mut u8,
    (a, rows): (isize, usize),
    a_dst: isize,
    (at, bytes): (isize, usize),
    next: Option<isize>,
) {
    if let Some(step) = next {
        for r in a..a + rows as isize {
            let p = dst.wrapping_offset(r * a_dst + at + step);
            if (p as usize) % 64 < bytes {
                prefetch_line_for_write(p);
            }
        }
    }
}
