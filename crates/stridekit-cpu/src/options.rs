//! `ExecOptions`: threads and the size thresholds that pick kernels. The defaults were measured on the development
//! machine (docs/PERFORMANCE.md); tests lower them to cross every threshold with small data.

/// Execution options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecOptions {
    /// Threads to split a large copy over: 0 means every thread of rayon's global pool, 1 means run on the calling
    /// thread only. The output is split into this many disjoint parts.
    pub threads: usize,
    /// Copies whose output element bytes are below this run on one thread.
    pub parallel_min_bytes: usize,
    /// Copies whose output element bytes are at least this use non-temporal (streaming) stores where the kernel
    /// has them, so that a copy larger than the caches does not first read every destination line.
    pub non_temporal_min_bytes: usize,
    /// An innermost dimension whose input stride (in elements) is at least this, while another dimension reads
    /// contiguously, is copied as a cache-blocked transpose (NCHW <-> NHWC).
    pub transpose_min_stride: u64,
    /// Use the x86_64 SIMD kernels when the CPU has them (runtime detection). `false` forces the portable kernels.
    pub simd: bool,
}

/// The default of [`ExecOptions::parallel_min_bytes`]: 1 MiB, below which a second thread costs more than it saves.
pub const DEFAULT_PARALLEL_MIN_BYTES: usize = 1 << 20;
/// The default of [`ExecOptions::non_temporal_min_bytes`]: 24 MiB of output, about where the output stops fitting in
/// the last-level cache next to the input on the development machine.
pub const DEFAULT_NON_TEMPORAL_MIN_BYTES: usize = 24 << 20;
/// The default of [`ExecOptions::transpose_min_stride`].
pub const DEFAULT_TRANSPOSE_MIN_STRIDE: u64 = 16;

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            threads: 0,
            parallel_min_bytes: DEFAULT_PARALLEL_MIN_BYTES,
            non_temporal_min_bytes: DEFAULT_NON_TEMPORAL_MIN_BYTES,
            transpose_min_stride: DEFAULT_TRANSPOSE_MIN_STRIDE,
            simd: true,
        }
    }
}

impl ExecOptions {
    /// The defaults with `threads` threads.
    pub fn with_threads(threads: usize) -> Self {
        ExecOptions { threads, ..Self::default() }
    }

    /// The number of threads a large copy is split over: [`threads`](Self::threads), or the size of rayon's global
    /// pool when that is 0.
    pub fn effective_threads(&self) -> usize {
        if self.threads == 0 { rayon::current_num_threads() } else { self.threads }
    }

    /// Options that take every special path on tiny data: several threads, streaming stores, transposes from
    /// stride 2. For tests.
    pub fn exercise_all_paths(threads: usize) -> Self {
        ExecOptions { threads, parallel_min_bytes: 0, non_temporal_min_bytes: 0, transpose_min_stride: 2, simd: true }
    }
}
