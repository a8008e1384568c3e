//! Splitting a normalised copy into chunks that fit one storage binding and one 2-D dispatch each.
//!
//! A storage binding holds at most `max_storage_buffer_binding_size` bytes (128 MiB on many devices) and a dispatch
//! at most `max_compute_workgroups_per_dimension` (65535) workgroups per dimension. A chunk is a range of rows of the
//! outermost loop of the [`NormalizedCopy`] whose input bytes and output bytes each span at most `max_span` bytes;
//! when a single row is larger than that, the row itself is split along its own outermost loop (recursively, down to
//! single elements). Chunks are dispatched one after another in one compute pass: wgpu orders dispatches that write
//! a buffer, so a word shared by two chunks (a row boundary inside a word of 1- or 2-byte elements) is merged by the
//! first chunk and then by the second, each writing only its own element bytes.
//!
//! Decision: chunk spans are capped at 2^30 bytes whatever the device allows, so that every byte and element index
//! a shader computes fits in 32 bits.

use crate::GpuError;
use crate::kernels::{ChunkParams, MAX_RANK};
use stridekit::CopyDim;

/// The largest span of a chunk, whatever the device (indices in the shader are 32-bit).
pub(crate) const MAX_CHUNK_SPAN: u64 = 1 << 30;

/// A part of the copy executed by one dispatch. Byte positions are relative to the tensors' binding offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The loops, outermost first; `dims[0]` is the chunk's range of rows.
    pub dims: Vec<CopyDim>,
    /// Lowest input byte read.
    pub in_lo: u64,
    /// One past the highest input byte read.
    pub in_hi: u64,
    /// The input byte of coordinate 0.
    pub in_origin: u64,
    /// The first output byte written (coordinate 0: output strides are positive).
    pub out_lo: u64,
    /// One past the last output byte written.
    pub out_hi: u64,
}

/// Lowest and highest offset (in elements, relative to coordinate 0) of `dims` along the strides `stride`.
fn reach(dims: &[CopyDim], stride: impl Fn(&CopyDim) -> i64) -> (i128, i128) {
    let (mut lo, mut hi) = (0i128, 0i128);
    for d in dims {
        let span = i128::from(d.size as i64 - 1) * i128::from(stride(d));
        if span < 0 { lo += span } else { hi += span }
    }
    (lo, hi)
}

/// Splits the copy `dims` (input coordinate 0 at element `in_origin`, output at element `out_origin`) into chunks
/// whose input and output spans are at most `max_span` bytes each.
pub(crate) fn split(
    dims: &[CopyDim],
    in_origin: u64,
    out_origin: u64,
    element_size: u64,
    max_span: Spans,
) -> Result<Vec<Chunk>, GpuError> {
    let mut chunks = Vec::new();
    split_into(dims, i128::from(in_origin), i128::from(out_origin), element_size as i128, max_span, &mut chunks)?;
    Ok(chunks)
}

/// The largest input and output spans (bytes) of a chunk: the output's also bounds the words of one dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spans {
    pub input: u64,
    pub output: u64,
}

fn split_into(
    dims: &[CopyDim],
    in_origin: i128,
    out_origin: i128,
    es: i128,
    spans: Spans,
    chunks: &mut Vec<Chunk>,
) -> Result<(), GpuError> {
    let (max_in, max_out) = (i128::from(spans.input), i128::from(spans.output));
    let (outer, inner) = (dims[0], &dims[1..]);
    let (in_lo, in_hi) = reach(inner, |d| d.input_stride);
    let (_, out_hi) = reach(inner, |d| d.output_stride);
    let inner_in = (in_hi - in_lo + 1) * es;
    let inner_out = (out_hi + 1) * es;
    if inner_in > max_in || inner_out > max_out {
        if inner.is_empty() {
            return Err(GpuError::TooLarge { needed: es as u64, limit: spans.input.min(spans.output) });
        }
        for r in 0..i128::from(outer.size) {
            let (i, o) =
                (in_origin + r * i128::from(outer.input_stride), out_origin + r * i128::from(outer.output_stride));
            split_into(inner, i, o, es, spans, chunks)?;
        }
        return Ok(());
    }
    // Rows per chunk: each extra row adds |stride| elements to a span.
    let rows_within = |max: i128, inner_span: i128, stride: i64| -> i128 {
        if stride == 0 { i128::MAX } else { (max - inner_span) / (i128::from(stride.unsigned_abs()) * es) + 1 }
    };
    let per_chunk =
        rows_within(max_in, inner_in, outer.input_stride).min(rows_within(max_out, inner_out, outer.output_stride));
    let total = i128::from(outer.size);
    let mut r = 0i128;
    while r < total {
        let n = per_chunk.min(total - r);
        let mut cdims = Vec::with_capacity(dims.len());
        cdims.push(CopyDim { size: n as u64, ..outer });
        cdims.extend_from_slice(inner);
        let ci = in_origin + r * i128::from(outer.input_stride);
        let co = out_origin + r * i128::from(outer.output_stride);
        let (lo, hi) = reach(&cdims, |d| d.input_stride);
        let (_, ohi) = reach(&cdims, |d| d.output_stride);
        // A validated plan never reads before its tensor (the model's range checks): lo >= 0.
        chunks.push(Chunk {
            in_lo: ((ci + lo) * es) as u64,
            in_hi: ((ci + hi + 1) * es) as u64,
            in_origin: (ci * es) as u64,
            out_lo: (co * es) as u64,
            out_hi: ((co + ohi + 1) * es) as u64,
            dims: cdims,
        });
        r += n;
    }
    Ok(())
}

impl Chunk {
    /// The shader parameters of this chunk for storage offset alignment `align`.
    pub fn params(&self, align: u64) -> ChunkParams {
        let mut p = ChunkParams {
            rank: self.dims.len() as u32,
            // Spans are at most MAX_CHUNK_SPAN (2^30): every value below fits 32 bits.
            out_span: (self.out_hi - self.out_lo) as u32,
            out_first_mod: (self.out_lo % align) as u32,
            in_first_mod: (self.in_lo % align) as u32,
            in_origin: (self.in_origin - self.in_lo) as u32,
            align: align as u32,
            pad: [0; 2],
            sizes: [1; MAX_RANK],
            out_strides: [1; MAX_RANK],
            in_strides: [0; MAX_RANK],
        };
        for (i, d) in self.dims.iter().enumerate() {
            p.sizes[i] = d.size as u32;
            // A loop of one step never moves. Its output stride must still exceed every offset of the inner loops
            // for the shader's greedy decomposition to give coordinate 0: u32::MAX does.
            let single = d.size == 1;
            p.out_strides[i] = if single { u32::MAX } else { d.output_stride as u32 };
            p.in_strides[i] = if single { 0 } else { d.input_stride as i32 };
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(span: u64) -> Spans {
        Spans { input: span, output: span }
    }

    fn dim(size: u64, input_stride: i64, output_stride: i64) -> CopyDim {
        CopyDim { size, input_stride, output_stride }
    }

    #[test]
    fn whole_copy_when_it_fits() {
        let chunks = split(&[dim(4, 8, 4), dim(4, -1, 1)], 3, 0, 4, same(1 << 20)).unwrap();
        assert_eq!(chunks.len(), 1);
        assert_eq!((chunks[0].in_lo, chunks[0].in_hi, chunks[0].in_origin), (0, 4 * 28, 12));
        assert_eq!((chunks[0].out_lo, chunks[0].out_hi), (0, 64));
    }

    #[test]
    fn rows_then_single_rows() {
        // 3 rows of 16 bytes in and out: 32 bytes take 2 rows per chunk.
        let chunks = split(&[dim(3, 4, 4), dim(4, 1, 1)], 0, 0, 4, same(32)).unwrap();
        assert_eq!(chunks.iter().map(|c| (c.dims[0].size, c.out_lo)).collect::<Vec<_>>(), [(2, 0), (1, 32)]);
        // A row of 16 bytes over an 8-byte limit: each row splits into elements, 2 per chunk.
        let chunks = split(&[dim(2, 4, 4), dim(4, 1, 1)], 0, 0, 4, same(8)).unwrap();
        assert_eq!(chunks.len(), 4);
        assert!(chunks.iter().all(|c| c.dims.len() == 1 && c.out_hi - c.out_lo == 8 && c.in_hi - c.in_lo == 8));
        assert_eq!(chunks[3].in_origin, 24);
        // Broadcast input (stride 0) never limits the rows.
        let chunks = split(&[dim(100, 0, 1)], 5, 0, 1, same(50)).unwrap();
        assert_eq!(chunks.iter().map(|c| (c.in_lo, c.in_hi)).collect::<Vec<_>>(), [(5, 6), (5, 6)]);
    }

    #[test]
    fn reversed_rows_read_below_their_origin() {
        let chunks = split(&[dim(6, -1, 1)], 5, 0, 2, same(4)).unwrap();
        assert_eq!(chunks.len(), 3);
        assert_eq!((chunks[1].in_lo, chunks[1].in_hi, chunks[1].in_origin), (4, 8, 6));
    }

    #[test]
    fn an_element_larger_than_the_limit_is_an_error() {
        assert!(matches!(split(&[dim(2, 1, 1)], 0, 0, 8, same(4)), Err(GpuError::TooLarge { .. })));
    }
}
