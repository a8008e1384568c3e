#!/usr/bin/env python3
"""Writes the hand-made seeds into fuzz/corpus/<target>/ (files named seed-*). Run from anywhere:

    python3 fuzz/seeds/make_seeds.py

The structured targets decode their input with `arbitrary::Unstructured`, so a seed is the byte string that makes
the decoder take the wanted choices. The encoders below mirror the decoders call by call (see the `Arbitrary` impls in
fuzz_targets/*.rs): `int_in_range(a..=b)` with b - a < 256 reads one byte (value a + byte % (b - a + 1)) and reads
nothing when a == b; `choose` is `int_in_range(0..=len-1)`; `ratio(n, d)` is `int_in_range(1..=d) <= n`; integers
from `arbitrary()` are little-endian. `cargo fuzz fmt <target> <seed>` prints what a seed decodes to.

The .npy seeds are written by NumPy itself (every data type, both byte orders where NumPy has them, versions 1.0,
2.0 and 3.0, C and Fortran order, 0-d and empty arrays).
"""

import io
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")


def write(target, name, data):
    os.makedirs(os.path.join(ROOT, target), exist_ok=True)
    with open(os.path.join(ROOT, target, "seed-" + name), "wb") as f:
        f.write(bytes(data))


class Enc:
    def __init__(self):
        self.b = bytearray()

    def rng(self, a, b, v):
        assert a <= v <= b and b - a < 256, (a, b, v)
        if a != b:
            self.b.append(v - a)

    def ratio(self, n, d, value):
        self.rng(1, d, 1 if value else d)

    def i64(self, v):
        self.b += struct.pack("<q", v)


# --- slice1_validate_then_run -------------------------------------------------------------------------------------

LATEST = None
LEVELS = [0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000, 0x5100, 0x5200, 0x6000, 0x6100, 0x6200,
          0x6300, 0x6400]
EDGE_U32 = [0, 1, 2, 3, 255, 65535, 65537, 1 << 31, (1 << 32) - 2, (1 << 32) - 1]
EDGE_I32 = [-(1 << 31), -(1 << 31) + 1, -65536, -1, 1, 65536, (1 << 31) - 2, (1 << 31) - 1]
ELEMENT_SIZE = {1: 4, 2: 2, 3: 4, 4: 2, 5: 1, 6: 4, 7: 2, 8: 1, 9: 8, 10: 8, 11: 8}


def enc_size(e, s):
    if 1 <= s <= 4:
        e.rng(0, 15, 0)
        e.rng(1, 4, s)
    elif 1 <= s <= 64:
        e.rng(0, 15, 10)
        e.rng(1, 64, s)
    else:
        e.rng(0, 15, 12)
        e.rng(0, len(EDGE_U32) - 1, EDGE_U32.index(s))


def enc_strides(e, sizes, strides):
    """strides: None, or a list of explicit values (decoder branch 'each dimension anything')."""
    if strides is None:
        e.rng(0, 7, 0)
        return
    e.rng(0, 7, 7)
    for s, v in zip(sizes, strides):
        if v == 0:
            e.rng(0, 7, 0)
        elif 1 <= v <= 8:
            e.rng(0, 7, 1)
            e.rng(1, 8, v)
        elif v <= 64:
            e.rng(0, 7, 5)
            e.rng(0, 64, v)
        else:
            e.rng(0, 7, 6)
            e.rng(0, len(EDGE_U32) - 1, EDGE_U32.index(v))
    e.ratio(1, 32, False)


def enc_tensor(e, strides, sizes, flags=0, alignment=0, extra_total=0):
    e.rng(0, 15, 13 if flags == 1 else 0)
    enc_strides(e, sizes, strides)
    if alignment == 0:
        e.rng(0, 7, 0)
    else:
        e.rng(0, 7, 4)
        e.rng(0, 9, alignment.bit_length() - 1)
    if extra_total == 0:
        e.rng(0, 15, 0)
    else:
        e.rng(0, 15, 10)
        e.rng(1, 64, extra_total)


def slice1_seed(dtype, in_sizes, offsets, windows, strides, out_sizes, level=LATEST, in_strides=None,
                out_strides=None, in_flags=0, in_align=0, out_align=0, out_extra_total=0, extras=(0, 0, 0, 0, 0)):
    e = Enc()
    if level is None:
        e.ratio(1, 2, True)
    else:
        e.ratio(1, 2, False)
        e.rng(0, len(LEVELS) - 1, LEVELS.index(level))
    e.rng(0, 31, 2)
    e.rng(1, 8, len(in_sizes))
    e.rng(0, 15, 0)
    e.rng(1, 11, dtype)
    e.ratio(1, 32, False)
    for s in in_sizes:
        enc_size(e, s)
    for dim, off, win, st, out in zip(in_sizes, offsets, windows, strides, out_sizes):
        e.ratio(15, 16, True)
        e.rng(0, dim - 1, off)
        e.rng(1, dim - off, win)
        if 1 <= st <= 4:
            e.rng(0, 15, 0)
            e.rng(1, 4, st)
        elif -4 <= st <= -1:
            e.rng(0, 15, 6)
            e.rng(1, 4, -st)
        else:
            e.rng(0, 15, 12)
            e.rng(0, len(EDGE_I32) - 1, EDGE_I32.index(st))
        mx = 1 + (win - 1) // abs(st)
        if out == mx:
            e.rng(0, 15, 0)
        else:
            e.rng(0, 15, 11)
            e.rng(1, mx, out)
    e.rng(0, 63, 63)
    enc_tensor(e, in_strides, in_sizes, flags=in_flags, alignment=in_align)
    enc_tensor(e, out_strides, out_sizes, alignment=out_align, extra_total=out_extra_total)
    for (a, b), v in zip([(0, 8), (0, 8), (0, 2), (0, 2), (0, 15)], extras):
        e.rng(a, b, v)
    return e.b


def slice1_seeds():
    t = "slice1_validate_then_run"
    f32 = 1
    # DirectML Slice1 examples 1 and 2 (1x1x4x4 input).
    write(t, "doc-slice1-ex1", slice1_seed(f32, [1, 1, 4, 4], [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, 2, 2], [1, 1, 2, 2]))
    write(t, "doc-slice1-ex2", slice1_seed(f32, [1, 1, 4, 4], [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 2], [1, 1, 2, 2]))
    # DirectML Slice (v0) examples as Slice1: windows (n-1)*stride+1.
    write(t, "doc-slice-ex1", slice1_seed(f32, [1, 1, 4, 4], [0, 0, 1, 2], [1, 1, 3, 2], [1, 1, 1, 1], [1, 1, 3, 2]))
    write(t, "doc-slice-ex2", slice1_seed(f32, [1, 1, 4, 4], [0, 0, 1, 0], [1, 1, 3, 4], [1, 1, 2, 3], [1, 1, 2, 2]))
    # Every element size, reversed rows, at the oldest level that has Slice1 with a rank-4 tensor.
    for dt in range(1, 12):
        level = 0x4100 if dt >= 9 else 0x2100
        write(t, f"dtype{dt}-reverse", slice1_seed(dt, [1, 2, 3, 4], [0, 0, 0, 0], [1, 2, 3, 4], [1, -1, 1, -1],
                                                    [1, 2, 3, 4], level=level, extras=(3, 1, 1, 2, 5)))
    # Broadcast input (stride 0), padded output, OWNED_BY_DML input, alignment guarantees.
    write(t, "broadcast-in", slice1_seed(f32, [3, 4], [0, 1], [3, 3], [1, 1], [3, 3], in_strides=[0, 1],
                                         in_flags=1, in_align=16, out_align=4))
    write(t, "padded-out", slice1_seed(5, [4, 4], [0, 0], [4, 4], [2, -1], [2, 4], out_strides=[8, 1],
                                       out_extra_total=7))
    # NHWC <-> NCHW: permuted strides on either side.
    write(t, "nhwc-in", slice1_seed(f32, [1, 3, 4, 5], [0, 0, 0, 0], [1, 3, 4, 5], [1, 1, 1, 1], [1, 3, 4, 5],
                                    in_strides=[60, 1, 15, 3]))
    write(t, "nhwc-out", slice1_seed(2, [1, 3, 4, 5], [0, 0, 0, 0], [1, 3, 4, 5], [1, -1, 1, 1], [1, 3, 4, 5],
                                     out_strides=[60, 1, 15, 3]))
    # Huge strides on size-1 dimensions: tiny tensors whose stride arithmetic reaches u32::MAX.
    write(t, "huge-stride-size1", slice1_seed(f32, [1, 4, 1], [0, 0, 0], [1, 4, 1], [-1, 1, (1 << 31) - 1],
                                              [1, 4, 1], in_strides=[(1 << 32) - 1, 1, (1 << 32) - 1],
                                              out_strides=[(1 << 32) - 1, 1, 65537]))
    # i32::MIN window stride over a window of 3: one element copied from the window's end.
    write(t, "stride-i32-min", slice1_seed(8, [5], [1], [3], [-(1 << 31)], [1]))
    # Rank 8, every dimension 2, alternating directions.
    write(t, "rank8", slice1_seed(4, [2] * 8, [0] * 8, [2] * 8, [1, -1] * 4, [2] * 8, extras=(1, 2, 2, 1, 9)))
    # A single element.
    write(t, "single", slice1_seed(5, [1], [0], [1], [1], [1]))


# --- frontends ----------------------------------------------------------------------------------------------------

TOKENS = ["0", "1", "2", "3", "-1", "-2", "5", "7", ":", ":", "::", ",", ",", " ", "...", "[", "]", "-", "None",
          "2147483648", "-9223372036854775809", "99999999999999999999999"]
EDGE_I64 = [-(1 << 63), -(1 << 63) + 1, -(1 << 31) - 1, -(1 << 31), -1, 0, 1, 1 << 31, (1 << 63) - 2, (1 << 63) - 1]
BYTE_SIZED = 11


def enc_text(e, pieces):
    """pieces: tokens from TOKENS or ints in [-100, 100]."""
    e.ratio(1, 4, False)
    e.rng(0, 24, len(pieces))
    for p in pieces:
        if isinstance(p, int):
            e.ratio(1, 16, True)
            e.rng(-100, 100, p)
        else:
            e.ratio(1, 16, False)
            e.rng(0, len(TOKENS) - 1, TOKENS.index(p))


def enc_small_i64(e, v):
    if -8 <= v <= 8:
        e.rng(0, 7, 0)
        e.rng(-8, 8, v)
    elif v in EDGE_I64:
        e.rng(0, 7, 5)
        e.rng(0, len(EDGE_I64) - 1, EDGE_I64.index(v))
    else:
        e.rng(0, 7, 6)
        e.i64(v)


def frontends_seed(shape, expr, starts, ends, axes, steps, lst, dtype_index=0):
    e = Enc()
    e.rng(0, 9, len(shape))
    for d in shape:
        assert 1 <= d <= 6
        e.rng(0, 15, 0)
        e.rng(1, 6, d)
    enc_text(e, expr)
    rank = len(shape)
    n = len(starts)
    e.ratio(7, 8, True)
    e.rng(0, rank, n)
    for v in starts:
        enc_small_i64(e, v)
    e.ratio(15, 16, True)
    for v in ends:
        enc_small_i64(e, v)
    if axes is None:
        e.ratio(1, 2, False)
    else:
        e.ratio(1, 2, True)
        for a in axes:
            e.ratio(7, 8, True)
            e.rng(-rank, max(rank, 1) - 1, a)
    if steps is None:
        e.ratio(1, 2, False)
    else:
        e.ratio(1, 2, True)
        for s in steps:
            if -3 <= s <= 3:
                e.rng(0, 7, 0)
                e.rng(-3, 3, s)
            else:
                e.rng(0, 7, 6)
                enc_small_i64(e, s)
    enc_text(e, lst)
    e.rng(0, BYTE_SIZED - 1, dtype_index)
    return e.b


def frontends_seeds():
    t = "frontends"
    imax, imin = (1 << 63) - 1, -(1 << 63)
    # NumPy "1:3, ::-1" on 4x5 (the module example); ONNX test_slice_neg_steps-like on 5x4x3 (small shape).
    write(t, "numpy-doc", frontends_seed([4, 5, 3], [1, ":", 3, ",", " ", "::", -1], [3, 4, 2], [0, 0, 1], [0, 1, 2],
                                         [-1, -3, -2], ["[", 1, ",", 2, "]"]))
    # a[7:2:-2], "-1, ..., ::3", an out-of-range index, the INT64 sentinels.
    write(t, "numpy-neg-step", frontends_seed([6], [5, ":", 2, ":", -2], [imax], [imin], None, [-1],
                                              [-1, ",", 0, ",", "2147483648"]))
    write(t, "numpy-ellipsis", frontends_seed([2, 3, 4], [-1, ",", "...", ",", "::", 3], [0, 0], [1, 1], [1, -2],
                                              None, ["-9223372036854775809"]))
    write(t, "numpy-out-of-range", frontends_seed([2, 3], [1, ",", 3], [100], [100], [1], [1], [1, ",", ",", 2]))
    write(t, "onnx-empty", frontends_seed([5, 4, 3], ["None", ":", "None", ":", -1], [4], [4], [1], [1],
                                          ["99999999999999999999999"]))
    write(t, "onnx-neg-clamp", frontends_seed([5], ["[", "]"], [-10], [-20], None, [-1], ["[", "]"]))


# --- npy_read -----------------------------------------------------------------------------------------------------

def npy_seeds():
    import numpy as np

    t = "npy_read"
    types = ["<f4", "<f2", "<u4", "<u2", "|u1", "<i4", "<i2", "|i1", "<f8", "<u8", "<i8", ">f4", ">i2", ">u8", "|b1"]
    for i, dt in enumerate(types):
        a = (np.arange(6) % 3).astype(dt).reshape(2, 3)
        buf = io.BytesIO()
        np.lib.format.write_array(buf, a, version=(1, 0))
        write(t, f"v1-{dt.replace('<', 'le').replace('>', 'be').replace('|', '')}", buf.getvalue())
    for version in [(1, 0), (2, 0), (3, 0)]:
        for order in ["C", "F"]:
            a = np.asarray(np.arange(24, dtype="<i2").reshape(2, 3, 4), order=order)
            buf = io.BytesIO()
            np.lib.format.write_array(buf, a, version=version)
            write(t, f"v{version[0]}-{order}", buf.getvalue())
    for name, a in [("scalar", np.array(7, dtype="<f8")), ("empty", np.zeros((0, 3), dtype="<u4")),
                    ("1d", np.arange(5, dtype="<u1"))]:
        buf = io.BytesIO()
        np.lib.format.write_array(buf, a, version=(1, 0))
        write(t, name, buf.getvalue())
    # A truncated file and a header that lies about its length.
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.arange(4, dtype="<f4"), version=(1, 0))
    data = buf.getvalue()
    write(t, "truncated", data[:-3])
    write(t, "bad-header-len", data[:8] + b"\xff\xff" + data[10:])


if __name__ == "__main__":
    slice1_seeds()
    frontends_seeds()
    npy_seeds()
