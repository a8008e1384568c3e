"""The examples of DirectML's DML_SLICE1_OPERATOR_DESC and DML_SLICE_OPERATOR_DESC pages."""

import numpy as np
import pytest

import stridekit


@pytest.fixture
def doc_input():
    return np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)


def test_slice1_example_1(doc_input):
    out = stridekit.slice1(doc_input, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, 2, 1])
    assert out.shape == (1, 1, 2, 3)
    assert out.ravel().tolist() == [2, 3, 4, 10, 11, 12]


def test_slice1_example_2_negative_stride(doc_input):
    out = stridekit.slice1(doc_input, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 1])
    assert out.ravel().tolist() == [14, 15, 16, 6, 7, 8]


def test_readme_example(doc_input):
    out = stridekit.slice1(doc_input, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 2])
    assert out.ravel().tolist() == [14, 16, 6, 8]
    assert str(out.ravel()) == "[14. 16.  6.  8.]"


def test_slice_v0_example(doc_input):
    # DML_SLICE: Offsets {0,0,0,1}, Sizes (the output's) {1,1,2,2}, Strides {1,1,2,2}.
    out = stridekit.slice(doc_input, [0, 0, 0, 1], [1, 1, 2, 2], [1, 1, 2, 2])
    assert out.shape == (1, 1, 2, 2)
    assert out.ravel().tolist() == [2, 4, 10, 12]


def test_explicit_output_sizes(doc_input):
    out = stridekit.slice1(doc_input, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, 2, 1], output_sizes=[1, 1, 1, 2])
    assert out.ravel().tolist() == [2, 3]


def test_strides_page_padded_example():
    layout = stridekit.explain("float32", [2, 3], [5, 1])
    assert layout.valid
    assert layout.physical_element_extent == 8
    assert layout.min_buffer_size_bytes == 32
    assert layout.buffer_view.splitlines()[1] == "Value:  | A | B | C | x | x | D | E | F |"
