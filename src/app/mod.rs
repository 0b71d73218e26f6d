//! App behaviour files: how each container's process behaves over time.
//!
//! ```yaml
//! containers:
//!   app:
//!     listen: 300ms
//!     ports: [8080]
//!     http:
//!       /ready: [{until: 10s, status: 503}, {status: 200, latency: 5ms}]
//!     exec:
//!       "cat /tmp/healthy": [{until: 30s, exit: 0}, {exit: 1}]
//!     grpc: {"": [{status: SERVING}]}
//!     exit: {after: 1s, code: 1}
//!     sigterm: {exit_after: 3s, code: 0}
//!     address_in_use: {exit_after: 0s, code: 1}
//!     memory: [{until: 30s, rss: 50Mi}, {rss: 300Mi}]
//! ```
//!
//! A container may instead map to a list of such behaviours: the n-th applies
//! to the container's n-th instance (restartCount n) and the last one to every
//! later instance — real apps often behave differently once restarted.
//!
//! A container the file does not describe is read from itself when podsim
//! can ([`infer`]): a well-known image, or a shell script.

pub mod images;
pub mod infer;
mod memory;
mod process;
mod schema;
pub mod shell;

pub use memory::{MemoryPhase, MemoryUse, Rss};
pub use process::{ExecAnswer, GrpcAnswer, HttpAnswer, HttpResponse, Moments, OnAddressInUse, OnSigterm, Plan};
pub use schema::{
    AddressInUseSpec, ContainerBehaviour, ExitSpec, Forward, GrpcStatus, HttpAnswerSpec, HttpPhase, Phase, Port,
    REDIRECT_STATUSES, SigtermSpec,
};

use crate::error::{Error, Problem, SourceFile};
use crate::source::{Doc, decode_value, key_path, parse_single};
use crate::spec::ContainerSpec;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The behaviours of every container named in a behaviour file.
#[derive(Clone, Debug, Default)]
pub struct Behaviours {
    /// Per container name, the behaviour of each instance (last one repeats).
    containers: BTreeMap<String, Vec<Arc<ContainerBehaviour>>>,
    /// Where each container's entry is, for errors found later (unknown names).
    pub(crate) origin: Option<Doc>,
    /// What the file says that the kubelet would not act on.
    pub warnings: Vec<Problem>,
    /// Behaviours read from containers the file does not describe, by
    /// what inference reads (`inference_key`).
    inferred: BTreeMap<String, Arc<ContainerBehaviour>>,
}

/// The variable an Indexed Job gives each container of its pods.
pub const JOB_COMPLETION_INDEX: &str = "JOB_COMPLETION_INDEX";

/// An entry `NAME[INDEXES]` (`worker[0,2-4]`): the container name and the
/// completion indexes, written as a Job's `completedIndexes` is.
fn indexed_key(key: &str) -> Option<(&str, crate::spec::job::Intervals)> {
    let (name, rest) = key.split_once('[')?;
    let set = rest.strip_suffix(']')?;
    Some((name, crate::spec::job::Intervals::parse(set, u32::MAX).ok()?))
}

/// What inference reads of a container: its image, argv, environment and
/// exec commands. `JOB_COMPLETION_INDEX` counts only where the script names
/// it: every index of an Indexed Job runs the same script otherwise.
fn inference_key(c: &ContainerSpec) -> String {
    use crate::spec::{Handler, HookHandler};
    let probes = [&c.startup, &c.readiness, &c.liveness].into_iter().flatten().filter_map(|p| match &p.handler {
        Handler::Exec { command } => Some(command),
        _ => None,
    });
    let hooks = [&c.post_start, &c.pre_stop].into_iter().flatten().filter_map(|h| match h {
        HookHandler::Exec { command } => Some(command),
        _ => None,
    });
    let execs: Vec<&Vec<String>> = probes.chain(hooks).collect();
    let names_index = c.command.iter().chain(&c.args).any(|a| a.contains(JOB_COMPLETION_INDEX));
    let env: Vec<&(String, String)> = c.env.iter().filter(|(k, _)| names_index || k != JOB_COMPLETION_INDEX).collect();
    format!("{}\0{:?}\0{:?}\0{:?}\0{execs:?}\0{:?}", c.image, c.command, c.args, env, c.mounts)
}

impl Behaviours {
    /// Only the behaviours of the containers named (a pod simulated on its own).
    pub fn only(&self, names: &[&str]) -> Behaviours {
        let mut containers = self.containers.clone();
        containers.retain(|k, _| names.contains(&k.as_str()));
        let (origin, warnings, inferred) = (self.origin.clone(), self.warnings.clone(), self.inferred.clone());
        Behaviours { containers, origin, warnings, inferred }
    }

    /// Reads `c` from itself unless the file describes it: `None` when the
    /// file does; else the inference, kept for the run when it succeeds.
    pub fn infer(
        &mut self,
        c: &ContainerSpec,
        mounted: &[(String, Option<String>)],
    ) -> Option<Result<infer::Inferred, String>> {
        if self.containers.contains_key(&*c.name) {
            return None;
        }
        let key = inference_key(c);
        let inferred = infer::infer(c, mounted);
        if let Ok(i) = &inferred {
            self.inferred.insert(key, i.behaviour.clone());
        }
        Some(inferred)
    }

    /// The behaviour of instance `restart_count` of container `c`: the
    /// file's, else the one inferred from the container, else `None`
    /// (podsim's default app).
    pub fn for_container(&self, c: &ContainerSpec, restart_count: u32) -> Option<Arc<ContainerBehaviour>> {
        if let Some(b) = self.for_index(c, restart_count) {
            return Some(b);
        }
        if let Some(b) = self.for_instance(&c.name, restart_count) {
            return Some(b);
        }
        match self.inferred.is_empty() {
            true => None,
            false => self.inferred.get(&inference_key(c)).cloned(),
        }
    }

    /// As [`names_ports`](Self::names_ports), counting an inferred behaviour.
    pub fn names_ports_of(&self, c: &ContainerSpec) -> bool {
        self.names_ports(&c.name) || self.for_container(c, 0).is_some_and(|b| b.ports.is_some())
    }

    /// As [`answers_exec`](Self::answers_exec), counting an inferred behaviour.
    pub fn answers_exec_of(&self, c: &ContainerSpec, command: &str) -> bool {
        self.answers_exec(&c.name, command)
            || (!self.containers.contains_key(&*c.name)
                && self.for_container(c, 0).is_some_and(|b| b.exec.contains_key(command)))
    }

    /// The behaviour of `container`'s instance number `restart_count`, or `None`
    /// when the file does not mention it (podsim's default app then applies).
    pub fn for_instance(&self, container: &str, restart_count: u32) -> Option<Arc<ContainerBehaviour>> {
        let list = self.containers.get(container)?;
        let i = (restart_count as usize).min(list.len() - 1);
        Some(list[i].clone())
    }

    /// The container names the file describes (an indexed entry
    /// `worker[0,2-4]` by its container's name).
    pub fn container_names(&self) -> impl Iterator<Item = &str> {
        let mut names: Vec<&str> =
            self.containers.keys().map(|k| indexed_key(k).map_or(k.as_str(), |(n, _)| n)).collect();
        names.dedup();
        names.into_iter()
    }

    /// The entry `NAME[INDEXES]` whose indexes hold the container's
    /// `JOB_COMPLETION_INDEX` (an Indexed Job's pod), for instance `restart_count`.
    fn for_index(&self, c: &ContainerSpec, restart_count: u32) -> Option<Arc<ContainerBehaviour>> {
        let index: u32 = c.env.iter().find(|(k, _)| k == JOB_COMPLETION_INDEX)?.1.parse().ok()?;
        let (_, list) = self
            .containers
            .iter()
            .find(|(k, _)| indexed_key(k).is_some_and(|(name, set)| name == &*c.name && set.contains(index)))?;
        let i = (restart_count as usize).min(list.len() - 1);
        Some(list[i].clone())
    }

    /// True when the file describes `container` and every instance of it
    /// names its `ports`: podsim assumes nothing about where it listens.
    pub fn names_ports(&self, container: &str) -> bool {
        self.containers.get(container).is_some_and(|list| list.iter().all(|b| b.ports.is_some()))
    }

    /// True when the file describes `container` and every instance of it
    /// gives `command`'s exit codes (argv joined by single spaces).
    pub fn answers_exec(&self, container: &str, command: &str) -> bool {
        self.containers.get(container).is_some_and(|list| list.iter().all(|b| b.exec.contains_key(command)))
    }

    /// A problem pointing at the entry for `container`.
    pub fn problem_at(&self, container: &str, message: String) -> Problem {
        match &self.origin {
            Some(doc) => doc.problem(&key_path("containers", container), message),
            None => Problem::error(message),
        }
    }

    /// Reads and checks a behaviour file.
    pub fn load(file: &Arc<SourceFile>) -> Result<Behaviours, Error> {
        let doc = parse_single(file)?;
        let mut problems = Vec::new();
        let mut warnings = Vec::new();
        let mut containers = BTreeMap::new();
        let json = doc.to_json();
        let Some(top) = json.as_object() else {
            return Err(Error::input(doc.problem("", "a behaviour file is a mapping with a `containers` key")));
        };
        for key in top.keys().filter(|k| *k != "containers") {
            problems.push(doc.problem(key, format!("unknown field `{key}`, expected `containers`")));
        }
        match top.get("containers") {
            Some(serde_json::Value::Object(map)) => {
                for (name, value) in map {
                    let path = key_path("containers", name);
                    if name.contains('[') && indexed_key(name).is_none() {
                        let message = format!(
                            "{name:?}: an entry for some pods of an Indexed Job is NAME[INDEXES], its indexes written as a Job's completedIndexes (e.g. worker[0,2-4]): the pods whose JOB_COMPLETION_INDEX is one of them"
                        );
                        problems.push(doc.problem(&path, message));
                        continue;
                    }
                    match read_container(&doc, &path, value.clone(), &mut warnings) {
                        Ok(list) => {
                            containers.insert(name.clone(), list);
                        }
                        Err(mut p) => problems.append(&mut p),
                    }
                }
            }
            Some(_) => problems.push(doc.problem("containers", "must be a mapping from container name to behaviour")),
            None => problems.push(doc.problem("", "missing field `containers`")),
        }
        match problems.is_empty() {
            true => Ok(Behaviours { containers, origin: Some(doc), warnings, inferred: BTreeMap::new() }),
            false => Err(Error::Input(problems)),
        }
    }
}

fn read_container(
    doc: &Doc,
    path: &str,
    value: serde_json::Value,
    warnings: &mut Vec<Problem>,
) -> Result<Vec<Arc<ContainerBehaviour>>, Vec<Problem>> {
    let items: Vec<(String, serde_json::Value)> = match value {
        serde_json::Value::Array(items) if items.is_empty() => {
            return Err(vec![doc.problem(path, "an instance list needs at least one behaviour")]);
        }
        serde_json::Value::Array(items) => {
            items.into_iter().enumerate().map(|(i, v)| (format!("{path}[{i}]"), v)).collect()
        }
        serde_json::Value::Null => vec![(path.to_string(), serde_json::json!({}))],
        other => vec![(path.to_string(), other)],
    };
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (p, v) in items {
        match decode_value::<ContainerBehaviour>(doc, v, &p) {
            Ok(b) => {
                let at = |(field, msg): (String, String)| {
                    let full = if field.is_empty() {
                        p.clone()
                    } else if field.starts_with('[') {
                        format!("{p}{field}")
                    } else {
                        format!("{p}.{field}")
                    };
                    doc.problem(&full, msg)
                };
                problems.extend(b.check().into_iter().map(at));
                warnings.extend(b.warnings().into_iter().map(|w| at(w).warn()));
                out.push(Arc::new(b));
            }
            Err(e) => problems.push(e),
        }
    }
    if problems.is_empty() { Ok(out) } else { Err(problems) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Behaviours, Error> {
        Behaviours::load(&Arc::new(SourceFile { name: "app.yaml".into(), text: text.into() }))
    }

    #[test]
    fn reads_the_documented_form() {
        let b = load(
            "containers:\n  app:\n    listen: 300ms\n    ports: [8080]\n    http:\n      /health: [{status: 200}]\n      /ready:  [{until: 10s, status: 503}, {status: 200, latency: 5ms}]\n    exec:\n      \"cat /tmp/healthy\": [{until: 30s, exit: 0}, {exit: 1, latency: 10ms}]\n    grpc: {\"\": [{status: SERVING}]}\n    exit: {after: 1s, code: 1}\n    sigterm: {exit_after: 3s, code: 0}\n",
        )
        .unwrap();
        assert!(b.for_instance("app", 0).is_some());
        assert!(b.for_instance("other", 0).is_none());
    }

    #[test]
    fn instance_lists_repeat_their_last_entry() {
        let b = load("containers:\n  app:\n  - exit: {after: 1s, code: 1}\n  - {}\n").unwrap();
        assert!(b.for_instance("app", 0).unwrap().exit.is_some());
        assert!(b.for_instance("app", 1).unwrap().exit.is_none());
        assert!(b.for_instance("app", 7).unwrap().exit.is_none());
    }

    fn first_error(text: &str) -> String {
        match load(text) {
            Err(Error::Input(p)) => p[0].to_string(),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn unknown_keys_are_errors_with_a_line() {
        let e = first_error("containers:\n  app:\n    lisen: 1s\n");
        assert!(e.starts_with("app.yaml:2:") || e.starts_with("app.yaml:3:"), "{e}");
        assert!(e.contains("unknown field `lisen`"), "{e}");
    }

    #[test]
    fn negative_and_unitless_durations_are_errors() {
        assert!(first_error("containers:\n  app:\n    listen: -1s\n").contains("must not be negative"));
        assert!(first_error("containers:\n  app:\n    listen: 5\n").contains("needs a unit"));
    }

    #[test]
    fn the_last_phase_must_be_open_ended() {
        let e = first_error("containers:\n  app:\n    http:\n      /r: [{until: 10s, status: 503}]\n");
        assert!(e.contains("last"), "{e}");
        assert!(e.contains("app.yaml:4:"), "{e}");
    }

    #[test]
    fn relays_are_checked_with_their_field() {
        let at = |line: &str| first_error(&format!("containers:\n  mesh:\n    http:\n      /r: [{line}]\n"));
        let e = at("{forward: {port: 0, path: /health}}");
        assert!(e.contains("app.yaml:4:") && e.contains("http[\"/r\"][0].forward.port"), "{e}");
        assert!(e.contains("0: must be between 1 and 65535, inclusive"), "{e}");
        assert!(at("{forward: {port: 70000, path: /health}}").contains("70000: must be between 1 and 65535"));
        let e = at("{forward: {port: 9080, path: health}}");
        assert!(e.contains("forward.path") && e.contains("starts with `/`"), "{e}");
        assert!(at("{status: 200, forward: {port: 9080, path: /h}}").contains("exclude each other"));
        assert!(at("{forward: {port: 9080, path: /h}, location: /x}").contains("`location` goes with a `status`"));
        assert!(at("{latency: 1ms}").contains("missing field `status` (or `forward`"));
        assert!(at("{forward: {port: 9080, path: /h, retries: 3}}").contains("unknown field `retries`"));
        let ok = load(
            "containers:\n  mesh:\n    http:\n      /r: [{forward: {port: 9080, path: /h, timeout: 1s}, latency: 1ms}]\n",
        );
        assert!(ok.unwrap().warnings.is_empty());
    }

    #[test]
    fn memory_errors_name_the_line_and_the_field() {
        let at = |memory: &str| first_error(&format!("containers:\n  app:\n    listen: 1s\n    memory: {memory}\n"));
        let e = at("[{until: 20s, rss: 100Mi}, {rss: 300MB}]");
        assert!(e.starts_with("app.yaml:4:"), "{e}");
        assert!(e.contains("memory[1].rss: \"300MB\": quantities must match the regular expression"), "{e}");
        let e = at("[{rss: 1K}]");
        assert!(e.contains("memory[0].rss: \"1K\": unable to parse quantity's suffix"), "{e}");
        assert!(at("[{rss: -1Mi}]").contains("memory[0].rss: -1Mi: a resident set size is not negative"));
        let e = at("[{rss: 1Mi, limit: 2Mi}]");
        assert!(e.contains("unknown field `limit`, expected `until` or `rss`"), "{e}");
        assert!(at("[{until: 10s}]").contains("missing field `rss`"));
        assert!(at("[]").contains("memory: a schedule needs at least one entry"));
        assert!(at("[{until: 10s, rss: 1Mi}]").contains("memory[0].until: the last entry must not have `until`"));
        let e = at("[{until: 10s, rss: 1Mi}, {until: 5s, rss: 2Mi}, {rss: 3Mi}]");
        assert!(e.contains("memory[1].until: 5s: `until` times must increase"), "{e}");
        assert!(at("300Mi").contains("memory: invalid type"));
        let multi = "containers:\n  app:\n    memory:\n    - {until: 20s, rss: 100Mi}\n    - {rss: 300Mb}\n";
        assert!(first_error(multi).starts_with("app.yaml:5:"), "{}", first_error(multi));
        let ok = load("containers:\n  app:\n    memory: [{until: 20s, rss: 100Mi}, {rss: 268435456}]\n").unwrap();
        assert_eq!(ok.for_instance("app", 0).unwrap().memory.as_ref().map(Vec::len), Some(2));
    }

    #[test]
    fn a_location_outside_the_followed_statuses() {
        let text =
            |status: u16| format!("containers:\n  app:\n    http:\n      /r: [{{status: {status}, location: /x}}]\n");
        // Not a redirect at all: an error.
        assert!(first_error(&text(200)).contains("200: a `location` belongs to a redirect (a 3xx status)"));
        // A 3xx Go does not follow: read, with a warning that names the field.
        for status in [300, 304, 305] {
            let b = load(&text(status)).unwrap();
            let w: Vec<String> = b.warnings.iter().map(|w| w.to_string()).collect();
            assert_eq!(w.len(), 1, "{w:?}");
            assert!(!b.warnings[0].is_error());
            assert!(w[0].contains("app.yaml:4:") && w[0].contains("http[\"/r\"][0].location: ignored"), "{}", w[0]);
            assert!(w[0].contains(&format!("so a {status} is itself the response")), "{}", w[0]);
        }
        for status in [301, 302, 303, 307, 308] {
            assert!(load(&text(status)).unwrap().warnings.is_empty());
        }
    }
}
