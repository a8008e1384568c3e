//! Streaming the calls of an innermost loop through an L1 stage: when the calls write adjacent blocks that are not
//! whole cache lines (a fill of 336 bytes per row, an interleave of two planes into 264 bytes of pixels), each call
//! writes the lines it shares with its neighbours on its own: the fill with ordinary stores (one line read for
//! ownership at every block boundary: four fills of 336 bytes per loop of a 53 MB output ran at 0.24 of the
//! roofline), the interleave in streamed 16-byte pieces (a partly streamed line costs about 20x a whole one). Here
//! a group of calls writes its blocks into a stage with ordinary stores (the stage stays in L1), and the stage goes
//! out in whole aligned lines with streaming stores; the partial line at a group's end is carried to the next
//! group, so that only the run's first and last lines are written with ordinary stores.
//!
//! Only fills and transposes are staged ([`staged`]): the other kernels' calls were within noise or slower staged
//! (24 sweep cases; `docs/PERFORMANCE.md`, nineteenth round), and so was a transpose whose scratch block already
//! streams whole lines (u8 blocks of 348 bytes: 1.11x the time). With AVX2, fills of blocks of 32 bytes or more
//! into a destination at an element boundary take these loops without the stage (`portable::fill::fill_adjacent`):
//! each line is blended in registers from the values it holds and streamed, without storing it to the stage and
//! loading it back. A thread's part of the innermost loop is staged from wherever it starts (`dispatch::run_range`);
//! a partial line is not carried from one run of the innermost loop to the next (or from one part to the next) even
//! where their blocks continue each other.
//!
//! The table kernel stages within one call instead (its passes into an L1 block, `portable::table::table`): its
//! calls are long enough there, and its groups are whole passes, so that each keeps its shuffle form.

use super::Ctx;
use super::footprint::Bounds;
use super::portable::copy::copy_bytes;
use crate::planner::Inner;

/// Bytes of the stage the calls write into (plus one line at its start for the carried partial line).
const STAGE_BYTES: usize = 4096;

/// The largest block a staged call may write: at least four calls per group.
const STAGED_BLOCK_MAX: usize = STAGE_BYTES / 4;

/// The fewest calls of a loop worth staging.
const STAGED_STEPS_MIN: usize = 4;

/// The stage: one carried line and [`STAGE_BYTES`], aligned on a line.
#[repr(C, align(64))]
struct Stage([u8; 64 + STAGE_BYTES]);

/// The block of `inner` when `steps` calls `d` bytes apart go through the stage: with streaming stores, when each
/// call writes one contiguous block of at most [`STAGED_BLOCK_MAX`] bytes, the calls' blocks are adjacent (`d` is
/// the block) and their boundaries fall inside lines (the block is not whole lines, or the first one does not start
/// a line).
pub(super) fn staged(inner: Inner, steps: usize, d: isize, dst: *const u8, ctx: Ctx) -> Option<usize> {
    if !ctx.nt {
        return None;
    }
    stage_block(inner, steps, d, ctx.esize)
        .filter(|&block| !block.is_multiple_of(64) || !(dst as usize).is_multiple_of(64))
}

/// The block of `inner` (`esize`-byte elements) when `steps` calls `d` bytes apart are of the kind [`staged`]
/// takes, whatever the stores and the destination's alignment: fills and transposes, each call one contiguous
/// block of at most [`STAGED_BLOCK_MAX`] bytes, the blocks adjacent and rising (`d` is the block). The planner
/// keeps such a loop rising when it flips the others for streaming stores.
pub(crate) fn stage_block(inner: Inner, steps: usize, d: isize, esize: usize) -> Option<usize> {
    if steps < STAGED_STEPS_MIN || !matches!(inner, Inner::Fill { .. } | Inner::Transpose { .. }) {
        return None;
    }
    match inner.dst_block(esize) {
        Some((true, block)) if block <= STAGED_BLOCK_MAX && d == block as isize => Some(block),
        _ => None,
    }
}

/// Runs `steps` calls whose blocks of `block` bytes are adjacent from `dst` on, through the stage: `run(i, k, to,
/// ctx)` runs calls `i .. i + k` with their first block written at `to` (inside the stage) and `ctx` (ordinary
/// stores, the stage's bounds, no destination requests); this writes the `steps * block` bytes from `dst`, nothing
/// else.
///
/// # Safety
/// The `steps * block` bytes from `dst` are writable, in the checked output range, and nobody else accesses them;
/// `run` writes exactly the `k * block` bytes from its `to` (every byte of its calls' blocks) and nothing else of the
/// stage; `0 < block <= STAGED_BLOCK_MAX`.
pub(super) unsafe fn run_staged(
    steps: usize,
    block: usize,
    dst: *mut u8,
    ctx: Ctx,
    mut run: impl FnMut(usize, usize, *mut u8, Ctx),
) {
    debug_assert!(block > 0 && block <= STAGED_BLOCK_MAX);
    let mut stage = std::mem::MaybeUninit::<Stage>::uninit();
    let stage = stage.as_mut_ptr().cast::<u8>();
    let staged_ctx = Ctx {
        nt: false,
        bounds: Bounds { src: ctx.bounds.src, dst: (stage as usize, stage as usize + 64 + STAGE_BYTES) },
        next: ctx.next.map(|n| n.without_dst()),
        ..ctx
    };
    // Stage byte 0 stands for the line-aligned output byte `out` (relative to `dst`; the first group's is below it,
    // outside the caller's bytes: never addressed); `dst` is stage byte `valid` of the first group.
    let mut valid = dst as usize % 64;
    let mut out = -(valid as isize);
    // Stage bytes [0, carry) hold the next group's first bytes (the first group: the part of `dst`'s line before
    // it, never written out).
    let mut carry = valid;
    let mut i = 0;
    while i < steps {
        let k = ((64 + STAGE_BYTES - carry) / block).min(steps - i);
        // SAFETY: stage bytes carry .. carry + k * block <= 64 + STAGE_BYTES: inside the stage.
        run(i, k, unsafe { stage.add(carry) }, staged_ctx);
        let end = carry + k * block;
        i += k;
        // Stage bytes [valid, end) are output bytes from `out + valid` on, written by the calls (or carried).
        let last = i == steps;
        let whole = if last { end } else { end / 64 * 64 };
        if whole > valid {
            // The first line, when the run starts inside it, and the last partial line, with ordinary stores: the
            // bytes beside them are not this run's to write.
            let first_line = if valid > 0 { 64.min(whole) } else { valid };
            let lines_end = if last { end / 64 * 64 } else { whole }.max(first_line);
            // The output byte of stage byte `x`, for `valid <= x <= whole`: at or after `dst` (out + valid >= 0).
            let at = |x: usize| out + x as isize;
            // SAFETY: stage bytes [valid, whole) are initialised (written by `run` or carried); their output bytes
            // `dst + at(valid) .. dst + at(whole)` lie in `dst .. dst + steps * block` (the caller's), and the stage
            // is not the output. The middle span is whole lines, aligned on both sides (stage and output).
            unsafe {
                std::ptr::copy_nonoverlapping(stage.add(valid), dst.offset(at(valid)), first_line - valid);
                copy_bytes(stage.add(first_line), dst.offset(at(first_line)), lines_end - first_line, ctx);
                std::ptr::copy_nonoverlapping(stage.add(lines_end), dst.offset(at(lines_end)), whole - lines_end);
            }
            valid = 0;
        }
        if !last {
            // SAFETY: the partial line [whole, end) (< 64 bytes, initialised) to the stage's start; when nothing was
            // written out (`whole == 0`) it stays where it is.
            unsafe { std::ptr::copy(stage.add(whole), stage, end - whole) };
            carry = end - whole;
            out += whole as isize;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Simd;

    fn ctx(dst: &[u8]) -> Ctx {
        let range = (dst.as_ptr() as usize, dst.as_ptr() as usize + dst.len());
        Ctx { esize: 1, simd: Simd::None, vbmi: false, nt: true, bounds: Bounds { src: range, dst: range }, next: None }
    }

    #[test]
    fn every_block_reaches_its_bytes_and_nothing_else_is_written() {
        // Calls writing `block` bytes of their index, at every start offset modulo a line: the output is exactly
        // the blocks in order, the sentinel before and after it stays, and every group fits the stage.
        let (blocks, offsets): (&[usize], usize) =
            if cfg!(miri) { (&[24, 336], 2) } else { (&[1, 24, 64, 200, 336, 1000, 1024], 64) };
        for &block in blocks {
            let steps_list: &[usize] = if cfg!(miri) { &[4, 13] } else { &[4, 5, 13, 40] };
            for &steps in steps_list {
                for at in 0..offsets {
                    let mut buf = vec![0xEEu8; 64 + steps * block + 64 + 64];
                    let base = buf.as_mut_ptr();
                    let start = (64 - base as usize % 64) % 64 + at;
                    let ctx = ctx(&buf);
                    let mut seen = 0;
                    // SAFETY: the steps * block bytes from `start` lie in `buf`; each call writes its block only.
                    unsafe {
                        run_staged(steps, block, base.add(start), ctx, |i, k, to, staged| {
                            assert_eq!(i, seen, "groups in order");
                            assert!(!staged.nt && (to as usize) >= staged.bounds.dst.0);
                            assert!(to as usize + k * block <= staged.bounds.dst.1, "the group fits the stage");
                            for j in 0..k {
                                std::ptr::write_bytes(to.add(j * block), (i + j) as u8, block);
                            }
                            seen += k;
                        })
                    };
                    assert_eq!(seen, steps);
                    let expected: Vec<u8> = (0..steps).flat_map(|j| std::iter::repeat_n(j as u8, block)).collect();
                    assert_eq!(
                        &buf[start..start + steps * block],
                        &expected[..],
                        "block {block}, {steps} steps, at {at}"
                    );
                    assert!(buf[..start].iter().chain(&buf[start + steps * block..]).all(|&b| b == 0xEE));
                }
            }
        }
    }

    #[test]
    fn only_streamed_fills_and_transposes_of_adjacent_blocks_short_of_whole_lines_are_staged() {
        let buf = [0u8; 128];
        let aligned = buf.as_ptr().wrapping_add((64 - buf.as_ptr() as usize % 64) % 64);
        let fill = Inner::Fill { n: 42 };
        let c = Ctx { esize: 8, ..ctx(&buf) };
        assert_eq!(staged(fill, 4, 336, aligned, c), Some(336));
        // Not streaming, too few calls, blocks apart or too long.
        assert_eq!(staged(fill, 4, 336, aligned, Ctx { nt: false, ..c }), None);
        assert_eq!(staged(fill, 3, 336, aligned, c), None);
        assert_eq!(staged(fill, 4, 344, aligned, c), None);
        assert_eq!(staged(Inner::Fill { n: 129 }, 4, 1032, aligned, c), None);
        // Whole lines from a line: streamed whole already; from inside a line, staged.
        assert_eq!(staged(Inner::Fill { n: 16 }, 4, 128, aligned, c), None);
        assert_eq!(staged(Inner::Fill { n: 16 }, 4, 128, aligned.wrapping_add(8), c), Some(128));
        // Two planes into pixels of 33 (a contiguous block of 264 bytes of f32).
        let interleave = Inner::Transpose { na: 33, a_src: 4, a_dst: 8, nb: 2, b_src: 1 << 20 };
        assert_eq!(staged(interleave, 9, 264, aligned, Ctx { esize: 4, ..c }), Some(264));
        // Other kernels keep their own stores.
        assert_eq!(staged(Inner::Gather { n: 42, src: 16 }, 4, 336, aligned, c), None);
    }
}
