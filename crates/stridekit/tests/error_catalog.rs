//! docs/ERRORS.md is generated from this file: for every SPEC.md rule id stridekit enforces, what it checks, the
//! message the code produces today (by running a real validation) and the test that proves it. The test fails when
//! the document, the messages, the referenced tests or SPEC.md's rule list drift apart; `UPDATE_GOLDEN=1` rewrites
//! the document.

use std::path::{Path, PathBuf};
use stridekit::{
    BufferTensorDesc, DataType, FeatureLevel, Slice1Desc, SliceDesc, TensorFlags, TensorRole, check_binding,
};

struct Entry {
    rule: &'static str,
    checks: &'static str,
    message: String,
    /// `file::function` of the test that proves the rule, relative to the repository root.
    test: &'static str,
}

fn packed(t: DataType, sizes: &[u32]) -> BufferTensorDesc {
    BufferTensorDesc::packed(t, sizes).unwrap()
}

fn tensor_err(d: BufferTensorDesc, role: TensorRole, level: FeatureLevel) -> String {
    d.validate_as(role, level).unwrap_err().to_string()
}

fn slice1(window_strides: [i32; 2], out: [u32; 2]) -> Slice1Desc {
    Slice1Desc {
        input: packed(DataType::Float32, &[4, 4]),
        output: packed(DataType::Float32, &out),
        input_window_offsets: vec![0, 1],
        input_window_sizes: vec![4, 3],
        input_window_strides: window_strides.to_vec(),
    }
}

fn slice1_err(d: Slice1Desc) -> String {
    d.validate().unwrap_err().to_string()
}

fn entries() -> Vec<Entry> {
    let std = TensorRole::Standalone;
    let latest = FeatureLevel::LATEST;
    let with = |f: &dyn Fn(&mut BufferTensorDesc)| {
        let mut d = packed(DataType::Float32, &[2, 3]);
        f(&mut d);
        tensor_err(d, std, latest)
    };
    let r_bt_1 = BufferTensorDesc::from_raw(0, 0, &[2], None, 8, 0).unwrap_err().to_string();
    let r_bt_2 = with(&|d| d.sizes = vec![1; 9]);
    let r_bt_3 = with(&|d| d.sizes[1] = 0);
    let r_bt_4 = with(&|d| d.strides = Some(vec![1]));
    let r_bt_5 = with(&|d| d.total_tensor_size_in_bytes = 20);
    let r_bt_6 = with(&|d| d.strides = Some(vec![u32::MAX, 1]));
    let r_bt_7 = with(&|d| d.guaranteed_base_offset_alignment = 2);
    let r_bt_8 =
        tensor_err(BufferTensorDesc { total_tensor_size_in_bytes: 6, ..packed(DataType::Float16, &[3]) }, std, latest);
    let r_bt_9 = BufferTensorDesc::from_raw(1, 2, &[2], None, 8, 0).unwrap_err().to_string();
    let r_fl_1 = tensor_err(
        BufferTensorDesc { flags: TensorFlags::OWNED_BY_DML, ..packed(DataType::Float32, &[2]) },
        TensorRole::Output,
        latest,
    );
    let d1 = tensor_err(
        BufferTensorDesc::new(DataType::Float32, &[2, 3], Some(&[0, 1])).unwrap(),
        TensorRole::Output,
        latest,
    );
    let layout = packed(DataType::Float32, &[2, 3]).validate().unwrap();
    let r_bind_1 = check_binding(TensorRole::Input, &layout, 0, 16, 64).unwrap_err().to_string();
    let r_bind_2 = check_binding(TensorRole::Input, &layout, 8, 24, 64).unwrap_err().to_string();
    let d10 = stridekit::check_host_buffer(TensorRole::Output, 22, 24).unwrap_err().to_string();
    let mut d = slice1([1, 1], [4, 3]);
    d.input_window_offsets.pop();
    let r_s1_1 = slice1_err(d);
    let mut d = slice1([1, 1], [4, 3]);
    d.input_window_offsets[1] = 2;
    let r_s1_2 = slice1_err(d);
    let mut d = slice1([1, 1], [4, 3]);
    d.input_window_sizes[0] = 0;
    let r_s1_3 = slice1_err(d);
    let r_s1_4 = slice1_err(slice1([0, 1], [4, 3]));
    let r_s1_5 = slice1_err(slice1([-2, 1], [3, 3]));
    let mut d = slice1([1, 1], [4, 3]);
    d.output = packed(DataType::Int32, &[4, 3]);
    let r_s1_6 = slice1_err(d);
    let mut d = slice1([1, 1], [4, 3]);
    d.input = packed(DataType::Uint4, &[4, 4]);
    d.output = packed(DataType::Uint4, &[4, 3]);
    let r_s1_7 = slice1_err(d);
    let v0 = |offsets: [u32; 2], sizes: [u32; 2], out: [u32; 2], strides: [u32; 2]| SliceDesc {
        input: packed(DataType::Float32, &[4, 4]),
        output: packed(DataType::Float32, &out),
        offsets: offsets.to_vec(),
        sizes: sizes.to_vec(),
        strides: strides.to_vec(),
    };
    let mut d = v0([0, 0], [2, 2], [2, 2], [1, 1]);
    d.strides.push(1);
    let r_s0_1 = d.validate().unwrap_err().to_string();
    let r_s0_2 = v0([0, 0], [2, 2], [2, 3], [1, 1]).validate().unwrap_err().to_string();
    let r_s0_3 = v0([3, 0], [2, 2], [2, 2], [1, 1]).validate().unwrap_err().to_string();
    let mut d = v0([0, 0], [2, 2], [2, 2], [1, 1]);
    d.output = packed(DataType::Int32, &[2, 2]);
    let r_s0_4 = d.validate().unwrap_err().to_string();
    let d3 = v0([0, 0], [2, 2], [2, 2], [0, 1]).validate().unwrap_err().to_string();
    let mut d = v0([0, 0], [2, 2], [2, 2], [1, 1]);
    d.input = packed(DataType::Uint8, &[1, 1, 4, 4]);
    d.output = packed(DataType::Uint8, &[1, 1, 2, 2]);
    d.offsets = vec![0; 4];
    d.sizes = vec![1, 1, 2, 2];
    d.strides = vec![1; 4];
    let d7 = d.validate_at(FeatureLevel::L1_0).unwrap_err().to_string();

    let e = |rule, checks, message: String, test| Entry { rule, checks, message, test };
    vec![
        e(
            "R-BT-1",
            "DataType is a defined type other than UNKNOWN, and exists at the chosen feature level.",
            r_bt_1,
            "crates/stridekit/tests/tensor_rules.rs::r_bt_1_unknown_data_type",
        ),
        e(
            "R-BT-2",
            "DimensionCount is 1..=8 (1..=5 before feature level 3_0).",
            r_bt_2,
            "crates/stridekit/tests/tensor_rules.rs::r_bt_2_dimension_count",
        ),
        e("R-BT-3", "Every size is >= 1.", r_bt_3, "crates/stridekit/tests/tensor_rules.rs::r_bt_3_zero_size"),
        e(
            "R-BT-4",
            "Strides, when given, has DimensionCount entries.",
            r_bt_4,
            "crates/stridekit/tests/tensor_rules.rs::r_bt_4_stride_count",
        ),
        e(
            "R-BT-5",
            "TotalTensorSizeInBytes >= the minimum implied size (DMLCalcBufferTensorSize, exact).",
            r_bt_5,
            "crates/stridekit/tests/tensor_rules.rs::r_bt_5_total_size_too_small",
        ),
        e(
            "R-BT-6",
            "D4: physical extent and logical element count <= 2^32 - 1; all arithmetic checked in 64 bits.",
            r_bt_6,
            "crates/stridekit/tests/tensor_rules.rs::r_bt_6_and_d4_element_limits",
        ),
        e(
            "R-BT-7",
            "GuaranteedBaseOffsetAlignment is 0 or a power of two >= the element size.",
            r_bt_7,
            "crates/stridekit/tests/tensor_rules.rs::r_bt_7_alignment",
        ),
        e(
            "R-BT-8",
            "D2: the minimum is rounded up to a multiple of 4; a total that covers the elements but not the round-up is named as such.",
            r_bt_8,
            "crates/stridekit/tests/tensor_rules.rs::r_bt_8_and_d2_dword_rounding",
        ),
        e(
            "R-BT-9",
            "D8: Flags has no bits other than OWNED_BY_DML.",
            r_bt_9,
            "crates/stridekit/tests/tensor_rules.rs::r_bt_9_and_d8_unknown_flags",
        ),
        e(
            "R-FL-1",
            "OWNED_BY_DML only on input tensors.",
            r_fl_1,
            "crates/stridekit/tests/tensor_rules.rs::r_fl_1_owned_by_dml_on_output",
        ),
        e(
            "D1",
            "Output tensors do not overlap: sorted by stride, each stride >= the extent of the dimensions below it.",
            d1,
            "crates/stridekit/tests/tensor_rules.rs::d1_output_must_not_overlap",
        ),
        e(
            "R-BIND-1",
            "The bound range holds TotalTensorSizeInBytes and lies inside the buffer.",
            r_bind_1,
            "crates/stridekit/src/binding.rs::rules",
        ),
        e(
            "R-BIND-2",
            "The binding offset is a multiple of max(16, GuaranteedBaseOffsetAlignment).",
            r_bind_2,
            "crates/stridekit/src/binding.rs::rules",
        ),
        e(
            "D10",
            "A host byte slice (not a DirectML binding) holds every byte the plan reads or writes; no DWORD rounding.",
            d10,
            "crates/stridekit/src/binding.rs::rules",
        ),
        e(
            "R-S1-1",
            "Slice1: the output and the three window arrays have the input's rank, within the level's range.",
            r_s1_1,
            "crates/stridekit/tests/slice_rules.rs::r_s1_1_rank",
        ),
        e(
            "R-S1-2",
            "Slice1: InputWindowOffsets + InputWindowSizes <= input size, computed in 64 bits.",
            r_s1_2,
            "crates/stridekit/tests/slice_rules.rs::r_s1_2_window_inside_input_in_64_bits",
        ),
        e("R-S1-3", "Slice1: window sizes >= 1.", r_s1_3, "crates/stridekit/tests/slice_rules.rs::r_s1_3_empty_window"),
        e(
            "R-S1-4",
            "Slice1: window strides != 0 (i32::MIN allowed, via unsigned_abs).",
            r_s1_4,
            "crates/stridekit/tests/slice_rules.rs::r_s1_4_zero_stride_and_i32_min",
        ),
        e(
            "R-S1-5",
            "Slice1: 1 <= output size <= 1 + (window size - 1) / |stride|.",
            r_s1_5,
            "crates/stridekit/tests/slice_rules.rs::r_s1_5_output_size",
        ),
        e(
            "R-S1-6",
            "Slice1: input and output have the same DataType.",
            r_s1_6,
            "crates/stridekit/tests/slice_rules.rs::r_s1_6_same_data_type",
        ),
        e(
            "R-S1-7",
            "Slice1: the level's type table (no 4-bit types; 64-bit types from 4_1).",
            r_s1_7,
            "crates/stridekit/tests/slice_rules.rs::r_s1_7_and_d7_type_tables",
        ),
        e(
            "R-S0-1",
            "Slice: the output and Offsets/Sizes/Strides have the input's rank, within the level's range.",
            r_s0_1,
            "crates/stridekit/tests/slice_rules.rs::slice_v0_rules",
        ),
        e(
            "R-S0-2",
            "Slice: Sizes equals the output sizes.",
            r_s0_2,
            "crates/stridekit/tests/slice_rules.rs::slice_v0_rules",
        ),
        e(
            "R-S0-3",
            "Slice: Offsets + Strides * (Sizes - 1) <= input size - 1, in 64 bits.",
            r_s0_3,
            "crates/stridekit/tests/slice_rules.rs::slice_v0_rules",
        ),
        e(
            "R-S0-4",
            "Slice: input and output have the same DataType.",
            r_s0_4,
            "crates/stridekit/tests/slice_rules.rs::slice_v0_rules",
        ),
        e("D3", "Slice: strides >= 1.", d3, "crates/stridekit/tests/slice_rules.rs::slice_v0_rules"),
        e(
            "D7",
            "The operator exists at the chosen feature level and accepts the type there (Slice: no 8-bit types at 1_0).",
            d7,
            "crates/stridekit/tests/slice_rules.rs::r_s1_7_and_d7_type_tables",
        ),
    ]
}

/// Rule ids of SPEC.md that are facts or promises rather than checks on input, with the reason.
const NOT_CHECKS: &[(&str, &str)] = &[
    (
        "R-BIND-3",
        "DirectML may overwrite output padding; stridekit promises more (D6): it never does. Tested in crates/stridekit-cpu.",
    ),
    ("R-BIND-4", "A null buffer means 'no binding'; Slice1 has no optional tensors, so there is nothing to check."),
    (
        "R-DT-4BIT",
        "How 4-bit data is packed; 4-bit types never reach a slice (R-S1-7), the size helpers count them in bits.",
    ),
    (
        "D11",
        "Not a check of its own: an empty NumPy/ONNX result is validated like the same slice with every zero size made one \
         (stridekit::frontends::validate_empty), and the error carries the id of the rule that fails there. Tested in \
         crates/stridekit/src/frontends/empty.rs.",
    ),
    ("R-S1-8", "The general buffer-tensor rules apply to both Slice1 tensors: every R-BT rule above runs on both."),
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn render(entries: &[Entry]) -> String {
    let mut s = String::from(
        "# Error catalog\n\n\
         Every rule of [SPEC.md](SPEC.md) that stridekit enforces: what it checks, the message it prints (produced by the code \
         when this document was generated, so it cannot drift: `crates/stridekit/tests/error_catalog.rs` regenerates \
         and compares it), and the test that proves it.\n\n\
         Every message starts with `error[<rule id>]:`, names the field (prefixed `InputTensor.` / `OutputTensor.` \
         inside an operator), the dimension and the numbers. The command line exits with code 2 for these, 1 for I/O \
         errors.\n\n\
         | rule | checks | message (example) | proved by |\n|---|---|---|---|\n",
    );
    for e in entries {
        // The test, linked to its file (relative to docs/).
        let (file, func) = e.test.split_once("::").unwrap_or((e.test, ""));
        let name = file.rsplit('/').next().unwrap_or(file);
        let message = e.message.replace('|', "\\|");
        s.push_str(&format!("| {} | {} | `{message}` | [`{name}::{func}`](../{file}) |\n", e.rule, e.checks));
    }
    s.push_str("\n## Rule ids that are not input checks\n\n");
    for (rule, why) in NOT_CHECKS {
        s.push_str(&format!("- **{rule}**: {why}\n"));
    }
    s.push_str(
        "\n## Other error families\n\n\
         - `error[layout]`: a layout helper (label, broadcast, row padding) cannot produce strides.\n\
         - `error[args]`: a command-line value cannot be read (list items, flags that contradict each other).\n\
         - `error[numpy]`, `error[onnx]`: a NumPy or ONNX slice cannot be translated (bad syntax, axis out of range, step 0).\n\
         - `error[npy]`: an input .npy file is malformed or unsupported (checked against the file length and NumPy's 10,000-byte header cap before any allocation), or a path is not a regular file (a FIFO, device or directory as input or output).\n\
         - `error[io]`: a file cannot be read or written (exit code 1; the output file is written atomically, so an existing one is untouched; an existing output this user may not write is refused, not replaced).\n\
         - `error[memory]`: `stridekit slice`/`bench` would allocate more than is available (MemAvailable in /proc/meminfo, or `--max-memory`); both numbers are given, nothing is allocated (exit code 1).\n\
         - `error[disk]`: the output file would not fit the free space of its file system; both numbers are given, nothing is written (exit code 1).\n\
         - Command-line window flags use the rule ids above and name the flag as typed: `error[R-S1-1]: --sizes (DirectML's InputWindowSizes) has 1 entries, but the input has 2 dimensions ...`; a default that is empty or does not exist says it was a default (`R-S1-3`, `R-S1-2`); an input .npy whose shape has a dimension beyond u32 is `error[R-BT-6]: <file>: dimension ...`.\n\
         - `error[gpu]`: no GPU adapter or device (`--device gpu`, stridekit-wgpu), a device lost, or a wgpu validation or out-of-memory error caught by an error scope (exit code 1). Binding errors on the GPU are the rule ids above (R-BIND-1, R-BIND-2, D10).\n\
         - `error[capi]`: a check only the C library makes (a null pointer argument returns E_POINTER; a null array or description inside a descriptor, a tensor type other than DML_TENSOR_TYPE_BUFFER, an operator other than DML_OPERATOR_SLICE/SLICE1, overlapping input and output buffers return E_INVALIDARG). `error[panic]`: an internal error caught at the C boundary (E_UNEXPECTED), never expected.\n\
         - `error[address-space]`, `error[element-size]`: stridekit-cpu cannot address a plan's bytes on this machine (a 32-bit target with a tensor over 2 GiB), or was given a plan with an element size its kernels do not move (validated plans never carry one).\n",
    );
    s
}

#[test]
fn every_message_starts_with_its_rule_id() {
    for e in entries() {
        assert!(e.message.starts_with(&format!("error[{}]: ", e.rule)), "{}: {}", e.rule, e.message);
    }
}

#[test]
fn referenced_tests_exist() {
    for e in entries() {
        let (file, func) = e.test.split_once("::").unwrap();
        let text = std::fs::read_to_string(repo_root().join(file)).unwrap_or_else(|err| panic!("{file}: {err}"));
        assert!(text.contains(&format!("fn {func}()")), "{} names {}, which does not exist", e.rule, e.test);
    }
}

#[test]
fn catalog_covers_every_rule_id_in_spec() {
    // The repository carries its own copy of the specification (docs/SPEC.md), so this check runs in every clone.
    let spec_path = repo_root().join("docs/SPEC.md");
    let spec = std::fs::read_to_string(&spec_path).unwrap_or_else(|e| panic!("{}: {e}", spec_path.display()));
    let entries = entries();
    let known: Vec<&str> = entries.iter().map(|e| e.rule).chain(NOT_CHECKS.iter().map(|n| n.0)).collect();
    for word in spec.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        let is_rule = word.starts_with("R-") && !word.starts_with("R-CALC") && !word.ends_with('-');
        if is_rule {
            assert!(known.contains(&word), "SPEC.md rule {word} is missing from the catalog");
        }
    }
}

#[test]
fn errors_md_is_current() {
    let path = repo_root().join("docs/ERRORS.md");
    let actual = render(&entries());
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        actual, expected,
        "docs/ERRORS.md is stale: run UPDATE_GOLDEN=1 cargo test -p stridekit --test error_catalog"
    );
}
