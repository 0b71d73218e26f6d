//! `getPhase` (pkg/kubelet/kubelet_pods.go): the pod phase from its init and
//! regular container states and restartPolicy, on a plain view of each
//! container. The trace checker derives the phase on its own from the API
//! objects (`invariants::phase`), so that it judges this code.

use crate::api::status::{ContainerState, ContainerStatus, PodPhase};
use crate::spec::{PodSpec, RestartPolicy, Role};

/// A container's state as `getPhase` reads it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    /// No status for it.
    Missing,
    Running {
        started: bool,
    },
    Terminated {
        exit_code: i32,
    },
    /// Waiting, with the exit code of its previous termination if any.
    Waiting {
        last_exit: Option<i32>,
    },
}

/// `getPhase`. `terminal`: the pod worker has stopped every container;
/// `has_initialized`: a regular container exists in the runtime
/// (`HasAnyActiveRegularContainerStarted`). Without container-level restart
/// rules the 1.34 and 1.35+ forms decide alike.
pub fn get_phase(
    policy: RestartPolicy,
    containers: impl IntoIterator<Item = (Role, Seen)>,
    terminal: bool,
    has_initialized: bool,
) -> PodPhase {
    let (mut pending_init, mut pending_sidecars, mut failed_init) = (0, 0, 0);
    let (mut unknown, mut running, mut waiting, mut stopped, mut succeeded) = (0, 0, 0, 0, 0);
    for (role, seen) in containers {
        match (role, seen) {
            (Role::Init, Seen::Missing | Seen::Running { .. } | Seen::Waiting { last_exit: None }) => pending_init += 1,
            (Role::Init, Seen::Terminated { exit_code } | Seen::Waiting { last_exit: Some(exit_code) }) => {
                if exit_code != 0 {
                    failed_init += 1;
                }
            }
            (Role::Sidecar, Seen::Missing) => unknown += 1,
            (Role::Sidecar, Seen::Running { started }) => {
                if !started {
                    pending_sidecars += 1;
                }
                running += 1;
            }
            // Terminated sidecars, and restarting ones, are ignored.
            (Role::Sidecar, Seen::Terminated { .. } | Seen::Waiting { last_exit: Some(_) }) => {}
            (Role::Sidecar, Seen::Waiting { last_exit: None }) => {
                pending_sidecars += 1;
                waiting += 1;
            }
            (Role::Regular, Seen::Missing) => unknown += 1,
            (Role::Regular, Seen::Running { .. }) => running += 1,
            (Role::Regular, Seen::Terminated { exit_code }) => {
                stopped += 1;
                if exit_code == 0 {
                    succeeded += 1;
                }
            }
            (Role::Regular, Seen::Waiting { last_exit: Some(_) }) => stopped += 1,
            (Role::Regular, Seen::Waiting { last_exit: None }) => waiting += 1,
        }
    }
    if failed_init > 0 && policy == RestartPolicy::Never {
        return PodPhase::Failed;
    }
    match () {
        _ if pending_init > 0 || (pending_sidecars > 0 && !has_initialized) || waiting > 0 => PodPhase::Pending,
        _ if running > 0 && unknown == 0 => PodPhase::Running,
        _ if running == 0 && stopped > 0 && unknown == 0 => {
            if terminal {
                return if stopped == succeeded { PodPhase::Succeeded } else { PodPhase::Failed };
            }
            match policy {
                RestartPolicy::Always => PodPhase::Running,
                _ if stopped == succeeded => PodPhase::Succeeded,
                RestartPolicy::Never => PodPhase::Failed,
                RestartPolicy::OnFailure => PodPhase::Running,
            }
        }
        _ => PodPhase::Pending,
    }
}

/// What `getPhase` reads of one generated container status.
pub fn seen(s: Option<&ContainerStatus>) -> Seen {
    match s.map(|s| (&s.state, s)) {
        None => Seen::Missing,
        Some((ContainerState::Running { .. }, s)) => Seen::Running { started: s.started },
        Some((ContainerState::Terminated(t), _)) => Seen::Terminated { exit_code: t.exit_code },
        Some((ContainerState::Waiting { .. }, s)) => {
            Seen::Waiting { last_exit: s.last_state.as_ref().map(|t| t.exit_code) }
        }
    }
}

/// The phase of a pod from its generated statuses.
pub fn pod_phase(
    spec: &PodSpec,
    init: &[ContainerStatus],
    regular: &[ContainerStatus],
    terminal: bool,
    has_initialized: bool,
) -> PodPhase {
    let views = spec.containers.iter().map(|c| {
        let list = if c.role.is_init() { init } else { regular };
        (c.role, seen(list.iter().find(|s| s.name == c.name)))
    });
    get_phase(spec.restart_policy, views, terminal, has_initialized)
}

#[cfg(test)]
mod tests {
    use super::*;
    use RestartPolicy::*;
    use Role::*;
    use Seen::*;

    fn phase(policy: RestartPolicy, c: &[(Role, Seen)], initialized: bool) -> PodPhase {
        get_phase(policy, c.iter().copied(), false, initialized)
    }

    #[test]
    fn init_containers() {
        // A running or waiting init container keeps the pod Pending.
        assert_eq!(
            phase(Always, &[(Init, Running { started: true }), (Regular, Waiting { last_exit: None })], false),
            PodPhase::Pending
        );
        // A failed init container under Never fails the pod; otherwise it restarts (Pending).
        let failed = [(Init, Terminated { exit_code: 1 }), (Regular, Waiting { last_exit: None })];
        assert_eq!(phase(Never, &failed, false), PodPhase::Failed);
        assert_eq!(phase(OnFailure, &failed, false), PodPhase::Pending);
        let crashing = [(Init, Waiting { last_exit: Some(1) }), (Regular, Waiting { last_exit: None })];
        assert_eq!(phase(Always, &crashing, false), PodPhase::Pending);
    }

    #[test]
    fn sidecars() {
        // A sidecar not started yet keeps the pod Pending until a regular container exists.
        let starting = [(Sidecar, Running { started: false }), (Regular, Running { started: true })];
        assert_eq!(phase(Always, &starting, false), PodPhase::Pending);
        assert_eq!(phase(Always, &starting, true), PodPhase::Running);
        // Regular containers done, sidecar still running: Running; once it stops, Succeeded.
        let done = [(Sidecar, Running { started: true }), (Regular, Terminated { exit_code: 0 })];
        assert_eq!(phase(Never, &done, true), PodPhase::Running);
        let stopped = [(Sidecar, Terminated { exit_code: 137 }), (Regular, Terminated { exit_code: 0 })];
        assert_eq!(phase(Never, &stopped, true), PodPhase::Succeeded);
        // A restarting sidecar after initialization does not make the pod Pending.
        let restarting = [(Sidecar, Waiting { last_exit: Some(1) }), (Regular, Running { started: true })];
        assert_eq!(phase(Always, &restarting, true), PodPhase::Running);
    }

    #[test]
    fn terminal_pods_ignore_the_policy() {
        let c = [(Regular, Terminated { exit_code: 143 })];
        assert_eq!(get_phase(Always, c, true, true), PodPhase::Failed);
        assert_eq!(get_phase(Always, [(Regular, Terminated { exit_code: 0 })], true, true), PodPhase::Succeeded);
        assert_eq!(get_phase(Always, c, false, true), PodPhase::Running);
    }
}
