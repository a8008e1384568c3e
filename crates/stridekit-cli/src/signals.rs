//! Removing the output's temporary file when a signal ends the process.
//!
//! A signal that terminates the process runs no destructor, so `AtomicNpyFile`'s own cleanup never happens: a
//! `SIGINT` (Ctrl-C) or `SIGTERM` during a long `stridekit slice` would leave a hidden `.sk.XXXXXX.tmp` of any size.
//! [`install`] sets a handler for `SIGINT`, `SIGTERM`, `SIGHUP`, `SIGQUIT` and `SIGBUS` that unlinks the registered
//! temporary file ([`register`]), restores the default action and re-raises the signal, so the process still ends
//! the way the signal says (the shell sees "terminated by SIGTERM", exit status 128 + n).
//!
//! - `SIGBUS` is what a memory-mapped input raises when another process truncates it while it is read (the hazard
//!   every memory map carries, documented on `stridekit_npy::MappedNpy`, as NumPy documents it for `mmap_mode`). The
//!   process still dies with `SIGBUS` (the input is gone; there is nothing sensible to compute), but the temporary
//!   file is removed.
//! - `SIGXFSZ` (a file-size limit, `ulimit -f`) is ignored instead: the `write` that crosses the limit then fails
//!   with `EFBIG`, an ordinary `error[io]`, and the temporary file is removed by the usual error path.
//!
//! Why no crate: `signal-hook`/`ctrlc` run handlers on a thread or via a self-pipe, which needs the main work to
//! poll; here the handler itself must act (the main thread may be inside a long `write`). What it does is
//! async-signal-safe: an atomic load, `unlink`, `signal`, `raise`. `libc` is already in the tree (memmap2, tempfile).
//!
//! A signal that was ignored when the process started (SIGINT for `stridekit slice ... &` in a script, SIGHUP under
//! `nohup`) stays ignored, as the parent asked.
//!
//! One temporary file at a time is registered (a run writes one output). `AtomicNpyFile::create_with_hook` calls
//! the hook with the path just before it creates the file, so there is no moment at which the file exists and the
//! handler does not know it.

#![allow(unsafe_code)] // sigaction(2) and the handler; each block has its SAFETY argument.

use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The registered temporary file, a leaked NUL-terminated path, or null.
static TEMP_PATH: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

/// The signals after which the temporary file is removed.
const CLEANUP_SIGNALS: [libc::c_int; 5] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT, libc::SIGBUS];

extern "C" fn on_signal(signal: libc::c_int) {
    let path = TEMP_PATH.load(Ordering::SeqCst);
    // SAFETY: `path` is null or a pointer from `CString::into_raw` that is never freed (see `register`), so it points
    // to a NUL-terminated string; unlink, signal and raise are async-signal-safe.
    unsafe {
        if !path.is_null() {
            libc::unlink(path);
        }
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs the handlers (see the module docs). Call once, early in `main`.
pub fn install() {
    for signal in CLEANUP_SIGNALS {
        // SAFETY: `on_signal` is an `extern "C" fn(c_int)` that only performs async-signal-safe operations; a zeroed
        // `sigaction` is a valid value (empty mask, no flags) before we set the handler, and `old` is written by the
        // kernel before it is read. SA_RESETHAND is not needed: the handler restores the default itself before
        // re-raising.
        // A signal the parent set to be ignored (SIGINT and SIGQUIT for `cmd &` in a non-interactive shell,
        // SIGHUP under nohup) stays ignored: the old action is put back.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, &action, &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN {
                libc::sigaction(signal, &old, std::ptr::null_mut());
            }
        }
    }
    // SAFETY: setting a signal's disposition to SIG_IGN has no memory-safety requirements.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// While the returned value lives, a cleanup signal unlinks `path` before the process ends.
///
/// The path's bytes are leaked (a few bytes, once per output file): a handler running on another thread may hold the
/// pointer at any moment, so it is never freed.
#[must_use = "the path is unregistered when the registration is dropped"]
pub fn register(path: &Path) -> Registration {
    use std::os::unix::ffi::OsStrExt;
    let raw = CString::new(path.as_os_str().as_bytes()).map(CString::into_raw).unwrap_or(std::ptr::null_mut());
    TEMP_PATH.store(raw, Ordering::SeqCst);
    Registration(())
}

/// Unregisters the path when dropped (after a commit renamed it, or after an error removed it).
#[derive(Debug)]
pub struct Registration(());

impl Drop for Registration {
    fn drop(&mut self) {
        TEMP_PATH.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}
