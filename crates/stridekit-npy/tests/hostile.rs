//! Hostile inputs: no panic on any bytes, no allocation driven by a claimed size, clear errors for lies.

mod common;

use common::fixture_bytes;
use proptest::prelude::*;
use stridekit_npy::{
    InvalidKind, MAX_HEADER_LEN, NpyError, parse_header, parse_header_with_len, read_from_bytes, read_header,
};

/// Runs every parser on `bytes`; they must return (Ok or Err), never panic.
fn exercise(bytes: &[u8], claimed_len: u64) {
    let _ = parse_header(bytes);
    let _ = parse_header_with_len(bytes, claimed_len);
    if let Ok(view) = read_from_bytes(bytes) {
        // A successful read is self-consistent.
        assert_eq!(view.data.len() as u64, view.header.data_len_bytes());
        assert_eq!(view.header.data_offset + view.data.len(), bytes.len());
        assert_eq!(view.header.strides().len(), view.header.shape.len());
    }
    let _ = read_header(&mut &bytes[..], bytes.len() as u64);
    // A reader that lies about the length: must stop at the real end with an error, not allocate the claim.
    let _ = read_header(&mut &bytes[..], claimed_len);
}

/// A valid file to mutate.
fn seeds() -> Vec<Vec<u8>> {
    ["c_f4.npy", "v2.npy", "v3.npy", "fortran_i4_2x3x4.npy", "be_f8.npy", "scalar_f8.npy", "bad_structured.npy"]
        .iter()
        .map(|n| fixture_bytes(n))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300), claimed in any::<u64>()) {
        exercise(&bytes, claimed);
    }

    #[test]
    fn random_bytes_after_a_valid_preamble_never_panic(
        version in prop::sample::select(vec![1u8, 2, 3]),
        header_len in any::<u32>(),
        tail in prop::collection::vec(any::<u8>(), 0..300),
    ) {
        let mut bytes = b"\x93NUMPY".to_vec();
        bytes.extend_from_slice(&[version, 0]);
        if version == 1 {
            bytes.extend_from_slice(&(header_len as u16).to_le_bytes());
        } else {
            bytes.extend_from_slice(&header_len.to_le_bytes());
        }
        bytes.extend_from_slice(&tail);
        exercise(&bytes, bytes.len() as u64);
    }

    #[test]
    fn mutated_valid_files_never_panic(
        seed in 0usize..7,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = seeds().swap_remove(seed);
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        exercise(&bytes, bytes.len() as u64);
    }

    #[test]
    fn mutated_header_text_never_panics(
        seed in 0usize..7,
        at in any::<prop::sample::Index>(),
        insert in "[ ,:()'\"{}\\[\\]0-9a-zA-Z<>|=_-]{0,12}",
        remove in 0usize..6,
    ) {
        // Edit inside the header text, then fix the length field so the parser reaches the dict.
        let bytes = seeds().swap_remove(seed);
        let (pre, len_field) = if bytes[6] == 1 { (10usize, 2usize) } else { (12, 4) };
        let header_len = parse_header(&bytes).map(|h| h.data_offset - pre).unwrap_or(0);
        let mut text = bytes[pre..pre + header_len].to_vec();
        let i = at.index(text.len() + 1);
        let end = (i + remove).min(text.len());
        text.splice(i..end, insert.bytes());
        let mut out = bytes[..pre - len_field].to_vec();
        if len_field == 2 {
            out.extend_from_slice(&(text.len() as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        }
        out.extend_from_slice(&text);
        out.extend_from_slice(&bytes[pre + header_len..]);
        exercise(&out, out.len() as u64);
    }
}

fn npy(version: u8, dict: &str, data_len: usize) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(dict.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(out.len() + data_len, 0);
    out
}

fn kind(r: Result<impl std::fmt::Debug, NpyError>) -> InvalidKind {
    match r {
        Err(NpyError::Invalid { kind, .. }) => kind,
        other => panic!("expected error[npy], got {other:?}"),
    }
}

#[test]
fn huge_shape_claim_is_refused_by_length_not_by_allocation() {
    // 2^40 float64 elements = 8 TiB claimed, 16 bytes present.
    let f = npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1048576, 1048576)}", 16);
    let e = kind(read_from_bytes(&f));
    assert_eq!(
        e.to_string(),
        "the data is 16 bytes, but shape (1048576, 1048576) of <f8 needs exactly 8796093022208 bytes \
         (1099511627776 elements x 8 bytes)"
    );
    let e = kind(read_header(&mut &f[..], f.len() as u64));
    assert!(matches!(e, InvalidKind::DataLength { actual: 16, expected: 8796093022208, .. }));
}

#[test]
fn shape_whose_byte_count_overflows() {
    let f = npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", 0);
    assert!(matches!(kind(read_from_bytes(&f)), InvalidKind::ShapeOverflow { element_size: 8, .. }));
    let f = npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2305843009213693952,)}", 0);
    assert!(matches!(kind(read_from_bytes(&f)), InvalidKind::ShapeOverflow { .. }), "2^61 x 8 bytes = 2^64");
}

#[test]
fn header_length_beyond_the_file_is_refused_before_reading_it() {
    let mut f = npy(2, "{'descr': '<f8', 'fortran_order': False, 'shape': ()}", 8);
    f[8..12].copy_from_slice(&9000u32.to_le_bytes());
    let e = kind(read_from_bytes(&f));
    assert_eq!(
        e.to_string(),
        format!("the header length field says 9000 bytes (ending at byte 9012), but the file is {} bytes", f.len())
    );
    // The streaming reader refuses from the 12-byte preamble alone: it never reads (or allocates) the claimed header.
    let mut reader = &f[..];
    assert!(matches!(kind(read_header(&mut reader, f.len() as u64)), InvalidKind::HeaderPastEnd { .. }));
    assert_eq!(reader.len(), f.len() - 12, "only the preamble was consumed");
}

#[test]
fn lying_file_len_with_a_short_stream_is_an_io_error() {
    // The claimed length admits a 4 GiB header; the stream ends after 20 bytes: read incrementally, fail cleanly.
    let mut f = npy(2, "{'descr': '<f8', 'fortran_order': False, 'shape': ()}", 8);
    f[8..12].copy_from_slice(&9000u32.to_le_bytes());
    let e = read_header(&mut &f[..20], u64::MAX).err();
    assert!(e.as_ref().is_some_and(NpyError::is_io), "{e:?}");
}

#[test]
fn deeply_nested_and_long_headers_are_bounded() {
    // Each just under NumPy's 10,000-byte cap on headers.
    let f = npy(1, &format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {}}}", "(".repeat(9_000)), 0);
    assert!(matches!(kind(read_from_bytes(&f)), InvalidKind::WrongValue { key: "shape", .. }));
    let dims = vec!["0"; 4000].join(",");
    let f = npy(2, &format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({dims})}}"), 0);
    assert!(matches!(kind(read_from_bytes(&f)), InvalidKind::TooManyDimensions { max: 64 }));
    let f = npy(1, &format!("{{'descr': {}'<f8'{}}}", "[".repeat(4500), "]".repeat(4500)), 0);
    assert!(matches!(kind(read_from_bytes(&f)), InvalidKind::UnsupportedDescr { .. }));
}

#[test]
fn headers_over_numpys_cap_are_refused_from_the_preamble() {
    // A valid dict padded with spaces to 10,001 bytes: NumPy's `max_header_size` (10,000) refuses it; so do we.
    let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': ()}";
    let pad = |n: usize| format!("{dict}{}\n", " ".repeat(n - dict.len() - 1));
    let f = npy(2, &pad(10_000), 8);
    assert!(read_from_bytes(&f).is_ok(), "exactly 10,000 bytes is accepted, as by NumPy");
    let f = npy(2, &pad(10_001), 8);
    assert_eq!(
        kind(read_from_bytes(&f)).to_string(),
        "the header length field says 10001 bytes; NumPy refuses headers over 10000 bytes as unsafe to parse \
         (numpy.load's max_header_size), and so does stridekit"
    );
    // A 1.2 GiB header of spaces (the file) is refused from its 12-byte preamble: nothing else is read.
    let mut f = npy(2, dict, 8);
    f[8..12].copy_from_slice(&1_288_490_189u32.to_le_bytes());
    let mut reader = &f[..];
    let claimed = 12 + 1_288_490_189 + 8;
    assert_eq!(
        kind(read_header(&mut reader, claimed)),
        InvalidKind::HeaderTooLong { header_len: 1_288_490_189, max: MAX_HEADER_LEN }
    );
    assert_eq!(reader.len(), f.len() - 12, "only the preamble was consumed");
}
