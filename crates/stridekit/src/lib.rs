//! # stridekit: DirectML's strided buffer-tensor model, everywhere
//!
//! A DirectML tensor is a data type, 1..=8 sizes and optional strides in **elements** over a byte buffer
//! ([`BufferTensorDesc`], mirroring `DML_BUFFER_TENSOR_DESC`). A stride of 0 broadcasts, a stride larger than packed
//! pads, and permuted strides express NHWC and other layouts. Validation ([`BufferTensorDesc::validate`]) enforces every
//! rule of the specification and explains each rejection with the rule id, the field, the dimension and the numbers:
//!
//! ```
//! use stridekit::{BufferTensorDesc, DataType};
//! let mut desc = BufferTensorDesc::new(DataType::Float32, &[2, 2, 3], Some(&[6, 3, 1])).unwrap();
//! let layout = desc.validate().unwrap();
//! assert_eq!(layout.offset_of(&[1, 0, 1]), Some(7)); // element 'H' of the strides page
//!
//! desc.total_tensor_size_in_bytes = 40;
//! assert_eq!(
//!     desc.validate().unwrap_err().to_string(),
//!     "error[R-BT-5]: TotalTensorSizeInBytes is 40, but the elements need at least 48 bytes (DMLCalcBufferTensorSize)"
//! );
//! ```
//!
//! The operators [`Slice1Desc`] and [`SliceDesc`] validate into a [`Slice1Plan`] that any backend executes
//! (`stridekit-cpu` on the CPU). Rule ids (R-BT-*, R-S1-*, D1..D9) refer to the project's SPEC.md.
#![forbid(unsafe_code)]

mod binding;
mod buffer_size;
mod buffer_tensor_desc;
mod data_type;
mod error;
pub mod explain;
mod feature_level;
pub mod frontends;
pub mod layout;
pub mod limits;
pub mod ops;
pub mod reference;
mod tensor_flags;

pub use binding::{Binding, BindingError, check_binding, check_host_buffer, required_binding_alignment};
pub use buffer_size::{calc_buffer_tensor_size, dmlx_calc_buffer_tensor_size};
pub use buffer_tensor_desc::BufferTensorDesc;
pub use data_type::{DataType, ParseDataTypeError};
pub use error::{TensorDescError, TensorDescErrorKind, TensorRole};
pub use feature_level::{FeatureLevel, Operator, ParseFeatureLevelError};
pub use layout::{
    ElementOffsets, LayoutError, Overlap, TensorLayout, broadcast_strides, interleaved_channel_strides, packed_strides,
    padded_row_strides, strides_for_label,
};
pub use ops::normalized::{CopyDim, NormalizedCopy};
pub use ops::slice1::{Slice1Desc, Slice1Plan, SliceDesc, SliceError};
pub use tensor_flags::TensorFlags;

// Validated descriptions and plans cross threads freely.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<TensorLayout>();
    assert_send_sync::<Slice1Plan>();
    assert_send_sync::<SliceError>();
};
