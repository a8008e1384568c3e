//! The NumPy front end: parsing, clamping, errors, Slice1 rules (proptest), and a comparison with real NumPy.

mod common;
use common::{Rng, arrays, assert_valid, gather, numpy_unavailable, run_oracle};

use proptest::prelude::*;
use stridekit::frontends::numpy::{IndexItem, NumpyError, numpy_slice, parse_numpy_index};
use stridekit::frontends::{Slice1Params, SliceOutcome};

fn window(shape: &[u64], expr: &str) -> Slice1Params {
    match numpy_slice(shape, expr) {
        Ok(SliceOutcome::Window(p)) => p,
        other => panic!("{expr}: expected a window, got {other:?}"),
    }
}

fn err(shape: &[u64], expr: &str) -> String {
    numpy_slice(shape, expr).unwrap_err().to_string()
}

#[test]
fn forms_of_items() {
    let shape = [10];
    assert_eq!(arrays(&window(&shape, ":")), (vec![0], vec![10], vec![1], vec![10]));
    assert_eq!(arrays(&window(&shape, "::2")), (vec![0], vec![9], vec![2], vec![5]));
    assert_eq!(arrays(&window(&shape, "-3:")), (vec![7], vec![3], vec![1], vec![3]));
    assert_eq!(arrays(&window(&shape, "::-1")), (vec![0], vec![10], vec![-1], vec![10]));
    assert_eq!(arrays(&window(&shape, "-1")), (vec![9], vec![1], vec![1], vec![1]));
    assert_eq!(arrays(&window(&shape, "[ 2 : 9 : 3 ]")), (vec![2], vec![7], vec![3], vec![3]));
    assert_eq!(arrays(&window(&shape, "8:1:-3")), (vec![2], vec![7], vec![-3], vec![3]));
    assert_eq!(window(&shape, "8:1:-3").copy_start(), [8]);
    assert_eq!(arrays(&window(&shape, "None:None:-4")), (vec![1], vec![9], vec![-4], vec![3]));
    assert_eq!(arrays(&window(&shape, "- 2")), (vec![8], vec![1], vec![1], vec![1]));
    assert_eq!(window(&shape, ""), Slice1Params::whole(&[10]));
    assert_eq!(window(&shape, "[]"), Slice1Params::whole(&[10]));
    assert_eq!(window(&shape, "..."), Slice1Params::whole(&[10]));
    assert_eq!(window(&shape, "3,"), window(&shape, "3"));
}

#[test]
fn python_clamping() {
    let shape = [5];
    assert_eq!(arrays(&window(&shape, "-100:100")), (vec![0], vec![5], vec![1], vec![5]));
    assert_eq!(arrays(&window(&shape, "100::-2")), (vec![0], vec![5], vec![-2], vec![3]));
    assert_eq!(arrays(&window(&shape, "3:-100:-1")), (vec![0], vec![4], vec![-1], vec![4]));
    assert_eq!(numpy_slice(&shape, "-100::-1").unwrap(), SliceOutcome::Empty { output_shape: vec![0] });
    assert_eq!(numpy_slice(&shape, "3:1").unwrap(), SliceOutcome::Empty { output_shape: vec![0] });
    assert_eq!(numpy_slice(&shape, "1:3:-1").unwrap(), SliceOutcome::Empty { output_shape: vec![0] });
    // Bounds beyond i64 saturate, as Python's PySlice_Unpack does.
    let huge = "-99999999999999999999999999999999999999999999:99999999999999999999999999999999999999999999";
    assert_eq!(window(&shape, huge), Slice1Params::whole(&[5]));
}

#[test]
fn ellipsis_and_missing_items() {
    let shape = [2, 3, 4, 5];
    let p = window(&shape, "1, ..., ::-2");
    assert_eq!(arrays(&p), (vec![1, 0, 0, 0], vec![1, 3, 4, 5], vec![1, 1, 1, -2], vec![1, 3, 4, 3]));
    assert_eq!(p.copy_start(), [1, 0, 0, 4]);
    let p = window(&shape, ":, 1:");
    assert_eq!(arrays(&p), (vec![0, 1, 0, 0], vec![2, 2, 4, 5], vec![1; 4], vec![2, 2, 4, 5]));
    assert_eq!(window(&shape, "..., 1:"), window(&shape, ":, :, :, 1:"));
    assert_eq!(window(&shape, "0, 1, 2, 3, ..."), window(&shape, "0, 1, 2, 3"));
    assert_eq!(parse_numpy_index("..., 0, :, -1").unwrap().integer_axes(4).unwrap(), [1, 3]);
}

#[test]
fn empty_results_keep_the_rank() {
    assert_eq!(numpy_slice(&[4, 5, 6], ":, 5:, ::-1").unwrap(), SliceOutcome::Empty { output_shape: vec![4, 0, 6] });
    assert_eq!(numpy_slice(&[4, 0], "1").unwrap(), SliceOutcome::Empty { output_shape: vec![1, 0] });
    assert_eq!(numpy_slice(&[4, 0], "::-1").unwrap().output_shape(), [4, 0]);
}

#[test]
fn huge_steps() {
    // One element: the step clamps to +-i32::MAX (any stride reads only CopyStart).
    let p = window(&[10], "3::9999999999999");
    assert_eq!(arrays(&p), (vec![3], vec![1], vec![i32::MAX], vec![1]));
    let p = window(&[10], "3::-9223372036854775808");
    assert_eq!(arrays(&p), (vec![3], vec![1], vec![-i32::MAX], vec![1]));
    assert_eq!(p.copy_start(), [3]);
    // Two elements 2^31 apart: i32::MIN is expressible, 2^31 is not.
    let dim = 1u64 << 32;
    let p = window(&[dim - 1], "::-2147483648");
    // From the last index 2^32 - 2 down to 2^31 - 2: the window is [2^31 - 2, 2^32 - 2].
    assert_eq!(arrays(&p), (vec![(1 << 31) - 2], vec![(1 << 31) + 1], vec![i32::MIN], vec![2]));
    assert_eq!(p.copy_start(), [(1 << 32) - 2]);
    assert_eq!(
        err(&[dim - 1], "::2147483648"),
        "error[numpy]: the step 2147483648 on axis 0 (item 1) selects 2 elements; Slice1 strides are i32, so a step \
         selecting more than one element must lie in [-2147483648, 2147483647]"
    );
    // ... unless another axis is empty: nothing is dispatched.
    assert_eq!(numpy_slice(&[dim - 1, 3], "::2147483648, 3:").unwrap().output_shape(), [2, 0]);
}

#[test]
fn error_messages() {
    let shape = [2, 3];
    assert_eq!(err(&shape, "1, 3"), "error[numpy]: index 3 is out of bounds for axis 1 with size 3 (item 2)");
    assert_eq!(err(&shape, "-3"), "error[numpy]: index -3 is out of bounds for axis 0 with size 2 (item 1)");
    assert_eq!(err(&shape, "1, ::0"), "error[numpy]: slice step cannot be zero (item 2, axis 1)");
    assert_eq!(
        err(&shape, "..., 0, 0, 0"),
        "error[numpy]: too many indices for array: array is 2-dimensional, but 3 were indexed"
    );
    assert_eq!(
        err(&shape, "..., 1, ..."),
        "error[numpy]: an index can only have a single ellipsis ('...'); items 1 and 3 are both '...'"
    );
    assert_eq!(
        err(&shape, "None, 1"),
        "error[numpy]: item 1 ('None') would insert a new axis; Slice1 keeps the rank, so None/np.newaxis is not supported"
    );
    assert_eq!(
        err(&shape, ":, np.newaxis"),
        "error[numpy]: item 2 ('np.newaxis') would insert a new axis; Slice1 keeps the rank, so None/np.newaxis is not supported"
    );
    assert_eq!(
        err(&shape, "[0, 1], :"),
        "error[numpy]: item 1 ('[0, 1]') is integer-array (fancy) indexing; only basic slicing (integers, start:stop:step, '...') maps to Slice1"
    );
    assert_eq!(
        err(&shape, "[[True, False]]"),
        "error[numpy]: item 1 ('[True, False]') is boolean indexing; only basic slicing (integers, start:stop:step, '...') maps to Slice1"
    );
    assert_eq!(
        err(&shape, "True"),
        "error[numpy]: item 1 ('True') is boolean indexing; only basic slicing (integers, start:stop:step, '...') maps to Slice1"
    );
    assert_eq!(err(&shape, "1,,2"), "error[numpy]: item 2 is empty; items are separated by single commas");
    assert_eq!(err(&shape, ",1"), "error[numpy]: item 1 is empty; items are separated by single commas");
    assert_eq!(err(&shape, "x"), "error[numpy]: item 1 ('x') is not an integer, a slice start:stop:step or '...'");
    assert_eq!(err(&shape, "1.5"), "error[numpy]: item 1 ('1.5') is not an integer, a slice start:stop:step or '...'");
    assert_eq!(err(&shape, "1:a"), "error[numpy]: item 1 ('1:a'): the slice stop 'a' is not an integer");
    assert_eq!(err(&shape, "::--1"), "error[numpy]: item 1 ('::--1'): the slice step '--1' is not an integer");
    assert_eq!(
        err(&shape, "1:2:3:4"),
        "error[numpy]: item 1 ('1:2:3:4') has 3 colons; a slice is start:stop or start:stop:step"
    );
    assert_eq!(
        err(&shape, "[1:2"),
        "error[numpy]: unbalanced brackets in '[1:2'; write the index as NumPy does, e.g. '1:3, ::-1' or '[1:3, ::-1]'"
    );
    assert_eq!(
        err(&shape, "99999999999999999999"),
        "error[numpy]: item 1 ('99999999999999999999') does not fit in 64 bits; an integer index must lie in [-size, size) of its axis"
    );
    assert_eq!(
        err(&[1u64 << 32], ":"),
        "error[numpy]: axis 0 has size 4294967296; DirectML sizes are at most 4294967295"
    );
    assert!(err(&shape, "np.array([0, 1])").contains("item 1 ('np.array([0, 1])') is integer-array (fancy) indexing"));
    // Brackets around integers only are a Python list: NumPy's a[[1, 2]] is fancy indexing, never a[1, 2].
    assert_eq!(
        err(&shape, "[1,2]"),
        "error[numpy]: '[1,2]' is a list of integers, which NumPy reads as integer-array (fancy) indexing (a[[1,2]] \
         picks whole entries along axis 0); only basic slicing maps to Slice1. For a[1,2] write the items without \
         brackets: '1,2'"
    );
    assert!(matches!(numpy_slice(&shape, " [ -1, 0 ] "), Err(NumpyError::IntegerList { .. })));
    assert!(numpy_slice(&shape, "1, 2").is_ok() && numpy_slice(&shape, "[1, 2:]").is_ok());
    assert!(numpy_slice(&shape, "[1]").is_ok(), "a[[1]] and a[1] with the axis kept select the same");
    assert!(err(&shape, "[1)").starts_with("error[numpy]: unbalanced brackets in '[1)'"));
    assert!(err(&shape, "1:2]").starts_with("error[numpy]: unbalanced brackets in '1:2]'"));
    assert!(err(&shape, "(1, 2)").starts_with("error[numpy]: item 1 ('(1, 2)') is not an integer"));
    assert!(matches!(numpy_slice(&[0], "0"), Err(NumpyError::IndexOutOfRange { index: 0, dim: 0, .. })));
}

#[test]
fn display_round_trips() {
    let index = parse_numpy_index("[ -1 ,::-2, ... , 3: , :4 ]").unwrap();
    assert_eq!(index.to_string(), "-1, ::-2, ..., 3:, :4");
    assert_eq!(parse_numpy_index(&index.to_string()).unwrap(), index);
    assert_eq!(IndexItem::FULL.to_string(), ":");
}

/// One item for an axis of size `dim`: mostly in range, sometimes clamped, sometimes with huge steps.
fn item_strategy(dim: u64) -> impl Strategy<Value = IndexItem> {
    let d = dim as i64;
    let bound = prop_oneof![4 => (-d - 3..=d + 3).prop_map(Some), 1 => Just(None), 1 => any::<i64>().prop_map(Some)];
    let step = prop_oneof![
        4 => (1i64..=4).prop_map(Some),
        4 => (-4i64..=-1).prop_map(Some),
        1 => Just(None),
        1 => any::<i64>().prop_filter("non-zero", |s| *s != 0).prop_map(Some),
    ];
    let index = if d > 0 { (-d..d).prop_map(IndexItem::Index).boxed() } else { Just(IndexItem::FULL).boxed() };
    prop_oneof![
        1 => Just(IndexItem::FULL),
        2 => index,
        5 => (bound.clone(), bound, step).prop_map(|(start, stop, step)| IndexItem::Slice { start, stop, step }),
    ]
}

/// A shape (rank 1..=8, small sizes, rarely 0) and a valid index for it, possibly shortened or with an ellipsis.
fn case_strategy() -> impl Strategy<Value = (Vec<u64>, Vec<IndexItem>)> {
    prop::collection::vec(prop_oneof![20 => 1u64..=5, 1 => Just(0u64)], 1..=8).prop_flat_map(|shape| {
        let items: Vec<_> = shape.iter().map(|&d| item_strategy(d)).collect();
        let rank = shape.len();
        (Just(shape), items, 0..=rank, 0..=rank, any::<bool>()).prop_map(|(shape, mut items, a, b, ellipsis)| {
            let (lo, hi) = (a.min(b), a.max(b));
            if ellipsis {
                items.splice(lo..hi, [IndexItem::Ellipsis]);
            } else {
                items.truncate(hi);
            }
            (shape, items)
        })
    })
}

fn render(items: &[IndexItem], spaces: &[bool]) -> String {
    let sep = |i: usize| if spaces.get(i).copied().unwrap_or(false) { " , " } else { "," };
    let mut text = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            text.push_str(sep(i));
        }
        text.push_str(&item.to_string());
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let _ = numpy_slice(&[3, 4], &text);
    }

    #[test]
    fn index_like_text_never_panics(text in "[-+0-9:,. \\[\\]NoneTrueEllipsis]{0,24}", shape in prop::collection::vec(0u64..6, 0..4)) {
        let _ = numpy_slice(&shape, &text);
    }

    #[test]
    fn valid_indices_map_to_valid_slice1((shape, items) in case_strategy(), spaces in prop::collection::vec(any::<bool>(), 8)) {
        let text = render(&items, &spaces);
        let parsed = parse_numpy_index(&text).unwrap();
        prop_assert_eq!(&parsed.items, &items);
        match parsed.resolve(&shape) {
            Ok(SliceOutcome::Window(p)) => {
                prop_assert_eq!(&p.input_sizes, &shape.iter().map(|&d| d as u32).collect::<Vec<_>>());
                assert_valid(&p);
            }
            Ok(SliceOutcome::Empty { output_shape }) => {
                prop_assert_eq!(output_shape.len(), shape.len());
                prop_assert!(output_shape.contains(&0));
                prop_assert!(output_shape.iter().zip(&shape).all(|(o, d)| o <= d));
            }
            // Only steps beyond i32 selecting two or more elements are refused; small shapes never reach that.
            Err(e) => prop_assert!(false, "{} on {:?}: {}", text, shape, e),
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Comparison with real NumPy.

fn random_expression(rng: &mut Rng, rank: usize) -> String {
    let ws = |rng: &mut Rng| if rng.below(4) == 0 { " " } else { "" };
    let mut count = rng.below(rank as u64 + 1) as usize;
    if rng.below(25) == 0 {
        count = rank + 1; // too many indices
    }
    let ellipsis_at = if rng.below(3) == 0 { Some(rng.below(count as u64 + 1) as usize) } else { None };
    let mut items = Vec::new();
    for i in 0..count {
        if Some(i) == ellipsis_at {
            items.push("...".to_string());
        }
        let bound = |rng: &mut Rng| match rng.below(8) {
            0 => String::new(),
            1 => "-99999999999999999999".to_string(),
            2 => "9223372036854775807".to_string(),
            _ => rng.range(-8, 8).to_string(),
        };
        let item = match rng.below(6) {
            0 => rng.range(-6, 6).to_string(),
            1 => ":".to_string(),
            _ => {
                let (start, stop) = (bound(rng), bound(rng));
                let step = match rng.below(12) {
                    0 => String::new(),
                    1 => "0".to_string(),
                    2 => "-9223372036854775808".to_string(),
                    3 => "100000000000".to_string(),
                    _ => [-3, -2, -1, 1, 2, 3][rng.below(6) as usize].to_string(),
                };
                if rng.below(2) == 0 && step.is_empty() {
                    format!("{start}{}:{}{stop}", ws(rng), ws(rng))
                } else {
                    format!("{start}:{stop}{}:{}{step}", ws(rng), ws(rng))
                }
            }
        };
        items.push(format!("{}{item}{}", ws(rng), ws(rng)));
    }
    if ellipsis_at == Some(count) {
        items.push("...".to_string());
    }
    items.join(",")
}

#[test]
fn matches_numpy() {
    let mut rng = Rng(0x5712_1DE0_2024);
    let mut cases = Vec::new();
    for _ in 0..400 {
        let rank = 1 + rng.below(4) as usize;
        let shape: Vec<u64> = (0..rank).map(|_| if rng.below(30) == 0 { 0 } else { 1 + rng.below(6) }).collect();
        cases.push((shape.clone(), random_expression(&mut rng, rank)));
    }
    let lines: Vec<String> = cases
        .iter()
        .map(|(shape, expr)| {
            let shape: Vec<String> = shape.iter().map(u64::to_string).collect();
            format!("numpy\t{}\t{expr}", shape.join(","))
        })
        .collect();
    let Some(answers) = run_oracle(&lines) else {
        numpy_unavailable();
        return;
    };
    assert_eq!(answers.len(), cases.len());
    let (mut windows, mut empties, mut errors) = (0, 0, 0);
    for ((shape, expr), answer) in cases.iter().zip(&answers) {
        let ours = numpy_slice(shape, expr);
        let context = format!("a = arange{shape:?}; a[{expr}]: numpy says {answer:?}, stridekit says {ours:?}");
        let Some(ok) = answer.strip_prefix("ok ") else {
            assert!(ours.is_err(), "{context}");
            errors += 1;
            continue;
        };
        let (np_shape, np_data) = ok.split_once('|').unwrap();
        let np_shape: Vec<u64> = np_shape.split(',').filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
        let np_data: Vec<i64> = np_data.split_whitespace().map(|s| s.parse().unwrap()).collect();
        let outcome = ours.unwrap_or_else(|e| panic!("{context}: {e}"));
        // NumPy drops the integer-indexed axes; stridekit keeps them with size 1.
        let dropped = parse_numpy_index(expr).unwrap().integer_axes(shape.len()).unwrap();
        let full_shape = outcome.output_shape();
        assert!(dropped.iter().all(|&a| full_shape[a] == 1), "{context}");
        let kept: Vec<u64> =
            full_shape.iter().enumerate().filter(|(a, _)| !dropped.contains(a)).map(|(_, &n)| n).collect();
        assert_eq!(kept, np_shape, "{context}");
        match outcome {
            SliceOutcome::Window(p) => {
                assert_valid(&p);
                assert_eq!(gather(&p), np_data, "{context}");
                windows += 1;
            }
            SliceOutcome::Empty { .. } => {
                assert!(np_data.is_empty(), "{context}");
                empties += 1;
            }
        }
    }
    // The generator must exercise all three outcomes.
    assert!(windows > 150 && empties > 20 && errors > 20, "windows {windows}, empties {empties}, errors {errors}");
}
