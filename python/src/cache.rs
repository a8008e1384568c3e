//! Compiled operators, remembered by their full description.
//!
//! A [`PreparedSlice1`] is a pure function of the validated description and the thread count, so one that compiled
//! is reused for the same description: a repeated call skips validation and compilation (most of the per-call cost
//! of a small copy). Only successes are stored, keyed by every field of the description (tensors with their strides
//! and TotalTensorSizeInBytes, the window, the output sizes), so a call is never answered for a different
//! description, and a description that fails validation fails every time. The table is bounded: it is emptied when
//! it reaches [`CAPACITY`] entries.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, OnceLock};
use stridekit::{Slice1Desc, SliceDesc};
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

type Table = HashMap<(Desc, Option<usize>), Arc<PreparedSlice1>, BuildHasherDefault<Fnv>>;

/// FNV-1a: the keys are our own small integers (no untrusted input to flood the table with collisions, and the
/// table is bounded anyway), and SipHash was a visible share of a small call.
#[derive(Default)]
pub struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
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
