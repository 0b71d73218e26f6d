//! kube-proxy's endpoint list of one Service port, merged from all of the
//! Service's EndpointSlices (pkg/proxy/endpointslicecache.go `addEndpoints`,
//! `endpointsMapFromEndpointInfo`).

use crate::api::endpointslice::{ApiSlice, TargetRef};
use crate::cluster::Version;
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
}

/// The endpoints of the port named `port_name`: one per `IP:port`, sorted as
/// strings (so `10.244.0.10` comes before `10.244.0.2`). A duplicate is
/// resolved as the version does: from 1.36 a non-terminating entry wins
/// (PR #135593); before, the first seen wins unless a later one is local.
pub fn service_port_endpoints<'a>(
    slices: impl Iterator<Item = &'a ApiSlice>,
    port_name: &str,
    node: &str,
    version: Version,
) -> Vec<ProxyEndpoint> {
    let mut set: BTreeMap<String, ProxyEndpoint> = BTreeMap::new();
    for slice in slices {
        let Some(port) = slice.content.ports.iter().find(|p| p.name == port_name) else { continue };
        for e in &slice.content.endpoints {
            let ep = ProxyEndpoint {
                ip: e.address.clone(),
                port: port.port,
                ready: e.ready,
                serving: e.serving,
                terminating: e.terminating,
                local: e.node.as_deref() == Some(node),
                target: Some(e.target.clone()),
            };
            let replace = match set.get(&ep.key()) {
                None => true,
                Some(_) if version >= Version::V1_36 => !ep.terminating,
                Some(_) => ep.local,
            };
            if replace {
                set.insert(ep.key(), ep);
            }
        }
    }
    set.into_values().collect()
}
