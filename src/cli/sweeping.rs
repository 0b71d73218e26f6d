//! A sweep on the command line: how far it got (a bar on a terminal, a line
//! every few seconds elsewhere), how it stops (Ctrl-C, SIGTERM), and how
//! many runs one process may hold.

use super::args::ProgressWhen;
use super::problems;
use crate::budget::thousands;
use crate::predict::{MAX_RUNS, too_many_runs};
use crate::time::SimTime;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Set by the first Ctrl-C or SIGTERM.
static STOP: AtomicBool = AtomicBool::new(false);

/// The exit code of a sweep stopped by a signal: 128 + SIGINT, as a shell
/// reports a process Ctrl-C ended.
pub const STOPPED: u8 = 130;

/// From now on the first Ctrl-C or SIGTERM stops the sweep after the runs
/// under way; a second one ends the process at once.
pub fn stoppable() -> &'static AtomicBool {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        for signal in [SIGINT, SIGTERM] {
            // The shutdown first: it acts only once the flag is already set.
            let _ = flag::register_conditional_shutdown(signal, i32::from(STOPPED), &STOP);
            let _ = flag::register(signal, &STOP);
        }
    });
    &STOP
}

/// `--runs N` of a prediction from seed `first`, checked before anything
/// is allocated for it: at most `MAX_RUNS`, every seed within 64 bits.
pub fn check_runs(first: u64, runs: u32) -> Result<(), String> {
    match runs <= MAX_RUNS {
        true => check_seeds(first, runs),
        false => Err(format!("--runs {runs}: {}", too_many_runs())),
    }
}

/// Seeds `first`, `first + 1`, … of `runs` runs, all within 64 bits.
pub fn check_seeds(first: u64, runs: u32) -> Result<(), String> {
    let last = first.checked_add(u64::from(runs).saturating_sub(1));
    match last {
        Some(_) => Ok(()),
        None => Err(format!(
            "--seed {first}: the runs' seeds are {first}, {first} + 1, …, and {runs} of them go past {} (2^64 − 1); \
             start at {} at most",
            u64::MAX,
            u64::MAX - (u64::from(runs) - 1)
        )),
    }
}

/// How far a sweep of `total` runs got.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Off a terminal: a line every `every`, from `after` on.
    lines: Option<Lines>,
    done: AtomicU64,
    total: u64,
}

struct Lines {
    start: Instant,
    after: Duration,
    every: Duration,
    last: Mutex<Instant>,
}

/// Off a terminal, `--progress auto` starts its lines once a sweep has run this long.
const LONG: Duration = Duration::from_secs(10);
/// Off a terminal, the time between two lines.
const EVERY: Duration = Duration::from_secs(5);

impl Progress {
    /// On a terminal a bar (unless `never`); elsewhere lines every few
    /// seconds, from the start with `always`, after ten seconds with `auto`.
    pub fn new(total: u64, when: ProgressWhen) -> Progress {
        let terminal = io::stderr().is_terminal();
        let bar = (terminal && when != ProgressWhen::Never).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {per_sec}, eta {eta}") {
                bar.set_style(style);
            }
            bar
        });
        let after = match when {
            ProgressWhen::Always => Some(Duration::ZERO),
            ProgressWhen::Auto => Some(LONG),
            ProgressWhen::Never => None,
        };
        let now = Instant::now();
        let lines =
            after.filter(|_| !terminal).map(|after| Lines { start: now, after, every: EVERY, last: Mutex::new(now) });
        Progress { bar, lines, done: AtomicU64::new(0), total }
    }

    /// One more run done.
    pub fn inc(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        let Some(lines) = &self.lines else { return };
        let now = Instant::now();
        let elapsed = now - lines.start;
        if elapsed < lines.after {
            return;
        }
        // One thread writes; the others go on.
        let Ok(mut last) = lines.last.try_lock() else { return };
        if now - *last < lines.every && *last != lines.start {
            return;
        }
        *last = now;
        let rate = done as f64 / elapsed.as_secs_f64().max(1e-9);
        let left = (self.total.saturating_sub(done)) as f64 / rate.max(1e-9);
        let _ = writeln!(
            io::stderr().lock(),
            "podsim: {}/{} runs, {:.0} runs/s, about {} left",
            thousands(done),
            thousands(self.total),
            rate,
            human(left)
        );
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// One long run's progress on a terminal: a bar of simulated time, drawn
/// only once the run has gone on for a second (a short run shows nothing),
/// cleared when the run ends (the closure is dropped).
pub fn one_run(until: SimTime) -> impl FnMut(SimTime) {
    let start = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    let terminal = io::stderr().is_terminal();
    move |now: SimTime| {
        if !terminal || start.elapsed() < Duration::from_secs(1) {
            return;
        }
        let bar = bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(Some(until.as_millis() / 1000), ProgressDrawTarget::stderr())
                .with_finish(indicatif::ProgressFinish::AndClear);
            if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} simulated seconds, eta {eta}") {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(now.as_millis() / 1000);
    }
}

/// `95` seconds as `1m35s`.
fn human(secs: f64) -> String {
    let s = secs.round().min(1e9) as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{}s", s / 60, s % 60),
        _ => format!("{}h{}m", s / 3600, s % 3600 / 60),
    }
}

/// Says on stderr where a stopped sweep got to: `done` of `total` runs.
pub fn say_stopped(done: u32, total: u32, first_seed: u64, what: &str, stderr: &mut impl Write) {
    let seeds = match done {
        0 => String::from("no run finished"),
        _ => format!("seeds {}", crate::sweep::seed_range(first_seed, done.into())),
    };
    problems::warn(
        stderr,
        format_args!("stopped after {} of {} runs ({seeds}); {what}", thousands(done.into()), thousands(total.into())),
    );
}
