//! `stridekit explain`: a tensor description, validated and explained.
//!
//! Every figure that can still be computed for an invalid description is reported (the JSON gives `null` where it
//! cannot, e.g. on overflow). The layout properties of an invalid description are those of the same sizes and strides
//! with a sufficient TotalTensorSizeInBytes, no alignment guarantee and no flags, when those validate.

use crate::cli::{ExplainArgs, Values};
use crate::error::{CliError, EXIT_INVALID};
use crate::{parse, render};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use stridekit::{
    BufferTensorDesc, DataType, FeatureLevel, TensorDescError, TensorLayout, TensorRole, calc_buffer_tensor_size,
    dmlx_calc_buffer_tensor_size, packed_strides, strides_for_label,
};

/// What `explain` found out about a description.
struct Report {
    desc: BufferTensorDesc,
    strides_source: String,
    level: FeatureLevel,
    role: TensorRole,
    /// The validation error, if any.
    error: Option<TensorDescError>,
    /// The layout, or that of the relaxed description when only size/alignment/flag/level rules failed.
    layout: Option<TensorLayout>,
    effective_strides: Option<Vec<u32>>,
    logical_count: Option<u64>,
    physical_extent: Option<u64>,
    min_bytes: Option<u64>,
    dmlx_bytes: u64,
}

/// Runs `stridekit explain`.
pub fn run(args: &ExplainArgs) -> Result<ExitCode, CliError> {
    let report = analyse(args)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", to_json(&report))?;
    } else {
        out.write_all(to_text(&report, args.values).as_bytes())?;
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

fn analyse(args: &ExplainArgs) -> Result<Report, CliError> {
    let data_type = parse::data_type(&args.dtype)?;
    let sizes = parse::u32_list("--sizes", &args.sizes)?;
    let level = parse::feature_level(args.feature_level.as_deref())?;
    let flags = parse::flags(&args.flags)?;
    let (strides, strides_source) = match (&args.strides, &args.layout) {
        (Some(s), _) => (Some(parse::u32_list("--strides", s)?), "given".to_owned()),
        (None, Some(label)) => {
            (Some(strides_for_label(&sizes, label)?), format!("from layout {}", label.to_uppercase()))
        }
        (None, None) => (None, "packed (no strides given)".to_owned()),
    };
    let min_bytes = calc_buffer_tensor_size(data_type, &sizes, strides.as_deref());
    let dmlx_bytes = dmlx_calc_buffer_tensor_size(data_type.raw(), &sizes, strides.as_deref());
    let desc = BufferTensorDesc {
        data_type,
        flags,
        sizes: sizes.clone(),
        strides: strides.clone(),
        total_tensor_size_in_bytes: args.total_bytes.or(min_bytes.as_ref().ok().copied()).unwrap_or(0),
        guaranteed_base_offset_alignment: args.alignment,
    };
    let role = if args.as_output { TensorRole::Output } else { TensorRole::Standalone };
    let validated = desc.validate_as(role, level);
    let (error, layout) = match validated {
        Ok(layout) => (None, Some(layout)),
        Err(e) => {
            let relaxed = BufferTensorDesc {
                flags: stridekit::TensorFlags::NONE,
                total_tensor_size_in_bytes: min_bytes.as_ref().ok().copied().unwrap_or(0),
                guaranteed_base_offset_alignment: 0,
                ..desc.clone()
            };
            (Some(e), relaxed.validate().ok())
        }
    };
    let effective_strides = match &strides {
        Some(s) => Some(s.clone()),
        None => packed_strides(&sizes).ok(),
    };
    let logical_count = sizes.iter().try_fold(1u64, |acc, &s| acc.checked_mul(u64::from(s)));
    let physical_extent = effective_strides.as_ref().and_then(|st| {
        if sizes.is_empty() || sizes.contains(&0) || st.len() != sizes.len() {
            return None;
        }
        sizes
            .iter()
            .zip(st)
            .try_fold(0u64, |acc, (&s, &t)| u64::from(s - 1).checked_mul(u64::from(t)).and_then(|x| acc.checked_add(x)))
            .and_then(|last| last.checked_add(1))
    });
    Ok(Report {
        desc,
        strides_source,
        level,
        role,
        error,
        layout,
        effective_strides,
        logical_count,
        physical_extent,
        min_bytes: min_bytes.ok(),
        dmlx_bytes,
    })
}

fn list<T: ToString>(v: &[T]) -> String {
    format!("{{{}}}", v.iter().map(T::to_string).collect::<Vec<_>>().join(", "))
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "overflow / not computable".to_owned(), |x| x.to_string())
}

fn element_size_text(data_type: DataType) -> String {
    match data_type.size_in_bytes() {
        Some(b) => format!("{} bits, {b} byte{}", data_type.size_in_bits(), if b == 1 { "" } else { "s" }),
        None => format!("{} bits, two elements per byte (first in the low nibble)", data_type.size_in_bits()),
    }
}

fn properties(layout: &TensorLayout) -> Vec<String> {
    let mut p = Vec::new();
    if layout.is_packed() {
        p.push("packed (every element has its own offset, no padding)".to_owned());
    }
    let b = layout.broadcast_dims();
    if !b.is_empty() {
        p.push(format!("broadcast along dimension{} {} (stride 0)", if b.len() == 1 { "" } else { "s" }, list(&b)));
    }
    if layout.is_padded() {
        p.push(format!(
            "padded: {} element{} of the buffer hold no element{}",
            opt(layout.padding_elements()),
            if layout.padding_elements() == Some(1) { "" } else { "s" },
            layout.padding_bytes().map(|b| format!(" ({b} bytes with the round-up to 4)")).unwrap_or_default()
        ));
    }
    if let Some(o) = layout.first_overlap() {
        p.push(format!(
            "overlapping: dimension {} (size {}, stride {}) lands inside the {} elements spanned by the smaller strides",
            o.dim, o.size, o.stride, o.inner_extent
        ));
    }
    if p.is_empty() {
        p.push("plain".to_owned());
    }
    p
}

fn to_text(r: &Report, values: Values) -> String {
    let d = &r.desc;
    let mut s = String::new();
    let _ = writeln!(s, "Data type:              {} ({})", d.data_type, element_size_text(d.data_type));
    let _ = writeln!(s, "Sizes:                  {}", list(&d.sizes));
    match &r.effective_strides {
        Some(st) => {
            let _ = writeln!(s, "Strides:                {} ({})", list(st), r.strides_source);
        }
        None => {
            let _ = writeln!(s, "Strides:                not computable (packed strides overflow u32)");
        }
    }
    let _ = writeln!(s, "Logical elements:       {}", opt(r.logical_count));
    let _ = writeln!(s, "Physical extent:        {} elements (index of the last element + 1)", opt(r.physical_extent));
    let _ = writeln!(s, "Minimum buffer size:    {} bytes (DMLCalcBufferTensorSize, exact)", opt(r.min_bytes));
    if r.min_bytes != Some(r.dmlx_bytes) {
        let _ = writeln!(
            s,
            "DirectMLX helper says:  {} bytes  WARNING: the reference DMLCalcBufferTensorSize wraps its 32-bit index here",
            r.dmlx_bytes
        );
    }
    let _ = writeln!(s, "TotalTensorSizeInBytes: {}", d.total_tensor_size_in_bytes);
    if d.guaranteed_base_offset_alignment != 0 {
        let _ = writeln!(s, "Base offset alignment:  {} bytes", d.guaranteed_base_offset_alignment);
    }
    if d.flags.bits() != 0 {
        let _ = writeln!(s, "Flags:                  {}", d.flags);
    }
    if r.role == TensorRole::Output {
        let _ = writeln!(s, "Role:                   output tensor (must not overlap, D1)");
    }
    if r.level != FeatureLevel::LATEST {
        let _ = writeln!(s, "Feature level:          {}", r.level);
    }
    if let Some(layout) = &r.layout {
        let props = properties(layout);
        let _ = writeln!(s, "Layout:                 {}", props.join("; "));
    }
    match &r.error {
        None => {
            let _ = writeln!(s, "Valid:                  yes");
        }
        Some(e) => {
            let _ = writeln!(s, "Valid:                  no: {e}");
        }
    }
    if let Some(layout) = &r.layout {
        if render::fits(layout) {
            let texts = render::element_texts(layout, values == Values::Offsets);
            let _ = writeln!(s, "\nLogical view:\n{}", render::logical_view(layout, &texts));
            let _ = write!(s, "Buffer view (offset -> element, x = padding):\n{}", render::buffer_view(layout, &texts));
        } else {
            let _ = writeln!(
                s,
                "\n(pictures omitted: they are drawn for at most {} elements spanning at most {} offsets)",
                render::MAX_PICTURE_ELEMENTS,
                render::MAX_PICTURE_EXTENT
            );
        }
    }
    s
}

fn to_json(r: &Report) -> Value {
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
        "feature_level": r.level.label(),
        "logical_element_count": r.logical_count,
        "physical_element_extent": r.physical_extent,
        "min_buffer_size_bytes": r.min_bytes,
        "dmlx_buffer_size_bytes": r.dmlx_bytes,
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
