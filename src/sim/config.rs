//! ConfigMaps and Secrets applied during a run: each kubelet's watch
//! delivers the object after its own delay (`watch` latency).

use super::World;
use crate::api::config::ConfigObject;
use crate::ids::NodeId;
use crate::kubelet;
use crate::rng::{Label, What};
use std::sync::Arc;

impl World {
    /// `kubectl apply` of a ConfigMap or Secret: every kubelet's watch delivers it.
    pub(super) fn apply_config(&mut self, object: &Arc<ConfigObject>) {
        for i in 0..self.kubelets.len() {
            let node = &self.cluster.nodes[i].name;
            let label = || Label::new(What::Watch, object.kubectl_name()).with(format!("node/{node}"));
            let delay = self.cluster.latencies.watch.sample(&mut self.config_watch, label);
            let ev = kubelet::Ev::ObjectSeen(Box::new((**object).clone()));
            self.send_to_kubelet(NodeId(i as u32), delay, ev);
        }
    }
}
