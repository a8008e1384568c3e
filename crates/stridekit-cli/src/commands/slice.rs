//! `stridekit slice IN.npy OUT.npy`: DirectML Slice1 on NumPy files.
//!
//! Decisions where the issue and SPEC are silent:
//! - A missing `--sizes` means the rest of each dimension from its offset (the whole input when offsets are 0).
//! - A 0-d input array is read as sizes `{1}` (DirectML has no rank 0).
//! - An empty NumPy or ONNX slice writes an empty array of the right shape and dispatches nothing (DirectML cannot
//!   express empty tensors); a note on stderr says so.
//! - The input's own buffer is the file's data when it already covers the DirectML minimum (rounded up to 4 bytes);
//!   otherwise the data is copied into a buffer of that size, zero-padded.

use crate::error::CliError;
use crate::window::{self, WindowFlags};
use crate::{chunks, parse};
use clap::Args;
use std::borrow::Cow;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use stridekit::frontends::{SliceOutcome, numpy::numpy_slice, onnx::onnx_slice};
use stridekit::{BufferTensorDesc, DataType, Slice1Desc, Slice1Plan, calc_buffer_tensor_size};

/// Arguments of `stridekit slice`.
#[derive(Debug, Args)]
pub struct SliceArgs {
    /// The input .npy file.
    pub input: PathBuf,
    /// The output .npy file (written atomically: a failed run leaves an existing file untouched).
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
    /// Print the output's elements (at most 1024) after writing it.
    #[arg(long)]
    pub print: bool,
    /// Worker threads for the copy (default: all cores for large copies, one for small ones).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Validate at this DirectML feature level (default 6_4).
    #[arg(long)]
    pub feature_level: Option<String>,
}

/// The input file read as a tensor.
struct Input {
    data_type: DataType,
    /// The logical shape the front ends slice (the .npy shape, or --input-sizes).
    shape: Vec<u64>,
    desc: BufferTensorDesc,
    note: Option<String>,
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

/// Runs `stridekit slice`.
pub fn run(args: &SliceArgs) -> Result<ExitCode, CliError> {
    let level = parse::feature_level(args.feature_level.as_deref())?;
    // The input is memory-mapped: only the pages the window touches are read.
    let mapped = stridekit_npy::MappedNpy::open(&args.input)?;
    let view = mapped.view();
    let input = read_input(args, &view.header)?;
    let data = view.data;
    if let Some(note) = &input.note {
        eprintln!("note: {note}");
    }
    let params = match resolve_window(args, &input)? {
        Resolved::Window(desc) => desc,
        Resolved::Empty(shape) => {
            if args.output_strides.is_some() {
                return Err(CliError::Args(format!(
                    "the slice is empty (shape {shape:?}) and --output-strides needs a non-empty output"
                )));
            }
            eprintln!(
                "note: the slice is empty (shape {shape:?}); DirectML cannot express empty tensors, so nothing was \
                 dispatched and an empty array was written"
            );
            stridekit_npy::AtomicNpyFile::create(&args.output, input.data_type, &shape)?.commit()?;
            return Ok(ExitCode::SUCCESS);
        }
    };
    let plan = params.validate_at(level)?;
    if args.explain {
        print_explain(&params, &plan)?;
    }
    // The file must hold the input's physical extent (R-BIND-1 for the buffer the file provides).
    let element_size = plan.element_size() as u64;
    let needed = plan.input().physical_extent() * element_size;
    if (data.len() as u64) < needed {
        return Err(CliError::FileTooShort {
            path: args.input.display().to_string(),
            elements: data.len() as u64 / element_size,
            bytes: data.len() as u64,
            needed_elements: plan.input().physical_extent(),
            needed_bytes: needed,
        });
    }
    let total_in = plan.input().total_tensor_size_in_bytes();
    let input_bytes: Cow<'_, [u8]> = if (data.len() as u64) >= total_in {
        Cow::Borrowed(&data)
    } else {
        let mut padded = data.to_vec();
        padded.resize(usize::try_from(total_in).map_err(|_| too_large(total_in))?, 0);
        Cow::Owned(padded)
    };
    let shape: Vec<u64> = if args.output_strides.is_some() {
        vec![plan.output().physical_extent()]
    } else {
        plan.output_sizes().iter().map(|&s| u64::from(s)).collect()
    };
    // Created before the copy, so that an unwritable destination fails before any work.
    let mut file = stridekit_npy::AtomicNpyFile::create(&args.output, input.data_type, &shape)?;
    let options = stridekit_cpu::ExecOptions::with_threads(args.threads.unwrap_or(0));
    let out_total = plan.output().total_tensor_size_in_bytes();
    // Input pages are released chunk by chunk, so an input larger than memory streams through (the memory of a
    // run is the output plus about one chunk of input; see `chunks`).
    let borrowed = matches!(data, Cow::Borrowed(_));
    let release = |lo: u64, hi: u64| -> Result<(), CliError> {
        if borrowed {
            mapped
                .release_data(usize::try_from(lo).unwrap_or(usize::MAX)..usize::try_from(hi).unwrap_or(usize::MAX))?;
        }
        Ok(())
    };
    let file_data = file.data_mut();
    if file_data.len() as u64 >= out_total {
        // The kernel writes straight into the memory-mapped output file: no second copy.
        chunks::run(&params, &plan, level, &input_bytes, file_data, &options, release)?;
    } else {
        // The element bytes are not a multiple of 4, so the file's data region is shorter than the DirectML
        // minimum (R-BIND-1): run into a buffer of that size, then copy the elements.
        let mut buffer = vec![0u8; usize::try_from(out_total).map_err(|_| too_large(out_total))?];
        chunks::run(&params, &plan, level, &input_bytes, &mut buffer, &options, release)?;
        let n = file_data.len();
        file_data.copy_from_slice(&buffer[..n]);
    }
    if args.print {
        print_elements(input.data_type, &shape, file.data_mut())?;
    }
    file.commit()?;
    Ok(ExitCode::SUCCESS)
}

fn too_large(bytes: u64) -> CliError {
    CliError::Args(format!("a buffer of {bytes} bytes does not fit this machine's address space"))
}

fn read_input(args: &SliceArgs, header: &stridekit_npy::NpyHeader) -> Result<Input, CliError> {
    let data_type = header.data_type;
    let mut note =
        header.big_endian.then(|| format!("{} is big-endian; its data was byte-swapped", args.input.display()));
    let (shape, sizes, strides): (Vec<u64>, Vec<u32>, Option<Vec<u32>>) = match &args.input_sizes {
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
            (sizes.iter().map(|&s| u64::from(s)).collect(), sizes, strides)
        }
        None => {
            let mut shape = header.shape.clone();
            if shape.is_empty() {
                shape.push(1);
                note = Some(format!("{} is a 0-d array; it is read as sizes {{1}}", args.input.display()));
            }
            let sizes = shape
                .iter()
                .enumerate()
                .map(|(dim, &s)| {
                    u32::try_from(s).map_err(|_| {
                        CliError::Args(format!(
                            "dimension {dim} of {} has {s} elements; DirectML sizes are u32 (error[R-BT-6])",
                            args.input.display()
                        ))
                    })
                })
                .collect::<Result<Vec<u32>, _>>()?;
            // Fortran order: the same sizes with reversed (column-major) strides.
            let strides = if header.fortran_order && sizes.len() > 1 {
                let reversed: Vec<u32> = sizes.iter().rev().copied().collect();
                let mut s = stridekit::packed_strides(&reversed)?;
                s.reverse();
                Some(s)
            } else {
                None
            };
            (shape, sizes, strides)
        }
    };
    let total = calc_buffer_tensor_size(data_type, &sizes, strides.as_deref()).unwrap_or(0);
    let desc = BufferTensorDesc {
        data_type,
        flags: stridekit::TensorFlags::NONE,
        sizes,
        strides,
        total_tensor_size_in_bytes: total,
        guaranteed_base_offset_alignment: 0,
    };
    Ok(Input { data_type, shape, desc, note })
}

enum Resolved {
    Window(Slice1Desc),
    Empty(Vec<u64>),
}

fn resolve_window(args: &SliceArgs, input: &Input) -> Result<Resolved, CliError> {
    let outcome = if let Some(expr) = &args.numpy {
        Some(numpy_slice(&input.shape, expr)?)
    } else if let (Some(starts), Some(ends)) = (&args.onnx_starts, &args.onnx_ends) {
        let starts = parse::i64_list("--onnx-starts", starts)?;
        let ends = parse::i64_list("--onnx-ends", ends)?;
        let axes = args.onnx_axes.as_deref().map(|t| parse::i64_list("--onnx-axes", t)).transpose()?;
        let steps = args.onnx_steps.as_deref().map(|t| parse::i64_list("--onnx-steps", t)).transpose()?;
        Some(onnx_slice(&input.shape, &starts, &ends, axes.as_deref(), steps.as_deref())?)
    } else {
        None
    };
    let (offsets, sizes, strides, output_sizes) = match outcome {
        Some(SliceOutcome::Empty { output_shape }) => return Ok(Resolved::Empty(output_shape)),
        Some(SliceOutcome::Window(p)) => {
            (p.input_window_offsets, p.input_window_sizes, p.input_window_strides, p.output_sizes)
        }
        None => window::resolve(args.window_flags(), &input.desc.sizes)?,
    };
    let output_strides = args.output_strides.as_deref().map(|t| parse::u32_list("--output-strides", t)).transpose()?;
    let output_total = calc_buffer_tensor_size(input.data_type, &output_sizes, output_strides.as_deref()).unwrap_or(0);
    let output = BufferTensorDesc {
        data_type: input.data_type,
        flags: stridekit::TensorFlags::NONE,
        sizes: output_sizes,
        strides: output_strides,
        total_tensor_size_in_bytes: output_total,
        guaranteed_base_offset_alignment: 0,
    };
    Ok(Resolved::Window(Slice1Desc {
        input: input.desc.clone(),
        output,
        input_window_offsets: offsets,
        input_window_sizes: sizes,
        input_window_strides: strides,
    }))
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

/// One little-endian element as text. `bytes` has exactly the element's size.
fn format_element(data_type: DataType, bytes: &[u8]) -> String {
    let mut b = [0u8; 8];
    b[..bytes.len()].copy_from_slice(bytes);
    let u = u64::from_le_bytes(b);
    match data_type {
        DataType::Float16 => half::f16::from_bits(u as u16).to_string(),
        DataType::Float32 => f32::from_bits(u as u32).to_string(),
        DataType::Float64 => f64::from_bits(u).to_string(),
        DataType::Int8 => (u as u8 as i8).to_string(),
        DataType::Int16 => (u as u16 as i16).to_string(),
        DataType::Int32 => (u as u32 as i32).to_string(),
        DataType::Int64 => (u as i64).to_string(),
        _ => u.to_string(),
    }
}
