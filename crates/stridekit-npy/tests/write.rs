//! Writing: byte-identical to NumPy, round trips, the atomic file writer and its special destinations, and (when
//! Python with NumPy is available) NumPy loading what this crate wrote.

mod common;

use std::path::Path;
use std::process::Command;

use common::{CODES, arange, data_type, fixture_bytes};
use proptest::prelude::*;
use stridekit::DataType;
use stridekit_npy::{AtomicNpyFile, InvalidKind, encode_header, read_from_bytes, read_npy, write_npy};

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

fn write_vec(t: DataType, shape: &[u64], data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_npy(&mut out, t, shape, data).unwrap_or_else(|e| panic!("{e}"));
    out
}

fn dir_entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

#[test]
fn byte_identical_to_numpy_save() {
    for code in CODES {
        let name = format!("c_{code}.npy");
        let t = data_type(code);
        assert_eq!(write_vec(t, &[2, 3], &arange(t, 6)), fixture_bytes(&name), "{name}");
    }
    assert_eq!(write_vec(DataType::Int32, &[2, 3, 4], &arange(DataType::Int32, 24)), fixture_bytes("c_i4_2x3x4.npy"));
    assert_eq!(write_vec(DataType::Float64, &[], &3.5f64.to_le_bytes()), fixture_bytes("scalar_f8.npy"));
    assert_eq!(write_vec(DataType::Float32, &[0, 3], &[]), fixture_bytes("empty_f4_0x3.npy"));
    assert_eq!(write_vec(DataType::Int16, &[2, 3], &arange(DataType::Int16, 6)), fixture_bytes("v1.npy"));
}

#[test]
fn four_bit_types_cannot_be_written() {
    for t in [DataType::Uint4, DataType::Int4] {
        let e = write_npy(Vec::new(), t, &[2], &[0]).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.starts_with(&format!("error[npy]: {t} has no NumPy type")), "{e}");
        assert!(AtomicNpyFile::create(&tempdir().path().join("x.npy"), t, &[2]).is_err());
    }
}

proptest! {
    #[test]
    fn round_trip(t in prop::sample::select(DataType::BYTE_SIZED.to_vec()), shape in prop::collection::vec(0u64..5, 0..5), seed in any::<u64>()) {
        let n: u64 = shape.iter().product();
        let len = (n * u64::from(t.size_in_bytes().unwrap_or(1))) as usize;
        let data: Vec<u8> = (0..len).map(|i| (seed.wrapping_mul(i as u64 + 1) >> 7) as u8).collect();
        let file = write_vec(t, &shape, &data);
        prop_assert_eq!(file.len() % 64, data.len() % 64);
        let view = read_from_bytes(&file).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(view.header.data_type, t);
        prop_assert_eq!(&view.header.shape, &shape);
        prop_assert_eq!(view.header.version, (1, 0));
        prop_assert!(!view.header.fortran_order && !view.header.big_endian);
        prop_assert_eq!(&view.data[..], &data[..]);
        prop_assert_eq!(encode_header(t, &shape).map(|h| h.len()).ok(), Some(view.header.data_offset));
    }
}

#[test]
fn atomic_new_file() {
    let dir = tempdir();
    let path = dir.path().join("out.npy");
    let mut out = AtomicNpyFile::create(&path, DataType::Uint16, &[2, 2]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.data_mut(), &[0; 8]);
    assert!(!path.exists(), "nothing is visible before commit");
    out.data_mut().copy_from_slice(&arange(DataType::Uint16, 4));
    out.commit().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dir_entries(dir.path()), ["out.npy"], "no temporary file left behind");
    let a = read_npy(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((a.header.shape, a.data), (vec![2, 2], arange(DataType::Uint16, 4)));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).map(|m| m.permissions().mode()).unwrap_or(0);
        assert_ne!(mode & 0o044, 0, "readable by others unless the umask forbids it, not tempfile's 0600: {mode:o}");
    }
}

#[test]
fn atomic_replaces_existing_keeping_permissions() {
    let dir = tempdir();
    let path = dir.path().join("out.npy");
    std::fs::write(&path, b"old").unwrap_or_else(|e| panic!("{e}"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap_or_else(|e| panic!("{e}"));
    }
    let mut out = AtomicNpyFile::create(&path, DataType::Int8, &[3]).unwrap_or_else(|e| panic!("{e}"));
    out.data_mut().copy_from_slice(&[1, 2, 3]);
    out.commit().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read_npy(&path).map(|a| a.data).ok(), Some(vec![1, 2, 3]));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).map(|m| m.permissions().mode() & 0o777).unwrap_or(0);
        assert_eq!(mode, 0o640);
    }
    assert_eq!(dir_entries(dir.path()), ["out.npy"]);
}

#[test]
fn dropping_without_commit_leaves_nothing_and_keeps_the_old_file() {
    let dir = tempdir();
    let path = dir.path().join("out.npy");
    std::fs::write(&path, b"old contents").unwrap_or_else(|e| panic!("{e}"));
    {
        let mut out = AtomicNpyFile::create(&path, DataType::Float32, &[4]).unwrap_or_else(|e| panic!("{e}"));
        out.data_mut().fill(7);
        assert_eq!(dir_entries(dir.path()).len(), 2, "the temporary file exists while writing");
        // The caller's computation fails here: `out` is dropped.
    }
    assert_eq!(dir_entries(dir.path()), ["out.npy"]);
    assert_eq!(std::fs::read(&path).ok(), Some(b"old contents".to_vec()));
}

#[test]
fn directory_destination_is_rejected_at_create() {
    let dir = tempdir();
    let e = AtomicNpyFile::create(dir.path(), DataType::Uint8, &[1]).err();
    let msg = e.as_ref().map(ToString::to_string).unwrap_or_default();
    assert_eq!(
        msg,
        format!(
            "error[npy]: {}: it is a directory, not a regular file; give the path of the .npy file to write",
            dir.path().display()
        )
    );
    assert!(matches!(e.and_then(|e| e.invalid_kind().cloned()), Some(InvalidKind::NotRegularFile { .. })));
}

#[test]
fn missing_directory_is_an_io_error() {
    let dir = tempdir();
    let e = AtomicNpyFile::create(&dir.path().join("no/such/dir/out.npy"), DataType::Uint8, &[1]).err();
    assert!(e.as_ref().is_some_and(|e| e.is_io()), "{e:?}");
    let msg = e.map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.starts_with("error[io]: cannot create a temporary file in "), "{msg}");
}

/// Writes every type (2-D and 0-d) and asks NumPy to load and check them. Skipped with a note when python3 with
/// numpy is missing, unless STRIDEKIT_REQUIRE_NUMPY=1.
#[test]
fn numpy_loads_what_we_write() {
    let have_numpy = Command::new("python3").args(["-c", "import numpy"]).output().is_ok_and(|o| o.status.success());
    if !have_numpy {
        assert!(
            std::env::var("STRIDEKIT_REQUIRE_NUMPY").as_deref() != Ok("1"),
            "STRIDEKIT_REQUIRE_NUMPY=1 but `python3 -c 'import numpy'` fails"
        );
        eprintln!("note: python3 with numpy is not available; skipping numpy_loads_what_we_write");
        return;
    }
    let dir = tempdir();
    for code in CODES {
        let t = data_type(code);
        let mut out = AtomicNpyFile::create(&dir.path().join(format!("{code}.npy")), t, &[2, 3])
            .unwrap_or_else(|e| panic!("{e}"));
        out.data_mut().copy_from_slice(&arange(t, 6));
        out.commit().unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(dir.path().join("scalar.npy"), write_vec(DataType::Float64, &[], &3.5f64.to_le_bytes()))
        .unwrap_or_else(|e| panic!("{e}"));
    let script = r#"
import sys, numpy as np
d = sys.argv[1]
for code in ["f2", "f4", "f8", "u1", "i1", "u2", "u4", "u8", "i2", "i4", "i8"]:
    a = np.load(f"{d}/{code}.npy")
    assert a.dtype == np.dtype(code), (code, a.dtype)
    assert a.shape == (2, 3) and a.flags.c_contiguous, (code, a.shape)
    assert (a == np.arange(6).reshape(2, 3)).all(), (code, a)
s = np.load(f"{d}/scalar.npy")
assert s.shape == () and s == 3.5, s
print("ok")
"#;
    let out = Command::new("python3").arg("-c").arg(script).arg(dir.path()).output();
    let out = out.unwrap_or_else(|e| panic!("running python3: {e}"));
    assert!(
        out.status.success(),
        "numpy failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn text_files_are_written_atomically_like_npy_files() {
    use stridekit_npy::write_file_atomically;
    let dir = tempdir();
    let path = dir.path().join("profile");
    let mut seen = None;
    write_file_atomically(&path, b"first\n", |temp| seen = Some(temp.to_path_buf())).unwrap_or_else(|e| panic!("{e}"));
    let temp = seen.unwrap_or_else(|| panic!("the hook is called with the temporary file"));
    assert_eq!(temp.parent(), Some(dir.path()), "beside the destination");
    assert!(!temp.exists());
    assert_eq!(std::fs::read(&path).ok(), Some(b"first\n".to_vec()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap_or_else(|e| panic!("{e}"));
    }
    write_file_atomically(&path, b"second\n", |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(std::fs::read(&path).ok(), Some(b"second\n".to_vec()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).map(|m| m.permissions().mode() & 0o777).unwrap_or(0);
        assert_eq!(mode, 0o600, "the replaced file's permissions are kept");
    }
    assert_eq!(dir_entries(dir.path()), ["profile"], "no temporary file left behind");
    // A directory is refused before anything is created; a missing directory is an I/O error with nothing left.
    let msg = write_file_atomically(dir.path(), b"x", |_| {}).map_err(|e| e.to_string()).err().unwrap_or_default();
    assert_eq!(
        msg,
        format!(
            "error[npy]: {}: it is a directory, not a regular file; give the path of the file to write",
            dir.path().display()
        )
    );
    let e = write_file_atomically(&dir.path().join("no/such/dir/profile"), b"x", |_| {}).err();
    assert!(e.as_ref().is_some_and(|e| e.is_io()), "{e:?}");
    assert_eq!(dir_entries(dir.path()), ["profile"]);
    assert_eq!(std::fs::read(&path).ok(), Some(b"second\n".to_vec()));
}
