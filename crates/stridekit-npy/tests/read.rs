//! Reading NumPy-made fixtures: every type, every format version, Fortran order, big-endian, 0-d, 2-D, 3-D, empty,
//! and the descrs that are rejected.

mod common;

use std::borrow::Cow;

use common::{CODES, arange, data_type, fixture, fixture_bytes, le_value};
use stridekit::DataType;
use stridekit_npy::{InvalidKind, MappedNpy, NpyArray, NpyError, read_from_bytes, read_header, read_npy};

/// Reads a fixture the three ways and checks they agree; returns the owned result.
fn read_all_ways(name: &str) -> NpyArray {
    let bytes = fixture_bytes(name);
    let from_bytes = read_from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}")).into_owned();
    let owned = read_npy(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mapped = MappedNpy::open(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(from_bytes, owned, "{name}: read_from_bytes vs read_npy");
    assert_eq!(mapped.view().into_owned(), owned, "{name}: MappedNpy vs read_npy");
    assert_eq!(mapped.path(), fixture(name));
    let header = read_header(&mut &bytes[..], bytes.len() as u64).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(header, owned.header, "{name}: read_header");
    owned
}

#[test]
fn every_supported_type() {
    for code in CODES {
        let name = format!("c_{code}.npy");
        let a = read_all_ways(&name);
        let t = data_type(code);
        assert_eq!(a.header.data_type, t, "{name}");
        assert_eq!(a.header.shape, [2, 3], "{name}");
        assert_eq!(a.header.version, (1, 0));
        assert!(!a.header.big_endian && !a.header.fortran_order);
        assert_eq!(a.header.strides(), [3, 1]);
        assert_eq!(a.header.element_count(), 6);
        assert_eq!(a.header.data_len_bytes(), 6 * u64::from(t.size_in_bytes().unwrap_or(0)));
        assert_eq!(a.header.data_offset % 64, 0, "NumPy aligns data to 64 bytes");
        assert_eq!(a.data, arange(t, 6), "{name}");
    }
}

#[test]
fn borrowed_unless_swapped() {
    let bytes = fixture_bytes("c_f4.npy");
    assert!(matches!(read_from_bytes(&bytes).map(|v| v.data), Ok(Cow::Borrowed(_))));
    let bytes = fixture_bytes("be_f4.npy");
    assert!(matches!(read_from_bytes(&bytes).map(|v| v.data), Ok(Cow::Owned(_))));
}

#[test]
fn format_versions_1_2_3() {
    for (major, name) in [(1, "v1.npy"), (2, "v2.npy"), (3, "v3.npy")] {
        let a = read_all_ways(name);
        assert_eq!(a.header.version, (major, 0), "{name}");
        assert_eq!(a.header.data_type, DataType::Int16);
        assert_eq!(a.header.shape, [2, 3]);
        assert_eq!(a.data, arange(DataType::Int16, 6), "{name}");
    }
}

#[test]
fn big_endian_is_swapped_and_reported() {
    for code in CODES.iter().filter(|c| !matches!(**c, "u1" | "i1")) {
        let name = format!("be_{code}.npy");
        let a = read_all_ways(&name);
        assert!(a.header.big_endian, "{name}");
        assert_eq!(a.header.descr, format!(">{code}"));
        assert_eq!(a.header.data_type, data_type(code));
        assert_eq!(a.data, arange(data_type(code), 6), "{name}: data is little-endian after the swap");
        let mapped = MappedNpy::open(&fixture(&name)).unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(mapped.raw_data(), &a.data[..], "{name}: raw_data is as stored");
    }
}

#[test]
fn fortran_order_2d_and_3d_by_strides() {
    let a = read_all_ways("fortran_f4_2x3.npy");
    assert!(a.header.fortran_order);
    assert_eq!(a.header.shape, [2, 3]);
    let s = a.header.strides();
    assert_eq!(s, [1, 2]);
    for i in 0..2u64 {
        for j in 0..3u64 {
            let at = ((i * s[0] + j * s[1]) * 4) as usize;
            assert_eq!(a.data[at..at + 4], le_value(DataType::Float32, (i * 3 + j) as u8), "[{i}, {j}]");
        }
    }

    let a = read_all_ways("fortran_i4_2x3x4.npy");
    let s = a.header.strides();
    assert_eq!(s, [1, 2, 6]);
    for i in 0..2u64 {
        for j in 0..3u64 {
            for k in 0..4u64 {
                let at = ((i * s[0] + j * s[1] + k * s[2]) * 4) as usize;
                assert_eq!(a.data[at..at + 4], le_value(DataType::Int32, (i * 12 + j * 4 + k) as u8));
            }
        }
    }
}

#[test]
fn c_order_3d() {
    let a = read_all_ways("c_i4_2x3x4.npy");
    assert_eq!(a.header.shape, [2, 3, 4]);
    assert_eq!(a.header.strides(), [12, 4, 1]);
    assert_eq!(a.data, arange(DataType::Int32, 24));
}

#[test]
fn zero_d_is_one_element_with_empty_shape() {
    let a = read_all_ways("scalar_f8.npy");
    assert_eq!(a.header.shape, Vec::<u64>::new());
    assert_eq!(a.header.element_count(), 1);
    assert_eq!(a.header.strides(), Vec::<u64>::new());
    assert_eq!(a.data, 3.5f64.to_le_bytes());
}

#[test]
fn zero_elements() {
    let a = read_all_ways("empty_f4_0x3.npy");
    assert_eq!(a.header.shape, [0, 3]);
    assert_eq!(a.header.element_count(), 0);
    assert!(a.data.is_empty());
}

#[test]
fn unsupported_descrs_are_named() {
    for (name, descr, hint) in [
        ("bad_bool.npy", "'|b1'", " (bool)"),
        ("bad_complex.npy", "'<c8'", " (complex)"),
        ("bad_unicode.npy", "'<U2'", " (a string type)"),
        ("bad_structured.npy", "[('a', '<f4'), ('b', '|u1')]", " (a structured type)"),
        ("bad_datetime.npy", "'<M8[D]'", " (datetime/timedelta)"),
        ("bad_object.npy", "'|O'", " (Python objects)"),
    ] {
        let e = read_npy(&fixture(name)).err();
        let expected = format!(
            "error[npy]: {}: unsupported descr {descr}{hint}; supported: <f2 <f4 <f8 |u1 |i1 <u2 <u4 <u8 <i2 <i4 <i8 \
             (and '>' big-endian forms, byte-swapped on read)",
            fixture(name).display()
        );
        assert_eq!(e.as_ref().map(ToString::to_string), Some(expected), "{name}");
        assert!(e.is_some_and(|e| !e.is_io()));
        let m = MappedNpy::open(&fixture(name)).err();
        assert!(matches!(m.and_then(|e| e.invalid_kind().cloned()), Some(InvalidKind::UnsupportedDescr { .. })));
    }
}

#[test]
fn missing_files_and_directories() {
    let missing = fixture("no_such_file.npy");
    let e = read_npy(&missing).err();
    assert!(e.as_ref().is_some_and(NpyError::is_io));
    let msg = e.map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.starts_with(&format!("error[io]: cannot open {}: ", missing.display())), "{msg}");

    let dir = fixture("");
    for e in [read_npy(&dir).err(), MappedNpy::open(&dir).err()] {
        let msg = e.as_ref().map(ToString::to_string).unwrap_or_default();
        assert!(msg.starts_with("error[npy]: ") && msg.contains("it is a directory, not a regular file"), "{msg}");
    }
}

#[test]
fn truncated_and_extended_files() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let bytes = fixture_bytes("c_f4.npy");
    let short = dir.path().join("short.npy");
    std::fs::write(&short, &bytes[..bytes.len() - 1]).unwrap_or_else(|e| panic!("{e}"));
    let e = MappedNpy::open(&short).err().map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        e,
        format!(
            "error[npy]: {}: the data is 23 bytes, but shape (2, 3) of <f4 needs exactly 24 bytes (6 elements x 4 bytes)",
            short.display()
        )
    );
    let long = dir.path().join("long.npy");
    std::fs::write(&long, [&bytes[..], &[0]].concat()).unwrap_or_else(|e| panic!("{e}"));
    let e = read_npy(&long).err().and_then(|e| e.invalid_kind().cloned());
    assert!(matches!(e, Some(InvalidKind::DataLength { actual: 25, expected: 24, .. })), "{e:?}");
    let empty = dir.path().join("empty.npy");
    std::fs::write(&empty, b"").unwrap_or_else(|e| panic!("{e}"));
    for e in [read_npy(&empty).err(), MappedNpy::open(&empty).err()] {
        assert!(matches!(e.and_then(|e| e.invalid_kind().cloned()), Some(InvalidKind::TooShort { file_len: 0, .. })));
    }
}

/// The hand-computed binary16 values the fixtures are compared with.
#[test]
fn f16_table_is_right() {
    let bits: Vec<u16> = (0..6)
        .map(|k| u16::from_le_bytes([le_value(DataType::Float16, k)[0], le_value(DataType::Float16, k)[1]]))
        .collect();
    assert_eq!(bits, [0x0000, 0x3c00, 0x4000, 0x4200, 0x4400, 0x4500]);
}

#[test]
fn released_pages_read_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.npy");
    let data: Vec<u8> = (0..1_000_000u32).flat_map(|i| (i.wrapping_mul(2_654_435_761)).to_le_bytes()).collect();
    stridekit_npy::write_npy(std::fs::File::create(&path).unwrap(), DataType::Uint32, &[1_000_000], &data).unwrap();
    let mapped = MappedNpy::open(&path).unwrap();
    let before = mapped.raw_data().to_vec();
    assert_eq!(before, data);
    mapped.release_data(4096..900_000).unwrap();
    mapped.release_data(3_999_000..usize::MAX).unwrap();
    // An inverted range releases nothing.
    let (start, end) = (10, 5);
    mapped.release_data(start..end).unwrap();
    assert_eq!(mapped.raw_data(), &data[..]);
}
