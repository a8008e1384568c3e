//! `CpuBuffer`: byte storage whose first byte is aligned to a cache line (64 bytes), which is more than the 16 bytes
//! DirectML guarantees for buffer tensors (`DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT`).

use stridekit::limits::MINIMUM_BUFFER_TENSOR_ALIGNMENT;

/// The alignment of a [`CpuBuffer`]'s first byte: a cache line, so that streaming stores of rows whose pitch is a
/// multiple of 64 bytes never share a line with ordinary stores.
pub const CPU_BUFFER_ALIGNMENT: usize = 64;
const ALIGN: usize = CPU_BUFFER_ALIGNMENT;
const _: () = assert!(ALIGN.is_multiple_of(MINIMUM_BUFFER_TENSOR_ALIGNMENT as usize));

/// Zero-initialised bytes starting at a 64-byte aligned address (16 is the minimum DirectML promises). The storage
/// never reallocates, so the alignment holds for the buffer's whole life. On Linux, a buffer of at least 4 MiB asks
/// for transparent huge pages, as NumPy's arrays do: strided walks over it then stay within the TLB's reach.
///
/// ```
/// let mut buf = stridekit_cpu::CpuBuffer::zeroed(40);
/// assert_eq!(buf.len(), 40);
/// assert_eq!(buf.as_bytes().as_ptr() as usize % 16, 0);
/// buf.as_bytes_mut()[0] = 7;
/// ```
pub struct CpuBuffer {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl CpuBuffer {
    /// A buffer of `len` zero bytes.
    pub fn zeroed(len: usize) -> Self {
        // Over-allocate by ALIGN - 1 bytes and start at the first aligned address inside (align_offset is exact
        // for u8 pointers outside const evaluation).
        let mut storage = vec![0u8; len + ALIGN - 1];
        // Before the first write: the zeroed pages of a large allocation are usually fresh ones not touched yet
        // (`calloc` maps them; from a reused heap it writes the zeros itself, and the advice then applies to the
        // pages the kernel collapses later).
        crate::kernels::advise_huge_pages(&mut storage);
        let start = storage.as_ptr().align_offset(ALIGN).min(ALIGN - 1);
        CpuBuffer { storage, start, len }
    }

    /// A buffer holding a copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut buf = Self::zeroed(bytes.len());
        buf.as_bytes_mut().copy_from_slice(bytes);
        buf
    }

    /// The number of bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no bytes.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }

    /// The bytes, mutable.
    #[inline]
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

impl Clone for CpuBuffer {
    /// A fresh buffer (aligned and advised like any other) holding the same bytes.
    fn clone(&self) -> Self {
        Self::from_bytes(self.as_bytes())
    }
}

impl std::fmt::Debug for CpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuBuffer").field("len", &self.len).finish_non_exhaustive()
    }
}
