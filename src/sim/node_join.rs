//! A node joins the cluster during a run (a scenario's `addNode`): a
//! machine of the profile, off and unknown to the API server until then,
//! boots; its kubelet registers the Node (`registerWithAPIServer`, Ready as
//! it posts its first status) and lists its pods, its kube-proxy lists the
//! Services. The scheduler's and the DaemonSet controller's node informers
//! see it added.

use super::{Ev, NodeId, World};
use crate::api::node::NodeReady;
use crate::engine::Routed;
use crate::time::SimTime;
use crate::trace::Record;
use crate::trace::record::{Involved, WatchKind};
use std::sync::Arc;

impl World {
    pub(super) fn node_joins(&mut self, node: NodeId, now: SimTime) {
        let i = node.index();
        let name = self.cluster.nodes[i].name.clone();
        let what = "the node joins the cluster: its kubelet registers the Node and posts Ready".to_string();
        self.trace.push(now, Record::Scenario { object: format!("node/{name}"), what });
        self.node_state.down[i] = false;
        self.node_state.writes += 1;
        let n = &mut self.node_state.objects[i];
        n.created = Some(now);
        n.ready = NodeReady::True;
        n.ready_since = now;
        let object = Arc::new(n.clone());
        self.trace.push(now, Record::Node { kind: WatchKind::Added, node: object });
        self.kubelet_node_event(node, false, "Starting", "Starting kubelet.".into());
        // `monitorNodeHealth` records it through `RecordNodeEvent`
        // (pkg/controller/util/node/controller_utils.go): "Node %s event: %s".
        let uid = super::node_loss::no_uid();
        let about = Involved { name: &name, namespace: "default", uid: &uid };
        let message = format!("Node {name} event: Registered Node {name} in Controller");
        self.controller_event("node-controller", "Node", about, false, "RegisteredNode", message);
        let mut out = Routed { q: &mut self.q, route: Ev::Scheduler };
        self.scheduler.node_added(self.cluster.nodes[i].clone(), &mut out);
        self.new_kubelet(node, true, now);
        self.new_kube_proxy(node, now);
    }
}
