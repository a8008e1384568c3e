//! `stridekit`: explain a DirectML buffer-tensor layout, slice .npy files, time a slice.
//!
//! Exit codes: 0 success; 2 invalid description, arguments or input file (`error[R-..]: ...` on stderr); 1 I/O or
//! internal error, or not enough memory (`error[memory]`) or disk space (`error[disk]`) for the run. A signal that
//! ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGBUS) first removes the temporary output file.

mod chunks;
mod cli;
mod commands;
mod error;
mod parse;
mod resources;
mod signals;
mod window;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Before anything creates a temporary file: a signal that ends the process removes it.
    signals::install();
    let cli = cli::Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(e.exit_code())
        }
    }
}
