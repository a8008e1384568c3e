//! Streaming a slice through a memory-mapped input: the copy runs range of rows by range of rows
//! ([`stridekit_cpu::PreparedSlice1::execute_streaming`], compiled once), and after each range the caller releases
//! the input pages it read, so that an input larger than memory streams through. The executor owns the arithmetic
//! (row ranges, the input bytes each reads, the streaming-store decision of the whole copy); this module only wires
//! the input map, the output map and the release.

use crate::error::CliError;
use stridekit::Slice1Plan;
use stridekit_cpu::{ExecOptions, PreparedSlice1};

/// The input bytes a range of rows aims to span: the budget of resident input pages.
pub const CHUNK_INPUT_BYTES: u64 = 32 << 20;

/// Runs `plan` on the host slices `input` and `output` (D10: each holds the bytes the plan touches), calling
/// `release(start, end)` with the input byte range of each range of rows once it has been copied.
pub fn run(
    plan: &Slice1Plan,
    input: &[u8],
    output: &mut [u8],
    options: &ExecOptions,
    mut release: impl FnMut(u64, u64) -> Result<(), CliError>,
) -> Result<(), CliError> {
    PreparedSlice1::new(plan, options.clone())?
        .execute_streaming(input, output, CHUNK_INPUT_BYTES, |range| release(range.start, range.end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stridekit::{BufferTensorDesc, DataType, Slice1Desc};

    #[test]
    fn a_streamed_copy_is_the_whole_copy_and_releases_what_it_read() {
        // 3100 rows of 11000 bytes (34 MB, over one chunk of 32 MiB), read bottom up, columns reversed: two ranges.
        let t = DataType::Uint8;
        let desc = Slice1Desc {
            input: BufferTensorDesc::packed(t, &[3100, 11000]).unwrap(),
            output: BufferTensorDesc::packed(t, &[3100, 11000]).unwrap(),
            input_window_offsets: vec![0, 0],
            input_window_sizes: vec![3100, 11000],
            input_window_strides: vec![-1, -1],
        };
        let plan = desc.validate().unwrap();
        let input: Vec<u8> = (0..34_100_000u32).map(|i| (i % 251) as u8).collect();
        let mut whole = vec![0u8; 3100 * 11000];
        stridekit_cpu::slice1(&plan, &input, &mut whole).unwrap();
        let mut streamed = vec![0u8; whole.len()];
        let mut released = Vec::new();
        run(&plan, &input, &mut streamed, &ExecOptions::with_threads(1), |lo, hi| {
            released.push((lo, hi));
            Ok(())
        })
        .unwrap();
        assert!(whole == streamed);
        assert!(released.len() > 1, "{released:?}");
        assert!(released.iter().all(|&(lo, hi)| lo < hi && hi <= input.len() as u64));
    }
}
