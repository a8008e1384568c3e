//! The table kernel: small blocks whose source offsets were computed when the operator was prepared
//! ([`crate::table`]). `rows` rows of `block` elements: row `r` reads from `src + r * row_src` at the table's
//! offsets and writes `block` contiguous elements at `dst + r * row_dst`. Rows are taken `per` at a time (a pass);
//! a full pass uses a shuffle form when there is one (x86: 64-byte chunks with AVX-512 VBMI, else 16-byte ones),
//! the last partial pass and everything else walk the offsets. A broadcast row dimension (`row_src == 0`,
//! contiguous destination) computes one pass and copies it. Rows spaced apart in the destination (a padded output)
//! take passes of several rows only through a stage: each pass is written there as if the rows were contiguous,
//! and the short-row kernel copies its rows to their places (`crate::table::spaced_rows`).
//!
//! A call may also carry a *partner* dimension (`na > 1`): `na` steps reading 1-4 elements further on (`a_src`
//! bytes, always forwards: the planner flips a partner that reads backwards, which then writes backwards) and
//! writing `a_dst` bytes further on (a channel-last output or a padded input: planes of the output, each
//! element of the block read from its own line). Step `a` of the partner reads every offset plus `a * a_src` bytes
//! and writes the call's contiguous destination rows at `a * a_dst`. Walked step by step, each source line would
//! be read once per step; the x86 tiles read a tile of partner steps per offset instead (16 bytes of them, or the
//! 32-64 bytes that hold a tile of every second to fourth element, gathered by byte shuffles) and transpose them in
//! registers ([`x86::table_tiles`]), so that each line serves all of its steps while it is in a register.

use super::copy::copy_bytes;
use crate::kernels::dispatch::replicate;
use crate::kernels::footprint::{Footprint, HERE};
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86;
use crate::kernels::{Ctx, Elem, Simd};
use crate::table::{BLOCK_MAX_BYTES, PASS_MAX_BYTES, Table, pass_interval};

/// The numbers of one call (the fields of `Inner::Table`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TableCall {
    pub rows: usize,
    pub row_src: isize,
    pub row_dst: isize,
    pub per: usize,
    pub block: usize,
    pub hull: usize,
    /// Steps of the partner dimension (1: none); it reads `a_src` bytes on (1-4 elements, [`partner_step`]) and
    /// writes `a_dst` bytes on (either way).
    pub na: usize,
    pub a_src: isize,
    pub a_dst: isize,
}

/// Whether the rows of `c` (elements of `e` bytes) are broadcast into contiguous rows: every row reads the first one
/// (`row_src == 0`) and there is no partner, so that [`table`] computes one pass and copies it to every row (or, in
/// a single pass with a shuffle form, writes every row from the same source bytes). The planner streams such calls
/// from the fills' threshold (`planner::streaming_min_bytes`): like a fill, they write what they do not read.
pub(crate) fn broadcast_rows(c: TableCall, e: usize) -> bool {
    c.na <= 1 && c.row_src == 0 && c.rows > 1 && c.row_dst == (c.block * e) as isize
}

/// Whether `a_src` bytes is a partner's source step for `e`-byte elements: 1-4 elements forwards. Further apart,
/// a tile of steps would load more than a line per offset, most of it skipped.
pub(crate) fn partner_step(a_src: isize, e: usize) -> bool {
    let e = e as isize;
    a_src > 0 && a_src % e == 0 && a_src / e <= 4
}

/// Whether a pass of `n` elements of `e` bytes, fewer than a partner tile (16 bytes), still takes the x86 partner
/// tiles: the partner rows are contiguous (`a_dst == n e`, so that a 16-byte store past a row's end lands on rows
/// written after it) and at least 8 bytes long (at least half of each store useful; shorter rows are interleaves of
/// 2-3 planes). The planner gives such a partner to a table only under this condition too.
pub(crate) fn narrow_partner(n: usize, a_dst: isize, e: usize) -> bool {
    let row = n * e;
    (8..16).contains(&row) && usize::try_from(a_dst).ok() == Some(row)
}

/// The fewest partner steps for which a partner shorter than a tile ([`short_partner`]) pays: its tiles still load
/// and transpose 16 bytes per offset, of which only these are stored. Five alternating rounds over the six sweep
/// cases of seeds 1-4 that took one (time ratios, tiles over the outer loop they replace): bytes of 9, 6 and 5
/// channels 0.49, 0.90, 0.70; of 3 channels 1.02; u16 pairs 1.26 and f32 triples 2.16 (a 16-byte tile of 4 or 2
/// offsets saves little over their walk and checks as much).
const SHORT_PARTNER_MIN_STEPS: usize = 4;

/// Whether a partner of `na` steps of `e`-byte elements, fewer than a partner tile (16 bytes), still takes the x86
/// partner tiles over passes of at least a tile of elements: bytes only, from [`SHORT_PARTNER_MIN_STEPS`] steps.
/// Each tile loads 16 bytes per offset (its `na` partner steps and the bytes after them) and stores only the first
/// `na` rows of the transpose: pixels of 4-15 byte channels read into planes, one channel per partner step, where
/// the walk moves one byte per load and store. The planner gives such a partner only to tables without a shuffle
/// form (which would do better per chunk), and the kernel loads 16 bytes at an offset only when they end inside the
/// pass's source interval (walking the others).
pub(crate) fn short_partner(na: usize, e: usize) -> bool {
    e == 1 && (SHORT_PARTNER_MIN_STEPS..16).contains(&na)
}

/// One call reads, per row, bytes within the block's hull (from the shifted source pointer) and writes the
/// block's elements contiguously. With a partner (whose rows are contiguous in the destination), each row reads
/// the hull extended by `na - 1` steps of `a_src` bytes, and the `rows * block` contiguous elements are written
/// `na` times, `a_dst` apart.
pub(crate) fn footprint(c: TableCall, esize: usize) -> Footprint {
    let reach = c.hull + (c.na.max(1) - 1) * c.a_src.unsigned_abs();
    let hull = if reach > esize { (2, (reach - esize) as isize) } else { HERE };
    let dst = match c.na > 1 {
        true => [(c.na, c.a_dst), (c.rows * c.block, esize as isize)],
        false => [(c.rows, c.row_dst), (c.block, esize as isize)],
    };
    Footprint { src: [(c.rows, c.row_src), hull], dst }
}

/// Whether `t` is a table for the numbers of `c` on `esize`-byte elements: the invariants the kernel's loads and
/// stores rely on, checked once by [`check`](crate::kernels::check) so that no call can run a table that does not
/// match its numbers (every offset of a pass inside the pass interval, the windows inside it too, the chunks
/// covering exactly one pass, several rows per pass only over a contiguous destination or spaced rows, whose
/// passes fit the stage).
pub(crate) fn consistent(c: TableCall, t: &Table, esize: usize) -> bool {
    let (lo, hi) = pass_interval(c.per, c.row_src, c.hull);
    let pass_bytes = c.per * c.block * esize;
    let offsets = t.offsets.len() == c.per * c.block
        && c.per >= 1
        && c.block >= 1
        && c.hull >= esize
        && (c.per == 1 || c.row_dst == (c.block * esize) as isize || spaced(c, esize))
        && (!spaced(c, esize) || pass_bytes <= PASS_MAX_BYTES)
        && (c.na <= 1 || c.rows == 1 || c.row_dst == (c.block * esize) as isize)
        && (c.na <= 1 || partner_step(c.a_src, esize))
        && t.offsets.iter().all(|&o| lo <= o as isize && o as isize + esize as isize <= hi);
    let chunks = t.chunks.as_ref().is_none_or(|ch| {
        crate::table::CHUNK_WINDOWS.contains(&ch.windows)
            && matches!(ch.halves, 1 | 2)
            && pass_bytes >= 16 * ch.halves
            && ch.starts.len() == pass_bytes.div_ceil(16 * ch.halves) * ch.windows * ch.halves
            && ch.masks.len() == ch.starts.len()
            && ch.starts.iter().all(|&s| lo <= s as isize && s as isize + 16 <= hi)
    });
    let chunks64 = t.chunks64.as_ref().is_none_or(|ch| {
        matches!(ch.windows, 1 | 2 | 4 | 8 | 16)
            && pass_bytes >= 64
            && ch.starts.len() == pass_bytes.div_ceil(64) * ch.windows
            && ch.index.len() == ch.starts.len() / ch.windows
            && ch.keep.len() == ch.index.len() * ch.pairs()
            && ch.starts.iter().all(|&s| lo <= s as isize && s as isize + 64 <= hi)
    });
    // The row shuffle's stores stay inside the row's block (width <= bytes = block bytes) and its hull fits its
    // window.
    let rows = t.row_shuffle.as_ref().is_none_or(|r| {
        c.per == 1
            && c.hull <= 16
            && r.bytes == c.block * esize
            && r.width.is_power_of_two()
            && r.width <= r.bytes.min(16)
            && r.bytes <= 2 * r.width
            && r.first.iter().chain(&r.last).all(|&m| m & 0x80 != 0 || (m as usize) < c.hull)
    });
    offsets && chunks && chunks64 && rows
}

/// Whether the call's passes take several spaced destination rows (`crate::table::spaced_rows`, a padded output):
/// rows that neither meet nor overlap, without a partner, read from a moving source. Such a table holds the dense
/// pass (rows `block` elements apart), which the kernel runs into a stage.
fn spaced(c: TableCall, esize: usize) -> bool {
    c.per > 1 && c.na <= 1 && c.row_src != 0 && c.row_dst.unsigned_abs() > c.block * esize
}

/// Bytes of the L1-resident block that passes bound for streaming stores are assembled in.
const STAGE_BYTES: usize = 4096;

/// Runs the call `c` with the table `t`. `next_call`, when the outer loop's next call jumps away from this one, is
/// that call's source pointer: the last pass requests the lines of its first pass (a hint: the pointer is never
/// dereferenced), as every other pass requests the next pass's.
///
/// # Safety
/// The footprint of `c` from `src` and `dst` is valid and the sides do not overlap; `t` is the table built with
/// the numbers of `c` (so every offset of a pass lies in [`pass_interval`], the footprint of that pass).
pub(crate) unsafe fn table<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    c: TableCall,
    t: &Table,
    ctx: Ctx,
    next_call: Option<*const u8>,
) {
    let e = T::SIZE;
    let block_bytes = c.block * e;
    let contiguous = c.row_dst == block_bytes as isize || c.rows == 1;
    debug_assert_eq!(t.offsets.len(), c.per * c.block);
    debug_assert!({
        let (lo, hi) = pass_interval(c.per, c.row_src, c.hull);
        t.offsets.iter().all(|&o| lo <= o as isize && o as isize + e as isize <= hi)
    });
    let pass_bytes = c.per * block_bytes;
    if c.na > 1 {
        // SAFETY: the caller's contract; the planner gives a partner only to contiguous rows (`consistent`).
        unsafe { with_partner::<T>(src, dst, c, t, ctx, next_call) };
        return;
    }
    if broadcast_rows(c, e) && (c.rows > c.per || !t.shuffles()) {
        // A broadcast row: every pass is the first one. A full pass is computed where it has a shuffle form; without
        // one, only the first row is walked, since a walk of every row costs a load and a store per element (a
        // 5-byte run broadcast over the 88 rows of a single pass: 0.02 of the roofline).
        let first = if t.shuffles() { c.per } else { 1 };
        // SAFETY: rows 0 .. first <= per of the caller's footprint (`first == per < rows` with a shuffle form).
        unsafe { pass::<T>(src, dst, first, c, t, ctx, None) };
        // The rows are contiguous, so the remaining rows (whole passes and the last partial one) are copies of the
        // first: replicate rows (blocks of one row) rather than passes.
        // SAFETY: row 0 is written; rows 1 .. rows are the contiguous bytes up to rows * block_bytes of the
        // caller's footprint.
        unsafe { replicate(dst, block_bytes, block_bytes, c.rows, ctx) };
        return;
    }
    if c.row_src == 0
        && c.rows > 1
        && !contiguous
        && c.row_dst.unsigned_abs() >= block_bytes
        && block_bytes <= BLOCK_MAX_BYTES
    {
        // Broadcast rows into spaced destination rows (a padded output): every row is the first one, computed once
        // into a stage and copied to each row by the short-row kernel, which requests its destination lines ahead.
        // Walked row by row, 48-byte rows 10824 bytes apart (sweep1_113 of `--sweep 200 --seed 1 --sweep-max-bytes
        // 64M`) took 7.4 ns each, a load and a store per element (`docs/PERFORMANCE.md`, forty-second round).
        let mut stage = std::mem::MaybeUninit::<[u8; BLOCK_MAX_BYTES]>::uninit();
        let stage = stage.as_mut_ptr().cast::<u8>();
        // SAFETY: row 0 of the caller's footprint (every row reads it: row_src == 0) into the stage, which holds
        // the block (block_bytes <= BLOCK_MAX_BYTES, checked above); then the stage, read `rows` times (source
        // step 0), to the caller's destination rows of `block_bytes` at r * row_dst, which do not overlap each
        // other (|row_dst| >= block_bytes) or the stage (a local).
        unsafe {
            pass::<T>(
                src,
                stage,
                1,
                TableCall { row_dst: block_bytes as isize, ..c },
                t,
                Ctx { nt: false, ..ctx },
                None,
            );
            super::rows::rows(stage, dst, c.rows, block_bytes, 0, c.row_dst, ctx, (None, false));
        }
        return;
    }
    if spaced(c, e) {
        // Passes of several spaced destination rows (`crate::table::spaced_rows`): each pass runs as if its rows
        // were contiguous, into a stage, and the short-row kernel copies the stage's rows to their places.
        let mut stage = std::mem::MaybeUninit::<[u8; PASS_MAX_BYTES]>::uninit();
        let stage = stage.as_mut_ptr().cast::<u8>();
        let dense = TableCall { row_dst: block_bytes as isize, ..c };
        let mut r = 0;
        while r < c.rows {
            let k = c.per.min(c.rows - r);
            let (s, d) = (src.wrapping_offset(r as isize * c.row_src), dst.wrapping_offset(r as isize * c.row_dst));
            // SAFETY: source rows r .. r + k of the caller's footprint, into the stage's first k * block_bytes <=
            // pass_bytes <= PASS_MAX_BYTES bytes (a pass of the dense call, whose table this is: `consistent`);
            // then those k rows of the stage to destination rows r .. r + k of block_bytes each, row_dst apart,
            // inside the caller's footprint, not overlapping each other (|row_dst| >= block_bytes) or the stage
            // (a local).
            unsafe {
                pass::<T>(s, stage, k, dense, t, Ctx { nt: false, ..ctx }, ahead(src, r + k, c, t, next_call));
                super::rows::rows(stage, d, k, block_bytes, block_bytes as isize, c.row_dst, ctx, (None, false));
            }
            r += k;
        }
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if ctx.simd == Simd::Avx2
        && c.per == 1
        && let Some(r) = &t.row_shuffle
    {
        // The call's source bytes, relative to `src`: the rows' hulls (the interval of one pass of all its rows).
        let (low, high) = pass_interval(c.rows, c.row_src, c.hull);
        if high - low >= 16 {
            // SAFETY: AVX2 detected; `consistent` checked the row shuffle against the call (hull <= 16, stores
            // inside each row's block); every row's hull lies in [low, high), the caller's footprint, which is at
            // least 16 bytes; destination rows of `block` elements at r * row_dst, inside the footprint.
            unsafe { x86::table_rows(src, dst, c.rows, c.row_src, c.row_dst, r, high) };
            return;
        }
    }
    if ctx.nt && contiguous && pass_bytes <= STAGE_BYTES && c.rows * block_bytes >= STAGE_BYTES {
        // Streaming stores need whole aligned vectors: passes are assembled in an L1 stage and streamed from there.
        let mut stage = std::mem::MaybeUninit::<[u8; STAGE_BYTES]>::uninit();
        let stage = stage.as_mut_ptr().cast::<u8>();
        let per_stage = STAGE_BYTES / pass_bytes * c.per;
        let mut r = 0;
        while r < c.rows {
            let k = per_stage.min(c.rows - r);
            let mut done = 0;
            while done < k {
                let j = c.per.min(k - done);
                // SAFETY: source rows r + done .. + j of the caller's footprint; the stage holds k <= per_stage
                // rows of block_bytes, and rows done .. done + j of it are written here (contiguous stage rows).
                unsafe {
                    pass::<T>(
                        src.offset((r + done) as isize * c.row_src),
                        stage.add(done * block_bytes),
                        j,
                        TableCall { row_dst: block_bytes as isize, ..c },
                        t,
                        Ctx { nt: false, ..ctx },
                        ahead(src, r + done + j, c, t, next_call),
                    )
                };
                done += j;
            }
            // SAFETY: the stage's k rows were written above; destination rows r .. r + k are contiguous
            // (row_dst == block_bytes) in the caller's footprint.
            unsafe { copy_bytes(stage, dst.add(r * block_bytes), k * block_bytes, ctx) };
            r += k;
        }
        return;
    }
    let mut r = 0;
    while r < c.rows {
        let k = c.per.min(c.rows - r);
        let (s, d) = (src.wrapping_offset(r as isize * c.row_src), dst.wrapping_offset(r as isize * c.row_dst));
        // SAFETY: rows r .. r + k of the caller's footprint.
        unsafe { pass::<T>(s, d, k, c, t, ctx, ahead(src, r + k, c, t, next_call)) };
        r += k;
    }
}

/// [`table`] with a partner dimension: pass by pass, the SIMD tiles where the pass and the partner are at least a
/// tile long, otherwise a walk of the offsets for every partner step.
///
/// # Safety
/// As for [`table`], with `c.na > 1` and contiguous destination rows (`c.rows == 1` or `c.row_dst == block` bytes).
unsafe fn with_partner<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    c: TableCall,
    t: &Table,
    ctx: Ctx,
    next_call: Option<*const u8>,
) {
    let e = T::SIZE;
    // A pass whose source spreads wider than L1 is read line by line from further out: the partner tiles request
    // the offsets of the tiles ahead ([`x86::table_tiles`]).
    let spread = {
        let (lo, hi) = pass_interval(c.per, c.row_src, c.hull);
        (hi - lo).unsigned_abs() > SPREAD_BYTES
    };
    let _ = spread; // read by the x86 tiles only
    let mut r = 0;
    while r < c.rows {
        let k = c.per.min(c.rows - r);
        let n = k * c.block;
        let offsets = &t.offsets[..n];
        let (s, d) = (src.wrapping_offset(r as isize * c.row_src), dst.wrapping_add(r * c.block * e));
        request_lines(ahead(src, r + k, c, t, next_call), t, ctx);
        // The end of this pass's source interval, its last row's hull extended by the partner's steps: the caller's
        // footprint covers every byte below it from the lowest offset (a short partner's tiles load 16 bytes from
        // an offset only when they end at or below it).
        #[cfg(target_arch = "x86_64")]
        let end = pass_interval(k, c.row_src, c.hull).1 + (c.na - 1) as isize * c.a_src;
        #[cfg(target_arch = "x86_64")]
        if ctx.simd == Simd::Avx2
            && ctx.nt
            && k == c.rows
            && let Some(g) = staged_group(n, c, e)
        {
            // SAFETY: AVX2 detected; the call's only pass (k == rows), whose partner rows are contiguous
            // (`staged_group`), and its end; the caller's footprint.
            unsafe { staged_tiles::<T>(s, d, offsets, c, (g, end), spread, ctx) };
            r += k;
            continue;
        }
        #[cfg(target_arch = "x86_64")]
        if ctx.simd == Simd::Avx2 && x86::table_tiles_fit(n, c.na, c.a_src, c.a_dst, e) {
            let dst_ahead = x86::dst_ahead(c.na, c.a_dst, n * e);
            let ahead = spread.then_some(x86::Level::of(ctx.nt));
            let p = x86::Partner { na: c.na, a_src: c.a_src, a_dst: c.a_dst, end, ahead, dst_ahead };
            // SAFETY: AVX2 detected; rows r .. r + k of the caller's footprint: each of the n offsets from `s`,
            // extended by na - 1 steps of a_src bytes, and n contiguous elements at `d + a * a_dst` for every
            // a < na; every byte from the lowest offset up to `end` lies in the pass's interval, inside that
            // footprint; `partner_step(a_src)` (`consistent`).
            unsafe { x86::table_tiles::<T>(s, d, offsets, p) };
            r += k;
            continue;
        }
        for a in 0..c.na {
            for (j, &o) in offsets.iter().enumerate() {
                // SAFETY: element j of rows r .. r + k at partner step a, inside the caller's footprint (the
                // offset o lies in the pass interval; a < na steps of a_src further on; destination element j of
                // the contiguous rows at a * a_dst).
                unsafe {
                    let v = s.offset(o as isize + a as isize * c.a_src).cast::<T>().read_unaligned();
                    d.offset(a as isize * c.a_dst).add(j * e).cast::<T>().write_unaligned(v);
                }
            }
        }
        r += k;
    }
}

/// Bytes of the L1-resident block that partner steps bound for streaming stores are assembled in.
#[cfg(target_arch = "x86_64")]
const PARTNER_STAGE_BYTES: usize = 32 << 10;

/// The partner steps per group of [`staged_tiles`] for a single pass of `n` elements of `e` bytes under the
/// partner of `c`, when it takes one: the partner rows (one pass each) are contiguous in the destination, either
/// way (`|a_dst| == n e`), so that a group of steps is one block of the destination; a group is a whole number of
/// partner tiles, at least two, and a group and a remainder shorter than a group fit the stage together.
#[cfg(target_arch = "x86_64")]
fn staged_group(n: usize, c: TableCall, e: usize) -> Option<usize> {
    let row = n * e;
    let tile = 16 / e;
    let group = (PARTNER_STAGE_BYTES / row / 2) / tile * tile;
    let stage_dst = if c.a_dst < 0 { -(row as isize) } else { row as isize };
    (c.a_dst.unsigned_abs() == row
        && group >= 2 * tile
        && c.na >= 2 * tile
        && x86::table_tiles_fit(n, group, c.a_src, stage_dst, e))
    .then_some(group)
}

/// The partner tiles of a single pass ([`x86::table_tiles`]) with streaming stores: `group` partner steps at a
/// time (the last group takes the remainder too) are assembled in an L1 stage, in their destination order, and
/// streamed from there as one block. The tiles' own stores are 16 bytes into `a_dst`-apart rows, which cannot
/// stream: 4-byte elements of 45 rows read bottom-up, 31193 partner steps (sweep3_075), ran at 0.25 of the
/// roofline without the stage and 0.61 with it (0.43 when the same rows were walked into the table's stage).
///
/// # Safety
/// AVX2 is available; as for [`with_partner`], for the call's only pass (`offsets`: its `n` offsets from `src`;
/// its destination rows of `n` elements at `dst + a * a_dst`; `end`, the end of its source from `src`), with
/// `group` from [`staged_group`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn staged_tiles<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    offsets: &[i32],
    c: TableCall,
    (group, end): (usize, isize),
    spread: bool,
    ctx: Ctx,
) {
    let row = offsets.len() * T::SIZE;
    let mut stage = std::mem::MaybeUninit::<[u8; PARTNER_STAGE_BYTES]>::uninit();
    let stage = stage.as_mut_ptr().cast::<u8>();
    let mut g0 = 0;
    while g0 < c.na {
        // The last group takes the steps a whole group would leave over: fewer than `group` more.
        let g1 = if c.na - g0 < 2 * group { c.na } else { g0 + group };
        let m = g1 - g0;
        let at = g0 as isize * c.a_src;
        // Step g0 + q goes to stage row q forwards; backwards (a_dst < 0) to row m - 1 - q, so that the stage
        // holds the destination block from its lowest row up.
        let (first, step, block) = match c.a_dst < 0 {
            true => ((m - 1) * row, -(row as isize), dst.wrapping_offset((g1 - 1) as isize * c.a_dst)),
            false => (0, row as isize, dst.wrapping_offset(g0 as isize * c.a_dst)),
        };
        let ahead = spread.then_some(x86::Level::of(ctx.nt));
        let p = x86::Partner { na: m, a_src: c.a_src, a_dst: step, end: end - at, ahead, dst_ahead: None };
        // SAFETY: AVX2 detected; steps g0 .. g1 of every offset (their source lies in the caller's footprint, from
        // `src + at`); `table_tiles_fit` holds for m steps: m >= min(group, na) >= 2 tiles, and `staged_group`
        // checked it for `group` steps (from a tile and one step on, more steps fit as well); the stage holds
        // m < 2 group rows of `row` bytes (group * row <= PARTNER_STAGE_BYTES / 2), written in full before
        // `copy_bytes` reads them; the destination block of steps g0 .. g1 is m contiguous rows (|a_dst| == row)
        // from `block`, in the caller's footprint.
        unsafe {
            x86::table_tiles::<T>(src.wrapping_offset(at), stage.add(first), offsets, p);
            copy_bytes(stage, block, m * row, ctx);
        }
        g0 = g1;
    }
}

/// The source span of a pass beyond which the partner tiles request their offsets ahead (an L1 data cache).
pub(crate) const SPREAD_BYTES: usize = 32 << 10;

/// The source pointer of the pass starting at row `r`, if there is one: its lines are requested as the pass before
/// it starts ([`request_lines`]).
#[inline]
fn next_pass(src: *const u8, r: usize, c: TableCall) -> Option<*const u8> {
    (r < c.rows).then(|| src.wrapping_offset(r as isize * c.row_src))
}

/// What a pass ending before row `r` requests: the next pass's lines, unless the passes are one stream the
/// hardware follows ([`Table::followed`]); after the last pass, the next call's (`next_call`).
#[inline]
fn ahead(src: *const u8, r: usize, c: TableCall, t: &Table, next_call: Option<*const u8>) -> Option<*const u8> {
    if r < c.rows { next_pass(src, r, c).filter(|_| !t.followed) } else { next_call }
}

/// Requests the lines of the next pass (from `next`, [`Table::lines`]) into L2, all at once: nothing without a
/// next pass or AVX2 (the portable kernels request nothing), and nothing when the table has no prefetch lines.
///
/// Into L2 (`prefetcht1`), not L1: a table's next pass is a pass away, and its lines, far apart, held L1's miss
/// buffers while the pass's own loads waited behind them. Measured on the Zen 4 of `docs/PERFORMANCE.md`'s
/// fifty-eighth round, each case in its own process, ABBA rounds, time ratios L2 / L1: the 126 sweep tables of seeds
/// 1-3 that request lines (not `followed`) 0.956 (three rounds; the 22 extremes over five: 0.85, sweep2_199 and
/// sweep3_191 0.50-0.51, the slowest 1.28, sweep1_196), held out the 134 of seeds 4-6 0.969 (0.44-1.59). All at
/// once, not spread over the steps of the pass's loop as they were from the sixteenth round while they went to L1
/// (a burst into L1 held those buffers): the 35 tables of `--sweep 200 --sweep-max-bytes 64M` seeds 4-20 that spread
/// them ran in 0.85-0.87 of the time at once, the 8 of seeds 1-3 in 0.89 (`docs/PERFORMANCE.md`, fifty-ninth round).
#[inline]
fn request_lines(next: Option<*const u8>, t: &Table, ctx: Ctx) {
    #[cfg(target_arch = "x86_64")]
    if let Some(p) = next
        && ctx.simd == Simd::Avx2
    {
        x86::prefetch_lines(p, &t.lines, x86::Level::L2);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (next, t, ctx);
}

/// A whole copy that is one table pass of one row: `dst[i] = src[offsets[i]]`, with no loops around it.
///
/// # Safety
/// The footprint of a one-row call with `t` from `src` and `dst` is valid; the sides do not overlap.
#[inline]
pub(crate) unsafe fn single_pass<T: Elem>(src: *const u8, dst: *mut u8, t: &Table) {
    for (i, &o) in t.offsets.iter().enumerate() {
        // SAFETY: offset o of the only row lies in the block's hull (the table's invariant), inside the footprint;
        // destination element i < block.
        unsafe {
            dst.add(i * T::SIZE).cast::<T>().write_unaligned(src.offset(o as isize).cast::<T>().read_unaligned())
        };
    }
}

/// One pass of `k <= per` rows from `src` to `dst` (`dst` rows `c.row_dst` apart), requesting the lines of the
/// pass at `next` as it goes.
///
/// # Safety
/// Rows 0 .. k of the footprint of `c` from `src` and `dst` are valid.
// Always inlined into its loops, as it was before it took the next pass: out of line, its call cost 1.5-2x on
// passes of 3 elements (sweep1_088).
#[inline(always)]
unsafe fn pass<T: Elem>(
    src: *const u8,
    dst: *mut u8,
    k: usize,
    c: TableCall,
    t: &Table,
    ctx: Ctx,
    next: Option<*const u8>,
) {
    let e = T::SIZE;
    request_lines(next, t, ctx);
    #[cfg(target_arch = "x86_64")]
    if k == c.per
        && ctx.vbmi
        && (c.per == 1 || c.row_dst == (c.block * e) as isize)
        && let Some(chunks) = &t.chunks64
    {
        let pass_bytes = c.per * c.block * e;
        // SAFETY: AVX-512 VBMI detected (`ctx.vbmi`); a full pass with a contiguous destination of per * block
        // elements (at least 64 bytes, `consistent`), whose chunks' 64-byte windows lie in the pass interval
        // (`Chunks64`), inside the caller's footprint.
        unsafe { x86::table_chunks64(src, dst, chunks, pass_bytes) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if k == c.per
        && ctx.simd == Simd::Avx2
        && (c.per == 1 || c.row_dst == (c.block * e) as isize)
        && let Some(chunks) = &t.chunks
    {
        let pass_bytes = c.per * c.block * e;
        // SAFETY: AVX2 detected; a full pass with a contiguous destination of per * block elements, whose chunks'
        // windows lie in the pass interval (`Chunks`), inside the caller's footprint.
        unsafe { x86::table_chunks(src, dst, chunks, pass_bytes) };
        return;
    }
    let _ = (ctx, Simd::None);
    // The rows of a pass are contiguous in the destination (several rows per pass only over contiguous rows, or
    // into the stage of spaced rows with the dense call: `consistent`, `table`), so a pass is one walk of its
    // k * block offsets, without a loop per row: rows of 3-5 elements spent more on the row loop than on the moves
    // (u32 triples in cache: 0.21 of the roofline, 0.40 walked flat).
    debug_assert!(k == 1 || c.row_dst == (c.block * e) as isize);
    for (i, &o) in t.offsets[..k * c.block].iter().enumerate() {
        // SAFETY: element i of the pass's k rows: offset o lies in the pass interval (the table's invariant), inside
        // the footprint; destination element i of the contiguous rows 0 .. k (of the one row when k == 1).
        unsafe { dst.add(i * e).cast::<T>().write_unaligned(src.offset(o as isize).cast::<T>().read_unaligned()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_requests_the_next_pass_unless_the_hardware_follows_and_the_last_pass_the_next_call() {
        let c = TableCall { rows: 10, row_src: 32, row_dst: 12, per: 4, block: 3, hull: 12, na: 1, a_src: 0, a_dst: 0 };
        let mut t = Table {
            offsets: vec![0; 12],
            chunks: None,
            chunks64: None,
            lines: vec![0; 4],
            followed: false,
            row_shuffle: None,
        };
        let src = 0x1000 as *const u8;
        let call = Some(0x9000 as *const u8);
        assert_eq!(ahead(src, 4, c, &t, call), Some(src.wrapping_add(128)));
        assert_eq!(ahead(src, 10, c, &t, call), call);
        t.followed = true;
        assert_eq!(ahead(src, 4, c, &t, call), None);
        assert_eq!(ahead(src, 8, c, &t, call), None);
        assert_eq!(ahead(src, 10, c, &t, call), call);
        assert_eq!(ahead(src, 10, c, &t, None), None);
    }
}
