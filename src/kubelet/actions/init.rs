//! `computeInitContainerActions` (kuberuntime_container.go): which init
//! containers and sidecars to start or restart, and whether the pod has
//! finished initializing.

use super::{Kill, KillReason, PodActions, ProbeView};
use crate::kubelet::container_hash;
use crate::kubelet::pleg::PodSnapshot;
use crate::kubelet::prober::results::ProbeResult;
use crate::kubelet::runtime::InstState;
use crate::spec::{PodSpec, RestartPolicy, Role};

/// Walks the init containers newest-first: the newest one with a status
/// decides progress; everything before it was initialized already. Returns
/// `podHasInitialized`.
pub fn compute(spec: &PodSpec, snap: &PodSnapshot, probes: &ProbeView<'_>, a: &mut PodActions) -> bool {
    let init: Vec<usize> = spec.init().map(|(i, _)| i).collect();
    if init.is_empty() {
        return true;
    }
    // A regular container created or running: the pod initialized before.
    let mut has_initialized = spec.regular().any(|(i, _)| {
        snap.newest(i).is_some_and(|c| matches!(c.state, InstState::Created | InstState::Running { .. }))
    });
    let mut previously = has_initialized;
    let restart_on_failure = spec.restart_policy != RestartPolicy::Never;
    let last = init.len().saturating_sub(1);
    let mut start = Vec::new();
    for (pos, &i) in init.iter().enumerate().rev() {
        let c = &spec.containers[i];
        let sidecar = c.role == Role::Sidecar;
        let Some(status) = snap.newest(i) else {
            // Its instance is gone: a sidecar is started again.
            if previously && sidecar {
                start.push(i);
            }
            continue;
        };
        if previously && !sidecar {
            // After initialization only sidecars are kept running.
            continue;
        }
        match &status.state {
            // Stuck in Created (the start failed): start it again.
            InstState::Created => start.push(i),
            // A run-to-completion init container: wait for it to finish.
            InstState::Running { .. } if !sidecar => {}
            InstState::Running { .. } => 'sidecar: {
                if c.startup.is_some() {
                    match probes.startup.get(status.inst) {
                        Some(ProbeResult::Success) => {}
                        Some(ProbeResult::Failure) => {
                            let message = format!("Init container {} failed startup probe", c.name);
                            a.kill.push(Kill {
                                inst: status.inst,
                                container: i,
                                message,
                                reason: KillReason::StartupProbe,
                            });
                            start.push(i);
                            break 'sidecar;
                        }
                        // Not probed yet (or Unknown): wait for it.
                        _ => break 'sidecar,
                    }
                }
                if pos == last {
                    has_initialized = true;
                } else if !previously {
                    start.push(init[pos + 1]);
                }
                // A running sidecar whose definition changed is restarted.
                if status.hash != container_hash::hash(c) {
                    let message = format!("Init container {} definition changed", c.name);
                    a.kill.push(Kill {
                        inst: status.inst,
                        container: i,
                        message,
                        reason: KillReason::DefinitionChanged,
                    });
                    start.push(i);
                    break 'sidecar;
                }
                // Liveness never holds back the next init container.
                if c.liveness.is_some() && probes.liveness.get(status.inst) == Some(ProbeResult::Failure) {
                    let message = format!("Init container {} failed liveness probe", c.name);
                    a.kill.push(Kill { inst: status.inst, container: i, message, reason: KillReason::LivenessProbe });
                    start.push(i);
                }
            }
            // A sidecar is restarted whatever the pod's restartPolicy.
            InstState::Exited { .. } if sidecar => start.push(i),
            InstState::Exited { exit_code, .. } if *exit_code != 0 => {
                if !restart_on_failure {
                    a.kill_pod = true;
                    a.start_init.clear();
                    return false;
                }
                start.push(i);
            }
            InstState::Exited { .. } => {
                if pos == last {
                    has_initialized = true;
                } else {
                    start.push(init[pos + 1]);
                }
            }
        }
        previously = true;
    }
    if !previously && let Some(&first) = init.first() {
        start.push(first);
    }
    start.reverse();
    a.start_init = start;
    has_initialized
}
