//! Network namespaces: the containers of a pod share its sandbox's one
//! (`RunPodSandbox` creates it; every container joins it), and hostNetwork
//! pods share the node's. A TCP port is bound by one process of a namespace
//! at a time: the first to `bind()` it; another gets EADDRINUSE. A
//! connection to a namespace's IP and a port (a probe's, a hook's, a
//! client's) reaches whichever process bound the port — not necessarily the
//! container whose probe or hook asked (`runProbe` and `runHTTPHandler` dial
//! the pod IP).

use super::runtime::InstId;
use crate::ids::PodId;
use foldhash::HashMap;
use std::collections::BTreeMap;

/// Whose network namespace: a pod sandbox's, or the node's (hostNetwork).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NetnsId {
    Pod(PodId),
    Node,
}

#[derive(Debug, Default)]
pub struct Namespaces {
    /// Per pod (by `PodId`), which process holds each port of its sandbox's namespace.
    pods: Vec<BTreeMap<u16, InstId>>,
    /// The node's namespace, shared by its hostNetwork pods.
    node: BTreeMap<u16, InstId>,
    /// Where each process bound its ports.
    holders: HashMap<InstId, NetnsId>,
}

impl Namespaces {
    fn table(&mut self, ns: NetnsId) -> &mut BTreeMap<u16, InstId> {
        match ns {
            NetnsId::Node => &mut self.node,
            NetnsId::Pod(pod) => {
                let i = pod.0 as usize;
                if self.pods.len() <= i {
                    self.pods.resize_with(i + 1, BTreeMap::new);
                }
                &mut self.pods[i]
            }
        }
    }

    /// `inst` binds each of `ports` that is free in `ns`; returns those
    /// another process holds (its EADDRINUSE), in order.
    pub fn bind(&mut self, ns: NetnsId, inst: InstId, ports: &[u16]) -> Vec<u16> {
        let table = self.table(ns);
        let mut taken = Vec::new();
        for &port in ports {
            match table.get(&port) {
                Some(holder) if *holder != inst => taken.push(port),
                _ => {
                    table.insert(port, inst);
                }
            }
        }
        if taken.len() < ports.len() {
            self.holders.insert(inst, ns);
        }
        taken
    }

    /// The process closes its listening sockets (it exited, or stopped
    /// listening): its ports are free again.
    pub fn release(&mut self, inst: InstId) {
        if let Some(ns) = self.holders.remove(&inst) {
            self.table(ns).retain(|_, holder| *holder != inst);
        }
    }

    /// The process a connection to `port` of `ns` reaches, if any listens.
    pub fn server(&self, ns: NetnsId, port: u16) -> Option<InstId> {
        let table = match ns {
            NetnsId::Node => &self.node,
            NetnsId::Pod(pod) => self.pods.get(pod.0 as usize)?,
        };
        table.get(&port).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POD: NetnsId = NetnsId::Pod(PodId(3));

    #[test]
    fn the_first_process_to_bind_a_port_gets_it() {
        let mut ns = Namespaces::default();
        let (app, sidecar) = (InstId(1), InstId(2));
        assert_eq!(ns.bind(POD, sidecar, &[8080, 15020]), Vec::<u16>::new());
        assert_eq!(ns.bind(POD, app, &[8080, 9090]), vec![8080]);
        assert_eq!(ns.server(POD, 8080), Some(sidecar));
        assert_eq!(ns.server(POD, 9090), Some(app));
        assert_eq!(ns.server(NetnsId::Pod(PodId(4)), 8080), None);
        // Once the sidecar is gone, the port is free for the next bind.
        ns.release(sidecar);
        assert_eq!(ns.server(POD, 8080), None);
        assert_eq!(ns.bind(POD, InstId(3), &[8080]), Vec::<u16>::new());
        ns.release(app);
        ns.release(app);
        assert_eq!((ns.server(POD, 9090), ns.server(POD, 8080)), (None, Some(InstId(3))));
    }

    #[test]
    fn namespaces_are_apart_and_host_network_pods_share_the_nodes() {
        let mut ns = Namespaces::default();
        let other = NetnsId::Pod(PodId(0));
        assert!(ns.bind(POD, InstId(1), &[80]).is_empty());
        assert!(ns.bind(other, InstId(2), &[80]).is_empty());
        assert_eq!((ns.server(POD, 80), ns.server(other, 80)), (Some(InstId(1)), Some(InstId(2))));
        // Two hostNetwork pods' processes meet in the node's namespace.
        assert!(ns.bind(NetnsId::Node, InstId(5), &[80]).is_empty());
        assert_eq!(ns.bind(NetnsId::Node, InstId(6), &[80]), vec![80]);
        // A process that bound nothing holds nothing.
        ns.release(InstId(6));
        assert_eq!(ns.server(NetnsId::Node, 80), Some(InstId(5)));
    }
}
