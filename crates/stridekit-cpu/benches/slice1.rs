//! Criterion benchmarks of `bench/criterion.json` (the bench/cases.json matrix, scaled down to 16 MiB outputs or less
//! so that a run stays short), each beside a memcpy of the same bytes. Throughput is bytes read plus bytes written
//! (2 x output bytes), so the numbers read as GB/s comparable with `stridekit bench`. The file is read with the one
//! definition of the case schema, `stridekit::ops::case::Slice1Case` (`stridekit bench --cases bench/criterion.json`
//! runs the same cases).
//!
//! The `prepare` group times `PreparedSlice1::new` alone on shapes that take the table kernel with shuffle forms,
//! whose windows the planner places one by one (`table::cover`): what a caller that does not keep its prepared
//! operator pays on every call (`cargo bench -p stridekit-cpu -- prepare`).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use stridekit::ops::case::Slice1Case;
use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
use stridekit_cpu::{CpuBuffer, ExecOptions, PreparedSlice1};

fn cases() -> Vec<Slice1Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/criterion.json");
    let text = std::fs::read_to_string(path).expect("bench/criterion.json");
    let mut file: serde_json::Value = serde_json::from_str(&text).expect("bench/criterion.json is JSON");
    serde_json::from_value(file["cases"].take()).expect("bench/criterion.json has the case schema")
}

fn slice1(c: &mut Criterion) {
    let mut group = c.benchmark_group("slice1");
    group.sample_size(10);
    for case in cases() {
        let name = case.name.as_str();
        let desc = case.desc().expect("bench case tensors");
        let plan = desc.validate().expect("bench case is valid");
        let out_bytes = plan.element_count() as usize * plan.element_size();
        let input = CpuBuffer::from_bytes(&stridekit_testkit::strategies::pseudo_random_bytes(
            1,
            desc.input.total_tensor_size_in_bytes as usize,
        ));
        let mut output = CpuBuffer::zeroed(desc.output.total_tensor_size_in_bytes as usize);
        group.throughput(Throughput::Bytes(2 * out_bytes as u64));
        for threads in [1, 0] {
            let op = PreparedSlice1::new(&plan, ExecOptions::with_threads(threads)).expect("compiles");
            let label = if threads == 1 { "1t" } else { "all" };
            group.bench_function(BenchmarkId::new(name, label), |b| {
                b.iter(|| op.execute(black_box(input.as_bytes()), black_box(output.as_bytes_mut())))
            });
        }
        let (src, mut dst) = (vec![1u8; out_bytes], vec![0u8; out_bytes]);
        group.bench_function(BenchmarkId::new(name, "memcpy"), |b| {
            b.iter(|| dst.copy_from_slice(black_box(&src)));
        });
    }
    group.finish();
}

/// Shapes whose plans build table shuffle forms: 8 planes of bytes into 8-byte pixels (90 pixels per image, the
/// second image one byte later), every other byte of three from rows read bottom-up into padded rows, and 7-byte runs
/// of 11 rows from blocks 5491 bytes apart (`tests/kernels.rs` has each).
fn prepare_cases() -> Vec<(&'static str, Slice1Desc)> {
    let desc = |dt, in_sizes: &[u32], offsets: &[u32], windows: &[u32], strides: &[i32], out: &[u32], out_strides| {
        Slice1Desc {
            input: BufferTensorDesc::new(dt, in_sizes, None).expect("bench tensor"),
            output: BufferTensorDesc::new(dt, out, out_strides).expect("bench tensor"),
            input_window_offsets: offsets.to_vec(),
            input_window_sizes: windows.to_vec(),
            input_window_strides: strides.to_vec(),
        }
    };
    let pixels: &[u32] = &[8 * 2 * 45 + 1, 1, 45 * 8, 8];
    vec![
        (
            "planes_to_pixels_u8",
            desc(DataType::Uint8, &[2, 8, 2, 45], &[0; 4], &[2, 8, 2, 45], &[1; 4], &[2, 8, 2, 45], Some(pixels)),
        ),
        (
            "rows_bottom_up_u8",
            desc(
                DataType::Uint8,
                &[104, 32, 8],
                &[0, 0, 5],
                &[102, 32, 3],
                &[-3, 1, 2],
                &[34, 32, 2],
                Some(&[64, 1, 32]),
            ),
        ),
        (
            "runs_far_apart_u8",
            desc(DataType::Uint8, &[34, 17, 19, 17], &[0, 16, 0, 9], &[34, 1, 11, 7], &[1; 4], &[34, 1, 11, 7], None),
        ),
    ]
}

fn prepare(c: &mut Criterion) {
    let mut group = c.benchmark_group("prepare");
    group.sample_size(20);
    for (name, desc) in prepare_cases() {
        let plan = desc.validate().expect("bench case is valid");
        group.bench_function(name, |b| {
            b.iter(|| PreparedSlice1::new(black_box(&plan), ExecOptions::with_threads(1)).expect("compiles"))
        });
    }
    group.finish();
}

criterion_group!(benches, slice1, prepare);
criterion_main!(benches);
