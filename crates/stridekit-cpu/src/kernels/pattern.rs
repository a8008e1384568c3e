//! A short block repeated over the bytes after it (the first rows of a broadcast dimension): 32-byte stores of the
//! repeated pattern, where doubling the written prefix cost one copy call per doubling (a 5-byte run to 440 bytes:
//! seven calls of 5 to 160 bytes).

/// Blocks shorter than this many bytes are repeated by [`repeat_prefix`]: the pattern register holds whole blocks.
pub(super) const PATTERN_MAX_BLOCK: usize = 32;

/// The least number of bytes [`repeat_prefix`] fills: two pattern stores, so that its last, shifted store reads a
/// pattern that the stores before it wrote.
pub(super) const PATTERN_MIN_BYTES: usize = 2 * PATTERN_MAX_BLOCK;

/// Writes `dst[i] = dst[i % block]` for `block <= i < len`, given the first `block` bytes (`0 < block <
/// PATTERN_MAX_BLOCK` and `PATTERN_MIN_BYTES <= len`). The first 32 bytes are grown byte by byte (at most 31 moves),
/// then held in one 32-byte value that is stored every `step` bytes, the largest multiple of `block` up to 32 (the
/// stores overlap by `32 - step` bytes, each writing the same values there); the last 32 bytes are one store of the
/// pattern shifted to end at `len`, read from the bytes written before.
///
/// # Safety
/// `dst .. dst + len` is writable and readable (output bytes this call owns), its first `block` bytes written.
pub(super) unsafe fn repeat_prefix(dst: *mut u8, block: usize, len: usize) {
    debug_assert!(0 < block && block < PATTERN_MAX_BLOCK && PATTERN_MIN_BYTES <= len);
    const W: usize = PATTERN_MAX_BLOCK;
    for i in block..W {
        // SAFETY: i < W <= len, and i - block < i was written (the caller's block, or this loop).
        unsafe { dst.add(i).write(dst.add(i - block).read()) };
    }
    // SAFETY: the first W bytes are written (above).
    let pattern = unsafe { dst.cast::<[u8; W]>().read_unaligned() };
    let step = W - W % block;
    let mut at = step;
    while at + W <= len {
        // SAFETY: at + W <= len; `at` is a multiple of `block`, so the pattern's byte k is byte (at + k) % block.
        unsafe { dst.add(at).cast::<[u8; W]>().write_unaligned(pattern) };
        at += step;
    }
    // The last W bytes start at len - W, whose byte k is byte (len - W + k) % block, the byte written at r + k: bytes
    // r .. r + W are below the end of the last store, at - step + W (the loop stored at `step` at least, as
    // step + W <= 2 W <= len, so at >= 2 step, and r + W < block + W <= step + W).
    let r = (len - W) % block;
    // SAFETY: bytes r .. r + W are written (the bound above) and inside `len`; `copy` allows the overlap with the
    // destination's last W bytes.
    unsafe { std::ptr::copy(dst.add(r), dst.add(len - W), W) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_every_block_length_over_every_length() {
        let lens: Vec<usize> = if cfg!(miri) { vec![64, 77, 130] } else { (64..300).collect() };
        for block in 1..PATTERN_MAX_BLOCK {
            for &len in &lens {
                // The block, then sentinels that every other byte must replace; one byte past the end keeps its.
                let mut buf: Vec<u8> = (0..len + 1).map(|i| if i < block { i as u8 + 1 } else { 0xEE }).collect();
                // SAFETY: `len` bytes of `buf` (one more exists), the first `block` written.
                unsafe { repeat_prefix(buf.as_mut_ptr(), block, len) };
                let want: Vec<u8> = (0..len).map(|i| (i % block) as u8 + 1).collect();
                assert_eq!(&buf[..len], &want[..], "block {block}, len {len}");
                assert_eq!(buf[len], 0xEE, "block {block}, len {len}: past the end");
            }
        }
    }
}
