//! Transpose tiles with fewer source rows than a tile into a contiguous destination (5 to 15 planes of bytes to
//! pixels, 5 to 7 of 2 and 4 bytes): the square tile would leave them to a scalar edge loop.
//!
//! The tile reads its `nb` rows from a staging block whose other rows are zero, and writes whole tile rows of
//! `tile * e` bytes at the destination rows' `nb * e` pitch. Each store runs past its row into the next ones, which
//! later stores (in rising `a`) overwrite; a tile whose last store would leave the chunk goes through `spill`.

use super::tiles::{tile_for, tile_size};
use crate::kernels::Elem;

/// Rows of the staging block (the largest tile, 16 rows of bytes).
const STAGE_ROWS: usize = 16;
/// Bytes of one staging row (the widest tile row, 32 bytes).
const STAGE_ROW: usize = 32;

/// The staging and spill blocks of one narrow transpose.
pub(crate) struct Narrow {
    stage: [[u8; STAGE_ROW]; STAGE_ROWS],
    spill: [u8; STAGE_ROWS * STAGE_ROW],
    /// Source rows (< tile).
    nb: usize,
    /// Destination pitch: `nb * e` bytes.
    row_bytes: usize,
}

impl Narrow {
    /// Buffers for `nb` source rows written at a pitch of `row_bytes` (= `nb * e`).
    pub(crate) fn new(nb: usize, row_bytes: usize) -> Narrow {
        Narrow { stage: [[0; STAGE_ROW]; STAGE_ROWS], spill: [0; STAGE_ROWS * STAGE_ROW], nb, row_bytes }
    }

    /// Transposes elements `0 .. tile` of the `nb` source rows at `src` (`b_src` bytes apart) into the `tile`
    /// destination rows from byte `row0` of `out`, without writing at or past byte `chunk_end` of `out`.
    ///
    /// # Safety
    /// AVX2 is available; `tile` elements of `T` are readable at `src + b * b_src` for `b < nb`; bytes `row0 ..
    /// chunk_end` of `out` are writable, with `row0 + tile * row_bytes <= chunk_end`, and bytes of later rows there
    /// are written again after this call (in rising rows).
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn tile<T: Elem>(
        &mut self,
        src: *const u8,
        b_src: isize,
        out: *mut u8,
        row0: usize,
        chunk_end: usize,
    ) {
        let (tile, e) = (tile_size(T::SIZE), T::SIZE);
        let (vec, row_bytes) = (tile * e, self.row_bytes);
        // The footprint this relies on: the tile's rows fit the staging block, the whole tile (each store running
        // past its row) fits the spill block, and the tile's own rows lie in the chunk.
        assert!(self.nb < tile && tile <= STAGE_ROWS && vec <= STAGE_ROW);
        assert!((tile - 1) * row_bytes + vec <= self.spill.len() && row0 + tile * row_bytes <= chunk_end);
        for (j, row) in self.stage.iter_mut().enumerate().take(self.nb) {
            // SAFETY: elements 0 .. tile (vec bytes) of source row j < nb, the caller's range; the staging row holds
            // STAGE_ROW >= vec bytes (asserted).
            unsafe { std::ptr::copy_nonoverlapping(src.offset(j as isize * b_src), row.as_mut_ptr(), vec) };
        }
        let staged = self.stage.as_ptr().cast::<u8>();
        let a_dst = row_bytes as isize;
        if row0 + (tile - 1) * row_bytes + vec <= chunk_end {
            // SAFETY: the tile reads `tile` staging rows of `vec` bytes, STAGE_ROW apart (asserted to fit); it writes
            // bytes row0 .. row0 + (tile - 1) * row_bytes + vec of `out`, before chunk_end (tested): its own rows,
            // then bytes of later rows of the chunk, which the caller writes again.
            unsafe { tile_for::<T>(staged, out.add(row0), a_dst, STAGE_ROW as isize) };
        } else {
            // SAFETY: as above, into `spill`, which holds (tile - 1) * row_bytes + vec bytes (asserted); then exactly
            // the tile's rows row0 .. row0 + tile * row_bytes <= chunk_end (asserted) are copied out.
            unsafe {
                tile_for::<T>(staged, self.spill.as_mut_ptr(), a_dst, STAGE_ROW as isize);
                std::ptr::copy_nonoverlapping(self.spill.as_ptr(), out.add(row0), tile * row_bytes);
            }
        }
    }
}
