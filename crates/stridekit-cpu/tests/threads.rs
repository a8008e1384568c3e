//! One prepared operator shared by several threads at once, each with its own output buffer.

use std::sync::Arc;
use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
use stridekit_cpu::{ExecOptions, PreparedSlice1, slice1_with};
use stridekit_testkit::slice1_reference;

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn public_types_are_send_and_sync() {
    assert_send_sync::<PreparedSlice1>();
    assert_send_sync::<stridekit_cpu::CpuBuffer>();
    assert_send_sync::<stridekit_cpu::ExecError>();
    assert_send_sync::<ExecOptions>();
}

#[test]
fn one_prepared_operator_on_several_threads() {
    let n = if cfg!(miri) { 8 } else { 64 };
    let desc = Slice1Desc {
        input: BufferTensorDesc::packed(DataType::Float32, &[2, n, n]).unwrap(),
        output: BufferTensorDesc::new(DataType::Float32, &[2, n / 2, n], Some(&[1, 2 * n, 2])).unwrap(),
        input_window_offsets: vec![0, 0, 0],
        input_window_sizes: vec![2, n, n],
        input_window_strides: vec![-1, 2, -1],
    };
    let plan = desc.validate().unwrap();
    let input: Vec<u8> = (0..desc.input.total_tensor_size_in_bytes).map(|i| (i * 7 % 251) as u8).collect();
    let mut expected = vec![0u8; desc.output.total_tensor_size_in_bytes as usize];
    slice1_reference(&desc, &input, &mut expected).unwrap();
    let op = Arc::new(PreparedSlice1::new(&plan, ExecOptions::exercise_all_paths(2)).unwrap());
    let input = Arc::new(input);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let (op, input, len) = (Arc::clone(&op), Arc::clone(&input), expected.len());
            std::thread::spawn(move || {
                let mut out = vec![0u8; len];
                for _ in 0..if cfg!(miri) { 1 } else { 20 } {
                    op.execute(&input, &mut out).unwrap();
                }
                out
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), expected);
    }
    let mut out = vec![0u8; expected.len()];
    slice1_with(&plan, &input, &mut out, &ExecOptions::with_threads(1)).unwrap();
    assert_eq!(out, expected);
}
