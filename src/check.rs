//! Invariants every kubelet trace satisfies, checked over podsim's own traces
//! (by `podsim run` and the property tests). Each names the kubelet rule it
//! comes from.

use crate::api::pod::ApiPod;
use crate::api::status::{ConditionType, ContainerState};
use crate::cluster::Cluster;
use crate::spec::ProbeKind;
use crate::time::{SimDuration, SimTime};
use crate::trace::Trace;
use crate::trace::record::{ProcessFact, Record, Verdict};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

/// One invariant broken at one point of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: &'static str,
    pub t: SimTime,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}: {}", self.invariant, self.t, self.detail)
    }
}

/// The invariants, with the source each one follows.
pub const INVARIANTS: &[(&str, &str)] = &[
    (
        "ready-implies-containers-ready",
        "Ready=True ⇒ ContainersReady=True (status/generate.go GeneratePodReadyCondition)",
    ),
    (
        "containers-ready-implies-all-ready",
        "ContainersReady=True ⇒ every container ready (GenerateContainersReadyCondition)",
    ),
    ("ready-implies-started", "a ready container is started (prober_manager.go UpdatePodStatus)"),
    (
        "transition-time-moves-with-status",
        "a condition's lastTransitionTime changes only with its status (status_manager.go updateLastTransitionTime)",
    ),
    (
        "startup-gates-probes",
        "no readiness or liveness probe runs before the startup probe succeeded (worker.go doProbe)",
    ),
    (
        "crash-loop-backoff",
        "a container that keeps exiting waits at least 10 s, 20 s, 40 s … before each restart (kuberuntime_manager.go doBackOff)",
    ),
];

pub fn check(trace: &Trace, cluster: &Cluster) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut last: HashMap<Arc<str>, Arc<ApiPod>> = HashMap::new();
    let mut started_ok: HashSet<Arc<str>> = HashSet::new();
    let mut startup_probed: HashSet<Arc<str>> = HashSet::new();
    let mut life: BTreeMap<(Arc<str>, Arc<str>), Vec<Life>> = BTreeMap::new();
    for e in &trace.entries {
        match &e.record {
            Record::Pod { pod, .. } => {
                snapshot(pod, e.t, &mut out);
                if let Some(old) = last.get(&pod.uid) {
                    transitions(old, pod, e.t, &mut out);
                }
                last.insert(pod.uid.clone(), pod.clone());
            }
            Record::Probe(p) => match p.probe {
                ProbeKind::Startup => {
                    startup_probed.insert(p.container_id.clone());
                    if p.published && p.verdict == Verdict::Success {
                        started_ok.insert(p.container_id.clone());
                    }
                }
                _ if startup_probed.contains(&p.container_id) && !started_ok.contains(&p.container_id) => {
                    out.push(Violation {
                        invariant: "startup-gates-probes",
                        t: e.t,
                        detail: format!(
                            "{} {} probe ran on {} before its startup probe succeeded",
                            p.container, p.probe, p.container_id
                        ),
                    })
                }
                _ => {}
            },
            Record::Process { pod, container, fact, .. } => {
                let lives = life.entry((pod.clone(), container.clone())).or_default();
                match fact {
                    ProcessFact::Started => lives.push(Life { started: e.t, finished: None, killed: false }),
                    ProcessFact::Sigterm => {
                        if let Some(l) = lives.last_mut() {
                            l.killed = true;
                        }
                    }
                    ProcessFact::Exited { .. } => {
                        if let Some(l) = lives.last_mut() {
                            l.finished = Some(e.t);
                        }
                    }
                    _ => {}
                }
            }
            // A probe kill decided on a stale snapshot may find the process
            // already gone; the restart still follows the kill rule.
            Record::Kubelet(a) if a.reason == "Killing" => {
                let Some(c) = &a.container else { continue };
                if let Some(l) = life.get_mut(&(a.pod.clone(), c.clone())).and_then(|v| v.last_mut()) {
                    l.killed = true;
                }
            }
            _ => {}
        }
    }
    for ((pod, container), lives) in &life {
        crash_loop(pod, container, lives, cluster, &mut out);
    }
    out.sort_by_key(|v| v.t);
    out
}

struct Life {
    started: SimTime,
    finished: Option<SimTime>,
    killed: bool,
}

fn snapshot(pod: &ApiPod, t: SimTime, out: &mut Vec<Violation>) {
    let s = &pod.status;
    let name = &pod.spec.name;
    if s.condition_true(ConditionType::Ready) && !s.condition_true(ConditionType::ContainersReady) {
        out.push(Violation { invariant: "ready-implies-containers-ready", t, detail: format!("pod/{name}") });
    }
    if s.condition_true(ConditionType::ContainersReady) {
        for c in s.containers.iter().filter(|c| !c.ready) {
            out.push(Violation {
                invariant: "containers-ready-implies-all-ready",
                t,
                detail: format!("pod/{name} container {} not ready", c.name),
            });
        }
    }
    for c in s.containers.iter().filter(|c| c.ready && !c.started) {
        out.push(Violation {
            invariant: "ready-implies-started",
            t,
            detail: format!("pod/{name} container {}", c.name),
        });
    }
    for c in &s.containers {
        if c.ready && !matches!(c.state, ContainerState::Running { .. }) {
            out.push(Violation {
                invariant: "ready-implies-started",
                t,
                detail: format!("pod/{name} container {} ready but not running", c.name),
            });
        }
    }
}

fn transitions(old: &ApiPod, new: &ApiPod, t: SimTime, out: &mut Vec<Violation>) {
    for c in &new.status.conditions {
        if let Some(o) = old.status.condition(c.kind)
            && o.status == c.status
            && o.last_transition != c.last_transition
        {
            out.push(Violation {
                invariant: "transition-time-moves-with-status",
                t,
                detail: format!(
                    "pod/{} {} stayed {} but lastTransitionTime moved",
                    new.spec.name,
                    c.kind.as_str(),
                    c.status
                ),
            });
        }
    }
}

/// For a container whose every exit so far was its own (no kill) and whose
/// runs were short (no 10-minute reset), restart 1 is immediate (#133472)
/// and restart i ≥ 2 waits at least min(initial · 2^(i−2), max) after the
/// previous exit.
fn crash_loop(pod: &str, container: &str, lives: &[Life], cluster: &Cluster, out: &mut Vec<Violation>) {
    let reset_guard = SimDuration::from_secs(600).saturating_sub(cluster.backoff_max);
    for i in 1..lives.len() {
        let window = &lives[..=i];
        if window.iter().any(|l| l.killed)
            || window[..i].iter().any(|l| l.finished.is_none_or(|f| f.since(l.started) >= reset_guard))
        {
            return;
        }
        if i < 2 {
            continue;
        }
        let finished = lives[i - 1].finished.unwrap_or(SimTime::ZERO);
        let want = (cluster.backoff_initial * (1 << (i - 2).min(20))).min(cluster.backoff_max);
        let gap = lives[i].started.since(finished);
        if gap < want {
            out.push(Violation {
                invariant: "crash-loop-backoff",
                t: lives[i].started,
                detail: format!(
                    "pod/{pod} container {container} restarted {gap} after exiting; restart {i} needs at least {want}"
                ),
            });
        }
    }
}
