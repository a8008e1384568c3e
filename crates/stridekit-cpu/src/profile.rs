//! A machine's streaming profile: the streaming thresholds `stridekit calibrate` measured on it, which the defaults
//! ([`ExecOptions::default`](crate::ExecOptions::default)) take instead of the vendor's [`StreamingRule`].
//!
//! Why: whether ordinary or streaming stores copy a few MiB faster depends on the machine, not only on its core and
//! its caches. Two Intel Xeons of the same core, with 2 MiB of L2 per core and a 260 / 480 MiB L3, measured opposite
//! crossovers for the bulk copy (`docs/PERFORMANCE.md`, thirty-first and thirty-seventh rounds): one ran copies
//! moving 1-8 MiB in 0.77-0.86 of the time streamed, the other in 0.70-0.83 with ordinary stores. A rule by vendor
//! costs one of them about what it gives the other; a measurement on the machine itself settles it, once, as
//! FFTW's "wisdom" settles its plans.
//!
//! Decisions (a demanding user's, since DirectML has no such thing):
//! - **Explicit, not at first use.** Calibrating takes about a second and its answer follows the machine's load at
//!   that moment; a library that did it inside some first call would make that call slow and its speed a lottery.
//!   `stridekit calibrate` measures when the user asks and writes the profile; every later process reads it.
//! - **Where**: the file named by `STRIDEKIT_PROFILE`, else `$XDG_CACHE_HOME/stridekit/streaming-profile`, else
//!   `$HOME/.cache/stridekit/streaming-profile` ([`profile_path`]). `STRIDEKIT_PROFILE=off` (or empty) ignores every
//!   profile. Read once per process.
//! - **Only on the machine it was measured on**: a profile records the CPU's model name, the detected last-level
//!   cache and the thread pool's size; a profile whose record differs (a home directory shared by several machines,
//!   `RAYON_NUM_THREADS` changed) is ignored, and so is a file that does not parse. Ignoring never fails a copy:
//!   the defaults fall back to the rule, and `stridekit bench` names the file and the reason.
//! - **Format**: a few lines of text, `key value`, `#` comments (the measured ratios, for the reader); at most
//!   [`PROFILE_MAX_BYTES`] are read.

use crate::options::{ExecOptions, StreamingRule, StreamingThresholds};
use std::path::{Path, PathBuf};

/// The environment variable naming the profile file (`off` or empty: no profile).
pub const PROFILE_ENV: &str = "STRIDEKIT_PROFILE";
/// The first line of every profile: its format and version.
const HEADER: &str = "stridekit streaming profile 1";
/// The most bytes of a profile file that are read; a larger file is not a profile.
pub const PROFILE_MAX_BYTES: u64 = 64 << 10;

/// What a profile must match to apply: the machine it was measured on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineKey {
    /// The CPU's model name (`/proc/cpuinfo`), or `unknown`.
    pub cpu: String,
    /// The detected last-level cache ([`ExecOptions::last_level_cache_bytes`]).
    pub last_level_cache_bytes: Option<usize>,
    /// The threads of rayon's global pool, which copies split over by default.
    pub threads: usize,
}

impl MachineKey {
    /// This machine, as this process sees it.
    pub fn this() -> MachineKey {
        MachineKey {
            cpu: cpu_model_name(),
            last_level_cache_bytes: ExecOptions::last_level_cache_bytes(),
            threads: rayon::current_num_threads(),
        }
    }

    /// The first field in which `self` (a profile's record) differs from `other` (this machine), for messages.
    pub fn difference(&self, other: &MachineKey) -> Option<String> {
        let cache = |c: Option<usize>| c.map_or_else(|| "none".to_string(), |b| b.to_string());
        if self.cpu != other.cpu {
            Some(format!("it was measured on the CPU '{}', this one is '{}'", self.cpu, other.cpu))
        } else if self.last_level_cache_bytes != other.last_level_cache_bytes {
            Some(format!(
                "it was measured with a last-level cache of {} bytes, this machine has {}",
                cache(self.last_level_cache_bytes),
                cache(other.last_level_cache_bytes)
            ))
        } else if self.threads != other.threads {
            Some(format!("it was measured with {} threads, this process has {}", self.threads, other.threads))
        } else {
            None
        }
    }
}

/// The model name of the first CPU in `/proc/cpuinfo`, or `unknown` (other systems, Miri).
fn cpu_model_name() -> String {
    if cfg!(miri) {
        return "unknown".to_string();
    }
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                (key.trim() == "model name").then(|| value.trim().to_string())
            })
        })
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

/// Measured streaming thresholds and the machine they hold for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamingProfile {
    /// The machine the thresholds were measured on.
    pub machine: MachineKey,
    /// The thresholds ([`ExecOptions::streaming`]).
    pub streaming: StreamingThresholds,
}

/// A profile that does not parse: the line (1-based) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ProfileError {
    /// The 1-based line, or 0 for the file as a whole (a key that never appears).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

const KEYS: [&str; 7] = ["cpu", "last-level-cache", "threads", "copy", "contiguous", "fill", "other"];

impl StreamingProfile {
    /// The profile as text: the header, `comments` (each line prefixed with `# `), then one `key value` per line.
    pub fn to_text(&self, comments: &str) -> String {
        let mut text = format!("{HEADER}\n");
        for line in comments.lines() {
            text += &format!("# {line}\n");
        }
        let m = &self.machine;
        let s = &self.streaming;
        let cache = m.last_level_cache_bytes.map_or_else(|| "none".to_string(), |b| b.to_string());
        text += &format!("cpu {}\nlast-level-cache {cache}\nthreads {}\n", m.cpu, m.threads);
        text += &format!("copy {}\ncontiguous {}\nfill {}\nother {}\n", s.copy, s.contiguous, s.fill, s.other);
        text
    }

    /// Parses [`to_text`](Self::to_text)'s format: the header first; every key (`cpu`, `last-level-cache`,
    /// `threads`, `copy`, `contiguous`, `fill`, `other`) exactly once; `#` lines and blank lines anywhere after the
    /// header.
    pub fn parse(text: &str) -> Result<StreamingProfile, ProfileError> {
        let err = |line: usize, message: String| ProfileError { line, message };
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
        match lines.next() {
            Some((_, first)) if first == HEADER => {}
            _ => return Err(err(1, format!("the first line is not '{HEADER}'"))),
        }
        let mut values: [Option<(usize, &str)>; KEYS.len()] = [None; KEYS.len()];
        for (n, line) in lines {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            let Some(k) = KEYS.iter().position(|&known| known == key) else {
                return Err(err(n, format!("unknown key '{key}' (the keys are {})", KEYS.join(", "))));
            };
            if let Some((first, _)) = values[k] {
                return Err(err(n, format!("'{key}' appears twice (first on line {first})")));
            }
            values[k] = Some((n, value.trim()));
        }
        let get = |k: usize| values[k].ok_or_else(|| err(0, format!("the key '{}' is missing", KEYS[k])));
        let number = |k: usize| -> Result<usize, ProfileError> {
            let (n, value) = get(k)?;
            value.parse::<usize>().map_err(|_| err(n, format!("'{}' is '{value}', not a number of bytes", KEYS[k])))
        };
        let (_, cpu) = get(0)?;
        if cpu.is_empty() {
            return Err(err(values[0].map_or(0, |(n, _)| n), "'cpu' is empty".to_string()));
        }
        let last_level_cache_bytes = match get(1)? {
            (_, "none") => None,
            _ => Some(number(1)?),
        };
        let threads = number(2)?;
        if threads == 0 {
            return Err(err(values[2].map_or(0, |(n, _)| n), "'threads' is 0".to_string()));
        }
        Ok(StreamingProfile {
            machine: MachineKey { cpu: cpu.to_string(), last_level_cache_bytes, threads },
            streaming: StreamingThresholds {
                copy: number(3)?,
                contiguous: number(4)?,
                fill: number(5)?,
                other: number(6)?,
            },
        })
    }
}

/// Where the defaults look for a profile ([`profile_path`]) and what they found there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileStatus {
    /// No profile: `STRIDEKIT_PROFILE` is `off` or empty, or neither it nor a cache directory is known.
    Disabled,
    /// No file at the path.
    Absent(PathBuf),
    /// The profile applies: the defaults stream from its thresholds.
    Loaded(PathBuf, StreamingProfile),
    /// A file that does not parse, cannot be read, or was measured on another machine.
    Ignored(PathBuf, String),
}

impl ProfileStatus {
    /// The thresholds the profile gives, when it applies.
    pub fn streaming(&self) -> Option<StreamingThresholds> {
        match self {
            ProfileStatus::Loaded(_, profile) => Some(profile.streaming),
            _ => None,
        }
    }

    /// Where the streaming thresholds of the defaults come from, for reports: `profile PATH`, or the rule's name
    /// with the reason a profile was not taken.
    pub fn describe(&self) -> String {
        let rule = format!("{:?} rule", StreamingRule::detected());
        match self {
            ProfileStatus::Disabled => format!("{rule}; profiles off"),
            ProfileStatus::Absent(path) => format!("{rule}; no profile at {}", path.display()),
            ProfileStatus::Loaded(path, _) => format!("profile {}", path.display()),
            ProfileStatus::Ignored(path, why) => format!("{rule}; profile {} ignored: {why}", path.display()),
        }
    }
}

/// The profile file of this process: `STRIDEKIT_PROFILE` when set (`None` when it is `off` or empty), else
/// `$XDG_CACHE_HOME/stridekit/streaming-profile` (an absolute `XDG_CACHE_HOME` only, as the XDG specification says),
/// else `$HOME/.cache/stridekit/streaming-profile`; `None` when none is known.
pub fn profile_path() -> Option<PathBuf> {
    path_from(|name| std::env::var_os(name))
}

fn path_from(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    if let Some(value) = var(PROFILE_ENV) {
        return (!value.is_empty() && value != "off").then(|| PathBuf::from(value));
    }
    let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let cache = absolute("XDG_CACHE_HOME").or_else(|| absolute("HOME").map(|home| home.join(".cache")))?;
    Some(cache.join("stridekit").join("streaming-profile"))
}

/// The profile of this process, read once ([`profile_path`]); under Miri always [`ProfileStatus::Disabled`].
pub fn loaded_profile() -> &'static ProfileStatus {
    static LOADED: std::sync::OnceLock<ProfileStatus> = std::sync::OnceLock::new();
    LOADED.get_or_init(|| {
        if cfg!(miri) {
            return ProfileStatus::Disabled;
        }
        match profile_path() {
            None => ProfileStatus::Disabled,
            Some(path) => load_profile(&path, MachineKey::this),
        }
    })
}

/// Reads the profile at `path` for the machine `this` gives. `this` is only called when a profile was read: it
/// starts rayon's global pool (for its size), which a process without a profile may never need.
pub fn load_profile(path: &Path, this: impl FnOnce() -> MachineKey) -> ProfileStatus {
    use std::io::Read;
    let ignored = |why: String| ProfileStatus::Ignored(path.to_path_buf(), why);
    // Only a regular file is opened: opening a named pipe would wait for a writer forever, inside whatever call
    // first built the defaults.
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return ProfileStatus::Absent(path.to_path_buf()),
        Err(e) => return ignored(format!("cannot be read: {e}")),
        Ok(meta) if !meta.is_file() => return ignored("it is not a regular file".to_string()),
        Ok(_) => {}
    }
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return ProfileStatus::Absent(path.to_path_buf()),
        Err(e) => return ignored(format!("cannot be read: {e}")),
    };
    let mut bytes = Vec::new();
    if let Err(e) = file.take(PROFILE_MAX_BYTES + 1).read_to_end(&mut bytes) {
        return ignored(format!("cannot be read: {e}"));
    }
    if bytes.len() as u64 > PROFILE_MAX_BYTES {
        return ignored(format!("it is larger than {PROFILE_MAX_BYTES} bytes: not a profile"));
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return ignored("it is not UTF-8 text".to_string());
    };
    match StreamingProfile::parse(&text) {
        Err(e) => ignored(e.to_string()),
        Ok(profile) => match profile.machine.difference(&this()) {
            Some(why) => ignored(why),
            None => ProfileStatus::Loaded(path.to_path_buf(), profile),
        },
    }
}

// Not under Miri: file and environment access, no kernel (scripts/miri.sh says why).
#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;

    fn profile() -> StreamingProfile {
        StreamingProfile {
            machine: MachineKey { cpu: "Some CPU @ 2.0GHz".into(), last_level_cache_bytes: Some(32 << 20), threads: 2 },
            streaming: StreamingThresholds { copy: 4 << 20, contiguous: 2 << 20, fill: 8 << 20, other: 8 << 20 },
        }
    }

    #[test]
    fn a_profile_reads_back_what_it_wrote() {
        let p = profile();
        let text = p.to_text("moved  copy\n1 MiB  1.40");
        assert!(
            text.starts_with("stridekit streaming profile 1\n# moved  copy\n# 1 MiB  1.40\ncpu Some CPU @ 2.0GHz\n")
        );
        assert_eq!(StreamingProfile::parse(&text), Ok(p.clone()));
        let none = StreamingProfile { machine: MachineKey { last_level_cache_bytes: None, ..p.machine }, ..p };
        assert!(none.to_text("").contains("last-level-cache none\n"));
        assert_eq!(StreamingProfile::parse(&none.to_text("")), Ok(none));
    }

    #[test]
    fn a_bad_profile_names_its_line_and_field() {
        let text = profile().to_text("");
        let fails = |text: &str| StreamingProfile::parse(text).unwrap_err().to_string();
        assert_eq!(
            fails("stridekit streaming profile 2\n"),
            "line 1: the first line is not 'stridekit streaming profile 1'"
        );
        assert_eq!(fails(&text.replace("copy 4194304", "copy 4M")), "line 5: 'copy' is '4M', not a number of bytes");
        assert_eq!(fails(&text.replace("fill 8388608\n", "")), "line 0: the key 'fill' is missing");
        assert_eq!(fails(&format!("{text}threads 4\n")), "line 9: 'threads' appears twice (first on line 4)");
        assert!(fails(&format!("{text}speed 1\n")).starts_with("line 9: unknown key 'speed'"));
        assert_eq!(fails(&text.replace("threads 2", "threads 0")), "line 4: 'threads' is 0");
        assert_eq!(fails(&text.replace("cpu Some CPU @ 2.0GHz", "cpu")), "line 2: 'cpu' is empty");
    }

    #[test]
    fn a_profile_applies_only_on_the_machine_it_was_measured_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("streaming-profile");
        let p = profile();
        assert_eq!(load_profile(&path, || p.machine.clone()), ProfileStatus::Absent(path.clone()));
        std::fs::write(&path, p.to_text("")).unwrap();
        assert_eq!(load_profile(&path, || p.machine.clone()), ProfileStatus::Loaded(path.clone(), p.clone()));
        assert_eq!(load_profile(&path, || p.machine.clone()).streaming(), Some(p.streaming));
        let other = |m: MachineKey| match load_profile(&path, || m) {
            ProfileStatus::Ignored(_, why) => why,
            status => panic!("{status:?}"),
        };
        let other_at = |at: &Path, m: &MachineKey| match load_profile(at, || m.clone()) {
            ProfileStatus::Ignored(_, why) => why,
            status => panic!("{status:?}"),
        };
        let m = &p.machine;
        assert!(other(MachineKey { cpu: "Another".into(), ..m.clone() }).contains("the CPU 'Some CPU @ 2.0GHz'"));
        assert!(other(MachineKey { last_level_cache_bytes: None, ..m.clone() }).contains("33554432 bytes"));
        assert!(other(MachineKey { threads: 8, ..m.clone() }).contains("2 threads, this process has 8"));
        // A directory or a named pipe is never opened (a pipe would block the first ExecOptions::default()).
        assert_eq!(other_at(dir.path(), m), "it is not a regular file");
        let fifo = dir.path().join("fifo");
        if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
            assert_eq!(other_at(&fifo, m), "it is not a regular file");
        }
        std::fs::write(&path, "not a profile").unwrap();
        assert!(other(m.clone()).starts_with("line 1: "));
        std::fs::write(&path, vec![b'#'; PROFILE_MAX_BYTES as usize + 1]).unwrap();
        assert!(other(m.clone()).contains("larger than"));
        let status = ProfileStatus::Ignored(path.clone(), "why".into());
        assert!(status.describe().ends_with(&format!("rule; profile {} ignored: why", path.display())));
        assert_eq!(status.streaming(), None);
    }

    #[test]
    fn the_profile_path_follows_the_variable_then_the_cache_directories() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| std::ffi::OsString::from(v))
        };
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(path_from(env(&[("STRIDEKIT_PROFILE", "/etc/p"), ("HOME", "/h")])), p("/etc/p"));
        assert_eq!(path_from(env(&[("STRIDEKIT_PROFILE", "off"), ("HOME", "/h")])), None);
        assert_eq!(path_from(env(&[("STRIDEKIT_PROFILE", ""), ("HOME", "/h")])), None);
        assert_eq!(path_from(env(&[("XDG_CACHE_HOME", "/c"), ("HOME", "/h")])), p("/c/stridekit/streaming-profile"));
        assert_eq!(
            path_from(env(&[("XDG_CACHE_HOME", "rel"), ("HOME", "/h")])),
            p("/h/.cache/stridekit/streaming-profile")
        );
        assert_eq!(path_from(env(&[("HOME", "relative")])), None);
        assert_eq!(path_from(env(&[])), None);
    }
}
