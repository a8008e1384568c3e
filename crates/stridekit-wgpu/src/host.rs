//! The convenience level: host bytes in, host bytes out (upload, record, submit, read back).
//!
//! Host slices follow D10: any slice that holds every byte the plan reads (input) or writes (output) is accepted,
//! checked with the model's [`check_host_buffer`]; the DWORD rounding of TotalTensorSizeInBytes is not required.
//! Only the bytes up to the last one touched are uploaded, into device buffers rounded up to whole words (wgpu
//! copies and maps 4-byte units). The output's bytes are uploaded before the copy runs and read back after it, so
//! padding between elements keeps its value (D6); bytes of `output` past the last element are not touched at all.

use crate::GpuError;
use crate::context::{GpuContext, map_for_reading, wait};
use crate::prepare::PreparedSlice1Gpu;
use std::time::{Duration, Instant};
use stridekit::{Slice1Plan, TensorRole, check_host_buffer};

/// Wall-clock times of one host-level run (each phase waits for the device before the next starts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HostTimings {
    /// Creating the device buffers and writing the input (and output) bytes, until the device has them.
    pub upload: Duration,
    /// Recording, submitting and waiting for the copy.
    pub kernel: Duration,
    /// Copying the output to a mappable buffer, mapping it and copying it into the host slice.
    pub readback: Duration,
}

/// Runs `plan` on the device of `ctx`: uploads `input` and `output`, copies, and reads the output back. Prepares the
/// operator on every call; prepare once with [`PreparedSlice1Gpu::new`] and call
/// [`execute`](PreparedSlice1Gpu::execute) to run many times.
pub fn slice1(ctx: &GpuContext, plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), GpuError> {
    PreparedSlice1Gpu::new(ctx, plan)?.execute(ctx, input, output).map(|_| ())
}

/// `len` rounded up to a whole number of words, at least one word (wgpu rejects empty and unaligned copies).
fn word_size(len: u64) -> u64 {
    len.div_ceil(4).max(1) * 4
}

/// Writes `bytes` at offset 0 of `buffer` (whose size is `word_size(bytes.len())`), zero-filling the last word.
fn upload(queue: &wgpu::Queue, buffer: &wgpu::Buffer, bytes: &[u8]) {
    let body = bytes.len() / 4 * 4;
    if body > 0 {
        queue.write_buffer(buffer, 0, &bytes[..body]);
    }
    if body < bytes.len() || bytes.is_empty() {
        let mut tail = [0u8; 4];
        tail[..bytes.len() - body].copy_from_slice(&bytes[body..]);
        queue.write_buffer(buffer, body as u64, &tail);
    }
}

impl PreparedSlice1Gpu {
    /// Runs on host slices (D10: each holds every byte the copy touches; only the bytes up to the last one touched are uploaded and read back; padding between elements keeps its value, D6) and returns
    /// the time of each phase. `ctx` must be the context the operator was prepared on.
    pub fn execute(&self, ctx: &GpuContext, input: &[u8], output: &mut [u8]) -> Result<HostTimings, GpuError> {
        let copy = self.plan.normalized();
        let in_hi = copy.input_byte_range().end;
        let out_hi = copy.output_byte_range().end;
        check_host_buffer(TensorRole::Input, input.len() as u64, in_hi)?;
        check_host_buffer(TensorRole::Output, output.len() as u64, out_hi)?;
        // check_host_buffer proved both ends lie inside the slices.
        let (input, touched) = (&input[..in_hi as usize], &mut output[..out_hi as usize]);
        let device = &ctx.device;
        let t0 = Instant::now();
        let (in_buf, out_buf, readback) = ctx.scoped("upload the Slice1 tensors", || {
            let buffer = |label, len, usage| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: word_size(len),
                    usage,
                    mapped_at_creation: false,
                })
            };
            use wgpu::BufferUsages as U;
            let in_buf = buffer("stridekit input", in_hi, U::STORAGE | U::COPY_DST | U::COPY_SRC);
            let out_buf = buffer("stridekit output", out_hi, U::STORAGE | U::COPY_DST | U::COPY_SRC);
            let readback = buffer("stridekit readback", out_hi, U::MAP_READ | U::COPY_DST);
            upload(&ctx.queue, &in_buf, input);
            upload(&ctx.queue, &out_buf, touched);
            ctx.queue.submit([]);
            Ok((in_buf, out_buf, readback))
        })?;
        wait(ctx)?;
        let t1 = Instant::now();
        ctx.scoped("run Slice1", || {
            let mut encoder =
                device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("stridekit") });
            // Offsets 0 and buffers holding every touched byte in whole words: record_unchecked's preconditions.
            self.record_unchecked(&mut encoder, &in_buf, 0, &out_buf, 0);
            ctx.queue.submit([encoder.finish()]);
            Ok(())
        })?;
        wait(ctx)?;
        let t2 = Instant::now();
        ctx.scoped("read the Slice1 output back", || {
            let mut encoder =
                device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("stridekit") });
            encoder.copy_buffer_to_buffer(&out_buf, 0, &readback, 0, word_size(out_hi));
            ctx.queue.submit([encoder.finish()]);
            Ok(())
        })?;
        map_for_reading(ctx, &readback)?;
        {
            let view = readback.get_mapped_range(..).map_err(|e| GpuError::Readback { detail: e.to_string() })?;
            touched.copy_from_slice(&view[..touched.len()]);
        }
        readback.unmap();
        let t3 = Instant::now();
        Ok(HostTimings { upload: t1 - t0, kernel: t2 - t1, readback: t3 - t2 })
    }
}
