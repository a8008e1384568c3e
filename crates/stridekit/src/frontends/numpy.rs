//! NumPy basic slicing (`a[1:3, ::-1, 5, ...]`) translated into Slice1 parameters.
//!
//! # The expression
//!
//! Comma-separated items, optionally inside `[...]`, whitespace anywhere between tokens (and after a sign, as in
//! Python's `- 1`), a trailing comma allowed (`1,` is the tuple `(1,)`), an empty expression meaning "everything":
//!
//! - `start:stop` or `start:stop:step`, each part optional (`:`, `::2`, `-3:`, `::-1`); `None` also omits a part;
//! - an integer (`5`, `-1`), counted from the end when negative;
//! - `...` (or `Ellipsis`), at most once: it stands for as many whole axes as the other items leave.
//!
//! Fewer items than axes leave the trailing axes whole. `None`/`np.newaxis` (which insert axes) and boolean or
//! integer-array ("fancy") indexing are rejected: they are not strided windows. So is `[1, 2]`, brackets around two
//! or more integers only: it reads as the Python list of `a[[1, 2]]` (write `1, 2` for `a[1, 2]`).
//!
//! # Semantics, and the one difference from NumPy
//!
//! Each slice is clamped exactly as Python's `slice(start, stop, step).indices(len)` does, negative steps and
//! out-of-range bounds included, and selects `len(range(start, stop, step))` elements. An out-of-range integer is an
//! error, like NumPy's `IndexError`; so are step 0 and too many indices.
//!
//! **An integer index keeps its axis with size 1.** NumPy drops the axis (`a[0]` of a 4x5 array has shape `(5,)`),
//! but a Slice1 output has the input's rank. The elements and their order are the same; reshape the output to drop
//! the axes [`NumpyIndex::integer_axes`] lists to get NumPy's shape.
//!
//! # Mapping to Slice1
//!
//! With `n` selected elements from `start`, `step` apart: a positive step gives the window
//! `[start, start + (n-1)*step]` walked forwards; a negative step gives the window `[start + (n-1)*step, start]` with
//! the negative stride, so that DirectML's `CopyStart = offset + size - 1` is `start`. The window is tight (its size is
//! `(n-1)*|step| + 1`), and `n == 0` on any axis gives [`SliceOutcome::Empty`].
//!
//! ```
//! use stridekit::frontends::{SliceOutcome, numpy::numpy_slice};
//! // a = np.arange(10); a[7:2:-2] is [7, 5, 3]: window [3, 7], walked from 7 backwards.
//! let SliceOutcome::Window(p) = numpy_slice(&[10], "7:2:-2").unwrap() else { unreachable!() };
//! assert_eq!((p.input_window_offsets[0], p.input_window_sizes[0], p.input_window_strides[0]), (3, 5, -2));
//! assert_eq!(p.output_sizes, [3]);
//! assert_eq!(p.copy_start(), [7]);
//!
//! // An integer keeps a size-1 axis; '...' fills the axes in between.
//! let SliceOutcome::Window(p) = numpy_slice(&[2, 3, 4], "-1, ..., ::3").unwrap() else { unreachable!() };
//! assert_eq!(p.output_sizes, [1, 3, 2]);
//! assert_eq!(p.input_window_offsets, [1, 0, 0]);
//!
//! assert_eq!(
//!     numpy_slice(&[2, 3], "1, 3").unwrap_err().to_string(),
//!     "error[numpy]: index 3 is out of bounds for axis 1 with size 3 (item 2)"
//! );
//! ```

use std::fmt;
use std::str::FromStr;

use super::{DecimalError, Slice1Params, SliceOutcome, narrow_u32, parse_decimal, shape_to_u32, stride_for};

/// Why a NumPy index expression cannot be parsed or applied. Messages start with `error[numpy]:`; items count from 1,
/// axes from 0.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NumpyError {
    /// A `[` without its `]` or the reverse, or a bracket inside the expression.
    #[error(
        "error[numpy]: unbalanced brackets in '{text}'; write the index as NumPy does, e.g. '1:3, ::-1' or '[1:3, ::-1]'"
    )]
    UnbalancedBrackets {
        /// The whole expression.
        text: String,
    },
    /// Two commas in a row, or a comma at the start.
    #[error("error[numpy]: item {item} is empty; items are separated by single commas")]
    EmptyItem {
        /// The item number (from 1).
        item: usize,
    },
    /// Neither an integer, a slice nor `...`.
    #[error("error[numpy]: item {item} ('{text}') is not an integer, a slice start:stop:step or '...'")]
    NotAnIndex {
        /// The item number (from 1).
        item: usize,
        /// The item.
        text: String,
    },
    /// A part of a slice is not an integer.
    #[error("error[numpy]: item {item} ('{text}'): the slice {part} '{part_text}' is not an integer")]
    BadSlicePart {
        /// The item number (from 1).
        item: usize,
        /// The item.
        text: String,
        /// `start`, `stop` or `step`.
        part: &'static str,
        /// The part's text.
        part_text: String,
    },
    /// More than two colons.
    #[error("error[numpy]: item {item} ('{text}') has {colons} colons; a slice is start:stop or start:stop:step")]
    TooManyColons {
        /// The item number (from 1).
        item: usize,
        /// The item.
        text: String,
        /// How many colons it has.
        colons: usize,
    },
    /// An integer index that does not fit in i64 (it is out of bounds for any axis).
    #[error(
        "error[numpy]: item {item} ('{text}') does not fit in 64 bits; an integer index must lie in [-size, size) of its axis"
    )]
    IntegerOverflow {
        /// The item number (from 1).
        item: usize,
        /// The item.
        text: String,
    },
    /// `None` or `np.newaxis`.
    #[error(
        "error[numpy]: item {item} ('{text}') would insert a new axis; Slice1 keeps the rank, so None/np.newaxis is not supported"
    )]
    NewAxis {
        /// The item number (from 1).
        item: usize,
        /// The item.
        text: String,
    },
    /// Boolean or integer-array indexing.
    #[error(
        "error[numpy]: item {item} ('{text}') is {kind} indexing; only basic slicing (integers, start:stop:step, '...') maps to Slice1"
    )]
    AdvancedIndexing {
        /// The item number (from 1).
        item: usize,
        /// The item.
        text: String,
        /// `boolean` or `integer-array (fancy)`.
        kind: &'static str,
    },
    /// `[i, j, ...]` around integers only: a Python list, which NumPy reads as integer-array indexing (`a[[1, 2]]`
    /// picks rows 1 and 2), not as the subscript `a[1, 2]`.
    #[error(
        "error[numpy]: '{text}' is a list of integers, which NumPy reads as integer-array (fancy) indexing \
         (a[{text}] picks whole entries along axis 0); only basic slicing maps to Slice1. For a[{body}] write the \
         items without brackets: '{body}'"
    )]
    IntegerList {
        /// The whole expression.
        text: String,
        /// The items without the brackets.
        body: String,
    },
    /// `...` more than once.
    #[error(
        "error[numpy]: an index can only have a single ellipsis ('...'); items {first} and {second} are both '...'"
    )]
    MultipleEllipsis {
        /// The first `...` item (from 1).
        first: usize,
        /// The second.
        second: usize,
    },
    /// More integer and slice items than axes.
    #[error("error[numpy]: too many indices for array: array is {rank}-dimensional, but {indexed} were indexed")]
    TooManyIndices {
        /// The array's rank.
        rank: usize,
        /// The number of integer and slice items.
        indexed: usize,
    },
    /// An integer outside `[-size, size)`, NumPy's `IndexError`.
    #[error("error[numpy]: index {index} is out of bounds for axis {axis} with size {dim} (item {item})")]
    IndexOutOfRange {
        /// The item number (from 1).
        item: usize,
        /// The axis (from 0).
        axis: usize,
        /// The index.
        index: i64,
        /// The axis size.
        dim: u64,
    },
    /// A step of 0, NumPy's `ValueError`.
    #[error("error[numpy]: slice step cannot be zero (item {item}, axis {axis})")]
    ZeroStep {
        /// The item number (from 1).
        item: usize,
        /// The axis (from 0).
        axis: usize,
    },
    /// A step beyond i32 that selects more than one element.
    #[error(
        "error[numpy]: the step {step} on axis {axis} (item {item}) selects {count} elements; Slice1 strides are i32, so a step selecting more than one element must lie in [-2147483648, 2147483647]"
    )]
    StepTooLarge {
        /// The item number (from 1).
        item: usize,
        /// The axis (from 0).
        axis: usize,
        /// The step.
        step: i64,
        /// How many elements it selects.
        count: u64,
    },
    /// An axis larger than a DirectML size.
    #[error("error[numpy]: axis {axis} has size {dim}; DirectML sizes are at most 4294967295")]
    DimensionTooLarge {
        /// The axis (from 0).
        axis: usize,
        /// Its size.
        dim: u64,
    },
}

impl NumpyError {
    /// The error kind shown in brackets at the start of every message: `numpy`.
    pub const KIND: &'static str = "numpy";
}

/// One item of a NumPy index expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexItem {
    /// An integer index: keeps a size-1 axis (see the [module docs](self)).
    Index(i64),
    /// `start:stop:step`; `None` is an omitted part.
    Slice {
        /// The start, or `None` for the default (the first element in the walk direction).
        start: Option<i64>,
        /// The stop (exclusive), or `None` for "to the end" in the walk direction.
        stop: Option<i64>,
        /// The step, or `None` for 1.
        step: Option<i64>,
    },
    /// `...`: as many whole axes as the other items leave.
    Ellipsis,
}

impl IndexItem {
    /// The whole axis, `:`.
    pub const FULL: IndexItem = IndexItem::Slice { start: None, stop: None, step: None };
}

impl fmt::Display for IndexItem {
    /// Writes the item as NumPy syntax; parsing the text gives the item back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexItem::Index(i) => write!(f, "{i}"),
            IndexItem::Ellipsis => f.write_str("..."),
            IndexItem::Slice { start, stop, step } => {
                if let Some(start) = start {
                    write!(f, "{start}")?;
                }
                f.write_str(":")?;
                if let Some(stop) = stop {
                    write!(f, "{stop}")?;
                }
                if let Some(step) = step {
                    write!(f, ":{step}")?;
                }
                Ok(())
            }
        }
    }
}

/// A parsed NumPy basic-indexing expression, independent of any shape. [`resolve`](Self::resolve) applies it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct NumpyIndex {
    /// The items in order. At most one is [`IndexItem::Ellipsis`].
    pub items: Vec<IndexItem>,
}

impl fmt::Display for NumpyIndex {
    /// Writes the expression as `item, item, ...` (without brackets); parsing the text gives the index back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, item) in self.items.iter().enumerate() {
            if n > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

impl FromStr for NumpyIndex {
    type Err = NumpyError;
    fn from_str(text: &str) -> Result<Self, NumpyError> {
        parse_numpy_index(text)
    }
}

/// Parses a NumPy basic-indexing expression such as `"1:3, ::-1, 5, ..."` or `"[-1]"`. See the [module docs](self)
/// for the syntax. Slice bounds and steps beyond i64 saturate to `i64::MIN`/`i64::MAX`, as Python's `PySlice_Unpack`
/// saturates to `±PY_SSIZE_T_MAX`: with axes of at most `u32::MAX` elements either value clamps to the same index
/// and selects the same elements. Integer indices beyond i64 are errors (they are out of bounds for every axis).
///
/// ```
/// use stridekit::frontends::numpy::{IndexItem, parse_numpy_index};
/// let index = parse_numpy_index("[ 1 : 3 , ::-1, -2, ... ]").unwrap();
/// assert_eq!(index.items[0], IndexItem::Slice { start: Some(1), stop: Some(3), step: None });
/// assert_eq!(index.items[2], IndexItem::Index(-2));
/// assert_eq!(index.to_string(), "1:3, ::-1, -2, ...");
/// ```
pub fn parse_numpy_index(text: &str) -> Result<NumpyIndex, NumpyError> {
    let unbalanced = || NumpyError::UnbalancedBrackets { text: text.to_string() };
    let trimmed = text.trim();
    let (_, first_close) = split_top_level(trimmed).ok_or_else(unbalanced)?;
    // `[...]` around the whole expression (once): the first bracket closes at the last character.
    let bracketed = trimmed.starts_with('[') && first_close == Some(trimmed.len() - 1);
    let body = if bracketed { trimmed[1..trimmed.len() - 1].trim() } else { trimmed };
    if body.is_empty() {
        return Ok(NumpyIndex::default());
    }
    let (mut parts, _) = split_top_level(body).ok_or_else(unbalanced)?;
    // `a[1,]` is the tuple `(1,)`: one trailing comma is allowed.
    if parts.len() > 1 && parts.last().is_some_and(|p| p.trim().is_empty()) {
        parts.pop();
    }
    let mut items = Vec::with_capacity(parts.len());
    let mut ellipsis: Option<usize> = None;
    for (n, part) in parts.iter().enumerate() {
        let item_no = n + 1;
        let item = parse_item(item_no, part.trim())?;
        if item == IndexItem::Ellipsis {
            if let Some(first) = ellipsis {
                return Err(NumpyError::MultipleEllipsis { first, second: item_no });
            }
            ellipsis = Some(item_no);
        }
        items.push(item);
    }
    // `[1, 2]` is ambiguous: the subscript of `a[1, 2]`, or the list of `a[[1, 2]]`. A user who types brackets
    // around integers alone means the list (fancy indexing), so it is refused; with a slice or `...` inside, the
    // brackets can only be the subscript (a list cannot hold `1:3`). A single integer, `[1]`, selects the same
    // elements either way (this front end keeps the axis, as `a[[1]]` does), so it is accepted.
    if bracketed && items.len() >= 2 && items.iter().all(|i| matches!(i, IndexItem::Index(_))) {
        return Err(NumpyError::IntegerList { text: trimmed.to_string(), body: body.to_string() });
    }
    Ok(NumpyIndex { items })
}

/// Splits at the commas outside brackets and parentheses (so `[0, 1], :` is two items, the first one fancy).
/// Returns the parts and where the first top-level bracket closes, or `None` if the brackets do not balance.
fn split_top_level(text: &str) -> Option<(Vec<&str>, Option<usize>)> {
    let mut open: Vec<char> = Vec::new();
    let mut parts = Vec::new();
    let mut item_start = 0;
    let mut first_close = None;
    for (at, c) in text.char_indices() {
        match c {
            '[' | '(' => open.push(c),
            ']' | ')' => {
                let expected = if c == ']' { '[' } else { '(' };
                if open.pop()? != expected {
                    return None;
                }
                if open.is_empty() && first_close.is_none() {
                    first_close = Some(at);
                }
            }
            ',' if open.is_empty() => {
                parts.push(&text[item_start..at]);
                item_start = at + 1;
            }
            _ => {}
        }
    }
    if !open.is_empty() {
        return None;
    }
    parts.push(&text[item_start..]);
    Some((parts, first_close))
}

fn parse_item(item: usize, text: &str) -> Result<IndexItem, NumpyError> {
    match text {
        "" => return Err(NumpyError::EmptyItem { item }),
        "..." | "Ellipsis" => return Ok(IndexItem::Ellipsis),
        "None" | "newaxis" | "np.newaxis" | "numpy.newaxis" => {
            return Err(NumpyError::NewAxis { item, text: text.to_string() });
        }
        "True" | "False" => {
            return Err(NumpyError::AdvancedIndexing { item, text: text.to_string(), kind: "boolean" });
        }
        _ => {}
    }
    // The caller has checked that brackets balance; any bracket in an item makes it an array index.
    if text.contains('[') {
        let kind = if text.contains("True") || text.contains("False") { "boolean" } else { "integer-array (fancy)" };
        return Err(NumpyError::AdvancedIndexing { item, text: text.to_string(), kind });
    }
    if text.contains(':') {
        let pieces: Vec<&str> = text.split(':').collect();
        if pieces.len() > 3 {
            return Err(NumpyError::TooManyColons { item, text: text.to_string(), colons: pieces.len() - 1 });
        }
        let mut values = [None; 3];
        for (slot, (piece, name)) in values.iter_mut().zip(pieces.iter().zip(["start", "stop", "step"])) {
            let piece = piece.trim();
            if piece.is_empty() || piece == "None" {
                continue;
            }
            *slot = Some(match parse_python_int(piece) {
                Ok(v) => saturate_i64(v),
                Err(DecimalError::Overflow { negative }) => {
                    if negative {
                        i64::MIN
                    } else {
                        i64::MAX
                    }
                }
                Err(DecimalError::NotANumber) => {
                    return Err(NumpyError::BadSlicePart {
                        item,
                        text: text.to_string(),
                        part: name,
                        part_text: piece.to_string(),
                    });
                }
            });
        }
        let [start, stop, step] = values;
        return Ok(IndexItem::Slice { start, stop, step });
    }
    match parse_python_int(text) {
        Ok(v) => i64::try_from(v)
            .map(IndexItem::Index)
            .map_err(|_| NumpyError::IntegerOverflow { item, text: text.to_string() }),
        Err(DecimalError::Overflow { .. }) => Err(NumpyError::IntegerOverflow { item, text: text.to_string() }),
        Err(DecimalError::NotANumber) => Err(NumpyError::NotAnIndex { item, text: text.to_string() }),
    }
}

/// A decimal integer as Python writes it in an index: an optional sign, optionally followed by whitespace.
fn parse_python_int(text: &str) -> Result<i128, DecimalError> {
    // The sign is one ASCII byte, so `text[1..]` starts on a character boundary.
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, text[1..].trim_start()),
        Some(b'+') => (false, text[1..].trim_start()),
        _ => (false, text),
    };
    if !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(DecimalError::NotANumber);
    }
    match parse_decimal(digits) {
        Ok(v) => Ok(if negative { -v } else { v }),
        Err(DecimalError::Overflow { .. }) => Err(DecimalError::Overflow { negative }),
        Err(e) => Err(e),
    }
}

fn saturate_i64(v: i128) -> i64 {
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// One axis of a resolved index: `count` elements from input index `start`, `step` apart. When `count >= 1`, `start`
/// and every selected index lie in `[0, dim)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AxisSelection {
    /// The item number, for errors (0 for a whole axis, whose step is 1).
    item: usize,
    start: i128,
    step: i128,
    count: i128,
}

/// What an axis gets: the whole axis, or the item (with its number) that names it.
#[derive(Debug, Clone, Copy)]
enum AxisSource {
    Whole,
    Item(usize, IndexItem),
}

impl NumpyIndex {
    /// Assigns the items to the axes of an array of rank `rank`: items before `...` take the leading axes, items
    /// after it the trailing ones, and axes no item names stay whole.
    fn assign(&self, rank: usize) -> Result<Vec<AxisSource>, NumpyError> {
        let indexed = self.items.iter().filter(|i| **i != IndexItem::Ellipsis).count();
        if indexed > rank {
            return Err(NumpyError::TooManyIndices { rank, indexed });
        }
        let mut axes = vec![AxisSource::Whole; rank];
        let split = self.items.iter().position(|i| *i == IndexItem::Ellipsis);
        let (head, tail) = match split {
            Some(p) => (&self.items[..p], &self.items[p + 1..]),
            None => (&self.items[..], &[][..]),
        };
        for (axis, item) in head.iter().enumerate() {
            axes[axis] = AxisSource::Item(axis + 1, *item);
        }
        // indexed = head.len() + tail.len() <= rank, so the tail's first axis is >= head.len().
        let tail_axis = rank - tail.len();
        let tail_item = head.len() + 2;
        for (k, item) in tail.iter().enumerate() {
            if *item == IndexItem::Ellipsis {
                // parse_numpy_index never builds this, but the items are public: report it as NumPy does.
                return Err(NumpyError::MultipleEllipsis { first: head.len() + 1, second: tail_item + k });
            }
            axes[tail_axis + k] = AxisSource::Item(tail_item + k, *item);
        }
        Ok(axes)
    }

    /// The axes integer items index, for an array of rank `rank`. NumPy drops them; Slice1 keeps them with size 1.
    ///
    /// ```
    /// use stridekit::frontends::numpy::parse_numpy_index;
    /// assert_eq!(parse_numpy_index("..., 0, 1:").unwrap().integer_axes(4).unwrap(), [2]);
    /// ```
    pub fn integer_axes(&self, rank: usize) -> Result<Vec<usize>, NumpyError> {
        Ok(self
            .assign(rank)?
            .iter()
            .enumerate()
            .filter_map(|(axis, source)| matches!(source, AxisSource::Item(_, IndexItem::Index(_))).then_some(axis))
            .collect())
    }

    /// Applies the index to an array of shape `shape` (row-major sizes; each at most `u32::MAX`). The output keeps the
    /// input's rank (see the [module docs](self)).
    pub fn resolve(&self, shape: &[u64]) -> Result<SliceOutcome, NumpyError> {
        let input_sizes = shape_to_u32(shape).map_err(|(axis, dim)| NumpyError::DimensionTooLarge { axis, dim })?;
        let sources = self.assign(shape.len())?;
        let mut selections = Vec::with_capacity(shape.len());
        for (axis, (source, &dim)) in sources.iter().zip(shape).enumerate() {
            selections.push(select(axis, *source, dim)?);
        }
        tight_outcome(&input_sizes, &selections)
    }
}

/// Parses `expr` and applies it to an array of shape `shape`: [`parse_numpy_index`] then [`NumpyIndex::resolve`].
pub fn numpy_slice(shape: &[u64], expr: &str) -> Result<SliceOutcome, NumpyError> {
    parse_numpy_index(expr)?.resolve(shape)
}

fn select(axis: usize, source: AxisSource, dim: u64) -> Result<AxisSelection, NumpyError> {
    let len = i128::from(dim);
    match source {
        AxisSource::Whole => Ok(AxisSelection { item: 0, start: 0, step: 1, count: len }),
        AxisSource::Item(_, IndexItem::Ellipsis) => Ok(AxisSelection { item: 0, start: 0, step: 1, count: len }),
        AxisSource::Item(item, IndexItem::Index(index)) => {
            let i = i128::from(index);
            if i < -len || i >= len {
                return Err(NumpyError::IndexOutOfRange { item, axis, index, dim });
            }
            Ok(AxisSelection { item, start: if i < 0 { i + len } else { i }, step: 1, count: 1 })
        }
        AxisSource::Item(item, IndexItem::Slice { start, stop, step }) => {
            let step = i128::from(step.unwrap_or(1));
            if step == 0 {
                return Err(NumpyError::ZeroStep { item, axis });
            }
            let (start, count) = slice_indices(start, stop, step, len);
            Ok(AxisSelection { item, start, step, count })
        }
    }
}

/// Python's `slice(start, stop, step).indices(len)` followed by `len(range(...))`, in i128 (no overflow for i64
/// inputs and `len <= u32::MAX`). Returns `(start, count)`. CPython (`PySlice_AdjustIndices`):
/// for a positive step the bounds clamp to `[0, len]`, for a negative one to `[-1, len - 1]`, after adding `len` to
/// negative values; an omitted start is the first index of the walk, an omitted stop one past its last.
fn slice_indices(start: Option<i64>, stop: Option<i64>, step: i128, len: i128) -> (i128, i128) {
    let (lower, upper) = if step < 0 { (-1, len - 1) } else { (0, len) };
    let adjust = |value: Option<i64>, default: i128| match value {
        None => default,
        Some(v) => {
            let v = i128::from(v);
            if v < 0 { (v + len).max(lower) } else { v.min(upper) }
        }
    };
    let start = adjust(start, if step < 0 { upper } else { lower });
    let stop = adjust(stop, if step < 0 { lower } else { upper });
    let count = if step > 0 {
        if stop > start { (stop - start - 1) / step + 1 } else { 0 }
    } else if start > stop {
        (start - stop - 1) / (-step) + 1
    } else {
        0
    };
    (start, count)
}

/// Builds the outcome from per-axis selections; the window is tight (first to last selected index). An empty result
/// wins over a step Slice1 cannot express: nothing is dispatched then.
fn tight_outcome(input_sizes: &[u32], axes: &[AxisSelection]) -> Result<SliceOutcome, NumpyError> {
    if axes.iter().any(|a| a.count == 0) {
        // 0 <= count <= len <= u32::MAX.
        return Ok(SliceOutcome::Empty { output_shape: axes.iter().map(|a| u64::from(narrow_u32(a.count))).collect() });
    }
    let mut params = Slice1Params::whole(input_sizes);
    for (dim, axis) in axes.iter().enumerate() {
        let Some(stride) = stride_for(axis.step, axis.count) else {
            let (item, step, count) = (axis.item, saturate_i64(axis.step), u64::from(narrow_u32(axis.count)));
            return Err(NumpyError::StepTooLarge { item, axis: dim, step, count });
        };
        // `range` semantics: start and the last selected index both lie in [0, len), so the window does too, and
        // `size = (count - 1) * |step| + 1` gives MaxCopiedElements = count exactly (R-S1-5).
        let last = axis.start + (axis.count - 1) * axis.step;
        let (lo, hi) = if axis.step > 0 { (axis.start, last) } else { (last, axis.start) };
        params.input_window_offsets[dim] = narrow_u32(lo);
        params.input_window_sizes[dim] = narrow_u32(hi - lo + 1);
        params.input_window_strides[dim] = stride;
        params.output_sizes[dim] = narrow_u32(axis.count);
    }
    Ok(SliceOutcome::Window(params))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `len(range(*slice(start, stop, step).indices(len)))`, worked by hand.
    #[test]
    fn python_slice_indices() {
        assert_eq!(slice_indices(None, None, -1, 5), (4, 5));
        assert_eq!(slice_indices(Some(-100), Some(100), 1, 5), (0, 5));
        assert_eq!(slice_indices(Some(100), None, -2, 5), (4, 3));
        assert_eq!(slice_indices(Some(-100), None, -1, 5), (-1, 0));
        assert_eq!(slice_indices(Some(3), Some(3), 1, 5), (3, 0));
        assert_eq!(slice_indices(None, None, 1, 0), (0, 0));
        assert_eq!(slice_indices(None, None, -1, 0), (-1, 0));
        assert_eq!(slice_indices(Some(i64::MIN), Some(i64::MAX), i128::from(i64::MIN), 7), (-1, 0));
        assert_eq!(slice_indices(Some(i64::MAX), Some(i64::MIN), i128::from(i64::MIN), 7), (6, 1));
    }

    #[test]
    fn python_ints() {
        assert_eq!(parse_python_int("- 3"), Ok(-3));
        assert_eq!(parse_python_int("+ 3"), Ok(3));
        assert_eq!(parse_python_int("--3"), Err(DecimalError::NotANumber));
        assert_eq!(parse_python_int("-+3"), Err(DecimalError::NotANumber));
    }
}
