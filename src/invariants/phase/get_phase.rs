//! `getPhase` (pkg/kubelet/kubelet_pods.go) as the checker derives it from an
//! API Pod: its own reading of the kubelet's counting rules, written from
//! the Go source and not from podsim's kubelet model, so that the checker
//! judges the model instead of repeating it. The 1.34 form and the 1.35+
//! form (`ContainerRestartRules` beta, on) differ only in how a stopped
//! container's restart is decided.

use k8s_openapi::api::core::v1::{Container, ContainerStatus, Pod};

/// A pod phase as the API spells it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    Pending,
    Running,
    Succeeded,
    Failed,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Pending => "Pending",
            Phase::Running => "Running",
            Phase::Succeeded => "Succeeded",
            Phase::Failed => "Failed",
        }
    }
}

/// What `getPhase` is given besides the pod.
#[derive(Copy, Clone, Debug)]
pub struct Inputs<'a> {
    /// `spec.restartPolicy` (an API object always has one).
    pub policy: &'a str,
    /// `podIsTerminal`: the pod worker has stopped the pod for good.
    pub terminal: bool,
    /// `podHasInitialized` (`HasAnyActiveRegularContainerStarted`).
    pub initialized: bool,
    /// The `ContainerRestartRules` gate (beta and on from 1.35).
    pub restart_rules: bool,
}

/// `podutil.IsRestartableInitContainer`: an init container with `restartPolicy: Always`.
fn is_sidecar(c: &Container) -> bool {
    c.restart_policy.as_deref() == Some("Always")
}

/// `podutil.ContainerShouldRestart` (pkg/api/v1/pod/util.go): the
/// container's first matching `restartPolicyRules` entry with action
/// Restart, else its own `restartPolicy`, else the pod's.
fn should_restart(c: Option<&Container>, pod_policy: &str, exit_code: i32) -> bool {
    if let Some(c) = c
        && let Some(own) = c.restart_policy.as_deref()
    {
        // findMatchingContainerRestartRule: the first rule whose exit codes match.
        let matched = c.restart_policy_rules.iter().flatten().find(|r| {
            r.exit_codes.as_ref().is_some_and(|e| {
                let listed = e.values.iter().flatten().any(|v| *v == exit_code);
                match e.operator.as_str() {
                    "In" => listed,
                    "NotIn" => !listed,
                    _ => false,
                }
            })
        });
        if matched.is_some_and(|r| r.action == "Restart") {
            return true;
        }
        match own {
            "Always" => return true,
            "OnFailure" => return exit_code != 0,
            "Never" => return false,
            _ => {}
        }
    }
    match pod_policy {
        "OnFailure" => exit_code != 0,
        "Never" => false,
        _ => true,
    }
}

/// `podutil.GetContainerStatus` over `containerStatuses ++ initContainerStatuses`
/// (generateAPIPodStatus passes both lists): the first status of that name.
fn status<'a>(p: &'a Pod, name: &str) -> Option<&'a ContainerStatus> {
    let s = p.status.as_ref()?;
    let regular = s.container_statuses.iter().flatten();
    regular.chain(s.init_container_statuses.iter().flatten()).find(|s| s.name == name)
}

/// The exit code of a status's current termination, or of its last one
/// while it waits; `None` when it has neither.
fn exit_of(s: &ContainerStatus, current: bool) -> Option<i32> {
    let state = if current { s.state.as_ref() } else { s.last_state.as_ref() };
    state.and_then(|x| x.terminated.as_ref()).map(|t| t.exit_code)
}

/// `getPhase`. Without a spec (an excerpt such as a describe block) the
/// listed container statuses stand for the regular containers.
pub fn get_phase(p: &Pod, i: Inputs) -> Phase {
    let spec = p.spec.as_ref();
    let init: Vec<&Container> = spec.and_then(|s| s.init_containers.as_ref()).into_iter().flatten().collect();
    let regular: Vec<(Option<&Container>, &str)> = match spec {
        Some(s) if !s.containers.is_empty() => s.containers.iter().map(|c| (Some(c), c.name.as_str())).collect(),
        _ => {
            let listed = p.status.as_ref().and_then(|s| s.container_statuses.as_ref());
            listed.into_iter().flatten().map(|s| (None, s.name.as_str())).collect()
        }
    };

    // Regular init containers.
    let (mut pending_regular_init, mut failed_init, mut failed_init_final) = (0, 0, 0);
    for c in init.iter().filter(|c| !is_sidecar(c)) {
        let Some(s) = status(p, &c.name) else {
            pending_regular_init += 1;
            continue;
        };
        let state = s.state.as_ref();
        if state.is_some_and(|x| x.running.is_some()) {
            pending_regular_init += 1;
        } else if state.is_some_and(|x| x.terminated.is_some()) || state.is_some_and(|x| x.waiting.is_some()) {
            // Terminated: its exit code; waiting: its previous termination's, if any.
            let current = state.is_some_and(|x| x.terminated.is_some());
            match exit_of(s, current) {
                Some(code) if code != 0 => {
                    failed_init += 1;
                    if !should_restart(Some(c), i.policy, code) {
                        failed_init_final += 1;
                    }
                }
                Some(_) => {}
                None => pending_regular_init += 1,
            }
        } else {
            pending_regular_init += 1;
        }
    }

    let (mut pending_sidecars, mut unknown, mut running, mut waiting) = (0, 0, 0, 0);
    let (mut stopped, mut stopped_final, mut succeeded) = (0, 0, 0);
    // Sidecars: a terminated or restarting one does not count.
    for c in init.iter().filter(|c| is_sidecar(c)) {
        let Some(s) = status(p, &c.name) else {
            unknown += 1;
            continue;
        };
        match s.state.as_ref() {
            Some(x) if x.running.is_some() => {
                if s.started != Some(true) {
                    pending_sidecars += 1;
                }
                running += 1;
            }
            Some(x) if x.terminated.is_some() => {}
            Some(x) if x.waiting.is_some() => {
                if exit_of(s, false).is_none() {
                    pending_sidecars += 1;
                    waiting += 1;
                }
            }
            _ => {
                pending_sidecars += 1;
                unknown += 1;
            }
        }
    }
    // Regular containers.
    for &(c, name) in &regular {
        let Some(s) = status(p, name) else {
            unknown += 1;
            continue;
        };
        match s.state.as_ref() {
            Some(x) if x.running.is_some() => running += 1,
            Some(x) if x.terminated.is_some() => {
                stopped += 1;
                let code = exit_of(s, true).unwrap_or_default();
                if !should_restart(c, i.policy, code) {
                    stopped_final += 1;
                }
                if code == 0 {
                    succeeded += 1;
                }
            }
            Some(x) if x.waiting.is_some() => match exit_of(s, false) {
                Some(code) => {
                    stopped += 1;
                    if !should_restart(c, i.policy, code) {
                        stopped_final += 1;
                    }
                }
                None => waiting += 1,
            },
            _ => unknown += 1,
        }
    }

    let failed = if i.restart_rules { failed_init_final > 0 } else { failed_init > 0 && i.policy == "Never" };
    if failed {
        return Phase::Failed;
    }
    if pending_regular_init > 0 || (pending_sidecars > 0 && !i.initialized) || waiting > 0 {
        return Phase::Pending;
    }
    if running > 0 && unknown == 0 {
        return Phase::Running;
    }
    if running > 0 || stopped == 0 || unknown > 0 {
        return Phase::Pending;
    }
    // Every container stopped.
    let all_succeeded = if stopped == succeeded { Phase::Succeeded } else { Phase::Failed };
    if i.terminal {
        return all_succeeded;
    }
    if i.restart_rules {
        return if stopped != stopped_final { Phase::Running } else { all_succeeded };
    }
    match i.policy {
        "Always" => Phase::Running,
        _ if stopped == succeeded => Phase::Succeeded,
        "Never" => Phase::Failed,
        _ => Phase::Running,
    }
}
