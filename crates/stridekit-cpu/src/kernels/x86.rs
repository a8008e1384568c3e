//! x86_64 kernels (AVX2, plus SSE2 `sfence`). Each is an `unsafe fn` with `#[target_feature(enable = "avx2")]`:
//! callers must have detected AVX2 at run time. Vector loads and stores are unaligned except the streaming stores,
//! which are issued only after a scalar head has aligned the destination to 32 bytes.

use super::Elem;
use std::arch::x86_64::*;

/// Runs shorter than this use `ptr::copy_nonoverlapping` even when streaming stores are on.
pub(super) const NT_MIN_RUN: usize = 256;

/// Orders earlier non-temporal stores before later stores.
#[cfg(not(miri))]
pub(super) fn sfence() {
    // SAFETY: SSE (and so `sfence`) is part of the x86_64 baseline.
    unsafe { _mm_sfence() };
}

/// A 32-byte streaming store. Under Miri, which cannot run the instruction (stdarch implements it with inline
/// assembly), an ordinary unaligned store with the same effect on memory.
///
/// # Safety
/// AVX2 is available; 32 bytes writable at `dst`, which is 32-byte aligned.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn stream32(dst: *mut u8, v: __m256i) {
    debug_assert!((dst as usize).is_multiple_of(32));
    #[cfg(not(miri))]
    // SAFETY: the caller's contract (aligned, writable).
    unsafe {
        _mm256_stream_si256(dst.cast(), v)
    };
    #[cfg(miri)]
    // SAFETY: the caller's contract (writable).
    unsafe {
        _mm256_storeu_si256(dst.cast(), v)
    };
}

/// Bytes to write with scalar code before `dst` is 32-byte aligned, at most `len`.
fn head_to_align(dst: *const u8, len: usize) -> usize {
    ((32 - (dst as usize & 31)) & 31).min(len)
}

/// Copies `len` bytes with non-temporal stores (128 bytes per iteration).
///
/// # Safety
/// AVX2 is available; `src` readable and `dst` writable for `len` bytes; no overlap.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn copy_nt_avx2(src: *const u8, dst: *mut u8, len: usize) {
    let head = head_to_align(dst, len);
    // SAFETY: the first `head` bytes of both ranges.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, head) };
    let mut i = head;
    while i + 128 <= len {
        // SAFETY: bytes i..i+128 lie in both ranges; dst + i is 32-byte aligned (head alignment, steps of 32).
        unsafe {
            let s = src.add(i);
            let a = _mm256_loadu_si256(s.cast());
            let b = _mm256_loadu_si256(s.add(32).cast());
            let c = _mm256_loadu_si256(s.add(64).cast());
            let d = _mm256_loadu_si256(s.add(96).cast());
            let t = dst.add(i);
            stream32(t, a);
            stream32(t.add(32), b);
            stream32(t.add(64), c);
            stream32(t.add(96), d);
        }
        i += 128;
    }
    while i + 32 <= len {
        // SAFETY: bytes i..i+32 lie in both ranges; dst + i is 32-byte aligned.
        unsafe { stream32(dst.add(i), _mm256_loadu_si256(src.add(i).cast())) };
        i += 32;
    }
    // SAFETY: the tail i..len of both ranges.
    unsafe { std::ptr::copy_nonoverlapping(src.add(i), dst.add(i), len - i) };
}

/// Stores 32 bytes, streaming when `nt` (then `dst` must be 32-byte aligned).
///
/// # Safety
/// AVX2 is available; 32 bytes writable at `dst`; aligned to 32 when `nt`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store(dst: *mut u8, v: __m256i, nt: bool) {
    // SAFETY: the caller's contract.
    unsafe { if nt { stream32(dst, v) } else { _mm256_storeu_si256(dst.cast(), v) } }
}

/// Reverses the elements of `T` inside a 32-byte vector.
#[target_feature(enable = "avx2")]
#[inline]
fn reverse_vector<T: Elem>(v: __m256i) -> __m256i {
    match T::SIZE {
        1 => {
            let m = _mm256_setr_epi8(
                15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2,
                1, 0,
            );
            _mm256_permute2x128_si256::<0x01>(_mm256_shuffle_epi8(v, m), _mm256_shuffle_epi8(v, m))
        }
        2 => {
            let m = _mm256_setr_epi8(
                14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3,
                0, 1,
            );
            let s = _mm256_shuffle_epi8(v, m);
            _mm256_permute2x128_si256::<0x01>(s, s)
        }
        4 => _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)),
        _ => _mm256_permute4x64_epi64::<0x1B>(v),
    }
}

/// `dst[i] = src[-i]` for `i in 0..n` elements of `T`. The vector blocks go from the last output block to the
/// first, so that the source is read at rising addresses (hardware prefetchers follow forward streams far better
/// than backward ones here) while the destination is written backwards, which streaming stores do not mind.
///
/// # Safety
/// AVX2 is available; elements `src - (n-1) ..= src` readable, `dst .. dst + n` writable; no overlap.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn reverse_avx2<T: Elem>(src: *const u8, dst: *mut u8, n: usize, nt: bool) {
    let e = T::SIZE;
    let per = 32 / e;
    // Head: scalar until dst is 32-byte aligned (when streaming), so that the vector stores may stream.
    let head = if nt { head_to_align(dst, n * e) / e } else { 0 };
    // A head that is not a whole number of elements cannot reach alignment: fall back to unaligned stores.
    let nt = nt && (dst as usize + head * e).is_multiple_of(32);
    let blocks = (n - head) / per;
    let vec_end = head + blocks * per;
    let scalar = |i: usize| {
        // SAFETY: element i < n of both ranges.
        unsafe { dst.cast::<T>().add(i).write_unaligned(src.cast::<T>().sub(i).read_unaligned()) }
    };
    // Lowest source addresses first: the tail, then the vector blocks backwards, then the head.
    for i in (vec_end..n).rev() {
        scalar(i);
    }
    let mut k = blocks;
    while k > 0 {
        k -= 1;
        let i = head + k * per;
        // SAFETY: source elements i ..= i + per - 1 (backwards) are the 32 bytes from src - (i + per - 1) to src - i,
        // inside the range (i + per <= n); destination elements i .. i + per inside the range, aligned when nt.
        unsafe {
            let v = _mm256_loadu_si256(src.sub((i + per - 1) * e).cast());
            store(dst.add(i * e), reverse_vector::<T>(v), nt);
        }
    }
    for i in (0..head).rev() {
        scalar(i);
    }
}

/// `dst[i] = src[0]` for `i in 0..n` elements of `T`.
///
/// # Safety
/// AVX2 is available; one element readable at `src`, `n` writable at `dst`; no overlap.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn fill_avx2<T: Elem>(src: *const u8, dst: *mut u8, n: usize, nt: bool) {
    let e = T::SIZE;
    let mut pattern = [0u8; 32];
    for chunk in pattern.chunks_exact_mut(e) {
        // SAFETY: one element readable at `src`; `chunk` is `e` bytes.
        unsafe { std::ptr::copy_nonoverlapping(src, chunk.as_mut_ptr(), e) };
    }
    // SAFETY: `pattern` is 32 bytes.
    let v = unsafe { _mm256_loadu_si256(pattern.as_ptr().cast()) };
    let len = n * e;
    let head = if nt { head_to_align(dst, len) } else { 0 };
    let nt = nt && head.is_multiple_of(e);
    let head = if nt { head } else { 0 };
    // SAFETY: the first `head` bytes (whole elements) of the destination; the pattern starts on an element boundary.
    unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), dst, head) };
    let mut i = head;
    while i + 32 <= len {
        // SAFETY: bytes i .. i + 32 of the destination, aligned when nt; i is a multiple of e, so the pattern lines up.
        unsafe { store(dst.add(i), v, nt) };
        i += 32;
    }
    // SAFETY: the tail i .. len (< 32 bytes, starting on an element boundary).
    unsafe { std::ptr::copy_nonoverlapping(pattern.as_ptr(), dst.add(i), len - i) };
}

/// `dst[i] = src[i * stride bytes]` for elements of `T` at a stride of +-2, +-3 or +-4 elements, with byte shuffles
/// (hardware gathers measured 5x slower on the development machine). Returns `false`, having written nothing, for
/// any other stride; the caller then runs the portable loop.
///
/// # Safety
/// AVX2 is available; the `n` source elements and `n` contiguous destination elements are valid; no overlap.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn gather_avx2<T: Elem>(src: *const u8, dst: *mut u8, n: usize, stride: isize, nt: bool) -> bool {
    let e = T::SIZE as isize;
    if stride % e != 0 {
        return false;
    }
    let k = stride / e;
    // SAFETY: for all arms, the caller's contract; K * e is the byte stride's magnitude.
    unsafe {
        match k.unsigned_abs() {
            2 => gather_k::<T, 2>(src, dst, n, k < 0, nt),
            3 => gather_k::<T, 3>(src, dst, n, k < 0, nt),
            4 => gather_k::<T, 4>(src, dst, n, k < 0, nt),
            _ => return false,
        }
    }
    true
}

/// `pshufb` masks for a gather of `e`-byte elements at stride `k` elements: mask `c` moves into each 16-byte output
/// lane the bytes that lie in chunk `c` of the lane's `16 k` source bytes, and zeroes the others (so that the
/// `k` shuffled chunks can be OR-ed together). Both 128-bit halves hold the same lane mask.
fn gather_masks(e: usize, k: usize) -> [[i8; 32]; 4] {
    let mut masks = [[i8::MIN; 32]; 4];
    for j in 0..16 {
        let from = (j / e) * k * e + j % e;
        masks[from / 16][j] = (from % 16) as i8;
        masks[from / 16][j + 16] = (from % 16) as i8;
    }
    masks
}

/// Gathers the `32 / size_of T` elements at stride `K` elements starting at `p`, forwards, reading the `32 K`
/// bytes from `p` (the last element's stride step included).
///
/// # Safety
/// AVX2 is available; `32 K` bytes readable at `p`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn gather_block<T: Elem, const K: usize>(p: *const u8, masks: &[__m256i; 4]) -> __m256i {
    // SAFETY: for every load, the loads cover bytes p .. p + 32 K, the caller's range.
    unsafe {
        if T::SIZE == 4 && K == 2 {
            // Two 8-element vectors; `shufps` keeps the even elements of each 128-bit half, `vpermq` orders them.
            let a = _mm256_castsi256_ps(_mm256_loadu_si256(p.cast()));
            let b = _mm256_castsi256_ps(_mm256_loadu_si256(p.add(32).cast()));
            let even = _mm256_shuffle_ps::<0b10_00_10_00>(a, b);
            return _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_castps_si256(even));
        }
        if T::SIZE == 4 && K == 3 {
            // Three vectors, each permuted across lanes so that its elements land in place, then blended.
            let a =
                _mm256_permutevar8x32_epi32(_mm256_loadu_si256(p.cast()), _mm256_setr_epi32(0, 3, 6, 0, 0, 0, 0, 0));
            let b = _mm256_permutevar8x32_epi32(
                _mm256_loadu_si256(p.add(32).cast()),
                _mm256_setr_epi32(0, 0, 0, 1, 4, 7, 0, 0),
            );
            let c = _mm256_permutevar8x32_epi32(
                _mm256_loadu_si256(p.add(64).cast()),
                _mm256_setr_epi32(0, 0, 0, 0, 0, 0, 2, 5),
            );
            return _mm256_blend_epi32::<0b1100_0000>(_mm256_blend_epi32::<0b0011_1000>(a, b), c);
        }
        // General case: output lane h (16 bytes) comes from source bytes 16 K h .. 16 K (h + 1); `pshufb` works
        // within 128-bit lanes, so chunk c of both lanes is loaded into one vector and shuffled with mask c.
        let mut acc = _mm256_setzero_si256();
        for (c, mask) in masks.iter().enumerate().take(K) {
            let lo = _mm_loadu_si128(p.add(16 * c).cast());
            let hi = _mm_loadu_si128(p.add(16 * K + 16 * c).cast());
            let v = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            acc = _mm256_or_si256(acc, _mm256_shuffle_epi8(v, *mask));
        }
        acc
    }
}

/// The gather of [`gather_avx2`] at a stride of `K` elements, backwards when `neg`.
///
/// A vector block of outputs `i .. i + per` reads the `32 K` source bytes from its lowest element on, which run
/// `(K - 1)` elements' worth past its highest element: up to (excluding) the element of output `i + per` going
/// forwards, of output `i - 1` going backwards. Vector blocks are only used where that element exists, so no byte
/// outside the caller's range is read. Backward gathers run their blocks from the last to the first, so that the
/// source is read at rising addresses (see [`reverse_avx2`]).
///
/// # Safety
/// As for [`gather_avx2`], with the byte stride `K * size_of T`, negated when `neg`.
#[target_feature(enable = "avx2")]
unsafe fn gather_k<T: Elem, const K: usize>(src: *const u8, dst: *mut u8, n: usize, neg: bool, nt: bool) {
    let e = T::SIZE;
    let per = 32 / e;
    let step = K * e;
    let head = if nt { head_to_align(dst, n * e) / e } else { 0 };
    // A head that is not a whole number of elements cannot reach alignment: fall back to unaligned stores.
    let nt = nt && (dst as usize + head * e).is_multiple_of(32);
    // Backwards, block 0 would read above output 0's element: start one block later (alignment is kept).
    let start = if neg && head == 0 { per.min(n) } else { head };
    let room = if neg { n - start } else { n.saturating_sub(start + 1) };
    let vec_end = start + room / per * per;
    // SAFETY: callers pass i < n, an element of the caller's source range.
    let elem = |i: usize| unsafe { if neg { src.sub(i * step) } else { src.add(i * step) } };
    let scalar = |i: usize| {
        // SAFETY: element i < n of both ranges.
        unsafe { dst.cast::<T>().add(i).write_unaligned(elem(i).cast::<T>().read_unaligned()) }
    };
    let masks = gather_masks(e, K).map(|m| {
        // SAFETY: `m` is 32 bytes.
        unsafe { _mm256_loadu_si256(m.as_ptr().cast()) }
    });
    if neg {
        for i in (vec_end..n).rev() {
            scalar(i);
        }
        let mut i = vec_end;
        while i > start {
            i -= per;
            // SAFETY: the block reads 32 K bytes from output i + per - 1's element (i + per <= n) up to, excluding,
            // output i - 1's element (i >= start >= 1); destination elements i .. i + per lie in the range and are
            // 32-byte aligned when nt (start is aligned, steps of 32 bytes).
            unsafe {
                let v = gather_block::<T, K>(elem(i + per - 1), &masks);
                store(dst.add(i * e), reverse_vector::<T>(v), nt);
            }
        }
        for i in (0..start).rev() {
            scalar(i);
        }
    } else {
        for i in 0..start {
            scalar(i);
        }
        let mut i = start;
        while i < vec_end {
            // SAFETY: the block reads 32 K bytes from output i's element up to, excluding, output i + per's
            // (i + per < n); destination elements i .. i + per lie in the range, aligned when nt.
            unsafe { store(dst.add(i * e), gather_block::<T, K>(elem(i), &masks), nt) };
            i += per;
        }
        for i in vec_end..n {
            scalar(i);
        }
    }
}

/// Transposes one full 8x8 tile of 4-byte elements: `dst[a * a_dst + b] = src[a + b * b_src]`, `a, b < 8`.
///
/// # Safety
/// AVX2 is available; the 8 source rows of 32 bytes at `src + b * b_src` and the 8 destination rows of 32 bytes at
/// `dst + a * a_dst` are valid; no overlap.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn tile8(src: *const u8, dst: *mut u8, a_dst: isize, b_src: isize) {
    // SAFETY: row j of the source tile is 32 bytes at src + j * b_src (the caller's contract).
    let row = |j: isize| unsafe { _mm256_castsi256_ps(_mm256_loadu_si256(src.offset(j * b_src).cast())) };
    let (r0, r1, r2, r3, r4, r5, r6, r7) = (row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7));
    let t0 = _mm256_unpacklo_ps(r0, r1);
    let t1 = _mm256_unpackhi_ps(r0, r1);
    let t2 = _mm256_unpacklo_ps(r2, r3);
    let t3 = _mm256_unpackhi_ps(r2, r3);
    let t4 = _mm256_unpacklo_ps(r4, r5);
    let t5 = _mm256_unpackhi_ps(r4, r5);
    let t6 = _mm256_unpacklo_ps(r6, r7);
    let t7 = _mm256_unpackhi_ps(r6, r7);
    let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
    let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
    let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
    let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
    let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
    let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
    let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
    let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
    let out = [
        _mm256_permute2f128_ps::<0x20>(u0, u4),
        _mm256_permute2f128_ps::<0x20>(u1, u5),
        _mm256_permute2f128_ps::<0x20>(u2, u6),
        _mm256_permute2f128_ps::<0x20>(u3, u7),
        _mm256_permute2f128_ps::<0x31>(u0, u4),
        _mm256_permute2f128_ps::<0x31>(u1, u5),
        _mm256_permute2f128_ps::<0x31>(u2, u6),
        _mm256_permute2f128_ps::<0x31>(u3, u7),
    ];
    for (i, v) in out.into_iter().enumerate() {
        // SAFETY: row i of the destination tile is 32 bytes at dst + i * a_dst (the caller's contract).
        unsafe { _mm256_storeu_si256(dst.offset(i as isize * a_dst).cast(), _mm256_castps_si256(v)) };
    }
}

/// One round of a 128-bit transpose network over `N` registers of `N` rows of `16 / N`-byte elements: the
/// registers hold `cols` column blocks of `N / cols` row groups (index `c * groups + q`); interleaving the
/// `width`-bit units of row groups `2q` and `2q + 1` doubles the column blocks and halves the row groups.
#[target_feature(enable = "avx2")]
#[inline]
fn unpack_round<const N: usize>(v: &[__m128i; N], cols: usize, width: u32) -> [__m128i; N] {
    let groups = N / cols;
    let mut out = *v;
    for c in 0..cols {
        for q in 0..groups / 2 {
            let (a, b) = (v[c * groups + 2 * q], v[c * groups + 2 * q + 1]);
            let (lo, hi) = match width {
                8 => (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)),
                16 => (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)),
                32 => (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)),
                _ => (_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)),
            };
            out[2 * c * (groups / 2) + q] = lo;
            out[(2 * c + 1) * (groups / 2) + q] = hi;
        }
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
unsafe fn tile16<const N: usize>(src: *const u8, dst: *mut u8, a_dst: isize, b_src: isize) {
    // SAFETY: row j of the source tile is 16 bytes at src + j * b_src (the caller's contract).
    let mut v: [__m128i; N] =
        std::array::from_fn(|j| unsafe { _mm_loadu_si128(src.offset(j as isize * b_src).cast()) });
    let (mut cols, mut width) = (1, 128 / N as u32);
    while cols < N {
        v = unpack_round(&v, cols, width);
        (cols, width) = (cols * 2, width * 2);
    }
    for (a, row) in v.into_iter().enumerate() {
        // SAFETY: row a of the destination tile is 16 bytes at dst + a * a_dst (the caller's contract).
        unsafe { _mm_storeu_si128(dst.offset(a as isize * a_dst).cast(), row) };
    }
}

/// Transposes one full 4x4 tile of 8-byte elements: `dst[a * a_dst + b] = src[a + b * b_src]`.
///
/// # Safety
/// AVX2 is available; the 4 source rows of 32 bytes at `src + b * b_src` and the 4 destination rows of 32 bytes at
/// `dst + a * a_dst` are valid; no overlap.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn tile4x8(src: *const u8, dst: *mut u8, a_dst: isize, b_src: isize) {
    // SAFETY: row j of the source tile is 32 bytes at src + j * b_src (the caller's contract).
    let row = |j: isize| unsafe { _mm256_loadu_si256(src.offset(j * b_src).cast()) };
    let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
    let (t0, t1) = (_mm256_unpacklo_epi64(r0, r1), _mm256_unpackhi_epi64(r0, r1));
    let (t2, t3) = (_mm256_unpacklo_epi64(r2, r3), _mm256_unpackhi_epi64(r2, r3));
    let out = [
        _mm256_permute2x128_si256::<0x20>(t0, t2),
        _mm256_permute2x128_si256::<0x20>(t1, t3),
        _mm256_permute2x128_si256::<0x31>(t0, t2),
        _mm256_permute2x128_si256::<0x31>(t1, t3),
    ];
    for (i, v) in out.into_iter().enumerate() {
        // SAFETY: row i of the destination tile is 32 bytes at dst + i * a_dst (the caller's contract).
        unsafe { _mm256_storeu_si256(dst.offset(i as isize * a_dst).cast(), v) };
    }
}

/// Source bytes of each row `b` a chunk reads when no scratch block is used (64 elements of 4 bytes).
const CHUNK_BYTES: usize = 256;

/// Bytes of the (L1/L2-resident) scratch block a streaming transpose assembles before streaming it out. 64 KiB
/// measured faster than 16 KiB on the development machine (NCHW -> NHWC f32: 18-19 GB/s against 16).
const SCRATCH_BYTES: usize = 64 << 10;

/// Transposes elements of `T`: `dst[a * a_dst + b] = src[a + b * b_src]`. The `a` range is walked in chunks;
/// inside a chunk, square SIMD tiles (16 x 16 bytes, 8 x 8 of 2 or 4 bytes, 4 x 4 of 8 bytes) go `b`-block by
/// `b`-block, so every source row is read in runs of at least 256 contiguous bytes, and the next chunk's source
/// lines are prefetched. With `nt`, when a chunk's destination rows are contiguous (NCHW -> NHWC), the chunk is
/// assembled in a 64 KiB scratch block and then streamed out, which saves the read-for-ownership of every
/// destination line; when they are long (NHWC -> NCHW), [`transpose_stream_cols`] streams column blocks instead.
///
/// # Safety
/// AVX2 is available; every source element `(a, b)` and destination element `(a, b)` for `a < na`, `b < nb` is
/// valid; no overlap.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn transpose_avx2<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    nt: bool,
) {
    let e = T::SIZE;
    if a_dst == (nb * e) as isize {
        // SAFETY: the caller's contract, with a contiguous destination (a_dst == nb * e).
        let done = unsafe {
            match nb {
                2 => interleave::<T, 2>(src, dst, na, b_src, nt),
                3 => interleave::<T, 3>(src, dst, na, b_src, nt),
                4 => interleave::<T, 4>(src, dst, na, b_src, nt),
                _ => false,
            }
        };
        if done {
            return;
        }
    }
    let tile = tile_size(e);
    let row_bytes = nb * e;
    let use_scratch = nt && a_dst == row_bytes as isize && row_bytes * tile <= SCRATCH_BYTES;
    if nt && !use_scratch && a_dst > 0 && a_dst % 32 == 0 && na * COL_BLOCK <= SCRATCH_BYTES {
        // SAFETY: the caller's contract; the conditions of the column-streaming form hold.
        unsafe { transpose_stream_cols::<T>(src, dst, na, a_dst, nb, b_src) };
        return;
    }
    let chunk = if use_scratch { (SCRATCH_BYTES / row_bytes / tile * tile).min(256) } else { CHUNK_BYTES / e };
    // Left uninitialised: a chunk's tiles write every byte of its rows before the streaming copy reads them.
    let mut scratch = std::mem::MaybeUninit::<[__m256i; SCRATCH_BYTES / 32]>::uninit();
    let scratch_ptr = scratch.as_mut_ptr().cast::<u8>();
    let ei = e as isize;
    // Fewer rows than a tile into a contiguous destination (5 to 15 planes of bytes to pixels, say): the tile
    // reads its `nb` rows from a staging block whose other rows are zero, and writes whole tile rows of `tile * e`
    // bytes at the destination rows' `nb * e` pitch. Each store runs past its row into the next ones, which later
    // stores (in rising `a`) overwrite; a tile whose last store would leave the chunk goes through `spill`. The
    // two buffers exist only for such transposes, so that the others do not pay for zeroing them on every call.
    let mut narrow =
        if nb < tile && a_dst == row_bytes as isize { Some(([[0u8; 32]; 16], [0u8; 16 * 32])) } else { None };
    let vec = tile * e;
    let mut c0 = 0;
    while c0 < na {
        let c1 = (c0 + chunk).min(na);
        if c1 < na {
            for b in 0..nb as isize {
                for line in (0..chunk * e).step_by(64) {
                    // Prefetching is a hint that never faults; wrapping_offset keeps the address computation
                    // defined even where it would leave the allocation.
                    let p = src.wrapping_offset(c1 as isize * ei + line as isize + b * b_src);
                    _mm_prefetch::<_MM_HINT_T0>(p.cast());
                }
            }
        }
        // Element (a, b) of this chunk goes to out + (a - out_a0) * a_dst + b * e.
        let (out, out_a0) = if use_scratch { (scratch_ptr, c0) } else { (dst, 0) };
        let one = |a: usize, b: usize| {
            let (ai, bi) = (a as isize, b as isize);
            // SAFETY: (a, b) inside the caller's ranges (a < na, b < nb); with scratch, (a - c0) < chunk rows of
            // row_bytes, inside the scratch block.
            unsafe {
                out.offset((a - out_a0) as isize * a_dst + bi * ei)
                    .cast::<T>()
                    .write_unaligned(src.offset(ai * ei + bi * b_src).cast::<T>().read_unaligned())
            }
        };
        let mut b0 = 0;
        while b0 < nb {
            let full_b = b0 + tile <= nb;
            let mut a0 = c0;
            while a0 < c1 {
                if full_b && a0 + tile <= c1 {
                    let (a, b) = (a0 as isize, b0 as isize);
                    // SAFETY: the tile a0 .. a0 + tile, b0 .. b0 + tile lies inside the source range and inside
                    // the destination range (or the scratch block, rows a0 - c0 .. a0 - c0 + tile <= chunk).
                    unsafe {
                        let (s, d) =
                            (src.offset(a * ei + b * b_src), out.offset((a0 - out_a0) as isize * a_dst + b * ei));
                        tile_for::<T>(s, d, a_dst, b_src)
                    };
                } else if let Some((stage, spill)) = narrow.as_mut()
                    && a0 + tile <= c1
                {
                    for (j, row) in stage.iter_mut().enumerate().take(nb) {
                        // SAFETY: elements a0 .. a0 + tile (vec <= 32 bytes) of source row j < nb, inside the
                        // caller's range; the staging row holds 32 bytes.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                src.offset(a0 as isize * ei + j as isize * b_src),
                                row.as_mut_ptr(),
                                vec,
                            )
                        };
                    }
                    let (row0, chunk_end) = ((a0 - out_a0) * row_bytes, (c1 - out_a0) * row_bytes);
                    // SAFETY: the tile reads `tile` staging rows of `vec` bytes (32 apart, 16 rows of 32 bytes).
                    // Directly: it writes bytes row0 .. row0 + (tile - 1) * row_bytes + vec of `out`, inside the
                    // chunk's rows (checked), which are this call's destination rows (or the scratch block's
                    // chunk rows); bytes past row a0 + tile - 1 belong to later rows of the chunk, written again
                    // after this tile. Through `spill` (16 * 32 bytes >= (tile - 1) * row_bytes + vec), the
                    // copy writes exactly rows a0 .. a0 + tile.
                    unsafe {
                        let staged = stage.as_ptr().cast::<u8>();
                        if row0 + (tile - 1) * row_bytes + vec <= chunk_end {
                            tile_for::<T>(staged, out.add(row0), a_dst, 32);
                        } else {
                            tile_for::<T>(staged, spill.as_mut_ptr(), a_dst, 32);
                            std::ptr::copy_nonoverlapping(spill.as_ptr(), out.add(row0), tile * row_bytes);
                        }
                    }
                } else {
                    for a in a0..(a0 + tile).min(c1) {
                        for b in b0..(b0 + tile).min(nb) {
                            one(a, b);
                        }
                    }
                }
                a0 += tile;
            }
            b0 += tile;
        }
        if use_scratch {
            // SAFETY: the scratch block holds rows c0..c1 (contiguous, row_bytes each), every byte of them written
            // above (each element (a, b) of the chunk once); the destination rows c0..c1 are contiguous too
            // (a_dst == row_bytes) and inside the destination range.
            unsafe { copy_nt_avx2(scratch_ptr, dst.offset(c0 as isize * a_dst), (c1 - c0) * row_bytes) };
        }
        c0 = c1;
    }
}

/// A 16-byte streaming store (under Miri an ordinary store, as for [`stream32`]).
///
/// # Safety
/// 16 bytes writable at `dst`, which is 16-byte aligned.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn stream16(dst: *mut u8, v: __m128i) {
    debug_assert!((dst as usize).is_multiple_of(16));
    #[cfg(not(miri))]
    // SAFETY: the caller's contract (aligned, writable).
    unsafe {
        _mm_stream_si128(dst.cast(), v)
    };
    #[cfg(miri)]
    // SAFETY: the caller's contract (writable).
    unsafe {
        _mm_storeu_si128(dst.cast(), v)
    };
}

/// The transpose of [`transpose_avx2`] into a contiguous destination with `NB` = 2, 3 or 4 short rows: the
/// interleave of `NB` planes (CHW -> HWC images, planar -> interleaved pairs), `dst[a * NB + b] = src[a + b *
/// b_src]`. The square tiles would leave such a transpose to their scalar edge loop. Each block takes 16 bytes of
/// every source row and writes the `16 NB` destination bytes they make: destination chunk `j` is the OR of one
/// `pshufb` per source row (mask `[j][b]` picks the bytes of row `b` that land in chunk `j`). Returns `false`,
/// having written nothing, when there is not one whole block (the caller's tiles handle it).
///
/// # Safety
/// As for [`transpose_avx2`] with `nb == NB` and `a_dst == NB * size_of T`.
#[target_feature(enable = "avx2")]
unsafe fn interleave<T: Elem, const NB: usize>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    b_src: isize,
    nt: bool,
) -> bool {
    let e = T::SIZE;
    let per = 16 / e;
    if na < 2 * per {
        return false;
    }
    let mut mask_bytes = [[[i8::MIN; 16]; NB]; NB];
    for p in 0..16 * NB {
        let (elem, byte) = (p / e, p % e);
        mask_bytes[p / 16][elem % NB][p % 16] = ((elem / NB) * e + byte) as i8;
    }
    // SAFETY: each mask is 16 bytes.
    let masks = mask_bytes.map(|row| row.map(|m| unsafe { _mm_loadu_si128(m.as_ptr().cast()) }));
    // Streaming stores need 16-byte alignment: a head of `a` values that brings the destination there, if any
    // (the destination advances NB * e bytes per value, so one of the first 16 values aligns it when any does).
    let head = if nt { (0..16.min(na)).find(|h| (dst as usize + h * NB * e).is_multiple_of(16)) } else { None };
    let (nt, head) = match head {
        Some(h) => (true, h),
        None => (false, 0),
    };
    let blocks = (na - head) / per;
    let vec_end = head + blocks * per;
    let ei = e as isize;
    let scalar = |a: usize| {
        for b in 0..NB {
            // SAFETY: element (a, b), a < na, b < NB, of both of the caller's ranges.
            unsafe {
                dst.add((a * NB + b) * e)
                    .cast::<T>()
                    .write_unaligned(src.offset(a as isize * ei + b as isize * b_src).cast::<T>().read_unaligned())
            };
        }
    };
    (0..head).for_each(scalar);
    for a0 in (head..vec_end).step_by(per) {
        // SAFETY: source elements a0 .. a0 + per of every row b < NB (16 bytes each), a0 + per <= vec_end <= na.
        let rows: [__m128i; NB] = std::array::from_fn(|b| unsafe {
            _mm_loadu_si128(src.offset(a0 as isize * ei + b as isize * b_src).cast())
        });
        // SAFETY: the first destination byte of element (a0, 0), inside the range.
        let out = unsafe { dst.add(a0 * NB * e) };
        for (j, chunk_masks) in masks.iter().enumerate() {
            let mut v = _mm_setzero_si128();
            for (row, mask) in rows.iter().zip(chunk_masks) {
                v = _mm_or_si128(v, _mm_shuffle_epi8(*row, *mask));
            }
            // SAFETY: destination bytes of elements a0 .. a0 + per (16 NB bytes from `out`), inside the range;
            // 16-byte aligned when nt (the head aligned it, blocks advance 16 NB bytes).
            unsafe { if nt { stream16(out.add(16 * j), v) } else { _mm_storeu_si128(out.add(16 * j).cast(), v) } };
        }
    }
    (vec_end..na).for_each(scalar);
    true
}

/// Elements per side of the square SIMD tile for `e`-byte elements.
const fn tile_size(e: usize) -> usize {
    match e {
        1 => 16,
        8 => 4,
        _ => 8,
    }
}

/// Transposes one full tile of [`tile_size`] elements of `T` per side.
///
/// # Safety
/// As for the tile function of the size: every source row `src + b * b_src` and destination row `dst + a * a_dst`
/// of `tile_size * size_of T` bytes is valid; no overlap; AVX2 is available.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn tile_for<T: Elem>(src: *const u8, dst: *mut u8, a_dst: isize, b_src: isize) {
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

/// Bytes of each destination row that [`transpose_stream_cols`] assembles per block (four cache lines).
const COL_BLOCK: usize = 256;

/// The transpose of [`transpose_avx2`] when the destination rows `a` are long (NHWC -> NCHW: few rows of a whole
/// plane each, `a_dst` a multiple of 32) and there are few of them (`na * COL_BLOCK` fits the scratch block). Written row by
/// row in 32-byte pieces, such a transpose keeps `na` partial lines in flight per row block and pays a
/// read-for-ownership for each; here a block of `COL_BLOCK` bytes of every row is assembled in scratch from the
/// contiguous source rows, then streamed out as whole, aligned lines. Columns before the first 32-byte aligned
/// destination column and after the last whole block take the plain tiled path.
///
/// # Safety
/// As for [`transpose_avx2`]; in addition `a_dst > 0`, `a_dst % 32 == 0` and `na * COL_BLOCK <= SCRATCH_BYTES`.
#[target_feature(enable = "avx2")]
unsafe fn transpose_stream_cols<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
) {
    let e = T::SIZE;
    let ei = e as isize;
    let tile = tile_size(e);
    let wb = COL_BLOCK / e;
    let head_bytes = head_to_align(dst, nb * e);
    // A destination that is not element-aligned cannot be brought to 32-byte alignment: no streaming blocks.
    let (head, blocks) =
        if head_bytes.is_multiple_of(e) { (head_bytes / e, (nb - head_bytes / e) / wb) } else { (nb, 0) };
    let body_end = head + blocks * wb;
    // Columns 0 .. head and body_end .. nb: sub-ranges of the caller's (a, b) ranges, run without streaming (so
    // this function is not re-entered). An empty range is skipped: its start may lie outside the allocation.
    if head > 0 {
        // SAFETY: columns 0 .. head of the caller's range.
        unsafe { transpose_avx2::<T>(src, dst, na, a_dst, head, b_src, false) };
    }
    if body_end < nb {
        let (bs, bd) = (body_end as isize * b_src, body_end as isize * ei);
        // SAFETY: columns body_end .. nb of the caller's range; column body_end exists.
        unsafe { transpose_avx2::<T>(src.offset(bs), dst.offset(bd), na, a_dst, nb - body_end, b_src, false) };
    }
    // Left uninitialised: every block writes rows 0 .. na of COL_BLOCK bytes before they are streamed out.
    let mut scratch = std::mem::MaybeUninit::<[__m256i; SCRATCH_BYTES / 32]>::uninit();
    let scratch_ptr = scratch.as_mut_ptr().cast::<u8>();
    let cb = COL_BLOCK as isize;
    for blk in 0..blocks {
        let b0 = (head + blk * wb) as isize;
        // Source rows b0 + bb .. + tile (contiguous, `tile` rows of `na` elements) are consumed one group at a
        // time, so the source is read strictly forwards; the scratch rows take `tile` elements each.
        let full_a = na / tile * tile;
        for bb in (0..wb as isize).step_by(tile) {
            for a in (0..full_a as isize).step_by(tile) {
                // SAFETY: source tile rows b0 + bb .. + tile, elements a .. a + tile, inside the caller's range
                // (b0 + bb + tile <= body_end <= nb, a + tile <= na); scratch rows a .. a + tile at bytes
                // bb * e .. (bb + tile) * e of COL_BLOCK, inside the block (na * COL_BLOCK <= SCRATCH_BYTES).
                unsafe {
                    tile_for::<T>(
                        src.offset(a * ei + (b0 + bb) * b_src),
                        scratch_ptr.offset(a * cb + bb * ei),
                        cb,
                        b_src,
                    )
                };
            }
        }
        for ai in full_a as isize..na as isize {
            for bb in 0..wb as isize {
                // SAFETY: element (ai, b0 + bb) of the source range; byte bb * e of scratch row ai.
                unsafe {
                    scratch_ptr
                        .offset(ai * cb + bb * ei)
                        .cast::<T>()
                        .write_unaligned(src.offset(ai * ei + (b0 + bb) * b_src).cast::<T>().read_unaligned())
                };
            }
        }
        for a in 0..na as isize {
            for piece in (0..cb).step_by(32) {
                // SAFETY: scratch row a was fully written above; the destination bytes b0 * e + piece .. + 32 of
                // row a lie inside the block b0 .. b0 + wb of the caller's range, 32-byte aligned (dst + head * e
                // is aligned, a_dst and COL_BLOCK are multiples of 32).
                unsafe {
                    let v = _mm256_loadu_si256(scratch_ptr.offset(a * cb + piece).cast());
                    stream32(dst.offset(a * a_dst + b0 * ei + piece), v);
                }
            }
        }
    }
}
