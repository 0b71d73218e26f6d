//! A node lost: its kubelet, kube-proxy and pods stop answering; the node
//! lifecycle controller notices the silent lease, marks the node Unknown
//! and its pods not Ready, and taints it; the taint-eviction controller
//! deletes the pods once their tolerations run out. The deleted pods stay
//! Terminating: only their kubelet could finish them.

use super::{Ev, NodeId, World};
use crate::api::node::{self, ApiNode, NodeReady};
use crate::api::status::{Condition, ConditionType};
use crate::control::nodelifecycle::{self as lifecycle, NodeLifecycle};
use crate::control::tainteviction::{self as eviction, PodOnNode};
use crate::engine::Routed;
use crate::ids::PodId;
use crate::time::SimTime;
use crate::trace::Record;
use crate::trace::record::{ApiEvent, EventSource, Involved, WatchKind, event_ns};
use std::sync::Arc;

/// The taint-eviction controller's event source.
const TAINT_EVICTION: &str = "taint-eviction-controller";

/// Nodes have no uid in podsim: their events name none.
pub(super) fn no_uid() -> Arc<str> {
    Arc::from("")
}

/// The nodes as the API server holds them, and which are down.
pub(super) struct Nodes {
    pub(super) objects: Vec<ApiNode>,
    pub(super) down: Vec<bool>,
    /// Present when the scenario takes a node down.
    pub(super) lifecycle: Option<NodeLifecycle>,
    pub(super) eviction: eviction::TaintEviction,
    /// Node objects written so far: their watch events reach the informers too.
    pub(super) writes: u64,
}

impl Nodes {
    /// `joining`: the nodes a scenario adds, off (and not yet in the API) until they join.
    pub(super) fn new(cluster: &crate::cluster::Cluster, joining: &[Arc<str>]) -> Nodes {
        let objects = cluster.nodes.iter().map(ApiNode::of).collect();
        let down = cluster.nodes.iter().map(|n| joining.contains(&n.name)).collect();
        Nodes { objects, down, lifecycle: None, eviction: Default::default(), writes: 0 }
    }

    pub(super) fn is_down(&self, node: NodeId) -> bool {
        self.down.get(node.index()).copied().unwrap_or(false)
    }
}

impl World {
    /// The node lifecycle controller starts with the run, when a node action needs it.
    pub(super) fn start_node_lifecycle(&mut self, seed: u64) {
        let mut out = Routed { q: &mut self.q, route: Ev::NodeLifecycle };
        // It starts with the run: the nodes down then are those that join later.
        let nodes = self.cluster.nodes.iter().zip(&self.node_state.down);
        let joining: Vec<Arc<str>> = nodes.filter(|(_, down)| **down).map(|(n, _)| n.name.clone()).collect();
        self.node_state.lifecycle = Some(NodeLifecycle::new(&self.cluster, seed, &joining, &mut out));
    }

    /// The node goes down: the machine stops, with everything on it. Nothing
    /// it runs answers, and its kubelet renews no lease.
    pub(super) fn node_down(&mut self, node: NodeId, now: SimTime) {
        let name = self.cluster.nodes[node.index()].name.clone();
        let what = match self.node_state.is_down(node) {
            true => "the node is down already".to_string(),
            false => "the node goes down: its kubelet, kube-proxy and containers stop".to_string(),
        };
        self.trace.push(now, Record::Scenario { object: format!("node/{name}"), what });
        self.stop_node(node, now);
    }

    /// The machine stops: nothing on it runs, its kubelet renews no lease.
    pub(super) fn stop_node(&mut self, node: NodeId, now: SimTime) {
        if self.node_state.is_down(node) {
            return;
        }
        self.node_state.down[node.index()] = true;
        let run = self.kubelet_runs[node.index()];
        let mut out = Routed { q: &mut self.q, route: super::routes::kubelet(node, run) };
        self.kubelets[node.index()].power_off(&mut crate::engine::Ctx { q: &mut out, trace: &mut self.trace });
        if let Some(l) = &mut self.node_state.lifecycle {
            l.kubelet_stopped(node, now);
        }
    }

    /// A message of the node lifecycle controller.
    pub(super) fn node_lifecycle(&mut self, out: lifecycle::Out) {
        let now = self.q.now();
        match out {
            lifecycle::Out::Own(ev) => {
                if let Some(l) = &mut self.node_state.lifecycle {
                    l.handle(ev, &mut Routed { q: &mut self.q, route: Ev::NodeLifecycle });
                }
            }
            lifecycle::Out::Unknown(node) => self.node_unknown(node, now),
            lifecycle::Out::NoExecute { node, add } => {
                self.set_taint(node, node::UNREACHABLE, "NoExecute", add, now);
            }
        }
    }

    /// `tryUpdateNodeHealth` wrote Ready Unknown; in the same pass the
    /// controller records `NodeNotReady` and runs `MarkPodsNotReady`; the
    /// node update then brings the `unreachable:NoSchedule` taint
    /// (`doNoScheduleTaintingPass`).
    fn node_unknown(&mut self, node: NodeId, now: SimTime) {
        self.write_node(node, now, |n| {
            n.ready = NodeReady::Unknown;
            n.ready_since = now;
        });
        let name = self.cluster.nodes[node.index()].name.clone();
        // `RecordNodeStatusChange`.
        let message = format!("Node {name} status is now: NodeNotReady");
        let uid = no_uid();
        let about = Involved { name: &name, namespace: "default", uid: &uid };
        self.controller_event("node-controller", "Node", about, false, "NodeNotReady", message);
        let pods: Vec<PodId> = self.pods_on(&name).collect();
        for pod in pods {
            self.mark_pod_not_ready(pod, now);
        }
        self.set_taint(node, node::UNREACHABLE, "NoSchedule", true, now);
    }

    /// `MarkPodsNotReady`: the pod's Ready condition copied with status
    /// False (its reason and message kept), then a Warning `NodeNotReady`.
    /// Pods without a Ready condition are skipped; containers' `ready` stays.
    fn mark_pod_not_ready(&mut self, pod: PodId, now: SimTime) {
        let p = self.api.pod(pod);
        let Some(ready) = p.status.condition(&ConditionType::Ready).filter(|c| c.status).cloned() else { return };
        let (name, namespace, uid) = (p.spec.name.clone(), p.spec.namespace.clone(), p.meta.uid.clone());
        let c = Condition { status: false, ..ready };
        if self.api.set_condition(pod, c, now, &mut self.trace) {
            let message = "Node is not ready".to_string();
            let about = Involved { name: &name, namespace: &namespace, uid: &uid };
            self.controller_event("node-controller", "Pod", about, true, "NodeNotReady", message);
            self.sync_watch(false);
        }
    }

    /// `spec.unschedulable` patched (`kubectl cordon`, `uncordon`, `drain`);
    /// whether it changed. The scheduler's node informer sees it, and the
    /// node lifecycle controller's `doNoScheduleTaintingPass` adds or removes
    /// the `node.kubernetes.io/unschedulable:NoSchedule` taint that stands for it.
    pub(super) fn set_unschedulable(&mut self, name: &Arc<str>, unschedulable: bool, now: SimTime) -> bool {
        let mut out = Routed { q: &mut self.q, route: Ev::Scheduler };
        let changed = self.scheduler.node_unschedulable(name, unschedulable, &mut out);
        if let (true, Some(node)) = (changed, self.nodes.named(name)) {
            self.write_node(node, now, |n| n.unschedulable = unschedulable);
            self.set_taint(node, node::UNSCHEDULABLE, "NoSchedule", unschedulable, now);
        }
        changed
    }

    /// Adds or removes a taint of the node lifecycle controller (stamped
    /// `timeAdded`, `SwapNodeControllerTaint`); the scheduler and the
    /// taint-eviction controller see the node change.
    pub(super) fn set_taint(&mut self, node: NodeId, key: &str, effect: &str, add: bool, now: SimTime) {
        let present = self.node_state.objects[node.index()].has_taint(key, effect);
        if present == add {
            return;
        }
        self.write_node(node, now, |n| match add {
            true => n.taints.push((node::taint(key, effect), Some(now))),
            false => n.taints.retain(|(t, _)| !(t.key == key && t.effect == effect)),
        });
        let n = &self.node_state.objects[node.index()];
        let (name, taints) = (n.name.clone(), n.taint_list());
        let mut out = Routed { q: &mut self.q, route: Ev::Scheduler };
        self.scheduler.node_taints(&name, taints.clone(), &mut out);
        if effect == "NoExecute" {
            let pods: Vec<PodId> = self.pods_on(&name).collect();
            let api = &self.api;
            let on_node = pods.iter().map(|&id| PodOnNode {
                id,
                tolerations: api
                    .pod(id)
                    .spec
                    .object
                    .spec
                    .as_ref()
                    .and_then(|s| s.tolerations.as_deref())
                    .unwrap_or(&[]),
            });
            let mut out = Routed { q: &mut self.q, route: Ev::TaintEviction };
            self.node_state.eviction.node_updated(&taints, on_node, &mut out);
        }
    }

    /// A message of the taint-eviction controller.
    pub(super) fn taint_eviction(&mut self, out: eviction::Out) {
        let now = self.q.now();
        match out {
            eviction::Out::Own(ev) => {
                let mut out = Routed { q: &mut self.q, route: Ev::TaintEviction };
                self.node_state.eviction.handle(ev, &mut out);
            }
            eviction::Out::Delete(pod) => self.delete_by_taint_manager(pod, now),
            eviction::Out::Cancelled(pod) => {
                let p = self.api.pod(pod);
                let (name, namespace, uid) = (p.spec.name.clone(), p.spec.namespace.clone(), p.meta.uid.clone());
                let message = format!("Cancelling deletion of Pod {namespace}/{name}");
                let about = Involved { name: &name, namespace: &namespace, uid: &uid };
                self.controller_event(TAINT_EVICTION, "Pod", about, false, "TaintManagerEviction", message);
            }
        }
    }

    /// `deletePodHandler`: the event, then `addConditionAndDeletePod` — the
    /// DisruptionTarget condition and a DELETE without a grace of its own.
    fn delete_by_taint_manager(&mut self, pod: PodId, now: SimTime) {
        let p = self.api.pod(pod);
        if p.meta.removed {
            return self.node_state.eviction.pod_deleted(pod);
        }
        let (name, namespace, uid) = (p.spec.name.clone(), p.spec.namespace.clone(), p.meta.uid.clone());
        let message = format!("Marking for deletion Pod {namespace}/{name}");
        let about = Involved { name: &name, namespace: &namespace, uid: &uid };
        self.controller_event(TAINT_EVICTION, "Pod", about, false, "TaintManagerEviction", message);
        let c = Condition::new(ConditionType::Other(Arc::from("DisruptionTarget")), true)
            .reason("DeletionByTaintManager")
            .message("Taint manager: deleting due to NoExecute taint".to_string());
        self.api.set_condition(pod, c, now, &mut self.trace);
        self.api.delete(pod, None, now, &mut self.trace);
        self.sync_watch(false);
    }

    /// The pods bound to the node, not yet gone.
    fn pods_on<'a>(&'a self, node: &'a str) -> impl Iterator<Item = PodId> + 'a {
        let pods = self.api.pods().iter();
        pods.filter(move |p| !p.meta.removed && p.node.as_deref() == Some(node)).map(|p| p.id)
    }

    /// Stores a change of the node and records it.
    pub(super) fn write_node(&mut self, node: NodeId, now: SimTime, change: impl FnOnce(&mut ApiNode)) {
        self.node_state.writes += 1;
        let n = &mut self.node_state.objects[node.index()];
        change(n);
        let node = Arc::new(n.clone());
        self.trace.push(now, Record::Node { kind: WatchKind::Modified, node });
    }

    /// An event the node's kubelet records about its Node.
    pub(super) fn kubelet_node_event(&mut self, node: NodeId, warning: bool, reason: &'static str, message: String) {
        let name = self.cluster.nodes[node.index()].name.clone();
        let uid = no_uid();
        let about = Involved { name: &name, namespace: "default", uid: &uid };
        self.controller_event("kubelet", "Node", about, warning, reason, message);
    }

    /// An event a kube-controller-manager controller records about a Node or a Pod.
    pub(super) fn controller_event(
        &mut self,
        component: &'static str,
        kind: &'static str,
        about: Involved<'_>,
        warning: bool,
        reason: &'static str,
        message: String,
    ) {
        // A sweep's trace keeps no Events.
        if !self.trace.keeps_all() {
            return;
        }
        let now = self.q.now();
        let source = EventSource::Controller { component, kind };
        let event = ApiEvent::first_at(about, source, warning, reason, message, now, event_ns(self.epoch_ns, now));
        self.trace.push(now, Record::Event(Arc::new(event)));
    }
}
