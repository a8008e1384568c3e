//! # stridekit-npy: NumPy `.npy` files as stridekit byte buffers
//!
//! Reads `.npy` format versions 1.0, 2.0 and 3.0 and writes 1.0 (2.0 when the header needs it), for the 11 byte-sized
//! DirectML types. The first call a user makes is one of the readers:
//!
//! ```
//! use stridekit::DataType;
//! use stridekit_npy::{read_from_bytes, write_npy};
//!
//! let mut file = Vec::new();
//! write_npy(&mut file, DataType::Float32, &[2, 3], &[0u8; 24]).unwrap();
//! let view = read_from_bytes(&file).unwrap();
//! assert_eq!(view.header.data_type, DataType::Float32);
//! assert_eq!(view.header.shape, [2, 3]);
//! assert_eq!(view.header.strides(), [3, 1]); // elements, C order
//! assert_eq!(view.data.len(), 24);
//! ```
//!
//! | task | API |
//! |---|---|
//! | read a file, zero-copy (the CLI's input) | [`MappedNpy::open`] then [`MappedNpy::view`] |
//! | read bytes already in memory | [`read_from_bytes`] -> [`NpyView`] |
//! | read a file into owned memory | [`read_npy`] -> [`NpyArray`] |
//! | read only the header | [`read_header`] (any reader), [`parse_header_with_len`] (a prefix), [`parse_header`] |
//! | write to any writer | [`write_npy`], [`encode_header`] |
//! | write a file atomically, filling a memory map (the CLI's output) | [`AtomicNpyFile`] |
//!
//! ## What is read
//!
//! - **Types** (`descr`): `<f2 <f4 <f8 |u1 |i1 <u2 <u4 <u8 <i2 <i4 <i8` ([`SUPPORTED_DESCRS`]), also written with `=`,
//!   `|` or no byte-order character (read as little-endian, like NumPy on little-endian hosts), `<u1`/`<i1`, and the
//!   big-endian forms `>f4` etc. Big-endian data is **byte-swapped into little-endian** by every reader and the header
//!   reports it ([`NpyHeader::big_endian`]). Everything else (bool `|b1`, complex, strings, structured, datetime,
//!   object) is rejected with [`InvalidKind::UnsupportedDescr`], naming the descr and the supported list. Note that
//!   `u8` in a descr is NumPy's 8-byte unsigned integer (UINT64).
//! - **Order**: `fortran_order: True` files are read as they are stored; [`NpyHeader::strides`] gives the element
//!   strides of the stored data (column-major packed: `stride[0] = 1`) for the logical shape of the header.
//! - **0-d arrays** (shape `()`) are one element with an empty shape. The `stridekit` CLI treats them as sizes `[1]`.
//!
//! ## Hostile files
//!
//! Parsing never panics and never allocates in proportion to a number the file claims: the header length is checked
//! against NumPy's cap ([`MAX_HEADER_LEN`], 10,000 bytes) and the file length before the header is read, the shape holds at most [`MAX_DIMS`] dimensions, element and
//! byte counts are computed in checked `u64` arithmetic, and the data must be exactly the shape's byte count
//! (the numbered conditions on [`parse_header_with_len`]). A property test feeds random and mutated
//! bytes to every parser.
//!
//! ## Errors
//!
//! [`NpyError`] messages start with `error[npy]: ` (invalid file or argument; the CLI exits with 2) or `error[io]: `
//! (the operating system failed; exit code 1), tell them apart with [`NpyError::is_io`]. They name the file when it
//! is known and carry the numbers that failed.
//!
//! ## Unsafe code
//!
//! The only `unsafe` is the creation of memory maps (memmap2's constructors), in one private module with a `SAFETY`
//! comment each. The caveat a memory map brings is documented on [`MappedNpy`]: the input file must not be modified
//! while it is read.

mod descr;
mod error;
mod header;
mod map;
mod read;
mod write;

pub use error::{InvalidKind, NpyError};
pub use header::{
    MAX_HEADER_LEN, MAX_PREAMBLE_LEN, NpyHeader, encode_header, header_end, parse_header, parse_header_with_len,
};
pub use read::{MappedNpy, NpyArray, NpyView, read_from_bytes, read_header, read_npy};
pub use write::{AtomicNpyFile, TEMP_PREFIX, TEMP_SUFFIX, write_file_atomically, write_npy};

/// The six bytes every `.npy` file starts with.
pub const MAGIC: [u8; 6] = *b"\x93NUMPY";

/// The data of a file written by this crate (and by NumPy) starts at a multiple of this many bytes.
pub const ARRAY_ALIGN: usize = 64;

/// The most dimensions a shape may have: NumPy 2's `NPY_MAXDIMS`. Also bounds the memory a header can make the parser
/// allocate.
pub const MAX_DIMS: usize = 64;

/// NumPy leaves room in every header for axis 0 (C order) to grow to this many digits, so appending rows can rewrite
/// the header in place. Written headers match NumPy's byte for byte.
pub const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// The descrs NumPy writes for the 11 supported types, in the order error messages list them.
pub const SUPPORTED_DESCRS: [&str; 11] = ["<f2", "<f4", "<f8", "|u1", "|i1", "<u2", "<u4", "<u8", "<i2", "<i4", "<i8"];
