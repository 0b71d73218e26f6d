//! The timeline table: one line per change, with its time, object, what
//! changed and why — `kubectl get -w` for people who want the reasons.

use super::Trace;
use super::changes::{Change, changes};
use super::network_rows::NetworkRows;
use super::record::{ProcessFact, Record, Verdict, WatchKind};
use super::render::{self, Clock};
use super::workload_rows::WorkloadRows;
use crate::api::pod::ApiPod;
use crate::kubectl::print_pod;
use crate::time::SimTime;
use foldhash::{HashMap, HashMapExt};
use std::fmt::Write;
use std::sync::Arc;

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub t: SimTime,
    /// The namespace of a namespaced object (filled by `rows`).
    pub namespace: Option<Arc<str>>,
    pub kind: RowType,
    pub object: String,
    pub what: String,
    pub why: String,
}

/// What a row is about, for `--types`: the layer whose record made it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RowType {
    /// A Pod's status, conditions, containers' states, deletion.
    Pod,
    Probe,
    /// A container's process: started, listening, hooks, signals, exit.
    Process,
    /// What the kubelet did and announced (pulled, created, killing, back-off…).
    Kubelet,
    /// Scheduling events (Scheduled, FailedScheduling).
    Event,
    /// Deployments and ReplicaSets.
    Workload,
    /// Services and their EndpointSlices' endpoints.
    Service,
    /// kube-proxy's rules on each node.
    Proxy,
    /// Clients' requests, aggregated.
    Request,
    /// What a kubectl command prints (`get -w`, `rollout status`).
    Kubectl,
    /// The scenario's actions.
    Scenario,
    /// PersistentVolumeClaims.
    Claim,
    /// Nodes: their Ready condition and taints.
    Node,
}

impl RowType {
    pub const ALL: [RowType; 13] = [
        RowType::Pod,
        RowType::Probe,
        RowType::Process,
        RowType::Kubelet,
        RowType::Event,
        RowType::Workload,
        RowType::Service,
        RowType::Proxy,
        RowType::Request,
        RowType::Kubectl,
        RowType::Scenario,
        RowType::Claim,
        RowType::Node,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RowType::Pod => "pod",
            RowType::Probe => "probe",
            RowType::Process => "process",
            RowType::Kubelet => "kubelet",
            RowType::Event => "event",
            RowType::Workload => "workload",
            RowType::Service => "service",
            RowType::Proxy => "proxy",
            RowType::Request => "request",
            RowType::Kubectl => "kubectl",
            RowType::Scenario => "scenario",
            RowType::Claim => "claim",
            RowType::Node => "node",
        }
    }

    /// The type a word names, or the list of words.
    pub fn parse(word: &str) -> Result<RowType, String> {
        let all = RowType::ALL;
        (all.iter().find(|t| t.as_str() == word).copied()).ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|t| t.as_str()).collect();
            format!("unknown row type {word:?} (the types: {})", names.join(", "))
        })
    }

    /// The type of the rows a record makes (a kubectl printer's row is
    /// `Kubectl` whatever its record: the printing sites say so).
    pub fn of(record: &Record) -> RowType {
        match record {
            Record::Pod { .. } => RowType::Pod,
            Record::Service { .. } | Record::Slice { .. } => RowType::Service,
            Record::ReplicaSet { .. }
            | Record::Deployment { .. }
            | Record::Pdb { .. }
            | Record::Job { .. }
            | Record::CronJob { .. }
            | Record::StatefulSet { .. }
            | Record::DaemonSet { .. }
            | Record::ControllerRevision { .. } => RowType::Workload,
            Record::Claim { .. } => RowType::Claim,
            Record::Node { .. } => RowType::Node,
            Record::ProxySync(_) => RowType::Proxy,
            Record::Request(_) => RowType::Request,
            Record::Event(_) => RowType::Event,
            Record::Probe(_) => RowType::Probe,
            Record::Process { .. } => RowType::Process,
            Record::Kubelet(_) => RowType::Kubelet,
            Record::Kubectl { .. } => RowType::Kubectl,
            Record::Scenario { .. } => RowType::Scenario,
        }
    }
}

/// The rows of a trace, in time order.
pub fn rows(trace: &Trace, clock: &Clock) -> Vec<Row> {
    let mut last: HashMap<Arc<str>, Arc<ApiPod>> = HashMap::new();
    let mut printed: HashMap<Arc<str>, String> = HashMap::new();
    let mut errors = HashMap::new();
    let mut network = NetworkRows::default();
    let mut workloads = WorkloadRows::default();
    let mut out = Vec::new();
    for e in &trace.entries {
        let first = out.len();
        let namespace = namespace_of(&e.record);
        if let Record::Pod { pod, .. } = &e.record {
            network.pod(e.t, pod);
        }
        network.rows(e.t, &e.record, &mut out);
        workloads.rows(e.t, &e.record, &mut out);
        let kind = RowType::of(&e.record);
        let mut push = |object: String, what: String, why: String| {
            out.push(Row { t: e.t, namespace: None, kind, object, what, why })
        };
        match &e.record {
            Record::Pod { kind: WatchKind::Deleted, pod } => {
                push(format!("pod/{}", pod.spec.name), "deleted from the API server".into(), String::new());
                last.remove(&pod.meta.uid);
            }
            Record::Pod { pod, .. } => {
                for Change { object, what, why } in changes(last.get(&pod.meta.uid).map(|p| &**p), pod) {
                    push(object, what, why);
                }
                last.insert(pod.meta.uid.clone(), pod.clone());
                // What `kubectl get pods -w` would print, when that changes.
                let what = kubectl_pod(&render::pod(pod, clock));
                if printed.get(&pod.meta.uid) != Some(&what) {
                    printed.insert(pod.meta.uid.clone(), what.clone());
                    push(format!("pod/{}", pod.spec.name), what, "kubectl get pods".into());
                    if let Some(r) = out.last_mut() {
                        r.kind = RowType::Kubectl;
                    }
                }
            }
            // An errored probe repeats every period: one row per new error.
            Record::Probe(p) if p.verdict == Verdict::Error => {
                let key = (p.pod.clone(), p.container.clone(), p.probe);
                if errors.insert(key, p.detail.clone()).as_ref() != Some(&p.detail) {
                    let what = format!("{} {} probe errored (result thrown away)", p.container, p.probe);
                    push(format!("pod/{}", p.pod), what, p.detail.clone());
                }
            }
            // A probe row when a run starts, reaches its threshold, or changes the result.
            Record::Probe(p) if p.run == 1 || p.run == p.threshold || p.published => {
                errors.remove(&(p.pod.clone(), p.container.clone(), p.probe));
                let verdict = if p.verdict == Verdict::Success { "succeeded" } else { "failed" };
                // The run counts on past the threshold (doProbe resets it only on a new result).
                let run = match p.run > p.threshold {
                    true => format!("{} in a row, threshold {}", p.run, p.threshold),
                    false => format!("{} of {} in a row", p.run, p.threshold),
                };
                let what = format!("{} {} probe {verdict} ({run})", p.container, p.probe);
                push(format!("pod/{}", p.pod), what, p.detail.clone());
            }
            Record::Process { pod, container, fact, .. } => {
                let what = match fact {
                    ProcessFact::Started => format!("{container} process started"),
                    ProcessFact::Listening { ports } if ports.is_empty() => {
                        format!("{container} process ready (listens on no port)")
                    }
                    ProcessFact::Listening { ports } => {
                        let list: Vec<String> = ports.iter().map(u16::to_string).collect();
                        format!("{container} process listening on {}", list.join(", "))
                    }
                    ProcessFact::AddressInUse { port } => {
                        format!("{container} process cannot bind {port}: address already in use")
                    }
                    ProcessFact::Hook { kind, started: true, .. } => {
                        format!("{container} {} hook started", kind.as_str())
                    }
                    ProcessFact::Hook { kind, started: false, error: None } => {
                        format!("{container} {} hook returned", kind.as_str())
                    }
                    ProcessFact::Hook { kind, started: false, error: Some(e) } => {
                        push(format!("pod/{pod}"), format!("{container} {} hook failed", kind.as_str()), e.clone());
                        continue;
                    }
                    ProcessFact::Sigterm => format!("{container} process got SIGTERM"),
                    ProcessFact::Sigkill => format!("{container} process got SIGKILL"),
                    ProcessFact::OomKilled { rss, limit } => {
                        format!("{container} process OOM-killed (rss {rss} > limit {limit})")
                    }
                    ProcessFact::Signal { signal } => format!("{container} process got {signal} from outside"),
                    ProcessFact::Exited { code } => {
                        format!("{container} process exited with {code}")
                    }
                    ProcessFact::NodeStopped => format!("{container} process gone: its node stopped"),
                };
                push(format!("pod/{pod}"), what, String::new());
            }
            // Probe rows carry what Unhealthy and ProbeWarning events say.
            Record::Kubelet(a) if a.reason != "Unhealthy" && a.reason != "ProbeWarning" => {
                let what = match &a.container {
                    Some(c) => format!("{c}: {}", a.reason),
                    None => a.reason.to_string(),
                };
                push(format!("pod/{}", a.pod), what, a.message.clone());
            }
            Record::Pdb { kind, pdb } => {
                let s = &pdb.status;
                let what = match (kind, s.observed_generation) {
                    (WatchKind::Added, _) => "created".to_string(),
                    (WatchKind::Deleted, _) => "deleted".to_string(),
                    (_, _) => format!("allowed disruptions={}", s.disruptions_allowed),
                };
                let why = match kind {
                    WatchKind::Added => "the disruption controller has not observed it yet".to_string(),
                    _ => format!(
                        "currentHealthy={} desiredHealthy={} expectedPods={}{}",
                        s.current_healthy,
                        s.desired_healthy,
                        s.expected_pods,
                        match s.disrupted_pods.is_empty() {
                            true => String::new(),
                            false => format!(
                                ", disruptedPods: {}",
                                s.disrupted_pods.keys().map(|k| &**k).collect::<Vec<_>>().join(", ")
                            ),
                        }
                    ),
                };
                push(pdb.kubectl_name(), what, why);
            }
            Record::Node { kind, node } => {
                let taints: Vec<String> = node.taints.iter().map(|(t, _)| format!("{}:{}", t.key, t.effect)).collect();
                let what = match taints.is_empty() {
                    true => format!("Ready={}", node.ready.as_str()),
                    false => format!("Ready={} taints={}", node.ready.as_str(), taints.join(",")),
                };
                let what = match kind {
                    WatchKind::Added => format!("registered, {what}"),
                    _ => what,
                };
                let (reason, message) = node.ready.reason_and_message();
                push(format!("node/{}", node.name), what, format!("{reason}: {message}"));
            }
            Record::Claim { kind, claim } => {
                let what = match (kind, claim.phase) {
                    (WatchKind::Deleted, _) => "deleted".to_string(),
                    (WatchKind::Added, phase) => format!("created, phase={}", phase.as_str()),
                    (_, phase) => format!("phase={}", phase.as_str()),
                };
                let why = match (&claim.volume, &claim.selected_node) {
                    // Only a StatefulSet's retention policy deletes claims in podsim's runs.
                    _ if *kind == WatchKind::Deleted => {
                        "the garbage collector: persistentVolumeClaimRetentionPolicy Delete, and no pod mounts it"
                            .into()
                    }
                    (Some(v), _) => format!("bound to volume {v}"),
                    (None, Some(n)) => format!("the scheduler chose {n}: its volume is being provisioned there"),
                    (None, None) => match claim.spec.binding {
                        crate::spec::BindingMode::Immediate => {
                            "Immediate binding: its volume is being provisioned".into()
                        }
                        crate::spec::BindingMode::WaitForFirstConsumer => {
                            "WaitForFirstConsumer: waiting for first consumer to be created before binding".into()
                        }
                    },
                };
                push(claim.kubectl_name(), what, why);
            }
            Record::Scenario { object, what } => push(object.clone(), what.clone(), "scenario action".into()),
            Record::Kubectl { command, line, exit } => {
                let why = match exit {
                    Some(code) => format!("{command} (exit {code})"),
                    None => command.to_string(),
                };
                push("kubectl".into(), line.trim_end().to_string(), why);
            }
            Record::Event(ev) if matches!(ev.reason, "Scheduled" | "FailedScheduling") => {
                push(format!("pod/{}", ev.pod), ev.reason.into(), ev.message.clone());
            }
            // The node lifecycle and taint-eviction controllers' events, a booting kubelet's.
            Record::Event(ev)
                if matches!(ev.reason, "NodeNotReady" | "TaintManagerEviction" | "NodeReady" | "Rebooted") =>
            {
                let kind = match &ev.source {
                    crate::trace::record::EventSource::Controller { kind: "Node", .. } => "node",
                    _ => "pod",
                };
                push(format!("{kind}/{}", ev.pod), ev.reason.into(), ev.message.clone());
            }
            // The DaemonSet controller's: which pod it made or deleted, and why.
            Record::Event(ev)
                if matches!(
                    ev.source,
                    crate::trace::record::EventSource::Controller { component: "daemonset-controller", .. }
                ) =>
            {
                push(format!("daemonset/{}", ev.pod), ev.reason.into(), ev.message.clone());
            }
            _ => {}
        }
        // Rows about namespaced objects carry the record's namespace.
        for r in &mut out[first..] {
            if !r.object.starts_with("node/") && !r.object.starts_with("client/") && r.object != "kubectl" {
                r.namespace = namespace.clone();
            }
        }
    }
    // Each client's requests since its last row close the table, in time order.
    let before = out.len();
    network.requests.finish(&mut out);
    if out.len() > before {
        out.sort_by_key(|r| r.t);
    }
    out
}

/// A pod's `kubectl get pods` row as the table states it:
/// `kubectl Running (READY 1/1, RESTARTS 0)`.
pub fn kubectl_pod(pod: &k8s_openapi::api::core::v1::Pod) -> String {
    let line = print_pod(pod);
    format!("kubectl {} (READY {}/{}, RESTARTS {})", line.status, line.ready.0, line.ready.1, line.restarts)
}

/// The rows of the types asked for (all of them for none).
pub fn of_types(rows: Vec<Row>, types: &[RowType]) -> Vec<Row> {
    match types.is_empty() {
        true => rows,
        false => rows.into_iter().filter(|r| types.contains(&r.kind)).collect(),
    }
}

/// The namespace of the object a record is about, when it is namespaced.
fn namespace_of(record: &Record) -> Option<Arc<str>> {
    match record {
        Record::Pod { pod, .. } => Some(Arc::from(pod.spec.namespace.as_str())),
        Record::Service { svc, .. } => Some(Arc::from(svc.spec.namespace.as_str())),
        Record::Slice { slice, .. } => Some(slice.namespace.clone()),
        Record::ReplicaSet { rs, .. } => Some(Arc::from(&*rs.spec.namespace)),
        Record::Deployment { deployment, .. } => Some(Arc::from(deployment.spec.namespace.as_str())),
        Record::Probe(p) => Some(p.namespace.clone()),
        Record::Process { namespace, .. } => Some(namespace.clone()),
        Record::Kubelet(a) => Some(a.namespace.clone()),
        Record::Event(ev) => Some(ev.namespace.clone()),
        Record::Claim { claim, .. } => Some(claim.spec.namespace.clone()),
        Record::Pdb { pdb, .. } => Some(pdb.spec.namespace.clone()),
        Record::Job { job, .. } => Some(Arc::from(job.spec.namespace.as_str())),
        Record::CronJob { cronjob, .. } => Some(Arc::from(cronjob.spec.namespace.as_str())),
        Record::StatefulSet { sts, .. } => Some(Arc::from(sts.spec.namespace.as_str())),
        Record::ControllerRevision { revision, .. } => Some(revision.namespace.clone()),
        Record::DaemonSet { ds, .. } => Some(Arc::from(ds.spec.namespace.as_str())),
        _ => None,
    }
}

/// The rows about the objects `patterns` name (all of them for none): a
/// pattern is `KIND/NAME`, `KIND/PREFIX*` or a whole `KIND` (`pod`,
/// `deployment`, `node`, `client`, `kubectl`…).
pub fn only(rows: Vec<Row>, patterns: &[String]) -> Vec<Row> {
    if patterns.is_empty() {
        return rows;
    }
    let matches = |object: &str, p: &str| match p.strip_suffix('*') {
        Some(prefix) => object.starts_with(prefix),
        None if !p.contains('/') => object == p || object.split_once('/').is_some_and(|(kind, _)| kind == p),
        None => object == p,
    };
    rows.into_iter().filter(|r| patterns.iter().any(|p| matches(&r.object, p))).collect()
}

/// The width of the CHANGE column; longer changes push their WHY right.
const CHANGE_WIDTH: usize = 48;

/// `text` left-aligned in `width` characters, as `{:width$}` does, but for
/// any width (a format width past 65,535 panics, and names can be longer).
pub fn pad(text: &str, width: usize) -> String {
    let n = text.chars().count();
    let mut out = String::with_capacity(text.len() + width.saturating_sub(n));
    out.push_str(text);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(n)));
    out
}

/// Renders rows as aligned text with a header.
pub fn render(rows: &[Row]) -> String {
    let obj_w = rows.iter().map(|r| r.object.len()).max().unwrap_or(6).max(6);
    // A fixed CHANGE width: a row reads the same whatever else the run printed.
    let what_w = CHANGE_WIDTH;
    // A NAMESPACE column, as `kubectl get -A` adds, when the run has more than one.
    let namespaces: std::collections::BTreeSet<&str> = rows.iter().filter_map(|r| r.namespace.as_deref()).collect();
    let ns_w = match namespaces.len() > 1 {
        true => namespaces.iter().map(|n| n.len()).max().unwrap_or(0).max("NAMESPACE".len()),
        false => 0,
    };
    let namespace = |n: &str| if ns_w == 0 { String::new() } else { format!("{}  ", pad(n, ns_w)) };
    let mut s = String::new();
    let head = namespace("NAMESPACE");
    let _ = writeln!(s, "{:>11}  {head}{}  {:what_w$}  WHY", "TIME", pad("OBJECT", obj_w), "CHANGE");
    for r in rows {
        let why = r.why.trim_end().replace('\n', " ⏎ ");
        let ns = namespace(r.namespace.as_deref().unwrap_or(""));
        let line = format!("{:>11}  {ns}{}  {}  {why}", r.t.to_string(), pad(&r.object, obj_w), pad(&r.what, what_w));
        let _ = writeln!(s, "{}", line.trim_end());
    }
    s
}
