//! `computePodActions` (kuberuntime_manager.go): what one sync must do, from
//! the runtime snapshot it started with and the probe results.

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
    /// Killed with the whole pod (`killPodWithSyncResult`).
    PodKill,
}

/// One container to kill, with the `Killing` event message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kill {
    pub inst: InstId,
    pub container: usize,
    pub message: String,
    pub reason: KillReason,
}

/// `podActions`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodActions {
    pub create_sandbox: bool,
    /// Kill every running container and stop the sandbox.
    pub kill_pod: bool,
    pub kill: Vec<Kill>,
    /// Indices in `spec.containers`, in spec order.
    pub start: Vec<usize>,
}

pub fn compute(spec: &PodSpec, snap: &PodSnapshot, liveness: &Results, startup: &Results) -> PodActions {
    let mut a = PodActions::default();
    // `PodSandboxChanged`: no ready sandbox means a new one (first sync).
    if snap.sandbox_ip.is_none() {
        a.create_sandbox = true;
        a.start = (0..spec.containers.len())
            .filter(|&i| {
                let succeeded =
                    snap.newest(i).is_some_and(|c| matches!(c.state, InstState::Exited { exit_code: 0, .. }));
                !(spec.restart_policy == RestartPolicy::OnFailure && succeeded)
            })
            .collect();
        if a.start.is_empty() && !snap.containers.is_empty() {
            a.create_sandbox = false;
            a.kill_pod = true;
        }
        return a;
    }
    let mut keep = 0;
    for (i, c) in spec.containers.iter().enumerate() {
        let newest = snap.newest(i);
        let Some(running) = newest.filter(|n| matches!(n.state, InstState::Running { .. })) else {
            if should_restart(spec, newest, false) {
                a.start.push(i);
            }
            continue;
        };
        let (probe, reason) = if liveness.get(running.inst) == Some(ProbeResult::Failure) {
            (ProbeKind::Liveness, KillReason::LivenessProbe)
        } else if startup.get(running.inst) == Some(ProbeResult::Failure) {
            (ProbeKind::Startup, KillReason::StartupProbe)
        } else {
            keep += 1;
            continue;
        };
        let mut message = format!("Container {} failed {} probe", c.name, probe);
        if spec.restart_policy != RestartPolicy::Never {
            message.push_str(", will be restarted");
            a.start.push(i);
        }
        a.kill.push(Kill { inst: running.inst, container: i, message, reason });
    }
    if keep == 0 && a.start.is_empty() {
        a.kill_pod = true;
    }
    a
}
