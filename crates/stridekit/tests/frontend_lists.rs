//! Command-line list parsers: accepted forms, exact error text, and proptests (round trips, no panics).

use proptest::prelude::*;
use stridekit::frontends::lists::{ListError, parse_i32_list, parse_i64_list, parse_u32_list};

#[test]
fn accepted_forms() {
    assert_eq!(parse_u32_list("--sizes", "1,1,4,4").unwrap(), [1, 1, 4, 4]);
    assert_eq!(parse_u32_list("--sizes", "  [ 1 ,1,\t4 , 4 ]  ").unwrap(), [1, 1, 4, 4]);
    assert_eq!(parse_u32_list("--sizes", "7").unwrap(), [7]);
    assert_eq!(parse_u32_list("--sizes", "+7, 0, 4294967295").unwrap(), [7, 0, u32::MAX]);
    assert_eq!(parse_i32_list("--strides", "1,1,-2,2").unwrap(), [1, 1, -2, 2]);
    assert_eq!(parse_i32_list("--strides", "[-2147483648,2147483647]").unwrap(), [i32::MIN, i32::MAX]);
    assert_eq!(parse_i64_list("--ends", "-9223372036854775808, 9223372036854775807").unwrap(), [i64::MIN, i64::MAX]);
    assert_eq!(parse_i64_list("--starts", "[-0, 007]").unwrap(), [0, 7]);
}

#[test]
fn error_messages() {
    let e = |r: Result<Vec<u32>, ListError>| r.unwrap_err().to_string();
    assert_eq!(e(parse_u32_list("--sizes", "1,1,x")), "error[args]: --sizes item 3 ('x') is not a number");
    assert_eq!(e(parse_u32_list("--sizes", "1, 2.5")), "error[args]: --sizes item 2 ('2.5') is not a number");
    assert_eq!(e(parse_u32_list("--sizes", "1 2")), "error[args]: --sizes item 1 ('1 2') is not a number");
    assert_eq!(
        e(parse_u32_list("--sizes", "1,,2")),
        "error[args]: --sizes item 2 is empty (two commas in a row, or a comma at an end?)"
    );
    assert_eq!(
        e(parse_u32_list("--sizes", "1,2,")),
        "error[args]: --sizes item 3 is empty (two commas in a row, or a comma at an end?)"
    );
    assert_eq!(
        e(parse_u32_list("--offsets", "0,-1")),
        "error[args]: --offsets item 2 ('-1') is negative; --offsets takes values from 0 to 4294967295"
    );
    assert_eq!(
        e(parse_u32_list("--sizes", "4294967296")),
        "error[args]: --sizes item 1 ('4294967296') is out of range; --sizes takes values from 0 to 4294967295"
    );
    assert_eq!(
        e(parse_u32_list("--sizes", "1, 999999999999999999999999999999999999999999")),
        "error[args]: --sizes item 2 ('999999999999999999999999999999999999999999') is out of range; --sizes takes values \
         from 0 to 4294967295"
    );
    assert_eq!(
        e(parse_u32_list("--sizes", " [ ] ")),
        "error[args]: --sizes is empty; give a comma-separated list such as 1,1,4,4"
    );
    assert_eq!(
        e(parse_u32_list("--sizes", "")),
        "error[args]: --sizes is empty; give a comma-separated list such as 1,1,4,4"
    );
    assert_eq!(
        e(parse_u32_list("--sizes", "[1,2")),
        "error[args]: --sizes ('[1,2') has unbalanced brackets; write 1,2,3 or [1,2,3]"
    );
    assert_eq!(
        e(parse_u32_list("--sizes", "[[1,2]]")),
        "error[args]: --sizes ('[[1,2]]') has unbalanced brackets; write 1,2,3 or [1,2,3]"
    );
    assert_eq!(
        parse_i32_list("--strides", "1,-2147483649").unwrap_err().to_string(),
        "error[args]: --strides item 2 ('-2147483649') is out of range; --strides takes values from -2147483648 to 2147483647"
    );
    assert_eq!(
        parse_i64_list("starts", "-9223372036854775809").unwrap_err().to_string(),
        "error[args]: starts item 1 ('-9223372036854775809') is out of range; starts takes values from \
         -9223372036854775808 to 9223372036854775807"
    );
    assert!(matches!(
        parse_i32_list("--strides", "1,--2"),
        Err(ListError::NotANumber { item: 2, ref text, .. }) if text == "--2"
    ));
}

/// Joins values with commas and random whitespace, optionally in brackets.
fn render<T: ToString>(values: &[T], spaces: &[u8], brackets: bool) -> String {
    let pad = |i: usize| " ".repeat(usize::from(spaces.get(i).copied().unwrap_or(0) % 3));
    let body: Vec<String> =
        values.iter().enumerate().map(|(i, v)| format!("{}{}{}", pad(2 * i), v.to_string(), pad(2 * i + 1))).collect();
    let body = body.join(",");
    if brackets { format!("[{body}]") } else { body }
}

proptest! {
    #[test]
    fn u32_round_trip(values in prop::collection::vec(any::<u32>(), 1..9), spaces in prop::collection::vec(any::<u8>(), 18), b in any::<bool>()) {
        prop_assert_eq!(parse_u32_list("--sizes", &render(&values, &spaces, b)).unwrap(), values);
    }

    #[test]
    fn i32_round_trip(values in prop::collection::vec(any::<i32>(), 1..9), spaces in prop::collection::vec(any::<u8>(), 18), b in any::<bool>()) {
        prop_assert_eq!(parse_i32_list("--strides", &render(&values, &spaces, b)).unwrap(), values);
    }

    #[test]
    fn i64_round_trip(values in prop::collection::vec(any::<i64>(), 1..9), spaces in prop::collection::vec(any::<u8>(), 18), b in any::<bool>()) {
        prop_assert_eq!(parse_i64_list("--starts", &render(&values, &spaces, b)).unwrap(), values);
    }

    #[test]
    fn out_of_range_values_are_reported(value in any::<i64>()) {
        let text = value.to_string();
        match parse_u32_list("--sizes", &text) {
            Ok(v) => prop_assert_eq!(i64::from(v[0]), value),
            Err(ListError::Negative { item: 1, .. }) => prop_assert!(value < 0),
            Err(ListError::OutOfRange { item: 1, .. }) => prop_assert!(value > i64::from(u32::MAX)),
            Err(e) => prop_assert!(false, "{}", e),
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = parse_u32_list("--sizes", &text);
        let _ = parse_i32_list("--strides", &text);
        let _ = parse_i64_list("--starts", &text);
    }

    #[test]
    fn list_like_text_never_panics(text in "[-+0-9, \\[\\]x]{0,40}") {
        let _ = parse_u32_list("--sizes", &text);
        let _ = parse_i64_list("--starts", &text);
    }
}

#[test]
fn kinds_prefix_the_messages() {
    use stridekit::frontends::{numpy::NumpyError, onnx::OnnxError};
    let list = parse_u32_list("--sizes", "x").unwrap_err().to_string();
    assert!(list.starts_with(&format!("error[{}]: ", ListError::KIND)));
    assert_eq!((NumpyError::KIND, OnnxError::KIND, ListError::KIND), ("numpy", "onnx", "args"));
}
