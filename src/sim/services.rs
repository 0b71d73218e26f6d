//! The Service path inside the world: API changes fanned out to the
//! EndpointSlice controller's and every kube-proxy's informers, and the
//! controller's writes applied by the API server.

use super::{Ev, NodeId, World, routes};
use crate::control::endpointslice::{self as eps, Request, Write};
use crate::engine::{Ctx, Routed};
use crate::proxy;
use crate::trace::Record;

impl World {
    /// The API records written since entry `from` reach the informers that
    /// watch them (the kubelets get theirs separately).
    pub(super) fn fan_out_services(&mut self, from: usize) {
        if self.controller.is_none() {
            return;
        }
        let now = self.q.now();
        let watch = self.cluster.latencies.watch.clone();
        for i in from..self.trace.entries.len() {
            match &self.trace.entries[i].record {
                Record::Pod { kind, pod } => {
                    let ev = eps::Ev::Pod(*kind, pod.clone());
                    let at = self.watches.due(self.informers.slice_pods, now, &watch);
                    self.q.at(at, Ev::SliceController(ev));
                }
                Record::Service { kind, svc } => {
                    let at = self.watches.due(self.informers.slice_services, now, &watch);
                    self.q.at(at, Ev::SliceController(eps::Ev::Service(*kind, svc.clone())));
                    for (i, &(services, _)) in self.informers.proxies.iter().enumerate() {
                        let at = self.watches.due(services, now, &watch);
                        self.q.at(at, Ev::Proxy(NodeId(i as u32), proxy::Ev::Service(*kind, svc.clone())));
                    }
                }
                Record::Slice { kind, slice } => {
                    let at = self.watches.due(self.informers.slice_slices, now, &watch);
                    self.q.at(at, Ev::SliceController(eps::Ev::Slice(*kind, slice.clone())));
                    for (i, &(_, slices)) in self.informers.proxies.iter().enumerate() {
                        let at = self.watches.due(slices, now, &watch);
                        self.q.at(at, Ev::Proxy(NodeId(i as u32), proxy::Ev::Slice(*kind, slice.clone())));
                    }
                }
                _ => {}
            }
        }
    }

    /// A write of the EndpointSlice controller reaches the API server; the
    /// answer goes straight back to it.
    pub(super) fn slice_write(&mut self, Request { service, write }: Request) {
        let now = self.q.now();
        let (result, deleted) = match write {
            Write::Create(content) => (self.api.create_slice(service, content, now, &mut self.trace), false),
            Write::Update(id, content) => (self.api.update_slice(id, content, now, &mut self.trace), false),
            Write::Delete(id) => (self.api.delete_slice(id, now, &mut self.trace), true),
        };
        if let Some(c) = self.controller.as_mut() {
            let mut out = Routed { q: &mut self.q, route: routes::slices };
            let mut ctx = Ctx { q: &mut out, trace: &mut self.trace };
            c.written(service, Some(result), deleted, &mut ctx);
        }
    }
}
