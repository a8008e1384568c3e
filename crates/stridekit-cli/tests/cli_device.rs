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
