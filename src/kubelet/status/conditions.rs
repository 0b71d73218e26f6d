//! The kubelet-owned pod conditions (pkg/kubelet/status/generate.go).

use crate::api::status::{Condition, ConditionType, ContainerStatus, PodPhase};
use crate::spec::PodSpec;

const CONTAINERS_NOT_READY: &str = "ContainersNotReady";
const POD_COMPLETED: &str = "PodCompleted";
const POD_FAILED: &str = "PodFailed";

/// `GenerateContainersReadyCondition`.
pub fn containers_ready(spec: &PodSpec, statuses: &[ContainerStatus], phase: PodPhase) -> Condition {
    let mut unknown = Vec::new();
    let mut unready = Vec::new();
    for c in &spec.containers {
        match statuses.iter().find(|s| s.name == c.name) {
            Some(s) if !s.ready => unready.push(&*c.name),
            Some(_) => {}
            None => unknown.push(&*c.name),
        }
    }
    if (phase == PodPhase::Succeeded && unknown.is_empty()) || phase == PodPhase::Failed {
        return terminal(ConditionType::ContainersReady, phase);
    }
    let mut messages = Vec::new();
    if !unknown.is_empty() {
        messages.push(format!("containers with unknown status: [{}]", unknown.join(" ")));
    }
    if !unready.is_empty() {
        messages.push(format!("containers with unready status: [{}]", unready.join(" ")));
    }
    if messages.is_empty() {
        Condition::new(ConditionType::ContainersReady, true)
    } else {
        Condition::new(ConditionType::ContainersReady, false).reason(CONTAINERS_NOT_READY).message(messages.join(", "))
    }
}

/// `GeneratePodReadyCondition`: Ready copies ContainersReady (no readiness gates yet).
pub fn pod_ready(spec: &PodSpec, statuses: &[ContainerStatus], phase: PodPhase) -> Condition {
    let cr = containers_ready(spec, statuses, phase);
    Condition { kind: ConditionType::Ready, ..cr }
}

/// `GeneratePodInitializedCondition` for a pod without init containers.
pub fn initialized(phase: PodPhase) -> Condition {
    let c = Condition::new(ConditionType::Initialized, true);
    if phase == PodPhase::Succeeded { c.reason(POD_COMPLETED) } else { c }
}

/// `GeneratePodReadyToStartContainersCondition`: True once a ready sandbox
/// with networking exists. From 1.36 a False one carries `PodSandboxNotReady`.
pub fn ready_to_start(sandbox_ready: bool, with_reason: bool) -> Condition {
    let c = Condition::new(ConditionType::PodReadyToStartContainers, sandbox_ready);
    if !sandbox_ready && with_reason { c.reason("PodSandboxNotReady") } else { c }
}

/// `generate{ContainersReady,PodReady}ConditionForTerminalPhase`.
pub fn terminal(kind: ConditionType, phase: PodPhase) -> Condition {
    let c = Condition::new(kind, false);
    match phase {
        PodPhase::Failed => c.reason(POD_FAILED),
        PodPhase::Succeeded => c.reason(POD_COMPLETED),
        _ => c,
    }
}
