//! What changed between two versions of a Pod, each change with the reason
//! a person needs ("Ready=True because the readiness probe succeeded").

use crate::api::pod::ApiPod;
use crate::api::status::{Condition, ContainerState, ContainerStatus, PodPhase, PodStatus};
use crate::spec::{OwnerRef, PodSpec, RestartPolicy, Role};

/// One visible change of one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub object: String,
    /// What changed and to what: `Ready=True`, `container app Running`.
    pub what: String,
    pub why: String,
}

/// The changes from `old` (None for a new object) to `new`.
pub fn changes(old: Option<&ApiPod>, new: &ApiPod) -> Vec<Change> {
    let object = format!("pod/{}", new.spec.name);
    let mut out = Vec::new();
    let mut push = |what: String, why: String| out.push(Change { object: object.clone(), what, why });
    let Some(old) = old else {
        push(format!("created, phase={}", new.status.phase.as_str()), String::new());
        return out;
    };
    if let Some(row) = owner_change(old.spec.owner.as_ref(), new.spec.owner.as_ref()) {
        push(row.0, row.1);
    }
    if old.meta.deletion != new.meta.deletion
        && let Some(d) = new.meta.deletion
    {
        let why = match (old.meta.deletion, d.grace_seconds) {
            (None, 0) => "deleted with no grace period: the object is removed at once".to_string(),
            (None, g) => format!("the kubelet stops the pod within the {g}s grace period"),
            (Some(_), 0) if d.by_kubelet => "the kubelet's final DELETE: every container has stopped".to_string(),
            (Some(_), g) => format!("a second DELETE shortened the grace period to {g}s"),
        };
        let at = d.timestamp.since(crate::time::SimTime::ZERO);
        push(format!("deletionTimestamp=+{at} (grace {}s)", d.grace_seconds), why);
    }
    if !std::sync::Arc::ptr_eq(&old.spec, &new.spec) {
        spec_changes(&old.spec, &new.spec, &mut push);
    }
    let (o, n) = (&old.status, &new.status);
    for c in &n.conditions {
        let before = o.condition(&c.kind);
        if before.is_none_or(|b| b.status != c.status || b.reason != c.reason) {
            push(
                format!("{}={}", c.kind.as_str(), if c.status { "True" } else { "False" }),
                condition_why(c, before, n, new),
            );
        }
    }
    for c in n.all_containers() {
        let before = o.container(&c.name);
        container_changes(before, c, &mut push);
    }
    if o.phase != n.phase {
        push(format!("phase={}", n.phase.as_str()), phase_why(n, new));
    }
    out
}

/// A patched spec: the deadline and the images, as `metadata.generation` moves.
fn spec_changes(old: &PodSpec, new: &PodSpec, push: &mut impl FnMut(String, String)) {
    if old.active_deadline_seconds != new.active_deadline_seconds {
        let what = match new.active_deadline_seconds {
            Some(d) => format!("spec.activeDeadlineSeconds={d}"),
            None => "spec.activeDeadlineSeconds removed".to_string(),
        };
        push(what, "patched: the kubelet fails the pod once it has been active that long".into());
    }
    // What the kubelet does with the new spec hash depends on the container
    // and the pod (running, waiting in back-off, completed, terminating):
    // its own rows say it.
    for (o, n) in old.containers.iter().zip(&new.containers).filter(|(o, n)| o.image != n.image) {
        push(
            format!("container {} image={}", n.name, n.image),
            format!(
                "patched from {}: the container's spec hash changes; the kubelet's rows show what follows",
                o.image
            ),
        );
    }
}

/// A controller reference added (`ClaimObject` adopts an orphan its
/// selector matches) or removed. A controller releases an object whose
/// labels no longer match its selector, but labels never change in a run:
/// a reference goes only when the garbage collector orphans the object.
pub fn owner_change(old: Option<&OwnerRef>, new: Option<&OwnerRef>) -> Option<(String, String)> {
    let id = |o: &OwnerRef| format!("{}/{}", o.kind.to_lowercase(), o.name);
    match (old, new) {
        (None, Some(n)) => Some((
            format!("adopted by {}", id(n)),
            "it had no controller and its labels match the selector: the controller PATCHed in its reference".into(),
        )),
        (Some(o), None) => Some((
            format!("orphaned from {}", id(o)),
            "its owner is deleted with --cascade=orphan: the garbage collector PATCHed out its reference".into(),
        )),
        _ => None,
    }
}

/// Why condition `c` (which was `before`) now reads as it does.
fn condition_why(c: &Condition, before: Option<&Condition>, s: &PodStatus, pod: &ApiPod) -> String {
    use crate::api::status::ConditionType::*;
    // A sandbox existed if the condition was True, or the pod has its own IP
    // (a hostNetwork pod has the node's from its first status,
    // `generateAPIPodStatus`), or a container was created in it.
    let had_sandbox = before.is_some_and(|b| b.status)
        || (pod.status.pod_ip.is_some() && !pod.spec.host_network)
        || s.containers.iter().chain(&s.init_containers).any(|c| c.instance.is_some());
    match (&c.kind, c.status) {
        (PodScheduled, true) => match (&pod.node, &pod.spec.node_name) {
            // No scheduler ran: the kubelet reports the condition (`generateAPIPodStatus`).
            (Some(n), Some(_)) => format!("created bound to {n} (spec.nodeName): its kubelet reports it"),
            (Some(n), None) => format!("bound to {n}"),
            (None, _) => String::new(),
        },
        (PodReadyToStartContainers, true) => "the pod sandbox and its network are ready".into(),
        // 1.36+ writes a reason and message (GeneratePodReadyToStartContainersCondition): shown as written.
        (PodReadyToStartContainers, false) if c.reason.is_some() => {
            format!("{}: {}", c.reason.as_deref().unwrap_or(""), c.message.as_deref().unwrap_or(""))
        }
        (PodReadyToStartContainers, false) if had_sandbox => "the pod sandbox was stopped".into(),
        (PodReadyToStartContainers, false) => "no pod sandbox yet".into(),
        (Initialized, true) if c.reason.is_some() => "the pod completed".into(),
        (Initialized, true) if !pod.spec.has_init_containers() => "no init containers to run".into(),
        (Initialized, true) if s.containers.iter().any(|c| !matches!(c.state, ContainerState::Waiting { .. })) => {
            "a regular container has started".into()
        }
        (Initialized, true) => "every init container completed (sidecars: started)".into(),
        (Initialized | Ready, false) if c.reason.as_deref() != Some("ContainersNotReady") && c.message.is_some() => {
            format!("{}: {}", c.reason.as_deref().unwrap_or(""), c.message.as_deref().unwrap_or(""))
        }
        (Ready | ContainersReady, true) => {
            let whys: Vec<String> = counted(s, pod).map(|c| format!("{}: {}", c.name, c.ready_why)).collect();
            let unmet: Vec<&str> = pod
                .spec
                .readiness_gates
                .iter()
                .filter(|g| !s.other_conditions().any(|o| o.kind.as_str() == g.as_str() && o.status))
                .map(String::as_str)
                .collect();
            let gates = match (pod.spec.readiness_gates.is_empty() || c.kind == ContainersReady, unmet.is_empty()) {
                (true, _) => String::new(),
                (false, true) => {
                    format!(", and every readiness gate is True ({})", pod.spec.readiness_gates.join(", "))
                }
                (false, false) => format!(
                    ", from the kubelet's cached copy of the readiness gates: {} is not True any more (its next sync corrects Ready)",
                    unmet.join(", ")
                ),
            };
            format!("every container is ready ({}){gates}", whys.join("; "))
        }
        (Ready | ContainersReady, false) => {
            let unready: Vec<String> =
                counted(s, pod).filter(|c| !c.ready).map(|c| format!("{}: {}", c.name, c.ready_why)).collect();
            let reason = c.reason.as_deref().unwrap_or("");
            if unready.is_empty() && c.kind == Ready && c.reason.is_none() {
                "MarkPodsNotReady: the node lifecycle controller marks every pod of a node that stopped posting status (the containers still read ready)".into()
            } else if unready.is_empty() || reason == "PodCompleted" || reason == "PodFailed" {
                reason.to_string()
            } else {
                format!("{reason}: {}", unready.join("; "))
            }
        }
        (Other(_), _) if pod.spec.readiness_gates.iter().any(|g| g == c.kind.as_str()) => {
            "set by another client: a readiness gate's condition".into()
        }
        (Other(_), _) if c.reason.is_some() => {
            format!("{}: {}", c.reason.as_deref().unwrap_or(""), c.message.as_deref().unwrap_or(""))
        }
        (Other(_), _) => "set by another client".into(),
        _ => c.reason.as_deref().unwrap_or("").to_string(),
    }
}

/// The containers whose readiness counts: sidecars and regular containers.
fn counted<'a>(s: &'a PodStatus, pod: &'a ApiPod) -> impl Iterator<Item = &'a ContainerStatus> {
    s.all_containers().filter(|c| {
        pod.spec.container_index(&c.name).is_some_and(|i| pod.spec.containers[i].role != crate::spec::Role::Init)
    })
}

fn phase_why(s: &PodStatus, pod: &ApiPod) -> String {
    let policy = match pod.spec.restart_policy {
        RestartPolicy::Always => "Always",
        RestartPolicy::OnFailure => "OnFailure",
        RestartPolicy::Never => "Never",
    };
    // Sidecars never decide the phase.
    let sidecar =
        |name: &str| pod.spec.container_index(name).is_some_and(|i| pod.spec.containers[i].role == Role::Sidecar);
    let failed = || -> Vec<String> {
        s.all_containers()
            .filter(|c| !sidecar(&c.name))
            .filter_map(|c| match &c.state {
                ContainerState::Terminated(t) if t.reason == "ContainerStatusUnknown" => {
                    Some(format!("{} was not running (ContainerStatusUnknown, {})", c.name, t.exit_code))
                }
                ContainerState::Terminated(t) if t.exit_code != 0 => {
                    Some(format!("{} exited with {} ({})", c.name, t.exit_code, t.reason))
                }
                _ => None,
            })
            .collect()
    };
    let deleted = pod.meta.deletion.is_some();
    if let Some(r) = s.reason {
        return format!("{}: {}", r.as_str(), r.message());
    }
    match s.phase {
        PodPhase::Running => {
            let running: Vec<&str> = s.all_containers().filter(|c| c.state.is_running()).map(|c| &*c.name).collect();
            if running.is_empty() {
                format!("no container is running, but restartPolicy {policy} will restart them")
            } else {
                format!("running: {}", running.join(", "))
            }
        }
        PodPhase::Succeeded if deleted => "deleted, and every regular container exited with 0".into(),
        PodPhase::Succeeded => format!("every regular container exited with 0 (restartPolicy {policy})"),
        PodPhase::Failed if deleted => {
            let f = failed();
            if f.is_empty() {
                "deleted before its containers finished starting".into()
            } else {
                format!("deleted, and {}", f.join(", "))
            }
        }
        PodPhase::Failed => {
            format!("{} and restartPolicy {policy} does not restart it", failed().join(", "))
        }
        PodPhase::Pending => String::new(),
    }
}

fn container_changes(before: Option<&ContainerStatus>, c: &ContainerStatus, push: &mut impl FnMut(String, String)) {
    let name = &c.name;
    let state_changed = before.is_none_or(|b| b.state != c.state);
    let restarted = before.is_some_and(|b| b.restart_count != c.restart_count);
    if state_changed {
        let (what, why) = match &c.state {
            ContainerState::Waiting { reason, message } => (
                format!("container {name} Waiting({})", reason.as_deref().unwrap_or("")),
                message.clone().unwrap_or_default(),
            ),
            ContainerState::Running { .. } if c.restart_count > 0 => {
                (format!("container {name} Running"), format!("restart {} of the container", c.restart_count))
            }
            ContainerState::Running { .. } => (format!("container {name} Running"), "the kubelet started it".into()),
            ContainerState::Terminated(t) => {
                (format!("container {name} Terminated({}, exit {})", t.reason, t.exit_code), t.why.to_string())
            }
        };
        push(what, why);
    }
    if restarted && !state_changed {
        push(format!("container {name} restartCount={}", c.restart_count), String::new());
    }
    if before.is_none_or(|b| b.started != c.started) && (c.started || before.is_some_and(|b| b.started)) {
        push(format!("container {name} started={}", c.started), c.started_why.to_string());
    }
    if before.is_none_or(|b| b.ready != c.ready) && (c.ready || before.is_some_and(|b| b.ready)) {
        push(format!("container {name} ready={}", c.ready), c.ready_why.to_string());
    }
}
