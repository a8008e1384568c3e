"""`explain`, `calc_buffer_tensor_size`: the figures of `stridekit explain --json`, the text, HTML, and errors."""

import numpy as np
import pytest

import stridekit
from stridekit import RuleError

FIELDS = [
    "data_type", "element_size_bits", "sizes", "strides", "strides_given", "total_tensor_size_in_bytes",
    "guaranteed_base_offset_alignment", "flags", "feature_level", "logical_element_count", "physical_element_extent",
    "min_buffer_size_bytes", "dmlx_buffer_size_bytes", "packed", "broadcast", "broadcast_dims", "padded",
    "padding_bytes", "overlapping", "valid", "errors",
]


def test_nhwc_figures_match_the_cli_json():
    # The values of crates/stridekit-cli/tests/golden/explain_nhwc.json.
    layout = stridekit.explain("<f4", [1, 1, 3, 5], layout="NHWC")
    for field in FIELDS:
        assert hasattr(layout, field), field
    assert layout.data_type == "FLOAT32"
    assert layout.element_size_bits == 32
    assert layout.strides == [15, 1, 5, 1]
    assert layout.strides_given
    assert layout.logical_element_count == 15
    assert layout.min_buffer_size_bytes == 60
    assert layout.valid and layout.errors == []


def test_text_is_the_cli_report():
    text = str(stridekit.explain("float32", [2, 3], [0, 1]))
    assert text.splitlines()[2] == "Strides:                {0, 1} (given)"
    assert "broadcast along dimension {0} (stride 0)" in text
    assert "Buffer view (offset -> element, x = padding):" in text


def test_offsets_pictures_and_html():
    layout = stridekit.explain(np.float32, [2, 3], [5, 1], values="offsets")
    assert layout.logical_view == "0 1 2\n5 6 7\n"
    html = layout._repr_html_()
    assert html.startswith("<table>") and "Physical extent" in html and "<pre>" in html
    assert "valid" in repr(layout)


def test_invalid_descriptions_report_what_they_can():
    layout = stridekit.explain("float32", [2, 3], [5, 1], total_tensor_size_in_bytes=24)
    assert not layout.valid
    assert layout.errors[0]["rule"] == "R-BT-5"
    assert layout.min_buffer_size_bytes == 32 and layout.physical_element_extent == 8 and layout.padded
    with pytest.raises(RuleError) as e:
        layout.check()
    assert e.value.rule == "R-BT-5"
    huge = stridekit.explain("float32", [4294967295] * 3)
    assert huge.logical_element_count is None and huge.min_buffer_size_bytes is None
    assert huge.errors[0]["rule"] == "R-BT-6"


def test_issue_9_messages():
    # Eight sizes of 4294967295: the strides line, the error and the DMLX warning agree on 64 bits.
    layout = stridekit.explain("float32", [4294967295] * 8)
    text = str(layout)
    assert "overflows 64-bit arithmetic" in text and "64-bit" in layout.errors[0]["message"]
    assert "32-bit index" not in text
    assert "32-bit index" in layout_warning(stridekit.explain("float32", [65537, 65537], [65536, 1]))
    # Strides of 4294967295: the logical count's overflow names no stride it never read ("stride 0" before).
    message = stridekit.explain("float32", [4294967295] * 3, [4294967295] * 3).errors[0]["message"]
    assert message.endswith("the logical element count overflows 64-bit arithmetic at dimension 2 (size 4294967295)")


def layout_warning(layout):
    return layout.dmlx_warning or ""


def test_output_role_and_options():
    assert stridekit.explain("float32", [2, 3], [0, 1], as_output=True).errors[0]["rule"] == "D1"
    assert stridekit.explain("float32", [2], flags="owned_by_dml").flags == 1
    with pytest.raises(RuleError) as e:
        stridekit.explain("float32", [2], flags=4)
    assert e.value.rule == "R-BT-9"
    assert stridekit.explain("float64", [2], feature_level="2_1").errors[0]["rule"] == "R-BT-1"
    assert stridekit.explain("uint4", [5]).min_buffer_size_bytes == 4
    with pytest.raises(ValueError):
        stridekit.explain("float32", [2, 3], [3, 1], layout="HW")


def test_calc_buffer_tensor_size():
    assert stridekit.calc_buffer_tensor_size("float32", [2, 3], [5, 1]) == 32
    assert stridekit.calc_buffer_tensor_size(np.uint8, [1]) == 4
    assert stridekit.calc_buffer_tensor_size(np.dtype("f2"), [3]) == 8
    assert stridekit.calc_buffer_tensor_size("float32", [65537, 65537], [65536, 1]) == 17180131332
    assert stridekit.dmlx_calc_buffer_tensor_size("float32", [65537, 65537], [65536, 1]) == 262148
    with pytest.raises(RuleError) as e:
        stridekit.calc_buffer_tensor_size("float32", [2, 0])
    assert e.value.rule == "R-BT-3"
    assert str(e.value) == "error[R-BT-3]: Sizes[1] is 0; every size must be >= 1 (DirectML cannot express empty tensors)"
    with pytest.raises(TypeError):
        stridekit.calc_buffer_tensor_size("no such type", [2])
