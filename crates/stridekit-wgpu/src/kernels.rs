//! Kernel selection and the objects shaders need: the WGSL module, its layouts, the parameter block and the
//! residue table.
//!
//! One WGSL kernel, `slice1_words` (`shaders/slice1.wgsl`), specialised per element size through the
//! pipeline-overridable constant `ESIZE`, covers every normalised copy: each invocation owns one output word (see
//! the shader's comment for why this is race-free and keeps padding, D6). Transposes of 4-byte elements (a loop
//! contiguous in the input and another contiguous in the output, both at least [`TILE`] / 2 long) use
//! `transpose_words`, which reads and writes both sides coalesced through a 16 x 16 tile in workgroup memory.
//!
//! Decision: no separate kernels for reversed runs and broadcast fills. After normalisation they are one loop with
//! output stride 1 (input stride -1 or 0), and for a unit output stride the word kernel skips the division (a uniform
//! branch), so it already is the specialised form: one multiply per element, reads and writes coalesced (a fill
//! reads the same word everywhere). Contiguous runs that are not 4-byte aligned on the input side go the same way. Contiguous runs whose bytes are 4-byte
//! aligned on both sides are not run through a shader at all: they are recorded as `copy_buffer_to_buffer`, the
//! device's own copy (see [`crate::prepare`]).

use bytemuck::{Pod, Zeroable};

/// The WGSL source of the word kernel.
pub const SLICE1_WGSL: &str = include_str!("shaders/slice1.wgsl");

/// Invocations per workgroup (the shader's `@workgroup_size`).
pub(crate) const WORKGROUP_SIZE: u64 = 256;

/// The largest rank a chunk may have (the shader's parameter arrays hold 8 loops).
pub(crate) const MAX_RANK: usize = 8;

/// The entry points of `slice1.wgsl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Entry {
    /// `slice1_words`: any copy, one invocation per output word.
    Words,
    /// `transpose_words`: 4-byte elements, loop 0 contiguous in the input, loop 1 in the output; 16 x 16 tiles.
    Transpose,
}

impl Entry {
    fn name(self) -> &'static str {
        match self {
            Entry::Words => "slice1_words",
            Entry::Transpose => "transpose_words",
        }
    }
}

/// Edge of a transpose tile (the shader's `@workgroup_size(16, 16)`).
pub(crate) const TILE: u64 = 16;

/// A compiled kernel: which entry point, for which element size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct KernelKey {
    /// The entry point.
    pub entry: Entry,
    /// Bytes per element: 1, 2, 4 or 8.
    pub element_size: u32,
}

/// The parameters of one chunk, as the shader's `Chunk` struct (std140-compatible: 8 scalars, then three arrays of
/// two vec4).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub(crate) struct ChunkParams {
    pub rank: u32,
    pub out_span: u32,
    pub out_first_mod: u32,
    pub in_first_mod: u32,
    pub in_origin: u32,
    pub align: u32,
    pub pad: [u32; 2],
    pub sizes: [u32; MAX_RANK],
    pub out_strides: [u32; MAX_RANK],
    pub in_strides: [i32; MAX_RANK],
}

/// The bind-group layout (input, output, chunk parameters, residues), the pipeline layout and the shader module.
pub(crate) struct Layouts {
    pub bind_group: wgpu::BindGroupLayout,
    pipeline: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
}

fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: wgpu::BufferSize::new(4),
        },
        count: None,
    }
}

fn dynamic_uniform(binding: u32, size: u64) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: wgpu::BufferSize::new(size),
        },
        count: None,
    }
}

impl Layouts {
    pub fn new(device: &wgpu::Device) -> Layouts {
        let bind_group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("stridekit slice1"),
            entries: &[
                storage(0, true),
                storage(1, false),
                dynamic_uniform(2, size_of::<ChunkParams>() as u64),
                dynamic_uniform(3, RESIDUE_ENTRY_SIZE),
            ],
        });
        let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("stridekit slice1"),
            bind_group_layouts: &[Some(&bind_group)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("stridekit slice1.wgsl"),
            source: wgpu::ShaderSource::Wgsl(SLICE1_WGSL.into()),
        });
        Layouts { bind_group, pipeline, module }
    }

    pub fn pipeline(&self, device: &wgpu::Device, key: KernelKey) -> wgpu::ComputePipeline {
        let constants = [("ESIZE", f64::from(key.element_size))];
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(key.entry.name()),
            layout: Some(&self.pipeline),
            module: &self.module,
            entry_point: Some(key.entry.name()),
            compilation_options: wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() },
            cache: None,
        })
    }
}

/// Bytes of one residue entry as the shader reads it (`vec4<u32>`).
const RESIDUE_ENTRY_SIZE: u64 = 16;

/// Binding offsets are only known when recording, but storage bindings must start at multiples of
/// `min_storage_buffer_offset_alignment` (A, 32 to 256), while DirectML offsets are multiples of 16. A window is
/// therefore bound at the offset rounded down to A and the shader adds the remainder. The remainders (`offset mod
/// A`, a multiple of 16) of both tensors come from this table, one entry per pair, selected by a dynamic offset: no
/// buffer is written when recording.
#[derive(Clone)]
pub(crate) struct ResidueTable {
    pub buffer: wgpu::Buffer,
    /// A: the storage offset alignment (at least 16).
    pub align: u64,
    /// Bytes between entries (`min_uniform_buffer_offset_alignment`).
    pub stride: u64,
}

impl ResidueTable {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, limits: &wgpu::Limits) -> ResidueTable {
        let align = u64::from(limits.min_storage_buffer_offset_alignment).max(16);
        let stride = u64::from(limits.min_uniform_buffer_offset_alignment).max(RESIDUE_ENTRY_SIZE);
        let n = align / 16;
        let mut bytes = vec![0u8; (n * n * stride) as usize];
        for i in 0..n {
            for o in 0..n {
                let at = ((i * n + o) * stride) as usize;
                bytes[at..at + 4].copy_from_slice(&((i * 16) as u32).to_le_bytes());
                bytes[at + 4..at + 8].copy_from_slice(&((o * 16) as u32).to_le_bytes());
            }
        }
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("stridekit residues"),
            size: bytes.len() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        queue.write_buffer(&buffer, 0, &bytes);
        ResidueTable { buffer, align, stride }
    }

    /// The dynamic offset of the entry for binding offsets `input_offset` and `output_offset` (multiples of 16).
    pub fn entry_offset(&self, input_offset: u64, output_offset: u64) -> u32 {
        let n = self.align / 16;
        let (i, o) = ((input_offset % self.align) / 16, (output_offset % self.align) / 16);
        // n * n * stride is a small table (at most 256 entries of 256 bytes).
        ((i * n + o) * self.stride) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_match_the_shader_struct() {
        // 8 scalars + 3 x array<vec4, 2> = 32 + 3 * 32 bytes.
        assert_eq!(size_of::<ChunkParams>(), 128);
    }
}
