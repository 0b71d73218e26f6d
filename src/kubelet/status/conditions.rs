//! The kubelet-owned pod conditions (pkg/kubelet/status/generate.go).

use crate::api::status::{Condition, ConditionType, ContainerState, PodPhase, PodStatus};
use crate::cluster::Version;
use crate::kubelet::pleg::SandboxSnap;
use crate::spec::{PodSpec, Role};
use std::fmt::Write;

const CONTAINERS_NOT_READY: &str = "ContainersNotReady";
const CONTAINERS_NOT_INITIALIZED: &str = "ContainersNotInitialized";
const READINESS_GATES_NOT_READY: &str = "ReadinessGatesNotReady";
const POD_COMPLETED: &str = "PodCompleted";
const POD_FAILED: &str = "PodFailed";

/// `GenerateContainersReadyCondition`: sidecars and regular containers must be ready.
pub fn containers_ready(spec: &PodSpec, s: &PodStatus, phase: PodPhase) -> Condition {
    let mut unknown = Vec::new();
    let mut unready = Vec::new();
    let counted = spec.containers.iter().filter(|c| c.role == Role::Sidecar).chain(spec.regular().map(|(_, c)| c));
    for c in counted {
        match s.container(&c.name) {
            Some(st) if !st.ready => unready.push(&*c.name),
            Some(_) => {}
            None => unknown.push(&*c.name),
        }
    }
    if (phase == PodPhase::Succeeded && unknown.is_empty()) || phase == PodPhase::Failed {
        return terminal(ConditionType::ContainersReady, phase);
    }
    // Written into one string: this runs at every status generation.
    let mut message = String::new();
    for (what, names) in [("unknown", &unknown), ("unready", &unready)] {
        if names.is_empty() {
            continue;
        }
        if !message.is_empty() {
            message.push_str(", ");
        }
        let _ = write!(message, "containers with {what} status: {}", GoList(names));
    }
    if message.is_empty() {
        Condition::new(ConditionType::ContainersReady, true)
    } else {
        Condition::new(ConditionType::ContainersReady, false).reason(CONTAINERS_NOT_READY).message(message)
    }
}

/// Go's `%s` of a string slice: `[a b]`.
struct GoList<'a>(&'a [&'a str]);

impl std::fmt::Display for GoList<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[")?;
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(name)?;
        }
        f.write_str("]")
    }
}

/// `GeneratePodReadyCondition`: ContainersReady, then every readiness gate's
/// condition (from the status's other conditions) must be True.
pub fn pod_ready(spec: &PodSpec, s: &PodStatus, phase: PodPhase) -> Condition {
    ready_given(spec, s, &containers_ready(spec, s, phase))
}

/// [`pod_ready`] with the ContainersReady condition already generated
/// (`containers`), when both are set.
pub fn ready_given(spec: &PodSpec, s: &PodStatus, containers: &Condition) -> Condition {
    if !containers.status {
        return Condition { kind: ConditionType::Ready, ..containers.clone() };
    }
    let mut messages = Vec::new();
    for gate in &spec.readiness_gates {
        match s.other_conditions().find(|c| c.kind.as_str() == gate) {
            None => messages.push(format!("corresponding condition of pod readiness gate {gate:?} does not exist.")),
            Some(c) if !c.status => {
                messages.push(format!("the status of pod readiness gate {gate:?} is not \"True\", but False"))
            }
            Some(_) => {}
        }
    }
    if messages.is_empty() {
        Condition::new(ConditionType::Ready, true)
    } else {
        Condition::new(ConditionType::Ready, false).reason(READINESS_GATES_NOT_READY).message(messages.join(", "))
    }
}

/// `GeneratePodInitializedCondition`: every regular init container ready
/// (exited 0) and every sidecar started — or any regular container has run.
pub fn initialized(spec: &PodSpec, s: &PodStatus, phase: PodPhase) -> Condition {
    let mut unknown = Vec::new();
    let mut incomplete = Vec::new();
    for (_, c) in spec.init() {
        match s.container(&c.name) {
            None => unknown.push(&*c.name),
            Some(st) => {
                let done = if c.role == Role::Sidecar { st.started } else { st.ready };
                if !done {
                    incomplete.push(&*c.name);
                }
            }
        }
    }
    if phase == PodPhase::Succeeded && unknown.is_empty() {
        return Condition::new(ConditionType::Initialized, true).reason(POD_COMPLETED);
    }
    // `HasAnyRegularContainerStarted`: a regular container Running or Terminated.
    let started =
        s.containers.iter().any(|c| matches!(c.state, ContainerState::Running { .. } | ContainerState::Terminated(_)));
    if started {
        return Condition::new(ConditionType::Initialized, true);
    }
    let mut messages = Vec::new();
    if !unknown.is_empty() {
        messages.push(format!("containers with unknown status: {}", GoList(&unknown)));
    }
    if !incomplete.is_empty() {
        messages.push(format!("containers with incomplete status: {}", GoList(&incomplete)));
    }
    if messages.is_empty() {
        Condition::new(ConditionType::Initialized, true)
    } else {
        Condition::new(ConditionType::Initialized, false)
            .reason(CONTAINERS_NOT_INITIALIZED)
            .message(messages.join(", "))
    }
}

/// `GeneratePodReadyToStartContainersCondition`: True once a ready sandbox
/// with networking exists, else False — bare up to 1.35; from 1.36 (PR
/// #135300) with reason `PodSandboxNotReady` and, as its message, why
/// `PodSandboxChanged` wants a new sandbox (pkg/kubelet/types/constants.go).
pub fn ready_to_start(sandbox: &SandboxSnap, version: Version) -> Condition {
    let message = match sandbox {
        SandboxSnap::Ready(_) => return Condition::new(ConditionType::PodReadyToStartContainers, true),
        // PodSandboxNotReadyMsgNoPodSandbox
        SandboxSnap::Absent => "no pod sandbox exists",
        // PodSandboxNotReadyMsgSandboxNotReady: stopped with the pod
        SandboxSnap::Stopped => "pod sandbox is not ready",
    };
    let c = Condition::new(ConditionType::PodReadyToStartContainers, false);
    if version >= Version::V1_36 { c.reason("PodSandboxNotReady").message(message.to_string()) } else { c }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn words(c: &Condition) -> (bool, Option<&str>, Option<&str>) {
        (c.status, c.reason.as_deref(), c.message.as_deref())
    }

    /// GeneratePodReadyToStartContainersCondition in each modelled version:
    /// 1.34 and 1.35 write a bare False; 1.36 and 1.37 add the reason and
    /// PodSandboxChanged's message (PR #135300). True never has either.
    #[test]
    fn ready_to_start_wording_by_version() {
        let ip = SandboxSnap::Ready(Arc::from("10.244.1.2"));
        for v in Version::ALL {
            assert_eq!(words(&ready_to_start(&ip, v)), (true, None, None), "{v:?}");
            let (absent, stopped) = (ready_to_start(&SandboxSnap::Absent, v), ready_to_start(&SandboxSnap::Stopped, v));
            if v < Version::V1_36 {
                assert_eq!(words(&absent), (false, None, None), "{v:?}");
                assert_eq!(words(&stopped), (false, None, None), "{v:?}");
            } else {
                assert_eq!(words(&absent), (false, Some("PodSandboxNotReady"), Some("no pod sandbox exists")), "{v:?}");
                assert_eq!(
                    words(&stopped),
                    (false, Some("PodSandboxNotReady"), Some("pod sandbox is not ready")),
                    "{v:?}"
                );
            }
        }
    }
}
