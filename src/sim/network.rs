//! Clients' requests crossing the cluster network: routed by the source
//! node's kube-proxy rules (or straight to a pod IP), answered by the
//! destination node's pods, given up on at the client's timeout.

use super::{Ev, NodeId, World};
use crate::client::{Answered, Outcome, Refusal, Reply, RequestRecord, Silence, Source, Target};
use crate::kubelet;
use crate::proxy::{Route, route};
use crate::rng::{Label, What};
use crate::trace::Record;
use std::net::Ipv4Addr;
use std::sync::Arc;

/// A request on its way.
pub(super) struct Pending {
    record: RequestRecord,
    /// Why there is no answer yet, if the client gives up now.
    silence: Silence,
}

impl World {
    /// Client `client` sends its request number `n`.
    pub(super) fn send(&mut self, client: usize, n: u32) {
        let now = self.q.now();
        let clients = self.clients.clone();
        let c = &clients[client];
        if let Some(t) = c.schedule.next(n + 1, Some(now), &mut self.client_rngs[client], &c.name) {
            self.q.at(t, Ev::Send { client, n: n + 1 });
        }
        let (node, source_ip) = match &c.from {
            Source::Node(name) => {
                let ip = self.nodes.named(name).map(|i| self.cluster.nodes[i.index()].ip.clone());
                (Some(name.clone()), ip)
            }
            Source::Pod(id) => {
                let p = self.api.pod(*id);
                (p.node.clone(), p.status.pod_ip.clone().filter(|_| !p.meta.removed))
            }
        };
        let mut record = RequestRecord {
            client: c.name.clone(),
            n,
            sent: now,
            from: c.source.clone(),
            node: node.clone(),
            target: c.target.clone(),
            path: c.path.clone(),
            endpoint: None,
            pod: None,
            sticky: false,
            outcome: Outcome::Http { status: 0 },
        };
        let (Some(node), Some(source_ip)) = (node, source_ip) else {
            record.outcome = Outcome::NotSent { why: format!("{} has no IP yet", c.source) };
            return self.finish(record);
        };
        if self.nodes.named(&node).is_some_and(|n| self.node_state.is_down(n)) {
            let why = match *c.source == *format!("node/{node}") {
                true => format!("{} is down", c.source),
                false => format!("{} is on node/{node}, which is down", c.source),
            };
            record.outcome = Outcome::NotSent { why };
            return self.finish(record);
        }
        let (ip, port) = match c.to {
            Target::Pod { pod, port } => {
                let p = self.api.pod(pod);
                match p.status.pod_ip.clone().filter(|_| !p.meta.removed) {
                    Some(ip) => (ip, port),
                    None => {
                        record.outcome = Outcome::NotSent { why: format!("pod/{} has no IP", p.spec.name) };
                        return self.finish(record);
                    }
                }
            }
            Target::Service { service, port } => {
                let svc = self.api.service(service);
                let (cluster_ip, port) = (svc.cluster_ip, svc.spec.ports[port].port);
                let i = self.nodes.named(&node).expect("every node runs kube-proxy");
                let proxy = &mut self.proxies[i.index()];
                let rules = proxy.rules.clone();
                match route(&rules, cluster_ip, port, &source_ip, &mut proxy.affinity, now, &mut proxy.kernel) {
                    Route::NotProgrammed => return self.wait(record, Silence::NotProgrammed, c.timeout),
                    Route::Drop { rule } => return self.wait(record, Silence::NoLocalEndpoints { rule }, c.timeout),
                    Route::Reject { rule } => {
                        record.outcome = Outcome::Refused(Refusal::NoEndpoints { rule });
                        return self.finish(record);
                    }
                    Route::To { endpoint, sticky, .. } => {
                        record.sticky = sticky;
                        record.pod = endpoint.target.as_ref().map(|t| (t.name.clone(), t.uid.clone()));
                        (endpoint.ip.clone(), endpoint.port)
                    }
                }
            }
        };
        record.endpoint = Some(format!("{ip}:{port}"));
        let to_node = self.node_of(&ip);
        let req = self.next_request;
        self.next_request += 1;
        let label = |what: What| move || Label::new(what, format!("client/{}", c.name)).with(format!("request {n}"));
        let there = self.cluster.latencies.network.sample(&mut self.network, label(What::RequestThere));
        let back = self.cluster.latencies.network.sample(&mut self.network, label(What::RequestBack));
        // A silence is a slow answer unless the pod's node says otherwise
        // (`Reached`); an IP on no node never answers ARP.
        let silence = match to_node {
            Some(dest) if self.node_state.is_down(dest) => {
                Silence::NodeDown { node: self.cluster.nodes[dest.index()].name.clone() }
            }
            Some(dest) => {
                let ev = kubelet::Ev::Connect { req, ip, port, path: c.path.clone(), back };
                self.q.after(there, Ev::Kubelet(dest, self.kubelet_runs[dest.index()], ev));
                Silence::Slow
            }
            None => {
                let d = (self.cluster.latencies.no_route_to_host)
                    .sample(&mut self.network, || Label::new(What::NoRouteToHost, format!("{ip}:{port}")));
                let answer = Answered { reply: Reply::NoRoute, pod: None };
                self.q.after(there + d + back, Ev::Reply { req, answer });
                Silence::NoRoute
            }
        };
        self.pending.insert(req, Pending { record, silence });
        self.q.after(c.timeout, Ev::ClientTimeout { req });
    }

    /// No answer will come; the client gives up at its timeout.
    fn wait(&mut self, record: RequestRecord, silence: Silence, timeout: crate::time::SimDuration) {
        let req = self.next_request;
        self.next_request += 1;
        self.pending.insert(req, Pending { record, silence });
        self.q.after(timeout, Ev::ClientTimeout { req });
    }

    /// The answer reached the client.
    pub(super) fn reply(&mut self, req: u64, answer: Answered) {
        let Some(Pending { mut record, .. }) = self.pending.remove(&req) else { return };
        if answer.pod.is_some() {
            record.pod = answer.pod;
        }
        record.outcome = match answer.reply {
            Reply::Http { status } => Outcome::Http { status },
            Reply::Refused => Outcome::Refused(Refusal::NotListening),
            Reply::Reset => Outcome::Reset,
            Reply::NoRoute => Outcome::NoRoute,
        };
        self.finish(record);
    }

    /// The destination told how far the connection got (for a timeout's why).
    pub(super) fn reached(&mut self, req: u64, silence: Silence) {
        if let Some(p) = self.pending.get_mut(&req) {
            p.silence = silence;
        }
    }

    pub(super) fn client_timeout(&mut self, req: u64) {
        let Some(Pending { mut record, silence }) = self.pending.remove(&req) else { return };
        record.outcome = Outcome::Timeout(silence);
        self.finish(record);
    }

    fn finish(&mut self, record: RequestRecord) {
        let now = self.q.now();
        self.trace.push(now, Record::Request(Arc::new(record)));
    }

    /// The node whose pod network (10.244.<node index>.0/24) or own address is `ip`.
    fn node_of(&self, ip: &str) -> Option<NodeId> {
        if let Some(node) = self.nodes.with_ip(ip) {
            return Some(node);
        }
        let addr: Ipv4Addr = ip.parse().ok()?;
        let [a, b, c, _] = addr.octets();
        ((a, b) == (10, 244) && usize::from(c) < self.cluster.nodes.len()).then_some(NodeId(u32::from(c)))
    }
}
