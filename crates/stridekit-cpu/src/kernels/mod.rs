//! The copy kernels: the only module of the workspace with `unsafe` code. One concept per file:
//!
//! - [`footprint`]: the soundness check. From the [`Program`](crate::planner::Program) alone it computes, once, the
//!   lowest and highest byte every loop and kernel can reach on each side (in `i128`, so nothing overflows);
//!   [`dispatch::execute`] refuses to run unless both ranges lie inside the slices. Each kernel's own footprint (the
//!   elements one call reads and writes) is written next to the kernel, in `portable/<kernel>.rs`, and is what
//!   the check sums up; in debug builds (tests, Miri) every kernel call re-checks its footprint against the range.
//! - [`split`]: dividing a copy into disjoint output parts for threads.
//! - [`dispatch`]: the outer loops, replication, and the choice of the kernel implementation (SIMD or portable).
//! - [`pattern`]: a block of a few bytes repeated over the bytes after it (the first rows of a broadcast).
//! - [`stage`]: streaming a loop of small calls through an L1 stage, so that streaming stores write whole lines.
//! - [`portable`]: the portable kernels, safe code over slices wherever the destination of one call is contiguous.
//! - `x86`: the AVX2 kernels, one file per kernel.
//! - [`pages`]: the huge-page advice for the buffers stridekit allocates.
//!
//! Output offsets of distinct coordinates are distinct (D1, checked by `stridekit` when the plan was validated), so
//! parts of the output handed to different threads never share a byte, and a kernel's source bytes never overlap
//! its destination bytes (different slices, `&` vs `&mut`).
#![allow(unsafe_code)]

mod dispatch;
mod footprint;
mod pages;
mod pattern;
mod portable;
mod split;
mod stage;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use dispatch::{execute, execute_raw, threads};
pub(crate) use footprint::{Checked, check, input_range};
pub(crate) use pages::advise_huge_pages;
pub(crate) use portable::fill::ADJACENT_BLOCK_MIN;
pub(crate) use portable::rows::{MOVES_MAX_BYTES, SHORT_ROW_MAX_BYTES, stores_ordinarily};
pub(crate) use portable::table::{TableCall, broadcast_rows, narrow_partner, short_partner};
pub(crate) use split::{Split, inner_count};
pub(crate) use stage::stage_block;

/// Elements per side of the square SIMD tile of the x86 transpose kernels for `e`-byte elements (`x86/tiles.rs`);
/// the planner counts the elements a transpose leaves outside whole tiles with it.
pub(crate) const fn tile_size(e: usize) -> usize {
    match e {
        1 => 16,
        8 => 4,
        _ => 8,
    }
}

/// The SIMD level chosen at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Simd {
    /// Portable Rust only.
    None,
    /// x86_64 AVX2 (which implies SSE2 and SSSE3).
    Avx2,
}

/// Whether this CPU has the AVX-512 byte permutes (`avx512f`, `avx512bw`, `avx512vbmi`) that the 64-byte table
/// passes ([`crate::table::Chunks64`]) and the short-row kernel's 64-byte permute use; detected at run time (and
/// never under Miri, which does not run them).
pub(crate) fn wide_permutes() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    false
}

/// The SIMD kernels a copy runs with `simd` enabled or not ([`crate::ExecOptions::simd_kernels`]).
pub(crate) fn simd_kernels(simd: bool) -> &'static str {
    match dispatch::detect(simd) {
        Simd::None => "portable",
        Simd::Avx2 if wide_permutes() => "avx2 + avx512vbmi",
        Simd::Avx2 => "avx2",
    }
}

/// Per-call execution context.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    esize: usize,
    simd: Simd,
    /// AVX-512 VBMI is available too ([`wide_permutes`]): the 64-byte table passes and row permutes may run.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    vbmi: bool,
    /// Use non-temporal stores.
    nt: bool,
    /// The checked byte ranges of this call (addresses), for the debug re-check of every kernel call.
    bounds: footprint::Bounds,
    /// The prefetch of the next inner call, decided once per execution (`dispatch::next_call`).
    next: Option<dispatch::NextCall>,
}

/// Calls `$f::<T>` with `T` the unsigned integer of `$esize` bytes.
macro_rules! by_size {
    ($esize:expr, $($f:ident)::+, $($arg:expr),*) => {
        match $esize {
            1 => $($f)::+::<u8>($($arg),*),
            2 => $($f)::+::<u16>($($arg),*),
            4 => $($f)::+::<u32>($($arg),*),
            _ => $($f)::+::<u64>($($arg),*),
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
