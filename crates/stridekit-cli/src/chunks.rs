//! Running a slice in chunks along its outermost output dimension, so that a memory-mapped input larger than memory
//! streams through: after each chunk the caller releases the input pages the chunk read.
//!
//! Each chunk is a Slice1 of its own, over the same input tensor, whose window covers the chunk's output rows, and
//! whose output is the chunk's rows of the same output layout. It is validated like any Slice1 and run through the
//! public `stridekit_cpu` API, so a chunked run is exactly the copy of the whole.
//!
//! Limitation: the chunks split one dimension (the outermost with more than one output element); when a single index
//! of it spans more than [`CHUNK_INPUT_BYTES`], a chunk is one index and reads that much.

use crate::error::CliError;
use stridekit::{BufferTensorDesc, FeatureLevel, Slice1Desc, Slice1Plan, calc_buffer_tensor_size};
use stridekit_cpu::ExecOptions;

/// The input bytes a chunk aims to span: the budget of resident input pages.
pub const CHUNK_INPUT_BYTES: u64 = 32 << 20;

/// Runs `plan` (validated from `desc` at `level`) on `input` and `output`, calling `release(start, end)` with the
/// input byte range of each chunk once it has been copied.
pub fn run(
    desc: &Slice1Desc,
    plan: &Slice1Plan,
    level: FeatureLevel,
    input: &[u8],
    output: &mut [u8],
    options: &ExecOptions,
    release: impl FnMut(u64, u64) -> Result<(), CliError>,
) -> Result<(), CliError> {
    run_with_budget(desc, plan, level, (input, output), options, CHUNK_INPUT_BYTES, release)
}

/// [`run`] with chunks of about `chunk_bytes` of input.
fn run_with_budget(
    desc: &Slice1Desc,
    plan: &Slice1Plan,
    level: FeatureLevel,
    (input, output): (&[u8], &mut [u8]),
    options: &ExecOptions,
    chunk_bytes: u64,
    mut release: impl FnMut(u64, u64) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let elem = plan.element_size() as u64;
    let sizes = plan.output_sizes();
    let Some(d0) = sizes.iter().position(|&s| s > 1) else {
        stridekit_cpu::slice1_with(plan, input, output, options)?;
        return Ok(());
    };
    let rows = u64::from(sizes[d0]);
    // Input bytes per output row: the step between rows, or the reach of one row if that is larger.
    let inner_reach: u64 =
        (d0 + 1..sizes.len()).map(|d| u64::from(sizes[d] - 1) * plan.input_strides()[d].unsigned_abs()).sum::<u64>()
            + 1;
    let per_row = plan.input_strides()[d0].unsigned_abs().max(inner_reach) * elem;
    // Rows per chunk: a multiple of 4, so every chunk's output starts on a 4-byte boundary (its DWORD-rounded size
    // then fits the buffer's remainder).
    let chunk_rows = (chunk_bytes / per_row.max(1)).max(1).next_multiple_of(4);
    if chunk_rows >= rows {
        stridekit_cpu::slice1_with(plan, input, output, options)?;
        let (lo, hi) = input_byte_range(plan);
        return release(lo, hi);
    }
    // Streaming stores are chosen by the size of the whole copy, not of a chunk.
    let whole_bytes = usize::try_from(plan.element_count() * elem).unwrap_or(usize::MAX);
    let mut options = options.clone();
    options.non_temporal_min_bytes = if whole_bytes >= options.non_temporal_min_bytes { 0 } else { usize::MAX };
    let out_row_bytes = plan.output_strides()[d0].unsigned_abs() * elem;
    let mut r0 = 0;
    while r0 < rows {
        let n = chunk_rows.min(rows - r0);
        let sub = chunk_desc(desc, plan, d0, r0, n)?;
        let sub_plan = sub.validate_at(level)?;
        let start = usize::try_from(r0 * out_row_bytes).unwrap_or(usize::MAX);
        let out = output.get_mut(start..).unwrap_or_default();
        stridekit_cpu::slice1_with(&sub_plan, input, out, &options)?;
        let (lo, hi) = input_byte_range(&sub_plan);
        release(lo, hi)?;
        r0 += n;
    }
    Ok(())
}

/// The Slice1 of output rows `r0 .. r0 + n` along `d0`.
fn chunk_desc(desc: &Slice1Desc, plan: &Slice1Plan, d0: usize, r0: u64, n: u64) -> Result<Slice1Desc, CliError> {
    let mut sub = desc.clone();
    // r0 + n <= rows <= u32::MAX and the window arithmetic below stays inside the original window: no overflow.
    let stride = u64::from(desc.input_window_strides[d0].unsigned_abs());
    let span = (n - 1) * stride + 1;
    let copy_start = u64::from(plan.copy_start()[d0]);
    let offset = if desc.input_window_strides[d0] > 0 {
        copy_start + r0 * stride
    } else {
        // Walking backwards: the chunk's first element is CopyStart - r0 * |stride|, its window ends there.
        copy_start - r0 * stride - (n - 1) * stride
    };
    sub.input_window_offsets[d0] = u32::try_from(offset).unwrap_or(u32::MAX);
    sub.input_window_sizes[d0] = u32::try_from(span).unwrap_or(u32::MAX);
    let mut sizes = plan.output_sizes().to_vec();
    sizes[d0] = u32::try_from(n).unwrap_or(u32::MAX);
    let strides = plan.output().strides().to_vec();
    let total = calc_buffer_tensor_size(plan.data_type(), &sizes, Some(&strides))?;
    sub.output =
        BufferTensorDesc { sizes, strides: Some(strides), total_tensor_size_in_bytes: total, ..desc.output.clone() };
    Ok(sub)
}

/// The input bytes `[start, end)` a plan reads.
fn input_byte_range(plan: &Slice1Plan) -> (u64, u64) {
    let elem = plan.element_size() as u64;
    let (mut lo, mut hi) = (plan.input_start(), plan.input_start());
    for (&size, &stride) in plan.output_sizes().iter().zip(plan.input_strides()) {
        let reach = u64::from(size - 1) * stride.unsigned_abs();
        if stride < 0 {
            lo -= reach;
        } else {
            hi += reach;
        }
    }
    (lo * elem, (hi + 1) * elem)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stridekit::DataType;

    /// Runs a slice whole and in chunks of about 1 KiB of input and compares the outputs and the released ranges.
    fn compare(input_sizes: &[u32], window: (&[u32], &[u32], &[i32]), output_strides: Option<Vec<u32>>) {
        let t = DataType::Uint8;
        let input = BufferTensorDesc::packed(t, input_sizes).unwrap();
        let (offsets, sizes, strides) = window;
        let out_sizes: Vec<u32> = sizes.iter().zip(strides).map(|(&s, &st)| 1 + (s - 1) / st.unsigned_abs()).collect();
        let output = BufferTensorDesc::new(t, &out_sizes, output_strides.as_deref()).unwrap();
        let desc = Slice1Desc {
            input,
            output,
            input_window_offsets: offsets.to_vec(),
            input_window_sizes: sizes.to_vec(),
            input_window_strides: strides.to_vec(),
        };
        let plan = desc.validate().unwrap();
        let data: Vec<u8> = (0..desc.input.total_tensor_size_in_bytes).map(|i| (i % 251) as u8).collect();
        let out_len = desc.output.total_tensor_size_in_bytes as usize;
        let mut whole = vec![0u8; out_len];
        stridekit_cpu::slice1(&plan, &data, &mut whole).unwrap();
        let mut chunked = vec![0u8; out_len];
        let mut released = Vec::new();
        let io = (&data[..], &mut chunked[..]);
        run_with_budget(&desc, &plan, FeatureLevel::LATEST, io, &ExecOptions::default(), 1024, |lo, hi| {
            released.push((lo, hi));
            Ok(())
        })
        .unwrap();
        assert_eq!(whole, chunked);
        assert!(released.len() > 1, "the case is meant to be chunked");
        assert!(released.iter().all(|&(lo, hi)| lo < hi && hi <= data.len() as u64));
    }

    #[test]
    fn chunks_equal_the_whole_copy() {
        // 103 rows of 100 bytes: chunks of 12 rows (a multiple of 4).
        compare(&[103, 100], (&[0, 0], &[103, 100], &[1, 1]), None);
        // Backwards along the chunked dimension, with a stride and an odd row count; reversed columns.
        compare(&[101, 100], (&[3, 5], &[97, 90], &[-3, -2]), None);
        // A padded output layout; a leading size-1 dimension.
        compare(&[1, 103, 100], (&[0, 0, 0], &[1, 103, 99], &[1, 1, 1]), Some(vec![20000, 101, 1]));
        // One row larger than the budget: chunks of 4 rows.
        compare(&[9, 5000], (&[0, 0], &[9, 5000], &[1, -1]), None);
    }
}
