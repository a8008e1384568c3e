//! Shared helpers of the GPU integration tests: the process-wide context, or a skip.

#![allow(dead_code)]

use stridekit_wgpu::GpuContext;

/// The shared context; `None` (with a note on stderr) when no adapter exists, unless `STRIDEKIT_REQUIRE_GPU=1`,
/// when the missing adapter fails the test.
pub fn gpu() -> Option<&'static GpuContext> {
    match GpuContext::shared() {
        Ok(ctx) => Some(ctx),
        Err(e) if std::env::var("STRIDEKIT_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("STRIDEKIT_REQUIRE_GPU=1 but no GPU adapter: {e}")
        }
        Err(e) => {
            eprintln!("note: skipping a GPU test (set STRIDEKIT_REQUIRE_GPU=1 to fail instead): {e}");
            None
        }
    }
}

/// A buffer holding `bytes` (zero-padded to whole words) with `usage | COPY_DST | COPY_SRC`.
pub fn buffer_with(ctx: &GpuContext, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let mut padded = bytes.to_vec();
    padded.resize(bytes.len().div_ceil(4).max(1) * 4, 0);
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test"),
        size: padded.len() as u64,
        usage: usage | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    ctx.queue().write_buffer(&buffer, 0, &padded);
    buffer
}

/// The contents of `buffer` (which needs COPY_SRC).
pub fn read(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Vec<u8> {
    let staging = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    ctx.queue().submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |r| tx.send(r).unwrap());
    // Another test thread polling the device may run the callback a little after our poll returns.
    let mapped = loop {
        ctx.device().poll(wgpu::PollType::wait_indefinitely()).unwrap();
        if let Ok(r) = rx.try_recv() {
            break r;
        }
        std::thread::yield_now();
    };
    mapped.unwrap();
    let bytes = staging.get_mapped_range(..).unwrap().to_vec();
    staging.unmap();
    bytes
}
