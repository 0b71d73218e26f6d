//! Printing problems: `error: file:line:col: field: message` with the line
//! quoted, so a user can fix the input without searching.

use super::color::{self, Style};
use crate::error::{Error, Problem, Severity};
use crate::run::{Inputs, Prepared, prepare};
use std::fmt::Display;
use std::io::Write;
use std::process::ExitCode;

/// Reads the inputs and prints their warnings; on errors prints them and
/// gives nothing (nothing is simulated).
pub fn prepared(inputs: &Inputs, out: &mut impl Write) -> Option<Prepared> {
    match prepare(inputs) {
        Ok(p) => {
            for w in &p.warnings {
                problem(out, w);
            }
            Some(p)
        }
        Err(e) => {
            error(out, &e);
            None
        }
    }
}

/// `error:`, `warning:` or `note:`, coloured when stderr is.
pub fn label(severity: Severity) -> String {
    let (word, style) = match severity {
        Severity::Error => ("error:", Style::Error),
        Severity::Warning => ("warning:", Style::Warning),
        Severity::Note => ("note:", Style::Note),
    };
    color::stderr().paint(style, word)
}

/// `error: MESSAGE` for a failure that quotes no input (a flag, a file, a write).
pub fn fail(out: &mut (impl Write + ?Sized), message: impl Display) {
    let _ = writeln!(out, "{} {message}", label(Severity::Error));
}

/// `warning: MESSAGE` for a caveat that quotes no input.
pub fn warn(out: &mut (impl Write + ?Sized), message: impl Display) {
    let _ = writeln!(out, "{} {message}", label(Severity::Warning));
}

/// One problem, its line quoted with a caret under the column, so the input can be fixed where it is.
pub fn problem(out: &mut impl Write, p: &Problem) {
    let _ = writeln!(out, "{} {p}", label(p.severity));
    if let (Some(line), Some(pos)) = (p.source_line(), p.position.as_ref()) {
        let n = pos.line.to_string();
        let _ = writeln!(out, "{:w$} |", "", w = n.len());
        let _ = writeln!(out, "{n} | {line}");
        let col = (pos.column.max(1) - 1) as usize;
        let caret = "^".repeat(pos.len.clamp(1, line.len().saturating_sub(col).max(1)));
        // Spaces by repeat: a format width past u16::MAX panics, and a line may be that long.
        let _ = writeln!(out, "{:w$} | {}{caret}", "", " ".repeat(col), w = n.len());
    }
}

/// An error reading the inputs: each problem, then how many errors stopped the run.
pub fn error(out: &mut impl Write, e: &Error) {
    match e {
        Error::Input(problems) => {
            for p in problems {
                problem(out, p);
            }
            let n = problems.iter().filter(|p| p.is_error()).count();
            let _ =
                writeln!(out, "podsim: {n} error{} in the input; nothing was simulated", if n == 1 { "" } else { "s" });
        }
        Error::Io { .. } => fail(out, e),
    }
}

/// A run that reached its event budget: said, exit 2 (a limit the user
/// sets; nothing is predicted from a run that did not finish).
pub fn exhausted(out: &mut impl Write, e: &crate::budget::Exhausted, until: crate::time::SimDuration) -> ExitCode {
    problem(out, &e.problem(until));
    ExitCode::from(2)
}

/// Writes a command's output to stdout; a closed pipe (`| head`) is not an
/// error, another write failure is (exit 2).
pub fn emit(text: &str, stderr: &mut dyn Write) -> ExitCode {
    let stdout = &mut std::io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|_| stdout.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        fail(stderr, format_args!("writing the output: {e}"));
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
