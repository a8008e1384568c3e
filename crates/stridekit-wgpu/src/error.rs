//! `GpuError`: every way the GPU backend refuses or fails, as a value (never a panic).
//!
//! Rule violations keep the model's errors and messages (`error[R-BIND-1]: ...`, `error[D10]: ...`), so that a bad
//! binding reads the same on the CPU and on the GPU. Failures of the device itself (no adapter, a validation error
//! caught by an error scope, device loss, a failed readback) start with `error[gpu]:` and name the operation.

use stridekit::{BindingError, TensorRole};

/// A refused or failed GPU operation. When a rule is broken, nothing was recorded or submitted (D9).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// R-BIND-1 / R-BIND-2 / D10: a bound range or host slice cannot hold the tensor.
    #[error(transparent)]
    Binding(#[from] BindingError),
    /// No adapter of the requested backends exists (no GPU, or no driver such as Mesa's lavapipe installed).
    #[error(
        "error[gpu]: no GPU adapter found for the backends {backends} (install a Vulkan driver, e.g. Mesa's \
         lavapipe: apt-get install mesa-vulkan-drivers libvulkan1); {detail}"
    )]
    NoAdapter {
        /// The backends searched (`Vulkan | Metal | Dx12`).
        backends: String,
        /// What wgpu said.
        detail: String,
    },
    /// The adapter refused to open a device with its own limits.
    #[error("error[gpu]: opening a device on {adapter} failed: {detail}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// What wgpu said.
        detail: String,
    },
    /// wgpu reported a validation or out-of-memory error inside an error scope around `operation`.
    #[error("error[gpu]: {operation}: {detail}")]
    Device {
        /// What was being done (`record Slice1`, `create buffers`, ...).
        operation: &'static str,
        /// wgpu's message.
        detail: String,
    },
    /// The device was lost (driver reset, removal); every later operation on the context fails with this error.
    #[error("error[gpu]: the device was lost: {reason}")]
    DeviceLost {
        /// wgpu's reason and message.
        reason: String,
    },
    /// A buffer given to `record` lacks a usage the copy needs (STORAGE on both tensors).
    #[error("error[gpu]: {} buffer lacks the {usage} usage the copy needs (it has {has})", tensor.name())]
    BufferUsage {
        /// The input or the output.
        tensor: TensorRole,
        /// The missing usage.
        usage: &'static str,
        /// The buffer's usages.
        has: String,
    },
    /// The input and the output are the same wgpu buffer: wgpu forbids binding one buffer as read-only and writable
    /// storage in one dispatch (a usage conflict), so distinct buffers are required.
    #[error("error[gpu]: InputTensor and OutputTensor are bound to the same wgpu buffer; bind distinct buffers")]
    SameBuffer,
    /// The copy cannot be split into bindings this device accepts (only on devices whose storage binding limit is
    /// smaller than one row of the copy plus alignment, which no real device has).
    #[error("error[gpu]: a part of the copy needs a {needed}-byte binding but the device binds at most {limit} bytes")]
    TooLarge {
        /// Bytes one indivisible part needs.
        needed: u64,
        /// The binding limit used.
        limit: u64,
    },
    /// Reading the output back failed (map error or a failed wait).
    #[error("error[gpu]: reading the output back failed: {detail}")]
    Readback {
        /// wgpu's message.
        detail: String,
    },
}

impl GpuError {
    /// The rule id of a rule violation (`R-BIND-1`, `R-BIND-2`, `D10`), or `gpu` for a device failure.
    pub fn rule(&self) -> &'static str {
        match self {
            GpuError::Binding(e) => e.rule(),
            _ => "gpu",
        }
    }

    pub(crate) fn from_wgpu(operation: &'static str, error: wgpu::Error) -> GpuError {
        GpuError::Device { operation, detail: error.to_string() }
    }
}
