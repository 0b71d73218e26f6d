//! The cluster's nodes by name and by address: a node's kubelet and
//! kube-proxy are found by index, not by comparing every node's name.

use crate::cluster::Node;
use crate::ids::NodeId;
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

/// Indexes into the cluster's node list, which the kubelets and the
/// kube-proxies follow in order.
pub struct NodeIndex {
    by_name: HashMap<Arc<str>, usize>,
    by_ip: HashMap<Arc<str>, usize>,
}

impl NodeIndex {
    pub fn new(nodes: &[Node]) -> Self {
        let mut index = NodeIndex { by_name: HashMap::new(), by_ip: HashMap::new() };
        // The first node of a name or address wins, as a search in order would find it.
        for (i, n) in nodes.iter().enumerate() {
            index.by_name.entry(n.name.clone()).or_insert(i);
            index.by_ip.entry(n.ip.clone()).or_insert(i);
        }
        index
    }

    pub fn named(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).map(|&i| NodeId(i as u32))
    }

    pub fn with_ip(&self, ip: &str) -> Option<NodeId> {
        self.by_ip.get(ip).map(|&i| NodeId(i as u32))
    }
}
