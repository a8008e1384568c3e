//! The scatter: `dst[i * d] = src[i * s]`, both sides strided (the output itself is strided).

use crate::kernels::Elem;
use crate::kernels::footprint::{Footprint, HERE};

/// One call reads `n` elements `src` bytes apart and writes `n` elements `dst` bytes apart.
pub(crate) fn footprint(n: usize, src: isize, dst: isize) -> Footprint {
    Footprint { src: [(n, src), HERE], dst: [(n, dst), HERE] }
}

/// `dst[i * d] = src[i * s]` (byte strides) for `i in 0..n`. The gaps between destination elements may belong to
/// another thread's part, so no slice may span them: this stays a pointer loop.
///
/// # Safety
/// The `n` source and `n` destination elements are valid and the sides do not overlap.
pub(crate) unsafe fn scatter<T: Elem>(src: *const u8, dst: *mut u8, n: usize, s: isize, d: isize) {
    for i in 0..n as isize {
        // SAFETY: element i of the caller's ranges.
        unsafe { dst.offset(i * d).cast::<T>().write_unaligned(src.offset(i * s).cast::<T>().read_unaligned()) };
    }
}
