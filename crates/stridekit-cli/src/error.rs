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
    /// Writing to standard output failed.
    #[error("error[io]: writing the report: {0}")]
    Output(#[from] std::io::Error),
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Io { .. } | CliError::Output(_) => EXIT_IO,
            CliError::Npy(e) if e.is_io() => EXIT_IO,
            _ => EXIT_INVALID,
        }
    }
}
