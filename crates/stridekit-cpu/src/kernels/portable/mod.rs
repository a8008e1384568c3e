//! The kernels, one file each: the footprint of one call (what the soundness check counts), the portable
//! implementation, and the choice of the SIMD one when the CPU has it.
//!
//! Each kernel has one `unsafe fn` entry taking raw pointers, because the outer loops and threads address the
//! buffers by offset. Where one call's destination is contiguous (copy, reverse, fill, gather), the entry forms the
//! two slices its footprint covers and the portable body is safe code over them; a transpose, short rows or a scatter
//! write a strided destination whose gaps may belong to another thread's part, so no `&mut [u8]` may span it and those
//! bodies stay pointer loops.

pub(crate) mod copy;
pub(crate) mod fill;
pub(crate) mod gather;
pub(crate) mod reverse;
pub(crate) mod rows;
pub(crate) mod scatter;
pub(crate) mod table;
pub(crate) mod transpose;
