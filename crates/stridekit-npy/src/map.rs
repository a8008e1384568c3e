//! The crate's only `unsafe` code: creating memory maps (memmap2's constructors are `unsafe`) and releasing pages.
//!
//! Each function is one line behind the checks its callers make. The hazard they accept is the one every memory
//! map carries: the mapped bytes belong to the file, not to this process.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;

use memmap2::{Mmap, MmapMut};

/// Maps `file` read-only.
///
/// The caller has checked that `file` is a regular file of non-zero length.
pub(crate) fn map_read_only(file: &File) -> io::Result<Mmap> {
    // SAFETY: `Mmap::map` is unsafe because another process (or this one, through another handle) may modify or
    // truncate the file while it is mapped: the `&[u8]` we hand out would then change under Rust's feet, or a read
    // beyond a truncated end would raise SIGBUS. This crate documents that input files must not be modified while
    // they are read (`MappedNpy`), as every memory-mapping reader must. All lengths are validated against the map's
    // own length, never against a size read earlier, so no access is out of bounds of the mapping itself.
    unsafe { Mmap::map(file) }
}

/// Maps `file` read-write.
///
/// The caller created `file` itself (a fresh temporary file with an unguessable name, opened read-write) and has
/// already written its full length, so its blocks are allocated.
pub(crate) fn map_read_write(file: &File) -> io::Result<MmapMut> {
    // SAFETY: the hazard is as for `map_read_only`: another process writing or truncating the file while mapped. The
    // file is a temporary file this process just created under a random name in the destination's directory, and no
    // other handle to it is used while the map lives (`AtomicNpyFile` drops the map before it renames the file).
    unsafe { MmapMut::map_mut(file) }
}

/// Drops the pages of `map[offset..offset + len]` from this process's resident set (`MADV_DONTNEED`), so that a
/// reader streaming through a file larger than memory keeps only what it is using. The pages stay in the page cache
/// and fault back in, with the same contents, if they are read again.
pub(crate) fn release(map: &Mmap, offset: usize, len: usize) -> io::Result<()> {
    // SAFETY: `MADV_DONTNEED` is unsafe in general because on private or anonymous mappings it replaces the contents
    // with zeros under live references. `map` comes from `map_read_only`: a shared (MAP_SHARED), read-only mapping of
    // a file, so the kernel refills a dropped page from the file itself and every `&[u8]` into the map keeps reading
    // the same bytes (under the same no-concurrent-writer caveat as `map_read_only`). memmap2 checks that the range
    // lies inside the map.
    unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len) }
}
