//! Interrupting `stridekit slice` (issue 9): SIGINT, SIGTERM, SIGHUP and SIGBUS remove the temporary output file
//! before the process ends with the signal; a file-size limit (SIGXFSZ) is an ordinary I/O error. An existing OUT is
//! never touched.
#![cfg(target_os = "linux")]
#![allow(unsafe_code)] // libc::kill in `send`, with its SAFETY argument.

mod common;
use common::npy;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const EXISTING: &[u8] = b"an older output that must survive";

/// A directory with `in.npy` (two float64) and an existing `out.npy`.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in.npy"), dir.path().join("out.npy"));
    std::fs::write(&input, npy("<f8", false, &[2], &[0u8; 16])).unwrap();
    std::fs::write(&out, EXISTING).unwrap();
    (dir, input, out)
}

/// The temporary files (`.sk.*.tmp`) in `dir`.
fn temps(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".sk.") && n.ends_with(".tmp"))
        .collect()
}

/// Starts a slice that writes a 4 GiB file (two float64 with an output stride of 2^29: legal DirectML, mostly
/// zeros), which takes long enough to be interrupted while its temporary file is being filled.
fn start(input: &Path, out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(["slice", input.to_str().unwrap(), out.to_str().unwrap(), "--output-strides", "536870912"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn send(child: &Child, signal: libc::c_int) {
    // SAFETY: kill(2) with the pid of a child we own and have not yet waited for (so the pid is not reused).
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    assert_eq!(rc, 0);
}

/// Waits until the temporary file exists (the slice is filling it); `false` if the slice ended first.
fn wait_for_temp(dir: &Path, child: &mut Child) -> bool {
    let start = Instant::now();
    while temps(dir).is_empty() {
        if child.try_wait().unwrap().is_some() || start.elapsed() > Duration::from_secs(30) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    true
}

#[test]
fn a_terminating_signal_removes_the_temporary_file() {
    for (name, signal) in
        [("SIGTERM", libc::SIGTERM), ("SIGINT", libc::SIGINT), ("SIGHUP", libc::SIGHUP), ("SIGBUS", libc::SIGBUS)]
    {
        let (dir, input, out) = setup();
        let mut child = start(&input, &out);
        if !wait_for_temp(dir.path(), &mut child) {
            let o = child.wait_with_output().unwrap();
            panic!(
                "{name}: the slice ended before its temporary file was seen: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        send(&child, signal);
        let status = child.wait().unwrap();
        if status.success() {
            eprintln!("note: {name}: the slice finished before the signal arrived; nothing to check");
            continue;
        }
        assert_eq!(status.signal(), Some(signal), "{name}: the process ends with the signal it got");
        assert_eq!(temps(dir.path()), Vec::<String>::new(), "{name}: the temporary file was left behind");
        assert_eq!(std::fs::read(&out).unwrap(), EXISTING, "{name}");
    }
}

#[test]
fn a_file_size_limit_is_an_io_error_and_leaves_nothing() {
    let (dir, input, out) = setup();
    // ulimit -f 1024: 512 KiB or 1 MiB depending on the shell's block unit; the output is 4 GiB either way.
    let script = format!(
        "ulimit -f 1024 && exec {} slice {} {} --output-strides 536870912",
        env!("CARGO_BIN_EXE_stridekit"),
        input.display(),
        out.display()
    );
    let o = Command::new("sh").arg("-c").arg(script).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.signal(), None, "killed by a signal: {err}");
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error[io]: cannot write") && err.contains("File too large"), "{err}");
    assert_eq!(temps(dir.path()), Vec::<String>::new());
    assert_eq!(std::fs::read(&out).unwrap(), EXISTING);
}

#[test]
fn a_truncated_input_ends_with_sigbus_and_leaves_no_temporary_file() {
    // The hazard every memory map carries (NumPy's mmap_mode too): the input shrinks while it is read. The input is
    // truncated while the 64 MiB output is being prefilled, before the copy reads it, so the copy's first read of
    // a lost page faults: a real SIGBUS, not a simulated one.
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in.npy"), dir.path().join("out.npy"));
    let header = common::npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (8388608,), }");
    let file = std::fs::File::create(&input).unwrap();
    use std::io::Write as _;
    (&file).write_all(&header).unwrap();
    file.set_len(header.len() as u64 + (64 << 20)).unwrap();
    std::fs::write(&out, EXISTING).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(["slice", input.to_str().unwrap(), out.to_str().unwrap(), "--strides", "-1"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_for_temp(dir.path(), &mut child), "the slice ended before its temporary file was seen");
    file.set_len(header.len() as u64).unwrap();
    let status = child.wait().unwrap();
    if status.success() {
        eprintln!("note: the copy read the input before the truncation; nothing to check");
        return;
    }
    assert_eq!(status.signal(), Some(libc::SIGBUS), "{status:?}");
    assert_eq!(temps(dir.path()), Vec::<String>::new(), "the temporary file was left behind");
    assert_eq!(std::fs::read(&out).unwrap(), EXISTING);
}

#[test]
fn a_signal_ignored_by_the_parent_stays_ignored() {
    // `stridekit slice ... &` in a script starts with SIGINT ignored; it must run to the end (as before the handler).
    let (dir, input, out) = setup();
    let script = format!(
        "trap '' INT && exec {} slice {} {} --output-strides 16777216",
        env!("CARGO_BIN_EXE_stridekit"),
        input.display(),
        out.display()
    );
    let mut child = Command::new("sh").arg("-c").arg(script).stderr(Stdio::null()).spawn().unwrap();
    if wait_for_temp(dir.path(), &mut child) {
        send(&child, libc::SIGINT);
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 128 + (16_777_216 + 1) * 8);
    assert_eq!(temps(dir.path()), Vec::<String>::new());
}
