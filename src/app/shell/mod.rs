//! A small, pure interpreter for busybox-style container scripts.
//!
//! Kubernetes' documentation runs containers such as
//! `args: ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"]`
//! with an exec liveness probe `cat /tmp/healthy`. [`interpret`] reads such
//! an argv and predicts, with no behaviour file, what the process does over
//! time: which files exist when (so exec probes can be answered by
//! [`Script::exec`]), when and with what code it exits ([`Script::exit`]) and
//! what SIGTERM does to it ([`Script::sigterm`]).
//!
//! # What is interpreted
//!
//! POSIX `sh` as busybox `ash` runs it, with busybox's messages: lists (`;`,
//! newlines, `&&`, `||`, `!`, `&`), `{ }`, `( )`, `if`, `while`, `until`,
//! `for`, quoting, `$x`, `${x}`, `$?`, `$0`…`$9`, `$#`, `$@`, assignments,
//! `$(…)` and `` `…` ``, `$((…))` (integers, `+ - * / %`, comparisons,
//! parentheses), redirections `>`, `>>`, `N>`, `N>&M`, `>/dev/null`, and the
//! utilities `sleep`, `touch`, `rm`, `mkdir`, `echo`, `printf`, `cat`, `test`/`[`,
//! `ls`, `true`, `false`, `:`, `exit`, `exec`, `trap`, `wait`, `break`,
//! `continue`, `export`, `unset`, `set -e`/`+e`/`-x`/`+x`, `eval`, `pwd`,
//! `date` and `hostname` (fixed strings), and nested `sh -c`. `/bin/X`,
//! `/usr/bin/X`, `/sbin/X`, `/usr/sbin/X` and `/usr/local/bin/X` name `X`.
//!
//! Anything else is [`Unsupported`], naming it: other commands (`nginx`,
//! `pg_isready`, `grep`, `kill`, `read`…), pipes, `case`, functions,
//! here-documents and `<`, `${x:-y}` forms, a background `&` of anything but a
//! simple command, a script file (`sh script.sh`), shell options but `-c`,
//! `-e`, `-x`.
//!
//! # Time, and bounded evaluation
//!
//! Only `sleep` (and `wait` for a background `sleep`) takes time; everything
//! else is instant. [`interpret`] evaluates the whole script ahead of time into
//! a timeline of file-system states. The evaluation is bounded for any input:
//! * scripts over 64 KiB or nested deeper than 48 levels are refused at once;
//! * at most [`MAX_STEPS`] evaluation steps, else `Unsupported` (“too long”);
//! * a `while`/`until` loop whose iteration starts in a state it started in
//!   before (same files and contents, variables, `$?`, traps, background jobs)
//!   repeats forever with that period: `while true; do sleep 1; done` runs
//!   forever with constant files, `while true; do :; done` forever at once;
//!   variables that only reach the container's log (a counter echoed each
//!   second) are left out of the comparison ([`relevance`]);
//! * a file keeps at most 4 KiB ([`fs`]): `while true; do echo x >> /tmp/log;
//!   sleep 5; done` grows the file until the cap, then repeats exactly (so a
//!   `cat` of a log that grew past it prints its first 4 KiB);
//! * a sleep ending past [`HORIZON`] (100 days) is forever.
//!
//! # Signals
//!
//! The container runtime sends SIGTERM to the container's PID 1 only, and the
//! kernel does not deliver to a PID namespace's init a signal whose disposition
//! is the default (kernel/signal.c, `sig_task_ignored` with
//! `SIGNAL_UNKILLABLE`): a shell without a TERM trap, or `sleep` as PID 1,
//! ignores SIGTERM and is SIGKILLed at the grace deadline. With `trap 'CMD'
//! TERM`, POSIX (XCU 2.11, "Signals and Error Handling") defers the trap while
//! the shell waits for a foreground command until that command completes, but
//! `wait` returns at once with a status above 128 (XCU `wait`). See
//! [`Script::sigterm`].

pub(crate) mod fs;
mod parse;
mod relevance;
mod run;

#[cfg(test)]
mod tests;

use crate::time::SimDuration;
use fs::{Fs, Node};
use run::{Halt, Machine, Proc};
use std::fmt;

pub use run::{HORIZON, MAX_STEPS};

/// What podsim could not interpret, for a warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// E.g. `command "pg_ctl" is not one podsim can interpret`.
    pub what: String,
}

impl Unsupported {
    pub(crate) fn new(what: impl Into<String>) -> Unsupported {
        Unsupported { what: what.into() }
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl std::error::Error for Unsupported {}

/// What running a command in the container gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub code: i32,
    /// Standard output then standard error (each capped at 64 KiB).
    pub output: String,
    /// How long it takes; [`HORIZON`] when it never ends by itself (the
    /// probe's timeout then decides; `code` is then meaningless, 0).
    pub duration: SimDuration,
}

/// What SIGTERM delivered to PID 1 does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sigterm {
    /// Nothing: the process goes on (and is SIGKILLed at the grace deadline).
    Ignore,
    /// The process exits `after` the signal with `code`.
    Exit { after: SimDuration, code: i32 },
}

/// A container's main process, evaluated ahead of time.
#[derive(Clone, Debug)]
pub struct Script {
    argv: Vec<String>,
    env: Vec<(String, String)>,
    /// The volumes' directories and files, in place before the process starts.
    mounted: Vec<(String, Option<String>)>,
    /// The file system after every instant it changes: the first at 0 ms.
    snaps: Vec<(u64, Fs)>,
    /// From `start` on, the states repeat with `period` (ms): the script runs
    /// forever in a loop. A period 0 is a busy loop (constant from `start`).
    tail: Option<(u64, u64)>,
    exit: Option<(u64, i32)>,
}

/// A container's main process read from its argv (`command` followed by
/// `args`, as the kubelet joins them), with no environment variables.
pub fn interpret(argv: &[String]) -> Result<Script, Unsupported> {
    interpret_with_env(argv, &[])
}

/// As [`interpret`], with the container's environment (`env:` of the pod
/// spec) visible to the script as variables.
pub fn interpret_with_env(argv: &[String], env: &[(String, String)]) -> Result<Script, Unsupported> {
    interpret_mounted(argv, env, &[])
}

/// As [`interpret_with_env`], in a file system that also holds the
/// container's volumes: each `(path, None)` a directory, each
/// `(path, Some(text))` a file (a ConfigMap key), their parents created.
pub fn interpret_mounted(
    argv: &[String],
    env: &[(String, String)],
    mounted: &[(String, Option<String>)],
) -> Result<Script, Unsupported> {
    if argv.is_empty() {
        return Err(Unsupported::new("an empty command (the image's entrypoint applies)"));
    }
    let mut m = Machine::new(Fs::busybox().with(mounted), None, true);
    let mut p = Proc::new(env);
    let exit = match m.run_main(&mut p, argv) {
        Ok(()) => Some((m.now, p.status)),
        Err(Halt::Forever) => None,
        Err(Halt::Unsupported(u)) => return Err(u),
        Err(Halt::SignalIgnored) => unreachable!("no signal is sent while interpreting"),
    };
    let (argv, env, mounted) = (argv.to_vec(), env.to_vec(), mounted.to_vec());
    Ok(Script { argv, env, mounted, snaps: m.snaps, tail: m.tail, exit })
}

impl Script {
    /// When and how the process exits by itself (None: it runs forever), since process start.
    pub fn exit(&self) -> Option<(SimDuration, i32)> {
        self.exit.map(|(t, c)| (SimDuration::from_millis(t), c))
    }

    /// The instants (since start) at which the file system changes, with ZERO
    /// first: exec probe answers can only change at these. When the script
    /// ends in a loop that changes files ([`Script::repeats`]), the list runs
    /// through the loop's first period; later changes are those of that period
    /// shifted by whole periods.
    pub fn changes(&self) -> Vec<SimDuration> {
        let end = match self.tail {
            Some((start, period)) => start + period.max(1),
            None => u64::MAX,
        };
        let mut out = vec![SimDuration::ZERO];
        out.extend(self.snaps.iter().map(|(t, _)| *t).filter(|t| *t > 0 && *t < end).map(SimDuration::from_millis));
        out
    }

    /// `(start, period)` when the file system, from `start` on, repeats with
    /// `period` forever (a loop that creates and removes files), else `None`.
    pub fn repeats(&self) -> Option<(SimDuration, SimDuration)> {
        let (start, period) = self.tail?;
        let changing = self.snaps.iter().any(|(t, _)| *t > start && *t < start + period);
        (period > 0 && changing).then(|| (SimDuration::from_millis(start), SimDuration::from_millis(period)))
    }

    fn fs_at(&self, age: u64) -> &Fs {
        let t = match self.tail {
            Some((start, period)) if age >= start => {
                if period == 0 {
                    start
                } else {
                    start + (age - start) % period
                }
            }
            _ => age,
        };
        let i = self.snaps.partition_point(|(s, _)| *s <= t);
        &self.snaps[i.max(1) - 1].1
    }

    /// True when `path` names a file or directory at `age`.
    pub fn exists(&self, path: &str, age: SimDuration) -> bool {
        self.fs_at(age.as_millis()).get(path).is_some()
    }

    /// The regular files that exist at `age`, with their contents.
    pub fn files(&self, age: SimDuration) -> Vec<(String, String)> {
        let fs = self.fs_at(age.as_millis());
        fs.paths()
            .filter_map(|(p, n)| match n {
                Node::File(c) => Some((p.to_string(), c.to_string())),
                _ => None,
            })
            .collect()
    }

    /// Runs a command (an exec probe's or hook's argv) in the container at
    /// `age`, against the file system at that moment (writes it makes are not
    /// kept). Gives exit code, combined output (stdout then stderr, as busybox
    /// prints it) and how long it takes (e.g. `sleep 5` takes 5 s). The
    /// command is a new process: it sees the container's environment, not the
    /// main script's variables.
    pub fn exec(&self, argv: &[String], age: SimDuration) -> Result<Outcome, Unsupported> {
        if argv.is_empty() {
            return Err(Unsupported::new("an empty command"));
        }
        let mut m = Machine::new(self.fs_at(age.as_millis()).clone(), None, false);
        let mut p = Proc::new(&self.env);
        let (code, duration) = match m.run_child(&mut p, argv) {
            Ok(()) => (p.status, SimDuration::from_millis(m.now)),
            Err(Halt::Forever) => (0, SimDuration::from_millis(HORIZON)),
            Err(Halt::Unsupported(u)) => return Err(u),
            Err(Halt::SignalIgnored) => unreachable!("no signal is sent to an exec"),
        };
        Ok(Outcome { code, output: m.output(), duration })
    }

    /// What SIGTERM, delivered to PID 1 at `age`, does.
    ///
    /// The script is run again from the start with the signal arriving at
    /// `age`, so every rule below holds exactly as the script unfolds:
    /// * a shell without a TERM trap, or `trap '' TERM`, or a utility as PID 1
    ///   (a bare argv, or after `exec`): [`Sigterm::Ignore`] — the kernel does
    ///   not deliver a default-disposition signal to a namespace's init;
    /// * during a foreground command (`sleep`, a subshell) the trap runs when
    ///   it completes — POSIX XCU 2.11: a trap is not taken while the shell
    ///   waits for a foreground command;
    /// * during `wait` the trap runs at once and `$?` is 143 — POSIX `wait`:
    ///   a trapped signal makes it return a status above 128 immediately;
    /// * the trap's `exit N` exits with N; a bare `exit` with the status
    ///   before the trap (POSIX `exit`: in a trap, the last command is the one
    ///   before the trap action); a trap without `exit` lets the script go on:
    ///   [`Sigterm::Exit`] if it then ends, at that time, else `Ignore`;
    /// * background children get nothing (only PID 1 is signalled);
    /// * at or after the script's own exit: `Exit { after: 0, code }`.
    ///
    /// Should the re-run be refused (it cannot be, as the first run was
    /// accepted, but for the step cap) the answer is `Ignore`.
    pub fn sigterm(&self, age: SimDuration) -> Sigterm {
        let age = age.as_millis();
        if let Some((t, code)) = self.exit
            && age >= t
        {
            return Sigterm::Exit { after: SimDuration::ZERO, code };
        }
        let mut m = Machine::new(Fs::busybox().with(&self.mounted), Some(age), false);
        let mut p = Proc::new(&self.env);
        match m.run_main(&mut p, &self.argv) {
            Ok(()) => Sigterm::Exit { after: SimDuration::from_millis(m.now.saturating_sub(age)), code: p.status },
            Err(_) => Sigterm::Ignore,
        }
    }
}
