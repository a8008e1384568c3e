//! Reading: from bytes in memory ([`read_from_bytes`]), from a memory-mapped file ([`MappedNpy`]), from any reader
//! ([`read_header`]) and from a path into owned memory ([`read_npy`]).
//!
//! Every reader returns little-endian data in the order the file stores it (C or Fortran, see
//! [`NpyHeader::strides`]); big-endian files are byte-swapped, and [`NpyHeader::big_endian`] says so.

use std::borrow::Cow;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::error::{InvalidKind, NpyError};
use crate::header::{MAX_PREAMBLE_LEN, NpyHeader, parse_header, parse_header_with_len};
use crate::map::{map_read_only, release};

/// A `.npy` file's header and its data, little-endian, borrowed from the file's bytes when no byte swap is needed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyView<'a> {
    /// The validated header.
    pub header: NpyHeader,
    /// Exactly [`NpyHeader::data_len_bytes`] bytes, little-endian, in the file's element order. Borrowed unless the
    /// file is big-endian (then an owned, swapped copy).
    pub data: Cow<'a, [u8]>,
}

/// A `.npy` file's header and its data, owned, little-endian.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyArray {
    /// The validated header.
    pub header: NpyHeader,
    /// Exactly [`NpyHeader::data_len_bytes`] bytes, little-endian, in the file's element order.
    pub data: Vec<u8>,
}

impl NpyView<'_> {
    /// Copies the data if it is borrowed.
    pub fn into_owned(self) -> NpyArray {
        NpyArray { header: self.header, data: self.data.into_owned() }
    }
}

/// Reads a complete `.npy` file held in memory (for example a memory map).
///
/// The data is borrowed from `file` unless the file is big-endian, in which case it is copied and swapped. The data
/// is exactly the bytes after the header: a file with more or fewer bytes than the shape needs is an error
/// ([`InvalidKind::DataLength`]).
///
/// ```
/// let mut file = stridekit_npy::encode_header(stridekit::DataType::Int16, &[2]).unwrap();
/// file.extend_from_slice(&[1, 0, 2, 0]);
/// let view = stridekit_npy::read_from_bytes(&file).unwrap();
/// assert_eq!(view.header.shape, [2]);
/// assert_eq!(&view.data[..], &[1, 0, 2, 0]);
/// ```
pub fn read_from_bytes(file: &[u8]) -> Result<NpyView<'_>, NpyError> {
    let header = parse_header(file)?;
    let data = data_of(&header, file)?;
    Ok(NpyView { data: to_little_endian(&header, data), header })
}

/// The data bytes of a validated header within its file.
fn data_of<'a>(header: &NpyHeader, file: &'a [u8]) -> Result<&'a [u8], NpyError> {
    // parse_header checked that the data is exactly what follows the header; `get` keeps this path panic-free even
    // for a header that was changed after parsing.
    file.get(header.data_offset..)
        .ok_or_else(|| InvalidKind::TooShort { file_len: file.len() as u64, needed: header.data_offset as u64 }.into())
}

fn to_little_endian<'a>(header: &NpyHeader, data: &'a [u8]) -> Cow<'a, [u8]> {
    if header.big_endian {
        let mut owned = data.to_vec();
        swap_elements(&mut owned, header.element_size());
        Cow::Owned(owned)
    } else {
        Cow::Borrowed(data)
    }
}

/// Reverses the bytes of each `element_size`-byte element in place.
fn swap_elements(data: &mut [u8], element_size: u32) {
    if element_size > 1 {
        data.chunks_exact_mut(element_size as usize).for_each(<[u8]>::reverse);
    }
}

/// Reads and validates only the header from `reader`, positioned at the start of a file of `file_len` bytes.
///
/// On success the reader is positioned exactly at the first data byte (`data_offset`). `file_len` must be the true
/// length of the file (for example from [`std::fs::Metadata::len`]): the header length is checked against it before
/// anything is read into memory, and the data length is validated against `file_len - data_offset`.
///
/// Reading is incremental: a reader that ends early causes an `error[io]` (unexpected end of file), never an
/// allocation larger than the bytes actually read.
pub fn read_header<R: Read>(reader: &mut R, file_len: u64) -> Result<NpyHeader, NpyError> {
    read_header_impl(reader, file_len)
}

fn read_header_impl(reader: &mut dyn Read, file_len: u64) -> Result<NpyHeader, NpyError> {
    let mut buf = Vec::with_capacity(MAX_PREAMBLE_LEN);
    // Magic and version first, then the length field the version implies, then the header: never past the header.
    let mut wanted = 8u64.min(file_len);
    loop {
        read_up_to(reader, &mut buf, wanted)?;
        match crate::header::header_end(&buf, file_len) {
            Ok(end) if end > buf.len() as u64 => wanted = end,
            Ok(_) => break,
            Err(NpyError::Invalid { kind: InvalidKind::PrefixTooShort { needed, .. }, .. })
                if needed > buf.len() as u64 =>
            {
                wanted = needed;
            }
            Err(e) => return Err(e),
        }
    }
    parse_header_with_len(&buf, file_len)
}

/// Appends bytes from `reader` until `buf` holds `len` bytes; an early end is an I/O error.
fn read_up_to(reader: &mut dyn Read, buf: &mut Vec<u8>, len: u64) -> Result<(), NpyError> {
    let missing = len.saturating_sub(buf.len() as u64);
    let got = reader.take(missing).read_to_end(buf).map_err(|e| NpyError::io("read", None, e))?;
    if (got as u64) < missing {
        let error = io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the file ended after {} bytes, but {len} bytes were expected", buf.len()),
        );
        return Err(NpyError::io("read", None, error));
    }
    Ok(())
}

/// Opens `path` for reading and checks that it is a regular file; returns the file and its length.
///
/// The file is opened non-blocking, so that a named pipe (FIFO) is refused at once instead of waiting forever for a
/// writer; the check that follows accepts only regular files, on which the flag changes nothing.
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), NpyError> {
    let mut options = File::options();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| NpyError::io("open", Some(path), e))?;
    let meta = file.metadata().map_err(|e| NpyError::io("inspect", Some(path), e))?;
    if !meta.is_file() {
        let kind = InvalidKind::NotRegularFile { what: what_is(&meta), hint: "give the path of a .npy file" };
        return Err(NpyError::from(kind).with_path(path));
    }
    Ok((file, meta.len()))
}

/// What a path that is not a regular file is, for messages.
pub(crate) fn what_is(meta: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if meta.is_dir() { "a directory" } else { "a device, pipe or socket" }
}

/// Reads the `.npy` file at `path` into owned memory.
///
/// Reads the header first, validates it against the file's length, and only then allocates exactly the data length
/// and reads the data (no memory map, no `unsafe`). Big-endian data is swapped. The path must be a regular file.
/// For large inputs prefer [`MappedNpy`], which does not copy.
pub fn read_npy(path: &Path) -> Result<NpyArray, NpyError> {
    read_npy_impl(path).map_err(|e| e.with_path(path))
}

fn read_npy_impl(path: &Path) -> Result<NpyArray, NpyError> {
    let (file, file_len) = open_regular(path)?;
    let mut reader = io::BufReader::new(file);
    let header = read_header(&mut reader, file_len)?;
    let len = header.data_len_bytes();
    let len_usize = usize::try_from(len).map_err(|_| InvalidKind::TooLarge { bytes: len })?;
    let mut data = Vec::new();
    data.try_reserve_exact(len_usize).map_err(|_| InvalidKind::TooLarge { bytes: len })?;
    read_up_to(&mut reader, &mut data, len)?;
    swap_elements(&mut data, if header.big_endian { header.element_size() } else { 1 });
    Ok(NpyArray { header, data })
}

/// A `.npy` file memory-mapped read-only, with its validated header: the zero-copy input path of the CLI.
///
/// [`MappedNpy::view`] borrows the data straight from the map (or swaps a copy for big-endian files).
///
/// **Caveat (memory maps):** the file must not be modified or truncated by anyone while it is mapped. A concurrent
/// writer changes the bytes under the reader; a concurrent truncation makes reads of the lost pages raise `SIGBUS`.
/// Use [`read_npy`] when that cannot be ruled out.
#[derive(Debug)]
pub struct MappedNpy {
    path: PathBuf,
    header: NpyHeader,
    map: Mmap,
}

impl MappedNpy {
    /// Opens and maps `path`, then parses and validates the header against the map's length.
    ///
    /// The path must be a regular file (pipes and devices cannot be mapped; directories are not files).
    pub fn open(path: &Path) -> Result<Self, NpyError> {
        let (file, file_len) = open_regular(path)?;
        if file_len == 0 {
            // An empty file cannot be mapped on every platform; it is not a .npy file either.
            return Err(NpyError::from(InvalidKind::TooShort { file_len: 0, needed: 8 }).with_path(path));
        }
        let map = map_read_only(&file).map_err(|e| NpyError::io("memory-map", Some(path), e))?;
        let header = parse_header(&map).map_err(|e| e.with_path(path))?;
        Ok(MappedNpy { path: path.to_path_buf(), header, map })
    }

    /// The validated header.
    pub fn header(&self) -> &NpyHeader {
        &self.header
    }

    /// The path the file was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The data bytes exactly as stored (big-endian if [`NpyHeader::big_endian`]).
    pub fn raw_data(&self) -> &[u8] {
        self.map.get(self.header.data_offset..).unwrap_or_default()
    }

    /// Drops the mapped pages of data bytes `range` from the process's resident set once the caller is done with
    /// them (they are read back from the file if touched again). Lets a reader stream through an input larger than
    /// memory. Ranges outside the data are clamped; the call has no effect on the contents of any view.
    pub fn release_data(&self, range: std::ops::Range<usize>) -> Result<(), NpyError> {
        let data_len = self.raw_data().len();
        let (start, end) = (range.start.min(data_len), range.end.min(data_len));
        if start >= end {
            return Ok(());
        }
        release(&self.map, self.header.data_offset + start, end - start)
            .map_err(|e| NpyError::io("release pages of", Some(&self.path), e))
    }

    /// The header and little-endian data: borrowed from the map, or (big-endian files) a swapped copy made on each
    /// call.
    pub fn view(&self) -> NpyView<'_> {
        NpyView { header: self.header.clone(), data: to_little_endian(&self.header, self.raw_data()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode_header;
    use stridekit::DataType;

    #[test]
    fn swap_reverses_each_element() {
        let mut d = vec![1, 2, 3, 4, 5, 6, 7, 8];
        swap_elements(&mut d, 4);
        assert_eq!(d, [4, 3, 2, 1, 8, 7, 6, 5]);
        swap_elements(&mut d, 1);
        assert_eq!(d, [4, 3, 2, 1, 8, 7, 6, 5]);
    }

    #[test]
    fn read_header_stops_at_the_data() {
        let mut file = encode_header(DataType::Uint16, &[3]).unwrap_or_default();
        let offset = file.len();
        file.extend_from_slice(&[1, 0, 2, 0, 3, 0]);
        let mut cursor = io::Cursor::new(&file);
        let h = read_header(&mut cursor, file.len() as u64).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(h.data_offset, offset);
        assert_eq!(cursor.position() as usize, offset);
    }

    #[test]
    fn read_header_of_a_stream_shorter_than_claimed_is_an_io_error() {
        let file = encode_header(DataType::Uint16, &[3]).unwrap_or_default();
        let e = read_header(&mut &file[..40], 1 << 40).err();
        assert!(e.as_ref().is_some_and(NpyError::is_io), "{e:?}");
        assert!(
            e.is_some_and(|e| e.to_string().contains("the file ended after 40 bytes, but 128 bytes were expected"))
        );
    }

    #[test]
    fn big_endian_view_is_swapped_and_flagged() {
        let mut file = encode_header(DataType::Int32, &[2]).unwrap_or_default();
        let text_start = 10;
        let pos = file[text_start..].windows(3).position(|w| w == b"<i4").map(|p| p + text_start);
        if let Some(p) = pos {
            file[p] = b'>';
        }
        file.extend_from_slice(&[0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe]);
        let view = read_from_bytes(&file).unwrap_or_else(|e| panic!("{e}"));
        assert!(view.header.big_endian);
        assert_eq!(view.header.descr, ">i4");
        assert!(matches!(view.data, Cow::Owned(_)));
        assert_eq!(&view.data[..], &[2, 1, 0, 0, 0xfe, 0xff, 0xff, 0xff]);
    }
}
