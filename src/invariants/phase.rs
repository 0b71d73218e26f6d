//! The phase rule: the phase getPhase gives for the container states.

use super::pod::{PodState, condition, init_statuses, sidecars, statuses};
use crate::kubelet::status::phase::{Seen, get_phase as get_phase_rule};
use crate::observe::Origin;
use crate::spec::{RestartPolicy, Role};
use k8s_openapi::api::core::v1::{ContainerState, ContainerStatus, Pod};

impl PodState {
    /// phase-consistent.
    pub(super) fn phase(&mut self, p: &Pod, o: &Origin) {
        let status = p.status.as_ref();
        let Some(phase) = status.and_then(|s| s.phase.as_deref()) else {
            return self.tally("phase-consistent").skip("no phase");
        };
        if status.and_then(|s| s.reason.as_deref()).is_some_and(|r| !r.is_empty()) {
            return self
                .tally("phase-consistent")
                .skip("the pod has a status reason (eviction, node loss): not a kubelet phase");
        }
        // An API object always has a restartPolicy; `kubectl describe` does not print it.
        let given = p.spec.as_ref().and_then(|s| s.restart_policy.as_deref());
        let policies: Vec<&str> = match given {
            Some(p) => vec![p],
            None => vec!["Always", "OnFailure", "Never"],
        };
        let policy = given.unwrap_or("unknown");
        let mut allowed = Vec::new();
        for pol in &policies {
            let expected = get_phase(p, pol, false);
            allowed.push(expected);
            if p.metadata.deletion_timestamp.is_some() {
                allowed.push(get_phase(p, pol, true));
                // TerminatePod marks a deleted pod that never got a terminal phase Failed.
                allowed.push("Failed");
                // Kubelets up to 1.21 could reset a deleted pod to Pending (kubernetes#70644).
                allowed.push("Pending");
            }
            // mergePodStatus holds a terminal phase back while containers could
            // still run — also one a pod sync handler (the active deadline) set,
            // which the containers' states do not give, but Ready and
            // ContainersReady already say (PodFailed).
            if matches!(expected, "Succeeded" | "Failed") || terminal_generated(p) {
                allowed.extend(["Running", "Pending"]);
            }
        }
        allowed.dedup();
        let t = self.tally("phase-consistent");
        if allowed.contains(&phase) {
            t.hold();
        } else {
            t.violate(
                &[o],
                format!("phase {} (restartPolicy {policy})", allowed.join(" or ")),
                format!("phase {phase}"),
            );
        }
    }
}

/// The kubelet generated a terminal phase: the conditions it writes with it
/// (`generateContainersReadyConditionForTerminalPhase`) are not held back.
fn terminal_generated(p: &Pod) -> bool {
    condition(p, "ContainersReady").is_some_and(|c| matches!(c.reason.as_deref(), Some("PodFailed" | "PodCompleted")))
}

/// `getPhase` from the API's container statuses. Without a spec (an
/// excerpt) the listed statuses stand for the containers.
fn get_phase(p: &Pod, policy: &str, terminal: bool) -> &'static str {
    let policy = match policy {
        "Never" => RestartPolicy::Never,
        "OnFailure" => RestartPolicy::OnFailure,
        _ => RestartPolicy::Always,
    };
    let sidecars = sidecars(p);
    let spec = p.spec.as_ref();
    let mut views: Vec<(Role, &str)> = Vec::new();
    for c in spec.and_then(|s| s.init_containers.as_ref()).into_iter().flatten() {
        let role = if sidecars.contains(&c.name.as_str()) { Role::Sidecar } else { Role::Init };
        views.push((role, c.name.as_str()));
    }
    match spec {
        Some(s) if !s.containers.is_empty() => {
            views.extend(s.containers.iter().map(|c| (Role::Regular, c.name.as_str())))
        }
        _ => views.extend(statuses(p).map(|s| (Role::Regular, s.name.as_str()))),
    }
    let find = |role: Role, name: &str| {
        if role.is_init() { init_statuses(p).find(|s| s.name == name) } else { statuses(p).find(|s| s.name == name) }
    };
    // `HasAnyActiveRegularContainerStarted`: a regular container the runtime knows (it has an ID).
    let has_initialized = statuses(p).any(|s| s.container_id.as_deref().is_some_and(|id| !id.is_empty()));
    let containers = views.iter().map(|&(role, name)| (role, seen(find(role, name))));
    get_phase_rule(policy, containers, terminal, has_initialized).as_str()
}

/// What `getPhase` reads of one API container status.
fn seen(s: Option<&ContainerStatus>) -> Seen {
    let Some(s) = s else { return Seen::Missing };
    match s.state.as_ref() {
        Some(ContainerState { running: Some(_), .. }) => Seen::Running { started: s.started.unwrap_or(false) },
        Some(ContainerState { terminated: Some(t), .. }) => Seen::Terminated { exit_code: t.exit_code },
        Some(ContainerState { waiting: Some(_), .. }) => {
            Seen::Waiting { last_exit: s.last_state.as_ref().and_then(|l| l.terminated.as_ref()).map(|t| t.exit_code) }
        }
        _ => Seen::Missing,
    }
}

#[cfg(test)]
mod tests {
    use crate::cluster::Cluster;
    use crate::error::SourceFile;
    use crate::invariants::{Checker, Verdict};
    use std::sync::Arc;

    /// Pod `web` still Pending at the API while its container runs, with
    /// ContainersReady False for `reason`.
    fn verdict(reason: &str) -> Verdict {
        let text = format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web","uid":"u1"}},"spec":{{"restartPolicy":"Always","containers":[{{"name":"app","image":"app:1"}}]}},"status":{{"phase":"Pending","conditions":[{{"type":"Ready","status":"False","reason":"{reason}","lastTransitionTime":"2026-01-01T00:00:30Z"}},{{"type":"ContainersReady","status":"False","reason":"{reason}","lastTransitionTime":"2026-01-01T00:00:30Z"}}],"containerStatuses":[{{"name":"app","image":"app:1","imageID":"","containerID":"containerd://1","ready":false,"started":true,"restartCount":0,"state":{{"running":{{"startedAt":"2026-01-01T00:00:29Z"}}}}}}]}}}}"#
        );
        let file = Arc::new(SourceFile { name: "pod.json".into(), text });
        let mut c = Checker::new(Cluster::default());
        crate::observe::read(&file, &mut |r| c.observe(&r));
        c.report().verdict("web", "phase-consistent").cloned().unwrap()
    }

    /// The active deadline failed the pod as its container started: the
    /// kubelet's Failed phase is held back (the API keeps Pending), its
    /// PodFailed conditions are not. Without them a running container
    /// means Running.
    #[test]
    fn a_held_back_failure_shows_in_the_conditions() {
        assert!(matches!(verdict("PodFailed"), Verdict::Holds { .. }));
        assert!(matches!(verdict("ContainersNotReady"), Verdict::Violated { .. }));
    }
}
