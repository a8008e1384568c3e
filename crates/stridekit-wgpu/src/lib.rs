//! # stridekit-wgpu: Slice and Slice1 on any GPU, through wgpu
//!
//! The same validated [`Slice1Plan`](stridekit::Slice1Plan) the CPU backend runs, executed by WGSL compute shaders
//! on any adapter wgpu reaches through the platform's native API (Vulkan, Metal, Direct3D 12), including software
//! Vulkan (Mesa's lavapipe) on machines without a GPU.
//!
//! Two levels, as in DirectML:
//! 1. [`PreparedSlice1Gpu`]: compiled once from a plan ([`PreparedSlice1Gpu::new`]), recorded into the caller's
//!    `wgpu::CommandEncoder` on the caller's buffers and offsets ([`PreparedSlice1Gpu::record`], bindings checked
//!    against R-BIND-1/2 exactly as on the CPU).
//! 2. [`slice1`]: host bytes in and out (upload, run, read back), host slices following D10.
//!
//! ```no_run
//! use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
//! let desc = Slice1Desc {
//!     input: BufferTensorDesc::packed(DataType::Uint8, &[4]).unwrap(),
//!     output: BufferTensorDesc::packed(DataType::Uint8, &[2]).unwrap(),
//!     input_window_offsets: vec![1],
//!     input_window_sizes: vec![2],
//!     input_window_strides: vec![-1],
//! };
//! let ctx = stridekit_wgpu::GpuContext::open()?; // error[gpu]: no GPU adapter found ... without a driver
//! let mut output = [0u8; 2];
//! stridekit_wgpu::slice1(&ctx, &desc.validate().unwrap(), &[10, 20, 30, 40], &mut output)?;
//! assert_eq!(output, [30, 20]);
//! # Ok::<(), stridekit_wgpu::GpuError>(())
//! ```
//!
//! Modules: [`context`] (adapter, device, error scopes), `kernels` (the WGSL kernel and its layouts), `split`
//! (chunks that fit the device's binding and dispatch limits), `prepare`, `record`, `host`, [`bench`](mod@bench).

pub mod bench;
pub mod context;
mod error;
mod host;
mod kernels;
mod prepare;
mod record;
mod split;

pub use context::{AdapterSummary, GpuContext};
pub use error::GpuError;
pub use host::{HostTimings, slice1};
pub use kernels::SLICE1_WGSL;
pub use prepare::{PrepareOptions, PreparedSlice1Gpu};
pub use record::GpuBinding;

// A context and a prepared operator are shared across threads (one context per process, operators recorded from
// any thread).
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<GpuContext>();
    assert_send_sync::<PreparedSlice1Gpu>();
    assert_send_sync::<GpuError>();
};
