//! Per-kind counts of a fuzz run, rewritten after every case to
//! `$CARGO_TARGET_TMPDIR/fuzz-stats/KIND.txt` (or under `$PODSIM_FUZZ_OUT`): how many cases, their exit
//! codes, the accepted unnamed messages, the time spent and the slowest run.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

#[derive(Default)]
struct Stats {
    cases: u64,
    exits: BTreeMap<String, u64>,
    time: Duration,
    slowest: (Duration, String),
    /// Failures by the shape of their first stderr line: count and one example.
    failures: BTreeMap<String, (u64, String)>,
}

static STATS: Mutex<BTreeMap<&'static str, Stats>> = Mutex::new(BTreeMap::new());

/// Notes a failure (survey mode): its shape, the first line of stderr with
/// quoted text and numbers blanked, and the first report of that shape.
pub fn failure(kind: &'static str, why: &str, stderr: &str, report: impl FnOnce(usize) -> String) {
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut shape = format!("{} | ", why.split(':').next().unwrap_or(""));
    let mut quoted = false;
    for c in first.chars().take(160) {
        match c {
            '"' => {
                quoted = !quoted;
                shape.push('"');
            }
            _ if quoted => {}
            '0'..='9' => {
                if !shape.ends_with('N') {
                    shape.push('N');
                }
            }
            _ => shape.push(c),
        }
    }
    let mut all = STATS.lock().unwrap_or_else(|e| e.into_inner());
    let s = all.entry(kind).or_default();
    let n = s.failures.len();
    let e = s.failures.entry(shape).or_insert_with(|| (0, report(n)));
    e.0 += 1;
}

/// Counts one case of `kind` that ended as `how` (`exit 0`, `exit 2 legit`, …).
pub fn record(kind: &'static str, how: &str, elapsed: Duration, command: impl FnOnce() -> String) {
    let mut all = STATS.lock().unwrap_or_else(|e| e.into_inner());
    let s = all.entry(kind).or_default();
    s.cases += 1;
    *s.exits.entry(how.to_string()).or_default() += 1;
    s.time += elapsed;
    if elapsed > s.slowest.0 {
        s.slowest = (elapsed, command());
    }
    let mut text = format!("kind: {kind}\ncases: {}\npodsim time: {:.1?}\n", s.cases, s.time);
    text.push_str(&format!("mean per case: {:.1?}\n", s.time / s.cases.max(1) as u32));
    for (how, n) in &s.exits {
        text.push_str(&format!("{how}: {n}\n"));
    }
    text.push_str(&format!("slowest: {:.2?}: {}\n", s.slowest.0, s.slowest.1));
    for (shape, (n, example)) in &s.failures {
        text.push_str(&format!("\nfailure x{n}: {shape}\n{example}\n"));
    }
    let dir = super::harness::out_dir().join("fuzz-stats");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{kind}.txt")), text);
}
