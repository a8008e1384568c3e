//! DML_SLICE (v0) through the CPU backend: the doc examples, and random descriptions against a naive model written
//! from the Slice page (`Output[o] = Input[Offsets + Strides * o]`), independent of the Slice1 equivalence the plan
//! uses.

use proptest::prelude::*;
use stridekit::{BufferTensorDesc, DataType, SliceDesc};

fn f32_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn run(desc: &SliceDesc, input: &[u8]) -> Vec<u8> {
    let plan = desc.validate().unwrap();
    let mut output = vec![0u8; desc.output.total_tensor_size_in_bytes as usize];
    stridekit_cpu::slice1(&plan, input, &mut output).unwrap();
    output
}

fn doc_example(offsets: [u32; 4], sizes: [u32; 4], strides: [u32; 4]) -> Vec<f32> {
    let t = DataType::Float32;
    let desc = SliceDesc {
        input: BufferTensorDesc::packed(t, &[1, 1, 4, 4]).unwrap(),
        output: BufferTensorDesc::packed(t, &sizes).unwrap(),
        offsets: offsets.to_vec(),
        sizes: sizes.to_vec(),
        strides: strides.to_vec(),
    };
    let out = run(&desc, &f32_bytes((1..=16).map(|v| v as f32)));
    out.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn doc_examples() {
    assert_eq!(doc_example([0, 0, 1, 2], [1, 1, 3, 2], [1, 1, 1, 1]), [7.0, 8.0, 11.0, 12.0, 15.0, 16.0]);
    assert_eq!(doc_example([0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 2, 3]), [5.0, 8.0, 13.0, 16.0]);
}

#[test]
fn dxdispatch_example_5x5() {
    let t = DataType::Float32;
    let desc = SliceDesc {
        input: BufferTensorDesc::packed(t, &[1, 1, 5, 5]).unwrap(),
        output: BufferTensorDesc::packed(t, &[1, 1, 3, 2]).unwrap(),
        offsets: vec![0, 0, 1, 1],
        sizes: vec![1, 1, 3, 2],
        strides: vec![1, 1, 1, 2],
    };
    let out = run(&desc, &f32_bytes((1..=25).map(|v| v as f32)));
    let values: Vec<f32> = out.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(values, [7.0, 9.0, 12.0, 14.0, 17.0, 19.0]);
}

/// A valid Slice v0 on a packed u16 input: per dimension (input size, offset, output size, stride).
fn case() -> impl Strategy<Value = Vec<(u32, u32, u32, u32)>> {
    prop::collection::vec(
        (1u32..=9, 1u32..=4).prop_flat_map(|(input_size, stride)| {
            (0..input_size).prop_flat_map(move |offset| {
                let max_out = 1 + (input_size - 1 - offset) / stride;
                (1..=max_out).prop_map(move |out| (input_size, offset, out, stride))
            })
        }),
        1..=5,
    )
}

proptest! {
    // No failure persistence: Miri's isolation forbids the getcwd it needs, and the case count shrinks under Miri.
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 3 } else { 256 },
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn matches_the_slice_page(dims in case()) {
        let t = DataType::Uint16;
        let input_sizes: Vec<u32> = dims.iter().map(|d| d.0).collect();
        let out_sizes: Vec<u32> = dims.iter().map(|d| d.2).collect();
        let desc = SliceDesc {
            input: BufferTensorDesc::packed(t, &input_sizes).unwrap(),
            output: BufferTensorDesc::packed(t, &out_sizes).unwrap(),
            offsets: dims.iter().map(|d| d.1).collect(),
            sizes: out_sizes.clone(),
            strides: dims.iter().map(|d| d.3).collect(),
        };
        let count: u32 = input_sizes.iter().product();
        let mut input: Vec<u8> = (0..count as u16).flat_map(|v| v.wrapping_mul(40503).to_le_bytes()).collect();
        input.resize(desc.input.total_tensor_size_in_bytes as usize, 0);
        let actual = run(&desc, &input);
        // The model: for every output coordinate o (row-major), Input[Offsets + Strides * o].
        let mut expected = vec![0u8; actual.len()];
        let out_count: u32 = out_sizes.iter().product();
        for linear in 0..out_count {
            let (mut rest, mut src) = (linear, 0u32);
            let mut scale = 1u32;
            for d in (0..dims.len()).rev() {
                let o = rest % out_sizes[d];
                rest /= out_sizes[d];
                src += (dims[d].1 + dims[d].3 * o) * scale;
                scale *= input_sizes[d];
            }
            let (s, o) = (src as usize * 2, linear as usize * 2);
            expected[o..o + 2].copy_from_slice(&input[s..s + 2]);
        }
        prop_assert_eq!(actual, expected);
    }
}
