//! `proxy-after-slice`: kube-proxy learns endpoints only from EndpointSlices
//! (pkg/proxy/endpointslicecache.go `updatePending`, read by
//! `syncProxyRules`), so a sync forwards to an address only after the
//! controller wrote a slice of that Service holding it under that port.

use super::origin;
use crate::api::service::ApiService;
use crate::ids::ServiceId;
use crate::invariants::report::Tally;
use crate::proxy::Action;
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::record::{Record, WatchKind};
use foldhash::{HashMap, HashMapExt};
use std::collections::BTreeMap;
use std::sync::Arc;

/// (Service, port name, IP, port number): one endpoint of one Service port.
type Address = (ServiceId, String, Arc<str>, u16);

pub fn judge(trace: &Trace) -> Tally {
    let mut t = Tally::default();
    let mut services: BTreeMap<ServiceId, Arc<ApiService>> = BTreeMap::new();
    // When a slice first held each address.
    let mut written: HashMap<Address, SimTime> = HashMap::new();
    for (i, e) in trace.entries.iter().enumerate() {
        match &e.record {
            Record::Service { svc, .. } => {
                services.insert(svc.id, svc.clone());
            }
            Record::Slice { kind, slice } if *kind != WatchKind::Deleted => {
                for p in &slice.content.ports {
                    for ep in &slice.content.endpoints {
                        let address = (slice.service, p.name.clone(), ep.address.clone(), p.port);
                        written.entry(address).or_insert(e.t);
                    }
                }
            }
            Record::ProxySync(sync) => {
                for ((_, port), rule) in sync.rules.iter() {
                    let Action::Forward(eps) = &rule.action else { continue };
                    let name = services.get(&rule.service).and_then(|s| s.spec.ports.iter().find(|p| p.port == *port));
                    for ep in eps {
                        let first = name.and_then(|p| {
                            written.get(&(rule.service, p.name.clone(), ep.ip.clone(), ep.port)).copied()
                        });
                        match first {
                            Some(w) if w <= sync.started => t.hold(),
                            _ => t.violate(
                                &[&origin(i)],
                                format!(
                                    "{} on {} forwards to {} only once a slice held it (sync started {})",
                                    rule.name,
                                    sync.node,
                                    ep.key(),
                                    sync.started
                                ),
                                match first {
                                    Some(w) => format!("first in a slice at {w}"),
                                    None => "in no slice of that Service port".into(),
                                },
                            ),
                        }
                    }
                }
            }
            _ => {}
        }
    }
    t
}
