//! Memory advice for the buffers stridekit allocates ([`crate::CpuBuffer`]): transparent huge pages.
//!
//! A slice that walks a tensor with large strides touches a new 4 KiB page every row or two; beyond the reach of
//! the TLB (a few MiB of 4 KiB pages) every such row waits for a page walk. With 2 MiB pages the same walk stays in
//! the TLB. Linux backs anonymous memory with huge pages only where asked (`madvise(MADV_HUGEPAGE)`) under the
//! setting many distributions ship (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`); NumPy asks for every array of at
//! least 4 MiB, and so does [`crate::CpuBuffer`] (`docs/PERFORMANCE.md`, twenty-fifth round: 0.94 and 0.96 of
//! the time over two 200-case sweeps).
//!
//! The advice is a hint: where the kernel has no transparent huge pages, or refuses, nothing changes and nothing
//! is reported. Elsewhere than on Linux, and under Miri (which has no `madvise`), it does nothing.

/// The smallest buffer that asks for huge pages: NumPy's threshold (its allocator advises arrays of at least 4 MiB),
/// below which the 2 MiB-aligned interior of an allocation is at most one huge page.
#[cfg_attr(any(not(target_os = "linux"), miri), allow(dead_code))] // read by the advice on Linux only
pub(crate) const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// The size of a transparent huge page on x86_64 and on aarch64 with 4 KiB base pages; elsewhere (larger base or
/// huge pages) the advice covers fewer whole pages than it could, never bytes outside the buffer.
#[cfg(all(target_os = "linux", not(miri)))]
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// The whole huge pages inside the `len` bytes at address `start`, as a range of addresses, when there are any and
/// `len` is at least [`HUGE_PAGE_MIN_BYTES`].
#[cfg(all(target_os = "linux", not(miri)))]
fn huge_pages_inside(start: usize, len: usize) -> Option<std::ops::Range<usize>> {
    let first = start.checked_next_multiple_of(HUGE_PAGE_BYTES)?;
    let end = start.checked_add(len)? / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    (len >= HUGE_PAGE_MIN_BYTES && end > first).then_some(first..end)
}

/// Asks the kernel to back the whole huge pages inside `bytes` with transparent huge pages, when `bytes` holds at
/// least [`HUGE_PAGE_MIN_BYTES`]. Call it before the first write to the pages (a fresh allocation), so that the
/// first touch of each 2 MiB range faults in one huge page instead of 512 small ones. Returns whether the kernel took
/// the advice (false when there was none to give).
pub(crate) fn advise_huge_pages(bytes: &mut [u8]) -> bool {
    #[cfg(all(target_os = "linux", not(miri)))]
    if let Some(range) = huge_pages_inside(bytes.as_mut_ptr() as usize, bytes.len()) {
        // SAFETY: `range` lies inside `bytes`, memory this process owns and holds exclusively (`&mut`);
        // MADV_HUGEPAGE changes how its pages are backed, never their contents or their mapping, and fails
        // harmlessly (EINVAL) where transparent huge pages are not available.
        return unsafe { libc::madvise(range.start as *mut libc::c_void, range.len(), libc::MADV_HUGEPAGE) } == 0;
    }
    let _ = bytes;
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the mapping holding address `at` carries the huge-page advice (`hg` in its `VmFlags`).
    #[cfg(all(target_os = "linux", not(miri)))]
    fn advised(at: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((lo, hi)) = range.split_once('-')
                && let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&at);
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return Some(flags.split_whitespace().any(|f| f == "hg"));
            }
        }
        None
    }

    #[test]
    #[cfg(all(target_os = "linux", not(miri)))]
    fn only_whole_huge_pages_of_large_buffers_are_advised() {
        const H: usize = HUGE_PAGE_BYTES;
        // Below 4 MiB nothing; from 4 MiB the whole 2 MiB pages inside, whatever the start.
        assert_eq!(huge_pages_inside(10 * H + 7, HUGE_PAGE_MIN_BYTES - 1), None);
        assert_eq!(huge_pages_inside(10 * H, HUGE_PAGE_MIN_BYTES), Some(10 * H..12 * H));
        assert_eq!(huge_pages_inside(10 * H + 7, HUGE_PAGE_MIN_BYTES), Some(11 * H..12 * H));
        assert_eq!(huge_pages_inside(10 * H + 7, 3 * H), Some(11 * H..13 * H));
        // No address overflow at the top of the address space.
        assert_eq!(huge_pages_inside(usize::MAX - H, HUGE_PAGE_MIN_BYTES), None);
    }

    #[test]
    #[cfg(all(target_os = "linux", not(miri)))]
    fn large_buffers_carry_the_advice() {
        let mut large = vec![0u8; 3 * HUGE_PAGE_MIN_BYTES];
        if !advise_huge_pages(&mut large) {
            return; // a kernel without transparent huge pages (or a sandbox) refused the advice
        }
        let inside = huge_pages_inside(large.as_ptr() as usize, large.len()).unwrap();
        // Taken, the advice shows in the mapping's flags (where the kernel reports them).
        for at in [inside.start, inside.end - 1] {
            match advised(at) {
                Some(flag) => assert!(flag, "no huge-page advice at {at:#x}"),
                None => return, // no `VmFlags` in this kernel's smaps
            }
        }
    }
}
