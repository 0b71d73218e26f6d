//! `podsim plot`: pictures of one run or of many.

use super::args::{CdfArgs, GraphArgs, Picture, PlotArgs, PlotInputs, Sweep, TimelineArgs};
use super::predict::ignored_rollout_timeout;
use super::problems;
use super::run::inputs as run_inputs;
use super::sweeping::{Progress, STOPPED, check_runs, say_stopped, stoppable};
use super::words;
use crate::plot::{Format, cdf, graph, save, timeline};
use crate::predict::{Runs, in_telling_order, predict, run_all};
use crate::run::{Prepared, simulate};
use crate::sweep::{Control, Swept};
use crate::time::SimTime;
use std::io::{self, Write};
use std::process::ExitCode;

/// Why no picture was written: bad input files, or a bad flag or write.
enum Failure {
    /// Bad input files, already reported.
    Input,
    Message(String),
    /// Ctrl-C or SIGTERM stopped the sweep after this many runs of so many.
    Stopped {
        done: u32,
        of: u32,
        first_seed: u64,
    },
}

pub fn plot(args: PlotArgs) -> ExitCode {
    // Not locked: a sweep's progress is written from its threads.
    let stderr = &mut io::stderr();
    let done = match args.picture {
        Picture::Timeline(a) => plot_timeline(a, stderr),
        Picture::Cdf(a) => plot_cdf(a, stderr),
        Picture::Graph(a) => plot_graph(a, stderr),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input) => ExitCode::from(2),
        Err(Failure::Message(m)) => {
            problems::fail(stderr, m);
            ExitCode::from(2)
        }
        Err(Failure::Stopped { done, of, first_seed }) => {
            say_stopped(done, of, first_seed, "no picture was written", stderr);
            ExitCode::from(STOPPED)
        }
    }
}

/// Checks the output's format before anything runs, then reads the inputs.
fn inputs(args: &PlotInputs, stderr: &mut impl Write) -> Result<Prepared, Failure> {
    Format::of(&args.output).map_err(Failure::Message)?;
    let inputs = run_inputs(&args.run, stderr).ok_or(Failure::Input)?;
    let prepared = problems::prepared(&inputs, stderr).ok_or(Failure::Input)?;
    ignored_rollout_timeout(&args.run, "a picture does not show what kubectl prints", stderr);
    Ok(prepared)
}

fn plot_timeline(args: TimelineArgs, stderr: &mut impl Write) -> Result<(), Failure> {
    let p = inputs(&args.inputs, stderr)?;
    let until = SimTime::ZERO + p.until;
    let trace = simulate(&p.setup, p.seed, until);
    trace.finished().map_err(|e| Failure::Message(e.problem(p.until).to_string()))?;
    let title = format!("{}: seed {}, {} simulated", words::inputs(&args.inputs.run), p.seed, p.until);
    save(&timeline::build(&trace, title, until), &args.inputs.output).map_err(Failure::Message)
}

/// `runs` seeded runs, with a progress bar on a terminal.
fn many(p: &Prepared, &Sweep { runs, jobs, progress }: &Sweep, stderr: &mut impl Write) -> Result<Runs, Failure> {
    check_runs(p.seed, runs).map_err(Failure::Message)?;
    let jobs = super::predict::jobs(jobs, stderr);
    let progress = Progress::new(runs as u64, progress);
    let tick = || progress.inc();
    let control = Control { progress: &tick, stop: stoppable() };
    let swept = run_all(&p.setup, p.seed, 0..runs, SimTime::ZERO + p.until, jobs, control);
    progress.finish();
    match swept {
        Swept::All(runs) => Ok(runs),
        Swept::Stopped(done) => Err(Failure::Stopped { done: done.seeds.len() as u32, of: runs, first_seed: p.seed }),
        Swept::Exhausted(e) => Err(Failure::Message(e.problem(p.until).to_string())),
    }
}

/// `N runs (seeds A–B)`.
fn over(p: &Prepared, runs: u32) -> String {
    format!("{runs} runs (seeds {})", crate::sweep::seed_range(p.seed, runs.into()))
}

fn plot_cdf(args: CdfArgs, stderr: &mut impl Write) -> Result<(), Failure> {
    let p = inputs(&args.inputs, stderr)?;
    let runs = many(&p, &args.sweep, stderr)?;
    let chosen = cdf::choose(&runs.names, &args.milestones).map_err(Failure::Message)?;
    let title = format!("{}: milestone times over {}", words::inputs(&args.inputs.run), over(&p, args.sweep.runs));
    save(&cdf::Cdf::new(&runs, &chosen, title), &args.inputs.output).map_err(Failure::Message)
}

fn plot_graph(args: GraphArgs, stderr: &mut impl Write) -> Result<(), Failure> {
    let p = inputs(&args.inputs, stderr)?;
    let runs = many(&p, &args.sweep, stderr)?;
    // The most telling first: boxes by median within a layer, the
    // closest races first among those listed.
    let prediction = in_telling_order(predict(&runs, p.seed));
    if let Some(n) = prediction.ordering.skipped {
        return Err(Failure::Message(format!(
            "{n} milestones: more than the {} podsim orders pairwise, so there is no graph to draw",
            crate::predict::MAX_ORDERED
        )));
    }
    let (shown, note) = graph::choose(&prediction, &args.milestones).map_err(Failure::Message)?;
    let title = format!(
        "{}: what always happens before what, over {}",
        words::inputs(&args.inputs.run),
        over(&p, args.sweep.runs)
    );
    save(&graph::Graph::new(&prediction, &shown, note, title), &args.inputs.output).map_err(Failure::Message)
}
