//! `stridekit bench --device gpu`: the same cases on a GPU through `stridekit-wgpu`.
//!
//! Per case: fill the input as on the CPU, run the prepared copy on the device once and verify the whole output
//! buffer against the model's naive reference (and the case's `expect`), then time it with
//! [`stridekit_wgpu::bench::bench_slice1`]: the kernel time per call (GPU timestamps where the adapter has them,
//! else wall time around a submitted batch) against a `copy_buffer_to_buffer` of the output's bytes on the same
//! device in the same run. Upload and readback are reported apart from the kernel. On a software rasteriser
//! (lavapipe) only correctness counts; keep `--reps` small there (it is the batch size, capped at [`MAX_BATCH`]).

use super::measure::{self, fill_read_elements};
use super::report;
use crate::error::CliError;
use serde_json::json;
use std::io::Write;
use stridekit::ops::case::Slice1Case;
use stridekit::{Slice1Desc, Slice1Plan};
use stridekit_wgpu::GpuContext;
use stridekit_wgpu::bench::GpuBench;

/// The most calls in one timed batch.
pub const MAX_BATCH: u32 = 100;

/// The measurements of one case on the GPU.
#[derive(Debug, Clone)]
pub struct GpuRow {
    /// The case's name, escaped for printing.
    pub name: String,
    /// The device's figures.
    pub bench: GpuBench,
    /// Whether the output equals the reference's.
    pub verified: bool,
    /// `Some(true)` when the case's `expect` matched, `Some(false)` when not, `None` without one.
    pub expect_ok: Option<bool>,
}

impl GpuRow {
    /// Verified against the reference and, when given, the expectation.
    pub fn ok(&self) -> bool {
        self.verified && self.expect_ok != Some(false)
    }
}

/// Runs one case on `ctx`'s device: fill, run, verify, time (`batch` calls per timed batch).
pub fn bench_case(
    ctx: &GpuContext,
    case: &Slice1Case,
    desc: &Slice1Desc,
    plan: &Slice1Plan,
    batch: u32,
) -> Result<GpuRow, CliError> {
    let mut input = vec![0u8; desc.input.total_tensor_size_in_bytes as usize];
    fill_read_elements(&mut input, plan);
    let mut output = vec![0u8; desc.output.total_tensor_size_in_bytes as usize];
    let bench = stridekit_wgpu::bench::bench_slice1(ctx, plan, &input, &mut output, batch.clamp(1, MAX_BATCH))?;
    let mut expected = vec![0u8; output.len()];
    stridekit::reference::slice1_reference(desc, &input, &mut expected).map_err(|e| CliError::Args(e.to_string()))?;
    let verified = output == expected;
    let expect_ok = case.expect.as_ref().map(|expect| measure::check_expect(plan, &output, expect).is_ok());
    Ok(GpuRow { name: report::escape(&case.name), bench, verified, expect_ok })
}

/// One JSON object per case (`"device": "gpu"`).
pub fn json_line(row: &GpuRow) -> serde_json::Value {
    let b = &row.bench;
    json!({
        "name": row.name,
        "device": "gpu",
        "adapter": b.adapter,
        "path": b.path,
        "timing": b.timing.name(),
        "kernel_s": b.kernel.as_secs_f64(),
        "gbps": b.gb_per_s(),
        "copy_s": b.copy.as_secs_f64(),
        "copy_bytes": b.copy_bytes,
        "copy_gbps": b.copy_gb_per_s(),
        "ratio_to_copy": b.ratio_to_copy(),
        "bytes_moved": b.bytes_moved,
        "upload_s": b.upload.as_secs_f64(),
        "readback_s": b.readback.as_secs_f64(),
        "record_cpu_s": b.record_cpu.as_secs_f64(),
        "iterations": b.iterations,
        "verified": row.verified,
        "expect_ok": row.expect_ok,
    })
}

/// The table of GPU rows, headed by the adapter.
pub fn table(out: &mut impl Write, adapter: &str, rows: &[GpuRow]) -> std::io::Result<()> {
    writeln!(out, "device: gpu, adapter: {adapter}")?;
    writeln!(
        out,
        "{:<24} {:>10} {:>9} {:>10} {:>9} {:>8} {:>10} {:>10} {:>10} {:>10}  path",
        "case", "MiB moved", "kernel", "GB/s", "copy GB/s", "ratio", "upload", "readback", "record", "verified"
    )?;
    for r in rows {
        let b = &r.bench;
        writeln!(
            out,
            "{:<24} {:>10.2} {:>9} {:>10.3} {:>9.3} {:>8.3} {:>10} {:>10} {:>10} {:>10}  {} ({})",
            r.name,
            b.bytes_moved as f64 / (1 << 20) as f64,
            format_duration(b.kernel.as_secs_f64()),
            b.gb_per_s(),
            b.copy_gb_per_s(),
            b.ratio_to_copy(),
            format_duration(b.upload.as_secs_f64()),
            format_duration(b.readback.as_secs_f64()),
            format_duration(b.record_cpu.as_secs_f64()),
            match (r.verified, r.expect_ok) {
                (false, _) => "NO",
                (true, Some(false)) => "NO(exp)",
                (true, _) => "yes",
            },
            b.path,
            b.timing.name(),
        )?;
    }
    Ok(())
}

/// Seconds as `12.3 ms`, `4.5 us` or `1.20 s`.
fn format_duration(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::format_duration;

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(format_duration(1.2), "1.20 s");
        assert_eq!(format_duration(0.0123), "12.3 ms");
        assert_eq!(format_duration(4.5e-6), "4.5 us");
    }
}
