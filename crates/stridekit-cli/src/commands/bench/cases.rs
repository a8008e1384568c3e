//! Where `stridekit bench` gets its cases: a case file (the schema of [`stridekit::ops::case`]), read as a bounded
//! regular file, or the single-case flags.

use super::BenchArgs;
use crate::error::CliError;
use crate::parse;
use crate::window::{self, WindowFlags};
use std::io::Read;
use std::path::Path;
use stridekit::ops::case::Slice1Case;

/// The largest case file read: every shipped file is under 100 KiB, and a sweep's worst cases a few KiB.
pub const MAX_CASE_FILE_BYTES: u64 = 4 << 20;

/// The cases of a run: the file's (filtered by `--only`) or the one the flags describe. Never empty.
pub fn load(args: &BenchArgs) -> Result<Vec<Slice1Case>, CliError> {
    let Some(path) = &args.cases else {
        return Ok(vec![from_flags(args)?]);
    };
    let mut cases = read_case_file(path)?;
    if cases.is_empty() {
        return Err(CliError::Args(format!("{}: the case list is empty; nothing to time", path.display())));
    }
    if !args.only.is_empty() {
        if let Some(missing) = args.only.iter().find(|n| !cases.iter().any(|c| &c.name == *n)) {
            return Err(CliError::Args(format!(
                "--only: no case named '{}' in {}",
                super::report::escape(missing),
                path.display()
            )));
        }
        cases.retain(|c| args.only.contains(&c.name));
    }
    Ok(cases)
}

/// One case from the flags; the window flags default as in `stridekit slice` (the whole input, unit strides).
fn from_flags(args: &BenchArgs) -> Result<Slice1Case, CliError> {
    let (Some(dtype), Some(in_sizes)) = (&args.dtype, &args.input_sizes) else {
        return Err(CliError::Args(
            "bench needs --cases FILE, --sweep N, or --dtype and --input-sizes for one case".into(),
        ));
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
    Ok(Slice1Case {
        name: args.name.clone().unwrap_or_else(|| "cli".into()),
        dtype: parse::data_type(dtype)?,
        in_strides: optional("--input-strides", &args.input_strides)?,
        in_sizes,
        window_offsets: p.input_window_offsets,
        window_sizes: p.input_window_sizes,
        window_strides: p.input_window_strides,
        out_sizes: p.output_sizes,
        out_strides: optional("--output-strides", &args.output_strides)?,
        note: None,
        expect: None,
    })
}

/// Reads a case file: `{"cases": [...]}` or a bare list. Only a regular file of at most [`MAX_CASE_FILE_BYTES`] is
/// opened (a FIFO or a device is refused from its metadata, without opening it, so nothing blocks or reads
/// forever); a UTF-8 byte order mark is skipped; text that is not UTF-8 or not the schema is invalid input (exit 2).
pub fn read_case_file(path: &Path) -> Result<Vec<Slice1Case>, CliError> {
    let bytes = read_bounded(path)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        CliError::Args(format!(
            "{}: not a bench case file: not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.valid_up_to()
        ))
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let not_cases = |e: serde_json::Error| CliError::Args(format!("{}: not a bench case file: {e}", path.display()));
    let value: serde_json::Value = serde_json::from_str(text).map_err(not_cases)?;
    let list = match value {
        serde_json::Value::Array(_) => value,
        serde_json::Value::Object(mut o) => o
            .remove("cases")
            .ok_or_else(|| CliError::Args(format!("{}: not a bench case file: no \"cases\" list", path.display())))?,
        _ => return Err(CliError::Args(format!("{}: not a bench case file: not a list or an object", path.display()))),
    };
    serde_json::from_value::<Vec<Slice1Case>>(list).map_err(not_cases)
}

fn read_bounded(path: &Path) -> Result<Vec<u8>, CliError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io = |source: std::io::Error| CliError::Io { path: path.to_path_buf(), source };
    let not_regular =
        |kind: &str| CliError::Args(format!("{}: a case file must be a regular file, this is {kind}", path.display()));
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular(file_kind(&meta)));
    }
    let too_large = |len: u64| {
        CliError::Args(format!(
            "{}: a case file is at most {MAX_CASE_FILE_BYTES} bytes, this one has {len}",
            path.display()
        ))
    };
    if meta.len() > MAX_CASE_FILE_BYTES {
        return Err(too_large(meta.len()));
    }
    // Non-blocking: if the path was swapped for a FIFO since the check, open returns instead of waiting.
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular(file_kind(&meta)));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_CASE_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > MAX_CASE_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}
