//! The worked examples of DirectML's "Using strides to express padding and memory layout" page.

use stridekit::{BufferTensorDesc, DataType, TensorLayout, strides_for_label};

fn layout(sizes: &[u32], strides: &[u32]) -> TensorLayout {
    BufferTensorDesc::new(DataType::Float32, sizes, Some(strides)).unwrap().validate().unwrap()
}

/// The letter stored at each buffer offset ('x' for padding), as the page draws its tables.
fn buffer_letters(l: &TensorLayout) -> String {
    let mut cells = vec!['x'; l.physical_extent() as usize];
    for (i, off) in l.element_offsets().enumerate() {
        cells[off as usize] = (b'A' + i as u8) as char;
    }
    cells.into_iter().collect()
}

#[test]
fn row_major_2x3() {
    let l = layout(&[2, 3], &strides_for_label(&[2, 3], "HW").unwrap());
    assert_eq!(l.strides(), [3, 1]);
    assert_eq!(buffer_letters(&l), "ABCDEF");
    assert!(l.is_packed());
}

#[test]
fn column_major_2x3() {
    let l = layout(&[2, 3], &strides_for_label(&[2, 3], "WH").unwrap());
    assert_eq!(l.strides(), [1, 2]);
    assert_eq!(buffer_letters(&l), "ADBECF");
    assert!(l.is_packed());
}

#[test]
fn dhw_2x2x3_h_at_offset_7() {
    let l = layout(&[2, 2, 3], &strides_for_label(&[2, 2, 3], "DHW").unwrap());
    assert_eq!(l.strides(), [6, 3, 1]);
    assert_eq!(buffer_letters(&l), "ABCDEFGHIJKL");
    assert_eq!(l.offset_of(&[1, 0, 1]), Some(7));
    assert_eq!(l.coords_at(7, 4), vec![vec![1, 0, 1]]);
    assert_eq!(l.element_count(), 12);
    assert_eq!(l.physical_extent(), 12);
}

#[test]
fn broadcast_2x3_height_stride_0() {
    let l = layout(&[2, 3], &[0, 1]);
    assert_eq!(l.element_offsets().collect::<Vec<_>>(), [0, 1, 2, 0, 1, 2]);
    assert_eq!(l.physical_extent(), 3);
    assert_eq!(l.element_count(), 6);
    assert_eq!(l.broadcast_dims(), [0]);
    assert!(!l.is_packed() && !l.is_padded() && !l.is_overlapping());
    assert_eq!(l.coords_at(0, 8), vec![vec![0, 0], vec![1, 0]]);
}

#[test]
fn padded_2x3_height_stride_5() {
    let l = layout(&[2, 3], &[5, 1]);
    assert_eq!(buffer_letters(&l), "ABCxxDEF");
    assert!(l.is_padded());
    assert_eq!(l.padding_elements(), Some(2));
    assert!(l.coords_at(3, 8).is_empty());
    assert_eq!(l.min_size_in_bytes(), 32);
}

#[test]
fn packed_nchw_and_nhwc_1x1x3x5() {
    assert_eq!(strides_for_label(&[1, 1, 3, 5], "NCHW").unwrap(), [15, 15, 5, 1]);
    assert_eq!(strides_for_label(&[1, 1, 3, 5], "NHWC").unwrap(), [15, 1, 5, 1]);
    assert_eq!(stridekit::interleaved_channel_strides(&[1, 1, 3, 5]).unwrap(), [15, 1, 5, 1]);
    for strides in [[15, 15, 5, 1], [15, 1, 5, 1]] {
        let l = layout(&[1, 1, 3, 5], &strides);
        assert!(l.is_packed());
        assert_eq!(l.min_size_in_bytes(), 60);
        assert_eq!(l.element_offsets().collect::<Vec<_>>(), (0..15).collect::<Vec<u64>>());
    }
}
