//! The rules one sync programs (pkg/proxy/iptables/proxier.go
//! `syncProxyRules`), and what they do to a new connection: the filter
//! table's REJECT and DROP, the nat table's random choice
//! (`-m statistic --mode random --probability 1/(n-i)`, so 1/n each), and
//! ClientIP affinity (`-m recent --rcheck --seconds T` per endpoint, in
//! order, before the random rules).

use super::endpoints::ProxyEndpoint;
use super::topology::Action;
use crate::api::service::ServiceId;
use crate::rng::Stream;
use crate::time::{SimDuration, SimTime};
use std::collections::{BTreeMap, HashMap};
use std::net::Ipv4Addr;
use std::sync::Arc;

/// The rules of one Service port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceRule {
    pub service: ServiceId,
    /// `namespace/name:port-name`, as kube-proxy names it in rule comments.
    pub name: String,
    pub action: Action,
    /// `sessionAffinity: ClientIP` timeout.
    pub affinity: Option<SimDuration>,
}

/// Everything a node forwards, by cluster IP and port.
pub type Rules = BTreeMap<(Ipv4Addr, u16), ServiceRule>;

/// Where a new connection goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// No rule for this address: the SYN follows the default route and is lost.
    NotProgrammed,
    Reject {
        rule: String,
    },
    Drop {
        rule: String,
    },
    To {
        endpoint: ProxyEndpoint,
        rule: String,
        sticky: bool,
    },
}

/// The kernel's `recent` lists: when each client was last sent to each endpoint.
#[derive(Debug, Default)]
pub struct Affinity {
    seen: HashMap<(String, Arc<str>), SimTime>,
}

/// The route of a new connection from `client` to `ip:port`.
pub fn route(
    rules: &Rules,
    ip: Ipv4Addr,
    port: u16,
    client: &Arc<str>,
    affinity: &mut Affinity,
    now: SimTime,
    rng: &mut Stream,
) -> Route {
    let Some(rule) = rules.get(&(ip, port)) else { return Route::NotProgrammed };
    let name = rule.name.clone();
    let endpoints = match &rule.action {
        Action::Reject => return Route::Reject { rule: name },
        Action::Drop => return Route::Drop { rule: name },
        Action::Forward(eps) => eps,
    };
    if let Some(timeout) = rule.affinity {
        let sticky = endpoints
            .iter()
            .find(|e| affinity.seen.get(&(e.key(), client.clone())).is_some_and(|t| now.since(*t) <= timeout));
        if let Some(e) = sticky {
            affinity.seen.insert((e.key(), client.clone()), now);
            return Route::To { endpoint: e.clone(), rule: name, sticky: true };
        }
    }
    let e = &endpoints[rng.below(endpoints.len() as u64) as usize];
    if rule.affinity.is_some() {
        affinity.seen.insert((e.key(), client.clone()), now);
    }
    Route::To { endpoint: e.clone(), rule: name, sticky: false }
}
