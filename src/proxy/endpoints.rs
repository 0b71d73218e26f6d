//! kube-proxy's endpoint list of one Service port, merged from all of the
//! Service's EndpointSlices (pkg/proxy/endpointslicecache.go `addEndpoints`,
//! `endpointsMapFromEndpointInfo`). As `EndpointSliceCache` does, each
//! slice's endpoints are converted once per version of the slice and kept;
//! a sync merges the kept lists in the order `proxy::merge` gives.

use super::merge::{MergeKey, MergeOrders};
use crate::api::endpointslice::{ApiSlice, TargetRef};
use crate::ids::{ServiceId, SliceId};

use crate::cluster::Version;
use crate::informer::Informer;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One endpoint as kube-proxy holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProxyEndpoint {
    pub ip: Arc<str>,
    pub port: u16,
    pub ready: bool,
    pub serving: bool,
    pub terminating: bool,
    /// On the node of this kube-proxy.
    pub local: bool,
    pub target: Option<TargetRef>,
}

impl ProxyEndpoint {
    /// `IP:port`, the key and the sort order.
    pub fn key(&self) -> String {
        format!("{}:{}", self.ip, self.port)
    }

    /// The order of the two `key()`s as strings (so `10.244.0.10` comes
    /// before `10.244.0.2`), without formatting them.
    pub fn key_cmp(&self, other: &ProxyEndpoint) -> Ordering {
        let (a, b) = (self.ip.as_bytes(), other.ip.as_bytes());
        let n = a.len().min(b.len());
        match a[..n].cmp(&b[..n]) {
            Ordering::Equal => {}
            decided => return decided,
        }
        let (mut da, mut db) = ([0; 5], [0; 5]);
        let full = |ip: &[u8], port: &[u8]| ip[n..].iter().chain(b":").chain(port).copied().collect::<Vec<u8>>();
        if a.len() == b.len() {
            return digits(self.port, &mut da).cmp(digits(other.port, &mut db));
        }
        // One address is a prefix of the other: rare enough to compare the rest whole.
        full(a, digits(self.port, &mut da)).cmp(&full(b, digits(other.port, &mut db)))
    }
}

/// `port` in decimal, written into `buf`.
fn digits(mut port: u16, buf: &mut [u8; 5]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (port % 10) as u8;
        port /= 10;
        if port == 0 {
            return &buf[at..];
        }
    }
}

/// One slice as this kube-proxy converted it: per port name (the first
/// port of that name), its endpoints in the slice's order.
#[derive(Debug)]
struct Converted {
    slice: Arc<ApiSlice>,
    ports: Vec<(String, Vec<Arc<ProxyEndpoint>>)>,
}

impl Converted {
    fn new(slice: Arc<ApiSlice>, node: &str) -> Self {
        let mut ports: Vec<(String, Vec<Arc<ProxyEndpoint>>)> = Vec::new();
        for port in &slice.content.ports {
            if ports.iter().any(|(name, _)| *name == port.name) {
                continue;
            }
            let eps = slice
                .content
                .endpoints
                .iter()
                .map(|e| {
                    Arc::new(ProxyEndpoint {
                        ip: e.address.clone(),
                        port: port.port,
                        ready: e.ready,
                        serving: e.serving,
                        terminating: e.terminating,
                        local: e.node.as_deref() == Some(node),
                        target: Some(e.target.clone()),
                    })
                })
                .collect();
            ports.push((port.name.clone(), eps));
        }
        Converted { slice, ports }
    }
}

/// The slices one kube-proxy has converted (`EndpointSliceCache`).
#[derive(Debug, Default)]
pub struct SliceCache {
    slices: BTreeMap<SliceId, Converted>,
}

impl SliceCache {
    /// Brings the cache to the informer's view: a slice converted again
    /// only when its version changed, a gone slice dropped.
    pub fn refresh(&mut self, view: &Informer<ApiSlice>, node: &str) {
        self.slices.retain(|&id, _| view.get(id).is_some());
        for slice in view.list() {
            let current = self.slices.get(&slice.id).is_some_and(|c| Arc::ptr_eq(&c.slice, slice));
            if !current {
                self.slices.insert(slice.id, Converted::new(slice.clone(), node));
            }
        }
    }

    /// The endpoints of the port named `port_name` of `service`: one per
    /// `IP:port`, sorted as strings. A duplicate is resolved as the version
    /// does: from 1.36 a non-terminating entry wins (PR #135593); before,
    /// the first seen (in slice order) wins unless a later one is local.
    pub fn service_port_endpoints(
        &self,
        service: ServiceId,
        port_name: &str,
        version: Version,
        merges: &mut MergeOrders,
    ) -> Vec<Arc<ProxyEndpoint>> {
        let mut key: MergeKey = Vec::new();
        let mut lists: Vec<&[Arc<ProxyEndpoint>]> = Vec::new();
        for c in self.slices.values().filter(|c| c.slice.service == service) {
            if let Some(i) = c.ports.iter().position(|(name, _)| name == port_name) {
                key.push((c.slice.id, c.slice.meta.resource_version, i as u32));
                lists.push(&c.ports[i].1);
            }
        }
        let order = merges.order(key, &lists);
        let mut merged: Vec<Arc<ProxyEndpoint>> = Vec::with_capacity(order.len());
        for m in order.iter() {
            let ep = &lists[m.list as usize][m.at as usize];
            match merged.last_mut() {
                Some(last) if m.same_key => {
                    let replace = match version >= Version::V1_36 {
                        true => !ep.terminating,
                        false => ep.local,
                    };
                    if replace {
                        *last = ep.clone();
                    }
                }
                _ => merged.push(ep.clone()),
            }
        }
        merged
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::meta::Meta;
    use crate::trace::record::WatchKind;

    fn ep(ip: &str, port: u16) -> ProxyEndpoint {
        ProxyEndpoint {
            ip: ip.into(),
            port,
            ready: true,
            serving: true,
            terminating: false,
            local: false,
            target: None,
        }
    }

    /// A slice of `service` whose endpoints are `(ip, node, terminating)`.
    fn slice(id: u32, service: u32, eps: &[(&str, &str, bool)]) -> Arc<ApiSlice> {
        use crate::api::endpointslice::{Endpoint, SliceContent, SlicePort};
        let endpoints = eps
            .iter()
            .enumerate()
            .map(|(i, &(ip, node, terminating))| Endpoint {
                address: ip.into(),
                ready: !terminating,
                serving: true,
                terminating,
                hostname: None,
                node: Some(node.into()),
                target: TargetRef {
                    pod: crate::ids::PodId(id * 100 + i as u32),
                    name: format!("web-{id}-{i}").into(),
                    namespace: "default".into(),
                    uid: format!("uid-{id}-{i}").into(),
                },
            })
            .collect();
        Arc::new(ApiSlice {
            id: SliceId(id),
            meta: Meta::new(format!("slice-{id}").into(), crate::time::SimTime::ZERO, 1),
            name: format!("web-{id}").into(),
            namespace: "default".into(),
            service: ServiceId(service),
            content: SliceContent {
                ports: vec![SlicePort { name: String::new(), port: 80, app_protocol: None }],
                endpoints,
                trigger_time: None,
            },
        })
    }

    #[test]
    fn slices_merge_into_one_sorted_list_without_duplicates() {
        // 10.0.0.1 is in slices 0 and 2: terminating in the first, serving
        // on this node (node-b) in the second. Slice 1 is another Service's.
        let mut view = Informer::default();
        for s in [
            slice(0, 0, &[("10.0.0.2", "node-a", false), ("10.0.0.1", "node-a", true)]),
            slice(1, 1, &[("10.0.0.3", "node-a", false)]),
            slice(2, 0, &[("10.0.0.10", "node-a", false), ("10.0.0.1", "node-b", false)]),
        ] {
            view.apply(WatchKind::Added, &s);
        }
        // One merge order for both nodes, as in a run: what node-b decides
        // must not leak into node-c's list.
        let mut merges = MergeOrders::default();
        let mut cache = SliceCache::default();
        cache.refresh(&view, "node-b");
        let mut list = |version| {
            let eps = cache.service_port_endpoints(ServiceId(0), "", version, &mut merges);
            eps.iter().map(|e| (e.key(), e.terminating, e.local)).collect::<Vec<_>>()
        };
        // As strings, `10.0.0.1:80` sorts after `10.0.0.10:80`.
        let key = |ip: &str| format!("{ip}:80");
        // From 1.36 the non-terminating duplicate wins; before, the first
        // seen unless a later one is local — the same one here.
        for version in [Version::V1_35, Version::V1_36] {
            let want =
                vec![(key("10.0.0.10"), false, false), (key("10.0.0.1"), false, true), (key("10.0.0.2"), false, false)];
            assert_eq!(list(version), want, "{version:?}");
        }
        // On node-c no duplicate is local: before 1.36 the first seen (terminating) stays.
        let mut cache = SliceCache::default();
        cache.refresh(&view, "node-c");
        let eps = cache.service_port_endpoints(ServiceId(0), "", Version::V1_35, &mut merges);
        let got: Vec<(String, bool)> = eps.iter().map(|e| (e.key(), e.terminating)).collect();
        assert_eq!(got, vec![(key("10.0.0.10"), false), (key("10.0.0.1"), true), (key("10.0.0.2"), false)]);
    }

    #[test]
    fn keys_order_as_their_strings() {
        let cases = [
            ("10.244.0.10", 80, "10.244.0.2", 80),
            ("10.244.0.1", 80, "10.244.0.10", 80),
            ("10.244.0.1", 8080, "10.244.0.1", 9),
            ("10.244.0.1", 80, "10.244.0.1", 80),
            ("10.0.0.1", 1, "10.0.0.1:", 0),
            ("fd00::1", 80, "fd00::1:8", 0),
        ];
        for (a, pa, b, pb) in cases {
            let (x, y) = (ep(a, pa), ep(b, pb));
            assert_eq!(x.key_cmp(&y), x.key().cmp(&y.key()), "{a}:{pa} vs {b}:{pb}");
            assert_eq!(y.key_cmp(&x), y.key().cmp(&x.key()), "{b}:{pb} vs {a}:{pa}");
        }
    }
}
