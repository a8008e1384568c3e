//! Command-line arguments (clap derive; the doc comments are the help text).

use clap::{Args, Parser, Subcommand, ValueEnum};

/// DirectML's strided buffer tensors and Slice1, on any machine.
#[derive(Debug, Parser)]
#[command(name = "stridekit", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Explain a buffer-tensor layout: sizes, strides, sizes in bytes, properties, and the offset tables.
    #[command(after_help = EXPLAIN_EXAMPLES)]
    Explain(ExplainArgs),
    /// Slice a NumPy .npy file with DirectML Slice1 (or NumPy / ONNX slicing) semantics.
    #[command(after_help = SLICE_EXAMPLES)]
    Slice(Box<crate::commands::slice::SliceArgs>),
    /// Time slices on this machine against their roofline: the best copy of the cache lines they move.
    #[command(after_help = BENCH_EXAMPLES)]
    Bench(Box<crate::commands::bench::BenchArgs>),
    /// Measure from how many bytes streaming stores pay on this machine; write the profile the defaults read.
    #[command(after_help = CALIBRATE_EXAMPLES)]
    Calibrate(crate::commands::calibrate::CalibrateArgs),
}

/// The examples that end `stridekit explain --help`.
const EXPLAIN_EXAMPLES: &str = "Examples:
  stridekit explain --dtype float32 --sizes 2,2,3                 packed 2x2x3, labels A, B, C ...
  stridekit explain --dtype f16 --sizes 1,3,4,4 --layout NHWC     strides of an NHWC layout
  stridekit explain --dtype u8 --sizes 2,3 --strides 0,1 --json   a broadcast row, as JSON";

/// The examples that end `stridekit slice --help`.
const SLICE_EXAMPLES: &str = "Examples:
  stridekit slice in.npy out.npy --numpy \"1:3, ::-1\"                 rows 1-2, columns reversed
  stridekit slice in.npy out.npy --offsets 0,2 --sizes 4,4 --strides 1,2    DirectML Slice1 window
  stridekit slice in.npy out.npy --onnx-starts 0 --onnx-ends -1 --print      ONNX Slice, print the result";

/// The examples that end `stridekit bench --help`.
const BENCH_EXAMPLES: &str = "Examples:
  stridekit bench --dtype f32 --input-sizes 64,64,64 --strides 1,1,-1    one case from window flags
  stridekit bench --cases bench/transposes.json --only t_f32_nchw2nhwc     cases from a file
  stridekit bench --sweep 200 --seed 1 --save-worst worst.json             random cases, the worst saved";

/// The examples that end `stridekit calibrate --help`.
const CALIBRATE_EXAMPLES: &str = "Examples:
  stridekit calibrate                                   measure, write ~/.cache/stridekit/streaming-profile
  stridekit calibrate --dry-run                         measure and print only
  STRIDEKIT_PROFILE=off stridekit bench --cases F       run without the profile";

/// How elements are shown in the pictures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Values {
    /// Letters A, B, C ... in logical order, as on the DirectML strides page.
    Labels,
    /// Each element's buffer offset.
    Offsets,
}

/// Arguments of `stridekit explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// Data type: DirectML, NumPy or Rust name (float32, FLOAT16, <f2, u8, ...) or DirectML's enum value.
    #[arg(long)]
    pub dtype: String,
    /// Sizes, outermost first, e.g. 2,2,3.
    #[arg(long, allow_hyphen_values = true)]
    pub sizes: String,
    /// Strides in elements, e.g. 6,3,1 (default: packed row-major).
    #[arg(long, conflicts_with = "layout", allow_hyphen_values = true)]
    pub strides: Option<String>,
    /// Strides from a layout label over canonically ordered sizes: NCHW, NHWC, DHW, WHD, HW, WH, ...
    #[arg(long)]
    pub layout: Option<String>,
    /// TotalTensorSizeInBytes, 0..=18446744073709551615 (default: the minimum implied size).
    #[arg(long, allow_hyphen_values = true, value_parser = crate::parse::total_bytes)]
    pub total_bytes: Option<u64>,
    /// GuaranteedBaseOffsetAlignment in bytes, 0..=4294967295 (0 = no guarantee).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = crate::parse::alignment)]
    pub alignment: u32,
    /// Flags: none, owned_by_dml, or the raw bits (0..=4294967295, decimal or 0x hex).
    #[arg(long, default_value = "none", allow_hyphen_values = true)]
    pub flags: String,
    /// Validate as an operator's output tensor (no overlap, D1; no OWNED_BY_DML).
    #[arg(long)]
    pub as_output: bool,
    /// Validate at this DirectML feature level (1_0 ... 6_4; default 6_4).
    #[arg(long)]
    pub feature_level: Option<String>,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    pub json: bool,
    /// What the pictures show for each element.
    #[arg(long, value_enum, default_value_t = Values::Labels)]
    pub values: Values,
}
