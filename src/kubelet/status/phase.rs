//! `getPhase` (pkg/kubelet/kubelet_pods.go): the pod phase from its container
//! statuses and restartPolicy.

use crate::api::status::{ContainerState, ContainerStatus, PodPhase};
use crate::spec::{PodSpec, RestartPolicy};

/// `getPhase` for a pod without init containers. `terminal` is true once the
/// pod worker has stopped every container (SyncTerminatingPod).
pub fn pod_phase(spec: &PodSpec, statuses: &[ContainerStatus], terminal: bool) -> PodPhase {
    let (mut unknown, mut running, mut waiting, mut stopped, mut succeeded) = (0, 0, 0, 0, 0);
    for c in &spec.containers {
        match statuses.iter().find(|s| s.name == c.name).map(|s| (&s.state, &s.last_state)) {
            None => unknown += 1,
            Some((ContainerState::Running { .. }, _)) => running += 1,
            Some((ContainerState::Terminated(t), _)) => {
                stopped += 1;
                if t.exit_code == 0 {
                    succeeded += 1;
                }
            }
            Some((ContainerState::Waiting { .. }, Some(_))) => stopped += 1,
            Some((ContainerState::Waiting { .. }, None)) => waiting += 1,
        }
    }
    match () {
        _ if waiting > 0 => PodPhase::Pending,
        _ if running > 0 && unknown == 0 => PodPhase::Running,
        _ if running == 0 && stopped > 0 && unknown == 0 => {
            if terminal {
                return if stopped == succeeded { PodPhase::Succeeded } else { PodPhase::Failed };
            }
            match spec.restart_policy {
                RestartPolicy::Always => PodPhase::Running,
                _ if stopped == succeeded => PodPhase::Succeeded,
                RestartPolicy::Never => PodPhase::Failed,
                RestartPolicy::OnFailure => PodPhase::Running,
            }
        }
        _ => PodPhase::Pending,
    }
}
