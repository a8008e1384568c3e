//! x86_64 kernels (AVX2, plus SSE2 `sfence`), one file per kernel. Each is an `unsafe fn` with
//! `#[target_feature(enable = "avx2")]`: callers must have detected AVX2 at run time. Vector loads and stores are
//! unaligned except the streaming stores, which are issued only after a scalar head has aligned the destination.
//! Every kernel reads and writes exactly the elements of its portable twin in `kernels/portable/`, whose
//! `footprint` is what the soundness check counted.

mod columns;
mod copy;
mod deinterleave;
mod fill;
mod gather;
mod interleave;
mod lines;
mod narrow;
mod planes;
mod prefetch;
mod reverse;
mod rows;
mod scratch;
mod short;
mod store;
mod table;
mod tiles;
mod transpose;

pub(crate) use copy::{NT_MIN_RUN, REP_MOVSB_MIN_BYTES, copy_avx2, copy_avx2_ahead, copy_nt_avx2, rep_movsb_slow};
pub(crate) use deinterleave::{deinterleave, deinterleave_fits};
pub(crate) use fill::{fill_adjacent_avx2, fill_avx2};
pub(crate) use gather::gather_avx2;
pub(crate) use interleave::interleave_first;
pub(crate) use planes::{
    gather64, gather64_fits, gather64_pays, pixels64, pixels64_fits, pixels64_pays, planes64, planes64_fits,
};
pub(crate) use prefetch::{Level, prefetch_bytes, prefetch_bytes_for_write, prefetch_line, prefetch_lines};
pub(crate) use reverse::reverse_avx2;
pub(crate) use rows::{rows_shuffle, rows_shuffle_fits, rows_shuffle64, rows_shuffle64_fits, rows_shuffle64_pays};
pub(crate) use short::{transpose_short, transpose_short_fits};
#[cfg(not(miri))]
pub(crate) use store::sfence;
pub(crate) use table::{Partner, dst_ahead, table_chunks, table_chunks64, table_rows, table_tiles, table_tiles_fit};
pub(crate) use transpose::{
    transpose_avx2, transpose_partner, transpose_partner_fits, transpose_partner_spaced_fits, transpose_tiles_fit,
};
