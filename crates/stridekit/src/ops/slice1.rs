//! `Slice1Desc` (DML_SLICE1_OPERATOR_DESC), `SliceDesc` (DML_SLICE_OPERATOR_DESC), their validation, and the
//! backend-neutral [`Slice1Plan`] both become.
//!
//! # Negative strides: window first, then direction
//!
//! A Slice1 window is chosen first: in dimension `i` it covers input indices
//! `[InputWindowOffsets[i], InputWindowOffsets[i] + InputWindowSizes[i])`. The stride then picks the walk: a positive
//! stride starts at the window's first index, a negative one at its **last**, stepping `|stride|` each time. In
//! DirectML's pseudocode:
//!
//! ```text
//! CopyStart = InputWindowOffsets
//! for i in 0..DimensionCount: if InputWindowStrides[i] < 0 { CopyStart[i] += InputWindowSizes[i] - 1 }
//! Output[o] = Input[CopyStart + InputWindowStrides * o]          // per dimension
//! ```
//!
//! On a four-element row `[1, 2, 3, 4]`, window offset 1 and size 2 cover `[2, 3]`; stride -1 walks it backwards:
//!
//! ```
//! use stridekit::{BufferTensorDesc, DataType, Slice1Desc};
//! let desc = Slice1Desc {
//!     input: BufferTensorDesc::packed(DataType::Float32, &[4]).unwrap(),
//!     output: BufferTensorDesc::packed(DataType::Float32, &[2]).unwrap(),
//!     input_window_offsets: vec![1],
//!     input_window_sizes: vec![2],
//!     input_window_strides: vec![-1],
//! };
//! let plan = desc.validate().unwrap();
//! // Output element o reads input element input_start + o * input_strides[0]: 2 then 1, i.e. the values 3 then 2.
//! assert_eq!(plan.input_start(), 2);
//! assert_eq!(plan.input_strides(), &[-1]);
//! ```

use crate::error::{TensorDescError, TensorRole};
use crate::{BufferTensorDesc, DataType, FeatureLevel, Operator, TensorLayout};

/// Mirrors `DML_SLICE1_OPERATOR_DESC` (DirectML feature level 2_1 and later). `DimensionCount` is the length of the
/// three window arrays. See the [module docs](self) for the semantics of negative strides.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Slice1Desc {
    /// `InputTensor`: may broadcast, pad, overlap.
    pub input: BufferTensorDesc,
    /// `OutputTensor`: its sizes are the copied element counts; may be padded or permuted but must not overlap (D1).
    pub output: BufferTensorDesc,
    /// `InputWindowOffsets`.
    pub input_window_offsets: Vec<u32>,
    /// `InputWindowSizes`: not the output sizes; the output copies at most `1 + (size - 1) / |stride|` per dimension.
    pub input_window_sizes: Vec<u32>,
    /// `InputWindowStrides`: signed, never 0; negative walks the window from its end.
    pub input_window_strides: Vec<i32>,
}

/// Mirrors `DML_SLICE_OPERATOR_DESC`: `Output[o] = Input[Offsets + Strides * o]`. `Sizes` must equal the output sizes
/// (R-S0-2) and, by this project's decision D3, strides must be >= 1.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SliceDesc {
    /// `InputTensor`.
    pub input: BufferTensorDesc,
    /// `OutputTensor`.
    pub output: BufferTensorDesc,
    /// `Offsets`.
    pub offsets: Vec<u32>,
    /// `Sizes`: the output sizes.
    pub sizes: Vec<u32>,
    /// `Strides`.
    pub strides: Vec<u32>,
}

/// Why a Slice or Slice1 description is rejected. Messages start with `error[<rule id>]:`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SliceError {
    /// A tensor description breaks a buffer-tensor rule (R-BT-*, R-FL-1, D1).
    #[error(transparent)]
    Tensor(#[from] TensorDescError),
    /// D7: the operator does not exist at the chosen level.
    #[error("error[D7]: {} does not exist at feature level {level} (it needs {since} or later)", operator.name())]
    OperatorNotAtLevel {
        /// The operator.
        operator: Operator,
        /// The level asked for.
        level: FeatureLevel,
        /// The first level with the operator.
        since: FeatureLevel,
    },
    /// R-S0-4 / R-S1-6: different data types.
    #[error("error[{}]: InputTensor.DataType is {input} but OutputTensor.DataType is {output}; they must be the same", rule_for(*operator, "R-S0-4", "R-S1-6"))]
    DataTypeMismatch {
        /// The operator.
        operator: Operator,
        /// The input type.
        input: DataType,
        /// The output type.
        output: DataType,
    },
    /// R-S0-1 / R-S1-1 / R-S1-6: the ranks of the tensors and the parameter arrays disagree.
    #[error("error[{}]: {field} has {len} entries but InputTensor.DimensionCount is {rank}; DimensionCount must match both tensors", rule_for(*operator, "R-S0-1", "R-S1-1"))]
    RankMismatch {
        /// The operator.
        operator: Operator,
        /// The field whose length disagrees (`OutputTensor.Sizes`, `InputWindowOffsets`, ...).
        field: &'static str,
        /// Its length.
        len: usize,
        /// The input rank.
        rank: usize,
    },
    /// R-S0-1 / R-S1-1 with D7: the rank is outside the operator's table at the level.
    #[error("error[{}]: DimensionCount is {rank}; {} accepts {min} to {max} dimensions at feature level {level}", rule_for(*operator, "R-S0-1", "R-S1-1"), operator.name())]
    OperatorRank {
        /// The operator.
        operator: Operator,
        /// The rank.
        rank: usize,
        /// Smallest rank allowed.
        min: u32,
        /// Largest rank allowed.
        max: u32,
        /// The level.
        level: FeatureLevel,
    },
    /// R-S1-7 / D7: the operator does not accept the type at the level.
    #[error("error[{}]: {} does not accept DataType {data_type} at feature level {level}{}", rule_for(*operator, "D7", "R-S1-7"), operator.name(), type_hint(*data_type, *operator))]
    UnsupportedDataType {
        /// The operator.
        operator: Operator,
        /// The type.
        data_type: DataType,
        /// The level.
        level: FeatureLevel,
    },
    /// R-S1-3: an empty window.
    #[error("error[R-S1-3]: InputWindowSizes[{dim}] is 0; the window must not be empty in any dimension")]
    EmptyWindow {
        /// The dimension.
        dim: usize,
    },
    /// R-S1-4 / D3: a stride of 0.
    #[error("error[{}]: {}[{dim}] is 0; strides may not be 0", rule_for(*operator, "D3", "R-S1-4"), if *operator == Operator::Slice { "Strides" } else { "InputWindowStrides" })]
    ZeroStride {
        /// The operator.
        operator: Operator,
        /// The dimension.
        dim: usize,
    },
    /// R-S1-2: the window reaches past the input.
    #[error(
        "error[R-S1-2]: InputWindowOffsets[{dim}] + InputWindowSizes[{dim}] = {offset} + {size} = {end} exceeds InputTensor.Sizes[{dim}] = {input_size}; out-of-bounds reads are not permitted"
    )]
    WindowOutOfBounds {
        /// The dimension.
        dim: usize,
        /// The window offset.
        offset: u32,
        /// The window size.
        size: u32,
        /// Their sum, in 64 bits.
        end: u64,
        /// The input size.
        input_size: u32,
    },
    /// R-S1-5: more output elements than the window holds at that stride.
    #[error(
        "error[R-S1-5]: OutputTensor.Sizes[{dim}] is {output_size}, but a window of {window_size} with stride {stride} copies at most {max} (1 + ({window_size} - 1) / |{stride}|)"
    )]
    OutputSizeTooLarge {
        /// The dimension.
        dim: usize,
        /// The output size.
        output_size: u32,
        /// MaxCopiedElements.
        max: u32,
        /// The window size.
        window_size: u32,
        /// The window stride.
        stride: i32,
    },
    /// R-S0-2: Slice's Sizes differ from the output sizes.
    #[error("error[R-S0-2]: Sizes[{dim}] is {size} but OutputTensor.Sizes[{dim}] is {output_size}; they must be equal")]
    SizesMismatch {
        /// The dimension.
        dim: usize,
        /// `Sizes[dim]`.
        size: u32,
        /// The output size.
        output_size: u32,
    },
    /// R-S0-3: the last element Slice reads lies past the input.
    #[error(
        "error[R-S0-3]: Offsets[{dim}] + Strides[{dim}] * (Sizes[{dim}] - 1) = {offset} + {stride} * {size_minus_one} = {last} exceeds InputTensor.Sizes[{dim}] - 1 = {max_index}; out-of-bounds reads are not permitted"
    )]
    SliceOutOfBounds {
        /// The dimension.
        dim: usize,
        /// `Offsets[dim]`.
        offset: u32,
        /// `Strides[dim]`.
        stride: u32,
        /// `Sizes[dim] - 1`.
        size_minus_one: u32,
        /// The last index read, in 64 bits.
        last: u64,
        /// Input size - 1.
        max_index: u32,
    },
}

fn rule_for(operator: Operator, slice: &'static str, slice1: &'static str) -> &'static str {
    if operator == Operator::Slice { slice } else { slice1 }
}

fn type_hint(data_type: DataType, operator: Operator) -> String {
    let newest: Vec<&str> = DataType::ALL
        .into_iter()
        .filter(|&t| FeatureLevel::LATEST.operator_supports(operator, t))
        .map(DataType::name)
        .collect();
    if data_type.is_sub_byte() {
        format!(" (no feature level supports 4-bit types in slicing; it accepts {})", newest.join(", "))
    } else {
        let since = FeatureLevel::ALL.into_iter().find(|l| l.operator_supports(operator, data_type));
        since.map(|l| format!(" (it needs {l} or later)")).unwrap_or_default()
    }
}

impl SliceError {
    /// The SPEC.md rule id this error enforces.
    pub fn rule(&self) -> &'static str {
        match self {
            SliceError::Tensor(e) => e.rule(),
            SliceError::OperatorNotAtLevel { .. } => "D7",
            SliceError::DataTypeMismatch { operator, .. } => rule_for(*operator, "R-S0-4", "R-S1-6"),
            SliceError::RankMismatch { operator, .. } | SliceError::OperatorRank { operator, .. } => {
                rule_for(*operator, "R-S0-1", "R-S1-1")
            }
            SliceError::UnsupportedDataType { operator, .. } => rule_for(*operator, "D7", "R-S1-7"),
            SliceError::EmptyWindow { .. } => "R-S1-3",
            SliceError::ZeroStride { operator, .. } => rule_for(*operator, "D3", "R-S1-4"),
            SliceError::WindowOutOfBounds { .. } => "R-S1-2",
            SliceError::OutputSizeTooLarge { .. } => "R-S1-5",
            SliceError::SizesMismatch { .. } => "R-S0-2",
            SliceError::SliceOutOfBounds { .. } => "R-S0-3",
        }
    }
}

/// A validated slice, reduced to what a backend needs: for every output coordinate `o` (row-major over
/// [`output_sizes`](Self::output_sizes)), copy the element at input offset `input_start + dot(o, input_strides)` to
/// output offset `dot(o, output_strides)`. Offsets count elements from the start of each bound range; CopyStart is
/// folded into `input_start`; input strides are signed (window stride x layout stride), output strides are >= 0.
///
/// Every offset this plan produces lies inside the physical extent of its tensor, which is at most 2^32 - 1 elements
/// (R-BT-6), and the output offsets are pairwise distinct (D1).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Slice1Plan {
    operator: Operator,
    input: TensorLayout,
    output: TensorLayout,
    input_window_offsets: Vec<u32>,
    input_window_sizes: Vec<u32>,
    input_window_strides: Vec<i64>,
    copy_start: Vec<u32>,
    input_start: u64,
    input_strides: Vec<i64>,
    output_strides: Vec<i64>,
}

impl Slice1Plan {
    /// Which operator this plan came from.
    pub fn operator(&self) -> Operator {
        self.operator
    }
    /// The validated input tensor.
    pub fn input(&self) -> &TensorLayout {
        &self.input
    }
    /// The validated output tensor.
    pub fn output(&self) -> &TensorLayout {
        &self.output
    }
    /// The data type of both tensors.
    pub fn data_type(&self) -> DataType {
        self.input.data_type()
    }
    /// Bytes per element (1, 2, 4 or 8: 4-bit types never reach a plan).
    pub fn element_size(&self) -> usize {
        self.input.data_type().size_in_bytes_rounded_up() as usize
    }
    /// The copy shape: the output sizes.
    pub fn output_sizes(&self) -> &[u32] {
        self.output.sizes()
    }
    /// The number of elements copied.
    pub fn element_count(&self) -> u64 {
        self.output.element_count()
    }
    /// The Slice1 window offsets (for a Slice v0 plan: its Offsets).
    pub fn input_window_offsets(&self) -> &[u32] {
        &self.input_window_offsets
    }
    /// The Slice1 window sizes (for a Slice v0 plan: `(Sizes - 1) * Strides + 1`).
    pub fn input_window_sizes(&self) -> &[u32] {
        &self.input_window_sizes
    }
    /// The Slice1 window strides (for a Slice v0 plan: its Strides, which are u32 and may exceed `i32::MAX`).
    pub fn input_window_strides(&self) -> &[i64] {
        &self.input_window_strides
    }
    /// DirectML's CopyStart: the input coordinate of output element 0.
    pub fn copy_start(&self) -> &[u32] {
        &self.copy_start
    }
    /// The input offset in elements of output element 0: `dot(CopyStart, input layout strides)`.
    pub fn input_start(&self) -> u64 {
        self.input_start
    }
    /// Signed input strides in elements per output dimension: window stride x input layout stride.
    pub fn input_strides(&self) -> &[i64] {
        &self.input_strides
    }
    /// Output strides in elements (the output layout's, as i64; never negative). Like the input strides, they are 0
    /// on dimensions with a single output element, which never move.
    pub fn output_strides(&self) -> &[i64] {
        &self.output_strides
    }
}

/// The operator-level checks shared by Slice and Slice1, before any per-dimension rule.
fn check_operator(
    operator: Operator,
    input: &BufferTensorDesc,
    output: &BufferTensorDesc,
    arrays: [(&'static str, usize); 3],
    level: FeatureLevel,
) -> Result<(TensorLayout, TensorLayout), SliceError> {
    let since = FeatureLevel::operator_since(operator);
    if level < since {
        return Err(SliceError::OperatorNotAtLevel { operator, level, since });
    }
    let input_layout = input.validate_as(TensorRole::Input, level)?;
    let output_layout = output.validate_as(TensorRole::Output, level)?;
    if input.data_type != output.data_type {
        return Err(SliceError::DataTypeMismatch { operator, input: input.data_type, output: output.data_type });
    }
    let rank = input.sizes.len();
    for (field, len) in [("OutputTensor.Sizes", output.sizes.len())].into_iter().chain(arrays) {
        if len != rank {
            return Err(SliceError::RankMismatch { operator, field, len, rank });
        }
    }
    let (min, max) = level.operator_dimension_range(operator);
    if rank < min as usize || rank > max as usize {
        return Err(SliceError::OperatorRank { operator, rank, min, max, level });
    }
    if !level.operator_supports(operator, input.data_type) {
        return Err(SliceError::UnsupportedDataType { operator, data_type: input.data_type, level });
    }
    Ok((input_layout, output_layout))
}

impl Slice1Desc {
    /// Validates at the newest feature level (D7) and returns the plan.
    pub fn validate(&self) -> Result<Slice1Plan, SliceError> {
        self.validate_at(FeatureLevel::LATEST)
    }

    /// Validates at `level`. The checks, in order; the first that fails is returned:
    /// 1. D7: Slice1 exists at the level (2_1 and later).
    /// 2. Both tensors are valid buffer tensors at the level, the output without overlap (R-BT-*, R-FL-1, D1).
    /// 3. R-S1-6: same data type; R-S1-1: the output and the three window arrays have the input's rank, which is in
    ///    the level's range (4..=5 before 3_0, 1..=8 from 3_0).
    /// 4. R-S1-7: the level's type table (no 4-bit types at any level; 64-bit types from 4_1).
    /// 5. Per dimension: R-S1-3 window not empty; R-S1-4 stride not 0; R-S1-2 `offset + size <= input size` in 64
    ///    bits; R-S1-5 `output size <= 1 + (size - 1) / |stride|` (`unsigned_abs`, so `i32::MIN` is fine).
    pub fn validate_at(&self, level: FeatureLevel) -> Result<Slice1Plan, SliceError> {
        let operator = Operator::Slice1;
        let (input, output) = check_operator(
            operator,
            &self.input,
            &self.output,
            [
                ("InputWindowOffsets", self.input_window_offsets.len()),
                ("InputWindowSizes", self.input_window_sizes.len()),
                ("InputWindowStrides", self.input_window_strides.len()),
            ],
            level,
        )?;
        for dim in 0..input.rank() {
            let (offset, size, stride) =
                (self.input_window_offsets[dim], self.input_window_sizes[dim], self.input_window_strides[dim]);
            if size == 0 {
                return Err(SliceError::EmptyWindow { dim });
            }
            if stride == 0 {
                return Err(SliceError::ZeroStride { operator, dim });
            }
            let end = u64::from(offset) + u64::from(size);
            let input_size = input.sizes()[dim];
            if end > u64::from(input_size) {
                return Err(SliceError::WindowOutOfBounds { dim, offset, size, end, input_size });
            }
            let max = max_copied_elements(size, i64::from(stride));
            let output_size = output.sizes()[dim];
            if output_size > max {
                return Err(SliceError::OutputSizeTooLarge { dim, output_size, max, window_size: size, stride });
            }
        }
        Ok(build_plan(
            operator,
            input,
            output,
            self.input_window_offsets.clone(),
            self.input_window_sizes.clone(),
            self.input_window_strides.iter().map(|&s| i64::from(s)).collect(),
        ))
    }
}

impl SliceDesc {
    /// Validates at the newest feature level (D7) and returns the plan.
    pub fn validate(&self) -> Result<Slice1Plan, SliceError> {
        self.validate_at(FeatureLevel::LATEST)
    }

    /// Validates at `level`: like [`Slice1Desc::validate_at`] with Slice's own tables (no 8-bit types at 1_0) and
    /// rules: R-S0-2 `Sizes == OutputTensor.Sizes`; D3 strides >= 1; R-S0-3 `Offsets + Strides * (Sizes - 1) <=
    /// InputTensor.Sizes - 1` in 64 bits. The plan is that of the equivalent Slice1, whose window sizes are
    /// `(Sizes - 1) * Strides + 1`.
    pub fn validate_at(&self, level: FeatureLevel) -> Result<Slice1Plan, SliceError> {
        let operator = Operator::Slice;
        let (input, output) = check_operator(
            operator,
            &self.input,
            &self.output,
            [("Offsets", self.offsets.len()), ("Sizes", self.sizes.len()), ("Strides", self.strides.len())],
            level,
        )?;
        let rank = input.rank();
        let mut window_sizes = Vec::with_capacity(rank);
        let mut window_strides = Vec::with_capacity(rank);
        for dim in 0..rank {
            let (offset, size, stride) = (self.offsets[dim], self.sizes[dim], self.strides[dim]);
            let output_size = output.sizes()[dim];
            if size != output_size {
                return Err(SliceError::SizesMismatch { dim, size, output_size });
            }
            if stride == 0 {
                return Err(SliceError::ZeroStride { operator, dim });
            }
            let span = u64::from(stride) * u64::from(size - 1);
            let last = u64::from(offset) + span;
            let max_index = input.sizes()[dim] - 1;
            if last > u64::from(max_index) {
                return Err(SliceError::SliceOutOfBounds {
                    dim,
                    offset,
                    stride,
                    size_minus_one: size - 1,
                    last,
                    max_index,
                });
            }
            // span + 1 <= input size <= u32::MAX, so it fits. The stride stays u32-sized: a stride above i32::MAX is
            // legal for Slice (e.g. 2 elements 3e9 apart) even though no Slice1 could express it.
            window_sizes.push((span + 1) as u32);
            window_strides.push(i64::from(stride));
        }
        Ok(build_plan(operator, input, output, self.offsets.clone(), window_sizes, window_strides))
    }
}

/// DirectML's MaxCopiedElements in one dimension (R-S1-5): the most elements a window of `window_size` copies at
/// `stride`, `1 + (window_size - 1) / |stride|`. `unsigned_abs` makes `i32::MIN` (2^31) fine: a window of at most
/// `u32::MAX` elements then copies 1 or 2. A degenerate window (size 0 or stride 0, which validation rejects) gives 1,
/// so that defaults computed from it leave the error to validation.
///
/// ```
/// assert_eq!(stridekit::ops::slice1::max_copied_elements(4, -2), 2);
/// assert_eq!(stridekit::ops::slice1::max_copied_elements(u32::MAX, i64::from(i32::MIN)), 2);
/// ```
pub const fn max_copied_elements(window_size: u32, stride: i64) -> u32 {
    if window_size == 0 || stride == 0 {
        return 1;
    }
    1 + ((window_size - 1) as u64 / stride.unsigned_abs()) as u32
}

/// DirectML's CopyStart in one dimension: the window offset, plus `size - 1` where the stride is negative (a negative
/// stride walks the window from its last element). Defined once for the model, its plans and its front ends.
///
/// ```
/// assert_eq!(stridekit::ops::slice1::copy_start(1, 3, -2), 3);
/// assert_eq!(stridekit::ops::slice1::copy_start(1, 3, 2), 1);
/// ```
pub const fn copy_start(offset: u32, size: u32, stride: i64) -> u64 {
    let offset = offset as u64;
    if stride < 0 { offset + (size as u64).saturating_sub(1) } else { offset }
}

fn build_plan(
    operator: Operator,
    input: TensorLayout,
    output: TensorLayout,
    input_window_offsets: Vec<u32>,
    input_window_sizes: Vec<u32>,
    input_window_strides: Vec<i64>,
) -> Slice1Plan {
    let rank = input.rank();
    let mut copy_start = input_window_offsets.clone();
    let mut input_start = 0u64;
    let mut input_strides = Vec::with_capacity(rank);
    for dim in 0..rank {
        // Below the input size (R-S1-2 was checked), so it fits u32.
        copy_start[dim] =
            self::copy_start(input_window_offsets[dim], input_window_sizes[dim], input_window_strides[dim]) as u32;
        let layout_stride = i64::from(input.strides()[dim]);
        input_start += u64::from(copy_start[dim]) * input.strides()[dim] as u64;
        // A dimension with a single output element never moves along its stride; zero it so the plan's strides stay
        // small. Otherwise |window stride| * layout stride <= the window's reach <= the extent < 2^32: it fits i64.
        let stride = if output.sizes()[dim] == 1 { 0 } else { input_window_strides[dim] * layout_stride };
        input_strides.push(stride);
    }
    let output_strides =
        (0..rank).map(|dim| if output.sizes()[dim] == 1 { 0 } else { i64::from(output.strides()[dim]) }).collect();
    Slice1Plan {
        operator,
        input,
        output,
        input_window_offsets,
        input_window_sizes,
        input_window_strides,
        copy_start,
        input_start,
        input_strides,
        output_strides,
    }
}
