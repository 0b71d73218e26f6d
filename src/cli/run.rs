//! `podsim run`.

use super::args::{Output, RunArgs};
use super::report;
use crate::app::Behaviours;
use crate::check;
use crate::cluster::{Cluster, Version};
use crate::error::{Error, Problem};
use crate::manifest::Manifests;
use crate::run::{DEFAULT_EPOCH, setup, simulate};
use crate::scenario::{Scenario, parse_epoch, read_file};
use crate::time::{SimDuration, SimTime};
use crate::trace::jsonl::{self, Header, SCHEMA};
use crate::trace::render::Clock;
use crate::trace::table;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::process::ExitCode;

const DEFAULT_UNTIL: SimDuration = SimDuration::from_secs(600);

pub fn run(args: RunArgs) -> ExitCode {
    let stderr = &mut io::stderr().lock();
    let prepared = match prepare(&args) {
        Ok(p) => p,
        Err(e) => {
            report::error(stderr, &e);
            return ExitCode::from(2);
        }
    };
    for w in &prepared.warnings {
        report::problem(stderr, w);
    }
    let trace = simulate(
        &prepared.setup,
        prepared.seed,
        SimTime::ZERO + prepared.until,
    );
    let stdout = &mut io::stdout().lock();
    let written = match args.output {
        Output::Table => stdout.write_all(table::render(&table::rows(&trace)).as_bytes()),
        Output::Jsonl => {
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
            jsonl::write(&trace, &header, &prepared.clock, stdout)
        }
    };
    if let Err(e) = written.and_then(|_| stdout.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            let _ = writeln!(stderr, "error: writing the output: {e}");
            return ExitCode::from(2);
        }
    }
    let violations = check::check(&trace, &prepared.setup.cluster);
    if violations.is_empty() {
        return ExitCode::SUCCESS;
    }
    let _ = writeln!(
        stderr,
        "podsim: the simulated trace broke {} kubelet invariant(s) (seed {}):",
        violations.len(),
        prepared.seed
    );
    for v in &violations {
        let _ = writeln!(stderr, "  {v}");
    }
    ExitCode::from(1)
}

struct Prepared {
    setup: crate::sim::Setup,
    seed: u64,
    until: SimDuration,
    clock: Clock,
    warnings: Vec<Problem>,
}

/// Reads every input; flags override the scenario file.
fn prepare(args: &RunArgs) -> Result<Prepared, Error> {
    let scenario = match &args.scenario {
        Some(path) => Scenario::load(path, &read_file(path)?)?,
        None => Scenario::default(),
    };
    let manifest_paths = if args.manifests.is_empty() {
        scenario.manifests.clone()
    } else {
        args.manifests.clone()
    };
    if manifest_paths.is_empty() {
        return Err(Error::input(Problem::error(
            "no manifests: give a scenario file or -f MANIFEST",
        )));
    }
    let files = manifest_paths
        .iter()
        .map(|p| read_file(p))
        .collect::<Result<Vec<_>, _>>()?;
    let manifests = Manifests::load(&files)?;
    let behaviours = match args.app.as_ref().or(scenario.app.as_ref()) {
        Some(p) => Behaviours::load(&read_file(p)?)?,
        None => Behaviours::default(),
    };
    let mut cluster = match args.cluster.as_ref().or(scenario.cluster.as_ref()) {
        Some(p) => Cluster::load(&read_file(p)?)?,
        None => Cluster::default(),
    };
    if let Some(v) = &args.kubernetes {
        let version =
            Version::parse(v).map_err(|e| Error::input(Problem::error(e).field("--kubernetes")))?;
        cluster = cluster
            .with_version(version, &BTreeMap::new())
            .map_err(Error::input)?;
    }
    let epoch =
        parse_epoch(scenario.epoch.as_deref().unwrap_or(DEFAULT_EPOCH)).map_err(Error::input)?;
    let mut warnings = manifests.warnings.clone();
    let (setup, more) = setup(manifests, behaviours, cluster, epoch)?;
    warnings.extend(more);
    Ok(Prepared {
        setup,
        seed: args.seed.or(scenario.seed).unwrap_or(1),
        until: args.until.or(scenario.until).unwrap_or(DEFAULT_UNTIL),
        clock: Clock { epoch },
        warnings,
    })
}
