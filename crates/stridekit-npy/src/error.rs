//! `NpyError`: what went wrong reading or writing a `.npy` file, with the numbers that failed.
//!
//! Two families, told apart by the message prefix and by [`NpyError::is_io`]:
//! - `error[npy]: ` the bytes are not a `.npy` file this crate reads, or an argument cannot be written as one
//!   ([`NpyError::Invalid`], kind [`InvalidKind`]). The CLI exits with 2.
//! - `error[io]: ` the operating system refused (missing file, full disk, permissions) ([`NpyError::Io`]). The CLI
//!   exits with 1.
//!
//! Each message is complete on its own (the OS error text is part of the `error[io]` line), so a caller prints one
//! line; [`std::error::Error::source`] is deliberately `None` to keep source-chain printers from repeating it.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use stridekit::DataType;

use crate::SUPPORTED_DESCRS;

/// An error reading or writing a `.npy` file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NpyError {
    /// The file's bytes (or an argument to a writer) are not valid or not supported.
    #[error("error[npy]: {}{kind}", PathPrefix(.path.as_deref()))]
    Invalid {
        /// The file concerned, when known (functions working on bytes leave it `None`; path-based ones set it).
        path: Option<PathBuf>,
        /// What is wrong, with the numbers.
        kind: InvalidKind,
    },
    /// The operating system reported an error.
    #[error("error[io]: cannot {action}{}: {error}", PathSuffix(.path.as_deref()))]
    Io {
        /// The file or directory concerned, when known.
        path: Option<PathBuf>,
        /// What was being done, as a verb phrase ("read", "write", "create a temporary file in").
        action: &'static str,
        /// The operating system's error.
        error: io::Error,
    },
}

impl NpyError {
    /// `true` for operating-system failures (`error[io]`), `false` for invalid files and arguments (`error[npy]`).
    pub fn is_io(&self) -> bool {
        matches!(self, NpyError::Io { .. })
    }

    /// The file the error concerns, when known.
    pub fn path(&self) -> Option<&Path> {
        match self {
            NpyError::Invalid { path, .. } | NpyError::Io { path, .. } => path.as_deref(),
        }
    }

    /// The kind of an `error[npy]`, or `None` for an I/O error.
    pub fn invalid_kind(&self) -> Option<&InvalidKind> {
        match self {
            NpyError::Invalid { kind, .. } => Some(kind),
            NpyError::Io { .. } => None,
        }
    }

    /// Attaches `path` unless the error already names a file.
    pub fn with_path(mut self, new: &Path) -> Self {
        match &mut self {
            NpyError::Invalid { path, .. } | NpyError::Io { path, .. } => {
                if path.is_none() {
                    *path = Some(new.to_path_buf());
                }
            }
        }
        self
    }

    pub(crate) fn io(action: &'static str, path: Option<&Path>, error: io::Error) -> Self {
        NpyError::Io { path: path.map(Path::to_path_buf), action, error }
    }
}

impl From<InvalidKind> for NpyError {
    fn from(kind: InvalidKind) -> Self {
        NpyError::Invalid { path: None, kind }
    }
}

/// What is wrong with a `.npy` file or with the arguments of a writer. Shown after `error[npy]: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidKind {
    /// The file ends before the fixed-size preamble (magic, version, header length) does.
    #[error("the file is {file_len} bytes, too short for a .npy preamble of {needed} bytes")]
    TooShort {
        /// Length of the file.
        file_len: u64,
        /// Bytes the preamble needs.
        needed: u64,
    },
    /// The first six bytes are not `\x93NUMPY`.
    #[error("not a .npy file: it starts with {}, not 93 4e 55 4d 50 59 (\"\\x93NUMPY\")", Hex(.found))]
    BadMagic {
        /// The first bytes of the file (at most six).
        found: Vec<u8>,
    },
    /// A format version other than 1.0, 2.0 and 3.0.
    #[error("unsupported .npy format version {major}.{minor}; supported: 1.0, 2.0, 3.0")]
    UnsupportedVersion {
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },
    /// The header length field points past the end of the file.
    #[error(
        "the header length field says {header_len} bytes (ending at byte {header_end}), but the file is {file_len} bytes"
    )]
    HeaderPastEnd {
        /// The header length field.
        header_len: u64,
        /// Preamble plus header length: where the data would start.
        header_end: u64,
        /// Length of the file.
        file_len: u64,
    },
    /// The header length field exceeds NumPy's cap, [`crate::MAX_HEADER_LEN`].
    #[error(
        "the header length field says {header_len} bytes; NumPy refuses headers over {max} bytes as unsafe to parse \
         (numpy.load's max_header_size), and so does stridekit"
    )]
    HeaderTooLong {
        /// The header length field.
        header_len: u64,
        /// The cap.
        max: u64,
    },
    /// [`crate::parse_header_with_len`] was given fewer bytes than the header occupies.
    #[error("the header ends at byte {needed}, but only the first {given} bytes were given to the parser")]
    PrefixTooShort {
        /// Bytes needed: preamble plus header.
        needed: u64,
        /// Bytes given.
        given: u64,
    },
    /// A version 3.0 header that is not UTF-8.
    #[error("the version 3.0 header is not valid UTF-8 (first bad byte at header byte {offset})")]
    HeaderNotUtf8 {
        /// Offset of the first invalid byte within the header text.
        offset: usize,
    },
    /// The header text is not the Python dict literal the format prescribes.
    #[error("cannot parse the header dict at header byte {offset}: expected {expected}, found {found}")]
    HeaderSyntax {
        /// Offset within the header text (after the preamble).
        offset: usize,
        /// What the grammar allows there.
        expected: &'static str,
        /// What is there: a quoted character, a byte in hex, or "the end of the header".
        found: String,
    },
    /// One of `descr`, `fortran_order`, `shape` is missing.
    #[error("the header dict has no '{key}' key; it needs exactly 'descr', 'fortran_order' and 'shape'")]
    MissingKey {
        /// The missing key.
        key: &'static str,
    },
    /// A key other than `descr`, `fortran_order`, `shape`.
    #[error("the header dict has an unknown key '{key}'; it needs exactly 'descr', 'fortran_order' and 'shape'")]
    UnknownKey {
        /// The key, as written (lossily decoded).
        key: String,
    },
    /// A key given twice.
    #[error("the header dict gives '{key}' twice")]
    DuplicateKey {
        /// The repeated key.
        key: &'static str,
    },
    /// A value of the wrong type, e.g. `'fortran_order': 0` or `'shape': (5)`.
    #[error("'{key}' must be {expected}, found {found}")]
    WrongValue {
        /// The key whose value is wrong.
        key: &'static str,
        /// What it must be.
        expected: &'static str,
        /// What is there.
        found: String,
    },
    /// A dimension that does not fit in 64 bits.
    #[error("shape dimension {digits} does not fit in 64 bits")]
    DimensionOverflow {
        /// The digits as written.
        digits: String,
    },
    /// More dimensions than NumPy allows.
    #[error("the shape has more than {max} dimensions (NumPy's limit)")]
    TooManyDimensions {
        /// The limit, [`crate::MAX_DIMS`].
        max: usize,
    },
    /// A descr this crate does not read: bool, complex, strings, structured, datetime, object, ...
    #[error(
        "unsupported descr {descr}{}; supported: {} (and '>' big-endian forms, byte-swapped on read)",
        kind_hint(.descr), SUPPORTED_DESCRS.join(" ")
    )]
    UnsupportedDescr {
        /// The descr as written in the header (a quoted string, or a list for structured types).
        descr: String,
    },
    /// A 4-bit type: NumPy has no type for it, so it cannot be written to `.npy`.
    #[error("{data_type} has no NumPy type, so it cannot be stored in a .npy file; supported: {}", SUPPORTED_DESCRS.join(" "))]
    NoNumpyDescr {
        /// The type.
        data_type: DataType,
    },
    /// The element count or byte count of a shape overflows 64-bit arithmetic.
    #[error("shape {} of {element_size}-byte elements overflows 64-bit element and byte counts", PyShape(.shape))]
    ShapeOverflow {
        /// The shape.
        shape: Vec<u64>,
        /// Bytes per element.
        element_size: u32,
    },
    /// The data after the header is not exactly shape product times element size.
    #[error(
        "the data is {actual} bytes, but shape {} of {descr} needs exactly {expected} bytes ({elements} elements x {element_size} bytes)",
        PyShape(.shape)
    )]
    DataLength {
        /// Bytes present.
        actual: u64,
        /// Bytes the shape needs.
        expected: u64,
        /// Element count.
        elements: u64,
        /// Bytes per element.
        element_size: u32,
        /// The shape.
        shape: Vec<u64>,
        /// The descr, or the DirectML type name when writing.
        descr: String,
    },
    /// The array is larger than this platform's address space.
    #[error("the array needs {bytes} bytes, more than this platform can address")]
    TooLarge {
        /// Bytes needed.
        bytes: u64,
    },
    /// The header needs more than the 4 GiB a version 2.0 header length field can describe.
    #[error("the header needs {bytes} bytes, more than a .npy header can hold")]
    HeaderTooLarge {
        /// Bytes needed.
        bytes: u64,
    },
    /// The path is not a regular file where this crate needs one (a directory, or a device as input).
    #[error("it is {what}, not a regular file; {hint}")]
    NotRegularFile {
        /// What it is ("a directory", "a device, pipe or socket").
        what: &'static str,
        /// What to do instead.
        hint: &'static str,
    },
}

/// A short explanation of why a well-known NumPy kind is unsupported.
fn kind_hint(descr: &str) -> &'static str {
    let code = descr.trim_matches(['\'', '"']).trim_start_matches(['<', '>', '=', '|']);
    match code.as_bytes().first() {
        Some(b'[') => " (a structured type)",
        Some(b'b') => " (bool)",
        Some(b'c') => " (complex)",
        Some(b'U' | b'S' | b'a') => " (a string type)",
        Some(b'M' | b'm') => " (datetime/timedelta)",
        Some(b'O') => " (Python objects)",
        Some(b'V') => " (raw void records)",
        _ => "",
    }
}

/// `"path: "` or nothing.
struct PathPrefix<'a>(Option<&'a Path>);

impl fmt::Display for PathPrefix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, "{}: ", p.display()),
            None => Ok(()),
        }
    }
}

/// `" path"` or nothing.
struct PathSuffix<'a>(Option<&'a Path>);

impl fmt::Display for PathSuffix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, " {}", p.display()),
            None => Ok(()),
        }
    }
}

/// Bytes as `93 4e 55`.
struct Hex<'a>(&'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("nothing");
        }
        for (i, b) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// A shape as Python writes a tuple: `()`, `(5,)`, `(2, 3)`.
pub(crate) struct PyShape<'a>(pub(crate) &'a [u64]);

impl fmt::Display for PyShape<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        if self.0.len() == 1 {
            f.write_str(",")?;
        }
        f.write_str(")")
    }
}

// Errors cross threads (the CLI may read on a worker thread).
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<NpyError>();
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn py_shape_matches_python_repr() {
        assert_eq!(PyShape(&[]).to_string(), "()");
        assert_eq!(PyShape(&[5]).to_string(), "(5,)");
        assert_eq!(PyShape(&[2, 3]).to_string(), "(2, 3)");
    }

    #[test]
    fn prefixes_and_paths() {
        let e = NpyError::from(InvalidKind::UnsupportedVersion { major: 4, minor: 0 }).with_path(Path::new("a.npy"));
        assert_eq!(e.to_string(), "error[npy]: a.npy: unsupported .npy format version 4.0; supported: 1.0, 2.0, 3.0");
        assert!(!e.is_io());
        assert_eq!(e.path(), Some(Path::new("a.npy")));
        let e = e.with_path(Path::new("b.npy"));
        assert_eq!(e.path(), Some(Path::new("a.npy")), "with_path keeps the first path");

        let e = NpyError::io("write", Some(Path::new("/dev/full")), io::Error::other("disk full"));
        assert_eq!(e.to_string(), "error[io]: cannot write /dev/full: disk full");
        assert!(e.is_io());
        assert!(e.invalid_kind().is_none());
    }

    #[test]
    fn unsupported_descr_names_the_kind_and_the_list() {
        let e = NpyError::from(InvalidKind::UnsupportedDescr { descr: "'|b1'".into() });
        assert_eq!(
            e.to_string(),
            "error[npy]: unsupported descr '|b1' (bool); supported: <f2 <f4 <f8 |u1 |i1 <u2 <u4 <u8 <i2 <i4 <i8 \
             (and '>' big-endian forms, byte-swapped on read)"
        );
        let s = InvalidKind::UnsupportedDescr { descr: "[('a', '<f4')]".into() }.to_string();
        assert!(s.contains("(a structured type)"), "{s}");
    }
}
