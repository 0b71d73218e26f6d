//! Timeline rows for the Service path: the Service, each EndpointSlice
//! endpoint's conditions as they change, each node's kube-proxy rules as
//! they are committed, and each client's requests when what they get changes.

use super::record::{Record, WatchKind};
use super::request_rows::RequestRows;
use super::table::{Row, RowType};
use crate::api::endpointslice::{ApiSlice, Endpoint};
use crate::api::pod::ApiPod;
use crate::api::status::ConditionType;
use crate::proxy::{Action, ProxySync, Rules, ServiceRule};
use crate::time::SimTime;
use foldhash::HashMap;
use std::sync::Arc;

/// What the rows so far have shown.
#[derive(Default)]
pub struct NetworkRows {
    slices: HashMap<Arc<str>, Arc<ApiSlice>>,
    services: HashMap<u32, (String, bool)>,
    programmed: HashMap<Arc<str>, Arc<Rules>>,
    /// The clients' rows, aggregated.
    pub requests: RequestRows,
    /// Per pod UID: its Ready condition now, and when it last turned False
    /// and True (the controller may write from an older view of the pod, so
    /// an endpoint is explained by the last turn to *its* value); and when
    /// its deletion was stored.
    ready_since: HashMap<Arc<str>, (bool, [Option<SimTime>; 2])>,
    deleted_at: HashMap<Arc<str>, SimTime>,
}

impl NetworkRows {
    /// A pod version, for the lags the endpoint rows state.
    pub fn pod(&mut self, t: SimTime, pod: &ApiPod) {
        let ready = pod.status.condition_true(&ConditionType::Ready);
        let (now, turned) = self.ready_since.entry(pod.meta.uid.clone()).or_insert((!ready, [None, None]));
        if *now != ready || turned[ready as usize].is_none() {
            *now = ready;
            turned[ready as usize] = Some(t);
        }
        if pod.meta.deletion.is_some() {
            self.deleted_at.entry(pod.meta.uid.clone()).or_insert(t);
        }
    }

    pub fn rows(&mut self, t: SimTime, record: &Record, out: &mut Vec<Row>) {
        let kind = RowType::of(record);
        let mut push =
            |object: String, what: String, why: String| out.push(Row { t, namespace: None, kind, object, what, why });
        match record {
            Record::Service { svc, .. } => {
                let s = &svc.spec;
                self.services.insert(svc.id.0, (s.name.clone(), s.publish_not_ready_addresses));
                let ports: Vec<String> = s
                    .ports
                    .iter()
                    .map(|p| {
                        let target = match &p.target {
                            crate::spec::PortRef::Number(n) => n.to_string(),
                            crate::spec::PortRef::Name(n) => n.clone(),
                        };
                        format!("port {} → {target}", p.port)
                    })
                    .collect();
                push(format!("service/{}", s.name), format!("created, clusterIP {}", svc.cluster_ip), ports.join(", "));
            }
            Record::Slice { kind, slice } => {
                let object = format!("endpointslice/{}", slice.name);
                let old = self.slices.get(&slice.name).cloned();
                if *kind == WatchKind::Deleted {
                    self.slices.remove(&slice.name);
                    self.serving_changed(slice.service.0);
                    push(object, "deleted".into(), String::new());
                    return;
                }
                self.slices.insert(slice.name.clone(), slice.clone());
                self.serving_changed(slice.service.0);
                let pnra = self.services.get(&slice.service.0).is_some_and(|s| s.1);
                let before: &[Endpoint] = old.as_ref().map_or(&[], |o| &o.content.endpoints);
                if old.is_none() && slice.content.endpoints.is_empty() {
                    push(object.clone(), "created (no endpoints)".into(), "no pod of the Service has an IP yet".into());
                }
                for e in &slice.content.endpoints {
                    let prev = before.iter().find(|b| b.address == e.address && b.target.name == e.target.name);
                    if prev.is_some_and(|p| (p.ready, p.serving, p.terminating) == (e.ready, e.serving, e.terminating))
                    {
                        continue;
                    }
                    let what = format!(
                        "endpoint {} (pod/{}) ready={} serving={} terminating={}",
                        e.address, e.target.name, e.ready, e.serving, e.terminating
                    );
                    push(object.clone(), what, self.endpoint_why(t, e, prev, pnra));
                }
                for b in before {
                    if !slice.content.endpoints.iter().any(|e| e.address == b.address && e.target.name == b.target.name)
                    {
                        let what = format!("endpoint {} (pod/{}) removed", b.address, b.target.name);
                        push(object.clone(), what, "the pod finished, lost its IP or left the Service".into());
                    }
                }
            }
            Record::ProxySync(sync) => {
                let old = self.programmed.insert(sync.node.clone(), sync.rules.clone());
                for (key, rule) in sync.rules.iter() {
                    if old.as_ref().and_then(|o| o.get(key)) == Some(rule) {
                        continue;
                    }
                    push(format!("node/{}", sync.node), format!("kube-proxy: {}", rule_text(rule)), sync_why(t, sync));
                }
                for (key, rule) in old.iter().flat_map(|o| o.iter()) {
                    if !sync.rules.contains_key(key) {
                        let what = format!("kube-proxy: {} no rules", rule.name);
                        push(format!("node/{}", sync.node), what, sync_why(t, sync));
                    }
                }
            }
            Record::Request(r) => self.requests.request(t, r, out),
            _ => {}
        }
    }

    /// Tells the clients of Service `id` which pods its endpoints serve from now.
    fn serving_changed(&mut self, id: u32) {
        let Some((name, _)) = self.services.get(&id) else { return };
        let pods: std::collections::BTreeSet<Arc<str>> = (self.slices.values())
            .filter(|s| s.service.0 == id)
            .flat_map(|s| s.content.endpoints.iter().filter(|e| e.serving).map(|e| e.target.name.clone()))
            .collect();
        self.requests.serving(name, &pods);
    }

    /// `podToEndpoint`'s reading of the pod, and how long after the pod changed.
    fn endpoint_why(&self, t: SimTime, e: &Endpoint, prev: Option<&Endpoint>, pnra: bool) -> String {
        let uid = &e.target.uid;
        let ready_at = self.ready_since.get(uid).and_then(|(_, turned)| turned[e.serving as usize]);
        let serving = match ready_at {
            Some(at) => format!("pod Ready={} since {at}", title(e.serving)),
            None => format!("pod Ready={}", title(e.serving)),
        };
        let terminating = match (e.terminating, self.deleted_at.get(uid)) {
            (true, Some(at)) => format!("deleted at {at}"),
            (true, None) => "deleted".to_string(),
            (false, _) => "not deleted".to_string(),
        };
        let ready =
            if pnra { "publishNotReadyAddresses: ready regardless" } else { "ready = serving and not terminating" };
        // The pod change this row reflects, and the lag since.
        let changed = match prev {
            Some(p) if p.terminating != e.terminating => self.deleted_at.get(uid).copied(),
            Some(p) if p.serving != e.serving => ready_at,
            _ => None,
        };
        let lag = changed.map(|c| format!(" ({} after the pod changed)", t.since(c))).unwrap_or_default();
        format!("{serving}, {terminating}: {ready}{lag}")
    }
}

fn title(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

fn rule_text(r: &ServiceRule) -> String {
    match &r.action {
        Action::Reject => format!("{} REJECT (no endpoints)", r.name),
        Action::Drop => format!("{} DROP (no local endpoints)", r.name),
        Action::Forward(eps) => {
            let mut list: Vec<String> = eps.iter().take(3).map(|e| e.key()).collect();
            if eps.len() > 3 {
                list.push(format!("+{} more", eps.len() - 3));
            }
            let affinity = if r.affinity.is_some() { " (ClientIP affinity)" } else { "" };
            format!("{} → {}{affinity}", r.name, list.join(", "))
        }
    }
}

fn sync_why(t: SimTime, s: &ProxySync) -> String {
    let kind = if s.full { "full" } else { "partial" };
    format!("{kind} sync started {}, iptables-restore done {} later", s.started, t.since(s.started))
}
