//! `podsim check`: judge recordings (or podsim traces) against the invariants.

use super::args::{CheckArgs, Output};
use super::color::{self, Style};
use super::problems;
use crate::cluster::{Cluster, Version};
use crate::envelope::{Envelope, Fit, envelopes, render};
use crate::error::{Error, Problem};
use crate::invariants::{Checker, Verdict, catalogue, check_files};
use crate::observe::read_file;
use crate::run::{Inputs, prepare};
use std::io::{self, Write};
use std::process::ExitCode;

/// What `check` says when no recording held anything it judges.
const NOTHING_READ: &str = "podsim: nothing to check: no pod, event, EndpointSlice or controller (ReplicaSet, \
                            Deployment, StatefulSet, Job) could be read";

pub fn check(args: CheckArgs) -> ExitCode {
    if args.list {
        let text = match args.output {
            Output::Table => list_table(),
            Output::Jsonl => list_json(),
        };
        let _ = io::stdout().lock().write_all(text.as_bytes());
        return ExitCode::SUCCESS;
    }
    let stderr = &mut io::stderr().lock();
    let cluster = match profile(&args) {
        Ok(c) => c,
        Err(e) => {
            problems::error(stderr, &e);
            return ExitCode::from(2);
        }
    };
    let paths: Vec<&std::path::Path> = args.traces.iter().map(|p| p.as_path()).collect();
    if let Some(scenario) = &args.against {
        // As for `podsim run`: --cluster and --kubernetes override the scenario's profile and version.
        let inputs = Inputs {
            scenario: Some(scenario.clone()),
            cluster: args.cluster.clone(),
            kubernetes: args.kubernetes.clone(),
            ..Inputs::default()
        };
        return against(&paths, &inputs, args.runs, args.output, stderr);
    }
    let (result, problems) = match check_files(&paths, Checker::new(cluster)) {
        Ok(r) => r,
        Err(e) => {
            problems::error(stderr, &e);
            return ExitCode::from(2);
        }
    };
    for p in &problems {
        problems::problem(stderr, &p.clone().warn());
    }
    if result.pods.is_empty() && result.controllers.is_empty() {
        let _ = writeln!(stderr, "{NOTHING_READ}");
        return ExitCode::from(2);
    }
    let stdout = &mut io::stdout().lock();
    let text = match args.output {
        Output::Table => result.render_with(&verdict),
        Output::Jsonl => serde_json::to_string_pretty(&result).unwrap_or_default() + "\n",
    };
    let _ = stdout.write_all(text.as_bytes());
    if result.violated() { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// `--against`: the invariants with the scenario's profile, then the envelope.
fn against(
    paths: &[&std::path::Path],
    inputs: &Inputs,
    runs: u32,
    output: Output,
    stderr: &mut impl Write,
) -> ExitCode {
    let scenario = inputs.scenario.as_deref().unwrap_or(std::path::Path::new("the scenario"));
    let prepared = match prepare(inputs) {
        Ok(p) => p,
        Err(e) => {
            problems::error(stderr, &e);
            return ExitCode::from(2);
        }
    };
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for path in paths {
        match read_file(path, &mut |r| records.push(r)) {
            Ok(p) => problems.extend(p),
            Err(e) => {
                problems::error(stderr, &e);
                return ExitCode::from(2);
            }
        }
    }
    let mut checker = Checker::new((*prepared.setup.cluster).clone());
    for r in &records {
        checker.observe(r);
    }
    let result = checker.report();
    let (envelopes, notes) = match envelopes(&records, &prepared, runs) {
        Ok(e) => e,
        Err(e) => {
            problems::error(stderr, &e);
            return ExitCode::from(2);
        }
    };
    for p in problems.iter().chain(&notes) {
        problems::problem(stderr, &p.clone().warn());
    }
    if result.pods.is_empty() && result.controllers.is_empty() {
        let _ = writeln!(stderr, "{NOTHING_READ}");
        return ExitCode::from(2);
    }
    let stdout = &mut io::stdout().lock();
    let text = match output {
        Output::Table => result.render_with(&verdict) + &render(&envelopes, &fit),
        Output::Jsonl => {
            let both = serde_json::json!({"invariants": result, "envelopes": envelopes});
            serde_json::to_string_pretty(&both).unwrap_or_default() + "\n"
        }
    };
    let _ = stdout.write_all(text.as_bytes());
    if result.violated() || envelopes.iter().any(Envelope::misses) {
        return ExitCode::from(1);
    }
    // Asked for an envelope and got none: not a pass.
    if envelopes.iter().all(|e| e.lines.is_empty()) {
        let _ = writeln!(
            stderr,
            "podsim: nothing to compare with {}: the recording gives no timing (the warnings above say why)",
            scenario.display()
        );
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// A verdict's word, coloured when stdout is: `holds` green, `VIOLATED` red.
fn verdict(v: &Verdict) -> String {
    let style = match v {
        Verdict::Holds { .. } => Style::Pass,
        Verdict::Violated { .. } => Style::Fail,
        Verdict::NotApplicable { .. } => return v.word().to_string(),
    };
    color::stdout().paint(style, v.word())
}

/// An envelope line's fit, coloured when stdout is: inside green, outside red, not simulated yellow.
fn fit(f: &Fit, text: String) -> String {
    let style = match f {
        Fit::Inside => Style::Pass,
        Fit::NotSimulated => Style::Unsure,
        Fit::Early { .. } | Fit::Late { .. } | Fit::Fewer { .. } | Fit::More { .. } => Style::Fail,
    };
    color::stdout().paint(style, &text)
}

/// `--list`: one block per invariant.
fn list_table() -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for (i, on) in catalogue() {
        let _ = writeln!(s, "{}  ({}; {})", i.name, i.scope.as_str(), on.as_str());
        let _ = writeln!(s, "  checks  {}", i.statement);
        let _ = writeln!(s, "  source  {}", i.source);
    }
    s
}

/// `--list -o json`: the catalogue as an array.
fn list_json() -> String {
    let all: Vec<serde_json::Value> = catalogue()
        .map(|(i, on)| {
            serde_json::json!({
                "name": i.name,
                "kind": i.scope.as_str(),
                "judgedOn": on.as_str(),
                "source": i.source,
                "checks": i.statement,
            })
        })
        .collect();
    serde_json::to_string_pretty(&all).unwrap_or_default() + "\n"
}

fn profile(args: &CheckArgs) -> Result<Cluster, Error> {
    let mut cluster = match &args.cluster {
        Some(p) => Cluster::load(&crate::scenario::read_file(p)?)?,
        None => Cluster::default(),
    };
    if let Some(v) = &args.kubernetes {
        let version = Version::parse(v).map_err(|e| Error::input(Problem::error(e).field("--kubernetes")))?;
        cluster = cluster.with_version(version).map_err(Error::input)?;
    }
    Ok(cluster)
}
