//! Timing of the 4x4 Slice1 example through the Rust prepared operator: the baseline of `skExecuteOperator` (not a
//! test; `crates/stridekit-capi/bench/run.sh` runs it next to the C program `bench/execute_timing.c`). Prints the
//! median and the minimum over 101 rounds of the mean time per call in a round of 50,000 calls.

use std::hint::black_box;
use std::time::Instant;
use stridekit::{Binding, BufferTensorDesc, DataType, Slice1Desc};
use stridekit_cpu::{ExecOptions, PreparedSlice1};

const ROUNDS: usize = 101;
const CALLS: u32 = 50_000;

/// Runs every variant round-robin (so that a noisy neighbour hurts all of them alike) and prints, per variant, the
/// median and the minimum over the rounds of the mean time per call.
fn time_all(variants: &mut [(&str, &mut dyn FnMut())]) {
    let mut rounds = vec![Vec::with_capacity(ROUNDS); variants.len()];
    for _ in 0..ROUNDS {
        for (v, (_, call)) in variants.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..CALLS {
                call();
            }
            rounds[v].push(start.elapsed().as_nanos() as f64 / f64::from(CALLS));
        }
    }
    for ((name, _), r) in variants.iter().zip(&mut rounds) {
        r.sort_by(f64::total_cmp);
        println!("{name}\tmedian {:.1} ns\tmin {:.1} ns", r[ROUNDS / 2], r[0]);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let desc = Slice1Desc {
        input: BufferTensorDesc::packed(DataType::Float32, &[1, 1, 4, 4])?,
        output: BufferTensorDesc::packed(DataType::Float32, &[1, 1, 2, 2])?,
        input_window_offsets: vec![0, 0, 0, 1],
        input_window_sizes: vec![1, 1, 4, 3],
        input_window_strides: vec![1, 1, -2, 2],
    };
    let prepared = PreparedSlice1::new(&desc.validate()?, ExecOptions::default())?;
    let input: Vec<u8> = (1..=16).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let (mut out1, mut out2) = ([0u8; 16], [0u8; 16]);
    let (ib, ob) = (Binding::whole(input.len()), Binding::whole(out2.len()));
    time_all(&mut [
        ("Rust PreparedSlice1::execute (D10 host slices)", &mut || {
            prepared.execute(black_box(&input), black_box(&mut out1)).unwrap();
        }),
        ("Rust PreparedSlice1::execute_bound (R-BIND-1)", &mut || {
            prepared.execute_bound(black_box(&input), ib, black_box(&mut out2), ob).unwrap();
        }),
    ]);
    assert_eq!(out1, out2);
    let output = out1;
    let values: Vec<f32> = output.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(values, [14.0, 16.0, 6.0, 8.0]);
    Ok(())
}
