//! A table pass's requests for the next pass's lines (`portable::table`), issued at once into L2.
//!
//! A kernel that reads lines a line or more apart (rows of a table pass far from each other) requests the next
//! pass's lines before it works on this one. Requests into L1 (`prefetcht0`) waited for the few line fill buffers a
//! core has (on Zen 3 about two dozen), and the pass's own loads waited behind them, so from the sixteenth round to
//! the fifty-eighth the requests of some passes were spread over the steps of the pass's loop. Into L2
//! (`prefetcht1`, since the fifty-eighth round) they do not hold those buffers, and issued at once they run further
//! ahead than a spread schedule: the tables that spread theirs ran in 0.87-0.89 of the time with them issued at once
//! (`docs/PERFORMANCE.md`, fifty-ninth round), and the schedule is gone.

/// `lines.len()` prefetch requests, lines at `base + lines[i]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spread<'a> {
    base: *const u8,
    lines: &'a [i32],
}

impl<'a> Spread<'a> {
    /// The requests for `lines` from `base`.
    #[inline]
    pub(crate) fn new(base: *const u8, lines: &'a [i32]) -> Spread<'a> {
        Spread { base, lines }
    }

    /// No requests.
    #[inline]
    pub(crate) fn none() -> Spread<'static> {
        Spread { base: std::ptr::null(), lines: &[] }
    }

    /// Issues every request now.
    #[inline]
    pub(crate) fn burst(self) {
        for &at in self.lines {
            request(self.base.wrapping_offset(at as isize));
        }
    }
}

/// Requests the line at `p` (a hint: it never faults, and `wrapping_offset` keeps any address computation defined)
/// into L2 (`prefetcht1`), not L1: a table's next pass is a pass away, and its lines, far apart, held L1's miss
/// buffers while the pass's own loads waited behind them. Measured on the Zen 4 of `docs/PERFORMANCE.md`'s
/// fifty-eighth round, each case in its own process, ABBA rounds, time ratios L2 / L1: the 126 sweep tables of seeds
/// 1-3 that request lines (not `followed`) 0.956 (three rounds; the 22 extremes over five: 0.85, sweep2_199 and
/// sweep3_191 0.50-0.51, the slowest 1.28, sweep1_196), held out the 134 of seeds 4-6 0.969 (0.44-1.59).
#[inline]
fn request(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    super::x86::prefetch_line_l2(p);
    let _ = p;
}
