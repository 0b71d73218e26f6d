//! kube-scheduler inside the world: one scheduling attempt per pop of its
//! queue, and the pods it could not place waiting among its
//! `unschedulablePods` until a cluster event may make them fit.

use super::{Ev, PodId, World};
use crate::control::scheduler::{self, Wanted, node_ports};
use crate::time::SimTime;
use foldhash::{HashMap, HashMapExt};

impl World {
    /// `ScheduleOne`: filter the nodes, bind to the best, or record why
    /// none fits and park the pod among the unschedulable ones.
    pub(super) fn schedule(&mut self, pod: PodId, now: SimTime) {
        let p = self.api.pod(pod);
        // Deleted, or bound, while it waited in the queue.
        if p.meta.removed || p.node.is_some() {
            return;
        }
        let spec = p.spec.object.spec.as_ref();
        let tolerations = spec.and_then(|s| s.tolerations.as_deref()).unwrap_or(&[]);
        let never_preempts = spec.and_then(|s| s.preemption_policy.as_deref()) == Some("Never");
        let ports = node_ports::host_ports(&p.spec.object);
        // The scheduler's cache holds only pods that still count: removed and
        // terminal ones (Succeeded, Failed) free their place and their ports.
        // Counted in one pass, not once per node: with many nodes and pods
        // a per-node scan made scheduling quadratic.
        let mut counts: HashMap<&str, usize> = HashMap::new();
        let mut used: HashMap<&str, Vec<node_ports::HostPort>> = HashMap::new();
        let counted = self.api.pods().iter().filter(|p| !p.meta.removed && !p.status.phase.is_terminal());
        for p in counted {
            let Some(node) = p.node.as_deref() else { continue };
            *counts.entry(node).or_default() += 1;
            // Only a pod that wants host ports needs the nodes' ports.
            if !ports.is_empty() {
                used.entry(node).or_default().extend(node_ports::host_ports(&p.spec.object));
            }
        }
        let bound = |n: &str| counts.get(n).copied().unwrap_or(0);
        let on = |n: &str| used.get(n).map_or(&[][..], Vec::as_slice);
        let wanted = Wanted { tolerations, ports: &ports, never_preempts };
        match scheduler::pick(&self.cluster.nodes, &wanted, bound, on) {
            Ok(node) => self.bind(pod, node, now),
            Err(message) => {
                self.scheduler_event(pod, "FailedScheduling", message.clone(), true, now);
                self.api.unschedulable(pod, message, now, &mut self.trace);
                self.unschedulable.push(pod);
            }
        }
    }

    /// Pod `gone` left the scheduler's cache (deleted, or terminal: its
    /// informer lists no Succeeded or Failed pods). NodePorts'
    /// `isSchedulableAfterPodDeleted` queues each unschedulable pod whose
    /// host ports conflict with the ones it held; the queue pops it at once
    /// (`SchedulerPopFromBackoffQ`, on since 1.33: an idle scheduler takes
    /// a pod from the backoff queue without waiting out its backoff), and
    /// the attempt lands after the profile's scheduling latency.
    pub(super) fn ports_freed(&mut self, gone: PodId) {
        if self.unschedulable.is_empty() || self.api.pod(gone).node.is_none() {
            return;
        }
        let freed = node_ports::host_ports(&self.api.pod(gone).spec.object);
        if freed.is_empty() {
            return;
        }
        let (moved, kept): (Vec<PodId>, Vec<PodId>) = std::mem::take(&mut self.unschedulable)
            .into_iter()
            .partition(|&p| !node_ports::fits(&node_ports::host_ports(&self.api.pod(p).spec.object), &freed));
        self.unschedulable = kept;
        for pod in moved {
            let d = self.cluster.latencies.scheduling.sample(&mut self.scheduler);
            self.q.after(d, Ev::Schedule(pod));
        }
    }
}
