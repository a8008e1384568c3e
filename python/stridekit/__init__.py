"""stridekit: DirectML's strided buffer tensors and its Slice/Slice1 operators on NumPy arrays.

DirectML's exact rules and messages, and copies several times faster than NumPy's, with no file round trip::

    >>> import numpy as np, stridekit
    >>> a = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> stridekit.slice1(a, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 2]).ravel()
    array([14., 16.,  6.,  8.], dtype=float32)
    >>> stridekit.index(a, np.s_[..., 1:3, ::-1]).shape
    (1, 1, 2, 4)

Inputs are read in place whatever their layout (C or Fortran order, views, negative or zero strides): the array's
memory is described as a DirectML buffer tensor, never copied (except when a stride is not a multiple of the item size).
The copy runs with the GIL released.
"""

from __future__ import annotations

from ._stridekit import (
    SUPPORTED_DTYPES,
    Layout,
    RuleError,
    calc_buffer_tensor_size,
    dmlx_calc_buffer_tensor_size,
    explain,
    index,
    slice,
    slice1,
)

__all__ = [
    "SUPPORTED_DTYPES",
    "Layout",
    "RuleError",
    "calc_buffer_tensor_size",
    "dmlx_calc_buffer_tensor_size",
    "explain",
    "index",
    "slice",
    "slice1",
]

RuleError.__module__ = "stridekit"
RuleError.rule = None  # set on every raised instance; the class attribute documents it

