//! Criterion benchmarks of `bench/criterion.json` (the bench/cases.json matrix, scaled down to 16 MiB outputs or less
//! so that a run stays short), each beside a memcpy of the same bytes. Throughput is bytes read plus bytes written
//! (2 x output bytes), so the numbers read as GB/s comparable with `stridekit bench`. The file is read with the one
//! definition of the case schema, `stridekit::ops::case::Slice1Case` (`stridekit bench --cases bench/criterion.json`
//! runs the same cases).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use stridekit::ops::case::Slice1Case;
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

criterion_group!(benches, slice1);
criterion_main!(benches);
