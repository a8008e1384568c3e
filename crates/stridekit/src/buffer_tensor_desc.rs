//! `BufferTensorDesc`: DML_BUFFER_TENSOR_DESC field for field, and its validation into a [`TensorLayout`].

use crate::buffer_size::{bytes_for_elements, check_shape, index_of_last_element, packed_strides_u64};
use crate::error::{TensorDescError, TensorDescErrorKind as K, TensorRole};
use crate::layout::{TensorLayout, first_overlap};
use crate::{DataType, FeatureLevel, TensorFlags, limits};

/// Mirrors `DML_BUFFER_TENSOR_DESC`. Plain data with public fields: build it any way you like, then
/// [`validate`](BufferTensorDesc::validate) it into a [`TensorLayout`].
///
/// `DimensionCount` is `sizes.len()`. Strides count elements, not bytes; `None` means packed row-major (R-BT-4).
///
/// ```
/// use stridekit::{BufferTensorDesc, DataType};
/// // The broadcast example of the strides page: a 2x3 tensor whose two rows share storage (height stride 0).
/// let desc = BufferTensorDesc::new(DataType::Float32, &[2, 3], Some(&[0, 1])).unwrap();
/// let layout = desc.validate().unwrap();
/// assert_eq!(layout.element_offsets().collect::<Vec<_>>(), [0, 1, 2, 0, 1, 2]);
/// assert_eq!(layout.min_size_in_bytes(), 12);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BufferTensorDesc {
    /// `DataType`.
    pub data_type: DataType,
    /// `Flags`.
    pub flags: TensorFlags,
    /// `Sizes` (its length is `DimensionCount`).
    pub sizes: Vec<u32>,
    /// `Strides`, in elements; `None` is the null pointer (packed).
    pub strides: Option<Vec<u32>>,
    /// `TotalTensorSizeInBytes`.
    pub total_tensor_size_in_bytes: u64,
    /// `GuaranteedBaseOffsetAlignment`: 0 (no guarantee) or a power of two >= the element size.
    pub guaranteed_base_offset_alignment: u32,
}

impl BufferTensorDesc {
    /// A description with `TotalTensorSizeInBytes` set to the exact minimum implied size, no flags and no alignment
    /// guarantee: what DirectMLX's default policy builds. Fails like [`crate::calc_buffer_tensor_size`].
    pub fn new(data_type: DataType, sizes: &[u32], strides: Option<&[u32]>) -> Result<Self, TensorDescError> {
        let total = crate::calc_buffer_tensor_size(data_type, sizes, strides)?;
        Ok(BufferTensorDesc {
            data_type,
            flags: TensorFlags::NONE,
            sizes: sizes.to_vec(),
            strides: strides.map(<[u32]>::to_vec),
            total_tensor_size_in_bytes: total,
            guaranteed_base_offset_alignment: 0,
        })
    }

    /// A packed (row-major, null strides) description of `sizes`.
    pub fn packed(data_type: DataType, sizes: &[u32]) -> Result<Self, TensorDescError> {
        Self::new(data_type, sizes, None)
    }

    /// Builds a description from DirectML's raw field values, checking what the typed fields cannot hold:
    /// R-BT-1 (the data type value) and R-BT-9 (flag bits).
    pub fn from_raw(
        data_type: u32,
        flags: u32,
        sizes: &[u32],
        strides: Option<&[u32]>,
        total_tensor_size_in_bytes: u64,
        guaranteed_base_offset_alignment: u32,
    ) -> Result<Self, TensorDescError> {
        let data_type = DataType::from_raw(data_type).ok_or(K::UnknownDataType { value: data_type })?;
        let flags = TensorFlags::from_bits(flags).map_err(|unknown| K::UnknownFlags { bits: flags, unknown })?;
        Ok(BufferTensorDesc {
            data_type,
            flags,
            sizes: sizes.to_vec(),
            strides: strides.map(<[u32]>::to_vec),
            total_tensor_size_in_bytes,
            guaranteed_base_offset_alignment,
        })
    }

    /// Validates a standalone tensor at the newest feature level.
    pub fn validate(&self) -> Result<TensorLayout, TensorDescError> {
        self.validate_as(TensorRole::Standalone, FeatureLevel::LATEST)
    }

    /// Validates the tensor in a role (inputs may broadcast and overlap, outputs may not: D1) at a feature level (D7).
    ///
    /// The checks, in order; the first that fails is returned:
    /// 1. R-BT-1: the data type exists at `level`.
    /// 2. R-FL-1: OWNED_BY_DML only on an input (or a standalone tensor, whose role is not known yet).
    /// 3. R-BT-2, R-BT-3, R-BT-4: rank within the level's table, no zero size, as many strides as sizes.
    /// 4. R-BT-7: the alignment is 0 or a power of two >= the element size (sub-byte types count as 1 byte).
    /// 5. R-BT-6 / D4: the logical element count and the physical extent, each computed in checked 64-bit arithmetic,
    ///    are at most 2^32 - 1.
    /// 6. R-BT-5 / R-BT-8 / D2: TotalTensorSizeInBytes >= the minimum implied size (a multiple of 4). A larger value need
    ///    not be a multiple of 4.
    /// 7. D1: an output's layout does not overlap.
    pub fn validate_as(&self, role: TensorRole, level: FeatureLevel) -> Result<TensorLayout, TensorDescError> {
        self.validate_impl(role, level).map_err(|e| e.with_role(role))
    }

    fn validate_impl(&self, role: TensorRole, level: FeatureLevel) -> Result<TensorLayout, TensorDescError> {
        let data_type = self.data_type;
        // Condition 1.
        if !level.has_data_type(data_type) {
            let since =
                FeatureLevel::ALL.into_iter().find(|l| l.has_data_type(data_type)).unwrap_or(FeatureLevel::LATEST);
            return Err(K::DataTypeNotAtLevel { data_type, level, since }.into());
        }
        // Condition 2.
        if role == TensorRole::Output && self.flags.contains(TensorFlags::OWNED_BY_DML) {
            return Err(K::OwnedByDmlNotInput.into());
        }
        // Condition 3.
        check_shape(&self.sizes, self.strides.as_deref(), level)?;
        // Condition 4.
        let alignment = self.guaranteed_base_offset_alignment;
        if alignment != 0 {
            if !alignment.is_power_of_two() {
                return Err(K::AlignmentNotPowerOfTwo { alignment }.into());
            }
            let element_size = data_type.size_in_bytes_rounded_up();
            if alignment < element_size {
                return Err(K::AlignmentBelowElementSize { alignment, element_size, data_type }.into());
            }
        }
        // Condition 5.
        let strides: Vec<u64> = match &self.strides {
            Some(s) => s.iter().map(|&x| u64::from(x)).collect(),
            None => packed_strides_u64(&self.sizes)?,
        };
        let count = logical_element_count(&self.sizes)?;
        if count > limits::MAX_ELEMENT_COUNT {
            return Err(K::LogicalCountTooLarge { count, max: limits::MAX_ELEMENT_COUNT }.into());
        }
        // With count <= 2^32-1 the packed strides fit u32, and given strides are u32 already.
        let last = index_of_last_element(&self.sizes, &strides)?;
        let extent = last.saturating_add(1);
        if extent > limits::MAX_ELEMENT_COUNT {
            return Err(K::PhysicalExtentTooLarge { extent, max: limits::MAX_ELEMENT_COUNT }.into());
        }
        // Condition 6. extent < 2^32 elements of at most 64 bits cannot overflow.
        let required = bytes_for_elements(data_type, extent).unwrap_or(u64::MAX);
        let given = self.total_tensor_size_in_bytes;
        if given < required {
            let element_bytes = (extent * u64::from(data_type.size_in_bits())).div_ceil(8);
            return Err(if given >= element_bytes {
                K::TotalSizeNotRounded { given, element_bytes, required }
            } else {
                K::TotalSizeTooSmall { given, required }
            }
            .into());
        }
        let strides_u32: Vec<u32> = strides.iter().map(|&s| u32::try_from(s).unwrap_or(u32::MAX)).collect();
        // Condition 7.
        if role == TensorRole::Output
            && let Some(o) = first_overlap(&self.sizes, &strides_u32)
        {
            return Err(K::OverlappingOutput {
                dim: o.dim,
                size: o.size,
                stride: o.stride,
                inner_extent: o.inner_extent,
            }
            .into());
        }
        Ok(TensorLayout::from_validated(self.clone(), strides_u32, count, extent, required))
    }
}

/// The product of the sizes in checked 64-bit arithmetic (R-BT-6).
pub(crate) fn logical_element_count(sizes: &[u32]) -> Result<u64, TensorDescError> {
    sizes.iter().enumerate().try_fold(1u64, |acc, (dim, &size)| {
        acc.checked_mul(u64::from(size))
            .ok_or_else(|| K::Overflow { what: crate::error::LOGICAL_ELEMENT_COUNT, dim, size, stride: 0 }.into())
    })
}
