//! `stridekit explain`: golden outputs for the strides page's examples, JSON, errors and exit codes.

mod common;
use common::{golden, run, stderr, stdout};

/// Runs explain and checks stdout against a golden file and the exit code.
fn check(name: &str, args: &[&str], code: i32) -> String {
    let mut full = vec!["explain"];
    full.extend_from_slice(args);
    let o = run(&full);
    assert_eq!(o.status.code(), Some(code), "{}", stderr(&o));
    golden(name, &stdout(&o));
    stderr(&o)
}

#[test]
fn row_major_2x3() {
    check("explain_hw_2x3.txt", &["--dtype", "float32", "--sizes", "2,3"], 0);
}

#[test]
fn column_major_2x3() {
    check("explain_wh_2x3.txt", &["--dtype", "float32", "--sizes", "2,3", "--layout", "WH"], 0);
}

#[test]
fn dhw_2x2x3() {
    check("explain_dhw_2x2x3.txt", &["--dtype", "float32", "--sizes", "2,2,3", "--strides", "6,3,1"], 0);
}

#[test]
fn broadcast_2x3() {
    check("explain_broadcast_2x3.txt", &["--dtype", "float32", "--sizes", "2,3", "--strides", "0,1"], 0);
}

#[test]
fn padded_2x3() {
    check("explain_padded_2x3.txt", &["--dtype", "float32", "--sizes", "2,3", "--strides", "5,1"], 0);
}

#[test]
fn nchw_and_nhwc_1x1x3x5() {
    check("explain_nchw_1x1x3x5.txt", &["--dtype", "float32", "--sizes", "1,1,3,5", "--layout", "NCHW"], 0);
    check("explain_nhwc_1x1x3x5.txt", &["--dtype", "float32", "--sizes", "1,1,3,5", "--strides", "15,1,5,1"], 0);
}

#[test]
fn offsets_instead_of_labels() {
    check(
        "explain_padded_offsets.txt",
        &["--dtype", "f16", "--sizes", "2,3", "--strides", "5,1", "--values", "offsets"],
        0,
    );
}

#[test]
fn dmlx_wrap_warning_and_invalid_exit_2() {
    let err = check("explain_wrap.txt", &["--dtype", "float32", "--sizes", "65537,65537", "--strides", "65536,1"], 2);
    assert!(err.starts_with("error[R-BT-6]: Sizes: the logical element count is 4295098369"), "{err}");
}

#[test]
fn json_valid() {
    check("explain_nhwc.json", &["--dtype", "<f4", "--sizes", "1,1,3,5", "--layout", "NHWC", "--json"], 0);
}

#[test]
fn json_invalid_reports_what_it_can() {
    let o =
        run(&["explain", "--dtype", "float32", "--sizes", "2,3", "--strides", "5,1", "--total-bytes", "24", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["valid"], false);
    assert_eq!(v["errors"][0]["rule"], "R-BT-5");
    assert_eq!(v["min_buffer_size_bytes"], 32);
    assert_eq!(v["physical_element_extent"], 8);
    assert_eq!(v["padded"], true);
    let o = run(&["explain", "--dtype", "float32", "--sizes", "4294967295,4294967295,4294967295", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["logical_element_count"], serde_json::Value::Null);
    assert_eq!(v["min_buffer_size_bytes"], serde_json::Value::Null);
    assert_eq!(v["errors"][0]["rule"], "R-BT-6");
}

#[test]
fn every_rule_through_the_command_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["--dtype", "0", "--sizes", "2"], "error[R-BT-1]: DataType is 0"),
        (&["--dtype", "complex64", "--sizes", "2"], "error[R-BT-1]: DataType 'complex64'"),
        (
            &["--dtype", "f64", "--sizes", "2", "--feature-level", "2_1"],
            "error[R-BT-1]: DataType FLOAT64 does not exist",
        ),
        (&["--dtype", "f32", "--sizes", "1,1,1,1,1,1,1,1,1"], "error[R-BT-2]: DimensionCount is 9"),
        (&["--dtype", "f32", "--sizes", "2,0"], "error[R-BT-3]: Sizes[1] is 0"),
        (&["--dtype", "f32", "--sizes", "2,3", "--strides", "1"], "error[R-BT-4]: Strides has 1 entries"),
        (&["--dtype", "f32", "--sizes", "2,3", "--total-bytes", "20"], "error[R-BT-5]: TotalTensorSizeInBytes is 20"),
        (
            &["--dtype", "f32", "--sizes", "2", "--strides", "4294967295"],
            "error[R-BT-6]: Sizes/Strides: the physical extent",
        ),
        (&["--dtype", "f32", "--sizes", "2", "--alignment", "3"], "error[R-BT-7]: GuaranteedBaseOffsetAlignment is 3"),
        (&["--dtype", "f16", "--sizes", "3", "--total-bytes", "6"], "error[R-BT-8]: TotalTensorSizeInBytes is 6"),
        (&["--dtype", "f32", "--sizes", "2", "--flags", "0x4"], "error[R-BT-9]: Flags is 0x4"),
        (
            &["--dtype", "f32", "--sizes", "2", "--flags", "owned_by_dml", "--as-output"],
            "error[R-FL-1]: OutputTensor.Flags",
        ),
        (&["--dtype", "f32", "--sizes", "2,3", "--strides", "0,1", "--as-output"], "error[D1]: OutputTensor.Strides"),
        (&["--dtype", "f32", "--sizes", "2,x"], "error[args]: --sizes item 2 ('x')"),
        (&["--dtype", "f32", "--sizes", "2,3", "--layout", "NCHW"], "error[layout]: layout label 'NCHW' has 4 letters"),
        (&["--dtype", "f32", "--sizes", "2", "--feature-level", "9_9"], "error[D7]: feature level '9_9'"),
    ];
    for (args, expected) in cases {
        let mut full = vec!["explain"];
        full.extend_from_slice(args);
        let o = run(&full);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with(expected), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
    }
}

#[test]
fn bad_flags_are_usage_errors() {
    let o = run(&["explain", "--sizes", "2"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["explain", "--dtype", "f32", "--sizes", "2", "--strides", "1", "--layout", "HW"]);
    assert_eq!(o.status.code(), Some(2));
}
