//! `getPhase` (pkg/kubelet/kubelet_pods.go): the pod phase from its init and
//! regular container statuses and restartPolicy.

use crate::api::status::{ContainerState, ContainerStatus, PodPhase};
use crate::spec::{PodSpec, RestartPolicy, Role};

pub struct PhaseInputs<'a> {
    pub spec: &'a PodSpec,
    pub init: &'a [ContainerStatus],
    pub regular: &'a [ContainerStatus],
    /// The pod worker has stopped every container (`podIsTerminal`).
    pub terminal: bool,
    /// `HasAnyActiveRegularContainerStarted`: a regular container exists in the runtime.
    pub has_initialized: bool,
}

fn find<'a>(list: &'a [ContainerStatus], name: &str) -> Option<&'a ContainerStatus> {
    list.iter().find(|s| &*s.name == name)
}

/// `getPhase`. Without container-level restart rules the 1.34 and 1.35+
/// forms decide alike.
pub fn pod_phase(i: &PhaseInputs<'_>) -> PodPhase {
    let (mut pending_init, mut pending_sidecars, mut failed_init) = (0, 0, 0);
    let (mut unknown, mut running, mut waiting, mut stopped, mut succeeded) = (0, 0, 0, 0, 0);
    for c in i.spec.containers.iter().filter(|c| c.role == Role::Init) {
        match find(i.init, &c.name).map(|s| (&s.state, &s.last_state)) {
            None | Some((ContainerState::Running { .. }, _)) => pending_init += 1,
            Some((ContainerState::Terminated(t), _)) if t.exit_code != 0 => failed_init += 1,
            Some((ContainerState::Terminated(_), _)) => {}
            Some((ContainerState::Waiting { .. }, Some(last))) if last.exit_code != 0 => failed_init += 1,
            Some((ContainerState::Waiting { .. }, Some(_))) => {}
            Some((ContainerState::Waiting { .. }, None)) => pending_init += 1,
        }
    }
    for c in i.spec.containers.iter().filter(|c| c.role == Role::Sidecar) {
        match find(i.init, &c.name) {
            None => unknown += 1,
            Some(s) => match (&s.state, &s.last_state) {
                (ContainerState::Running { .. }, _) => {
                    if !s.started {
                        pending_sidecars += 1;
                    }
                    running += 1;
                }
                // Terminated sidecars, and restarting ones, are ignored.
                (ContainerState::Terminated(_), _) | (ContainerState::Waiting { .. }, Some(_)) => {}
                (ContainerState::Waiting { .. }, None) => {
                    pending_sidecars += 1;
                    waiting += 1;
                }
            },
        }
    }
    for (_, c) in i.spec.regular() {
        match find(i.regular, &c.name).map(|s| (&s.state, &s.last_state)) {
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
    if failed_init > 0 && i.spec.restart_policy == RestartPolicy::Never {
        return PodPhase::Failed;
    }
    match () {
        _ if pending_init > 0 || (pending_sidecars > 0 && !i.has_initialized) || waiting > 0 => PodPhase::Pending,
        _ if running > 0 && unknown == 0 => PodPhase::Running,
        _ if running == 0 && stopped > 0 && unknown == 0 => {
            if i.terminal {
                return if stopped == succeeded { PodPhase::Succeeded } else { PodPhase::Failed };
            }
            match i.spec.restart_policy {
                RestartPolicy::Always => PodPhase::Running,
                _ if stopped == succeeded => PodPhase::Succeeded,
                RestartPolicy::Never => PodPhase::Failed,
                RestartPolicy::OnFailure => PodPhase::Running,
            }
        }
        _ => PodPhase::Pending,
    }
}
