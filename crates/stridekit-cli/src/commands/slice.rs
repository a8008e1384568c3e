//! `stridekit slice IN.npy OUT.npy`.

use crate::error::CliError;
use clap::Args;
use std::process::ExitCode;

/// Arguments of `stridekit slice`.
#[derive(Debug, Args)]
pub struct SliceArgs {}

/// Runs `stridekit slice`.
pub fn run(_args: &SliceArgs) -> Result<ExitCode, CliError> {
    Err(CliError::Args("slice: under construction in this session".into()))
}
