//! `slice1`, `slice1_bound` and `PreparedSlice1`: run a validated [`Slice1Plan`] on byte buffers.

use crate::kernels::Checked;
use crate::program::Program;
use crate::{ExecError, ExecOptions, kernels};
use stridekit::{Slice1Plan, check_binding};

/// A bound range of a buffer: DirectML's `DML_BUFFER_BINDING` without the buffer (`Offset`, `SizeInBytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Binding {
    /// `Offset`: where the tensor starts in the buffer, in bytes. Must be a multiple of
    /// max(16, GuaranteedBaseOffsetAlignment) (R-BIND-2).
    pub offset: u64,
    /// `SizeInBytes`: at least the tensor's TotalTensorSizeInBytes (R-BIND-1).
    pub size_in_bytes: u64,
}

impl Binding {
    /// The whole of a `len`-byte buffer.
    pub fn whole(len: usize) -> Binding {
        Binding { offset: 0, size_in_bytes: len as u64 }
    }
}

/// Executes `plan`, reading `input` and writing `output`, each the whole bound range (offset 0) of its buffer, with
/// the default [`ExecOptions`]. Only the output's element bytes are written (D6); padding bytes and bytes past the
/// last element keep their values. On an error nothing is written (D9).
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
/// let mut output = [0u8; 4]; // TotalTensorSizeInBytes rounds 2 bytes up to 4
/// stridekit_cpu::slice1(&plan, &[10, 20, 30, 40], &mut output).unwrap();
/// assert_eq!(output, [30, 20, 0, 0]);
/// ```
pub fn slice1(plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), ExecError> {
    slice1_with(plan, input, output, &ExecOptions::default())
}

/// [`slice1`] with explicit options.
pub fn slice1_with(plan: &Slice1Plan, input: &[u8], output: &mut [u8], options: &ExecOptions) -> Result<(), ExecError> {
    let (ib, ob) = (Binding::whole(input.len()), Binding::whole(output.len()));
    slice1_bound(plan, input, ib, output, ob, options)
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
    program: Checked,
    options: ExecOptions,
}

impl PreparedSlice1 {
    /// Compiles `plan`. Fails only when the plan's byte offsets do not fit this machine's address space (a 32-bit
    /// target with a tensor larger than 2 GiB), reported as [`ExecError::OutOfRange`].
    pub fn new(plan: &Slice1Plan, options: ExecOptions) -> Result<Self, ExecError> {
        let program = Program::compile(plan, &options).and_then(kernels::check).ok_or(ExecError::OutOfRange {
            tensor: "InputTensor",
            needed: plan.input().total_tensor_size_in_bytes(),
            len: isize::MAX as u64,
        })?;
        Ok(PreparedSlice1 { plan: plan.clone(), program, options })
    }

    /// The plan this operator runs.
    pub fn plan(&self) -> &Slice1Plan {
        &self.plan
    }

    /// The options it was compiled with.
    pub fn options(&self) -> &ExecOptions {
        &self.options
    }

    /// Runs on whole buffers (offset 0); see [`slice1`].
    pub fn execute(&self, input: &[u8], output: &mut [u8]) -> Result<(), ExecError> {
        let (ib, ob) = (Binding::whole(input.len()), Binding::whole(output.len()));
        self.execute_bound(input, ib, output, ob)
    }

    /// Runs on bound ranges; see [`slice1_bound`].
    pub fn execute_bound(
        &self,
        input: &[u8],
        input_binding: Binding,
        output: &mut [u8],
        output_binding: Binding,
    ) -> Result<(), ExecError> {
        check_binding(
            "InputTensor",
            self.plan.input(),
            input_binding.offset,
            input_binding.size_in_bytes,
            input.len() as u64,
        )?;
        check_binding(
            "OutputTensor",
            self.plan.output(),
            output_binding.offset,
            output_binding.size_in_bytes,
            output.len() as u64,
        )?;
        // check_binding proved offset + size <= len, so these ranges exist and the casts are exact.
        let input =
            &input[input_binding.offset as usize..(input_binding.offset + input_binding.size_in_bytes) as usize];
        let output = &mut output
            [output_binding.offset as usize..(output_binding.offset + output_binding.size_in_bytes) as usize];
        kernels::execute(&self.program, input, output, &self.options)
    }
}
