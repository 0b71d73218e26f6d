//! Errors as values: every problem with the user's input names the file, the
//! line and the field, in the API server's words where it has any.

use std::fmt;
use std::sync::Arc;

/// A file podsim read, kept whole so an error can quote the offending line.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

/// Where in a source file something is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Position {
    pub line: u64,
    pub column: u64,
    /// Byte offset and length, for quoting the source.
    pub offset: usize,
    pub len: usize,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    /// What was read and what became of it, said once.
    Note,
}

/// One problem with an input: bad YAML, a wrong type, an invalid field, or a
/// warning about something accepted but simulated with a caveat.
#[derive(Clone, Debug)]
pub struct Problem {
    pub severity: Severity,
    pub file: Option<Arc<SourceFile>>,
    pub position: Option<Position>,
    /// The field path as the API server prints it (`spec.containers[0].image`).
    pub field: Option<String>,
    pub message: String,
}

impl Problem {
    pub fn error(message: impl Into<String>) -> Self {
        Problem { severity: Severity::Error, file: None, position: None, field: None, message: message.into() }
    }
    pub fn warning(message: impl Into<String>) -> Self {
        Problem { severity: Severity::Warning, ..Problem::error(message) }
    }
    pub fn note(message: impl Into<String>) -> Self {
        Problem { severity: Severity::Note, ..Problem::error(message) }
    }
    /// A problem at `line` of a file whose text is not kept (a stream).
    pub fn at_line(mut self, file: &str, line: u64) -> Self {
        self.file = Some(Arc::new(SourceFile { name: file.to_string(), text: String::new() }));
        self.position = Some(Position { line, column: 1, offset: 0, len: 0 });
        self
    }

    /// The same problem as a warning.
    pub fn warn(mut self) -> Self {
        self.severity = Severity::Warning;
        self
    }

    /// The same problem as a note: what podsim read and how it takes it.
    pub fn as_note(mut self) -> Self {
        self.severity = Severity::Note;
        self
    }
    pub fn in_file(mut self, file: &Arc<SourceFile>, position: Option<Position>) -> Self {
        self.file = Some(file.clone());
        self.position = position;
        self
    }
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The source line the problem points at, if known.
    pub fn source_line(&self) -> Option<&str> {
        let (file, pos) = (self.file.as_ref()?, self.position.as_ref()?);
        file.text.lines().nth(pos.line.checked_sub(1)? as usize)
    }
}

/// `pod.yaml:14:31: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1`
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}", file.name)?;
            if let Some(p) = &self.position {
                write!(f, ":{}:{}", p.line, p.column)?;
            }
            write!(f, ": ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        write!(f, "{}", self.message)
    }
}

/// Everything podsim can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The inputs are wrong; nothing was simulated (exit code 2).
    #[error("{} in the input", count(.0))]
    Input(Vec<Problem>),
    /// A file could not be read (exit code 2).
    #[error("cannot read {path}: {source}")]
    Io { path: String, source: std::io::Error },
}

fn count(problems: &[Problem]) -> String {
    let n = problems.iter().filter(|p| p.is_error()).count();
    if n == 1 { "1 error".to_string() } else { format!("{n} errors") }
}

impl Error {
    pub fn input(problem: Problem) -> Self {
        Error::Input(vec![problem])
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
