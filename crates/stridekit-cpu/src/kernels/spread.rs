//! Prefetch requests spread over the steps of a loop.
//!
//! A kernel that reads lines a line or more apart (rows of a table pass far from each other) requests the next
//! pass's lines while it works on this one. Requested all at once, at the start of the pass, they wait for the
//! few line fill buffers a core has (on Zen 3 about two dozen), and so do the pass's own loads behind them: a
//! stride-8 u8 table pass (16 rows of 4 lines, 768 bytes apart) ran at half the speed of the same pass with one
//! request per 16-byte chunk of output (a C model of the kernel, 4.0-4.9 ms against 2.1-2.9 ms). A [`Schedule`]
//! hands out the requests a few per step instead. Which passes take it is the table kernel's decision
//! (`portable::table`): spreading costs a check per step and the requests' head start, and paid only on some.

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

    /// Whether there are no requests.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The schedule of the requests over a loop of `count` steps: see [`Schedule`].
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn over(self, count: usize) -> Schedule<'a> {
        let (l, groups) = (self.lines.len(), self.lines.len().min(count));
        let none = Schedule { spread: self, j: 0, lines: (0, 0), steps: (0, 0), line: 0, next_at: usize::MAX };
        if groups == 0 {
            // Without requests, no division either: four per pass cost passes of a few cheap chunks up to 2x.
            return none;
        }
        let (lines, steps) = ((l / groups, l % groups), (count / groups, count % groups));
        Schedule { lines, steps, next_at: 0, ..none }
    }

    /// Issues every request now.
    #[inline]
    pub(crate) fn burst(self) {
        for &at in self.lines {
            request(self.base.wrapping_offset(at as isize));
        }
    }
}

/// The requests of a [`Spread`] over a loop of `count` steps, in `min(lines, count)` groups of about equal size at
/// about equal distances: [`Schedule::step`] with each step's index issues the group due there. The loop stays the
/// plain loop it was, plus one comparison per step (ranges of the loop, or a division per group, cost the table
/// walks 1.5-5x).
// Only the x86 shuffle passes spread their requests (elsewhere a request is nothing).
#[cfg(target_arch = "x86_64")]
#[derive(Debug)]
pub(crate) struct Schedule<'a> {
    spread: Spread<'a>,
    /// The next group.
    j: usize,
    /// Lines and steps per group, and how many groups take one more (each group takes at least one line).
    lines: (usize, usize),
    steps: (usize, usize),
    /// The next line to request.
    line: usize,
    /// The step at which the next group is due (`usize::MAX`: none).
    next_at: usize,
}

#[cfg(target_arch = "x86_64")]
impl Schedule<'_> {
    /// Step `i` of the loop (`0, 1, 2, ...` in order): issues the group due at it.
    #[inline(always)]
    pub(crate) fn step(&mut self, i: usize) {
        if i == self.next_at {
            self.fire();
        }
    }

    /// Issues group `j` and schedules the next.
    #[inline]
    fn fire(&mut self) {
        let end = self.line + self.lines.0 + usize::from(self.j < self.lines.1);
        for &at in &self.spread.lines[self.line..end] {
            request(self.spread.base.wrapping_offset(at as isize));
        }
        self.line = end;
        self.next_at += self.steps.0 + usize::from(self.j < self.steps.1);
        self.j += 1;
        if self.line == self.spread.lines.len() {
            self.next_at = usize::MAX;
        }
    }

    /// How many requests were issued.
    #[cfg(test)]
    fn issued(&self) -> usize {
        self.line
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

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn every_request_is_issued_once_in_even_groups_by_the_last_step() {
        let lines: Vec<i32> = (0..64).map(|i| i * 64).collect();
        for (count, n) in [(1, 64), (3, 64), (64, 64), (64, 16), (100, 64), (1000, 64), (5, 0)] {
            let mut s = Spread::new(std::ptr::null(), &lines[..n]).over(count);
            let mut before = 0;
            for i in 0..count {
                s.step(i);
                // A group issues at most its share, rounded up.
                assert!(s.issued() - before <= n.div_ceil(n.min(count).max(1)), "{count} steps, {n} lines");
                before = s.issued();
            }
            assert_eq!(s.issued(), n, "{count} steps, {n} lines");
        }
        let mut none = Spread::none().over(7);
        (0..7).for_each(|i| none.step(i));
        assert_eq!(none.issued(), 0);
    }
}
