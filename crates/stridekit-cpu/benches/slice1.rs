//! Criterion benchmarks of the bench/cases.json matrix, scaled down to 16 MiB outputs or less so that a run stays
//! short, each beside a memcpy of the same bytes. Throughput is bytes read plus bytes written (2 x output bytes), so
//! the numbers read as GB/s comparable with `stridekit bench`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
use stridekit_cpu::{CpuBuffer, ExecOptions, PreparedSlice1};

/// One case: (name, dtype, input sizes, input strides, offsets, window sizes, window strides, output sizes,
/// output strides).
type Case = (
    &'static str,
    DataType,
    &'static [u32],
    Option<&'static [u32]>,
    &'static [u32],
    &'static [u32],
    &'static [i32],
    &'static [u32],
    Option<&'static [u32]>,
);

const F32: DataType = DataType::Float32;

const CASES: &[Case] = &[
    (
        "contig_rows_f32",
        F32,
        &[1, 1, 2048, 2048],
        None,
        &[0, 0, 0, 64],
        &[1, 1, 2048, 1920],
        &[1, 1, 1, 1],
        &[1, 1, 2048, 1920],
        None,
    ),
    (
        "inner_reverse_f32",
        F32,
        &[1, 1, 1024, 2048],
        None,
        &[0; 4],
        &[1, 1, 1024, 2048],
        &[1, 1, 1, -1],
        &[1, 1, 1024, 2048],
        None,
    ),
    (
        "inner_stride2_f32",
        F32,
        &[1, 1, 1024, 4096],
        None,
        &[0; 4],
        &[1, 1, 1024, 4096],
        &[1, 1, 1, 2],
        &[1, 1, 1024, 2048],
        None,
    ),
    (
        "inner_stride3_f32",
        F32,
        &[1, 1, 2048, 3072],
        None,
        &[0, 0, 0, 1],
        &[1, 1, 2048, 3071],
        &[1, 1, 1, 3],
        &[1, 1, 2048, 1024],
        None,
    ),
    (
        "outer_neg_f32",
        F32,
        &[8, 32, 128, 128],
        None,
        &[0; 4],
        &[8, 32, 128, 128],
        &[-1, -2, -1, 1],
        &[8, 16, 128, 128],
        None,
    ),
    (
        "nchw_to_nhwc_f32",
        F32,
        &[8, 64, 64, 64],
        None,
        &[0; 4],
        &[8, 64, 64, 64],
        &[1; 4],
        &[8, 64, 64, 64],
        Some(&[262144, 1, 4096, 64]),
    ),
    (
        "broadcast_row_f32",
        F32,
        &[16, 8, 128, 256],
        Some(&[0, 0, 0, 1]),
        &[0; 4],
        &[16, 8, 128, 256],
        &[1; 4],
        &[16, 8, 128, 256],
        None,
    ),
    (
        "broadcast_chan_f32",
        F32,
        &[8, 64, 64, 64],
        Some(&[0, 1, 0, 0]),
        &[0; 4],
        &[8, 64, 64, 64],
        &[1; 4],
        &[8, 64, 64, 64],
        None,
    ),
    (
        "padded_rows_in_f32",
        F32,
        &[1, 1, 2048, 2000],
        Some(&[4194304, 4194304, 2048, 1]),
        &[0; 4],
        &[1, 1, 2048, 2000],
        &[1; 4],
        &[1, 1, 2048, 2000],
        None,
    ),
    (
        "nd8_f32",
        F32,
        &[2, 5, 2, 4, 8, 8, 32, 64],
        None,
        &[0, 1, 0, 0, 0, 0, 0, 0],
        &[2, 4, 2, 4, 8, 8, 32, 64],
        &[1, -1, 1, 1, -1, 1, -1, 1],
        &[2, 4, 2, 4, 8, 8, 32, 64],
        None,
    ),
    (
        "u8_crop_flip",
        DataType::Uint8,
        &[1, 4, 2048, 2048],
        None,
        &[0, 0, 64, 64],
        &[1, 4, 1920, 1920],
        &[1, 1, 1, -1],
        &[1, 4, 1920, 1920],
        None,
    ),
    (
        "f16_rows_neg2",
        DataType::Float16,
        &[1, 8, 1024, 1024],
        None,
        &[0; 4],
        &[1, 8, 1024, 1024],
        &[1, 1, -2, 1],
        &[1, 8, 512, 1024],
        None,
    ),
    (
        "i64_padded_out",
        DataType::Int64,
        &[1, 1, 1024, 1024],
        None,
        &[0, 0, 0, 48],
        &[1, 1, 1024, 960],
        &[1; 4],
        &[1, 1, 1024, 960],
        Some(&[1048576, 1048576, 1024, 1]),
    ),
    ("tiny_doc_f32", F32, &[1, 1, 4, 4], None, &[0, 0, 0, 1], &[1, 1, 4, 3], &[1, 1, 2, 1], &[1, 1, 2, 3], None),
    ("tiny_doc_neg_f32", F32, &[1, 1, 4, 4], None, &[0, 0, 0, 1], &[1, 1, 4, 3], &[1, 1, -2, 1], &[1, 1, 2, 3], None),
];

fn slice1(c: &mut Criterion) {
    let mut group = c.benchmark_group("slice1");
    group.sample_size(10);
    for &(name, dt, in_sizes, in_strides, offsets, windows, strides, out_sizes, out_strides) in CASES {
        let desc = Slice1Desc {
            input: BufferTensorDesc::new(dt, in_sizes, in_strides).expect("bench case input"),
            output: BufferTensorDesc::new(dt, out_sizes, out_strides).expect("bench case output"),
            input_window_offsets: offsets.to_vec(),
            input_window_sizes: windows.to_vec(),
            input_window_strides: strides.to_vec(),
        };
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
