//! What `stridekit bench` prints: the table or JSON lines, the roofline distribution per size class, and the worst
//! cases in the case-file schema.

use super::measure::Row;
use super::roofline::Class;
use std::io::Write;
use stridekit::ops::case::Slice1Case;

/// A name as printed to a terminal: control characters (escape sequences, newlines) escaped as `\u{..}`, `\n`, ...
pub fn escape(name: &str) -> String {
    name.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// The JSON object of one case.
pub fn json_line(r: &Row) -> serde_json::Value {
    serde_json::json!({
        "case": r.case.name,
        "dtype": r.case.dtype.name(),
        "class": r.class().name(),
        "median_s": r.median_s,
        "gbps": r.gbps(),
        "useful_bytes": r.out_bytes,
        "bytes_moved": 2 * r.out_bytes,
        "lines_read": r.traffic.lines_read,
        "lines_written": r.traffic.lines_written,
        "roofline_bytes": r.traffic.bytes(),
        "traffic_exact": r.traffic.exact,
        "copy": r.copy.kind,
        "copy_gbps": r.copy.gbps,
        "roofline": r.roofline,
        "threads": r.threads,
        "kernel": r.kernel,
        "plan": r.plan,
        "verified": r.verified,
        "expect": match r.expect_ok { None => "none", Some(true) => "ok", Some(false) => "mismatch" },
        "timing": r.timing.name(),
    })
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// The table of every case.
pub fn table(out: &mut impl Write, rows: &[Row]) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<24} {:<8} {:>6} {:>10} {:>10} {:>11} {:>9} {:>10} {:>10} {:>8} {:>7} {:>9} {:>8}",
        "case",
        "dtype",
        "class",
        "MiB useful",
        "MiB lines",
        "median",
        "GB/s",
        "copy",
        "copy GB/s",
        "roofline",
        "threads",
        "kernel",
        "verified"
    )?;
    for r in rows {
        let median = if r.median_s < 1e-6 {
            format!("{:.1} ns", r.median_s * 1e9)
        } else if r.median_s < 1e-3 {
            format!("{:.2} us", r.median_s * 1e6)
        } else {
            format!("{:.3} ms", r.median_s * 1e3)
        };
        let verified = match (r.verified, r.expect_ok) {
            (true, Some(false)) => "NO(exp)",
            (true, _) => "yes",
            (false, _) => "NO",
        };
        writeln!(
            out,
            "{:<24} {:<8} {:>6} {:>10.2} {:>10.2}{} {:>11} {:>9.2} {:>10} {:>10.2} {:>8.3} {:>7} {:>9} {:>8}",
            escape(&r.case.name),
            r.case.dtype.name(),
            r.class().name(),
            mib(r.out_bytes),
            mib(r.traffic.bytes()),
            if r.traffic.exact { " " } else { "~" },
            median,
            r.gbps(),
            r.copy.kind,
            r.copy.gbps,
            r.roofline,
            r.threads,
            r.kernel,
            verified
        )?;
    }
    Ok(())
}

/// min, p10, median, geometric mean of the roofline ratios of `rows`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distribution {
    /// Number of cases.
    pub count: usize,
    /// The lowest ratio.
    pub min: f64,
    /// The 10th percentile (nearest rank).
    pub p10: f64,
    /// The median (nearest rank).
    pub median: f64,
    /// The geometric mean.
    pub geomean: f64,
}

impl Distribution {
    /// The distribution of `ratios` (`None` when empty).
    pub fn of(ratios: &[f64]) -> Option<Distribution> {
        if ratios.is_empty() {
            return None;
        }
        let mut v = ratios.to_vec();
        v.sort_by(f64::total_cmp);
        let rank = |p: f64| v[((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        let geomean = super::measure::geometric_mean(v.iter().map(|x| x.max(1e-12)));
        Some(Distribution { count: v.len(), min: v[0], p10: rank(0.1), median: rank(0.5), geomean })
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({"count": self.count, "min": self.min, "p10": self.p10, "median": self.median,
            "geomean": self.geomean})
    }
}

/// The distributions: every case, then per class.
pub fn distributions(rows: &[Row]) -> Vec<(&'static str, Distribution)> {
    let all: Vec<f64> = rows.iter().map(|r| r.roofline).collect();
    let mut out: Vec<_> = Distribution::of(&all).map(|d| ("all", d)).into_iter().collect();
    for class in [Class::Tiny, Class::Cache, Class::Memory] {
        let v: Vec<f64> = rows.iter().filter(|r| r.class() == class).map(|r| r.roofline).collect();
        if let Some(d) = Distribution::of(&v) {
            out.push((class.name(), d));
        }
    }
    out
}

/// The distributions per kernel the CPU planner chose ([`Row::kernel`]), by name.
pub fn kernel_distributions(rows: &[Row]) -> Vec<(&'static str, Distribution)> {
    let mut names: Vec<&'static str> = rows.iter().map(|r| r.kernel).collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .filter_map(|k| {
            let v: Vec<f64> = rows.iter().filter(|r| r.kernel == k).map(|r| r.roofline).collect();
            Distribution::of(&v).map(|d| (k, d))
        })
        .collect()
}

/// The `worst` cases by roofline, lowest first, each with a note giving its figures.
pub fn worst(rows: &[Row], worst: usize) -> Vec<Slice1Case> {
    let mut sorted: Vec<&Row> = rows.iter().collect();
    sorted.sort_by(|a, b| a.roofline.total_cmp(&b.roofline));
    sorted
        .iter()
        .take(worst)
        .map(|r| {
            let mut c = r.case.clone();
            let was = c.note.take().map(|n| format!("; {n}")).unwrap_or_default();
            c.note = Some(format!(
                "roofline {:.3} ({} class, {:.2} GB/s useful, best copy {} {:.2} GB/s){was}",
                r.roofline,
                r.class().name(),
                r.gbps(),
                r.copy.kind,
                r.copy.gbps
            ));
            c
        })
        .collect()
}

/// A case file holding `cases`, one case per line in the schema's key order (so that a diff shows which case
/// changed).
pub fn case_file(cases: &[Slice1Case], note: &str) -> String {
    let quoted = |t: &str| serde_json::Value::from(t).to_string();
    let lines: Vec<String> =
        cases.iter().map(|c| format!("  {}", serde_json::to_string(c).unwrap_or_default())).collect();
    format!(
        "{{\n \"schema\": {},\n \"note\": {},\n \"cases\": [\n{}\n ]\n}}\n",
        quoted("the schema of ../shared/bench/cases.json (stridekit::ops::case): stridekit bench --cases FILE"),
        quoted(note),
        lines.join(",\n")
    )
}

/// The summary after the table: the distributions and, for a sweep, the worst cases as a case file.
pub fn summary(out: &mut impl Write, rows: &[Row], worst_cases: Option<&str>) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(out, "roofline (best copy time for the lines moved / stridekit time; 1.0 = as fast as the best copy):")?;
    write_distributions(out, "class", 8, &distributions(rows))?;
    if rows.len() > 1 {
        writeln!(out)?;
        write_distributions(out, "kernel", 10, &kernel_distributions(rows))?;
    }
    if let Some(file) = worst_cases {
        writeln!(out)?;
        writeln!(out, "worst cases (a case file: save it and re-run with --cases, or use --save-worst FILE):")?;
        write!(out, "{file}")?;
    }
    Ok(())
}

/// One table of distributions under a heading naming what its first column (`width` wide) groups by.
fn write_distributions(
    out: &mut impl Write,
    by: &str,
    width: usize,
    rows: &[(&'static str, Distribution)],
) -> std::io::Result<()> {
    writeln!(out, "{by:<width$} {:>6} {:>8} {:>8} {:>8} {:>8}", "cases", "min", "p10", "median", "geomean")?;
    for (name, d) in rows {
        writeln!(
            out,
            "{name:<width$} {:>6} {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
            d.count, d.min, d.p10, d.median, d.geomean
        )?;
    }
    Ok(())
}

/// The summary as one JSON line (after the per-case lines of `--json`).
pub fn summary_json(rows: &[Row], worst_cases: Option<&str>) -> serde_json::Value {
    let object = |ds: Vec<(&'static str, Distribution)>| -> serde_json::Map<String, serde_json::Value> {
        ds.into_iter().map(|(n, d)| (n.to_string(), d.json())).collect()
    };
    let worst = worst_cases.and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok());
    serde_json::json!({"summary": object(distributions(rows)), "by_kernel": object(kernel_distributions(rows)),
        "worst": worst})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_control_characters() {
        assert_eq!(escape("a\u{1b}[31mred\nb"), "a\\u{1b}[31mred\\nb");
        assert_eq!(escape("plain é"), "plain é");
    }

    #[test]
    fn distribution_by_nearest_rank() {
        let v: Vec<f64> = (1..=20).map(|i| i as f64 / 20.0).collect();
        let d = Distribution::of(&v).unwrap();
        assert_eq!((d.count, d.min, d.p10, d.median), (20, 0.05, 0.1, 0.5));
        let g = Distribution::of(&[0.25, 1.0]).unwrap().geomean;
        assert!((g - 0.5).abs() < 1e-12);
        assert_eq!(Distribution::of(&[]), None);
    }
}
