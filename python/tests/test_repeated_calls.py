"""Repeated calls: `stridekit.index` remembers, per (dtype, shape, byte strides, key, threads), everything before the
copy. A remembered call must still read *this* array's memory and give *its* dtype."""

import numpy as np
import pytest

import stridekit
from conftest import filled


@pytest.mark.parametrize("key", [np.s_[:, :, 3:0:-2, 1::2], np.s_[..., ::-1], np.s_[0, None, :, 1], "[:, :, ::-1, 2:]"])
def test_same_layout_other_memory(key):
    shape = (2, 3, 4, 5)
    for i in range(4):
        a = filled(shape, np.float32) + np.float32(i * 1000)
        for view in (a, a[::-1], np.asfortranarray(a), np.asfortranarray(a)[:, ::-1]):
            want = view[:, :, ::-1, 2:] if isinstance(key, str) else view[key]
            np.testing.assert_array_equal(stridekit.index(view, key), np.ascontiguousarray(want))


def test_same_layout_other_byte_order():
    # '<f4' and '>f4' share a DirectML type (and so a remembered operator); each result keeps its own dtype.
    little = np.arange(24, dtype="<f4").reshape(4, 6)
    big = little.astype(">f4")
    for a in (little, big, little, big):
        got = stridekit.index(a, np.s_[::-1, 1::2])
        assert got.dtype == a.dtype
        np.testing.assert_array_equal(got, np.ascontiguousarray(a[::-1, 1::2]))


def test_remembered_key_then_out_then_errors():
    a = filled((8, 8), np.int16)
    key = np.s_[1:7:2, ::-3]
    want = np.ascontiguousarray(a[key])
    for _ in range(3):
        np.testing.assert_array_equal(stridekit.index(a, key), want)
        out = np.zeros(want.shape, a.dtype)
        assert stridekit.index(a, key, out=out) is out
        np.testing.assert_array_equal(out, want)
    # A remembered layout with another shape is another entry, and errors are never remembered.
    for _ in range(2):
        with pytest.raises(IndexError):
            stridekit.index(a[:, :1], np.s_[0, 5])
    np.testing.assert_array_equal(stridekit.index(a[:1], key[1:]), np.ascontiguousarray(a[:1][key[1:]]))


def test_many_layouts_overflow_the_table():
    # More layouts than the table holds (it is emptied when full): every result is still right.
    a = filled((40, 40), np.uint8)
    for n in range(1, 300):
        key = np.s_[n % 40 :: 1 + n % 3, ::-(1 + n // 40)]
        np.testing.assert_array_equal(stridekit.index(a, key), np.ascontiguousarray(a[key]))
