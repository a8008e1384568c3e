//! `stridekit explain`: a tensor description, validated and explained. The figures, the text report and the
//! pictures come from the model ([`stridekit::explain`], shared with the Python package); this command parses the
//! flags and prints the text or the JSON (`null` where a figure cannot be computed, e.g. on overflow).

use crate::cli::{ExplainArgs, Values};
use crate::error::{CliError, EXIT_INVALID};
use crate::parse;
use serde_json::{Value, json};
use std::io::Write as _;
use std::process::ExitCode;
use stridekit::explain::{ExplainOptions, Explanation, PictureValues, StridesSource};
use stridekit::{TensorLayout, TensorRole, strides_for_label};

/// Runs `stridekit explain`.
pub fn run(args: &ExplainArgs) -> Result<ExitCode, CliError> {
    let report = analyse(args)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", to_json(&report))?;
    } else {
        let values = match args.values {
            Values::Labels => PictureValues::Labels,
            Values::Offsets => PictureValues::Offsets,
        };
        out.write_all(report.text(values).as_bytes())?;
    }
    match &report.error {
        None => Ok(ExitCode::SUCCESS),
        Some(e) => {
            if !args.json {
                eprintln!("{e}");
            }
            Ok(ExitCode::from(EXIT_INVALID))
        }
    }
}

/// Parses the flags and asks the model ([`Explanation`]) for every figure.
fn analyse(args: &ExplainArgs) -> Result<Explanation, CliError> {
    let data_type = parse::data_type(&args.dtype)?;
    let sizes = parse::u32_list("--sizes", &args.sizes)?;
    let level = parse::feature_level(args.feature_level.as_deref())?;
    let flags = parse::flags(&args.flags)?;
    let (strides, source) = match (&args.strides, &args.layout) {
        (Some(s), _) => (Some(parse::u32_list("--strides", s)?), StridesSource::Given),
        (None, Some(label)) => (Some(strides_for_label(&sizes, label)?), StridesSource::Layout(label.clone())),
        (None, None) => (None, StridesSource::Packed),
    };
    let options = ExplainOptions {
        total_tensor_size_in_bytes: args.total_bytes,
        guaranteed_base_offset_alignment: args.alignment,
        flags,
        role: if args.as_output { TensorRole::Output } else { TensorRole::Standalone },
        feature_level: level,
    };
    Ok(Explanation::new(data_type, &sizes, strides.as_deref(), source, &options))
}

fn to_json(r: &Explanation) -> Value {
    let d = &r.desc;
    let l = r.layout.as_ref();
    json!({
        "data_type": d.data_type.name(),
        "element_size_bits": d.data_type.size_in_bits(),
        "sizes": d.sizes,
        "strides": r.effective_strides,
        "strides_given": d.strides.is_some(),
        "total_tensor_size_in_bytes": d.total_tensor_size_in_bytes,
        "guaranteed_base_offset_alignment": d.guaranteed_base_offset_alignment,
        "flags": d.flags.bits(),
        "feature_level": r.feature_level.label(),
        "logical_element_count": r.logical_element_count,
        "physical_element_extent": r.physical_element_extent,
        "min_buffer_size_bytes": r.min_buffer_size_bytes,
        "dmlx_buffer_size_bytes": r.dmlx_buffer_size_bytes,
        "packed": l.map(TensorLayout::is_packed),
        "broadcast": l.map(|l| !l.broadcast_dims().is_empty()),
        "broadcast_dims": l.map(TensorLayout::broadcast_dims),
        "padded": l.map(TensorLayout::is_padded),
        "padding_bytes": l.and_then(TensorLayout::padding_bytes),
        "overlapping": l.map(TensorLayout::is_overlapping),
        "valid": r.error.is_none(),
        "errors": r.error.iter().map(|e| json!({"rule": e.rule(), "message": e.to_string()})).collect::<Vec<_>>(),
    })
}
