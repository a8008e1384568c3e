//! Arbitrary bytes as a `.npy` file: the readers never panic, agree with each other, and a file that reads writes
//! back (`write_npy`) into a file that reads to the same type, shape and data.

#![no_main]

use libfuzzer_sys::fuzz_target;
use stridekit_npy::{NpyError, parse_header, parse_header_with_len, read_from_bytes, read_header, write_npy};

fn check_message(e: &NpyError) {
    let text = e.to_string();
    assert!(text.starts_with("error[npy]: ") || text.starts_with("error[io]: "), "{text}");
}

fuzz_target!(|file: &[u8]| {
    let len = file.len() as u64;
    let parsed = parse_header(file);
    // The incremental reader over any `Read` sees the same file the same way.
    let mut reader = file;
    let streamed = read_header(&mut reader, len);
    let view = read_from_bytes(file);
    match (&parsed, &streamed) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "parse_header and read_header disagree");
            // read_header leaves the reader at the first data byte.
            assert_eq!(file.len() - reader.len(), a.data_offset, "read_header stopped elsewhere");
        }
        (Err(e), Err(_)) => check_message(e),
        _ => panic!("parse_header: {parsed:?}\nread_header: {streamed:?}"),
    }
    // A prefix that holds the header is enough for parse_header_with_len.
    if let Ok(header) = &parsed {
        let from_prefix = parse_header_with_len(&file[..header.data_offset], len);
        assert_eq!(
            from_prefix.as_ref().ok(),
            Some(header),
            "parse_header_with_len on the header bytes: {from_prefix:?}"
        );
    }

    let view = match view {
        Ok(view) => view,
        Err(e) => {
            check_message(&e);
            assert!(parsed.is_err(), "parse_header accepts what read_from_bytes rejects: {e}");
            return;
        }
    };
    let header = &view.header;
    assert_eq!(parsed.as_ref().ok(), Some(header));
    assert_eq!(view.data.len() as u64, header.data_len_bytes(), "data length");
    assert_eq!(header.element_count().checked_mul(u64::from(header.element_size())), Some(header.data_len_bytes()));
    assert_eq!(header.strides().len(), header.shape.len());

    // Write it back. The writer writes C order, so a Fortran-order file is its stored bytes under the reversed
    // shape; either way the bytes are the same (little-endian after reading).
    let shape: Vec<u64> =
        if header.fortran_order { header.shape.iter().rev().copied().collect() } else { header.shape.clone() };
    let mut out = Vec::new();
    write_npy(&mut out, header.data_type, &shape, &view.data)
        .unwrap_or_else(|e| panic!("write_npy refused what read_from_bytes returned: {e}"));
    let back = read_from_bytes(&out).unwrap_or_else(|e| panic!("re-reading the written file: {e}"));
    assert_eq!(back.header.data_type, header.data_type);
    assert_eq!(back.header.shape, shape);
    assert!(!back.header.fortran_order && !back.header.big_endian);
    assert_eq!(&back.data[..], &view.data[..], "data changed in the round trip");
    // The written file is NumPy's layout: the data starts on a 64-byte boundary.
    assert_eq!(back.header.data_offset % 64, 0, "header not padded to 64 bytes");
});
