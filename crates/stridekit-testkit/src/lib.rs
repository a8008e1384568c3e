//! # stridekit-testkit
//!
//! Test support shared by every stridekit backend (not published):
//!
//! - [`reference`](mod@reference) (re-exported from `stridekit`): a naive Slice1 written straight from DirectML's pseudocode. It works on the [`Slice1Desc`] itself,
//!   not on a [`Slice1Plan`](stridekit::Slice1Plan), so a bug in the plan's arithmetic cannot hide in both.
//! - [`strategies`]: proptest strategies for valid Slice1 descriptions with input bytes (ranks 1..=8, every byte-sized
//!   data type, broadcast, padded and permuted layouts, negative window strides) and for near-invalid ones.
//! - [`cases`]: the examples of the DirectML documentation, with their expected outputs.
//! - [`conformance`]: the suite every backend passes (a [`conformance::Backend`] trait and the
//!   [`conformance_tests!`] macro).
//!
//! ```
//! use stridekit_testkit::{cases, reference};
//! for case in cases::doc_cases() {
//!     let mut output = vec![0u8; case.desc.output.total_tensor_size_in_bytes as usize];
//!     reference::slice1_reference(&case.desc, &case.input, &mut output).unwrap();
//!     assert_eq!(cases::f32_values(&output)[..case.expected.len()], case.expected[..], "{}", case.name);
//! }
//! ```
//!
//! [`Slice1Desc`]: stridekit::Slice1Desc
//!
//! No unsafe code: Miri (`scripts/miri.sh`) runs this crate only as the oracle of the kernel tests.

#![forbid(unsafe_code)]

pub mod cases;
pub mod conformance;
pub mod strategies;

/// The naive reference, which lives in the model crate (`stridekit::reference`) so that production code can use it.
pub use stridekit::reference;
pub use stridekit::reference::{ReferenceError, slice1_reference};
