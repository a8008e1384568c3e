//! `stridekit slice --device gpu` writes the same file as `--device cpu`. Skipped with a note when no GPU adapter
//! can be opened (the command then fails with `error[gpu]`, exit code 1), unless STRIDEKIT_REQUIRE_GPU=1.

mod common;
use common::{npy, run, stderr};
use std::path::Path;

fn slice(input: &Path, out: &Path, device: &str, args: &[&str]) -> std::process::Output {
    let mut full = vec!["slice", input.to_str().unwrap(), out.to_str().unwrap(), "--device", device];
    full.extend_from_slice(args);
    run(&full)
}

#[test]
fn gpu_output_equals_cpu_output() {
    let dir = tempfile::tempdir().unwrap();
    let u8_in = dir.path().join("u8.npy");
    std::fs::write(&u8_in, npy("|u1", false, &[5, 7, 3], &(0..105u8).collect::<Vec<_>>())).unwrap();
    let f32_data: Vec<u8> = (0..60).flat_map(|i| (i as f32 * 0.5).to_le_bytes()).collect();
    let f32_in = dir.path().join("f32.npy");
    std::fs::write(&f32_in, npy("<f4", false, &[3, 4, 5], &f32_data)).unwrap();
    let cases: [(&Path, &[&str]); 5] = [
        (&u8_in, &[]),
        (&u8_in, &["--numpy", "::-1, 1:6:2, ::-1"]),
        (&u8_in, &["--numpy", "..., 1", "--output-strides", "9,1,1"]),
        (&f32_in, &["--strides", "1,-2,3"]),
        (&f32_in, &["--onnx-starts", "2,-1", "--onnx-ends", "0,0", "--onnx-steps", "-1,-2"]),
    ];
    let (cpu, gpu) = (dir.path().join("cpu.npy"), dir.path().join("gpu.npy"));
    for (input, args) in cases {
        let o = slice(input, &cpu, "cpu", args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let o = slice(input, &gpu, "gpu", args);
        if !o.status.success() && stderr(&o).starts_with("error[gpu]: no GPU adapter") {
            assert_ne!(std::env::var("STRIDEKIT_REQUIRE_GPU").as_deref(), Ok("1"), "{}", stderr(&o));
            assert_eq!(o.status.code(), Some(1));
            eprintln!("note: no GPU adapter here; skipping ({})", stderr(&o).trim());
            return;
        }
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(std::fs::read(&gpu).unwrap(), std::fs::read(&cpu).unwrap(), "{args:?}");
    }
}

#[test]
fn bench_on_the_gpu_verifies_and_reports_the_device() {
    // The DirectML doc example and a reversed u8 crop, as a case file; --json gives one object per case.
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.json");
    std::fs::write(
        &cases,
        r#"[{"name": "doc", "dtype": "float32", "in_sizes": [1, 1, 4, 4], "in_strides": null,
             "window_offsets": [0, 0, 0, 1], "window_sizes": [1, 1, 4, 3], "window_strides": [1, 1, -2, 2],
             "out_sizes": [1, 1, 2, 2], "out_strides": null, "expect": [14, 16, 6, 8]},
            {"name": "u8_flip", "dtype": "uint8", "in_sizes": [6, 9], "in_strides": null,
             "window_offsets": [1, 2], "window_sizes": [5, 7], "window_strides": [-1, -2],
             "out_sizes": [5, 4], "out_strides": [1, 5]}]"#,
    )
    .unwrap();
    let o = run(&["bench", "--device", "gpu", "--cases", cases.to_str().unwrap(), "--reps", "2", "--json"]);
    if !o.status.success() && stderr(&o).starts_with("error[gpu]: no GPU adapter") {
        assert_ne!(std::env::var("STRIDEKIT_REQUIRE_GPU").as_deref(), Ok("1"), "{}", stderr(&o));
        eprintln!("note: no GPU adapter here; skipping ({})", stderr(&o).trim());
        return;
    }
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = common::stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert_eq!(line["device"], "gpu");
        assert_eq!(line["verified"], true, "{line}");
        assert!(line["adapter"].as_str().is_some_and(|a| !a.is_empty()));
        assert!(line["kernel_s"].as_f64().is_some_and(|t| t > 0.0));
        assert!(line["ratio_to_copy"].as_f64().is_some_and(|r| r > 0.0));
    }
    assert_eq!(lines[0]["expect_ok"], true);
    // A sweep is a CPU roofline measurement.
    let o = run(&["bench", "--device", "gpu", "--sweep", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
