//! Tests of the C ABI from Rust. They live inside the library because the library is built only as `cdylib` and
//! `staticlib` (no `rlib`, which would switch link-time optimisation off for the C libraries: see the crate docs).

mod capi;
mod header;
