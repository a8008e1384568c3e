//! A NumPy array's memory as a DirectML buffer tensor, without copying it.
//!
//! NumPy strides are signed byte counts; DirectML strides are unsigned element counts. When every byte stride is a
//! multiple of the item size, the array is the tensor with sizes = shape and strides = |byte stride| / itemsize over
//! the bytes from its lowest to its highest element: the base moves to the lowest address, and each axis with a
//! negative stride is recorded as *flipped* (logical index `i` is physical index `size - 1 - i`). The caller folds
//! the flips into the Slice1 window ([`crate::window`]), so a reversed view never needs a copy either. Axes of size 1
//! get stride 0 (their stride never matters, and NumPy leaves arbitrary values there).

use numpy::PyUntypedArray;
use numpy::PyUntypedArrayMethods;
use numpy::npyffi::{NPY_ARRAY_WRITEABLE, PyArrayObject_fields, objects::_PyArray_GET_ITEM_DATA};
use pyo3::prelude::*;

/// An array as a buffer tensor over its own memory.
#[derive(Debug, Clone)]
pub struct Mapped {
    /// The lowest address of any element.
    pub base: *mut u8,
    /// Bytes from `base` to one past the last byte of the highest element (0 for an empty array).
    pub len: usize,
    /// The shape.
    pub sizes: Vec<u64>,
    /// |byte stride| / itemsize per axis (0 on axes of size <= 1).
    pub strides: Vec<u64>,
    /// Whether the axis runs backwards in memory.
    pub flipped: Vec<bool>,
}

/// Why an array cannot be described in place.
pub enum NotMappable {
    /// Some byte stride is not a multiple of the item size (an unaligned or structured-field view): copy first.
    Unaligned,
}

/// The raw fields of an array object.
#[allow(unsafe_code)]
fn fields(array: &Bound<'_, PyUntypedArray>) -> *mut PyArrayObject_fields {
    // SAFETY: `array` is a live ndarray (the Bound proves its type) and we hold the GIL, which is all
    // _PyArray_GET_ITEM_DATA requires; it only computes a field address.
    unsafe { _PyArray_GET_ITEM_DATA(array.as_array_ptr().cast_const()) }
}

/// Whether NumPy lets us write to the array.
#[allow(unsafe_code)]
pub fn is_writeable(array: &Bound<'_, PyUntypedArray>) -> bool {
    // SAFETY: see `fields`; `flags` is a plain int read under the GIL.
    unsafe { (*fields(array)).flags & NPY_ARRAY_WRITEABLE != 0 }
}

/// The array's data pointer (the address of its element 0, 0, ...).
#[allow(unsafe_code)]
pub fn data(array: &Bound<'_, PyUntypedArray>) -> *mut u8 {
    // SAFETY: see `fields`; `data` is a plain pointer field read under the GIL.
    unsafe { (*fields(array)).data }.cast::<u8>()
}

/// Describes `array` (item size `itemsize`) in place.
pub fn map(array: &Bound<'_, PyUntypedArray>, itemsize: usize) -> Result<Mapped, NotMappable> {
    let data = data(array);
    let shape = array.shape();
    let byte_strides = array.strides();
    let rank = shape.len();
    let mut sizes = Vec::with_capacity(rank);
    let mut strides = Vec::with_capacity(rank);
    let mut flipped = Vec::with_capacity(rank);
    let empty = shape.contains(&0);
    // Offset of the lowest element from `data` (<= 0) and of the highest (>= 0), in bytes.
    let (mut low, mut high) = (0isize, 0isize);
    for (&n, &s) in shape.iter().zip(byte_strides) {
        sizes.push(n as u64);
        if n <= 1 {
            strides.push(0);
            flipped.push(false);
            continue;
        }
        if s.unsigned_abs() % itemsize != 0 {
            return Err(NotMappable::Unaligned);
        }
        strides.push((s.unsigned_abs() / itemsize) as u64);
        flipped.push(s < 0);
        if empty {
            continue;
        }
        // NumPy guarantees every element address lies in its allocation, so these sums fit isize.
        let span = (n as isize - 1) * s;
        if s < 0 {
            low += span;
        } else {
            high += span;
        }
    }
    let (base, len) = if empty {
        (data, 0)
    } else {
        // `low` is the offset of an element of the array, so `data + low` lies in its allocation.
        (data.wrapping_offset(low), (high - low) as usize + itemsize)
    };
    Ok(Mapped { base, len, sizes, strides, flipped })
}

impl Mapped {
    /// Whether some axis runs backwards.
    pub fn any_flipped(&self) -> bool {
        self.flipped.iter().any(|&f| f)
    }

    /// Whether the byte ranges (hulls) of two arrays intersect: necessary for sharing memory, not sufficient
    /// (`big[::2]` and `big[1::2]`); `numpy.shares_memory` decides.
    pub fn overlaps(&self, other: &Mapped) -> bool {
        let (a, b) = (self.base as usize, other.base as usize);
        self.len != 0 && other.len != 0 && a < b + other.len && b < a + self.len
    }
}
