//! Proptest strategies for Slice1 descriptions with input bytes.
//!
//! [`slice1_case`] produces **valid** cases: ranks 1..=8, every byte-sized data type (element sizes 1, 2, 4, 8),
//! packed, padded, permuted, broadcast (stride 0) and overlapping (one stride shrunk) input layouts, packed or
//! padded-and-permuted output layouts (never overlapping, D1), windows with offsets, signed strides (negative,
//! |stride| > 1) and output sizes at or below the maximum the window allows. One "long" dimension reaches 96 output
//! elements so that SIMD runs and block kernels see full vectors; the rest stay small, and the physical element
//! counts of both tensors are kept at or below a budget (4096 by default) by collapsing dimensions to size 1.
//!
//! [`near_invalid_slice1_case`] takes a valid case and breaks exactly one rule.

use proptest::prelude::*;
use stridekit::{BufferTensorDesc, DataType, Slice1Desc};

/// A valid Slice1 description and an input buffer of exactly `TotalTensorSizeInBytes` bytes.
#[derive(Debug, Clone)]
pub struct Slice1Case {
    /// The description (validates).
    pub desc: Slice1Desc,
    /// The input bytes (pseudo-random).
    pub input: Vec<u8>,
}

/// The default physical element budget of each tensor.
pub const DEFAULT_MAX_ELEMENTS: u64 = 4096;

/// The 11 byte-sized data types (every type Slice1 accepts at the newest feature level).
pub fn byte_sized_data_types() -> Vec<DataType> {
    DataType::ALL.into_iter().filter(|t| !t.is_sub_byte()).collect()
}

/// One of the 11 byte-sized data types.
pub fn data_type() -> impl Strategy<Value = DataType> {
    proptest::sample::select(byte_sized_data_types())
}

#[derive(Debug, Clone, Copy)]
struct DimSpec {
    out: u32,
    stride_abs: u32,
    negative: bool,
    extra_window: u32,
    offset: u32,
    extra_input: u32,
    in_pad: u32,
    out_pad: u32,
    broadcast: bool,
}

impl DimSpec {
    fn window(&self) -> u32 {
        (self.out - 1) * self.stride_abs + 1 + self.extra_window
    }
    fn input_size(&self) -> u32 {
        self.offset + self.window() + self.extra_input
    }
    fn collapse(&mut self) {
        *self = DimSpec {
            out: 1,
            stride_abs: 1,
            extra_window: 0,
            offset: 0,
            extra_input: 0,
            in_pad: 0,
            out_pad: 0,
            ..*self
        };
    }
}

fn small_dim() -> impl Strategy<Value = DimSpec> {
    (
        prop_oneof![3 => Just(1u32), 2 => 2..=4u32],
        prop_oneof![4 => Just(1u32), 2 => 2..=3u32, 1 => 4..=9u32],
        any::<bool>(),
        prop_oneof![3 => Just(0u32), 1 => 1..=3u32],
        prop_oneof![2 => Just(0u32), 1 => 1..=2u32],
        prop_oneof![2 => Just(0u32), 1 => 1..=2u32],
        prop_oneof![3 => Just(0u32), 1 => 1..=3u32],
        prop_oneof![3 => Just(0u32), 1 => 1..=3u32],
        prop_oneof![5 => Just(false), 1 => Just(true)],
    )
        .prop_map(|(out, stride_abs, negative, extra_window, offset, extra_input, in_pad, out_pad, broadcast)| {
            DimSpec { out, stride_abs, negative, extra_window, offset, extra_input, in_pad, out_pad, broadcast }
        })
}

fn long_dim() -> impl Strategy<Value = (u32, u32)> {
    (prop_oneof![1 => 1..=8u32, 2 => 9..=96u32], prop_oneof![3 => Just(1u32), 2 => 2..=3u32, 1 => 4..=8u32])
}

/// Strides for `sizes` laid out in the order `perm` (perm[0] outermost) with `pads[d]` extra elements per dimension.
fn permuted_padded_strides(sizes: &[u32], perm: &[usize], pads: &[u32]) -> Vec<u32> {
    let mut strides = vec![0u32; sizes.len()];
    let mut acc = 1u32;
    for &d in perm.iter().rev() {
        strides[d] = acc;
        acc *= sizes[d] + pads[d];
    }
    strides
}

fn extent(sizes: &[u32], strides: &[u32]) -> u64 {
    1 + sizes.iter().zip(strides).map(|(&n, &s)| u64::from(n - 1) * u64::from(s)).sum::<u64>()
}

fn padded_volume(sizes: &[u32], pads: &[u32]) -> u64 {
    sizes.iter().zip(pads).map(|(&n, &p)| u64::from(n + p)).product()
}

/// Input layout choice: 0 packed (null strides), 1 explicit strides.
#[derive(Debug, Clone)]
struct Layouts {
    input_explicit: bool,
    input_perm: Vec<usize>,
    output_explicit: bool,
    output_perm: Vec<usize>,
    extra_in_bytes: u64,
    extra_out_bytes: u64,
    /// Input rows that overlap: the stride of dimension `.0` (when not 0) divided by `.1`, so that its steps
    /// reread the bytes of the dimensions inside it (sliding windows; sizes `[1000, 15]` with strides `[1, 1]`).
    /// Only outputs must not overlap (D1); such inputs once overflowed a shuffle mask in the short-row kernel.
    overlap: Option<(usize, u32)>,
    seed: u64,
}

fn layouts(rank: usize) -> impl Strategy<Value = Layouts> {
    let perm = Just((0..rank).collect::<Vec<usize>>()).prop_shuffle();
    (
        prop_oneof![1 => Just(false), 3 => Just(true)],
        perm.clone(),
        prop_oneof![1 => Just(false), 2 => Just(true)],
        perm,
        prop_oneof![3 => Just(0u64), 1 => (1..=3u64).prop_map(|k| 4 * k)],
        prop_oneof![3 => Just(0u64), 1 => (1..=3u64).prop_map(|k| 4 * k)],
        prop_oneof![3 => Just(None), 1 => (0..rank, 2..=64u32).prop_map(Some)],
        any::<u64>(),
    )
        .prop_map(
            |(
                input_explicit,
                input_perm,
                output_explicit,
                output_perm,
                extra_in_bytes,
                extra_out_bytes,
                overlap,
                seed,
            )| {
                Layouts {
                    input_explicit,
                    input_perm,
                    output_explicit,
                    output_perm,
                    extra_in_bytes,
                    extra_out_bytes,
                    overlap,
                    seed,
                }
            },
        )
}

/// Deterministic pseudo-random bytes (xorshift64*, eight bytes a step): cheap to build and to shrink (only the
/// seed shrinks). Eight bytes a step because under Miri, which pays for every step, one byte a step took longer
/// than the kernels under test (42 s for the 186 KB input of one case).
pub fn pseudo_random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed | 1;
    let mut bytes = Vec::with_capacity(len.next_multiple_of(8));
    while bytes.len() < len {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        bytes.extend_from_slice(&state.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

fn build(dt: DataType, mut dims: Vec<DimSpec>, long: (usize, u32, u32), l: Layouts, budget: u64) -> Slice1Case {
    let rank = dims.len();
    let (long_idx, long_out, long_stride) = long;
    dims[long_idx].out = long_out;
    dims[long_idx].stride_abs = long_stride;
    dims[long_idx].broadcast = false;
    // Stay within the element budget: collapse the biggest other dimensions first, then shorten the long one.
    let volume = |dims: &[DimSpec]| {
        let sizes: Vec<u32> = dims.iter().map(DimSpec::input_size).collect();
        let in_pads: Vec<u32> = dims.iter().map(|d| d.in_pad).collect();
        let outs: Vec<u32> = dims.iter().map(|d| d.out).collect();
        let out_pads: Vec<u32> = dims.iter().map(|d| d.out_pad).collect();
        padded_volume(&sizes, &in_pads).max(padded_volume(&outs, &out_pads))
    };
    while volume(&dims) > budget {
        let biggest = (0..rank)
            .filter(|&i| i != long_idx && dims[i].input_size() + dims[i].in_pad > 1)
            .max_by_key(|&i| dims[i].input_size() + dims[i].in_pad + dims[i].out_pad);
        match biggest {
            Some(i) => dims[i].collapse(),
            None => {
                let d = &mut dims[long_idx];
                d.extra_input = 0;
                d.in_pad = 0;
                d.out_pad = 0;
                d.out = (d.out / 2).max(1);
            }
        }
    }
    let in_sizes: Vec<u32> = dims.iter().map(DimSpec::input_size).collect();
    let out_sizes: Vec<u32> = dims.iter().map(|d| d.out).collect();
    let in_strides = l.input_explicit.then(|| {
        let pads: Vec<u32> = dims.iter().map(|d| d.in_pad).collect();
        let mut s = permuted_padded_strides(&in_sizes, &l.input_perm, &pads);
        for (i, d) in dims.iter().enumerate() {
            if d.broadcast {
                s[i] = 0;
            }
        }
        // Shrinking a stride only shortens the extent, so the budget still holds.
        if let Some((i, k)) = l.overlap
            && s[i] > 0
        {
            s[i] = (s[i] / k).max(1);
        }
        s
    });
    let out_strides = l.output_explicit.then(|| {
        let pads: Vec<u32> = dims.iter().map(|d| d.out_pad).collect();
        permuted_padded_strides(&out_sizes, &l.output_perm, &pads)
    });
    let tensor = |sizes: &[u32], strides: Option<&[u32]>, extra: u64| {
        let mut t = BufferTensorDesc::new(dt, sizes, strides)
            .unwrap_or_else(|e| unreachable!("strategy sizes stay far below the limits: {e}"));
        t.total_tensor_size_in_bytes += extra;
        t
    };
    debug_assert!(in_strides.as_ref().is_none_or(|s| extent(&in_sizes, s) <= budget));
    let desc = Slice1Desc {
        input: tensor(&in_sizes, in_strides.as_deref(), l.extra_in_bytes),
        output: tensor(&out_sizes, out_strides.as_deref(), l.extra_out_bytes),
        input_window_offsets: dims.iter().map(|d| d.offset).collect(),
        input_window_sizes: dims.iter().map(DimSpec::window).collect(),
        input_window_strides: dims
            .iter()
            .map(|d| if d.negative { -(d.stride_abs as i32) } else { d.stride_abs as i32 })
            .collect(),
    };
    let input = pseudo_random_bytes(l.seed, desc.input.total_tensor_size_in_bytes as usize);
    Slice1Case { desc, input }
}

/// Valid Slice1 cases of rank `1..=max_rank` (clamped to 1..=8) whose tensors hold at most `max_elements` physical
/// elements each.
pub fn slice1_case_with(max_rank: usize, max_elements: u64) -> impl Strategy<Value = Slice1Case> {
    let max_rank = max_rank.clamp(1, 8);
    (1..=max_rank, data_type()).prop_flat_map(move |(rank, dt)| {
        (
            Just(dt),
            proptest::collection::vec(small_dim(), rank),
            (0..rank, long_dim()).prop_map(|(i, (out, stride))| (i, out, stride)),
            layouts(rank),
        )
            .prop_map(move |(dt, dims, long, l)| build(dt, dims, long, l, max_elements))
    })
}

/// Valid Slice1 cases of rank 1..=8 with at most [`DEFAULT_MAX_ELEMENTS`] physical elements per tensor.
pub fn slice1_case() -> impl Strategy<Value = Slice1Case> {
    slice1_case_with(8, DEFAULT_MAX_ELEMENTS)
}

/// The single rule a near-invalid case breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breakage {
    /// R-S1-2: the window reaches one element past the input.
    WindowPastEnd,
    /// R-S1-3: an empty window.
    EmptyWindow,
    /// R-S1-4: a window stride of 0.
    ZeroStride,
    /// R-S1-5: one output element more than the window holds.
    OutputTooLarge,
    /// R-S1-6: the output's data type differs.
    DataTypeMismatch,
    /// R-S1-1: a window array one entry short.
    RankMismatch,
    /// R-BT-5: the input's TotalTensorSizeInBytes 4 bytes below the minimum.
    InputTooSmall,
}

/// A valid case with exactly one rule broken (the case's `input` still matches the original description).
pub fn near_invalid_slice1_case() -> impl Strategy<Value = (Slice1Case, Breakage)> {
    let breakage = proptest::sample::select(vec![
        Breakage::WindowPastEnd,
        Breakage::EmptyWindow,
        Breakage::ZeroStride,
        Breakage::OutputTooLarge,
        Breakage::DataTypeMismatch,
        Breakage::RankMismatch,
        Breakage::InputTooSmall,
    ]);
    (slice1_case_with(8, 512), breakage, any::<prop::sample::Index>()).prop_map(|(mut case, breakage, index)| {
        let d = &mut case.desc;
        let dim = index.index(d.input.sizes.len());
        match breakage {
            Breakage::WindowPastEnd => {
                d.input_window_offsets[dim] = d.input.sizes[dim] - d.input_window_sizes[dim] + 1;
            }
            Breakage::EmptyWindow => d.input_window_sizes[dim] = 0,
            Breakage::ZeroStride => d.input_window_strides[dim] = 0,
            Breakage::OutputTooLarge => {
                let max = 1 + (d.input_window_sizes[dim] - 1) / d.input_window_strides[dim].unsigned_abs();
                let mut sizes = d.output.sizes.clone();
                sizes[dim] = max + 1;
                d.output = BufferTensorDesc::new(d.output.data_type, &sizes, None)
                    .unwrap_or_else(|e| unreachable!("small sizes: {e}"));
            }
            Breakage::DataTypeMismatch => {
                d.output.data_type =
                    if d.input.data_type == DataType::Uint8 { DataType::Int8 } else { DataType::Uint8 };
                d.output.strides = None;
                d.output.total_tensor_size_in_bytes = u64::MAX / 2;
            }
            Breakage::RankMismatch => {
                d.input_window_strides.pop();
            }
            Breakage::InputTooSmall => {
                let min =
                    stridekit::calc_buffer_tensor_size(d.input.data_type, &d.input.sizes, d.input.strides.as_deref())
                        .unwrap_or_else(|e| unreachable!("small sizes: {e}"));
                d.input.total_tensor_size_in_bytes = min.saturating_sub(4);
            }
        }
        (case, breakage)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    /// Whether two distinct in-bounds index vectors of the input address the same element.
    fn input_overlaps(d: &BufferTensorDesc) -> bool {
        let Some(strides) = &d.strides else { return false };
        let mut seen = std::collections::HashSet::new();
        let mut coords = vec![0u32; d.sizes.len()];
        loop {
            let at: u64 = coords.iter().zip(strides).map(|(&c, &s)| u64::from(c) * u64::from(s)).sum();
            let broadcast = coords.iter().zip(strides).any(|(&c, &s)| c > 0 && s == 0);
            if !broadcast && !seen.insert(at) {
                return true;
            }
            let Some(i) = (0..coords.len()).rev().find(|&i| coords[i] + 1 < d.sizes[i]) else { return false };
            coords[i] += 1;
            coords[i + 1..].iter_mut().for_each(|c| *c = 0);
        }
    }

    #[test]
    // Safe code drawing and walking 400 cases: minutes under Miri for nothing it could find.
    #[cfg_attr(miri, ignore = "pure safe code; too slow interpreted")]
    fn some_inputs_overlap_beyond_broadcast() {
        let mut runner = TestRunner::deterministic();
        let strategy = slice1_case_with(4, 512);
        let overlapping =
            (0..400).filter(|_| input_overlaps(&strategy.new_tree(&mut runner).unwrap().current().desc.input)).count();
        assert!(overlapping >= 10, "{overlapping} of 400 cases read overlapping input rows");
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 4 } else { 256 },
            failure_persistence: None,
            ..ProptestConfig::default()
        })]
        #[test]
        fn cases_are_valid(case in slice1_case()) {
            let plan = case.desc.validate();
            prop_assert!(plan.is_ok(), "{:?}: {:?}", case.desc, plan.err());
            prop_assert!(case.desc.input.total_tensor_size_in_bytes as usize == case.input.len());
        }

        #[test]
        fn near_invalid_cases_are_invalid((case, breakage) in near_invalid_slice1_case()) {
            prop_assert!(case.desc.validate().is_err(), "{breakage:?} {:?}", case.desc);
        }
    }
}
