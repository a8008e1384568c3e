//! [`NpyHeader`]: the preamble and header dict of a `.npy` file, parsed and validated, and the encoder that writes one.
//!
//! The layout of a `.npy` file (NumPy's `numpy.lib.format`):
//!
//! | bytes | version 1.0 | versions 2.0 and 3.0 |
//! |---|---|---|
//! | 0..6 | magic `\x93NUMPY` | magic |
//! | 6, 7 | major, minor version | major, minor version |
//! | then | header length, `u16` little-endian | header length, `u32` little-endian |
//! | then | header: a Python dict literal, Latin-1 | the same; Latin-1 (2.0) or UTF-8 (3.0) |
//! | then | the data, `shape` product x element size bytes | the same |
//!
//! The dict is `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`, padded with spaces and a newline.
//!
//!
//! The validation order is documented on [`parse_header_with_len`].

use stridekit::DataType;

use crate::descr::{ByteOrder, parse_descr};
use crate::error::{InvalidKind, NpyError, PyShape};
use crate::{ARRAY_ALIGN, GROWTH_AXIS_MAX_DIGITS, MAGIC, MAX_DIMS};

/// Length of magic plus version bytes, the part of the preamble common to all versions.
const MAGIC_AND_VERSION_LEN: usize = MAGIC.len() + 2;
/// Preamble length of version 1.0: magic, version, `u16` header length.
const PREAMBLE_LEN_V1: usize = MAGIC_AND_VERSION_LEN + 2;
/// Preamble length of versions 2.0 and 3.0: magic, version, `u32` header length.
const PREAMBLE_LEN_V2: usize = MAGIC_AND_VERSION_LEN + 4;

/// The longest preamble (versions 2.0 and 3.0): read this many bytes to learn the header length of any version.
pub const MAX_PREAMBLE_LEN: usize = PREAMBLE_LEN_V2;

/// The longest header (the dict text after the preamble) a reader accepts, in bytes: NumPy's `_MAX_HEADER_SIZE`
/// (`numpy.load(max_header_size=10000)`), which refuses longer headers as unsafe to parse. NumPy compares the
/// decoded text's length in characters; a valid header is ASCII, so bytes and characters agree. The check comes
/// before the header is read, so a file claiming a 4 GiB header costs nothing.
pub const MAX_HEADER_LEN: u64 = 10_000;

/// The parsed, validated header of a `.npy` file.
///
/// Returned by [`parse_header`], [`parse_header_with_len`] and the readers. Every header this crate returns satisfies:
/// - `shape.len() <= MAX_DIMS`;
/// - the element count, the byte count and every stride fit in `u64` (checked at parse);
/// - the file holds exactly [`NpyHeader::data_len_bytes`] bytes after `data_offset`.
///
/// The fields are public for reading. A header you modify yourself keeps no promises: the methods then saturate at
/// `u64::MAX` instead of overflowing.
///
/// **0-d arrays.** A file with shape `()` holds one element; `shape` is then empty and [`NpyHeader::element_count`]
/// is 1. DirectML tensors have at least one dimension, so the `stridekit` CLI treats such an array as sizes `[1]`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NpyHeader {
    /// Format version `(major, minor)`: `(1, 0)`, `(2, 0)` or `(3, 0)`.
    pub version: (u8, u8),
    /// The element type.
    pub data_type: DataType,
    /// The file stores big-endian elements (descr `>f4` etc.). The readers of this crate always return little-endian
    /// data (they swap each element), so this only tells the caller that a swap happened. Always `false` for 1-byte
    /// types, which have no byte order.
    pub big_endian: bool,
    /// The descr exactly as the file writes it, e.g. `<f4` or `>i2`.
    pub descr: String,
    /// The data is stored in Fortran (column-major) order: see [`NpyHeader::strides`].
    pub fortran_order: bool,
    /// The logical shape, outermost dimension first, as NumPy reports `array.shape`. Empty for a 0-d array.
    pub shape: Vec<u64>,
    /// Where the data starts: preamble plus header length.
    pub data_offset: usize,
}

impl NpyHeader {
    /// The number of elements: the product of `shape` (1 for a 0-d array).
    pub fn element_count(&self) -> u64 {
        self.shape.iter().fold(1u64, |acc, &d| acc.saturating_mul(d))
    }

    /// Bytes per element.
    pub fn element_size(&self) -> u32 {
        self.data_type.size_in_bytes_rounded_up()
    }

    /// The length of the data: element count times element size.
    pub fn data_len_bytes(&self) -> u64 {
        self.element_count().saturating_mul(u64::from(self.element_size()))
    }

    /// The strides, in elements, at which the data is stored, one per dimension of `shape`.
    ///
    /// C order packs the last dimension densest (row-major): shape `(2, 3, 4)` has strides `[12, 4, 1]`.
    /// Fortran order packs the first dimension densest (column-major), i.e. the reversed strides:
    /// shape `(2, 3, 4)` has strides `[1, 2, 6]`. Element `[i, j, k]` is at element offset `i*s0 + j*s1 + k*s2`.
    pub fn strides(&self) -> Vec<u64> {
        packed_strides(&self.shape, self.fortran_order)
    }
}

/// Packed element strides of `shape`, row-major or (if `fortran`) column-major; saturating.
fn packed_strides(shape: &[u64], fortran: bool) -> Vec<u64> {
    let mut strides = vec![0u64; shape.len()];
    let mut step = 1u64;
    let mut assign = |i: usize| {
        strides[i] = step;
        step = step.saturating_mul(shape[i]);
    };
    if fortran {
        (0..shape.len()).for_each(&mut assign);
    } else {
        (0..shape.len()).rev().for_each(&mut assign);
    }
    strides
}

/// Parses and validates the header of a complete `.npy` file held in memory.
///
/// Equivalent to `parse_header_with_len(file, file.len() as u64)`: the data length is checked against the bytes
/// after the header.
pub fn parse_header(file: &[u8]) -> Result<NpyHeader, NpyError> {
    parse_header_with_len(file, file.len() as u64)
}

/// Parses and validates a header from the first bytes of a file of `file_len` bytes.
///
/// `prefix` must hold at least the preamble and the header (`data_offset` bytes; more is fine), which lets a caller
/// read only the beginning of a file from disk: read [`MAX_PREAMBLE_LEN`] bytes, call [`header_end`] to learn how many
/// bytes the header needs, read those, then call this. [`crate::read_header`] does exactly that over any reader.
///
/// Validation happens in this order, so a hostile file is refused before anything depends on its claims:
/// 1. the preamble is complete and the magic and version are known;
/// 2. the header length is checked against NumPy's cap [`MAX_HEADER_LEN`] and against the file length (nothing is
///    allocated before this);
/// 3. the dict is parsed (at most [`MAX_DIMS`] dimensions are stored, so the allocation is bounded);
/// 4. the element and byte counts are computed in checked `u64` arithmetic, including every partial product that a
///    stride can be (so [`NpyHeader::strides`] cannot overflow even when a zero dimension makes the total 0);
/// 5. the data length must equal the byte count exactly.
///
/// Errors (all `error[npy]`): [`InvalidKind::TooShort`], [`InvalidKind::BadMagic`], [`InvalidKind::UnsupportedVersion`],
/// [`InvalidKind::HeaderPastEnd`], [`InvalidKind::PrefixTooShort`], header syntax and content errors,
/// [`InvalidKind::UnsupportedDescr`], [`InvalidKind::ShapeOverflow`] and [`InvalidKind::DataLength`].
pub fn parse_header_with_len(prefix: &[u8], file_len: u64) -> Result<NpyHeader, NpyError> {
    let (version, preamble_len, header_end) = header_end_impl(prefix, file_len)?;
    let header_end_usize = usize::try_from(header_end).map_err(|_| InvalidKind::TooLarge { bytes: header_end })?;
    let text = prefix
        .get(preamble_len..header_end_usize)
        .ok_or(InvalidKind::PrefixTooShort { needed: header_end, given: prefix.len() as u64 })?;

    let dict = parse_dict(text, version)?;
    let (data_type, order) = parse_descr(&dict.descr)?;
    let element_size = data_type.size_in_bytes_rounded_up();
    let counts = checked_counts(&dict.shape, element_size)
        .ok_or_else(|| InvalidKind::ShapeOverflow { shape: dict.shape.clone(), element_size })?;

    // Condition 5: exactly the data the shape needs; header_end <= file_len was checked in header_end_impl.
    let actual = file_len - header_end;
    if actual != counts.bytes {
        return Err(InvalidKind::DataLength {
            actual,
            expected: counts.bytes,
            elements: counts.elements,
            element_size,
            shape: dict.shape,
            descr: dict.descr,
        }
        .into());
    }
    Ok(NpyHeader {
        version,
        data_type,
        big_endian: order == ByteOrder::Big,
        descr: dict.descr,
        fortran_order: dict.fortran_order,
        shape: dict.shape,
        data_offset: header_end_usize,
    })
}

/// From the first bytes of a file (at least the preamble: 10 bytes for version 1.0, [`MAX_PREAMBLE_LEN`] for the
/// others), where the header ends and the data starts, checked against `file_len`.
///
/// Use it to learn how many bytes to read before calling [`parse_header_with_len`].
pub fn header_end(preamble: &[u8], file_len: u64) -> Result<u64, NpyError> {
    header_end_impl(preamble, file_len).map(|(_, _, end)| end).map_err(NpyError::from)
}

/// Conditions 1 and 2: returns (version, preamble length, header end).
fn header_end_impl(preamble: &[u8], file_len: u64) -> Result<((u8, u8), usize, u64), InvalidKind> {
    // Condition 1: magic, version and the header length field are present and known.
    let magic_len = MAGIC.len().min(preamble.len());
    if preamble[..magic_len] != MAGIC[..magic_len] {
        return Err(InvalidKind::BadMagic { found: preamble[..magic_len].to_vec() });
    }
    let too_short = |needed: usize| {
        if file_len < needed as u64 {
            InvalidKind::TooShort { file_len, needed: needed as u64 }
        } else {
            InvalidKind::PrefixTooShort { needed: needed as u64, given: preamble.len() as u64 }
        }
    };
    let (major, minor) = match preamble.get(MAGIC.len()..MAGIC_AND_VERSION_LEN) {
        Some(&[major, minor]) => (major, minor),
        _ => return Err(too_short(MAGIC_AND_VERSION_LEN)),
    };
    let preamble_len = match (major, minor) {
        (1, 0) => PREAMBLE_LEN_V1,
        (2, 0) | (3, 0) => PREAMBLE_LEN_V2,
        _ => return Err(InvalidKind::UnsupportedVersion { major, minor }),
    };
    let len_field = preamble.get(MAGIC_AND_VERSION_LEN..preamble_len).ok_or_else(|| too_short(preamble_len))?;
    let header_len = match *len_field {
        [a, b] => u64::from(u16::from_le_bytes([a, b])),
        [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
        _ => return Err(too_short(preamble_len)),
    };
    // Condition 2a: NumPy's cap on the header length (`max_header_size`).
    if header_len > MAX_HEADER_LEN {
        return Err(InvalidKind::HeaderTooLong { header_len, max: MAX_HEADER_LEN });
    }
    // A file shorter than the preamble it claims was caught above only when the prefix was short; check it too.
    if file_len < preamble_len as u64 {
        return Err(InvalidKind::TooShort { file_len, needed: preamble_len as u64 });
    }
    // Condition 2: the header lies inside the file. Both terms are small (<= 2^32 + 12), so the sum cannot overflow.
    let header_end = preamble_len as u64 + header_len;
    if header_end > file_len {
        return Err(InvalidKind::HeaderPastEnd { header_len, header_end, file_len });
    }
    Ok(((major, minor), preamble_len, header_end))
}

/// Element and byte counts of a shape.
struct Counts {
    elements: u64,
    bytes: u64,
}

/// Condition 4: element count and byte count in checked arithmetic, plus the product of the non-zero dimensions
/// (the largest value a stride can take) times the element size, so that strides in elements or bytes never overflow.
fn checked_counts(shape: &[u64], element_size: u32) -> Option<Counts> {
    let size = u64::from(element_size);
    let elements = shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))?;
    let bytes = elements.checked_mul(size)?;
    let nonzero = shape.iter().filter(|&&d| d != 0).try_fold(1u64, |acc, &d| acc.checked_mul(d))?;
    nonzero.checked_mul(size)?;
    Some(Counts { elements, bytes })
}

/// The three entries of the header dict.
struct Dict {
    descr: String,
    fortran_order: bool,
    shape: Vec<u64>,
}

/// Condition 3: parses the header dict, a subset of Python literal syntax:
///
/// ```text
/// dict  := ws '{' ws [ entry ( ws ',' ws entry )* [ ws ',' ] ws ] '}' ws
/// entry := string ws ':' ws value          keys: 'descr', 'fortran_order', 'shape', each exactly once, any order
/// value := string | 'True' | 'False' | tuple | list (a structured descr, rejected with its text)
/// tuple := '(' ws ')' | '(' ws int ws ',' ws ')' | '(' ws int ( ws ',' ws int )+ [ ws ',' ] ws ')'
/// string:= "'" chars "'" | '"' chars '"'  (no backslash escapes, no newlines)
/// int   := digits (decimal, non-negative, fits u64)
/// ws    := ( ' ' | '\t' | '\n' | '\r' | '\x0c' )*
/// ```
fn parse_dict(text: &[u8], version: (u8, u8)) -> Result<Dict, InvalidKind> {
    if version.0 >= 3 {
        // Version 3.0 headers are UTF-8 (NumPy uses it for non-Latin-1 field names); 1.0 and 2.0 are Latin-1, where
        // every byte is a character.
        if let Err(e) = std::str::from_utf8(text) {
            return Err(InvalidKind::HeaderNotUtf8 { offset: e.valid_up_to() });
        }
    }
    let mut p = Parser { text, pos: 0, utf8: version.0 >= 3 };
    let mut descr = None;
    let mut fortran_order = None;
    let mut shape = None;

    p.skip_ws();
    p.expect(b'{', "'{' starting the header dict")?;
    loop {
        p.skip_ws();
        if p.eat(b'}') {
            break;
        }
        let key_start = p.pos;
        let key = p.string("a quoted key or '}'")?;
        p.skip_ws();
        p.expect(b':', "':' after the key")?;
        p.skip_ws();
        match key {
            b"descr" => {
                let value = p.descr_value()?;
                set_once(&mut descr, "descr", value)?;
            }
            b"fortran_order" => {
                let value = p.bool_value("fortran_order")?;
                set_once(&mut fortran_order, "fortran_order", value)?;
            }
            b"shape" => {
                let value = p.shape_value()?;
                set_once(&mut shape, "shape", value)?;
            }
            _ => {
                p.pos = key_start;
                return Err(InvalidKind::UnknownKey { key: p.decode(key) });
            }
        }
        p.skip_ws();
        if p.eat(b',') {
            continue;
        }
        p.expect(b'}', "',' or '}' after a value")?;
        break;
    }
    p.skip_ws();
    if p.pos != text.len() {
        return Err(p.syntax("the end of the header (only whitespace may follow '}')"));
    }
    Ok(Dict {
        descr: descr.ok_or(InvalidKind::MissingKey { key: "descr" })?,
        fortran_order: fortran_order.ok_or(InvalidKind::MissingKey { key: "fortran_order" })?,
        shape: shape.ok_or(InvalidKind::MissingKey { key: "shape" })?,
    })
}

fn set_once<T>(slot: &mut Option<T>, key: &'static str, value: T) -> Result<(), InvalidKind> {
    if slot.is_some() {
        return Err(InvalidKind::DuplicateKey { key });
    }
    *slot = Some(value);
    Ok(())
}

/// A cursor over the header text. Every method either advances past what it recognised or returns an error naming
/// the offset; none indexes out of bounds.
struct Parser<'h> {
    text: &'h [u8],
    pos: usize,
    utf8: bool,
}

impl<'h> Parser<'h> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, byte: u8, expected: &'static str) -> Result<(), InvalidKind> {
        if self.eat(byte) { Ok(()) } else { Err(self.syntax(expected)) }
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0c)) {
            self.pos += 1;
        }
    }

    /// Header text as a Rust string: UTF-8 for version 3.0 (validated before parsing), Latin-1 otherwise.
    fn decode(&self, bytes: &[u8]) -> String {
        if self.utf8 {
            String::from_utf8_lossy(bytes).into_owned()
        } else {
            bytes.iter().map(|&b| char::from(b)).collect()
        }
    }

    /// A description of what is at the cursor, for error messages.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the header".to_owned(),
            Some(b) if b.is_ascii_graphic() => format!("'{}'", char::from(b)),
            Some(b) => format!("byte 0x{b:02x}"),
        }
    }

    fn syntax(&self, expected: &'static str) -> InvalidKind {
        InvalidKind::HeaderSyntax { offset: self.pos, expected, found: self.found() }
    }

    /// A quoted string; returns its raw bytes without the quotes.
    fn string(&mut self, expected: &'static str) -> Result<&'h [u8], InvalidKind> {
        let quote = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return Err(self.syntax(expected)),
        };
        self.pos += 1;
        let start = self.pos;
        loop {
            match self.peek() {
                Some(b) if b == quote => break,
                None | Some(b'\\' | b'\n' | b'\r') => {
                    return Err(self.syntax("the closing quote (escapes and line breaks are not supported)"));
                }
                Some(_) => self.pos += 1,
            }
        }
        let s = &self.text[start..self.pos];
        self.pos += 1;
        Ok(s)
    }

    /// A Python identifier at the cursor (possibly empty).
    fn word(&mut self) -> &'h [u8] {
        let start = self.pos;
        while matches!(self.peek(), Some(b) if b.is_ascii_alphanumeric() || b == b'_') {
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    /// The text of one value we do not interpret, for an error message: up to the next ',' or '}' at depth 0.
    fn skip_value(&mut self) -> String {
        let start = self.pos;
        let mut depth = 0usize;
        let mut quote = None;
        while let Some(b) = self.peek() {
            match (quote, b) {
                (Some(q), _) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'\'' | b'"') => quote = Some(b),
                (None, b'(' | b'[' | b'{') => depth += 1,
                (None, b')' | b']' | b'}') if depth > 0 => depth -= 1,
                (None, b',' | b'}') if depth == 0 => break,
                (None, _) => {}
            }
            self.pos += 1;
        }
        let raw = self.decode(&self.text[start..self.pos]);
        raw.trim().to_owned()
    }

    fn descr_value(&mut self) -> Result<String, InvalidKind> {
        match self.peek() {
            Some(b'\'' | b'"') => {
                let s = self.string("a quoted descr")?;
                Ok(self.decode(s))
            }
            // A list of fields: a structured type. Report its text so the user sees what the file holds.
            Some(b'[') => Err(InvalidKind::UnsupportedDescr { descr: self.skip_value() }),
            _ => Err(self.wrong_value("descr", "a quoted type string such as '<f4'")),
        }
    }

    fn bool_value(&mut self, key: &'static str) -> Result<bool, InvalidKind> {
        let start = self.pos;
        match self.word() {
            b"True" => Ok(true),
            b"False" => Ok(false),
            _ => {
                self.pos = start;
                Err(self.wrong_value(key, "True or False"))
            }
        }
    }

    fn wrong_value(&mut self, key: &'static str, expected: &'static str) -> InvalidKind {
        let found = self.skip_value();
        let found = if found.is_empty() { "nothing".to_owned() } else { found };
        InvalidKind::WrongValue { key, expected, found }
    }

    /// A tuple of non-negative integers.
    fn shape_value(&mut self) -> Result<Vec<u64>, InvalidKind> {
        const EXPECTED: &str = "a tuple of non-negative integers such as (), (5,) or (2, 3)";
        let start = self.pos;
        if !self.eat(b'(') {
            return Err(self.wrong_value("shape", EXPECTED));
        }
        let mut dims = Vec::new();
        self.skip_ws();
        if self.eat(b')') {
            return Ok(dims);
        }
        loop {
            let Some(d) = self.dimension()? else {
                self.pos = start;
                return Err(self.wrong_value("shape", EXPECTED));
            };
            if dims.len() == MAX_DIMS {
                return Err(InvalidKind::TooManyDimensions { max: MAX_DIMS });
            }
            dims.push(d);
            self.skip_ws();
            if self.eat(b',') {
                self.skip_ws();
                if self.eat(b')') {
                    return Ok(dims);
                }
                continue;
            }
            if self.peek() == Some(b')') {
                if dims.len() == 1 {
                    // `(5)` is the integer 5 in Python, not a tuple; NumPy rejects it too.
                    self.pos = start;
                    return Err(self.wrong_value("shape", EXPECTED));
                }
                self.pos += 1;
                return Ok(dims);
            }
            return Err(self.syntax("',' or ')' in the shape tuple"));
        }
    }

    /// A decimal integer, `None` if the cursor is not at a digit.
    fn dimension(&mut self) -> Result<Option<u64>, InvalidKind> {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        let digits = &self.text[start..self.pos];
        if digits.is_empty() {
            return Ok(None);
        }
        let overflow = || InvalidKind::DimensionOverflow { digits: String::from_utf8_lossy(digits).into_owned() };
        digits
            .iter()
            .try_fold(0u64, |acc, &b| acc.checked_mul(10)?.checked_add(u64::from(b - b'0')))
            .map(Some)
            .ok_or_else(overflow)
    }
}

/// Encodes the preamble and header of a C-order `.npy` file holding `shape` elements of `data_type`.
///
/// The result is byte-for-byte what NumPy 2 writes (`numpy.save`): keys in sorted order, a trailing `, `, the
/// spare spaces NumPy adds so the first dimension can grow in place, then spaces and a newline so the data starts at a
/// multiple of [`ARRAY_ALIGN`] (64) bytes. The version is 1.0 unless the header exceeds 65535 bytes, then 2.0.
///
/// Errors: [`InvalidKind::NoNumpyDescr`] for UINT4/INT4 (NumPy has no 4-bit types),
/// [`InvalidKind::TooManyDimensions`] above [`MAX_DIMS`], [`InvalidKind::ShapeOverflow`].
pub fn encode_header(data_type: DataType, shape: &[u64]) -> Result<Vec<u8>, NpyError> {
    Ok(encode_header_impl(data_type, shape)?)
}

fn encode_header_impl(data_type: DataType, shape: &[u64]) -> Result<Vec<u8>, InvalidKind> {
    let descr = data_type.numpy_descr().ok_or(InvalidKind::NoNumpyDescr { data_type })?;
    if shape.len() > MAX_DIMS {
        return Err(InvalidKind::TooManyDimensions { max: MAX_DIMS });
    }
    let element_size = data_type.size_in_bytes_rounded_up();
    checked_counts(shape, element_size)
        .ok_or_else(|| InvalidKind::ShapeOverflow { shape: shape.to_vec(), element_size })?;
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {}, }}", PyShape(shape));
    if let Some(first) = shape.first() {
        // NumPy's spare room for growing axis 0 in place (numpy.lib.format, GROWTH_AXIS_MAX_DIGITS).
        let digits = first.to_string().len();
        dict.extend(std::iter::repeat_n(' ', GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits)));
    }
    frame_header(dict.as_bytes())
}

/// Prepends the preamble and pads `dict` as NumPy's `_wrap_header` does, choosing the oldest version that fits.
fn frame_header(dict: &[u8]) -> Result<Vec<u8>, InvalidKind> {
    // The header ends with '\n'; NumPy's padding is ARRAY_ALIGN - (total % ARRAY_ALIGN), i.e. 1..=64 spaces (a
    // header that would already be aligned still gets 64).
    let text_len = dict.len() as u64 + 1;
    for (major, preamble_len, max_len) in
        [(1u8, PREAMBLE_LEN_V1, u64::from(u16::MAX)), (2u8, PREAMBLE_LEN_V2, u64::from(u32::MAX))]
    {
        let align = ARRAY_ALIGN as u64;
        let pad = align - (preamble_len as u64 + text_len) % align;
        let header_len = text_len + pad;
        if header_len > max_len {
            continue;
        }
        let total = usize::try_from(preamble_len as u64 + header_len)
            .map_err(|_| InvalidKind::HeaderTooLarge { bytes: preamble_len as u64 + header_len })?;
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&[major, 0]);
        if major == 1 {
            out.extend_from_slice(&(header_len as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(header_len as u32).to_le_bytes());
        }
        out.extend_from_slice(dict);
        out.resize(total - 1, b' ');
        out.push(b'\n');
        return Ok(out);
    }
    Err(InvalidKind::HeaderTooLarge { bytes: PREAMBLE_LEN_V2 as u64 + text_len })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(version: u8, dict: &str, data_len: usize) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[version, 0]);
        if version == 1 {
            out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(dict.len() as u32).to_le_bytes());
        }
        out.extend_from_slice(dict.as_bytes());
        out.resize(out.len() + data_len, 0);
        out
    }

    fn kind(r: Result<NpyHeader, NpyError>) -> InvalidKind {
        match r {
            Err(NpyError::Invalid { kind, .. }) => kind,
            other => panic!("expected an invalid-file error, got {other:?}"),
        }
    }

    #[test]
    fn accepts_key_order_whitespace_trailing_commas_and_quotes() {
        for dict in [
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
            "{'shape':(2,3),'fortran_order':False,'descr':'<f4'}",
            " {\n\t\"descr\" : \"<f4\" ,\r\n 'shape' : ( 2 , 3 , ) , 'fortran_order' : False }  \n",
        ] {
            let h = parse_header(&file(1, dict, 24)).unwrap_or_else(|e| panic!("{dict}: {e}"));
            assert_eq!(h.shape, [2, 3], "{dict}");
            assert_eq!(h.data_type, DataType::Float32);
            assert!(!h.fortran_order);
            assert_eq!(h.data_offset, 10 + dict.len());
        }
    }

    #[test]
    fn tuples() {
        for (text, shape, n) in
            [("()", vec![], 1), ("(5,)", vec![5], 5), ("(2, 3)", vec![2, 3], 6), ("(0, 7)", vec![0, 7], 0)]
        {
            let dict = format!("{{'descr': '|u1', 'fortran_order': True, 'shape': {text}}}");
            let h = parse_header(&file(1, &dict, n)).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(h.shape, shape);
            assert_eq!(h.element_count(), n as u64);
        }
    }

    #[test]
    fn strides_c_and_fortran() {
        let mut h = parse_header(&file(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3, 4)}", 48))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(h.strides(), [12, 4, 1]);
        assert_eq!(h.data_len_bytes(), 48);
        h.fortran_order = true;
        assert_eq!(h.strides(), [1, 2, 6]);
        h.shape = vec![];
        assert_eq!(h.strides(), Vec::<u64>::new());
        assert_eq!(h.element_count(), 1);
    }

    #[test]
    fn syntax_errors_name_the_offset() {
        let k = kind(parse_header(&file(1, "{'descr': '<f4' 'shape': ()}", 0)));
        assert_eq!(
            k.to_string(),
            "cannot parse the header dict at header byte 16: expected ',' or '}' after a value, found '''"
        );
        let k = kind(parse_header(&file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5)}", 20)));
        assert_eq!(
            k.to_string(),
            "'shape' must be a tuple of non-negative integers such as (), (5,) or (2, 3), found (5)"
        );
        let k = kind(parse_header(&file(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", 4)));
        assert_eq!(k.to_string(), "'fortran_order' must be True or False, found 0");
        let k = kind(parse_header(&file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", 4)));
        assert!(matches!(k, InvalidKind::WrongValue { key: "shape", .. }), "{k}");
        let k = kind(parse_header(&file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1L,)}", 4)));
        assert!(matches!(k, InvalidKind::HeaderSyntax { .. }), "{k}");
        let k = kind(parse_header(&file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()} x", 4)));
        assert!(matches!(k, InvalidKind::HeaderSyntax { offset: 54, .. }), "{k}");
    }

    #[test]
    fn keys_must_be_exactly_the_three() {
        let k = kind(parse_header(&file(1, "{'descr': '<f4', 'shape': ()}", 4)));
        assert_eq!(k, InvalidKind::MissingKey { key: "fortran_order" });
        let k = kind(parse_header(&file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", 4)));
        assert_eq!(k, InvalidKind::UnknownKey { key: "x".into() });
        let k =
            kind(parse_header(&file(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}", 4)));
        assert_eq!(k, InvalidKind::DuplicateKey { key: "descr" });
    }

    #[test]
    fn structured_descr_is_named() {
        let k = kind(parse_header(&file(
            1,
            "{'descr': [('a', '<f4'), ('b', '|u1')], 'fortran_order': False, 'shape': ()}",
            5,
        )));
        assert_eq!(k, InvalidKind::UnsupportedDescr { descr: "[('a', '<f4'), ('b', '|u1')]".into() });
    }

    #[test]
    fn data_length_must_match_exactly() {
        let k = kind(parse_header(&file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", 20)));
        assert_eq!(
            k.to_string(),
            "the data is 20 bytes, but shape (2, 3) of <f4 needs exactly 24 bytes (6 elements x 4 bytes)"
        );
        assert!(parse_header(&file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", 25)).is_err());
    }

    #[test]
    fn overflow_is_caught_even_behind_a_zero() {
        let k = kind(parse_header(&file(
            1,
            "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296)}",
            0,
        )));
        assert!(matches!(k, InvalidKind::ShapeOverflow { element_size: 8, .. }), "{k}");
        let k = kind(parse_header(&file(
            1,
            "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}",
            0,
        )));
        assert_eq!(k, InvalidKind::DimensionOverflow { digits: "99999999999999999999".into() });
    }

    #[test]
    fn preamble_errors() {
        assert_eq!(kind(parse_header(b"")), InvalidKind::TooShort { file_len: 0, needed: 8 });
        assert_eq!(kind(parse_header(b"\x93NUM")), InvalidKind::TooShort { file_len: 4, needed: 8 });
        assert_eq!(kind(parse_header(b"PK\x03\x04")), InvalidKind::BadMagic { found: b"PK\x03\x04".to_vec() });
        assert_eq!(
            kind(parse_header(b"\x93NUMPY\x04\x00\x00\x00")),
            InvalidKind::UnsupportedVersion { major: 4, minor: 0 }
        );
        assert_eq!(
            kind(parse_header(b"\x93NUMPY\x02\x00\x00\x00")),
            InvalidKind::TooShort { file_len: 10, needed: 12 }
        );
        assert_eq!(
            kind(parse_header(b"\x93NUMPY\x02\x00\xff\xff\xff\xff")),
            InvalidKind::HeaderTooLong { header_len: 4294967295, max: MAX_HEADER_LEN }
        );
        assert_eq!(
            kind(parse_header(b"\x93NUMPY\x01\x00\xff\xff")),
            InvalidKind::HeaderTooLong { header_len: 65535, max: MAX_HEADER_LEN }
        );
        // 10000 bytes pass the cap (and then fail against the file length), 10001 do not: NumPy's exact limit.
        assert_eq!(
            kind(parse_header(b"\x93NUMPY\x01\x00\x10\x27")),
            InvalidKind::HeaderPastEnd { header_len: 10000, header_end: 10010, file_len: 10 }
        );
        assert_eq!(
            kind(parse_header(b"\x93NUMPY\x01\x00\x11\x27")),
            InvalidKind::HeaderTooLong { header_len: 10001, max: MAX_HEADER_LEN }
        );
        // Only a prefix given: the header end is computed, then the parser asks for more.
        let f = file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}", 4);
        assert_eq!(header_end(&f[..10], f.len() as u64).ok(), Some(f.len() as u64 - 4));
        assert_eq!(
            kind(parse_header_with_len(&f[..20], f.len() as u64)),
            InvalidKind::PrefixTooShort { needed: f.len() as u64 - 4, given: 20 }
        );
        let prefix_only = &f[..f.len() - 4];
        assert!(parse_header_with_len(prefix_only, f.len() as u64).is_ok());
    }

    #[test]
    fn version_3_requires_utf8_and_2_reads_latin1() {
        let mut f = file(3, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}  ", 4);
        f[12 + 53] = 0xff;
        assert_eq!(kind(parse_header(&f)), InvalidKind::HeaderNotUtf8 { offset: 53 });
        let mut f = file(2, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}  ", 4);
        f[12 + 53] = 0xe9;
        assert!(matches!(kind(parse_header(&f)), InvalidKind::HeaderSyntax { offset: 53, .. }));
        let f = file(3, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}", 4);
        assert_eq!(parse_header(&f).map(|h| h.version).ok(), Some((3, 0)));
    }

    #[test]
    fn too_many_dimensions() {
        let dims = vec!["1"; MAX_DIMS + 1].join(", ");
        let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({dims})}}");
        assert_eq!(kind(parse_header(&file(1, &dict, 4))), InvalidKind::TooManyDimensions { max: MAX_DIMS });
        let dims = vec!["1"; MAX_DIMS].join(", ");
        let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({dims})}}");
        assert!(parse_header(&file(1, &dict, 4)).is_ok());
    }

    #[test]
    fn encode_matches_numpy_layout() {
        let h = encode_header(DataType::Float32, &[2, 3]).unwrap_or_default();
        assert_eq!(h.len() % ARRAY_ALIGN, 0);
        assert_eq!(&h[..8], b"\x93NUMPY\x01\x00");
        let text = std::str::from_utf8(&h[10..]).unwrap_or_default();
        assert!(text.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"), "{text}");
        assert!(text.ends_with(" \n"));
        let h0 = encode_header(DataType::Uint8, &[]).unwrap_or_default();
        assert_eq!(h0.len(), 128, "NumPy pads a 0-d header to 128 bytes");
        assert!(matches!(
            encode_header(DataType::Uint4, &[2]),
            Err(NpyError::Invalid { kind: InvalidKind::NoNumpyDescr { data_type: DataType::Uint4 }, .. })
        ));
        assert!(matches!(
            encode_header(DataType::Float64, &[1 << 62, 4]),
            Err(NpyError::Invalid { kind: InvalidKind::ShapeOverflow { .. }, .. })
        ));
    }

    #[test]
    fn frame_switches_to_version_2_above_65535_bytes() {
        let small = frame_header(&[b'x'; 100]).unwrap_or_default();
        assert_eq!(&small[6..8], &[1, 0]);
        let big = frame_header(&vec![b'x'; 70_000]).unwrap_or_default();
        assert_eq!(&big[6..8], &[2, 0]);
        assert_eq!(big.len() % ARRAY_ALIGN, 0);
        let len = u32::from_le_bytes([big[8], big[9], big[10], big[11]]) as usize;
        assert_eq!(len + 12, big.len());
        // Already-aligned text still gets a full 64 bytes of padding, as NumPy does.
        let aligned = frame_header(&[b'x'; 64 - 10 - 1]).unwrap_or_default();
        assert_eq!(aligned.len(), 128);
    }
}
