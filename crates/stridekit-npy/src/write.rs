//! Writing: to any writer ([`write_npy`]) and atomically to a path through a writable memory map ([`AtomicNpyFile`]).
//!
//! Files are always written in C order, little-endian, version 1.0 (2.0 only if the header exceeds 65535 bytes),
//! with the header NumPy itself would write ([`crate::encode_header`]).

use std::fs::{self, File, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use memmap2::MmapMut;
use stridekit::DataType;
use tempfile::NamedTempFile;

use crate::error::{InvalidKind, NpyError};
use crate::header::encode_header;
use crate::read::what_is;

/// Writes a C-order `.npy` file of `data_type` and `shape` holding `data` (little-endian) to `writer`.
///
/// `data` must be exactly the shape's element count times the element size ([`InvalidKind::DataLength`] otherwise,
/// checked before anything is written). The writer is flushed. I/O errors carry no path; add one with
/// [`NpyError::with_path`].
///
/// ```
/// let mut out = Vec::new();
/// stridekit_npy::write_npy(&mut out, stridekit::DataType::Uint8, &[2, 2], &[1, 2, 3, 4]).unwrap();
/// let back = stridekit_npy::read_from_bytes(&out).unwrap();
/// assert_eq!((back.header.shape.as_slice(), &back.data[..]), (&[2u64, 2][..], &[1u8, 2, 3, 4][..]));
/// ```
pub fn write_npy<W: Write>(mut writer: W, data_type: DataType, shape: &[u64], data: &[u8]) -> Result<(), NpyError> {
    write_npy_impl(&mut writer, data_type, shape, data)
}

fn write_npy_impl(writer: &mut dyn Write, data_type: DataType, shape: &[u64], data: &[u8]) -> Result<(), NpyError> {
    let header = encode_header(data_type, shape)?;
    check_data_len(data_type, shape, data.len() as u64)?;
    let io = |e| NpyError::io("write", None, e);
    writer.write_all(&header).map_err(io)?;
    writer.write_all(data).map_err(io)?;
    writer.flush().map_err(io)
}

/// The byte count of `shape` elements of `data_type`, checked.
fn data_len(data_type: DataType, shape: &[u64]) -> Result<(u64, u64), InvalidKind> {
    let element_size = data_type.size_in_bytes_rounded_up();
    let elements = shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
    elements
        .and_then(|n| Some((n, n.checked_mul(u64::from(element_size))?)))
        .ok_or_else(|| InvalidKind::ShapeOverflow { shape: shape.to_vec(), element_size })
}

/// Checks that `actual` bytes are exactly what `shape` elements of `data_type` need.
fn check_data_len(data_type: DataType, shape: &[u64], actual: u64) -> Result<u64, InvalidKind> {
    let (elements, expected) = data_len(data_type, shape)?;
    if expected != actual {
        return Err(InvalidKind::DataLength {
            actual,
            expected,
            elements,
            element_size: data_type.size_in_bytes_rounded_up(),
            shape: shape.to_vec(),
            descr: data_type.name().to_owned(),
        });
    }
    Ok(expected)
}

/// Size of the zero blocks written to preallocate the temporary file.
const PREALLOCATE_CHUNK: usize = 1 << 20;

/// A `.npy` output file being written: fill [`AtomicNpyFile::data_mut`], then [`AtomicNpyFile::commit`].
///
/// ```no_run
/// # fn main() -> Result<(), stridekit_npy::NpyError> {
/// use stridekit_npy::AtomicNpyFile;
/// let mut out = AtomicNpyFile::create("out.npy".as_ref(), stridekit::DataType::Float32, &[2, 3])?;
/// out.data_mut().fill(0); // the kernel writes its output here, straight into the file's pages
/// out.commit()?;          // flush, then rename over out.npy
/// # Ok(()) }
/// ```
///
/// The file is built as a temporary file in the destination's directory, so that the final rename stays on one file
/// system and is atomic: a failed run never modifies an existing destination. The temporary file is first written in
/// full (header, then zeros) so that its blocks are allocated: a full disk is then an ordinary `error[io]` from
/// [`AtomicNpyFile::create`], not a `SIGBUS` in the middle of filling a sparse memory map. (Copy-on-write file
/// systems can still need space when pages are rewritten; there the kernel decides.) It is then memory-mapped
/// writable and [`AtomicNpyFile::data_mut`] is the map: the caller's output goes into the file's pages with no second
/// in-memory copy. [`AtomicNpyFile::commit`] flushes the map, syncs the file, gives it the permissions of the file it
/// replaces (a new file gets the usual `0o666` minus umask on Unix) and renames it over the destination.
///
/// What the destination may be, decided once and documented here:
///
/// - **Does not exist**: created.
/// - **A regular file this user may open for writing**: replaced (atomically). A file the user could not open for
///   writing (mode `0444` for a non-root user, say) is refused with `error[io]: cannot open for writing ...`, before
///   anything is created, exactly where `np.save` fails: the rename would otherwise replace a file the user may
///   not write, whenever its directory is writable.
/// - **A symbolic link** (or a chain of them): written through, as `np.save` (`open(path, "wb")`) does: the final
///   target is replaced and every link is kept. A dangling link is written through as well: its target is created
///   (in the target's directory, which must exist), and the link then points to the new file. Temporary file and
///   rename happen in the target's directory.
/// - **A hard link** (a file with other names): the rename gives the destination name a new file; the other names
///   keep the old contents. This differs from `np.save`, which truncates and rewrites the shared file in place; it is
///   the price of atomicity (a failed or interrupted run never leaves a half-written file under any name).
/// - **A directory, named pipe (FIFO), socket or device** (`/dev/null` included): refused with
///   [`InvalidKind::NotRegularFile`], without opening it (opening a FIFO would wait for a reader forever; renaming
///   over a device node would replace the node).
///
/// **Temporary files.** Named `.sk.XXXXXX.tmp` (six random characters), 14 bytes whatever the destination's name, so
/// that any destination name the file system accepts works. On any error, or if the value is dropped without
/// `commit`, the temporary file is removed and an existing destination is untouched. A process killed by a signal
/// runs no destructor: a program that wants its temporary file removed on `SIGINT`/`SIGTERM` registers
/// [`AtomicNpyFile::temp_path`] with its signal handler, from the hook of [`AtomicNpyFile::create_with_hook`] (the
/// `stridekit` CLI does).
#[derive(Debug)]
pub struct AtomicNpyFile {
    /// The path given by the caller, for messages.
    path: PathBuf,
    data_offset: usize,
    temp: NamedTempFile,
    map: MmapMut,
    /// Where the file lands: `path` with its symbolic links resolved.
    target: PathBuf,
    /// The permissions of the file replaced, if any.
    permissions: Option<Permissions>,
}

/// The most symbolic links followed when resolving a destination (Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Prefix and suffix of temporary file names: `.sk.XXXXXX.tmp`.
pub const TEMP_PREFIX: &str = ".sk.";
/// See [`TEMP_PREFIX`].
pub const TEMP_SUFFIX: &str = ".tmp";

impl AtomicNpyFile {
    /// Prepares to write a C-order `.npy` file of `data_type` and `shape` at `path`.
    ///
    /// Validates the arguments ([`crate::encode_header`]'s errors), inspects the destination (see the type's docs),
    /// and creates, sizes and maps the temporary file. All of it happens before the caller computes anything, so
    /// permission and space problems surface first.
    pub fn create(path: &Path, data_type: DataType, shape: &[u64]) -> Result<Self, NpyError> {
        Self::create_with_hook(path, data_type, shape, |_| {})
    }

    /// [`AtomicNpyFile::create`], calling `on_temp` with the temporary file's path just *before* the file is
    /// created (and filled, which takes time for a large file): the moment to register it for removal by a signal
    /// handler, which then can never miss it. (If a name is taken, the hook is called again with the next one.)
    pub fn create_with_hook(
        path: &Path,
        data_type: DataType,
        shape: &[u64],
        on_temp: impl FnOnce(&Path),
    ) -> Result<Self, NpyError> {
        Self::create_impl(path, data_type, shape, &mut Some(on_temp)).map_err(|e| e.with_path(path))
    }

    fn create_impl(
        path: &Path,
        data_type: DataType,
        shape: &[u64],
        on_temp: &mut Option<impl FnOnce(&Path)>,
    ) -> Result<Self, NpyError> {
        let header = encode_header(data_type, shape)?;
        let (_, data_len) = data_len(data_type, shape)?;
        let total = (header.len() as u64)
            .checked_add(data_len)
            .and_then(|t| usize::try_from(t).ok())
            .ok_or(InvalidKind::TooLarge { bytes: data_len })?;
        let (target, permissions) = destination(path, true)?;
        let (temp, map) = create_mapped_temp(&target, &header, total, &mut |p| {
            if let Some(f) = on_temp.take() {
                f(p);
            }
        })?;
        Ok(AtomicNpyFile { path: path.to_path_buf(), data_offset: header.len(), temp, map, target, permissions })
    }

    /// Where a file created for `path` would land: `path` with its symbolic links resolved (see the type's docs).
    /// Inspects without modifying anything; lets a caller check the free space of the right file system first.
    pub fn target_of(path: &Path) -> Result<PathBuf, NpyError> {
        resolve_links(path).map_err(|e| e.with_path(path))
    }

    /// The data region: exactly element count times element size bytes, zero-initialised. Write the little-endian,
    /// C-order elements here.
    pub fn data_mut(&mut self) -> &mut [u8] {
        self.map.get_mut(self.data_offset..).unwrap_or_default()
    }

    /// The destination path as given to [`AtomicNpyFile::create`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the file will be: the destination with its symbolic links resolved.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The temporary file being filled, renamed over [`AtomicNpyFile::target`] by [`AtomicNpyFile::commit`].
    pub fn temp_path(&self) -> &Path {
        self.temp.path()
    }

    /// Makes the file visible at the destination: flush, sync and rename.
    ///
    /// On error the temporary file is removed and the destination is untouched.
    pub fn commit(self) -> Result<(), NpyError> {
        let AtomicNpyFile { temp, map, target, permissions, .. } = self;
        map.flush().map_err(|e| NpyError::io("flush the memory map of", Some(temp.path()), e))?;
        // Unmap before renaming (required on Windows, harmless elsewhere).
        drop(map);
        persist(temp, &target, permissions)
    }
}

/// The last steps of every atomic write: the replaced file's permissions, sync, and the rename over `target`.
fn persist(temp: NamedTempFile, target: &Path, permissions: Option<Permissions>) -> Result<(), NpyError> {
    let file = temp.as_file();
    if let Some(permissions) = permissions {
        file.set_permissions(permissions).map_err(|e| NpyError::io("set permissions of", Some(temp.path()), e))?;
    }
    file.sync_all().map_err(|e| NpyError::io("sync", Some(temp.path()), e))?;
    temp.persist(target).map_err(|e| NpyError::io("rename the temporary file to", Some(target), e.error))?;
    Ok(())
}

/// The directory of `target`, where its temporary file goes (`.` for a bare file name).
fn dir_of(target: &Path) -> &Path {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes `bytes` to the file `path` atomically, as [`AtomicNpyFile`] writes a `.npy` file (the same destination
/// rules: links resolved, the replaced file's permissions kept, directories, pipes and devices refused): into a
/// temporary file beside the destination, synced, then renamed over it. On any error the temporary file is removed
/// and an existing destination is untouched. `on_temp` is called with the temporary file's path just before it is
/// created (see [`AtomicNpyFile::create_with_hook`]). For the small text files the CLI writes besides `.npy`
/// outputs: case files (`stridekit bench --save-worst`) and streaming profiles (`stridekit calibrate`).
pub fn write_file_atomically(path: &Path, bytes: &[u8], on_temp: impl FnOnce(&Path)) -> Result<(), NpyError> {
    let mut on_temp = Some(on_temp);
    let mut run = || -> Result<(), NpyError> {
        let (target, permissions) = destination(path, false)?;
        let mut temp = create_temp(dir_of(&target), &mut |p| {
            if let Some(f) = on_temp.take() {
                f(p);
            }
        })?;
        temp.as_file_mut().write_all(bytes).map_err(|e| NpyError::io("write", Some(&target), e))?;
        persist(temp, &target, permissions)
    };
    run().map_err(|e| e.with_path(path))
}

/// Resolves `path`'s symbolic links (a chain, relative or absolute), stopping at the first name that does not
/// exist: the file to write. Nothing is opened.
fn resolve_links(path: &Path) -> Result<PathBuf, NpyError> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link =
                    fs::read_link(&current).map_err(|e| NpyError::io("read the symbolic link", Some(&current), e))?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(NpyError::io("inspect", Some(&current), e)),
        }
    }
    let e = io::Error::other(format!("more than {MAX_LINKS} symbolic links in a chain"));
    Err(NpyError::io("resolve the symbolic link", Some(path), e))
}

/// The file to write for destination `path` (its links resolved) and the permissions of the file it replaces;
/// refuses what the type's docs say is refused (`npy`: the messages name a `.npy` file). Modifies nothing.
fn destination(path: &Path, npy: bool) -> Result<(PathBuf, Option<Permissions>), NpyError> {
    let target = resolve_links(path)?;
    match fs::metadata(&target) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((target, None)),
        Err(e) => Err(NpyError::io("inspect", Some(&target), e)),
        Ok(meta) if meta.is_file() => {
            // Only a file this user could write may be replaced (np.save would fail to open it). Opening without
            // truncation modifies nothing; the file is closed at once.
            File::options()
                .write(true)
                .open(&target)
                .map_err(|e| NpyError::io("open for writing", Some(&target), e))?;
            Ok((target, Some(meta.permissions())))
        }
        Ok(meta) => {
            let hint = match (meta.is_dir(), npy) {
                (true, true) => "give the path of the .npy file to write",
                (true, false) => "give the path of the file to write",
                (false, true) => {
                    "a .npy file is written atomically (a temporary file renamed over the destination), never into a \
                     device or pipe; give the path of a regular file"
                }
                (false, false) => {
                    "the file is written atomically (a temporary file renamed over the destination), never into a \
                     device or pipe; give the path of a regular file"
                }
            };
            Err(InvalidKind::NotRegularFile { what: what_is(&meta), hint }.with_target(path, &target))
        }
    }
}

impl InvalidKind {
    /// This error about `target`, reported for `path` (naming the link's target when they differ).
    fn with_target(self, path: &Path, target: &Path) -> NpyError {
        let err = NpyError::from(self);
        if path == target { err.with_path(path) } else { err.with_path(target) }
    }
}

/// Creates a temporary file `.sk.XXXXXX.tmp` (six random letters and digits, short whatever the destination's name)
/// in `dir`, readable and writable, with the mode `File::create` gives (0o666 minus the umask; tempfile's default
/// 0o600 would make outputs private). `on_temp` is called with the path *before* the file is created, so that a
/// signal handler it registers the path with can never miss the file (a signal before the creation unlinks
/// nothing). A name that exists already is never opened (`create_new`); another name is drawn.
fn create_temp(dir: &Path, on_temp: &mut dyn FnMut(&Path)) -> Result<NamedTempFile, NpyError> {
    use std::hash::{BuildHasher, Hasher};
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    // RandomState is seeded from the operating system's randomness once per thread and stepped on every call.
    let state = std::collections::hash_map::RandomState::new();
    let mut last = None;
    for attempt in 0u64..100 {
        let mut hasher = state.build_hasher();
        hasher.write_u64(attempt);
        hasher.write_u32(std::process::id());
        let mut bits = hasher.finish();
        let name: String = (0..6)
            .map(|_| {
                let c = CHARS[(bits % CHARS.len() as u64) as usize] as char;
                bits /= CHARS.len() as u64;
                c
            })
            .collect();
        let path = dir.join(format!("{TEMP_PREFIX}{name}{TEMP_SUFFIX}"));
        on_temp(&path);
        let mut options = File::options();
        options.read(true).write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o666);
        }
        match options.open(&path) {
            Ok(file) => {
                // Removed on drop from here on; `try_from_path` only fails on an empty path or a vanished cwd.
                let temp = tempfile::TempPath::try_from_path(&path).map_err(|e| {
                    let _ = fs::remove_file(&path);
                    NpyError::io("create a temporary file in", Some(dir), e)
                })?;
                return Ok(NamedTempFile::from_parts(file, temp));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(NpyError::io("create a temporary file in", Some(dir), e)),
        }
    }
    let e = last.unwrap_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists));
    Err(NpyError::io("create a temporary file in", Some(dir), e))
}

/// Creates the temporary file beside `target`, writes `header` and zeros up to `total` bytes, and maps it.
fn create_mapped_temp(
    target: &Path,
    header: &[u8],
    total: usize,
    on_temp: &mut dyn FnMut(&Path),
) -> Result<(NamedTempFile, MmapMut), NpyError> {
    let mut temp = create_temp(dir_of(target), on_temp)?;

    let write_err = |e| NpyError::io("write", Some(target), e);
    {
        let mut w = io::BufWriter::with_capacity(PREALLOCATE_CHUNK, temp.as_file_mut());
        w.write_all(header).map_err(write_err)?;
        let zeros = vec![0u8; PREALLOCATE_CHUNK.min(total - header.len())];
        let mut left = total - header.len();
        while left > 0 {
            let n = left.min(zeros.len());
            w.write_all(&zeros[..n]).map_err(write_err)?;
            left -= n;
        }
        w.flush().map_err(write_err)?;
    }
    let map =
        crate::map::map_read_write(temp.as_file()).map_err(|e| NpyError::io("memory-map", Some(temp.path()), e))?;
    Ok((temp, map))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_rejects_wrong_lengths_before_writing() {
        let mut out = Vec::new();
        let e = write_npy(&mut out, DataType::Float32, &[2, 3], &[0; 20]).err();
        assert!(out.is_empty());
        assert_eq!(
            e.map(|e| e.to_string()).unwrap_or_default(),
            "error[npy]: the data is 20 bytes, but shape (2, 3) of FLOAT32 needs exactly 24 bytes (6 elements x 4 bytes)"
        );
    }

    #[test]
    fn data_len_of_zero_sized_and_0d_shapes() {
        assert_eq!(check_data_len(DataType::Float64, &[], 8), Ok(8));
        assert_eq!(check_data_len(DataType::Float64, &[0, 5], 0), Ok(0));
    }
}
