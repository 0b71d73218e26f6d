//! The `podsim` command-line contract, tested by running the real binary.
//!
//! Exit codes: 0 the run completed; 1 the simulated trace broke a kubelet
//! invariant (not triggered here); 2 bad input. Bad input never panics, prints
//! nothing on stdout, and names the file, the line and the field:
//!
//! ```text
//! error: <file>:<line>:<col>: <field path>: <message>
//!    |
//! 14 | <the source line>
//!    |      ^^^
//! ```
//!
//! Messages follow the API server's wording where it has one
//! (pkg/apis/core/validation, apimachinery field errors, strict decoding,
//! component-base featuregate).
//!
//! Inputs are written to a fresh directory under the system temp dir per test.

use std::ffi::OsStr;
use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

mod actions;
mod behaviours;
mod book;
mod budgets;
mod check;
mod claims;
mod clusters;
mod config;
mod conventions;
mod daemonsets;
mod describe;
mod disruption;
mod exercises;
mod get;
mod images;
mod jobs;
mod kubelet_restart;
mod namespaces;
mod node_loss;
mod nodes;
mod oom;
mod ownership;
mod plot;
mod predict;
mod reboot;
mod report;
mod resources;
mod robustness;
mod runs;
mod scenarios;
mod services;
mod shrinking;
mod statefulsets;
mod sweeps;
mod syntax;
mod unsupported;
mod validation;
mod verify;

const BIN: &str = env!("CARGO_BIN_EXE_podsim");

/// A directory of input files, removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(test: &str) -> TempDir {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("podsim-cli-{}-{n}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the temp dir");
        TempDir(dir)
    }

    /// Writes `text` to `name` (which may contain directories) and returns its path.
    pub(crate) fn write(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent dirs");
        }
        fs::write(&path, text).expect("write an input file");
        path.to_str().expect("temp paths are UTF-8").to_string()
    }

    pub(crate) fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().expect("temp paths are UTF-8").to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The outcome of one `podsim` invocation.
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit code {:?}\n--- stderr ---\n{}--- stdout (first 2000 bytes) ---\n", self.code, self.stderr)?;
        let end = self.stdout.char_indices().nth(2000).map_or(self.stdout.len(), |(i, _)| i);
        write!(f, "{}", &self.stdout[..end])
    }
}

/// Runs the binary from the crate root (so `models/...` paths resolve), with backtraces on
/// so that a panic cannot go unnoticed, and without `CLICOLOR_FORCE`, which would colour
/// the pipes whose bytes the tests compare.
pub(crate) fn podsim<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_BACKTRACE", "1")
        .env_remove("RUST_LOG")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .expect("run podsim");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `podsim ARGS` with `input` on its standard input.
pub(crate) fn podsim_stdin<I, S>(args: I, input: &str) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_BACKTRACE", "1")
        .env_remove("RUST_LOG")
        .env_remove("CLICOLOR_FORCE")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run podsim");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("wait for podsim");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Nothing panicked.
pub(crate) fn assert_no_panic(run: &Run) {
    assert_ne!(run.code, Some(101), "podsim panicked: {run:?}");
    for marker in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(!run.stderr.contains(marker), "podsim panicked ({marker:?} in stderr): {run:?}");
    }
}

/// Exit code exactly 2, no panic, nothing simulated on stdout.
pub(crate) fn assert_bad_input(run: &Run) {
    assert_no_panic(run);
    assert_eq!(run.code, Some(2), "bad input must exit with 2: {run:?}");
    assert!(run.stdout.is_empty(), "nothing is printed on stdout for bad input: {run:?}");
    assert!(run.stderr.contains("error"), "stderr says what is wrong: {run:?}");
}

/// The 1-based number of the line of `text` that contains `needle`; there must be exactly one.
pub(crate) fn line_of(text: &str, needle: &str) -> u64 {
    nth_line_of(text, needle, 0, 1)
}

/// The 1-based number of the `n`-th (0-based) of `count` lines of `text` containing `needle`.
pub(crate) fn nth_line_of(text: &str, needle: &str, n: usize, count: usize) -> u64 {
    let lines: Vec<u64> =
        text.lines().enumerate().filter(|(_, l)| l.contains(needle)).map(|(i, _)| i as u64 + 1).collect();
    assert_eq!(lines.len(), count, "test input: {needle:?} should be on {count} line(s) of\n{text}");
    lines[n]
}

/// Checks a reported problem: a stderr line `<severity>: <file>:<line>:<col>: <rest>` where
/// `rest` starts with `expected` (`<field path>: <message>`), followed by the source line quoted
/// exactly and a caret under column `col`. Returns the column.
pub(crate) fn assert_problem(run: &Run, severity: &str, file: &str, line: u64, expected: &str) -> u64 {
    let head = format!("{severity}: {file}:{line}:");
    let lines: Vec<&str> = run.stderr.lines().collect();
    let Some(i) = lines.iter().position(|l| l.starts_with(&head) && l[head.len()..].contains(expected)) else {
        panic!("expected a line `{head}<col>: {expected}…` in stderr: {run:?}");
    };
    let rest = &lines[i][head.len()..];
    let (col, message) = rest.split_once(": ").unwrap_or_else(|| panic!("no column in {:?}", lines[i]));
    let col: u64 = col.parse().unwrap_or_else(|_| panic!("bad column {col:?} in {:?}", lines[i]));
    assert!(message.starts_with(expected), "expected `{expected}` right after file:line:col in {:?}", lines[i]);

    // The quoted source: ` |`, `<line> | <text>`, ` | <spaces>^^^`.
    let source = fs::read_to_string(file).expect("read the input back");
    let quoted = source.lines().nth(line as usize - 1).expect("the reported line exists in the file");
    let n = line.to_string();
    let pad = " ".repeat(n.len());
    assert_eq!(lines.get(i + 1).copied(), Some(format!("{pad} |").as_str()), "gutter line: {run:?}");
    assert_eq!(lines.get(i + 2).copied(), Some(format!("{n} | {quoted}").as_str()), "quoted line: {run:?}");
    let caret = lines.get(i + 3).copied().unwrap_or_default();
    let caret = caret.strip_prefix(&format!("{pad} | ")).unwrap_or_else(|| panic!("caret line: {run:?}"));
    assert!(caret.trim_start().starts_with('^'), "caret line: {run:?}");
    assert_eq!(caret.len() - caret.trim_start().len() + 1, col as usize, "caret under column {col}: {run:?}");
    col
}

/// Bad input reported as `error: <file>:<line>:<col>: <expected>…`; returns the column.
pub(crate) fn assert_error(run: &Run, file: &str, line: u64, expected: &str) -> u64 {
    assert_bad_input(run);
    let col = assert_problem(run, "error", file, line, expected);
    assert!(run.stderr.contains("error in the input; nothing was simulated"), "summary line: {run:?}");
    col
}

/// Runs `podsim run -f` on a pod with `snippet` added to its container and
/// expects one error at the line holding `anchor`.
pub(crate) fn manifest_error(tag: &str, snippet: &str, anchor: &str, expected: &str) {
    let dir = TempDir::new(tag);
    let text = pod_with(snippet);
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    assert_error(&run, &file, line_of(&text, anchor), expected);
}

/// A valid pod whose one container `app` ends the document, so a test can append its fields
/// (4 spaces of indentation) or pod-level fields (2 spaces).
pub(crate) const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: nginx:1.27
";

pub(crate) fn pod_with(extra: &str) -> String {
    format!("{POD}{extra}")
}
