//! `stridekit bench`: time Slice1 cases on this machine against a memcpy of the same bytes.
//!
//! Cases come from a JSON file with the schema of `bench/cases.json` (`{"cases": [{name, dtype, in_sizes,
//! in_strides, window_offsets, window_sizes, window_strides, out_sizes, out_strides}, ...]}` or a bare list of
//! cases, strides null = packed) or from flags for a single case (the window flags default as in `stridekit
//! slice`: the whole input, unit strides). Per case: fill the input with a deterministic non-constant pattern,
//! compile a [`PreparedSlice1`], warm up, verify the whole output buffer once against the testkit reference, time
//! at least `--reps` samples (each a batch of calls lasting about a millisecond, so the clock does not dominate tiny
//! cases), and time a single-thread memcpy of the output's element bytes right before and right after.
//! GB/s counts bytes read plus bytes written: 2 x output element bytes.

use crate::error::CliError;
use crate::parse;
use crate::window::{self, WindowFlags};
use clap::Args;
use serde::Deserialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
use stridekit_cpu::{CpuBuffer, ExecOptions, PreparedSlice1};

/// Arguments of `stridekit bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// A JSON case file (the schema of bench/cases.json, or a bare list of its cases). Without it, one case is read from the flags below.
    #[arg(long)]
    pub cases: Option<PathBuf>,
    /// Run only these cases of the file (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Timed samples per case (at least 10 are taken).
    #[arg(long, default_value_t = 10)]
    pub reps: usize,
    /// Threads (0 = every thread of the pool).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Override ExecOptions::non_temporal_min_bytes (output bytes from which streaming stores are used).
    #[arg(long)]
    pub nt_min_bytes: Option<usize>,
    /// Override ExecOptions::parallel_min_bytes (output bytes from which the copy is split over threads).
    #[arg(long)]
    pub parallel_min_bytes: Option<usize>,
    /// Print one JSON object per case instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Validate every case and print its size, without allocating buffers or timing anything.
    #[arg(long)]
    pub check: bool,
    /// Single case: its name in the report.
    #[arg(long, default_value = "cli")]
    pub name: String,
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

/// One case of the case file.
#[derive(Debug, Clone, Deserialize)]
struct Case {
    name: String,
    dtype: String,
    in_sizes: Vec<u32>,
    in_strides: Option<Vec<u32>>,
    window_offsets: Vec<u32>,
    window_sizes: Vec<u32>,
    window_strides: Vec<i32>,
    out_sizes: Vec<u32>,
    out_strides: Option<Vec<u32>>,
}

#[derive(Debug, Deserialize)]
struct CaseFile {
    cases: Vec<Case>,
}

/// The measurements of one case.
struct Row {
    name: String,
    dtype: DataType,
    median_s: f64,
    bytes_moved: u64,
    memcpy_gbps: f64,
    threads: usize,
    verified: bool,
}

impl Row {
    fn gbps(&self) -> f64 {
        self.bytes_moved as f64 / self.median_s / 1e9
    }
}

/// Runs `stridekit bench`.
pub fn run(args: &BenchArgs) -> Result<ExitCode, CliError> {
    let cases = load_cases(args)?;
    // Validate every case before timing any, so that an invalid one fails fast with the library's error.
    let descs = cases.iter().map(|c| Ok((c.name.clone(), describe(c)?))).collect::<Result<Vec<_>, CliError>>()?;
    if args.check {
        let mut out = std::io::stdout().lock();
        for (name, desc) in &descs {
            let elements: u64 = desc.output.sizes.iter().map(|&n| u64::from(n)).product();
            let bytes = 2 * elements * u64::from(desc.output.data_type.size_in_bytes_rounded_up());
            writeln!(
                out,
                "{name}: valid, {elements} output elements, {:.1} MiB moved",
                bytes as f64 / (1 << 20) as f64
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut options = ExecOptions::with_threads(args.threads);
    if let Some(v) = args.nt_min_bytes {
        options.non_temporal_min_bytes = v;
    }
    if let Some(v) = args.parallel_min_bytes {
        options.parallel_min_bytes = v;
    }
    let mut rows = Vec::with_capacity(descs.len());
    let mut out = std::io::stdout().lock();
    for (i, (name, desc)) in descs.iter().enumerate() {
        eprintln!("[{}/{}] {name} ...", i + 1, descs.len());
        let row = bench_case(name, desc, &options, args.reps.max(10))?;
        eprintln!(
            "[{}/{}] {name}: {:.3} ms, {:.2} GB/s ({:.2}x memcpy){}",
            i + 1,
            descs.len(),
            row.median_s * 1e3,
            row.gbps(),
            row.gbps() / row.memcpy_gbps,
            if row.verified { "" } else { "  WRONG RESULT" }
        );
        if args.json {
            let line = serde_json::json!({
                "case": row.name,
                "median_s": row.median_s,
                "gbps": row.gbps(),
                "bytes_moved": row.bytes_moved,
                "memcpy_gbps": row.memcpy_gbps,
                "ratio_memcpy": row.gbps() / row.memcpy_gbps,
                "threads": row.threads,
                "verified": row.verified,
            });
            writeln!(out, "{line}")?;
            out.flush()?;
        }
        rows.push(row);
    }
    if !args.json {
        print_table(&mut out, &rows)?;
    }
    Ok(if rows.iter().all(|r| r.verified) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn load_cases(args: &BenchArgs) -> Result<Vec<Case>, CliError> {
    let Some(path) = &args.cases else {
        // One case from flags; the window flags default as in `stridekit slice` (the whole input, unit strides).
        let (Some(dtype), Some(in_sizes)) = (&args.dtype, &args.input_sizes) else {
            return Err(CliError::Args("bench needs --cases FILE, or --dtype and --input-sizes for one case".into()));
        };
        let in_sizes = parse::u32_list("--input-sizes", in_sizes)?;
        let optional = |flag: &str, v: &Option<String>| v.as_deref().map(|t| parse::u32_list(flag, t)).transpose();
        let flags = WindowFlags {
            offsets: args.offsets.as_deref(),
            sizes: args.sizes.as_deref(),
            strides: args.strides.as_deref(),
            output_sizes: args.output_sizes.as_deref(),
        };
        let p = window::resolve(flags, &in_sizes)?;
        let (window_offsets, window_sizes, window_strides, out_sizes) =
            (p.input_window_offsets, p.input_window_sizes, p.input_window_strides, p.output_sizes);
        return Ok(vec![Case {
            name: args.name.clone(),
            dtype: dtype.clone(),
            in_strides: optional("--input-strides", &args.input_strides)?,
            in_sizes,
            window_offsets,
            window_sizes,
            window_strides,
            out_sizes,
            out_strides: optional("--output-strides", &args.output_strides)?,
        }]);
    };
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Io { path: path.clone(), source })?;
    let not_cases = |e: serde_json::Error| CliError::Args(format!("{}: not a bench case file: {e}", path.display()));
    // Either the harness's `{"cases": [...]}` or a bare list of cases.
    let value: serde_json::Value = serde_json::from_str(&text).map_err(not_cases)?;
    let mut cases = if value.is_array() {
        serde_json::from_value::<Vec<Case>>(value).map_err(not_cases)?
    } else {
        serde_json::from_value::<CaseFile>(value).map_err(not_cases)?.cases
    };
    if !args.only.is_empty() {
        if let Some(missing) = args.only.iter().find(|n| !cases.iter().any(|c| &c.name == *n)) {
            return Err(CliError::Args(format!("--only: no case named '{missing}' in {}", path.display())));
        }
        cases.retain(|c| args.only.contains(&c.name));
    }
    Ok(cases)
}

fn describe(c: &Case) -> Result<Slice1Desc, CliError> {
    let dt = parse::data_type(&c.dtype)?;
    let desc = Slice1Desc {
        input: BufferTensorDesc::new(dt, &c.in_sizes, c.in_strides.as_deref())?,
        output: BufferTensorDesc::new(dt, &c.out_sizes, c.out_strides.as_deref())?,
        input_window_offsets: c.window_offsets.clone(),
        input_window_sizes: c.window_sizes.clone(),
        input_window_strides: c.window_strides.clone(),
    };
    desc.validate()?;
    Ok(desc)
}

/// Fills `buf` with the pattern of bench/cases.json: element i holds f32 `(i % 16777213) + 1`, f16
/// `(i % 2039) + 1`, u8 `(i % 251) + 1`, i64 `(i + 1) * 1000003`; other types the low bytes of
/// `(i + 1) * 0x9E3779B97F4A7C15`.
fn fill_input(buf: &mut [u8], dt: DataType) {
    let e = dt.size_in_bytes_rounded_up() as usize;
    for (i, chunk) in buf.chunks_exact_mut(e).enumerate() {
        let i = i as u64;
        match dt {
            DataType::Float32 => chunk.copy_from_slice(&(((i % 16_777_213) + 1) as f32).to_le_bytes()),
            DataType::Float16 => chunk.copy_from_slice(&half::f16::from_f32(((i % 2039) + 1) as f32).to_le_bytes()),
            DataType::Uint8 => chunk[0] = ((i % 251) + 1) as u8,
            DataType::Int64 => chunk.copy_from_slice(&((i + 1) as i64).wrapping_mul(1_000_003).to_le_bytes()),
            _ => chunk.copy_from_slice(&(i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15).to_le_bytes()[..e]),
        }
    }
}

/// Calls `f` in batches so that each batch lasts at least about a millisecond; returns the median seconds per call
/// over `reps` batches.
fn time_per_call(reps: usize, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    f();
    let once = start.elapsed().as_secs_f64().max(1e-9);
    let batch = ((1e-3 / once).ceil() as usize).clamp(1, 1 << 22);
    let mut samples: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..batch {
                f();
            }
            t.elapsed().as_secs_f64() / batch as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn memcpy_gbps(src: &[u8], dst: &mut [u8], reps: usize) -> f64 {
    let t = time_per_call(reps, || {
        dst.copy_from_slice(std::hint::black_box(src));
        std::hint::black_box(&mut *dst);
    });
    2.0 * src.len() as f64 / t / 1e9
}

fn bench_case(name: &str, desc: &Slice1Desc, options: &ExecOptions, reps: usize) -> Result<Row, CliError> {
    let plan = desc.validate()?;
    let op = PreparedSlice1::new(&plan, options.clone()).map_err(|e| CliError::Args(e.to_string()))?;
    let mut input = CpuBuffer::zeroed(desc.input.total_tensor_size_in_bytes as usize);
    fill_input(input.as_bytes_mut(), desc.input.data_type);
    let out_len = desc.output.total_tensor_size_in_bytes as usize;
    let mut output = CpuBuffer::zeroed(out_len);
    let run = |output: &mut CpuBuffer| op.execute(input.as_bytes(), output.as_bytes_mut());
    run(&mut output).map_err(|e| CliError::Args(e.to_string()))?;
    let mut expected = vec![0u8; out_len];
    stridekit_testkit::slice1_reference(desc, input.as_bytes(), &mut expected)
        .map_err(|e| CliError::Args(e.to_string()))?;
    let verified = output.as_bytes() == expected.as_slice();
    drop(expected);
    let out_bytes = plan.element_count() as usize * plan.element_size();
    let (copy_src, mut copy_dst) = (vec![1u8; out_bytes], vec![0u8; out_bytes]);
    let before = memcpy_gbps(&copy_src, &mut copy_dst, reps);
    let median_s = time_per_call(reps, || {
        // The plan and buffers were checked by the first run: later runs cannot fail.
        let _ = run(&mut output);
    });
    let after = memcpy_gbps(&copy_src, &mut copy_dst, reps);
    Ok(Row {
        name: name.to_string(),
        dtype: desc.input.data_type,
        median_s,
        bytes_moved: 2 * out_bytes as u64,
        memcpy_gbps: (before + after) / 2.0,
        threads: options.effective_threads(),
        verified,
    })
}

fn print_table(out: &mut impl Write, rows: &[Row]) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<22} {:<8} {:>10} {:>12} {:>9} {:>11} {:>9} {:>7} {:>8}",
        "case", "dtype", "MiB moved", "median", "GB/s", "memcpy GB/s", "x memcpy", "threads", "verified"
    )?;
    for r in rows {
        let median = if r.median_s < 1e-3 {
            format!("{:.1} ns", r.median_s * 1e9)
        } else {
            format!("{:.3} ms", r.median_s * 1e3)
        };
        writeln!(
            out,
            "{:<22} {:<8} {:>10.1} {:>12} {:>9.2} {:>11.2} {:>9.2} {:>7} {:>8}",
            r.name,
            r.dtype.name(),
            r.bytes_moved as f64 / (1 << 20) as f64,
            median,
            r.gbps(),
            r.memcpy_gbps,
            r.gbps() / r.memcpy_gbps,
            r.threads,
            if r.verified { "yes" } else { "NO" }
        )?;
    }
    Ok(())
}
