//! A pod's lanes: each container's state with its probe results underneath,
//! then the pod's conditions.

use super::model::{Group, Lane, ObjectKey, Spans};
use crate::api::pod::ApiPod;
use crate::api::status::{ConditionType, ContainerState, ContainerStatus};
use crate::plot::palette::Look;
use crate::spec::{ProbeKind, Role};
use crate::trace::record::{ProbeRun, ProcessFact, Verdict};
use std::sync::Arc;

/// One pod, as the versions the API server stored show it.
pub struct PodLanes {
    title: String,
    uid: Arc<str>,
    /// The node it was bound to, once it was.
    node: Option<Arc<str>>,
    containers: Vec<Container>,
    conditions: Vec<(ConditionType, Spans)>,
}

struct Container {
    name: Arc<str>,
    role: Role,
    state: Spans,
    /// What its processes got and did, as ticks on the container's lane.
    facts: Vec<(f64, Look)>,
    probes: Vec<(ProbeKind, Vec<(f64, Look)>)>,
}

impl PodLanes {
    pub fn new(alias: &str, pod: &ApiPod) -> PodLanes {
        let name = pod.spec.name.as_str();
        let title = match alias.strip_prefix("pod/") == Some(name) {
            true => alias.to_string(),
            false => format!("{alias} ({name})"),
        };
        let containers = (pod.spec.containers.iter())
            .map(|c| Container {
                name: c.name.clone(),
                role: c.role,
                state: Spans::default(),
                facts: Vec::new(),
                probes: Vec::new(),
            })
            .collect();
        PodLanes { title, uid: pod.meta.uid.clone(), node: None, containers, conditions: Vec::new() }
    }

    /// A new version of the pod at `t`.
    pub fn see(&mut self, t: f64, pod: &ApiPod) {
        self.node = self.node.take().or_else(|| pod.node.clone());
        let status = &pod.status;
        for c in status.all_containers() {
            if let Some(x) = self.containers.iter_mut().find(|x| x.name == c.name) {
                x.state.set(t, Some(state(c)));
            }
        }
        for c in &status.conditions {
            let i = match self.conditions.iter().position(|(k, _)| *k == c.kind) {
                Some(i) => i,
                None => {
                    self.conditions.push((c.kind.clone(), Spans::default()));
                    self.conditions.len() - 1
                }
            };
            let shown = match c.status {
                true => (Look::ConditionTrue, String::new()),
                false => (Look::ConditionFalse, c.reason.as_deref().unwrap_or("False").to_string()),
            };
            self.conditions[i].1.set(t, Some(shown));
        }
    }

    pub fn probe(&mut self, t: f64, run: &ProbeRun) {
        let Some(c) = self.containers.iter_mut().find(|c| c.name == run.container) else { return };
        let look = match run.verdict {
            Verdict::Success => Look::ProbeSuccess,
            Verdict::Failure => Look::ProbeFailure,
            Verdict::Error => Look::ProbeError,
        };
        match c.probes.iter_mut().find(|(k, _)| *k == run.probe) {
            Some((_, ticks)) => ticks.push((t, look)),
            None => c.probes.push((run.probe, vec![(t, look)])),
        }
    }

    /// A process fact: signals and exits show on the container's lane, ahead
    /// of the status the kubelet reports later.
    pub fn process(&mut self, t: f64, container: &str, fact: &ProcessFact) {
        let look = match fact {
            ProcessFact::Sigterm | ProcessFact::Signal { signal: "SIGTERM" } => Look::Sigterm,
            // The OOM killer's is a SIGKILL too.
            ProcessFact::Sigkill | ProcessFact::OomKilled { .. } | ProcessFact::Signal { .. } => Look::Sigkill,
            ProcessFact::Exited { .. } | ProcessFact::NodeStopped => Look::Exited,
            _ => return,
        };
        if let Some(c) = self.containers.iter_mut().find(|c| &*c.name == container) {
            c.facts.push((t, look));
        }
    }

    /// The pod's group, every state ended at `end` (its removal or the run's end).
    pub fn finish(mut self, end: f64) -> Group {
        let mut lanes = Vec::new();
        for mut c in self.containers {
            c.state.close(end);
            let label = match c.role {
                Role::Init => format!("{} (init)", c.name),
                Role::Sidecar => format!("{} (sidecar)", c.name),
                Role::Regular => c.name.to_string(),
            };
            lanes.push(Lane { bars: c.state.bars, instants: c.facts, label });
            c.probes.sort_by_key(|(k, _)| ProbeKind::ALL.iter().position(|x| x == k));
            for (kind, ticks) in c.probes {
                lanes.push(Lane { instants: ticks, ..Lane::new(format!("{} {kind} probe", c.name)) });
            }
        }
        self.conditions.sort_by(|(a, _), (b, _)| rank(a).cmp(&rank(b)));
        for (kind, mut spans) in self.conditions {
            spans.close(end);
            lanes.push(Lane { bars: spans.bars, ..Lane::new(kind.as_str()) });
        }
        let title = match self.node {
            Some(node) => format!("{} on {node}", self.title),
            None => self.title,
        };
        Group { title, object: Some(ObjectKey::Pod(self.uid)), lanes }
    }
}

/// Conditions in the order a pod gets them.
fn rank(kind: &ConditionType) -> (u8, &str) {
    let n = match kind {
        ConditionType::PodScheduled => 0,
        ConditionType::PodReadyToStartContainers => 1,
        ConditionType::Initialized => 2,
        ConditionType::ContainersReady => 3,
        ConditionType::Ready => 4,
        ConditionType::Other(_) => 5,
    };
    (n, kind.as_str())
}

/// A container's state as a bar: its look and the word printed on it.
fn state(c: &ContainerStatus) -> (Look, String) {
    match &c.state {
        ContainerState::Waiting { reason, .. } => {
            let reason = reason.as_deref().unwrap_or("Waiting");
            let look = if reason == "CrashLoopBackOff" { Look::BackOff } else { Look::Waiting };
            (look, reason.to_string())
        }
        ContainerState::Running { .. } if c.ready => (Look::RunningReady, "Running, ready".into()),
        ContainerState::Running { .. } => (Look::Running, "Running".into()),
        ContainerState::Terminated(t) => {
            let look = if t.exit_code == 0 { Look::Completed } else { Look::Failed };
            (look, format!("{} ({})", t.reason, t.exit_code))
        }
    }
}
