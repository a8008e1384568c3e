//! What IN and OUT may be (issue 9, "Files"): FIFOs never block, devices are refused as OUT, a file the user may not
//! write is not replaced, symbolic links are written through (a dangling one creates its target), long names work,
//! and the free space is checked before a file is written.
#![cfg(unix)]

mod common;
use common::{npy, run, stderr};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn f64_npy(values: &[f64]) -> Vec<u8> {
    npy("<f8", false, &[values.len()], &values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>())
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Runs `stridekit args`, killing it (and failing) if it has not finished after 20 seconds.
fn run_bounded(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stridekit"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("stridekit {args:?} blocked for 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

#[test]
fn fifos_never_block() {
    let dir = tempfile::tempdir().unwrap();
    let (fifo, good, out) = (dir.path().join("fifo.npy"), dir.path().join("good.npy"), dir.path().join("out.npy"));
    mkfifo(&fifo);
    std::fs::write(&good, f64_npy(&[1.0, 2.0])).unwrap();
    // As IN.
    let o = run_bounded(&["slice", fifo.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("it is a named pipe (FIFO), not a regular file"), "{}", stderr(&o));
    // As OUT: refused before anything is opened or created.
    let o = run_bounded(&["slice", good.to_str().unwrap(), fifo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("it is a named pipe (FIFO), not a regular file; a .npy file is written atomically"));
    assert_eq!(names(dir.path()), ["fifo.npy", "good.npy"]);
}

#[test]
fn a_read_only_output_is_not_replaced_by_another_user() {
    // As in the issue: a 0444 file owned by someone else, in a world-writable directory, and a non-root user. Run
    // through setpriv as `nobody` when this test runs as root (np.save fails there; so must we).
    let is_root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let setpriv = Path::new("/usr/bin/setpriv").exists();
    if !is_root || !setpriv {
        eprintln!("note: needs root and setpriv to act as another user; the library test covers the non-root case");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let (input, out) = (dir.path().join("in.npy"), dir.path().join("out.npy"));
    std::fs::write(&input, f64_npy(&[1.0])).unwrap();
    std::fs::set_permissions(&input, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::write(&out, b"root's read-only file").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
    // The binary must be reachable by `nobody`: copy it into the directory.
    let exe = dir.path().join("stridekit");
    std::fs::copy(env!("CARGO_BIN_EXE_stridekit"), &exe).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let o = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&exe)
        .args(["slice", input.to_str().unwrap(), out.to_str().unwrap()])
        .output()
        .unwrap();
    let err = stderr(&o);
    if err.contains("setpriv:") {
        eprintln!("note: setpriv cannot switch users here ({err}); skipping");
        return;
    }
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(&format!("error[io]: cannot open for writing {}: Permission denied", out.display())),
        "{err}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"root's read-only file");
    assert_eq!(names(dir.path()), ["in.npy", "out.npy", "stridekit"]);
}

#[test]
fn symbolic_links_are_written_through_even_dangling_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("in.npy");
    std::fs::write(&input, f64_npy(&[1.0, 2.0, 3.0])).unwrap();
    std::os::unix::fs::symlink("target.npy", d.join("dangling.npy")).unwrap();
    let o = run(&["slice", input.to_str().unwrap(), d.join("dangling.npy").to_str().unwrap(), "--numpy", "::-1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(d.join("dangling.npy")).unwrap().file_type().is_symlink());
    let written = std::fs::read(d.join("target.npy")).unwrap();
    assert_eq!(&written[written.len() - 24..], f64_npy(&[3.0, 2.0, 1.0]).split_off(written.len() - 24).as_slice());
    assert_eq!(names(d), ["dangling.npy", "in.npy", "target.npy"]);
}

#[test]
fn the_longest_file_name_works() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npy");
    std::fs::write(&input, f64_npy(&[1.0])).unwrap();
    for len in [244, 255] {
        let out = dir.path().join(format!("{}.npy", "n".repeat(len - 4)));
        let o = run(&["slice", input.to_str().unwrap(), out.to_str().unwrap()]);
        assert!(o.status.success(), "{len}: {}", stderr(&o));
        assert!(out.is_file());
    }
}

/// Free bytes of the file system holding `dir`, from df.
fn free_bytes(dir: &Path) -> Option<u64> {
    let o = Command::new("df").args(["-B1", "--output=avail"]).arg(dir).output().ok()?;
    String::from_utf8_lossy(&o.stdout).lines().nth(1)?.trim().parse().ok()
}

#[test]
fn an_output_larger_than_the_free_space_is_refused_before_writing() {
    // Two float64 elements with an output stride of 4294967294: a legal 34 GB file. On a file system with less
    // free space (the /dev/shm tmpfs of a CI machine, typically), it is refused with both numbers.
    let needed: u64 = 4_294_967_295 * 8 + 128;
    let Some(dir) =
        ["/dev/shm", "/tmp"].iter().map(Path::new).find(|d| d.is_dir() && free_bytes(d).is_some_and(|f| f < needed))
    else {
        eprintln!("note: no file system with less than {needed} bytes free; skipping");
        return;
    };
    let dir = tempfile::tempdir_in(dir).unwrap();
    let (input, out) = (dir.path().join("in.npy"), dir.path().join("out.npy"));
    std::fs::write(&input, f64_npy(&[1.0, 2.0])).unwrap();
    let o = run(&["slice", input.to_str().unwrap(), out.to_str().unwrap(), "--output-strides", "4294967294"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "error[disk]: {} would be 34359738488 bytes (32.0 GiB), but the file system holding",
            out.display()
        )),
        "{err}"
    );
    assert!(err.contains("free; nothing was written"), "{err}");
    assert_eq!(names(dir.path()), ["in.npy"]);
}

#[test]
fn a_file_much_larger_than_the_input_is_announced() {
    // 3 float64 elements, output stride 5000000: an 80 MB file from a 152-byte input (legal DirectML).
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in.npy"), dir.path().join("out.npy"));
    std::fs::write(&input, f64_npy(&[1.0, 2.0, 3.0])).unwrap();
    let o = run(&["slice", input.to_str().unwrap(), out.to_str().unwrap(), "--output-strides", "5000000"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!("note: {} will be 80000136 bytes (76.3 MiB), 526316x the input's 152 bytes\n", out.display())
    );
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 80_000_136);
}
