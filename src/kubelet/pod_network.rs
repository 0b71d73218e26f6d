//! The pod network on this node: processes bind their ports in their pod's
//! network namespace (`netns`), and connections reach this node's pod IPs
//! (and its own IP, for hostNetwork pods): the pod's kernel refuses a port
//! nobody listens on, an HTTP request gets the answer of the process that
//! bound the port after its latency, and a process that dies with a
//! request in flight resets the connection.

use super::Out;
use super::http_client;
use super::netns::NetnsId;
use super::relay;
use super::runtime::InstId;
use super::{Ev, Kubelet};
use crate::app::OnAddressInUse;
use crate::client::{Answered, Reply, Silence};
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::rng::{Label, What};
use crate::time::SimDuration;
use crate::trace::record::ProcessFact;
use std::sync::Arc;

/// A request a process is answering.
#[derive(Debug)]
pub struct InFlight {
    pub req: u64,
    inst: InstId,
    status: u16,
    /// Network time back to the client.
    back: SimDuration,
}

impl Kubelet {
    /// The process starts listening: it binds its ports in its pod's network
    /// namespace. A port another process of the pod holds fails with
    /// EADDRINUSE, and the process does what its behaviour says (by default
    /// it exits 1 at once, as nginx or Go's `ListenAndServe` do).
    pub(super) fn listening(&mut self, inst: InstId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if !self.runtime.inst(inst).is_running() {
            return;
        }
        let taken = self.runtime.listen(inst);
        let i = self.runtime.inst(inst);
        let on_taken = i.plan.on_address_in_use;
        let ports: Vec<u16> = i.plan.ports().iter().copied().filter(|p| !taken.contains(p)).collect();
        for &port in &taken {
            self.process_fact(inst, ProcessFact::AddressInUse { port }, ctx);
        }
        let stays = taken.is_empty() || on_taken == OnAddressInUse::Ignore;
        if stays || !ports.is_empty() {
            self.process_fact(inst, ProcessFact::Listening { ports }, ctx);
        }
        if let (false, OnAddressInUse::Exit { after, code }) = (stays, on_taken) {
            self.send(ctx, after, Ev::Exit { inst, code });
        }
    }

    /// A new connection to `ip:port` asking for `path`; the reply travels
    /// back for `back`.
    pub(super) fn connect(
        &mut self,
        req: u64,
        ip: &str,
        port: u16,
        path: &str,
        back: SimDuration,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let now = ctx.q.now();
        let host = *ip == *self.node.ip;
        let pods: Vec<PodId> = match host {
            true => self
                .live_pods()
                .filter(|&p| {
                    self.pods[p.0 as usize].as_ref().is_some_and(|k| k.spec.host_network)
                        && self.runtime.sandbox(p).is_some()
                })
                .collect(),
            false => self.runtime.pods_with_ip(ip).collect(),
        };
        if pods.is_empty() && !host {
            let d = (self.cluster.latencies.no_route_to_host)
                .sample(&mut self.server_rng, || Label::new(What::NoRouteToHost, format!("{ip}:{port}")));
            let answer = Answered { reply: Reply::NoRoute, pod: None };
            ctx.q.after(SimDuration::ZERO, Out::Reached { req, silence: Silence::NoRoute });
            ctx.q.after(d + back, Out::Reply { req, answer });
            return;
        }
        // Whichever process of the namespace bound the port answers.
        let netns = match host {
            true => Some(NetnsId::Node),
            false => pods.first().and_then(|&p| self.runtime.sandbox(p)).map(|s| s.netns),
        };
        if let http_client::Reply::Answered(inst, response) =
            relay::serve(&self.runtime, netns, ip, port, path, now, &mut self.server_rng)
        {
            self.inflight.push(InFlight { req, inst, status: response.status, back });
            self.send(ctx, response.latency, Ev::Respond { req });
            return;
        }
        // Nothing listens: the kernel answers RST.
        let pod = match pods.as_slice() {
            [one] => self.pod_identity(*one),
            _ => None,
        };
        ctx.q.after(back, Out::Reply { req, answer: Answered { reply: Reply::Refused, pod } });
    }

    /// The app wrote its response.
    pub(super) fn respond(&mut self, req: u64, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(i) = self.inflight.iter().position(|f| f.req == req) else { return };
        let f = self.inflight.remove(i);
        let pod = self.pod_identity(self.runtime.inst(f.inst).pod);
        ctx.q.after(f.back, Out::Reply { req, answer: Answered { reply: Reply::Http { status: f.status }, pod } });
    }

    /// The process of `inst` is gone: its requests in flight are reset.
    pub(super) fn reset_requests(&mut self, inst: InstId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let pod = self.pod_identity(self.runtime.inst(inst).pod);
        let (gone, kept): (Vec<InFlight>, Vec<InFlight>) =
            std::mem::take(&mut self.inflight).into_iter().partition(|f| f.inst == inst);
        self.inflight = kept;
        for f in gone {
            let answer = Answered { reply: Reply::Reset, pod: pod.clone() };
            ctx.q.after(f.back, Out::Reply { req: f.req, answer });
        }
    }

    fn pod_identity(&self, pod: PodId) -> Option<(Arc<str>, Arc<str>)> {
        self.pods.get(pod.0 as usize)?.as_ref().map(|k| (k.name.clone(), k.uid.clone()))
    }
}
