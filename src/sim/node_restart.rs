//! A node's kubelet process restarted, and a node rebooted: a new kubelet
//! (and, after a reboot, a new kube-proxy) lists what the API server holds
//! through new watches; what the old processes sent or were sent is dropped.

use super::{Ev, NodeId, World, routes};
use crate::api::node::{self, NodeReady};
use crate::engine::{Ctx, Routed};
use crate::kubelet::config::PodConfig;
use crate::proxy::KubeProxy;
use crate::rng::{Label, What};
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::WatchKind;
use std::sync::Arc;

impl World {
    /// `systemctl restart kubelet`: a new kubelet process; the containers run on.
    pub(super) fn restart_kubelet(&mut self, node: NodeId, now: SimTime) {
        let name = self.cluster.nodes[node.index()].name.clone();
        let down = self.node_state.is_down(node);
        let what = match down {
            true => "systemctl restart kubelet: the node is down, nothing runs there".to_string(),
            false => "systemctl restart kubelet: a new kubelet process starts; the containers run on".to_string(),
        };
        self.trace.push(now, Record::Scenario { object: format!("node/{name}"), what });
        if !down {
            self.new_kubelet(node, false, now);
        }
    }

    /// The node goes down, and boots `down` later.
    pub(super) fn reboot(&mut self, node: NodeId, down: SimDuration, now: SimTime) {
        let name = self.cluster.nodes[node.index()].name.clone();
        let what = match self.node_state.is_down(node) {
            true => format!("the node is down already; it boots {down} later"),
            false => format!("the node goes down (its kubelet, kube-proxy and containers stop) and boots {down} later"),
        };
        self.trace.push(now, Record::Scenario { object: format!("node/{name}"), what });
        self.stop_node(node, now);
        self.q.after(down, Ev::NodeBoots(node));
    }

    /// The node boots: its runtime lost every process and sandbox; a new
    /// kubelet posts Ready (`NodeReady`, the node's `Rebooted` warning) and
    /// lists its pods; a new kube-proxy lists the Services and slices.
    pub(super) fn node_boots(&mut self, node: NodeId, now: SimTime) {
        self.node_state.down[node.index()] = false;
        let name = self.cluster.nodes[node.index()].name.clone();
        let boots = self.node_state.objects[node.index()].boots + 1;
        // `MachineInfo` sees a new boot ID; `ReadyCondition` posts True.
        let was = self.node_state.objects[node.index()].ready;
        self.write_node(node, now, |n| {
            n.boots = boots;
            if n.ready != NodeReady::True {
                n.ready = NodeReady::True;
                n.ready_since = now;
            }
        });
        let boot_id = self.node_state.objects[node.index()].boot_id();
        let message = format!("Node {name} has been rebooted, boot id: {boot_id}");
        self.kubelet_node_event(node, true, "Rebooted", message);
        if was != NodeReady::True {
            let message = format!("Node {name} status is now: NodeReady");
            self.kubelet_node_event(node, false, "NodeReady", message);
            // `doNoScheduleTaintingPass` on the node update.
            self.set_taint(node, node::UNREACHABLE, "NoSchedule", false, now);
        }
        self.new_kubelet(node, true, now);
        self.new_kube_proxy(node, now);
    }

    /// A new kubelet process (`boot`: after the machine stopped), which
    /// lists the node's pods through a new watch.
    pub(super) fn new_kubelet(&mut self, node: NodeId, boot: bool, now: SimTime) {
        let name = self.cluster.nodes[node.index()].name.clone();
        self.kubelet_runs[node.index()] += 1;
        let run = self.kubelet_runs[node.index()];
        let mut out = Routed { q: &mut self.q, route: routes::kubelet(node, run) };
        let ctx = &mut Ctx { q: &mut out, trace: &mut self.trace };
        match boot {
            true => self.kubelets[node.index()].boot(ctx),
            false => self.kubelets[node.index()].restart(ctx),
        }
        if let Some(l) = &mut self.node_state.lifecycle {
            l.kubelet_started(node, now);
        }
        let (config, watcher) = &mut self.pod_configs[node.index()];
        *config = PodConfig::new(name.clone());
        for pod in self.api.pods().iter().filter(|p| !p.meta.removed && p.node.as_deref() == Some(&*name)) {
            let pod = Arc::new(pod.clone());
            if let Some(ev) = config.change(WatchKind::Added, &pod, false) {
                let label = || Label::new(What::Watch, pod.spec.alias.clone()).with(format!("node/{name}"));
                let at = self.watches.due(*watcher, now, &self.cluster.latencies.watch, label);
                self.q.at(at, Ev::Kubelet(node, run, ev));
            }
        }
    }

    /// A new kube-proxy (the reboot flushed its rules): its informers list
    /// the Services and EndpointSlices.
    pub(super) fn new_kube_proxy(&mut self, node: NodeId, now: SimTime) {
        if self.proxies.is_empty() {
            return;
        }
        let name = self.cluster.nodes[node.index()].name.clone();
        // Its draws go on from a stream of its own boot.
        let boots = u64::from(self.node_state.objects[node.index()].boots);
        self.proxies[node.index()] = KubeProxy::new(name, self.cluster.clone(), self.seed.wrapping_add(boots));
        let services = self.api.services().iter().filter(|s| !s.meta.removed);
        let slices = self.api.slices().iter().filter(|s| !s.meta.removed);
        let listed: Vec<Record> = (services
            .map(|s| Record::Service { kind: WatchKind::Added, svc: Arc::new(s.clone()) }))
        .chain(slices.map(|s| Record::Slice { kind: WatchKind::Added, slice: Arc::new(s.clone()) }))
        .collect();
        let watch = &self.cluster.latencies.watch;
        for group in &self.informers.groups {
            for s in group.iter().filter(|s| matches!(s.to, super::watch::Subscriber::Proxy(n) if n == node)) {
                for record in listed.iter().filter(|r| crate::api::store::Kind::of(r) == Some(s.kind)) {
                    let api = &self.api;
                    let at = self.watches.due(s.watcher, now, watch, || super::watch::subject(api, record));
                    self.q.at(at, s.to.event(record));
                }
            }
        }
    }
}
