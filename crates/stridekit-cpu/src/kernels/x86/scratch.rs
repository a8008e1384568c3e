//! The scratch block of the streaming transposes: one heap block per thread, not a stack frame.
//!
//! The transposes that stream their output assemble whole lines in a block that stays in L1/L2 first. A block of
//! 128 KiB on the stack would be probed page by page on every call and would overflow a thread started with a small
//! stack (a C caller's, 128 KiB on musl); on the heap it is allocated once per thread, on first use, and kept.

use std::cell::RefCell;

/// Bytes of the scratch block. With 64 KiB an NCHW -> NHWC transpose of 64 channels read 1 KiB of each channel
/// row per chunk (256 f32 elements); with 128 KiB, 2 KiB, which ran 1.06-1.20x faster (the four `nchw2nhwc` cases of
/// `bench/transposes.json`, four alternating rounds, AMD EPYC with 32 MiB L3, 2026-11-26); 256 KiB with 4 KiB per
/// row was within noise of 128 KiB.
pub(crate) const SCRATCH_BYTES: usize = 128 << 10;

/// A cache line of the block (the alignment the streaming loads and stores like).
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

thread_local! {
    static BLOCK: RefCell<Option<Box<[Line]>>> = const { RefCell::new(None) };
}

fn new_block() -> Box<[Line]> {
    vec![Line([0; 64]); SCRATCH_BYTES / 64].into_boxed_slice()
}

/// Runs `f` with this thread's scratch block: [`SCRATCH_BYTES`] writable bytes, 64-byte aligned, holding whatever
/// the last user left (initialised bytes). A nested call (no transpose makes one) gets a block of its own.
pub(crate) fn with_scratch<R>(f: impl FnOnce(*mut u8) -> R) -> R {
    BLOCK.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => f(slot.get_or_insert_with(new_block).as_mut_ptr().cast()),
        Err(_) => {
            let mut own = new_block();
            f(own.as_mut_ptr().cast())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_is_aligned_kept_per_thread_and_not_shared_by_a_nested_call() {
        let first = with_scratch(|p| {
            assert_eq!(p as usize % 64, 0);
            // SAFETY: the block is SCRATCH_BYTES writable bytes.
            unsafe { p.add(SCRATCH_BYTES - 1).write(7) };
            let nested = with_scratch(|q| q as usize);
            assert_ne!(nested, p as usize);
            p as usize
        });
        let again = with_scratch(|p| {
            // SAFETY: as above; the byte written by the first use is still there.
            assert_eq!(unsafe { p.add(SCRATCH_BYTES - 1).read() }, 7);
            p as usize
        });
        assert_eq!(first, again);
        let other = std::thread::spawn(|| with_scratch(|p| p as usize)).join().unwrap();
        assert_ne!(other, first);
    }
}
