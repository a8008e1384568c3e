//! `stridekit bench`.

use crate::error::CliError;
use clap::Args;
use std::process::ExitCode;

/// Arguments of `stridekit bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {}

/// Runs `stridekit bench`.
pub fn run(_args: &BenchArgs) -> Result<ExitCode, CliError> {
    Err(CliError::Args("bench: under construction in this session".into()))
}
