//! The phase rule: the phase getPhase gives for the container states.

mod get_phase;

use super::pod::{PodState, condition, statuses};
use crate::cluster::{Cluster, Version};
use crate::observe::Origin;
use get_phase::{Inputs, Phase, get_phase};
use k8s_openapi::api::core::v1::Pod;

impl PodState {
    /// phase-consistent.
    pub(super) fn phase(&mut self, p: &Pod, o: &Origin, cluster: &Cluster) {
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
        // `HasAnyActiveRegularContainerStarted`: a regular container the runtime knows (it has an ID).
        let initialized = statuses(p).any(|s| s.container_id.as_deref().is_some_and(|id| !id.is_empty()));
        let restart_rules = cluster.version >= Version::V1_35;
        let mut allowed = Vec::new();
        for pol in &policies {
            let derive = |terminal| get_phase(p, Inputs { policy: pol, terminal, initialized, restart_rules });
            let expected = derive(false);
            allowed.push(expected);
            if p.metadata.deletion_timestamp.is_some() {
                allowed.push(derive(true));
                // TerminatePod marks a deleted pod that never got a terminal phase Failed.
                allowed.push(Phase::Failed);
                // Kubelets up to 1.21 could reset a deleted pod to Pending (kubernetes#70644).
                allowed.push(Phase::Pending);
            }
            // mergePodStatus holds a terminal phase back while containers could
            // still run — also one a pod sync handler (the active deadline) set,
            // which the containers' states do not give, but Ready and
            // ContainersReady already say (PodFailed).
            if matches!(expected, Phase::Succeeded | Phase::Failed) || terminal_generated(p) {
                allowed.extend([Phase::Running, Phase::Pending]);
            }
        }
        let mut names: Vec<&str> = Vec::new();
        for a in allowed.iter().map(|a| a.as_str()) {
            if !names.contains(&a) {
                names.push(a);
            }
        }
        let t = self.tally("phase-consistent");
        if names.contains(&phase) {
            t.hold();
        } else {
            t.violate(&[o], format!("phase {} (restartPolicy {policy})", names.join(" or ")), format!("phase {phase}"));
        }
    }
}

/// The kubelet generated a terminal phase: the conditions it writes with it
/// (`generateContainersReadyConditionForTerminalPhase`) are not held back.
fn terminal_generated(p: &Pod) -> bool {
    condition(p, "ContainersReady").is_some_and(|c| matches!(c.reason.as_deref(), Some("PodFailed" | "PodCompleted")))
}

#[cfg(test)]
mod tests;
