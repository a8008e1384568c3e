//! `stridekit calibrate`: the profile it writes, where, and what the defaults make of it (`stridekit bench` names
//! the source of its streaming thresholds). Timings are never asserted; the thresholds' consistency is.

mod common;

use common::{stderr, stdout};
use std::path::Path;
use std::process::{Command, Output};
use stridekit_cpu::{MachineKey, StreamingProfile, StreamingRule};

/// Runs `stridekit` with `args` and the profile variable set to `profile` (unset when `None`), with `home` as the
/// home directory and no XDG cache directory.
fn run_with(args: &[&str], profile: Option<&str>, home: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stridekit"));
    cmd.args(args).env("HOME", home).env_remove("XDG_CACHE_HOME").env_remove("STRIDEKIT_PROFILE");
    if let Some(p) = profile {
        cmd.env("STRIDEKIT_PROFILE", p);
    }
    cmd.output().expect("the stridekit binary runs")
}

const QUICK: [&str; 5] = ["calibrate", "--max-bytes", "1M", "--reps", "3"];
const DOC_BENCH: [&str; 10] =
    ["bench", "--reps", "10", "--dtype", "f32", "--input-sizes", "4,4", "--strides", "1,-1", "--json"];

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|e| e.unwrap_or_else(|e| panic!("{e}")).file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_calibration_writes_a_profile_of_this_machine_that_bench_then_takes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("profile");
    let mut args = QUICK.to_vec();
    args.extend(["--output", path.to_str().unwrap()]);
    let o = run_with(&args, Some("off"), dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    for want in ["moved     copy  reverse   gather     fill", "streaming from (bytes moved): copies ", "wrote "] {
        assert!(out.contains(want), "{want} in {out}");
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let profile = StreamingProfile::parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    // The machine as this process sees it (same CPU, cache and thread pool as the child).
    assert_eq!(profile.machine, MachineKey::this());
    // Each measured threshold lies within the sizes measured (0.5 to 1 MiB), or at twice the largest, in whole 64
    // KiB; the strided kernels keep the rule's.
    let s = profile.streaming;
    for t in [s.copy, s.contiguous, s.fill] {
        assert!((512 << 10..=1 << 20).contains(&t) || t == 2 << 20, "{t} in {text}");
        assert_eq!(t % 65536, 0, "{t} in {text}");
    }
    let rule = StreamingRule::detected().thresholds(stridekit_cpu::ExecOptions::last_level_cache_bytes());
    assert_eq!(s.other, rule.other);
    assert_eq!(entries(dir.path()), ["profile"], "no temporary file left");

    // bench names the profile and streams from its thresholds.
    let o = run_with(&DOC_BENCH, Some(path.to_str().unwrap()), dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mib = |b: usize| format!("{:.1}", b as f64 / (1 << 20) as f64);
    let want = format!(
        "streaming stores (profile {}) from {} MiB moved for plain copies, {} for reverses and gathers, {} for fills",
        path.display(),
        mib(s.copy),
        mib(s.contiguous),
        mib(s.fill)
    );
    assert!(stderr(&o).contains(&want), "{want} in {}", stderr(&o));

    // Measured elsewhere: ignored with the reason, the rule's thresholds instead.
    std::fs::write(&path, text.replace(&format!("cpu {}\n", profile.machine.cpu), "cpu Another CPU\n")).unwrap();
    let o = run_with(&DOC_BENCH, Some(path.to_str().unwrap()), dir.path());
    let want = format!("rule; profile {} ignored: it was measured on the CPU 'Another CPU'", path.display());
    assert!(stderr(&o).contains(&want), "{want} in {}", stderr(&o));
    assert!(stderr(&o).contains(&format!("from {} MiB moved for plain copies", mib(rule.copy))), "{}", stderr(&o));
    // Off: no profile at all.
    let o = run_with(&DOC_BENCH, Some("off"), dir.path());
    assert!(stderr(&o).contains("rule; profiles off) from "), "{}", stderr(&o));
}

#[test]
fn without_output_the_profile_goes_where_the_defaults_read_it() {
    let home = tempfile::tempdir().unwrap();
    let o = run_with(&QUICK, None, home.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let path = home.path().join(".cache/stridekit/streaming-profile");
    assert!(stdout(&o).contains(&format!("wrote {}:", path.display())), "{}", stdout(&o));
    assert!(StreamingProfile::parse(&std::fs::read_to_string(&path).unwrap()).is_ok());
    let o = run_with(&DOC_BENCH, None, home.path());
    assert!(stderr(&o).contains(&format!("(profile {}) from ", path.display())), "{}", stderr(&o));
    // A dry run measures and prints, and writes nothing.
    let other = tempfile::tempdir().unwrap();
    let mut args = QUICK.to_vec();
    args.push("--dry-run");
    let o = run_with(&args, None, other.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("streaming from (bytes moved)") && !stdout(&o).contains("wrote"));
    assert!(entries(other.path()).is_empty());
}

#[test]
fn bad_arguments_and_destinations_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |args: &[&str], profile: Option<&str>, want: &str| {
        let o = run_with(args, profile, dir.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{want} in {}", stderr(&o));
    };
    refused(
        &["calibrate", "--max-bytes", "512K"],
        None,
        "error[args]: --max-bytes 512K is out of range: give 1M to 1G",
    );
    refused(&["calibrate", "--max-bytes", "2G"], None, "out of range");
    refused(&["calibrate", "--max-bytes", "lots"], None, "error[args]: --max-bytes 'lots' is not a byte count");
    refused(&["calibrate", "--reps", "2"], None, "error[args]: --reps 2 is out of range: give 3 to 1000 samples");
    refused(&["calibrate", "--rounds", "0"], None, "error[args]: --rounds 0 is out of range: give 1 to 100");
    refused(&QUICK, Some("off"), "error[args]: no place for the profile: STRIDEKIT_PROFILE is off or empty");
    // A directory as the destination: refused after the measurement, nothing created.
    let mut args = QUICK.to_vec();
    args.extend(["--output", dir.path().to_str().unwrap()]);
    refused(&args, Some("off"), "it is a directory, not a regular file; give the path of the file to write");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}
