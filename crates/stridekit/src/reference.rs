//! A naive Slice1, written straight from the DirectML documentation's pseudocode:
//!
//! ```text
//! CopyStart = InputWindowOffsets
//! for i in 0..DimensionCount: if InputWindowStrides[i] < 0 { CopyStart[i] += InputWindowSizes[i] - 1 }
//! Output[o] = Input[CopyStart + InputWindowStrides * o]           // per dimension, o = output coordinate
//! ```
//!
//! It lives in the model crate, not in the test kit, so that production code (`stridekit bench` verifies every case
//! against it) can use it without linking test-only crates; `stridekit-testkit` re-exports it for the tests.
//!
//! It reads the [`Slice1Desc`] fields directly and recomputes packed strides itself; the only thing it borrows from
//! the library is the yes/no answer of [`Slice1Desc::validate`], so that it never runs on an invalid description.

use crate::{DataType, Slice1Desc, SliceError};

/// Why the reference refused to run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReferenceError {
    /// The description is invalid.
    #[error(transparent)]
    Invalid(#[from] SliceError),
    /// A buffer is shorter than the tensor's TotalTensorSizeInBytes.
    #[error("reference: the {tensor} buffer has {len} bytes, TotalTensorSizeInBytes is {total}")]
    BufferTooSmall {
        /// `"input"` or `"output"`.
        tensor: &'static str,
        /// The buffer length.
        len: usize,
        /// TotalTensorSizeInBytes.
        total: u64,
    },
}

/// Row-major packed strides, computed here rather than borrowed from the library (R-BT-4).
fn effective_strides(sizes: &[u32], strides: Option<&[u32]>) -> Vec<u64> {
    match strides {
        Some(s) => s.iter().map(|&v| u64::from(v)).collect(),
        None => {
            let mut out = vec![0u64; sizes.len()];
            let mut acc = 1u64;
            for i in (0..sizes.len()).rev() {
                out[i] = acc;
                acc *= u64::from(sizes[i]);
            }
            out
        }
    }
}

/// Bytes per element of a byte-sized type (Slice1 accepts no 4-bit type).
fn element_size(data_type: DataType) -> usize {
    data_type.size_in_bytes_rounded_up() as usize
}

/// Executes `desc` naively: for every output coordinate `o` in row-major order, copies the element at input
/// coordinate `CopyStart + InputWindowStrides * o` to output coordinate `o`, byte offsets being `dot(coordinate,
/// effective strides) x element size`. Bytes of `output` that are not element bytes (padding, and anything past the
/// last element) are left alone. `input` and `output` are the bound ranges (offset 0).
pub fn slice1_reference(desc: &Slice1Desc, input: &[u8], output: &mut [u8]) -> Result<(), ReferenceError> {
    desc.validate()?;
    for (tensor, len, total) in [
        ("input", input.len(), desc.input.total_tensor_size_in_bytes),
        ("output", output.len(), desc.output.total_tensor_size_in_bytes),
    ] {
        if (len as u64) < total {
            return Err(ReferenceError::BufferTooSmall { tensor, len, total });
        }
    }
    let rank = desc.input.sizes.len();
    let esize = element_size(desc.input.data_type);
    let in_strides = effective_strides(&desc.input.sizes, desc.input.strides.as_deref());
    let out_strides = effective_strides(&desc.output.sizes, desc.output.strides.as_deref());
    let copy_start: Vec<i64> = (0..rank)
        .map(|i| {
            let mut start = i64::from(desc.input_window_offsets[i]);
            if desc.input_window_strides[i] < 0 {
                start += i64::from(desc.input_window_sizes[i]) - 1;
            }
            start
        })
        .collect();
    // Plain slices and `while` loops: indexing a slice is a built-in operation, where indexing a `Vec` or stepping a
    // range is a call. Natively the same; Miri, which runs this reference as the oracle of the kernel tests, paid
    // for those calls on every element (7x the time: 26 s against 3.5 s for one case of 4400 elements).
    let (in_strides, out_strides, copy_start) = (&in_strides[..], &out_strides[..], &copy_start[..]);
    let (window_strides, out_sizes) = (&desc.input_window_strides[..], &desc.output.sizes[..]);
    let mut o = vec![0u32; rank];
    let o = &mut o[..];
    loop {
        let mut in_elem = 0u64;
        let mut out_elem = 0u64;
        let mut i = 0;
        while i < rank {
            let coord = copy_start[i] + i64::from(window_strides[i]) * i64::from(o[i]);
            // validate() guarantees 0 <= coord < input size.
            in_elem += coord as u64 * in_strides[i];
            out_elem += u64::from(o[i]) * out_strides[i];
            i += 1;
        }
        let src = in_elem as usize * esize;
        let dst = out_elem as usize * esize;
        // Byte by byte rather than `copy_from_slice` of two subslices (two calls per element under Miri).
        let mut k = 0;
        while k < esize {
            output[dst + k] = input[src + k];
            k += 1;
        }
        // Row-major odometer over the output coordinates.
        let mut dim = rank;
        loop {
            if dim == 0 {
                return Ok(());
            }
            dim -= 1;
            o[dim] += 1;
            if o[dim] < out_sizes[dim] {
                break;
            }
            o[dim] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BufferTensorDesc;

    #[test]
    fn rejects_invalid_and_short_buffers() {
        let mut desc = Slice1Desc {
            input: BufferTensorDesc::packed(DataType::Uint8, &[4]).unwrap(),
            output: BufferTensorDesc::packed(DataType::Uint8, &[2]).unwrap(),
            input_window_offsets: vec![1],
            input_window_sizes: vec![2],
            input_window_strides: vec![-1],
        };
        let mut out = [0u8; 4];
        slice1_reference(&desc, &[1, 2, 3, 4], &mut out).unwrap();
        assert_eq!(out, [3, 2, 0, 0]);
        assert!(matches!(
            slice1_reference(&desc, &[1, 2, 3], &mut out),
            Err(ReferenceError::BufferTooSmall { tensor: "input", .. })
        ));
        desc.input_window_strides[0] = 0;
        assert!(matches!(slice1_reference(&desc, &[1, 2, 3, 4], &mut out), Err(ReferenceError::Invalid(_))));
    }
}
