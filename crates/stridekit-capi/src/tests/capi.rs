//! The exported functions called from Rust as a C program would: the doc examples, the model's rule ids through the
//! boundary, owned copies, counts that must not be read, and execution from several threads.

use crate::*;
use std::ptr::{null, null_mut};
use stridekit::{DataType, calc_buffer_tensor_size, dmlx_calc_buffer_tensor_size};

const FLOAT32: u32 = 1;
const SLICE: u32 = 60;
const SLICE1: u32 = 111;
const LEVEL_6_4: u32 = 0x6400;

/// A Slice1 or Slice description whose arrays live as long as the value.
struct Desc {
    in_sizes: Vec<u32>,
    out_sizes: Vec<u32>,
    a: Vec<u32>,
    b: Vec<u32>,
    strides1: Vec<i32>,
    strides0: Vec<u32>,
    buffers: [DML_BUFFER_TENSOR_DESC; 2],
    tensors: [DML_TENSOR_DESC; 2],
    slice1: DML_SLICE1_OPERATOR_DESC,
    slice: DML_SLICE_OPERATOR_DESC,
    op: DML_OPERATOR_DESC,
}

fn buffer(sizes: &[u32]) -> DML_BUFFER_TENSOR_DESC {
    DML_BUFFER_TENSOR_DESC {
        DataType: FLOAT32,
        Flags: 0,
        DimensionCount: sizes.len() as u32,
        Sizes: sizes.as_ptr(),
        Strides: null(),
        TotalTensorSizeInBytes: calc_buffer_tensor_size(DataType::Float32, sizes, None).unwrap(),
        GuaranteedBaseOffsetAlignment: 0,
    }
}

/// A [`Desc`] at a fixed address. Its internal pointers are all derived from the one raw pointer of the allocation
/// (never from a `Box` or a `&mut` that later moves or ends), so that Miri's aliasing model accepts the C-style
/// self-references while the tests mutate fields through `DerefMut`.
struct Pinned(*mut Desc);

impl std::ops::Deref for Pinned {
    type Target = Desc;
    fn deref(&self) -> &Desc {
        // SAFETY: the allocation lives until drop; shared access for the borrow's duration.
        unsafe { &*self.0 }
    }
}

impl std::ops::DerefMut for Pinned {
    fn deref_mut(&mut self) -> &mut Desc {
        // SAFETY: as above; `&mut self` makes the access unique.
        unsafe { &mut *self.0 }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // SAFETY: created by Box::into_raw in Desc::pinned and dropped once.
        drop(unsafe { Box::from_raw(self.0) });
    }
}

impl Desc {
    fn pinned(op_type: u32, in_sizes: &[u32], out_sizes: &[u32], a: &[u32], b: &[u32], strides: &[i64]) -> Pinned {
        let p = Box::into_raw(Box::new(Desc {
            in_sizes: in_sizes.to_vec(),
            out_sizes: out_sizes.to_vec(),
            a: a.to_vec(),
            b: b.to_vec(),
            strides1: strides.iter().map(|&s| s as i32).collect(),
            strides0: strides.iter().map(|&s| s as u32).collect(),
            buffers: [buffer(in_sizes), buffer(out_sizes)],
            tensors: [DML_TENSOR_DESC { Type: 0, Desc: null() }; 2],
            slice1: DML_SLICE1_OPERATOR_DESC {
                InputTensor: null(),
                OutputTensor: null(),
                DimensionCount: 0,
                InputWindowOffsets: null(),
                InputWindowSizes: null(),
                InputWindowStrides: null(),
            },
            slice: DML_SLICE_OPERATOR_DESC {
                InputTensor: null(),
                OutputTensor: null(),
                DimensionCount: 0,
                Offsets: null(),
                Sizes: null(),
                Strides: null(),
            },
            op: DML_OPERATOR_DESC { Type: op_type, Desc: null() },
        }));
        // SAFETY: `p` is a live, exclusively owned allocation; every pointer below is derived from it directly.
        unsafe {
            (*p).buffers[0].Sizes = (*p).in_sizes.as_ptr();
            (*p).buffers[1].Sizes = (*p).out_sizes.as_ptr();
            for i in 0..2 {
                (*p).tensors[i] =
                    DML_TENSOR_DESC { Type: DML_TENSOR_TYPE_BUFFER, Desc: (&raw const (*p).buffers[i]).cast() };
            }
            let (input, output) = (&raw const (*p).tensors[0], &raw const (*p).tensors[1]);
            let n = (*p).a.len() as u32;
            (*p).slice1 = DML_SLICE1_OPERATOR_DESC {
                InputTensor: input,
                OutputTensor: output,
                DimensionCount: n,
                InputWindowOffsets: (*p).a.as_ptr(),
                InputWindowSizes: (*p).b.as_ptr(),
                InputWindowStrides: (*p).strides1.as_ptr(),
            };
            (*p).slice = DML_SLICE_OPERATOR_DESC {
                InputTensor: input,
                OutputTensor: output,
                DimensionCount: n,
                Offsets: (*p).a.as_ptr(),
                Sizes: (*p).b.as_ptr(),
                Strides: (*p).strides0.as_ptr(),
            };
            (*p).op.Desc =
                if op_type == SLICE { (&raw const (*p).slice).cast() } else { (&raw const (*p).slice1).cast() };
        }
        Pinned(p)
    }

    fn example2() -> Pinned {
        Desc::pinned(SLICE1, &[1, 1, 4, 4], &[1, 1, 2, 2], &[0, 0, 0, 1], &[1, 1, 4, 3], &[1, 1, -2, 2])
    }

    fn validate(&self) -> (HRESULT, SK_ERROR_INFO) {
        let mut info = SK_ERROR_INFO::default();
        // SAFETY: the description and its arrays are alive; `info` is writable.
        let hr = unsafe { skValidateOperatorDesc(&self.op, LEVEL_6_4, &mut info) };
        (hr, info)
    }

    fn create(&self) -> *mut SK_OPERATOR {
        let mut op = null_mut();
        let mut info = SK_ERROR_INFO::default();
        // SAFETY: as above; `op` is writable.
        let hr = unsafe { skCreateOperator(&self.op, LEVEL_6_4, &mut op, &mut info) };
        assert_eq!(hr, S_OK, "{}", info.message());
        op
    }
}

fn floats(n: usize) -> Vec<f32> {
    (1..=n).map(|v| v as f32).collect()
}

fn execute(op: *const SK_OPERATOR, input: &[f32], output: &mut [f32]) -> (HRESULT, SK_ERROR_INFO) {
    let mut info = SK_ERROR_INFO::default();
    // SAFETY: `op` is live; the slices are valid for their byte lengths and disjoint.
    let hr = unsafe {
        skExecuteOperator(
            op,
            input.as_ptr().cast(),
            size_of_val(input) as u64,
            output.as_mut_ptr().cast(),
            size_of_val(output) as u64,
            &mut info,
        )
    };
    (hr, info)
}

#[test]
fn doc_examples_slice1_and_slice() {
    let cases: [(Pinned, &[f32]); 3] = [
        (Desc::example2(), &[14.0, 16.0, 6.0, 8.0]),
        (
            Desc::pinned(SLICE1, &[1, 1, 4, 4], &[1, 1, 2, 2], &[0, 0, 0, 1], &[1, 1, 4, 3], &[1, 1, 2, 2]),
            &[2.0, 4.0, 10.0, 12.0],
        ),
        (
            Desc::pinned(SLICE, &[1, 1, 4, 4], &[1, 1, 2, 2], &[0, 0, 1, 0], &[1, 1, 2, 2], &[1, 1, 2, 3]),
            &[5.0, 8.0, 13.0, 16.0],
        ),
    ];
    for (desc, expected) in cases {
        let (hr, info) = desc.validate();
        assert_eq!((hr, info.rule_id(), info.message()), (S_OK, "", ""));
        let op = desc.create();
        let mut out = [0.0f32; 4];
        let (hr, info) = execute(op, &floats(16), &mut out);
        assert_eq!(hr, S_OK, "{}", info.message());
        assert_eq!(out, expected);
        // SAFETY: created above, released once.
        unsafe { skReleaseOperator(op) };
    }
}

#[test]
fn rule_ids_and_messages_are_the_models() {
    let mut d = Desc::example2();
    d.strides1[2] = -4;
    let (hr, info) = d.validate();
    assert_eq!((hr, info.rule_id()), (E_INVALIDARG, "R-S1-5"));
    let model = stridekit::Slice1Desc {
        input: stridekit::BufferTensorDesc::packed(DataType::Float32, &[1, 1, 4, 4]).unwrap(),
        output: stridekit::BufferTensorDesc::packed(DataType::Float32, &[1, 1, 2, 2]).unwrap(),
        input_window_offsets: vec![0, 0, 0, 1],
        input_window_sizes: vec![1, 1, 4, 3],
        input_window_strides: vec![1, 1, -4, 2],
    };
    assert_eq!(info.message(), model.validate().unwrap_err().to_string());

    let mut d = Desc::example2();
    d.buffers[1].DataType = 77;
    let (hr, info) = d.validate();
    assert_eq!((hr, info.rule_id()), (E_INVALIDARG, "R-BT-1"));
    assert!(info.message().starts_with("error[R-BT-1]: OutputTensor.DataType is 77"), "{}", info.message());
}

#[test]
fn counts_above_eight_are_reported_not_read() {
    // The arrays hold 4 values; the counts claim 1000 and u32::MAX. Reading them would run past the Vecs (Miri and
    // the sanitizer runs of the C tests would see it); the model's messages carry the caller's counts.
    let mut d = Desc::example2();
    d.slice1.DimensionCount = 1000;
    let (hr, info) = d.validate();
    assert_eq!((hr, info.rule_id()), (E_INVALIDARG, "R-S1-1"));
    assert_eq!(
        info.message(),
        "error[R-S1-1]: InputWindowOffsets has 1000 entries but InputTensor.DimensionCount is 4; DimensionCount must \
         match both tensors"
    );
    let mut d = Desc::example2();
    d.buffers[0].DimensionCount = u32::MAX;
    let (hr, info) = d.validate();
    assert_eq!((hr, info.rule_id()), (E_INVALIDARG, "R-BT-2"));
    assert!(
        info.message().starts_with("error[R-BT-2]: InputTensor.DimensionCount is 4294967295"),
        "{}",
        info.message()
    );
    let sizes = [2u32, 2];
    // SAFETY: the count is not read beyond 8, and 1000 > 8 returns before reading.
    assert_eq!(unsafe { skCalcBufferTensorSize(FLOAT32, 1000, sizes.as_ptr(), null()) }, 0);
}

#[test]
fn operator_owns_copies() {
    let d = Desc::example2();
    let op = d.create();
    drop(d);
    let mut out = [0.0f32; 4];
    assert_eq!(execute(op, &floats(16), &mut out).0, S_OK);
    assert_eq!(out, [14.0, 16.0, 6.0, 8.0]);
    // SAFETY: created above, released once.
    unsafe { skReleaseOperator(op) };
}

#[test]
fn binding_rule_and_null_arguments() {
    let d = Desc::example2();
    let op = d.create();
    let input = floats(16);
    let mut out = [0.0f32; 4];
    let (hr, info) = execute(op, &input[..15], &mut out);
    assert_eq!((hr, info.rule_id()), (E_INVALIDARG, "R-BIND-1"));
    assert_eq!(
        info.message(),
        "error[R-BIND-1]: InputTensor binding: SizeInBytes is 60, but TotalTensorSizeInBytes is 64"
    );
    assert_eq!(out, [0.0; 4], "nothing written on error");
    let (hr, info) = execute(null(), &input, &mut out);
    assert_eq!((hr, info.rule_id()), (E_POINTER, "capi"));
    let mut info = SK_ERROR_INFO::default();
    // SAFETY: null pointers are what is tested; `info` is writable.
    unsafe {
        assert_eq!(skValidateOperatorDesc(null(), LEVEL_6_4, &mut info), E_POINTER);
        assert_eq!(skCreateOperator(&d.op, LEVEL_6_4, null_mut(), null_mut()), E_POINTER);
        skReleaseOperator(op);
        skReleaseOperator(null_mut());
    }
}

#[test]
fn size_helpers_are_the_models() {
    let cases: [(&[u32], Option<&[u32]>); 4] =
        [(&[2, 3], Some(&[5, 1])), (&[65537, 65537], Some(&[65536, 1])), (&[7], None), (&[3, 1, 2], None)];
    for (sizes, strides) in cases {
        let s = strides.map_or(null(), <[u32]>::as_ptr);
        let n = sizes.len() as u32;
        for t in 0..=14u32 {
            let exact = DataType::from_raw(t).and_then(|dt| calc_buffer_tensor_size(dt, sizes, strides).ok());
            // SAFETY: both arrays hold `n` values.
            unsafe {
                assert_eq!(skCalcBufferTensorSize(t, n, sizes.as_ptr(), s), exact.unwrap_or(0));
                assert_eq!(
                    skCalcBufferTensorSizeDmlx(t, n, sizes.as_ptr(), s),
                    dmlx_calc_buffer_tensor_size(t, sizes, strides)
                );
            }
        }
    }
}

#[test]
fn one_operator_on_many_threads() {
    struct Shared(*mut SK_OPERATOR);
    // SAFETY: SK_OPERATOR is Send + Sync (asserted in the crate); the raw pointer only carries it across threads.
    unsafe impl Sync for Shared {}
    impl Shared {
        fn get(&self) -> *mut SK_OPERATOR {
            self.0
        }
    }
    let d = Desc::example2();
    let op = Shared(d.create());
    let input = floats(16);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..if cfg!(miri) { 3 } else { 200 } {
                    let mut out = [0.0f32; 4];
                    assert_eq!(execute(op.get(), &input, &mut out).0, S_OK);
                    assert_eq!(out, [14.0, 16.0, 6.0, 8.0]);
                }
            });
        }
    });
    // SAFETY: created above, released once, after every thread finished.
    unsafe { skReleaseOperator(op.0) };
}
