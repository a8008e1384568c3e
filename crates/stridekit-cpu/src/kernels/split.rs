//! Dividing a copy into disjoint output parts for threads: ranges of the flattened outer loops, or of the inner
//! kernel's count when there are no outer loops. Parts are whole sets of output coordinates, so (D1) they write
//! disjoint bytes.

use super::Ctx;
use super::dispatch::{Bases, fence, replicate as replicate_blocks, run_from, run_inner, run_tiles};
use super::portable::table::TableCall;
use crate::planner::{Inner, Program};

/// Runs `f(0) .. f(parts - 1)` on rayon's pool by recursive `rayon::join` (no allocation).
pub(super) fn for_each_part(parts: usize, f: &(dyn Fn(usize) + Sync)) {
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

/// The count a split of an inner kernel (without outer loops) divides, and the grain of part boundaries in that
/// count's units (64 bytes for bulk copies).
pub(crate) fn inner_count(inner: Inner) -> (usize, usize) {
    match inner {
        Inner::Copy { bytes } => (bytes, 64),
        Inner::Reverse { n } | Inner::Fill { n } | Inner::Gather { n, .. } | Inner::Scatter { n, .. } => (n, 64),
        // The longer side: a few planes out of long rows of pixels split along the rows.
        Inner::Transpose { na, nb, .. } if nb > na => (nb, 64),
        Inner::Transpose { na, .. } => (na, 8),
        Inner::Rows { rows, .. } => (rows, 16),
        Inner::Table(c) => (c.rows, c.per),
    }
}

/// How a program is divided into parts: either ranges of the first `levels` outer loops flattened, or ranges of
/// the inner kernel's count when there are no outer loops or the program runs in tiles of that count (then whole
/// tiles, each part running its tiles under every outer loop).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Split {
    pub parts: usize,
    levels: usize,
    total: usize,
    /// Alignment of part boundaries in inner-count units (64 bytes for bulk copies).
    grain: usize,
}

impl Split {
    pub(super) fn new(p: &Program, parts: usize) -> Split {
        if let Some(tile) = p.reuse_tile {
            let total = inner_count(p.inner).0;
            let parts = parts.min(total.div_ceil(tile.max(1))).max(1);
            return Split { parts, levels: 0, total, grain: tile.max(1) };
        }
        if p.outer.is_empty() {
            let (total, grain) = inner_count(p.inner);
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

    /// The inner kernel restricted to the sub-range `a .. b` of its count, and the byte offsets of that sub-range's
    /// first element on each side (for splits without outer loops, and streaming ranges of such programs).
    pub(crate) fn sub_kernel(inner: Inner, a: usize, b: usize, esize: usize) -> (Inner, isize, isize) {
        let e = esize as isize;
        let (count, so, d_o) = (b - a, a as isize, a as isize);
        match inner {
            Inner::Copy { .. } => (Inner::Copy { bytes: count }, so, d_o),
            Inner::Reverse { .. } => (Inner::Reverse { n: count }, -so * e, d_o * e),
            Inner::Fill { .. } => (Inner::Fill { n: count }, 0, d_o * e),
            Inner::Gather { src, .. } => (Inner::Gather { n: count, src }, so * src, d_o * e),
            Inner::Transpose { na, a_src, a_dst, nb, b_src } if nb > na => {
                (Inner::Transpose { na, a_src, a_dst, nb: count, b_src }, so * b_src, d_o * e)
            }
            Inner::Transpose { a_src, a_dst, nb, b_src, .. } => {
                (Inner::Transpose { na: count, a_src, a_dst, nb, b_src }, so * a_src, d_o * a_dst)
            }
            Inner::Rows { bytes, src, dst, .. } => (Inner::Rows { rows: count, bytes, src, dst }, so * src, d_o * dst),
            Inner::Scatter { src, dst, .. } => (Inner::Scatter { n: count, src, dst }, so * src, d_o * dst),
            Inner::Table(c) => (Inner::Table(TableCall { rows: count, ..c }), so * c.row_src, d_o * c.row_dst),
        }
    }

    /// Runs part `part` of `p`.
    ///
    /// # Safety
    /// `bases.src` must be readable and `bases.dst` writable over every byte the program reaches (the check in
    /// [`execute`](super::execute)); no other thread may access the output bytes of this part meanwhile.
    pub(super) unsafe fn run_part(&self, p: &Program, part: usize, bases: Bases, ctx: Ctx) {
        let (a, b) = self.range(part);
        if a >= b {
            return;
        }
        if let Some(tile) = p.reuse_tile {
            // SAFETY: tiles a .. b of the whole program, inside the caller's contract; another part's tiles are
            // other output coordinates.
            unsafe { run_tiles(p, tile, a, b, bases.src, bases.dst, ctx) };
        } else if self.levels == 0 {
            let (inner, so, d_o) = Self::sub_kernel(p.inner, a, b, ctx.esize);
            // SAFETY: the sub-range [a, b) of the inner kernel's count reaches a subset of the bytes of the whole
            // kernel (run_inner re-checks its footprint in debug builds).
            unsafe { run_inner(inner, p.table.as_deref(), bases.src.offset(so), bases.dst.offset(d_o), ctx) };
        } else {
            let levels = &p.outer[..self.levels];
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
            let replicate = self.levels == 1 && levels[0].replicate;
            let first_dst = d_o;
            if replicate {
                // SAFETY: index a's block (`replicated_block(0)` bytes from `first_dst + replicated_low(0)`,
                // destination-contiguous) is run first with ordinary stores; indices a + 1 .. b are the next blocks
                // of this part, `levels[0].dst` >= block bytes apart after it (one level), inside the checked output
                // range.
                unsafe {
                    run_from(
                        p,
                        1,
                        p.inner,
                        bases.src.offset(so),
                        bases.dst.offset(first_dst),
                        Ctx { nt: false, ..ctx },
                    );
                    let block = bases.dst.offset(first_dst + p.replicated_low(0));
                    replicate_blocks(block, p.replicated_block(0), levels[0].dst as usize, b - a, ctx);
                }
                if ctx.nt {
                    fence();
                }
                return;
            }
            for _ in a..b {
                // SAFETY: (so, d_o) are the offsets of a valid prefix coordinate; the rest is the caller's contract.
                unsafe { run_from(p, self.levels, p.inner, bases.src.offset(so), bases.dst.offset(d_o), ctx) };
                // Advance the odometer.
                let mut l = self.levels;
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
}
