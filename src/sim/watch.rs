//! Watch delivery: each informer is its own stream from the API server,
//! with the profile's watch latency and in order (a later change never
//! arrives before an earlier one).

use crate::dist::Dist;
use crate::rng::Stream;
use crate::time::SimTime;
use std::borrow::Cow;

/// One informer's watch, registered once: a change is delivered by id, not
/// by looking its name up.
#[derive(Copy, Clone, Debug)]
pub struct Watcher(u32);

struct Watch {
    informer: Cow<'static, str>,
    /// Made at its first change: a watch that never delivers draws nothing.
    rng: Option<Stream>,
    /// When it last delivered.
    last: SimTime,
}

pub struct Watches {
    seed: u64,
    watches: Vec<Watch>,
}

impl Watches {
    pub fn new(seed: u64) -> Self {
        Watches { seed, watches: Vec::new() }
    }

    /// The watch of the informer named `informer`.
    pub fn register(&mut self, informer: impl Into<Cow<'static, str>>) -> Watcher {
        self.watches.push(Watch { informer: informer.into(), rng: None, last: SimTime::ZERO });
        Watcher(self.watches.len() as u32 - 1)
    }

    /// When a change made at `now` reaches `watcher`.
    pub fn due(&mut self, watcher: Watcher, now: SimTime, latency: &Dist) -> SimTime {
        let seed = self.seed;
        let w = &mut self.watches[watcher.0 as usize];
        let rng = w.rng.get_or_insert_with(|| Stream::new(seed, &format!("watch/{}", w.informer)));
        let at = (now + latency.sample(rng)).max(w.last);
        w.last = at;
        at
    }
}

/// The informers of the controllers and kube-proxies.
pub struct Informers {
    pub slice_pods: Watcher,
    pub slice_services: Watcher,
    pub slice_slices: Watcher,
    pub rs_pods: Watcher,
    pub rs_replicasets: Watcher,
    pub deployment_pods: Watcher,
    pub deployment_replicasets: Watcher,
    pub deployment_deployments: Watcher,
    /// Each kube-proxy's (Services, EndpointSlices), in node order.
    pub proxies: Vec<(Watcher, Watcher)>,
}

impl Informers {
    pub fn new(watches: &mut Watches, proxy_nodes: impl Iterator<Item = impl std::fmt::Display>) -> Self {
        let mut kcm = |what: &'static str| watches.register(what);
        let informers = Informers {
            slice_pods: kcm("kube-controller-manager/pods"),
            slice_services: kcm("kube-controller-manager/services"),
            slice_slices: kcm("kube-controller-manager/endpointslices"),
            rs_pods: kcm("kube-controller-manager/replicaset/pods"),
            rs_replicasets: kcm("kube-controller-manager/replicaset/replicasets"),
            deployment_pods: kcm("kube-controller-manager/deployment/pods"),
            deployment_replicasets: kcm("kube-controller-manager/deployment/replicasets"),
            deployment_deployments: kcm("kube-controller-manager/deployment/deployments"),
            proxies: Vec::new(),
        };
        let proxies = proxy_nodes
            .map(|node| {
                let services = watches.register(format!("kube-proxy/{node}/services"));
                (services, watches.register(format!("kube-proxy/{node}/endpointslices")))
            })
            .collect();
        Informers { proxies, ..informers }
    }
}
