//! `podsim run`.

use super::args::{Output, RunArgs, RunInputs};
use super::problems;
use crate::error::Error;
use crate::invariants::check_run;
use crate::run::{Inputs, Prepared, add_rollout_status, simulate_watched};
use crate::scenario::ActionOrigin;
use crate::scenario::actions::{Action, Timed};
use crate::scenario::actions::{
    NodeFault, REBOOT_DOWN, parse_condition_flag, parse_cordon_flag, parse_delete_flag, parse_kill_flag,
    parse_node_flag, parse_patch_flag,
};
use crate::scenario::drain::{parse_drain_flag, parse_evict_flag};
use crate::scenario::traffic::parse_traffic_flag;
use crate::time::SimTime;
use crate::trace::jsonl::{self, Header, SCHEMA};
use crate::trace::{Trace, table};
use std::io::{self, Write};
use std::process::ExitCode;

/// The run's inputs from the command line: the flags' actions and traffic
/// parsed (`None` after reporting a bad one).
pub(super) fn inputs(args: &RunInputs, stderr: &mut impl Write) -> Option<Inputs> {
    let mut actions = Vec::new();
    let mut bad = Vec::new();
    for (flag, values) in args.action_flags() {
        for v in values {
            let parsed = match flag {
                "--delete" => parse_delete_flag(v),
                "--set-condition" => parse_condition_flag(v),
                "--patch" => parse_patch_flag(v),
                "--cordon" => parse_cordon_flag(v, true),
                "--uncordon" => parse_cordon_flag(v, false),
                "--evict" => parse_evict_flag(v).map(|(at, pod, grace_period_seconds)| Timed {
                    at,
                    action: Action::Evict { pod, grace_period_seconds },
                }),
                "--drain" => parse_drain_flag(v).map(|(at, d)| Timed { at, action: Action::Drain(d) }),
                "--node-down" => parse_node_flag(v, NodeFault::Down { back: None }),
                "--restart-kubelet" => parse_node_flag(v, NodeFault::RestartKubelet),
                "--reboot" => parse_node_flag(v, NodeFault::Reboot { down: REBOOT_DOWN }),
                "--add-node" => parse_node_flag(v, NodeFault::Join),
                _ => parse_kill_flag(v),
            };
            let origin = ActionOrigin::Flag(format!("{flag} {v}"));
            match parsed {
                Ok(t) => actions.push((t, origin)),
                Err(e) => bad.push(origin.problem("", e)),
            }
        }
    }
    let mut traffic = Vec::new();
    for v in &args.traffic {
        let origin = ActionOrigin::Flag(format!("--traffic {v}"));
        match parse_traffic_flag(v) {
            Ok(t) => traffic.push((t, origin)),
            Err(e) => bad.push(origin.problem("", e)),
        }
    }
    if !bad.is_empty() {
        problems::error(stderr, &Error::Input(bad));
        return None;
    }
    Some(Inputs {
        scenario: args.scenario.clone(),
        manifests: args.manifests.clone(),
        recursive: args.recursive,
        namespace: args.namespace.clone(),
        app: args.app.clone(),
        cluster: args.cluster.clone(),
        kubernetes: args.kubernetes.clone(),
        seed: args.seed,
        until: args.until,
        rollout_timeout: args.rollout_timeout,
        max_events: args.max_events,
        max_pods: args.max_pods,
        actions,
        traffic,
    })
}

pub fn run(args: RunArgs) -> ExitCode {
    let stderr = &mut io::stderr().lock();
    let Some(inputs) = inputs(&args.inputs, stderr) else { return ExitCode::from(2) };
    let Some(prepared) = problems::prepared(&inputs, stderr) else { return ExitCode::from(2) };
    let until = SimTime::ZERO + prepared.until;
    let mut trace = simulate_watched(&prepared.setup, prepared.seed, until, &mut super::sweeping::one_run(until));
    // Nothing is printed of a run that did not reach its end: it would read as a whole run.
    if let Some(e) = trace.exhausted {
        return problems::exhausted(stderr, &e, prepared.until);
    }
    if let Some(timeout) = prepared.rollout_timeout {
        add_rollout_status(&mut trace, &prepared.setup, timeout);
    }
    // The invariants are checked on a second thread while the output is
    // written: both only read the trace (on rollout-1000 each takes a second).
    let (written, report) = std::thread::scope(|scope| {
        let check = scope.spawn(|| check_run(&trace, &prepared.clock, &prepared.setup, SimTime::ZERO + prepared.until));
        let written = write_output(&args, &trace, &prepared, stderr);
        (written, check.join())
    });
    let report = report.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    if let Err(e) = written
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        problems::fail(stderr, format_args!("writing the output: {e}"));
        return ExitCode::from(2);
    }
    if !report.violated() {
        return ExitCode::SUCCESS;
    }
    let _ = writeln!(stderr, "podsim: the simulated trace broke a kubelet invariant (seed {}):", prepared.seed);
    let _ = write!(stderr, "{}", report.render_violations());
    ExitCode::from(1)
}

/// The run's table or JSON Lines on the standard output.
fn write_output(args: &RunArgs, trace: &Trace, prepared: &Prepared, stderr: &mut impl Write) -> io::Result<()> {
    // Buffered: the standard output is line-buffered, one write(2) a line (465,000 for rollout-1000).
    let stdout = &mut io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match args.output {
        Output::Table => {
            let all = table::rows(trace, &prepared.clock);
            for p in &args.only {
                if table::only(all.clone(), std::slice::from_ref(p)).is_empty() {
                    problems::warn(stderr, format_args!("--only {p}: no row of the run is about such an object"));
                }
            }
            for t in &args.types {
                if !all.iter().any(|r| r.kind == *t) {
                    problems::warn(stderr, format_args!("--types {}: no row of the run is of this type", t.as_str()));
                }
            }
            let rows = table::of_types(table::only(all, &args.only), &args.types);
            stdout.write_all(table::render(&rows).as_bytes())?;
        }
        Output::Jsonl => {
            if !args.only.is_empty() || !args.types.is_empty() {
                problems::warn(stderr, "--only and --types narrow the table; -o jsonl writes every record");
            }
            let cluster = &prepared.setup.cluster;
            let header = Header {
                schema: SCHEMA,
                podsim: env!("CARGO_PKG_VERSION"),
                seed: prepared.seed,
                epoch: prepared.clock.epoch.to_string(),
                kubernetes: cluster.version.to_string(),
                cluster: cluster.name.clone(),
                feature_gates: cluster.gates.iter().collect(),
                until: prepared.until.as_secs_f64(),
            };
            jsonl::write(trace, &header, &prepared.clock, stdout)?;
        }
    }
    stdout.flush()
}
