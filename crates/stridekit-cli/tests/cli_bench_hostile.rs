//! `stridekit bench` under hostile input (issue 9): every count bounded, memory checked before allocating, case
//! files read as bounded regular files without blocking, expectations honoured, contradictory flags refused, and
//! names printed safely. Each test failed on the command before these checks existed.

mod common;

use common::{run, stderr, stdout};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `stridekit` with `args`, killing it after `limit` (a hang is a failure, not a stuck test run).
fn run_within(args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the stridekit binary runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            child.kill().ok();
            let o = child.wait_with_output().expect("output");
            panic!("stridekit {args:?} still running after {limit:?}; stderr: {}", stderr(&o));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn doc_case(extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ["bench", "--dtype", "f32", "--input-sizes", "1,1,4,4", "--strides", "1,1,-2,2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn run_owned(args: &[String]) -> Output {
    run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn counts_are_bounded() {
    // Once a capacity-overflow panic, an 8 TB allocation, and minutes of silence.
    for reps in ["1152921504606846976", "1000000000000", "100000000", "1001"] {
        let o = run_within(
            &doc_case(&["--reps", reps]).iter().map(String::as_str).collect::<Vec<_>>(),
            Duration::from_secs(30),
        );
        assert_eq!(o.status.code(), Some(2), "--reps {reps}: {}", stderr(&o));
        assert!(stderr(&o).contains("at most 1000"), "{}", stderr(&o));
    }
    let o = run(&["bench", "--sweep", "10001"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("at most 10000"), "{}", stderr(&o));
    let o = run(&["bench", "--sweep", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn memory_is_checked_before_allocating() {
    // A 6-element-wide slice whose input reaches 12 GB: refused with both numbers, not aborted.
    let o = run_within(
        &[
            "bench",
            "--dtype",
            "f32",
            "--input-sizes",
            "1,1,4,4",
            "--input-strides",
            "1,1,1000000000,1",
            "--max-memory",
            "1G",
        ],
        Duration::from_secs(30),
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("error[memory]") && err.contains("--max-memory"), "{err}");
    assert!(err.contains("1.0 GiB") || err.contains("1073741824"), "the limit: {err}");
    assert!(err.contains("11.2 GiB") || err.contains("12000000064"), "the need: {err}");
    assert!(stdout(&o).is_empty());
    // The same through a case file's output strides.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.json");
    std::fs::write(
        &path,
        r#"[{"name": "wide_out", "dtype": "u8", "in_sizes": [4, 4], "in_strides": null, "window_offsets": [0, 0],
            "window_sizes": [4, 4], "window_strides": [1, 1], "out_sizes": [4, 4], "out_strides": [1000000000, 1]}]"#,
    )
    .unwrap();
    let o = run_within(&["bench", "--cases", path.to_str().unwrap(), "--max-memory", "64M"], Duration::from_secs(30));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("error[memory]") && stderr(&o).contains("wide_out"), "{}", stderr(&o));
}

#[test]
fn case_files_are_bounded_regular_files() {
    // /dev/zero was read until memory ran out.
    let o = run_within(&["bench", "--cases", "/dev/zero"], Duration::from_secs(30));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("regular file") && stderr(&o).contains("character device"), "{}", stderr(&o));
    // A FIFO blocked in open forever.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("cases.json");
    let made = Command::new("mkfifo").arg(&fifo).status().map(|s| s.success()).unwrap_or(false);
    if made {
        let o = run_within(&["bench", "--cases", fifo.to_str().unwrap()], Duration::from_secs(30));
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("a FIFO"), "{}", stderr(&o));
    } else {
        eprintln!("note: mkfifo unavailable; FIFO case skipped");
    }
    // A directory, and a regular file larger than any case file.
    let o = run(&["bench", "--cases", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let big = dir.path().join("big.json");
    std::fs::write(&big, vec![b' '; 5 << 20]).unwrap();
    let o = run(&["bench", "--cases", big.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("at most 4194304 bytes"), "{}", stderr(&o));
}

const ONE_CASE: &str = r#"[{"name": "rows", "dtype": "i32", "in_sizes": [4, 6], "in_strides": null,
    "window_offsets": [1, 0], "window_sizes": [3, 6], "window_strides": [1, 2], "out_sizes": [3, 3],
    "out_strides": null}]"#;

#[test]
fn file_encodings() {
    let dir = tempfile::tempdir().unwrap();
    // A UTF-8 byte order mark (as Windows editors write) is accepted.
    let bom = dir.path().join("bom.json");
    std::fs::write(&bom, [b"\xEF\xBB\xBF".as_slice(), ONE_CASE.as_bytes()].concat()).unwrap();
    let o = run(&["bench", "--check", "--cases", bom.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("rows: valid"), "{}", stdout(&o));
    // Invalid UTF-8 is invalid input (exit 2), not an I/O error.
    let latin1 = dir.path().join("latin1.json");
    let mut bytes = ONE_CASE.as_bytes().to_vec();
    bytes[ONE_CASE.find("rows").unwrap() + 1] = 0xE9; // "r\xE9ws": Latin-1, not UTF-8
    std::fs::write(&latin1, bytes).unwrap();
    let o = run(&["bench", "--check", "--cases", latin1.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not UTF-8"), "{}", stderr(&o));
}

#[test]
fn empty_case_lists_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    for text in ["[]", "{\"cases\": []}"] {
        let path = dir.path().join("empty.json");
        std::fs::write(&path, text).unwrap();
        let o = run(&["bench", "--cases", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{text}: {}", stderr(&o));
        assert!(stderr(&o).contains("empty"), "{}", stderr(&o));
        assert!(stdout(&o).is_empty(), "no header for nothing: {}", stdout(&o));
    }
}

#[test]
fn a_wrong_expectation_is_not_verified() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("expect.json");
    let case = common::doc_case_with_expect;
    std::fs::write(&path, case("[14, 16, 6, 9]")).unwrap();
    let o = run(&["bench", "--cases", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let row = stdout(&o).lines().find(|l| l.starts_with("doc")).unwrap().to_string();
    assert!(row.trim_end().ends_with("NO(exp)"), "{row}");
    assert!(stderr(&o).contains("output element 3 is 8 but \"expect\" says 9"), "{}", stderr(&o));
    // An expectation of the wrong length is refused before timing.
    std::fs::write(&path, case("[14, 16]")).unwrap();
    let o = run(&["bench", "--cases", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("lists 2 values but the output has 4 elements"), "{}", stderr(&o));
}

#[test]
fn cases_and_single_case_flags_are_exclusive() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one.json");
    std::fs::write(&path, ONE_CASE).unwrap();
    let p = path.to_str().unwrap();
    for flag in [["--dtype", "f32"], ["--output-strides", "1,1"], ["--name", "x"]] {
        let o = run(&["bench", "--check", "--cases", p, flag[0], flag[1]]);
        assert_eq!(o.status.code(), Some(2), "{flag:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(flag[0]) && stderr(&o).contains("--cases"), "{}", stderr(&o));
    }
    let o = run(&["bench", "--check", "--sweep", "2", "--dtype", "f32"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = run(&["bench", "--check", "--sweep", "2", "--cases", p]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn control_characters_in_names_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("names.json");
    std::fs::write(&path, ONE_CASE.replace("\"rows\"", "\"r\\u001b[2Jx\\ny\"")).unwrap();
    let o = run(&["bench", "--cases", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for text in [stdout(&o), stderr(&o)] {
        assert!(!text.contains('\u{1b}'), "raw escape: {text:?}");
        assert!(text.contains("r\\u{1b}[2Jx\\ny"), "{text}");
    }
    let args = doc_case(&["--name", "a\u{7}b", "--check"]);
    let o = run_owned(&args);
    assert!(stdout(&o).starts_with("a\\u{7}b: valid, 4 output elements, 0.0 MiB moved, 0.0 MiB of lines; plan: "));
}

#[test]
fn help_states_the_bounds() {
    // The examples that end every --help are tested in cli_messages.rs; here, the limits a user can hit.
    let o = run(&["bench", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for want in ["at most 1000", "at most 10000", "--max-memory", "--sweep", "stridekit bench --sweep"] {
        assert!(text.contains(want), "{want}: {text}");
    }
}
