//! Printing problems: `error: file:line:col: field: message` with the line
//! quoted, so a user can fix the input without searching.

use crate::error::{Error, Problem, Severity};
use crate::run::{Inputs, Prepared, prepare};
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

pub fn problem(out: &mut impl Write, p: &Problem) {
    let word = match p.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    let _ = writeln!(out, "{word}: {p}");
    if let (Some(line), Some(pos)) = (p.source_line(), p.position.as_ref()) {
        let n = pos.line.to_string();
        let _ = writeln!(out, "{:w$} |", "", w = n.len());
        let _ = writeln!(out, "{n} | {line}");
        let col = (pos.column.max(1) - 1) as usize;
        let caret = "^".repeat(pos.len.clamp(1, line.len().saturating_sub(col).max(1)));
        let _ = writeln!(out, "{:w$} | {:col$}{caret}", "", "", w = n.len());
    }
}

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
        Error::Io { .. } => {
            let _ = writeln!(out, "error: {e}");
        }
    }
}

/// Writes a command's output to stdout; a closed pipe (`| head`) is not an
/// error, another write failure is (exit 2).
pub fn emit(text: &str, stderr: &mut dyn Write) -> ExitCode {
    let stdout = &mut std::io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|_| stdout.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        let _ = writeln!(stderr, "error: writing the output: {e}");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
