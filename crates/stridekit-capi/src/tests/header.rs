//! Keeps the hand-written `include/stridekit.h` current: every enumerator and constant against the model's values,
//! every struct's members (names and order) against the Rust `#[repr(C)]` definitions (whose layout is pinned to
//! DirectML's at compile time), and the exported functions.

use crate::abi;
use std::collections::BTreeMap;
use stridekit::{DataType, FeatureLevel, Operator, TensorFlags, limits};

const HEADER: &str = include_str!("../../include/stridekit.h");

fn parse_int(text: &str) -> i64 {
    let t = text.trim().trim_end_matches(['L', 'u', 'U']);
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).unwrap_or_else(|e| panic!("{text}: {e}")),
        None => t.parse().unwrap_or_else(|e| panic!("{text}: {e}")),
    }
}

/// `NAME = VALUE` enumerators and `#define NAME ((TYPE)VALUE)` constants.
fn values() -> BTreeMap<String, i64> {
    let mut map = BTreeMap::new();
    for line in HEADER.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("#define ") {
            let mut parts = rest.splitn(2, ' ');
            let (name, value) = (parts.next().unwrap_or(""), parts.next().unwrap_or("").trim());
            if name.contains('(') {
                continue; // function-like macros (SUCCEEDED, FAILED)
            }
            if let Some(cast) = value.strip_prefix("((").and_then(|v| v.strip_suffix(')')) {
                let (ty, number) = cast.split_once(')').unwrap_or_else(|| panic!("{line}"));
                let mut v = parse_int(number);
                if ty == "HRESULT" {
                    v = i64::from(v as u32 as i32);
                }
                assert!(map.insert(name.to_owned(), v).is_none(), "{name} defined twice");
            } else if let Ok(v) = value.parse::<i64>() {
                map.insert(name.to_owned(), v);
            }
        } else if line.starts_with("DML_")
            && let Some((name, value)) = line.trim_end_matches(',').split_once(" = ")
        {
            assert!(map.insert(name.to_owned(), parse_int(value)).is_none(), "{name} defined twice");
        }
    }
    map
}

/// Member names of every `typedef struct NAME { ... } NAME;`, in order.
fn structs() -> BTreeMap<String, Vec<String>> {
    let mut map = BTreeMap::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in HEADER.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix("typedef struct ").and_then(|l| l.strip_suffix(" {")) {
            current = Some((name.to_owned(), Vec::new()));
        } else if let Some((name, members)) = current.as_mut() {
            if line.starts_with('}') {
                assert_eq!(line, format!("}} {name};"), "struct {name} is typedef'd under its own name");
                map.insert(name.clone(), std::mem::take(members));
                current = None;
            } else if let Some(decl) = line.split(';').next().filter(|_| line.contains(';')) {
                let last = decl.split([' ', '*']).next_back().unwrap_or("");
                members.push(last.split('[').next().unwrap_or("").to_owned());
            }
        }
    }
    map
}

#[test]
fn enumerators_and_constants_match_the_model() {
    let v = values();
    let get = |name: &str| *v.get(name).unwrap_or_else(|| panic!("{name} missing from stridekit.h"));
    assert_eq!(get("DML_TENSOR_DATA_TYPE_UNKNOWN"), 0);
    for t in DataType::ALL {
        assert_eq!(get(&format!("DML_TENSOR_DATA_TYPE_{}", t.name())), i64::from(t.raw()), "{t}");
    }
    assert_eq!(v.keys().filter(|k| k.starts_with("DML_TENSOR_DATA_TYPE_")).count(), DataType::ALL.len() + 1);
    for l in FeatureLevel::ALL {
        assert_eq!(get(&format!("DML_FEATURE_LEVEL_{}", l.label())), i64::from(l.raw()), "{l}");
    }
    assert_eq!(v.keys().filter(|k| k.starts_with("DML_FEATURE_LEVEL_")).count(), FeatureLevel::ALL.len());
    assert_eq!(get("DML_OPERATOR_SLICE"), i64::from(Operator::Slice.raw()));
    assert_eq!(get("DML_OPERATOR_SLICE1"), i64::from(Operator::Slice1.raw()));
    assert_eq!(get("DML_OPERATOR_INVALID"), 0);
    assert_eq!(get("DML_TENSOR_FLAG_NONE"), i64::from(TensorFlags::NONE.bits()));
    assert_eq!(get("DML_TENSOR_FLAG_OWNED_BY_DML"), i64::from(TensorFlags::OWNED_BY_DML.bits()));
    assert_eq!(get("DML_TENSOR_TYPE_INVALID"), 0);
    assert_eq!(get("DML_TENSOR_TYPE_BUFFER"), i64::from(abi::DML_TENSOR_TYPE_BUFFER));
    assert_eq!(get("DML_TENSOR_DIMENSION_COUNT_MAX"), i64::from(limits::TENSOR_DIMENSION_COUNT_MAX));
    assert_eq!(get("DML_TENSOR_DIMENSION_COUNT_MAX1"), i64::from(limits::TENSOR_DIMENSION_COUNT_MAX1));
    assert_eq!(get("DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT"), i64::from(limits::MINIMUM_BUFFER_TENSOR_ALIGNMENT));
    assert_eq!(get("DML_TEMPORARY_BUFFER_ALIGNMENT"), i64::from(limits::TEMPORARY_BUFFER_ALIGNMENT));
    assert_eq!(get("DML_PERSISTENT_BUFFER_ALIGNMENT"), i64::from(limits::PERSISTENT_BUFFER_ALIGNMENT));
    for (name, value) in [
        ("S_OK", abi::S_OK),
        ("E_INVALIDARG", abi::E_INVALIDARG),
        ("E_OUTOFMEMORY", abi::E_OUTOFMEMORY),
        ("E_POINTER", abi::E_POINTER),
        ("E_UNEXPECTED", abi::E_UNEXPECTED),
    ] {
        assert_eq!(get(name), i64::from(value), "{name}");
    }
    assert_eq!(get("E_INVALIDARG"), i64::from(0x8007_0057_u32 as i32));
    assert_eq!(get("SK_ERROR_RULE_ID_CAPACITY"), abi::SK_ERROR_RULE_ID_CAPACITY as i64);
    assert_eq!(get("SK_ERROR_MESSAGE_CAPACITY"), abi::SK_ERROR_MESSAGE_CAPACITY as i64);
}

#[test]
fn struct_members_match_the_rust_definitions() {
    let header = structs();
    assert_eq!(header.len(), abi::LAYOUT.len(), "structs in the header: {:?}", header.keys());
    for (name, _size, members) in abi::LAYOUT {
        let rust: Vec<&str> = members.iter().map(|m| m.0).collect();
        let c = header.get(name).unwrap_or_else(|| panic!("struct {name} missing from stridekit.h"));
        assert_eq!(c, &rust, "members of {name}");
    }
}

#[test]
fn rust_layout_is_directml_layout_on_64_bit() {
    if cfg!(target_pointer_width = "64") {
        for ((name, size, members), (dml_size, dml_offsets)) in abi::LAYOUT.iter().zip(abi::DIRECTML_LAYOUT_64) {
            assert_eq!(*size, dml_size, "{name}");
            let offsets: Vec<usize> = members.iter().map(|m| m.1).collect();
            assert_eq!(offsets, dml_offsets, "{name}");
        }
    }
}

#[test]
fn exported_functions_are_declared() {
    for f in [
        "skCalcBufferTensorSize(",
        "skCalcBufferTensorSizeDmlx(",
        "skValidateOperatorDesc(",
        "skCreateOperator(",
        "skExecuteOperator(",
        "skReleaseOperator(",
    ] {
        assert_eq!(HEADER.matches(f).count(), 1, "{f}");
    }
    // Declared as the Rust definitions take them (the C enum parameters are 32-bit integers on the Rust side).
    let _: unsafe extern "C" fn(u32, u32, *const u32, *const u32) -> u64 = crate::skCalcBufferTensorSize;
    let _: unsafe extern "C" fn(u32, u32, *const u32, *const u32) -> u64 = crate::skCalcBufferTensorSizeDmlx;
    let _: unsafe extern "C" fn(*const abi::DML_OPERATOR_DESC, u32, *mut abi::SK_ERROR_INFO) -> i32 =
        crate::skValidateOperatorDesc;
}
