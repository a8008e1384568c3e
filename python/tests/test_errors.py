"""Every error path: rule errors with the command line's messages, NumPy's exception types, dtypes, `out=`."""

import numpy as np
import pytest

import stridekit
from stridekit import RuleError

A = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)


def rule_of(excinfo):
    assert str(excinfo.value).startswith(f"error[{excinfo.value.rule}]:"), str(excinfo.value)
    return excinfo.value.rule


def test_rule_error_is_a_value_error():
    assert issubclass(RuleError, ValueError)
    assert RuleError.__module__ == "stridekit"


@pytest.mark.parametrize(
    "args, kwargs, rule, text",
    [
        (([0, 0, 0], [1, 1, 4], [1, 1, 1]), {}, "R-S1-1", "InputWindowOffsets has 3 entries"),
        (([0, 0, 0, 0], [1, 1, 4, 0], [1, 1, 1, 1]), {}, "R-S1-3", None),
        (([0, 0, 0, 0], [1, 1, 4, 4], [1, 1, 1, 0]), {}, "R-S1-4", "InputWindowStrides[3] is 0"),
        (([0, 0, 0, 2], [1, 1, 4, 4], [1, 1, 1, 1]), {}, "R-S1-2", None),
        (([0, 0, 0, 0], [1, 1, 4, 4], [1, 1, 2, 1]), {"output_sizes": [1, 1, 3, 4]}, "R-S1-5", None),
        (([0, 0, 0, 0], [1, 1, 4, 4], [1, 1, 1, 1]), {"output_sizes": [1, 1, 4, 0]}, "R-BT-3", None),
    ],
)
def test_slice1_rules(args, kwargs, rule, text):
    with pytest.raises(RuleError) as e:
        stridekit.slice1(A, *args, **kwargs)
    assert rule_of(e) == rule
    if text:
        assert text in str(e.value)


def test_slice1_rules_on_reversed_views_name_the_callers_numbers():
    view = A[..., ::-1, ::-1]
    with pytest.raises(RuleError) as e:
        stridekit.slice1(view, [0, 0, 0, 2], [1, 1, 4, 4], [1, 1, 1, 1])
    assert rule_of(e) == "R-S1-2"
    assert "InputWindowOffsets[3] + InputWindowSizes[3] = 2 + 4 = 6" in str(e.value)


def test_slice_v0_rules():
    with pytest.raises(RuleError) as e:
        stridekit.slice(A, [0, 0, 0, 0], [1, 1, 4, 4], [1, 1, 0, 1])
    assert rule_of(e) == "D3"
    with pytest.raises(RuleError) as e:
        stridekit.slice(A, [0, 0, 0, 1], [1, 1, 4, 4], [1, 1, 1, 1])
    assert rule_of(e) == "R-S0-3"


def test_empty_windows_are_rejected_by_slice1_but_not_by_index():
    # D11: slice1/slice reject empty windows as DirectML does; index follows NumPy.
    with pytest.raises(RuleError):
        stridekit.slice1(A, [0, 0, 0, 0], [1, 1, 0, 4], [1, 1, 1, 1])
    assert stridekit.index(A, np.s_[..., 2:2]).shape == (1, 1, 4, 0)
    empty = np.zeros((0, 3), np.float32)
    assert stridekit.index(empty, ...).shape == (0, 3)
    with pytest.raises(RuleError) as e:
        stridekit.slice1(empty, [0, 0], [1, 3], [1, 1])
    assert rule_of(e) == "R-BT-3"


def test_empty_results_still_check_the_rank():
    nine = np.zeros((1,) * 8 + (2,), np.float32)
    with pytest.raises(RuleError) as e:
        stridekit.index(nine, np.s_[..., 1:1])
    assert rule_of(e) == "R-BT-2"
    with pytest.raises(RuleError) as e:
        stridekit.index(nine, ())
    assert rule_of(e) in ("R-BT-2", "R-S1-1")
    with pytest.raises(RuleError):
        stridekit.index(np.float32(3) * np.ones(()), ())


def test_wrong_dtypes_are_type_errors_naming_the_11():
    for bad in [np.zeros(4, np.complex64), np.zeros(4, bool), np.zeros(4, "U3"), np.zeros(4, object)]:
        with pytest.raises(TypeError) as e:
            stridekit.index(bad, ())
        for name in stridekit.SUPPORTED_DTYPES:
            assert name in str(e.value)
    assert len(stridekit.SUPPORTED_DTYPES) == 11
    with pytest.raises(TypeError):
        stridekit.slice1(np.zeros(4, np.complex128), [0], [4], [1])
    with pytest.raises(TypeError):
        stridekit.calc_buffer_tensor_size("complex64", [2])


@pytest.mark.parametrize(
    "key, exc, text",
    [
        ([1, 2], IndexError, "fancy"),
        (np.array([0, 1]), IndexError, "fancy"),
        (np.array([True, False, True, False]), IndexError, "boolean"),
        ((0, 0, 0, 0, 0), IndexError, "too many indices"),
        ((0, 0, 5), IndexError, "out of bounds"),
        ((Ellipsis, 0, Ellipsis), IndexError, "single ellipsis"),
        (np.s_[::0], ValueError, "step cannot be zero"),
        (1.5, IndexError, None),
        (2**70, IndexError, None),
    ],
)
def test_index_errors_match_numpy_types(key, exc, text):
    with pytest.raises(exc) as e:
        stridekit.index(A, key)
    with pytest.raises(exc):
        A[key]
    if text:
        assert text in str(e.value)


def test_index_text_errors_are_rule_errors():
    with pytest.raises(RuleError) as e:
        stridekit.index(A, "1:3:4:5")
    assert e.value.rule == "numpy"
    assert str(e.value).startswith("error[numpy]: item 1 ('1:3:4:5') has 3 colons")
    with pytest.raises(RuleError):
        stridekit.index(A, "None, 1")


def test_huge_slice_bounds_clamp_like_python():
    a = np.arange(10)
    for key in [np.s_[-(2**70) : 2**70], np.s_[2**70 :: -1], np.s_[:: 2**40]]:
        np.testing.assert_array_equal(stridekit.index(a, key), a[key])


def test_out_errors():
    with pytest.raises(TypeError):
        stridekit.index(A, (), out=np.zeros(A.shape, np.float64))
    with pytest.raises(ValueError, match="shape"):
        stridekit.index(A, (), out=np.zeros((4, 4), np.float32))
    readonly = np.zeros(A.shape, np.float32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        stridekit.index(A, (), out=readonly)
    with pytest.raises(TypeError):
        stridekit.index(A, (), out=[0] * 16)


def test_self_overlapping_out_is_d1():
    out = np.broadcast_to(np.zeros(4, np.float32), (1, 1, 4, 4))
    out = np.lib.stride_tricks.as_strided(np.zeros(8, np.float32), (1, 1, 4, 4), (0, 0, 4, 4))
    with pytest.raises(RuleError) as e:
        stridekit.index(A, (), out=out)
    assert rule_of(e) == "D1"
    assert "OutputTensor.Strides" in str(e.value)


def test_out_sharing_memory_with_the_input_raises():
    a = np.arange(32, dtype=np.float32)
    with pytest.raises(ValueError, match="shares memory"):
        stridekit.index(a[:16], (), out=a[8:24])
    with pytest.raises(ValueError, match="shares memory"):
        stridekit.slice1(a, [0], [16], [2], out=a[::4])
    before = a.copy()
    stridekit.index(a[:16], np.s_[::-1], out=a[16:])  # disjoint halves are fine
    np.testing.assert_array_equal(a[16:], before[:16][::-1])
    # Interleaved with the input: the byte ranges intersect, the elements do not (as numpy.shares_memory says).
    big = np.arange(64, dtype=np.int32)
    odd = big[1::2].copy()
    got = stridekit.slice1(big[1::2], [0], [32], [-1], out=big[::2])
    assert got.base is big
    np.testing.assert_array_equal(big[::2], odd[::-1])
    np.testing.assert_array_equal(big[1::2], odd)  # the input, between the output's elements, is untouched
    grid = np.arange(8 * 8, dtype=np.float64).reshape(8, 8)
    before = grid.copy()
    stridekit.index(grid[:, 1::2], np.s_[::-1], out=grid[:, ::2])
    np.testing.assert_array_equal(grid[:, ::2], before[:, 1::2][::-1])
    np.testing.assert_array_equal(grid[:, 1::2], before[:, 1::2])
    # Interleaved views that do share elements still raise.
    with pytest.raises(ValueError, match="shares memory"):
        stridekit.slice1(big[1::2], [0], [32], [1], out=big[2:34])
    with pytest.raises(ValueError, match="shares memory"):
        stridekit.index(grid[:, 1::2], (), out=grid[:, 1::2])


def test_threads_must_be_positive():
    with pytest.raises(ValueError, match="threads"):
        stridekit.index(A, (), threads=0)
    np.testing.assert_array_equal(stridekit.index(A, (), threads=1), A)


def test_bad_parameter_types():
    with pytest.raises(OverflowError):
        stridekit.slice1(A, [0, 0, 0, -1], [1, 1, 4, 4], [1, 1, 1, 1])
    with pytest.raises(TypeError):
        stridekit.slice1(A, "0,0,0,0", [1, 1, 4, 4], [1, 1, 1, 1])


def test_empty_results_check_out_but_not_numpys_strides_of_empty_arrays():
    # D11: an empty result still checks `out` (dtype, shape, writeable) and the stand-in's rules; NumPy's strides
    # of arrays without elements are arbitrary (here 0), so they are not taken as an overlapping layout.
    b = np.zeros((5, 6, 7), np.int16)
    with pytest.raises(TypeError):
        stridekit.index(b, np.s_[2:2], out=np.zeros((0, 6, 7), np.int32))
    with pytest.raises(ValueError, match="shape"):
        stridekit.index(b, np.s_[2:2], out=np.zeros((0, 6, 6), np.int16))
    fine = np.zeros((6, 7, 0), np.int16).transpose(2, 0, 1)
    assert stridekit.index(b, np.s_[2:2], out=fine) is fine
