//! `slice1`, `slice1_bound` and `PreparedSlice1`: run a validated [`Slice1Plan`] on byte buffers.
//!
//! Two kinds of entry point (SPEC D10, see [`stridekit::Binding`]): the plain ones ([`slice1`], [`slice1_with`],
//! [`PreparedSlice1::execute`]) take host byte slices and need only that each slice holds every byte the plan reads
//! or writes (a memory-mapped `.npy` of 3 bytes is used as it is, never copied to satisfy DirectML's 4-byte
//! rounding); the `*_bound` ones take DirectML-shaped bindings and check R-BIND-1 and R-BIND-2 exactly.

use crate::kernels::Checked;
use crate::planner::Program;
use crate::{ExecError, ExecOptions, kernels};
use stridekit::{Binding, Slice1Plan, TensorRole, check_host_buffer};

/// Executes `plan`, reading the host slice `input` and writing the host slice `output` (each starting at the
/// tensor's first byte), with the default [`ExecOptions`]. Each slice must hold every byte the plan reads or writes
/// (D10; not necessarily TotalTensorSizeInBytes). Only the output's element bytes are written (D6); padding bytes
/// and bytes past the last element keep their values. On an error nothing is written (D9).
///
/// ```
/// use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
/// let desc = Slice1Desc {
///     input: BufferTensorDesc::packed(DataType::Uint8, &[4]).unwrap(),
///     output: BufferTensorDesc::packed(DataType::Uint8, &[2]).unwrap(),
///     input_window_offsets: vec![1],
///     input_window_sizes: vec![2],
///     input_window_strides: vec![-1],
/// };
/// let plan = desc.validate().unwrap();
/// let mut output = [0u8; 2]; // a host slice needs only the elements (D10), not the 4 bytes DirectML rounds to
/// stridekit_cpu::slice1(&plan, &[10, 20, 30, 40], &mut output).unwrap();
/// assert_eq!(output, [30, 20]);
/// ```
pub fn slice1(plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), ExecError> {
    slice1_with(plan, input, output, &ExecOptions::default())
}

/// [`slice1`] with explicit options.
pub fn slice1_with(plan: &Slice1Plan, input: &[u8], output: &mut [u8], options: &ExecOptions) -> Result<(), ExecError> {
    PreparedSlice1::new(plan, options.clone())?.execute(input, output)
}

/// Executes `plan` on the range `input_binding` of `input` and the range `output_binding` of `output`. Checks
/// R-BIND-1 (each range holds at least TotalTensorSizeInBytes and lies inside its buffer) and R-BIND-2 (each offset
/// is a multiple of max(16, GuaranteedBaseOffsetAlignment)) before a byte moves. Offsets are relative to the slices
/// given; the slices' own addresses need no alignment (the kernels never assume it).
pub fn slice1_bound(
    plan: &Slice1Plan,
    input: &[u8],
    input_binding: Binding,
    output: &mut [u8],
    output_binding: Binding,
    options: &ExecOptions,
) -> Result<(), ExecError> {
    PreparedSlice1::new(plan, options.clone())?.execute_bound(input, input_binding, output, output_binding)
}

/// A Slice1 compiled once for the CPU: the normalised copy program and the options. [`execute`](Self::execute)
/// allocates nothing on one thread (split over threads, two small allocations: the shared claim counter and rayon's
/// job, so that the caller never waits for a sleeping pool thread to start) and re-checks only the bound ranges.
/// `Send + Sync`: one prepared operator can run on many threads at once, on distinct output buffers.
///
/// ```
/// use stridekit_cpu::{ExecOptions, PreparedSlice1};
/// use stridekit_testkit::cases;
/// let case = cases::slice1_ex2();
/// let op = PreparedSlice1::new(&case.desc.validate().unwrap(), ExecOptions::with_threads(1)).unwrap();
/// let mut output = vec![0u8; 16];
/// op.execute(&case.input, &mut output).unwrap();
/// assert_eq!(cases::f32_values(&output), [14.0, 16.0, 6.0, 8.0]);
/// ```
#[derive(Debug, Clone)]
pub struct PreparedSlice1 {
    plan: Slice1Plan,
    /// The compiled program (streaming execution runs ranges of its rows) and the same program checked.
    pub(crate) source: Program,
    program: Checked,
    options: ExecOptions,
    /// One past the last input byte the plan reads, and output byte it writes (the model's arithmetic, D10).
    input_needed: u64,
    output_needed: u64,
}

impl PreparedSlice1 {
    /// Compiles `plan`. Fails only when the plan's byte offsets do not fit this machine's address space (a 32-bit
    /// target with a tensor larger than 2 GiB), reported as [`ExecError::OutOfRange`].
    pub fn new(plan: &Slice1Plan, options: ExecOptions) -> Result<Self, ExecError> {
        let address_space = ExecError::AddressSpace { needed: plan.input().total_tensor_size_in_bytes() };
        let source = Program::compile(plan, &options).ok_or(address_space.clone())?;
        let program = kernels::check(source.clone()).ok_or(address_space)?;
        let copy = plan.normalized();
        let (input_needed, output_needed) = (copy.input_byte_range().end, copy.output_byte_range().end);
        Ok(PreparedSlice1 { plan: plan.clone(), source, program, options, input_needed, output_needed })
    }

    /// The plan this operator runs.
    pub fn plan(&self) -> &Slice1Plan {
        &self.plan
    }

    /// The options it was compiled with.
    pub fn options(&self) -> &ExecOptions {
        &self.options
    }

    /// The kernel the planner chose for the innermost loops (`"copy"`, `"reverse"`, `"fill"`, `"gather"`,
    /// `"transpose"`, `"rows"`, `"scatter"` or `"table"`; see docs/PERFORMANCE.md): what `stridekit bench` reports
    /// beside each case, so that a sweep's distribution can be read per kernel. A name for people, not a contract:
    /// new kernels add names.
    pub fn kernel(&self) -> &'static str {
        self.source.inner.name()
    }

    /// The compiled program in one line of text (`stridekit bench` reports it as `plan`): the inner kernel with its
    /// numbers in bytes, the form of a table, the outer loops (`steps:source/destination` byte strides, outermost
    /// first), streaming stores and the reuse tile. For reading why a case runs as it does; the format may change.
    pub fn describe(&self) -> String {
        self.source.describe()
    }

    /// The threads each call runs on: [`ExecOptions::threads`] (or rayon's pool) when the copy moves at least
    /// [`ExecOptions::parallel_min_bytes`], otherwise 1; always 1 for a copy of one small block (DirectML's 4x4
    /// examples), which skips the loops and threads.
    pub fn threads(&self) -> usize {
        kernels::threads(&self.program, &self.options)
    }

    /// Runs on host slices (D10); see [`slice1`].
    pub fn execute(&self, input: &[u8], output: &mut [u8]) -> Result<(), ExecError> {
        self.check_host_slices(input, output)?;
        kernels::execute(&self.program, input, output, &self.options)
    }

    /// Runs on raw memory: the `input_len` bytes at `input` and the `output_len` bytes at `output`, each starting
    /// at its tensor's first byte, with the same checks as [`execute`](Self::execute) (D10: each range holds every
    /// byte the plan reads or writes; otherwise an error and nothing written).
    ///
    /// This is the entry point for memory that others may use at the same time, where a `&[u8]` / `&mut [u8]` over
    /// the whole range would be undefined behaviour: a strided view such as NumPy's `big[::2]`, whose gaps are the
    /// elements of `big[1::2]` that another thread writes meanwhile. No reference over either whole range is formed;
    /// only the element bytes are read or written (and slices formed only over runs of contiguous elements).
    ///
    /// # Safety
    /// For the whole call:
    /// - `input .. input + input_len` lies inside one allocated object, and so does `output .. output + output_len`;
    /// - the element bytes the plan reads (the input tensor's elements inside the window) are readable and nobody
    ///   writes them;
    /// - the element bytes the plan writes (every element of the output tensor) are writable and nobody else reads
    ///   or writes them;
    /// - no element byte read is an element byte written.
    ///
    /// The bytes between elements, padding, and bytes outside the elements may be read and written by others
    /// meanwhile: the plan never touches them (D6).
    ///
    /// ```
    /// use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
    /// use stridekit_cpu::{ExecOptions, PreparedSlice1};
    /// // Output: every other byte of `buffer` (strides [2]); the bytes between belong to someone else.
    /// let desc = Slice1Desc {
    ///     input: BufferTensorDesc::packed(DataType::Uint8, &[3]).unwrap(),
    ///     output: BufferTensorDesc::new(DataType::Uint8, &[3], Some(&[2])).unwrap(),
    ///     input_window_offsets: vec![0],
    ///     input_window_sizes: vec![3],
    ///     input_window_strides: vec![1],
    /// };
    /// let op = PreparedSlice1::new(&desc.validate().unwrap(), ExecOptions::with_threads(1)).unwrap();
    /// let input = [1u8, 2, 3];
    /// let mut buffer = [0u8; 5];
    /// // SAFETY: both ranges are live local arrays that nothing else uses during the call.
    /// unsafe { op.execute_raw(input.as_ptr(), input.len(), buffer.as_mut_ptr(), buffer.len()) }.unwrap();
    /// assert_eq!(buffer, [1, 0, 2, 0, 3]);
    /// ```
    #[allow(unsafe_code)] // the raw entry point; the kernels are the only other unsafe code of the crate
    pub unsafe fn execute_raw(
        &self,
        input: *const u8,
        input_len: usize,
        output: *mut u8,
        output_len: usize,
    ) -> Result<(), ExecError> {
        self.check_host_lengths(input_len, output_len)?;
        // SAFETY: the caller's contract is `kernels::execute_raw`'s.
        unsafe { kernels::execute_raw(&self.program, input, input_len, output, output_len, &self.options) }
    }

    /// D10: the host slices hold every byte the plan reads and writes.
    pub(crate) fn check_host_slices(&self, input: &[u8], output: &[u8]) -> Result<(), ExecError> {
        self.check_host_lengths(input.len(), output.len())
    }

    /// D10 on lengths.
    fn check_host_lengths(&self, input: usize, output: usize) -> Result<(), ExecError> {
        check_host_buffer(TensorRole::Input, input as u64, self.input_needed)?;
        check_host_buffer(TensorRole::Output, output as u64, self.output_needed)?;
        Ok(())
    }

    /// Runs on bound ranges; see [`slice1_bound`].
    pub fn execute_bound(
        &self,
        input: &[u8],
        input_binding: Binding,
        output: &mut [u8],
        output_binding: Binding,
    ) -> Result<(), ExecError> {
        let input_range = input_binding.check(TensorRole::Input, self.plan.input(), input.len() as u64)?;
        let output_range = output_binding.check(TensorRole::Output, self.plan.output(), output.len() as u64)?;
        // The checks proved offset + size <= len, so these ranges exist and the casts are exact.
        let input = &input[input_range.start as usize..input_range.end as usize];
        let output = &mut output[output_range.start as usize..output_range.end as usize];
        kernels::execute(&self.program, input, output, &self.options)
    }
}

#[cfg(test)]
#[allow(unsafe_code)] // the raw entry point under test
mod tests {
    use super::*;
    use stridekit::{BufferTensorDesc, DataType, Slice1Desc};

    /// Runs a Slice1 over u32 tensors (`in_strides` / `out_strides` in elements) with `execute_raw` while another
    /// thread keeps writing the elements *between* the ones the plan touches (odd input indices, the output's gaps), as a
    /// Python thread writes `big[1::2]` while stridekit fills `big[::2]`. Miri's race detector and aliasing model
    /// flag any access, or reference, that reaches those bytes.
    fn raw_with_a_gap_writer(n: u32, window_stride: i32, out_stride: u32, simd: bool) {
        let desc = Slice1Desc {
            input: BufferTensorDesc::new(DataType::Uint32, &[2 * n], None).unwrap(),
            output: BufferTensorDesc::new(DataType::Uint32, &[n], Some(&[out_stride])).unwrap(),
            input_window_offsets: vec![0],
            input_window_sizes: vec![2 * n - 1],
            input_window_strides: vec![window_stride],
        };
        let options = ExecOptions { simd, ..ExecOptions::with_threads(1) };
        let op = PreparedSlice1::new(&desc.validate().unwrap(), options).unwrap();
        let len = 2 * n as usize;
        let input: Vec<u32> = (0..len as u32).collect();
        let mut output = vec![u32::MAX; len];
        let is_element = move |i: usize| i.is_multiple_of(out_stride as usize) && i < n as usize * out_stride as usize;
        // Raw pointers only from here on: the two threads share both allocations.
        let (src, dst) = (input.as_ptr() as usize, output.as_mut_ptr() as usize);
        let other = move || {
            for round in 0..3u32 {
                for i in 0..len {
                    // SAFETY: element i of a live buffer (joined below) that the plan does not touch: odd input
                    // elements (the window reads even ones), output elements that are not the plan's.
                    unsafe {
                        if i % 2 == 1 {
                            (src as *mut u32).add(i).write_volatile(7000 + round);
                        }
                        if !is_element(i) {
                            (dst as *mut u32).add(i).write_volatile(9000 + round);
                        }
                    }
                }
            }
        };
        std::thread::scope(|s| {
            s.spawn(other);
            let bytes = len * 4;
            // SAFETY: both ranges lie in their vectors, alive for the scope; the plan's element bytes (even u32s of
            // each buffer, by the strides) are used by nobody else; the other thread writes only odd ones.
            unsafe { op.execute_raw(src as *const u8, bytes, dst as *mut u8, bytes) }.unwrap();
        });
        let step = if window_stride > 0 { 2 } else { -2 };
        let first = if window_stride > 0 { 0 } else { 2 * n as i64 - 2 };
        for k in 0..n as usize {
            assert_eq!(i64::from(output[k * out_stride as usize]), first + step * k as i64, "element {k}");
        }
        for i in (0..len).filter(|&i| !is_element(i)) {
            assert_eq!(output[i], 9002, "byte {i} outside the elements was written by the plan");
        }
    }

    #[test]
    fn execute_raw_leaves_bytes_between_elements_to_others() {
        for simd in [false, true] {
            raw_with_a_gap_writer(24, 2, 1, simd); // gather: strided source, contiguous output
            raw_with_a_gap_writer(24, -2, 1, simd); // gather backwards
            raw_with_a_gap_writer(24, 2, 2, simd); // scatter: strided output, its gaps written by the other thread
        }
    }

    #[test]
    fn reports_its_kernel_and_threads() {
        let f32 = DataType::Float32;
        let op = |sizes: &[u32], strides: &[i32], out: &[u32], options: ExecOptions| {
            let desc = Slice1Desc {
                input: BufferTensorDesc::packed(f32, sizes).unwrap(),
                output: BufferTensorDesc::packed(f32, out).unwrap(),
                input_window_offsets: vec![0; sizes.len()],
                input_window_sizes: sizes.to_vec(),
                input_window_strides: strides.to_vec(),
            };
            PreparedSlice1::new(&desc.validate().unwrap(), options).unwrap()
        };
        let split = ExecOptions { threads: 2, parallel_min_bytes: 0, ..ExecOptions::default() };
        let whole = ExecOptions { threads: 2, parallel_min_bytes: usize::MAX, ..ExecOptions::default() };
        // 16 rows of 1024 f32: one contiguous run; split over both threads, or not at all.
        let copy = op(&[16, 1024], &[1, 1], &[16, 1024], split.clone());
        assert_eq!((copy.kernel(), copy.threads()), ("copy", 2));
        assert_eq!(op(&[16, 1024], &[1, 1], &[16, 1024], whole).threads(), 1);
        assert_eq!(op(&[16, 1024], &[1, -1], &[16, 1024], split.clone()).kernel(), "reverse");
        // DirectML's 4x4 example: one table walk, never threads.
        let doc = op(&[4, 4], &[-2, 2], &[2, 2], split);
        assert_eq!((doc.kernel(), doc.threads()), ("table", 1));
    }

    #[test]
    fn execute_raw_checks_lengths_d10() {
        let desc = Slice1Desc {
            input: BufferTensorDesc::packed(DataType::Uint8, &[4]).unwrap(),
            output: BufferTensorDesc::packed(DataType::Uint8, &[4]).unwrap(),
            input_window_offsets: vec![0],
            input_window_sizes: vec![4],
            input_window_strides: vec![1],
        };
        let op = PreparedSlice1::new(&desc.validate().unwrap(), ExecOptions::with_threads(1)).unwrap();
        let (input, mut output) = ([1u8, 2, 3, 4], [0u8; 4]);
        // SAFETY: the lengths given are at most the arrays' own; the checks refuse before any byte moves.
        let short = unsafe { op.execute_raw(input.as_ptr(), 3, output.as_mut_ptr(), 4) };
        assert!(matches!(short, Err(ExecError::Binding(stridekit::BindingError::HostBufferTooSmall { .. }))));
        // SAFETY: as above.
        let short = unsafe { op.execute_raw(input.as_ptr(), 4, output.as_mut_ptr(), 3) };
        assert!(matches!(short, Err(ExecError::Binding(stridekit::BindingError::HostBufferTooSmall { .. }))));
        assert_eq!(output, [0; 4]);
    }
}
