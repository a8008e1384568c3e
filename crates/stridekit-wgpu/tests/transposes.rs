//! Transposes of 4-byte elements through workgroup-memory tiles: random permutations of 2-4 dimensions with
//! windows, reversed and strided inputs, and padded outputs give the reference's bytes.

mod common;

use proptest::prelude::*;
use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
use stridekit_testkit::strategies::pseudo_random_bytes;
use stridekit_wgpu::{PrepareOptions, PreparedSlice1Gpu};

fn strides_for(sizes: &[u32], order: &[usize], pad: u32) -> Vec<u32> {
    let mut strides = vec![0u32; sizes.len()];
    let mut acc = 1u32;
    for &d in order.iter().rev() {
        strides[d] = acc;
        acc *= sizes[d] + pad;
    }
    strides
}

fn transpose_case() -> impl Strategy<Value = (Slice1Desc, Vec<u8>)> {
    (2..=4usize).prop_flat_map(|rank| {
        (
            proptest::collection::vec(1..=40u32, rank),
            Just((0..rank).collect::<Vec<_>>()).prop_shuffle(),
            proptest::collection::vec(prop_oneof![Just(1i32), Just(-1), Just(2)], rank),
            0..=2u32,
            proptest::sample::select(vec![DataType::Float32, DataType::Int32, DataType::Uint32]),
            any::<u64>(),
        )
            .prop_map(move |(mut sizes, order, strides, pad, dt, seed)| {
                // The two innermost input dimensions long enough for tiles.
                sizes[rank - 1] = sizes[rank - 1].max(9);
                sizes[order[rank - 1]] = sizes[order[rank - 1]].max(9);
                let out: Vec<u32> = sizes.iter().zip(&strides).map(|(&n, &s)| 1 + (n - 1) / s.unsigned_abs()).collect();
                let input = BufferTensorDesc::packed(dt, &sizes).unwrap();
                let out_strides = strides_for(&out, &order, pad);
                let desc = Slice1Desc {
                    output: BufferTensorDesc::new(dt, &out, Some(&out_strides)).unwrap(),
                    input_window_offsets: vec![0; rank],
                    input_window_sizes: sizes.clone(),
                    input_window_strides: strides,
                    input,
                };
                let bytes = pseudo_random_bytes(seed, desc.input.total_tensor_size_in_bytes as usize);
                (desc, bytes)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn transposes_match_the_reference((desc, input) in transpose_case()) {
        let Some(ctx) = common::gpu() else { return Ok(()) };
        let plan = desc.validate().unwrap();
        let before = pseudo_random_bytes(5, desc.output.total_tensor_size_in_bytes as usize);
        let mut expected = before.clone();
        stridekit_testkit::slice1_reference(&desc, &input, &mut expected).unwrap();
        for transposes in [true, false] {
            let op = PreparedSlice1Gpu::with_options(ctx, &plan, PrepareOptions { transposes, ..Default::default() })
                .unwrap();
            let mut actual = before.clone();
            op.execute(ctx, &input, &mut actual).unwrap();
            prop_assert!(actual == expected, "{}: {desc:?}", op.describe());
        }
    }
}

#[test]
fn nchw_to_nhwc_runs_the_transpose_kernel() {
    let Some(ctx) = common::gpu() else { return };
    let (n, c, h, w) = (2u32, 24u32, 5u32, 17u32);
    let desc = Slice1Desc {
        input: BufferTensorDesc::packed(DataType::Float32, &[n, c, h, w]).unwrap(),
        output: BufferTensorDesc::new(DataType::Float32, &[n, c, h, w], Some(&[h * w * c, 1, w * c, c])).unwrap(),
        input_window_offsets: vec![0; 4],
        input_window_sizes: vec![n, c, h, w],
        input_window_strides: vec![1; 4],
    };
    let plan = desc.validate().unwrap();
    let input = pseudo_random_bytes(8, desc.input.total_tensor_size_in_bytes as usize);
    let mut expected = vec![0u8; desc.output.total_tensor_size_in_bytes as usize];
    stridekit_testkit::slice1_reference(&desc, &input, &mut expected).unwrap();
    let op = PreparedSlice1Gpu::new(ctx, &plan).unwrap();
    assert_eq!(op.describe(), "transpose kernel (1 dispatch)");
    let mut actual = vec![0u8; expected.len()];
    op.execute(ctx, &input, &mut actual).unwrap();
    assert!(actual == expected);
}
