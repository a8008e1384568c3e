//! One module per subcommand.

pub mod bench;
pub mod calibrate;
pub mod explain;
pub mod slice;

use crate::cli::{Cli, Command};
use crate::error::CliError;
use std::process::ExitCode;

/// Runs the chosen subcommand.
pub fn run(cli: Cli) -> Result<ExitCode, CliError> {
    match cli.command {
        Command::Explain(args) => explain::run(&args),
        Command::Slice(args) => slice::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Calibrate(args) => calibrate::run(&args),
    }
}
