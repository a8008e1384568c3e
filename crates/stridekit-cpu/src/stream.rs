//! Streaming execution: a prepared copy run range of rows by range of rows, so that an input larger than memory (a
//! memory-mapped file) streams through, and the caller can release the input pages each range consumed.
//!
//! The copy is compiled once ([`PreparedSlice1::new`]); a range of rows is the same program with its outermost loop
//! shortened and both start offsets moved to the range's first row. Every (input, output) element pair of the whole
//! copy belongs to exactly one range, so running every range is the whole copy. The choices that depend on the whole
//! copy (streaming stores, which loops exist) are the whole copy's; each range is checked against the slices (the
//! kernels' soundness check) before it runs.

use crate::planner::Program;
use crate::{ExecError, PreparedSlice1, kernels};
use std::ops::Range;

impl PreparedSlice1 {
    /// Runs the copy on host slices (D10, as [`execute`](Self::execute)) in ranges of rows of its outermost loop,
    /// each reading about `chunk_input_bytes` of input (at least one row), in order, and calls `after` with the input
    /// byte range each range read once its bytes are written. An error of `after` stops the copy and is returned;
    /// the output then holds the ranges already done.
    ///
    /// ```
    /// use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
    /// use stridekit_cpu::{ExecError, ExecOptions, PreparedSlice1};
    /// // 64 rows of 64 bytes, bottom up: in ranges of about 1 KiB of input (16 rows).
    /// let desc = Slice1Desc {
    ///     input: BufferTensorDesc::packed(DataType::Uint8, &[64, 64]).unwrap(),
    ///     output: BufferTensorDesc::packed(DataType::Uint8, &[64, 64]).unwrap(),
    ///     input_window_offsets: vec![0, 0],
    ///     input_window_sizes: vec![64, 64],
    ///     input_window_strides: vec![-1, 1],
    /// };
    /// let op = PreparedSlice1::new(&desc.validate().unwrap(), ExecOptions::with_threads(1)).unwrap();
    /// let input: Vec<u8> = (0..4096).map(|i| (i / 64) as u8).collect();
    /// let mut output = vec![0u8; 4096];
    /// let mut ranges = Vec::new();
    /// op.execute_streaming(&input, &mut output, 1024, |r| {
    ///     ranges.push(r);
    ///     Ok::<(), ExecError>(())
    /// })
    /// .unwrap();
    /// assert_eq!(ranges.len(), 4);
    /// assert_eq!(ranges[0], 3072..4096); // the first rows copied are the last rows of the input
    /// assert_eq!(output[0], 63);
    /// ```
    pub fn execute_streaming<E: From<ExecError>>(
        &self,
        input: &[u8],
        output: &mut [u8],
        chunk_input_bytes: u64,
        mut after: impl FnMut(Range<u64>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.check_host_slices(input, output)?;
        let program = &self.source;
        let (rows, grain) = self.rows();
        let row_bytes = range_len(self.row_range_program(0..grain.min(rows)).as_ref()).max(1) / grain.min(rows) as u64;
        let per_range = usize::try_from(chunk_input_bytes / row_bytes.max(1))
            .unwrap_or(usize::MAX)
            .next_multiple_of(grain)
            .max(grain);
        if per_range >= rows {
            self.execute(input, output)?;
            let whole = kernels::input_range(program).ok_or(ExecError::AddressSpace { needed: input.len() as u64 })?;
            return after(whole);
        }
        let mut first = 0;
        while first < rows {
            let end = first.saturating_add(per_range).min(rows);
            let sub =
                self.row_range_program(first..end).ok_or(ExecError::AddressSpace { needed: input.len() as u64 })?;
            let read = kernels::input_range(&sub).ok_or(ExecError::AddressSpace { needed: input.len() as u64 })?;
            let checked = kernels::check(sub).ok_or(ExecError::AddressSpace { needed: input.len() as u64 })?;
            kernels::execute(&checked, input, output, self.options())?;
            after(read)?;
            first = end;
        }
        Ok(())
    }

    /// The rows a copy streams in, and the grain of range boundaries: the steps of its outermost loop, or, for a
    /// program without loops, the units of its inner kernel (bytes of a bulk copy, elements, rows of short rows).
    fn rows(&self) -> (usize, usize) {
        match self.source.outer.first() {
            Some(outer) => (outer.n, 1),
            None => kernels::inner_count(self.source.inner),
        }
    }

    /// The program restricted to rows `rows` (see [`Self::rows`]). `None` when the shifted start offsets would leave
    /// the address space, which a validated plan never produces.
    fn row_range_program(&self, rows: Range<usize>) -> Option<Program> {
        let whole = &self.source;
        let mut sub = whole.clone();
        let Some(outer) = whole.outer.first() else {
            let (inner, src, dst) = kernels::Split::sub_kernel(whole.inner, rows.start, rows.end, whole.esize);
            sub.inner = inner;
            sub.src_start = whole.src_start.checked_add_signed(src)?;
            sub.dst_start = whole.dst_start.checked_add_signed(dst)?;
            sub.moved_bytes = whole.moved_bytes / kernels::inner_count(whole.inner).0.max(1) * rows.len();
            return Some(sub);
        };
        let shift = |start: usize, stride: isize| -> Option<usize> {
            let delta = isize::try_from(rows.start).ok()?.checked_mul(stride)?;
            start.checked_add_signed(delta)
        };
        sub.src_start = shift(whole.src_start, outer.src)?;
        sub.dst_start = shift(whole.dst_start, outer.dst)?;
        sub.outer[0].n = rows.len();
        // The share of the bytes moved that this range moves: what the thread split is decided on.
        sub.moved_bytes = whole.moved_bytes / outer.n * rows.len();
        Some(sub)
    }
}

fn range_len(program: Option<&Program>) -> u64 {
    program.and_then(kernels::input_range).map_or(0, |r| r.end - r.start)
}

#[cfg(test)]
mod tests {
    use crate::{ExecError, ExecOptions, PreparedSlice1};
    use stridekit::{BufferTensorDesc, DataType, Slice1Desc};

    /// Runs a slice whole and streamed in ranges of about `chunk` input bytes; compares the outputs, and checks that
    /// the reported ranges are inside the input and together cover what the whole copy reads.
    fn compare(input_sizes: &[u32], window: (&[u32], &[u32], &[i32]), output_strides: Option<&[u32]>, chunk: u64) {
        let t = DataType::Uint8;
        let (offsets, sizes, strides) = window;
        let out_sizes: Vec<u32> = sizes.iter().zip(strides).map(|(&s, &st)| 1 + (s - 1) / st.unsigned_abs()).collect();
        let desc = Slice1Desc {
            input: BufferTensorDesc::packed(t, input_sizes).unwrap(),
            output: BufferTensorDesc::new(t, &out_sizes, output_strides).unwrap(),
            input_window_offsets: offsets.to_vec(),
            input_window_sizes: sizes.to_vec(),
            input_window_strides: strides.to_vec(),
        };
        let plan = desc.validate().unwrap();
        let data: Vec<u8> = (0..desc.input.total_tensor_size_in_bytes).map(|i| (i % 251) as u8).collect();
        let out_len = desc.output.total_tensor_size_in_bytes as usize;
        for options in [ExecOptions::with_threads(1), ExecOptions::exercise_all_paths(2)] {
            let op = PreparedSlice1::new(&plan, options).unwrap();
            let mut whole = vec![0xA5u8; out_len];
            op.execute(&data, &mut whole).unwrap();
            let mut streamed = vec![0xA5u8; out_len];
            let mut ranges = Vec::new();
            op.execute_streaming(&data, &mut streamed, chunk, |r| {
                ranges.push(r);
                Ok::<(), ExecError>(())
            })
            .unwrap();
            assert_eq!(whole, streamed);
            assert!(ranges.len() > 1, "the case is meant to be streamed: {input_sizes:?} {window:?}");
            assert!(ranges.iter().all(|r| r.start < r.end && r.end <= data.len() as u64));
            let read = plan.normalized().input_byte_range();
            assert_eq!(ranges.iter().map(|r| r.start).min(), Some(read.start));
            assert_eq!(ranges.iter().map(|r| r.end).max(), Some(read.end));
        }
    }

    #[test]
    fn streamed_ranges_equal_the_whole_copy() {
        // Miri pays for every instruction: the same shapes, smaller (rows, a reversed strided one, no loops); they
        // run in every build, so that a planner change that makes one a single call fails here first. (Copies of at
        // most 256 bytes are a single table walk, which has one range, and so are reversed rows of up to 256 bytes
        // under loops, `planner::small_run`: these are larger.)
        compare(&[13, 20], (&[0, 0], &[13, 20], &[1, 1]), None, 64);
        compare(&[31, 300], (&[1, 1], &[29, 298], &[-3, -1]), None, 16);
        compare(&[1, 40, 20], (&[0, 0, 0], &[1, 40, 19], &[1, 1, 1]), Some(&[1000, 21, 1]), 64);
        // A table kernel without outer loops: ranges of whole passes (204 rows of 5 bytes each).
        compare(&[300, 10], (&[0, 0], &[300, 9], &[1, 2]), None, 16);
        if cfg!(miri) {
            return;
        }
        // 103 rows of 100 bytes.
        compare(&[103, 100], (&[0, 0], &[103, 100], &[1, 1]), None, 1024);
        // A table kernel without outer loops (every other byte of 5-byte rows): ranges of whole passes.
        compare(&[2000, 10], (&[0, 0], &[2000, 9], &[1, 2]), None, 1024);
        // Backwards along the streamed dimension, with a stride and an odd row count; reversed columns.
        compare(&[101, 100], (&[3, 5], &[97, 90], &[-3, -2]), None, 1024);
        // A padded output layout; a leading size-1 dimension.
        compare(&[1, 103, 100], (&[0, 0, 0], &[1, 103, 99], &[1, 1, 1]), Some(&[20000, 101, 1]), 1024);
        // One row larger than the budget: one row per range.
        compare(&[9, 5000], (&[0, 0], &[9, 5000], &[1, -1]), None, 1024);
        // Three dimensions, the middle one reversed.
        compare(&[6, 7, 50], (&[0, 0, 0], &[6, 7, 50], &[1, -1, 1]), None, 400);
    }

    #[test]
    fn errors_of_the_callback_stop_the_copy() {
        let desc = Slice1Desc {
            input: BufferTensorDesc::packed(DataType::Uint8, &[8, 64]).unwrap(),
            output: BufferTensorDesc::packed(DataType::Uint8, &[8, 64]).unwrap(),
            input_window_offsets: vec![0, 0],
            input_window_sizes: vec![8, 64],
            input_window_strides: vec![1, 1],
        };
        let op = PreparedSlice1::new(&desc.validate().unwrap(), ExecOptions::with_threads(1)).unwrap();
        let mut calls = 0;
        let r = op.execute_streaming(&[1u8; 512], &mut [0u8; 512], 64, |_| {
            calls += 1;
            Err(ExecError::ElementSize { size: 3 })
        });
        assert_eq!(r, Err(ExecError::ElementSize { size: 3 }));
        assert_eq!(calls, 1);
        // Short host slices are refused before anything runs (D10).
        let mut out = [0u8; 511];
        let r = op.execute_streaming(&[1u8; 512], &mut out, 64, |_| Ok::<(), ExecError>(()));
        assert!(matches!(r, Err(ExecError::Binding(_))));
        assert!(out.iter().all(|&b| b == 0));
    }
}
