//! `stridekit calibrate`: measure from how many bytes moved streaming stores beat ordinary ones on this machine, and
//! write the streaming profile every later process takes as its default (`stridekit_cpu::StreamingProfile`, whose
//! docs give the decisions: explicit, per machine, ignored elsewhere).
//!
//! What is measured: for each kind of kernel whose threshold is a crossover of one simple copy, that copy at sizes
//! from 512 KiB moved to `--max-bytes` in steps of about a square root of two, planned by the CPU backend once with
//! ordinary and once with streaming stores (everything else as the defaults: threads, parallel split), timed in
//! alternating samples, each followed by a copy of as many bytes elsewhere, as `stridekit bench` times a case
//! against its copy. The kinds: the bulk copy (a contiguous u32 copy); reverses and
//! gathers, which share a threshold (a reversed u32 copy and a stride-2 u32 gather, their ratios' geometric mean);
//! fills (one broadcast u32). The strided kernels (tables, short rows, transposes) keep the rule's threshold: they
//! have no one representative, and streaming them from 128 MiB instead of 8 moved their sweep cases by 1.03x
//! (`docs/PERFORMANCE.md`, thirty-seventh round).

use super::bench::measure::{self, geometric_mean};
use crate::error::CliError;
use crate::resources;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
use stridekit_cpu::{
    CpuBuffer, ExecOptions, MachineKey, PreparedSlice1, StreamingProfile, StreamingRule, StreamingThresholds,
};

/// Arguments of `stridekit calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Where to write the profile [default: the file the defaults read: $STRIDEKIT_PROFILE, else
    /// $XDG_CACHE_HOME/stridekit/streaming-profile, else ~/.cache/stridekit/streaming-profile]
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The largest copy measured, in bytes moved (read plus written; bytes, or with K, M, G), 1M to 1G
    #[arg(long, default_value = "64M", value_name = "SIZE")]
    pub max_bytes: String,
    /// Timed samples per size and kind of store in each round (each at least a millisecond), 3 to 1000
    #[arg(long, default_value_t = 9)]
    pub reps: usize,
    /// Rounds over every kind and size, 1 to 100; each ratio is the geometric mean of the rounds' (the crossovers
    /// follow the machine's load: a fill's moved from 19 to 38 MiB between two single rounds)
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Measure and print the thresholds; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// The smallest size measured, in bytes moved.
const MIN_MOVED: usize = 512 << 10;
/// The range `--max-bytes` may take.
const MAX_MOVED: std::ops::RangeInclusive<u64> = (1 << 20)..=(1 << 30);
/// A ratio (streamed time over ordinary time) above `1 + TOLERANCE` is a loss of streaming stores; within it, a tie,
/// which streaming takes: it leaves the caches to the data a program uses next. 5%: one ratio moves by 5-10% between
/// two rounds on a shared machine, and the plain copy's ran at 1.00-1.07 from 6 to 23 MiB moved.
const TOLERANCE: f64 = 0.05;

/// The copies measured, with the threshold each decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Copy,
    Reverse,
    Gather,
    Fill,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Copy, Kind::Reverse, Kind::Gather, Kind::Fill];

    fn name(self) -> &'static str {
        match self {
            Kind::Copy => "copy",
            Kind::Reverse => "reverse",
            Kind::Gather => "gather",
            Kind::Fill => "fill",
        }
    }

    /// The u32 Slice1 of this kind that moves about `moved` bytes (input bytes read plus output bytes written).
    fn desc(self, moved: usize) -> Result<Slice1Desc, CliError> {
        let u32s =
            |bytes: usize| u32::try_from(bytes / 4).map_err(|_| CliError::Args(format!("a copy moving {moved} bytes")));
        // Output elements, the input, and the window along it.
        let (n, input, size, stride) = match self {
            Kind::Copy | Kind::Reverse => {
                let n = u32s(moved / 2)?;
                (n, BufferTensorDesc::packed(DataType::Uint32, &[n])?, n, if self == Kind::Reverse { -1 } else { 1 })
            }
            Kind::Gather => {
                let n = u32s(moved / 3)?;
                (n, BufferTensorDesc::packed(DataType::Uint32, &[2 * n])?, 2 * n, 2)
            }
            Kind::Fill => {
                let n = u32s(moved)?;
                (n, BufferTensorDesc::new(DataType::Uint32, &[n], Some(&[0]))?, n, 1)
            }
        };
        Ok(Slice1Desc {
            input,
            output: BufferTensorDesc::packed(DataType::Uint32, &[n])?,
            input_window_offsets: vec![0],
            input_window_sizes: vec![size],
            input_window_strides: vec![stride],
        })
    }
}

/// Where streaming stores start to pay: between the largest measured size at which they took more than `1 +
/// TOLERANCE` of the ordinary time and the next size (their geometric mean, to a multiple of 64 KiB: the crossover
/// lies somewhere between, and on the sweep the cases in that gap lost either way: reverses of 4.6-5.3 MiB ran
/// 1.12-1.62x slower with ordinary stores under a threshold at the gap's top); the smallest size when they never lost;
/// twice the largest when they lost there too. Each ratio is first smoothed with its neighbours' (the geometric mean
/// of up to three): where the two kinds of stores run alike, one noisy sample of 1.07 among 0.97-1.02 moved the
/// threshold from 5.7 to 32 MiB. `points` are (bytes moved, streamed / ordinary time), rising in size.
fn crossover(points: &[(usize, f64)]) -> usize {
    let smoothed =
        |i: usize| geometric_mean(points[i.saturating_sub(1)..(i + 2).min(points.len())].iter().map(|p| p.1));
    match (0..points.len()).rposition(|i| smoothed(i) > 1.0 + TOLERANCE) {
        None => points.first().map_or(MIN_MOVED, |&(size, _)| size),
        Some(i) => {
            points.get(i + 1).map_or_else(|| points[i].0.saturating_mul(2), |&(size, _)| between(points[i].0, size))
        }
    }
}

/// The multiple of 64 KiB nearest the geometric mean of sizes `a` and `b`.
fn between(a: usize, b: usize) -> usize {
    ((geometric_mean([a as f64, b as f64]) / 65536.0).round() as usize) * 65536
}

/// One kind's ratios (bytes moved, streamed / ordinary time), rising in size.
struct Measured {
    kind: Kind,
    ratios: Vec<(usize, f64)>,
}

/// The bytes [`measure_kind`] allocates for `kind` up to `moved`: the input, one output per kind of store, and the
/// two buffers of the evicting copy.
fn memory_of(kind: Kind, moved: usize) -> Result<u64, CliError> {
    let desc = kind.desc(moved)?;
    Ok(desc.input.total_tensor_size_in_bytes + 2 * desc.output.total_tensor_size_in_bytes + moved as u64)
}

/// Times `kind` at every size of `sizes` (rising): the streamed over the ordinary time, each the median of `reps`
/// alternating samples. Each kind of store writes its own output buffer, so that the two alternate freely.
fn measure_kind(kind: Kind, sizes: &[usize], reps: usize) -> Result<Measured, CliError> {
    let largest = kind.desc(sizes.last().copied().unwrap_or(MIN_MOVED))?;
    let bytes = |t: &BufferTensorDesc| t.total_tensor_size_in_bytes as usize;
    let mut input = CpuBuffer::zeroed(bytes(&largest.input));
    input.as_bytes_mut().iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
    let mut outputs = [CpuBuffer::zeroed(bytes(&largest.output)), CpuBuffer::zeroed(bytes(&largest.output))];
    let half = sizes.last().copied().unwrap_or(MIN_MOVED) / 2;
    let mut evict = [CpuBuffer::zeroed(half), CpuBuffer::zeroed(half)];
    let mut ratios = Vec::with_capacity(sizes.len());
    for &moved in sizes {
        let desc = kind.desc(moved)?;
        let plan = desc.validate()?;
        let prepare = |streaming| {
            let options = ExecOptions { streaming, ..ExecOptions::default() };
            PreparedSlice1::new(&plan, options).map_err(CliError::from)
        };
        let ops = [prepare(StreamingThresholds::NEVER)?, prepare(StreamingThresholds::ALWAYS)?];
        // The measurement is only about the kernel it names, with and without streaming stores: a planner change
        // that took another kernel, or ignored the thresholds, would void it.
        let streams = |op: &PreparedSlice1| op.describe().contains("streaming");
        if ops.iter().any(|op| op.kernel() != kind.name()) || streams(&ops[0]) || !streams(&ops[1]) {
            return Err(CliError::Internal(format!(
                "calibrate: the {} moving {moved} bytes is planned as '{}' and '{}'",
                kind.name(),
                ops[0].describe(),
                ops[1].describe()
            )));
        }
        let src = &input.as_bytes()[..bytes(&desc.input)];
        let [out0, out1] = &mut outputs;
        let (dst0, dst1) =
            (&mut out0.as_bytes_mut()[..bytes(&desc.output)], &mut out1.as_bytes_mut()[..bytes(&desc.output)]);
        // Checked once here: later calls of the same operators on the same buffers cannot fail.
        ops[0].execute(src, dst0)?;
        ops[1].execute(src, dst1)?;
        // Each sample is followed by a copy of as many bytes as the case moves, through other buffers, as `stridekit
        // bench` follows each sample of a case with its roofline copy: it evicts the sample's lines. Without it the
        // streaming sample evicts nothing (its stores bypass the caches), so the ordinary sample found its own lines
        // of the round before still cached: fills of 45 MiB moved measured 1.13x slower streamed, where the sweep's
        // fills of that size ran 1.1-1.7x faster streamed.
        let [evict_src, evict_dst] = &mut evict;
        let evict_len = (moved / 2).min(evict_src.len());
        let (src_e, dst_e) = (&evict_src.as_bytes()[..evict_len], &mut evict_dst.as_bytes_mut()[..evict_len]);
        let dst_e = std::cell::RefCell::new(dst_e);
        let copy = || dst_e.borrow_mut().copy_from_slice(std::hint::black_box(src_e));
        let medians = measure::time_alternating(
            reps,
            &mut [
                &mut || {
                    let _ = ops[0].execute(src, dst0);
                },
                &mut || copy(),
                &mut || {
                    let _ = ops[1].execute(src, dst1);
                },
                &mut || copy(),
            ],
        );
        let (ordinary, streamed) = (medians[0], medians[2]);
        ratios.push((moved, streamed / ordinary));
    }
    Ok(Measured { kind, ratios })
}

/// The sizes measured: [`MIN_MOVED`] up to `max` bytes moved in steps of a factor of about the square root of two
/// (whole powers of two, and between two of them the multiple of 64 KiB nearest their geometric mean). Doubling
/// steps were too coarse: on the Intel Xeon of the thirty-ninth round the bulk copy streamed best from about 5 MiB,
/// between the 4 MiB (a loss) and the 8 MiB (a win) of a doubling grid.
fn sizes_up_to(max: usize) -> Vec<usize> {
    let powers = std::iter::successors(Some(MIN_MOVED), |&s| s.checked_mul(2)).take_while(|&s| s <= max);
    powers.flat_map(|s| [s, between(s, 2 * s)]).filter(|&s| s <= max).collect()
}

/// Each kind's ratios over `rounds` (each round every kind in [`Kind::ALL`]'s order, at the same sizes): the geometric
/// mean of the rounds' ratios at each size.
fn mean_of_rounds(rounds: &[Vec<Measured>]) -> Vec<Measured> {
    let Some(first) = rounds.first() else { return Vec::new() };
    first
        .iter()
        .enumerate()
        .map(|(k, m)| Measured {
            kind: m.kind,
            ratios: (0..m.ratios.len())
                .map(|i| (m.ratios[i].0, geometric_mean(rounds.iter().map(|r| r[k].ratios[i].1))))
                .collect(),
        })
        .collect()
}

/// The ratios of two kinds that share a threshold, as one: their geometric mean at each size.
fn combined(a: &Measured, b: &Measured) -> Vec<(usize, f64)> {
    a.ratios.iter().zip(&b.ratios).map(|(&(size, x), &(_, y))| (size, geometric_mean([x, y]))).collect()
}

/// The thresholds the measurements give; `rule` supplies the one no measurement decides (the strided kernels').
fn thresholds(measured: &[Measured], rule: StreamingThresholds) -> StreamingThresholds {
    let of = |kind: Kind| measured.iter().find(|m| m.kind == kind);
    let one = |kind: Kind| of(kind).map_or(MIN_MOVED, |m| crossover(&m.ratios));
    let contiguous = match (of(Kind::Reverse), of(Kind::Gather)) {
        (Some(r), Some(g)) => crossover(&combined(r, g)),
        _ => MIN_MOVED,
    };
    StreamingThresholds { copy: one(Kind::Copy), contiguous, fill: one(Kind::Fill), other: rule.other }
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

/// Runs `stridekit calibrate`.
pub fn run(args: &CalibrateArgs) -> Result<ExitCode, CliError> {
    let max = resources::parse_bytes("--max-bytes", &args.max_bytes)?;
    if !MAX_MOVED.contains(&max) {
        return Err(CliError::Args(format!(
            "--max-bytes {} is out of range: give 1M to 1G (bytes moved by the largest copy measured)",
            args.max_bytes
        )));
    }
    if !(3..=1000).contains(&args.reps) {
        return Err(CliError::Args(format!("--reps {} is out of range: give 3 to 1000 samples", args.reps)));
    }
    if !(1..=100).contains(&args.rounds) {
        return Err(CliError::Args(format!("--rounds {} is out of range: give 1 to 100", args.rounds)));
    }
    let path = match (&args.output, args.dry_run) {
        (Some(path), _) => Some(path.clone()),
        (None, true) => None,
        (None, false) => Some(stridekit_cpu::profile_path().ok_or_else(|| {
            CliError::Args(format!(
                "no place for the profile: {} is off or empty and neither XDG_CACHE_HOME nor HOME is an absolute \
                 path; give --output FILE",
                stridekit_cpu::PROFILE_ENV
            ))
        })?),
    };
    let sizes = sizes_up_to(max as usize);
    let limit = resources::memory_limit(None);
    for kind in Kind::ALL {
        let needed = memory_of(kind, *sizes.last().unwrap_or(&MIN_MOVED))?;
        resources::check_memory(&format!("the {} copies of the calibration", kind.name()), needed, &limit)?;
    }
    let machine = MachineKey::this();
    let llc = ExecOptions::last_level_cache_bytes();
    let rule = StreamingRule::detected().thresholds(llc);
    eprintln!(
        "machine: {}, {} threads, last-level cache {}; {} sizes from {} to {} moved, {} samples each, {} rounds",
        machine.cpu,
        machine.threads,
        llc.map_or_else(|| "not detected".to_string(), mib),
        sizes.len(),
        mib(MIN_MOVED),
        mib(*sizes.last().unwrap_or(&MIN_MOVED)),
        args.reps,
        args.rounds
    );
    let mut rounds = Vec::with_capacity(args.rounds);
    for round in 1..=args.rounds {
        eprintln!("round {round} of {} ...", args.rounds);
        rounds.push(
            Kind::ALL.map(|kind| measure_kind(kind, &sizes, args.reps)).into_iter().collect::<Result<Vec<_>, _>>()?,
        );
    }
    let measured = mean_of_rounds(&rounds);
    let streaming = thresholds(&measured, rule);
    let mut table = format!(
        "time with streaming stores / time with ordinary stores, by bytes moved (geometric mean of {} rounds):\n",
        args.rounds
    );
    table += &format!("{:>10}{}\n", "moved", Kind::ALL.map(|k| format!("{:>9}", k.name())).concat());
    for (i, &size) in sizes.iter().enumerate() {
        let cells: String = measured.iter().map(|m| format!("{:>9.2}", m.ratios[i].1)).collect();
        table += &format!("{:>10}{cells}\n", mib(size));
    }
    let line = |t: &StreamingThresholds| {
        format!(
            "copies {}, reverses and gathers {}, fills {}, the others {}",
            mib(t.copy),
            mib(t.contiguous),
            mib(t.fill),
            mib(t.other)
        )
    };
    table += &format!("streaming from (bytes moved): {}\n", line(&streaming));
    table += &format!("the {:?} rule gives: {}\n", StreamingRule::detected(), line(&rule));
    print!("{table}");
    let Some(path) = path.filter(|_| !args.dry_run) else {
        return Ok(ExitCode::SUCCESS);
    };
    let profile = StreamingProfile { machine, streaming };
    let text = profile.to_text(&format!("written by stridekit calibrate {}\n{table}", env!("CARGO_PKG_VERSION")));
    if args.output.is_none()
        && let Some(dir) = path.parent()
    {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Io { path: dir.to_path_buf(), source })?;
    }
    let mut registration = None;
    stridekit_npy::write_file_atomically(&path, text.as_bytes(), |temp| {
        registration = Some(crate::signals::register(temp));
    })?;
    drop(registration);
    println!(
        "wrote {}: stridekit's defaults in every process that reads it now stream from these thresholds ({}=off \
         ignores it)",
        path.display(),
        stridekit_cpu::PROFILE_ENV
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_starts_just_above_its_last_clear_loss() {
        let m = |s: usize| s << 20;
        // Losses up to 4 MiB, wins beyond; smoothed: 1.30, 1.23, 1.06, 0.96, 0.83, 0.80, 0.75.
        let points = [(m(1), 1.4), (m(2), 1.2), (m(4), 1.1), (m(8), 0.9), (m(16), 0.9), (m(32), 0.7), (m(64), 0.8)];
        // Between the last loss (4) and the next size (8): 5.66 MiB, to 64 KiB.
        assert_eq!(crossover(&points), 91 << 16);
        // A noisy loss among ties past the crossover is smoothed away (1.07 -> 1.01 at 16); the smoothing also
        // carries the clear losses one step on (1.07 at 4), which is the price of it.
        let ties = [(m(1), 1.5), (m(2), 1.3), (m(4), 0.97), (m(8), 0.98), (m(16), 1.07), (m(32), 0.98), (m(64), 1.0)];
        assert_eq!(crossover(&ties), 91 << 16);
        // Two losses in a row are a loss (smoothed 1.05-1.06 at 8 and 16).
        let mut two = ties;
        two[3].1 = 1.1;
        two[4].1 = 1.1;
        assert_eq!(crossover(&two), 362 << 16);
        // Never a loss: from the smallest size; a loss at the largest: beyond the range.
        assert_eq!(crossover(&[(m(1), 0.9), (m(2), 1.03)]), m(1));
        assert_eq!(crossover(&[(m(1), 0.9), (m(2), 1.3)]), m(4));
    }

    #[test]
    fn reverses_and_gathers_share_a_threshold_and_the_strided_kernels_keep_the_rule() {
        let m = |s: usize| s << 20;
        let kind = |kind, r: [f64; 3]| Measured { kind, ratios: vec![(m(1), r[0]), (m(2), r[1]), (m(4), r[2])] };
        let measured = [
            kind(Kind::Copy, [1.5, 1.1, 0.9]),
            // The reverse alone would stream from 8 MiB (smoothed 1.10 at 4, the largest size); with the gather's
            // wins at 2 and 4 MiB (combined 1.34, 0.98, 1.0; smoothed 1.15, 1.10, 0.99) from 2.83.
            kind(Kind::Reverse, [1.5, 1.2, 1.0]),
            kind(Kind::Gather, [1.2, 0.8, 1.0]),
            kind(Kind::Fill, [0.9, 0.9, 0.9]),
        ];
        let rule = StreamingThresholds { copy: 1, contiguous: 2, fill: 3, other: 12345 };
        let t = thresholds(&measured, rule);
        // Copies and the pair lose up to 2 MiB: from 2.83 MiB.
        assert_eq!(t, StreamingThresholds { copy: 45 << 16, contiguous: 45 << 16, fill: m(1), other: 12345 });
    }

    #[test]
    fn rounds_are_averaged_geometrically_per_kind_and_size() {
        let m = |kind, r: [f64; 2]| Measured { kind, ratios: vec![(1 << 20, r[0]), (2 << 20, r[1])] };
        let rounds = [
            vec![m(Kind::Copy, [2.0, 1.0]), m(Kind::Fill, [1.0, 0.5])],
            vec![m(Kind::Copy, [0.5, 4.0]), m(Kind::Fill, [1.0, 2.0])],
        ];
        let mean = mean_of_rounds(&rounds);
        assert_eq!(mean.iter().map(|x| x.kind).collect::<Vec<_>>(), [Kind::Copy, Kind::Fill]);
        assert_eq!(mean[0].ratios, [(1 << 20, 1.0), (2 << 20, 2.0)]);
        assert_eq!(mean[1].ratios, [(1 << 20, 1.0), (2 << 20, 1.0)]);
        assert!(mean_of_rounds(&[]).is_empty());
    }

    #[test]
    fn every_kind_moves_the_bytes_it_is_measured_at() {
        for kind in Kind::ALL {
            for moved in sizes_up_to(8 << 20) {
                let desc = kind.desc(moved).unwrap_or_else(|e| panic!("{e}"));
                let plan = desc.validate().unwrap_or_else(|e| panic!("{e}"));
                let out = plan.element_count() * 4;
                let read = if kind == Kind::Fill { 4 } else { desc.input.total_tensor_size_in_bytes };
                let total = (out + read) as f64;
                assert!((total / moved as f64 - 1.0).abs() < 0.01, "{kind:?} {moved}: {total}");
                assert!(memory_of(kind, moved).is_ok_and(|b| b >= out + read));
            }
        }
        let k = |s: usize| s << 10;
        assert_eq!(sizes_up_to(4 << 20), [k(512), k(704), k(1024), k(1472), k(2048), k(2880), k(4096)]);
    }
}
