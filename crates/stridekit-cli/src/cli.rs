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
    Explain(ExplainArgs),
    /// Slice a NumPy .npy file with DirectML Slice1 (or NumPy / ONNX slicing) semantics.
    Slice(Box<crate::commands::slice::SliceArgs>),
    /// Time a slice on this machine against a memcpy of the same bytes.
    Bench(crate::commands::bench::BenchArgs),
}

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
    /// TotalTensorSizeInBytes (default: the minimum implied size).
    #[arg(long)]
    pub total_bytes: Option<u64>,
    /// GuaranteedBaseOffsetAlignment in bytes (0 = no guarantee).
    #[arg(long, default_value_t = 0)]
    pub alignment: u32,
    /// Flags: none, owned_by_dml, or the raw bits.
    #[arg(long, default_value = "none")]
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
