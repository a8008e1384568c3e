//! `GpuContext`: one adapter, its device and queue, and the objects every prepared Slice1 shares.
//!
//! Decisions:
//! - **Primary backends only** (Vulkan, Metal, DX12): wgpu's GL backend lacks features and limits (16 storage
//!   buffers per stage, no f16/int64) and, on a Linux machine with Mesa's GL but no Vulkan driver, default backends
//!   would silently pick llvmpipe through GL. Asking for the primary backends turns that into a clear
//!   [`GpuError::NoAdapter`] instead. Software adapters (lavapipe, WARP) are accepted and reported as
//!   `DeviceType::Cpu`, so CI can run the GPU path without a GPU.
//! - **The adapter's own limits** are requested (the defaults stop at 256 MiB buffers and 128 MiB bindings), so the
//!   splitter uses what the device really offers.
//! - **Errors are values**: an uncaptured-error handler records instead of panicking, every fallible wgpu call of this
//!   crate runs inside an error scope (`GpuContext::scoped`), and a device-lost callback makes every later call
//!   return [`GpuError::DeviceLost`].
//! - **Shared objects**: one shader module, bind-group layout and pipeline layout, a cache of pipelines per (kernel,
//!   element size), and the residue table (see the `kernels` module) live here, so preparing an operator compiles a
//!   shader at most once per element size.

use crate::GpuError;
use crate::kernels::{self, KernelKey};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The backends this crate opens: the platform's native API, never GL.
pub const BACKENDS: wgpu::Backends = wgpu::Backends::VULKAN.union(wgpu::Backends::METAL).union(wgpu::Backends::DX12);

/// Which adapter a context opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterSummary {
    /// The adapter's name (`llvmpipe (LLVM 15.0.6, 256 bits)`, `NVIDIA GeForce ...`).
    pub name: String,
    /// `Vulkan`, `Metal` or `Dx12`.
    pub backend: String,
    /// `DiscreteGpu`, `IntegratedGpu`, `VirtualGpu` or `Cpu` (a software rasteriser such as lavapipe).
    pub device_type: String,
    /// The driver and its version, when the backend reports them.
    pub driver: String,
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}, {}", self.name, self.backend, self.device_type)?;
        if !self.driver.is_empty() {
            write!(f, ", {}", self.driver)?;
        }
        write!(f, ")")
    }
}

/// An open device with everything prepared operators share. `Send + Sync`; cheap to share by reference.
pub struct GpuContext {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    adapter: AdapterSummary,
    pub(crate) limits: wgpu::Limits,
    pub(crate) lost: Arc<Mutex<Option<String>>>,
    pub(crate) layouts: kernels::Layouts,
    pipelines: Mutex<HashMap<KernelKey, wgpu::ComputePipeline>>,
    pub(crate) residues: kernels::ResidueTable,
    timestamps: bool,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext").field("adapter", &self.adapter).finish_non_exhaustive()
    }
}

impl GpuContext {
    /// Opens the default adapter of the primary backends ([`BACKENDS`]), preferring a high-performance one.
    pub fn open() -> Result<GpuContext, GpuError> {
        pollster::block_on(Self::open_async(BACKENDS))
    }

    /// Opens the first adapter of `backends` (a subset of [`BACKENDS`] is expected; GL works but lacks limits).
    pub async fn open_async(backends: wgpu::Backends) -> Result<GpuContext, GpuError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = backends;
        let instance = wgpu::Instance::new(desc);
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::NoAdapter { backends: format!("{backends:?}"), detail: e.to_string() })?;
        let info = adapter.get_info();
        let summary = AdapterSummary {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: format!("{} {}", info.driver, info.driver_info).trim().to_string(),
        };
        let limits = adapter.limits();
        let features =
            adapter.features() & (wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("stridekit"),
                required_features: features,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::RequestDevice { adapter: summary.name.clone(), detail: e.to_string() })?;
        let lost = Arc::new(Mutex::new(None));
        let lost_cb = Arc::clone(&lost);
        device.set_device_lost_callback(move |reason, message| {
            let mut slot = lost_cb.lock().unwrap_or_else(|p| p.into_inner());
            *slot = Some(format!("{reason:?}: {message}"));
        });
        // Errors outside our scopes (there should be none) are logged to stderr instead of panicking.
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| eprintln!("stridekit-wgpu: uncaptured wgpu error: {e}")));
        let layouts = kernels::Layouts::new(&device);
        let residues = kernels::ResidueTable::new(&device, &queue, &limits);
        Ok(GpuContext {
            device,
            queue,
            adapter: summary,
            limits,
            lost,
            layouts,
            pipelines: Mutex::new(HashMap::new()),
            residues,
            timestamps: features
                .contains(wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS),
        })
    }

    /// A context shared by the whole process, opened on first use (for tests and tools that run many small
    /// copies: opening a device costs ~100 ms). The error, if any, is kept and returned to every caller.
    pub fn shared() -> Result<&'static GpuContext, GpuError> {
        static SHARED: OnceLock<Result<GpuContext, GpuError>> = OnceLock::new();
        SHARED.get_or_init(GpuContext::open).as_ref().map_err(Clone::clone)
    }

    /// Which adapter this context opened.
    pub fn adapter(&self) -> &AdapterSummary {
        &self.adapter
    }

    /// The device (for callers that record their own work around a prepared Slice1).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The limits the device was opened with (the adapter's own).
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// Whether the device was opened with `TIMESTAMP_QUERY` and `TIMESTAMP_QUERY_INSIDE_ENCODERS` (GPU-side timing
    /// in [`crate::bench`]).
    pub fn has_timestamps(&self) -> bool {
        self.timestamps
    }

    /// `Err(DeviceLost)` once the device-lost callback has fired.
    pub fn check_lost(&self) -> Result<(), GpuError> {
        check_lost(&self.lost)
    }

    /// Runs `f` inside validation and out-of-memory error scopes and turns a captured error into
    /// [`GpuError::Device`] naming `operation`.
    pub(crate) fn scoped<T>(
        &self,
        operation: &'static str,
        f: impl FnOnce() -> Result<T, GpuError>,
    ) -> Result<T, GpuError> {
        scoped(&self.device, &self.lost, operation, f)
    }

    /// The pipeline of `key`, compiled on first use.
    pub(crate) fn pipeline(&self, key: KernelKey) -> Result<wgpu::ComputePipeline, GpuError> {
        let mut cache = self.pipelines.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = cache.get(&key) {
            return Ok(p.clone());
        }
        let pipeline = self.scoped("compile the Slice1 kernel", || Ok(self.layouts.pipeline(&self.device, key)))?;
        cache.insert(key, pipeline.clone());
        Ok(pipeline)
    }
}

pub(crate) fn check_lost(lost: &Mutex<Option<String>>) -> Result<(), GpuError> {
    match &*lost.lock().unwrap_or_else(|p| p.into_inner()) {
        Some(reason) => Err(GpuError::DeviceLost { reason: reason.clone() }),
        None => Ok(()),
    }
}

pub(crate) fn scoped<T>(
    device: &wgpu::Device,
    lost: &Mutex<Option<String>>,
    operation: &'static str,
    f: impl FnOnce() -> Result<T, GpuError>,
) -> Result<T, GpuError> {
    check_lost(lost)?;
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let result = f();
    let validation = pollster::block_on(validation.pop());
    let oom = pollster::block_on(oom.pop());
    check_lost(lost)?;
    if let Some(e) = validation.or(oom) {
        return Err(GpuError::from_wgpu(operation, e));
    }
    result
}

/// Waits for the device to finish the work submitted so far.
pub(crate) fn wait(ctx: &GpuContext) -> Result<(), GpuError> {
    ctx.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| GpuError::Readback { detail: e.to_string() })?;
    ctx.check_lost()
}

/// Maps `buffer` for reading and waits until it is mapped. Another thread polling the same device may be the one
/// that runs the callback, a little after our own wait returns: poll until the result arrives. A callback dropped
/// without running (device loss) is an error, never a hang.
pub(crate) fn map_for_reading(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Result<(), GpuError> {
    use std::sync::mpsc::TryRecvError;
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    loop {
        match rx.try_recv() {
            Ok(result) => return result.map_err(|e| GpuError::Readback { detail: e.to_string() }),
            Err(TryRecvError::Disconnected) => {
                return Err(GpuError::Readback { detail: "the map callback was dropped".to_string() });
            }
            Err(TryRecvError::Empty) => {
                wait(ctx)?;
                std::thread::yield_now();
            }
        }
    }
}
