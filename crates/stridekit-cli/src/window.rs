//! The DirectML window flags shared by `stridekit slice` and `stridekit bench` (`--offsets`, `--sizes`,
//! `--strides`, `--output-sizes`), with the defaults the help promises, as in NumPy's `a[:]`: a missing `--offsets`
//! means zeros, `--sizes` the rest of each dimension from its offset, `--strides` ones, and `--output-sizes`
//! DirectML's MaxCopiedElements per dimension (`1 + (size - 1) / |stride|`).
//!
//! The result is the model's [`Slice1Params`]; validation is the model's. What only the command line can explain is
//! checked here first, so that the message names what the user typed: a list whose length is not the input's rank
//! names its flag and the field it maps to (R-S1-1), and a default that is empty or does not exist says that it was
//! a default and how it was computed (R-S1-3, R-S1-2). The explicit window flags reject an empty window as DirectML
//! does (D11); the default window over an empty input is the caller's business (it is not an explicit window).

use crate::error::CliError;
use crate::parse;
use stridekit::frontends::Slice1Params;
use stridekit::ops::slice1::max_copied_elements;

/// The parsed flags, `None` where absent.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowFlags<'a> {
    /// `--offsets`: InputWindowOffsets.
    pub offsets: Option<&'a str>,
    /// `--sizes`: InputWindowSizes.
    pub sizes: Option<&'a str>,
    /// `--strides`: InputWindowStrides.
    pub strides: Option<&'a str>,
    /// `--output-sizes`: OutputTensor.Sizes.
    pub output_sizes: Option<&'a str>,
}

impl WindowFlags<'_> {
    /// No window flag was given: the default window (the whole input).
    pub fn is_default(&self) -> bool {
        self.offsets.is_none() && self.sizes.is_none() && self.strides.is_none() && self.output_sizes.is_none()
    }
}

/// Checks that a list the user gave has one entry per input dimension.
fn check_len<T>(flag: &str, field: &str, list: &[T], rank: usize) -> Result<(), CliError> {
    if list.len() != rank {
        return Err(CliError::Flag {
            rule: "R-S1-1",
            message: format!(
                "{flag} (DirectML's {field}) has {} entries, but the input has {rank} dimensions \
                 (InputTensor.DimensionCount); give one entry per dimension",
                list.len()
            ),
        });
    }
    Ok(())
}

/// Parses the flags and fills in the defaults over an input of `input_sizes`.
pub fn resolve(flags: WindowFlags<'_>, input_sizes: &[u32]) -> Result<Slice1Params, CliError> {
    let rank = input_sizes.len();
    let offsets = match flags.offsets {
        Some(t) => {
            let v = parse::u32_list("--offsets", t)?;
            check_len("--offsets", "InputWindowOffsets", &v, rank)?;
            v
        }
        None => vec![0; rank],
    };
    let sizes = match flags.sizes {
        Some(t) => {
            let v = parse::u32_list("--sizes", t)?;
            check_len("--sizes", "InputWindowSizes", &v, rank)?;
            v
        }
        None => default_sizes(flags.offsets.is_some(), &offsets, input_sizes)?,
    };
    let strides = match flags.strides {
        Some(t) => {
            let v = parse::i32_list("--strides", t)?;
            check_len("--strides", "InputWindowStrides", &v, rank)?;
            v
        }
        None => vec![1; rank],
    };
    let output_sizes = match flags.output_sizes {
        Some(t) => {
            let v = parse::u32_list("--output-sizes", t)?;
            check_len("--output-sizes", "OutputTensor.Sizes", &v, rank)?;
            v
        }
        // MaxCopiedElements; degenerate windows are named by validation (R-S1-3 for a size 0, R-S1-4 for a
        // stride 0), whose messages name the window arrays the user gave.
        None => {
            sizes.iter().zip(&strides).map(|(&size, &stride)| max_copied_elements(size, i64::from(stride))).collect()
        }
    };
    Ok(Slice1Params {
        input_sizes: input_sizes.to_vec(),
        input_window_offsets: offsets,
        input_window_sizes: sizes,
        input_window_strides: strides,
        output_sizes,
    })
}

/// The default InputWindowSizes: the rest of each dimension from its offset. An offset at or past the end leaves
/// no default, and the error says so (rather than inventing a size the help does not promise).
fn default_sizes(offsets_given: bool, offsets: &[u32], input_sizes: &[u32]) -> Result<Vec<u32>, CliError> {
    let mut sizes = Vec::with_capacity(input_sizes.len());
    for (d, (&size, &offset)) in input_sizes.iter().zip(offsets).enumerate() {
        let from = if offsets_given { "from --offsets" } else { "the default" };
        if offset > size {
            return Err(CliError::Flag {
                rule: "R-S1-2",
                message: format!(
                    "InputWindowOffsets[{d}] = {offset} ({from}) lies past the end of InputTensor.Sizes[{d}] = {size}; \
                     --sizes was not given, and its default (the rest of each dimension from its offset) does not \
                     exist there"
                ),
            });
        }
        if offset == size {
            return Err(CliError::Flag {
                rule: "R-S1-3",
                message: format!(
                    "InputWindowSizes[{d}] is 0: --sizes was not given, and its default is the rest of dimension {d} \
                     from its offset, InputTensor.Sizes[{d}] - InputWindowOffsets[{d}] = {size} - {offset} = 0 \
                     (offset {from}); the window must not be empty in any dimension"
                ),
            });
        }
        sizes.push(size - offset);
    }
    Ok(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuple(p: Slice1Params) -> (Vec<u32>, Vec<u32>, Vec<i32>, Vec<u32>) {
        (p.input_window_offsets, p.input_window_sizes, p.input_window_strides, p.output_sizes)
    }

    #[test]
    fn defaults_cover_the_whole_input() {
        let w = resolve(WindowFlags::default(), &[2, 3]).unwrap();
        assert_eq!(w, Slice1Params::whole(&[2, 3]));
    }

    #[test]
    fn sizes_default_to_the_rest_and_output_to_max_copied_elements() {
        let flags = WindowFlags { offsets: Some("1,2"), strides: Some("-2,3"), ..WindowFlags::default() };
        let w = resolve(flags, &[5, 9]).unwrap();
        // Sizes 4 and 7; MaxCopiedElements 1 + 3/2 = 2 and 1 + 6/3 = 3.
        assert_eq!(tuple(w), (vec![1, 2], vec![4, 7], vec![-2, 3], vec![2, 3]));
    }

    #[test]
    fn a_default_size_of_zero_is_named_as_a_default() {
        let flags = WindowFlags { offsets: Some("6,0"), ..WindowFlags::default() };
        let e = resolve(flags, &[6, 7]).unwrap_err().to_string();
        assert!(e.starts_with("error[R-S1-3]: InputWindowSizes[0] is 0: --sizes was not given"), "{e}");
        assert!(e.contains("6 - 6 = 0"), "{e}");
        let flags = WindowFlags { offsets: Some("7,0"), ..WindowFlags::default() };
        let e = resolve(flags, &[6, 7]).unwrap_err().to_string();
        assert!(e.starts_with("error[R-S1-2]: InputWindowOffsets[0] = 7 (from --offsets) lies past the end"), "{e}");
    }

    #[test]
    fn wrong_lengths_name_the_flag_and_the_field() {
        let flags = WindowFlags { sizes: Some("3"), ..WindowFlags::default() };
        let e = resolve(flags, &[5, 5]).unwrap_err().to_string();
        assert_eq!(
            e,
            "error[R-S1-1]: --sizes (DirectML's InputWindowSizes) has 1 entries, but the input has 2 dimensions \
             (InputTensor.DimensionCount); give one entry per dimension"
        );
        let flags = WindowFlags { output_sizes: Some("1,1,1"), ..WindowFlags::default() };
        let e = resolve(flags, &[5, 5]).unwrap_err().to_string();
        assert!(e.contains("--output-sizes (DirectML's OutputTensor.Sizes) has 3 entries"), "{e}");
    }

    #[test]
    fn degenerate_values_are_left_for_validation() {
        // Stride 0 gets output size 1 (R-S1-4 names it).
        let flags = WindowFlags { strides: Some("0"), ..WindowFlags::default() };
        assert_eq!(tuple(resolve(flags, &[5]).unwrap()), (vec![0], vec![5], vec![0], vec![1]));
    }

    #[test]
    fn bad_items_name_the_flag() {
        let flags = WindowFlags { sizes: Some("2,x"), ..WindowFlags::default() };
        let e = resolve(flags, &[5, 5]).unwrap_err().to_string();
        assert!(e.contains("--sizes"), "{e}");
    }
}
