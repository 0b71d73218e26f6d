//! Fields the API server accepts but podsim does not simulate (yet).
//!
//! Nothing is ignored silently: a field that would change the timeline is an
//! error (a wrong answer is worse than none); a field whose effect podsim
//! leaves out on purpose, like scheduling constraints on a one-node cluster, is
//! a warning. Fields with no effect on the lifecycle (env, volume mounts,
//! command, …) are inert and pass without comment.

use super::server_written::{self, Generation};
use crate::error::Severity;
use k8s_openapi::api::core::v1::{Container, Pod, Probe};

pub(super) type Finding = (String, Severity, String);

pub(super) fn error(path: String, message: &str) -> Finding {
    (path, Severity::Error, message.to_string())
}
pub(super) fn warning(path: String, message: &str) -> Finding {
    (path, Severity::Warning, message.to_string())
}

/// Every unsupported field of a defaulted, valid Pod.
pub fn check(pod: &Pod) -> Vec<Finding> {
    let mut out = Vec::new();
    let meta = &pod.metadata;
    if meta.name.is_none() && meta.generate_name.is_some() {
        out.push(error("metadata.generateName".into(), "podsim needs metadata.name; generateName is not supported"));
    }
    if meta.deletion_timestamp.is_some() || meta.deletion_grace_period_seconds.is_some() {
        out.push(warning(
            "metadata.deletionTimestamp".into(),
            "ignored: the API server clears deletion fields on create",
        ));
    }
    out.extend(server_written::findings(meta, Generation::SetToOne));
    if meta.owner_references.as_ref().is_some_and(|o| !o.is_empty()) {
        out.push(error(
            "metadata.ownerReferences".into(),
            "owner references are not simulated: the garbage collector deletes a pod whose owners do not exist \
             (attemptToDeleteItem); remove them to run the pod on its own",
        ));
    }
    if meta.finalizers.as_ref().is_some_and(|f| !f.is_empty()) {
        out.push(warning(
            "metadata.finalizers".into(),
            "nothing in the simulation removes finalizers: once deleted and stopped, the pod object stays",
        ));
    }
    if pod.status.as_ref().is_some_and(|s| s != &Default::default()) {
        out.push(warning("status".into(), "ignored: the API server resets status on create"));
    }
    let Some(spec) = &pod.spec else { return out };
    let not_yet = "podsim does not simulate this yet";
    if spec.ephemeral_containers.as_ref().is_some_and(|v| !v.is_empty()) {
        out.push(error("spec.ephemeralContainers".into(), not_yet));
    }
    if spec.scheduling_gates.as_ref().is_some_and(|v| !v.is_empty()) {
        out.push(error(
            "spec.schedulingGates".into(),
            "scheduling gates are not simulated: the pod would never be scheduled",
        ));
    }
    let placement = "scheduling constraints are not modelled: the pod is placed as if it had none";
    if spec.node_selector.as_ref().is_some_and(|m| !m.is_empty()) {
        out.push(warning("spec.nodeSelector".into(), placement));
    }
    if spec.affinity.is_some() {
        out.push(warning("spec.affinity".into(), placement));
    }
    if spec.topology_spread_constraints.as_ref().is_some_and(|v| !v.is_empty()) {
        out.push(warning("spec.topologySpreadConstraints".into(), placement));
    }
    if spec.priority_class_name.as_ref().is_some_and(|n| !n.is_empty()) {
        out.push(warning(
            "spec.priorityClassName".into(),
            "PriorityClasses are not modelled: the pod has priority 0, and the scheduler preempts no pod for it",
        ));
    }
    for (i, v) in spec.volumes.iter().flatten().enumerate() {
        if v.persistent_volume_claim.is_some() || v.csi.is_some() || v.ephemeral.is_some() {
            out.push(warning(
                format!("spec.volumes[{i}]"),
                "volume attach and mount time is not modelled (taken as zero)",
            ));
        }
    }
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        check_container(&format!("spec.initContainers[{i}]"), c, &mut out);
    }
    for (i, c) in spec.containers.iter().enumerate() {
        check_container(&format!("spec.containers[{i}]"), c, &mut out);
    }
    out
}

fn check_container(path: &str, c: &Container, out: &mut Vec<Finding>) {
    if let Some(l) = &c.lifecycle {
        if l.stop_signal.is_some() {
            out.push(error(
                format!("{path}.lifecycle.stopSignal"),
                "stop signals (ContainerStopSignals, alpha) are not simulated: podsim sends SIGTERM",
            ));
        }
        for (name, h) in [("postStart", &l.post_start), ("preStop", &l.pre_stop)] {
            if h.as_ref()
                .and_then(|h| h.http_get.as_ref())
                .is_some_and(|g| g.host.as_ref().is_some_and(|s| !s.is_empty()))
            {
                out.push(error(
                    format!("{path}.lifecycle.{name}.httpGet.host"),
                    "hooks to another host than the pod are not simulated",
                ));
            }
            if h.as_ref().is_some_and(|h| h.tcp_socket.is_some()) {
                out.push(warning(
                    format!("{path}.lifecycle.{name}.tcpSocket"),
                    "the kubelet has no runner for a tcpSocket hook: every run fails (simulated as such)",
                ));
            }
        }
    }
    if c.restart_policy_rules.as_ref().is_some_and(|r| !r.is_empty()) {
        out.push(error(
            format!("{path}.restartPolicyRules"),
            "container restart rules (KEP-5307) are not simulated yet",
        ));
    }
    for (name, probe) in [
        ("startupProbe", &c.startup_probe),
        ("readinessProbe", &c.readiness_probe),
        ("livenessProbe", &c.liveness_probe),
    ] {
        if let Some(p) = probe {
            check_probe(&format!("{path}.{name}"), p, out);
        }
    }
}

fn check_probe(path: &str, p: &Probe, out: &mut Vec<Finding>) {
    if p.http_get.as_ref().is_some_and(|h| h.host.as_ref().is_some_and(|s| !s.is_empty())) {
        out.push(error(format!("{path}.httpGet.host"), "probes to another host than the pod are not simulated"));
    }
    if p.tcp_socket.as_ref().is_some_and(|t| t.host.as_ref().is_some_and(|s| !s.is_empty())) {
        out.push(error(format!("{path}.tcpSocket.host"), "probes to another host than the pod are not simulated"));
    }
}
