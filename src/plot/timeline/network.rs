//! The Service path's lanes: each Service's endpoints (one lane per pod),
//! each node's kube-proxy syncs, each client's requests.

use super::model::{Group, Lane, ObjectKey, Spans};
use crate::api::endpointslice::{ApiSlice, Endpoint};
use crate::ids::{ServiceId, SliceId};

use crate::client::{Outcome, RequestRecord};
use crate::milestones::names::Names;
use crate::plot::palette::Look;
use crate::trace::record::WatchKind;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Default)]
pub struct Network {
    services: BTreeMap<ServiceId, String>,
    slices: BTreeMap<SliceId, (ServiceId, Vec<Endpoint>)>,
    /// (Service, pod UID, lane label, states), in order of first appearance.
    endpoints: Vec<(ServiceId, Arc<str>, String, Spans)>,
    proxies: Vec<Lane>,
    clients: Vec<Lane>,
}

impl Network {
    pub fn service(&mut self, id: ServiceId, name: &str) {
        self.services.insert(id, name.to_string());
    }

    pub fn slice(&mut self, t: f64, kind: WatchKind, slice: &ApiSlice, names: &Names) {
        match kind == WatchKind::Deleted || slice.meta.removed {
            true => self.slices.remove(&slice.id),
            false => self.slices.insert(slice.id, (slice.service, slice.content.endpoints.clone())),
        };
        let svc = slice.service;
        let mut now: BTreeMap<Arc<str>, &Endpoint> = BTreeMap::new();
        for (_, (_, eps)) in self.slices.iter().filter(|(_, (s, _))| *s == svc) {
            for e in eps {
                now.insert(e.target.uid.clone(), e);
                if !self.endpoints.iter().any(|(s, uid, ..)| *s == svc && *uid == e.target.uid) {
                    let label = names.pod(&e.target.uid, &e.target.name).to_string();
                    self.endpoints.push((svc, e.target.uid.clone(), label, Spans::default()));
                }
            }
        }
        for (_, uid, _, spans) in self.endpoints.iter_mut().filter(|(s, ..)| *s == svc) {
            spans.set(t, now.get(uid).map(|e| condition(e)));
        }
    }

    pub fn sync(&mut self, t: f64, node: &str) {
        let label = format!("node/{node}");
        match self.proxies.iter_mut().find(|l| l.label == label) {
            Some(lane) => lane.instants.push((t, Look::ProxySync)),
            None => self.proxies.push(Lane { instants: vec![(t, Look::ProxySync)], ..Lane::new(label) }),
        }
    }

    pub fn request(&mut self, r: &RequestRecord) {
        let label = format!("{} → {}", r.client, r.target);
        let dot = (super::model::secs(r.sent), outcome(&r.outcome));
        match self.clients.iter_mut().find(|l| l.label == label) {
            Some(lane) => lane.instants.push(dot),
            None => self.clients.push(Lane { instants: vec![dot], ..Lane::new(label) }),
        }
    }

    /// The groups, every open state ended at `end`.
    pub fn finish(mut self, end: f64) -> Vec<Group> {
        let mut groups = Vec::new();
        for (id, name) in &self.services {
            let lanes: Vec<Lane> = (self.endpoints.iter_mut().filter(|(s, ..)| s == id))
                .map(|(_, _, label, spans)| {
                    spans.close(end);
                    Lane { bars: std::mem::take(&mut spans.bars), ..Lane::new(label.clone()) }
                })
                .collect();
            if !lanes.is_empty() {
                groups.push(Group {
                    title: format!("svc/{name}: endpoints in its EndpointSlices"),
                    object: Some(ObjectKey::Service(*id)),
                    lanes,
                });
            }
        }
        if !self.proxies.is_empty() {
            groups.push(Group {
                title: "kube-proxy: each node's rule syncs".into(),
                object: None,
                lanes: self.proxies,
            });
        }
        if !self.clients.is_empty() {
            let title = "clients: each request, at the time it was sent".into();
            groups.push(Group { title, object: None, lanes: self.clients });
        }
        groups
    }
}

/// An endpoint's conditions as a bar.
fn condition(e: &Endpoint) -> (Look, String) {
    let look = match (e.ready, e.serving, e.terminating) {
        (_, true, true) => Look::EndpointServingTerminating,
        (_, false, true) => Look::EndpointTerminating,
        (true, ..) => Look::EndpointReady,
        _ => Look::EndpointNotReady,
    };
    (look, look.legend().into())
}

fn outcome(o: &Outcome) -> Look {
    match o {
        Outcome::Http { status } if (200..300).contains(status) => Look::Ok,
        Outcome::Http { .. } => Look::HttpError,
        Outcome::Refused(_) => Look::Refused,
        Outcome::Reset => Look::Reset,
        Outcome::NoRoute => Look::NoRoute,
        Outcome::Timeout(_) => Look::Timeout,
        Outcome::NotSent { .. } => Look::NotSent,
    }
}
