//! kube-proxy's endpoint list of one Service port, merged from all of the
//! Service's EndpointSlices (pkg/proxy/endpointslicecache.go `addEndpoints`,
//! `endpointsMapFromEndpointInfo`). As `EndpointSliceCache` does, each
//! slice's endpoints are converted once per version of the slice and kept;
//! a sync merges the kept lists.

use crate::api::endpointslice::{ApiSlice, SliceId, TargetRef};
use crate::api::service::ServiceId;
use crate::cluster::Version;
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
/// port of that name), its endpoints sorted by key, equal keys in the
/// slice's order.
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
            let mut eps: Vec<Arc<ProxyEndpoint>> = slice
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
            eps.sort_by(|a, b| a.key_cmp(b));
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
    pub fn refresh(&mut self, view: &BTreeMap<SliceId, Arc<ApiSlice>>, node: &str) {
        self.slices.retain(|id, _| view.contains_key(id));
        for (id, slice) in view {
            let current = self.slices.get(id).is_some_and(|c| Arc::ptr_eq(&c.slice, slice));
            if !current {
                self.slices.insert(*id, Converted::new(slice.clone(), node));
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
    ) -> Vec<Arc<ProxyEndpoint>> {
        let mut seen: Vec<&Arc<ProxyEndpoint>> = self
            .slices
            .values()
            .filter(|c| c.slice.service == service)
            .filter_map(|c| c.ports.iter().find(|(name, _)| name == port_name))
            .flat_map(|(_, eps)| eps)
            .collect();
        // Stable: equal keys stay in slice order, then in each slice's order.
        seen.sort_by(|a, b| a.key_cmp(b));
        let mut merged: Vec<Arc<ProxyEndpoint>> = Vec::with_capacity(seen.len());
        for ep in seen {
            match merged.last_mut() {
                Some(last) if last.key_cmp(ep) == Ordering::Equal => {
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
