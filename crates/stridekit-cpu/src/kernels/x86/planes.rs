//! The transpose of a few planes out of short pixels by 64-byte two-window permutes (AVX-512 VBMI `vpermt2b`):
//! per step of 64 destination bytes of every plane, the step's source bytes (at most a KiB) are loaded once as up to
//! 16 windows of 64 bytes, and each plane's 64 bytes are picked from them, two windows per permute.
//!
//! The shapes are the pixels-to-planes transposes the other kernels take a tile of pixels at a time: 5 u32 channels
//! of 20-byte pixels, 8 f16 channels read backwards, every third f16 of 9-element pixels. The square tiles need a
//! tile of rows and run ragged below it; the short tiles load a tile's width per pixel and store `na` of its rows;
//! both spend their shuffles on a whole tile whatever `na` is. Here a step costs `na` permutes per pair of source
//! windows, whatever the order of the pixels (forwards or backwards) and of the channels within them.
//!
//! The mirror image, a few planes into pixels ([`pixels64`]), takes the same steps with the roles swapped: a step
//! loads each plane's run of `64 / e` pixels (a window or two per plane) and permutes each 64 bytes of its pixels
//! out of them. Both are one walk ([`Walk`]) over a step's windows and 64-byte chunks ([`Steps`]).

use super::prefetch::{Level, prefetch_bytes};
use std::arch::x86_64::*;
use std::cell::RefCell;

/// The most source windows of 64 bytes one step reads (8 pairs: 16 registers, with the accumulator and the index
/// beside them, of the 32).
const MAX_WINDOWS: usize = 16;
/// The most planes (the chunks of [`planes64`], the window groups of [`pixels64`]).
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
    na >= 2 && planes_fit(na, a_src, nb, b_src, e)
}

/// [`planes64_fits`] for any number of planes from one: the steps' limits.
fn planes_fit(na: usize, a_src: isize, nb: usize, b_src: isize, e: usize) -> bool {
    if !(1..=MAX_PLANES).contains(&na) || !matches!(e, 1 | 2 | 4 | 8) || b_src == 0 || nb < 64 / e {
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

/// Whether [`pixels64`] can take the transpose `dst[a * a_dst + b * e] = src[a * a_src + b * b_src]` (byte strides)
/// of `nb` planes into `na` pixels of `e`-byte elements (the mirror of [`planes64`]: the pixels `a` are the
/// destination rows, `a_dst >= nb e` bytes apart): 2-16 planes, a step's `64 / e` pixels at most a KiB of destination
/// and at most [`MAX_WINDOWS`] source windows (a plane's run of a step in as many windows as it spans, at most
/// [`most_pairs`] pairs), and at least one step of pixels.
pub(crate) fn pixels64_fits(na: usize, a_src: isize, a_dst: isize, nb: usize, e: usize) -> bool {
    if !(2..=MAX_PLANES).contains(&nb) || !matches!(e, 1 | 2 | 4 | 8) || a_src == 0 || na < 64 / e {
        return false;
    }
    if a_src.unsigned_abs() > 4096 || !(((nb * e) as isize)..=1024).contains(&a_dst) {
        return false;
    }
    let region = ((64 / e) as isize - 1) * a_dst + (nb * e) as isize;
    let windows = pixel_windows(a_src, nb, e);
    (64..=(64 * MAX_CHUNKS) as isize).contains(&region)
        && windows <= MAX_WINDOWS
        && windows.div_ceil(2) <= most_pairs(e)
}

/// The source windows of a step of [`pixels64`]: each plane's run of `64 / e` pixels `a_src` bytes apart, in as many
/// windows as it spans.
fn pixel_windows(a_src: isize, nb: usize, e: usize) -> usize {
    nb * ((64 / e - 1) * a_src.unsigned_abs() + e).div_ceil(64)
}

/// Whether the transposes take [`pixels64`] where it fits: for elements of 1-4 bytes, and at most 6 pairs of windows
/// a step. Over the 39 sweep cases of seeds 1-40 that fit, one process per case, two ABBA rounds: bytes 0.43 of the
/// time (6 cases), 2-byte elements 0.88 (7), 4-byte ones 0.84 (5), but 8-byte ones 1.10 (21; the square tiles of 4 x 4
/// and the narrow interleave are faster there, up to 2.5x into padded pixels), and the two cases of 8 pairs (16
/// planes of bytes or u16) 0.97 and 1.67 (`docs/PERFORMANCE.md`, forty-eighth round).
pub(crate) fn pixels64_pays(a_src: isize, nb: usize, e: usize) -> bool {
    e <= 4 && pixel_windows(a_src, nb, e).div_ceil(2) <= 6
}

/// The most destination chunks of 64 bytes one step writes: a step's tables hold a 64-byte index per chunk and a
/// byte mask per chunk and pair (2 KiB).
const MAX_CHUNKS: usize = 16;

/// The numbers of one step, computed in safe code before any byte moves: its source windows, its destination chunks
/// and, per chunk, the permute's index, the bytes each pair of windows provides and the bytes stored.
struct Steps {
    /// The call shape they were built for ([`Steps::planes`], [`Steps::pixels`]).
    shape: Shape,
    /// Window `w` starts `starts[w]` bytes from the step's source pointer, inside the bytes of one group (the step's
    /// source bytes, or one plane's): 64 bytes apart from the group's lowest byte, except the group's last window,
    /// which ends with its highest byte, so that no window leaves the bytes between the step's source elements.
    starts: [isize; MAX_WINDOWS],
    /// How many windows the step loads (`starts[..windows]`).
    windows: usize,
    /// The pairs of windows: pair `k` is windows `2k` and `2k + 1` (the last window twice when they are odd).
    pairs: usize,
    /// The chunks: chunk `c` is the 64 destination bytes from `at[c]`, relative to the step's destination pointer.
    chunks: usize,
    at: [isize; MAX_CHUNKS],
    /// `index[c]`: byte `j` of chunk `c` is byte `index[c][j] & 63` of window `2k + (index[c][j] >> 6)`, for the one
    /// pair `k` whose `keep[c * pairs + k]` has bit `j` set.
    index: [[u8; 64]; MAX_CHUNKS],
    keep: [u64; MAX_CHUNKS * MAX_WINDOWS / 2],
    /// The bytes of chunk `c` that are destination elements: the others are not stored.
    stored: [u64; MAX_CHUNKS],
}

/// What a [`Steps`] was built for: the kernel and the numbers its windows and chunks depend on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// [`planes64`]: `(na, a_src, a_dst, b_src, e)`.
    Planes(usize, isize, isize, isize, usize),
    /// [`pixels64`]: `(a_src, a_dst, nb, b_src, e)`.
    Pixels(isize, isize, usize, isize, usize),
}

impl Steps {
    /// The steps of `shape`, whose source windows cover the groups of bytes `groups` (`[lo, hi)` each, at least 64
    /// bytes, relative to the step's source pointer), whose chunks start at `at` and whose destination byte `j` of
    /// chunk `c` is the source byte `source(c, j) = Some((group, offset))`, or no element (`None`).
    fn build(
        shape: Shape,
        groups: &[(isize, isize)],
        at: &[isize],
        source: impl Fn(usize, usize) -> Option<(usize, isize)>,
    ) -> Steps {
        let mut starts = [0isize; MAX_WINDOWS];
        // Group g's windows are `first[g] .. first[g] + count[g]`.
        let (mut first, mut count) = ([0usize; MAX_PLANES], [0usize; MAX_PLANES]);
        let mut windows = 0;
        for (g, &(lo, hi)) in groups.iter().enumerate() {
            (first[g], count[g]) = (windows, ((hi - lo) as usize).div_ceil(64));
            for w in 0..count[g] {
                starts[windows + w] = if w + 1 == count[g] { hi - 64 } else { lo + 64 * w as isize };
            }
            windows += count[g];
        }
        debug_assert!((1..=MAX_WINDOWS).contains(&windows));
        let pairs = windows.div_ceil(2);
        let mut steps = Steps {
            shape,
            starts,
            windows,
            pairs,
            chunks: at.len(),
            at: [0; MAX_CHUNKS],
            index: [[0; 64]; MAX_CHUNKS],
            keep: [0; MAX_CHUNKS * MAX_WINDOWS / 2],
            stored: [0; MAX_CHUNKS],
        };
        steps.at[..at.len()].copy_from_slice(at);
        for c in 0..at.len() {
            for j in 0..64 {
                let Some((g, byte)) = source(c, j) else { continue };
                // The window below `byte` 64 bytes apart from the group's lowest, or the group's last window, which
                // holds every byte from the last but one window's end.
                let w = first[g] + (((byte - groups[g].0) >> 6) as usize).min(count[g] - 1);
                let inside = byte - steps.starts[w];
                debug_assert!((0..64).contains(&inside));
                steps.index[c][j] = inside as u8 | ((w % 2) as u8) << 6;
                steps.keep[c * pairs + w / 2] |= 1 << j;
                steps.stored[c] |= 1 << j;
            }
        }
        // Odd windows: the last pair's second window is the last window again (no index selects it).
        if windows % 2 == 1 {
            steps.starts[windows] = steps.starts[windows - 1];
        }
        steps
    }

    /// The steps of `shape`.
    fn of(shape: Shape) -> Steps {
        match shape {
            Shape::Planes(na, a_src, a_dst, b_src, e) => Steps::planes(na, a_src, a_dst, b_src, e),
            Shape::Pixels(a_src, a_dst, nb, b_src, e) => Steps::pixels(a_src, a_dst, nb, b_src, e),
        }
    }

    /// The steps of [`planes64`]: `64 / e` pixels, one group of source bytes, a chunk per plane.
    fn planes(na: usize, a_src: isize, a_dst: isize, b_src: isize, e: usize) -> Steps {
        let at: Vec<isize> = (0..na as isize).map(|a| a * a_dst).collect();
        let source = |a: usize, j: usize| Some((0, a as isize * a_src + (j / e) as isize * b_src + (j % e) as isize));
        Steps::build(Shape::Planes(na, a_src, a_dst, b_src, e), &[step_hull(na, a_src, b_src, e)], &at, source)
    }

    /// The steps of [`pixels64`]: `64 / e` pixels, a group of source bytes per plane, the chunks 64 bytes apart
    /// over the step's pixels (the last ending with its last element).
    fn pixels(a_src: isize, a_dst: isize, nb: usize, b_src: isize, e: usize) -> Steps {
        let g = (64 / e) as isize;
        let run = ((g - 1) * a_src).min(0)..((g - 1) * a_src).max(0) + e as isize;
        let groups: Vec<(isize, isize)> =
            (0..nb as isize).map(|b| (b * b_src + run.start, b * b_src + run.end)).collect();
        let end = (g - 1) * a_dst + (nb * e) as isize;
        let chunks = (end as usize).div_ceil(64);
        let at: Vec<isize> = (0..chunks as isize).map(|c| (64 * c).min(end - 64)).collect();
        let source = |c: usize, j: usize| {
            // Destination byte `at[c] + j` is byte `k` of element `b` of pixel `a`, when it is not padding.
            let d = at[c] + j as isize;
            let (a, within) = (d / a_dst, (d % a_dst) as usize);
            (within < nb * e).then(|| {
                let (b, k) = (within / e, within % e);
                (b, a * a_src + b as isize * b_src + k as isize)
            })
        };
        Steps::build(Shape::Pixels(a_src, a_dst, nb, b_src, e), &groups, &at, source)
    }
}

thread_local! {
    /// The last shape's [`Steps`] on this thread: the calls of one copy all have the same.
    static STEPS: RefCell<Option<Box<Steps>>> = const { RefCell::new(None) };
}

/// Runs `count` items (pixels) in steps of `64 / e`, item `i` at `src + i * src_step` and `dst + i * dst_step`, with
/// the steps of `shape` (built when the thread's last ones are another shape's): the last step ends with the items,
/// writing again what the step before it wrote of them, with the same values. With `ahead`, each step first requests
/// the source of the step [`STEPS_AHEAD`] on ([`Walk::request`]; one group of source bytes a step: `planes64`).
///
/// # Safety
/// AVX-512 F, BW and VBMI are available; `count >= 64 / e`; for every step the kernel takes, its windows lie between
/// the lowest and highest source element of the call and its stored bytes are destination elements of the call;
/// the destination overlaps neither the source nor itself.
#[allow(clippy::too_many_arguments)] // the shape, the pointers and the walk
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn run_cached(
    shape: Shape,
    src: *const u8,
    dst: *mut u8,
    count: usize,
    e: usize,
    src_step: isize,
    dst_step: isize,
    ahead: bool,
) {
    STEPS.with_borrow_mut(|cached| {
        let steps = match cached {
            Some(steps) if steps.shape == shape => steps,
            _ => cached.insert(Box::new(Steps::of(shape))),
        };
        let walk = Walk { src, dst, src_step, dst_step, ahead };
        // SAFETY: forwarded; the arm's `P` is `steps.pairs` (1-8: at most 16 windows), and `steps` was built for
        // this shape.
        unsafe {
            match steps.pairs {
                1 => walk.run::<1>(steps, count, e),
                2 => walk.run::<2>(steps, count, e),
                3 => walk.run::<3>(steps, count, e),
                4 => walk.run::<4>(steps, count, e),
                5 => walk.run::<5>(steps, count, e),
                6 => walk.run::<6>(steps, count, e),
                7 => walk.run::<7>(steps, count, e),
                _ => walk.run::<8>(steps, count, e),
            }
        }
    });
}

/// The transpose `dst[a * a_dst + b * e] = src[a * a_src + b * b_src]` (byte strides, `a < na`, `b < nb`) of a
/// [`planes64_fits`] shape, by steps of `64 / e` pixels: each step loads its source windows once and permutes each
/// plane's 64 bytes out of them (one `vpermt2b` under a byte mask per pair of windows, ORed). The stores are
/// ordinary, even in a copy that streams: streaming the whole lines of every plane (with the lines that straddle two
/// steps assembled from both) took 1.17x the time over 53 sweep cases of seeds 21-40, and turning off the streaming
/// of rows that all start a line 0.86x (`docs/PERFORMANCE.md`, forty-eighth round).
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
    nt: bool,
) {
    debug_assert!(planes64_fits(na, a_src, nb, b_src, e));
    let shape = Shape::Planes(na, a_src, a_dst, b_src, e);
    // SAFETY: a step's window lies inside its pixels' source bytes, its chunk `a` is bytes `b e .. b e + 64` of row
    // `a` for its pixels `b`, inside the row (`nb >= 64 / e`); the caller's contract.
    unsafe { run_cached(shape, src, dst, nb, e, b_src, e as isize, planes_request_ahead(na, nb, b_src, e, nt)) };
}

/// Whether [`gather64`] takes the gather of `n` elements of `e` bytes `stride` bytes apart: [`planes64_fits`]'s steps
/// with a single plane (`64 / e` elements a step from at most a KiB of source, at most [`most_pairs`] pairs of
/// windows: every 2nd to 16th byte or u16, up to every 12th u32 and 11th u64), at least one step.
pub(crate) fn gather64_fits(n: usize, stride: isize, e: usize) -> bool {
    planes_fit(1, 0, n, stride, e)
}

/// Whether the gathers take [`gather64`] where it fits: for elements of 1-2 bytes. Over the 53 gathers of sweep seeds
/// 1-60 that fit at strides the AVX2 gather has no shuffles for, each case in its own process, two and three ABBA
/// rounds: bytes 0.37-1.05 of the time (5 cases; every 15th byte of a 58 MB copy, sweep3_145: 0.74-0.84), 2-byte
/// elements 0.73-1.08 (13), geometric mean 0.90 over the 18 of both; but 4- and 8-byte elements 0.92-1.31 by group
/// (35 cases), whose element loop moves as many bytes in four to eight times fewer moves (`docs/PERFORMANCE.md`,
/// forty-ninth round).
pub(crate) fn gather64_pays(e: usize) -> bool {
    e <= 2
}

/// The gather `dst[i * e] = src[i * stride]` (byte strides, `i < n`) of a [`gather64_fits`] shape: [`planes64`]'s
/// steps with one plane, each step's `64 / e` elements permuted out of its windows, where the strides the AVX2
/// gather has no shuffles for (every 5th u16, every 9th byte, ...) moved one element at a time.
///
/// # Safety
/// AVX-512 F, BW and VBMI are available; `gather64_fits(n, stride, e)`; the `n` source elements and the `n`
/// contiguous destination elements are valid, and so is every byte between the lowest and the highest source
/// element; the destination does not overlap the source.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn gather64(src: *const u8, dst: *mut u8, n: usize, stride: isize, e: usize) {
    debug_assert!(gather64_fits(n, stride, e));
    let shape = Shape::Planes(1, 0, 0, stride, e);
    // SAFETY: a step's windows lie inside its elements' source bytes, its single chunk is bytes `i e .. i e + 64` of
    // the destination for its elements `i` (`n >= 64 / e`); the caller's contract.
    unsafe { run_cached(shape, src, dst, n, e, stride, e as isize, false) };
}

/// The transpose `dst[a * a_dst + b * e] = src[a * a_src + b * b_src]` (byte strides, `a < na`, `b < nb`) of a
/// [`pixels64_fits`] shape, a few planes into pixels: by steps of `64 / e` pixels, each loading its planes' runs
/// once and permuting each 64 destination bytes of its pixels out of them (the padding between pixels masked off).
///
/// # Safety
/// AVX-512 F, BW and VBMI are available; `pixels64_fits(na, a_src, a_dst, nb, e)`; every source element
/// `(a, b)` and destination element `(a, b)` is valid, and so is every byte between the lowest and the highest
/// source element of each plane `b`; the destination pixels overlap neither each other nor the source.
#[allow(clippy::too_many_arguments)] // the two dimensions' counts and strides
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn pixels64(
    src: *const u8,
    dst: *mut u8,
    na: usize,
    a_src: isize,
    a_dst: isize,
    nb: usize,
    b_src: isize,
    e: usize,
) {
    debug_assert!(pixels64_fits(na, a_src, a_dst, nb, e));
    let shape = Shape::Pixels(a_src, a_dst, nb, b_src, e);
    // SAFETY: a step's windows lie inside each plane's run of its pixels, its stored bytes are elements of its
    // pixels (`na >= 64 / e`); the caller's contract.
    unsafe { run_cached(shape, src, dst, na, e, a_src, a_dst, false) };
}

/// The pointers and item strides of one call, and whether its steps request their source [`STEPS_AHEAD`] steps on.
struct Walk {
    src: *const u8,
    dst: *mut u8,
    src_step: isize,
    dst_step: isize,
    ahead: bool,
}

/// How many steps ahead a walk that requests its source ([`planes_request_ahead`]) requests it: a step reads 384
/// bytes to 1 KiB of source, so 1-3 KiB ahead, about what one core keeps in flight from memory (6 u16 planes of
/// 32-byte pixels read backwards, sweep1_176, one run each: 2.5 ms with requests 2 steps ahead, 2.4 with 4, 3.1 with
/// 8, 5.0-6.2 with none).
const STEPS_AHEAD: usize = 3;

/// Whether [`planes64`] requests each step's source lines (into L2) [`STEPS_AHEAD`] steps before it loads them: in a
/// copy that streams (`nt`: its lines come from memory) of six planes or more, or of pixels read backwards, in calls
/// of at least [`MIN_STEPS_REQUESTING`] steps of `64 / e` of the `nb` pixels (in shorter ones most requests fall
/// past the call: 6 u64 planes of 20-pixel rows, sweep9_061, 1.13x the time with them). Each
/// plane is a stream of destination lines the stores read for ownership, so six or more, with the source, are more
/// streams than the hardware prefetcher follows, and it follows descending streams less far ahead. Over the 21
/// streaming `planes64` cases of sweep seeds 1-8 (three ABBA rounds, each case in its own process, requests 3 steps
/// ahead): these 10 in 0.82 of the time (six in 0.66-0.77: 6 of 16 u16 pixels read backwards, sweep1_176; 7 byte
/// planes of 14-byte pixels, sweep6_021; 7 f32 of 44-byte pixels, sweep6_115, sweep8_183), the others, with fewer
/// planes read forwards, 1.12 (the single plane of a gather of every 15th byte 1.27: the hardware prefetcher
/// follows them, and the requests cost their issue slots). Held out, the 8 such cases of seeds 9-20: 0.85 (12 u16
/// planes of pixels read backwards, sweep12_084, 0.33; two others 1.03-1.04, one 1.10 of 135 us). The rule as
/// written against the build before it, the 17 cases of seeds 1-20 it takes: 0.825 (0.43-1.29; the losses, up to
/// 1.06-1.11 over five rounds, are calls whose steps read at most 448 bytes).
pub(crate) fn planes_request_ahead(na: usize, nb: usize, b_src: isize, e: usize, nt: bool) -> bool {
    nt && (na >= 6 || b_src < 0) && nb >= MIN_STEPS_REQUESTING * (64 / e)
}

/// The fewest steps of a call that [`planes_request_ahead`] lets request.
const MIN_STEPS_REQUESTING: usize = 4 * STEPS_AHEAD;

impl Walk {
    /// The steps of the call, with `P` pairs of windows: steps from item 0 while they end inside the `count` items,
    /// then a last step ending with them.
    ///
    /// # Safety
    /// As for [`run_cached`], with `P == steps.pairs`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn run<const P: usize>(&self, steps: &Steps, count: usize, e: usize) {
        let g = 64 / e;
        let mut i = 0;
        while i + g <= count {
            if self.ahead {
                self.request(steps, i + STEPS_AHEAD * g);
            }
            // SAFETY: items i .. i + g lie inside 0 .. count.
            unsafe { self.step::<P>(steps, i) };
            i += g;
        }
        if i < count {
            // SAFETY: items count - g .. count (`count >= g`).
            unsafe { self.step::<P>(steps, count - g) };
        }
    }

    /// Requests into L2 every line of the windows of the step from item `i` (which may lie past the call's items: a
    /// request never faults), one of [`planes64`]'s steps, whose windows cover one group of source bytes, from the
    /// first window's start to the last one's end.
    #[inline]
    fn request(&self, steps: &Steps, i: usize) {
        let (lo, hi) = (steps.starts[0], steps.starts[steps.windows - 1] + 64);
        let from = self.src.wrapping_offset(i as isize * self.src_step + lo);
        prefetch_bytes(from, (hi - lo) as usize, Level::L2);
    }

    /// One step: items `i .. i + 64 / e`.
    ///
    /// # Safety
    /// As for [`Walk::run`], with `i + 64 / e <= count`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    #[inline]
    unsafe fn step<const P: usize>(&self, steps: &Steps, i: usize) {
        let (src, dst) = (
            self.src.wrapping_offset(i as isize * self.src_step),
            self.dst.wrapping_offset(i as isize * self.dst_step),
        );
        let mut windows = [[_mm512_setzero_si512(); 2]; P];
        for (k, pair) in windows.iter_mut().enumerate() {
            // SAFETY: window w lies inside its group's bytes (`Steps::starts`), between source elements of the step's
            // items, which the caller's contract makes readable.
            unsafe {
                pair[0] = _mm512_loadu_si512(src.wrapping_offset(steps.starts[2 * k]).cast());
                pair[1] = _mm512_loadu_si512(src.wrapping_offset(steps.starts[2 * k + 1]).cast());
            }
        }
        for c in 0..steps.chunks {
            // SAFETY: `c < chunks <= MAX_CHUNKS`; 64 bytes per index.
            let index = unsafe { _mm512_loadu_si512(steps.index[c].as_ptr().cast()) };
            let mut v = _mm512_setzero_si512();
            for (k, [w0, w1]) in windows.iter().enumerate() {
                v = _mm512_or_si512(v, _mm512_maskz_permutex2var_epi8(steps.keep[c * P + k], *w0, index, *w1));
            }
            let (to, stored) = (dst.wrapping_offset(steps.at[c]), steps.stored[c]);
            // SAFETY: the stored bytes of chunk c are destination elements of the step's items (the caller's contract).
            unsafe {
                // A whole chunk takes a plain store (masked stores are slower on some CPUs).
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

    /// A kernel of this file: `(src, dst, na, a_src, a_dst, nb, b_src, e)`.
    type Kernel = unsafe fn(*const u8, *mut u8, usize, isize, isize, usize, isize, usize);

    /// Runs `kernel` over a source of distinct bytes, rows `a` of `nb` elements `pad` bytes apart in a destination
    /// `shift` bytes after a line, and checks every destination element against the definition and every byte
    /// around the rows untouched.
    #[allow(clippy::too_many_arguments)] // the kernel, the shape, the padding and the alignment
    fn check(kernel: Kernel, na: usize, a_src: isize, nb: usize, b_src: isize, e: usize, pad: usize, shift: usize) {
        let (a_lo, b_lo) = (((na as isize - 1) * a_src).min(0), ((nb as isize - 1) * b_src).min(0));
        let span = (((na as isize - 1) * a_src).abs() + ((nb as isize - 1) * b_src).abs()) as usize + e;
        let src: Vec<u8> = (0..span).map(|i| (i * 7 + i / 251) as u8).collect();
        let origin = (-(a_lo + b_lo)) as usize;
        let a_dst = nb * e + pad;
        let mut dst = vec![0xEEu8; na * a_dst + 192];
        let at = (64 - dst.as_ptr() as usize % 64) % 64 + shift;
        // SAFETY: source element (a, b) at origin + a a_src + b b_src lies in `src`, as every byte between the
        // lowest and highest; row a's nb e bytes at at + a a_dst inside `dst`; no overlap; the caller checked the
        // kernel's shape.
        unsafe { kernel(src.as_ptr().add(origin), dst.as_mut_ptr().add(at), na, a_src, a_dst as isize, nb, b_src, e) };
        for a in 0..na {
            for b in 0..nb {
                let s = (origin as isize + a as isize * a_src + b as isize * b_src) as usize;
                let d = at + a * a_dst + b * e;
                assert_eq!(dst[d..d + e], src[s..s + e], "element ({a}, {b}) of {na} {a_src} {a_dst} {nb} {b_src} {e}");
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
                assert!(planes64_fits(na, a_src, nb, b_src, e), "{na} {a_src} {nb} {b_src} {e}");
                for (pad, shift) in [(0, 0), (13, 5), (64 - (nb * e) % 64, 0), (0, 8)] {
                    check(planes_in::<false>, na, a_src, nb, b_src, e, pad, shift);
                    // In a streaming copy, the walk of six planes or more, or of pixels read backwards, requests
                    // its source ahead, past the call's last step too: the same bytes must move.
                    check(planes_in::<true>, na, a_src, nb, b_src, e, pad, shift);
                }
            }
        }
    }

    /// [`planes64`] in a copy that streams (`NT`: the walk may request its source ahead) or whose lines the caches
    /// hold.
    #[allow(clippy::too_many_arguments)] // the signature of `Kernel`
    unsafe fn planes_in<const NT: bool>(
        s: *const u8,
        d: *mut u8,
        na: usize,
        a_s: isize,
        a_d: isize,
        nb: usize,
        b_s: isize,
        e: usize,
    ) {
        // SAFETY: the caller's contract (`check`'s): a planes64_fits shape over valid ranges.
        unsafe { planes64(s, d, na, a_s, a_d, nb, b_s, e, NT) }
    }

    #[test]
    fn streaming_walks_of_many_planes_or_backward_pixels_request_their_source_ahead() {
        let long = 1 << 20;
        assert!(planes_request_ahead(6, long, 32, 2, true) && planes_request_ahead(16, long, 1, 1, true));
        assert!(planes_request_ahead(2, long, -14, 2, true) && planes_request_ahead(6, long, -32, 2, true));
        assert!(!planes_request_ahead(5, long, 20, 4, true) && !planes_request_ahead(1, long, 15, 1, true));
        assert!(!planes_request_ahead(8, long, 26, 2, false) && !planes_request_ahead(2, long, -14, 2, false));
        // Calls of fewer than 12 steps: 6 u64 planes of 20 pixels a call (sweep9_061) do not request.
        assert!(!planes_request_ahead(6, 20, -48, 8, true) && !planes_request_ahead(6, 95, -48, 8, true));
        assert!(planes_request_ahead(6, 96, -48, 8, true));
    }

    /// [`gather64`] as a kernel of this file: one plane (`na == 1`), its `nb` elements `b_src` apart.
    #[allow(clippy::too_many_arguments)] // the signature of `Kernel`
    unsafe fn gather_kernel(
        src: *const u8,
        dst: *mut u8,
        na: usize,
        _: isize,
        _: isize,
        nb: usize,
        b_src: isize,
        e: usize,
    ) {
        assert_eq!(na, 1);
        // SAFETY: the caller's contract (`check`'s): a gather64_fits shape over valid ranges.
        unsafe { gather64(src, dst, nb, b_src, e) }
    }

    #[test]
    fn gathers_against_the_definition() {
        if !crate::kernels::wide_permutes() {
            eprintln!("no AVX-512 VBMI here: the kernel does not run");
            return;
        }
        // (stride in elements, e): every element size at the strides the AVX2 gather has no shuffles for, up to the
        // largest a step of a KiB holds, forwards and backwards.
        for (k, e) in [(9, 1), (16, 1), (-11, 1), (5, 2), (-16, 2), (7, 4), (-12, 4), (5, 8), (-11, 8), (2, 1)] {
            let k: isize = k;
            let b_src = k * e as isize;
            let g = 64 / e;
            for nb in [g, g + 1, 2 * g - 1, 16 * g, 23 * g + 3] {
                assert!(gather64_fits(nb, b_src, e), "{nb} {b_src} {e}");
                for (pad, shift) in [(0, 0), (13, 5), (0, 8)] {
                    check(gather_kernel, 1, 0, nb, b_src, e, pad, shift);
                }
            }
        }
        assert!(!gather64_fits(1000, 17, 1) && !gather64_fits(1000, 13 * 4, 4) && !gather64_fits(1000, 12 * 8, 8));
        assert!(!gather64_fits(63, 9, 1) && !gather64_fits(1000, 0, 1));
        // Taken for 1-2 byte elements only, where the element loop moves the fewest bytes per move.
        assert!(gather64_pays(1) && gather64_pays(2) && !gather64_pays(4) && !gather64_pays(8));
    }

    #[test]
    fn pixels_out_of_planes_against_the_definition() {
        if !crate::kernels::wide_permutes() {
            eprintln!("no AVX-512 VBMI here: the kernel does not run");
            return;
        }
        // (nb, a_src in elements, pad, e): planes of every element size into dense and padded pixels, read forwards,
        // backwards and every second element; planes far apart and adjacent, in either order.
        let shapes =
            [(5, 1, 0, 4), (16, 1, 0, 2), (7, -1, 0, 8), (3, 2, 1, 1), (6, 1, 2, 2), (7, -2, 0, 1), (2, 1, 3, 8)];
        for (nb, step, pad, e) in shapes {
            let step: isize = step;
            let g = 64 / e;
            for na in [g, g + 1, 2 * g - 1, 16 * g, 23 * g + 3] {
                let (a_src, run) = (step * e as isize, (na * step.unsigned_abs() * e) as isize);
                assert!(pixels64_fits(na, a_src, (nb * e + pad) as isize, nb, e), "{na} {a_src} {pad} {nb} {e}");
                for b_src in [run + 24, -(run + 8)] {
                    for shift in [0, 5] {
                        check(pixels64, na, a_src, nb, b_src, e, pad, shift);
                    }
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

    #[test]
    fn pixel_steps_of_at_most_a_kib_and_sixteen_windows() {
        // 16 byte planes into dense pixels: 64 pixels of 16 bytes, 16 windows (8 pairs); one pixel less is no step.
        assert!(pixels64_fits(64, 1, 16, 16, 1) && !pixels64_fits(63, 1, 16, 16, 1));
        // Every second byte: two windows a plane, 9 planes too many; padded pixels past a KiB a step; one plane.
        assert!(pixels64_fits(64, 2, 8, 8, 1) && !pixels64_fits(64, 2, 9, 9, 1));
        assert!(!pixels64_fits(64, 1, 17, 3, 1) && !pixels64_fits(64, 1, 1, 1, 1));
        // 4-byte planes: at most 6 pairs (12 planes of one window), pixels no closer than their planes.
        assert!(pixels64_fits(16, 4, 48, 12, 4) && !pixels64_fits(16, 4, 52, 13, 4));
        assert!(!pixels64_fits(16, 4, 44, 12, 4));
        // 8-byte elements and 16 planes fit, but are left to the other kernels.
        assert!(pixels64_fits(8, 8, 40, 5, 8) && !pixels64_pays(8, 5, 8));
        assert!(pixels64_fits(32, 2, 32, 16, 2) && !pixels64_pays(2, 16, 2) && pixels64_pays(2, 12, 2));
        assert!(pixels64_pays(1, 6, 1) && pixels64_pays(4, 7, 4) && !pixels64_pays(2, 7, 1));
    }
}
