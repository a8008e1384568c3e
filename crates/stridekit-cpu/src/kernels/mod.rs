//! The copy kernels: the only module of the workspace with `unsafe` code.
//!
//! Soundness rests on one check made here, before any raw pointer is touched: [`execute`] computes, from the
//! [`Program`] alone, the lowest and highest byte every loop and kernel can reach on each side (in `i128`, so nothing
//! overflows) and refuses to run unless `0 <= lowest` and `highest <= len` for the input and the output slices.
//! Every pointer the kernels form afterwards lies inside those ranges, because each kernel reads and writes exactly
//! the elements the extent computation counted. Output offsets of distinct coordinates are distinct (D1, checked by
//! `stridekit` when the plan was validated), so parts of the output handed to different threads never share a byte,
//! and a kernel's source bytes never overlap its destination bytes (different slices, `&` vs `&mut`).
#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
mod x86;

use crate::program::{Dim, Inner, Program};
use crate::{ExecError, ExecOptions};

/// The SIMD level chosen at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Simd {
    /// Portable Rust only.
    None,
    /// x86_64 AVX2 (which implies SSE2 and SSSE3).
    Avx2,
}

fn detect(enabled: bool) -> Simd {
    #[cfg(target_arch = "x86_64")]
    if enabled && std::arch::is_x86_feature_detected!("avx2") {
        return Simd::Avx2;
    }
    let _ = enabled;
    Simd::None
}

/// Per-call execution context.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    esize: usize,
    simd: Simd,
    /// Use non-temporal stores.
    nt: bool,
}

/// Raw base pointers shared by the threads of one call.
#[derive(Debug, Clone, Copy)]
struct Bases {
    src: *const u8,
    dst: *mut u8,
}

// SAFETY: the pointers come from a `&[u8]` and a `&mut [u8]` borrowed for the whole call (the threads are joined
// before `execute` returns). Threads only read through `src`, and write through `dst` to pairwise disjoint bytes
// (the parts are disjoint sets of output coordinates and D1 makes their offsets distinct), so sharing them is
// data-race free.
unsafe impl Send for Bases {}
// SAFETY: as for `Send`: shared use is reads of the input and disjoint writes of the output.
unsafe impl Sync for Bases {}

/// The `(count, stride)` walks of one side of a program, and the element width at the end.
fn walks(p: &Program, side_src: bool) -> Vec<(i128, i128)> {
    let e = p.esize as i128;
    let mut w: Vec<(i128, i128)> =
        p.outer.iter().map(|d| (d.n as i128, if side_src { d.src as i128 } else { d.dst as i128 })).collect();
    match (p.inner, side_src) {
        (Inner::Copy { bytes }, _) => w.push((bytes as i128 / e.max(1), e)),
        (Inner::Reverse { n }, true) => w.push((n as i128, -e)),
        (Inner::Fill { .. }, true) => {}
        (Inner::Gather { n, src }, true) => w.push((n as i128, src as i128)),
        (Inner::Reverse { n } | Inner::Fill { n } | Inner::Gather { n, .. }, false) => w.push((n as i128, e)),
        (Inner::Transpose { na, nb, b_src, .. }, true) => {
            w.push((na as i128, e));
            w.push((nb as i128, b_src as i128));
        }
        (Inner::Transpose { na, a_dst, nb, .. }, false) => {
            w.push((na as i128, a_dst as i128));
            w.push((nb as i128, e));
        }
        (Inner::Scatter { n, src, dst }, _) => w.push((n as i128, if side_src { src as i128 } else { dst as i128 })),
    }
    w
}

/// `[lowest, highest)` bytes reached from `start` by `walks` with elements of `esize` bytes.
fn reach(start: i128, walks: &[(i128, i128)], esize: usize) -> (i128, i128) {
    let (mut lo, mut hi) = (start, start);
    for &(n, s) in walks {
        let span = (n - 1).max(0) * s;
        if span < 0 { lo += span } else { hi += span }
    }
    (lo, hi + esize as i128)
}

/// A program and the byte ranges it reaches, both computed once. Only [`check`] builds one, so holding a
/// `Checked` means the reach was computed by this module.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    program: Program,
    /// One past the highest input byte read (the lowest is >= 0).
    src_end: u64,
    /// One past the highest output byte written (the lowest is >= 0).
    dst_end: u64,
}

/// Computes the byte ranges `program` reaches. `None` when a range starts below 0 or does not fit in `u64`, which
/// a validated plan never produces.
pub(crate) fn check(program: Program) -> Option<Checked> {
    let mut ends = [0u64; 2];
    for (end, (start, side_src)) in ends.iter_mut().zip([(program.src_start, true), (program.dst_start, false)]) {
        let (lo, hi) = reach(start as i128, &walks(&program, side_src), program.esize);
        if lo < 0 {
            return None;
        }
        *end = u64::try_from(hi).ok()?;
    }
    Some(Checked { program, src_end: ends[0], dst_end: ends[1] })
}

/// Runs the program of `checked`, reading `src` and writing the element bytes of `dst` (nothing else). Fails,
/// without touching `dst`, when the program reaches outside either slice.
pub(crate) fn execute(checked: &Checked, src: &[u8], dst: &mut [u8], options: &ExecOptions) -> Result<(), ExecError> {
    let p = &checked.program;
    // The soundness check of this module (see the module docs): every byte any kernel touches lies in the slices.
    for (tensor, needed, len) in
        [("InputTensor", checked.src_end, src.len()), ("OutputTensor", checked.dst_end, dst.len())]
    {
        if needed > len as u64 {
            return Err(ExecError::OutOfRange { tensor, needed, len: len as u64 });
        }
    }
    if !matches!(p.esize, 1 | 2 | 4 | 8) {
        // Slice1 plans only carry byte-sized types; anything else would be a plan this module does not know.
        return Err(ExecError::OutOfRange { tensor: "InputTensor", needed: p.esize as u64, len: 0 });
    }
    let simd = detect(options.simd);
    let ctx = Ctx { esize: p.esize, simd, nt: p.out_bytes >= options.non_temporal_min_bytes && simd != Simd::None };
    let parts = if p.out_bytes >= options.parallel_min_bytes { options.effective_threads() } else { 1 };
    // SAFETY: `src` is readable for `src.len()` bytes; adding `src_start` stays inside the slice because `check`
    // proved `src_start < src_end` and the test above `src_end <= src.len()`.
    let src = unsafe { src.as_ptr().add(p.src_start) };
    // SAFETY: likewise for the output: `dst_start < dst_end <= dst.len()`.
    let dst = unsafe { dst.as_mut_ptr().add(p.dst_start) };
    let bases = Bases { src, dst };
    if parts <= 1 {
        // SAFETY: the range test above covers every byte the whole program touches.
        unsafe { run_from(p, 0, bases.src, bases.dst, ctx) };
        if ctx.nt {
            fence();
        }
        return Ok(());
    }
    let split = Split::new(p, parts);
    for_each_part(split.parts, &|part| {
        // SAFETY: as above for the byte ranges; distinct parts write disjoint output bytes (module docs).
        unsafe { run_part(p, &split, part, bases, ctx) }
    });
    Ok(())
}

fn for_each_part(parts: usize, f: &(dyn Fn(usize) + Sync)) {
    fn rec(lo: usize, hi: usize, f: &(dyn Fn(usize) + Sync)) {
        if hi - lo == 1 {
            f(lo);
        } else {
            let mid = lo + (hi - lo) / 2;
            rayon::join(|| rec(lo, mid, f), || rec(mid, hi, f));
        }
    }
    rec(0, parts, f);
}

/// How a program is divided into parts: either ranges of the first `levels` outer loops flattened, or ranges of
/// the inner kernel's count when there are no outer loops.
#[derive(Debug, Clone, Copy)]
struct Split {
    parts: usize,
    levels: usize,
    total: usize,
    /// Alignment of part boundaries in inner-count units (64 bytes for bulk copies).
    grain: usize,
}

impl Split {
    fn new(p: &Program, parts: usize) -> Split {
        if p.outer.is_empty() {
            let (total, grain) = match p.inner {
                Inner::Copy { bytes } => (bytes, 64),
                Inner::Reverse { n } | Inner::Fill { n } | Inner::Gather { n, .. } | Inner::Scatter { n, .. } => {
                    (n, 64)
                }
                Inner::Transpose { na, .. } => (na, 8),
            };
            let parts = parts.min(total.div_ceil(grain)).max(1);
            return Split { parts, levels: 0, total, grain };
        }
        let mut levels = 0;
        let mut total = 1usize;
        while levels < p.outer.len() && total < parts.saturating_mul(4) {
            total = total.saturating_mul(p.outer[levels].n);
            levels += 1;
        }
        Split { parts: parts.min(total).max(1), levels, total, grain: 1 }
    }

    /// The half-open range of part `i`.
    fn range(&self, i: usize) -> (usize, usize) {
        let units = self.total.div_ceil(self.grain);
        let bound = |k: usize| ((units as u128 * k as u128 / self.parts as u128) as usize * self.grain).min(self.total);
        (bound(i), bound(i + 1))
    }
}

/// Runs part `part` of `p`.
///
/// # Safety
/// `bases.src` must be readable and `bases.dst` writable over every byte the program reaches (the check in
/// [`execute`]); no other thread may access the output bytes of this part meanwhile.
unsafe fn run_part(p: &Program, split: &Split, part: usize, bases: Bases, ctx: Ctx) {
    let (a, b) = split.range(part);
    if a >= b {
        return;
    }
    if split.levels == 0 {
        let e = ctx.esize as isize;
        let (count, so, d_o) = (b - a, a as isize, a as isize);
        let (inner, so, d_o) = match p.inner {
            Inner::Copy { .. } => (Inner::Copy { bytes: count }, so, d_o),
            Inner::Reverse { .. } => (Inner::Reverse { n: count }, -so * e, d_o * e),
            Inner::Fill { .. } => (Inner::Fill { n: count }, 0, d_o * e),
            Inner::Gather { src, .. } => (Inner::Gather { n: count, src }, so * src, d_o * e),
            Inner::Transpose { a_dst, nb, b_src, .. } => {
                (Inner::Transpose { na: count, a_dst, nb, b_src }, so * e, d_o * a_dst)
            }
            Inner::Scatter { src, dst, .. } => (Inner::Scatter { n: count, src, dst }, so * src, d_o * dst),
        };
        // SAFETY: the sub-range [a, b) of the inner kernel's count reaches a subset of the bytes of the whole kernel.
        unsafe { run_inner(inner, bases.src.offset(so), bases.dst.offset(d_o), ctx) };
    } else {
        let levels = &p.outer[..split.levels];
        // The odometer over the flattened prefix levels, started at index `a`.
        let mut coords = [0usize; 8];
        let mut rem = a;
        for (l, d) in levels.iter().enumerate().rev() {
            coords[l] = rem % d.n;
            rem /= d.n;
        }
        let offsets = |coords: &[usize; 8]| {
            levels.iter().enumerate().fold((0isize, 0isize), |(s, d), (l, dim)| {
                (s + coords[l] as isize * dim.src, d + coords[l] as isize * dim.dst)
            })
        };
        let (mut so, mut d_o) = offsets(&coords);
        let replicate = split.levels == 1 && levels[0].replicate;
        let first_dst = d_o;
        for idx in a..b {
            if replicate && idx > a {
                // SAFETY: the block at `first_dst` was written by this part and is `levels[0].dst` bytes long; its
                // copy at `d_o` is the block this index would write, inside the checked output range.
                unsafe { copy_bytes(bases.dst.offset(first_dst), bases.dst.offset(d_o), levels[0].dst as usize, ctx) };
            } else {
                let run_ctx = if replicate { Ctx { nt: false, ..ctx } } else { ctx };
                // SAFETY: (so, d_o) are the offsets of a valid prefix coordinate; the rest is the caller's contract.
                unsafe { run_from(p, split.levels, bases.src.offset(so), bases.dst.offset(d_o), run_ctx) };
            }
            // Advance the odometer.
            let mut l = split.levels;
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

/// Orders this thread's non-temporal stores before whatever follows (the join that publishes them).
fn fence() {
    // Miri has no `sfence` (and no weakly ordered stores to order): the streaming stores themselves run under it.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    x86::sfence();
}

/// Runs the outer loops from `level` inward at `src`/`dst`.
///
/// # Safety
/// Every byte the remaining loops and the inner kernel reach from `src` (reads) and `dst` (writes) is valid.
unsafe fn run_from(p: &Program, level: usize, src: *const u8, dst: *mut u8, ctx: Ctx) {
    let Some(&Dim { n, src: s, dst: d, replicate }) = p.outer.get(level) else {
        // SAFETY: the caller's contract covers the inner kernel.
        unsafe { run_inner(p.inner, src, dst, ctx) };
        return;
    };
    if replicate {
        // SAFETY: step 0 of this loop, within the caller's contract. The first block is written with ordinary
        // stores: it is read back right away.
        unsafe { run_from(p, level + 1, src, dst, Ctx { nt: false, ..ctx }) };
        for i in 1..n {
            // SAFETY: the block of step 0 is `d` bytes at `dst` (the planner marks only destination-contiguous
            // blocks of exactly `d` bytes); step i writes the same bytes at `dst + i * d`, inside the range.
            unsafe { copy_bytes(dst, dst.offset(i as isize * d), d as usize, ctx) };
        }
    } else {
        for i in 0..n as isize {
            // SAFETY: step i of this loop, within the caller's contract.
            unsafe { run_from(p, level + 1, src.offset(i * s), dst.offset(i * d), ctx) };
        }
    }
}

/// Runs one inner kernel.
///
/// # Safety
/// The bytes `inner` reaches from `src` (reads) and `dst` (writes), as counted by `walks`, are valid and do not
/// overlap.
unsafe fn run_inner(inner: Inner, src: *const u8, dst: *mut u8, ctx: Ctx) {
    // SAFETY: for every arm, the forwarded contract; each kernel touches exactly the bytes `walks` counts.
    unsafe {
        match inner {
            Inner::Copy { bytes } => copy_bytes(src, dst, bytes, ctx),
            Inner::Reverse { n } => by_size!(ctx.esize, reverse, src, dst, n, ctx),
            Inner::Fill { n } => by_size!(ctx.esize, fill, src, dst, n, ctx),
            Inner::Gather { n, src: s } => by_size!(ctx.esize, gather, src, dst, n, s, ctx),
            Inner::Transpose { na, a_dst, nb, b_src } => {
                by_size!(ctx.esize, transpose, src, dst, na, a_dst, nb, b_src, ctx)
            }
            Inner::Scatter { n, src: s, dst: d } => by_size!(ctx.esize, scatter, src, dst, n, s, d, ctx),
        }
    }
}

/// Calls `$f::<T>` with `T` the unsigned integer of `$esize` bytes.
macro_rules! by_size {
    ($esize:expr, $f:ident, $($arg:expr),*) => {
        match $esize {
            1 => $f::<u8>($($arg),*),
            2 => $f::<u16>($($arg),*),
            4 => $f::<u32>($($arg),*),
            _ => $f::<u64>($($arg),*),
        }
    };
}
use by_size;

/// An element moved as an unsigned integer of its size (the kernels are type-blind).
trait Elem: Copy {
    const SIZE: usize;
}
impl Elem for u8 {
    const SIZE: usize = 1;
}
impl Elem for u16 {
    const SIZE: usize = 2;
}
impl Elem for u32 {
    const SIZE: usize = 4;
}
impl Elem for u64 {
    const SIZE: usize = 8;
}

/// Copies `len` bytes.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; the ranges do not overlap.
unsafe fn copy_bytes(src: *const u8, dst: *mut u8, len: usize, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if ctx.nt && ctx.simd == Simd::Avx2 && len >= x86::NT_MIN_RUN {
        // SAFETY: AVX2 was detected at run time; the ranges are the caller's.
        unsafe { x86::copy_nt_avx2(src, dst, len) };
        return;
    }
    let _ = ctx;
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
}

/// `dst[i] = src[-i]` for `i in 0..n` (elements).
///
/// # Safety
/// `src - (n-1)` .. `src` readable and `dst .. dst + n` writable (elements of `T`), not overlapping.
unsafe fn reverse<T: Elem>(src: *const u8, dst: *mut u8, n: usize, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 {
        // SAFETY: AVX2 detected; same ranges.
        unsafe { x86::reverse_avx2::<T>(src, dst, n, ctx.nt) };
        return;
    }
    let _ = ctx;
    let (s, d) = (src.cast::<T>(), dst.cast::<T>());
    for i in 0..n {
        // SAFETY: element i of the caller's ranges.
        unsafe { d.add(i).write_unaligned(s.sub(i).read_unaligned()) };
    }
}

/// `dst[i] = src[0]` for `i in 0..n`.
///
/// # Safety
/// One element readable at `src`, `n` elements writable at `dst`, not overlapping.
unsafe fn fill<T: Elem>(src: *const u8, dst: *mut u8, n: usize, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 {
        // SAFETY: AVX2 detected; same ranges.
        unsafe { x86::fill_avx2::<T>(src, dst, n, ctx.nt) };
        return;
    }
    let _ = ctx;
    // SAFETY: one element at `src`.
    let v = unsafe { src.cast::<T>().read_unaligned() };
    let d = dst.cast::<T>();
    for i in 0..n {
        // SAFETY: element i of the destination range.
        unsafe { d.add(i).write_unaligned(v) };
    }
}

/// `dst[i] = src[i * stride bytes]` for `i in 0..n`.
///
/// # Safety
/// The `n` source elements and `n` contiguous destination elements are valid and do not overlap.
unsafe fn gather<T: Elem>(src: *const u8, dst: *mut u8, n: usize, stride: isize, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 && n >= 16 {
        // SAFETY: AVX2 detected; same ranges.
        if unsafe { x86::gather_avx2::<T>(src, dst, n, stride, ctx.nt) } {
            return;
        }
    }
    let _ = ctx;
    let d = dst.cast::<T>();
    for i in 0..n {
        // SAFETY: element i of the caller's ranges.
        unsafe { d.add(i).write_unaligned(src.offset(i as isize * stride).cast::<T>().read_unaligned()) };
    }
}

/// `dst[a * a_dst + b] = src[a + b * b_src]` (element indices a, b; strides in bytes) in cache-sized tiles.
///
/// # Safety
/// Every source element `(a, b)` and destination element `(a, b)` for `a < na`, `b < nb` is valid; the sides do
/// not overlap.
unsafe fn transpose<T: Elem>(src: *const u8, dst: *mut u8, na: usize, a_dst: isize, nb: usize, b_src: isize, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2 {
        // SAFETY: AVX2 detected; same ranges.
        unsafe { x86::transpose_avx2::<T>(src, dst, na, a_dst, nb, b_src, ctx.nt) };
        return;
    }
    let _ = ctx;
    const TILE: usize = 16;
    let e = T::SIZE as isize;
    for a0 in (0..na).step_by(TILE) {
        for b0 in (0..nb).step_by(TILE) {
            for a in a0..(a0 + TILE).min(na) {
                for b in b0..(b0 + TILE).min(nb) {
                    let (a, b) = (a as isize, b as isize);
                    // SAFETY: (a, b) is inside the caller's tile ranges.
                    unsafe {
                        dst.offset(a * a_dst + b * e)
                            .cast::<T>()
                            .write_unaligned(src.offset(a * e + b * b_src).cast::<T>().read_unaligned())
                    };
                }
            }
        }
    }
}

/// `dst[i * d] = src[i * s]` (byte strides) for `i in 0..n`.
///
/// # Safety
/// The `n` source and `n` destination elements are valid and the sides do not overlap.
unsafe fn scatter<T: Elem>(src: *const u8, dst: *mut u8, n: usize, s: isize, d: isize, ctx: Ctx) {
    let _ = ctx;
    for i in 0..n as isize {
        // SAFETY: element i of the caller's ranges.
        unsafe { dst.offset(i * d).cast::<T>().write_unaligned(src.offset(i * s).cast::<T>().read_unaligned()) };
    }
}
