//! Folding reversed axes into a Slice1 window.
//!
//! DirectML strides are unsigned, so an array axis that runs backwards in memory (a negative NumPy stride) is
//! described forwards (see [`crate::mapping`]) and the *window* is reversed instead: logical input index `i` is
//! physical index `size - 1 - i`. Likewise a reversed output axis is written forwards by walking the window the other
//! way. On an axis that selects `n` elements from CopyStart `c`, `step` apart:
//!
//! - output reversed: the first element written is the last one read, `c' = c + (n - 1) * step`, `step' = -step`;
//! - input reversed: `c' = size - 1 - c`, `step' = -step`.
//!
//! The new window is tight (`[min, max]` of the selected indices), so DirectML's MaxCopiedElements is `n` again and
//! R-S1-2..5 hold whenever they held for the caller's window, which is validated first with the caller's numbers.

/// One axis of a logical window, already valid (R-S1-2..5 hold).
#[derive(Debug, Clone, Copy)]
pub struct Axis {
    /// InputWindowOffsets[i].
    pub offset: u32,
    /// InputWindowSizes[i] (>= 1).
    pub size: u32,
    /// InputWindowStrides[i] (non-zero).
    pub stride: i64,
    /// OutputTensor.Sizes[i] (>= 1).
    pub count: u32,
}

/// The physical window of an axis of input size `input_size`, or `None` when the reversed stride does not fit i32
/// (only `i32::MIN` selecting two or more elements).
pub fn fold(axis: Axis, input_size: u32, input_flipped: bool, output_flipped: bool) -> Option<(u32, u32, i32)> {
    let (offset, size, count) = (i64::from(axis.offset), i64::from(axis.size), i64::from(axis.count));
    let mut step = axis.stride;
    let mut start = if step < 0 { offset + size - 1 } else { offset };
    if output_flipped {
        start += (count - 1) * step;
        step = -step;
    }
    if input_flipped {
        start = i64::from(input_size) - 1 - start;
        step = -step;
    }
    if count == 1 {
        // One element: any stride does; keep the window a single index.
        return Some((u32::try_from(start).ok()?, 1, 1));
    }
    let last = start + (count - 1) * step;
    let (lo, hi) = (start.min(last), start.max(last));
    Some((u32::try_from(lo).ok()?, u32::try_from(hi - lo + 1).ok()?, i32::try_from(step).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The elements an axis selects, in output order, over input indices `0..input_size` where index `p` of the
    /// physical axis holds logical element `input_size - 1 - p` when flipped.
    fn selected(offset: u32, size: u32, stride: i64, count: u32) -> Vec<i64> {
        let start = if stride < 0 { i64::from(offset + size - 1) } else { i64::from(offset) };
        (0..i64::from(count)).map(|o| start + o * stride).collect()
    }

    #[test]
    fn folding_reads_the_same_elements() {
        let n = 9u32;
        for offset in 0..n {
            for size in 1..=n - offset {
                for stride in [-4i64, -3, -1, 1, 2, 5] {
                    let max = 1 + (size - 1) / stride.unsigned_abs() as u32;
                    for count in 1..=max {
                        let want = selected(offset, size, stride, count);
                        for (fin, fout) in [(false, true), (true, false), (true, true)] {
                            let axis = Axis { offset, size, stride, count };
                            let (o, s, t) = fold(axis, n, fin, fout).unwrap();
                            assert!(o + s <= n && 1 + (s - 1) / t.unsigned_abs() >= count);
                            let mut got = selected(o, s, i64::from(t), count);
                            if fin {
                                got.iter_mut().for_each(|p| *p = i64::from(n) - 1 - *p);
                            }
                            if fout {
                                got.reverse();
                            }
                            assert_eq!(got, want, "{axis:?} in {fin} out {fout}");
                        }
                    }
                }
            }
        }
    }
}
