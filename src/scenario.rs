//! Scenario files: which manifests, app behaviour and cluster profile to run,
//! with which seed and for how long. Paths are relative to the scenario file.
//!
//! ```yaml
//! manifests: [../manifests/web.yaml]
//! app: ../apps/web.yaml
//! cluster: ../clusters/default.yaml
//! seed: 1
//! until: 10m
//! ```

use crate::dist::Dist;
use crate::error::{Error, Problem, SourceFile};
use crate::source::parse_single;
use crate::time::SimDuration;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    manifests: Vec<String>,
    #[serde(default)]
    app: Option<String>,
    #[serde(default)]
    cluster: Option<String>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    until: Option<Dist>,
    #[serde(default)]
    epoch: Option<String>,
}

/// A scenario with its paths resolved.
#[derive(Clone, Debug, Default)]
pub struct Scenario {
    pub description: Option<String>,
    pub manifests: Vec<PathBuf>,
    pub app: Option<PathBuf>,
    pub cluster: Option<PathBuf>,
    pub seed: Option<u64>,
    pub until: Option<SimDuration>,
    pub epoch: Option<String>,
}

impl Scenario {
    pub fn load(path: &Path, file: &Arc<SourceFile>) -> Result<Scenario, Error> {
        let doc = parse_single(file)?;
        let f: ScenarioFile = doc.decode().map_err(Error::input)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let until = match f.until {
            None => None,
            Some(Dist::Fixed(d)) => Some(d),
            Some(_) => {
                return Err(Error::input(doc.problem("until", "must be a fixed duration")));
            }
        };
        if let Some(e) = &f.epoch
            && let Err(p) = parse_epoch(e)
        {
            return Err(Error::input(doc.problem("epoch", p.message)));
        }
        if f.manifests.is_empty() {
            return Err(Error::input(
                doc.problem("manifests", "Required value: a scenario names at least one manifest"),
            ));
        }
        Ok(Scenario {
            description: f.description,
            manifests: f.manifests.iter().map(|m| base.join(m)).collect(),
            app: f.app.map(|a| base.join(a)),
            cluster: f.cluster.map(|c| base.join(c)),
            seed: f.seed,
            until,
            epoch: f.epoch,
        })
    }
}

/// Reads a file for podsim, keeping its text for error messages.
pub fn read_file(path: &Path) -> Result<Arc<SourceFile>, Error> {
    let text =
        std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    Ok(Arc::new(SourceFile { name: path.display().to_string(), text }))
}

/// Parses an RFC 3339 epoch such as `2026-01-01T00:00:00Z`.
pub fn parse_epoch(text: &str) -> Result<k8s_openapi::jiff::Timestamp, Problem> {
    text.parse().map_err(|e| {
        Problem::error(format!("{text:?} is not an RFC 3339 time such as 2026-01-01T00:00:00Z ({e})")).field("epoch")
    })
}
