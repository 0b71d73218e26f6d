//! Scenario files: which manifests, app behaviour and cluster profile to run,
//! with which seed and for how long. Paths are relative to the scenario file.
//!
//! ```yaml
//! manifests: [../manifests/web.yaml]
//! app: ../apps/web.yaml
//! cluster: ../clusters/default.yaml
//! seed: 1
//! until: 10m
//! rolloutTimeout: 60s      # kubectl rollout status --timeout after each apply
//! maxEvents: 10000000     # the events one run may handle (`crate::budget`)
//! maxPods: 10000          # the pods one run may create
//! actions:                # see `actions`
//!   - {at: 60s, delete: pod/web}
//! gates:                  # readiness-gate controllers
//!   - {condition: example.com/lb, delay: 5s}
//! traffic:                # clients; see `traffic`
//!   - {to: service/web:80, every: 1s, count: 30}
//! ```

pub mod actions;
pub mod drain;
pub mod traffic;

use crate::dist::Dist;
use crate::error::{Error, Problem, SourceFile};
use crate::source::{Doc, parse_single};
use crate::time::SimDuration;
use actions::{ActionEntry, Timed};
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
    /// `kubectl rollout status --timeout` after each rollout.
    #[serde(default, rename = "rolloutTimeout")]
    rollout_timeout: Option<Dist>,
    /// The events one run may handle.
    #[serde(default, rename = "maxEvents")]
    max_events: Option<u64>,
    /// The pods one run may create.
    #[serde(default, rename = "maxPods")]
    max_pods: Option<u64>,
    #[serde(default)]
    epoch: Option<String>,
    #[serde(default)]
    actions: Vec<ActionEntry>,
    #[serde(default)]
    gates: Vec<GateEntry>,
    #[serde(default)]
    traffic: Vec<traffic::TrafficEntry>,
    /// The registry's answers, over the cluster profile's.
    #[serde(default)]
    registry: crate::cluster::registry::RegistryFile,
}

/// A readiness-gate controller: it sets the pod condition `condition` to
/// the pod's ContainersReady status, `delay` after it sees that change
/// (like a load balancer controller registering a healthy target).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GateEntry {
    condition: String,
    #[serde(default)]
    delay: Option<Dist>,
}

/// A modelled readiness-gate controller.
#[derive(Clone, Debug)]
pub struct GateController {
    pub condition: String,
    pub delay: Dist,
}

/// Where an action came from, for errors found when it is resolved.
#[derive(Clone, Debug)]
pub enum ActionOrigin {
    /// `actions[i]` (or `traffic[i]`) of the scenario file.
    File { doc: Doc, list: &'static str, index: usize },
    /// A command-line flag, as written.
    Flag(String),
}

impl ActionOrigin {
    /// A problem about `field` of the action (`delete`, `kill`, …).
    pub fn problem(&self, field: &str, message: String) -> Problem {
        match self {
            ActionOrigin::File { doc, list, index } => {
                let path =
                    if field.is_empty() { format!("{list}[{index}]") } else { format!("{list}[{index}].{field}") };
                doc.problem(&path, message)
            }
            ActionOrigin::Flag(flag) => Problem::error(format!("{flag}: {message}")),
        }
    }
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
    pub rollout_timeout: Option<SimDuration>,
    pub max_events: Option<u64>,
    pub max_pods: Option<u64>,
    pub epoch: Option<String>,
    pub actions: Vec<(Timed, ActionOrigin)>,
    pub gates: Vec<GateController>,
    pub traffic: Vec<(traffic::Traffic, ActionOrigin)>,
    pub registry: crate::cluster::registry::RegistryFile,
    /// The scenario's document, to locate a problem with a path it names.
    pub doc: Option<Doc>,
}

impl Scenario {
    /// Each path the scenario names that does not exist, at its field
    /// (flags given instead replace `manifests`, `app` or `cluster`).
    pub fn missing_paths(&self, manifests: bool, app: bool, cluster: bool) -> Vec<Problem> {
        let Some(doc) = &self.doc else { return Vec::new() };
        let mut named: Vec<(String, &PathBuf)> = Vec::new();
        if manifests {
            named.extend(self.manifests.iter().enumerate().map(|(i, p)| (format!("manifests[{i}]"), p)));
        }
        named.extend(self.app.iter().filter(|_| app).map(|p| ("app".to_string(), p)));
        named.extend(self.cluster.iter().filter(|_| cluster).map(|p| ("cluster".to_string(), p)));
        named
            .into_iter()
            .filter_map(|(field, p)| {
                let shown = format!("{:?}", p.display().to_string());
                // `manifests` may name a directory (every file in it is read); `app` and `cluster` are one file each.
                let message = match unreadable(p, !field.starts_with("manifests"))? {
                    Unreadable::Missing => format!(
                        "the path {shown} does not exist (a path in a scenario is relative to the scenario's directory)"
                    ),
                    Unreadable::Directory => format!("the path {shown} is a directory: `{field}` names one file"),
                };
                Some(doc.problem(&field, message))
            })
            .collect()
    }

    pub fn load(path: &Path, file: &Arc<SourceFile>) -> Result<Scenario, Error> {
        not_manifests(file)?;
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
        let rollout_timeout = match f.rollout_timeout {
            None => None,
            Some(Dist::Fixed(d)) => Some(d),
            Some(_) => {
                return Err(Error::input(doc.problem("rolloutTimeout", "must be a fixed duration")));
            }
        };
        if f.max_events == Some(0) {
            return Err(Error::input(doc.problem("maxEvents", "must be at least 1: a run handles at least one event")));
        }
        if f.max_pods == Some(0) {
            return Err(Error::input(doc.problem("maxPods", "must be at least 1")));
        }
        if let Some(e) = &f.epoch
            && let Err(p) = parse_epoch(e)
        {
            return Err(Error::input(doc.problem("epoch", p.message)));
        }
        let mut actions = Vec::new();
        let mut problems = Vec::new();
        for (index, entry) in f.actions.iter().enumerate() {
            let origin = ActionOrigin::File { doc: doc.clone(), list: "actions", index };
            match entry.resolve() {
                Ok(mut t) => {
                    if let actions::Action::Apply { file } = &mut t.action {
                        *file = base.join(&*file);
                    }
                    actions.push((t, origin))
                }
                Err((field, message)) => problems.push(origin.problem(field, message)),
            }
        }
        let mut clients = Vec::new();
        for (index, entry) in f.traffic.iter().enumerate() {
            let origin = ActionOrigin::File { doc: doc.clone(), list: "traffic", index };
            match entry.resolve() {
                Ok(t) => clients.push((t, origin)),
                Err((field, message)) => problems.push(origin.problem(field, message)),
            }
        }
        for (i, g) in f.gates.iter().enumerate() {
            if let Some(e) = crate::manifest::qualified_name_errors(&g.condition).first() {
                problems.push(doc.problem(&format!("gates[{i}].condition"), format!("{:?}: {e}", g.condition)));
            }
        }
        if !problems.is_empty() {
            return Err(Error::Input(problems));
        }
        let gates = f
            .gates
            .iter()
            .map(|g| GateController {
                condition: g.condition.clone(),
                delay: g.delay.clone().unwrap_or(Dist::Fixed(SimDuration::ZERO)),
            })
            .collect();
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
            rollout_timeout,
            max_events: f.max_events,
            max_pods: f.max_pods,
            epoch: f.epoch,
            actions,
            gates,
            traffic: clients,
            registry: f.registry,
            doc: Some(doc),
        })
    }
}

/// A file of Kubernetes objects given where a scenario goes (`podsim run
/// ds.yaml`): said as such, with the flag that reads it, rather than
/// refused field by field as a scenario.
fn not_manifests(file: &Arc<SourceFile>) -> Result<(), Error> {
    let Ok(docs) = crate::source::parse_documents(file) else { return Ok(()) };
    let objects: Vec<String> = (docs.iter().map(Doc::to_json))
        .filter(|v| v.get("apiVersion").is_some())
        .filter_map(|v| {
            let kind = v.get("kind")?.as_str()?.to_string();
            let name = v.pointer("/metadata/name").and_then(|n| n.as_str());
            Some(name.map_or(kind.clone(), |n| format!("{kind} {n}")))
        })
        .collect();
    let Some(first) = objects.first() else { return Ok(()) };
    let more = match objects.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    let message = format!(
        "this file holds Kubernetes objects ({first}{more}), not a podsim scenario: give manifests with -f, as kubectl does (podsim run -f {})",
        file.name
    );
    Err(Error::input(Problem::error(message).in_file(file, None)))
}

/// Why a path an input names cannot be read as one, found before reading.
pub enum Unreadable {
    Missing,
    /// A directory where one file is read (`app`, `cluster`, `--app`, `--cluster`).
    Directory,
}

/// What keeps `path` from being read, if anything; `one_file`: a directory will not do.
pub fn unreadable(path: &Path, one_file: bool) -> Option<Unreadable> {
    match std::fs::metadata(path) {
        Err(_) => Some(Unreadable::Missing),
        Ok(m) if m.is_dir() && one_file => Some(Unreadable::Directory),
        Ok(_) => None,
    }
}

/// Reads a file for podsim, keeping its text for error messages.
pub fn read_file(path: &Path) -> Result<Arc<SourceFile>, Error> {
    let name = path.display().to_string();
    let file = open_input(path)?;
    let source = read_source(file, name.clone())?;
    if source.text.is_empty() && is_fifo(path) {
        return Err(Error::input(Problem::error(format!(
            "{name}: a named pipe with no writer: nothing was read (start what writes it before podsim)"
        ))));
    }
    Ok(source)
}

/// Opens an input file for reading. A named pipe is opened without
/// waiting for a writer (open(2) would block until one comes, forever if
/// none does); reading it then ends at once when it has none, and waits
/// for the data of one that is there (`<(helm template …)`).
pub fn open_input(path: &Path) -> Result<std::fs::File, Error> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let io = |source| Error::Io { path: path.display().to_string(), source };
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(io)?;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns, with flags it read from it.
    let cleared = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) >= 0
    };
    if !cleared {
        return Err(io(std::io::Error::last_os_error()));
    }
    Ok(file)
}

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// The most podsim reads of one input file: a device or an endless pipe
/// given as a file stops there, with a message.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// An input read whole, up to [`MAX_FILE_BYTES`], as UTF-8 text.
pub fn read_source(input: impl std::io::Read, name: String) -> Result<Arc<SourceFile>, Error> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = input.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes);
    read.map_err(|source| Error::Io { path: name.clone(), source })?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        let message = format!(
            "{name}: more than {} MiB: podsim reads input files of at most that size (a device or an endless stream given as a file? split a real one)",
            MAX_FILE_BYTES >> 20
        );
        return Err(Error::Input(vec![Problem::error(message)]));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        // Where the text stops being UTF-8, so the byte can be found and fixed.
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
        let column = at - bytes[..at].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1) + 1;
        let message = format!(
            "{name}:{line}:{column}: not UTF-8 text: byte {at} (0x{:02x}) starts no UTF-8 character (a binary file, or text in another encoding: save it as UTF-8)",
            bytes[at]
        );
        Error::Input(vec![Problem::error(message)])
    })?;
    Ok(Arc::new(SourceFile { name, text }))
}

/// Parses an RFC 3339 epoch such as `2026-01-01T00:00:00Z`.
pub fn parse_epoch(text: &str) -> Result<k8s_openapi::jiff::Timestamp, Problem> {
    text.parse().map_err(|e| {
        Problem::error(format!("{text:?} is not an RFC 3339 time such as 2026-01-01T00:00:00Z ({e})")).field("epoch")
    })
}
