//! `podsim report`: the HTML page of a run, and with --runs of a prediction.

use super::args::ReportArgs;
use super::predict::jobs;
use super::problems;
use super::run::inputs;
use super::sweeping::{Progress, STOPPED, check_runs, say_stopped, stoppable};
use crate::predict::{predict, run_all};
use crate::report::{Page, RunPart, SweepPart, seeds};
use crate::run::{Prepared, add_rollout_status, simulate};
use crate::sweep::{Control, Swept};
use crate::time::SimTime;
use crate::trace::Trace;
use std::io;
use std::process::ExitCode;

/// Seeds listed at each end of the ranking; each gets its own timeline.
const RANKED: usize = 3;

pub fn report(args: ReportArgs) -> ExitCode {
    // Not locked: a sweep's progress is written from its threads.
    let stderr = &mut io::stderr();
    let Some(inputs) = inputs(&args.inputs, stderr) else { return ExitCode::from(2) };
    let Some(p) = problems::prepared(&inputs, stderr) else { return ExitCode::from(2) };
    let until = SimTime::ZERO + p.until;
    let trace = |seed: u64| {
        let mut t = simulate(&p.setup, seed, until);
        if let Some(timeout) = p.rollout_timeout {
            add_rollout_status(&mut t, &p.setup, timeout);
        }
        t
    };
    let first = trace(p.seed);
    if let Some(e) = first.exhausted {
        return problems::exhausted(stderr, &e, p.until);
    }
    let threads = jobs(args.jobs, stderr);
    let sweep = match args.runs {
        None => None,
        Some(n) => {
            if let Err(e) = check_runs(p.seed, n) {
                problems::fail(stderr, e);
                return ExitCode::from(2);
            }
            let progress = Progress::new(n as u64, args.progress);
            let tick = || progress.inc();
            let control = Control { progress: &tick, stop: stoppable() };
            let swept = run_all(&p.setup, p.seed, 0..n, until, threads, control);
            progress.finish();
            let runs = match swept {
                Swept::All(runs) => runs,
                Swept::Stopped(done) => {
                    say_stopped(done.seeds.len() as u32, n, p.seed, "no page was written", stderr);
                    return ExitCode::from(STOPPED);
                }
                Swept::Exhausted(e) => return problems::exhausted(stderr, &e, p.until),
            };
            let prediction = predict(&runs, p.seed);
            let ranking = seeds::rank(&runs, RANKED);
            Some((runs, prediction, ranking))
        }
    };
    // The ranked seeds' own runs, each once, in the ranking's order.
    let mut others: Vec<(u64, String, Trace)> = Vec::new();
    if let Some((_, _, Some(r))) = &sweep {
        let ends = [("slowest", &r.slowest), ("fastest", &r.fastest)];
        for (end, list) in ends {
            for (i, (seed, _)) in list.iter().enumerate() {
                if *seed != p.seed && !others.iter().any(|(s, ..)| s == seed) {
                    others.push((*seed, format!("{} {end}", ordinal(i)), trace(*seed)));
                }
            }
        }
    }
    let part = |seed: u64, heading: String, trace| RunPart { seed, heading, trace, clock: &p.clock, until };
    let mut runs = vec![part(p.seed, "The first run".into(), &first)];
    runs.extend(others.iter().map(|(seed, heading, t)| part(*seed, heading.clone(), t)));
    let page = Page {
        title: format!("podsim report: {}", name(&args)),
        facts: facts(&p, &args),
        runs,
        sweep: sweep.as_ref().map(|(runs, prediction, ranking)| SweepPart {
            runs,
            prediction,
            ranking: ranking.as_ref(),
        }),
    };
    let text = page.html();
    if args.output.as_os_str() == "-" {
        return problems::emit(&text, stderr);
    }
    match std::fs::write(&args.output, text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            problems::fail(stderr, format_args!("{}: {e}", args.output.display()));
            ExitCode::from(2)
        }
    }
}

/// `The slowest`, `The 2nd slowest`, `The 3rd slowest`.
fn ordinal(i: usize) -> &'static str {
    ["The", "The 2nd", "The 3rd"].get(i).copied().unwrap_or("A")
}

/// The scenario's path, else the manifests'.
fn name(args: &ReportArgs) -> String {
    match &args.inputs.scenario {
        Some(s) => s.display().to_string(),
        None => args.inputs.manifests.iter().map(|m| m.display().to_string()).collect::<Vec<_>>().join(", "),
    }
}

fn facts(p: &Prepared, args: &ReportArgs) -> Vec<(&'static str, String)> {
    let mut out = vec![
        ("seed", p.seed.to_string()),
        ("simulated", p.until.to_string()),
        ("Kubernetes", p.setup.cluster.version.to_string()),
        ("cluster", p.setup.cluster.name.clone()),
    ];
    if let Some(n) = args.runs {
        out.push(("runs", n.to_string()));
    }
    out.push(("podsim", env!("CARGO_PKG_VERSION").to_string()));
    out
}
