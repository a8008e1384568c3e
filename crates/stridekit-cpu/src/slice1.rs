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
/// allocates nothing (on one thread, and with threads it only uses rayon's stack jobs) and re-checks only the bound
/// ranges. `Send + Sync`: one prepared operator can run on many threads at once, on distinct output buffers.
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

    /// Runs on host slices (D10); see [`slice1`].
    pub fn execute(&self, input: &[u8], output: &mut [u8]) -> Result<(), ExecError> {
        self.check_host_slices(input, output)?;
        kernels::execute(&self.program, input, output, &self.options)
    }

    /// D10: the host slices hold every byte the plan reads and writes.
    pub(crate) fn check_host_slices(&self, input: &[u8], output: &[u8]) -> Result<(), ExecError> {
        check_host_buffer(TensorRole::Input, input.len() as u64, self.input_needed)?;
        check_host_buffer(TensorRole::Output, output.len() as u64, self.output_needed)?;
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
