//! `stridekit slice IN.npy OUT.npy`: DirectML Slice1 on NumPy files.
//!
//! Decisions where the issue and SPEC are silent:
//! - A missing `--sizes` means the rest of each dimension from its offset (the whole input when offsets are 0); an
//!   offset that leaves no rest is an error that says the size was a default (see [`crate::window`]).
//! - A 0-d input array is read as sizes `{1}` (DirectML has no rank 0).
//! - Empty results (D11): the explicit window flags reject an empty window as DirectML does; the NumPy and ONNX
//!   front ends and the default window (no window flags) give an empty result only after every other rule (rank,
//!   types, feature level, output layout) has been checked as for a non-empty window. An empty result writes an empty
//!   array of the output shape (a 1-D empty array with `--output-strides`), dispatches nothing, and says so on stderr.
//! - The input is memory-mapped and used as it is: the kernels read exactly the bytes the plan touches (D10), so no
//!   copy of the data is ever made, whatever the element count (big-endian files excepted: they are swapped into
//!   memory, after a memory check).
//! - Resources are checked before anything is allocated or written: the memory the run allocates (the big-endian
//!   copy; the resident input pages are bounded by [`chunks::CHUNK_INPUT_BYTES`]) against MemAvailable or
//!   `--max-memory`, and the output file against the free space of its file system. A file much larger than the
//!   input (over 16x and over 64 MiB: the legal but amplifying `--output-strides` layouts) is announced on stderr
//!   before it is written.
//! - A signal that ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGBUS) removes the temporary output file
//!   first ([`crate::signals`]).

use crate::error::CliError;
use crate::resources::{self, MemoryLimit};
use crate::signals;
use crate::window::{self, WindowFlags};
use crate::{chunks, parse};
use clap::Args;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use stridekit::frontends::{SliceOutcome, numpy::numpy_slice, onnx::onnx_slice};
use stridekit::{BufferTensorDesc, DataType, FeatureLevel, Slice1Desc, Slice1Plan, TensorRole};

/// Arguments of `stridekit slice`.
#[derive(Debug, Args)]
pub struct SliceArgs {
    /// The input .npy file (a regular file; it must not be modified while it is read, see the README).
    pub input: PathBuf,
    /// The output .npy file, written atomically (a failed run leaves an existing file untouched); a symbolic link is
    /// written through to its target; a device or pipe is refused.
    pub output: PathBuf,
    /// InputWindowOffsets (default: zeros).
    #[arg(long, allow_hyphen_values = true, conflicts_with_all = ["numpy", "onnx_starts"])]
    pub offsets: Option<String>,
    /// InputWindowSizes (default: the rest of each dimension from its offset).
    #[arg(long, allow_hyphen_values = true, conflicts_with_all = ["numpy", "onnx_starts"])]
    pub sizes: Option<String>,
    /// InputWindowStrides, signed: negative walks the window from its end (default: ones).
    #[arg(long, allow_hyphen_values = true, conflicts_with_all = ["numpy", "onnx_starts"])]
    pub strides: Option<String>,
    /// OutputTensor.Sizes (default: MaxCopiedElements = 1 + (size - 1) / |stride| per dimension).
    #[arg(long, allow_hyphen_values = true, conflicts_with_all = ["numpy", "onnx_starts"])]
    pub output_sizes: Option<String>,
    /// A NumPy basic-slicing expression, e.g. "1:3, ::-1, 5, ..." (an integer index keeps a size-1 dimension).
    #[arg(long, allow_hyphen_values = true, conflicts_with = "onnx_starts")]
    pub numpy: Option<String>,
    /// ONNX Slice `starts`.
    #[arg(long, allow_hyphen_values = true, requires = "onnx_ends")]
    pub onnx_starts: Option<String>,
    /// ONNX Slice `ends` (INT64_MAX / INT64_MIN slice to the end).
    #[arg(long, allow_hyphen_values = true, requires = "onnx_starts")]
    pub onnx_ends: Option<String>,
    /// ONNX Slice `axes` (default: 0..len(starts); negative counts from the end).
    #[arg(long, allow_hyphen_values = true, requires = "onnx_starts")]
    pub onnx_axes: Option<String>,
    /// ONNX Slice `steps` (default: ones).
    #[arg(long, allow_hyphen_values = true, requires = "onnx_starts")]
    pub onnx_steps: Option<String>,
    /// Read IN (a 1-D .npy holding a raw DirectML buffer) as a tensor with these sizes ...
    #[arg(long, allow_hyphen_values = true)]
    pub input_sizes: Option<String>,
    /// ... and these strides in elements (default: packed). Stride 0 broadcasts, larger strides pad.
    #[arg(long, allow_hyphen_values = true, requires = "input_sizes")]
    pub input_strides: Option<String>,
    /// Write OUT as a 1-D .npy holding the whole output buffer in this layout (padding elements zero).
    #[arg(long, allow_hyphen_values = true)]
    pub output_strides: Option<String>,
    /// Print the resolved Slice1 parameters and the plan before running.
    #[arg(long)]
    pub explain: bool,
    /// Print the output's elements (at most 1024) after writing it, floats as NumPy prints its scalars.
    #[arg(long)]
    pub print: bool,
    /// Worker threads for the copy (default: all cores for large copies, one for small ones).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Validate at this DirectML feature level (default 6_4).
    #[arg(long)]
    pub feature_level: Option<String>,
    /// The memory the run may allocate, e.g. 512M or 2G (default: MemAvailable from /proc/meminfo).
    #[arg(long)]
    pub max_memory: Option<String>,
    /// Where the copy runs: this machine's cores, or a GPU through wgpu (Vulkan, Metal, DX12); same output bytes.
    #[arg(long, value_enum, default_value_t = Device::Cpu)]
    pub device: Device,
}

/// The backend `stridekit slice` runs the validated plan on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Device {
    /// stridekit-cpu, streaming the memory-mapped input.
    Cpu,
    /// stridekit-wgpu: the input is uploaded, the copy runs as a compute shader, the output is read back.
    Gpu,
}

/// The input file read as a tensor.
struct Input {
    data_type: DataType,
    /// The logical shape the front ends slice (the .npy shape, or --input-sizes).
    shape: Vec<u64>,
    /// DirectML sizes and strides (elements) of the input tensor; `None` strides = packed.
    sizes: Vec<u32>,
    strides: Option<Vec<u32>>,
    note: Option<String>,
}

impl Input {
    /// The input's BufferTensorDesc (the model computes TotalTensorSizeInBytes; errors name the failing rule).
    fn desc(&self) -> Result<BufferTensorDesc, CliError> {
        BufferTensorDesc::new(self.data_type, &self.sizes, self.strides.as_deref())
            .map_err(|e| e.with_role(TensorRole::Input).into())
    }
}

impl SliceArgs {
    fn window_flags(&self) -> WindowFlags<'_> {
        WindowFlags {
            offsets: self.offsets.as_deref(),
            sizes: self.sizes.as_deref(),
            strides: self.strides.as_deref(),
            output_sizes: self.output_sizes.as_deref(),
        }
    }
}

/// Output files larger than the input by this factor (and than [`AMPLIFICATION_MIN_BYTES`]) are announced.
const AMPLIFICATION_FACTOR: u64 = 16;
/// See [`AMPLIFICATION_FACTOR`].
const AMPLIFICATION_MIN_BYTES: u64 = 64 << 20;

/// Runs `stridekit slice`.
pub fn run(args: &SliceArgs) -> Result<ExitCode, CliError> {
    let level = parse::feature_level(args.feature_level.as_deref())?;
    let limit = resources::memory_limit(args.max_memory.as_deref().map(resources::parse_max_memory).transpose()?);
    // The input is memory-mapped: only the pages the window touches are read.
    let mapped = stridekit_npy::MappedNpy::open(&args.input)?;
    let header = mapped.header();
    let input = read_input(args, header)?;
    if let Some(note) = &input.note {
        eprintln!("note: {note}");
    }
    let params = match resolve_window(args, &input, level)? {
        Resolved::Window(desc) => desc,
        Resolved::Empty(shape) => return write_empty(args, &input, &shape),
    };
    let plan = params.validate_at(level)?;
    if args.explain {
        print_explain(&params, &plan)?;
    }
    // The file must hold the input's physical extent (R-BIND-1 for the buffer the file provides; D10: exactly the
    // elements, no DWORD rounding).
    let element_size = plan.element_size() as u64;
    let needed = plan.input().physical_extent() * element_size;
    let data_len = header.data_len_bytes();
    if data_len < needed {
        return Err(CliError::FileTooShort {
            path: args.input.display().to_string(),
            elements: data_len / element_size,
            bytes: data_len,
            needed_elements: plan.input().physical_extent(),
            needed_bytes: needed,
        });
    }
    check_memory(args, header, &limit)?;
    if args.device == Device::Gpu {
        // The host side of a GPU copy stages the input bytes it uploads and the output it reads back.
        let staged = needed.saturating_add(plan.output().physical_extent() * element_size);
        resources::check_memory("staging the GPU copy (input upload and output readback)", staged, &limit)?;
    }
    // Opened before the output file exists, so that a machine without a GPU fails before any work.
    let gpu = match args.device {
        Device::Gpu => Some(stridekit_wgpu::GpuContext::shared()?),
        Device::Cpu => None,
    };
    let shape: Vec<u64> = if args.output_strides.is_some() {
        vec![plan.output().physical_extent()]
    } else {
        plan.output_sizes().iter().map(|&s| u64::from(s)).collect()
    };
    check_output_size(args, input.data_type, &shape)?;
    let view = mapped.view();
    let data = &view.data[..];
    // Created before the copy, so that an unwritable destination fails before any work; registered with the
    // signal handler as soon as it exists.
    let mut registration = None;
    let mut file = stridekit_npy::AtomicNpyFile::create_with_hook(&args.output, input.data_type, &shape, |temp| {
        registration = Some(signals::register(temp));
    })?;
    let options = stridekit_cpu::ExecOptions::with_threads(args.threads.unwrap_or(0));
    // Input pages are released chunk by chunk, so an input larger than memory streams through (the memory of a
    // run is about one chunk of input; see `chunks`). A swapped big-endian copy is not the map: nothing to release.
    let borrowed = !header.big_endian;
    let release = |lo: u64, hi: u64| -> Result<(), CliError> {
        if borrowed {
            mapped
                .release_data(usize::try_from(lo).unwrap_or(usize::MAX)..usize::try_from(hi).unwrap_or(usize::MAX))?;
        }
        Ok(())
    };
    match gpu {
        // The kernel writes straight into the memory-mapped output file: no second copy.
        None => chunks::run(&plan, data, file.data_mut(), &options, release)?,
        // The GPU reads the bytes the plan touches and writes the output's element bytes back into the map.
        Some(ctx) => stridekit_wgpu::slice1(ctx, &plan, data, file.data_mut())?,
    }
    if args.print {
        print_elements(input.data_type, &shape, file.data_mut())?;
    }
    file.commit()?;
    drop(registration);
    Ok(ExitCode::SUCCESS)
}

/// Refuses a run whose allocations do not fit `limit`: the swapped copy of a big-endian input plus the resident
/// input pages of one chunk.
fn check_memory(args: &SliceArgs, header: &stridekit_npy::NpyHeader, limit: &MemoryLimit) -> Result<(), CliError> {
    let (what, needed) = if header.big_endian {
        (
            format!("byte-swapping big-endian {} in memory (plus one chunk of input pages)", args.input.display()),
            header.data_len_bytes().saturating_add(chunks::CHUNK_INPUT_BYTES),
        )
    } else {
        ("streaming the input (one chunk of input pages)".to_string(), chunks::CHUNK_INPUT_BYTES)
    };
    resources::check_memory(&what, needed, limit)
}

/// Refuses an output file that does not fit its file system's free space; announces one much larger than the input.
fn check_output_size(args: &SliceArgs, data_type: DataType, shape: &[u64]) -> Result<(), CliError> {
    let header_len = stridekit_npy::encode_header(data_type, shape)?.len() as u64;
    let data_len = shape.iter().try_fold(u64::from(data_type.size_in_bytes_rounded_up()), |acc, &d| acc.checked_mul(d));
    let Some(bytes) = data_len.and_then(|d| d.checked_add(header_len)) else {
        return Err(CliError::Npy(stridekit_npy::InvalidKind::TooLarge { bytes: u64::MAX }.into()));
    };
    let target = stridekit_npy::AtomicNpyFile::target_of(&args.output)?;
    resources::check_disk(&target, bytes)?;
    let input_len = std::fs::metadata(&args.input).map(|m| m.len()).unwrap_or(u64::MAX);
    if bytes > AMPLIFICATION_MIN_BYTES && bytes / AMPLIFICATION_FACTOR > input_len {
        eprintln!(
            "note: {} will be {}, {}x the input's {}",
            args.output.display(),
            resources::human(bytes),
            bytes / input_len.max(1),
            resources::human(input_len)
        );
    }
    Ok(())
}

/// Writes the empty result (D11): the shape has a 0, nothing is dispatched.
fn write_empty(args: &SliceArgs, input: &Input, shape: &[u64]) -> Result<ExitCode, CliError> {
    let written: Vec<u64> = if args.output_strides.is_some() { vec![0] } else { shape.to_vec() };
    eprintln!(
        "note: the slice is empty (shape {shape:?}); DirectML cannot express empty tensors, so nothing was \
         dispatched and an empty array of shape {written:?} was written"
    );
    let mut registration = None;
    let file = stridekit_npy::AtomicNpyFile::create_with_hook(&args.output, input.data_type, &written, |temp| {
        registration = Some(signals::register(temp));
    })?;
    file.commit()?;
    drop(registration);
    Ok(ExitCode::SUCCESS)
}

fn read_input(args: &SliceArgs, header: &stridekit_npy::NpyHeader) -> Result<Input, CliError> {
    let data_type = header.data_type;
    let mut note =
        header.big_endian.then(|| format!("{} is big-endian; its data was byte-swapped", args.input.display()));
    match &args.input_sizes {
        Some(text) => {
            if header.shape.len() != 1 {
                return Err(CliError::Args(format!(
                    "--input-sizes reads {} as a flat DirectML buffer, so it must be 1-D; its shape is {:?}",
                    args.input.display(),
                    header.shape
                )));
            }
            let sizes = parse::u32_list("--input-sizes", text)?;
            let strides = args.input_strides.as_deref().map(|t| parse::u32_list("--input-strides", t)).transpose()?;
            let shape = sizes.iter().map(|&s| u64::from(s)).collect();
            Ok(Input { data_type, shape, sizes, strides, note })
        }
        None => {
            let (shape, strides) = if header.shape.is_empty() {
                note = Some(format!("{} is a 0-d array; it is read as sizes {{1}}", args.input.display()));
                (vec![1], vec![1])
            } else {
                // The file's own element strides: C or Fortran order, as NpyHeader computes them.
                (header.shape.clone(), header.strides())
            };
            let narrow = |dim: usize, value: u64| {
                u32::try_from(value).map_err(|_| CliError::InputShape {
                    path: args.input.display().to_string(),
                    shape: header.shape.clone(),
                    dim,
                    size: value,
                })
            };
            let sizes = shape.iter().enumerate().map(|(d, &s)| narrow(d, s)).collect::<Result<Vec<u32>, _>>()?;
            // Strides are only needed when they differ from packed C order (Fortran files); a stride beyond u32
            // implies a dimension product beyond u32, which R-BT-6 names when the desc is validated.
            let strides =
                header.fortran_order.then(|| strides.iter().map(|&s| u32::try_from(s).unwrap_or(u32::MAX)).collect());
            Ok(Input { data_type, shape, sizes, strides, note })
        }
    }
}

enum Resolved {
    Window(Slice1Desc),
    Empty(Vec<u64>),
}

fn resolve_window(args: &SliceArgs, input: &Input, level: FeatureLevel) -> Result<Resolved, CliError> {
    let flags = args.window_flags();
    if args.input_sizes.is_some() {
        // A raw DirectML description (--input-sizes) is a DirectML-shaped entry point: an empty tensor is refused
        // (R-BT-3) whatever the window (D11).
        input.desc()?;
    }
    let outcome = if let Some(expr) = &args.numpy {
        numpy_slice(&input.shape, expr)?
    } else if let (Some(starts), Some(ends)) = (&args.onnx_starts, &args.onnx_ends) {
        let starts = parse::i64_list("--onnx-starts", starts)?;
        let ends = parse::i64_list("--onnx-ends", ends)?;
        let axes = args.onnx_axes.as_deref().map(|t| parse::i64_list("--onnx-axes", t)).transpose()?;
        let steps = args.onnx_steps.as_deref().map(|t| parse::i64_list("--onnx-steps", t)).transpose()?;
        onnx_slice(&input.shape, &starts, &ends, axes.as_deref(), steps.as_deref())?
    } else if flags.is_default() && args.input_sizes.is_none() && input.sizes.contains(&0) {
        // The default window over an empty input: NumPy's `a[:]`, an empty result (D11).
        SliceOutcome::Empty { output_shape: input.shape.clone() }
    } else {
        SliceOutcome::Window(window::resolve(flags, &input.sizes)?)
    };
    let output_strides = args.output_strides.as_deref().map(|t| parse::u32_list("--output-strides", t)).transpose()?;
    let params = match outcome {
        SliceOutcome::Empty { output_shape } => {
            check_empty(input, &output_shape, output_strides.as_deref(), level)?;
            return Ok(Resolved::Empty(output_shape));
        }
        SliceOutcome::Window(p) => p,
    };
    let output = BufferTensorDesc::new(input.data_type, &params.output_sizes, output_strides.as_deref())
        .map_err(|e| e.with_role(TensorRole::Output))?;
    Ok(Resolved::Window(Slice1Desc {
        input: input.desc()?,
        output,
        input_window_offsets: params.input_window_offsets,
        input_window_sizes: params.input_window_sizes,
        input_window_strides: params.input_window_strides,
    }))
}

/// D11: an empty result is written only after every rule but emptiness holds, exactly as for a non-empty window
/// (the model's [`stridekit::frontends::validate_empty`]: rank, types, feature level, output layout).
fn check_empty(
    input: &Input,
    output_shape: &[u64],
    output_strides: Option<&[u32]>,
    level: FeatureLevel,
) -> Result<(), CliError> {
    stridekit::frontends::validate_empty(
        input.data_type,
        &input.sizes,
        input.strides.as_deref(),
        output_shape,
        output_strides,
        level,
    )?;
    Ok(())
}

fn print_explain(desc: &Slice1Desc, plan: &Slice1Plan) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    let l = |v: &[u32]| format!("{v:?}");
    writeln!(out, "DML_SLICE1_OPERATOR_DESC")?;
    writeln!(
        out,
        "  InputTensor:        {} sizes {} strides {}",
        desc.input.data_type,
        l(&desc.input.sizes),
        l(plan.input().strides())
    )?;
    writeln!(
        out,
        "  OutputTensor:       {} sizes {} strides {}",
        desc.output.data_type,
        l(&desc.output.sizes),
        l(plan.output().strides())
    )?;
    writeln!(out, "  InputWindowOffsets: {:?}", desc.input_window_offsets)?;
    writeln!(out, "  InputWindowSizes:   {:?}", desc.input_window_sizes)?;
    writeln!(out, "  InputWindowStrides: {:?}", desc.input_window_strides)?;
    writeln!(out, "Plan")?;
    writeln!(out, "  CopyStart:          {:?}", plan.copy_start())?;
    writeln!(out, "  input start offset: {} elements", plan.input_start())?;
    writeln!(out, "  input strides:      {:?} elements", plan.input_strides())?;
    writeln!(out, "  output strides:     {:?} elements", plan.output_strides())?;
    writeln!(out, "  elements copied:    {} x {} bytes", plan.element_count(), plan.element_size())?;
    Ok(())
}

/// Elements printed by `--print` at most.
const MAX_PRINTED: usize = 1024;

fn print_elements(data_type: DataType, shape: &[u64], data: &[u8]) -> Result<(), CliError> {
    let size = data_type.size_in_bytes_rounded_up() as usize;
    let values: Vec<String> = data.chunks_exact(size).take(MAX_PRINTED).map(|b| format_element(data_type, b)).collect();
    let count = data.len() / size;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} {:?}: [{}{}]",
        data_type,
        shape,
        values.join(", "),
        if count > MAX_PRINTED { ", ..." } else { "" }
    )?;
    Ok(())
}

/// One little-endian element as text; floats as NumPy prints a scalar of their type (`str(np.float32(x))`).
fn format_element(data_type: DataType, bytes: &[u8]) -> String {
    let mut b = [0u8; 8];
    b[..bytes.len()].copy_from_slice(bytes);
    let u = u64::from_le_bytes(b);
    match data_type {
        DataType::Float16 => numpy_float(f64::from(half::f16::from_bits(u as u16).to_f32()), FloatKind::F16),
        DataType::Float32 => numpy_float(f64::from(f32::from_bits(u as u32)), FloatKind::F32),
        DataType::Float64 => numpy_float(f64::from_bits(u), FloatKind::F64),
        DataType::Int8 => (u as u8 as i8).to_string(),
        DataType::Int16 => (u as u16 as i16).to_string(),
        DataType::Int32 => (u as u32 as i32).to_string(),
        DataType::Int64 => (u as i64).to_string(),
        _ => u.to_string(),
    }
}

/// The float type a value came from: its shortest round-trip digits and NumPy's positional range depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FloatKind {
    F16,
    F32,
    F64,
}

/// A float as NumPy's `str()` of a scalar writes it (NumPy 2, `numpy/_core/src/multiarray/scalartypes.c`):
/// - the shortest digits that read back to the same value *of its type* (Dragon4, `unique=True`);
/// - positional when the value is 0 or `1e-4 <= |x| < 10^p`, with `p` = 3 for float16, 6 for float32 and 16 for
///   float64, with `.0` added to whole numbers (`3.0`, `65504.0` as float64);
/// - otherwise scientific, `d.ddde+XX` with a signed exponent of at least two digits (`1.7e+308`, `1e-05`);
/// - `inf`, `-inf`, `nan`.
fn numpy_float(x: f64, kind: FloatKind) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let max_positional = match kind {
        FloatKind::F16 => 1e3,
        FloatKind::F32 => 1e6,
        FloatKind::F64 => 1e16,
    };
    let abs = x.abs();
    if abs == 0.0 || (1e-4..max_positional).contains(&abs) {
        let text = match kind {
            FloatKind::F16 => positional_from_scientific(&shortest_f16(x)),
            FloatKind::F32 => (x as f32).to_string(),
            FloatKind::F64 => x.to_string(),
        };
        return if text.contains('.') { text } else { format!("{text}.0") };
    }
    let sci = match kind {
        FloatKind::F16 => shortest_f16(x),
        FloatKind::F32 => format!("{:e}", x as f32),
        FloatKind::F64 => format!("{x:e}"),
    };
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    format!("{mantissa}e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs())
}

/// The shortest scientific text (`1.5e3`) that reads back as the same float16 as `x` (Rust has no float16 Display;
/// a float16 has at most 5 significant digits, so at most six tries).
fn shortest_f16(x: f64) -> String {
    let target = half::f16::from_f64(x);
    for precision in 0..8 {
        let text = format!("{:.*e}", precision, x);
        if text.parse::<f64>().is_ok_and(|v| half::f16::from_f64(v) == target) {
            return text;
        }
    }
    format!("{x:e}")
}

/// `1.5e3` as `1500`, `1e-4` as `0.0001` (for the float16 values in the positional range, |x| < 1e3).
fn positional_from_scientific(sci: &str) -> String {
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // Value = 0.digits * 10^(exponent + 1).
    let point = exponent + 1;
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
    };
    if negative { format!("-{body}") } else { body }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_numpy_scalars() {
        // Each pair was printed by NumPy 2.4: str(np.float64(x)), str(np.float32(x)), str(np.float16(x)).
        let f64s = [
            (1.7e308, "1.7e+308"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789.0, "123456789.0"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (0.1, "0.1"),
            (-0.0, "-0.0"),
            (5e-324, "5e-324"),
            (1e-100, "1e-100"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
        ];
        for (x, want) in f64s {
            assert_eq!(numpy_float(x, FloatKind::F64), want, "{x:e}");
        }
        let f32s = [
            (1e16, "1e+16"),
            (1e15, "1e+15"),
            (123456789.0, "1.2345679e+08"),
            (1e-4, "1e-04"),
            (1e6, "1e+06"),
            (9999999.0, "9.999999e+06"),
            (0.00011, "0.00011"),
            (0.1, "0.1"),
            (3.0, "3.0"),
            (65504.0, "65504.0"),
            (3.4e38, "3.4e+38"),
        ];
        for (x, want) in f32s {
            assert_eq!(numpy_float(f64::from(x as f32), FloatKind::F32), want, "{x:e}");
        }
        let f16s = [(1000.0, "1e+03"), (65504.0, "6.55e+04"), (2048.0, "2.048e+03"), (1e-4, "0.0001"), (0.1, "0.1")];
        for (x, want) in f16s {
            let v = f64::from(half::f16::from_f64(x).to_f32());
            assert_eq!(numpy_float(v, FloatKind::F16), want, "{x:e}");
        }
        assert_eq!(numpy_float(f64::from(half::f16::from_f64(1.5e-7).to_f32()), FloatKind::F16), "2e-07");
        assert_eq!(numpy_float(f64::from(half::f16::from_f64(-2.5).to_f32()), FloatKind::F16), "-2.5");
    }
}
