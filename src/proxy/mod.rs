//! kube-proxy on one node (iptables mode): its own informer view of
//! Services and EndpointSlices, a sync loop that turns that view into rules
//! some time after each change, and the rules a new connection from this
//! node meets.

mod endpoints;
mod merge;
mod rules;
mod runner;
mod topology;

pub use endpoints::{ProxyEndpoint, SliceCache};
pub use merge::MergeOrders;
pub use rules::{Affinity, Route, Rules, ServiceRule, route};
pub use runner::Runner;
pub use topology::{Action, categorize};

use crate::api::endpointslice::ApiSlice;
use crate::api::service::ApiService;
use crate::api::store::{Kind, Watch};
use crate::cluster::Cluster;
use crate::control::runtime::Watching;
use crate::engine::{Ctx, Outbox};
use crate::informer::Informer;
use crate::rng::{Label, Stream, What};
use crate::time::SimTime;
use crate::trace::Record;
use crate::trace::record::WatchKind;
use runner::{MAX_INTERVAL, Next};
use std::sync::Arc;

/// What reaches one kube-proxy.
#[derive(Debug)]
pub enum Ev {
    Service(WatchKind, Arc<ApiService>),
    Slice(WatchKind, Arc<ApiSlice>),
    /// The runner's scheduled start is due.
    Start,
    /// The running sync's `iptables-restore` committed.
    Done,
    /// The hourly timer armed after run `generation`.
    Hourly(u64),
}

/// Its informers (the Service and EndpointSlice config of `NewProxier`).
impl Watching for KubeProxy {
    type Ev = Ev;
    const WATCHES: &'static [Watch] = &[(Kind::Service, "services"), (Kind::EndpointSlice, "endpointslices")];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Service { kind, svc } => Some(Ev::Service(*kind, svc.clone())),
            Record::Slice { kind, slice } => Some(Ev::Slice(*kind, slice.clone())),
            _ => None,
        }
    }
}

/// One finished sync, as the trace records it.
#[derive(Clone, Debug)]
pub struct ProxySync {
    pub node: Arc<str>,
    pub started: SimTime,
    pub full: bool,
    /// Endpoints in the node's whole view (what the sync time grows with).
    pub endpoints: usize,
    pub rules: Arc<Rules>,
}

/// A sync between its start and its commit.
#[derive(Debug)]
struct Running {
    started: SimTime,
    full: bool,
    endpoints: usize,
    rules: Rules,
}

/// Above this many endpoints kube-proxy is in large-cluster mode
/// (`largeClusterEndpointsThreshold`); from 1.37 it then skips the hourly
/// full sync (PR #138571), before that it only shortens rule comments.
const LARGE_CLUSTER: usize = 1000;

pub struct KubeProxy {
    pub node: Arc<str>,
    cluster: Arc<Cluster>,
    services: Informer<ApiService>,
    slices: Informer<ApiSlice>,
    /// The slices' endpoints as of the last sync.
    cache: SliceCache,
    runner: Runner,
    running: Option<Running>,
    /// What the kernel holds now: the rules of the last committed sync.
    pub rules: Arc<Rules>,
    pub affinity: Affinity,
    /// The node kernel's draws for `-m statistic --mode random`.
    pub kernel: Stream,
    /// kube-proxy has run long before the simulation starts: its last full
    /// sync was some time in the past hour.
    next_full: SimTime,
    large_cluster: bool,
    rng: Stream,
}

impl KubeProxy {
    pub fn new(node: Arc<str>, cluster: Arc<Cluster>, seed: u64) -> Self {
        let mut rng = Stream::new(seed, &format!("kube-proxy/{node}"));
        let label = || Label::new(What::Phase, format!("node/{node}")).with("full sync");
        let next_full = SimTime::ZERO + rng.phase(MAX_INTERVAL, label);
        KubeProxy {
            node: node.clone(),
            cluster,
            services: Informer::default(),
            slices: Informer::default(),
            cache: SliceCache::default(),
            runner: Runner::default(),
            running: None,
            rules: Arc::new(Rules::new()),
            affinity: Affinity::default(),
            kernel: Stream::new(seed, &format!("kernel/{node}")),
            next_full,
            large_cluster: false,
            rng,
        }
    }

    /// `merges`: the merge orders all kube-proxies of the run share.
    pub fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Ev>>, merges: &mut MergeOrders) {
        let now = ctx.q.now();
        let next = match ev {
            // `OnServiceAdd/Update/Delete`, `OnEndpointSliceAdd/Update/Delete`: a change asks for a sync.
            Ev::Service(kind, svc) => {
                self.services.apply(kind, &svc);
                self.runner.request(now)
            }
            // Its informers select `!service.kubernetes.io/headless`: a headless
            // Service's slices never reach it (cmd/kube-proxy server.go).
            Ev::Slice(_, slice) if self.services.get(slice.service).is_some_and(|s| s.spec.headless) => Next::Nothing,
            Ev::Slice(kind, slice) => {
                self.slices.apply(kind, &slice);
                self.runner.request(now)
            }
            Ev::Start => match self.runner.due(now) {
                true => Next::StartNow,
                false => Next::Nothing,
            },
            Ev::Done => self.commit(ctx),
            Ev::Hourly(generation) => self.runner.hourly(generation, now),
        };
        match next {
            Next::Nothing => {}
            Next::StartNow => self.start(ctx, merges),
            Next::WakeAt(t) => ctx.q.at(t, Ev::Start),
        }
    }

    /// `syncProxyRules`: read the view now, commit after the sync time.
    fn start(&mut self, ctx: &mut Ctx<'_, impl Outbox<Ev>>, merges: &mut MergeOrders) {
        let now = ctx.q.now();
        let (rules, endpoints) = self.compute(merges);
        let skip_full = self.large_cluster && self.cluster.version >= crate::cluster::Version::V1_37;
        let full = now >= self.next_full && !skip_full;
        let cfg = &self.cluster.kube_proxy;
        let per = if full { cfg.full_sync_time_per_endpoint } else { cfg.sync_time_per_endpoint };
        let label = || Label::new(What::ProxySync, format!("node/{}", self.node));
        let took = cfg.sync_time.sample(&mut self.rng, label) + per.times(endpoints);
        self.running = Some(Running { started: now, full, endpoints, rules });
        ctx.q.after(took, Ev::Done);
    }

    /// The rules for the current view: per Service port, its endpoints and
    /// what new connections meet; and the number of endpoints (`totalEndpoints`).
    fn compute(&mut self, merges: &mut MergeOrders) -> (Rules, usize) {
        self.cache.refresh(&self.slices, &self.node);
        let mut rules = Rules::new();
        let mut total = 0;
        // ShouldSkipService: a headless Service has no cluster IP to program.
        for svc in self.services.list().filter(|s| !s.spec.headless) {
            for p in &svc.spec.ports {
                let eps = self.cache.service_port_endpoints(svc.id, &p.name, self.cluster.version, merges);
                total += eps.len();
                let name = match p.name.as_str() {
                    "" => format!("{}/{}", svc.spec.namespace, svc.spec.name),
                    n => format!("{}/{}:{n}", svc.spec.namespace, svc.spec.name),
                };
                let rule = ServiceRule {
                    service: svc.id,
                    name,
                    action: categorize(&eps, svc.spec.internal_traffic_policy),
                    affinity: svc.spec.affinity,
                };
                rules.insert((svc.cluster_ip, p.port), rule);
            }
        }
        (rules, total)
    }

    /// `iptables-restore` committed: the kernel holds the new rules.
    fn commit(&mut self, ctx: &mut Ctx<'_, impl Outbox<Ev>>) -> Next {
        let now = ctx.q.now();
        let Some(run) = self.running.take() else { return Next::Nothing };
        self.rules = Arc::new(run.rules);
        self.affinity.retain(&self.rules);
        if run.full {
            self.next_full = now + MAX_INTERVAL;
        }
        self.large_cluster = run.endpoints > LARGE_CLUSTER;
        let sync = ProxySync {
            node: self.node.clone(),
            started: run.started,
            full: run.full,
            endpoints: run.endpoints,
            rules: self.rules.clone(),
        };
        ctx.trace.push(now, Record::ProxySync(Arc::new(sync)));
        let label = || Label::new(What::ProxyMinSyncPeriod, format!("node/{}", self.node));
        let min = self.cluster.kube_proxy.min_sync_period.sample(&mut self.rng, label);
        let next = self.runner.finished(now, min);
        ctx.q.at(now + MAX_INTERVAL, Ev::Hourly(self.runner.generation));
        next
    }
}
