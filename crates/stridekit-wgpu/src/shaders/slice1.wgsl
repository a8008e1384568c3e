// Slice1 on 32-bit words: one invocation per output word, for every element size (1, 2, 4 or 8 bytes; ESIZE).
//
// A dispatch copies one chunk of the normalised copy (see split.rs): `rank` loops, outermost first, whose output
// strides are sorted and nested (D1), so an output element index decomposes greedily into coordinates. Each
// invocation owns one output word: it finds the elements whose bytes lie in that word, reads each from the input
// (an element never straddles a word: both bindings start on 16-byte boundaries and elements are ESIZE-aligned),
// and writes the word once. Bytes of the word that are not element bytes (padding, D6) keep their value: when the
// word is only partly covered, it is read, merged and written. No two invocations touch the same word, so there
// are no races and no atomics. f16 and every other type move as raw bits.
//
// Bindings are windows of the caller's buffers at offsets aligned to minStorageBufferOffsetAlignment; the residue
// uniform carries the tensors' binding offsets modulo that alignment, so that one parameter buffer built at
// prepare time serves every offset a caller records with.

override ESIZE: u32 = 4u;

struct Chunk {
    rank: u32,
    // Bytes from the chunk's first output byte to one past its last.
    out_span: u32,
    // The chunk's first output byte, relative to the tensor, modulo `align`.
    out_first_mod: u32,
    // The chunk's lowest input byte, relative to the tensor, modulo `align`.
    in_first_mod: u32,
    // Bytes from the chunk's lowest input byte to the input element of coordinate 0.
    in_origin: u32,
    // minStorageBufferOffsetAlignment (a power of two >= 16).
    align: u32,
    _pad0: u32,
    _pad1: u32,
    sizes: array<vec4<u32>, 2>,
    out_strides: array<vec4<u32>, 2>,
    in_strides: array<vec4<i32>, 2>,
}

// x: the input binding offset modulo `align`; y: the output's.
struct Residues {
    r: vec4<u32>,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> c: Chunk;
@group(0) @binding(3) var<uniform> res: Residues;

fn element_mask() -> u32 {
    if (ESIZE == 1u) {
        return 0xffu;
    }
    if (ESIZE == 2u) {
        return 0xffffu;
    }
    return 0xffffffffu;
}

@compute @workgroup_size(256)
fn slice1_words(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = gid.x + gid.y * nwg.x * 256u;
    let delta_out = (res.r.y + c.out_first_mod) % c.align;
    let delta_in = (res.r.x + c.in_first_mod) % c.align;
    let words = (delta_out + c.out_span + 3u) / 4u;
    if (w >= words) {
        return;
    }
    let emask = element_mask();
    let step = min(ESIZE, 4u);
    var value = 0u;
    var mask = 0u;
    for (var k = 0u; k < 4u; k += step) {
        let pb = w * 4u + k;
        if (pb < delta_out) {
            continue;
        }
        let p = pb - delta_out;
        if (p >= c.out_span) {
            break;
        }
        // The element and, for 8-byte elements, which of its two words.
        let e = p / ESIZE;
        let sub = p % ESIZE;
        var rem = e;
        var src_e = 0i;
        var inside = true;
        for (var d = 0u; d < c.rank; d++) {
            let s = c.out_strides[d / 4u][d % 4u];
            // `s` is uniform: the branch never diverges, and the common unit stride (packed output rows) skips the
            // division.
            var q = rem;
            if (s != 1u) {
                q = rem / s;
            }
            if (q >= c.sizes[d / 4u][d % 4u]) {
                inside = false;
                break;
            }
            rem -= q * s;
            src_e += i32(q) * c.in_strides[d / 4u][d % 4u];
        }
        if (!inside || rem != 0u) {
            continue;
        }
        let qb = u32(i32(delta_in + c.in_origin) + src_e * i32(ESIZE)) + sub;
        let word = src[qb / 4u];
        var bits = word;
        if (ESIZE < 4u) {
            bits = (word >> ((qb % 4u) * 8u)) & emask;
        }
        value |= bits << (k * 8u);
        mask |= emask << (k * 8u);
    }
    if (mask == 0u) {
        return;
    }
    if (mask == 0xffffffffu) {
        dst[w] = value;
    } else {
        dst[w] = (dst[w] & ~mask) | value;
    }
}

// Transpose through workgroup memory, for 4-byte elements: loop 0 (A) is contiguous in the input (input stride 1),
// loop 1 (B) is contiguous in the output (output stride 1), loops 2.. are a batch. A 16 x 16 workgroup loads a tile
// reading along A (coalesced), and stores it writing along B (coalesced) through a padded tile in workgroup memory.
// Every output element is written by exactly one invocation and 4-byte elements fill whole words: no merge needed.
var<workgroup> tile: array<array<u32, 17>, 16>;

@compute @workgroup_size(16, 16)
fn transpose_words(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let na = c.sizes[0].x;
    let nb = c.sizes[0].y;
    let tiles_a = (na + 15u) / 16u;
    let tiles_b = (nb + 15u) / 16u;
    let t = wid.x + wid.y * nwg.x;
    let tb = t % tiles_b;
    let ta = (t / tiles_b) % tiles_a;
    var batch = t / (tiles_b * tiles_a);
    // Batch loops (2..rank), innermost last: their offsets.
    var in_base = 0i;
    var out_base = 0u;
    var d = c.rank;
    while (d > 2u) {
        d -= 1u;
        let n = c.sizes[d / 4u][d % 4u];
        let q = batch % n;
        batch = batch / n;
        in_base += i32(q) * c.in_strides[d / 4u][d % 4u];
        out_base += q * c.out_strides[d / 4u][d % 4u];
    }
    // Past the last batch: the whole workgroup leaves together (batch is uniform), before any barrier.
    if (batch != 0u) {
        return;
    }
    let delta_in = (res.r.x + c.in_first_mod) % c.align;
    let delta_out = (res.r.y + c.out_first_mod) % c.align;
    let in_word0 = i32((delta_in + c.in_origin) / 4u) + in_base;
    let out_word0 = (delta_out / 4u) + out_base;
    let a = ta * 16u + lid.x;
    let b = tb * 16u + lid.y;
    if (a < na && b < nb) {
        tile[lid.y][lid.x] = src[u32(in_word0 + i32(a) + i32(b) * c.in_strides[0].y)];
    }
    workgroupBarrier();
    let b2 = tb * 16u + lid.x;
    let a2 = ta * 16u + lid.y;
    if (a2 < na && b2 < nb) {
        dst[out_word0 + b2 + a2 * c.out_strides[0].x] = tile[lid.x][lid.y];
    }
}
