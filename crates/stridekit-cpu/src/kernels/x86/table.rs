//! The x86 forms of a table pass: the shuffle form (per 16 destination bytes, one unaligned 16-byte load and one
//! `pshufb` per source window, OR-ed, and one unaligned store; from 32-byte passes on, two such halves in one 256-bit
//! register per window, [`pair`]; see [`Chunks`]), its 64-byte twin on AVX-512 VBMI
//! (per 64 destination bytes, one 64-byte load and one `vpermb` merged under a byte mask per window; [`Chunks64`],
//! [`table_chunks64`]; AVX-512 code, like `rows.rs`' `rows_shuffle64`, behind its own run-time detection), the row
//! shuffle (one row of at most 32 bytes per pass; [`table_rows`]), the partner tiles (16 bytes of partner steps per
//! offset, transposed in registers; [`table_tiles`]), and the prefetch of a pass's lines.

use super::prefetch::{Level, prefetch_bytes, request_next_piece};
use super::tiles::network16;
use crate::kernels::Elem;
use crate::kernels::portable::table::{narrow_partner, partner_step, short_partner};
use crate::table::{Chunks, Chunks64, RowShuffle};
use std::arch::x86_64::*;

/// Writes the `pass_bytes` (>= 16) destination bytes of one full pass at `dst` from the windows of `c` at `src`.
///
/// # Safety
/// AVX2 is available; every window `[src + start, src + start + 16)` of `c` is readable (they lie in the pass
/// interval, inside the caller's checked source range) and the `pass_bytes` bytes at `dst` are writable; no overlap.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn table_chunks(src: *const u8, dst: *mut u8, c: &Chunks, pass_bytes: usize) {
    // SAFETY: forwarded; each arm's `W` is `c.windows`.
    unsafe {
        match c.windows {
            1 => chunks_with::<1>(src, dst, c, pass_bytes),
            2 => chunks_with::<2>(src, dst, c, pass_bytes),
            3 => chunks_with::<3>(src, dst, c, pass_bytes),
            4 => chunks_with::<4>(src, dst, c, pass_bytes),
            6 => chunks_with::<6>(src, dst, c, pass_bytes),
            _ => chunks_with::<8>(src, dst, c, pass_bytes),
        }
    }
}

/// [`table_chunks`] with `W` windows per chunk.
///
/// # Safety
/// As for [`table_chunks`], with `c.windows == W`.
#[target_feature(enable = "avx2")]
unsafe fn chunks_with<const W: usize>(src: *const u8, dst: *mut u8, c: &Chunks, pass_bytes: usize) {
    debug_assert_eq!(c.windows, W);
    debug_assert!(pass_bytes >= 16 * c.halves);
    debug_assert_eq!(c.starts.len() / (W * c.halves), pass_bytes.div_ceil(16 * c.halves));
    // SAFETY: forwarded; `H` is `c.halves` (1 or 2, `consistent`).
    unsafe {
        match c.halves {
            2 => chunks_plain::<W, 2>(src, dst, c, pass_bytes),
            _ => chunks_plain::<W, 1>(src, dst, c, pass_bytes),
        }
    }
}

/// [`chunks_with`] for chunks of `H` halves (`16 H` bytes).
///
/// # Safety
/// As for [`chunks_with`], with `c.halves == H`.
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn chunks_plain<const W: usize, const H: usize>(src: *const u8, dst: *mut u8, c: &Chunks, pass_bytes: usize) {
    let (entries, width) = (W * H, 16 * H);
    let count = c.starts.len() / entries;
    for (i, (starts, masks)) in c.starts.chunks_exact(entries).zip(c.masks.chunks_exact(entries)).enumerate() {
        let at = if i + 1 == count { pass_bytes - width } else { i * width };
        // SAFETY: every window of chunk i is readable and at + width <= pass_bytes (the caller's contract).
        unsafe { chunk::<W, H>(src, dst.add(at), starts, masks) };
    }
}

/// One chunk of `H` halves: [`single`] or [`pair`].
///
/// # Safety
/// As for [`single`] (`H == 1`) or [`pair`] (`H == 2`).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn chunk<const W: usize, const H: usize>(src: *const u8, dst: *mut u8, starts: &[i32], masks: &[[u8; 16]]) {
    // SAFETY: forwarded.
    unsafe {
        match H {
            2 => pair::<W>(src, dst, starts, masks),
            _ => single::<W>(src, dst, starts, masks),
        }
    }
}

/// One chunk of two halves: per window, the half windows in the low and high lanes of one register, shuffled
/// together by the 32 mask bytes of the window (`masks[2w]` and `masks[2w + 1]`, adjacent), ORed, stored at `dst`.
///
/// # Safety
/// AVX2 is available; `starts` and `masks` hold `2 W` entries; the 16 bytes at `src + starts[i]` are readable for
/// every `i`, and the 32 bytes at `dst` writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn pair<const W: usize>(src: *const u8, dst: *mut u8, starts: &[i32], masks: &[[u8; 16]]) {
    debug_assert!(starts.len() == 2 * W && masks.len() == 2 * W);
    let mut acc = _mm256_setzero_si256();
    for w in 0..W {
        // SAFETY: both windows are readable (the caller's contract); masks 2w and 2w + 1 are 32 contiguous bytes of
        // the slice (arrays of 16 bytes, no padding).
        unsafe {
            let low = src.offset(starts[2 * w] as isize).cast::<__m128i>();
            let high = src.offset(starts[2 * w + 1] as isize).cast::<__m128i>();
            let v = _mm256_loadu2_m128i(high, low);
            let m = _mm256_loadu_si256(masks.as_ptr().add(2 * w).cast());
            acc = _mm256_or_si256(acc, _mm256_shuffle_epi8(v, m));
        }
    }
    // SAFETY: 32 writable bytes at dst (the caller's contract).
    unsafe { _mm256_storeu_si256(dst.cast(), acc) };
}

/// One chunk of one half: the OR of `W` shuffled windows, stored at `dst`.
///
/// # Safety
/// AVX2 is available; the 16 bytes at `src + starts[w]` are readable for every `w`, and the 16 bytes at `dst`
/// writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn single<const W: usize>(src: *const u8, dst: *mut u8, starts: &[i32], masks: &[[u8; 16]]) {
    let mut acc = _mm_setzero_si128();
    for w in 0..W {
        // SAFETY: window w is readable (the caller's contract); the mask is 16 bytes.
        unsafe {
            let v = _mm_loadu_si128(src.offset(starts[w] as isize).cast());
            let m = _mm_loadu_si128(masks[w].as_ptr().cast());
            acc = _mm_or_si128(acc, _mm_shuffle_epi8(v, m));
        }
    }
    // SAFETY: 16 writable bytes at dst (the caller's contract).
    unsafe { _mm_storeu_si128(dst.cast(), acc) };
}

/// Writes the `pass_bytes` (>= 64) destination bytes of one full pass at `dst` from the 64-byte windows of `c` at
/// `src`: per 64 destination bytes, one unaligned 64-byte load and one `vpermb` merged under its byte mask per
/// window, and one unaligned 64-byte store.
///
/// # Safety
/// AVX-512 F, BW and VBMI are available; every window `[src + start, src + start + 64)` of `c` is readable (they
/// lie in the pass interval, inside the caller's checked source range) and the `pass_bytes` bytes at `dst` are
/// writable; no overlap.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn table_chunks64(src: *const u8, dst: *mut u8, c: &Chunks64, pass_bytes: usize) {
    // SAFETY: forwarded; each arm's `W` is `c.windows`.
    unsafe {
        match c.windows {
            1 => chunks64_with::<1>(src, dst, c, pass_bytes),
            2 => chunks64_with::<2>(src, dst, c, pass_bytes),
            4 => chunks64_with::<4>(src, dst, c, pass_bytes),
            8 => chunks64_with::<8>(src, dst, c, pass_bytes),
            _ => chunks64_with::<16>(src, dst, c, pass_bytes),
        }
    }
}

/// [`table_chunks64`] with `W` windows per chunk.
///
/// # Safety
/// As for [`table_chunks64`], with `c.windows == W`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn chunks64_with<const W: usize>(src: *const u8, dst: *mut u8, c: &Chunks64, pass_bytes: usize) {
    debug_assert_eq!(c.windows, W);
    debug_assert!(pass_bytes >= 64);
    let count = c.starts.len() / W;
    debug_assert_eq!(count, pass_bytes.div_ceil(64));
    let at = |i: usize| if i + 1 == count { pass_bytes - 64 } else { i * 64 };
    let pairs = c.pairs();
    let chunks = c.starts.chunks_exact(W).zip(&c.index).zip(c.keep.chunks_exact(pairs));
    for (i, ((starts, index), keep)) in chunks.enumerate() {
        // SAFETY: the windows of chunk i are readable (the caller's contract); the index is 64 bytes.
        let (v, index): ([__m512i; W], __m512i) = unsafe {
            (
                std::array::from_fn(|w| _mm512_loadu_si512(src.offset(starts[w] as isize).cast())),
                _mm512_loadu_si512(index.as_ptr().cast()),
            )
        };
        let acc = match W {
            1 => _mm512_permutexvar_epi8(index, v[0]),
            _ => (0..W / 2).fold(_mm512_setzero_si512(), |acc, p| {
                _mm512_or_si512(acc, _mm512_maskz_permutex2var_epi8(keep[p], v[2 * p], index, v[2 * p + 1]))
            }),
        };
        // SAFETY: at(i) + 64 <= pass_bytes, inside the caller's destination.
        unsafe { _mm512_storeu_si512(dst.add(at(i)).cast(), acc) };
    }
}

/// Rows `0 .. rows` of a call of one row per pass through the row shuffle `r`: row `i` reads the 16 bytes at
/// `src + i * row_src + shift_i` and writes `r.bytes` bytes at `dst + i * row_dst`, where `shift_i <= 0` moves the
/// window down just enough to end at `high` (the call's highest source byte + 1, relative to `src`); the masks move
/// up by as much.
///
/// # Safety
/// AVX2 is available; `r` is a row shuffle of a hull of `hull <= 16` bytes; for every row the hull at
/// `src + i * row_src` is inside the call's source bytes `[low, high)` (relative to `src`), with `high - low >= 16`,
/// all readable; the `r.bytes` bytes at each `dst + i * row_dst` are writable and do not overlap the source.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn table_rows(
    src: *const u8,
    dst: *mut u8,
    rows: usize,
    row_src: isize,
    row_dst: isize,
    r: &RowShuffle,
    high: isize,
) {
    // SAFETY: forwarded; each arm's `W` is `r.width`.
    unsafe {
        match r.width {
            1 => rows_with::<1>(src, dst, rows, row_src, row_dst, r, high),
            2 => rows_with::<2>(src, dst, rows, row_src, row_dst, r, high),
            4 => rows_with::<4>(src, dst, rows, row_src, row_dst, r, high),
            8 => rows_with::<8>(src, dst, rows, row_src, row_dst, r, high),
            _ => rows_with::<16>(src, dst, rows, row_src, row_dst, r, high),
        }
    }
}

/// [`table_rows`] with stores of `W` bytes.
///
/// # Safety
/// As for [`table_rows`], with `r.width == W`.
#[target_feature(enable = "avx2")]
unsafe fn rows_with<const W: usize>(
    src: *const u8,
    dst: *mut u8,
    rows: usize,
    row_src: isize,
    row_dst: isize,
    r: &RowShuffle,
    high: isize,
) {
    debug_assert_eq!(r.width, W);
    // SAFETY: the masks are 16 bytes each.
    let (first, last) = unsafe { (_mm_loadu_si128(r.first.as_ptr().cast()), _mm_loadu_si128(r.last.as_ptr().cast())) };
    let tail = (r.bytes - W) as isize;
    for i in 0..rows as isize {
        let at = i * row_src;
        // The window starts at the row, or lower where 16 bytes from the row would pass the call's last byte.
        let shift = (high - 16 - at).min(0);
        // SAFETY: the window [at + shift, at + shift + 16) lies in [low, high): its end is at most `high`, and its
        // start is at least the row's hull end minus 16 >= low (hull <= 16), or the row itself (shift 0).
        let v = unsafe { _mm_loadu_si128(src.offset(at + shift).cast()) };
        let (a, b) = if shift == 0 {
            (_mm_shuffle_epi8(v, first), _mm_shuffle_epi8(v, last))
        } else {
            // Mask bytes with the top bit set stay set after adding at most 15.
            let up = _mm_set1_epi8((-shift) as i8);
            (_mm_shuffle_epi8(v, _mm_add_epi8(first, up)), _mm_shuffle_epi8(v, _mm_add_epi8(last, up)))
        };
        // SAFETY: the row's r.bytes destination bytes at i * row_dst: [0, W) and [tail, tail + W) with
        // tail + W = r.bytes.
        unsafe {
            let d = dst.offset(i * row_dst);
            store::<W>(d, a);
            if tail > 0 {
                store::<W>(d.offset(tail), b);
            }
        }
    }
}

/// Stores the low `W` bytes of `v` at `p`.
///
/// # Safety
/// The `W` bytes at `p` are writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store<const W: usize>(p: *mut u8, v: __m128i) {
    // SAFETY: W bytes at p (the caller), unaligned writes.
    unsafe {
        match W {
            1 => p.write(_mm_cvtsi128_si32(v) as u8),
            2 => p.cast::<u16>().write_unaligned(_mm_cvtsi128_si32(v) as u16),
            4 => p.cast::<u32>().write_unaligned(_mm_cvtsi128_si32(v) as u32),
            8 => _mm_storel_epi64(p.cast(), v),
            _ => _mm_storeu_si128(p.cast(), v),
        }
    }
}

/// Whether [`table_tiles`] takes a pass of `n` elements of `e` bytes under a partner of `na` steps `a_src` bytes
/// apart in the source and `a_dst` apart in the destination: 1-, 2- or 4-byte elements, a step of 1-4 elements
/// ([`partner_step`]), at least a tile (16 bytes of elements) of partner steps, and at least a tile of elements,
/// or fewer over contiguous partner rows ([`narrow_partner`]); or a shorter partner ([`short_partner`]) of
/// adjacent elements over at least a tile of elements. A partner of spaced steps (2-4 elements apart) needs more
/// than a tile of steps: its tiles' windows reach past their last step (see [`Steps`]).
#[inline]
pub(crate) fn table_tiles_fit(n: usize, na: usize, a_src: isize, a_dst: isize, e: usize) -> bool {
    let tile = 16 / e;
    let adjacent = a_src == e as isize;
    matches!(e, 1 | 2 | 4)
        && partner_step(a_src, e)
        && ((na >= tile && (adjacent || na > tile) && (n >= tile || narrow_partner(n, a_dst, e)))
            || (adjacent && short_partner(na, e) && n >= tile))
}

/// The partner form of a table pass: `dst[a * a_dst + j] = src[offsets[j] + a * a_src]` (element units for `j`,
/// bytes for the offsets, `a_src` and `a_dst`) for `j < offsets.len()`, `a < na`. Square tiles of
/// `N = 16 / size_of T` offsets by `N` partner steps: per offset, one 16-byte load of its `N` steps (adjacent
/// elements) or the `K` loads and byte shuffles that gather them from the `16 K` bytes they span (steps `K`
/// elements apart, [`Steps`]), an in-register transpose, one 16-byte store per partner step (its `N` contiguous
/// destination elements). The last tile of each side overlaps its predecessor when the count is not a multiple of
/// `N` (those elements are written twice, with the same values). Fewer than `N` offsets over contiguous partner
/// rows take the narrow tiles ([`tiles_narrow`]), fewer than `N` adjacent partner steps the short tiles
/// ([`tiles_short`]), which load 16 bytes from an offset only when they end at or below `end`.
///
/// # Safety
/// AVX2 is available; [`table_tiles_fit`] holds; for every `j` and `a < na` the element at
/// `src + offsets[j] + a * a_src` is readable and the one at `dst + a * a_dst + j * size_of T` writable; every
/// byte from the lowest `src + offsets[j]` up to `src + end` is readable; the destination rows of distinct `a` do
/// not overlap each other or the source.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn table_tiles<T: Elem>(src: *const u8, dst: *mut u8, offsets: &[i32], p: Partner) {
    let k = p.a_src / T::SIZE as isize;
    // SAFETY: forwarded; each arm's `N` is 16 / size_of T and its `K` the partner's step in elements.
    unsafe {
        match (T::SIZE, k) {
            (1, 1) if p.na < 16 => short_bytes(src, dst, offsets, p),
            (1, 1) => tiles_n::<16, 1, 1>(src, dst, offsets, p),
            (1, 2) => tiles_n::<16, 1, 2>(src, dst, offsets, p),
            (1, 3) => tiles_n::<16, 1, 3>(src, dst, offsets, p),
            (1, _) => tiles_n::<16, 1, 4>(src, dst, offsets, p),
            (2, 1) if p.na < 8 => tiles_short::<8, 2, 0>(src, dst, offsets, p),
            (2, 1) => tiles_n::<8, 2, 1>(src, dst, offsets, p),
            (2, 2) => tiles_n::<8, 2, 2>(src, dst, offsets, p),
            (2, 3) => tiles_n::<8, 2, 3>(src, dst, offsets, p),
            (2, _) => tiles_n::<8, 2, 4>(src, dst, offsets, p),
            (_, 1) if p.na < 4 => tiles_short::<4, 4, 0>(src, dst, offsets, p),
            (_, 1) => tiles_n::<4, 4, 1>(src, dst, offsets, p),
            (_, 2) => tiles_n::<4, 4, 2>(src, dst, offsets, p),
            (_, 3) => tiles_n::<4, 4, 3>(src, dst, offsets, p),
            (_, _) => tiles_n::<4, 4, 4>(src, dst, offsets, p),
        }
    }
}

/// How far on in each destination row the partner tiles request the row's lines with write intent
/// ([`request_next_piece`]), for a pass of `na` partner steps whose rows are `a_dst` bytes apart and `row_bytes`
/// long: one line, when the rows are at least [`DST_AHEAD_MIN_APART`] apart and longer than a line and there are at
/// least [`DST_AHEAD_MIN_ROWS`] of them. A group of partner steps writes 16 bytes into each of its rows (up to 256
/// of them) per tile of offsets, each row a stream of ordinary stores the hardware prefetcher does not request
/// ahead, so each store that reached a new line waited for it to be read for ownership. With each row's next line
/// requested once, spread over the tiles (`docs/PERFORMANCE.md`, thirty-fourth round), the 22 sweep cases of seeds
/// 1-4 it reaches ran 0.81 of the time where the other 778 ran 0.95 (two alternating rounds; 0.87 against 1.00 over
/// six rounds of the partner cases): f16 planes of 43148 elements into 1280-byte pixels (sweep3_119) 0.16 -> 0.25 of
/// the roofline, sweep4_107 0.24-0.29 -> 0.47-0.50. Two or four lines on were no better. Few rows are few streams:
/// the 5-7 rows of the f32 transposes through the partner tiles (`transpose_partner`) ran up to 1.3x slower with
/// the requests, which they do not take; the short tiles (fewer steps than a tile) gained nothing and do not take
/// them either.
pub(crate) fn dst_ahead(na: usize, a_dst: isize, row_bytes: usize) -> Option<isize> {
    let far = a_dst.unsigned_abs() >= DST_AHEAD_MIN_APART;
    (na >= DST_AHEAD_MIN_ROWS && far && row_bytes > DST_AHEAD_BYTES).then_some(DST_AHEAD_BYTES as isize)
}

/// How far on the partner tiles request their destination rows' lines ([`dst_ahead`]): the next line.
const DST_AHEAD_BYTES: usize = 64;

/// The least distance between destination rows for which the partner tiles request the rows' lines ahead: rows
/// within two lines of each other are one stream.
const DST_AHEAD_MIN_APART: usize = 128;

/// The fewest partner steps (destination rows) for which the partner tiles request the rows' lines ahead.
const DST_AHEAD_MIN_ROWS: usize = 8;

/// The partner of a table pass as [`table_tiles`] takes it: `na` steps, `a_src` bytes apart in the source (1-4
/// elements forwards) and `a_dst` bytes apart in the destination; `end`, the end of the readable source from the
/// pass's pointer (a short partner's tiles load 16 bytes from an offset only when they end at or below it);
/// `ahead`, whether the tiles request the offsets of the tiles ahead (a pass spread wider than L1), and into which
/// cache ([`Level::of`] the copy's streaming); `dst_ahead`, how
/// far on in each destination row the tiles request the row's lines with write intent ([`dst_ahead`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Partner {
    pub na: usize,
    pub a_src: isize,
    pub a_dst: isize,
    pub end: isize,
    pub ahead: Option<Level>,
    pub dst_ahead: Option<isize>,
}

/// How a tile of `N = 16 / E` partner steps `K` elements apart is read from one offset: the `16 K` bytes of a
/// window, `K` 16-byte loads, each shuffled (`pshufb`) so that the steps it holds land in place and the rest is
/// zero, OR-ed. A window starting at the tile's first step ends where the step after its last one starts, which
/// only a tile followed by another step may read; the last tile's window ends with its last step instead (it
/// starts `K - 1` elements before its first, after the step before it: such a tile is never the first), and takes
/// masks of its own. `K == 1` is a plain load.
struct Steps<const E: usize, const K: usize> {
    /// Masks of a window starting at the tile's first step.
    first: [__m128i; K],
    /// Masks of a window ending with the tile's last step.
    last: [__m128i; K],
}

impl<const E: usize, const K: usize> Steps<E, K> {
    /// The masks of a window starting at the tile's first step, computed at compile time (a call of the tiles may
    /// move only a few hundred bytes).
    const FIRST: [[u8; 16]; K] = window_masks::<K>(E, 0);
    /// The masks of a window ending with the tile's last step.
    const LAST: [[u8; 16]; K] = window_masks::<K>(E, (K - 1) * E);

    /// The masks, loaded.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn new() -> Self {
        let load = |m: [[u8; 16]; K]| {
            m.map(|m| {
                // SAFETY: `m` is 16 bytes.
                unsafe { _mm_loadu_si128(m.as_ptr().cast()) }
            })
        };
        Steps { first: load(Self::FIRST), last: load(Self::LAST) }
    }

    /// Where the window of the tile of steps `a .. a + N` of `na` starts, relative to an offset, and its masks.
    #[inline]
    fn window(&self, a: usize, na: usize) -> (isize, &[__m128i; K]) {
        let at = (a * K * E) as isize;
        match K == 1 || a + 16 / E < na {
            true => (at, &self.first),
            false => (at - ((K - 1) * E) as isize, &self.last),
        }
    }

    /// The `N` steps of the window at `p` (16 bytes of them).
    ///
    /// # Safety
    /// AVX2 is available; the `16 K` bytes from `p` are readable.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load(p: *const u8, masks: &[__m128i; K]) -> __m128i {
        // SAFETY: the loads cover p .. p + 16 K, the caller's range.
        unsafe {
            if K == 1 {
                return _mm_loadu_si128(p.cast());
            }
            let mut v = _mm_shuffle_epi8(_mm_loadu_si128(p.cast()), masks[0]);
            for (c, m) in masks.iter().enumerate().skip(1) {
                v = _mm_or_si128(v, _mm_shuffle_epi8(_mm_loadu_si128(p.add(16 * c).cast()), *m));
            }
            v
        }
    }
}

/// The `pshufb` masks of a `16 K`-byte window holding `16 / e` elements of `e` bytes `K` elements apart, the first
/// `lead` bytes in: mask `c` moves the bytes of the window's 16-byte chunk `c` to their place in the tile and
/// zeroes the others (bit 7 set), so that the `K` shuffled chunks OR together.
const fn window_masks<const K: usize>(e: usize, lead: usize) -> [[u8; 16]; K] {
    let mut masks = [[0x80u8; 16]; K];
    let mut j = 0;
    while j < 16 {
        let from = lead + (j / e) * K * e + j % e;
        masks[from / 16][j] = (from % 16) as u8;
        j += 1;
    }
    masks
}

/// [`table_tiles`] with `N` elements of `E` bytes per 16-byte row, partner steps `K` elements apart.
///
/// # Safety
/// As for [`table_tiles`], with `N * E == 16`, `E == size_of T` and `K * E == a_src`.
#[target_feature(enable = "avx2")]
unsafe fn tiles_n<const N: usize, const E: usize, const K: usize>(
    src: *const u8,
    dst: *mut u8,
    offsets: &[i32],
    p: Partner,
) {
    let Partner { na, a_dst, dst_ahead, .. } = p;
    let n = offsets.len();
    let steps = Steps::<E, K>::new();
    if n < N {
        // SAFETY: the caller's contract; `table_tiles_fit` with n < N is `narrow_partner`.
        unsafe { tiles_narrow::<N, E, K>(src, dst, offsets, na, a_dst, &steps) };
        return;
    }
    // SAFETY: the caller's contract, n >= N.
    unsafe {
        match dst_ahead {
            Some(on) => groups::<N, E, K, true>(src, dst, offsets, p, &steps, on),
            None => groups::<N, E, K, false>(src, dst, offsets, p, &steps, 0),
        }
    }
}

/// The groups of partner steps of [`tiles_n`] over at least a tile of offsets; with `REQUEST`, each tile requests
/// its rows' lines `on` bytes on ([`dst_ahead`]). Two instances, so that the loop without the requests is the loop
/// it was: the requests' code in the one loop slowed calls without them by 8-15% (sweep1_122, sweep2_064).
///
/// # Safety
/// As for [`tiles_n`], with `offsets.len() >= N`.
#[target_feature(enable = "avx2")]
unsafe fn groups<const N: usize, const E: usize, const K: usize, const REQUEST: bool>(
    src: *const u8,
    dst: *mut u8,
    offsets: &[i32],
    p: Partner,
    steps: &Steps<E, K>,
    on: isize,
) {
    let Partner { na, a_dst, ahead, .. } = p;
    let n = offsets.len();
    debug_assert!(N * E == 16 && n >= N && na >= N && (K == 1 || na > N));
    // Groups of partner steps outermost, then offsets: each offset's run of a group's steps is a few whole lines
    // that its tile reads at once, and the group's destination rows are complete before the next group starts.
    // Offsets outermost over every step would write a column of 16 bytes into every partner row per tile, the
    // rows megabytes apart for a long partner (45 u32 rows read bottom-up, 31193 of them: 0.09 of the roofline).
    let group = (GROUP_RUN_BYTES / (K * E)).max(N);
    let mut g0 = 0;
    while g0 < na {
        let g_end = (g0 + group).min(na);
        let mut j0 = 0;
        while j0 < n {
            let j = j0.min(n - N);
            if let Some(level) = ahead {
                request_ahead::<N>(src, offsets, j0, (g0, g_end, group.min(na - g_end)), K * E, level);
            }
            let mut a0 = g0;
            while a0 < g_end {
                let a = a0.min(na - N);
                // SAFETY: offsets j .. j + N and partner steps a .. a + N are inside the caller's ranges
                // (j + N <= n, a + N <= na): each offset's window lies between its steps 0 and na - 1 (`Steps`),
                // each store writes N contiguous destination elements j .. j + N of one partner step.
                unsafe {
                    let cols = load_tile::<N, E, K>(src, &offsets[j..j + N], steps.window(a, na));
                    for (q, col) in cols.iter().enumerate() {
                        _mm_storeu_si128(dst.offset((a + q) as isize * a_dst + (j * E) as isize).cast(), *col);
                    }
                }
                if REQUEST {
                    // The lines of the tile's rows that a later tile of offsets reaches, each once, spread over
                    // the tiles (`dst_ahead`).
                    request_next_piece(dst, (a as isize, N), a_dst, ((j * E) as isize, 16), Some(on));
                }
                a0 += N;
            }
            j0 += N;
        }
        g0 = g_end;
    }
}

/// The source bytes of each offset's run of partner steps that one group of [`tiles_n`] reads (four lines).
const GROUP_RUN_BYTES: usize = 256;

/// The short tiles of byte channels ([`tiles_short`]) with the channel count a constant of each instance, so that
/// the transpose computes only the rows the tiles store: 3-15 of 16, where the whole 16 x 16 network was 64 unpacks
/// (5 rows took 27 of them; the lane-paired network of `tiles::network16` that replaced it is 24 unpacks and 16 lane
/// moves in all, and the short partners ran as fast on it, 1.00 over 14 cases). The bytes of 5 channels of 6-byte pixels into 5 planes (sweep1_001 of `--sweep 40
/// --seed 1 --sweep-max-bytes 64M`) spent half its time in those tiles (`docs/PERFORMANCE.md`, forty-second round).
///
/// # Safety
/// As for [`tiles_short`] with `N == 16`, `E == 1`.
#[target_feature(enable = "avx2")]
unsafe fn short_bytes(src: *const u8, dst: *mut u8, offsets: &[i32], p: Partner) {
    // SAFETY: forwarded; each arm's constant is `p.na`.
    unsafe {
        match p.na {
            4 => tiles_short::<16, 1, 4>(src, dst, offsets, p),
            5 => tiles_short::<16, 1, 5>(src, dst, offsets, p),
            6 => tiles_short::<16, 1, 6>(src, dst, offsets, p),
            7 => tiles_short::<16, 1, 7>(src, dst, offsets, p),
            8 => tiles_short::<16, 1, 8>(src, dst, offsets, p),
            9 => tiles_short::<16, 1, 9>(src, dst, offsets, p),
            10 => tiles_short::<16, 1, 10>(src, dst, offsets, p),
            11 => tiles_short::<16, 1, 11>(src, dst, offsets, p),
            12 => tiles_short::<16, 1, 12>(src, dst, offsets, p),
            13 => tiles_short::<16, 1, 13>(src, dst, offsets, p),
            14 => tiles_short::<16, 1, 14>(src, dst, offsets, p),
            15 => tiles_short::<16, 1, 15>(src, dst, offsets, p),
            _ => tiles_short::<16, 1, 0>(src, dst, offsets, p),
        }
    }
}

/// [`tiles_n`] with fewer partner steps than a tile (`na < N`, [`short_partner`]: adjacent elements) over at least
/// a tile of offsets: each offset's 16-byte load holds its `na` partner steps and the bytes after them, and only
/// the first `na` rows of the transpose are stored. A tile any of whose loads would end past `end` walks its
/// offsets instead (the highest offsets of a pass: 16 bytes from them may leave the caller's range). `NA`, when
/// not 0, is `na` as a constant ([`short_bytes`]).
///
/// # Safety
/// As for [`table_tiles`], with `na < N <= offsets.len()`, `a_src == E`, and `NA` 0 or `na`.
#[target_feature(enable = "avx2")]
unsafe fn tiles_short<const N: usize, const E: usize, const NA: usize>(
    src: *const u8,
    dst: *mut u8,
    offsets: &[i32],
    p: Partner,
) {
    let Partner { a_dst, end, ahead, .. } = p;
    let na = if NA == 0 { p.na } else { NA };
    let n = offsets.len();
    debug_assert!(N * E == 16 && n >= N && na < N && p.a_src == E as isize && (NA == 0 || NA == p.na));
    let steps = Steps::<E, 1>::new();
    let mut j0 = 0;
    while j0 < n {
        let j = j0.min(n - N);
        let tile = &offsets[j..j + N];
        if let Some(level) = ahead {
            request_ahead::<N>(src, offsets, j0, (0, na, 0), E, level);
        }
        if tile.iter().all(|&o| o as isize + 16 <= end) {
            // SAFETY: each load reads [o, o + 16) of an offset o of the tile, which ends at or below `end` (readable
            // from the lowest offset up); each store writes the N contiguous destination elements j .. j + N
            // (j + N <= n) of a partner step a < na.
            unsafe {
                let cols = load_tile::<N, E, 1>(src, tile, (0, &steps.first));
                for (a, col) in cols.iter().enumerate().take(na) {
                    _mm_storeu_si128(dst.offset(a as isize * a_dst + (j * E) as isize).cast(), *col);
                }
            }
        } else {
            for (q, &o) in tile.iter().enumerate() {
                for a in 0..na {
                    // SAFETY: element a < na of offset o (readable) to destination element j + q < n of step a.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            src.offset(o as isize + (a * E) as isize),
                            dst.offset(a as isize * a_dst + ((j + q) * E) as isize),
                            E,
                        )
                    };
                }
            }
        }
        j0 += N;
    }
}

/// The tile of the `N` offsets `tile` at the partner steps of `window` (its start relative to each offset and its
/// masks, [`Steps::window`]): one window per offset, transposed, so that column `q` holds the tile's step `q` of
/// every offset, in tile order.
///
/// # Safety
/// AVX2 is available; the `16 K` bytes of the window are readable for every offset `o` of `tile`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_tile<const N: usize, const E: usize, const K: usize>(
    src: *const u8,
    tile: &[i32],
    (at, masks): (isize, &[__m128i; K]),
) -> [__m128i; N] {
    let mut rows = [_mm_setzero_si128(); N];
    for (row, &o) in rows.iter_mut().zip(tile) {
        // SAFETY: the caller's contract.
        *row = unsafe { Steps::<E, K>::load(src.offset(o as isize + at), masks) };
    }
    network16::<N>(rows)
}

/// Requests the start of each offset's partner run (its steps of the group `g0 .. g1`, `step` bytes apart) of the
/// tile [`TILES_AHEAD`] tiles after the one at `j0`, or, past the last offset, of the next group's first tiles
/// (`next` steps from `g1`): the hardware follows the rest of a run (contiguous), and a long partner's whole runs
/// would not fit L1.
#[inline]
fn request_ahead<const N: usize>(
    src: *const u8,
    offsets: &[i32],
    j0: usize,
    (g0, g1, next): (usize, usize, usize),
    step: usize,
    level: Level,
) {
    let j = j0 + TILES_AHEAD * N;
    let (from, steps, j) = match j < offsets.len() {
        true => (g0, g1 - g0, j),
        false => (g1, next, j - offsets.len().next_multiple_of(N)),
    };
    let base = src.wrapping_add(from * step);
    for &o in offsets.iter().skip(j).take(if steps == 0 { 0 } else { N }) {
        prefetch_bytes(base.wrapping_offset(o as isize), (steps * step).min(AHEAD_RUN_BYTES), level);
    }
}

/// Tiles of offsets ahead whose source elements (with their partner steps) [`tiles_n`] requests before each tile,
/// when asked to (`ahead`: a pass spread wider than L1). u16 pairs from rows 1064 bytes apart under 25 output
/// planes (sweep1_124 of `--sweep 200 --seed 1`, passes of 256 rows) waited on a miss per row: 0.10 -> 0.17 of the
/// roofline (ten alternating rounds); a pass within 2.4 KB (sweep1_122) lost 9% to the requests, hence `ahead`.
const TILES_AHEAD: usize = 2;

/// The most bytes of each offset's partner run that [`tiles_n`] requests ahead (four lines).
const AHEAD_RUN_BYTES: usize = 256;

/// [`tiles_n`] with fewer offsets than a tile (`n < N`) over contiguous partner rows of `n * E` bytes
/// (`a_dst`): the `n` windows of a tile fill the first rows of the transpose (the others are zero), and each
/// partner step's 16-byte store writes its row and the start of the next ones, which the next stores (rising
/// through the destination) overwrite. A store that would pass the end of the last row writes only its row.
/// Twelve planes of bytes at irregular distances into 12-byte pixels: one load per plane and one store per pixel
/// per 16 pixels, where the walk of the offsets moves one byte at a time.
///
/// # Safety
/// As for [`table_tiles`], with `n < N` and [`narrow_partner`].
#[target_feature(enable = "avx2")]
unsafe fn tiles_narrow<const N: usize, const E: usize, const K: usize>(
    src: *const u8,
    dst: *mut u8,
    offsets: &[i32],
    na: usize,
    a_dst: isize,
    steps: &Steps<E, K>,
) {
    let n = offsets.len();
    let row = n * E;
    debug_assert!(N * E == 16 && n < N && na >= N && narrow_partner(n, a_dst, E));
    // The destination's end: every partner row lies below it (a_dst == row).
    let end = na * row;
    let mut a0 = 0;
    while a0 < na {
        let a = a0.min(na - N);
        let (at, masks) = steps.window(a, na);
        let mut rows = [_mm_setzero_si128(); N];
        for (q, r) in rows.iter_mut().enumerate().take(n) {
            // SAFETY: offset q < n, partner steps a .. a + N <= na: the window of offset q lies between its steps
            // 0 and na - 1 (`Steps`), inside the caller's source range.
            *r = unsafe { Steps::<E, K>::load(src.offset(offsets[q] as isize + at), masks) };
        }
        let cols = network16::<N>(rows);
        for (p, col) in cols.iter().enumerate() {
            let at = (a + p) * row;
            if at + 16 <= end {
                // SAFETY: [at, at + 16) lies below `end`, in the caller's contiguous destination rows; its bytes past
                // row a + p belong to later rows, written after it (rising p, then rising tiles; a tile that
                // overlaps its predecessor rewrites its rows from the first).
                unsafe { _mm_storeu_si128(dst.add(at).cast(), *col) };
            } else {
                let mut spill = [0u8; 16];
                // SAFETY: 16 bytes into `spill`; then row a + p's `row` bytes at `at`, with at + row <= end.
                unsafe {
                    _mm_storeu_si128(spill.as_mut_ptr().cast(), *col);
                    std::ptr::copy_nonoverlapping(spill.as_ptr(), dst.add(at), row);
                }
            }
        }
        a0 += N;
    }
}

/// The short partner tiles, under Miri too (its AVX2 pass): the source buffer ends where the partner steps of the
/// highest offset do, so a 16-byte load past `end` would be an out-of-bounds read there.
#[cfg(test)]
mod short_tests {
    use super::*;

    /// `na` partner steps of `E`-byte elements from `n` offsets (element-aligned, the highest ones within 16 bytes
    /// of the end: the first tile walks, the others load) into `na` rows padded by 3 elements, against the
    /// definition; the padding keeps its sentinel.
    fn check<T: Elem, const E: usize>(na: usize) {
        let tile = 16 / E;
        let n = 2 * tile + 3;
        let m = 60; // offsets are E * ((60 - j) mod 60): 0, then the highest ones first
        let offsets: Vec<i32> = (0..n).map(|j| (E * ((m - j % m) % m)) as i32).collect();
        let end = (m - 1 + na) * E;
        let src: Vec<u8> = (0..end).map(|i| (i * 7 % 251) as u8).collect();
        let a_dst = (n + 3) * E;
        let mut dst = vec![0xA5u8; na * a_dst];
        let p =
            Partner { na, a_src: E as isize, a_dst: a_dst as isize, end: end as isize, ahead: None, dst_ahead: None };
        // SAFETY: AVX2 detected by the caller; every offset plus na elements ends at or below `end` = src.len();
        // row a of the destination is dst[a * a_dst ..][.. n * E].
        unsafe { table_tiles::<T>(src.as_ptr(), dst.as_mut_ptr(), &offsets, p) };
        for a in 0..na {
            for (j, &o) in offsets.iter().enumerate() {
                let at = a * a_dst + j * E;
                let from = o as usize + a * E;
                assert_eq!(dst[at..at + E], src[from..from + E], "E {E}, na {na}, a {a}, j {j}");
            }
            assert!(dst[a * a_dst + n * E..(a + 1) * a_dst].iter().all(|&b| b == 0xA5), "E {E}, na {na}, padding");
        }
    }

    #[test]
    fn short_partner_tiles_write_every_step_and_read_nothing_past_the_end() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 here: the short tiles do not run");
            return;
        }
        // Every channel count of bytes: each has an instance of its own (`short_bytes`), 3 the one of any count.
        for na in 3..16 {
            check::<u8, 1>(na);
        }
        for na in [2, 7] {
            check::<u16, 2>(na);
        }
        for na in [2, 3] {
            check::<u32, 4>(na);
        }
    }
}

/// The partner tiles of spaced steps (2-4 elements apart), under Miri too: each offset's steps end the source
/// buffer or start it, so a window reaching past a run's last step, or before its first, is an out-of-bounds read.
#[cfg(test)]
mod spaced_tests {
    use super::*;

    /// `na` partner steps `k` elements apart from `n` offsets (one of them 0, the source's first byte; the highest
    /// one's last step the source's last element) into rows `a_dst` apart, forwards or backwards (`a_dst < 0`:
    /// step a's row at `(na - 1 - a) * |a_dst|`), against the definition; every other destination byte keeps its
    /// sentinel. The tiles request each row's lines ahead when [`dst_ahead`] asks for it.
    fn check<T: Elem, const E: usize>(n: usize, na: usize, k: usize, a_dst: isize) {
        let offsets: Vec<i32> = (0..n).map(|j| (E * ((j * 5) % (n + 2))) as i32).collect();
        let highest = *offsets.iter().max().unwrap() as usize;
        let len = highest + (na - 1) * k * E + E;
        let src: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        let row = a_dst.unsigned_abs();
        let mut dst = vec![0xA5u8; na * row];
        let first = if a_dst < 0 { (na - 1) * row } else { 0 };
        let a_src = (k * E) as isize;
        let dst_ahead = dst_ahead(na, a_dst, n * E);
        let p = Partner { na, a_src, a_dst, end: len as isize, ahead: Some(Level::L1), dst_ahead };
        assert!(table_tiles_fit(n, na, a_src, a_dst, E), "n {n} na {na} k {k}");
        // SAFETY: AVX2 detected by the caller; offset j's steps a < na end at or below len = src.len(); step a's
        // row is dst[first + a * a_dst ..][.. n * E], inside dst.
        unsafe { table_tiles::<T>(src.as_ptr(), dst.as_mut_ptr().add(first), &offsets, p) };
        for a in 0..na {
            let at = (first as isize + a as isize * a_dst) as usize;
            for (j, &o) in offsets.iter().enumerate() {
                let from = o as usize + a * k * E;
                assert_eq!(dst[at + j * E..at + (j + 1) * E], src[from..from + E], "E {E} k {k} na {na} a {a} j {j}");
            }
            assert!(dst[at + n * E..at + row].iter().all(|&b| b == 0xA5), "E {E} k {k} na {na}: padding");
        }
    }

    #[test]
    fn spaced_partner_tiles_gather_every_step_within_each_run() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 here: the partner tiles do not run");
            return;
        }
        // A tile and one step (the least a spaced partner takes: its last tile's window starts inside the step
        // before it), and a ragged count; whole tiles of offsets and a ragged rest; rows forwards, backwards, and
        // narrow (fewer offsets than a tile into contiguous rows).
        let steps = |tile: usize| if cfg!(miri) { vec![tile + 1] } else { vec![tile + 1, 2 * tile + 3, 150] };
        for k in 1..=4 {
            for na in steps(16) {
                check::<u8, 1>(19, na, k, 23);
                check::<u8, 1>(16, na, k, -16);
                check::<u8, 1>(12, na, k, 12);
            }
            for na in steps(8) {
                check::<u16, 2>(11, na, k, -24);
                check::<u16, 2>(5, na, k, 10);
            }
            for na in steps(4) {
                check::<u32, 4>(6, na, k, 28);
                check::<u32, 4>(4, na, k, -16);
                check::<u32, 4>(3, na, k, 12);
            }
        }
    }

    #[test]
    fn partner_tiles_requesting_their_rows_ahead_write_every_step() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 here: the partner tiles do not run");
            return;
        }
        // Rows longer than a line and at least two apart, forwards and backwards, at every alignment the offsets
        // give: the tiles request each row's next line (past the last tile, lines of the padding or beyond the
        // destination: hints, never written).
        let ks = if cfg!(miri) { vec![1, 3] } else { vec![1, 2, 3, 4] };
        for k in ks {
            assert!(dst_ahead(17, 131, 70).is_some() && dst_ahead(17, -200, 130).is_some());
            check::<u8, 1>(70, 17, k, 131);
            check::<u8, 1>(130, 33, k, -200);
            check::<u16, 2>(45, 9, k, 150);
            check::<u16, 2>(40, 12, k, -130);
            check::<u32, 4>(20, 8, k, 136);
            check::<u32, 4>(33, 11, k, -4096);
        }
    }

    #[test]
    fn partner_tiles_request_rows_ahead_only_for_many_long_rows_far_apart() {
        assert_eq!(dst_ahead(8, 128, 65), Some(64));
        assert_eq!(dst_ahead(300, -4096, 4000), Some(64));
        assert_eq!(dst_ahead(7, 4096, 4000), None, "few rows");
        assert_eq!(dst_ahead(64, 127, 100), None, "rows within two lines");
        assert_eq!(dst_ahead(64, 4096, 64), None, "rows of a line at most");
    }
}

#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;
    use crate::table::{TDim, TablePlan, pass_interval};

    /// A source covering the pass interval of `plan`, the pass pointer's offset into it (`-lo`), and the bytes the
    /// pass's table reads from it, in destination order.
    fn pass_source(plan: &TablePlan, esize: usize) -> (Vec<u8>, isize, Vec<u8>) {
        let (lo, hi) = pass_interval(plan.per, plan.row_src, plan.hull);
        let src: Vec<u8> = (0..hi - lo).map(|i| (i * 7 % 251) as u8).collect();
        let expected: Vec<u8> = plan
            .table
            .offsets
            .iter()
            .flat_map(|&o| (0..esize as isize).map(move |b| (o as isize + b - lo) as usize))
            .map(|i| src[i])
            .collect();
        (src, -lo, expected)
    }

    /// The pass of `plan` through its 16-byte shuffle form against the table; no byte past the pass is written.
    fn run_chunks(plan: &TablePlan, esize: usize) {
        let pass_bytes = plan.per * plan.block * esize;
        let (src, at, expected) = pass_source(plan, esize);
        let c = plan.table.chunks.as_ref().expect("a shuffle form");
        let mut out = vec![0u8; pass_bytes + 1];
        // SAFETY: AVX2 detected (the callers check); the windows lie in the pass interval, `src` from `at` (asserted
        // by the builder); `out` holds the pass and one more byte.
        unsafe { table_chunks(src.as_ptr().wrapping_offset(at), out.as_mut_ptr(), c, pass_bytes) };
        assert_eq!(out[..pass_bytes], expected);
        assert_eq!(out[pass_bytes], 0, "a byte past the pass written");
    }

    #[test]
    fn passes_of_one_and_two_halves_write_exactly_their_bytes() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 here: the shuffle form does not run");
            return;
        }
        // Reversed pixels of 3 bytes in passes of 18 to 1020 bytes: 16-31 bytes take one half, from 32 on two
        // halves, the last chunk overlapping its predecessor unless the pass is a multiple of 32 bytes.
        let mut seen = std::collections::BTreeSet::new();
        for pixels in [6, 8, 10, 11, 12, 21, 22, 32, 33, 340] {
            let mut dims = vec![TDim { n: pixels, src: 3, dst: 3 }, TDim { n: 3, src: -1, dst: 1 }];
            let plan = TablePlan::build(&mut dims, 1, true, 0).unwrap();
            let pass_bytes = plan.per * plan.block;
            let halves = plan.table.chunks.as_ref().map(|c| c.halves);
            assert_eq!(halves, Some(if pass_bytes >= 32 { 2 } else { 1 }), "{pixels} pixels, {pass_bytes} bytes");
            seen.insert((pass_bytes.min(32), pass_bytes.is_multiple_of(32)));
            run_chunks(&plan, 1);
        }
        // Passes of one half, of two halves overlapping, and of whole pairs were all run.
        assert!(seen.iter().any(|&(b, _)| b < 32) && seen.contains(&(32, false)) && seen.contains(&(32, true)));
    }

    #[test]
    fn both_shuffle_forms_write_what_the_table_reads() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 here: neither shuffle form runs");
            return;
        }
        if !crate::kernels::wide_permutes() {
            eprintln!("no AVX-512 VBMI here: only the 16-byte form runs");
        }
        // Reversed 7 x i16 pixels (two 16-byte windows per chunk), every third byte (three windows of either
        // size; four 64-byte ones), RGB pixels reversed in rows read bottom-up, and 12 bytes of each row from a
        // 48-byte block (a 4 x 3 transpose at strides 4 and 16) of rows far apart (six 16-byte windows), pairs of
        // bytes 4 apart from rows 100 bytes apart (eight).
        let cases: [(Vec<TDim>, usize, usize); 5] = [
            (vec![TDim { n: 64, src: 100, dst: 2 }, TDim { n: 2, src: 4, dst: 1 }], 1, 8),
            (vec![TDim { n: 73, src: 7, dst: 7 }, TDim { n: 7, src: -1, dst: 1 }], 2, 2),
            (vec![TDim { n: 16, src: 192, dst: 64 }, TDim { n: 64, src: 3, dst: 1 }], 1, 3),
            (
                vec![TDim { n: 40, src: -24, dst: 24 }, TDim { n: 8, src: -3, dst: 3 }, TDim { n: 3, src: 1, dst: 1 }],
                1,
                2,
            ),
            (
                vec![
                    TDim { n: 33, src: 305280, dst: 12 },
                    TDim { n: 4, src: 4, dst: 3 },
                    TDim { n: 3, src: 16, dst: 1 },
                ],
                1,
                6,
            ),
        ];
        for (mut dims, esize, windows) in cases {
            let plan = TablePlan::build(&mut dims, esize, true, 0).unwrap();
            assert_eq!(plan.table.chunks.as_ref().map(|c| (c.windows, c.halves)), Some((windows, 2)));
            run_chunks(&plan, esize);
            let pass_bytes = plan.per * plan.block * esize;
            let (src, at, expected) = pass_source(&plan, esize);
            let base = src.as_ptr().wrapping_offset(at);
            // The 64-byte form only on CPUs with AVX-512 VBMI, and there only where 64-byte windows cover each
            // chunk in at most eight (`Chunks64::build`); whether one of these passes has it depends on its numbers.
            assert!(plan.table.chunks64.is_none() || crate::kernels::wide_permutes());
            if let Some(c) = &plan.table.chunks64 {
                let mut out = vec![0u8; pass_bytes];
                // SAFETY: AVX-512 VBMI detected (the form is built only then); the windows lie in the pass
                // interval, `src` from `base`; `out` holds the pass.
                unsafe { table_chunks64(base, out.as_mut_ptr(), c, pass_bytes) };
                assert_eq!(out, expected);
            }
        }
    }

    /// The 64-byte form in pairs of windows, through the kernel, for every window count it takes: every `k`-th byte
    /// of rows `64 k` bytes apart (a chunk's 64 bytes from `64 k` source bytes, `k` windows, rounded up to a power of
    /// two), against the table's own reading of the pass.
    #[test]
    fn the_64_byte_form_pairs_up_to_sixteen_windows() {
        if !crate::kernels::wide_permutes() {
            eprintln!("no AVX-512 VBMI here: the 64-byte form does not run");
            return;
        }
        for (k, windows) in [(1, 1), (2, 2), (3, 4), (7, 8), (15, 16), (16, 16)] {
            let mut dims = vec![TDim { n: 16, src: 64 * k, dst: 64 }, TDim { n: 64, src: k, dst: 1 }];
            let plan = TablePlan::build(&mut dims, 1, true, 0).unwrap();
            let pass_bytes = plan.per * plan.block;
            let (lo, hi) = crate::table::pass_interval(plan.per, plan.row_src, plan.hull);
            let c = Chunks64::build(
                &plan.table.offsets,
                1,
                pass_bytes,
                &crate::table::PassLines::at(&plan.table.offsets, 1, lo, hi, 0),
            )
            .expect("a 64-byte form");
            assert_eq!(c.windows, windows, "every {k}th byte");
            let (src, at, expected) = pass_source(&plan, 1);
            let mut out = vec![0u8; pass_bytes];
            // SAFETY: AVX-512 VBMI detected; the windows lie in the pass interval, `src` from `at`; `out` holds the
            // pass.
            unsafe { table_chunks64(src.as_ptr().wrapping_offset(at), out.as_mut_ptr(), &c, pass_bytes) };
            assert_eq!(out, expected, "every {k}th byte");
        }
    }
}
