//! Prefetch hints: requests for lines a kernel or the next call will read (or write) soon. A prefetch never faults
//! and reads nothing the program can observe; `wrapping_offset` keeps the address computation defined for any
//! offset, so callers may name bytes past the end of a loop.

use std::arch::x86_64::*;

/// The cache level a read request brings its line to: L1 (`prefetcht0`) in a copy whose lines the caches hold, L2
/// (`prefetcht1`) in one that streams ([`Level::of`]), whose lines come from memory. A request waits for its line in
/// one of L1's few miss buffers (on Zen, two dozen) when it goes to L1, and the kernel's own loads wait behind it;
/// one that goes to L2 is tracked there. Measured on the Zen 4 of `docs/PERFORMANCE.md`'s fifty-ninth round, every
/// request of the transposes, short rows, gathers, the dispatch and the bulk copy into L2, over L1, each case in its
/// own process, three ABBA rounds: the 125 streaming cases of `--sweep 200 --sweep-max-bytes 64M` seeds 1-2, time
/// ratio 0.92 (transposes 0.88 over 31, short rows 0.91 over 15, gathers 0.92 over 19), the 275 others 1.01
/// (transposes 1.03, short rows 1.02); with the rule as written (L2 only where the copy streams), held out, the 171
/// streaming cases of seeds 3-4, 0.96 (transposes 0.89 over 40, short rows 0.95 over 21, copies 0.97 over 25).
/// A C model of a table's rows (four lines each, 5491 bytes apart, from memory) read them in 20 ns a row with the
/// requests of the next rows into L2, 34 with the same requests into L1, 33 with none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    L1,
    L2,
}

impl Level {
    /// The level of a copy's read requests: L2 when it streams (`nt`), L1 otherwise.
    #[inline]
    pub(crate) fn of(nt: bool) -> Level {
        if nt { Level::L2 } else { Level::L1 }
    }
}

/// Requests the line `p` lies in into `level`.
#[inline]
fn request(p: *const u8, level: Level) {
    // SAFETY: SSE (part of x86_64); prefetching is a hint that never faults.
    unsafe {
        match level {
            Level::L1 => _mm_prefetch::<_MM_HINT_T0>(p.cast()),
            Level::L2 => _mm_prefetch::<_MM_HINT_T1>(p.cast()),
        }
    }
}

/// Prefetches (into `level`) the line of each of `lines` bytes from `src`.
#[inline]
pub(crate) fn prefetch_lines(src: *const u8, lines: &[i32], level: Level) {
    for &l in lines {
        request(src.wrapping_offset(l as isize), level);
    }
}

/// Prefetches (into `level`) the line `p` lies in.
#[inline]
pub(crate) fn prefetch_line(p: *const u8, level: Level) {
    request(p, level);
}

/// The start of every line the `len` bytes from `at` touch (the first from the line `at` lies in).
#[inline]
fn lines_of(at: *const u8, len: usize) -> impl Iterator<Item = *const u8> {
    let head = at as usize & 63;
    let first = at.wrapping_sub(head);
    (0..head + len).step_by(64).map(move |off| first.wrapping_add(off))
}

/// Prefetches (into `level`) every line the `len` bytes from `src` touch.
#[inline]
pub(crate) fn prefetch_bytes(src: *const u8, len: usize, level: Level) {
    for line in lines_of(src, len) {
        request(line, level);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_copies_request_into_l2_and_the_others_into_l1() {
        assert_eq!(Level::of(true), Level::L2);
        assert_eq!(Level::of(false), Level::L1);
    }
}
