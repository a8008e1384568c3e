//! `CpuBuffer` alignment and contents.

use stridekit_cpu::CpuBuffer;

#[test]
fn buffers_are_16_byte_aligned() {
    for len in [0, 1, 15, 16, 17, 1000] {
        let mut b = CpuBuffer::zeroed(len);
        assert_eq!(b.len(), len);
        assert_eq!(b.is_empty(), len == 0);
        assert_eq!(b.as_bytes().as_ptr() as usize % 16, 0);
        assert!(b.as_bytes().iter().all(|&x| x == 0));
        b.as_bytes_mut().fill(3);
        let c = CpuBuffer::from_bytes(b.as_bytes());
        assert_eq!(c.as_bytes(), b.as_bytes());
        assert_eq!(c.as_bytes().as_ptr() as usize % 16, 0);
    }
}
