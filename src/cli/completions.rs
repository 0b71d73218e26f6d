//! `podsim completions SHELL`: the shell's completion script, from the same
//! flag definitions as `--help`, so completion never lags behind the flags.

use super::args::CompletionsArgs;
use super::problems;
use clap::CommandFactory;
use std::io;
use std::process::ExitCode;

/// Prints the completion script for the shell asked for.
pub fn completions(args: CompletionsArgs) -> ExitCode {
    let mut command = super::Cli::command();
    // Into memory first: the generators panic on a failed write, e.g. a closed pipe.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "podsim", &mut script);
    problems::emit(&String::from_utf8_lossy(&script), &mut io::stderr().lock())
}
