//! Service milestones from each node's kube-proxy (`Record::ProxySync`):
//! when a node's committed rules first forward the Service, and when they
//! start and stop forwarding to each pod.

use super::found::Found;
use super::names::Names;
use crate::ids::ServiceId;

use crate::proxy::{Action, ProxySync, Rules, ServiceRule};
use crate::time::SimTime;
use foldhash::HashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Service → the pod subjects its rules forward to.
type Forwarded = BTreeMap<ServiceId, BTreeSet<Arc<str>>>;

#[derive(Default)]
pub struct Proxies {
    /// What each node's last committed sync forwarded, and its rules.
    nodes: HashMap<Arc<str>, (Forwarded, Arc<Rules>)>,
}

impl Proxies {
    pub fn see(&mut self, t: SimTime, sync: &ProxySync, names: &Names, found: &mut Found) {
        let node = &sync.node;
        let (old, last) = self.nodes.remove(&sync.node).unwrap_or_default();
        // Most syncs change endpoints' conditions, not which pods a rule
        // forwards to: then every milestone below was offered already.
        if same_targets(&last, &sync.rules) {
            self.nodes.insert(sync.node.clone(), (old, sync.rules.clone()));
            return;
        }
        let mut now = Forwarded::new();
        for rule in sync.rules.values() {
            let Action::Forward(endpoints) = &rule.action else { continue };
            // Offered at this node's last sync already when it forwarded then.
            if !endpoints.is_empty()
                && old.get(&rule.service).is_none_or(|o| o.is_empty())
                && let Some(svc) = names.service(rule.service)
            {
                found.first(svc, format_args!("programmed(node/{node})"), t);
            }
            let pods = endpoints.iter().filter_map(|e| e.target.as_ref()).map(|r| names.pod(&r.uid, &r.name));
            now.entry(rule.service).or_default().extend(pods);
        }
        let empty = BTreeSet::new();
        let services: BTreeSet<ServiceId> = old.keys().chain(now.keys()).copied().collect();
        for service in services {
            let Some(svc) = names.service(service) else { continue };
            let (before, after) = (old.get(&service).unwrap_or(&empty), now.get(&service).unwrap_or(&empty));
            if before == after {
                continue;
            }
            for pod in after.difference(before) {
                found.first(svc, format_args!("programmed(node/{node},{pod})"), t);
            }
            for pod in before.difference(after) {
                found.first(svc, format_args!("unprogrammed(node/{node},{pod})"), t);
            }
        }
        self.nodes.insert(sync.node.clone(), (now, sync.rules.clone()));
    }
}

/// The two syncs' rules forward the same Services' ports to the same pods, in the same order.
fn same_targets(a: &Rules, b: &Rules) -> bool {
    fn targets(r: &ServiceRule) -> Option<impl Iterator<Item = Option<&Arc<str>>>> {
        match &r.action {
            Action::Forward(eps) => Some(eps.iter().map(|e| e.target.as_ref().map(|t| &t.uid))),
            _ => None,
        }
    }
    a.len() == b.len()
        && a.iter().zip(b).all(|((ka, ra), (kb, rb))| {
            ka == kb
                && ra.service == rb.service
                && match (targets(ra), targets(rb)) {
                    (Some(x), Some(y)) => x.eq(y),
                    (None, None) => true,
                    _ => false,
                }
        })
}
