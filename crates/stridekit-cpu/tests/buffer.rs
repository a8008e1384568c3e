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

#[test]
fn large_buffers_and_clones_are_zeroed_and_line_aligned() {
    // 9 MiB asks for huge pages (`kernels/pages.rs`); the advice changes nothing a user sees. A clone is a fresh
    // buffer, aligned like any other: a derived `Clone` copied the start offset of another allocation, which small
    // heap allocations (16-byte aligned, at any offset mod 64) break; the small ones between the clones move them.
    // Under Miri every byte is a step of the interpreter (70000 bytes cost it 20 seconds a lane): small sizes only.
    let lens: &[usize] = if cfg!(miri) { &[1, 100, 1000] } else { &[1, 100, 1000, 70000, 9 << 20] };
    let mut keep = Vec::new();
    for &len in lens {
        let mut b = CpuBuffer::zeroed(len);
        assert_eq!(b.as_bytes().as_ptr() as usize % stridekit_cpu::CPU_BUFFER_ALIGNMENT, 0);
        assert!(b.as_bytes().iter().all(|&x| x == 0));
        for (i, x) in b.as_bytes_mut().iter_mut().enumerate() {
            *x = (i % 251) as u8;
        }
        for k in 1..=4 {
            keep.push(vec![0u8; 16 * k]);
            let c = b.clone();
            assert_eq!(c.as_bytes().as_ptr() as usize % stridekit_cpu::CPU_BUFFER_ALIGNMENT, 0, "len {len}");
            assert_eq!(c.as_bytes(), b.as_bytes());
        }
    }
}
