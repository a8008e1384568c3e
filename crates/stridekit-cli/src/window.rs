//! The DirectML window flags shared by `stridekit slice` and `stridekit bench` (`--offsets`, `--sizes`,
//! `--strides`, `--output-sizes`), with the defaults a user expects from NumPy's `a[:]`: a missing `--offsets`
//! means zeros, `--sizes` the rest of each dimension, `--strides` ones, and `--output-sizes` DirectML's
//! MaxCopiedElements per dimension.

use crate::error::CliError;
use crate::parse;

/// The parsed flags, `None` where absent.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowFlags<'a> {
    pub offsets: Option<&'a str>,
    pub sizes: Option<&'a str>,
    pub strides: Option<&'a str>,
    pub output_sizes: Option<&'a str>,
}

/// InputWindowOffsets, InputWindowSizes, InputWindowStrides and the output sizes, in that order.
pub type Window = (Vec<u32>, Vec<u32>, Vec<i32>, Vec<u32>);

/// Parses the flags and fills in the defaults over an input of `input_sizes`. List lengths are not checked
/// here: a wrong length is left for validation to name (R-S1-1), like any other bad value.
pub fn resolve(flags: WindowFlags<'_>, input_sizes: &[u32]) -> Result<Window, CliError> {
    let rank = input_sizes.len();
    let offsets = match flags.offsets {
        Some(t) => parse::u32_list("--offsets", t)?,
        None => vec![0; rank],
    };
    let sizes = match flags.sizes {
        Some(t) => parse::u32_list("--sizes", t)?,
        // The rest of each dimension; an offset at or past the end keeps size 1 so that R-S1-2 names it.
        None => input_sizes
            .iter()
            .enumerate()
            .map(|(d, &s)| s.saturating_sub(offsets.get(d).copied().unwrap_or(0)).max(1))
            .collect(),
    };
    let strides = match flags.strides {
        Some(t) => parse::i32_list("--strides", t)?,
        None => vec![1; rank],
    };
    let output_sizes = match flags.output_sizes {
        Some(t) => parse::u32_list("--output-sizes", t)?,
        // MaxCopiedElements; degenerate values are left for validation to name (R-S1-3, R-S1-4).
        None => sizes
            .iter()
            .zip(strides.iter().chain(std::iter::repeat(&1)))
            .map(|(&size, &stride)| if size == 0 || stride == 0 { 1 } else { 1 + (size - 1) / stride.unsigned_abs() })
            .collect(),
    };
    Ok((offsets, sizes, strides, output_sizes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_cover_the_whole_input() {
        let w = resolve(WindowFlags::default(), &[2, 3]).unwrap();
        assert_eq!(w, (vec![0, 0], vec![2, 3], vec![1, 1], vec![2, 3]));
    }

    #[test]
    fn sizes_default_to_the_rest_and_output_to_max_copied_elements() {
        let flags = WindowFlags { offsets: Some("1,2"), strides: Some("-2,3"), ..WindowFlags::default() };
        let w = resolve(flags, &[5, 9]).unwrap();
        // Sizes 4 and 7; MaxCopiedElements 1 + 3/2 = 2 and 1 + 6/3 = 3.
        assert_eq!(w, (vec![1, 2], vec![4, 7], vec![-2, 3], vec![2, 3]));
    }

    #[test]
    fn degenerate_values_are_left_for_validation() {
        // An offset past the end keeps size 1 (R-S1-2 names it); stride 0 gets output size 1 (R-S1-3 names it).
        let flags = WindowFlags { offsets: Some("7"), strides: Some("0"), ..WindowFlags::default() };
        assert_eq!(resolve(flags, &[5]).unwrap(), (vec![7], vec![1], vec![0], vec![1]));
    }

    #[test]
    fn bad_items_name_the_flag() {
        let flags = WindowFlags { sizes: Some("2,x"), ..WindowFlags::default() };
        let e = resolve(flags, &[5, 5]).unwrap_err().to_string();
        assert!(e.contains("--sizes"), "{e}");
    }
}
