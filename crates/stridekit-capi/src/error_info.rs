//! Reporting a failure: the HRESULT, the rule id and the message, written into the caller's `SK_ERROR_INFO`.
//!
//! # Truncation
//! Both arrays are always NUL-terminated. Text longer than an array is cut at the last UTF-8 character boundary that
//! leaves room for the NUL, so a C program never sees half a character (the messages are ASCII today, but field
//! names and numbers are not promised to stay so). The longest message of the catalog is far below
//! [`SK_ERROR_MESSAGE_CAPACITY`](crate::abi::SK_ERROR_MESSAGE_CAPACITY).
#![allow(unsafe_code)]

use crate::abi::{E_INVALIDARG, E_OUTOFMEMORY, E_POINTER, E_UNEXPECTED, HRESULT, SK_ERROR_INFO};
use stridekit::{BindingError, SliceError};
use stridekit_cpu::ExecError;

/// The rule id of the checks that only the C boundary makes (null pointers, unknown tensor or operator types,
/// overlapping buffers): the model cannot see them, because Rust references are never null.
pub(crate) const CAPI_RULE: &str = "capi";

/// A failed call: what the C caller gets back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    pub hr: HRESULT,
    pub rule: &'static str,
    pub message: String,
}

impl Failure {
    /// A C-boundary check failed with `E_POINTER` (a required argument is null).
    pub fn null_argument(name: &str) -> Failure {
        Failure {
            hr: E_POINTER,
            rule: CAPI_RULE,
            message: format!("error[{CAPI_RULE}]: the argument {name} is NULL; it must point to a valid object"),
        }
    }

    /// A C-boundary check failed with `E_INVALIDARG`; `text` follows `error[capi]: `.
    pub fn invalid(text: std::fmt::Arguments<'_>) -> Failure {
        Failure { hr: E_INVALIDARG, rule: CAPI_RULE, message: format!("error[{CAPI_RULE}]: {text}") }
    }
}

impl From<SliceError> for Failure {
    fn from(e: SliceError) -> Self {
        Failure { hr: E_INVALIDARG, rule: e.rule(), message: e.to_string() }
    }
}

impl From<ExecError> for Failure {
    fn from(e: ExecError) -> Self {
        let hr = match e {
            ExecError::Binding(_) | ExecError::OutOfRange { .. } => E_INVALIDARG,
            // Compiling fails this way when the tensors do not fit this machine's address space.
            ExecError::AddressSpace { .. } => E_OUTOFMEMORY,
            _ => E_UNEXPECTED,
        };
        Failure { hr, rule: e.rule(), message: e.to_string() }
    }
}

impl From<BindingError> for Failure {
    fn from(e: BindingError) -> Self {
        ExecError::from(e).into()
    }
}

/// Copies `text` into `dst` as a NUL-terminated string, cut at a UTF-8 boundary when it does not fit.
pub(crate) fn copy_truncated(dst: &mut [u8], text: &str) {
    let Some(room) = dst.len().checked_sub(1) else { return };
    let mut n = text.len().min(room);
    while !text.is_char_boundary(n) {
        n -= 1;
    }
    dst[..n].copy_from_slice(&text.as_bytes()[..n]);
    dst[n] = 0;
}

/// Writes the failure into `error` (if not null) and returns its HRESULT.
///
/// # Safety
/// `error` is null or valid for writes of one `SK_ERROR_INFO` (alignment 1: it holds only bytes).
pub(crate) unsafe fn report(error: *mut SK_ERROR_INFO, failure: &Failure) -> HRESULT {
    // SAFETY: the caller promises `error` is null or valid for writes; `as_mut` maps null to None.
    if let Some(info) = unsafe { error.as_mut() } {
        copy_truncated(&mut info.RuleId, failure.rule);
        copy_truncated(&mut info.Message, &failure.message);
    }
    failure.hr
}

/// Marks success in `error` (if not null): both strings empty. Two byte stores, so the fast path stays fast.
///
/// # Safety
/// As for [`report`].
pub(crate) unsafe fn clear(error: *mut SK_ERROR_INFO) {
    // SAFETY: the caller promises `error` is null or valid for writes.
    if let Some(info) = unsafe { error.as_mut() } {
        info.RuleId[0] = 0;
        info.Message[0] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_whole_characters_and_the_nul() {
        let mut buf = [0xffu8; 6];
        copy_truncated(&mut buf, "abc");
        assert_eq!(&buf[..4], b"abc\0");
        copy_truncated(&mut buf, "abcdefgh");
        assert_eq!(&buf, b"abcde\0");
        // "aé€": 1 + 2 + 3 bytes; 5 bytes of room cut before the 3-byte euro sign.
        copy_truncated(&mut buf, "a\u{e9}\u{20ac}");
        assert_eq!(&buf[..4], "a\u{e9}\0".as_bytes());
        let mut tiny = [7u8; 1];
        copy_truncated(&mut tiny, "xyz");
        assert_eq!(tiny, [0]);
        copy_truncated(&mut [], "xyz");
    }

    #[test]
    fn report_and_clear() {
        let mut info = SK_ERROR_INFO::default();
        let f = Failure::invalid(format_args!("x"));
        // SAFETY: `info` is a live, writable SK_ERROR_INFO.
        assert_eq!(unsafe { report(&mut info, &f) }, E_INVALIDARG);
        assert_eq!((info.rule_id(), info.message()), ("capi", "error[capi]: x"));
        // SAFETY: as above; null is allowed.
        unsafe {
            clear(&mut info);
            clear(std::ptr::null_mut());
            report(std::ptr::null_mut(), &f);
        }
        assert_eq!((info.rule_id(), info.message()), ("", ""));
    }
}
