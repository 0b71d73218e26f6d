//! The `podsim` command line: flags, commands and exit codes.
//!
//! Exit codes: 0 the run completed; 1 a simulation-level failure: podsim's
//! own trace broke a kubelet invariant (see `check`), which means a bug or a
//! combination podsim does not model; 2 bad input (files, flags, manifests).

mod args;
mod check;
mod color;
mod completions;
mod describe;
mod get;
mod man;
mod plot;
mod predict;
mod problems;
mod report;
mod run;
mod sweeping;
mod verify;
mod words;

use clap::{CommandFactory, FromArgMatches};
use std::ffi::OsString;
use std::process::ExitCode;

pub use args::{CheckArgs, Cli, Command, Output, RunArgs};

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    // `--color` is read before parsing too, so that clap's help and errors follow it.
    let mut command = Cli::command().color(color::for_clap(color::scan(&args)));
    let cli = match command.try_get_matches_from_mut(&args).and_then(|m| Cli::from_arg_matches(&m)) {
        Ok(cli) => cli,
        Err(e) => e.format(&mut command).exit(),
    };
    color::init(cli.color);
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Check(args) => check::check(args),
        Command::Predict(args) => predict::predict(args),
        Command::Merge(args) => predict::merge(args),
        Command::Verify(args) => verify::verify(args),
        Command::Plot(args) => plot::plot(args),
        Command::Get(args) => get::get(args),
        Command::Describe(args) => describe::describe(args),
        Command::Report(args) => report::report(args),
        Command::Completions(args) => completions::completions(args),
        Command::Man(args) => man::man(args),
    }
}
