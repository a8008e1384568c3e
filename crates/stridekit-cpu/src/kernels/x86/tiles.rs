//! Square SIMD transpose tiles, one per element size: 16x16 bytes and 8x8 of 2 bytes (SSE2 unpack networks), 8x8 of
//! 4 bytes and 4x4 of 8 bytes (AVX2). Each reads `tile` source rows and writes `tile` destination rows of
//! `tile * size_of T` bytes (its footprint); the callers guarantee those rows.

use crate::kernels::Elem;
use std::arch::x86_64::*;

/// The 8x8 transpose of 4-byte elements in registers: row `j` in, column `j` out.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn transpose8x4(r: [__m256i; 8]) -> [__m256i; 8] {
    let r = r.map(|v| _mm256_castsi256_ps(v));
    let t0 = _mm256_unpacklo_ps(r[0], r[1]);
    let t1 = _mm256_unpackhi_ps(r[0], r[1]);
    let t2 = _mm256_unpacklo_ps(r[2], r[3]);
    let t3 = _mm256_unpackhi_ps(r[2], r[3]);
    let t4 = _mm256_unpacklo_ps(r[4], r[5]);
    let t5 = _mm256_unpackhi_ps(r[4], r[5]);
    let t6 = _mm256_unpacklo_ps(r[6], r[7]);
    let t7 = _mm256_unpackhi_ps(r[6], r[7]);
    let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
    let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
    let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
    let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
    let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
    let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
    let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
    let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
    [
        _mm256_permute2f128_ps::<0x20>(u0, u4),
        _mm256_permute2f128_ps::<0x20>(u1, u5),
        _mm256_permute2f128_ps::<0x20>(u2, u6),
        _mm256_permute2f128_ps::<0x20>(u3, u7),
        _mm256_permute2f128_ps::<0x31>(u0, u4),
        _mm256_permute2f128_ps::<0x31>(u1, u5),
        _mm256_permute2f128_ps::<0x31>(u2, u6),
        _mm256_permute2f128_ps::<0x31>(u3, u7),
    ]
    .map(|v| _mm256_castps_si256(v))
}

/// Transposes one full 8x8 tile of 4-byte elements: `dst[a * a_dst + b] = src[a + b * b_src]`, `a, b < 8`.
///
/// # Safety
/// AVX2 is available; the 8 source rows of 32 bytes at `src + b * b_src` and the 8 destination rows of 32 bytes at
/// `dst + a * a_dst` are valid; no overlap.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn tile8(src: *const u8, dst: *mut u8, a_dst: isize, b_src: isize) {
    // SAFETY: row j of the source tile is 32 bytes at src + j * b_src (the caller's contract).
    let rows = std::array::from_fn(|j| unsafe { _mm256_loadu_si256(src.offset(j as isize * b_src).cast()) });
    for (i, v) in transpose8x4(rows).into_iter().enumerate() {
        // SAFETY: row i of the destination tile is 32 bytes at dst + i * a_dst (the caller's contract).
        unsafe { _mm256_storeu_si256(dst.offset(i as isize * a_dst).cast(), v) };
    }
}

/// A register the unpack network runs on: 128 bits, or 256 bits whose AVX2 unpacks work within each 128-bit lane
/// (two networks at once, [`network32`]).
pub(crate) trait Unpack: Copy {
    /// The interleaves of the `width`-bit units of the low and of the high halves of each lane of `a` and `b`.
    ///
    /// # Safety
    /// AVX2 is available.
    unsafe fn unpack(a: Self, b: Self, width: u32) -> (Self, Self);
}

impl Unpack for __m128i {
    #[inline(always)]
    unsafe fn unpack(a: Self, b: Self, width: u32) -> (Self, Self) {
        // SAFETY: SSE2 is part of x86_64 (and AVX2 is available, the caller's contract).
        unsafe {
            match width {
                8 => (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)),
                16 => (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)),
                32 => (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)),
                _ => (_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)),
            }
        }
    }
}

impl Unpack for __m256i {
    #[inline(always)]
    unsafe fn unpack(a: Self, b: Self, width: u32) -> (Self, Self) {
        // SAFETY: AVX2 is available (the caller's contract).
        unsafe {
            match width {
                8 => (_mm256_unpacklo_epi8(a, b), _mm256_unpackhi_epi8(a, b)),
                16 => (_mm256_unpacklo_epi16(a, b), _mm256_unpackhi_epi16(a, b)),
                32 => (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b)),
                _ => (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)),
            }
        }
    }
}

/// One round of a transpose network over `N` registers (each lane of them) of `N` rows of `16 / N`-byte
/// elements: the registers hold `cols` column blocks of `N / cols` row groups (index `c * groups + q`);
/// interleaving the `width`-bit units of row groups `2q` and `2q + 1` doubles the column blocks and halves the row
/// groups.
#[target_feature(enable = "avx2")]
#[inline]
fn unpack_round<V: Unpack, const N: usize>(v: &[V; N], cols: usize, width: u32) -> [V; N] {
    let groups = N / cols;
    let mut out = *v;
    for c in 0..cols {
        for q in 0..groups / 2 {
            // SAFETY: AVX2 is enabled for this function.
            let (lo, hi) = unsafe { V::unpack(v[c * groups + 2 * q], v[c * groups + 2 * q + 1], width) };
            out[2 * c * (groups / 2) + q] = lo;
            out[(2 * c + 1) * (groups / 2) + q] = hi;
        }
    }
    out
}

/// The `log2 N` unpack rounds of a tile: `N` rows of 16 bytes (`N` elements of `16 / N` bytes) in each lane, the
/// `N` transposed rows out.
#[target_feature(enable = "avx2")]
#[inline]
fn network<V: Unpack, const N: usize>(mut v: [V; N]) -> [V; N] {
    let (mut cols, mut width) = (1, 128 / N as u32);
    while cols < N {
        v = unpack_round(&v, cols, width);
        (cols, width) = (cols * 2, width * 2);
    }
    v
}

/// The transpose network of [`tile16`] and the partner tiles: `N` rows of 16 bytes (`N` elements of `16 / N` bytes)
/// in, the `N` transposed rows out; the `log2 N` unpack rounds of [`network`], and for bytes (`N == 16`)
/// [`transpose_bytes`].
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn network16<const N: usize>(mut v: [__m128i; N]) -> [__m128i; N] {
    if N == 16 {
        // Bytes: the lane-paired network, which needs half the registers.
        let mut rows = [_mm_setzero_si128(); 16];
        rows.copy_from_slice(&v);
        v.copy_from_slice(&transpose_bytes(rows));
        return v;
    }
    network(v)
}

/// Transposes 16 rows of 16 bytes (column `c` of the result holds byte `c` of every row, in row order) in 256-bit
/// registers, rows `i` and `i + 8` in the two lanes of register `i`: three rounds of byte interleaves within the
/// lanes (pairing registers `i` and `i + 4`, as [`network`] pairs row groups) leave register `k` holding columns
/// `2 k` and `2 k + 1` of rows 0-7 in its low lane and of rows 8-15 in its high lane, and one 64-bit permute per
/// register joins each column's halves. The 16-register network kept 16 rows and their interleaves live in the 16
/// vector registers of AVX2 and spilled a third of them to the stack: 64 unpacks and the spills per tile, against
/// 24 unpacks, 8 inserts and 8 permutes here. Time ratios, this network over that one, each case in its own
/// process, three ABBA rounds (`docs/PERFORMANCE.md`, fifty-fifth round, Zen 4): the 29 byte tables with a partner
/// of a tile or more (`table::table_tiles`) of `--sweep 200 --sweep-max-bytes 64M` seeds 1-10, 0.89 (0.67-1.14; 12
/// planes into pixels, sweep1_051, 0.84); the 86 of seeds 11-40, 0.94; the 14 short partners (3-15 steps), 1.00.
#[target_feature(enable = "avx2")]
#[inline]
fn transpose_bytes(x: [__m128i; 16]) -> [__m128i; 16] {
    let mut y: [__m256i; 8] = std::array::from_fn(|i| _mm256_set_m128i(x[i + 8], x[i]));
    for _ in 0..3 {
        let z = y;
        for i in 0..4 {
            y[2 * i] = _mm256_unpacklo_epi8(z[i], z[i + 4]);
            y[2 * i + 1] = _mm256_unpackhi_epi8(z[i], z[i + 4]);
        }
    }
    let mut out = [_mm_setzero_si128(); 16];
    for (k, v) in y.into_iter().enumerate() {
        // Quadwords 0, 2 | 1, 3: column 2k of rows 0-7 and 8-15 | column 2k + 1 of both.
        let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(v);
        out[2 * k] = _mm256_castsi256_si128(v);
        out[2 * k + 1] = _mm256_extracti128_si256::<1>(v);
    }
    out
}

/// Transposes one full `N x N` tile of `16 / N`-byte elements (16 rows of bytes, or 8 rows of 2-byte elements),
/// `dst[a * a_dst + b] = src[a + b * b_src]`, with `log2 N` rounds of SSE2 unpacks.
///
/// # Safety
/// AVX2 is available; the `N` source rows of 16 bytes at `src + b * b_src` and the `N` destination rows of 16 bytes
/// at `dst + a * a_dst` are valid; no overlap.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn tile16<const N: usize>(src: *const u8, dst: *mut u8, a_dst: isize, b_src: isize) {
    // SAFETY: row j of the source tile is 16 bytes at src + j * b_src (the caller's contract).
    let v: [__m128i; N] = std::array::from_fn(|j| unsafe { _mm_loadu_si128(src.offset(j as isize * b_src).cast()) });
    for (a, row) in network16(v).into_iter().enumerate() {
        // SAFETY: row a of the destination tile is 16 bytes at dst + a * a_dst (the caller's contract).
        unsafe { _mm_storeu_si128(dst.offset(a as isize * a_dst).cast(), row) };
    }
}

/// [`network16`] on the two 128-bit lanes of `N` 256-bit registers at once: lane `l` of the `N` registers in is
/// one `N x N` tile, lane `l` of the registers out its transpose. AVX2's unpacks work within each lane, so the
/// same rounds transpose two tiles for the shuffles of one (the 16-byte network spent 64 unpacks on 256 bytes of
/// a byte tile; its lane-paired form, [`transpose_bytes`], spends 24 unpacks and 16 lane moves, still more
/// shuffles per tile than half of this one's 64: pairs of byte tiles keep this network, 68-72 us against 80-93
/// for a 1024 x 1024 u8 transpose in cache, `docs/PERFORMANCE.md`, fifty-fifth round). Plain 2-D transposes of 1 MiB in cache ran in 0.81-0.88 of the time for u16, 0.89-0.95 for bytes,
/// and the 48 sweep transposes of 1-2 byte elements of seeds 1-4 in about 0.92 (`docs/PERFORMANCE.md`,
/// thirty-sixth round).
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn network32<const N: usize>(v: [__m256i; N]) -> [__m256i; N] {
    network(v)
}

/// Two [`tile16`] tiles side by side in `a`: `dst[a * a_dst + b] = src[a + b * b_src]` for `a < 2N`, `b < N`
/// (`16 / N`-byte elements), with 32-byte source rows and the rounds of [`network32`].
///
/// # Safety
/// AVX2 is available; the `N` source rows of 32 bytes at `src + b * b_src` and the `2N` destination rows of 16
/// bytes at `dst + a * a_dst` are valid; no overlap.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn tile16_pair<const N: usize>(src: *const u8, dst: *mut u8, a_dst: isize, b_src: isize) {
    // SAFETY: row j of the source tiles is 32 bytes at src + j * b_src (the caller's contract).
    let v: [__m256i; N] = std::array::from_fn(|j| unsafe { _mm256_loadu_si256(src.offset(j as isize * b_src).cast()) });
    for (a, row) in network32(v).into_iter().enumerate() {
        // SAFETY: rows a and N + a of the destination tiles are 16 bytes at dst + a * a_dst (the caller's contract).
        unsafe {
            _mm_storeu_si128(dst.offset(a as isize * a_dst).cast(), _mm256_castsi256_si128(row));
            _mm_storeu_si128(dst.offset((N + a) as isize * a_dst).cast(), _mm256_extracti128_si256::<1>(row));
        }
    }
}

/// The 4x4 transpose of 8-byte elements in registers: row `j` in, column `j` out.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn transpose4x8(r: [__m256i; 4]) -> [__m256i; 4] {
    let (t0, t1) = (_mm256_unpacklo_epi64(r[0], r[1]), _mm256_unpackhi_epi64(r[0], r[1]));
    let (t2, t3) = (_mm256_unpacklo_epi64(r[2], r[3]), _mm256_unpackhi_epi64(r[2], r[3]));
    [
        _mm256_permute2x128_si256::<0x20>(t0, t2),
        _mm256_permute2x128_si256::<0x20>(t1, t3),
        _mm256_permute2x128_si256::<0x31>(t0, t2),
        _mm256_permute2x128_si256::<0x31>(t1, t3),
    ]
}

/// Transposes one full 4x4 tile of 8-byte elements: `dst[a * a_dst + b] = src[a + b * b_src]`.
///
/// # Safety
/// AVX2 is available; the 4 source rows of 32 bytes at `src + b * b_src` and the 4 destination rows of 32 bytes at
/// `dst + a * a_dst` are valid; no overlap.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn tile4x8(src: *const u8, dst: *mut u8, a_dst: isize, b_src: isize) {
    // SAFETY: row j of the source tile is 32 bytes at src + j * b_src (the caller's contract).
    let rows = std::array::from_fn(|j| unsafe { _mm256_loadu_si256(src.offset(j as isize * b_src).cast()) });
    for (i, v) in transpose4x8(rows).into_iter().enumerate() {
        // SAFETY: row i of the destination tile is 32 bytes at dst + i * a_dst (the caller's contract).
        unsafe { _mm256_storeu_si256(dst.offset(i as isize * a_dst).cast(), v) };
    }
}

pub(crate) use crate::kernels::tile_size;

/// Transposes one full tile of [`tile_size`] elements of `T` per side.
///
/// # Safety
/// As for the tile function of the size: every source row `src + b * b_src` and destination row `dst + a * a_dst`
/// of `tile_size * size_of T` bytes is valid; no overlap; AVX2 is available.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn tile_for<T: Elem>(src: *const u8, dst: *mut u8, a_dst: isize, b_src: isize) {
    // SAFETY: the caller's contract, which is each tile function's.
    unsafe {
        match T::SIZE {
            1 => tile16::<16>(src, dst, a_dst, b_src),
            2 => tile16::<8>(src, dst, a_dst, b_src),
            4 => tile8(src, dst, a_dst, b_src),
            _ => tile4x8(src, dst, a_dst, b_src),
        }
    }
}

/// Transposes two full tiles side by side in `a` (`2 tile_size` rows `a`, `tile_size` rows `b`) of 1- or 2-byte
/// elements: [`tile16_pair`].
///
/// # Safety
/// As for [`tile16_pair`] (source rows of 32 bytes, `2 tile_size` destination rows of 16); `size_of T <= 2`.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn tile_pair_for<T: Elem>(src: *const u8, dst: *mut u8, a_dst: isize, b_src: isize) {
    debug_assert!(T::SIZE <= 2);
    // SAFETY: the caller's contract.
    unsafe {
        match T::SIZE {
            1 => tile16_pair::<16>(src, dst, a_dst, b_src),
            _ => tile16_pair::<8>(src, dst, a_dst, b_src),
        }
    }
}

/// Test support for the transposes of `x86/`: asserts that every element `(a, b)`, `a < na`, `b < nb`, of `e` bytes at
/// `s0 + a * a_src + b * b_src` in `src` is at `d0 + a * a_dst + b * e` in `dst` (byte offsets), naming `what` and
/// the element on failure.
#[cfg(test)]
pub(crate) fn assert_transposed(
    src: &[u8],
    (s0, a_src, b_src): (usize, isize, isize),
    dst: &[u8],
    (d0, a_dst): (usize, isize),
    (na, nb, e): (usize, usize, usize),
    what: &str,
) {
    for a in 0..na {
        for b in 0..nb {
            let at = (s0 as isize + a as isize * a_src + b as isize * b_src) as usize;
            let to = (d0 as isize + a as isize * a_dst) as usize + b * e;
            assert_eq!(dst[to..to + e], src[at..at + e], "{what}: {e}-byte element ({a}, {b})");
        }
    }
}

#[cfg(test)]
mod transpose_tests {
    use super::*;

    /// The `N x N` tile of `E`-byte elements whose element `(r, c)` holds bytes `16 r + E c ..`, transposed, against
    /// the definition: column `c` of the result is element `c` of every row.
    fn check<const N: usize, const E: usize>() {
        debug_assert_eq!(N * E, 16);
        let rows: [[u8; 16]; N] = std::array::from_fn(|r| std::array::from_fn(|b| (16 * r + b) as u8));
        // SAFETY: 16 bytes from each row array.
        let x = rows.map(|r| unsafe { _mm_loadu_si128(r.as_ptr().cast()) });
        // SAFETY: AVX2 detected by the caller.
        let cols = unsafe { network16::<N>(x) };
        for (c, col) in cols.iter().enumerate() {
            let mut got = [0u8; 16];
            // SAFETY: 16 bytes into `got`.
            unsafe { _mm_storeu_si128(got.as_mut_ptr().cast(), *col) };
            let want: Vec<u8> = (0..N).flat_map(|r| rows[r][c * E..(c + 1) * E].to_vec()).collect();
            assert_eq!(got.to_vec(), want, "N {N}, E {E}, column {c}");
        }
    }

    #[test]
    fn every_tile_network_transposes() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 here: the tiles do not run");
            return;
        }
        // Bytes take the lane-paired network (`transpose_bytes`), the others the unpack rounds of `network`.
        check::<16, 1>();
        check::<8, 2>();
        check::<4, 4>();
    }
}
