//! `stridekit bench`: time Slice1 cases on this machine against their roofline.
//!
//! Cases come from a case file (`--cases`, the schema of [`stridekit::ops::case`]), from the single-case flags, or
//! from a random sweep (`--sweep N --seed S`, [`sweep`]). Per case: check that its buffers fit the memory available,
//! fill the input with the case files' pattern, compile a `PreparedSlice1`, run it once, verify the whole output
//! buffer against the model's naive reference (and the case's `expect`, when given), then time it against the best
//! copy this machine does over the bytes the case must move ([`roofline`]).
//!
//! Bounds: at most [`MAX_REPS`] samples per case, [`MAX_SWEEP`] sweep cases, [`MAX_WORST`] worst cases; case files
//! are regular files of at most [`cases::MAX_CASE_FILE_BYTES`]; a run estimated to take more than a minute says so
//! before it starts, and every case reports its progress on stderr.

mod cases;
mod gpu;
pub(crate) mod measure;
mod report;
mod roofline;
mod sweep;

use crate::commands::slice::Device;
use crate::error::CliError;
use crate::resources;
use clap::Args;
use measure::Timing;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use stridekit::ops::case::Slice1Case;
use stridekit::ops::traffic::Traffic;
use stridekit::{Slice1Desc, Slice1Plan};
use stridekit_cpu::{ExecOptions, PreparedSlice1, StreamingThresholds};

/// The most timed samples per case.
pub const MAX_REPS: usize = 1000;
/// The most cases a sweep draws.
pub const MAX_SWEEP: usize = 10_000;
/// The most worst cases listed.
pub const MAX_WORST: usize = 1000;

/// Arguments of `stridekit bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// A JSON case file (the schema of bench/cases.json, or a bare list of its cases). Without it, one case is read from the flags below.
    #[arg(long)]
    pub cases: Option<PathBuf>,
    /// Run only these cases of the file (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Time N random valid cases over the whole Slice1 space instead (at most 10000).
    #[arg(long, value_name = "N")]
    pub sweep: Option<usize>,
    /// The sweep's seed: the same seed draws the same cases on every machine.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The sweep's smallest output (bytes, or with K, M, G).
    #[arg(long, default_value = "256K", value_name = "SIZE")]
    pub sweep_min_bytes: String,
    /// The sweep's largest output (bytes, or with K, M, G; also bounded by the memory available).
    #[arg(long, default_value = "512M", value_name = "SIZE")]
    pub sweep_max_bytes: String,
    /// How many of the slowest cases (by roofline) to list in the case-file schema after a sweep.
    #[arg(long, default_value_t = 10)]
    pub worst: usize,
    /// Write those worst cases to this case file.
    #[arg(long, value_name = "FILE")]
    pub save_worst: Option<PathBuf>,
    /// Timed samples per case (at least 10 are taken, at most 1000).
    #[arg(long, default_value_t = 10)]
    pub reps: usize,
    /// Threads (0 = every thread of the pool).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Override every streaming threshold of ExecOptions::streaming (bytes moved, written plus read, from which
    /// streaming stores are used; bytes, or with K, M, G, T, as every size flag here); `--nt-copy-min-bytes`,
    /// `--nt-contiguous-min-bytes` and `--nt-fill-min-bytes` then override their kernels' own.
    #[arg(long, value_name = "SIZE")]
    pub nt_min_bytes: Option<String>,
    /// Override the streaming threshold of the bulk copy alone (ExecOptions::streaming.copy; also the threshold of
    /// a kernel whose replicated loops write at least half of the output).
    #[arg(long, value_name = "SIZE")]
    pub nt_copy_min_bytes: Option<String>,
    /// Override the streaming threshold of the reverse and the gather alone (ExecOptions::streaming.contiguous).
    #[arg(long, value_name = "SIZE")]
    pub nt_contiguous_min_bytes: Option<String>,
    /// Override the streaming threshold of fills alone (ExecOptions::streaming.fill).
    #[arg(long, value_name = "SIZE")]
    pub nt_fill_min_bytes: Option<String>,
    /// Override ExecOptions::parallel_min_bytes (bytes moved, written plus read, from which the copy is split over
    /// threads).
    #[arg(long, value_name = "SIZE")]
    pub parallel_min_bytes: Option<String>,
    /// Override ExecOptions::reuse_tile_bytes (the cache bytes a tile of a copy whose outer loops read again what
    /// they read may fill).
    #[arg(long, value_name = "SIZE")]
    pub reuse_tile_bytes: Option<String>,
    /// The memory a case may use (bytes, or with K, M, G, T), instead of MemAvailable.
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<String>,
    /// Where the cases run: this machine's cores (against the roofline), or a GPU through wgpu (against the device's
    /// own buffer copy; `--reps` is then the number of calls per timed batch, at most 100).
    #[arg(long, value_enum, default_value_t = Device::Cpu)]
    pub device: Device,
    /// Time each case's calls back to back, then its baseline copy's, as the peer harness (../shared/bench) times
    /// NumPy, ndarray and memcpy, instead of alternating the case with the copy. Repeating a case keeps its buffers
    /// warm: a copy that fits the last-level cache then reads and writes it there. For comparisons with the peers'
    /// figures; the default alternation judges every case and its copy under the same evictions.
    #[arg(long)]
    pub back_to_back: bool,
    /// Print one JSON object per case (and a summary line) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Validate every case and print its size and the program the CPU planner compiles for it (with the options
    /// given), without allocating buffers or timing anything. With `--json`, print the validated cases as a case file
    /// instead (a sweep's cases can then be kept, edited and re-run with `--cases`).
    #[arg(long)]
    pub check: bool,
    /// Single case: its name in the report.
    #[arg(long)]
    pub name: Option<String>,
    /// Single case: data type (f32, float16, UINT8, ...).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Single case: input sizes, e.g. 1,1,4,4.
    #[arg(long)]
    pub input_sizes: Option<String>,
    /// Single case: input strides in elements (default packed).
    #[arg(long)]
    pub input_strides: Option<String>,
    /// Single case: InputWindowOffsets (default: zeros).
    #[arg(long)]
    pub offsets: Option<String>,
    /// Single case: InputWindowSizes (default: the rest of each dimension from its offset).
    #[arg(long)]
    pub sizes: Option<String>,
    /// Single case: InputWindowStrides, signed (default: ones).
    #[arg(long, allow_hyphen_values = true)]
    pub strides: Option<String>,
    /// Single case: output sizes (default: MaxCopiedElements = 1 + (size - 1) / |stride| per dimension).
    #[arg(long)]
    pub output_sizes: Option<String>,
    /// Single case: output strides in elements (default packed).
    #[arg(long)]
    pub output_strides: Option<String>,
}

impl BenchArgs {
    /// The single-case flags given, by name.
    fn single_case_flags(&self) -> Vec<&'static str> {
        [
            ("--name", self.name.is_some()),
            ("--dtype", self.dtype.is_some()),
            ("--input-sizes", self.input_sizes.is_some()),
            ("--input-strides", self.input_strides.is_some()),
            ("--offsets", self.offsets.is_some()),
            ("--sizes", self.sizes.is_some()),
            ("--strides", self.strides.is_some()),
            ("--output-sizes", self.output_sizes.is_some()),
            ("--output-strides", self.output_strides.is_some()),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect()
    }

    /// Refuses contradictory sources and unbounded counts before anything is read or allocated.
    fn check(&self) -> Result<(), CliError> {
        let single = self.single_case_flags();
        let source = match (&self.cases, self.sweep) {
            (Some(_), Some(_)) => return Err(CliError::Args("--cases and --sweep cannot be combined".into())),
            (Some(_), None) => Some("--cases"),
            (None, Some(_)) => Some("--sweep"),
            (None, None) => None,
        };
        if let (Some(source), Some(flag)) = (source, single.first()) {
            return Err(CliError::Args(format!(
                "{flag} describes a single case and cannot be combined with {source} (which gives the cases); \
                 drop one of them"
            )));
        }
        if self.back_to_back && self.device == Device::Gpu {
            return Err(CliError::Args(
                "--back-to-back times CPU calls; --device gpu times batches of calls on the device already".into(),
            ));
        }
        if !self.only.is_empty() && self.cases.is_none() {
            return Err(CliError::Args("--only selects cases of a --cases file".into()));
        }
        if self.reps > MAX_REPS {
            return Err(CliError::Args(format!(
                "--reps {} is too many: at most {MAX_REPS} timed samples per case (each lasts at least a \
                 millisecond; 10 to 30 give a stable median)",
                self.reps
            )));
        }
        match self.sweep {
            Some(0) => return Err(CliError::Args("--sweep 0: give at least one case".into())),
            Some(n) if n > MAX_SWEEP => {
                return Err(CliError::Args(format!("--sweep {n} is too many: at most {MAX_SWEEP} cases")));
            }
            _ => {}
        }
        if self.worst > MAX_WORST {
            return Err(CliError::Args(format!("--worst {} is too many: at most {MAX_WORST}", self.worst)));
        }
        Ok(())
    }
}

/// A case ready to run.
struct Prepared {
    case: Slice1Case,
    desc: Slice1Desc,
    plan: Slice1Plan,
    traffic: Traffic,
    memory: u64,
}

/// Runs `stridekit bench`.
pub fn run(args: &BenchArgs) -> Result<ExitCode, CliError> {
    args.check()?;
    let options = exec_options(args)?;
    let limit = resources::memory_limit(args.max_memory.as_deref().map(resources::parse_max_memory).transpose()?);
    let cases = match args.sweep {
        Some(n) => {
            let min = resources::parse_bytes("--sweep-min-bytes", &args.sweep_min_bytes)?.max(64);
            let max = resources::parse_bytes("--sweep-max-bytes", &args.sweep_max_bytes)?;
            if max < min {
                return Err(CliError::Args(format!("--sweep-max-bytes {max} is below --sweep-min-bytes {min}")));
            }
            // A case holds its input, its output twice, and a copy of as many lines as both: with outputs and
            // inputs up to a sixth of what is available, every drawn case passes the memory check below.
            let budget = limit.bytes / 6;
            let max_out = max.min(budget.max(min));
            sweep::generate(
                args.seed,
                n,
                sweep::Limits {
                    min_out_bytes: min,
                    max_out_bytes: max_out,
                    max_in_bytes: max_out.saturating_mul(4).min(budget.max(min)),
                },
            )
        }
        None => cases::load(args)?,
    };
    // Validate every case before timing any, so that an invalid one fails fast with the library's error.
    let prepared = cases.into_iter().map(prepare).collect::<Result<Vec<_>, CliError>>()?;
    if args.check {
        let mut out = std::io::stdout().lock();
        if args.json {
            let cases: Vec<Slice1Case> = prepared.iter().map(|p| p.case.clone()).collect();
            let note = match args.sweep {
                Some(n) => format!("stridekit bench --sweep {n} --seed {}, validated", args.seed),
                None => "validated by stridekit bench --check".to_owned(),
            };
            write!(out, "{}", report::case_file(&cases, &note))?;
            return Ok(ExitCode::SUCCESS);
        }
        for p in &prepared {
            let elements = p.plan.element_count();
            let bytes = 2 * elements * p.plan.element_size() as u64;
            // The program the CPU planner compiles for this machine and these options, as the timed rows name it,
            // so that a planner change can be checked against a case file without timing it.
            let program = PreparedSlice1::new(&p.plan, options.clone())?.describe();
            writeln!(
                out,
                "{}: valid, {elements} output elements, {:.1} MiB moved, {:.1} MiB of lines; plan: {program}",
                report::escape(&p.case.name),
                bytes as f64 / (1 << 20) as f64,
                p.traffic.bytes() as f64 / (1 << 20) as f64
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    // Memory: refuse before allocating anything, with both numbers.
    for p in &prepared {
        resources::check_memory(
            &format!("case '{}' (input, output, reference output and copy baseline)", report::escape(&p.case.name)),
            p.memory,
            &limit,
        )?;
    }
    if args.device == Device::Gpu {
        return run_gpu(args, &prepared);
    }
    let reps = args.reps.clamp(10, MAX_REPS);
    // The machine, as the planner sees it: the figures PERFORMANCE.md quotes with every table.
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    let llc = ExecOptions::last_level_cache_bytes()
        .map_or_else(|| "not detected".to_string(), |b| format!("{:.1} MiB", mib(b)));
    let defaults = ExecOptions::default();
    let nt = defaults.streaming;
    eprintln!(
        "machine: {} threads, last-level cache {llc} (detected); streaming stores ({}) from {:.1} MiB moved \
         for plain copies, {:.1} for reverses and gathers, {:.1} for fills, {:.1} for the others; {} kernels",
        defaults.effective_threads(),
        stridekit_cpu::loaded_profile().describe(),
        mib(nt.copy),
        mib(nt.contiguous),
        mib(nt.fill),
        mib(nt.other),
        defaults.simd_kernels()
    );
    announce(&prepared, reps);
    let timing = if args.back_to_back {
        eprintln!("timing: each case's calls back to back, then its copy's (--back-to-back, as the peer harness)");
        Timing::BackToBack
    } else {
        Timing::Interleaved
    };
    let mut rows = Vec::with_capacity(prepared.len());
    let mut out = std::io::stdout().lock();
    let n = prepared.len();
    for (i, p) in prepared.iter().enumerate() {
        let name = report::escape(&p.case.name);
        eprintln!("[{}/{n}] {name} ...", i + 1);
        let row = measure::bench_case(&p.case, &p.desc, &p.plan, &options, reps, timing)?;
        eprintln!(
            "[{}/{n}] {name}: {:.3} ms, {:.2} GB/s useful, roofline {:.3} (best copy: {} {:.2} GB/s){}",
            i + 1,
            row.median_s * 1e3,
            row.gbps(),
            row.roofline,
            row.copy.kind,
            row.copy.gbps,
            if row.ok() { "" } else { "  WRONG RESULT" }
        );
        if args.json {
            writeln!(out, "{}", report::json_line(&row))?;
            out.flush()?;
        }
        rows.push(row);
    }
    let worst = args.sweep.map(|_| {
        let note = format!("the {} worst of stridekit bench --sweep {n} --seed {} by roofline", args.worst, args.seed);
        report::case_file(&report::worst(&rows, args.worst), &note)
    });
    if let (Some(path), Some(text)) = (&args.save_worst, &worst) {
        // Atomically, as every file the CLI writes: an interrupted run leaves the old file or none.
        let mut registration = None;
        stridekit_npy::write_file_atomically(path, text.as_bytes(), |temp| {
            registration = Some(crate::signals::register(temp));
        })?;
        drop(registration);
    }
    if args.json {
        if rows.len() > 1 || worst.is_some() {
            writeln!(out, "{}", report::summary_json(&rows, worst.as_deref()))?;
        }
    } else {
        report::table(&mut out, &rows)?;
        if rows.len() > 1 || worst.is_some() {
            report::summary(&mut out, &rows, worst.as_deref())?;
        }
    }
    Ok(if rows.iter().all(measure::Row::ok) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The execution options the flags ask for: the pool's threads and every override of ExecOptions' thresholds
/// (`--nt-*-min-bytes`, `--parallel-min-bytes`, `--reuse-tile-bytes`; bytes, or with K, M, G, T as every size flag
/// of the command line), parsed before any case is prepared so that a bad value fails first.
fn exec_options(args: &BenchArgs) -> Result<ExecOptions, CliError> {
    let mut options = ExecOptions::with_threads(args.threads);
    if let Some(v) = size_flag("--nt-min-bytes", &args.nt_min_bytes)? {
        options.streaming = StreamingThresholds::all(v);
    }
    let nt = &mut options.streaming;
    for (flag, text, field) in [
        ("--nt-copy-min-bytes", &args.nt_copy_min_bytes, &mut nt.copy),
        ("--nt-contiguous-min-bytes", &args.nt_contiguous_min_bytes, &mut nt.contiguous),
        ("--nt-fill-min-bytes", &args.nt_fill_min_bytes, &mut nt.fill),
    ] {
        if let Some(v) = size_flag(flag, text)? {
            *field = v;
        }
    }
    if let Some(v) = size_flag("--parallel-min-bytes", &args.parallel_min_bytes)? {
        options.parallel_min_bytes = v;
    }
    if let Some(v) = size_flag("--reuse-tile-bytes", &args.reuse_tile_bytes)? {
        options.reuse_tile_bytes = v;
    }
    Ok(options)
}

/// A size flag's value as a byte count of this machine's `usize` (see [`resources::parse_bytes`]).
fn size_flag(flag: &str, text: &Option<String>) -> Result<Option<usize>, CliError> {
    let Some(text) = text else { return Ok(None) };
    let bytes = resources::parse_bytes(flag, text)?;
    usize::try_from(bytes)
        .map(Some)
        .map_err(|_| CliError::Args(format!("{flag} '{text}' is {bytes} bytes, more than this machine can address")))
}

/// `--device gpu`: every case on the GPU, verified, against the device's buffer copy.
fn run_gpu(args: &BenchArgs, prepared: &[Prepared]) -> Result<ExitCode, CliError> {
    if args.sweep.is_some() {
        return Err(CliError::Args(
            "--sweep times cases against this machine's roofline; it runs on --device cpu only".into(),
        ));
    }
    let ctx = stridekit_wgpu::GpuContext::shared()?;
    let adapter = ctx.adapter().to_string();
    eprintln!("device: gpu, adapter: {adapter}");
    let batch = u32::try_from(args.reps).unwrap_or(gpu::MAX_BATCH);
    let mut out = std::io::stdout().lock();
    let mut rows = Vec::with_capacity(prepared.len());
    let n = prepared.len();
    for (i, p) in prepared.iter().enumerate() {
        let name = report::escape(&p.case.name);
        eprintln!("[{}/{n}] {name} ...", i + 1);
        let row = gpu::bench_case(ctx, &p.case, &p.desc, &p.plan, batch)?;
        if args.json {
            writeln!(out, "{}", gpu::json_line(&row))?;
            out.flush()?;
        }
        rows.push(row);
    }
    if !args.json {
        gpu::table(&mut out, &adapter, &rows)?;
    }
    Ok(if rows.iter().all(gpu::GpuRow::ok) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn prepare(case: Slice1Case) -> Result<Prepared, CliError> {
    let desc = case.desc()?;
    let plan = desc.validate()?;
    if let Some(expect) = &case.expect
        && expect.len() as u64 != plan.element_count()
    {
        return Err(CliError::Args(format!(
            "case '{}': \"expect\" lists {} values but the output has {} elements",
            report::escape(&case.name),
            expect.len(),
            plan.element_count()
        )));
    }
    let traffic = Traffic::of_slice1(&plan);
    let memory = measure::memory_needed(&desc, &traffic);
    Ok(Prepared { case, desc, plan, traffic, memory })
}

/// Says up front when a run will take long: an estimate from the bytes it moves at a pessimistic 1 GB/s (the
/// case, the copy baseline, the reference), with a few milliseconds per sample for tiny cases.
fn announce(prepared: &[Prepared], reps: usize) {
    let seconds = estimate_seconds(prepared, reps);
    if seconds > 60.0 {
        eprintln!(
            "note: {} case(s), {reps} samples each: this run may take about {:.0} minutes; progress follows",
            prepared.len(),
            (seconds / 60.0).ceil()
        );
    }
}

/// The pessimistic duration [`announce`] reports.
fn estimate_seconds(prepared: &[Prepared], reps: usize) -> f64 {
    prepared
        .iter()
        .map(|p| {
            let bytes = (p.traffic.bytes() + 2 * p.plan.element_count() * p.plan.element_size() as u64) as f64;
            let per_sample = (bytes / 1e9).max(1e-3);
            // Selection (4 kinds, reps/3 samples), interleaved timing (2 x reps), the reference (~20 ns/element).
            per_sample * (4.0 * (reps / 3).max(3) as f64 + 2.0 * reps as f64) + p.plan.element_count() as f64 * 20e-9
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use stridekit::DataType;

    fn case(out: u32) -> Slice1Case {
        Slice1Case {
            name: "c".into(),
            dtype: DataType::Float32,
            in_sizes: vec![out],
            in_strides: None,
            window_offsets: vec![0],
            window_sizes: vec![out],
            window_strides: vec![1],
            out_sizes: vec![out],
            out_strides: None,
            note: None,
            expect: None,
        }
    }

    #[test]
    fn long_runs_are_announced() {
        // 512 MiB of output at 1000 samples: far above a minute. The doc case at 10 samples: well below.
        let big = [prepare(case(128 << 20)).unwrap()];
        assert!(estimate_seconds(&big, 1000) > 600.0);
        assert!(estimate_seconds(&big, 10) > 10.0);
        let tiny = [prepare(case(16)).unwrap()];
        assert!(estimate_seconds(&tiny, 10) < 1.0);
        // Memory: input, output, reference output, and the baseline's two buffers of half the lines moved.
        assert_eq!(big[0].memory, 3 * (512 << 20) + (512 << 20) * 2 + 3 * 64);
    }
}
