//! `PreparedSlice1Gpu`: a Slice1 plan compiled once for a device (kernel, chunks, parameter buffer), recorded many
//! times, as DirectML compiles an operator once and records its dispatch into many command lists.
//!
//! What preparing decides, from the model's [`NormalizedCopy`](stridekit::NormalizedCopy) and the device limits:
//! - **A contiguous run** (one loop, input and output stride 1) whose input starts on a 4-byte boundary is recorded
//!   as `copy_buffer_to_buffer` of its whole words, the device's own copy; a trailing partial word (1- or 2-byte
//!   elements) goes through the word kernel so that the padding after it is kept (D6).
//! - **Everything else** (strided, reversed, broadcast, permuted, padded) goes through the word kernel
//!   (`slice1_words`, [`crate::kernels`]), split into chunks by [`crate::split`] so that every binding fits
//!   `max_storage_buffer_binding_size` and every dispatch fits 65535 x 65535 workgroups (2-D dispatch).
//! - **A transpose of 4-byte elements** (a loop of at least 8 steps contiguous in the input, the innermost loop
//!   contiguous in the output and at least 8 steps, the rest a batch) that fits one binding and one dispatch runs
//!   `transpose_words`: 16 x 16 tiles through workgroup memory, so that both reads and writes are coalesced.
//! - The parameters of every chunk are written once into a uniform buffer, one entry per chunk, selected by a
//!   dynamic offset when recording.

use crate::context::GpuContext;
use crate::kernels::{ChunkParams, Entry, TILE, WORKGROUP_SIZE};
use crate::split::{Chunk, MAX_CHUNK_SPAN, Spans, split};
use crate::{GpuError, kernels};
use std::sync::{Arc, Mutex};
use stridekit::{CopyDim, Slice1Plan};

/// Limits the splitter uses instead of the device's: tests set them small so that the splitting paths run on
/// kilobyte tensors. `None` means the device's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrepareOptions {
    /// The largest storage binding (bytes) a chunk may use (at most the device's
    /// `max_storage_buffer_binding_size`).
    pub max_binding_bytes: Option<u64>,
    /// The most workgroups per dispatch dimension (at most the device's `max_compute_workgroups_per_dimension`).
    pub max_workgroups_per_dimension: Option<u32>,
    /// Record contiguous runs as `copy_buffer_to_buffer` (default `true`); `false` runs them through the kernel.
    pub buffer_copies: bool,
    /// Run transposes of 4-byte elements through workgroup-memory tiles (default `true`); `false` runs them through
    /// the word kernel.
    pub transposes: bool,
}

impl Default for PrepareOptions {
    fn default() -> Self {
        PrepareOptions {
            max_binding_bytes: None,
            max_workgroups_per_dimension: None,
            buffer_copies: true,
            transposes: true,
        }
    }
}

/// A contiguous run recorded as a buffer copy: input bytes `in_lo..in_lo + len` to output bytes `out_lo..`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BufferCopy {
    pub in_lo: u64,
    pub out_lo: u64,
    pub len: u64,
}

/// A Slice1 compiled for one device: contiguous runs become `copy_buffer_to_buffer`, everything else the word
/// kernel, split into chunks that fit the device's binding and dispatch limits. Record it with
/// [`record`](PreparedSlice1Gpu::record) into any number of command encoders, on any buffers whose bindings satisfy
/// R-BIND-1/2. `Send + Sync`.
pub struct PreparedSlice1Gpu {
    pub(crate) plan: Slice1Plan,
    pub(crate) device: wgpu::Device,
    pub(crate) lost: Arc<Mutex<Option<String>>>,
    pub(crate) bind_group_layout: wgpu::BindGroupLayout,
    pub(crate) residues: kernels::ResidueTable,
    pub(crate) pipeline: Option<wgpu::ComputePipeline>,
    pub(crate) params: Option<wgpu::Buffer>,
    pub(crate) params_stride: u64,
    pub(crate) chunks: Vec<Chunk>,
    pub(crate) buffer_copy: Option<BufferCopy>,
    pub(crate) max_groups: u32,
    pub(crate) entry: Entry,
    pub(crate) bind_cache: Mutex<Option<crate::record::BindCache>>,
}

impl std::fmt::Debug for PreparedSlice1Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedSlice1Gpu").field("path", &self.describe()).finish_non_exhaustive()
    }
}

fn align_up(value: u64, align: u64) -> u64 {
    value.div_ceil(align) * align
}

impl PreparedSlice1Gpu {
    /// Compiles `plan` for `ctx`'s device with the device's own limits.
    pub fn new(ctx: &GpuContext, plan: &Slice1Plan) -> Result<Self, GpuError> {
        Self::with_options(ctx, plan, PrepareOptions::default())
    }

    /// Compiles `plan` with explicit splitting limits (each capped at the device's).
    pub fn with_options(ctx: &GpuContext, plan: &Slice1Plan, options: PrepareOptions) -> Result<Self, GpuError> {
        ctx.check_lost()?;
        let copy = plan.normalized();
        let es = copy.element_size() as u64;
        let limits = ctx.limits();
        let align = ctx.residues.align;
        let binding = options
            .max_binding_bytes
            .unwrap_or(u64::MAX)
            .min(limits.max_storage_buffer_binding_size)
            .min(MAX_CHUNK_SPAN);
        let max_groups = options
            .max_workgroups_per_dimension
            .unwrap_or(u32::MAX)
            .min(limits.max_compute_workgroups_per_dimension)
            .max(1);
        let dispatch_bytes = 4 * WORKGROUP_SIZE * u64::from(max_groups) * u64::from(max_groups);
        // A window starts up to `align - 16` bytes before the chunk (the binding offset's residue) and ends up to
        // 3 bytes after it (whole words).
        let spans = Spans {
            input: binding.saturating_sub(align + 4),
            output: binding.min(dispatch_bytes).saturating_sub(align + 4),
        };
        if spans.input.min(spans.output) < es {
            return Err(GpuError::TooLarge { needed: es + align + 4, limit: binding.min(dispatch_bytes) });
        }

        let dims = copy.dims();
        let inner = copy.inner();
        let mut buffer_copy = None;
        let mut kernel_dims: Vec<CopyDim> = dims.to_vec();
        let (mut in_origin, mut out_origin) = (copy.input_start(), 0u64);
        if options.buffer_copies
            && dims.len() == 1
            && inner.input_stride == 1
            && inner.output_stride == 1
            && (copy.input_start() * es).is_multiple_of(4)
        {
            let len = inner.size * es;
            let body = len / 4 * 4;
            if body > 0 {
                buffer_copy = Some(BufferCopy { in_lo: copy.input_start() * es, out_lo: 0, len: body });
            }
            let tail = (len - body) / es;
            kernel_dims = if tail == 0 { Vec::new() } else { vec![CopyDim { size: tail, ..inner }] };
            in_origin += body / es;
            out_origin += body / es;
        }
        let transpose = if options.transposes && buffer_copy.is_none() {
            transpose_chunk(&kernel_dims, in_origin, es, spans, max_groups)?
        } else {
            None
        };
        let entry = if transpose.is_some() { Entry::Transpose } else { Entry::Words };
        let chunks = match transpose {
            Some(chunk) => vec![chunk],
            None if kernel_dims.is_empty() => Vec::new(),
            None => split(&kernel_dims, in_origin, out_origin, es, spans)?,
        };

        let ualign = u64::from(limits.min_uniform_buffer_offset_alignment);
        let params_stride = align_up(size_of::<ChunkParams>() as u64, ualign.max(16));
        let (pipeline, params) = if chunks.is_empty() {
            (None, None)
        } else {
            let pipeline = ctx.pipeline(kernels::KernelKey { entry, element_size: es as u32 })?;
            let mut bytes = vec![0u8; (params_stride * chunks.len() as u64) as usize];
            for (i, c) in chunks.iter().enumerate() {
                let at = i * params_stride as usize;
                bytes[at..at + size_of::<ChunkParams>()].copy_from_slice(bytemuck::bytes_of(&c.params(align)));
            }
            let params = ctx.scoped("create the Slice1 parameter buffer", || {
                let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("stridekit slice1 params"),
                    size: bytes.len() as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                ctx.queue.write_buffer(&buffer, 0, &bytes);
                Ok(buffer)
            })?;
            (Some(pipeline), Some(params))
        };
        Ok(PreparedSlice1Gpu {
            plan: plan.clone(),
            device: ctx.device.clone(),
            lost: Arc::clone(&ctx.lost),
            bind_group_layout: ctx.layouts.bind_group.clone(),
            residues: ctx.residues.clone(),
            pipeline,
            params,
            params_stride,
            chunks,
            buffer_copy,
            max_groups,
            entry,
            bind_cache: Mutex::new(None),
        })
    }

    /// The plan this operator runs.
    pub fn plan(&self) -> &Slice1Plan {
        &self.plan
    }

    /// How the copy runs: `buffer copy`, `words kernel (N dispatches)`, or both.
    pub fn describe(&self) -> String {
        let kernel = match self.chunks.len() {
            0 => None,
            1 if self.entry == Entry::Transpose => Some("transpose kernel (1 dispatch)".to_string()),
            1 => Some("words kernel (1 dispatch)".to_string()),
            n => Some(format!("words kernel ({n} dispatches)")),
        };
        match (self.buffer_copy, kernel) {
            (Some(_), Some(k)) => format!("buffer copy + {k}"),
            (Some(_), None) => "buffer copy".to_string(),
            (None, Some(k)) => k,
            (None, None) => "nothing".to_string(),
        }
    }

    /// The number of compute dispatches a record issues (one per chunk).
    pub fn dispatch_count(&self) -> usize {
        self.chunks.len()
    }
}

/// The shortest loops worth a 16 x 16 tile (half a tile: fewer would leave most of the workgroup idle).
const MIN_TRANSPOSE_STEPS: u64 = TILE / 2;

/// The single chunk of a transpose of 4-byte elements, loops ordered [input-contiguous, output-contiguous, batch...]
/// as `transpose_words` reads them, or `None` when the copy is not such a transpose or does not fit one binding and
/// one dispatch.
fn transpose_chunk(
    dims: &[CopyDim],
    in_origin: u64,
    es: u64,
    spans: Spans,
    max_groups: u32,
) -> Result<Option<Chunk>, GpuError> {
    let Some((&inner, outer)) = dims.split_last() else { return Ok(None) };
    if es != 4 || inner.output_stride != 1 || inner.input_stride == 1 || inner.size < MIN_TRANSPOSE_STEPS {
        return Ok(None);
    }
    let Some(a) = outer.iter().position(|d| d.input_stride == 1 && d.size >= MIN_TRANSPOSE_STEPS) else {
        return Ok(None);
    };
    let mut ordered = vec![outer[a], inner];
    ordered.extend(outer.iter().enumerate().filter(|&(i, _)| i != a).map(|(_, d)| *d));
    let tiles = outer[a].size.div_ceil(TILE) * inner.size.div_ceil(TILE);
    let batch: u64 = ordered[2..].iter().map(|d| d.size).product();
    if tiles.saturating_mul(batch) > u64::from(max_groups) * u64::from(max_groups) {
        return Ok(None);
    }
    let mut chunks = split(&ordered, in_origin, 0, es, spans)?;
    if chunks.len() != 1 {
        return Ok(None);
    }
    Ok(chunks.pop())
}
