//! Compiled operators, remembered by their full description.
//!
//! A [`PreparedSlice1`] is a pure function of the validated description and the thread count, so one that compiled
//! is reused for the same description: a repeated call skips validation and compilation (most of the per-call cost
//! of a small copy). Only successes are stored, keyed by every field of the description (tensors with their strides
//! and TotalTensorSizeInBytes, the window, the output sizes), so a call is never answered for a different
//! description, and a description that fails validation fails every time. The table is bounded: it is emptied when
//! it reaches [`CAPACITY`] entries.
//!
//! A second table serves `stridekit.index(a, key)` without `out` ([`index_entry`]): everything between the key and the
//! copy (the front end, the mapping of the array, the descriptions, validation) is a pure function of the input's
//! type, shape and byte strides, the key and the thread count, so the call that computed it once stores the result,
//! the operator, the result's shape and where the operator's input starts relative to the array's data pointer. A
//! repeated call then only allocates the result and copies (the tiny-call latency of issue 12).

use crate::key::Key;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, OnceLock};
use stridekit::{DataType, Slice1Desc, SliceDesc};
use stridekit_cpu::PreparedSlice1;

/// Entries kept before the table is emptied.
pub const CAPACITY: usize = 256;

/// A description as the caller's operator sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Desc {
    /// DML_SLICE1.
    Slice1(Slice1Desc),
    /// DML_SLICE.
    Slice(SliceDesc),
}

type Table = HashMap<(Desc, Option<usize>), Arc<PreparedSlice1>, BuildHasherDefault<WordHash>>;

/// A multiply-rotate hash of whole words (FxHash's): the keys are our own small integers (no untrusted input to
/// flood the table with collisions, and the table is bounded anyway). SipHash, and then byte-at-a-time FNV-1a, were
/// a visible share of a small call (FNV was a fifth of `stridekit.index` on a 4x4 array: shapes, strides and keys
/// are words).
#[derive(Default)]
pub struct WordHash(u64);

impl WordHash {
    #[inline]
    fn word(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for WordHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.word(u64::from_le_bytes(last) ^ ((bytes.len() as u64) << 56));
    }
    fn write_u8(&mut self, i: u8) {
        self.word(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.word(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.word(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.word(i as u64);
    }
    fn write_i64(&mut self, i: i64) {
        self.word(i as u64);
    }
    fn write_isize(&mut self, i: isize) {
        self.word(i as u64);
    }
}

/// Everything `stridekit.index` without `out` depends on, besides the memory itself.
#[derive(PartialEq, Eq, Hash)]
pub struct IndexKey {
    /// The input's type (the byte order does not matter: the copy moves whole elements).
    pub data_type: DataType,
    /// The input's shape and byte strides, as NumPy has them.
    pub shape: Vec<usize>,
    /// See `shape`.
    pub strides: Vec<isize>,
    /// The parsed key.
    pub key: Key,
    /// `threads=`.
    pub threads: Option<usize>,
}

/// What a call of `stridekit.index` without `out` computed before its copy.
pub struct IndexEntry {
    /// The operator.
    pub op: Arc<PreparedSlice1>,
    /// NumPy's shape of the result (a fresh C-ordered array).
    pub result_shape: Vec<u64>,
    /// The operator's input: `low` bytes from the array's data pointer (<= 0: the lowest element), `len` bytes.
    pub low: isize,
    /// See `low`.
    pub len: usize,
}

type IndexTable = HashMap<IndexKey, Arc<IndexEntry>, BuildHasherDefault<WordHash>>;

fn index_table() -> &'static Mutex<IndexTable> {
    static TABLE: OnceLock<Mutex<IndexTable>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::default()))
}

/// The entry a previous call stored for `key`.
pub fn index_entry(key: &IndexKey) -> Option<Arc<IndexEntry>> {
    index_table().lock().unwrap_or_else(|e| e.into_inner()).get(key).cloned()
}

/// Stores what a call computed for `key` (a success whose input was read in place).
pub fn remember_index(key: IndexKey, entry: IndexEntry) {
    let mut table = index_table().lock().unwrap_or_else(|e| e.into_inner());
    if table.len() >= CAPACITY {
        table.clear();
    }
    table.insert(key, Arc::new(entry));
}

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::default()))
}

/// The operator compiled for `desc` with `threads`, from the table or from `build` (whose error is returned as is).
pub fn prepared<E>(
    desc: Desc,
    threads: Option<usize>,
    build: impl FnOnce(&Desc) -> Result<PreparedSlice1, E>,
) -> Result<Arc<PreparedSlice1>, E> {
    let key = (desc, threads);
    // A poisoned lock only means another thread panicked while holding it; the table holds no partial state.
    if let Some(op) = table().lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(Arc::clone(op));
    }
    let op = Arc::new(build(&key.0)?);
    let mut table = table().lock().unwrap_or_else(|e| e.into_inner());
    if table.len() >= CAPACITY {
        table.clear();
    }
    table.insert(key, Arc::clone(&op));
    Ok(op)
}
