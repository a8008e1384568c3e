//! # stridekit-cpu: Slice1 on the CPU at memory bandwidth
//!
//! Validate a description with `stridekit`, then run its [`Slice1Plan`](stridekit::Slice1Plan) on byte buffers:
//!
//! ```
//! use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
//! use stridekit_cpu::{CpuBuffer, slice1};
//! // DirectML's Slice1 example 2: every second row of a 4x4 matrix, bottom up, every second column from column 1.
//! let desc = Slice1Desc {
//!     input: BufferTensorDesc::packed(DataType::Float32, &[1, 1, 4, 4]).unwrap(),
//!     output: BufferTensorDesc::packed(DataType::Float32, &[1, 1, 2, 2]).unwrap(),
//!     input_window_offsets: vec![0, 0, 0, 1],
//!     input_window_sizes: vec![1, 1, 4, 3],
//!     input_window_strides: vec![1, 1, -2, 2],
//! };
//! let plan = desc.validate()?;
//! let input: Vec<u8> = (1..=16).flat_map(|v| (v as f32).to_le_bytes()).collect();
//! let mut output = CpuBuffer::zeroed(16);
//! slice1(&plan, &input, output.as_bytes_mut())?;
//! let values: Vec<f32> = output.as_bytes().chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
//! assert_eq!(values, [14.0, 16.0, 6.0, 8.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every call checks the bindings (R-BIND-1, R-BIND-2) before a byte moves and writes only the output's element
//! bytes (D6). [`PreparedSlice1`] compiles a plan once for repeated calls. How a copy is normalised and which
//! kernels exist: see `docs/PERFORMANCE.md`. All `unsafe` code lives in the private `kernels` module.

mod buffer;
mod error;
mod kernels;
mod options;
mod planner;
mod profile;
mod reuse;
mod slice1;
mod stream;
mod table;

pub use buffer::{CPU_BUFFER_ALIGNMENT, CpuBuffer};
pub use error::ExecError;
pub use options::{
    CONTIGUOUS_STREAMING_DIVISOR, DEFAULT_NON_TEMPORAL_MIN_BYTES, DEFAULT_PARALLEL_MIN_BYTES, DEFAULT_REUSE_TILE_BYTES,
    DEFAULT_TRANSPOSE_MIN_STRIDE, ExecOptions, StreamingRule, StreamingThresholds, ZEN_CONTIGUOUS_DIVISOR,
};
pub use profile::{
    MachineKey, PROFILE_ENV, PROFILE_MAX_BYTES, ProfileError, ProfileStatus, StreamingProfile, load_profile,
    loaded_profile, profile_path,
};
pub use slice1::{PreparedSlice1, slice1, slice1_bound, slice1_with};
/// Re-exported from the model, where every backend checks bindings the same way.
pub use stridekit::Binding;

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CpuBuffer>();
    assert_send_sync::<ExecError>();
    assert_send_sync::<ExecOptions>();
    assert_send_sync::<PreparedSlice1>();
};
