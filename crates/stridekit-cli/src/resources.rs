//! What the machine can give a run: memory (MemAvailable, or the user's `--max-memory`) and free disk space, and the
//! checks that refuse a run before it allocates or writes what does not fit. Shared by `stridekit slice` and
//! `stridekit bench`.
//!
//! Policy: a run computes what it needs *before* allocating or writing, compares it with what is available, and
//! refuses with both numbers ([`CliError::Memory`], [`CliError::Disk`]; exit code 1, like any failure of the
//! machine rather than of the input). Nothing here allocates in proportion to a user's number, so a refusal never
//! aborts.

#![allow(unsafe_code)] // statvfs(3); one block below, with its SAFETY argument.

use crate::error::CliError;
use std::path::Path;

/// How much memory a run may use, and where that number came from (for messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryLimit {
    /// Bytes; `u64::MAX` when nothing is known.
    pub bytes: u64,
    /// Where the number came from: `--max-memory`, `MemAvailable in /proc/meminfo`, or `unknown`.
    pub source: &'static str,
}

impl MemoryLimit {
    /// No known limit (neither an override nor /proc/meminfo).
    pub const UNKNOWN: MemoryLimit = MemoryLimit { bytes: u64::MAX, source: "unknown" };
}

/// Parses a `--max-memory` value: a byte count, optionally with a binary unit `K`, `M`, `G`, `T` (also `KiB`, `KB`,
/// ..., any case; all powers of 1024): `1000000`, `512M`, `2GiB`.
pub fn parse_max_memory(text: &str) -> Result<u64, CliError> {
    parse_bytes("--max-memory", text)
}

/// Parses a byte count with an optional binary unit for the flag `flag` (see [`parse_max_memory`]).
pub fn parse_bytes(flag: &str, text: &str) -> Result<u64, CliError> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => u32::MAX,
    };
    let value = digits.parse::<u64>().ok().filter(|_| shift != u32::MAX);
    value.and_then(|v| v.checked_mul(1u64 << shift.min(40))).ok_or_else(|| {
        CliError::Args(format!(
            "{flag} '{text}' is not a byte count: give a whole number of bytes up to {}, optionally followed \
                 by K, M, G or T (powers of 1024), e.g. 512M",
            u64::MAX
        ))
    })
}

/// The memory a run may use: `max_memory` when given, else MemAvailable from /proc/meminfo (the kernel's estimate of
/// what can be allocated without swapping), else [`MemoryLimit::UNKNOWN`].
pub fn memory_limit(max_memory: Option<u64>) -> MemoryLimit {
    match max_memory {
        Some(bytes) => MemoryLimit { bytes, source: "--max-memory" },
        None => available_memory()
            .map(|bytes| MemoryLimit { bytes, source: "MemAvailable in /proc/meminfo" })
            .unwrap_or(MemoryLimit::UNKNOWN),
    }
}

/// MemAvailable from /proc/meminfo, in bytes, when the file exists and has the field.
pub fn available_memory() -> Option<u64> {
    parse_mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line.split_whitespace().skip(1);
    let value: u64 = words.next()?.parse().ok()?;
    // The kernel writes "kB" and means KiB.
    match words.next() {
        Some("kB") => value.checked_mul(1024),
        None => Some(value),
        Some(_) => None,
    }
}

/// Refuses when `needed` bytes of memory for `what` exceed `limit`.
pub fn check_memory(what: &str, needed: u64, limit: &MemoryLimit) -> Result<(), CliError> {
    if needed > limit.bytes {
        return Err(CliError::Memory { what: what.to_string(), needed, available: limit.bytes, origin: limit.source });
    }
    Ok(())
}

/// Free bytes for an unprivileged user on the file system holding `dir` (statvfs: `f_bavail * f_frsize`).
pub fn free_disk(dir: &Path) -> std::io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a path with a NUL byte"))?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c` is a NUL-terminated string that outlives the call; `stat` points to writable memory of the size of
    // `struct statvfs`, which statvfs fills completely when it returns 0 (and we read it only then).
    let stat = unsafe {
        if libc::statvfs(c.as_ptr(), stat.as_mut_ptr()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        stat.assume_init()
    };
    #[allow(clippy::useless_conversion)] // the field types differ between platforms
    Ok(u64::from(stat.f_bavail).saturating_mul(u64::from(stat.f_frsize)))
}

/// The directory a file at `path` is created in (`.` for a bare name).
pub fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Refuses when a file of `needed` bytes does not fit the free space of the file system where `out` is written.
/// A directory that cannot be inspected is not an error here: creating the file reports it with its own message.
pub fn check_disk(out: &Path, needed: u64) -> Result<(), CliError> {
    let dir = directory_of(out);
    match free_disk(dir) {
        Ok(free) if needed > free => {
            Err(CliError::Disk { path: out.to_path_buf(), dir: dir.to_path_buf(), needed, free })
        }
        _ => Ok(()),
    }
}

/// `bytes` with a binary unit, for messages: `8589934592 bytes (8.0 GiB)`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{bytes} bytes ({value:.1} {})", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_with_units() {
        assert_eq!(parse_max_memory("1000").unwrap(), 1000);
        assert_eq!(parse_max_memory("512M").unwrap(), 512 << 20);
        assert_eq!(parse_max_memory("2GiB").unwrap(), 2 << 30);
        assert_eq!(parse_max_memory(" 3 kb ").unwrap(), 3 << 10);
        assert_eq!(parse_max_memory("1t").unwrap(), 1 << 40);
        for bad in ["", "-1", "1.5G", "G", "12X", "99999999999999999999", "16777216T"] {
            let e = parse_max_memory(bad).unwrap_err().to_string();
            assert!(e.starts_with("error[args]: --max-memory"), "{bad}: {e}");
        }
    }

    #[test]
    fn meminfo_field() {
        let text = "MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   22000000 kB\n";
        assert_eq!(parse_mem_available(text), Some(22_000_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn memory_check_gives_both_numbers() {
        let limit = memory_limit(Some(1000));
        assert!(check_memory("x", 1000, &limit).is_ok());
        let e = check_memory("the swapped copy of the input", 1001, &limit).unwrap_err().to_string();
        assert!(e.contains("1001 bytes") && e.contains("1000 bytes") && e.contains("--max-memory"), "{e}");
    }

    #[test]
    fn free_disk_of_a_real_directory() {
        assert!(free_disk(Path::new(".")).is_ok());
        assert!(free_disk(Path::new("/nonexistent/dir")).is_err());
        let e = check_disk(Path::new("out.npy"), u64::MAX).unwrap_err().to_string();
        assert!(e.starts_with("error[disk]: "), "{e}");
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(12), "12 bytes");
        assert_eq!(human(8 << 30), "8589934592 bytes (8.0 GiB)");
    }
}
