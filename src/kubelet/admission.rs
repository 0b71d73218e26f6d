//! The kubelet's admission of a pod it is handed (`HandlePodAdditions` →
//! `canAdmitPod`, pkg/kubelet/kubelet.go and allocation/allocation_manager.go;
//! `predicateAdmitHandler.Admit`, pkg/kubelet/lifecycle/predicate.go). A pod
//! that arrives bound (`spec.nodeName`) never met the scheduler's filters, so
//! its node is where it is turned away: `generalFilter` runs the scheduler's
//! `AdmissionCheck` (resources, node affinity, node name, node ports) against
//! the pods the kubelet admitted that are still active, then looks for a
//! NoExecute taint the pod does not tolerate. The first failure is the
//! reason; `rejectPod` records a Warning Event and caches a Failed status,
//! and the pod worker never gets the pod: no sandbox, no container.
//!
//! podsim checks the predicates its scheduler models: NodeResourcesFit
//! (`OutOfcpu`, `OutOfmemory`, `OutOfpods`), NodePorts and the taints. Node
//! affinity and nodeSelector are not simulated (the manifest check warns
//! about them); the node name always matches, since the pod reached this
//! kubelet by naming its node.

use super::Kubelet;
use super::Out;
use super::pod_worker::Lifecycle;
use crate::api::status::{PodPhase, PodReason, PodStatus};
use crate::cluster::Allocatable;
use crate::control::scheduler::node_ports::{self, HostPort};
use crate::control::scheduler::noderesources::{Insufficient, Resource, fits_request};
use crate::control::scheduler::untolerated_taint;
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::spec::PodSpec;
use crate::spec::resources::Resources;
use k8s_openapi::api::core::v1::{Taint, Toleration};

/// The predicate that failed (`PredicateFailureError`, or
/// `InsufficientResourceError` for a resource).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Predicate {
    /// `noderesources.Fits`: the node's allocatable less what its active
    /// pods request is less than the pod requests.
    OutOf(Insufficient),
    /// `nodeports.Name`: a host port the pod wants is taken on the node.
    NodePorts,
    /// `tainttoleration.Name`: the node has a NoExecute taint the pod does not tolerate.
    TaintToleration,
}

impl Predicate {
    /// `PredicateName`, or `OutOf` and the resource: the reason of the
    /// status and of the Event.
    pub fn name(self) -> &'static str {
        match self {
            Predicate::OutOf(Insufficient { resource: Resource::Pods, .. }) => "OutOfpods",
            Predicate::OutOf(Insufficient { resource: Resource::Cpu, .. }) => "OutOfcpu",
            Predicate::OutOf(Insufficient { resource: Resource::Memory, .. }) => "OutOfmemory",
            Predicate::NodePorts => "NodePorts",
            Predicate::TaintToleration => "TaintToleration",
        }
    }

    /// `PredicateFailureError.Error`, "Predicate %s failed: %s" with the
    /// plugin's reason (`nodeports.ErrReason`,
    /// `tainttoleration.ErrReasonNotMatch`), or `InsufficientResourceError.Error`:
    /// the Event's message.
    pub fn error(self) -> String {
        match self {
            Predicate::OutOf(Insufficient { resource, requested, used, capacity }) => format!(
                "Node didn't have enough resource: {}, requested: {requested}, used: {used}, capacity: {capacity}",
                resource.as_str()
            ),
            Predicate::NodePorts => {
                "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports".into()
            }
            Predicate::TaintToleration => {
                "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate".into()
            }
        }
    }

    /// `rejectPod`'s status message: "Pod was rejected: " and the error.
    pub fn status_message(self) -> String {
        format!("Pod was rejected: {}", self.error())
    }
}

/// What NodeResourcesFit's `Fits` compares on the node: the pod's requests,
/// what the node's active pods request and how many they are, and its allocatable.
#[derive(Copy, Clone, Debug)]
pub struct Room {
    pub requested: Resources,
    pub used: Resources,
    pub pods: i64,
    pub allocatable: Allocatable,
}

/// `generalFilter`, first failure only (`Admit` reports `reasons[0]`):
/// `AdmissionCheck`'s resources (`noderesources.Fits`), then its NodePorts
/// against the host ports `used` by the other active pods, then the node's
/// NoExecute taints ("Kubelet is only interested in the NoExecute taint";
/// NoSchedule is the scheduler's).
pub fn admit(
    room: &Room,
    wanted: &[HostPort],
    tolerations: &[Toleration],
    taints: &[Taint],
    used: &[HostPort],
) -> Result<(), Predicate> {
    let short = fits_request(room.requested, room.used, room.pods, &room.allocatable);
    if let Some(first) = short.first() {
        return Err(Predicate::OutOf(*first));
    }
    if !node_ports::fits(wanted, used) {
        return Err(Predicate::NodePorts);
    }
    if untolerated_taint(taints, tolerations, |t| t.effect == "NoExecute").is_some() {
        return Err(Predicate::TaintToleration);
    }
    Ok(())
}

/// `filterOutInactivePods` for a pod still in the pod manager: a pod the
/// worker knows terminated is out; so is one whose phase is terminal, in the
/// API or in the status manager's cache (`isAdmittedPodTerminal`: a
/// rejected pod), unless it is still terminating.
pub fn active(lifecycle: Lifecycle, terminal: bool) -> bool {
    match lifecycle {
        Lifecycle::Syncing => !terminal,
        Lifecycle::Terminating => true,
        Lifecycle::Terminated | Lifecycle::Finished | Lifecycle::Rejected => false,
    }
}

/// The pod's `tolerations`.
fn tolerations(spec: &PodSpec) -> &[Toleration] {
    spec.object.spec.as_ref().and_then(|s| s.tolerations.as_deref()).unwrap_or(&[])
}

impl Kubelet {
    /// `allocationManager.AddPod(kl.GetActivePods(), pod)`: the pod against
    /// the active pods of the kubelet's pod manager (a pod removed from the
    /// API server has left it, even while its containers stop).
    pub(super) fn admission(&self, spec: &PodSpec) -> Result<(), Predicate> {
        let wanted = node_ports::host_ports(&spec.object);
        let mut used = Vec::new();
        let mut room = Room {
            requested: spec.requests.exact,
            used: Resources::default(),
            pods: 0,
            allocatable: self.node.allocatable,
        };
        for p in self.live.iter().filter_map(|&id| self.pods[id.0 as usize].as_deref()) {
            let terminal =
                p.status.api().phase.is_terminal() || p.status.cached().is_some_and(|c| c.phase.is_terminal());
            if !p.removed && active(p.worker.lifecycle, terminal) {
                room.used = room.used + p.spec.requests.exact;
                room.pods += 1;
                if !wanted.is_empty() {
                    used.extend(node_ports::host_ports(&p.spec.object));
                }
            }
        }
        admit(&room, &wanted, tolerations(spec), &self.node.taints, &used)
    }

    /// `rejectPod`: a Warning Event with the predicate's reason and error,
    /// then the status manager's Failed status (phase, reason, message and
    /// the QoS class; `updateStatusInternal` adds startTime), which its next
    /// PATCH carries. No condition: the kubelet owns them all, and writes none.
    pub(super) fn reject_pod(&mut self, pod: PodId, predicate: Predicate, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        self.emit(pod, None, true, predicate.name(), predicate.error(), ctx);
        let Some(p) = self.pod(pod) else { return };
        p.worker.lifecycle = Lifecycle::Rejected;
        self.housekeeping_every_tick(ctx);
        let p = self.pod(pod).expect("checked above");
        let status = PodStatus {
            phase: PodPhase::Failed,
            reason: Some(PodReason::Rejected(predicate)),
            ..PodStatus::new(p.spec.qos)
        };
        if p.status.set(status, now, false) {
            self.status_changed(pod, ctx);
        }
        self.flush_status(pod, ctx);
    }

    /// `HandlePodCleanups` → `filterTerminalPodsToDelete`: a deleted pod
    /// the API shows terminal and the pod worker never had (a rejected one)
    /// is handed to it (`SyncPodKill`); with nothing running it goes
    /// straight to `SyncTerminatedPod`, whose `TerminatePod` lets the status
    /// manager send the final DELETE.
    /// Returns whether a rejected pod is left to clean up later.
    pub(super) fn clean_up_rejected(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) -> bool {
        let (mut at, mut left) = (None, false);
        while let Some(pod) = self.next_live(at) {
            at = Some(pod);
            let Some(p) = self.pod(pod) else { continue };
            if p.worker.lifecycle != Lifecycle::Rejected {
                continue;
            }
            if p.deletion_grace.is_some() && p.status.api().phase.is_terminal() {
                p.worker.lifecycle = Lifecycle::Terminated;
                self.update_pod(pod, ctx);
            } else {
                left = true;
            }
        }
        left
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(p: i32) -> HostPort {
        HostPort { ip: "0.0.0.0".into(), protocol: "TCP".into(), port: p }
    }

    fn taint(key: &str, effect: &str) -> Taint {
        Taint { key: key.into(), value: None, effect: effect.into(), time_added: None }
    }

    fn toleration(key: &str) -> Toleration {
        Toleration { key: Some(key.into()), operator: Some("Exists".into()), ..Toleration::default() }
    }

    /// Room for anything: a pod requesting nothing on an empty default node.
    const ROOM: Room = Room {
        requested: Resources { milli_cpu: 0, memory: 0 },
        used: Resources { milli_cpu: 0, memory: 0 },
        pods: 0,
        allocatable: Allocatable::DEFAULT,
    };

    #[test]
    fn a_taken_host_port_fails_node_ports() {
        assert_eq!(admit(&ROOM, &[port(9100)], &[], &[], &[port(9100)]), Err(Predicate::NodePorts));
        assert_eq!(admit(&ROOM, &[port(9100)], &[], &[], &[port(9101)]), Ok(()));
        assert_eq!(admit(&ROOM, &[], &[], &[], &[port(9100)]), Ok(()));
    }

    /// `Fits` before NodePorts, pods before cpu before memory; the message
    /// is `InsufficientResourceError`'s, the reason `OutOf` + the resource.
    #[test]
    fn a_node_without_room_fails_with_out_of_the_resource() {
        let full = Room { pods: 110, ..ROOM };
        let e = admit(&full, &[port(80)], &[], &[], &[port(80)]).unwrap_err();
        assert_eq!(
            (e.name(), e.error().as_str()),
            ("OutOfpods", "Node didn't have enough resource: pods, requested: 1, used: 110, capacity: 110")
        );
        let busy = Room {
            requested: Resources { milli_cpu: 1000, memory: 20 << 30 },
            used: Resources { milli_cpu: 3500, memory: 0 },
            ..ROOM
        };
        let e = admit(&busy, &[], &[], &[], &[]).unwrap_err();
        assert_eq!(
            (e.name(), e.error().as_str()),
            ("OutOfcpu", "Node didn't have enough resource: cpu, requested: 1000, used: 3500, capacity: 4000")
        );
        assert_eq!(e.status_message(), format!("Pod was rejected: {}", e.error()));
        let big = Room { requested: Resources { milli_cpu: 0, memory: 20 << 30 }, ..ROOM };
        assert_eq!(admit(&big, &[], &[], &[], &[]).unwrap_err().name(), "OutOfmemory");
    }

    /// Only NoExecute taints count: a bound pod lands on a NoSchedule node.
    #[test]
    fn only_an_untolerated_no_execute_taint_fails_taint_toleration() {
        let cp = [taint("node-role.kubernetes.io/control-plane", "NoSchedule")];
        assert_eq!(admit(&ROOM, &[], &[], &cp, &[]), Ok(()));
        let drain = [taint("example.com/maintenance", "NoExecute")];
        assert_eq!(admit(&ROOM, &[], &[], &drain, &[]), Err(Predicate::TaintToleration));
        assert_eq!(admit(&ROOM, &[], &[toleration("example.com/maintenance")], &drain, &[]), Ok(()));
    }

    /// NodePorts is one of `AdmissionCheck`'s, appended before the taint's.
    #[test]
    fn node_ports_is_reported_before_the_taint() {
        let drain = [taint("example.com/maintenance", "NoExecute")];
        assert_eq!(admit(&ROOM, &[port(80)], &[], &drain, &[port(80)]), Err(Predicate::NodePorts));
    }

    #[test]
    fn messages_follow_predicate_failure_error_and_reject_pod() {
        for p in [Predicate::NodePorts, Predicate::TaintToleration] {
            assert!(p.error().starts_with(&format!("Predicate {} failed: ", p.name())));
            assert_eq!(p.status_message(), format!("Pod was rejected: {}", p.error()));
        }
    }

    #[test]
    fn terminating_pods_stay_active_terminal_and_rejected_ones_do_not() {
        assert!(active(Lifecycle::Syncing, false));
        assert!(!active(Lifecycle::Syncing, true));
        assert!(active(Lifecycle::Terminating, true));
        assert!(!active(Lifecycle::Terminated, true));
        assert!(!active(Lifecycle::Finished, false));
        assert!(!active(Lifecycle::Rejected, true));
    }
}
