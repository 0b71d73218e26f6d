//! `computePodActions` (kuberuntime_manager.go): what one sync must do, from
//! the runtime snapshot it started with and the probe results.

mod init;

use super::container_hash;
use super::pleg::PodSnapshot;
use super::prober::results::{ProbeResult, Results};
use super::runtime::{InstId, InstState};
use super::status::generate::should_restart;
use crate::spec::{PodSpec, ProbeKind, RestartPolicy};

/// Why a running container is killed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KillReason {
    LivenessProbe,
    StartupProbe,
    /// A failed postStart hook (`reasonFailedPostStartHook`).
    FailedPostStartHook,
    /// Killed with the whole pod (`killPodWithSyncResult`).
    PodKill,
    /// Its spec hash changed (a new image): restarted whatever the policy.
    DefinitionChanged,
}

impl KillReason {
    /// The probe whose own `terminationGracePeriodSeconds` applies (`setTerminationGracePeriod`).
    pub fn probe(self) -> Option<ProbeKind> {
        match self {
            KillReason::LivenessProbe => Some(ProbeKind::Liveness),
            KillReason::StartupProbe => Some(ProbeKind::Startup),
            _ => None,
        }
    }
}

/// One container to kill, with the `Killing` event message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kill {
    pub inst: InstId,
    pub container: usize,
    pub message: String,
    pub reason: KillReason,
}

/// `podActions`. Container indices are into `PodSpec::containers`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodActions {
    pub create_sandbox: bool,
    /// Kill every running container and stop the sandbox.
    pub kill_pod: bool,
    pub kill: Vec<Kill>,
    /// `InitContainersToStart`, in spec order.
    pub start_init: Vec<usize>,
    /// `ContainersToStart`: regular containers, in spec order.
    pub start: Vec<usize>,
}

/// The probe results `computePodActions` reads.
pub struct ProbeView<'a> {
    pub liveness: &'a Results,
    pub startup: &'a Results,
}

pub fn compute(spec: &PodSpec, snap: &PodSnapshot, probes: &ProbeView<'_>) -> PodActions {
    let mut a = PodActions::default();
    // `PodSandboxChanged`: no ready sandbox means a new one.
    if snap.sandbox.ip().is_none() {
        return new_sandbox(spec, snap);
    }
    let initialized = init::compute(spec, snap, probes, &mut a);
    if a.kill_pod || !initialized {
        return a;
    }
    let mut keep = 0;
    for (i, c) in spec.regular() {
        let newest = snap.newest(i);
        let Some(running) = newest.filter(|n| matches!(n.state, InstState::Running { .. })) else {
            if should_restart(spec.restart_policy, newest, false) {
                a.start.push(i);
            }
            continue;
        };
        // `containerChanged` first: a new spec restarts "regardless of the restart policy".
        let (mut message, reason, restart) = if running.hash != container_hash::hash(c) {
            (format!("Container {} definition changed", c.name), KillReason::DefinitionChanged, true)
        } else if probes.liveness.get(running.inst) == Some(ProbeResult::Failure) {
            let message = format!("Container {} failed {} probe", c.name, ProbeKind::Liveness);
            (message, KillReason::LivenessProbe, spec.restart_policy != RestartPolicy::Never)
        } else if probes.startup.get(running.inst) == Some(ProbeResult::Failure) {
            let message = format!("Container {} failed {} probe", c.name, ProbeKind::Startup);
            (message, KillReason::StartupProbe, spec.restart_policy != RestartPolicy::Never)
        } else {
            keep += 1;
            continue;
        };
        if restart {
            message.push_str(", will be restarted");
            a.start.push(i);
        }
        a.kill.push(Kill { inst: running.inst, container: i, message, reason });
    }
    if keep == 0 && a.start.is_empty() {
        // Running sidecars do not keep the pod alive, and are not restarted.
        a.kill_pod = true;
        a.start_init.clear();
    }
    a
}

/// The sandbox branch of `computePodActions`: the first sync, or a pod whose
/// sandbox was stopped.
fn new_sandbox(spec: &PodSpec, snap: &PodSnapshot) -> PodActions {
    let mut a = PodActions { create_sandbox: true, kill_pod: true, ..PodActions::default() };
    let ran_before = !snap.containers.is_empty();
    if spec.restart_policy == RestartPolicy::Never && ran_before {
        a.create_sandbox = false;
        return a;
    }
    let start: Vec<usize> = spec
        .regular()
        .filter(|(i, _)| {
            let succeeded = snap.newest(*i).is_some_and(|c| matches!(c.state, InstState::Exited { exit_code: 0, .. }));
            !(spec.restart_policy == RestartPolicy::OnFailure && succeeded)
        })
        .map(|(i, _)| i)
        .collect();
    // `hasAnyRegularContainerCreated`: initialization was done; nothing to run.
    if start.is_empty() && spec.regular().any(|(i, _)| snap.newest(i).is_some()) {
        a.create_sandbox = false;
        return a;
    }
    match spec.init().next() {
        Some((first, _)) => a.start_init.push(first),
        None => a.start = start,
    }
    // Nothing ran yet: there is nothing to kill.
    a.kill_pod = ran_before;
    a
}
