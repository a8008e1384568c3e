//! R-BIND-1 / R-BIND-2 checks, D9 (a rejected call writes nothing) and D6 (padding untouched).

use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
use stridekit_cpu::{Binding, ExecError, ExecOptions, PreparedSlice1, slice1, slice1_bound};
use stridekit_testkit::cases::{f32_values, slice1_ex1};

const SENTINEL: u8 = 0xA5;

#[test]
fn short_output_is_rejected_before_any_write() {
    // Host slices (D10): the output must hold every element written, the input every element read.
    let case = slice1_ex1();
    let plan = case.desc.validate().unwrap();
    let mut out = vec![SENTINEL; 12];
    let err = slice1(&plan, &case.input, &mut out).unwrap_err();
    assert_eq!(
        err.to_string(),
        "error[D10]: OutputTensor: the host buffer has 12 bytes, but the elements the slice writes end at byte 16"
    );
    assert!(out.iter().all(|&b| b == SENTINEL));
    let read_end = plan.normalized().input_byte_range().end as usize;
    let err = slice1(&plan, &case.input[..read_end - 1], &mut [0; 16]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "error[D10]: InputTensor: the host buffer has {}, but the elements the slice reads end at byte {read_end}",
            format_args!("{} bytes", read_end - 1)
        )
    );
    // A host slice that ends at the last element read is enough, even when it is shorter than the tensor.
    slice1(&plan, &case.input[..read_end], &mut [0; 16]).unwrap();
    // The same shortfalls through DirectML-shaped bindings break R-BIND-1 as DirectML states it.
    let err =
        slice1_bound(&plan, &case.input, Binding::whole(64), &mut out, Binding::whole(12), &ExecOptions::default())
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "error[R-BIND-1]: OutputTensor binding: SizeInBytes is 12, but TotalTensorSizeInBytes is 16"
    );
    let err = slice1_bound(
        &plan,
        &case.input[..60],
        Binding::whole(60),
        &mut [0; 16],
        Binding::whole(16),
        &ExecOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "error[R-BIND-1]: InputTensor binding: SizeInBytes is 60, but TotalTensorSizeInBytes is 64"
    );
}

#[test]
fn host_slices_need_no_dword_rounding() {
    // 7 bytes of u8 (TotalTensorSizeInBytes rounds to 8): the 7-byte host slices are used as they are (D10).
    let desc = Slice1Desc {
        input: BufferTensorDesc::packed(DataType::Uint8, &[7]).unwrap(),
        output: BufferTensorDesc::packed(DataType::Uint8, &[7]).unwrap(),
        input_window_offsets: vec![0],
        input_window_sizes: vec![7],
        input_window_strides: vec![-1],
    };
    let plan = desc.validate().unwrap();
    let mut out = [0u8; 7];
    slice1(&plan, &[1, 2, 3, 4, 5, 6, 7], &mut out).unwrap();
    assert_eq!(out, [7, 6, 5, 4, 3, 2, 1]);
}

#[test]
fn bound_ranges_must_lie_inside_the_buffer_and_be_aligned() {
    let case = slice1_ex1();
    let plan = case.desc.validate().unwrap();
    let opts = ExecOptions::default();
    let mut input = vec![0u8; 96];
    input[32..96].copy_from_slice(&case.input);
    let mut out = vec![SENTINEL; 64];
    // Inside and aligned: works, and writes only bytes 16..32.
    slice1_bound(
        &plan,
        &input,
        Binding { offset: 32, size_in_bytes: 64 },
        &mut out,
        Binding { offset: 16, size_in_bytes: 16 },
        &opts,
    )
    .unwrap();
    assert_eq!(f32_values(&out[16..32]), [2.0, 4.0, 10.0, 12.0]);
    assert!(out[..16].iter().chain(&out[32..]).all(|&b| b == SENTINEL));

    let mut out = vec![SENTINEL; 64];
    let err = slice1_bound(
        &plan,
        &input,
        Binding { offset: 32, size_in_bytes: 64 },
        &mut out,
        Binding { offset: 8, size_in_bytes: 16 },
        &opts,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "error[R-BIND-2]: OutputTensor binding: Offset 8 is not a multiple of 16 (max of 16 and GuaranteedBaseOffsetAlignment)"
    );
    let err =
        slice1_bound(&plan, &input, Binding { offset: 48, size_in_bytes: 64 }, &mut out, Binding::whole(64), &opts)
            .unwrap_err();
    assert!(matches!(err, ExecError::Binding(stridekit::BindingError::OutsideBuffer { offset: 48, .. })), "{err}");
    let err = slice1_bound(
        &plan,
        &input,
        Binding { offset: u64::MAX - 15, size_in_bytes: 64 },
        &mut out,
        Binding::whole(64),
        &opts,
    )
    .unwrap_err();
    assert!(matches!(err, ExecError::Binding(_)));
    assert!(out.iter().all(|&b| b == SENTINEL));
}

#[test]
fn guaranteed_alignment_raises_the_offset_requirement() {
    let mut case = slice1_ex1();
    case.desc.output.guaranteed_base_offset_alignment = 64;
    let plan = case.desc.validate().unwrap();
    let op = PreparedSlice1::new(&plan, ExecOptions::default()).unwrap();
    let mut out = vec![SENTINEL; 128];
    let input = Binding::whole(case.input.len());
    let err = op.execute_bound(&case.input, input, &mut out, Binding { offset: 32, size_in_bytes: 16 }).unwrap_err();
    assert!(matches!(err, ExecError::Binding(stridekit::BindingError::Misaligned { required: 64, .. })));
    op.execute_bound(&case.input, input, &mut out, Binding { offset: 64, size_in_bytes: 16 }).unwrap();
    assert_eq!(f32_values(&out[64..80]), [2.0, 4.0, 10.0, 12.0]);
}

#[test]
fn output_padding_is_preserved() {
    // u16 output 3x5 with a row pitch of 8 elements and 16 extra bytes of TotalTensorSizeInBytes: 3 padding
    // elements per row and the tail must keep the sentinel, with every kernel setting.
    let sizes = [3u32, 5];
    let input = BufferTensorDesc::packed(DataType::Uint16, &[6, 10]).unwrap();
    let mut output = BufferTensorDesc::new(DataType::Uint16, &sizes, Some(&[8, 1])).unwrap();
    output.total_tensor_size_in_bytes += 16;
    for strides in [[2, 2], [-2, -1], [1, 1], [-1, 2]] {
        let desc = Slice1Desc {
            input: input.clone(),
            output: output.clone(),
            input_window_offsets: vec![0, 0],
            input_window_sizes: vec![6, 10],
            input_window_strides: strides.to_vec(),
        };
        let plan = desc.validate().unwrap();
        let bytes: Vec<u8> = (0..120u8).collect();
        for options in [ExecOptions::with_threads(1), ExecOptions::exercise_all_paths(2)] {
            let mut out = vec![SENTINEL; output.total_tensor_size_in_bytes as usize];
            stridekit_cpu::slice1_with(&plan, &bytes, &mut out, &options).unwrap();
            for (i, &b) in out.iter().enumerate() {
                let elem = i / 2;
                let is_element = elem < 3 * 8 && elem % 8 < 5;
                assert_eq!(b == SENTINEL, !is_element, "byte {i} strides {strides:?}");
            }
        }
    }
}
