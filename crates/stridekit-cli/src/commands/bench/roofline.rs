//! The roofline of a case: the best copy this machine does over the bytes the case must move.
//!
//! A case must read its distinct input lines and write its distinct output lines
//! ([`stridekit::ops::traffic::Traffic`]); a contiguous copy of half those bytes moves the same number of lines. The
//! baseline is the fastest of four such copies, timed in the same run as the case: `memcpy` on one thread, and
//! stridekit-cpu's contiguous copy (a one-dimensional Slice1 plan) on every thread with ordinary stores, and on one
//! and on every thread with streaming stores forced on. `roofline = copy time / stridekit time`: 1.0 means the case
//! moves its lines as fast as the best copy, 0.5 that it takes twice as long.
//!
//! Cases whose output is at most [`CACHE_RESIDENT_MAX_BYTES`] are judged against a copy of the same small size, which
//! stays in the cache as they do, and are reported separately.

use super::measure;
use crate::error::CliError;
use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
use stridekit_cpu::{CpuBuffer, ExecOptions, PreparedSlice1, StreamingThresholds};

/// Outputs up to this size are cache-resident cases (repeated calls keep them in the last-level cache).
pub const CACHE_RESIDENT_MAX_BYTES: u64 = 4 << 20;
/// Outputs below this size are "tiny": latency, not bandwidth.
pub const TINY_MAX_BYTES: u64 = 64 << 10;

/// Which distribution a case belongs to, by its output size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Output below 64 KiB.
    Tiny,
    /// Output of 64 KiB to 4 MiB: compared with an in-cache copy.
    Cache,
    /// Output above 4 MiB: compared with a copy through memory.
    Memory,
}

impl Class {
    /// The class of a case with `out_bytes` of output.
    pub fn of(out_bytes: u64) -> Class {
        if out_bytes < TINY_MAX_BYTES {
            Class::Tiny
        } else if out_bytes <= CACHE_RESIDENT_MAX_BYTES {
            Class::Cache
        } else {
            Class::Memory
        }
    }

    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Class::Tiny => "tiny",
            Class::Cache => "cache",
            Class::Memory => "memory",
        }
    }
}

/// The copies the baseline is the fastest of.
const KINDS: [(&str, Copy); 4] = [
    ("memcpy 1t", Copy::Memcpy),
    ("copy all", Copy::Plan { threads: 0, streaming: false }),
    ("stream 1t", Copy::Plan { threads: 1, streaming: true }),
    ("stream all", Copy::Plan { threads: 0, streaming: true }),
];

#[derive(Debug, Clone, Copy)]
enum Copy {
    Memcpy,
    Plan { threads: usize, streaming: bool },
}

/// A contiguous copy of `bytes` bytes, ready to time.
pub struct CopyBaseline {
    src: CpuBuffer,
    dst: CpuBuffer,
    ops: Vec<Option<PreparedSlice1>>,
    /// The copy's size in bytes (a multiple of 64).
    pub bytes: u64,
}

/// The chosen copy and its speed.
#[derive(Debug, Clone, Copy)]
pub struct Best {
    /// Which copy was fastest.
    pub kind: &'static str,
    /// GB/s counting bytes read plus bytes written.
    pub gbps: f64,
}

impl CopyBaseline {
    /// Buffers and plans for a copy of `bytes` (rounded up to a line, at least one line).
    pub fn new(bytes: u64) -> Result<CopyBaseline, CliError> {
        let bytes = bytes.div_ceil(64).max(1) * 64;
        let len = usize::try_from(bytes).map_err(|_| CliError::Args(format!("a copy of {bytes} bytes")))?;
        let mut src = CpuBuffer::zeroed(len);
        src.as_bytes_mut().iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
        let dst = CpuBuffer::zeroed(len);
        // u32 elements: a copy of up to 16 GiB is one dimension of at most 2^32 - 1 elements.
        let elements = u32::try_from(bytes / 4).map_err(|_| CliError::Args(format!("a copy of {bytes} bytes")))?;
        let plan = contiguous_plan(elements)?;
        let ops = KINDS
            .iter()
            .map(|(_, kind)| match *kind {
                Copy::Memcpy => Ok(None),
                Copy::Plan { threads, streaming } => {
                    let options = ExecOptions {
                        parallel_min_bytes: 0,
                        streaming: if streaming { StreamingThresholds::ALWAYS } else { StreamingThresholds::NEVER },
                        ..ExecOptions::with_threads(threads)
                    };
                    PreparedSlice1::new(&plan, options).map(Some).map_err(CliError::from)
                }
            })
            .collect::<Result<Vec<_>, CliError>>()?;
        Ok(CopyBaseline { src, dst, ops, bytes })
    }

    /// Runs copy kind `i` once.
    pub fn run(&mut self, i: usize) {
        match &self.ops[i] {
            None => self.dst.as_bytes_mut().copy_from_slice(std::hint::black_box(self.src.as_bytes())),
            // Compiled for exactly these buffers: the call cannot fail.
            Some(op) => {
                let _ = op.execute(self.src.as_bytes(), self.dst.as_bytes_mut());
            }
        }
        std::hint::black_box(self.dst.as_bytes());
    }

    /// Times every kind with `reps` samples, back to back, and returns the index of the fastest.
    pub fn fastest(&mut self, reps: usize) -> usize {
        let mut best: Option<(usize, f64)> = None;
        for i in 0..KINDS.len() {
            let t = measure::time_per_call(reps, || self.run(i));
            if best.is_none_or(|(_, b)| t < b) {
                best = Some((i, t));
            }
        }
        best.map_or(0, |(i, _)| i)
    }

    /// The [`Best`] for kind `i` at `seconds` per copy.
    pub fn best_of(&self, i: usize, seconds: f64) -> Best {
        Best { kind: KINDS[i].0, gbps: 2.0 * self.bytes as f64 / seconds / 1e9 }
    }
}

fn contiguous_plan(elements: u32) -> Result<stridekit::Slice1Plan, CliError> {
    let t = BufferTensorDesc::packed(DataType::Uint32, &[elements])?;
    let desc = Slice1Desc {
        input: t.clone(),
        output: t,
        input_window_offsets: vec![0],
        input_window_sizes: vec![elements],
        input_window_strides: vec![1],
    };
    Ok(desc.validate()?)
}

/// The roofline ratio: the time the best copy needs for `traffic_bytes` over the case's time.
pub fn ratio(traffic_bytes: u64, copy: &Best, case_seconds: f64) -> f64 {
    let copy_seconds = traffic_bytes as f64 / (copy.gbps * 1e9);
    copy_seconds / case_seconds
}
