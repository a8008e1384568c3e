"""Property tests against NumPy: every dtype, ranks 1-8, views with negative, zero and padded strides, `out=` layouts."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import stridekit
from conftest import DTYPES, filled, slice1_reference

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def shapes(draw, min_rank=1, max_rank=8, max_elements=4096):
    rank = draw(st.integers(min_rank, max_rank))
    shape = []
    budget = max_elements
    for _ in range(rank):
        n = draw(st.integers(1, max(1, min(6, budget))))
        budget //= n
        shape.append(n)
    return tuple(shape)


@st.composite
def views(draw, allow_empty=False):
    """An array of a random dtype seen through a view: steps (padding), reversals, a transpose, a broadcast axis,
    or an unaligned byte view."""
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(shapes())
    kind = draw(st.sampled_from(["plain", "steps", "transpose", "broadcast", "fortran", "unaligned"]))
    if kind == "plain":
        return filled(shape, dtype)
    if kind == "fortran":
        return np.asfortranarray(filled(shape, dtype))
    if kind == "steps":
        steps = [draw(st.sampled_from([1, 2, 3, -1, -2])) for _ in shape]
        base = filled(tuple(n * abs(s) for n, s in zip(shape, steps)), dtype)
        return base[tuple(slice(None, None, s) for s in steps)]
    if kind == "transpose":
        perm = draw(st.permutations(range(len(shape))))
        return filled(shape, dtype).transpose(perm)
    if kind == "broadcast":
        axis = draw(st.integers(0, len(shape) - 1))
        small = list(shape)
        small[axis] = 1
        return np.broadcast_to(filled(tuple(small), dtype), shape)
    # Byte strides that are not multiples of the item size: a field of a packed record array.
    if np.dtype(dtype).itemsize == 1:
        return filled(shape, dtype)
    rec = np.zeros(shape, dtype=[("pad", "u1"), ("x", dtype)])
    rec["x"] = filled(shape, dtype)
    return rec["x"]


@st.composite
def keys(draw, rank):
    """A NumPy basic index for an array of rank `rank`: slices, ints, at most one `...`, some `None`."""
    n_items = draw(st.integers(0, rank))
    items = []
    for _ in range(n_items):
        if draw(st.booleans()):
            start = draw(st.none() | st.integers(-8, 8))
            stop = draw(st.none() | st.integers(-8, 8))
            step = draw(st.none() | st.sampled_from([1, 2, 3, -1, -2, -3, 100, -100]))
            items.append(slice(start, stop, step))
        else:
            items.append(draw(st.integers(-1, 0)))
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return tuple(items)


@SETTINGS
@given(st.data())
def test_index_equals_numpy(data):
    a = data.draw(views())
    key = data.draw(keys(a.ndim))
    want = np.ascontiguousarray(a[key])
    got = stridekit.index(a, key)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    assert got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)


@st.composite
def out_layouts(draw, shape, dtype):
    """A writeable non-overlapping `out` of `shape` and the base array whose other bytes must stay untouched."""
    kind = draw(st.sampled_from(["c", "f", "reversed", "padded", "transposed"]))
    if kind == "c":
        base = np.full(shape, 99, dtype)
        return base, base
    if kind == "f":
        base = np.asfortranarray(np.full(shape, 99, dtype))
        return base, base
    if kind == "reversed":
        base = np.full(shape, 99, dtype)
        return base, base[tuple(slice(None, None, -1) for _ in shape)]
    if kind == "padded":
        base = np.full(tuple(n * 2 for n in shape), 99, dtype)
        return base, base[tuple(slice(None, None, 2) for _ in shape)]
    perm = draw(st.permutations(range(len(shape))))
    base = np.full(tuple(shape[p] for p in perm), 99, dtype)
    return base, base.transpose(np.argsort(perm))


@SETTINGS
@given(st.data())
def test_index_out_layouts(data):
    a = data.draw(views())
    key = data.draw(keys(a.ndim))
    want = np.ascontiguousarray(a[key])
    if want.size == 0:
        return
    base, out = data.draw(out_layouts(want.shape, a.dtype))
    before = base.copy(order="K")
    result = stridekit.index(a, key, out=out)
    assert result is out
    np.testing.assert_array_equal(out, want)
    # Bytes of the buffer outside out's elements are never written: blank out's elements in both and compare.
    after = base.copy(order="K")
    _same_view(after, base, out)[...] = 0
    expected = before
    _same_view(expected, base, out)[...] = 0
    np.testing.assert_array_equal(after, expected)


def _same_view(array, base, view):
    """`view` is a view of `base`; the same view of `array` (same shape, dtype and strides as `base`)."""
    offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return np.ndarray(view.shape, view.dtype, buffer=array, offset=offset, strides=view.strides)


@st.composite
def slice1_cases(draw):
    shape = draw(shapes())
    offsets, sizes, strides, outs = [], [], [], []
    for n in shape:
        o = draw(st.integers(0, n - 1))
        s = draw(st.integers(1, n - o))
        t = draw(st.sampled_from([1, 2, 3, -1, -2, -3, 7, -7]))
        m = 1 + (s - 1) // abs(t)
        offsets.append(o)
        sizes.append(s)
        strides.append(t)
        outs.append(draw(st.integers(1, m)))
    return shape, offsets, sizes, strides, outs


@SETTINGS
@given(st.data())
def test_slice1_equals_reference(data):
    shape, offsets, sizes, strides, outs = data.draw(slice1_cases())
    dtype = data.draw(st.sampled_from(DTYPES))
    a = filled(shape, dtype)
    flips = tuple(slice(None, None, data.draw(st.sampled_from([1, -1]))) for _ in shape)
    view = np.ascontiguousarray(a[flips])[flips]  # a reversed-memory view with a's logical values
    want = slice1_reference(a, offsets, sizes, strides, outs)
    got = stridekit.slice1(view, offsets, sizes, strides, output_sizes=outs)
    np.testing.assert_array_equal(got, want)
    if all(t > 0 for t in strides):
        v0 = stridekit.slice(view, offsets, outs, strides)
        np.testing.assert_array_equal(v0, want)


@pytest.mark.parametrize("rank", range(1, 9))
def test_every_dtype_every_rank(dtype, rank):
    shape = (3, 2, 2, 1, 2, 3, 2, 2)[:rank]
    a = filled(shape, dtype)
    key = tuple(slice(None, None, -1) if d % 2 == 0 else slice(1, None) for d in range(rank))
    np.testing.assert_array_equal(stridekit.index(a, key), np.ascontiguousarray(a[key]))
    reversed_view = a[key]
    np.testing.assert_array_equal(stridekit.index(reversed_view, ()), np.ascontiguousarray(reversed_view))
