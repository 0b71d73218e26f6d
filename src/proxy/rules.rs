//! The rules one sync programs (pkg/proxy/iptables/proxier.go
//! `syncProxyRules`), and what they do to a new connection: the filter
//! table's REJECT and DROP, the nat table's random choice
//! (`-m statistic --mode random --probability 1/(n-i)`, so 1/n each), and
//! ClientIP affinity (`-m recent --rcheck --seconds T` per endpoint, in
//! order, before the random rules).

use super::endpoints::ProxyEndpoint;
use super::topology::Action;
use crate::ids::ServiceId;

use crate::rng::Stream;
use crate::time::{SimDuration, SimTime};
use foldhash::{HashMap, HashSet};
use std::collections::BTreeMap;
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
        endpoint: Arc<ProxyEndpoint>,
        rule: String,
        sticky: bool,
    },
}

/// The kernel's `recent` lists: one per endpoint chain, and a Service port's
/// endpoint chains are its own (`servicePortEndpointChainName` hashes the
/// port name with the endpoint), so the same pod behind two ports, or two
/// Services, keeps a separate list for each. Key: (rule name, endpoint, client).
#[derive(Debug, Default)]
pub struct Affinity {
    seen: HashMap<(String, String, Arc<str>), SimTime>,
}

impl Affinity {
    /// After a commit: a list no rule references any more is destroyed with its
    /// entries (xt_recent's `recent_mt_destroy` frees a table at refcount 0), so
    /// an endpoint that leaves and comes back starts with no client.
    pub fn retain(&mut self, rules: &Rules) {
        let live: HashSet<(&str, String)> = rules
            .values()
            .filter(|r| r.affinity.is_some())
            .filter_map(|r| match &r.action {
                Action::Forward(eps) => Some(eps.iter().map(move |e| (r.name.as_str(), e.key()))),
                _ => None,
            })
            .flatten()
            .collect();
        self.seen.retain(|(rule, ep, _), _| live.contains(&(rule.as_str(), ep.clone())));
    }
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
    let key = |e: &ProxyEndpoint| (name.clone(), e.key(), client.clone());
    // `-m recent --rcheck --seconds T` on each endpoint chain's list, in order.
    if let Some(timeout) = rule.affinity {
        let sticky = endpoints.iter().find(|e| affinity.seen.get(&key(e)).is_some_and(|t| now.since(*t) <= timeout));
        if let Some(e) = sticky {
            affinity.seen.insert(key(e), now);
            return Route::To { endpoint: e.clone(), rule: name, sticky: true };
        }
    }
    let e = &endpoints[rng.below(endpoints.len() as u64) as usize];
    // The endpoint chain's `-m recent --set`.
    if rule.affinity.is_some() {
        affinity.seen.insert(key(e), now);
    }
    Route::To { endpoint: e.clone(), rule: name, sticky: false }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(ip: &str, port: u16) -> Arc<ProxyEndpoint> {
        Arc::new(ProxyEndpoint {
            ip: ip.into(),
            port,
            ready: true,
            serving: true,
            terminating: false,
            local: true,
            target: None,
        })
    }

    fn rule(name: &str, eps: Vec<Arc<ProxyEndpoint>>) -> ServiceRule {
        ServiceRule {
            service: ServiceId(0),
            name: name.into(),
            action: Action::Forward(eps),
            affinity: Some(SimDuration::from_secs(10800)),
        }
    }

    const VIP: Ipv4Addr = Ipv4Addr::new(10, 96, 0, 10);

    /// Two pods behind two ports; the client's pick on each port.
    fn picks(rules: &Rules, affinity: &mut Affinity, at: SimTime, rng: &mut Stream) -> (String, bool, String, bool) {
        let client: Arc<str> = "10.0.0.9".into();
        let mut one = |port| match route(rules, VIP, port, &client, affinity, at, rng) {
            Route::To { endpoint, sticky, .. } => (endpoint.ip.to_string(), sticky),
            other => panic!("{other:?}"),
        };
        let (a, sa) = one(80);
        let (b, sb) = one(81);
        (a, sa, b, sb)
    }

    fn two_ports(ips: &[&str]) -> Rules {
        let mut rules = Rules::new();
        rules.insert((VIP, 80), rule("ns/web:http", ips.iter().map(|ip| ep(ip, 8080)).collect()));
        rules.insert((VIP, 81), rule("ns/web:admin", ips.iter().map(|ip| ep(ip, 9090)).collect()));
        rules
    }

    #[test]
    fn each_service_port_keeps_its_own_recent_lists() {
        let rules = two_ports(&["10.244.1.2", "10.244.1.3"]);
        let mut affinity = Affinity::default();
        let mut rng = Stream::new(3, "kernel");
        let t0 = SimTime::ZERO + SimDuration::from_secs(1);
        let (a, sa, b, sb) = picks(&rules, &mut affinity, t0, &mut rng);
        assert!(!sa && !sb, "the first connection on each port is a random pick");
        // Later connections stay on each port's first pick, within the timeout.
        for s in 2..40 {
            let t = SimTime::ZERO + SimDuration::from_secs(s);
            assert_eq!(picks(&rules, &mut affinity, t, &mut rng), (a.clone(), true, b.clone(), true));
        }
        // One list per (port, endpoint): the two ports' picks are independent
        // draws, so over seeds both "same pod" and "different pods" happen.
        let differ = (0..32u64).any(|seed| {
            let mut aff = Affinity::default();
            let (a, _, b, _) = picks(&rules, &mut aff, t0, &mut Stream::new(seed, "kernel"));
            a != b
        });
        assert!(differ, "a pick on port 80 must not pin port 81");
    }

    #[test]
    fn the_timeout_ends_stickiness() {
        let rules = two_ports(&["10.244.1.2", "10.244.1.3"]);
        let mut affinity = Affinity::default();
        let mut rng = Stream::new(1, "kernel");
        let t0 = SimTime::ZERO;
        picks(&rules, &mut affinity, t0, &mut rng);
        let within = t0 + SimDuration::from_secs(10800);
        assert!(picks(&rules, &mut affinity, within, &mut rng).1, "--seconds 10800 still matches at 10800 s");
        let after = within + SimDuration::from_secs(10801);
        assert!(!picks(&rules, &mut affinity, after, &mut rng).1, "a list entry older than the timeout does not match");
    }

    #[test]
    fn an_endpoint_that_leaves_the_rules_loses_its_clients() {
        let both = two_ports(&["10.244.1.2"]);
        let mut affinity = Affinity::default();
        let mut rng = Stream::new(1, "kernel");
        let t = |s| SimTime::ZERO + SimDuration::from_secs(s);
        picks(&both, &mut affinity, t(0), &mut rng);
        assert!(picks(&both, &mut affinity, t(1), &mut rng).1);
        // A sync without the endpoint destroys its lists; it comes back fresh.
        let other = two_ports(&["10.244.1.3"]);
        affinity.retain(&other);
        affinity.retain(&both);
        assert!(!picks(&both, &mut affinity, t(2), &mut rng).1);
    }
}
