//! The `podsim` command line: flags, commands and exit codes.
//!
//! Exit codes: 0 the run completed; 1 a simulation-level failure: podsim's
//! own trace broke a kubelet invariant (see `check`), which means a bug or a
//! combination podsim does not model; 2 bad input (files, flags, manifests).

mod args;
mod check;
mod get;
mod plot;
mod predict;
mod report;
mod run;
mod verify;
mod words;

use clap::Parser;
use std::process::ExitCode;

pub use args::{CheckArgs, Cli, Command, Output, RunArgs};

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Check(args) => check::check(args),
        Command::Predict(args) => predict::predict(args),
        Command::Merge(args) => predict::merge(args),
        Command::Verify(args) => verify::verify(args),
        Command::Plot(args) => plot::plot(args),
        Command::Get(args) => get::get(args),
        Command::Describe(args) => get::describe(args),
    }
}
