"""Shared helpers: the 11 dtypes, value fill, and the DirectML Slice1 reference written from the pseudocode."""

import numpy as np
import pytest

DTYPES = [
    np.float16, np.float32, np.float64,
    np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64,
]


def filled(shape, dtype, seed=0):
    """Distinct-ish values of `dtype` (every element differs within the first 127 for 8-bit types)."""
    n = int(np.prod(shape, dtype=np.int64))
    values = (np.arange(n, dtype=np.int64) * 7 + seed) % 127 + 1
    return values.astype(dtype).reshape(shape)


def slice1_reference(a, offsets, sizes, strides, output_sizes):
    """DML_SLICE1: Output[o] = Input[CopyStart + o * strides], CopyStart = offset (+ size - 1 when stride < 0)."""
    idx = []
    for o, s, t, n in zip(offsets, sizes, strides, output_sizes):
        start = o + s - 1 if t < 0 else o
        idx.append(start + t * np.arange(n))
    return np.ascontiguousarray(a[np.ix_(*idx)]) if idx else a.copy()


@pytest.fixture(params=DTYPES, ids=lambda d: np.dtype(d).name)
def dtype(request):
    return request.param
