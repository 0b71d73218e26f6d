//! Running the `podsim` binary on one fuzz case, bounded in time and memory,
//! and judging its outcome.
//!
//! Each test thread writes its inputs to one directory of its own (under
//! `$CARGO_TARGET_TMPDIR/fuzz-work`), which
//! every case empties first and the thread removes when it ends, so 100,000
//! cases leave no files behind. A failing case's files are copied to
//! `$CARGO_TARGET_TMPDIR/fuzz-failures/KIND/` (or under `$PODSIM_FUZZ_OUT`)
//! and the message gives the command that reproduces it there.

use std::cell::RefCell;
use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_podsim");
/// The crate root: the real inputs live under it.
pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The virtual memory a run may take, in KiB (`ulimit -v`).
const MEMORY_KIB: u64 = 4_000_000;

/// The case count: `PROPTEST_CASES` when set (a deeper run), else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// How long one run may take: `PODSIM_FUZZ_TIMEOUT` seconds, else 30 s in
/// release and 120 s in a debug build.
fn timeout() -> Duration {
    let default = if cfg!(debug_assertions) { 120 } else { 30 };
    Duration::from_secs(std::env::var("PODSIM_FUZZ_TIMEOUT").ok().and_then(|v| v.parse().ok()).unwrap_or(default))
}

/// Where failures and counts are kept: `$PODSIM_FUZZ_OUT`, else the target's temp dir.
pub fn out_dir() -> PathBuf {
    std::env::var_os("PODSIM_FUZZ_OUT").map_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")), PathBuf::from)
}

/// `PODSIM_FUZZ_SURVEY=1`: failures are counted by shape in the stats file
/// (with the first report of each) instead of failing the test, to collect
/// every kind of finding in one run.
fn survey() -> bool {
    std::env::var_os("PODSIM_FUZZ_SURVEY").is_some_and(|v| v == "1")
}

/// The event budget of every simulating case: a valid mutated input (a
/// scenario of a day, a client every millisecond) stops at 200,000 events
/// (exit 2, "reached its budget of N events at simulated time T") instead of
/// running for minutes.
pub const BUDGET: [&str; 2] = ["--max-events", "200000"];

/// This thread's input directory.
struct WorkDir(PathBuf);

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

thread_local! {
    static DIR: RefCell<Option<WorkDir>> = const { RefCell::new(None) };
}

/// This thread's input directory, emptied.
pub fn fresh_dir() -> PathBuf {
    DIR.with(|d| {
        let mut d = d.borrow_mut();
        let dir = d
            .get_or_insert_with(|| {
                let name = format!("podsim-fuzz-{}-{:?}", std::process::id(), std::thread::current().id());
                let name: String = name.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
                WorkDir(out_dir().join("fuzz-work").join(name))
            })
            .0
            .clone();
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the fuzz work dir");
        dir
    })
}

/// One invocation: its arguments and the input files it was given (written
/// under this thread's directory).
pub struct Case {
    pub kind: &'static str,
    pub dir: PathBuf,
    pub args: Vec<OsString>,
    /// Files written for this case, by name.
    pub inputs: Vec<(String, PathBuf)>,
    /// Other files the run reads (real models), whose names podsim may give.
    pub reads: Vec<PathBuf>,
}

impl Case {
    pub fn new(kind: &'static str) -> Case {
        Case { kind, dir: fresh_dir(), args: Vec::new(), inputs: Vec::new(), reads: Vec::new() }
    }

    /// Writes an input file and returns its path.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.join(name);
        fs::write(&path, bytes).expect("write a fuzz input");
        self.inputs.push((name.to_string(), path.clone()));
        path
    }

    /// An argument; a NUL byte becomes `0` (an argument cannot hold one: the
    /// kernel would cut it there), so stderr is judged against what ran.
    pub fn arg(&mut self, a: impl Into<OsString>) -> &mut Case {
        let a: OsString = a.into();
        self.args.push(OsString::from_vec(a.into_vec().into_iter().map(|b| if b == 0 { b'0' } else { b }).collect()));
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(&mut self, a: I) -> &mut Case {
        self.args.extend(a.into_iter().map(Into::into));
        self
    }

    /// A real file, given as an argument.
    pub fn real(&mut self, path: &Path) -> &mut Case {
        self.reads.push(path.to_path_buf());
        self.arg(path.as_os_str().to_owned())
    }

    /// Runs podsim and judges the outcome; the error is the report of a failure.
    pub fn check(&self) -> Result<Outcome, String> {
        let out = run(&self.dir, &self.args);
        let verdict = judge(&out, self);
        let how = match (&verdict, out.code) {
            (Ok(how), _) => how.to_string(),
            (Err(why), _) => why.split(':').next().unwrap_or("failed").to_string(),
        };
        super::stats::record(self.kind, &how, out.elapsed, || self.command_line(&self.dir));
        match verdict {
            Ok(_) => Ok(out),
            Err(why) if survey() => {
                super::stats::failure(self.kind, &why, &out.stderr, |n| {
                    self.report(&why, &out, &format!("{}/{n}", self.kind))
                });
                Ok(out)
            }
            Err(why) => Err(self.report(&why, &out, self.kind)),
        }
    }

    /// The command line, shell-quoted, with this case's directory as `dir`.
    fn command_line(&self, dir: &Path) -> String {
        let mut args = vec![BIN.to_string()];
        for a in &self.args {
            let mut a = a.clone().into_vec();
            let own = self.dir.as_os_str().as_encoded_bytes();
            if let Some(p) = a.windows(own.len()).position(|w| w == own) {
                a.splice(p..p + own.len(), dir.as_os_str().as_encoded_bytes().iter().copied());
            }
            args.push(shell_quote(&a));
        }
        args.join(" ")
    }

    /// What failed, the command to reproduce it and the inputs.
    fn report(&self, why: &str, out: &Outcome, to: &str) -> String {
        let keep = out_dir().join("fuzz-failures").join(to);
        let _ = fs::remove_dir_all(&keep);
        let _ = fs::create_dir_all(&keep);
        let mut text = format!(
            "{why}\nreproduce:\n  cd {} && (ulimit -v {MEMORY_KIB}; {})\n",
            shell_quote(keep.as_os_str().as_encoded_bytes()),
            self.command_line(&keep)
        );
        for (name, path) in &self.inputs {
            let bytes = fs::read(path).unwrap_or_default();
            let _ = fs::write(keep.join(name), &bytes);
            let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(6000)]).into_owned();
            text.push_str(&format!("--- {name} ({} bytes; saved in {}) ---\n{shown}\n", bytes.len(), keep.display()));
        }
        text.push_str(&format!("--- exit: {:?}, signal {:?}, {:.2?} ---\n", out.code, out.signal, out.elapsed));
        text.push_str(&format!("--- stderr (first 4000 bytes) ---\n{}\n", head(&out.stderr, 4000)));
        text.push_str(&format!("--- stdout (first 1000 bytes) ---\n{}\n", head(&out.stdout, 1000)));
        text
    }
}

fn head(s: &str, n: usize) -> &str {
    let end = s.char_indices().nth(n).map_or(s.len(), |(i, _)| i);
    &s[..end]
}

fn shell_quote(a: &[u8]) -> String {
    if !a.is_empty() && a.iter().all(|c| c.is_ascii_alphanumeric() || b"-_./=:@,+%".contains(c)) {
        return String::from_utf8_lossy(a).into_owned();
    }
    if a.iter().all(|c| (0x20..0x7f).contains(c)) {
        return format!("'{}'", String::from_utf8_lossy(a).replace('\'', "'\\''"));
    }
    // Bytes a terminal cannot show: bash's $'…' with escapes.
    let mut s = String::from("$'");
    for &c in a {
        match c {
            b'\'' | b'\\' => s.push_str(&format!("\\{}", c as char)),
            0x20..0x7f => s.push(c as char),
            _ => s.push_str(&format!("\\x{c:02x}")),
        }
    }
    s.push('\'');
    s
}

/// How a run ended.
pub struct Outcome {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

/// The first bytes of a pipe (64 KiB of stdout, 1 MiB of stderr); the rest is read and dropped.
fn drain(mut r: impl Read + Send + 'static, keep: usize) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 16384];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            let room = keep.saturating_sub(kept.len()).min(n);
            kept.extend_from_slice(&buf[..room]);
        }
        kept
    })
}

/// Runs podsim with `args` in `dir`, under `ulimit -v`, killed at the timeout.
pub fn run(dir: &Path, args: &[OsString]) -> Outcome {
    let start = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB}; exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "1")
        .env_remove("RUST_LOG")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sh");
    let out = drain(child.stdout.take().expect("stdout"), 64 << 10);
    let err = drain(child.stderr.take().expect("stderr"), 1 << 20);
    let limit = timeout();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for podsim") {
            break status;
        }
        if start.elapsed() > limit {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait for the killed podsim");
        }
        std::thread::sleep(Duration::from_millis(if start.elapsed() < Duration::from_millis(50) { 1 } else { 10 }));
    };
    let elapsed = start.elapsed();
    Outcome {
        code: status.code(),
        signal: status.signal(),
        timed_out,
        stdout: String::from_utf8_lossy(&out.join().expect("stdout reader")).into_owned(),
        stderr: String::from_utf8_lossy(&err.join().expect("stderr reader")).into_owned(),
        elapsed,
    }
}

/// Exit 0, 1 or 2, no panic, no signal, no timeout; on 2, stderr names a
/// file or a flag. Ok says how it ended, for the counts.
fn judge(out: &Outcome, case: &Case) -> Result<&'static str, String> {
    // `--color always` colours `error:`; the messages are judged without it.
    let plain = Outcome { stderr: strip_ansi(&out.stderr), stdout: String::new(), ..*out };
    let out = &plain;
    if out.timed_out {
        return Err(format!("TIMEOUT: podsim ran past {:?} and was killed", timeout()));
    }
    if let Some(sig) = out.signal {
        return Err(format!("SIGNAL: podsim was killed by signal {sig} (an abort, a crash or a failed allocation)"));
    }
    if (out.code == Some(101) || out.stderr.contains("panicked at")) && super::allowed::known_finding(&out.stderr) {
        return Ok("known finding");
    }
    if out.code == Some(101) || out.stderr.contains("panicked at") {
        return Err("PANIC: podsim panicked".into());
    }
    match out.code {
        Some(0) => Ok("exit 0"),
        Some(1) => Ok("exit 1"),
        Some(2) if names_file_or_flag(&out.stderr, case) => Ok("exit 2"),
        Some(2) if super::allowed::legit(&out.stderr) => Ok("exit 2, legitimately unnamed"),
        Some(2) if super::allowed::known_finding(&out.stderr) => Ok("exit 2, known finding"),
        Some(2) => Err("UNNAMED: exit 2 with a message that names no input file and no flag".into()),
        other => Err(format!("EXIT: podsim exited with {other:?}, not 0, 1 or 2")),
    }
}

/// `text` without ANSI escape sequences (ESC [ … letter).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// stderr names one of the case's files (its path or its file name), quotes
/// a path or a flag's value as given, or names a `--flag`.
fn names_file_or_flag(stderr: &str, case: &Case) -> bool {
    let files = case.inputs.iter().map(|(_, p)| p).chain(&case.reads);
    for f in files {
        if stderr.contains(&*f.to_string_lossy()) {
            return true;
        }
        if let Some(name) = f.file_name().map(|n| n.to_string_lossy())
            && stderr.contains(&*name)
        {
            return true;
        }
    }
    for (i, a) in case.args.iter().enumerate() {
        let a = a.to_string_lossy();
        let value = i > 0 && case.args[i - 1].to_string_lossy().starts_with('-');
        // A path or a flag's value as given (quoted, when it may be short or
        // empty; Rust-escaped, as `"/dev/nul\u{200d}l"`), or a file it cannot read.
        let escaped = a.escape_debug().to_string();
        let long = a.trim().len() >= 2;
        if (value || a.contains('/')) && long && (stderr.contains(&*a) || stderr.contains(&escaped)) {
            return true;
        }
        let quoted = [format!("\"{a}\""), format!("\"{escaped}\""), format!("error: {a}:")];
        if value && quoted.iter().any(|q| stderr.contains(q)) {
            return true;
        }
        if stderr.contains(&format!("cannot read {a}:")) {
            return true;
        }
        // `-f -`: the standard input, which podsim calls STDIN.
        if value && a == "-" && stderr.contains("STDIN") {
            return true;
        }
    }
    // A file another input names (a scenario's manifest): `error: /path…: …`.
    if stderr.lines().any(|l| l.strip_prefix("error: ").is_some_and(|r| r.starts_with('/') && r.contains(": "))) {
        return true;
    }
    // A flag: `--` then a letter (clap's `--until <UNTIL>`, podsim's `--kill pod/…:`).
    stderr.as_bytes().windows(3).any(|w| w[0] == b'-' && w[1] == b'-' && w[2].is_ascii_lowercase())
}

#[test]
fn colours_are_stripped_before_judging() {
    assert_eq!(strip_ansi("\u{1b}[1;31merror:\u{1b}[0m resource \"\""), "error: resource \"\"");
}
