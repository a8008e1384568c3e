//! The normalised view of a [`Slice1Plan`]: the same copy as the fewest nested loops, for any backend.
//!
//! A plan lists one loop per tensor dimension. Many of them are redundant for moving bytes: a size-1 dimension
//! never moves, and two dimensions that are contiguous on both sides (`size_inner * stride_inner == stride_outer` in
//! the input and in the output) are one longer loop. [`Slice1Plan::normalized`] removes that redundancy with three
//! device-independent steps, in the spirit of candle-core's `StridedBlocks`:
//!
//! 1. **Drop size-1 dimensions** (they never move).
//! 2. **Order dimensions by output stride**, largest outermost, so that writes walk forward through the output
//!    (non-overlapping outputs, D1, make these strides distinct; ties on the input stride are broken by magnitude).
//! 3. **Merge** an outer dimension into the next inner one when both sides are contiguous across them; broadcast
//!    dimensions (input stride 0 on both) merge too.
//!
//! Every step keeps the set of (input offset, output offset) pairs of the plan, so a backend may execute the
//! [`NormalizedCopy`] in any order it likes. What to do with the loops (which kernel, how to split them over threads
//! or workgroups, whether to stream stores) is the backend's decision, not the model's.
//!
//! The view also carries the byte arithmetic every executor needs: the input and output byte ranges of the whole
//! copy, and of a range of rows of the outermost loop (streaming a large input chunk by chunk).
//!
//! ```
//! use stridekit::{BufferTensorDesc, CopyDim, DataType, Slice1Desc};
//! // A 1x1x4x4 float tensor, rows 1..3 and all columns: one contiguous run of 8 elements after normalisation.
//! let desc = Slice1Desc {
//!     input: BufferTensorDesc::packed(DataType::Float32, &[1, 1, 4, 4]).unwrap(),
//!     output: BufferTensorDesc::packed(DataType::Float32, &[1, 1, 2, 4]).unwrap(),
//!     input_window_offsets: vec![0, 0, 1, 0],
//!     input_window_sizes: vec![1, 1, 2, 4],
//!     input_window_strides: vec![1, 1, 1, 1],
//! };
//! let copy = desc.validate().unwrap().normalized();
//! assert_eq!(copy.dims(), &[CopyDim { size: 8, input_stride: 1, output_stride: 1 }]);
//! assert_eq!(copy.input_start(), 4);
//! assert_eq!(copy.input_byte_range(), 16..48);
//! ```

use crate::Slice1Plan;
use std::ops::Range;

/// One loop of a [`NormalizedCopy`]: `size` steps, strides in elements (the input stride is signed; the output
/// stride is >= 1 except for the single dimension of a one-element copy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CopyDim {
    /// Steps of this loop (>= 1; the product of merged dimensions may exceed `u32::MAX`).
    pub size: u64,
    /// Input elements between two steps (negative walks backwards, 0 broadcasts).
    pub input_stride: i64,
    /// Output elements between two steps.
    pub output_stride: i64,
}

/// A [`Slice1Plan`] as the fewest nested loops (see the [module docs](self)). For every coordinate `c` of the loops
/// (row-major over [`dims`](Self::dims)), the element at input offset `input_start + sum(c[i] * input_stride[i])`
/// is copied to output offset `sum(c[i] * output_stride[i])`; offsets count elements from the start of each bound
/// range.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NormalizedCopy {
    element_size: usize,
    input_start: u64,
    dims: Vec<CopyDim>,
}

impl Slice1Plan {
    /// The plan as the fewest nested loops; see [`NormalizedCopy`].
    pub fn normalized(&self) -> NormalizedCopy {
        let mut dims: Vec<CopyDim> = self
            .output_sizes()
            .iter()
            .zip(self.input_strides().iter().zip(self.output_strides()))
            .filter(|(n, _)| **n > 1)
            .map(|(&n, (&input_stride, &output_stride))| CopyDim { size: u64::from(n), input_stride, output_stride })
            .collect();
        dims.sort_by(|a, b| {
            b.output_stride
                .cmp(&a.output_stride)
                .then(b.input_stride.unsigned_abs().cmp(&a.input_stride.unsigned_abs()))
        });
        let mut merged: Vec<CopyDim> = Vec::with_capacity(dims.len());
        for d in dims {
            if let Some(outer) = merged.last_mut() {
                // Sizes are <= u32::MAX and strides are below 2^32 in magnitude (R-BT-6): the products fit i64.
                let n = d.size as i64;
                if d.input_stride * n == outer.input_stride && d.output_stride * n == outer.output_stride {
                    *outer = CopyDim { size: outer.size * d.size, ..d };
                    continue;
                }
            }
            merged.push(d);
        }
        if merged.is_empty() {
            merged.push(CopyDim { size: 1, input_stride: 1, output_stride: 1 });
        }
        NormalizedCopy { element_size: self.element_size(), input_start: self.input_start(), dims: merged }
    }
}

impl NormalizedCopy {
    /// Bytes per element (1, 2, 4 or 8).
    pub fn element_size(&self) -> usize {
        self.element_size
    }

    /// The input offset, in elements, of the first element copied (DirectML's CopyStart folded in).
    pub fn input_start(&self) -> u64 {
        self.input_start
    }

    /// The loops, outermost first; never empty (a one-element copy is one loop of size 1).
    pub fn dims(&self) -> &[CopyDim] {
        &self.dims
    }

    /// The innermost loop.
    pub fn inner(&self) -> CopyDim {
        self.dims[self.dims.len() - 1]
    }

    /// The number of elements copied.
    pub fn element_count(&self) -> u64 {
        self.dims.iter().map(|d| d.size).product()
    }

    /// The rows of the outermost loop: the unit in which a copy can be streamed ([`Self::input_byte_range_of_rows`]).
    pub fn rows(&self) -> u64 {
        self.dims[0].size
    }

    /// The input bytes `[lowest, highest + element size)` the whole copy reads.
    pub fn input_byte_range(&self) -> Range<u64> {
        self.input_byte_range_of_rows(0..self.rows())
    }

    /// The output bytes `[lowest, highest + element size)` the whole copy writes. Only element bytes inside this
    /// range are written; padding between them keeps its value (D6).
    pub fn output_byte_range(&self) -> Range<u64> {
        self.output_byte_range_of_rows(0..self.rows())
    }

    /// The input bytes rows `rows` of the outermost loop read (an empty range for no rows).
    ///
    /// # Panics
    /// If `rows` is not inside `0..self.rows()`.
    pub fn input_byte_range_of_rows(&self, rows: Range<u64>) -> Range<u64> {
        self.range_of_rows(rows, self.input_start, |d| d.input_stride)
    }

    /// The output bytes rows `rows` of the outermost loop write (an empty range for no rows).
    ///
    /// # Panics
    /// If `rows` is not inside `0..self.rows()`.
    pub fn output_byte_range_of_rows(&self, rows: Range<u64>) -> Range<u64> {
        self.range_of_rows(rows, 0, |d| d.output_stride)
    }

    fn range_of_rows(&self, rows: Range<u64>, start: u64, stride: impl Fn(&CopyDim) -> i64) -> Range<u64> {
        assert!(rows.start <= rows.end && rows.end <= self.rows(), "rows {rows:?} outside 0..{}", self.rows());
        if rows.is_empty() {
            return 0..0;
        }
        // Offsets are element indices below 2^32 (R-BT-6), so every sum below fits i128 trivially and the result
        // fits u64.
        let e = self.element_size as i128;
        let first = i128::from(start) + i128::from(stride(&self.dims[0])) * i128::from(rows.start);
        let (mut lo, mut hi) = (first, first);
        let spans = std::iter::once((rows.end - rows.start, stride(&self.dims[0])))
            .chain(self.dims[1..].iter().map(|d| (d.size, stride(d))));
        for (n, s) in spans {
            let span = i128::from(n - 1) * i128::from(s);
            if span < 0 { lo += span } else { hi += span }
        }
        debug_assert!(lo >= 0, "a validated plan never reads before its tensor");
        (lo * e) as u64..((hi + 1) * e) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BufferTensorDesc, DataType, Slice1Desc};
    use proptest::prelude::*;

    fn plan(
        t: DataType,
        input: (&[u32], Option<&[u32]>),
        window: (&[u32], &[u32], &[i32]),
        output: Option<&[u32]>,
    ) -> Slice1Plan {
        let out_sizes: Vec<u32> =
            window.1.iter().zip(window.2).map(|(&s, &st)| 1 + (s - 1) / st.unsigned_abs()).collect();
        Slice1Desc {
            input: BufferTensorDesc::new(t, input.0, input.1).unwrap(),
            output: BufferTensorDesc::new(t, &out_sizes, output).unwrap(),
            input_window_offsets: window.0.to_vec(),
            input_window_sizes: window.1.to_vec(),
            input_window_strides: window.2.to_vec(),
        }
        .validate()
        .unwrap()
    }

    const fn d(size: u64, input_stride: i64, output_stride: i64) -> CopyDim {
        CopyDim { size, input_stride, output_stride }
    }

    #[test]
    fn drops_orders_and_merges() {
        // A whole packed tensor is one run.
        let p = plan(DataType::Uint8, (&[2, 3, 4], None), (&[0, 0, 0], &[2, 3, 4], &[1, 1, 1]), None);
        assert_eq!(p.normalized().dims(), &[d(24, 1, 1)]);
        // Reversed rows of whole columns: rows stay a loop (input stride -4), the row itself is a run.
        let p = plan(DataType::Float32, (&[3, 4], None), (&[0, 0], &[3, 4], &[-1, 1]), None);
        let n = p.normalized();
        assert_eq!(n.dims(), &[d(3, -4, 4), d(4, 1, 1)]);
        assert_eq!(n.input_start(), 8);
        assert_eq!(n.input_byte_range(), 0..48);
        // NCHW -> NHWC output: ordered by output stride, C innermost with input stride H*W.
        let p =
            plan(DataType::Uint8, (&[1, 3, 2, 2], None), (&[0, 0, 0, 0], &[1, 3, 2, 2], &[1; 4]), Some(&[12, 1, 6, 3]));
        assert_eq!(p.normalized().dims(), &[d(4, 1, 3), d(3, 4, 1)]);
        // Broadcast input (stride 0) over a packed output merges with nothing but keeps its stride.
        let p = plan(DataType::Uint16, (&[3, 4], Some(&[0, 1])), (&[0, 0], &[3, 4], &[1, 1]), None);
        assert_eq!(p.normalized().dims(), &[d(3, 0, 4), d(4, 1, 1)]);
        // One element: one loop of size 1.
        let p = plan(DataType::Float64, (&[5, 5], None), (&[2, 3], &[1, 1], &[1, 1]), None);
        let n = p.normalized();
        assert_eq!(n.dims(), &[d(1, 1, 1)]);
        assert_eq!((n.input_start(), n.input_byte_range(), n.output_byte_range()), (13, 104..112, 0..8));
    }

    #[test]
    fn row_ranges() {
        // The doc example: rows bottom up (input stride -8), columns 1 and 3.
        let p = plan(DataType::Float32, (&[1, 1, 4, 4], None), (&[0, 0, 0, 1], &[1, 1, 4, 3], &[1, 1, -2, 2]), None);
        let n = p.normalized();
        assert_eq!(n.dims(), &[d(2, -8, 2), d(2, 2, 1)]);
        assert_eq!(n.input_start(), 13);
        assert_eq!(n.input_byte_range_of_rows(0..1), 52..64);
        assert_eq!(n.input_byte_range_of_rows(1..2), 20..32);
        assert_eq!(n.input_byte_range(), 20..64);
        assert_eq!(n.output_byte_range_of_rows(1..2), 8..16);
        assert_eq!(n.input_byte_range_of_rows(1..1), 0..0);
    }

    /// Every (input, output) offset pair of a plan, in row-major order of its output coordinates.
    fn pairs_of_plan(p: &Slice1Plan) -> Vec<(i64, i64)> {
        let sizes = p.output_sizes();
        let mut out = Vec::new();
        let mut c = vec![0u32; sizes.len()];
        loop {
            let i =
                p.input_start() as i64 + c.iter().zip(p.input_strides()).map(|(&c, &s)| i64::from(c) * s).sum::<i64>();
            let o = c.iter().zip(p.output_strides()).map(|(&c, &s)| i64::from(c) * s).sum::<i64>();
            out.push((i, o));
            let mut k = sizes.len();
            loop {
                if k == 0 {
                    return out;
                }
                k -= 1;
                c[k] += 1;
                if c[k] < sizes[k] {
                    break;
                }
                c[k] = 0;
            }
        }
    }

    fn pairs_of_copy(n: &NormalizedCopy) -> Vec<(i64, i64)> {
        let mut out = vec![(n.input_start() as i64, 0i64)];
        for dim in n.dims() {
            out = out
                .iter()
                .flat_map(|&(i, o)| {
                    (0..dim.size as i64).map(move |k| (i + k * dim.input_stride, o + k * dim.output_stride))
                })
                .collect();
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 256 }, failure_persistence: None, ..ProptestConfig::default() })]

        /// Normalising keeps exactly the plan's (input, output) pairs, merges everything mergeable, and its byte
        /// ranges are the extremes of those pairs.
        #[test]
        fn keeps_every_pair(
            sizes in proptest::collection::vec(1u32..5, 1..6),
            perm_seed in any::<u64>(),
            steps in proptest::collection::vec(prop_oneof![Just(1i32), Just(-1), Just(2), Just(-2), Just(3)], 6),
            esize in prop_oneof![Just(DataType::Uint8), Just(DataType::Float16), Just(DataType::Float32), Just(DataType::Int64)],
        ) {
            let rank = sizes.len();
            // A permuted input layout, a packed output.
            let mut order: Vec<usize> = (0..rank).collect();
            let mut s = perm_seed;
            for i in (1..rank).rev() { order.swap(i, (s % (i as u64 + 1)) as usize); s /= 7; }
            let mut strides = vec![0u32; rank];
            let mut acc = 1u32;
            for &dim in order.iter().rev() { strides[dim] = acc; acc *= sizes[dim]; }
            let window: Vec<u32> = sizes.clone();
            let p = plan(esize, (&sizes, Some(&strides)), (&vec![0; rank], &window, &steps[..rank]), None);
            let n = p.normalized();
            let mut a = pairs_of_plan(&p);
            let mut b = pairs_of_copy(&n);
            a.sort_unstable();
            b.sort_unstable();
            prop_assert_eq!(&a, &b);
            for w in n.dims().windows(2) {
                let n_inner = w[1].size as i64;
                prop_assert!(!(w[1].input_stride * n_inner == w[0].input_stride && w[1].output_stride * n_inner == w[0].output_stride), "{:?} not merged", n.dims());
            }
            let e = esize.size_in_bytes_rounded_up() as i64;
            let lo = a.iter().map(|p| p.0).min().unwrap() * e;
            let hi = (a.iter().map(|p| p.0).max().unwrap() + 1) * e;
            prop_assert_eq!(n.input_byte_range(), lo as u64..hi as u64);
            let ohi = (a.iter().map(|p| p.1).max().unwrap() + 1) * e;
            prop_assert_eq!(n.output_byte_range(), 0..ohi as u64);
        }
    }
}
