//! `TensorLayout`: a validated buffer tensor and everything that can be said about its layout.
//!
//! Conventions: offsets and extents count elements from the start of the bound range (SPEC §2.3); "physical extent"
//! is the index of the last element + 1; "logical order" is row-major over the sizes.

mod labels;
mod offsets;

pub use labels::{
    LayoutError, broadcast_strides, interleaved_channel_strides, packed_strides, padded_row_strides, strides_for_label,
};
pub use offsets::ElementOffsets;

use crate::{BufferTensorDesc, DataType, TensorFlags};

/// A buffer tensor that passed validation. Private fields: it can only come from
/// [`BufferTensorDesc::validate`] or [`BufferTensorDesc::validate_as`], so its numbers are known to be consistent and
/// to fit the limits of R-BT-6 (every offset fits a `u32`, every count a `u64`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TensorLayout {
    desc: BufferTensorDesc,
    strides: Vec<u32>,
    element_count: u64,
    physical_extent: u64,
    min_size_in_bytes: u64,
}

/// The first place where a layout breaks D1 (see [`TensorLayout::first_overlap`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlap {
    /// The dimension whose stride is smaller than the extent of the dimensions below it.
    pub dim: usize,
    /// Its size.
    pub size: u32,
    /// Its stride.
    pub stride: u32,
    /// The extent, in elements, of the dimensions with smaller strides.
    pub inner_extent: u64,
}

/// D1's criterion: with the dimensions of size > 1 sorted by stride, every stride must be at least the extent
/// `1 + sum((size-1)*stride)` of the dimensions before it. Stride 0 on a dimension of size > 1 always fails.
/// Ties are ordered by dimension index (innermost last), so the reported dimension is deterministic.
pub(crate) fn first_overlap(sizes: &[u32], strides: &[u32]) -> Option<Overlap> {
    let mut dims: Vec<usize> = (0..sizes.len()).filter(|&d| sizes[d] > 1).collect();
    dims.sort_by_key(|&d| (strides[d], std::cmp::Reverse(d)));
    let mut extent: u64 = 1;
    for d in dims {
        let stride = u64::from(strides[d]);
        if stride < extent {
            return Some(Overlap { dim: d, size: sizes[d], stride: strides[d], inner_extent: extent });
        }
        extent += u64::from(sizes[d] - 1) * stride;
    }
    None
}

impl TensorLayout {
    pub(crate) fn from_validated(
        desc: BufferTensorDesc,
        strides: Vec<u32>,
        element_count: u64,
        physical_extent: u64,
        min_size_in_bytes: u64,
    ) -> Self {
        TensorLayout { desc, strides, element_count, physical_extent, min_size_in_bytes }
    }

    /// The description this layout was validated from.
    pub fn desc(&self) -> &BufferTensorDesc {
        &self.desc
    }

    /// The data type.
    pub fn data_type(&self) -> DataType {
        self.desc.data_type
    }

    /// The flags.
    pub fn flags(&self) -> TensorFlags {
        self.desc.flags
    }

    /// The sizes.
    pub fn sizes(&self) -> &[u32] {
        &self.desc.sizes
    }

    /// The effective strides in elements: the given ones, or the packed row-major strides when none were given.
    pub fn strides(&self) -> &[u32] {
        &self.strides
    }

    /// `DimensionCount`.
    pub fn rank(&self) -> usize {
        self.desc.sizes.len()
    }

    /// The logical element count (product of the sizes).
    pub fn element_count(&self) -> u64 {
        self.element_count
    }

    /// The physical extent in elements: index of the last element + 1.
    pub fn physical_extent(&self) -> u64 {
        self.physical_extent
    }

    /// The exact minimum implied size in bytes (R-BT-5): what [`crate::calc_buffer_tensor_size`] returns.
    pub fn min_size_in_bytes(&self) -> u64 {
        self.min_size_in_bytes
    }

    /// `TotalTensorSizeInBytes` as given.
    pub fn total_tensor_size_in_bytes(&self) -> u64 {
        self.desc.total_tensor_size_in_bytes
    }

    /// What DirectMLX's `DMLCalcBufferTensorSize` says for the same description (it wraps; see
    /// [`crate::dmlx_calc_buffer_tensor_size`]). Differs from [`min_size_in_bytes`](Self::min_size_in_bytes) only when
    /// the reference's 32-bit index wraps, which cannot happen within R-BT-6's limits; it is here for reports.
    pub fn dmlx_size_in_bytes(&self) -> u64 {
        crate::dmlx_calc_buffer_tensor_size(self.desc.data_type.raw(), &self.desc.sizes, self.desc.strides.as_deref())
    }

    /// The dimensions that broadcast: stride 0 and size > 1.
    pub fn broadcast_dims(&self) -> Vec<usize> {
        (0..self.rank()).filter(|&d| self.strides[d] == 0 && self.desc.sizes[d] > 1).collect()
    }

    /// Where two logical elements share an address other than through broadcasting (D1's criterion applied to the
    /// dimensions that do not broadcast), or `None`.
    pub fn first_overlap(&self) -> Option<Overlap> {
        let (sizes, strides) = self.without_broadcast_dims();
        first_overlap(&sizes, &strides)
    }

    /// `true` when some elements share an address other than through broadcasting.
    pub fn is_overlapping(&self) -> bool {
        self.first_overlap().is_some()
    }

    /// `true` when every logical element has its own address and the physical extent equals the element count: row
    /// major or any permutation of it (NHWC is packed too), as the strides page uses the word.
    pub fn is_packed(&self) -> bool {
        self.physical_extent == self.element_count && first_overlap(&self.desc.sizes, &self.strides).is_none()
    }

    /// The number of distinct addresses the elements occupy, when it can be known without enumerating: always for
    /// layouts that do not overlap other than by broadcasting; for overlapping ones, by counting when the physical
    /// extent is at most 2^24 elements, else `None`.
    pub fn distinct_element_count(&self) -> Option<u64> {
        if !self.is_overlapping() {
            let (sizes, _) = self.without_broadcast_dims();
            return Some(sizes.iter().map(|&s| u64::from(s)).product());
        }
        if self.physical_extent > 1 << 24 {
            return None;
        }
        let mut seen = vec![false; self.physical_extent as usize];
        let mut distinct = 0u64;
        for off in self.element_offsets() {
            let slot = &mut seen[off as usize];
            if !*slot {
                *slot = true;
                distinct += 1;
            }
        }
        Some(distinct)
    }

    /// Elements inside the physical extent that hold no logical element (padding), when known.
    pub fn padding_elements(&self) -> Option<u64> {
        self.distinct_element_count().map(|d| self.physical_extent - d)
    }

    /// Padding in bytes: the bytes of [`padding_elements`](Self::padding_elements) plus the round-up of the minimum
    /// implied size to a multiple of 4 (R-BT-8), when known.
    pub fn padding_bytes(&self) -> Option<u64> {
        let bits = u64::from(self.desc.data_type.size_in_bits());
        self.distinct_element_count().map(|d| self.min_size_in_bytes - (d * bits).div_ceil(8))
    }

    /// `true` when elements inside the physical extent hold no logical element.
    pub fn is_padded(&self) -> bool {
        self.padding_elements().is_some_and(|p| p > 0)
    }

    /// The offset in elements of the logical element at `coords`, or `None` if `coords` has the wrong length or a
    /// coordinate is out of range.
    pub fn offset_of(&self, coords: &[u32]) -> Option<u64> {
        if coords.len() != self.rank() {
            return None;
        }
        let mut offset = 0u64;
        for ((&c, &size), &stride) in coords.iter().zip(&self.desc.sizes).zip(&self.strides) {
            if c >= size {
                return None;
            }
            offset += u64::from(c) * u64::from(stride);
        }
        Some(offset)
    }

    /// The offsets in elements of every logical element, in logical (row-major) order: the offset table.
    pub fn element_offsets(&self) -> ElementOffsets<'_> {
        ElementOffsets::new(&self.desc.sizes, &self.strides, self.element_count)
    }

    /// Every logical coordinate whose element lives at `offset`, in logical order: none for padding, several where
    /// the layout broadcasts or overlaps. `limit` caps the number returned (a broadcast tensor can alias millions of
    /// coordinates to one address).
    pub fn coords_at(&self, offset: u64, limit: usize) -> Vec<Vec<u32>> {
        let mut found = Vec::new();
        if offset >= self.physical_extent || limit == 0 {
            return found;
        }
        // Reach of dims d.. : the largest offset they can add; prunes the search.
        let rank = self.rank();
        let mut reach = vec![0u64; rank + 1];
        for d in (0..rank).rev() {
            reach[d] = reach[d + 1] + u64::from(self.desc.sizes[d] - 1) * u64::from(self.strides[d]);
        }
        let mut coords = vec![0u32; rank];
        self.coords_search(0, offset, &reach, &mut coords, &mut found, limit);
        found
    }

    fn coords_search(
        &self,
        dim: usize,
        remaining: u64,
        reach: &[u64],
        coords: &mut Vec<u32>,
        found: &mut Vec<Vec<u32>>,
        limit: usize,
    ) {
        if found.len() >= limit {
            return;
        }
        if dim == self.rank() {
            if remaining == 0 {
                found.push(coords.clone());
            }
            return;
        }
        let stride = u64::from(self.strides[dim]);
        for c in 0..self.desc.sizes[dim] {
            let used = u64::from(c) * stride;
            if used > remaining {
                break;
            }
            if remaining - used <= reach[dim + 1] {
                coords[dim] = c;
                self.coords_search(dim + 1, remaining - used, reach, coords, found, limit);
                if found.len() >= limit {
                    return;
                }
            }
        }
    }

    fn without_broadcast_dims(&self) -> (Vec<u32>, Vec<u32>) {
        (0..self.rank()).filter(|&d| self.strides[d] != 0).map(|d| (self.desc.sizes[d], self.strides[d])).unzip()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(sizes: &[u32], strides: Option<&[u32]>) -> TensorLayout {
        BufferTensorDesc::new(DataType::Float32, sizes, strides).unwrap().validate().unwrap()
    }

    #[test]
    fn d1_criterion() {
        assert_eq!(first_overlap(&[2, 3], &[3, 1]), None);
        assert_eq!(first_overlap(&[2, 3], &[1, 2]), None); // column-major
        assert_eq!(first_overlap(&[2, 3], &[0, 1]), Some(Overlap { dim: 0, size: 2, stride: 0, inner_extent: 1 }));
        assert_eq!(first_overlap(&[2, 3], &[2, 1]), Some(Overlap { dim: 0, size: 2, stride: 2, inner_extent: 3 }));
        assert_eq!(first_overlap(&[1, 3], &[0, 1]), None); // size-1 dims never overlap
    }

    #[test]
    fn properties() {
        let l = layout(&[2, 3], Some(&[5, 1]));
        assert!(l.is_padded() && !l.is_packed() && !l.is_overlapping());
        assert_eq!(l.padding_elements(), Some(2));
        assert_eq!((l.min_size_in_bytes(), l.distinct_element_count(), l.physical_extent()), (32, Some(6), 8));
        assert_eq!(l.padding_bytes(), Some(8));
        let l = layout(&[2, 3], Some(&[0, 1]));
        assert_eq!(l.broadcast_dims(), vec![0]);
        assert!(!l.is_padded() && !l.is_overlapping() && !l.is_packed());
        let l = layout(&[2, 3], Some(&[1, 1]));
        assert!(l.is_overlapping());
        assert_eq!(l.distinct_element_count(), Some(4));
        let l = layout(&[1, 1, 3, 5], Some(&[15, 1, 5, 1]));
        assert!(l.is_packed());
    }

    #[test]
    fn inverse() {
        let l = layout(&[2, 2, 3], Some(&[6, 3, 1]));
        assert_eq!(l.coords_at(7, 10), vec![vec![1, 0, 1]]);
        let l = layout(&[2, 3], Some(&[0, 1]));
        assert_eq!(l.coords_at(1, 10), vec![vec![0, 1], vec![1, 1]]);
        assert_eq!(l.coords_at(1, 1), vec![vec![0, 1]]);
        let l = layout(&[2, 3], Some(&[5, 1]));
        assert!(l.coords_at(3, 10).is_empty());
        assert!(l.coords_at(99, 10).is_empty());
    }
}
