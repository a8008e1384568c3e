//! Slice and Slice1 validation: the doc examples' plans and a negative test for every operator rule.

use stridekit::{BufferTensorDesc, DataType, FeatureLevel, Slice1Desc, SliceDesc};

fn packed(t: DataType, sizes: &[u32]) -> BufferTensorDesc {
    BufferTensorDesc::packed(t, sizes).unwrap()
}

/// Slice1 doc example 2 and variations: 1x1x4x4 input, window offsets {0,0,0,1}, sizes {1,1,4,3}.
fn doc(strides: [i32; 4], out: [u32; 4]) -> Slice1Desc {
    Slice1Desc {
        input: packed(DataType::Float32, &[1, 1, 4, 4]),
        output: packed(DataType::Float32, &out),
        input_window_offsets: vec![0, 0, 0, 1],
        input_window_sizes: vec![1, 1, 4, 3],
        input_window_strides: strides.to_vec(),
    }
}

fn err(d: &Slice1Desc) -> String {
    d.validate().unwrap_err().to_string()
}

#[test]
fn doc_example_1_plan() {
    let plan = doc([1, 1, 2, 2], [1, 1, 2, 2]).validate().unwrap();
    assert_eq!(plan.copy_start(), [0, 0, 0, 1]);
    assert_eq!(plan.input_start(), 1);
    assert_eq!(plan.input_strides(), [0, 0, 8, 2]);
    assert_eq!(plan.output_strides(), [0, 0, 2, 1]);
}

#[test]
fn doc_example_2_plan_negative_stride() {
    let plan = doc([1, 1, -2, 2], [1, 1, 2, 2]).validate().unwrap();
    // CopyStart[2] = InputWindowOffsets[2] + InputWindowSizes[2] - 1 = 3.
    assert_eq!(plan.copy_start(), [0, 0, 3, 1]);
    assert_eq!(plan.input_start(), 13);
    assert_eq!(plan.input_strides(), [0, 0, -8, 2]);
}

#[test]
fn r_s1_1_rank() {
    let mut d = doc([1, 1, 2, 2], [1, 1, 2, 2]);
    d.input_window_offsets.pop();
    assert_eq!(
        err(&d),
        "error[R-S1-1]: InputWindowOffsets has 3 entries but InputTensor.DimensionCount is 4; DimensionCount must \
         match both tensors"
    );
    let mut d = doc([1, 1, 2, 2], [1, 1, 2, 2]);
    d.output = packed(DataType::Float32, &[1, 2, 2]);
    assert!(err(&d).starts_with("error[R-S1-1]: OutputTensor.Sizes has 3 entries"));
    // Before 3_0 Slice1 needs rank 4 or 5.
    let d = Slice1Desc {
        input: packed(DataType::Float32, &[4]),
        output: packed(DataType::Float32, &[2]),
        input_window_offsets: vec![0],
        input_window_sizes: vec![4],
        input_window_strides: vec![2],
    };
    assert!(d.validate().is_ok());
    assert_eq!(
        d.validate_at(FeatureLevel::L2_1).unwrap_err().to_string(),
        "error[R-S1-1]: DimensionCount is 1; DML_OPERATOR_SLICE1 accepts 4 to 5 dimensions at feature level 2_1"
    );
}

#[test]
fn r_s1_2_window_inside_input_in_64_bits() {
    let mut d = doc([1, 1, 2, 2], [1, 1, 2, 2]);
    d.input_window_offsets[3] = 2;
    assert_eq!(
        err(&d),
        "error[R-S1-2]: InputWindowOffsets[3] + InputWindowSizes[3] = 2 + 3 = 5 exceeds InputTensor.Sizes[3] = 4; \
         out-of-bounds reads are not permitted"
    );
    // offset + size wraps 32 bits: still caught.
    d.input_window_offsets[3] = u32::MAX;
    assert!(err(&d).contains("= 4294967295 + 3 = 4294967298 exceeds"));
}

#[test]
fn r_s1_3_empty_window() {
    let mut d = doc([1, 1, 2, 2], [1, 1, 2, 2]);
    d.input_window_sizes[2] = 0;
    assert_eq!(err(&d), "error[R-S1-3]: InputWindowSizes[2] is 0; the window must not be empty in any dimension");
}

#[test]
fn r_s1_4_zero_stride_and_i32_min() {
    let mut d = doc([1, 1, 0, 2], [1, 1, 2, 2]);
    assert_eq!(err(&d), "error[R-S1-4]: InputWindowStrides[2] is 0; strides may not be 0");
    // i32::MIN is a legal stride: |stride| = 2^31, so a window of 4 copies 1 element.
    d = doc([1, 1, i32::MIN, 2], [1, 1, 1, 2]);
    let plan = d.validate().unwrap();
    assert_eq!(plan.copy_start(), [0, 0, 3, 1]);
    d = doc([1, 1, i32::MAX, 2], [1, 1, 2, 2]);
    assert!(err(&d).starts_with("error[R-S1-5]"));
}

#[test]
fn r_s1_5_output_size() {
    let d = doc([1, 1, -2, 2], [1, 1, 3, 2]);
    assert_eq!(
        err(&d),
        "error[R-S1-5]: OutputTensor.Sizes[2] is 3, but a window of 4 with stride -2 copies at most 2 (1 + (4 - 1) / |-2|)"
    );
    // A smaller output is legal.
    assert!(doc([1, 1, -2, 2], [1, 1, 1, 1]).validate().is_ok());
}

#[test]
fn r_s1_6_same_data_type() {
    let mut d = doc([1, 1, 2, 2], [1, 1, 2, 2]);
    d.output = packed(DataType::Float16, &[1, 1, 2, 2]);
    assert_eq!(
        err(&d),
        "error[R-S1-6]: InputTensor.DataType is FLOAT32 but OutputTensor.DataType is FLOAT16; they must be the same"
    );
}

#[test]
fn r_s1_7_and_d7_type_tables() {
    let mut d = doc([1, 1, 2, 2], [1, 1, 2, 2]);
    d.input = packed(DataType::Uint4, &[1, 1, 4, 4]);
    d.output = packed(DataType::Uint4, &[1, 1, 2, 2]);
    assert_eq!(
        err(&d),
        "error[R-S1-7]: DML_OPERATOR_SLICE1 does not accept DataType UINT4 at feature level 6_4 (no feature level \
         supports 4-bit types in slicing; it accepts FLOAT32, FLOAT16, UINT32, UINT16, UINT8, INT32, INT16, INT8, \
         FLOAT64, UINT64, INT64)"
    );
    d.input = packed(DataType::Int64, &[1, 1, 4, 4]);
    d.output = packed(DataType::Int64, &[1, 1, 2, 2]);
    assert!(d.validate().is_ok());
    assert_eq!(
        d.validate_at(FeatureLevel::L3_0).unwrap_err().to_string(),
        "error[R-S1-7]: DML_OPERATOR_SLICE1 does not accept DataType INT64 at feature level 3_0 (it needs 4_1 or later)"
    );
    assert_eq!(
        d.validate_at(FeatureLevel::L2_0).unwrap_err().to_string(),
        "error[D7]: DML_OPERATOR_SLICE1 does not exist at feature level 2_0 (it needs 2_1 or later)"
    );
}

#[test]
fn d1_output_overlap_and_r_fl_1_through_the_operator() {
    let mut d = doc([1, 1, 2, 2], [1, 1, 2, 2]);
    d.output = BufferTensorDesc::new(DataType::Float32, &[1, 1, 2, 2], Some(&[4, 4, 0, 1])).unwrap();
    assert!(err(&d).starts_with("error[D1]: OutputTensor.Strides: dimension 2 (size 2, stride 0)"));
    let mut d = doc([1, 1, 2, 2], [1, 1, 2, 2]);
    d.output.flags = stridekit::TensorFlags::OWNED_BY_DML;
    assert!(err(&d).starts_with("error[R-FL-1]: OutputTensor.Flags"));
    let mut d = doc([1, 1, 2, 2], [1, 1, 2, 2]);
    d.input.total_tensor_size_in_bytes = 60;
    assert!(err(&d).starts_with("error[R-BT-5]: InputTensor.TotalTensorSizeInBytes is 60"));
}

fn slice_v0(offsets: [u32; 4], sizes: [u32; 4], strides: [u32; 4]) -> SliceDesc {
    SliceDesc {
        input: packed(DataType::Float32, &[1, 1, 4, 4]),
        output: packed(DataType::Float32, &sizes),
        offsets: offsets.to_vec(),
        sizes: sizes.to_vec(),
        strides: strides.to_vec(),
    }
}

#[test]
fn slice_v0_doc_examples_plans() {
    let plan = slice_v0([0, 0, 1, 2], [1, 1, 3, 2], [1, 1, 1, 1]).validate().unwrap();
    assert_eq!(plan.input_start(), 6);
    assert_eq!(plan.input_window_sizes(), [1, 1, 3, 2]);
    let plan = slice_v0([0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 2, 3]).validate().unwrap();
    assert_eq!(plan.input_start(), 4);
    assert_eq!(plan.input_strides(), [0, 0, 8, 3]);
    assert_eq!(plan.input_window_sizes(), [1, 1, 3, 4]);
}

#[test]
fn slice_v0_rules() {
    let mut d = slice_v0([0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 2, 3]);
    d.sizes[3] = 1;
    assert_eq!(
        d.validate().unwrap_err().to_string(),
        "error[R-S0-2]: Sizes[3] is 1 but OutputTensor.Sizes[3] is 2; they must be equal"
    );
    let d = slice_v0([0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 0, 3]);
    assert_eq!(d.validate().unwrap_err().to_string(), "error[D3]: Strides[2] is 0; strides may not be 0");
    let d = slice_v0([0, 0, 2, 0], [1, 1, 2, 2], [1, 1, 2, 3]);
    assert_eq!(
        d.validate().unwrap_err().to_string(),
        "error[R-S0-3]: Offsets[2] + Strides[2] * (Sizes[2] - 1) = 2 + 2 * 1 = 4 exceeds InputTensor.Sizes[2] - 1 = 3; \
         out-of-bounds reads are not permitted"
    );
    let mut d = slice_v0([0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 2, 3]);
    d.output = packed(DataType::Int32, &[1, 1, 2, 2]);
    assert!(d.validate().unwrap_err().to_string().starts_with("error[R-S0-4]"));
    d.input = packed(DataType::Uint8, &[1, 1, 4, 4]);
    d.output = packed(DataType::Uint8, &[1, 1, 2, 2]);
    assert!(d.validate_at(FeatureLevel::L2_1).is_ok());
    assert_eq!(
        d.validate_at(FeatureLevel::L1_0).unwrap_err().to_string(),
        "error[D7]: DML_OPERATOR_SLICE does not accept DataType UINT8 at feature level 1_0 (it needs 2_1 or later)"
    );
    let mut d = slice_v0([0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 2, 3]);
    d.offsets.push(0);
    assert!(d.validate().unwrap_err().to_string().starts_with("error[R-S0-1]: Offsets has 5 entries"));
}
