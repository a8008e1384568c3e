//! `CliError`: every way a command fails, composed from the library errors, with its exit code.

/// Exit code for an invalid description, arguments or input file.
pub const EXIT_INVALID: u8 = 2;
/// Exit code for I/O and internal errors.
pub const EXIT_IO: u8 = 1;

/// A failed command. The library errors print themselves as `error[<rule>]: ...`.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A tensor description breaks a rule.
    #[error(transparent)]
    Desc(#[from] stridekit::TensorDescError),
    /// A slice description breaks a rule.
    #[error(transparent)]
    Slice(#[from] stridekit::SliceError),
    /// A layout helper cannot produce strides.
    #[error(transparent)]
    Layout(#[from] stridekit::LayoutError),
    /// A bound buffer is too small or misaligned.
    #[error(transparent)]
    Binding(#[from] stridekit::BindingError),
    /// A data type name is unknown.
    #[error(transparent)]
    DataType(#[from] stridekit::ParseDataTypeError),
    /// A feature level is unknown.
    #[error(transparent)]
    FeatureLevel(#[from] stridekit::ParseFeatureLevelError),
    /// A list argument cannot be read.
    #[error(transparent)]
    List(#[from] stridekit::frontends::lists::ListError),
    /// A NumPy slice expression cannot be translated.
    #[error(transparent)]
    Numpy(#[from] stridekit::frontends::numpy::NumpyError),
    /// ONNX Slice inputs cannot be translated.
    #[error(transparent)]
    Onnx(#[from] stridekit::frontends::onnx::OnnxError),
    /// An input .npy file is malformed, or a file cannot be read or written.
    #[error(transparent)]
    Npy(#[from] stridekit_npy::NpyError),
    /// The GPU backend refused (a binding rule) or failed (no adapter, device errors).
    #[error(transparent)]
    Gpu(#[from] stridekit_wgpu::GpuError),
    /// The copy was refused (bindings).
    #[error(transparent)]
    Exec(#[from] stridekit_cpu::ExecError),
    /// R-BIND-1 for the buffer an input file provides: it is shorter than the tensor's physical extent.
    #[error(
        "error[R-BIND-1]: {path} holds {elements} elements ({bytes} bytes) but the input tensor reaches {needed_elements} \
         elements ({needed_bytes} bytes)"
    )]
    FileTooShort {
        /// The input file.
        path: String,
        /// Elements in the file.
        elements: u64,
        /// Data bytes in the file.
        bytes: u64,
        /// The tensor's physical extent.
        needed_elements: u64,
        /// The extent in bytes.
        needed_bytes: u64,
    },
    /// A window flag breaks a Slice1 rule in a way only the command line can explain: a list of the wrong length
    /// (named by the flag the user typed and the field it maps to), or a default that does not exist.
    #[error("error[{rule}]: {message}")]
    Flag {
        /// The rule id (`R-S1-1`, `R-S1-2`, `R-S1-3`).
        rule: &'static str,
        /// The message, naming the flag, the DirectML field and which numbers were defaults.
        message: String,
    },
    /// The input file's shape cannot be a DirectML tensor: a dimension beyond u32 (R-BT-6, D4).
    #[error(
        "error[R-BT-6]: {path}: dimension {dim} of the .npy shape {shape:?} is {size}; a DirectML size is a UINT, at \
         most 4294967295, so this file cannot be read as an input tensor"
    )]
    InputShape {
        /// The input file.
        path: String,
        /// The .npy shape.
        shape: Vec<u64>,
        /// The dimension.
        dim: usize,
        /// Its size.
        size: u64,
    },
    /// A run needs more memory than is available (or than `--max-memory` allows).
    #[error(
        "error[memory]: {what} needs {}, but {} {} available ({origin}); free memory, or set --max-memory if the \
         estimate is wrong",
        crate::resources::human(*needed),
        crate::resources::human(*available),
        if *available == 1 { "is" } else { "are" }
    )]
    Memory {
        /// What the memory is for.
        what: String,
        /// Bytes needed.
        needed: u64,
        /// Bytes available.
        available: u64,
        /// Where `available` came from.
        origin: &'static str,
    },
    /// The output file does not fit the free space of its file system.
    #[error(
        "error[disk]: {} would be {}, but the file system holding {} has {} free; nothing was written",
        path.display(),
        crate::resources::human(*needed),
        dir.display(),
        crate::resources::human(*free)
    )]
    Disk {
        /// The output file.
        path: std::path::PathBuf,
        /// Its directory.
        dir: std::path::PathBuf,
        /// The file's size in bytes.
        needed: u64,
        /// Free bytes (for an unprivileged user).
        free: u64,
    },
    /// Arguments that contradict each other or cannot be read.
    #[error("error[args]: {0}")]
    Args(String),
    /// A file could not be read or written.
    #[error("error[io]: {path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A measurement found the planner choosing another kernel than the one it measures (`stridekit calibrate`).
    #[error("error[internal]: {0}")]
    Internal(String),
    /// Writing to standard output failed.
    #[error("error[io]: writing the report: {0}")]
    Output(#[from] std::io::Error),
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Io { .. }
            | CliError::Output(_)
            | CliError::Memory { .. }
            | CliError::Disk { .. }
            | CliError::Internal(_) => EXIT_IO,
            CliError::Npy(e) if e.is_io() => EXIT_IO,
            // No adapter, device failures: the machine, not the input (rule violations keep exit code 2).
            CliError::Gpu(e) if e.rule() == "gpu" => EXIT_IO,
            _ => EXIT_INVALID,
        }
    }
}
