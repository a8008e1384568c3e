//! `stridekit bench`: one case from flags, case files, `--only`, `--check`, the roofline figures, the sweep, and the
//! errors. Timings are never asserted (benchmarks are not tests); the figures' consistency and the verification are.
//! Hostile inputs: cli_bench_hostile.rs.

mod common;

use common::{run, stderr, stdout};
use std::path::PathBuf;

const DOC_CASE: [&str; 14] = [
    "--dtype",
    "f32",
    "--input-sizes",
    "1,1,4,4",
    "--offsets",
    "0,0,0,1",
    "--sizes",
    "1,1,4,3",
    "--strides",
    "1,1,-2,2",
    "--output-sizes",
    "1,1,2,2",
    "--name",
    "doc",
];

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// Runs `stridekit bench --json` on the doc case with `flags`: its one JSON line, and what it wrote to stderr.
fn doc_case_line(flags: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec!["bench", "--json"];
    args.extend(flags);
    args.extend(DOC_CASE);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut lines = json_lines(&stdout(&o));
    assert_eq!(lines.len(), 1);
    (lines.remove(0), stderr(&o))
}

#[test]
fn one_case_from_flags_reports_consistent_figures() {
    let (line, err) = doc_case_line(&["--reps", "10", "--threads", "1"]);
    let l = &line;
    assert_eq!(l["case"], "doc");
    // 2 x 2 float32 outputs, counted as the peers count: read + written.
    assert_eq!(l["bytes_moved"], 32);
    assert_eq!(l["useful_bytes"], 16);
    assert_eq!(l["verified"], true);
    assert_eq!(l["threads"], 1);
    assert_eq!(l["timing"], "interleaved");
    // DirectML's 4x4 example is one table walk (the planner's choice, reported per case).
    assert_eq!(l["kernel"], "table");
    // The whole program: a block of 4 f32 read from 44 bytes, one row, no outer loops (the form, shuffles or a
    // walk, depends on the CPU's SIMD).
    let plan = l["plan"].as_str().unwrap();
    assert!(plan.starts_with("table block 4x4B hull 44 rows 1:0/0 per 1 ") && plan.ends_with("; outer []"), "{plan}");
    assert_eq!(l["class"], "tiny");
    // The 4x4 input is one cache line, the 2x2 output another.
    assert_eq!((l["lines_read"].as_u64(), l["lines_written"].as_u64()), (Some(1), Some(1)));
    assert_eq!((l["roofline_bytes"].as_u64(), l["traffic_exact"].as_bool()), (Some(128), Some(true)));
    let (median, gbps) = (l["median_s"].as_f64().unwrap(), l["gbps"].as_f64().unwrap());
    assert!(median > 0.0 && gbps > 0.0);
    assert!((gbps - 32.0 / median / 1e9).abs() <= 1e-9 * gbps.max(1.0));
    // roofline = the best copy's time for the lines moved / stridekit's time.
    let (copy, roofline) = (l["copy_gbps"].as_f64().unwrap(), l["roofline"].as_f64().unwrap());
    assert!(copy > 0.0 && roofline > 0.0);
    let want = 128.0 / (copy * 1e9) / median;
    assert!((roofline - want).abs() <= 1e-9 * want, "{roofline} vs {want}");
    assert!(["memcpy 1t", "copy all", "stream 1t", "stream all"].contains(&l["copy"].as_str().unwrap()), "{l}");
    assert!(err.contains("[1/1] doc"), "progress on stderr: {err}");
    // The machine line names the SIMD kernels this CPU runs (the speed of some kernels depends on them).
    let kernels = ["; portable kernels", "; avx2 kernels", "; avx2 + avx512vbmi kernels"];
    assert!(kernels.iter().any(|k| err.contains(k)), "machine line: {err}");
}

#[test]
fn back_to_back_timing_is_reported_and_cpu_only() {
    // The peers' way of timing: the case's calls back to back, then the copy's; the same figures otherwise.
    let (line, err) = doc_case_line(&["--back-to-back", "--threads", "1"]);
    let l = &line;
    assert_eq!(
        (l["case"].as_str(), l["timing"].as_str(), l["verified"].as_bool()),
        (Some("doc"), Some("back-to-back"), Some(true))
    );
    let (median, copy, roofline) =
        (l["median_s"].as_f64().unwrap(), l["copy_gbps"].as_f64().unwrap(), l["roofline"].as_f64().unwrap());
    let want = 128.0 / (copy * 1e9) / median;
    assert!(median > 0.0 && (roofline - want).abs() <= 1e-9 * want, "{roofline} vs {want}");
    assert!(err.contains("back to back"), "the run says how it times: {err}");
    // A GPU times batches on the device: the flag is refused before anything runs.
    let mut args = vec!["bench", "--back-to-back", "--device", "gpu"];
    args.extend(DOC_CASE);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--back-to-back times CPU calls"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

fn case_file(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("cases.json");
    let text = r#"{"cases": [
      {"name": "flip_u8", "dtype": "u8", "in_sizes": [1, 1, 8, 64], "in_strides": null,
       "window_offsets": [0, 0, 0, 0], "window_sizes": [1, 1, 8, 64], "window_strides": [1, 1, -1, -1],
       "out_sizes": [1, 1, 8, 64], "out_strides": [1024, 1024, 128, 1], "note": "unknown fields are ignored"},
      {"name": "nhwc_f16", "dtype": "float16", "in_sizes": [1, 20, 4, 8], "in_strides": [640, 1, 160, 20],
       "window_offsets": [0, 0, 0, 0], "window_sizes": [1, 20, 4, 8], "window_strides": [1, 1, 1, 1],
       "out_sizes": [1, 20, 4, 8], "out_strides": null}
    ]}"#;
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn case_file_table_and_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = case_file(&dir);
    let p = path.to_str().unwrap();
    let o = run(&["bench", "--cases", p]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(table.starts_with("case "), "{table}");
    for name in ["flip_u8", "nhwc_f16"] {
        let row = table.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name} in {table}"));
        assert!(row.trim_end().ends_with("yes"), "verified: {row}");
    }
    // Two cases: the roofline distribution follows the table.
    assert!(table.contains("\nroofline ("), "{table}");
    assert!(table.lines().any(|l| l.starts_with("all ")), "{table}");
    assert!(table.lines().next().unwrap().contains("roofline"), "{table}");
    assert!(table.lines().next().unwrap().contains("kernel"), "{table}");
    // ... and the distribution per kernel: each case's kernel with its count.
    let kernels = table.lines().skip_while(|l| !l.starts_with("kernel ")).skip(1).take_while(|l| !l.is_empty());
    let counted: usize = kernels.map(|l| l.split_whitespace().nth(1).unwrap().parse::<usize>().unwrap()).sum();
    assert_eq!(counted, 2, "{table}");
    let o = run(&["bench", "--cases", p, "--only", "nhwc_f16", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["case"], "nhwc_f16");
    assert_eq!(lines[0]["bytes_moved"], 2 * 640 * 2);
    let o = run(&["bench", "--cases", p, "--only", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no case named 'nope'"), "{}", stderr(&o));
}

#[test]
fn one_case_window_flags_default_as_in_slice() {
    // Only the input: the whole input, unit strides; MaxCopiedElements per dimension from --strides.
    let o = run(&["bench", "--check", "--dtype", "u8", "--input-sizes", "2,3,40", "--strides", "1,1,-3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(facts(&stdout(&o)), ["cli: valid, 84 output elements, 0.0 MiB moved, 0.0 MiB of lines"]);
    let o = run(&["bench", "--check", "--dtype", "f32", "--input-sizes", "4,5", "--offsets", "1,2"]);
    assert_eq!(
        facts(&stdout(&o)),
        ["cli: valid, 9 output elements, 0.0 MiB moved, 0.0 MiB of lines"],
        "{}",
        stderr(&o)
    );
    // Planes to pixels (CHW -> HWC) from the input sizes and the output strides alone, timed and verified.
    let o = run(&["bench", "--json", "--dtype", "u8", "--input-sizes", "3,8,40", "--output-strides", "1,120,3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    assert_eq!((lines[0]["bytes_moved"].as_u64(), lines[0]["verified"].as_bool()), (Some(2 * 960), Some(true)));
}

#[test]
fn a_bare_list_of_cases_is_a_case_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("list.json");
    let text = r#"[{"name": "rows", "dtype": "i32", "in_sizes": [4, 6], "in_strides": null, "window_offsets": [1, 0],
        "window_sizes": [3, 6], "window_strides": [1, 2], "out_sizes": [3, 3], "out_strides": null}]"#;
    std::fs::write(&path, text).unwrap();
    let o = run(&["bench", "--check", "--cases", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(facts(&stdout(&o)), ["rows: valid, 9 output elements, 0.0 MiB moved, 0.0 MiB of lines"]);
}

#[test]
fn check_validates_without_timing() {
    let dir = tempfile::tempdir().unwrap();
    let path = case_file(&dir);
    let o = run(&["bench", "--check", "--cases", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        facts(&stdout(&o)),
        [
            "flip_u8: valid, 512 output elements, 0.0 MiB moved, 0.0 MiB of lines",
            "nhwc_f16: valid, 640 output elements, 0.0 MiB moved, 0.0 MiB of lines"
        ]
    );
    assert!(!stderr(&o).contains("[1/"), "nothing is timed: {}", stderr(&o));
    // Each line names the program the timed run compiles for the case, with the same options.
    let checked = plans(&stdout(&o));
    let o = run(&["bench", "--json", "--cases", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let timed: Vec<String> =
        json_lines(&stdout(&o)).iter().filter_map(|l| l["plan"].as_str().map(str::to_owned)).collect();
    assert_eq!(checked, timed);
    assert!(timed.iter().all(|p| !p.is_empty()), "{timed:?}");
}

/// The facts of each line `--check` prints, without the plan after them.
fn facts(text: &str) -> Vec<&str> {
    text.lines().map(|l| l.split_once("; plan: ").expect("every line names its plan").0).collect()
}

/// The plan each line of `--check` names.
fn plans(text: &str) -> Vec<String> {
    text.lines().map(|l| l.split_once("; plan: ").expect("every line names its plan").1.to_owned()).collect()
}

/// The case files shipped in bench/ and the peer benchmark's (when `../shared` is beside the repository, as in
/// CI) describe valid slices.
#[test]
fn shipped_case_files_are_valid() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Every case file in bench/, so that a new one is checked without being listed here.
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("bench"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "bench/ holds the shipped case files: {files:?}");
    let shared = root.join("../shared/bench/cases.json");
    if shared.exists() {
        files.push(shared);
    } else {
        eprintln!("note: {} not found; checked the repository's case files only", shared.display());
    }
    for f in files {
        let o = run(&["bench", "--check", "--cases", f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}: {}", f.display(), stderr(&o));
        assert!(stdout(&o).lines().count() >= 7, "{}: {}", f.display(), stdout(&o));
        assert!(stdout(&o).lines().all(|l| l.contains(": valid, ")), "{}", stdout(&o));
    }
}

#[test]
fn invalid_cases_and_arguments_exit_2() {
    // The window runs past the input: the library's rule, before anything is timed.
    let mut args = vec!["bench"];
    args.extend(DOC_CASE);
    args[4] = "1,1,3,4";
    let o = run(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("error[R-"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
    // A case flag without a default missing.
    let o = run(&["bench", "--dtype", "f32"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--input-sizes"), "{}", stderr(&o));
    // Not a case file.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"cases\": 3}").unwrap();
    let o = run(&["bench", "--cases", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a bench case file"), "{}", stderr(&o));
    // A missing case file is an I/O error.
    let o = run(&["bench", "--cases", dir.path().join("missing.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// The tiny sweep of these tests: 3 cases of 4-16 KiB.
const SWEEP: [&str; 8] = ["bench", "--sweep", "3", "--seed", "5", "--sweep-min-bytes", "4K", "--sweep-max-bytes"];

#[test]
fn sweep_is_deterministic_and_its_worst_cases_rerun() {
    let mut check: Vec<&str> = SWEEP.to_vec();
    check.extend(["16K", "--check"]);
    let a = run(&check);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(stdout(&a).lines().count(), 3, "{}", stdout(&a));
    assert_eq!(stdout(&a), stdout(&run(&check)), "same seed, same cases");
    check[4] = "6";
    assert_ne!(stdout(&a), stdout(&run(&check)), "another seed, other cases");

    let dir = tempfile::tempdir().unwrap();
    let worst = dir.path().join("worst.json");
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend(["16K", "--json", "--worst", "2", "--save-worst", worst.to_str().unwrap()]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    assert_eq!(lines.len(), 4, "three cases and the summary");
    assert!(lines[..3].iter().all(|l| l["verified"] == true && l["roofline"].as_f64().unwrap() > 0.0));
    let summary = &lines[3];
    assert_eq!(summary["summary"]["all"]["count"], 3);
    // The distribution per kernel counts every case under the kernel its line names.
    let by_kernel = summary["by_kernel"].as_object().unwrap();
    assert_eq!(by_kernel.values().map(|d| d["count"].as_u64().unwrap()).sum::<u64>(), 3, "{summary}");
    for l in &lines[..3] {
        let k = l["kernel"].as_str().unwrap();
        let n = lines[..3].iter().filter(|m| m["kernel"] == k).count() as u64;
        assert_eq!(by_kernel[k]["count"].as_u64(), Some(n), "{summary}");
    }
    let min = lines[..3].iter().map(|l| l["roofline"].as_f64().unwrap()).fold(f64::INFINITY, f64::min);
    assert_eq!(summary["summary"]["all"]["min"].as_f64(), Some(min));
    // The worst two, lowest roofline first, in the case-file schema: they re-run with --cases.
    let listed = summary["worst"]["cases"].as_array().unwrap();
    assert_eq!(listed.len(), 2);
    let worst_name = lines[..3].iter().find(|l| l["roofline"].as_f64() == Some(min)).unwrap()["case"].clone();
    assert_eq!(listed[0]["name"], worst_name);
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&worst).unwrap()).unwrap();
    assert_eq!(&saved, &summary["worst"]);
    let o = run(&["bench", "--cases", worst.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rerun = json_lines(&stdout(&o));
    assert_eq!(rerun[0]["case"], worst_name);
    assert_eq!(rerun[0]["roofline_bytes"], lines.iter().find(|l| l["case"] == worst_name).unwrap()["roofline_bytes"]);
}

/// `--check --json` writes the validated cases as a case file: the same cases, which `--cases` then runs.
#[test]
fn check_with_json_writes_the_cases_as_a_case_file() {
    let mut check: Vec<&str> = SWEEP.to_vec();
    check.extend(["16K", "--check"]);
    let sizes = run(&check);
    check.push("--json");
    let o = run(&check);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let file: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)));
    let names: Vec<&str> = file["cases"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["sweep5_000", "sweep5_001", "sweep5_002"], "{file}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sweep.json");
    std::fs::write(&path, stdout(&o)).unwrap();
    let again = run(&["bench", "--check", "--cases", path.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(stdout(&again), stdout(&sizes), "the file holds the sweep's cases");
}

#[test]
fn sweep_table_lists_the_distribution_and_the_worst_cases() {
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend(["8K", "--worst", "1"]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    for want in ["roofline (", "geomean", "worst cases", "\"cases\": ["] {
        assert!(text.contains(want), "{want} in {text}");
    }
    // A sweep of one case still ends with its summary and its worst case.
    let mut args: Vec<&str> = SWEEP.to_vec();
    args[2] = "1";
    args.extend(["8K", "--json"]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    assert_eq!((lines.len(), lines[1]["worst"]["cases"].as_array().map(Vec::len)), (2, Some(1)));
    // A sweep is bounded and checked like any run: sizes in the wrong order are refused.
    let mut args: Vec<&str> = SWEEP.to_vec();
    args[6] = "1M";
    args.push("4K");
    let o = run(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--sweep-max-bytes"), "{}", stderr(&o));
}

#[test]
fn expect_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("expect.json");
    let case = common::doc_case_with_expect;
    std::fs::write(&path, case("[14, 16, 6, 8]")).unwrap();
    let o = run(&["bench", "--cases", path.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json_lines(&stdout(&o))[0]["expect"], "ok");
    // The peers' case file carries expectations for its tiny cases.
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/cases.json");
    if shared.exists() {
        let o = run(&["bench", "--cases", shared.to_str().unwrap(), "--only", "tiny_doc_f32,tiny_doc_neg_f32"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o).lines().filter(|l| l.trim_end().ends_with(" yes")).count(), 2, "{}", stdout(&o));
    }
}

/// Runs `stridekit bench --json` on one case from `case` flags with `flags` before them: its plan.
fn plan_of(case: &[&str], flags: &[&str]) -> String {
    let mut args = vec!["bench", "--json", "--reps", "10", "--threads", "1"];
    args.extend(flags);
    args.extend(case);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    assert_eq!(lines[0]["verified"], true);
    lines[0]["plan"].as_str().unwrap().to_string()
}

#[test]
fn streaming_thresholds_are_overridden_together_then_per_kernel() {
    // A plain copy (64 KiB of f32: 128 KiB moved) and a fill of the same output (a broadcast element per row).
    let copy = ["--dtype", "f32", "--input-sizes", "16,1024"];
    let fill = ["--dtype", "f32", "--input-sizes", "16,1024", "--input-strides", "1,0", "--output-sizes", "16,1024"];
    let streams = |case: &[&str], flags: &[&str]| plan_of(case, flags).ends_with("; streaming");
    let (all, none) = (["--nt-min-bytes", "0"], ["--nt-min-bytes", "999999999999"]);
    assert!(streams(&copy, &all) && streams(&fill, &all));
    assert!(!streams(&copy, &none) && !streams(&fill, &none));
    // Each kernel's own flag overrides the common one for that kernel only.
    let copy_off = ["--nt-min-bytes", "0", "--nt-copy-min-bytes", "999999999999"];
    assert!(!streams(&copy, &copy_off) && streams(&fill, &copy_off));
    let fill_off = ["--nt-min-bytes", "0", "--nt-fill-min-bytes", "999999999999"];
    assert!(streams(&copy, &fill_off) && !streams(&fill, &fill_off));
    let fill_on = ["--nt-min-bytes", "999999999999", "--nt-fill-min-bytes", "0"];
    assert!(!streams(&copy, &fill_on) && streams(&fill, &fill_on));
}

#[test]
fn threshold_flags_take_sizes_with_units_and_refuse_other_text_before_any_case_runs() {
    // 128 KiB moved: streamed from 127K on, not from 129K (the units are powers of 1024, as --max-memory's).
    let copy = ["--dtype", "f32", "--input-sizes", "16,1024"];
    assert!(plan_of(&copy, &["--nt-min-bytes", "127K"]).ends_with("; streaming"));
    assert!(!plan_of(&copy, &["--nt-min-bytes", "129K"]).ends_with("; streaming"));
    assert!(plan_of(&copy, &["--nt-min-bytes", "1T", "--nt-copy-min-bytes", "128KiB"]).ends_with("; streaming"));
    for flag in [
        "--nt-min-bytes",
        "--nt-copy-min-bytes",
        "--nt-contiguous-min-bytes",
        "--nt-fill-min-bytes",
        "--parallel-min-bytes",
        "--reuse-tile-bytes",
    ] {
        let o = run(&["bench", "--dtype", "f32", "--input-sizes", "16,1024", flag, "12Q"]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(&format!("{flag} '12Q' is not a byte count")), "{flag}: {e}");
        assert!(stdout(&o).is_empty(), "{flag}: nothing is timed");
    }
}
