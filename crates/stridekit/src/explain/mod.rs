//! A buffer-tensor description, validated and explained: every figure of `stridekit explain` (and of the Python
//! package's `stridekit.explain`), computed once here so that the command line and the bindings agree.
//!
//! Every figure that can still be computed for an invalid description is reported (`None` where it cannot, e.g. on
//! overflow). The layout properties of an invalid description are those of the same sizes and strides with a
//! sufficient TotalTensorSizeInBytes, no alignment guarantee and no flags, when those validate.
//!
//! ```
//! use stridekit::DataType;
//! use stridekit::explain::{ExplainOptions, Explanation, PictureValues, StridesSource};
//! let e = Explanation::new(DataType::Float32, &[2, 3], Some(&[5, 1]), StridesSource::Given, &ExplainOptions::default());
//! assert!(e.is_valid());
//! assert_eq!(e.physical_element_extent, Some(8));
//! assert_eq!(e.min_buffer_size_bytes, Some(32));
//! assert_eq!(e.properties(), ["padded: 2 elements of the buffer hold no element (8 bytes with the round-up to 4)"]);
//! assert!(e.text(PictureValues::Labels).contains("Value:  | A | B | C | x | x | D | E | F |"));
//! ```

pub mod render;

use crate::buffer_size::packed_strides_u64;
use crate::{
    BufferTensorDesc, DataType, FeatureLevel, TensorDescError, TensorFlags, TensorLayout, TensorRole,
    calc_buffer_tensor_size, dmlx_calc_buffer_tensor_size,
};
use std::fmt::{self, Write as _};

/// Where the strides of an explained description come from (shown next to them).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StridesSource {
    /// The caller gave them.
    Given,
    /// Computed from a layout label such as `NHWC` (kept as the caller wrote it; shown upper-case).
    Layout(String),
    /// None given: packed row-major.
    Packed,
}

impl fmt::Display for StridesSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StridesSource::Given => f.write_str("given"),
            StridesSource::Layout(label) => write!(f, "from layout {}", label.to_uppercase()),
            StridesSource::Packed => f.write_str("packed (no strides given)"),
        }
    }
}

/// The optional fields of the description and how to validate it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplainOptions {
    /// TotalTensorSizeInBytes; `None` = the exact minimum ([`calc_buffer_tensor_size`], 0 when it fails).
    pub total_tensor_size_in_bytes: Option<u64>,
    /// GuaranteedBaseOffsetAlignment in bytes (0 = no guarantee).
    pub guaranteed_base_offset_alignment: u32,
    /// `DML_TENSOR_FLAGS`.
    pub flags: TensorFlags,
    /// Validate as a standalone tensor or as an operator's input or output (D1).
    pub role: TensorRole,
    /// The feature level whose tables apply (D7).
    pub feature_level: FeatureLevel,
}

impl Default for ExplainOptions {
    fn default() -> Self {
        ExplainOptions {
            total_tensor_size_in_bytes: None,
            guaranteed_base_offset_alignment: 0,
            flags: TensorFlags::NONE,
            role: TensorRole::Standalone,
            feature_level: FeatureLevel::LATEST,
        }
    }
}

/// What the pictures show for each element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PictureValues {
    /// Letters A, B, ... in logical order (the strides page's pictures).
    #[default]
    Labels,
    /// Each element's offset in the buffer, in elements.
    Offsets,
}

/// Everything `explain` says about a description. Figures are `None` where they cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// The description explained (TotalTensorSizeInBytes filled in when it was not given).
    pub desc: BufferTensorDesc,
    /// Where the strides come from.
    pub strides_source: StridesSource,
    /// The feature level it was validated at.
    pub feature_level: FeatureLevel,
    /// The role it was validated in.
    pub role: TensorRole,
    /// The first rule the description breaks, if any.
    pub error: Option<TensorDescError>,
    /// The layout, or that of the relaxed description when only size, alignment, flag or level rules failed.
    pub layout: Option<TensorLayout>,
    /// The strides given, or the packed strides when they fit u32.
    pub effective_strides: Option<Vec<u32>>,
    /// Why [`effective_strides`](Self::effective_strides) is `None` (the packed strides do not fit u32, or not even
    /// 64-bit arithmetic).
    pub strides_note: Option<String>,
    /// The product of the sizes (None on 64-bit overflow).
    pub logical_element_count: Option<u64>,
    /// Index of the last element + 1 (None on overflow or when the shape is invalid).
    pub physical_element_extent: Option<u64>,
    /// DMLCalcBufferTensorSize, exact ([`calc_buffer_tensor_size`]).
    pub min_buffer_size_bytes: Option<u64>,
    /// What DirectMLX's helper returns, wrap included ([`dmlx_calc_buffer_tensor_size`]).
    pub dmlx_buffer_size_bytes: u64,
}

impl Explanation {
    /// Validates and measures a description of `data_type`, `sizes` and `strides` (in elements; `None` = packed).
    pub fn new(
        data_type: DataType,
        sizes: &[u32],
        strides: Option<&[u32]>,
        strides_source: StridesSource,
        options: &ExplainOptions,
    ) -> Self {
        let min_bytes = calc_buffer_tensor_size(data_type, sizes, strides).ok();
        let dmlx_bytes = dmlx_calc_buffer_tensor_size(data_type.raw(), sizes, strides);
        let desc = BufferTensorDesc {
            data_type,
            flags: options.flags,
            sizes: sizes.to_vec(),
            strides: strides.map(<[u32]>::to_vec),
            total_tensor_size_in_bytes: options.total_tensor_size_in_bytes.or(min_bytes).unwrap_or(0),
            guaranteed_base_offset_alignment: options.guaranteed_base_offset_alignment,
        };
        let (error, layout) = match desc.validate_as(options.role, options.feature_level) {
            Ok(layout) => (None, Some(layout)),
            Err(e) => {
                let relaxed = BufferTensorDesc {
                    flags: TensorFlags::NONE,
                    total_tensor_size_in_bytes: min_bytes.unwrap_or(0),
                    guaranteed_base_offset_alignment: 0,
                    ..desc.clone()
                };
                (Some(e), relaxed.validate().ok())
            }
        };
        let (effective_strides, strides_note) = match strides {
            Some(s) => (Some(s.to_vec()), None),
            None => packed_strides_u32(sizes),
        };
        let logical_element_count = sizes.iter().try_fold(1u64, |acc, &s| acc.checked_mul(u64::from(s)));
        let physical_element_extent = effective_strides.as_ref().and_then(|st| {
            if sizes.is_empty() || sizes.contains(&0) || st.len() != sizes.len() {
                return None;
            }
            sizes
                .iter()
                .zip(st)
                .try_fold(0u64, |acc, (&s, &t)| {
                    u64::from(s - 1).checked_mul(u64::from(t)).and_then(|x| acc.checked_add(x))
                })
                .and_then(|last| last.checked_add(1))
        });
        Explanation {
            desc,
            strides_source,
            feature_level: options.feature_level,
            role: options.role,
            error,
            layout,
            effective_strides,
            strides_note,
            logical_element_count,
            physical_element_extent,
            min_buffer_size_bytes: min_bytes,
            dmlx_buffer_size_bytes: dmlx_bytes,
        }
    }

    /// Whether the description is valid.
    pub fn is_valid(&self) -> bool {
        self.error.is_none()
    }

    /// Why DirectMLX's helper disagrees with the exact size, or `None` when they agree.
    pub fn dmlx_warning(&self) -> Option<String> {
        if self.min_buffer_size_bytes == Some(self.dmlx_buffer_size_bytes) {
            return None;
        }
        let sizes = &self.desc.sizes;
        let why = if sizes.is_empty() {
            "reads Sizes[0] of an empty array (the exact helper rejects rank 0, R-BT-2)"
        } else if sizes.contains(&0) {
            if self.desc.strides.is_some() {
                "wraps Sizes - 1 to 4294967295 for a size of 0 (the exact helper rejects it, R-BT-3)"
            } else {
                "returns 0 for a size of 0 (the exact helper rejects it, R-BT-3)"
            }
        } else if self.desc.strides.as_ref().is_some_and(|s| s.len() != sizes.len()) {
            "reads strides that were not given (the exact helper rejects the count, R-BT-4)"
        } else if self.desc.strides.is_some() {
            "wraps its 32-bit index here"
        } else {
            "wraps its 64-bit product of the sizes here"
        };
        Some(format!("the reference DMLCalcBufferTensorSize {why}"))
    }

    /// The layout's properties, one phrase each (empty when no layout could be computed).
    pub fn properties(&self) -> Vec<String> {
        let Some(layout) = &self.layout else {
            return Vec::new();
        };
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

    /// The two pictures (logical view, then buffer view), or `None` when there is no layout or it is too large to
    /// draw ([`render::fits`]).
    pub fn pictures(&self, values: PictureValues) -> Option<(String, String)> {
        let layout = self.layout.as_ref().filter(|l| render::fits(l))?;
        let texts = render::element_texts(layout, values == PictureValues::Offsets);
        Some((render::logical_view(layout, &texts), render::buffer_view(layout, &texts)))
    }

    /// The report `stridekit explain` prints.
    pub fn text(&self, values: PictureValues) -> String {
        let d = &self.desc;
        let mut s = String::new();
        let _ = writeln!(s, "Data type:              {} ({})", d.data_type, element_size_text(d.data_type));
        let _ = writeln!(s, "Sizes:                  {}", list(&d.sizes));
        match (&self.effective_strides, &self.strides_note) {
            (Some(st), _) => {
                let _ = writeln!(s, "Strides:                {} ({})", list(st), self.strides_source);
            }
            (None, note) => {
                let _ = writeln!(s, "Strides:                {}", note.as_deref().unwrap_or("not computable"));
            }
        }
        let _ = writeln!(s, "Logical elements:       {}", opt(self.logical_element_count));
        let _ = writeln!(
            s,
            "Physical extent:        {} elements (index of the last element + 1)",
            opt(self.physical_element_extent)
        );
        let _ = writeln!(
            s,
            "Minimum buffer size:    {} bytes (DMLCalcBufferTensorSize, exact)",
            opt(self.min_buffer_size_bytes)
        );
        if let Some(warning) = self.dmlx_warning() {
            let _ = writeln!(s, "DirectMLX helper says:  {} bytes  WARNING: {warning}", self.dmlx_buffer_size_bytes);
        }
        let _ = writeln!(s, "TotalTensorSizeInBytes: {}", d.total_tensor_size_in_bytes);
        if d.guaranteed_base_offset_alignment != 0 {
            let _ = writeln!(s, "Base offset alignment:  {} bytes", d.guaranteed_base_offset_alignment);
        }
        if d.flags.bits() != 0 {
            let _ = writeln!(s, "Flags:                  {}", d.flags);
        }
        if self.role == TensorRole::Output {
            let _ = writeln!(s, "Role:                   output tensor (must not overlap, D1)");
        }
        if self.feature_level != FeatureLevel::LATEST {
            let _ = writeln!(s, "Feature level:          {}", self.feature_level);
        }
        if self.layout.is_some() {
            let _ = writeln!(s, "Layout:                 {}", self.properties().join("; "));
        }
        match &self.error {
            None => {
                let _ = writeln!(s, "Valid:                  yes");
            }
            Some(e) => {
                let _ = writeln!(s, "Valid:                  no: {e}");
            }
        }
        if self.layout.is_some() {
            match self.pictures(values) {
                Some((logical, buffer)) => {
                    let _ = writeln!(s, "\nLogical view:\n{logical}");
                    let _ = write!(s, "Buffer view (offset -> element, x = padding):\n{buffer}");
                }
                None => {
                    let _ = writeln!(
                        s,
                        "\n(pictures omitted: they are drawn for at most {} elements spanning at most {} offsets)",
                        render::MAX_PICTURE_ELEMENTS,
                        render::MAX_PICTURE_EXTENT
                    );
                }
            }
        }
        s
    }
}

/// Packed strides as DirectML's u32, or why they cannot be: the issue-9 report of eight sizes of 4294967295 said
/// "overflow u32" while the error spoke of 64 bits; the note now names the dimension and which limit it hits.
fn packed_strides_u32(sizes: &[u32]) -> (Option<Vec<u32>>, Option<String>) {
    if sizes.is_empty() {
        return (None, Some("not computable (no sizes)".to_owned()));
    }
    match packed_strides_u64(sizes) {
        Ok(strides) => match strides.iter().position(|&s| s > u64::from(u32::MAX)) {
            None => (Some(strides.iter().map(|&s| s as u32).collect()), None),
            Some(dim) => (
                None,
                Some(format!(
                    "not representable (the packed stride of dimension {dim} is {}, beyond DirectML's 32-bit strides)",
                    strides[dim]
                )),
            ),
        },
        Err(_) => {
            // The running product first leaves 64 bits below this dimension.
            let dim = (0..sizes.len())
                .rev()
                .find(|&d| sizes[d + 1..].iter().try_fold(1u64, |a, &s| a.checked_mul(u64::from(s))).is_none())
                .unwrap_or(0);
            (None, Some(format!("not computable (the packed stride of dimension {dim} overflows 64-bit arithmetic)")))
        }
    }
}

/// `{a, b, c}`, as DirectML's documentation writes arrays.
pub fn list<T: ToString>(v: &[T]) -> String {
    format!("{{{}}}", v.iter().map(T::to_string).collect::<Vec<_>>().join(", "))
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "overflow / not computable".to_owned(), |x| x.to_string())
}

/// "32 bits, 4 bytes", or the sub-byte form for UINT4/INT4.
pub fn element_size_text(data_type: DataType) -> String {
    match data_type.size_in_bytes() {
        Some(b) => format!("{} bits, {b} byte{}", data_type.size_in_bits(), if b == 1 { "" } else { "s" }),
        None => format!("{} bits, two elements per byte (first in the low nibble)", data_type.size_in_bits()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explain(sizes: &[u32], strides: Option<&[u32]>) -> Explanation {
        let source = if strides.is_some() { StridesSource::Given } else { StridesSource::Packed };
        Explanation::new(DataType::Float32, sizes, strides, source, &ExplainOptions::default())
    }

    /// Issue 9: eight sizes of 4294967295 overflow 64 bits; the strides line and the error must agree, and the DMLX
    /// warning must not blame a 32-bit index (the packed path multiplies in 64 bits).
    #[test]
    fn huge_packed_sizes_name_64_bits_consistently() {
        let e = explain(&[u32::MAX; 8], None);
        let text = e.text(PictureValues::Labels);
        let error = e.error.as_ref().unwrap().to_string();
        assert!(error.contains("64-bit"), "{error}");
        assert!(text.contains("Strides:                not computable (the packed stride of dimension"), "{text}");
        assert!(text.contains("overflows 64-bit arithmetic"), "{text}");
        assert!(!text.contains("32-bit index"), "{text}");
        assert!(text.contains("wraps its 64-bit product of the sizes"), "{text}");
    }

    /// Issue 9: with strides of 4294967295 the logical count's overflow showed "stride 0".
    #[test]
    fn logical_count_overflow_names_no_stride() {
        let e = explain(&[u32::MAX; 3], Some(&[u32::MAX; 3]));
        let error = e.error.unwrap().to_string();
        assert_eq!(
            error,
            "error[R-BT-6]: Sizes: the logical element count overflows 64-bit arithmetic at dimension 2 (size 4294967295)"
        );
    }

    #[test]
    fn packed_strides_beyond_u32_say_so() {
        let e = explain(&[2, 65536, 65536], None);
        assert_eq!(e.effective_strides, None);
        let note = e.strides_note.unwrap();
        assert!(note.contains("dimension 0 is 4294967296, beyond DirectML's 32-bit strides"), "{note}");
    }

    #[test]
    fn given_strides_keep_the_32_bit_warning() {
        let e = explain(&[65537, 65537], Some(&[65536, 1]));
        assert_eq!(e.dmlx_warning().unwrap(), "the reference DMLCalcBufferTensorSize wraps its 32-bit index here");
    }
}
