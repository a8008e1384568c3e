//! Timing a prepared Slice1 against the device's own buffer copy, for `stridekit bench --device gpu`.
//!
//! [`bench_slice1`] uploads the tensors once, then times a batch of `iterations` recordings of the prepared copy in
//! one command buffer, and a batch of as many `copy_buffer_to_buffer` of the same number of bytes (the output's
//! element bytes) in the same run on the same device; then it reads the output back so the caller can verify it.
//! Kernel times come from timestamp queries written before and after each batch when the adapter offers
//! `TIMESTAMP_QUERY_INSIDE_ENCODERS`, else from the wall clock around the submitted batch (which then includes the
//! submission and the wait: on a real GPU, use enough iterations that this is small). Upload and readback are timed
//! apart from the kernel. The CPU cost of recording one prepared copy (the "tiny slice in under 5 us" goal) is
//! measured too, as the average over `iterations` recordings into one encoder.
//!
//! Nothing here asserts a time: results are reported, never judged.

use crate::context::{GpuContext, map_for_reading, wait};
use crate::prepare::PreparedSlice1Gpu;
use crate::{GpuBinding, GpuError};
use std::time::{Duration, Instant};
use stridekit::Slice1Plan;

/// How the kernel and copy times were measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimingSource {
    /// GPU timestamp queries around each batch.
    Timestamps,
    /// The wall clock around a submitted batch and the wait for it.
    WallClock,
}

impl TimingSource {
    /// `"timestamps"` or `"wall"` (for reports and JSON).
    pub fn name(self) -> &'static str {
        match self {
            TimingSource::Timestamps => "timestamps",
            TimingSource::WallClock => "wall",
        }
    }
}

/// What [`bench_slice1`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuBench {
    /// The adapter, as `name (backend, device type, driver)`.
    pub adapter: String,
    /// How the copy ran (`buffer copy`, `words kernel (1 dispatch)`, ...).
    pub path: String,
    /// How [`kernel`](Self::kernel) and [`copy`](Self::copy) were timed.
    pub timing: TimingSource,
    /// Time of one prepared Slice1 on the device (batch time / iterations).
    pub kernel: Duration,
    /// Time of one `copy_buffer_to_buffer` of [`copy_bytes`](Self::copy_bytes) bytes (batch time / iterations).
    pub copy: Duration,
    /// The bytes the reference copy moves: the output's element bytes, rounded up to a word.
    pub copy_bytes: u64,
    /// Logical bytes the slice moves: 2 x elements x element size (read + write).
    pub bytes_moved: u64,
    /// Uploading the input and output bytes until the device has them.
    pub upload: Duration,
    /// Copying the output back into the host slice.
    pub readback: Duration,
    /// CPU time to record the prepared copy once into an encoder (average).
    pub record_cpu: Duration,
    /// Iterations per batch.
    pub iterations: u32,
}

impl GpuBench {
    /// Slice throughput in GB/s (10^9 bytes) of logical bytes moved.
    pub fn gb_per_s(&self) -> f64 {
        self.bytes_moved as f64 / self.kernel.as_secs_f64().max(1e-12) / 1e9
    }

    /// The copy's throughput in GB/s (read + write: 2 x [`copy_bytes`](Self::copy_bytes)).
    pub fn copy_gb_per_s(&self) -> f64 {
        2.0 * self.copy_bytes as f64 / self.copy.as_secs_f64().max(1e-12) / 1e9
    }

    /// The slice's throughput over the copy's (the goal: at least 0.8 on bandwidth cases).
    pub fn ratio_to_copy(&self) -> f64 {
        self.gb_per_s() / self.copy_gb_per_s().max(1e-12)
    }
}

fn buffer(ctx: &GpuContext, label: &'static str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
}

fn word_size(len: u64) -> u64 {
    len.div_ceil(4).max(1) * 4
}

fn write_padded(ctx: &GpuContext, target: &wgpu::Buffer, bytes: &[u8]) {
    let mut padded = bytes.to_vec();
    padded.resize(word_size(bytes.len() as u64) as usize, 0);
    ctx.queue.write_buffer(target, 0, &padded);
}

fn read_back(ctx: &GpuContext, source: &wgpu::Buffer, len: u64) -> Result<Vec<u8>, GpuError> {
    let staging = buffer(
        ctx,
        "stridekit bench readback",
        word_size(len),
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(source, 0, &staging, 0, word_size(len));
    ctx.queue.submit([encoder.finish()]);
    map_for_reading(ctx, &staging)?;
    let err = |e: String| GpuError::Readback { detail: e };
    let bytes = staging.get_mapped_range(..).map_err(|e| err(e.to_string()))?[..len as usize].to_vec();
    staging.unmap();
    Ok(bytes)
}

/// Runs `work` `iterations` times in one command buffer and returns the time of one run.
fn time_batch(
    ctx: &GpuContext,
    iterations: u32,
    work: &dyn Fn(&mut wgpu::CommandEncoder) -> Result<(), GpuError>,
) -> Result<(Duration, TimingSource), GpuError> {
    let n = iterations.max(1);
    let queries = ctx.has_timestamps().then(|| {
        let set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("stridekit bench"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolve = buffer(
            ctx,
            "stridekit bench timestamps",
            16,
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        );
        (set, resolve)
    });
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    if let Some((set, _)) = &queries {
        encoder.write_timestamp(set, 0);
    }
    for _ in 0..n {
        work(&mut encoder)?;
    }
    if let Some((set, resolve)) = &queries {
        encoder.write_timestamp(set, 1);
        encoder.resolve_query_set(set, 0..2, resolve, 0);
    }
    let start = Instant::now();
    ctx.queue.submit([encoder.finish()]);
    wait(ctx)?;
    let wall = start.elapsed() / n;
    match &queries {
        Some((_, resolve)) => {
            let raw = read_back(ctx, resolve, 16)?;
            let t0 = u64::from_le_bytes(raw[0..8].try_into().unwrap_or_default());
            let t1 = u64::from_le_bytes(raw[8..16].try_into().unwrap_or_default());
            let ns = t1.saturating_sub(t0) as f64 * f64::from(ctx.queue.get_timestamp_period());
            Ok((Duration::from_nanos((ns / f64::from(n)) as u64), TimingSource::Timestamps))
        }
        None => Ok((wall, TimingSource::WallClock)),
    }
}

/// Times `plan` on `ctx`'s device against a buffer copy of the same bytes (see the [module docs](self)), and leaves
/// the copied output in `output` for verification. `input` and `output` are whole tensors (at least
/// TotalTensorSizeInBytes each, as DirectML binds them); `output` is uploaded first so padding keeps its value.
pub fn bench_slice1(
    ctx: &GpuContext,
    plan: &Slice1Plan,
    input: &[u8],
    output: &mut [u8],
    iterations: u32,
) -> Result<GpuBench, GpuError> {
    let op = PreparedSlice1Gpu::new(ctx, plan)?;
    let es = plan.element_size() as u64;
    let copy_bytes = word_size(plan.element_count() * es);
    use wgpu::BufferUsages as U;
    let t0 = Instant::now();
    let (in_buf, out_buf, src, dst) = ctx.scoped("create the bench buffers", || {
        let in_buf =
            buffer(ctx, "stridekit bench input", word_size(input.len() as u64), U::STORAGE | U::COPY_SRC | U::COPY_DST);
        let out_buf = buffer(
            ctx,
            "stridekit bench output",
            word_size(output.len() as u64),
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        );
        write_padded(ctx, &in_buf, input);
        write_padded(ctx, &out_buf, output);
        let src = buffer(ctx, "stridekit bench copy source", copy_bytes, U::COPY_SRC);
        let dst = buffer(ctx, "stridekit bench copy target", copy_bytes, U::COPY_DST);
        Ok((in_buf, out_buf, src, dst))
    })?;
    ctx.queue.submit([]);
    wait(ctx)?;
    let upload = t0.elapsed();
    let ib = GpuBinding::new(&in_buf, 0, input.len() as u64);
    let ob = GpuBinding::new(&out_buf, 0, output.len() as u64);
    // Warm up once (pipeline first use, page-in of the buffers).
    let run = |e: &mut wgpu::CommandEncoder| op.record(e, ib, ob);
    time_batch(ctx, 1, &run)?;
    let (kernel, timing) = time_batch(ctx, iterations, &run)?;
    let copy_once = |e: &mut wgpu::CommandEncoder| {
        e.copy_buffer_to_buffer(&src, 0, &dst, 0, copy_bytes);
        Ok(())
    };
    time_batch(ctx, 1, &copy_once)?;
    let (copy, _) = time_batch(ctx, iterations, &copy_once)?;
    let record_cpu = {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        let start = Instant::now();
        for _ in 0..iterations.max(1) {
            op.record(&mut encoder, ib, ob)?;
        }
        start.elapsed() / iterations.max(1)
    };
    let t1 = Instant::now();
    let bytes = read_back(ctx, &out_buf, output.len() as u64)?;
    output.copy_from_slice(&bytes);
    let readback = t1.elapsed();
    Ok(GpuBench {
        adapter: ctx.adapter().to_string(),
        path: op.describe(),
        timing,
        kernel,
        copy,
        copy_bytes,
        bytes_moved: 2 * plan.element_count() * es,
        upload,
        readback,
        record_cpu,
        iterations: iterations.max(1),
    })
}
