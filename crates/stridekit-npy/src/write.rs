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
/// **Destination is a regular file or does not exist** (the normal case): the file is built as a temporary file
/// (`.NAME.XXXXXX.tmp`) in the destination's directory, so the final rename stays on one file system and is atomic.
/// The temporary file is first written in full (header, then zeros) so that its blocks are allocated: a full disk
/// is then an ordinary `error[io]` from [`AtomicNpyFile::create`], not a `SIGBUS` in the middle of filling a sparse
/// memory map. (Copy-on-write file systems can still need space when pages are rewritten; there the kernel decides.)
/// It is then memory-mapped writable and [`AtomicNpyFile::data_mut`] is the map: the caller's output goes into the
/// file's pages with no second in-memory copy. [`AtomicNpyFile::commit`] flushes the map, syncs the file, gives it the
/// permissions of the file it replaces (a new file gets the usual `0o666` minus umask on Unix) and renames it over the
/// destination. If the destination is a symbolic link to a regular file, the link's target is replaced and the link
/// is kept.
///
/// **On any error, or if the value is dropped without `commit`,** the temporary file is removed and an existing
/// destination is untouched. (A process killed mid-way leaves its `.tmp` file behind, as with any atomic writer.)
///
/// **Destination exists but is not a regular file** (`/dev/null`, `/dev/full`, a named pipe): a rename would
/// *replace the device node* (if permitted, e.g. as root), which is never what the user means. Such destinations are
/// instead opened for writing at `create` time and written in place by `commit`, through an in-memory buffer (a
/// device cannot be memory-mapped); opening a named pipe waits for its reader, as a shell redirection does. Writing to `/dev/full` therefore fails in `commit` with
/// `error[io]: cannot write /dev/full: No space left on device`. A directory is rejected at `create` with
/// [`InvalidKind::NotRegularFile`].
#[derive(Debug)]
pub struct AtomicNpyFile {
    /// The path given by the caller, for messages.
    path: PathBuf,
    data_offset: usize,
    sink: Sink,
}

#[derive(Debug)]
enum Sink {
    /// A mapped temporary file, renamed over `target` on commit.
    Mapped { temp: NamedTempFile, map: MmapMut, target: PathBuf, permissions: Option<Permissions> },
    /// An existing non-regular file (device, pipe), written in place on commit.
    InPlace { file: File, buf: Vec<u8> },
}

/// Where output to a path goes.
enum Destination {
    /// A regular file (maybe not yet existing) at this path, with the permissions of the file it replaces.
    Regular { target: PathBuf, permissions: Option<Permissions> },
    /// Something else that exists and is written in place.
    InPlace,
}

impl AtomicNpyFile {
    /// Prepares to write a C-order `.npy` file of `data_type` and `shape` at `path`.
    ///
    /// Validates the arguments ([`crate::encode_header`]'s errors), inspects the destination, and creates, sizes and
    /// maps the temporary file (or opens the device). All of it happens before the caller computes anything, so
    /// permission and space problems surface first.
    pub fn create(path: &Path, data_type: DataType, shape: &[u64]) -> Result<Self, NpyError> {
        Self::create_impl(path, data_type, shape).map_err(|e| e.with_path(path))
    }

    fn create_impl(path: &Path, data_type: DataType, shape: &[u64]) -> Result<Self, NpyError> {
        let header = encode_header(data_type, shape)?;
        let (_, data_len) = data_len(data_type, shape)?;
        let total = (header.len() as u64)
            .checked_add(data_len)
            .and_then(|t| usize::try_from(t).ok())
            .ok_or(InvalidKind::TooLarge { bytes: data_len })?;
        let sink = match destination(path)? {
            Destination::Regular { target, permissions } => {
                let (temp, map) = create_mapped_temp(&target, &header, total)?;
                Sink::Mapped { temp, map, target, permissions }
            }
            Destination::InPlace => {
                let file = File::options().write(true).open(path).map_err(|e| NpyError::io("open", Some(path), e))?;
                let mut buf = Vec::new();
                buf.try_reserve_exact(total).map_err(|_| InvalidKind::TooLarge { bytes: total as u64 })?;
                buf.extend_from_slice(&header);
                buf.resize(total, 0);
                Sink::InPlace { file, buf }
            }
        };
        Ok(AtomicNpyFile { path: path.to_path_buf(), data_offset: header.len(), sink })
    }

    /// The data region: exactly element count times element size bytes, zero-initialised. Write the little-endian,
    /// C-order elements here.
    pub fn data_mut(&mut self) -> &mut [u8] {
        let bytes: &mut [u8] = match &mut self.sink {
            Sink::Mapped { map, .. } => &mut map[..],
            Sink::InPlace { buf, .. } => &mut buf[..],
        };
        bytes.get_mut(self.data_offset..).unwrap_or_default()
    }

    /// The destination path as given to [`AtomicNpyFile::create`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Makes the file visible at the destination: flush and rename (regular files), or write (devices and pipes).
    ///
    /// On error the temporary file is removed and the destination is untouched (for devices: whatever the device
    /// accepted before the error).
    pub fn commit(self) -> Result<(), NpyError> {
        let path = self.path;
        match self.sink {
            Sink::Mapped { temp, map, target, permissions } => {
                map.flush().map_err(|e| NpyError::io("flush the memory map of", Some(temp.path()), e))?;
                // Unmap before renaming (required on Windows, harmless elsewhere).
                drop(map);
                let file = temp.as_file();
                if let Some(permissions) = permissions {
                    file.set_permissions(permissions)
                        .map_err(|e| NpyError::io("set permissions of", Some(temp.path()), e))?;
                }
                file.sync_all().map_err(|e| NpyError::io("sync", Some(temp.path()), e))?;
                temp.persist(&target)
                    .map_err(|e| NpyError::io("rename the temporary file to", Some(&target), e.error))?;
                Ok(())
            }
            Sink::InPlace { mut file, buf } => {
                let io = |e| NpyError::io("write", Some(&path), e);
                file.write_all(&buf).map_err(io)?;
                file.flush().map_err(io)
            }
        }
    }
}

/// Classifies the destination without modifying anything.
fn destination(path: &Path) -> Result<Destination, NpyError> {
    match fs::metadata(path) {
        // Does not exist (or is a dangling symbolic link, which the rename then replaces with the file).
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Ok(Destination::Regular { target: path.to_path_buf(), permissions: None })
        }
        Err(e) => Err(NpyError::io("inspect", Some(path), e)),
        Ok(meta) if meta.is_file() => {
            let is_link = fs::symlink_metadata(path).map(|m| m.file_type().is_symlink()).unwrap_or(false);
            let target = if is_link {
                fs::canonicalize(path).map_err(|e| NpyError::io("resolve the symbolic link", Some(path), e))?
            } else {
                path.to_path_buf()
            };
            Ok(Destination::Regular { target, permissions: Some(meta.permissions()) })
        }
        Ok(meta) if meta.is_dir() => {
            Err(InvalidKind::NotRegularFile { what: what_is(&meta), hint: "give the path of the .npy file to write" }
                .into())
        }
        Ok(_) => Ok(Destination::InPlace),
    }
}

/// Creates the temporary file beside `target`, writes `header` and zeros up to `total` bytes, and maps it.
fn create_mapped_temp(target: &Path, header: &[u8], total: usize) -> Result<(NamedTempFile, MmapMut), NpyError> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // Like File::create: 0o666 minus the umask (tempfile's default 0o600 would make outputs private).
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir).map_err(|e| NpyError::io("create a temporary file in", Some(dir), e))?;

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
