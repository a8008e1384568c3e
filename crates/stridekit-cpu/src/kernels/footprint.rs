//! The soundness check of the kernels: which bytes a [`Program`] can reach, computed once from the program alone.
//!
//! A program's reach on one side is its start offset plus, for every outer loop and every walk of the inner
//! kernel's footprint, `(count - 1) * stride` added to the high end (positive strides) or the low end (negative).
//! [`check`] computes both ends in `i128`; [`execute`](super::execute) compares them with the slice lengths before
//! any pointer is formed. The inner kernel's footprint comes from [`Inner::footprint`], which asks the kernel's own
//! file (`portable/<kernel>.rs`), so the count cannot drift from the code that moves the bytes. In debug builds,
//! every kernel call checks its own footprint against the checked range again ([`Bounds::debug_check`]).

use super::portable;
use crate::planner::{Inner, Program};

/// Up to two `(count, byte stride)` walks from a kernel's start pointer on one side; `(1, 0)` walks nowhere.
pub(crate) type Walks = [(usize, isize); 2];

/// The elements one call of an inner kernel reads (`src`) and writes (`dst`), each as walks from the pointer the
/// kernel is given, for elements of `esize` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Footprint {
    pub src: Walks,
    pub dst: Walks,
}

/// `(count, stride)` walks that reach only the start element.
pub(crate) const HERE: (usize, isize) = (1, 0);

impl Inner {
    /// The footprint of one call of this kernel on elements of `esize` bytes.
    pub(crate) fn footprint(self, esize: usize) -> Footprint {
        match self {
            Inner::Copy { bytes } => portable::copy::footprint(bytes, esize),
            Inner::Reverse { n } => portable::reverse::footprint(n, esize),
            Inner::Fill { n } => portable::fill::footprint(n, esize),
            Inner::Gather { n, src } => portable::gather::footprint(n, src, esize),
            Inner::Transpose { na, a_src, a_dst, nb, b_src } => {
                portable::transpose::footprint(na, a_src, a_dst, nb, b_src, esize)
            }
            Inner::Rows { rows, bytes, src, dst } => portable::rows::footprint(rows, bytes, src, dst, esize),
            Inner::Scatter { n, src, dst } => portable::scatter::footprint(n, src, dst),
            Inner::Table(call) => portable::table::footprint(call, esize),
        }
    }
}

/// `[lowest, highest)` bytes reached from `start` by the walks `walks` with elements of `esize` bytes.
fn reach(start: i128, walks: impl IntoIterator<Item = (usize, isize)>, esize: usize) -> (i128, i128) {
    let (mut lo, mut hi) = (start, start);
    for (n, s) in walks {
        let span = (n as i128 - 1).max(0) * s as i128;
        if span < 0 { lo += span } else { hi += span }
    }
    (lo, hi + esize as i128)
}

/// A program and the byte ranges it reaches, both computed once. Only [`check`] builds one, so holding a
/// `Checked` means the reach was computed by this module.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    pub(super) program: Program,
    /// One past the highest input byte read (the lowest is >= 0).
    pub(super) src_end: u64,
    /// One past the highest output byte written (the lowest is >= 0).
    pub(super) dst_end: u64,
}

/// Computes the byte ranges `program` reaches. `None` when a range starts below 0 or does not fit in `u64`, which
/// a validated plan never produces.
pub(crate) fn check(program: Program) -> Option<Checked> {
    if let Inner::Table(call) = program.inner {
        // The table kernel trusts its table: it must be there and match the call's numbers.
        if !portable::table::consistent(call, program.table.as_deref()?, program.esize) {
            return None;
        }
    }
    let inner = program.inner.footprint(program.esize);
    let mut ends = [0u64; 2];
    for (side, end) in ends.iter_mut().enumerate() {
        let (start, walks) = if side == 0 { (program.src_start, inner.src) } else { (program.dst_start, inner.dst) };
        let outer = program.outer.iter().map(|d| (d.n, if side == 0 { d.src } else { d.dst }));
        let (lo, hi) = reach(start as i128, outer.chain(walks), program.esize);
        if lo < 0 {
            return None;
        }
        *end = u64::try_from(hi).ok()?;
    }
    Some(Checked { program, src_end: ends[0], dst_end: ends[1] })
}

/// The input bytes `[lowest, highest)` `program` reads, by the same reach arithmetic as [`check`] (`None` where
/// `check` would fail). Streaming execution reports it after each range of rows, so that the caller can release the
/// input pages those rows consumed.
pub(crate) fn input_range(program: &Program) -> Option<std::ops::Range<u64>> {
    let inner = program.inner.footprint(program.esize);
    let outer = program.outer.iter().map(|d| (d.n, d.src));
    let (lo, hi) = reach(program.src_start as i128, outer.chain(inner.src), program.esize);
    Some(u64::try_from(lo).ok()?..u64::try_from(hi).ok()?)
}

/// The byte ranges (addresses, half-open) a call may read and write: the slices' ranges that [`check`] and
/// [`execute`](super::execute) proved to hold the program's reach.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    pub src: (usize, usize),
    pub dst: (usize, usize),
}

impl Bounds {
    /// Debug builds only (tests, Miri): panics unless the footprint of `inner` from `src` and `dst` lies inside
    /// these bounds. This is the SAFETY argument of every kernel call, restated as a check.
    #[inline]
    pub(crate) fn debug_check(&self, inner: Inner, esize: usize, src: *const u8, dst: *const u8) {
        if cfg!(debug_assertions) {
            let f = inner.footprint(esize);
            self.debug_check_walks(f.src, esize, src, f.dst, esize, dst);
        }
    }

    /// Debug builds only: panics unless the walks `src_walks` of `src_esize`-byte elements from `src` and
    /// `dst_walks` of `dst_esize`-byte elements from `dst` lie inside these bounds.
    #[inline]
    pub(crate) fn debug_check_walks(
        &self,
        src_walks: Walks,
        src_esize: usize,
        src: *const u8,
        dst_walks: Walks,
        dst_esize: usize,
        dst: *const u8,
    ) {
        if cfg!(debug_assertions) {
            for (walks, esize, at, (lo, hi), side) in
                [(src_walks, src_esize, src, self.src, "source"), (dst_walks, dst_esize, dst, self.dst, "destination")]
            {
                let (a, b) = reach(at as usize as i128, walks, esize);
                assert!(
                    lo as i128 <= a && b <= hi as i128,
                    "kernel {side} footprint {a:#x}..{b:#x} outside the checked range {lo:#x}..{hi:#x}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_counts_both_directions() {
        // 3 rows of 4 elements (2 bytes), rows backwards: from 100, rows at 100, 84, 68; elements up to +6.
        assert_eq!(reach(100, [(3, -16), (4, 2)], 2), (68, 108));
        // Walks of one element reach only the start.
        assert_eq!(reach(5, [HERE, HERE], 8), (5, 13));
    }
}
