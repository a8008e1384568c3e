//! A negative test for every buffer-tensor rule (R-BT-*, R-FL-1, D1, D2, D4, D7), asserting the exact message.

use stridekit::{BufferTensorDesc, DataType, FeatureLevel, TensorFlags, TensorRole};

fn desc(data_type: DataType, sizes: &[u32], strides: Option<&[u32]>) -> BufferTensorDesc {
    BufferTensorDesc::new(data_type, sizes, strides).unwrap()
}

fn err(d: &BufferTensorDesc, role: TensorRole, level: FeatureLevel) -> String {
    d.validate_as(role, level).unwrap_err().to_string()
}

fn err_latest(d: &BufferTensorDesc) -> String {
    d.validate().unwrap_err().to_string()
}

#[test]
fn r_bt_1_unknown_data_type() {
    let e = BufferTensorDesc::from_raw(0, 0, &[1], None, 4, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "error[R-BT-1]: DataType is 0, which is not a tensor data type (UNKNOWN is 0; the defined types are 1..=13)"
    );
    assert!(BufferTensorDesc::from_raw(14, 0, &[1], None, 4, 0).is_err());
    assert!(BufferTensorDesc::from_raw(13, 0, &[1], None, 4, 0).is_ok());
}

#[test]
fn r_bt_1_type_not_at_level() {
    let d = desc(DataType::Float64, &[2], None);
    assert_eq!(
        err(&d, TensorRole::Standalone, FeatureLevel::L2_1),
        "error[R-BT-1]: DataType FLOAT64 does not exist at feature level 2_1 (it needs 3_0 or later)"
    );
    let d = desc(DataType::Int4, &[2], None);
    assert_eq!(
        err(&d, TensorRole::Input, FeatureLevel::L6_2),
        "error[R-BT-1]: InputTensor.DataType INT4 does not exist at feature level 6_2 (it needs 6_3 or later)"
    );
    assert!(d.validate_as(TensorRole::Input, FeatureLevel::L6_3).is_ok());
}

#[test]
fn r_bt_2_dimension_count() {
    let mut d = desc(DataType::Float32, &[1; 8], None);
    assert!(d.validate().is_ok());
    assert_eq!(
        err(&d, TensorRole::Standalone, FeatureLevel::L2_1),
        "error[R-BT-2]: DimensionCount is 8; it must be between 1 and 5 at feature level 2_1"
    );
    d.sizes = vec![1; 9];
    assert_eq!(err_latest(&d), "error[R-BT-2]: DimensionCount is 9; it must be between 1 and 8 at feature level 6_4");
    d.sizes = vec![];
    assert_eq!(err_latest(&d), "error[R-BT-2]: DimensionCount is 0; it must be between 1 and 8 at feature level 6_4");
}

#[test]
fn r_bt_3_zero_size() {
    let mut d = desc(DataType::Float32, &[2, 3], None);
    d.sizes[1] = 0;
    assert_eq!(
        err(&d, TensorRole::Output, FeatureLevel::LATEST),
        "error[R-BT-3]: OutputTensor.Sizes[1] is 0; every size must be >= 1 (DirectML cannot express empty tensors)"
    );
}

#[test]
fn r_bt_4_stride_count() {
    let mut d = desc(DataType::Float32, &[2, 3], None);
    d.strides = Some(vec![3, 1, 1]);
    assert_eq!(err_latest(&d), "error[R-BT-4]: Strides has 3 entries but Sizes has 2; they must have the same length");
}

#[test]
fn r_bt_5_total_size_too_small() {
    let mut d = desc(DataType::Float32, &[2, 3], Some(&[5, 1]));
    d.total_tensor_size_in_bytes = 24;
    assert_eq!(
        err_latest(&d),
        "error[R-BT-5]: TotalTensorSizeInBytes is 24, but the elements need at least 32 bytes (DMLCalcBufferTensorSize)"
    );
}

#[test]
fn r_bt_8_and_d2_dword_rounding() {
    // 3 float16 = 6 bytes; the minimum is rounded up to 8.
    let mut d = desc(DataType::Float16, &[3], None);
    assert_eq!(d.total_tensor_size_in_bytes, 8);
    d.total_tensor_size_in_bytes = 6;
    assert_eq!(
        err_latest(&d),
        "error[R-BT-8]: TotalTensorSizeInBytes is 6: it covers the 6 element bytes, but the minimum is rounded up to a \
         multiple of 4 (8), because DirectML binds buffers in whole DWORDs"
    );
    // D2: a larger value need not be a multiple of 4.
    d.total_tensor_size_in_bytes = 9;
    assert!(d.validate().is_ok());
}

#[test]
fn r_bt_6_and_d4_element_limits() {
    // Physical extent 2^32 (the last index is 2^32 - 1) with only 2 logical elements.
    let d = BufferTensorDesc::from_raw(5, 0, &[2], Some(&[u32::MAX]), 1 << 33, 0).unwrap();
    assert_eq!(
        err_latest(&d),
        "error[R-BT-6]: Sizes/Strides: the physical extent is 4294967296 elements (index of the last element + 1); \
         at most 4294967295 are allowed"
    );
    // Extent 2^32 - 1 is allowed.
    let d = BufferTensorDesc::from_raw(5, 0, &[1, 2], Some(&[1, u32::MAX - 1]), 1 << 32, 0).unwrap();
    assert_eq!(d.validate().unwrap().physical_extent(), u64::from(u32::MAX));
    // Logical count 2^32 through broadcasting (extent 1).
    let d = BufferTensorDesc::from_raw(5, 0, &[65536, 65536], Some(&[0, 0]), 4, 0).unwrap();
    assert_eq!(
        err_latest(&d),
        "error[R-BT-6]: Sizes: the logical element count is 4294967296 (product of the sizes); at most 4294967295 are allowed"
    );
    // Products that overflow 64 bits are an error, not a wrap.
    let d = BufferTensorDesc::from_raw(5, 0, &[u32::MAX; 3], None, 4, 0).unwrap();
    assert_eq!(
        err_latest(&d),
        "error[R-BT-6]: Sizes/Strides: the packed stride overflows 64-bit arithmetic at dimension 0 (size 4294967295, \
         stride 18446744065119617025)"
    );
}

#[test]
fn r_bt_7_alignment() {
    let mut d = desc(DataType::Float64, &[2], None);
    d.guaranteed_base_offset_alignment = 24;
    assert_eq!(err_latest(&d), "error[R-BT-7]: GuaranteedBaseOffsetAlignment is 24; it must be 0 or a power of two");
    d.guaranteed_base_offset_alignment = 4;
    assert_eq!(
        err_latest(&d),
        "error[R-BT-7]: GuaranteedBaseOffsetAlignment is 4; it must be 0 or at least the element size (8 bytes for FLOAT64)"
    );
    d.guaranteed_base_offset_alignment = 8;
    assert!(d.validate().is_ok());
    // Sub-byte types count as one byte: every power of two passes.
    let mut d = desc(DataType::Uint4, &[5], None);
    d.guaranteed_base_offset_alignment = 1;
    assert!(d.validate().is_ok());
}

#[test]
fn r_bt_9_and_d8_unknown_flags() {
    let e = BufferTensorDesc::from_raw(1, 0x6, &[1], None, 4, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "error[R-BT-9]: Flags is 0x6; the bits 0x6 are not DML_TENSOR_FLAGS (only NONE = 0 and OWNED_BY_DML = 0x1 exist)"
    );
}

#[test]
fn r_fl_1_owned_by_dml_on_output() {
    let mut d = desc(DataType::Float32, &[2], None);
    d.flags = TensorFlags::OWNED_BY_DML;
    assert!(d.validate_as(TensorRole::Input, FeatureLevel::LATEST).is_ok());
    assert_eq!(
        err(&d, TensorRole::Output, FeatureLevel::LATEST),
        "error[R-FL-1]: OutputTensor.Flags has OWNED_BY_DML, which is legal on input tensors only"
    );
}

#[test]
fn d1_output_must_not_overlap() {
    let d = desc(DataType::Float32, &[2, 3], Some(&[0, 1]));
    assert!(d.validate_as(TensorRole::Input, FeatureLevel::LATEST).is_ok());
    assert_eq!(
        err(&d, TensorRole::Output, FeatureLevel::LATEST),
        "error[D1]: OutputTensor.Strides: dimension 0 (size 2, stride 0) overlaps the dimensions with smaller strides, \
         which span 1 elements; an output must give every element its own address (stride 0 broadcasts and overlaps \
         are for inputs only)"
    );
    let d = desc(DataType::Float32, &[2, 3], Some(&[2, 1]));
    assert_eq!(err(&d, TensorRole::Output, FeatureLevel::LATEST).split(':').next(), Some("error[D1]"));
    // Padded and permuted outputs are fine.
    for strides in [[5, 1], [1, 2], [1, 7]] {
        let d = desc(DataType::Float32, &[2, 3], Some(&strides));
        assert!(d.validate_as(TensorRole::Output, FeatureLevel::LATEST).is_ok(), "{strides:?}");
    }
}
