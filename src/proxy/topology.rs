//! Which endpoints get a node's traffic (pkg/proxy/topology.go
//! `CategorizeEndpoints`). Topology hints are never set in podsim's
//! clusters (no zone labels), so they play no part.

use super::endpoints::ProxyEndpoint;
use crate::spec::TrafficPolicy;
use std::sync::Arc;

/// What a new connection to the cluster IP meets on this node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// DNAT to one of these, chosen at random (1/n each). Shared with the
    /// kube-proxy's cache: a trace of many syncs holds each endpoint once.
    Forward(Vec<Arc<ProxyEndpoint>>),
    /// No usable endpoint anywhere: `REJECT` (the client sees connection refused).
    Reject,
    /// `internalTrafficPolicy: Local` with usable endpoints elsewhere but none
    /// here: `DROP` (the client times out).
    Drop,
}

/// Ready endpoints; if none, the serving terminating ones. With the Local
/// policy the same choice among this node's endpoints alone.
pub fn categorize(endpoints: &[Arc<ProxyEndpoint>], policy: TrafficPolicy) -> Action {
    let pick = |local_only: bool| {
        let eligible = |e: &&Arc<ProxyEndpoint>| !local_only || e.local;
        let ready: Vec<Arc<ProxyEndpoint>> = endpoints.iter().filter(eligible).filter(|e| e.ready).cloned().collect();
        if !ready.is_empty() {
            return ready;
        }
        endpoints.iter().filter(eligible).filter(|e| e.serving && e.terminating).cloned().collect()
    };
    let cluster = pick(false);
    if cluster.is_empty() {
        return Action::Reject;
    }
    match policy {
        TrafficPolicy::Cluster => Action::Forward(cluster),
        TrafficPolicy::Local => match pick(true) {
            local if local.is_empty() => Action::Drop,
            local => Action::Forward(local),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(ip: &str, ready: bool, serving: bool, terminating: bool, local: bool) -> Arc<ProxyEndpoint> {
        Arc::new(ProxyEndpoint { ip: Arc::from(ip), port: 80, ready, serving, terminating, local, target: None })
    }

    #[test]
    fn ready_endpoints_first_then_serving_terminating_ones() {
        let a = ep("10.0.0.1", true, true, false, false);
        let b = ep("10.0.0.2", false, true, true, false);
        assert_eq!(categorize(&[a.clone(), b.clone()], TrafficPolicy::Cluster), Action::Forward(vec![a]));
        assert_eq!(categorize(std::slice::from_ref(&b), TrafficPolicy::Cluster), Action::Forward(vec![b]));
        let gone = ep("10.0.0.3", false, false, true, false);
        assert_eq!(categorize(&[gone], TrafficPolicy::Cluster), Action::Reject);
        let unready = ep("10.0.0.4", false, false, false, true);
        assert_eq!(categorize(&[unready], TrafficPolicy::Local), Action::Reject);
    }

    #[test]
    fn local_policy_drops_without_a_local_endpoint_and_prefers_local_terminating_ones() {
        let remote = ep("10.0.1.1", true, true, false, false);
        assert_eq!(categorize(std::slice::from_ref(&remote), TrafficPolicy::Local), Action::Drop);
        let local_terminating = ep("10.0.0.1", false, true, true, true);
        assert_eq!(
            categorize(&[remote, local_terminating.clone()], TrafficPolicy::Local),
            Action::Forward(vec![local_terminating])
        );
    }
}
