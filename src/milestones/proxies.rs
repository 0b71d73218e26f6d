//! Service milestones from each node's kube-proxy (`Record::ProxySync`):
//! when a node's committed rules first forward the Service, and when they
//! start and stop forwarding to each pod.

use super::found::Found;
use super::names::Names;
use crate::ids::ServiceId;

use crate::proxy::{Action, ProxySync};
use crate::time::SimTime;
use foldhash::HashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Service → the pod subjects its rules forward to.
type Forwarded = BTreeMap<ServiceId, BTreeSet<Arc<str>>>;

#[derive(Default)]
pub struct Proxies {
    /// What each node's last committed sync forwarded.
    nodes: HashMap<Arc<str>, Forwarded>,
}

impl Proxies {
    pub fn see(&mut self, t: SimTime, sync: &ProxySync, names: &Names, found: &mut Found) {
        let node = &sync.node;
        let mut now = Forwarded::new();
        for rule in sync.rules.values() {
            let Action::Forward(endpoints) = &rule.action else { continue };
            if !endpoints.is_empty()
                && let Some(svc) = names.service(rule.service)
            {
                found.first(svc, format_args!("programmed(node/{node})"), t);
            }
            let pods = endpoints.iter().filter_map(|e| e.target.as_ref()).map(|r| names.pod(&r.uid, &r.name));
            now.entry(rule.service).or_default().extend(pods);
        }
        let old = self.nodes.remove(&sync.node).unwrap_or_default();
        let empty = BTreeSet::new();
        let services: BTreeSet<ServiceId> = old.keys().chain(now.keys()).copied().collect();
        for service in services {
            let Some(svc) = names.service(service) else { continue };
            let (before, after) = (old.get(&service).unwrap_or(&empty), now.get(&service).unwrap_or(&empty));
            for pod in after.difference(before) {
                found.first(svc, format_args!("programmed(node/{node},{pod})"), t);
            }
            for pod in before.difference(after) {
                found.first(svc, format_args!("unprogrammed(node/{node},{pod})"), t);
            }
        }
        self.nodes.insert(sync.node.clone(), now);
    }
}
