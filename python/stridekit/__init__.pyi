"""Type stubs for stridekit (the extension module `stridekit._stridekit`, re-exported here)."""

from typing import Any, Literal, Optional, Sequence, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

_A = TypeVar("_A", bound=np.ndarray)
_Key = Union[int, slice, "ellipsis", None, Tuple[Union[int, slice, "ellipsis", None], ...], str]
_DType = Union[str, npt.DTypeLike]

SUPPORTED_DTYPES: list[str]
"""The 11 NumPy dtypes an array may have: float16/32/64, int8/16/32/64, uint8/16/32/64."""

class RuleError(ValueError):
    """A description breaks a rule of the specification; the message is the command line's (`error[R-S1-5]: ...`).

    >>> try:
    ...     stridekit.slice1(np.zeros(4), [0], [4], [0])
    ... except stridekit.RuleError as e:
    ...     print(e.rule)
    R-S1-4
    """

    rule: str
    """The rule id: "R-S1-5", "R-BT-3", "D1", ..., or "numpy" for the index front end's own errors."""

def slice1(
    a: npt.ArrayLike,
    offsets: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
    *,
    output_sizes: Optional[Sequence[int]] = None,
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
) -> np.ndarray:
    """DML_SLICE1 on the array's logical view: `Output[o] = a[CopyStart + o * strides]`, where CopyStart is the window
    offset, plus `size - 1` where the stride is negative. One entry per dimension of `a` (rank 1..8). `output_sizes`
    defaults to the most elements the window holds at that stride (`1 + (size - 1) // abs(stride)`). Empty windows
    raise `RuleError` as DirectML does (D11). Returns a new C-ordered array, or `out` written in place (`out` may
    interleave with `a`, e.g. `out=big[::2]` for `a=big[1::2]`, but not share an element with it).

    >>> a = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> stridekit.slice1(a, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 2]).ravel()
    array([14., 16.,  6.,  8.], dtype=float32)
    """

def slice(
    a: npt.ArrayLike,
    offsets: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
    *,
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
) -> np.ndarray:
    """DML_SLICE (version 0): `sizes` are the output's sizes, `strides` >= 1; reads `a[offsets + o * strides]`.

    >>> a = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> stridekit.slice(a, [0, 0, 0, 1], [1, 1, 2, 2], [1, 1, 2, 2]).ravel()
    array([ 2.,  4., 10., 12.], dtype=float32)
    """

def index(a: npt.ArrayLike, key: _Key, *, out: Optional[np.ndarray] = None, threads: Optional[int] = None) -> np.ndarray:
    """`numpy.ascontiguousarray(a[key])` for a NumPy basic index (ints, slices with any step, `...`, `None`), given as
    a key (`numpy.s_[1:3, ::-1]`) or as the command line's `--numpy` text (`"1:3, ::-1"`). Same shape, dtype and
    values as NumPy; fancy indexing raises `IndexError`; an empty selection gives an empty array (D11).

    >>> a = np.arange(12).reshape(3, 4)
    >>> stridekit.index(a, np.s_[1:, ::-2])
    array([[ 7,  5],
           [11,  9]])
    """

def calc_buffer_tensor_size(dtype: _DType, sizes: Sequence[int], strides: Optional[Sequence[int]] = None) -> int:
    """The exact minimum buffer size in bytes of a DirectML buffer tensor (DMLCalcBufferTensorSize without its
    32-bit wrap). `dtype`: a NumPy dtype or a name such as "float32", "FLOAT16", "uint4".

    >>> stridekit.calc_buffer_tensor_size("float32", [2, 3], [5, 1])
    32
    """

def dmlx_calc_buffer_tensor_size(dtype: _DType, sizes: Sequence[int], strides: Optional[Sequence[int]] = None) -> int:
    """DirectMLX's DMLCalcBufferTensorSize bit for bit, its 32-bit wrap included (for parity checks only).

    >>> stridekit.dmlx_calc_buffer_tensor_size("float32", [65537, 65537], [65536, 1])
    262148
    """

class Layout:
    """A validated and explained buffer-tensor description (what `explain` returns): the figures of
    `stridekit explain --json` as attributes, the text report as `str()`, an HTML table in notebooks."""

    data_type: str
    element_size_bits: int
    sizes: list[int]
    strides: Optional[list[int]]
    strides_given: bool
    total_tensor_size_in_bytes: int
    guaranteed_base_offset_alignment: int
    flags: int
    feature_level: str
    logical_element_count: Optional[int]
    physical_element_extent: Optional[int]
    min_buffer_size_bytes: Optional[int]
    dmlx_buffer_size_bytes: int
    dmlx_warning: Optional[str]
    packed: Optional[bool]
    broadcast: Optional[bool]
    broadcast_dims: Optional[list[int]]
    padded: Optional[bool]
    padding_bytes: Optional[int]
    overlapping: Optional[bool]
    properties: list[str]
    valid: bool
    errors: list[dict[str, str]]
    logical_view: Optional[str]
    buffer_view: Optional[str]
    def check(self) -> None:
        """Raises the `RuleError` of the first broken rule, if any."""
    def _repr_html_(self) -> str: ...

def explain(
    dtype: _DType,
    sizes: Sequence[int],
    strides: Optional[Sequence[int]] = None,
    *,
    layout: Optional[str] = None,
    total_tensor_size_in_bytes: Optional[int] = None,
    alignment: int = 0,
    flags: Union[int, str, None] = None,
    as_output: bool = False,
    feature_level: Optional[str] = None,
    values: Literal["labels", "offsets"] = "labels",
) -> Layout:
    """Validates and explains a description, like `stridekit explain`. `layout` gives strides from a label ("NHWC");
    `flags` is 0, 1, "none" or "owned_by_dml"; `feature_level` such as "4_1"; `values` picks what the pictures show.

    >>> layout = stridekit.explain("float32", [2, 3], [5, 1])
    >>> layout.physical_element_extent, layout.padded
    (8, True)
    """
