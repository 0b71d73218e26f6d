//! `podsim check`: judge recordings (or podsim traces) against the invariants.

use super::args::{CheckArgs, Output};
use super::report;
use crate::cluster::{Cluster, Version};
use crate::error::{Error, Problem};
use crate::invariants::{Checker, check_files};
use crate::scenario::read_file;
use std::io::{self, Write};
use std::process::ExitCode;

pub fn check(args: CheckArgs) -> ExitCode {
    let stderr = &mut io::stderr().lock();
    let cluster = match profile(&args) {
        Ok(c) => c,
        Err(e) => {
            report::error(stderr, &e);
            return ExitCode::from(2);
        }
    };
    let paths: Vec<&std::path::Path> = args.traces.iter().map(|p| p.as_path()).collect();
    let (result, problems) = match check_files(&paths, Checker::new(cluster)) {
        Ok(r) => r,
        Err(e) => {
            report::error(stderr, &e);
            return ExitCode::from(2);
        }
    };
    for p in &problems {
        report::problem(stderr, &p.clone().warn());
    }
    if result.pods.is_empty() {
        let _ = writeln!(stderr, "podsim: nothing to check: no pod, event or EndpointSlice could be read");
        return ExitCode::from(2);
    }
    let stdout = &mut io::stdout().lock();
    let text = match args.output {
        Output::Table => result.render(),
        Output::Jsonl => serde_json::to_string_pretty(&result).unwrap_or_default() + "\n",
    };
    let _ = stdout.write_all(text.as_bytes());
    if result.violated() { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

fn profile(args: &CheckArgs) -> Result<Cluster, Error> {
    let mut cluster = match &args.cluster {
        Some(p) => Cluster::load(&read_file(p)?)?,
        None => Cluster::default(),
    };
    if let Some(v) = &args.kubernetes {
        let version = Version::parse(v).map_err(|e| Error::input(Problem::error(e).field("--kubernetes")))?;
        cluster = cluster.with_version(version).map_err(Error::input)?;
    }
    Ok(cluster)
}
