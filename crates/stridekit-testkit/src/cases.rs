//! The examples of the DirectML documentation (SPEC §4 and §5), as Slice1 descriptions over f32 inputs `1..=n`,
//! with the values the documentation says the output holds.

use stridekit::{BufferTensorDesc, DataType, Slice1Desc, SliceDesc};

/// One documented example.
#[derive(Debug, Clone)]
pub struct DocCase {
    /// A short name (`slice1_ex1`, ...).
    pub name: &'static str,
    /// The example as a Slice1 description (a Slice v0 example becomes the equivalent Slice1).
    pub desc: Slice1Desc,
    /// The Slice v0 description, for the examples that come from the Slice (v0) page or DxDispatch.
    pub slice_v0: Option<SliceDesc>,
    /// The packed f32 input bytes (`1.0, 2.0, ...`, little endian).
    pub input: Vec<u8>,
    /// The documented output values, in row-major output order.
    pub expected: Vec<f32>,
}

/// Little-endian bytes of `values`.
pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The f32 values of little-endian `bytes` (a trailing partial element is ignored).
pub fn f32_values(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn packed(sizes: &[u32]) -> BufferTensorDesc {
    // The sizes below are small and non-zero: packed() cannot fail on them.
    BufferTensorDesc::packed(DataType::Float32, sizes).unwrap_or_else(|e| unreachable!("doc case sizes: {e}"))
}

fn counting_input(sizes: &[u32]) -> Vec<u8> {
    let n: u32 = sizes.iter().product();
    f32_bytes(&(1..=n).map(|v| v as f32).collect::<Vec<_>>())
}

fn slice1_case(
    name: &'static str,
    input_sizes: &[u32],
    offsets: &[u32],
    sizes: &[u32],
    strides: &[i32],
    output_sizes: &[u32],
    expected: &[f32],
) -> DocCase {
    DocCase {
        name,
        desc: Slice1Desc {
            input: packed(input_sizes),
            output: packed(output_sizes),
            input_window_offsets: offsets.to_vec(),
            input_window_sizes: sizes.to_vec(),
            input_window_strides: strides.to_vec(),
        },
        slice_v0: None,
        input: counting_input(input_sizes),
        expected: expected.to_vec(),
    }
}

fn slice_v0_case(
    name: &'static str,
    input_sizes: &[u32],
    offsets: &[u32],
    sizes: &[u32],
    strides: &[u32],
    expected: &[f32],
) -> DocCase {
    // SPEC §4: a v0 slice (Offsets, Sizes, Strides) is the Slice1 (Offsets, (Sizes - 1) * Strides + 1, Strides).
    let window_sizes: Vec<u32> = sizes.iter().zip(strides).map(|(&n, &s)| (n - 1) * s + 1).collect();
    let window_strides: Vec<i32> = strides.iter().map(|&s| s as i32).collect();
    let mut case = slice1_case(name, input_sizes, offsets, &window_sizes, &window_strides, sizes, expected);
    case.slice_v0 = Some(SliceDesc {
        input: packed(input_sizes),
        output: packed(sizes),
        offsets: offsets.to_vec(),
        sizes: sizes.to_vec(),
        strides: strides.to_vec(),
    });
    case
}

/// Slice1 example 1: input 1x1x4x4 = 1..16, offsets {0,0,0,1}, sizes {1,1,4,3}, strides {1,1,2,2}, output {1,1,2,2}.
pub fn slice1_ex1() -> DocCase {
    slice1_case(
        "slice1_ex1",
        &[1, 1, 4, 4],
        &[0, 0, 0, 1],
        &[1, 1, 4, 3],
        &[1, 1, 2, 2],
        &[1, 1, 2, 2],
        &[2.0, 4.0, 10.0, 12.0],
    )
}

/// Slice1 example 2: as example 1 with strides {1,1,-2,2}, so CopyStart is {0,0,3,1}.
pub fn slice1_ex2() -> DocCase {
    slice1_case(
        "slice1_ex2",
        &[1, 1, 4, 4],
        &[0, 0, 0, 1],
        &[1, 1, 4, 3],
        &[1, 1, -2, 2],
        &[1, 1, 2, 2],
        &[14.0, 16.0, 6.0, 8.0],
    )
}

/// Slice (v0) example 1: offsets {0,0,1,2}, sizes {1,1,3,2}, strides 1.
pub fn slice_ex1() -> DocCase {
    slice_v0_case(
        "slice_ex1",
        &[1, 1, 4, 4],
        &[0, 0, 1, 2],
        &[1, 1, 3, 2],
        &[1, 1, 1, 1],
        &[7.0, 8.0, 11.0, 12.0, 15.0, 16.0],
    )
}

/// Slice (v0) example 2: offsets {0,0,1,0}, sizes {1,1,2,2}, strides {1,1,2,3}.
pub fn slice_ex2() -> DocCase {
    slice_v0_case("slice_ex2", &[1, 1, 4, 4], &[0, 0, 1, 0], &[1, 1, 2, 2], &[1, 1, 2, 3], &[5.0, 8.0, 13.0, 16.0])
}

/// DxDispatch `dml_slice.json`: input 1x1x5x5 = 1..25, offsets {0,0,1,1}, sizes {1,1,3,2}, strides {1,1,1,2}.
pub fn dxdispatch_slice() -> DocCase {
    slice_v0_case(
        "dxdispatch_slice",
        &[1, 1, 5, 5],
        &[0, 0, 1, 1],
        &[1, 1, 3, 2],
        &[1, 1, 1, 2],
        &[7.0, 9.0, 12.0, 14.0, 17.0, 19.0],
    )
}

/// Every documented example.
pub fn doc_cases() -> Vec<DocCase> {
    vec![slice1_ex1(), slice1_ex2(), slice_ex1(), slice_ex2(), dxdispatch_slice()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slice1_reference;

    #[test]
    fn reference_reproduces_the_docs() {
        for case in doc_cases() {
            let mut out = vec![0u8; case.desc.output.total_tensor_size_in_bytes as usize];
            slice1_reference(&case.desc, &case.input, &mut out).unwrap();
            assert_eq!(f32_values(&out), case.expected, "{}", case.name);
            if let Some(v0) = &case.slice_v0 {
                let (a, b) = (v0.validate().unwrap(), case.desc.validate().unwrap());
                assert_eq!((a.input_start(), a.input_strides()), (b.input_start(), b.input_strides()), "{}", case.name);
            }
        }
    }
}
