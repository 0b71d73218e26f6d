//! Timed evaluation: a deterministic machine that runs a parsed script in
//! simulated milliseconds against the small file system, records every state
//! the file system takes, and, when asked, delivers one SIGTERM to PID 1.

use super::Unsupported;
use super::fs::{Fs, FsError, Node, normalize};
use super::parse::{self, Cmd, Part, Redir, RedirOp, Simple, Word};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::hash::{Hash, Hasher};

/// The most evaluation steps (commands, loop iterations) one run takes
/// before it is refused as too long to interpret.
pub const MAX_STEPS: u64 = 100_000;
/// Simulated time past which a process is taken to run forever: 100 days, in ms.
pub const HORIZON: u64 = 100 * 24 * 3600 * 1000;
/// The deepest nesting of subshells, substitutions, traps, `eval` and `sh -c`.
const MAX_NEST: u32 = 32;
/// The most file-system states one run records.
const MAX_SNAPS: usize = 10_000;
/// How many earlier iterations a loop's state is compared with.
const HISTORY: usize = 64;
/// The most output kept per stream.
const OUTPUT_CAP: usize = 64 * 1024;

/// Why a run stopped before its process exited.
#[derive(Debug)]
pub(crate) enum Halt {
    Unsupported(Unsupported),
    /// The process never exits by itself.
    Forever,
    /// The SIGTERM being simulated was ignored by PID 1.
    SignalIgnored,
}

impl From<Unsupported> for Halt {
    fn from(u: Unsupported) -> Halt {
        Halt::Unsupported(u)
    }
}

type R<T> = Result<T, Halt>;

fn unsupported<T>(what: impl Into<String>) -> R<T> {
    Err(Halt::Unsupported(Unsupported::new(what)))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Next,
    Break(u32),
    Continue(u32),
    Exit,
}

/// Where a file descriptor writes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Target {
    Stdout,
    Stderr,
    Null,
    File(String),
    /// The innermost command substitution.
    Capture,
}

/// One shell (or utility) process's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Proc {
    vars: BTreeMap<String, String>,
    exported: BTreeSet<String>,
    pub(crate) status: i32,
    /// `None`: default disposition; `Some("")`: ignored; else the action.
    trap_term: Option<String>,
    trap_exit: Option<String>,
    /// End times of background jobs (`None`: never ends).
    jobs: Vec<Option<u64>>,
    fds: [Target; 3],
    /// `$0`, `$1`, …
    args: Vec<String>,
    errexit: bool,
    /// This shell is the container's PID 1.
    pid1: bool,
    /// While a trap action runs: `$?` before it (what a bare `exit` uses).
    trap_status: Option<i32>,
}

impl Proc {
    pub(crate) fn new(env: &[(String, String)]) -> Proc {
        let mut vars = BTreeMap::new();
        for (k, v) in
            [("HOME", "/root"), ("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"), ("PWD", "/")]
        {
            vars.insert(k.to_string(), v.to_string());
        }
        for (k, v) in env {
            vars.insert(k.clone(), v.clone());
        }
        let exported = vars.keys().cloned().collect();
        Proc {
            vars,
            exported,
            status: 0,
            trap_term: None,
            trap_exit: None,
            jobs: Vec::new(),
            fds: [Target::Null, Target::Stdout, Target::Stderr],
            args: vec!["sh".to_string()],
            errexit: false,
            pid1: false,
            trap_status: None,
        }
    }

    /// A `( … )` or `$( … )` child: a copy, with caught traps reset (POSIX
    /// XCU 2.12: traps not ignored are set to the default in a subshell).
    fn subshell(&self) -> Proc {
        let mut c = self.clone();
        c.pid1 = false;
        c.jobs.clear();
        c.trap_status = None;
        for t in [&mut c.trap_term, &mut c.trap_exit] {
            if t.as_deref().is_some_and(|a| !a.is_empty()) {
                *t = None;
            }
        }
        c
    }

    /// A new program's process (`sh -c` run from the script): the exported
    /// variables, the descriptors.
    fn child(&self) -> Proc {
        let env: Vec<(String, String)> =
            self.exported.iter().filter_map(|k| Some((k.clone(), self.vars.get(k)?.clone()))).collect();
        let mut c = Proc::new(&env);
        c.fds = self.fds.clone();
        c
    }
}

/// What a loop iteration's future depends on: equal keys, equal futures.
#[derive(PartialEq, Eq, Hash)]
struct Key {
    proc: Proc,
    fs: Fs,
    pending: bool,
    catches: bool,
}

pub(crate) struct Machine {
    fs: Fs,
    pub(crate) now: u64,
    steps: u64,
    nest: u32,
    loops: u32,
    /// When the SIGTERM being simulated arrives, until PID 1 takes it.
    signal: Option<u64>,
    /// PID 1 is a shell with a TERM trap that runs a command.
    catches: bool,
    record: bool,
    pub(crate) snaps: Vec<(u64, Fs)>,
    pub(crate) tail: Option<(u64, u64)>,
    stdout: String,
    stderr: String,
    captures: Vec<String>,
    subst_status: Option<i32>,
    /// Variables the loop detector leaves out (see [`super::relevance`]).
    output_only: BTreeSet<String>,
}

fn push_capped(buf: &mut String, text: &str) {
    for c in text.chars() {
        if buf.len() + c.len_utf8() > OUTPUT_CAP {
            return;
        }
        buf.push(c);
    }
}

/// `/bin/X`, `/usr/bin/X`, `/sbin/X`, … name the utility `X`.
fn base(name: &str) -> &str {
    for pre in ["/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/", "/usr/local/bin/"] {
        if let Some(r) = name.strip_prefix(pre)
            && !r.contains('/')
        {
            return r;
        }
    }
    name
}

fn is_shell(name: &str) -> bool {
    matches!(base(name), "sh" | "bash" | "ash" | "dash")
}

/// Shell builtins that are no program a container or probe could run.
const BUILTIN_ONLY: [&str; 14] =
    [":", "exit", "exec", "trap", "wait", "break", "continue", "export", "unset", "set", "eval", "readonly", "cd", "."];

fn hash_of(k: &Key) -> u64 {
    let mut h = DefaultHasher::new();
    k.hash(&mut h);
    h.finish()
}

/// busybox `sleep`'s duration: decimal seconds with an optional `s`, `m`,
/// `h` or `d` suffix; `inf`/`infinity` never ends (`None`). Rounded up to
/// the millisecond.
pub(crate) fn parse_duration(s: &str) -> Result<Option<u64>, ()> {
    if s.eq_ignore_ascii_case("inf") || s.eq_ignore_ascii_case("infinity") {
        return Ok(None);
    }
    let (num, unit): (&str, u128) = match s.as_bytes().last() {
        Some(b's') => (&s[..s.len() - 1], 1000),
        Some(b'm') => (&s[..s.len() - 1], 60_000),
        Some(b'h') => (&s[..s.len() - 1], 3_600_000),
        Some(b'd') => (&s[..s.len() - 1], 86_400_000),
        _ => (s, 1000),
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        || int.len() + frac.len() > 30
    {
        return Err(());
    }
    let digits: u128 = format!("{int}{frac}").parse().map_err(|_| ())?;
    let scale = 10u128.pow(frac.len() as u32);
    let ms = (digits * unit).div_ceil(scale);
    Ok((ms <= HORIZON as u128).then_some(ms as u64))
}

impl Machine {
    /// A machine on `fs`; `signal`: when a SIGTERM reaches PID 1; `record`:
    /// keep every file-system state (the main run).
    pub(crate) fn new(fs: Fs, signal: Option<u64>, record: bool) -> Machine {
        let snaps = if record { vec![(0, fs.clone())] } else { Vec::new() };
        Machine {
            fs,
            now: 0,
            steps: 0,
            nest: 0,
            loops: 0,
            signal,
            catches: false,
            record,
            snaps,
            tail: None,
            stdout: String::new(),
            stderr: String::new(),
            captures: Vec::new(),
            subst_status: None,
            output_only: BTreeSet::new(),
        }
    }

    /// Standard output then standard error.
    pub(crate) fn output(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// The container's main process, as PID 1.
    pub(crate) fn run_main(&mut self, p: &mut Proc, argv: &[String]) -> R<()> {
        p.pid1 = is_shell(&argv[0]);
        self.run_program(p, argv)
    }

    /// A process that is not PID 1 (an exec probe, a hook).
    pub(crate) fn run_child(&mut self, p: &mut Proc, argv: &[String]) -> R<()> {
        p.pid1 = false;
        self.run_program(p, argv)
    }

    fn run_program(&mut self, p: &mut Proc, argv: &[String]) -> R<()> {
        if is_shell(&argv[0]) {
            return self.shell(p, argv);
        }
        if BUILTIN_ONLY.contains(&argv[0].as_str()) {
            return unsupported(format!("\"{}\" is a shell builtin, not a program a container runs", argv[0]));
        }
        self.command(p, argv)?;
        Ok(())
    }

    /// `sh [-e] [-x] -c SCRIPT [$0 [$1 …]]`, or `sh` alone.
    fn shell(&mut self, p: &mut Proc, argv: &[String]) -> R<()> {
        let mut i = 1;
        let mut c = false;
        while let Some(a) = argv.get(i)
            && a.len() > 1
            && a.starts_with('-')
        {
            i += 1;
            if a == "--" {
                break;
            }
            for ch in a[1..].chars() {
                match ch {
                    'c' => c = true,
                    'e' => p.errexit = true,
                    'x' | 'l' => {}
                    _ => return unsupported(format!("the shell option -{ch}")),
                }
            }
        }
        if !c {
            if let Some(file) = argv.get(i) {
                return unsupported(format!("the script file \"{file}\" (only `sh -c` scripts are read)"));
            }
            // A container has no terminal and an empty standard input: the
            // shell reads end-of-file at once and exits 0.
            p.status = 0;
            return Ok(());
        }
        let Some(script) = argv.get(i) else {
            self.err(p, "sh: -c requires an argument")?;
            p.status = 2;
            return Ok(());
        };
        p.args = match argv.get(i + 1..) {
            Some(rest) if !rest.is_empty() => rest.to_vec(),
            _ => vec![argv[0].clone()],
        };
        let cmd = parse::parse(script)?;
        if self.nest == 0 {
            self.output_only = super::relevance::output_only(&cmd);
        }
        self.eval(p, &cmd, false)?;
        self.finish(p)
    }

    /// Runs the EXIT trap, if any, as the shell exits.
    fn finish(&mut self, p: &mut Proc) -> R<()> {
        if let Some(action) = p.trap_exit.take()
            && !action.is_empty()
        {
            let before = p.status;
            if self.run_action(p, &action, before)? != Flow::Exit {
                p.status = before;
            }
        }
        Ok(())
    }

    fn run_action(&mut self, p: &mut Proc, action: &str, before: i32) -> R<Flow> {
        let cmd = parse::parse(action)?;
        self.enter()?;
        let prev = p.trap_status.replace(before);
        let f = self.eval(p, &cmd, false)?;
        p.trap_status = prev;
        self.nest -= 1;
        Ok(f)
    }

    fn enter(&mut self) -> R<()> {
        self.nest += 1;
        if self.nest > MAX_NEST {
            return unsupported(format!("subshells, traps or `eval` nested deeper than {MAX_NEST}"));
        }
        Ok(())
    }

    fn step(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return unsupported(format!("the script is too long to interpret (over {MAX_STEPS} steps)"));
        }
        Ok(())
    }

    /// Records the file system as it is now (the last state of an instant wins).
    fn changed(&mut self) -> R<()> {
        if !self.record {
            return Ok(());
        }
        if self.snaps.last().is_some_and(|(t, _)| *t == self.now) {
            self.snaps.pop();
        }
        if self.snaps.last().is_some_and(|(_, f)| *f == self.fs) {
            return Ok(());
        }
        if self.snaps.len() >= MAX_SNAPS {
            return unsupported(format!(
                "the script is too long to interpret (its files change over {MAX_SNAPS} times)"
            ));
        }
        self.snaps.push((self.now, self.fs.clone()));
        Ok(())
    }

    /// Lets time pass to `end` (`None`: never) in a blocking call. True when a
    /// trapped SIGTERM interrupts it (`wait`, when `interruptible`).
    ///
    /// While PID 1 blocks, its disposition is fixed, so the signal's fate is
    /// known when it arrives: dropped by the kernel when PID 1 does not catch
    /// it (an init ignores default-disposition signals), else pending.
    fn advance(&mut self, p: &Proc, end: Option<u64>, interruptible: bool) -> R<bool> {
        let end = end.filter(|e| *e <= HORIZON);
        if let Some(ts) = self.signal
            && end.is_none_or(|e| ts < e)
        {
            if !self.catches {
                return Err(Halt::SignalIgnored);
            }
            // POSIX `wait`: a trapped signal makes it return (>128) at once.
            if interruptible && p.pid1 {
                self.now = self.now.max(ts);
                return Ok(true);
            }
            // Else POSIX XCU 2.11: the trap waits for the foreground command.
        }
        match end {
            None => Err(Halt::Forever),
            Some(e) => {
                self.now = self.now.max(e);
                Ok(false)
            }
        }
    }

    /// After each command of PID 1: runs the TERM trap if the signal came.
    fn check_signal(&mut self, p: &mut Proc) -> R<Flow> {
        match self.signal {
            Some(ts) if ts <= self.now => self.signal = None,
            _ => return Ok(Flow::Next),
        }
        if !self.catches {
            return Err(Halt::SignalIgnored);
        }
        let action = p.trap_term.clone().unwrap_or_default();
        let before = p.status;
        match self.run_action(p, &action, before)? {
            Flow::Exit => Ok(Flow::Exit),
            _ => {
                // POSIX: `$?` after a trap is its value before.
                p.status = before;
                Ok(Flow::Next)
            }
        }
    }

    fn after(&mut self, p: &mut Proc, tested: bool) -> R<Flow> {
        if p.pid1 {
            let f = self.check_signal(p)?;
            if f != Flow::Next {
                return Ok(f);
            }
        }
        // `set -e` (POSIX `set`): not in conditions nor `&&`/`||` left operands.
        if p.errexit && !tested && p.status != 0 {
            return Ok(Flow::Exit);
        }
        Ok(Flow::Next)
    }

    fn key(&self, p: &Proc) -> Key {
        let mut proc = p.clone();
        proc.vars.retain(|k, _| !self.output_only.contains(k));
        proc.jobs = p
            .jobs
            .iter()
            .filter_map(|j| match j {
                Some(e) if *e <= self.now => None,
                Some(e) => Some(Some(e - self.now)),
                None => Some(None),
            })
            .collect();
        proc.jobs.sort();
        Key { proc, fs: self.fs.clone(), pending: self.signal.is_some(), catches: self.catches }
    }

    fn eval(&mut self, p: &mut Proc, c: &Cmd, tested: bool) -> R<Flow> {
        self.step()?;
        match c {
            Cmd::Simple(s) => self.simple(p, s, tested),
            Cmd::List(items) => {
                for c in items {
                    let f = self.eval(p, c, tested)?;
                    if f != Flow::Next {
                        return Ok(f);
                    }
                }
                Ok(Flow::Next)
            }
            Cmd::AndOr(first, rest) => {
                let mut f = self.eval(p, first, true)?;
                for (k, (and, c)) in rest.iter().enumerate() {
                    if f != Flow::Next {
                        return Ok(f);
                    }
                    if (p.status == 0) == *and {
                        f = self.eval(p, c, tested || k + 1 < rest.len())?;
                    }
                }
                Ok(f)
            }
            Cmd::Not(c) => {
                let f = self.eval(p, c, true)?;
                if f == Flow::Next {
                    p.status = i32::from(p.status == 0);
                }
                Ok(f)
            }
            Cmd::Background(c) => self.background(p, c),
            Cmd::Group(c, rs) => self.redirected(p, rs, |m, p| m.eval(p, c, tested)),
            Cmd::Subshell(c, rs) => {
                let f = self.redirected(p, rs, |m, p| m.subshell(p, c))?;
                if f != Flow::Next {
                    return Ok(f);
                }
                self.after(p, tested)
            }
            Cmd::If(arms, otherwise, rs) => self.redirected(p, rs, |m, p| {
                for (cond, body) in arms {
                    let f = m.eval(p, cond, true)?;
                    if f != Flow::Next {
                        return Ok(f);
                    }
                    if p.status == 0 {
                        return m.eval(p, body, tested);
                    }
                }
                match otherwise {
                    Some(b) => m.eval(p, b, tested),
                    None => {
                        p.status = 0;
                        Ok(Flow::Next)
                    }
                }
            }),
            Cmd::Loop { until, cond, body, redirs } => {
                self.redirected(p, redirs, |m, p| m.run_loop(p, *until, cond, body, tested))
            }
            Cmd::For { var, items, body, redirs } => self.redirected(p, redirs, |m, p| {
                let words = match items {
                    Some(items) => {
                        let mut v = Vec::new();
                        for w in items {
                            v.extend(m.expand(p, w)?);
                        }
                        v
                    }
                    None => p.args[1..].to_vec(),
                };
                let mut status = 0;
                m.loops += 1;
                let mut out = Flow::Next;
                for w in words {
                    m.step()?;
                    p.vars.insert(var.clone(), w);
                    match m.eval(p, body, tested)? {
                        Flow::Next | Flow::Continue(1) => status = p.status,
                        Flow::Break(1) => {
                            status = 0;
                            break;
                        }
                        Flow::Break(n) => {
                            out = Flow::Break(n - 1);
                            break;
                        }
                        Flow::Continue(n) => {
                            out = Flow::Continue(n - 1);
                            break;
                        }
                        Flow::Exit => {
                            out = Flow::Exit;
                            break;
                        }
                    }
                }
                m.loops -= 1;
                if out == Flow::Next {
                    p.status = status;
                }
                Ok(out)
            }),
        }
    }

    fn redirected(
        &mut self,
        p: &mut Proc,
        rs: &[Redir],
        f: impl FnOnce(&mut Machine, &mut Proc) -> R<Flow>,
    ) -> R<Flow> {
        if rs.is_empty() {
            return f(self, p);
        }
        let saved = p.fds.clone();
        if self.redirect(p, rs)?.is_err() {
            p.fds = saved;
            p.status = 1;
            return Ok(Flow::Next);
        }
        let r = f(self, p);
        p.fds = saved;
        r
    }

    /// `while`/`until`. An iteration that starts in a state an earlier one
    /// started in (within [`HISTORY`] iterations) makes the loop periodic:
    /// the machine is deterministic, so it repeats forever with that period.
    /// With a SIGTERM pending, whole periods are skipped up to its arrival.
    fn run_loop(&mut self, p: &mut Proc, until: bool, cond: &Cmd, body: &Cmd, tested: bool) -> R<Flow> {
        let mut seen: VecDeque<(u64, u64, Key)> = VecDeque::new();
        let mut status = 0;
        self.loops += 1;
        let out = loop {
            let key = self.key(p);
            let h = hash_of(&key);
            if let Some(t0) = seen.iter().find(|(hh, _, k)| *hh == h && *k == key).map(|e| e.1) {
                let period = self.now - t0;
                match self.signal {
                    None => {
                        if self.record && self.tail.is_none() {
                            self.tail = Some((t0, period));
                        }
                        return Err(Halt::Forever);
                    }
                    // PID 1 waits for this subshell, which never ends.
                    Some(_) if !p.pid1 => {
                        return Err(if self.catches { Halt::Forever } else { Halt::SignalIgnored });
                    }
                    Some(ts) => {
                        if period == 0 {
                            self.now = self.now.max(ts);
                        } else if ts > self.now {
                            self.now += (ts - self.now) / period * period;
                        }
                        seen.clear();
                    }
                }
            }
            seen.push_back((h, self.now, key));
            if seen.len() > HISTORY {
                seen.pop_front();
            }
            let f = self.eval(p, cond, true)?;
            if f != Flow::Next {
                break f;
            }
            if (p.status == 0) == until {
                p.status = status;
                break Flow::Next;
            }
            match self.eval(p, body, tested)? {
                Flow::Next | Flow::Continue(1) => status = p.status,
                Flow::Break(1) => {
                    p.status = 0;
                    break Flow::Next;
                }
                Flow::Break(n) => break Flow::Break(n - 1),
                Flow::Continue(n) => break Flow::Continue(n - 1),
                Flow::Exit => break Flow::Exit,
            }
        };
        self.loops -= 1;
        Ok(out)
    }

    fn subshell(&mut self, p: &mut Proc, c: &Cmd) -> R<Flow> {
        self.enter()?;
        let mut child = p.subshell();
        self.eval(&mut child, c, false)?;
        self.finish(&mut child)?;
        self.nest -= 1;
        p.status = child.status;
        Ok(Flow::Next)
    }

    /// `CMD &`: a background `sleep` is a job `wait` waits for; another
    /// simple command runs at once (it must take no time); anything else is
    /// unsupported (its effects would interleave with the script's).
    fn background(&mut self, p: &mut Proc, c: &Cmd) -> R<Flow> {
        let Cmd::Simple(s) = c else {
            return unsupported("a background `&` list other than a simple command");
        };
        let mut child = p.subshell();
        if s.words.first().and_then(Word::literal).map(base) == Some("sleep") && s.redirs.is_empty() {
            let mut argv = Vec::new();
            for w in &s.words {
                argv.extend(self.expand(&mut child, w)?);
            }
            let mut total = Some(0u64);
            for a in &argv[1..] {
                match parse_duration(a) {
                    Ok(d) => total = total.zip(d).map(|(t, d)| t.saturating_add(d)),
                    Err(()) => {
                        self.err(p, &format!("sleep: invalid number '{a}'"))?;
                        total = Some(0);
                        break;
                    }
                }
            }
            p.jobs.push(total.map(|t| self.now.saturating_add(t)).filter(|e| *e <= HORIZON));
        } else {
            let start = self.now;
            self.enter()?;
            self.eval(&mut child, c, false)?;
            self.nest -= 1;
            if self.now != start {
                return unsupported("a background command that takes time other than `sleep`");
            }
        }
        p.status = 0;
        Ok(Flow::Next)
    }

    fn simple(&mut self, p: &mut Proc, s: &Simple, tested: bool) -> R<Flow> {
        self.subst_status = None;
        let mut argv = Vec::new();
        for w in &s.words {
            argv.extend(self.expand(p, w)?);
        }
        if argv.is_empty() {
            for (name, w) in &s.assigns {
                let v = self.expand_one(p, w)?;
                p.vars.insert(name.clone(), v);
            }
            let status = self.subst_status.unwrap_or(0);
            let saved = p.fds.clone();
            let ok = self.redirect(p, &s.redirs)?;
            p.fds = saved;
            p.status = if ok.is_err() { 1 } else { status };
            return self.after(p, tested);
        }
        // `X=1 cmd`: the command's environment only; no utility here reads it.
        for (_, w) in &s.assigns {
            self.expand_one(p, w)?;
        }
        let saved = p.fds.clone();
        let flow = match self.redirect(p, &s.redirs)? {
            Err(()) => {
                p.status = 1;
                Flow::Next
            }
            Ok(()) => self.command(p, &argv)?,
        };
        // `exec >file` keeps its redirections for the rest of the shell.
        if !(argv.len() == 1 && argv[0] == "exec") {
            p.fds = saved;
        }
        if flow != Flow::Next {
            return Ok(flow);
        }
        self.after(p, tested)
    }

    // ---- expansion ----

    fn param(&self, p: &Proc, name: &str) -> R<String> {
        Ok(match name {
            "?" => p.status.to_string(),
            "#" => (p.args.len() - 1).to_string(),
            "$" => "1".to_string(),
            "-" => String::new(),
            "!" => return unsupported("`$!` (background process ids)"),
            "@" | "*" => p.args[1..].join(" "),
            n if n.bytes().all(|b| b.is_ascii_digit()) => {
                n.parse::<usize>().ok().and_then(|i| p.args.get(i)).cloned().unwrap_or_default()
            }
            n => p.vars.get(n).cloned().unwrap_or_default(),
        })
    }

    /// A word's fields: expansions, then field splitting of unquoted results
    /// on blanks (default IFS), then pathname expansion of unquoted `*`/`?`.
    fn expand(&mut self, p: &mut Proc, w: &Word) -> R<Vec<String>> {
        let mut fields = Vec::new();
        let mut cur: Option<String> = None;
        let mut glob = false;
        for part in &w.0 {
            match part {
                Part::Lit(s) => {
                    glob |= s.contains(['*', '?']);
                    cur.get_or_insert_with(String::new).push_str(s)
                }
                Part::Quoted(s) => cur.get_or_insert_with(String::new).push_str(s),
                Part::Param { name, quoted: true } if name == "@" => {
                    for (k, a) in p.args[1..].iter().enumerate() {
                        if k > 0 {
                            fields.push(cur.take().unwrap_or_default());
                        }
                        cur.get_or_insert_with(String::new).push_str(a);
                    }
                }
                Part::Param { name, quoted } => {
                    let v = self.param(p, name)?;
                    split_into(&mut fields, &mut cur, &v, *quoted);
                }
                Part::Arith { expr, quoted } => {
                    let v = self.arith(p, expr)?.to_string();
                    split_into(&mut fields, &mut cur, &v, *quoted);
                }
                Part::Subst { cmd, quoted } => {
                    let v = self.subst(p, cmd)?;
                    split_into(&mut fields, &mut cur, &v, *quoted);
                }
            }
        }
        fields.extend(cur);
        if glob {
            if w.0.len() != 1 {
                return unsupported("pathname expansion (`*`, `?`) in a word with quotes or expansions");
            }
            let matches = self.glob(&fields[0]);
            if !matches.is_empty() {
                return Ok(matches);
            }
        }
        Ok(fields)
    }

    /// A word as one string (assignments, redirection targets).
    fn expand_one(&mut self, p: &mut Proc, w: &Word) -> R<String> {
        let mut s = String::new();
        for part in &w.0 {
            match part {
                Part::Lit(t) | Part::Quoted(t) => s.push_str(t),
                Part::Param { name, .. } => s.push_str(&self.param(p, name)?),
                Part::Arith { expr, .. } => s.push_str(&self.arith(p, expr)?.to_string()),
                Part::Subst { cmd, .. } => s.push_str(&self.subst(p, cmd)?),
            }
        }
        Ok(s)
    }

    /// Pathname expansion against the file system: sorted matches, or none.
    fn glob(&self, pattern: &str) -> Vec<String> {
        let absolute = pattern.starts_with('/');
        let mut found = vec![if absolute { "/".to_string() } else { String::new() }];
        for seg in pattern.split('/').filter(|s| !s.is_empty()) {
            let mut next = Vec::new();
            for dir in &found {
                let key = if dir.is_empty() { "/".to_string() } else { normalize(dir).unwrap_or_default() };
                let join = |n: &str| {
                    if dir.is_empty() || dir.ends_with('/') { format!("{dir}{n}") } else { format!("{dir}/{n}") }
                };
                if seg.contains(['*', '?']) {
                    if !self.fs.is_dir(&key) {
                        continue;
                    }
                    for name in self.fs.children(&key) {
                        if !name.starts_with('.') && wildcard(seg.as_bytes(), name.as_bytes()) {
                            next.push(join(&name));
                        }
                    }
                } else {
                    let path = join(seg);
                    if self.fs.get(&path).is_some() {
                        next.push(path);
                    }
                }
            }
            found = next;
        }
        if found.iter().any(|f| f.is_empty() || f == "/") {
            return Vec::new();
        }
        found
    }

    fn subst(&mut self, p: &mut Proc, cmd: &Cmd) -> R<String> {
        self.enter()?;
        let mut child = p.subshell();
        child.fds[1] = Target::Capture;
        self.captures.push(String::new());
        self.eval(&mut child, cmd, false)?;
        self.finish(&mut child)?;
        let out = self.captures.pop().unwrap_or_default();
        self.nest -= 1;
        self.subst_status = Some(child.status);
        Ok(out.trim_end_matches('\n').to_string())
    }

    /// `$((…))`: integers with `+ - * / %`, comparisons and parentheses.
    fn arith(&mut self, p: &Proc, expr: &str) -> R<i64> {
        // Parameter expansion first (POSIX), then the expression.
        let mut text = String::new();
        let b = expr.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'$' {
                let (name, next) = if b.get(i + 1) == Some(&b'{') {
                    let end = expr[i..].find('}').map(|e| e + i).unwrap_or(b.len());
                    (&expr[(i + 2).min(end)..end], end + 1)
                } else {
                    let mut j = i + 1;
                    if b.get(j).is_some_and(|c| c.is_ascii_digit() || b"?#".contains(c)) {
                        j += 1;
                    } else {
                        while b.get(j).is_some_and(|c| *c == b'_' || c.is_ascii_alphanumeric()) {
                            j += 1;
                        }
                    }
                    (&expr[i + 1..j], j)
                };
                if name.is_empty() || b.get(i + 1) == Some(&b'(') {
                    return unsupported(format!("the arithmetic expression `{expr}`"));
                }
                text.push_str(&self.param(p, name)?);
                i = next;
            } else {
                text.push(b[i] as char);
                i += 1;
            }
        }
        let mut a = Arith { s: text.as_bytes(), i: 0, vars: &p.vars, expr };
        let v = a.expr(0)?;
        a.blanks();
        if a.i < a.s.len() {
            return unsupported(format!("the arithmetic expression `{expr}`"));
        }
        Ok(v)
    }

    // ---- output and redirection ----

    fn write(&mut self, p: &Proc, fd: usize, text: &str) -> R<()> {
        match &p.fds[fd] {
            Target::Stdout => push_capped(&mut self.stdout, text),
            Target::Stderr => push_capped(&mut self.stderr, text),
            Target::Null => {}
            Target::Capture => {
                if let Some(c) = self.captures.last_mut() {
                    push_capped(c, text);
                }
            }
            Target::File(key) => {
                if self.fs.append(key, text) {
                    self.changed()?;
                }
            }
        }
        Ok(())
    }

    fn out(&mut self, p: &Proc, text: &str) -> R<()> {
        self.write(p, 1, text)
    }

    fn err(&mut self, p: &Proc, line: &str) -> R<()> {
        self.write(p, 2, &format!("{line}\n"))
    }

    /// Applies redirections to `p.fds`; `Err(())` after printing ash's message
    /// when a file cannot be created.
    fn redirect(&mut self, p: &mut Proc, rs: &[Redir]) -> R<Result<(), ()>> {
        for r in rs {
            let target = self.expand_one(p, &r.target)?;
            let fd = r.fd as usize;
            if fd > 2 {
                return unsupported(format!("the file descriptor {}", r.fd));
            }
            if r.op == RedirOp::Dup {
                match target.as_str() {
                    "0" | "1" | "2" => p.fds[fd] = p.fds[target.parse::<usize>().unwrap()].clone(),
                    _ => return unsupported(format!("the redirection `{}>&{target}`", r.fd)),
                }
                continue;
            }
            let t = match target.as_str() {
                "/dev/stdout" | "/proc/self/fd/1" => p.fds[1].clone(),
                "/dev/stderr" | "/proc/self/fd/2" => p.fds[2].clone(),
                // The container's own output (its log), which podsim does not keep.
                "/proc/1/fd/1" | "/proc/1/fd/2" => Target::Null,
                _ => match self.fs.open(&target, r.op == RedirOp::Write) {
                    Ok(None) => Target::Null,
                    Ok(Some(key)) => {
                        self.changed()?;
                        Target::File(key)
                    }
                    Err(FsError::Full) => return full(),
                    Err(e) => {
                        let why = if e == FsError::IsDir { "Is a directory" } else { "nonexistent directory" };
                        self.err(p, &format!("sh: can't create {target}: {why}"))?;
                        return Ok(Err(()));
                    }
                },
            };
            p.fds[fd] = t;
        }
        Ok(Ok(()))
    }

    // ---- commands ----

    fn command(&mut self, p: &mut Proc, argv: &[String]) -> R<Flow> {
        let name = base(&argv[0]);
        let args = &argv[1..];
        match name {
            "sleep" => self.sleep(p, args)?,
            ":" | "true" => p.status = 0,
            "false" => p.status = 1,
            "exit" => {
                p.status = match args.first() {
                    None => p.trap_status.unwrap_or(p.status),
                    Some(a) => match a.parse::<i64>() {
                        Ok(n) if n >= 0 => (n & 255) as i32,
                        _ => {
                            self.err(p, &format!("sh: exit: Illegal number: {a}"))?;
                            2
                        }
                    },
                };
                return Ok(Flow::Exit);
            }
            "exec" => return self.exec(p, args),
            "trap" => return self.trap(p, args),
            "break" | "continue" => {
                let n = match args.first().map(|a| a.parse::<u32>()) {
                    None => 1,
                    Some(Ok(n)) if n > 0 => n,
                    Some(_) => {
                        self.err(p, &format!("sh: {name}: Illegal number: {}", args[0]))?;
                        p.status = 2;
                        return Ok(Flow::Exit);
                    }
                };
                p.status = 0;
                if self.loops == 0 {
                    return Ok(Flow::Next);
                }
                let n = n.min(self.loops);
                return Ok(if name == "break" { Flow::Break(n) } else { Flow::Continue(n) });
            }
            "wait" => {
                if p.jobs.is_empty() {
                    p.status = 0;
                } else {
                    let end = if p.jobs.contains(&None) { None } else { p.jobs.iter().flatten().copied().max() };
                    if self.advance(p, end.map(|e| e.max(self.now)), true)? {
                        p.status = 128 + 15;
                    } else {
                        p.jobs.clear();
                        p.status = 0;
                    }
                }
            }
            "echo" => self.echo(p, args)?,
            "printf" => self.printf(p, args)?,
            "cat" => self.cat(p, args)?,
            "touch" => self.touch(p, args)?,
            "rm" => self.rm(p, args)?,
            "mkdir" => self.mkdir(p, args)?,
            "ls" => self.ls(p, args)?,
            "test" | "[" => self.test(p, name, args)?,
            "date" => {
                self.out(p, "Thu Jan  1 00:00:00 UTC 1970\n")?;
                p.status = 0;
            }
            "hostname" => {
                self.out(p, "podsim\n")?;
                p.status = 0;
            }
            "pwd" => {
                self.out(p, "/\n")?;
                p.status = 0;
            }
            // The environment the process was given: its exported variables
            // (the pod's `env`), one `NAME=value` line each; `printenv NAME`
            // prints one value and fails when it is unset.
            "env" | "printenv" if args.is_empty() => {
                let lines: String =
                    p.exported.iter().filter_map(|k| p.vars.get(k).map(|v| format!("{k}={v}\n"))).collect();
                self.out(p, &lines)?;
                p.status = 0;
            }
            "printenv" if args.len() == 1 => match p.vars.get(&args[0]).filter(|_| p.exported.contains(&args[0])) {
                Some(v) => {
                    let line = format!("{v}\n");
                    self.out(p, &line)?;
                    p.status = 0;
                }
                None => p.status = 1,
            },
            "export" | "readonly" => {
                for a in args.iter().filter(|a| !a.starts_with('-')) {
                    let (k, v) = match a.split_once('=') {
                        Some((k, v)) => (k, Some(v)),
                        None => (a.as_str(), None),
                    };
                    if let Some(v) = v {
                        p.vars.insert(k.to_string(), v.to_string());
                    }
                    if name == "export" {
                        p.exported.insert(k.to_string());
                    }
                }
                p.status = 0;
            }
            "unset" => {
                for a in args.iter().filter(|a| !a.starts_with('-')) {
                    p.vars.remove(a);
                    p.exported.remove(a);
                }
                p.status = 0;
            }
            "set" => {
                let mut it = args.iter();
                while let Some(a) = it.next() {
                    let on = a.starts_with('-');
                    if a == "-o" || a == "+o" {
                        match it.next().map(String::as_str) {
                            Some("errexit") => p.errexit = on,
                            Some("xtrace" | "verbose") => {}
                            other => return unsupported(format!("set {a} {}", other.unwrap_or(""))),
                        }
                        continue;
                    }
                    if !(on || a.starts_with('+')) || a.len() < 2 {
                        return unsupported(format!("set {a} (positional parameters)"));
                    }
                    for c in a[1..].chars() {
                        match c {
                            'e' => p.errexit = on,
                            'x' | 'v' => {}
                            _ => return unsupported(format!("set {}{c}", &a[..1])),
                        }
                    }
                }
                p.status = 0;
            }
            "eval" => {
                let cmd = parse::parse(&args.join(" "))?;
                self.enter()?;
                let f = self.eval(p, &cmd, false)?;
                self.nest -= 1;
                return Ok(f);
            }
            n if is_shell(n) => {
                let mut child = p.child();
                self.enter()?;
                self.shell(&mut child, argv)?;
                self.nest -= 1;
                p.status = child.status;
            }
            _ => return unsupported(format!("command \"{}\" is not one podsim can interpret", argv[0])),
        }
        Ok(Flow::Next)
    }

    /// `exec CMD`: the program replaces the shell, which is gone with its
    /// traps; if the shell was PID 1 the program now is (a `sleep` as PID 1
    /// ignores SIGTERM).
    fn exec(&mut self, p: &mut Proc, args: &[String]) -> R<Flow> {
        if args.is_empty() {
            p.status = 0;
            return Ok(Flow::Next);
        }
        p.trap_term = None;
        p.trap_exit = None;
        if p.pid1 {
            self.catches = false;
        }
        if is_shell(&args[0]) {
            let mut child = p.child();
            child.pid1 = p.pid1;
            self.enter()?;
            self.shell(&mut child, args)?;
            self.nest -= 1;
            p.status = child.status;
        } else {
            if BUILTIN_ONLY.contains(&args[0].as_str()) {
                return unsupported(format!("`exec {}` (a builtin, not a program)", args[0]));
            }
            let was = p.pid1;
            p.pid1 = false;
            self.command(p, args)?;
            p.pid1 = was;
        }
        Ok(Flow::Exit)
    }

    /// `trap ACTION SIGNAL…`, `trap - SIGNAL…`, `trap '' SIGNAL…`.
    fn trap(&mut self, p: &mut Proc, args: &[String]) -> R<Flow> {
        const SIGNALS: [&str; 31] = [
            "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM",
            "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF",
            "WINCH", "IO", "PWR", "SYS",
        ];
        p.status = 0;
        let Some(first) = args.first() else { return Ok(Flow::Next) };
        if first.starts_with('-') && first != "-" && first != "--" {
            return unsupported(format!("trap {first}"));
        }
        let args = if first == "--" { &args[1..] } else { args };
        let Some(first) = args.first() else { return Ok(Flow::Next) };
        // POSIX: a first operand that is an unsigned integer, or a lone
        // operand, is a condition to reset.
        let (action, sigs) = if first.parse::<u32>().is_ok() || args.len() == 1 {
            (None, args)
        } else if first == "-" {
            (None, &args[1..])
        } else {
            (Some(first.clone()), &args[1..])
        };
        for sig in sigs {
            let up = sig.to_ascii_uppercase();
            let name = up.strip_prefix("SIG").unwrap_or(&up);
            let number = name.parse::<u32>().ok();
            if name == "TERM" || number == Some(15) {
                p.trap_term = action.clone();
            } else if name == "EXIT" || number == Some(0) {
                p.trap_exit = action.clone();
            } else if !(SIGNALS.contains(&name) || number.is_some_and(|n| n <= 64)) {
                // A special builtin's error ends a non-interactive shell (POSIX XCU 2.8.1).
                self.err(p, &format!("sh: trap: {sig}: bad trap"))?;
                p.status = 2;
                return Ok(Flow::Exit);
            }
        }
        if p.pid1 {
            self.catches = p.trap_term.as_deref().is_some_and(|a| !a.is_empty());
        }
        Ok(Flow::Next)
    }

    fn sleep(&mut self, p: &mut Proc, args: &[String]) -> R<()> {
        if args.is_empty() {
            self.err(p, "Usage: sleep [N]...")?;
            p.status = 1;
            return Ok(());
        }
        let mut total = Some(0u64);
        for a in args {
            match parse_duration(a) {
                Ok(d) => total = total.zip(d).map(|(t, d)| t.saturating_add(d)),
                Err(()) => {
                    self.err(p, &format!("sleep: invalid number '{a}'"))?;
                    p.status = 1;
                    return Ok(());
                }
            }
        }
        self.advance(p, total.map(|t| self.now.saturating_add(t)), false)?;
        p.status = 0;
        Ok(())
    }

    fn echo(&mut self, p: &mut Proc, args: &[String]) -> R<()> {
        let mut newline = true;
        let mut escapes = false;
        let mut i = 0;
        while let Some(a) = args.get(i)
            && a.len() > 1
            && a.starts_with('-')
            && a[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
        {
            for c in a[1..].chars() {
                match c {
                    'n' => newline = false,
                    'e' => escapes = true,
                    _ => escapes = false,
                }
            }
            i += 1;
        }
        let mut s = args[i..].join(" ");
        if escapes {
            let (t, stop) = unescape(&s);
            s = t;
            newline &= !stop;
        }
        if newline {
            s.push('\n');
        }
        self.out(p, &s)?;
        p.status = 0;
        Ok(())
    }

    fn printf(&mut self, p: &mut Proc, args: &[String]) -> R<()> {
        let Some(format) = args.first() else {
            self.err(p, "Usage: printf FORMAT [ARG]...")?;
            p.status = 1;
            return Ok(());
        };
        let mut rest = &args[1..];
        let mut out = String::new();
        let mut status = 0;
        loop {
            let before = rest.len();
            let f: Vec<char> = format.chars().collect();
            let mut i = 0;
            while i < f.len() {
                match f[i] {
                    '\\' => {
                        let (t, stop) = unescape(&f[i..(i + 2).min(f.len())].iter().collect::<String>());
                        out.push_str(&t);
                        if stop {
                            self.out(p, &out)?;
                            p.status = status;
                            return Ok(());
                        }
                        i += 2;
                    }
                    '%' => {
                        let mut j = i + 1;
                        let mut left = false;
                        let mut zero = false;
                        while let Some(c @ ('-' | '0')) = f.get(j) {
                            left |= *c == '-';
                            zero |= *c == '0';
                            j += 1;
                        }
                        let mut width = 0usize;
                        while let Some(d) = f.get(j).and_then(|c| c.to_digit(10)) {
                            width = width * 10 + d as usize;
                            j += 1;
                        }
                        let conv = f.get(j).copied().unwrap_or('%');
                        let mut take = || {
                            let a = rest.first().cloned().unwrap_or_default();
                            rest = rest.get(1..).unwrap_or(&[]);
                            a
                        };
                        let text = match conv {
                            '%' => "%".to_string(),
                            's' => take(),
                            'b' => unescape(&take()).0,
                            'c' => take().chars().next().map(String::from).unwrap_or_default(),
                            'd' | 'i' => {
                                let a = take();
                                match a.trim().parse::<i64>() {
                                    Ok(n) => n.to_string(),
                                    Err(_) if a.is_empty() => "0".to_string(),
                                    Err(_) => {
                                        self.err(p, &format!("printf: invalid number '{a}'"))?;
                                        status = 1;
                                        "0".to_string()
                                    }
                                }
                            }
                            c => return unsupported(format!("the printf conversion `%{c}`")),
                        };
                        let pad = width.saturating_sub(text.chars().count());
                        if left {
                            out.push_str(&text);
                            out.push_str(&" ".repeat(pad));
                        } else if zero && matches!(conv, 'd' | 'i') {
                            let (sign, digits) = text.split_at(usize::from(text.starts_with('-')));
                            out.push_str(sign);
                            out.push_str(&"0".repeat(pad));
                            out.push_str(digits);
                        } else {
                            out.push_str(&" ".repeat(pad));
                            out.push_str(&text);
                        }
                        i = j + 1;
                    }
                    c => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            if rest.is_empty() || rest.len() == before {
                break;
            }
        }
        self.out(p, &out)?;
        p.status = status;
        Ok(())
    }

    fn cat(&mut self, p: &mut Proc, args: &[String]) -> R<()> {
        let mut status = 0;
        for a in args {
            if a.len() > 1 && a.starts_with('-') {
                return unsupported(format!("cat {a}"));
            }
            if a == "-" {
                continue; // empty standard input
            }
            match self.fs.get(a) {
                Some(Node::File(c)) => {
                    let c = c.clone();
                    self.out(p, &c)?;
                }
                Some(Node::Null) => {}
                Some(Node::Dir) => {
                    self.err(p, "cat: read error: Is a directory")?;
                    status = 1;
                }
                None => {
                    self.err(p, &format!("cat: can't open '{a}': No such file or directory"))?;
                    status = 1;
                }
            }
        }
        p.status = status;
        Ok(())
    }

    fn touch(&mut self, p: &mut Proc, args: &[String]) -> R<()> {
        let mut create = true;
        let mut status = 0;
        for a in args {
            if a.len() > 1 && a.starts_with('-') {
                match a.as_str() {
                    "-c" => create = false,
                    _ => return unsupported(format!("touch {a}")),
                }
                continue;
            }
            if !create && self.fs.get(a).is_none() {
                continue;
            }
            match self.fs.touch(a) {
                Ok(true) => self.changed()?,
                Ok(false) => {}
                Err(FsError::Full) => return full(),
                Err(_) => {
                    self.err(p, &format!("touch: {a}: No such file or directory"))?;
                    status = 1;
                }
            }
        }
        p.status = status;
        Ok(())
    }

    fn rm(&mut self, p: &mut Proc, args: &[String]) -> R<()> {
        let (mut force, mut recursive) = (false, false);
        let mut paths = Vec::new();
        let mut options = true;
        for a in args {
            if options && a == "--" {
                options = false;
            } else if options && a.len() > 1 && a.starts_with('-') {
                for c in a[1..].chars() {
                    match c {
                        'f' => force = true,
                        'r' | 'R' => recursive = true,
                        'v' => {}
                        _ => return unsupported(format!("rm -{c}")),
                    }
                }
            } else {
                paths.push(a);
            }
        }
        let mut status = 0;
        if paths.is_empty() && !force {
            self.err(p, "rm: missing operand")?;
            status = 1;
        }
        for a in paths {
            let Some(key) = normalize(a) else {
                if !force {
                    self.err(p, &format!("rm: can't remove '{a}': No such file or directory"))?;
                    status = 1;
                }
                continue;
            };
            if key == "/" {
                return unsupported("rm of /");
            }
            match self.fs.get(&key) {
                None => {
                    if !force {
                        self.err(p, &format!("rm: can't remove '{a}': No such file or directory"))?;
                        status = 1;
                    }
                }
                Some(Node::Dir) if !recursive => {
                    self.err(p, &format!("rm: '{a}' is a directory"))?;
                    status = 1;
                }
                Some(_) => {
                    self.fs.remove(&key);
                    self.changed()?;
                }
            }
        }
        p.status = status;
        Ok(())
    }

    fn mkdir(&mut self, p: &mut Proc, args: &[String]) -> R<()> {
        let mut parents = false;
        let mut paths = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "-m" {
                it.next();
            } else if a.len() > 1 && a.starts_with('-') {
                for c in a[1..].chars() {
                    match c {
                        'p' => parents = true,
                        'v' => {}
                        _ => return unsupported(format!("mkdir -{c}")),
                    }
                }
            } else {
                paths.push(a);
            }
        }
        let mut status = 0;
        for a in paths {
            match self.fs.mkdir(a, parents) {
                Ok(true) => self.changed()?,
                Ok(false) => {}
                Err(FsError::Full) => return full(),
                Err(e) => {
                    let why = if e == FsError::Exists { "File exists" } else { "No such file or directory" };
                    self.err(p, &format!("mkdir: can't create directory '{a}': {why}"))?;
                    status = 1;
                }
            }
        }
        p.status = status;
        Ok(())
    }

    /// busybox `ls` writing to a pipe: one name per line, files given first,
    /// then each directory (with a `dir:` header when several are given).
    fn ls(&mut self, p: &mut Proc, args: &[String]) -> R<()> {
        let (mut all, mut almost) = (false, false);
        let mut paths = Vec::new();
        for a in args {
            if a.len() > 1 && a.starts_with('-') {
                for c in a[1..].chars() {
                    match c {
                        '1' => {}
                        'a' => all = true,
                        'A' => almost = true,
                        _ => return unsupported(format!("ls -{c}")),
                    }
                }
            } else {
                paths.push(a.clone());
            }
        }
        if paths.is_empty() {
            paths.push(".".to_string());
        }
        let mut status = 0;
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        for path in &paths {
            match self.fs.get(path) {
                None => {
                    self.err(p, &format!("ls: {path}: No such file or directory"))?;
                    status = 1;
                }
                Some(Node::Dir) => dirs.push(path.clone()),
                Some(_) => files.push(path.clone()),
            }
        }
        files.sort();
        dirs.sort();
        let mut out = String::new();
        for f in &files {
            out.push_str(f);
            out.push('\n');
        }
        let many = paths.len() > 1;
        for (k, d) in dirs.iter().enumerate() {
            if many {
                if !files.is_empty() || k > 0 {
                    out.push('\n');
                }
                out.push_str(&format!("{d}:\n"));
            }
            let mut names = self.fs.children(&normalize(d).unwrap_or_default());
            if !all && !almost {
                names.retain(|n| !n.starts_with('.'));
            }
            if all {
                names.splice(0..0, [".".to_string(), "..".to_string()]);
            }
            for n in names {
                out.push_str(&n);
                out.push('\n');
            }
        }
        self.out(p, &out)?;
        p.status = status;
        Ok(())
    }

    fn test(&mut self, p: &mut Proc, name: &str, args: &[String]) -> R<()> {
        let args = if name == "[" {
            match args.split_last() {
                Some((last, rest)) if last == "]" => rest,
                _ => {
                    self.err(p, "sh: [: missing ]")?;
                    p.status = 2;
                    return Ok(());
                }
            }
        } else {
            args
        };
        match self.test_expr(args) {
            Ok(b) => p.status = i32::from(!b),
            Err(msg) => {
                self.err(p, &format!("sh: {name}: {msg}"))?;
                p.status = 2;
            }
        }
        Ok(())
    }

    /// POSIX `test`, by the number of arguments.
    fn test_expr(&self, a: &[String]) -> Result<bool, String> {
        let binary = |op: &str| matches!(op, "=" | "==" | "!=" | "-eq" | "-ne" | "-lt" | "-gt" | "-le" | "-ge");
        match a.len() {
            0 => Ok(false),
            1 => Ok(!a[0].is_empty()),
            2 if a[0] == "!" => Ok(a[1].is_empty()),
            2 => self.unary(&a[0], &a[1]),
            3 if binary(&a[1]) => compare(&a[0], &a[1], &a[2]),
            3 if a[1] == "-a" || a[1] == "-o" => {
                let (l, r) = (!a[0].is_empty(), !a[2].is_empty());
                Ok(if a[1] == "-a" { l && r } else { l || r })
            }
            3 if a[0] == "!" => self.test_expr(&a[1..]).map(|b| !b),
            3 if a[0] == "(" && a[2] == ")" => Ok(!a[1].is_empty()),
            4 if a[0] == "!" => self.test_expr(&a[1..]).map(|b| !b),
            _ => {
                if let Some(i) = a.iter().position(|x| x == "-o") {
                    return Ok(self.test_expr(&a[..i])? || self.test_expr(&a[i + 1..])?);
                }
                if let Some(i) = a.iter().position(|x| x == "-a") {
                    return Ok(self.test_expr(&a[..i])? && self.test_expr(&a[i + 1..])?);
                }
                Err(format!("{}: unknown operand", a[0]))
            }
        }
    }

    fn unary(&self, op: &str, x: &str) -> Result<bool, String> {
        let node = self.fs.get(x);
        Ok(match op {
            "-e" | "-r" | "-w" => node.is_some(),
            "-f" => matches!(node, Some(Node::File(_))),
            "-d" | "-x" => matches!(node, Some(Node::Dir)),
            "-s" => match node {
                Some(Node::File(c)) => !c.is_empty(),
                Some(Node::Dir) => true,
                _ => false,
            },
            "-c" => matches!(node, Some(Node::Null)),
            "-L" | "-h" | "-p" | "-S" | "-b" | "-t" => false,
            "-n" => !x.is_empty(),
            "-z" => x.is_empty(),
            _ => return Err(format!("{op}: unary operator expected")),
        })
    }
}

fn full<T>() -> R<T> {
    unsupported(format!("a script that makes over {} files and directories", super::fs::MAX_ENTRIES))
}

fn compare(l: &str, op: &str, r: &str) -> Result<bool, String> {
    let num = |s: &str| s.trim().parse::<i64>().map_err(|_| format!("invalid number '{s}'"));
    Ok(match op {
        "=" | "==" => l == r,
        "!=" => l != r,
        _ => {
            let (a, b) = (num(l)?, num(r)?);
            match op {
                "-eq" => a == b,
                "-ne" => a != b,
                "-lt" => a < b,
                "-gt" => a > b,
                "-le" => a <= b,
                _ => a >= b,
            }
        }
    })
}

/// `echo -e`/`printf` escapes; true when `\c` stops the output.
fn unescape(s: &str) -> (String, bool) {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('\\') => out.push('\\'),
            Some('c') => return (out, true),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    (out, false)
}

/// `*` and `?` matching of one path segment.
fn wildcard(p: &[u8], s: &[u8]) -> bool {
    match (p.first(), s.first()) {
        (None, None) => true,
        (Some(b'*'), _) => wildcard(&p[1..], s) || (!s.is_empty() && wildcard(p, &s[1..])),
        (Some(b'?'), Some(_)) => wildcard(&p[1..], &s[1..]),
        (Some(a), Some(b)) if a == b => wildcard(&p[1..], &s[1..]),
        _ => false,
    }
}

/// Splits an unquoted expansion on blanks into the fields being built.
fn split_into(fields: &mut Vec<String>, cur: &mut Option<String>, v: &str, quoted: bool) {
    if quoted {
        cur.get_or_insert_with(String::new).push_str(v);
        return;
    }
    let ws = |c: char| c == ' ' || c == '\t' || c == '\n';
    if v.starts_with(ws) {
        fields.extend(cur.take());
    }
    let pieces: Vec<&str> = v.split(ws).filter(|s| !s.is_empty()).collect();
    for (k, piece) in pieces.iter().enumerate() {
        if k > 0 {
            fields.push(cur.take().unwrap_or_default());
        }
        cur.get_or_insert_with(String::new).push_str(piece);
    }
    if v.ends_with(ws) && !pieces.is_empty() {
        fields.extend(cur.take());
    }
}

/// A `$((…))` expression after parameter expansion.
struct Arith<'a> {
    s: &'a [u8],
    i: usize,
    vars: &'a BTreeMap<String, String>,
    expr: &'a str,
}

impl Arith<'_> {
    fn blanks(&mut self) {
        while self.s.get(self.i).is_some_and(|b| b.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn bad<T>(&self) -> R<T> {
        unsupported(format!("the arithmetic expression `{}`", self.expr))
    }

    fn op(&mut self) -> Option<(&'static str, u8)> {
        self.blanks();
        let rest = &self.s[self.i..];
        for (op, prec) in [
            ("==", 1),
            ("!=", 1),
            ("<=", 2),
            (">=", 2),
            ("<", 2),
            (">", 2),
            ("+", 3),
            ("-", 3),
            ("*", 4),
            ("/", 4),
            ("%", 4),
        ] {
            if rest.starts_with(op.as_bytes()) {
                // `&&`, `||`, `<<`, `=`, `+=`, `++` are not interpreted.
                let next = rest.get(op.len()).copied();
                if op.len() == 1 && (next == Some(b'=') || next == Some(op.as_bytes()[0])) && op != "*" {
                    return None;
                }
                return Some((op, prec));
            }
        }
        None
    }

    fn expr(&mut self, min: u8) -> R<i64> {
        let mut left = self.unary()?;
        while let Some((op, prec)) = self.op() {
            if prec < min.max(1) {
                break;
            }
            self.i += op.len();
            let right = self.expr(prec + 1)?;
            left = match op {
                "==" => i64::from(left == right),
                "!=" => i64::from(left != right),
                "<=" => i64::from(left <= right),
                ">=" => i64::from(left >= right),
                "<" => i64::from(left < right),
                ">" => i64::from(left > right),
                "+" => left.wrapping_add(right),
                "-" => left.wrapping_sub(right),
                "*" => left.wrapping_mul(right),
                _ if right == 0 => return unsupported(format!("a division by zero in `$(({}))`", self.expr)),
                "/" => left.wrapping_div(right),
                _ => left.wrapping_rem(right),
            };
        }
        Ok(left)
    }

    fn unary(&mut self) -> R<i64> {
        self.blanks();
        match self.s.get(self.i) {
            Some(b'-') if self.s.get(self.i + 1) != Some(&b'-') => {
                self.i += 1;
                Ok(self.unary()?.wrapping_neg())
            }
            Some(b'+') if self.s.get(self.i + 1) != Some(&b'+') => {
                self.i += 1;
                self.unary()
            }
            Some(b'!') => {
                self.i += 1;
                Ok(i64::from(self.unary()? == 0))
            }
            Some(b'(') => {
                self.i += 1;
                let v = self.expr(0)?;
                self.blanks();
                if self.s.get(self.i) != Some(&b')') {
                    return self.bad();
                }
                self.i += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.i;
                while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                    self.i += 1;
                }
                match std::str::from_utf8(&self.s[start..self.i]).unwrap().parse() {
                    Ok(n) => Ok(n),
                    Err(_) => self.bad(),
                }
            }
            Some(c) if *c == b'_' || c.is_ascii_alphabetic() => {
                let start = self.i;
                while self.s.get(self.i).is_some_and(|c| *c == b'_' || c.is_ascii_alphanumeric()) {
                    self.i += 1;
                }
                let name = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                let v = self.vars.get(name).map(|v| v.trim()).unwrap_or("");
                if v.is_empty() {
                    return Ok(0);
                }
                match v.parse() {
                    Ok(n) => Ok(n),
                    Err(_) => unsupported(format!("arithmetic on the value \"{v}\" of {name}")),
                }
            }
            _ => self.bad(),
        }
    }
}
