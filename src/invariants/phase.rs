//! The phase rule: the phase getPhase gives for the container states.

use super::pod::{PodState, init_statuses, sidecars, statuses};
use crate::observe::Origin;
use k8s_openapi::api::core::v1::{ContainerState, Pod};

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
                // Kubelets up to 1.21 could reset a deleted pod to Pending (kubernetes#70644).
                allowed.push("Pending");
            }
            if matches!(expected, "Succeeded" | "Failed") {
                // mergePodStatus holds a terminal phase back while containers could still run.
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

/// `getPhase` from the API's container statuses.
fn get_phase(p: &Pod, policy: &str, terminal: bool) -> &'static str {
    let sidecars = sidecars(p);
    let spec = p.spec.as_ref();
    let regular_init_pending = spec
        .and_then(|s| s.init_containers.as_ref())
        .into_iter()
        .flatten()
        .filter(|c| !sidecars.contains(&c.name.as_str()))
        .any(|c| {
            let st = init_statuses(p).find(|s| s.name == c.name).and_then(|s| s.state.clone());
            st.and_then(|x| x.terminated).is_none_or(|t| t.exit_code != 0)
        });
    let (mut running, mut waiting, mut stopped, mut succeeded, mut unknown) = (0, 0, 0, 0, 0);
    let names: Vec<String> = match spec {
        Some(s) if !s.containers.is_empty() => s.containers.iter().map(|c| c.name.clone()).collect(),
        _ => statuses(p).map(|s| s.name.clone()).collect(),
    };
    let regular_started = statuses(p).any(|s| {
        s.state.as_ref().is_some_and(|x| x.running.is_some() || x.terminated.is_some()) || s.restart_count > 0
    });
    for name in &names {
        let Some(s) = statuses(p).find(|s| &s.name == name) else {
            unknown += 1;
            continue;
        };
        match s.state.as_ref() {
            Some(ContainerState { running: Some(_), .. }) => running += 1,
            Some(ContainerState { terminated: Some(t), .. }) => {
                stopped += 1;
                if t.exit_code == 0 {
                    succeeded += 1;
                }
            }
            Some(ContainerState { waiting: Some(_), .. })
                if s.last_state.as_ref().is_some_and(|l| l.terminated.is_some()) =>
            {
                stopped += 1
            }
            Some(ContainerState { waiting: Some(_), .. }) => waiting += 1,
            _ => unknown += 1,
        }
    }
    if regular_init_pending && !regular_started {
        return "Pending";
    }
    if waiting > 0 {
        return "Pending";
    }
    if running > 0 && unknown == 0 {
        return "Running";
    }
    if running == 0 && stopped > 0 && unknown == 0 {
        if terminal {
            return if stopped == succeeded { "Succeeded" } else { "Failed" };
        }
        return match policy {
            "Always" => "Running",
            _ if stopped == succeeded => "Succeeded",
            "Never" => "Failed",
            _ => "Running",
        };
    }
    "Pending"
}
