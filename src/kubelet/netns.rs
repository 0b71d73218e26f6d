//! Network namespaces: the containers of a pod share its sandbox's one
//! (`RunPodSandbox` creates it; every container joins it), and hostNetwork
//! pods share the node's. A TCP port is bound by one process of a namespace
//! at a time: the first to `bind()` it; another gets EADDRINUSE. A
//! connection to `IP:port` (a probe's, a hook's, a client's) reaches
//! whichever process bound the port — not necessarily the container whose
//! probe or hook asked (`runProbe` and `runHTTPHandler` dial the pod IP).
//! A namespace is named by its IP: pod IPs are never reused in a run, and
//! every hostNetwork pod of a node has the node's.

use super::runtime::InstId;
use foldhash::HashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug, Default)]
pub struct Namespaces {
    /// Per IP, which process holds each port.
    ports: HashMap<Arc<str>, BTreeMap<u16, InstId>>,
    /// Where each process bound its ports.
    holders: HashMap<InstId, Arc<str>>,
}

impl Namespaces {
    /// `inst` binds each of `ports` that is free in the namespace of `ip`;
    /// returns those another process holds (its EADDRINUSE), in order.
    pub fn bind(&mut self, ip: &Arc<str>, inst: InstId, ports: &[u16]) -> Vec<u16> {
        let table = self.ports.entry(ip.clone()).or_default();
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
            self.holders.insert(inst, ip.clone());
        }
        taken
    }

    /// The process closes its listening sockets (it exited, or stopped
    /// listening): its ports are free again.
    pub fn release(&mut self, inst: InstId) {
        let Some(ip) = self.holders.remove(&inst) else { return };
        if let Some(table) = self.ports.get_mut(&ip) {
            table.retain(|_, holder| *holder != inst);
            if table.is_empty() {
                self.ports.remove(&ip);
            }
        }
    }

    /// The process a connection to `ip:port` reaches, if any listens.
    pub fn server(&self, ip: &str, port: u16) -> Option<InstId> {
        self.ports.get(ip)?.get(&port).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_process_to_bind_a_port_gets_it() {
        let mut ns = Namespaces::default();
        let ip: Arc<str> = Arc::from("10.244.0.2");
        let (app, sidecar) = (InstId(1), InstId(2));
        assert_eq!(ns.bind(&ip, sidecar, &[8080, 15020]), Vec::<u16>::new());
        assert_eq!(ns.bind(&ip, app, &[8080, 9090]), vec![8080]);
        assert_eq!(ns.server("10.244.0.2", 8080), Some(sidecar));
        assert_eq!(ns.server("10.244.0.2", 9090), Some(app));
        assert_eq!(ns.server("10.244.0.3", 8080), None);
        // Once the sidecar is gone, the port is free for the next bind.
        ns.release(sidecar);
        assert_eq!(ns.server("10.244.0.2", 8080), None);
        assert_eq!(ns.bind(&ip, InstId(3), &[8080]), Vec::<u16>::new());
        ns.release(app);
        ns.release(app);
        assert_eq!((ns.server("10.244.0.2", 9090), ns.server("10.244.0.2", 8080)), (None, Some(InstId(3))));
    }

    #[test]
    fn namespaces_of_different_ips_are_apart() {
        let mut ns = Namespaces::default();
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("10.244.0.2"), Arc::from("10.244.0.3"));
        assert!(ns.bind(&a, InstId(1), &[80]).is_empty());
        assert!(ns.bind(&b, InstId(2), &[80]).is_empty());
        assert_eq!((ns.server("10.244.0.2", 80), ns.server("10.244.0.3", 80)), (Some(InstId(1)), Some(InstId(2))));
        // A process that bound nothing holds nothing.
        assert_eq!(ns.bind(&a, InstId(3), &[80]), vec![80]);
        ns.release(InstId(3));
        assert_eq!(ns.server("10.244.0.2", 80), Some(InstId(1)));
    }
}
