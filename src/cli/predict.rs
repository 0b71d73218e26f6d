//! `podsim predict`: many seeded runs, milestone statistics and orderings.

use super::args::{MergeArgs, Orderings, Output, PredictArgs, RunInputs, Selection};
use super::problems::{self, emit};
use super::run::inputs;
use super::sweeping::{Progress, STOPPED, check_runs, say_stopped, stoppable};
use super::words;
use crate::milestones::pattern;
use crate::predict::MAX_ORDERED;
use crate::predict::partial::{self, parse_shard, shard_runs};
use crate::predict::{Prediction, Runs, in_telling_order, predict as analyse, run_all};
use crate::scenario::read_file;
use crate::sweep::{Control, Swept, seed_range};
use crate::time::SimTime;
use crate::trace::table::pad;
use serde_json::json;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::process::ExitCode;

pub fn predict(args: PredictArgs) -> ExitCode {
    // Not locked: a sweep's progress is written from its threads.
    let stderr = &mut io::stderr();
    let shard = match args.shard.as_deref().map(parse_shard).transpose() {
        Ok(s) => s,
        Err(e) => {
            problems::fail(stderr, format_args!("--shard {e}"));
            return ExitCode::from(2);
        }
    };
    let Some(inputs) = inputs(&args.inputs, stderr) else { return ExitCode::from(2) };
    let Some(prepared) = problems::prepared(&inputs, stderr) else { return ExitCode::from(2) };
    ignored_rollout_timeout(&args.inputs, "a prediction reads milestones, which kubectl does not change", stderr);
    // Checked whole even for a shard: `merge` holds every shard's runs.
    if let Err(e) = check_runs(prepared.seed, args.runs) {
        problems::fail(stderr, e);
        return ExitCode::from(2);
    }
    let which = shard.map_or(0..args.runs, |(k, n)| shard_runs(args.runs, k, n));
    let jobs = jobs(args.jobs, stderr);
    let progress = Progress::new(which.len() as u64, args.progress);
    let tick = || progress.inc();
    let control = Control { progress: &tick, stop: stoppable() };
    let until = SimTime::ZERO + prepared.until;
    let swept = run_all(&prepared.setup, prepared.seed, which.clone(), until, jobs, control);
    progress.finish();
    let scenario = words::inputs(&args.inputs);
    let (runs, stopped) = match swept {
        Swept::All(runs) => (runs, false),
        Swept::Stopped(runs) => (runs, true),
        Swept::Exhausted(e) => return problems::exhausted(stderr, &e, prepared.until),
    };
    let runs = chosen(runs, &args.selection, stderr);
    let first = prepared.seed + u64::from(which.start);
    let done = runs.seeds.len() as u32;
    let text = match (shard, stopped) {
        // A stopped shard's runs are a sweep of their own: a partial result `merge` reads alone.
        (Some(_), true) => partial::write(&runs, &scenario, first, done, (0, 1)),
        (Some(s), false) => partial::write(&runs, &scenario, prepared.seed, args.runs, s),
        (None, _) => render(&analyse(&runs, prepared.seed), &scenario, args.output, args.dot, args.selection.orderings),
    };
    let code = emit(&text, stderr);
    if !stopped {
        return code;
    }
    let what = match shard {
        Some(_) => "the partial result above holds them (`podsim merge` reads it as a sweep of these runs)",
        None => "the prediction above is of these runs (with --shard 0/1 a sweep writes them as a partial result)",
    };
    say_stopped(done, which.len() as u32, first, what, stderr);
    ExitCode::from(STOPPED)
}

/// `--rollout-timeout` adds what `kubectl rollout status` prints to a run's
/// timeline, which only `run` and `verify`'s shrunk timeline show: say so
/// rather than take it silently.
pub(super) fn ignored_rollout_timeout(args: &RunInputs, why: &str, stderr: &mut impl Write) {
    if args.rollout_timeout.is_some() {
        problems::warn(stderr, format_args!("--rollout-timeout: {why}; ignored"));
    }
}

/// The runs' milestones that `-m` chooses, with a warning for each pattern
/// that chooses none (the prediction is of the others).
fn chosen(runs: Runs, selection: &Selection, stderr: &mut impl Write) -> Runs {
    if selection.milestones.is_empty() {
        return runs;
    }
    let (keep, unmatched) = pattern::choose(&runs.names, &selection.milestones);
    for p in unmatched {
        problems::warn(stderr, format_args!("--milestone {p}: no milestone of the runs matches it"));
    }
    runs.only(&keep)
}

/// Threads for a sweep: as asked, else every core.
/// Threads for a sweep: every core by default; more than four per core only
/// wait on each other (and tens of thousands never start), so an ask past
/// that is lowered, with a warning.
pub(super) fn jobs(asked: Option<usize>, stderr: &mut impl Write) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = 4 * cores;
    match asked {
        None => cores,
        Some(n) if n > most => {
            problems::warn(
                stderr,
                format_args!(
                    "--jobs {n}: more than 4 threads per core ({cores} cores) only wait on each other: using {most}"
                ),
            );
            most
        }
        Some(n) => n.max(1),
    }
}

/// `podsim merge`: the prediction of every shard's runs together.
pub fn merge(args: MergeArgs) -> ExitCode {
    let stderr = &mut io::stderr().lock();
    let mut files = Vec::new();
    for path in &args.partials {
        match read_file(path) {
            Ok(source) => files.push((source.name.clone(), source.text.clone())),
            Err(e) => {
                problems::error(stderr, &e);
                return ExitCode::from(2);
            }
        }
    }
    match partial::merge(&files) {
        Ok(m) => {
            let runs = chosen(m.runs, &args.selection, stderr);
            let p = analyse(&runs, m.first_seed);
            emit(&render(&p, &m.scenario, args.output, args.dot, args.selection.orderings), stderr)
        }
        Err(e) => {
            problems::fail(stderr, e);
            ExitCode::from(2)
        }
    }
}

/// The prediction in its telling order ([`in_telling_order`]), as asked.
fn render(p: &Prediction, scenario: &str, output: Output, as_dot: bool, orderings: Orderings) -> String {
    let p = &in_telling_order(p.clone());
    match (as_dot, output) {
        (true, _) => dot(p),
        (false, Output::Table) => table(p, scenario, orderings),
        (false, Output::Jsonl) => format!("{}\n", to_json(p, orderings)),
    }
}

/// Whether `--orderings` prints the ALWAYS BEFORE and the ORDER VARIES sections.
fn sections(orderings: Orderings) -> (bool, bool) {
    match orderings {
        Orderings::Both => (true, true),
        Orderings::Always => (true, false),
        Orderings::Varies => (false, true),
        Orderings::None => (false, false),
    }
}

fn secs(t: SimTime) -> String {
    let ms = t.as_millis();
    format!("{}.{:03}s", ms / 1000, ms % 1000)
}

fn percent(n: u32, of: u32) -> String {
    format!("{:.1} %", 100.0 * n as f64 / of.max(1) as f64)
}

/// The milestone table, the reduced happens-before edges, and the races.
pub fn table(p: &Prediction, scenario: &str, orderings: Orderings) -> String {
    let (always, varies) = sections(orderings);
    let mut out = String::new();
    let _ = writeln!(out, "{scenario}: {} runs, seeds {}\n", p.runs, seed_range(p.first_seed, p.runs.into()));
    let w = p.names.iter().map(|n| n.len()).max().unwrap_or(9).max(9);
    let _ = writeln!(
        out,
        "{}  {:>11}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}",
        pad("MILESTONE", w),
        "REACHED",
        "MIN",
        "P50",
        "P95",
        "P99",
        "MAX"
    );
    for (name, s) in p.names.iter().zip(&p.stats) {
        let reached = format!("{}/{}", s.reached, s.runs);
        let _ = writeln!(
            out,
            "{}  {reached:>11}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}",
            pad(name, w),
            secs(s.min),
            secs(s.p50),
            secs(s.p95),
            secs(s.p99),
            secs(s.max)
        );
    }
    if let Some(n) = p.ordering.skipped.filter(|_| always || varies) {
        let _ = writeln!(
            out,
            "\nORDERING not computed: {n} milestones, more than the {MAX_ORDERED} podsim orders pairwise (choose fewer with -m)"
        );
        return out;
    }
    if always {
        let _ = writeln!(
            out,
            "\nALWAYS BEFORE (whenever the second happened, the first was earlier; transitively reduced)"
        );
        for (a, b) in &p.ordering.always_before {
            let _ = writeln!(out, "  {} → {}", p.names[*a], p.names[*b]);
        }
    }
    if !varies {
        return out;
    }
    let _ = writeln!(out, "\nORDER VARIES (closest to a coin toss first)");
    if p.ordering.varies.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for v in &p.ordering.varies {
        let both = v.before + v.same + v.after;
        let _ = writeln!(
            out,
            "  {} before {}: {} ({}), same instant {} ({}), after {} ({})",
            p.names[v.a],
            p.names[v.b],
            percent(v.before, both),
            v.before,
            percent(v.same, both),
            v.same,
            percent(v.after, both),
            v.after
        );
    }
    out
}

/// The prediction as one JSON object; the ordering sections not asked
/// for are left out.
pub fn to_json(p: &Prediction, orderings: Orderings) -> serde_json::Value {
    let s = |t: SimTime| t.as_millis() as f64 / 1000.0;
    let (always, varies) = sections(orderings);
    let mut v = json!({
        "runs": p.runs,
        "firstSeed": p.first_seed,
        "milestones": p.names.iter().zip(&p.stats).map(|(n, st)| json!({
            "name": n, "reached": st.reached, "min": s(st.min), "p50": s(st.p50),
            "p95": s(st.p95), "p99": s(st.p99), "max": s(st.max),
        })).collect::<Vec<_>>(),
        "orderingSkipped": p.ordering.skipped.is_some(),
        "alwaysBefore": p.ordering.always_before.iter().map(|(a, b)| json!([p.names[*a], p.names[*b]])).collect::<Vec<_>>(),
        "varies": p.ordering.varies.iter().map(|v| json!({
            "a": p.names[v.a], "b": p.names[v.b], "aFirst": v.before, "same": v.same, "bFirst": v.after,
        })).collect::<Vec<_>>(),
    });
    if let Some(o) = v.as_object_mut() {
        if !always {
            o.remove("alwaysBefore");
        }
        if !varies {
            o.remove("varies");
        }
    }
    v
}

/// The reduced happens-before graph in Graphviz DOT.
pub fn dot(p: &Prediction) -> String {
    let mut out = String::from("digraph happens_before {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n");
    if let Some(n) = p.ordering.skipped {
        let _ = writeln!(out, "  // not computed: {n} milestones, more than {MAX_ORDERED}");
    }
    for (a, b) in &p.ordering.always_before {
        let _ = writeln!(out, "  {:?} -> {:?};", &*p.names[*a], &*p.names[*b]);
    }
    out.push_str("}\n");
    out
}
