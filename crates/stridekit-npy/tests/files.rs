//! What a path may be, for reading and for the atomic writer: regular files only (no hang on a FIFO, no write into
//! a device), read-only files not replaced, symbolic links written through (live and dangling), hard links and long
//! names as documented on `AtomicNpyFile`.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use stridekit::DataType;
use stridekit_npy::{AtomicNpyFile, InvalidKind, MappedNpy, NpyError, TEMP_PREFIX, TEMP_SUFFIX, read_npy};

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap_or_else(|e| panic!("mkfifo: {e}"));
    assert!(status.success());
}

/// Runs `f` on another thread and fails (instead of hanging the test run) if it takes more than 20 seconds.
fn within_20s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("blocked: a FIFO was opened and waited on"))
}

fn write(path: &Path, value: u8) -> Result<(), NpyError> {
    let mut out = AtomicNpyFile::create(path, DataType::Uint8, &[1])?;
    out.data_mut()[0] = value;
    out.commit()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    v.sort();
    v
}

#[test]
fn a_fifo_as_input_is_refused_without_blocking() {
    let dir = tempdir();
    let fifo = dir.path().join("in.npy");
    mkfifo(&fifo);
    let (a, b) = (fifo.clone(), fifo.clone());
    let mapped = within_20s(move || MappedNpy::open(&a).map(|_| ()).map_err(|e| e.to_string()));
    let read = within_20s(move || read_npy(&b).map(|_| ()).map_err(|e| e.to_string()));
    for e in [mapped, read] {
        let e = e.err().unwrap_or_default();
        assert_eq!(
            e,
            format!(
                "error[npy]: {}: it is a named pipe (FIFO), not a regular file; give the path of a .npy file",
                fifo.display()
            )
        );
    }
}

#[test]
fn a_fifo_or_device_as_output_is_refused_without_opening_it() {
    let dir = tempdir();
    let fifo = dir.path().join("out.npy");
    mkfifo(&fifo);
    let f = fifo.clone();
    let e = within_20s(move || write(&f, 1).map_err(|e| e.to_string())).err().unwrap_or_default();
    assert!(
        e.starts_with(&format!(
            "error[npy]: {}: it is a named pipe (FIFO), not a regular file; a .npy file is written atomically",
            fifo.display()
        )),
        "{e}"
    );
    assert_eq!(entries(dir.path()), ["out.npy"], "no temporary file left");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).is_ok_and(|m| m.file_type().is_fifo()));
    for device in ["/dev/null", "/dev/full"] {
        if Path::new(device).exists() {
            let e = write(Path::new(device), 1).err();
            assert!(
                matches!(
                    e.as_ref().and_then(NpyError::invalid_kind),
                    Some(InvalidKind::NotRegularFile { what: "a device", .. })
                ),
                "{e:?}"
            );
            assert!(std::fs::metadata(device).is_ok_and(|m| m.file_type().is_char_device()));
        }
    }
}

#[test]
fn a_file_the_user_may_not_write_is_not_replaced() {
    let dir = tempdir();
    let out = dir.path().join("out.npy");
    std::fs::write(&out, b"read-only contents").unwrap_or_else(|e| panic!("{e}"));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap_or_else(|e| panic!("{e}"));
    if std::fs::File::options().write(true).open(&out).is_ok() {
        // Root may write any file, and np.save succeeds for root too; tests/cli_files.rs runs this as another user.
        eprintln!("note: this user may write a 0444 file (root); the refusal is tested through the CLI under setpriv");
        return;
    }
    let e = write(&out, 1).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.starts_with(&format!("error[io]: cannot open for writing {}: Permission denied", out.display())), "{e}");
    assert_eq!(std::fs::read(&out).ok(), Some(b"read-only contents".to_vec()));
    assert_eq!(entries(dir.path()), ["out.npy"]);
}

#[test]
fn symbolic_links_are_written_through() {
    let dir = tempdir();
    let d = dir.path();
    // A live link: the target is replaced, the link kept.
    std::fs::write(d.join("real.npy"), b"old").unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink("real.npy", d.join("live.npy")).unwrap_or_else(|e| panic!("{e}"));
    write(&d.join("live.npy"), 9).unwrap_or_else(|e| panic!("{e}"));
    assert!(std::fs::symlink_metadata(d.join("live.npy")).is_ok_and(|m| m.file_type().is_symlink()));
    assert_eq!(read_npy(&d.join("real.npy")).map(|a| a.data).ok(), Some(vec![9]));
    // A dangling link, relative, in a chain through another directory: the final target is created, like np.save.
    std::fs::create_dir(d.join("sub")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink("../new.npy", d.join("sub/hop.npy")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink("sub/hop.npy", d.join("dangling.npy")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(AtomicNpyFile::target_of(&d.join("dangling.npy")).ok(), Some(d.join("sub/../new.npy")));
    write(&d.join("dangling.npy"), 5).unwrap_or_else(|e| panic!("{e}"));
    assert!(std::fs::symlink_metadata(d.join("dangling.npy")).is_ok_and(|m| m.file_type().is_symlink()));
    assert_eq!(read_npy(&d.join("new.npy")).map(|a| a.data).ok(), Some(vec![5]));
    assert_eq!(read_npy(&d.join("dangling.npy")).map(|a| a.data).ok(), Some(vec![5]));
    // A loop is an error, not a hang.
    std::os::unix::fs::symlink("loop.npy", d.join("loop.npy")).unwrap_or_else(|e| panic!("{e}"));
    let e = write(&d.join("loop.npy"), 1).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("more than 40 symbolic links"), "{e}");
}

#[test]
fn a_hard_link_gets_a_new_file_and_the_other_name_keeps_the_old_contents() {
    // Documented on AtomicNpyFile: atomic replacement, unlike np.save's truncation in place.
    let dir = tempdir();
    let (a, b) = (dir.path().join("a.npy"), dir.path().join("b.npy"));
    std::fs::write(&a, b"old").unwrap_or_else(|e| panic!("{e}"));
    std::fs::hard_link(&a, &b).unwrap_or_else(|e| panic!("{e}"));
    write(&a, 3).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read_npy(&a).map(|x| x.data).ok(), Some(vec![3]));
    assert_eq!(std::fs::read(&b).ok(), Some(b"old".to_vec()));
    use std::os::unix::fs::MetadataExt;
    assert_eq!(std::fs::metadata(&a).map(|m| m.nlink()).ok(), Some(1));
}

#[test]
fn temporary_names_are_short_whatever_the_destination() {
    let dir = tempdir();
    // The longest name the file system accepts (255 bytes on Linux).
    let out: PathBuf = dir.path().join(format!("{}.npy", "x".repeat(251)));
    let mut seen = None;
    let mut file = AtomicNpyFile::create_with_hook(&out, DataType::Uint8, &[2], |p| seen = Some(p.to_path_buf()))
        .unwrap_or_else(|e| panic!("{e}"));
    let temp = seen.unwrap_or_default();
    assert_eq!(temp, file.temp_path());
    let name = temp.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    assert!(name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX) && name.len() == 14, "{name}");
    file.data_mut().fill(1);
    file.commit().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read_npy(&out).map(|a| a.data).ok(), Some(vec![1, 1]));
    assert_eq!(entries(dir.path()).len(), 1);
}
