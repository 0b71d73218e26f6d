//! Helpers for the scenario tests: run a scenario from `models/`, then read
//! facts out of its trace the way a person reads `kubectl get -w`.
#![allow(dead_code)]

use podsim::api::pod::ApiPod;
use podsim::api::status::{ConditionType, ContainerState};
use podsim::ids::ServiceId;
use podsim::run::{Inputs, prepare, simulate};
use podsim::time::{SimDuration, SimTime};
use podsim::trace::Trace;
use podsim::trace::record::{ProcessFact, Record};
use std::path::PathBuf;
use std::sync::Arc;

pub fn scenario(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/scenarios").join(format!("{name}.yaml"))
}

/// Runs a scenario of `models/scenarios` with `seed` (and optionally another Kubernetes version).
pub fn run(name: &str, seed: u64, kubernetes: Option<&str>) -> Trace {
    let inputs = Inputs {
        scenario: Some(scenario(name)),
        seed: Some(seed),
        kubernetes: kubernetes.map(str::to_string),
        ..Inputs::default()
    };
    let p = prepare(&inputs).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    simulate(&p.setup, p.seed, SimTime::ZERO + p.until)
}

/// Runs a scenario with `seed` until `until` s, with actions written as the
/// `run` flags write them: `("--patch", "pod/web:{…}@20s")`.
pub fn run_with_flags(name: &str, seed: u64, until: f64, flags: &[(&str, &str)]) -> Trace {
    use podsim::scenario::ActionOrigin;
    use podsim::scenario::actions::{parse_delete_flag, parse_patch_flag};
    let actions = flags
        .iter()
        .map(|(flag, value)| {
            let action = match *flag {
                "--delete" => parse_delete_flag(value),
                "--patch" => parse_patch_flag(value),
                _ => panic!("{flag}: not a flag these tests use"),
            };
            (action.unwrap_or_else(|e| panic!("{flag} {value}: {e}")), ActionOrigin::Flag(format!("{flag} {value}")))
        })
        .collect();
    let inputs = Inputs { scenario: Some(scenario(name)), seed: Some(seed), actions, ..Inputs::default() };
    let p = prepare(&inputs).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    simulate(&p.setup, p.seed, t(until))
}

pub fn secs(s: f64) -> SimDuration {
    SimDuration::from_millis((s * 1000.0).round() as u64)
}

pub fn t(s: f64) -> SimTime {
    SimTime::ZERO + secs(s)
}

/// One container instance as its process lived it.
#[derive(Clone, Debug)]
pub struct Life {
    pub started: SimTime,
    pub sigterm: Option<SimTime>,
    pub finished: Option<SimTime>,
    pub exit: Option<i32>,
}

/// Every instance of `container`, in start order (from PROCESS records).
pub fn lives(trace: &Trace, container: &str) -> Vec<Life> {
    let mut out: Vec<Life> = Vec::new();
    for e in &trace.entries {
        if let Record::Process { container: c, fact, .. } = &e.record {
            if &**c != container {
                continue;
            }
            match fact {
                ProcessFact::Started => out.push(Life { started: e.t, sigterm: None, finished: None, exit: None }),
                ProcessFact::Sigterm => out.last_mut().unwrap().sigterm = Some(e.t),
                ProcessFact::Exited { code } => {
                    let l = out.last_mut().unwrap();
                    l.finished = Some(e.t);
                    l.exit = Some(*code);
                }
                _ => {}
            }
        }
    }
    out
}

/// Every version of the pod the API server stored, with its time.
pub fn pods(trace: &Trace) -> Vec<(SimTime, Arc<ApiPod>)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Pod { pod, .. } => Some((e.t, pod.clone())),
            _ => None,
        })
        .collect()
}

/// The pod as the API server had it at `at`.
pub fn pod_at(trace: &Trace, at: SimTime) -> Arc<ApiPod> {
    pods(trace).into_iter().take_while(|(t, _)| *t <= at).last().expect("the pod exists").1
}

/// Times at which the API's Ready condition turned to `status`.
pub fn ready_transitions(trace: &Trace, status: bool) -> Vec<SimTime> {
    let mut out = Vec::new();
    let mut last = None;
    for (t, p) in pods(trace) {
        let now = p.status.condition(&ConditionType::Ready).map(|c| c.status);
        if now != last && now == Some(status) {
            out.push(t);
        }
        last = now;
    }
    out
}

/// The first time the API showed `container` waiting with `reason`, and its message.
pub fn first_waiting(trace: &Trace, container: &str, reason: &str) -> Option<(SimTime, String)> {
    pods(trace).into_iter().find_map(|(t, p)| match &p.status.container(container)?.state {
        ContainerState::Waiting { reason: Some(r), message } if r == reason => {
            Some((t, message.clone().unwrap_or_default()))
        }
        _ => None,
    })
}

/// Kubelet actions (events as emitted) with `reason`: (time, message).
pub fn actions(trace: &Trace, reason: &str) -> Vec<(SimTime, String)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Kubelet(a) if a.reason == reason => Some((e.t, a.message.clone())),
            _ => None,
        })
        .collect()
}

/// Kubelet actions about pod `pod` with `reason`: (time, message).
pub fn pod_actions(trace: &Trace, pod: &str, reason: &str) -> Vec<(SimTime, String)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Kubelet(a) if &*a.pod == pod && a.reason == reason => Some((e.t, a.message.clone())),
            _ => None,
        })
        .collect()
}

/// The k-th `Killing` SIGTERMs the k-th instance (at or after the event);
/// only the last instance may still run, unkilled, when the run ends.
#[track_caller]
pub fn each_kill_stops_its_instance(lives: &[Life], kills: &[(SimTime, String)], seed: u64) {
    let killed = lives.iter().take_while(|l| l.sigterm.is_some()).count();
    assert_eq!(kills.len(), killed, "seed {seed}");
    assert_eq!(lives.len() - killed, usize::from(lives.last().is_some_and(|l| l.sigterm.is_none())), "seed {seed}");
    for (l, (k, _)) in lives.iter().zip(kills) {
        assert!(
            l.sigterm.is_some_and(|t| t >= *k),
            "seed {seed}: the kill at {k} stops the instance started at {:?}",
            l.started
        );
    }
}

/// Asserts `lo <= x <= hi` with a readable message.
#[track_caller]
pub fn within(what: &str, x: SimTime, lo: SimTime, hi: SimTime) {
    assert!(lo <= x && x <= hi, "{what}: {x} not in [{lo}, {hi}]");
}

/// The runs of `pod`'s `container` probe of `kind`: (time, verdict, detail).
pub fn probe_runs(
    trace: &Trace,
    pod: &str,
    container: &str,
    kind: podsim::spec::ProbeKind,
) -> Vec<(SimTime, podsim::trace::record::Verdict, String)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Probe(p) if &*p.pod == pod && &*p.container == container && p.probe == kind => {
                Some((e.t, p.verdict, p.detail.clone()))
            }
            _ => None,
        })
        .collect()
}

/// Every process fact of `container`, with its time.
pub fn facts(trace: &Trace, container: &str) -> Vec<(SimTime, ProcessFact)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Process { container: c, fact, .. } if &**c == container => Some((e.t, fact.clone())),
            _ => None,
        })
        .collect()
}

/// When the API server sent the pod's DELETED event.
pub fn deleted_at(trace: &Trace) -> Option<SimTime> {
    trace.entries.iter().find_map(|e| match &e.record {
        Record::Pod { kind: podsim::trace::record::WatchKind::Deleted, .. } => Some(e.t),
        _ => None,
    })
}

/// The scenario actions' rows: when, and what they did.
pub fn scenario_rows(trace: &Trace) -> Vec<(SimTime, String)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Scenario { what, .. } => Some((e.t, what.clone())),
            _ => None,
        })
        .collect()
}

/// What `kubectl get pods -w` printed (READY, STATUS, RESTARTS) at each
/// stored version of the pod, without repeats.
pub fn kubectl_lines(trace: &Trace) -> Vec<(SimTime, (u32, u32), String)> {
    let clock = podsim::trace::render::Clock { epoch: podsim::run::DEFAULT_EPOCH.parse().unwrap() };
    let mut out: Vec<(SimTime, (u32, u32), String)> = Vec::new();
    for (t, p) in pods(trace) {
        let line = podsim::kubectl::print_pod(&podsim::trace::render::pod(&p, &clock));
        if out.last().is_none_or(|l| (l.1, &l.2) != (line.ready, &line.status)) {
            out.push((t, line.ready, line.status));
        }
    }
    out
}

/// The statuses kubectl showed, in order, without repeats.
pub fn kubectl_statuses(trace: &Trace) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, _, s) in kubectl_lines(trace) {
        if out.last() != Some(&s) {
            out.push(s);
        }
    }
    out
}

/// The condition `kind` as the API server had it at `at`.
pub fn condition_at(trace: &Trace, at: SimTime, kind: &ConditionType) -> Option<podsim::api::status::Condition> {
    pod_at(trace, at).status.condition(kind).cloned()
}

/// The first time the API showed `kind` with `status`.
pub fn first_condition(trace: &Trace, kind: &ConditionType, status: bool) -> Option<SimTime> {
    pods(trace).into_iter().find(|(_, p)| p.status.condition(kind).is_some_and(|c| c.status == status)).map(|(t, _)| t)
}

// ---- The Service path: slices, kube-proxy syncs, requests ----

use podsim::client::{Outcome, RequestRecord};

/// Every version of the pod named `name`, with its time.
pub fn pod_versions(trace: &Trace, name: &str) -> Vec<(SimTime, Arc<ApiPod>)> {
    pods(trace).into_iter().filter(|(_, p)| p.spec.name == name).collect()
}

/// The first time the API showed pod `name` with condition `kind` = `status`.
pub fn pod_condition(trace: &Trace, name: &str, kind: &ConditionType, status: bool) -> Option<SimTime> {
    pod_versions(trace, name)
        .into_iter()
        .find(|(_, p)| p.status.condition_true(kind) == status && p.status.condition(kind).is_some())
        .map(|(t, _)| t)
}

/// An endpoint's (ready, serving, terminating).
pub type Conditions = (bool, bool, bool);

/// The endpoint conditions of pod `name` in the Service's slices at each
/// slice write: (time, Some((ready, serving, terminating))) or None when the
/// slice written then has no endpoint for it. Consecutive repeats are dropped.
pub fn endpoint_changes(trace: &Trace, name: &str) -> Vec<(SimTime, Option<Conditions>)> {
    let mut out: Vec<(SimTime, Option<Conditions>)> = Vec::new();
    for e in &trace.entries {
        if let Record::Slice { slice, .. } = &e.record {
            let ep = slice.content.endpoints.iter().find(|ep| &*ep.target.name == name);
            let now = ep.map(|ep| (ep.ready, ep.serving, ep.terminating));
            if out.last().map(|(_, c)| *c) != Some(now) {
                out.push((e.t, now));
            }
        }
    }
    out
}

/// The first slice write after `after` that shows pod `name` with these conditions.
pub fn endpoint_at(trace: &Trace, name: &str, conditions: Option<Conditions>, after: SimTime) -> Option<SimTime> {
    endpoint_changes(trace, name).into_iter().find(|(t, c)| *t >= after && *c == conditions).map(|(t, _)| t)
}

/// The nodes of the run's kube-proxies (those that committed a sync).
pub fn proxy_nodes(trace: &Trace) -> Vec<Arc<str>> {
    let mut out: Vec<Arc<str>> = Vec::new();
    for e in &trace.entries {
        if let Record::ProxySync(s) = &e.record
            && !out.contains(&s.node)
        {
            out.push(s.node.clone());
        }
    }
    out
}

/// Whether a committed sync forwards new connections to pod `name`.
pub fn forwards_to(sync: &podsim::proxy::ProxySync, name: &str) -> bool {
    sync.rules.values().any(|r| match &r.action {
        podsim::proxy::Action::Forward(eps) => eps.iter().any(|e| e.target.as_ref().is_some_and(|t| &*t.name == name)),
        _ => false,
    })
}

/// The commits of `node`'s kube-proxy: (time, whether its rules forward to pod `name`).
pub fn proxy_forwarding(trace: &Trace, node: &str, name: &str) -> Vec<(SimTime, bool)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::ProxySync(s) if &*s.node == node => Some((e.t, forwards_to(s, name))),
            _ => None,
        })
        .collect()
}

/// The first commit of `node`'s kube-proxy at or after `after` whose rules
/// forward (or, with `forward` false, no longer forward) to pod `name`.
pub fn proxy_switch(trace: &Trace, node: &str, name: &str, forward: bool, after: SimTime) -> Option<SimTime> {
    proxy_forwarding(trace, node, name).into_iter().find(|(t, f)| *t >= after && *f == forward).map(|(t, _)| t)
}

/// Every request of `client`, in send order.
pub fn requests(trace: &Trace, client: &str) -> Vec<Arc<RequestRecord>> {
    let mut out: Vec<Arc<RequestRecord>> = trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Request(r) if &*r.client == client => Some(r.clone()),
            _ => None,
        })
        .collect();
    out.sort_by_key(|r| r.n);
    out
}

/// The HTTP status a request got, if it got one.
pub fn status(r: &RequestRecord) -> Option<u16> {
    match r.outcome {
        Outcome::Http { status } => Some(status),
        _ => None,
    }
}

/// The name of the pod that served a request.
pub fn served_by(r: &RequestRecord) -> Option<&str> {
    r.pod.as_ref().map(|(name, _)| &**name)
}

// ---- The Service path per Service (scenarios with several Services) ----

use podsim::proxy::Action;

/// The id of the Service named `name`.
pub fn service_id(trace: &Trace, name: &str) -> ServiceId {
    trace
        .entries
        .iter()
        .find_map(|e| match &e.record {
            Record::Service { svc, .. } if svc.spec.name == name => Some(svc.id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no Service named {name} in the trace"))
}

/// An endpoint's (ready, serving, terminating), or None without one.
pub type EndpointConditions = Option<(bool, bool, bool)>;

/// `endpoint_changes` for the slices of the Service named `service` only.
pub fn service_endpoint_changes(trace: &Trace, service: &str, pod: &str) -> Vec<(SimTime, EndpointConditions)> {
    let id = service_id(trace, service);
    let mut out: Vec<(SimTime, EndpointConditions)> = Vec::new();
    for e in &trace.entries {
        if let Record::Slice { slice, .. } = &e.record
            && slice.service == id
        {
            let ep = slice.content.endpoints.iter().find(|ep| &*ep.target.name == pod);
            let now = ep.map(|ep| (ep.ready, ep.serving, ep.terminating));
            if out.last().map(|(_, c)| *c) != Some(now) {
                out.push((e.t, now));
            }
        }
    }
    out
}

/// The first write of `service`'s slices at or after `after` that shows pod
/// `pod` with these conditions (None: without it).
pub fn service_endpoint_at(
    trace: &Trace,
    service: &str,
    pod: &str,
    conditions: EndpointConditions,
    after: SimTime,
) -> Option<SimTime> {
    service_endpoint_changes(trace, service, pod)
        .into_iter()
        .find(|(t, c)| *t >= after && *c == conditions)
        .map(|(t, _)| t)
}

/// Every commit of `node`'s kube-proxy: (commit time, the sync's start, what
/// its rules do with new connections to the Service named `service` — None
/// while it has no rule for it).
pub fn proxy_actions(trace: &Trace, node: &str, service: &str) -> Vec<(SimTime, SimTime, Option<Action>)> {
    let id = service_id(trace, service);
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::ProxySync(s) if &*s.node == node => {
                Some((e.t, s.started, s.rules.values().find(|r| r.service == id).map(|r| r.action.clone())))
            }
            _ => None,
        })
        .collect()
}

/// The instances of `container` in pod `pod`, in start order.
pub fn pod_lives(trace: &Trace, pod: &str, container: &str) -> Vec<Life> {
    let mut out: Vec<Life> = Vec::new();
    for e in &trace.entries {
        if let Record::Process { pod: p, container: c, fact, .. } = &e.record {
            if &**p != pod || &**c != container {
                continue;
            }
            match fact {
                ProcessFact::Started => out.push(Life { started: e.t, sigterm: None, finished: None, exit: None }),
                ProcessFact::Sigterm => out.last_mut().unwrap().sigterm = Some(e.t),
                ProcessFact::Exited { code } => {
                    let l = out.last_mut().unwrap();
                    l.finished = Some(e.t);
                    l.exit = Some(*code);
                }
                _ => {}
            }
        }
    }
    out
}

// ---- Deployments and ReplicaSets ----

use podsim::api::deployment::{
    ApiDeployment, Condition as DeploymentCondition, ConditionType as DeploymentConditionType,
};
use podsim::api::replicaset::ApiReplicaSet;

/// Every version of every ReplicaSet the API server stored: (time, watch kind, object).
pub fn replica_sets(trace: &Trace) -> Vec<(SimTime, podsim::trace::record::WatchKind, Arc<ApiReplicaSet>)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::ReplicaSet { kind, rs } => Some((e.t, *kind, rs.clone())),
            _ => None,
        })
        .collect()
}

/// The ReplicaSets' names in creation order (their ADDED records).
pub fn rs_names(trace: &Trace) -> Vec<Arc<str>> {
    replica_sets(trace)
        .into_iter()
        .filter(|(_, k, _)| *k == podsim::trace::record::WatchKind::Added)
        .map(|(_, _, r)| r.spec.name.clone())
        .collect()
}

/// Every version of ReplicaSet `name`, with its time.
pub fn rs_versions(trace: &Trace, name: &str) -> Vec<(SimTime, Arc<ApiReplicaSet>)> {
    replica_sets(trace).into_iter().filter(|(_, _, r)| &*r.spec.name == name).map(|(t, _, r)| (t, r)).collect()
}

/// Every version of the (only) Deployment, with its time.
pub fn deployment_versions(trace: &Trace) -> Vec<(SimTime, Arc<ApiDeployment>)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Deployment { deployment, .. } => Some((e.t, deployment.clone())),
            _ => None,
        })
        .collect()
}

/// The Deployment's condition `kind` in a version, if set.
pub fn deployment_condition(d: &ApiDeployment, kind: DeploymentConditionType) -> Option<&DeploymentCondition> {
    d.status.conditions.iter().find(|c| c.kind == kind)
}

/// Each change of the Deployment's Progressing condition (status or reason):
/// (time of the version that shows it, the condition as stored).
pub fn progressing_changes(trace: &Trace) -> Vec<(SimTime, DeploymentCondition)> {
    let mut out: Vec<(SimTime, DeploymentCondition)> = Vec::new();
    for (t, d) in deployment_versions(trace) {
        let Some(c) = deployment_condition(&d, DeploymentConditionType::Progressing) else { continue };
        if out.last().is_none_or(|(_, l)| (l.status, l.reason) != (c.status, c.reason)) {
            out.push((t, c.clone()));
        }
    }
    out
}

/// The events a kube-controller-manager controller (`deployment-controller`,
/// `replicaset-controller`) recorded: (time, reason, message).
pub fn controller_events(trace: &Trace, component: &str) -> Vec<(SimTime, &'static str, String)> {
    use podsim::trace::record::EventSource;
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Event(ev) if matches!(ev.source, EventSource::Controller { component: c, .. } if c == component) => {
                Some((e.t, ev.reason, ev.message.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The pods whose controller reference is ReplicaSet `rs`, in creation
/// order: (time of their ADDED record, name).
pub fn pods_of(trace: &Trace, rs: &str) -> Vec<(SimTime, String)> {
    let mut out: Vec<(SimTime, String)> = Vec::new();
    for (t, p) in pods(trace) {
        if p.spec.owner.as_ref().is_some_and(|o| &*o.name == rs) && !out.iter().any(|(_, n)| *n == p.spec.name) {
            out.push((t, p.spec.name.clone()));
        }
    }
    out
}
