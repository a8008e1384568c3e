//! The transpose of a few planes out of short pixels by 64-byte two-window permutes (AVX-512 VBMI `vpermt2b`):
//! per step of 64 destination bytes of every plane, the step's source bytes (at most a KiB) are loaded once as up to
//! 16 windows of 64 bytes, and each plane's 64 bytes are picked from them, two windows per permute.
//!
//! The shapes are the pixels-to-planes transposes the other kernels take a tile of pixels at a time: 5 u32 channels
//! of 20-byte pixels, 8 f16 channels read backwards, every third f16 of 9-element pixels. The square tiles need a
//! tile of rows and run ragged below it; the short tiles load a tile's width per pixel and store `na` of its rows;
//! both spend their shuffles on a whole tile whatever `na` is. Here a step costs `na` permutes per pair of source
//! windows, whatever the order of the pixels (forwards or backwards) and of the channels within them.

use std::arch::x86_64::*;
use std::cell::RefCell;

/// The most source windows of 64 bytes one step reads (8 pairs: 16 registers, with the accumulator and the index
/// beside them, of the 32).
const MAX_WINDOWS: usize = 16;
/// The most planes: the step's tables hold a 64-byte index per plane and a byte mask per plane and pair (2 KiB).
const MAX_PLANES: usize = 16;

/// The source bytes `[lo, hi)` of one step (`64 / e` pixels of `na` elements), relative to its first pixel's
/// element 0.
fn step_hull(na: usize, a_src: isize, b_src: isize, e: usize) -> (isize, isize) {
    let (a_span, b_span) = ((na as isize - 1) * a_src, ((64 / e) as isize - 1) * b_src);
    (a_span.min(0) + b_span.min(0), a_span.max(0) + b_span.max(0) + e as isize)
}

/// Whether [`planes64`] takes the transpose `dst[a * a_dst + b * e] = src[a * a_src + b * b_src]` (byte strides)
/// of `na` planes out of `nb` pixels of `e`-byte elements: 2-16 planes, a step's source bytes at least one window
/// and at most [`MAX_WINDOWS`] of them (at most [`most_pairs`] pairs), and at least one step of pixels. Calls of
/// one to fifteen steps under outer loops (a crop's rows of a few channels) took it in 0.83 of the time over 20 sweep
/// cases of seeds 1-20 (`docs/PERFORMANCE.md`, forty-eighth round): its index tables are built once per shape and
/// thread, not per call.
pub(crate) fn planes64_fits(na: usize, a_src: isize, nb: usize, b_src: isize, e: usize) -> bool {
    if !(2..=MAX_PLANES).contains(&na) || !matches!(e, 1 | 2 | 4 | 8) || b_src == 0 || nb < 64 / e {
        return false;
    }
    // Strides a step cannot hold anyway, refused before the products below could overflow.
    if a_src.unsigned_abs() > 4096 || b_src.unsigned_abs() > 4096 {
        return false;
    }
    let (lo, hi) = step_hull(na, a_src, b_src, e);
    (64..=(64 * MAX_WINDOWS) as isize).contains(&(hi - lo)) && ((hi - lo) as usize).div_ceil(128) <= most_pairs(e)
}

/// The most pairs of windows a step may take for `e`-byte elements. Each plane's 64 bytes cost a permute per pair,
/// whatever the element size; the kernels this one replaces move wider elements faster (the square tiles of 4 f32
/// or u64, the partner tiles), so wide elements take it from fewer pairs: with more, 5 of 13 such cases of sweep
/// seeds 1-20 ran 1.13-1.61x slower (3 of 14-element f32 pixels reversed, 7 u64 of 14-element pixels).
fn most_pairs(e: usize) -> usize {
    match e {
        1 | 2 => 8,
        4 => 6,
        _ => 5,
    }
}

/// The numbers of one step, computed in safe code before any byte moves: its windows and, per plane, the permute's
/// index and, per pair of windows, the destination bytes that pair provides.
struct Steps {
    /// The shape they were built for: `(na, a_src, b_src, e)`.
    shape: (usize, isize, isize, usize),
    /// Window `w` starts `starts[w]` bytes from the step's first pixel: 64 bytes apart from the step's lowest
    /// byte, except the last, which ends with the step's highest byte (so no window leaves the step's bytes).
    starts: [isize; MAX_WINDOWS],
    /// The pairs of windows: pair `k` is windows `2k` and `2k + 1` (the last window twice when they are odd).
    pairs: usize,
    /// `index[a]`: byte `j` of plane `a`'s 64 bytes is byte `index[a][j] & 63` of window `2k + (index[a][j] >> 6)`,
    /// for the one pair `k` whose `keep[a * pairs + k]` has bit `j` set.
    index: [[u8; 64]; MAX_PLANES],
    keep: [u64; MAX_PLANES * MAX_WINDOWS / 2],
}

impl Steps {
    /// The step of a [`planes64_fits`] shape. Built once per shape and thread ([`STEPS`]): a call of a few steps
    /// under outer loops (22 steps of 3 f32 channels, 12756 calls) spent more on building it than on its steps.
    fn new(na: usize, a_src: isize, b_src: isize, e: usize) -> Steps {
        let (lo, hi) = step_hull(na, a_src, b_src, e);
        let windows = ((hi - lo) as usize).div_ceil(64);
        debug_assert!((1..=MAX_WINDOWS).contains(&windows));
        let mut starts = [0isize; MAX_WINDOWS];
        for (w, start) in starts.iter_mut().enumerate().take(windows) {
            *start = if w + 1 == windows { hi - 64 } else { lo + 64 * w as isize };
        }
        let pairs = windows.div_ceil(2);
        let mut steps = Steps {
            shape: (na, a_src, b_src, e),
            starts,
            pairs,
            index: [[0; 64]; MAX_PLANES],
            keep: [0; MAX_PLANES * MAX_WINDOWS / 2],
        };
        for a in 0..na {
            for b in 0..64 / e {
                for k in 0..e {
                    let (j, at) = (b * e + k, a as isize * a_src + b as isize * b_src + k as isize);
                    // The window below `at` 64 bytes apart from `lo`, or the last window, which holds every byte
                    // from the last but one window's end (`hi - lo <= 64 windows`).
                    let w = (((at - lo) >> 6) as usize).min(windows - 1);
                    let byte = at - steps.starts[w];
                    debug_assert!((0..64).contains(&byte));
                    steps.index[a][j] = byte as u8 | ((w % 2) as u8) << 6;
                    steps.keep[a * pairs + w / 2] |= 1 << j;
                }
            }
        }
        // Odd windows: the last pair's second window is the last window again (no index selects it).
        if windows % 2 == 1 {
            steps.starts[windows] = steps.starts[windows - 1];
        }
        steps
    }
}

thread_local! {
    /// The last shape's [`Steps`] on this thread: the calls of one copy all have the same.
    static STEPS: RefCell<Option<Box<Steps>>> = const { RefCell::new(None) };
}

/// The transpose `dst[a * a_dst + b * e] = src[a * a_src + b * b_src]` (byte strides, `a < na`, `b < nb`) of a
/// [`planes64_fits`] shape, by steps of `64 / e` pixels: each step loads its source windows once and permutes each
/// plane's 64 bytes out of them (one `vpermt2b` under a byte mask per pair of windows, ORed). The last step starts
/// `64 / e` pixels before the end and stores only what the steps before it did not. The stores are ordinary, even in
/// a copy that streams: streaming the whole lines of every plane (with the lines that straddle two steps assembled
/// from both) took 1.17x the time over 53 sweep cases of seeds 21-40, and turning off the streaming of rows that
/// all start a line 0.86x (`docs/PERFORMANCE.md`, forty-eighth round).
///
/// # Safety
/// AVX-512 F, BW and VBMI are available; `planes64_fits(na, a_src, nb, b_src, e)`; every source element `(a, b)` at
/// `src + a * a_src + b * b_src` and destination element at `dst + a * a_dst + b * e` is valid, and so is every
/// byte between the lowest and the highest source element; the destination rows overlap neither each other nor
/// the source.
#[allow(clippy::too_many_arguments)] // the two dimensions' counts and strides
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn planes64(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_src: isize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    e: usize,
) {
    debug_assert!(planes64_fits(na, a_src, nb, b_src, e));
    let call = Call { src, dst, na, a_dst, b_src, e };
    STEPS.with_borrow_mut(|cached| {
        let steps = match cached {
            Some(steps) if steps.shape == (na, a_src, b_src, e) => steps,
            _ => cached.insert(Box::new(Steps::new(na, a_src, b_src, e))),
        };
        // SAFETY: forwarded; the arm's `P` is `steps.pairs` (1-8: `planes64_fits` bounds the windows by 16), and
        // `steps` was built for this shape.
        unsafe {
            match steps.pairs {
                1 => call.run::<1>(steps, nb),
                2 => call.run::<2>(steps, nb),
                3 => call.run::<3>(steps, nb),
                4 => call.run::<4>(steps, nb),
                5 => call.run::<5>(steps, nb),
                6 => call.run::<6>(steps, nb),
                7 => call.run::<7>(steps, nb),
                _ => call.run::<8>(steps, nb),
            }
        }
    });
}

/// The pointers and strides of one [`planes64`] call.
struct Call {
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_dst: isize,
    b_src: isize,
    e: usize,
}

impl Call {
    /// The steps of the call, with `P` pairs of windows: steps from pixel 0 while they end inside the rows, then a
    /// last step ending with the rows that stores only the bytes the others did not.
    ///
    /// # Safety
    /// As for [`planes64`], with `steps` built for its shape and `P == steps.pairs`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn run<const P: usize>(&self, steps: &Steps, nb: usize) {
        let (g, row_bytes) = (64 / self.e, nb * self.e);
        let mut from = 0;
        while from + 64 <= row_bytes {
            // SAFETY: pixels from / e .. from / e + g lie inside 0 .. nb, and the stores write bytes
            // from .. from + 64 <= nb e of each row.
            unsafe { self.step::<P>(steps, from / self.e, u64::MAX) };
            from += 64;
        }
        if from < row_bytes {
            let b = nb - g;
            // SAFETY: pixels nb - g .. nb (`nb >= g`); the stores write bytes from .. nb e of each row, the first
            // `from - b e` (0 < .. < 64) of the step's 64 masked off.
            unsafe { self.step::<P>(steps, b, u64::MAX << (from - b * self.e)) };
        }
    }

    /// One step: pixels `b .. b + 64 / e` of every plane, the bytes set in `stored` stored.
    ///
    /// # Safety
    /// As for [`Call::run`], with `b + 64 / e <= nb`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    #[inline]
    unsafe fn step<const P: usize>(&self, steps: &Steps, b: usize, stored: u64) {
        let base = self.src.wrapping_offset(b as isize * self.b_src);
        let mut windows = [[_mm512_setzero_si512(); 2]; P];
        for (k, pair) in windows.iter_mut().enumerate() {
            // SAFETY: window w lies inside the step's bytes [lo, hi) (`Steps::starts`), between the lowest and the
            // highest source element of pixels b .. b + 64 / e, which the caller's contract makes readable.
            unsafe {
                pair[0] = _mm512_loadu_si512(base.wrapping_offset(steps.starts[2 * k]).cast());
                pair[1] = _mm512_loadu_si512(base.wrapping_offset(steps.starts[2 * k + 1]).cast());
            }
        }
        for a in 0..self.na {
            // SAFETY: `a < na <= MAX_PLANES`; 64 bytes per index.
            let index = unsafe { _mm512_loadu_si512(steps.index[a].as_ptr().cast()) };
            let mut v = _mm512_setzero_si512();
            for (k, [w0, w1]) in windows.iter().enumerate() {
                v = _mm512_or_si512(v, _mm512_maskz_permutex2var_epi8(steps.keep[a * P + k], *w0, index, *w1));
            }
            let to = self.dst.wrapping_offset(a as isize * self.a_dst + (b * self.e) as isize);
            // SAFETY: bytes b e .. b e + 64 of row a lie inside the row (the caller's contract).
            unsafe {
                // A whole step takes a plain store (masked stores are slower on some CPUs).
                if stored == u64::MAX {
                    _mm512_storeu_si512(to.cast(), v)
                } else {
                    _mm512_mask_storeu_epi8(to.cast(), stored, v)
                }
            };
        }
    }
}

#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;

    /// Runs `planes64` over a source of distinct bytes and checks every destination element against the definition
    /// and the bytes around the rows untouched.
    #[allow(clippy::too_many_arguments)] // the shape, the padding and the alignment
    fn check(na: usize, a_src: isize, nb: usize, b_src: isize, e: usize, pad: usize, shift: usize) {
        assert!(planes64_fits(na, a_src, nb, b_src, e), "{na} {a_src} {nb} {b_src} {e}");
        let (a_lo, b_lo) = (((na as isize - 1) * a_src).min(0), ((nb as isize - 1) * b_src).min(0));
        let span = (((na as isize - 1) * a_src).abs() + ((nb as isize - 1) * b_src).abs()) as usize + e;
        let src: Vec<u8> = (0..span + 64).map(|i| (i * 7 + i / 251) as u8).collect();
        let origin = (-(a_lo + b_lo)) as usize;
        let a_dst = nb * e + pad;
        let mut dst = vec![0xEEu8; na * a_dst + 192];
        // The destination starts `shift` bytes after a line.
        let at = (64 - dst.as_ptr() as usize % 64) % 64 + shift;
        // SAFETY: source element (a, b) at origin + a a_src + b b_src lies in `src`, as every byte between the
        // lowest and highest; row a's nb e bytes at at + a a_dst inside `dst`; no overlap.
        unsafe {
            planes64(src.as_ptr().add(origin), dst.as_mut_ptr().add(at), na, a_src, a_dst as isize, nb, b_src, e)
        };
        for a in 0..na {
            for b in 0..nb {
                let s = (origin as isize + a as isize * a_src + b as isize * b_src) as usize;
                let d = at + a * a_dst + b * e;
                assert_eq!(dst[d..d + e], src[s..s + e], "element ({a}, {b}) of {na} {a_src} {nb} {b_src} {e}");
            }
        }
        let written = |i: usize| i >= at && (i - at) % a_dst < nb * e && (i - at) / a_dst < na;
        assert!(dst.iter().enumerate().all(|(i, &x)| written(i) || x == 0xEE), "a byte outside the rows");
    }

    #[test]
    fn planes_out_of_pixels_against_the_definition() {
        if !crate::kernels::wide_permutes() {
            eprintln!("no AVX-512 VBMI here: the kernel does not run");
            return;
        }
        // (na, a_src, b_src, e): channels of every size, spaced and reversed, pixels forwards and backwards, from one
        // window (16 bytes of pixels of 4 bytes) to sixteen.
        let shapes = [
            (5, 4, 20, 4),
            (6, -6, -32, 2),
            (3, 6, 18, 2),
            (8, -2, 16, 2),
            (2, 1, 3, 1),
            (4, 1, 16, 1),
            (16, 8, 64, 8),
            (3, 8, -24, 8),
            (2, 4, 8, 4),
            (7, -4, 28, 4),
            (2, 2, -4, 2),
        ];
        for (na, a_src, b_src, e) in shapes {
            let g = 64 / e;
            for nb in [g, g + 1, 2 * g - 1, 16 * g, 23 * g + 3] {
                for (pad, shift) in [(0, 0), (13, 5), (64 - (nb * e) % 64, 0), (0, 8)] {
                    check(na, a_src, nb, b_src, e, pad, shift);
                }
            }
        }
    }

    #[test]
    fn shapes_of_at_most_sixteen_windows_from_one_step_of_pixels() {
        assert!(planes64_fits(5, 4, 256, 20, 4) && planes64_fits(6, -6, 512, -32, 2));
        // Pairs by element size: 7 pairs of 4-byte elements (3 of 14-element pixels), 6 of 8-byte ones.
        assert!(!planes64_fits(3, -4, 256, 56, 4) && planes64_fits(3, -4, 256, 44, 4));
        assert!(!planes64_fits(4, -8, 128, 88, 8) && planes64_fits(4, -8, 128, 72, 8));
        // 1.6 KiB of pixels per step, less than a step, one plane, too many planes, a step shorter than a window.
        assert!(
            !planes64_fits(6, -1, 4096, 25, 1) && !planes64_fits(5, 4, 15, 20, 4) && planes64_fits(5, 4, 16, 20, 4)
        );
        assert!(!planes64_fits(1, 4, 256, 20, 4) && !planes64_fits(17, 1, 4096, 17, 1));
        assert!(
            !planes64_fits(2, 1, 4096, 0, 1) && !planes64_fits(2, 1, 4096, 1, 4) && planes64_fits(2, 1, 1024, 2, 1)
        );
    }
}
