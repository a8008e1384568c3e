//! Stride helpers: packed strides, layouts by label, DirectMLX's InterleavedChannel policy, NumPy broadcasting and
//! row padding. All take sizes in the operator's canonical order (NCHW, NCDHW, ...) and return strides in elements.

use crate::DataType;
use crate::error::{TensorDescError, TensorDescErrorKind as K};

/// Why a stride helper cannot produce strides.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// The label's length is not the rank.
    #[error("error[layout]: layout label '{label}' has {len} letters but Sizes has {rank} dimensions")]
    LabelLength {
        /// The label.
        label: String,
        /// Its length.
        len: usize,
        /// The rank.
        rank: usize,
    },
    /// A letter appears twice.
    #[error("error[layout]: layout label '{label}' repeats '{letter}'; each letter names one dimension")]
    LabelRepeats {
        /// The label.
        label: String,
        /// The repeated letter.
        letter: char,
    },
    /// NumPy broadcasting cannot stretch `size` to `target`.
    #[error(
        "error[layout]: cannot broadcast Sizes {sizes:?} to {target:?}: dimension {dim} has size {size}, which is neither 1 nor {target_size}"
    )]
    NotBroadcastable {
        /// The source sizes.
        sizes: Vec<u32>,
        /// The target shape.
        target: Vec<u32>,
        /// The target dimension that fails.
        dim: usize,
        /// The source size there.
        size: u32,
        /// The target size there.
        target_size: u32,
    },
    /// Broadcasting to a shape of lower rank.
    #[error("error[layout]: cannot broadcast {rank} dimensions to a shape of {target_rank}")]
    BroadcastRank {
        /// The source rank.
        rank: usize,
        /// The target rank.
        target_rank: usize,
    },
    /// A row alignment that is not a power of two multiple of the element size.
    #[error(
        "error[layout]: row alignment {alignment} bytes must be a power of two and at least the element size ({element_bits} bits)"
    )]
    RowAlignment {
        /// The alignment asked for.
        alignment: u32,
        /// The element size.
        element_bits: u32,
    },
    /// The sizes themselves are invalid, or a stride does not fit the u32 of a descriptor.
    #[error(transparent)]
    Desc(#[from] TensorDescError),
}

fn to_u32(strides: Vec<u64>, sizes: &[u32]) -> Result<Vec<u32>, TensorDescError> {
    strides
        .iter()
        .enumerate()
        .map(|(dim, &s)| {
            u32::try_from(s)
                .map_err(|_| K::Overflow { what: "a stride (u32)", dim, size: sizes[dim], stride: s }.into())
        })
        .collect()
}

/// Row-major packed strides: the last dimension has stride 1, `stride[i] = prod(sizes[i+1..])` (R-BT-4).
///
/// ```
/// assert_eq!(stridekit::packed_strides(&[1, 1, 3, 5]).unwrap(), [15, 15, 5, 1]);
/// ```
pub fn packed_strides(sizes: &[u32]) -> Result<Vec<u32>, TensorDescError> {
    crate::buffer_size::check_shape(sizes, None, crate::FeatureLevel::LATEST)?;
    to_u32(crate::buffer_size::packed_strides_u64(sizes)?, sizes)
}

/// The canonical position of a label letter: N, C, D, H, W in that order when every letter is one of them; otherwise
/// alphabetical (so "ab" is row-major, "ba" column-major, and digit labels such as "0231" work as permutations).
fn canonical_order(letters: &[char]) -> Vec<usize> {
    const DML: &str = "NCDHW";
    let key = |c: char| -> usize {
        if letters.iter().all(|&l| DML.contains(l)) { DML.find(c).unwrap_or(0) } else { c as usize }
    };
    let mut sorted: Vec<char> = letters.to_vec();
    sorted.sort_by_key(|&c| key(c));
    letters.iter().map(|c| sorted.iter().position(|s| s == c).unwrap_or(0)).collect()
}

/// Strides for `sizes`, given in canonical order, laid out in memory in the order of `label`, outermost first.
///
/// `sizes` are in the canonical order of the label's letters: N, C, D, H, W for DirectML's labels (NCHW, NHWC,
/// NCDHW, NDHWC, CHW, HWC, HW, WH, DHW, WHD, ...), alphabetical for any other label of distinct letters or digits.
/// Letters are case-insensitive.
///
/// ```
/// use stridekit::strides_for_label;
/// // NCHW sizes {1,1,3,5} laid out NHWC (the strides page example).
/// assert_eq!(strides_for_label(&[1, 1, 3, 5], "NHWC").unwrap(), [15, 1, 5, 1]);
/// // A 2x3 matrix (HW) stored column-major (WH).
/// assert_eq!(strides_for_label(&[2, 3], "WH").unwrap(), [1, 2]);
/// ```
pub fn strides_for_label(sizes: &[u32], label: &str) -> Result<Vec<u32>, LayoutError> {
    crate::buffer_size::check_shape(sizes, None, crate::FeatureLevel::LATEST)?;
    let letters: Vec<char> = label.trim().chars().map(|c| c.to_ascii_uppercase()).collect();
    if letters.len() != sizes.len() {
        return Err(LayoutError::LabelLength { label: label.to_owned(), len: letters.len(), rank: sizes.len() });
    }
    for (i, &c) in letters.iter().enumerate() {
        if letters[..i].contains(&c) {
            return Err(LayoutError::LabelRepeats { label: label.to_owned(), letter: c });
        }
    }
    let dims = canonical_order(&letters);
    let mut strides = vec![0u64; sizes.len()];
    let mut running = 1u64;
    for &dim in dims.iter().rev() {
        strides[dim] = running;
        running = running.saturating_mul(u64::from(sizes[dim]));
    }
    Ok(to_u32(strides, sizes)?)
}

/// DirectMLX's `TensorPolicy::InterleavedChannel`: the dimension order (0, 2, ..., n-1, 1), i.e. NCHW -> NHWC.
/// `stride[N] = prod(sizes[1..])`, `stride[C] = 1`, then from the last dimension down to 2 a running stride that
/// starts at `sizes[C]`. A rank-1 tensor gets stride 1.
///
/// ```
/// assert_eq!(stridekit::interleaved_channel_strides(&[2, 3, 4, 5]).unwrap(), [60, 1, 15, 3]);
/// ```
pub fn interleaved_channel_strides(sizes: &[u32]) -> Result<Vec<u32>, TensorDescError> {
    crate::buffer_size::check_shape(sizes, None, crate::FeatureLevel::LATEST)?;
    let rank = sizes.len();
    let mut strides = vec![1u64; rank];
    if rank >= 2 {
        strides[0] = sizes[1..].iter().map(|&s| u64::from(s)).product();
        strides[1] = 1;
        let mut running = u64::from(sizes[1]);
        for d in (2..rank).rev() {
            strides[d] = running;
            running = running.saturating_mul(u64::from(sizes[d]));
        }
    }
    to_u32(strides, sizes)
}

/// NumPy-style broadcast of a tensor with `sizes` and `strides` (`None` = packed) to `target`: dimensions are aligned
/// from the right; a size-1 dimension or a missing leading one gets stride 0. Returns the strides over `target`.
///
/// ```
/// // A row of 3 broadcast to 2x3: the strides page's broadcast example.
/// assert_eq!(stridekit::broadcast_strides(&[3], None, &[2, 3]).unwrap(), [0, 1]);
/// ```
pub fn broadcast_strides(sizes: &[u32], strides: Option<&[u32]>, target: &[u32]) -> Result<Vec<u32>, LayoutError> {
    crate::buffer_size::check_shape(sizes, strides, crate::FeatureLevel::LATEST)?;
    crate::buffer_size::check_shape(target, None, crate::FeatureLevel::LATEST)?;
    if sizes.len() > target.len() {
        return Err(LayoutError::BroadcastRank { rank: sizes.len(), target_rank: target.len() });
    }
    let own = match strides {
        Some(s) => s.to_vec(),
        None => packed_strides(sizes)?,
    };
    let lead = target.len() - sizes.len();
    let mut out = vec![0u32; target.len()];
    for dim in lead..target.len() {
        let (size, target_size) = (sizes[dim - lead], target[dim]);
        out[dim] = if size == target_size {
            own[dim - lead]
        } else if size == 1 {
            0
        } else {
            return Err(LayoutError::NotBroadcastable {
                sizes: sizes.to_vec(),
                target: target.to_vec(),
                dim,
                size,
                target_size,
            });
        };
    }
    Ok(out)
}

/// Row-major strides where every row (the last dimension) starts on a multiple of `row_alignment_bytes`: the row
/// stride is rounded up, outer dimensions are packed over the padded rows. `row_alignment_bytes` must be a power of two
/// of at least one element (a byte for the 4-bit types).
///
/// ```
/// use stridekit::{DataType, padded_row_strides};
/// // 3 floats per row, rows on 32-byte boundaries: row stride 8 elements.
/// assert_eq!(padded_row_strides(DataType::Float32, &[2, 3], 32).unwrap(), [8, 1]);
/// ```
pub fn padded_row_strides(
    data_type: DataType,
    sizes: &[u32],
    row_alignment_bytes: u32,
) -> Result<Vec<u32>, LayoutError> {
    crate::buffer_size::check_shape(sizes, None, crate::FeatureLevel::LATEST)?;
    let bits = data_type.size_in_bits();
    if !row_alignment_bytes.is_power_of_two() || u64::from(row_alignment_bytes) * 8 < u64::from(bits) {
        return Err(LayoutError::RowAlignment { alignment: row_alignment_bytes, element_bits: bits });
    }
    let rank = sizes.len();
    let mut strides = vec![1u64; rank];
    let align_elements = u64::from(row_alignment_bytes) * 8 / u64::from(bits);
    let mut running = u64::from(sizes[rank - 1]).next_multiple_of(align_elements);
    for d in (0..rank - 1).rev() {
        strides[d] = running;
        running = running.saturating_mul(u64::from(sizes[d]));
    }
    Ok(to_u32(strides, sizes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(strides_for_label(&[1, 1, 3, 5], "NCHW").unwrap(), [15, 15, 5, 1]);
        assert_eq!(
            strides_for_label(&[2, 3, 4, 5], "nhwc").unwrap(),
            interleaved_channel_strides(&[2, 3, 4, 5]).unwrap()
        );
        assert_eq!(strides_for_label(&[2, 2, 3], "DHW").unwrap(), [6, 3, 1]);
        assert_eq!(strides_for_label(&[2, 2, 3], "WHD").unwrap(), [1, 2, 4]);
        assert_eq!(strides_for_label(&[2, 3, 4, 5, 6], "NDHWC").unwrap(), [360, 1, 90, 18, 3]);
        assert_eq!(strides_for_label(&[2, 3, 4], "HWC").unwrap(), [1, 8, 2]);
        assert_eq!(strides_for_label(&[2, 3, 4], "bca").unwrap(), [1, 8, 2]);
        assert_eq!(strides_for_label(&[2, 3, 4], "021").unwrap(), [12, 1, 3]);
        assert!(matches!(strides_for_label(&[2, 3], "NCH"), Err(LayoutError::LabelLength { .. })));
        assert_eq!(
            strides_for_label(&[2, 3], "HH").unwrap_err().to_string(),
            "error[layout]: layout label 'HH' repeats 'H'; each letter names one dimension"
        );
        let e = strides_for_label(&[65536, 65536, 2], "WHD").unwrap_err();
        assert!(e.to_string().starts_with("error[R-BT-6]"), "{e}");
    }

    #[test]
    fn interleaved() {
        assert_eq!(interleaved_channel_strides(&[1, 1, 3, 5]).unwrap(), [15, 1, 5, 1]);
        assert_eq!(interleaved_channel_strides(&[7]).unwrap(), [1]);
        assert_eq!(interleaved_channel_strides(&[2, 3]).unwrap(), [3, 1]);
    }

    #[test]
    fn broadcast() {
        assert_eq!(broadcast_strides(&[3, 1], None, &[2, 3, 4]).unwrap(), [0, 1, 0]);
        assert_eq!(broadcast_strides(&[2, 3], Some(&[5, 1]), &[2, 3]).unwrap(), [5, 1]);
        assert!(matches!(broadcast_strides(&[3], None, &[2, 4]), Err(LayoutError::NotBroadcastable { dim: 1, .. })));
        assert!(matches!(broadcast_strides(&[1, 3], None, &[3]), Err(LayoutError::BroadcastRank { .. })));
    }

    #[test]
    fn padded_rows() {
        assert_eq!(padded_row_strides(DataType::Uint8, &[4, 3, 5], 16).unwrap(), [48, 16, 1]);
        assert_eq!(padded_row_strides(DataType::Uint4, &[2, 5], 4).unwrap(), [8, 1]);
        assert_eq!(padded_row_strides(DataType::Float64, &[3], 64).unwrap(), [1]);
        assert!(matches!(padded_row_strides(DataType::Float64, &[2, 3], 4), Err(LayoutError::RowAlignment { .. })));
        assert!(matches!(padded_row_strides(DataType::Float32, &[2, 3], 12), Err(LayoutError::RowAlignment { .. })));
    }
}
