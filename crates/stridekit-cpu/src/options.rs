//! `ExecOptions`: threads and the size thresholds that pick kernels. The defaults were measured on the development
//! machine (docs/PERFORMANCE.md); tests lower them to cross every threshold with small data.

/// Execution options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecOptions {
    /// Threads to split a large copy over: 0 means every thread of rayon's global pool, 1 means run on the calling
    /// thread only. The output is split into this many disjoint parts.
    pub threads: usize,
    /// Copies that move fewer bytes than this (the output bytes they write plus the input bytes they read, as for
    /// [`streaming`](Self::streaming)) run on one thread; bulk copies (contiguous runs on
    /// both sides, the `copy` kernel) from twice this, since they move their bytes fastest.
    pub parallel_min_bytes: usize,
    /// The bytes moved (the distinct input lines a copy reads plus the output lines it writes, 64 bytes each) from
    /// which each kind of kernel uses non-temporal (streaming) stores, so that a copy that does not fit the
    /// last-level cache does not first read every destination line. Whether a copy stays in the cache depends on
    /// both sides, not on the output alone: a 22.5 MiB copy moves 45 MiB. Defaults ([`default_streaming`](Self::default_streaming)): the
    /// machine's profile (`stridekit calibrate`), else [`StreamingRule`], from the CPU's vendor and its detected
    /// last-level cache.
    pub streaming: StreamingThresholds,
    /// An innermost dimension whose input stride (in elements) is at least this, while another dimension reads
    /// contiguously, is copied as a cache-blocked transpose (NCHW <-> NHWC).
    pub transpose_min_stride: u64,
    /// Use the x86_64 SIMD kernels when the CPU has them (runtime detection). `false` forces the portable kernels.
    pub simd: bool,
    /// When an outer loop reads again bytes that the loops inside it read (a window sliding by a few elements, an
    /// input whose strides overlap, a channel-last output of interleaved pixels) and those bytes exceed this, the
    /// inner kernel is taken in tiles whose source lines (with the loops' re-reads) fit in about this many bytes,
    /// each tile under every outer loop, so the re-reads find their lines in cache instead of memory.
    pub reuse_tile_bytes: usize,
}

/// The default of [`ExecOptions::parallel_min_bytes`]: 256 KiB moved (written plus read; 512 KiB for bulk copies
/// and fills), below which a second thread costs more than it saves. The split is decided on the bytes moved, not
/// on the output alone: a gather that reads a line for every 5 bytes it writes, or a transpose that reads lines from
/// hundreds of rows, takes as long as a copy of all those lines.
///
/// On the seventh development machine (2 vCPUs of an AMD EPYC under KVM, Zen 4, 1 MiB of L2 per core, 32 MiB L3),
/// 256 KiB against 512 KiB (copies at twice each) over the cases of `stridekit bench --sweep 200 --seed S
/// --sweep-max-bytes 64M` whose thread count changes, three alternating rounds, time split over time whole: seeds
/// 1-10, 86 cases at a geometric mean of 0.837 (tables 0.73, copies 0.78, rows 0.74); seeds 81-90, not looked at
/// while choosing, 70 cases at 0.879 (copies 0.80, tables 0.81, rows 0.86). Fills were the exception, 1.14 and
/// 1.19 (18 and 14 cases): a fill is bound by its stores, which one core's write-combining buffers nearly saturate,
/// so a fill keeps the threshold of a copy. The built change against the build before it, same cases without the
/// fills: 0.878 (68) and 0.789 (56) (2026-12-04; `docs/PERFORMANCE.md`, forty-sixth round).
///
/// On the sixth (2 vCPUs of an AMD EPYC under KVM, Zen 3, 32 MiB L3), once the caller no longer waited for a
/// sleeping pool thread to start (the claimed parts of `kernels/split.rs`), the cases of the seed-1 sweep moving
/// 1-2 MiB ran in 0.30-0.81 of their one-thread time on two threads (19 cases; one at 1.17), and those moving
/// 0.5-1 MiB in 0.54-0.95, except five plain copies of 0.5-0.9 MiB at 1.00-1.14 (2026-11-26).
///
/// History: with `rayon::join` of halves, whose caller sleeps until a pool thread has woken, the threshold had to be
/// higher. On the fourth development machine (2 vCPUs of an Intel Xeon, AVX-512, 105 MiB L3) the sweep ran at 0.527
/// / 0.508 / 0.489 of the roofline with 2 / 4 / 8 MiB moved, and 0.482 with the rule before (4 MiB of output); on
/// the first (an AMD EPYC under KVM) outputs of 1-2 MiB ran at 0.26 of the roofline split and 0.37 on one thread.
pub const DEFAULT_PARALLEL_MIN_BYTES: usize = 256 << 10;
/// The most [`StreamingRule::EarlyStreaming`] streams the strided kernels and fills from (the `other` and `fill`
/// of [`ExecOptions::streaming`]), and their threshold under every rule when the last-level cache size cannot be
/// detected ([`ExecOptions::last_level_cache_bytes`]): 8 MiB. A large last-level cache is no promise of
/// room: on a server it is shared by every core of the socket, and on a virtual machine by other tenants. The second
/// development machine (2 vCPUs of an Intel Xeon, 2 MiB of L2 per core, a 260 MiB L3 as detected) ran the 84 cases of
/// `stridekit bench --sweep 200 --seed 1 --sweep-max-bytes 64M` that move 8-65 MiB at a geometric mean of 0.46 of
/// the roofline with the quarter-of-L3 rule alone (65 MiB) and 0.49 with 8 MiB (six alternating rounds,
/// `--nt-min-bytes`; plain copies of 25 MiB 0.52 -> 0.82), while the cases' cache-class subset did not move
/// (0.37 / 0.36); 16 MiB and 32 MiB read 0.47 and 0.45 (2026-11-26).
pub const DEFAULT_NON_TEMPORAL_MIN_BYTES: usize = 8 << 20;

/// [`StreamingRule::EarlyStreaming`]: the share of the last-level cache a copy may move before its stores stream, a
/// quarter (at most [`DEFAULT_NON_TEMPORAL_MIN_BYTES`]). The last-level cache is shared (by the cores, and on a
/// virtual machine by other tenants), and the copy's source and destination lines compete for it: on the first
/// development machine (32 MiB L3, 2 vCPUs of a shared EPYC, under a load average of 7-20 from other tenants) plain
/// f32 copies of 4-12 MiB output (8-24 MiB moved) ran 1.2-2.5x faster with streaming stores, and at most 3 MiB of
/// output about as fast either way (`stridekit bench --dtype f32 --input-sizes N --nt-min-bytes 0` against a huge
/// value, 2026-11-23). A quiet Zen 5 measured the other way ([`StreamingRule::Zen`]).
const CACHE_SHARE_DIVISOR: usize = 4;
/// The default of [`ExecOptions::transpose_min_stride`].
pub const DEFAULT_TRANSPOSE_MIN_STRIDE: u64 = 16;
/// The default of [`ExecOptions::reuse_tile_bytes`]: 64 KiB, an eighth of the L2 of one core of the development
/// machine (an AMD EPYC, 512 KiB of L2 per core, 32 KiB of L1d), so that a tile, the destination lines written
/// meanwhile and the hardware prefetcher's lines stay in L2 while every outer loop reads the tile again. Over the six
/// tiled cases of `stridekit bench --sweep 200 --seed 1 --sweep-max-bytes 64M` (four alternating rounds,
/// `--reuse-tile-bytes`): geometric mean 0.22 of the roofline untiled, 0.28 with 32 KiB tiles, 0.31 with 64 KiB,
/// 0.31 with 128 KiB, 0.28 with 256 KiB, 0.27 with 1 MiB (2026-11-25).
pub const DEFAULT_REUSE_TILE_BYTES: usize = 64 << 10;

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            threads: 0,
            parallel_min_bytes: DEFAULT_PARALLEL_MIN_BYTES,
            streaming: Self::default_streaming(),
            transpose_min_stride: DEFAULT_TRANSPOSE_MIN_STRIDE,
            simd: true,
            reuse_tile_bytes: DEFAULT_REUSE_TILE_BYTES,
        }
    }
}

impl ExecOptions {
    /// The defaults with `threads` threads.
    pub fn with_threads(threads: usize) -> Self {
        ExecOptions { threads, ..Self::default() }
    }

    /// The streaming thresholds of the defaults: this machine's profile when one applies
    /// ([`crate::loaded_profile`], written by `stridekit calibrate`), else [`StreamingRule::detected`]'s thresholds
    /// for the detected last-level cache.
    pub fn default_streaming() -> StreamingThresholds {
        crate::profile::loaded_profile()
            .streaming()
            .unwrap_or_else(|| StreamingRule::detected().thresholds(Self::last_level_cache_bytes()))
    }

    /// The number of threads a large copy is split over: [`threads`](Self::threads), or the size of rayon's global
    /// pool when that is 0.
    pub fn effective_threads(&self) -> usize {
        if self.threads == 0 { rayon::current_num_threads() } else { self.threads }
    }

    /// The size of the largest cache of CPU 0 (the last level, usually shared by all cores), as Linux reports it in
    /// `/sys/devices/system/cpu/cpu0/cache/index*/size`; read once per process. `None` elsewhere (and under Miri):
    /// the defaults of the streaming thresholds are then [`DEFAULT_NON_TEMPORAL_MIN_BYTES`] and an eighth of it.
    /// [`StreamingRule`] turns it into the thresholds.
    pub fn last_level_cache_bytes() -> Option<usize> {
        static DETECTED: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            if cfg!(miri) {
                return None;
            }
            let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
            dir.filter_map(|entry| std::fs::read_to_string(entry.ok()?.path().join("size")).ok())
                .filter_map(|text| parse_cache_size(&text))
                .max()
        })
    }

    /// The SIMD kernels copies run with these options on this CPU, as detected at run time: `"portable"` (no SIMD,
    /// or [`simd`](Self::simd) off), `"avx2"`, or `"avx2 + avx512vbmi"` (the table kernel's 64-byte passes and the
    /// short-row kernel's 64-byte permute too). Reports name it because the speed of those kernels depends on it.
    pub fn simd_kernels(&self) -> &'static str {
        crate::kernels::simd_kernels(self.simd)
    }

    /// Options that take every special path on tiny data: several threads, streaming stores, transposes from
    /// stride 2, tiles for source reuse from 256 bytes. For tests.
    pub fn exercise_all_paths(threads: usize) -> Self {
        ExecOptions {
            threads,
            parallel_min_bytes: 0,
            streaming: StreamingThresholds::ALWAYS,
            transpose_min_stride: 2,
            simd: true,
            reuse_tile_bytes: 256,
        }
    }
}

/// How the streaming thresholds follow from the last-level cache: early where a store that misses costs a read
/// for ownership of its line (Intel's server cores, and by default), late for the kernels that write contiguous
/// runs and for fills where the last-level cache absorbs ordinary stores up to about its size (AMD's Zen cores).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamingRule {
    /// Stream from a quarter of the last-level cache, at most [`DEFAULT_NON_TEMPORAL_MIN_BYTES`], and the bulk
    /// copy, the reverse and the gather from an eighth of that ([`CONTIGUOUS_STREAMING_DIVISOR`]). Measured on the
    /// Intel Xeons of `docs/PERFORMANCE.md` (the eleventh and thirty-first rounds); the rule for every CPU not known
    /// to be AMD's.
    EarlyStreaming,
    /// AMD (and Hygon) x86 cores: the bulk copy and fills stream from the size of the last-level cache, the
    /// reverse and the gather from a third of it ([`ZEN_CONTIGUOUS_DIVISOR`]), the other kernels as under the early
    /// rule. On a Zen 5 EPYC (2 vCPUs under KVM, 1 MiB of L2 per core, 32 MiB of L3; thirty-fifth round of
    /// `docs/PERFORMANCE.md`) ordinary stores beat streaming ones well beyond the early rule's 1 MiB: plain f32
    /// copies moving 4 / 8 / 16 / 32 MiB took 0.36 / 0.70 / 0.92 / 1.05 of their streamed time, reverses 0.51 /
    /// 0.94 / 1.37 / 1.16, stride-2 gathers 1.10 / 1.10 / 1.44 / 0.95 (three alternating rounds); the sweeps' fills
    /// moving 9-20 MiB 0.34-0.92, 24-29 MiB 0.84-1.08, 34-60 MiB 0.96-1.48. The other kernels keep the early
    /// threshold: a transpose whose streaming walk takes other tiles (NDHWC -> NCDHW of f16, 16 MiB moved) ran
    /// 4.6-5.3x slower with ordinary stores, rows of 128 bytes bottom-up (64 MiB) 1.7x.
    Zen,
}

/// The contiguous kernels' share of [`StreamingRule::EarlyStreaming`]'s threshold: from 1 MiB moved with the
/// default 8 MiB. On the Intel Xeon of `docs/PERFORMANCE.md`'s thirty-first round (2 MiB of L2 per core), the bulk
/// copies, reverses and gathers of seeds 1-4 that move 2-8 MiB ran in 0.77 of the time streamed (43 cases: reverses
/// 0.64, gathers 0.80, plain copies 0.82, copies under loops 0.86; roofline 0.66 -> 0.80, two runs of four
/// alternating rounds), those moving 1-2 MiB in 0.86 (31 cases) and plain copies of 8-12 MiB (which streamed from 12
/// MiB) in 0.87 (7 cases); those moving 0.25-1 MiB took 1.46x (32 cases: every bulk copy 1.6-2.0x), so the threshold
/// stays above them. The other kernels (tables, short rows, transposes, fills) did not gain below 8 MiB: streamed
/// from 2 MiB, their 94 cases of 2-8 MiB read 1.01-1.12x.
pub const CONTIGUOUS_STREAMING_DIVISOR: usize = 8;
/// [`StreamingRule::Zen`]: the reverse and the gather stream from a third of the last-level cache (the measured
/// crossovers: reverses at a quarter to a third of it, gathers at an eighth to a quarter; plain copies, at a half to
/// the whole of it, stream from the whole).
pub const ZEN_CONTIGUOUS_DIVISOR: usize = 3;

/// The bytes moved from which each kind of kernel streams its stores ([`ExecOptions::streaming`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamingThresholds {
    /// The bulk copy (contiguous runs on both sides), and any kernel but a fill whose replicated loops write at
    /// least half of the output (the replicas are bulk copies of its blocks).
    pub copy: usize,
    /// The reverse and the gather, which write each call's destination as one contiguous run (streamed lines are
    /// whole lines except at the run's two ends).
    pub contiguous: usize,
    /// Fills (a broadcast element or pattern).
    pub fill: usize,
    /// The kernels that write strided or assembled destinations: tables, short rows, transposes, interleaves,
    /// scatters.
    pub other: usize,
}

impl StreamingThresholds {
    /// Every kernel streams whatever it moves (tests, and the streaming copy of `stridekit bench`'s roofline).
    pub const ALWAYS: StreamingThresholds = StreamingThresholds::all(0);
    /// No kernel streams.
    pub const NEVER: StreamingThresholds = StreamingThresholds::all(usize::MAX);

    /// The same threshold for every kind of kernel.
    pub const fn all(bytes: usize) -> StreamingThresholds {
        StreamingThresholds { copy: bytes, contiguous: bytes, fill: bytes, other: bytes }
    }
}

impl StreamingRule {
    /// The rule for this CPU: [`Zen`](Self::Zen) when `/proc/cpuinfo` names AMD or Hygon as the vendor of an x86
    /// CPU, [`EarlyStreaming`](Self::EarlyStreaming) otherwise (other vendors, other architectures, Miri); read
    /// once per process.
    pub fn detected() -> StreamingRule {
        static DETECTED: std::sync::OnceLock<StreamingRule> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            if cfg!(miri) || !cfg!(target_arch = "x86_64") {
                return StreamingRule::EarlyStreaming;
            }
            std::fs::read_to_string("/proc/cpuinfo")
                .map_or(StreamingRule::EarlyStreaming, |text| StreamingRule::from_cpuinfo(&text))
        })
    }

    /// The rule for the first `vendor_id` line of a `/proc/cpuinfo` text.
    pub fn from_cpuinfo(text: &str) -> StreamingRule {
        let vendor = text
            .lines()
            .find_map(|line| line.split_once(':').filter(|(key, _)| key.trim() == "vendor_id"))
            .map(|(_, value)| value.trim());
        match vendor {
            Some("AuthenticAMD" | "HygonGenuine") => StreamingRule::Zen,
            _ => StreamingRule::EarlyStreaming,
        }
    }

    /// The thresholds for a last-level cache of `llc_bytes` (`None`: not detected, the early rule's 8 MiB and 1 MiB
    /// whatever the rule).
    pub fn thresholds(self, llc_bytes: Option<usize>) -> StreamingThresholds {
        let early = |nt: usize| StreamingThresholds {
            copy: nt / CONTIGUOUS_STREAMING_DIVISOR,
            contiguous: nt / CONTIGUOUS_STREAMING_DIVISOR,
            fill: nt,
            other: nt,
        };
        let share = |llc: usize| (llc / CACHE_SHARE_DIVISOR).min(DEFAULT_NON_TEMPORAL_MIN_BYTES);
        match (self, llc_bytes) {
            (_, None) => early(DEFAULT_NON_TEMPORAL_MIN_BYTES),
            (StreamingRule::EarlyStreaming, Some(llc)) => early(share(llc)),
            (StreamingRule::Zen, Some(llc)) => StreamingThresholds {
                copy: llc,
                contiguous: llc / ZEN_CONTIGUOUS_DIVISOR,
                fill: llc,
                other: share(llc),
            },
        }
    }
}

/// Parses a sysfs cache size (`"32768K"`, `"512K"`, `"1M"`, bytes without a suffix).
fn parse_cache_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, unit) = match text.as_bytes().last()? {
        b'K' => (&text[..text.len() - 1], 1 << 10),
        b'M' => (&text[..text.len() - 1], 1 << 20),
        b'G' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit).filter(|&b| b > 0)
}

// Not under Miri: safe code that runs no kernel (scripts/miri.sh says why).
#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;

    #[test]
    fn streams_early_from_a_quarter_of_a_small_cache_and_8_mib_of_a_large_one() {
        let early = |llc| StreamingRule::EarlyStreaming.thresholds(Some(llc));
        let t = |copy, fill| StreamingThresholds { copy, contiguous: copy, fill, other: fill };
        assert_eq!(early(16 << 20), t(512 << 10, 4 << 20));
        assert_eq!(early(32 << 20), t(1 << 20, 8 << 20));
        assert_eq!(early(260 << 20), t(1 << 20, 8 << 20));
    }

    #[test]
    fn zen_streams_copies_and_fills_from_the_cache_size_and_contiguous_runs_from_a_third_of_it() {
        let llc = 32 << 20;
        let t = StreamingThresholds { copy: llc, contiguous: llc / 3, fill: llc, other: 8 << 20 };
        assert_eq!(StreamingRule::Zen.thresholds(Some(llc)), t);
        // Without a detected cache every rule falls back to the early rule's defaults.
        let default = StreamingThresholds { copy: 1 << 20, contiguous: 1 << 20, fill: 8 << 20, other: 8 << 20 };
        for rule in [StreamingRule::Zen, StreamingRule::EarlyStreaming] {
            assert_eq!(rule.thresholds(None), default);
        }
        // A small last-level cache caps the strided kernels' threshold at a quarter of it, as under the early rule.
        assert_eq!(StreamingRule::Zen.thresholds(Some(16 << 20)).other, 4 << 20);
    }

    #[test]
    fn the_rule_follows_the_vendor_in_cpuinfo() {
        let cpuinfo = |vendor: &str| format!("processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: 26\n");
        assert_eq!(StreamingRule::from_cpuinfo(&cpuinfo("AuthenticAMD")), StreamingRule::Zen);
        assert_eq!(StreamingRule::from_cpuinfo(&cpuinfo("HygonGenuine")), StreamingRule::Zen);
        assert_eq!(StreamingRule::from_cpuinfo(&cpuinfo("GenuineIntel")), StreamingRule::EarlyStreaming);
        assert_eq!(StreamingRule::from_cpuinfo("processor : 0\n"), StreamingRule::EarlyStreaming);
        assert_eq!(StreamingRule::from_cpuinfo(""), StreamingRule::EarlyStreaming);
    }

    #[test]
    fn names_the_simd_kernels_it_runs() {
        let off = ExecOptions { simd: false, ..ExecOptions::default() };
        assert_eq!(off.simd_kernels(), "portable");
        let on = ExecOptions::default().simd_kernels();
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        let expected = match (avx2, crate::kernels::wide_permutes()) {
            (true, true) => "avx2 + avx512vbmi",
            (true, false) => "avx2",
            (false, _) => "portable",
        };
        assert_eq!(on, expected);
    }

    #[test]
    fn parses_sysfs_cache_sizes() {
        assert_eq!(parse_cache_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_cache_size("1M"), Some(1 << 20));
        assert_eq!(parse_cache_size("4096"), Some(4096));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size("0K"), None);
        assert_eq!(parse_cache_size(""), None);
    }
}
