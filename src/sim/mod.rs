//! The world of one run: the API server, the scheduler, each node's kubelet
//! and kube-proxy, the EndpointSlice controller and the clients, exchanging
//! messages through one event queue that owns time.

mod claims;
mod collector;
mod config;
mod daemonsets;
mod disruption;
mod drain;
mod jobs;
mod network;
mod node_join;
mod node_loss;
mod node_restart;
mod nodes;
mod profile;
mod routes;

pub use crate::ids::{NodeId, PodId};
pub use disruption::PodRef;
pub use profile::{Cost, Profile, clock_cost};
mod scheduling;
mod services;
mod statefulsets;
mod watch;
mod workloads;

use crate::api::ApiServer;
use crate::api::config::ConfigObject;
use crate::api::meta::Propagation;
use crate::api::pod_patch::PodPatch;
use crate::api::status::{Condition, ConditionType, PodStatus};
use crate::api::store::Kind;
use crate::app::Behaviours;
use crate::budget::{Exhausted, Limit};
use crate::client::{Answered, Client, Silence};
use crate::cluster::Cluster;
use crate::control::deployment as deploy;
use crate::control::endpointslice as eps;
use crate::control::garbagecollector as gc;
use crate::control::nodelifecycle;
use crate::control::readiness_gate::{Controllers, GatePatch};
use crate::control::replicaset as rs;
use crate::control::runtime::Controller;
use crate::control::scheduler::{self, Scheduler};
use crate::control::tainteviction;
use crate::engine::{Ctx, Queue, Routed};
use crate::kubelet::config::PodConfig;
use crate::kubelet::{self, Kubelet};
use crate::proxy::{self, KubeProxy};
use crate::rng::{Label, Stream, What};
use crate::scenario::GateController;
use crate::scenario::actions::{OwnerKind, Signal};
use crate::spec::{ClaimSpec, DeploymentSpec, PodSpec, ReplicaSetSpec, ServiceSpec};
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::{ApiEvent, EventSource, Involved, WatchKind, event_ns};
use crate::trace::{Keep, Trace};
use std::sync::Arc;

/// Messages between components.
#[derive(Debug)]
pub enum Ev {
    /// The scenario creates a pod.
    Create(Arc<PodSpec>),
    /// The scenario creates a PersistentVolumeClaim.
    CreateClaim(Arc<ClaimSpec>),
    /// Claim `i`'s volume is provisioned and the PV controller binds it.
    ClaimBound(usize),
    /// A message to the scheduler.
    Scheduler(scheduler::Ev),
    /// A kubelet's status PATCH reaches the API server (`run`: which run
    /// of the kubelet process sent it).
    PatchStatus { pod: PodId, node: NodeId, run: u32, status: Box<PodStatus> },
    /// A message to the kubelet of a node, sent to its `run`-th run (a
    /// restarted kubelet gets none of the messages meant for the process before).
    Kubelet(NodeId, u32, kubelet::Ev),
    /// A scenario action is due (its index in the setup's list).
    Action(usize),
    /// The kubelet's final DELETE of a finished pod reaches the API server.
    DeletePod { pod: PodId, uid: Arc<str> },
    /// A readiness-gate controller's status PATCH reaches the API server.
    GatePatch(GatePatch),
    /// The scenario creates a Service.
    CreateService(Arc<ServiceSpec>),
    /// A message to the EndpointSlice controller.
    SliceController(eps::Ev),
    /// A write of the EndpointSlice controller reaches the API server
    /// (boxed, as are other large variants: every event moves through the heap).
    SliceWrite(Box<eps::Request>),
    /// A message to the kube-proxy of a node.
    Proxy(NodeId, proxy::Ev),
    /// The scenario creates a ReplicaSet.
    CreateReplicaSet(Arc<ReplicaSetSpec>),
    /// A message to the ReplicaSet controller.
    RsController(rs::Ev),
    /// A write of the ReplicaSet controller reaches the API server.
    RsWrite(rs::Write),
    /// The scenario creates (or, when one of that name exists, updates) a Deployment.
    ApplyDeployment(Arc<DeploymentSpec>),
    /// A message to the Deployment controller.
    DeploymentController(deploy::Ev),
    /// A call of the Deployment controller reaches the API server.
    DeploymentWrite(Box<deploy::Write>),
    /// A message to the garbage collector.
    Collector(gc::Ev),
    /// A call of the garbage collector reaches the API server.
    CollectorCall(Box<gc::Call>),
    /// Client `client` sends its request number `n`.
    Send { client: usize, n: u32 },
    /// How far request `req` got, should its client time out.
    Reached { req: u64, silence: Silence },
    /// The answer to request `req` reaches its client.
    Reply { req: u64, answer: Answered },
    /// Request `req`'s client stops waiting.
    ClientTimeout { req: u64 },
    /// The scenario creates a PodDisruptionBudget.
    CreatePdb(Arc<crate::spec::PdbSpec>),
    /// A message to the disruption controller.
    DisruptionController(crate::control::disruption::Ev),
    /// A status write of the disruption controller reaches the API server.
    PdbWrite(Box<crate::control::disruption::Write>),
    /// The next step of a pod of a `kubectl drain` (`run`: the drain's index).
    Drain { run: usize, pod: usize, step: drain::Step },
    /// A message of (or to) the node lifecycle controller.
    NodeLifecycle(nodelifecycle::Out),
    /// A message of (or to) the taint-eviction controller.
    TaintEviction(tainteviction::Out),
    /// A node that went down boots.
    NodeBoots(NodeId),
    /// The scenario creates (or, when one of that name exists, updates) a Job.
    ApplyJob(Arc<crate::spec::JobSpec>),
    /// A message to the Job controller.
    JobController(crate::control::job::Ev),
    /// A call of the Job controller reaches the API server.
    JobWrite(Box<crate::control::job::Write>),
    /// A message of (or to) the TTL-after-finished controller.
    Ttl(crate::control::ttlafterfinished::Out),
    /// The scenario creates a CronJob.
    CreateCronJob(Arc<crate::spec::CronJobSpec>),
    /// A message to the CronJob controller.
    CronJobController(crate::control::cronjob::Ev),
    /// A call of the CronJob controller reaches the API server.
    CronJobWrite(Box<crate::control::cronjob::Write>),
    /// The scenario creates (or, when one of that name exists, updates) a StatefulSet.
    ApplyStatefulSet(Arc<crate::spec::StatefulSetSpec>),
    /// A message to the StatefulSet controller.
    StsController(crate::control::statefulset::Ev),
    /// A write of the StatefulSet controller reaches the API server.
    StsWrite(Box<crate::control::statefulset::Write>),
    /// The garbage collector deletes claim `i`, its owner pod gone.
    CollectClaim(usize),
    /// The scenario creates (or, when one of that name exists, updates) a DaemonSet.
    ApplyDaemonSet(Arc<crate::spec::DaemonSetSpec>),
    /// A message to the DaemonSet controller.
    DaemonSetController(crate::control::daemon::Ev),
    /// A call of the DaemonSet controller reaches the API server.
    DaemonSetWrite(Box<crate::control::daemon::Write>),
}

/// A scenario action with its pod (and container) resolved.
#[derive(Clone, Debug)]
pub enum Action {
    Delete {
        pod: PodId,
        grace_period_seconds: Option<i64>,
    },
    SetCondition {
        pod: PodId,
        condition: Arc<str>,
        status: bool,
    },
    Kill {
        pod: PodId,
        container: usize,
        signal: Signal,
    },
    /// The same for a pod a controller makes: its name (a StatefulSet's
    /// `web-0`), or a prefix ending in `*` (the oldest live match), found
    /// when the action runs.
    KillNamed {
        pod: Arc<str>,
        container: Arc<str>,
        signal: Signal,
    },
    /// `kubectl apply -f FILE`: a Deployment (created, or its new spec), or
    /// a new ReplicaSet.
    Apply {
        file: Arc<str>,
        object: Applied,
    },
    /// `kubectl scale deployment/NAME --replicas=N`.
    Scale {
        deployment: Arc<str>,
        replicas: u32,
    },
    /// `kubectl rollout undo deployment/NAME [--to-revision=N]`.
    Undo {
        deployment: Arc<str>,
        to_revision: u64,
    },
    /// `kubectl patch pod NAME -p '{"spec":{…}}'`.
    Patch {
        pod: PodId,
        patch: Arc<PodPatch>,
    },
    /// `kubectl delete pod` of the oldest live pod whose name starts with
    /// `prefix` (the pods of a ReplicaSet have generated names).
    DeleteMatching {
        prefix: Arc<str>,
        grace_period_seconds: Option<i64>,
    },
    /// `kubectl patch pod` of the oldest live pod whose name starts with `prefix`.
    PatchMatching {
        prefix: Arc<str>,
        patch: Arc<PodPatch>,
    },
    /// `kubectl delete deployment|replicaset NAME --cascade=…`; a
    /// ReplicaSet's name may end in `*` (the oldest live one so named).
    DeleteOwner {
        kind: OwnerKind,
        name: Arc<str>,
        cascade: Propagation,
    },
    /// `kubectl cordon NODE` (`unschedulable`) or `kubectl uncordon NODE`.
    Cordon {
        node: Arc<str>,
        unschedulable: bool,
    },
    /// `POST pods/NAME/eviction`.
    Evict {
        pod: PodRef,
        grace_period_seconds: Option<i64>,
    },
    /// `kubectl drain NODE [options]`.
    Drain(Arc<crate::scenario::drain::DrainOptions>),
    /// The node goes down for good: power lost, machine gone.
    NodeDown {
        node: NodeId,
    },
    /// The node's kubelet process restarts; its containers run on.
    RestartKubelet {
        node: NodeId,
    },
    /// The node goes down and boots again after `down`.
    Reboot {
        node: NodeId,
        down: SimDuration,
    },
    /// A node of the profile, absent until now, joins the cluster.
    AddNode {
        node: NodeId,
    },
    /// `kubectl scale statefulset/NAME --replicas=N`.
    ScaleStatefulSet {
        name: Arc<str>,
        replicas: u32,
    },
    /// `kubectl delete pod NAME` of a pod a controller names (a
    /// StatefulSet's): the live pod of that name when the action runs.
    DeleteNamed {
        name: Arc<str>,
        grace_period_seconds: Option<i64>,
    },
}

/// An object of an `apply` file.
#[derive(Clone, Debug)]
pub enum Applied {
    Deployment(Arc<DeploymentSpec>),
    ReplicaSet(Arc<ReplicaSetSpec>),
    /// A ConfigMap or Secret, created or given new keys.
    Config(Arc<ConfigObject>),
    /// A new Pod.
    Pod(Arc<PodSpec>),
    /// A new Service.
    Service(Arc<ServiceSpec>),
    /// A new PersistentVolumeClaim.
    Claim(Arc<ClaimSpec>),
    /// A Job, created or given a new spec.
    Job(Arc<crate::spec::JobSpec>),
    /// A StatefulSet (created, or its new spec).
    StatefulSet(Arc<crate::spec::StatefulSetSpec>),
    /// A DaemonSet, created or given a new spec.
    DaemonSet(Arc<crate::spec::DaemonSetSpec>),
}

/// An action at its time.
#[derive(Clone, Debug)]
pub struct Scheduled {
    pub at: SimTime,
    pub action: Action,
}

/// Everything a run needs besides the seed.
#[derive(Clone)]
pub struct Setup {
    /// The specs are shared by every run: a run creates its objects from them.
    pub pods: Vec<Arc<PodSpec>>,
    pub behaviours: Arc<Behaviours>,
    pub cluster: Arc<Cluster>,
    /// Nanoseconds since the Unix epoch of simulated time zero.
    pub epoch_ns: u128,
    pub actions: Arc<Vec<Scheduled>>,
    pub gates: Vec<GateController>,
    pub services: Vec<Arc<ServiceSpec>>,
    pub replica_sets: Vec<Arc<ReplicaSetSpec>>,
    pub deployments: Vec<Arc<DeploymentSpec>>,
    /// The ConfigMaps and Secrets the manifests create.
    pub config: Arc<Vec<ConfigObject>>,
    /// The PersistentVolumeClaims the manifests create, their binding mode resolved.
    pub claims: Vec<Arc<ClaimSpec>>,
    pub clients: Arc<Vec<Client>>,
    /// The PodDisruptionBudgets the manifests create.
    pub pdbs: Vec<Arc<crate::spec::PdbSpec>>,
    pub jobs: Vec<Arc<crate::spec::JobSpec>>,
    pub cronjobs: Vec<Arc<crate::spec::CronJobSpec>>,
    /// The StatefulSets the manifests create.
    pub stateful_sets: Vec<Arc<crate::spec::StatefulSetSpec>>,
    pub daemon_sets: Vec<Arc<crate::spec::DaemonSetSpec>>,
    /// How many events a run may handle, and pods it may create ([`crate::budget`]).
    pub max_events: u64,
    pub max_pods: u64,
}

impl Setup {
    /// The profile's nodes a scenario adds: absent until they join.
    pub fn joining(&self) -> Vec<Arc<str>> {
        let added = self.actions.iter().filter_map(|a| match a.action {
            Action::AddNode { node } => Some(self.cluster.nodes[node.index()].name.clone()),
            _ => None,
        });
        added.collect()
    }

    /// Whether a Job of the manifests or of an `apply` has what `which` selects.
    fn any_job(&self, which: impl Fn(&crate::spec::JobSpec) -> bool) -> bool {
        self.jobs.iter().any(|j| which(j))
            || self.cronjobs.iter().any(|c| which(&c.job))
            || self.applies(|o| matches!(o, Applied::Job(j) if which(j)))
    }

    /// Whether an `apply` action brings an object `which` selects.
    fn applies(&self, which: impl Fn(&Applied) -> bool) -> bool {
        self.actions.iter().any(|a| matches!(&a.action, Action::Apply { object, .. } if which(object)))
    }
}

pub struct World {
    q: Queue<Ev>,
    trace: Trace,
    api: ApiServer,
    kubelets: Vec<Kubelet>,
    cluster: Arc<Cluster>,
    nodes: nodes::NodeIndex,
    scheduler: Scheduler,
    /// Each node's kubelet pod source and its watch.
    pod_configs: Vec<(PodConfig, watch::Watcher)>,
    /// The trace entries the components fed as a change is written have seen.
    synced: usize,
    epoch_ns: u128,
    actions: Arc<Vec<Scheduled>>,
    gates: Controllers,
    /// The Service path, present when the manifests declare a Service.
    controller: Option<eps::Controller>,
    /// The ReplicaSet controller, present when the manifests declare workloads.
    replicasets: Option<rs::Controller>,
    /// The Deployment controller, present when the manifests declare Deployments.
    deployments: Option<deploy::Controller>,
    /// The garbage collector, present when an action deletes an owner.
    collector: Option<gc::Collector>,
    proxies: Vec<KubeProxy>,
    /// The merge orders of endpoints the kube-proxies share.
    merges: proxy::MergeOrders,
    watches: watch::Watches,
    informers: watch::Informers,
    clients: Arc<Vec<Client>>,
    client_rngs: Vec<Stream>,
    pending: std::collections::BTreeMap<u64, network::Pending>,
    next_request: u64,
    network: Stream,
    /// The kubelets' ConfigMap and Secret watches: their delivery delays.
    config_watch: Stream,
    /// PersistentVolumeClaims, by creation order.
    claims: Vec<Arc<crate::api::claim::ApiClaim>>,
    /// Claims' UIDs and provisioning times.
    claim_rng: Stream,
    /// Pods whose PreBind waits for claims (indices) to be bound on a node.
    prebind: Vec<(PodId, Arc<str>, Vec<usize>)>,
    /// Pods a ReplicaSet created so far, by alias group (`workloads::alias`).
    aliases: std::collections::HashMap<String, u32>,
    /// The disruption controller, present when the manifests declare a PodDisruptionBudget.
    disruption: Option<crate::control::disruption::Controller>,
    /// The `kubectl drain` commands under way.
    drains: Vec<drain::DrainRun>,
    /// The Node objects, which nodes are down, and the controllers of lost nodes.
    node_state: node_loss::Nodes,
    /// How many times each node's kubelet process has restarted.
    kubelet_runs: Vec<u32>,
    /// The run's seed: a component started during the run draws from it.
    seed: u64,
    /// The Job controller, present when the manifests or an apply bring a Job.
    jobs: Option<crate::control::job::Controller>,
    /// The TTL-after-finished controller, present when a Job has a TTL.
    ttl: Option<crate::control::ttlafterfinished::Controller>,
    /// The CronJob controller, present when the manifests declare a CronJob.
    cronjobs: Option<crate::control::cronjob::Controller>,
    /// The StatefulSet controller, present when the manifests or an action bring a StatefulSet.
    stateful_sets: Option<crate::control::statefulset::Controller>,
    /// Claims owned by a pod being deleted (`whenScaled: Delete`), collected once it is gone.
    pod_owned_claims: Vec<(PodId, Vec<Arc<str>>)>,
    /// The DaemonSet controller, present when the manifests or an apply bring a DaemonSet.
    daemon_sets: Option<crate::control::daemon::Controller>,
    /// The events this run may handle, and the pods it may create.
    max_events: u64,
    max_pods: u64,
}

/// How many events a watched run handles between two looks at its time.
pub const WATCH_EVERY: u64 = 1 << 16;

impl World {
    pub fn new(setup: &Setup, seed: u64) -> World {
        World::keeping(setup, seed, Keep::All)
    }

    /// The same world with every periodic tick handled, none parked
    /// ([`crate::engine::Queue::park`]): the reference a run that parks
    /// them must match, record for record.
    pub fn handling_every_tick(mut self) -> World {
        self.q.set_parking(false);
        self
    }

    /// A world whose trace keeps only `keep`.
    pub fn keeping(setup: &Setup, seed: u64, keep: Keep) -> World {
        let mut watches = watch::Watches::new(seed);
        let joining = setup.joining();
        let pod_configs = setup
            .cluster
            .nodes
            .iter()
            .map(|n| (PodConfig::new(n.name.clone()), watches.register_sharing("apiserver/watch")))
            .collect();
        // The Service path exists when a Service does, at the start or applied later.
        let services = !setup.services.is_empty() || setup.applies(|o| matches!(o, Applied::Service(_)));
        let mut w = World {
            q: Queue::default(),
            trace: Trace::keeping(keep),
            api: ApiServer::new(seed),
            kubelets: setup
                .cluster
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let id = NodeId(i as u32);
                    Kubelet::new(
                        id,
                        n.clone(),
                        setup.cluster.clone(),
                        setup.behaviours.clone(),
                        &setup.config,
                        seed,
                        setup.epoch_ns,
                    )
                })
                .collect(),
            cluster: setup.cluster.clone(),
            nodes: nodes::NodeIndex::new(&setup.cluster.nodes),
            scheduler: Scheduler::new(setup.cluster.clone(), seed, &joining),
            pod_configs,
            synced: 0,
            epoch_ns: setup.epoch_ns,
            actions: setup.actions.clone(),
            gates: Controllers::new(&setup.gates, setup.cluster.clone(), seed),
            controller: services.then(|| eps::Controller::new(setup.cluster.clone(), seed)),
            replicasets: (!setup.replica_sets.is_empty()
                || !setup.deployments.is_empty()
                || setup.applies(|o| matches!(o, Applied::Deployment(_) | Applied::ReplicaSet(_))))
            .then(|| rs::Controller::new(setup.cluster.clone(), seed)),
            deployments: (!setup.deployments.is_empty() || setup.applies(|o| matches!(o, Applied::Deployment(_))))
                .then(|| deploy::Controller::new(setup.cluster.clone(), seed)),
            // The collector deletes the dependents of deleted owners: kubectl's,
            // a Job's TTL, a CronJob's history and replacements.
            collector: (setup.actions.iter().any(|a| matches!(a.action, Action::DeleteOwner { .. }))
                || setup.any_job(|j| j.ttl_seconds_after_finished.is_some())
                || !setup.cronjobs.is_empty())
            .then(|| gc::Collector::new(setup.cluster.clone(), seed)),
            merges: proxy::MergeOrders::default(),
            proxies: match !services {
                true => Vec::new(),
                false => setup
                    .cluster
                    .nodes
                    .iter()
                    .map(|n| KubeProxy::new(n.name.clone(), setup.cluster.clone(), seed))
                    .collect(),
            },
            watches,
            informers: watch::Informers { groups: Vec::new() },
            clients: setup.clients.clone(),
            client_rngs: setup.clients.iter().map(|c| Stream::new(seed, &format!("client/{}", c.name))).collect(),
            pending: Default::default(),
            next_request: 0,
            network: Stream::new(seed, "network"),
            config_watch: Stream::new(seed, "watch/kubelet/configmaps-secrets"),
            claims: Vec::new(),
            claim_rng: Stream::new(seed, "persistentvolumeclaims"),
            prebind: Vec::new(),
            aliases: Default::default(),
            disruption: (!setup.pdbs.is_empty())
                .then(|| crate::control::disruption::Controller::new(setup.cluster.clone(), seed, setup.epoch_ns)),
            drains: Vec::new(),
            node_state: node_loss::Nodes::new(&setup.cluster, &joining),
            kubelet_runs: vec![0; setup.cluster.nodes.len()],
            seed,
            jobs: (!setup.jobs.is_empty()
                || !setup.cronjobs.is_empty()
                || setup.applies(|o| matches!(o, Applied::Job(_))))
            .then(|| crate::control::job::Controller::new(setup.cluster.clone(), seed)),
            cronjobs: (!setup.cronjobs.is_empty())
                .then(|| crate::control::cronjob::Controller::new(setup.cluster.clone(), seed, setup.epoch_ns)),
            ttl: setup
                .any_job(|j| j.ttl_seconds_after_finished.is_some())
                .then(|| crate::control::ttlafterfinished::Controller::new(setup.cluster.clone(), seed)),
            stateful_sets: (!setup.stateful_sets.is_empty() || setup.applies(|o| matches!(o, Applied::StatefulSet(_))))
                .then(|| crate::control::statefulset::Controller::new(setup.cluster.clone(), seed)),
            pod_owned_claims: Vec::new(),
            daemon_sets: (!setup.daemon_sets.is_empty() || setup.applies(|o| matches!(o, Applied::DaemonSet(_))))
                .then(|| crate::control::daemon::Controller::new(setup.cluster.clone(), seed, &joining)),
            max_events: setup.max_events,
            max_pods: setup.max_pods,
        };
        let node_faults = |a: &Scheduled| matches!(a.action, Action::NodeDown { .. } | Action::Reboot { .. });
        if setup.actions.iter().any(node_faults) {
            w.start_node_lifecycle(seed);
        }
        w.informers = watch::Informers::new(
            &mut w.watches,
            w.controller.is_some(),
            w.replicasets.is_some(),
            w.deployments.is_some(),
            w.collector.is_some(),
            &setup.cluster.nodes,
        );
        w.subscribe_disruption();
        w.subscribe_jobs();
        w.subscribe_cronjobs();
        w.subscribe_stateful_sets();
        w.subscribe_daemon_sets();
        for (i, k) in w.kubelets.iter_mut().enumerate() {
            let mut out = Routed { q: &mut w.q, route: routes::kubelet(NodeId(i as u32), 0) };
            let mut ctx = Ctx { q: &mut out, trace: &mut w.trace };
            k.start(&mut ctx);
        }
        for c in &setup.claims {
            w.q.at(SimTime::ZERO, Ev::CreateClaim(c.clone()));
        }
        for p in &setup.pods {
            w.q.at(SimTime::ZERO, Ev::Create(p.clone()));
        }
        for s in &setup.services {
            w.q.at(SimTime::ZERO, Ev::CreateService(s.clone()));
        }
        for r in &setup.replica_sets {
            w.q.at(SimTime::ZERO, Ev::CreateReplicaSet(r.clone()));
        }
        for d in &setup.deployments {
            w.q.at(SimTime::ZERO, Ev::ApplyDeployment(d.clone()));
        }
        for b in &setup.pdbs {
            w.q.at(SimTime::ZERO, Ev::CreatePdb(b.clone()));
        }
        for j in &setup.jobs {
            w.q.at(SimTime::ZERO, Ev::ApplyJob(j.clone()));
        }
        for c in &setup.cronjobs {
            w.q.at(SimTime::ZERO, Ev::CreateCronJob(c.clone()));
        }
        for s in &setup.stateful_sets {
            w.q.at(SimTime::ZERO, Ev::ApplyStatefulSet(s.clone()));
        }
        for d in &setup.daemon_sets {
            w.q.at(SimTime::ZERO, Ev::ApplyDaemonSet(d.clone()));
        }
        for i in 0..w.clients.len() {
            if let Some(t) = w.clients[i].schedule.next(1, None, &mut w.client_rngs[i], &w.clients[i].name) {
                w.q.at(t, Ev::Send { client: i, n: 1 });
            }
        }
        for (i, a) in setup.actions.iter().enumerate() {
            w.q.at(a.at, Ev::Action(i));
        }
        w
    }

    /// Runs until `until` (inclusive) and returns the trace.
    pub fn run(self, until: SimTime) -> Trace {
        self.run_counting(until).0
    }

    /// Runs until `until` (inclusive); returns the trace and how many events
    /// were handled (the engine's throughput is measured in these), the
    /// ticks parked tickers skipped included.
    pub fn run_counting(self, until: SimTime) -> (Trace, u64) {
        self.run_watched(until, &mut |_| {})
    }

    /// Runs until `until`, telling `watch` the simulated time every
    /// [`WATCH_EVERY`] events (a long run's progress).
    pub fn run_watched(mut self, until: SimTime, watch: &mut dyn FnMut(SimTime)) -> (Trace, u64) {
        let mut handled = 0;
        self.q.limit(self.max_events, until);
        while let Some(ev) = self.q.pop_until(until) {
            if handled % WATCH_EVERY == 0 {
                watch(self.q.now());
            }
            if self.events_spent(handled) {
                break;
            }
            handled += 1;
            self.dispatch(ev);
            if self.pods_spent() {
                break;
            }
        }
        (self.trace, handled + self.q.skipped())
    }

    /// Whether `handled` events (and the ticks parked tickers skipped) use
    /// up the run's event budget: then it stops.
    fn events_spent(&mut self, handled: u64) -> bool {
        let spent = handled + self.q.skipped() == self.max_events;
        if spent {
            self.stop(Limit::Events(self.max_events));
        }
        spent
    }

    /// Whether the API server holds more pods than the run's budget: then it stops.
    fn pods_spent(&mut self) -> bool {
        let spent = self.api.pods().len() as u64 > self.max_pods;
        if spent {
            self.stop(Limit::Pods(self.max_pods));
        }
        spent
    }

    /// The run stops here: its trace says which budget it used up, and when.
    fn stop(&mut self, limit: Limit) {
        self.trace.exhausted = Some(Exhausted { seed: self.seed, limit, at: self.q.now() });
    }

    fn dispatch(&mut self, ev: Ev) {
        let (written, revision, nodes) = (self.trace.entries.len(), self.api.revision(), self.node_state.writes);
        self.handle(ev);
        // Only the API server's writes are watched (Nodes' too), and most events make none.
        if self.api.revision() != revision || self.node_state.writes != nodes {
            self.sync_watch(false);
            self.fan_out(written);
        }
    }

    /// The pod changes written since the last call reach the components
    /// whose informers are fed as a change is written, record by record:
    /// each node's kubelet (through its pod source, after its watch's
    /// latency), the scheduler and the readiness-gate controllers (whose
    /// own latencies hold their watch's). `by_kubelet`: these are a
    /// kubelet's status PATCH, answered directly.
    fn sync_watch(&mut self, by_kubelet: bool) {
        let end = self.trace.entries.len();
        for i in std::mem::replace(&mut self.synced, end)..end {
            let entries = &self.trace.entries;
            let Record::Pod { kind, pod } = &entries[i].record else { continue };
            let (kind, pod) = (*kind, pod.clone());
            // A grace-0 deletion removes the pod in the same write.
            let removed_next = kind == WatchKind::Modified
                && matches!(entries.get(i + 1).map(|e| &e.record),
                    Some(Record::Pod { kind: WatchKind::Deleted, pod: next }) if next.id == pod.id);
            // The kubelet's own status write is answered, not watched.
            let node = if by_kubelet { None } else { pod.node.as_deref().and_then(|n| self.nodes.named(n)) };
            if let Some(node) = node {
                let (config, watcher) = &mut self.pod_configs[node.index()];
                if let Some(ev) = config.change(kind, &pod, removed_next) {
                    let name = &self.cluster.nodes[node.index()].name;
                    let label = || Label::new(What::Watch, pod.spec.alias.clone()).with(format!("node/{name}"));
                    let at = self.watches.due(*watcher, self.q.now(), &self.cluster.latencies.watch, label);
                    self.q.at(at, Ev::Kubelet(node, self.kubelet_runs[node.index()], ev));
                }
            }
            if kind == WatchKind::Deleted && !self.pod_owned_claims.is_empty() {
                self.collect_claims_of(pod.id, &pod.spec.namespace);
            }
            let mut out = Routed { q: &mut self.q, route: Ev::Scheduler };
            self.scheduler.watched(kind, &pod, &mut out);
            let mut out = Routed { q: &mut self.q, route: Ev::GatePatch };
            self.gates.watched(kind, &pod, &mut out);
        }
    }

    /// The API records written since entry `from` reach the informers that
    /// watch their kind: group by group, record by record, informer by
    /// informer, each at its own watch's delivery time.
    fn fan_out(&mut self, from: usize) {
        let now = self.q.now();
        let watch = &self.cluster.latencies.watch;
        for group in &self.informers.groups {
            for entry in &self.trace.entries[from..] {
                let Some(kind) = Kind::of(&entry.record) else { continue };
                for s in group.iter().filter(|s| s.kind == kind) {
                    let api = &self.api;
                    let at = self.watches.due(s.watcher, now, watch, || watch::subject(api, &entry.record));
                    self.q.at(at, s.to.event(&entry.record));
                }
            }
        }
    }

    fn handle(&mut self, ev: Ev) {
        let now = self.q.now();
        match ev {
            Ev::Create(spec) => {
                self.api.create(spec, now, &mut self.trace);
                self.sync_watch(false);
            }
            Ev::CreateClaim(spec) => self.create_claim(spec, now),
            Ev::ClaimBound(i) => self.claim_bound(i, now),
            Ev::CreateReplicaSet(spec) => self.create_replica_set(&spec),
            Ev::RsController(ev) => {
                drive(self.replicasets.as_mut(), ev, &mut self.q, &mut self.trace, routes::replicasets)
            }
            Ev::RsWrite(write) => self.rs_write(write),
            Ev::ApplyDeployment(spec) => self.apply_deployment(spec),
            Ev::DeploymentController(ev) => {
                drive(self.deployments.as_mut(), ev, &mut self.q, &mut self.trace, routes::deployments)
            }
            Ev::DeploymentWrite(write) => self.deployment_write(*write),
            Ev::Collector(ev) => drive(self.collector.as_mut(), ev, &mut self.q, &mut self.trace, routes::collector),
            Ev::CollectorCall(call) => self.collector_call(*call),
            Ev::Scheduler(scheduler::Ev::Schedule(pod)) => self.schedule(pod, now),
            Ev::PatchStatus { pod, node, run, status } => {
                let stored = self.api.patch_status(pod, *status, now, &mut self.trace);
                let answer = kubelet::Ev::StatusPatched { pod, stored };
                self.q.after(SimDuration::ZERO, Ev::Kubelet(node, run, answer));
                self.sync_watch(true);
            }
            Ev::Action(i) => {
                let action = self.actions[i].action.clone();
                self.act(action, now);
            }
            Ev::DeletePod { pod, uid } => {
                self.api.delete_final(pod, &uid, now, &mut self.trace);
                self.sync_watch(false);
            }
            Ev::GatePatch(patch) => {
                self.gates.done(&patch);
                let c = Condition::new(ConditionType::Other(patch.condition.clone()), patch.status);
                self.api.set_condition(patch.pod, c, now, &mut self.trace);
                self.sync_watch(false);
            }
            Ev::CreateService(spec) => {
                self.api.create_service(spec, self.cluster.service_cidr, now, &mut self.trace);
            }
            Ev::SliceController(cev) => {
                drive(self.controller.as_mut(), cev, &mut self.q, &mut self.trace, routes::slices)
            }
            Ev::SliceWrite(request) => self.slice_write(*request),
            // A node that is down runs nothing.
            Ev::Proxy(node, _) | Ev::Kubelet(node, ..) if self.node_state.is_down(node) => {}
            // What the kubelet process sent itself, or was sent, before it restarted.
            Ev::Kubelet(node, run, kev) if run != self.kubelet_runs[node.index()] && !kev.outlives_the_kubelet() => {}
            Ev::NodeLifecycle(out) => self.node_lifecycle(out),
            Ev::TaintEviction(out) => self.taint_eviction(out),
            Ev::NodeBoots(node) => self.node_boots(node, now),
            Ev::Proxy(node, pev) => {
                if let Some(p) = self.proxies.get_mut(node.index()) {
                    let mut out = Routed { q: &mut self.q, route: routes::proxy(node) };
                    let mut ctx = Ctx { q: &mut out, trace: &mut self.trace };
                    p.handle(pev, &mut ctx, &mut self.merges);
                }
            }
            Ev::Send { client, n } => self.send(client, n),
            Ev::Reached { req, silence } => self.reached(req, silence),
            Ev::Reply { req, answer } => self.reply(req, answer),
            Ev::ClientTimeout { req } => self.client_timeout(req),
            Ev::CreatePdb(spec) => self.create_pdb(spec, now),
            Ev::DisruptionController(ev) => {
                drive(self.disruption.as_mut(), ev, &mut self.q, &mut self.trace, routes::disruption)
            }
            Ev::PdbWrite(write) => self.pdb_write(*write, now),
            Ev::Drain { run, pod, step } => self.drain_step(run, pod, step, now),
            Ev::ApplyJob(spec) => self.apply_job(spec),
            Ev::JobController(ev) => drive(self.jobs.as_mut(), ev, &mut self.q, &mut self.trace, routes::jobs),
            Ev::JobWrite(write) => self.job_write(*write),
            Ev::CreateCronJob(spec) => {
                self.api.create_cronjob(spec, now, &mut self.trace);
            }
            Ev::CronJobController(ev) => {
                drive(self.cronjobs.as_mut(), ev, &mut self.q, &mut self.trace, routes::cronjobs)
            }
            Ev::CronJobWrite(write) => self.cronjob_write(*write),
            Ev::Ttl(crate::control::ttlafterfinished::Out::Own(ev)) => {
                drive(self.ttl.as_mut(), ev, &mut self.q, &mut self.trace, Ev::Ttl)
            }
            Ev::Ttl(crate::control::ttlafterfinished::Out::Delete { job, uid }) => self.ttl_delete(job, &uid),
            Ev::ApplyStatefulSet(spec) => self.apply_stateful_set(spec),
            Ev::StsController(ev) => {
                drive(self.stateful_sets.as_mut(), ev, &mut self.q, &mut self.trace, routes::stateful_sets)
            }
            Ev::StsWrite(write) => self.sts_write(*write),
            Ev::CollectClaim(i) => self.collect_claim(i),
            Ev::ApplyDaemonSet(spec) => self.apply_daemon_set(spec),
            Ev::DaemonSetController(ev) => {
                drive(self.daemon_sets.as_mut(), ev, &mut self.q, &mut self.trace, routes::daemon_sets)
            }
            Ev::DaemonSetWrite(write) => self.daemon_set_write(*write),
            Ev::Kubelet(node, _, kev) => {
                if let Some(k) = self.kubelets.get_mut(node.index()) {
                    let mut out =
                        Routed { q: &mut self.q, route: routes::kubelet(node, self.kubelet_runs[node.index()]) };
                    let mut ctx = Ctx { q: &mut out, trace: &mut self.trace };
                    k.handle(kev, &mut ctx);
                }
            }
        }
    }

    /// A scenario action reaches the API server (or, for a signal, the node).
    fn act(&mut self, action: Action, now: SimTime) {
        match action {
            Action::Delete { pod, grace_period_seconds } => {
                // kubectl sends 0 only with --force (plain --grace-period=0 sends 1),
                // and no gracePeriodSeconds for a negative one (DeleteOptions.DeleteResult).
                let what = match grace_period_seconds {
                    Some(0) => "kubectl delete --grace-period=0 --force".to_string(),
                    Some(g) if g < 0 => {
                        format!(
                            "DELETE with gracePeriodSeconds={g} (an API request; kubectl ignores a negative --grace-period)"
                        )
                    }
                    Some(g) => format!("kubectl delete --grace-period={g}"),
                    None => "kubectl delete".to_string(),
                };
                self.scenario_record(pod, what, now);
                self.api.delete(pod, grace_period_seconds, now, &mut self.trace);
                self.sync_watch(false);
            }
            Action::SetCondition { pod, condition, status } => {
                let word = if status { "True" } else { "False" };
                self.scenario_record(pod, format!("set condition {condition}={word}"), now);
                let c = Condition::new(ConditionType::Other(condition), status);
                self.api.set_condition(pod, c, now, &mut self.trace);
                self.sync_watch(false);
            }
            Action::Patch { pod, patch } => self.patch_pod(pod, &patch, now),
            Action::Scale { deployment, replicas } => self.scale_deployment(&deployment, replicas),
            Action::Cordon { node, unschedulable } => self.cordon(node, unschedulable, now),
            Action::Evict { pod, grace_period_seconds } => self.evict_action(pod, grace_period_seconds, now),
            Action::Drain(options) => self.drain(options, now),
            Action::NodeDown { node } => self.node_down(node, now),
            Action::RestartKubelet { node } => self.restart_kubelet(node, now),
            Action::Reboot { node, down } => self.reboot(node, down, now),
            Action::AddNode { node } => self.node_joins(node, now),
            Action::Undo { deployment, to_revision } => self.undo_deployment(&deployment, to_revision),
            Action::DeleteMatching { prefix, grace_period_seconds } => match self.oldest_live(&prefix) {
                Some(pod) => self.act(Action::Delete { pod, grace_period_seconds }, now),
                None => {
                    let what = format!("kubectl delete pod {prefix}*: no live pod matches");
                    self.trace.push(now, Record::Scenario { object: format!("pod/{prefix}*"), what });
                }
            },
            Action::DeleteOwner { kind, name, cascade } => self.delete_owner(kind, &name, cascade),
            Action::ScaleStatefulSet { name, replicas } => self.scale_stateful_set(&name, replicas),
            Action::DeleteNamed { name, grace_period_seconds } => {
                let live = self.api.pods().iter().find(|p| !p.meta.removed && *p.spec.name == *name).map(|p| p.id);
                match live {
                    Some(pod) => self.act(Action::Delete { pod, grace_period_seconds }, now),
                    None => {
                        let what = format!(
                            "kubectl delete pod {name}: Error from server (NotFound): pods \"{name}\" not found"
                        );
                        self.trace.push(now, Record::Scenario { object: format!("pod/{name}"), what });
                    }
                }
            }
            Action::PatchMatching { prefix, patch } => match self.oldest_live(&prefix) {
                Some(pod) => self.patch_pod(pod, &patch, now),
                None => {
                    let what = format!("kubectl patch pod {prefix}* -p '{}': no live pod matches", patch.to_json());
                    self.trace.push(now, Record::Scenario { object: format!("pod/{prefix}*"), what });
                }
            },
            Action::Apply { file, object } => {
                let what = format!("kubectl apply -f {file}");
                match object {
                    Applied::Deployment(d) => {
                        self.trace.push(now, Record::Scenario { object: format!("deployment/{}", d.name), what });
                        self.apply_deployment(d);
                    }
                    Applied::ReplicaSet(r) => {
                        self.trace.push(now, Record::Scenario { object: format!("replicaset/{}", r.name), what });
                        self.create_replica_set(&r);
                    }
                    Applied::Config(object) => {
                        self.trace.push(now, Record::Scenario { object: object.kubectl_name(), what });
                        self.apply_config(&object);
                    }
                    Applied::Pod(spec) => {
                        self.trace.push(now, Record::Scenario { object: format!("pod/{}", spec.name), what });
                        self.api.create(spec, now, &mut self.trace);
                        self.sync_watch(false);
                    }
                    Applied::Claim(spec) => {
                        let object = format!("persistentvolumeclaim/{}", spec.name);
                        self.trace.push(now, Record::Scenario { object, what });
                        self.create_claim(spec, now);
                    }
                    Applied::Job(spec) => {
                        self.trace.push(now, Record::Scenario { object: format!("job/{}", spec.name), what });
                        self.apply_job(spec);
                    }
                    Applied::Service(spec) => {
                        self.trace.push(now, Record::Scenario { object: format!("service/{}", spec.name), what });
                        self.api.create_service(spec, self.cluster.service_cidr, now, &mut self.trace);
                    }
                    Applied::StatefulSet(spec) => {
                        self.trace.push(now, Record::Scenario { object: format!("statefulset/{}", spec.name), what });
                        self.apply_stateful_set(spec);
                    }
                    Applied::DaemonSet(spec) => {
                        self.trace.push(now, Record::Scenario { object: format!("daemonset/{}", spec.name), what });
                        self.apply_daemon_set(spec);
                    }
                }
            }
            Action::KillNamed { pod: name, container, signal } => {
                let found = match name.strip_suffix('*') {
                    Some(prefix) => self.oldest_live(prefix),
                    None => self.api.pods().iter().find(|p| !p.meta.removed && *p.spec.name == *name).map(|p| p.id),
                };
                let index = found.and_then(|p| self.api.pod(p).spec.container_index(&container));
                match (found, index) {
                    (Some(pod), Some(container)) => self.act(Action::Kill { pod, container, signal }, now),
                    (Some(_), None) => {
                        let what =
                            format!("send {} to container {container}: the pod has no such container", signal.as_str());
                        self.trace.push(now, Record::Scenario { object: format!("pod/{name}"), what });
                    }
                    (None, _) => {
                        let what = format!("send {} to container {container}: no live pod {name}", signal.as_str());
                        self.trace.push(now, Record::Scenario { object: format!("pod/{name}"), what });
                    }
                }
            }
            Action::Kill { pod, container, signal } => {
                // A signal is sent on the node, not through the API server: it
                // reaches containers still stopping after a forced delete.
                let p = self.api.pod(pod);
                let name = p.spec.containers[container].name.clone();
                let object = format!("pod/{}", p.spec.name);
                let what = format!("send {} to container {name}", signal.as_str());
                match p.node.as_deref().and_then(|n| self.nodes.named(n)) {
                    Some(node) => {
                        let names = Arc::new((p.spec.name.clone(), name));
                        self.trace.push(now, Record::Scenario { object, what });
                        let ev = kubelet::Ev::Signal { pod, container, signal, names };
                        self.send_to_kubelet(node, SimDuration::ZERO, ev);
                    }
                    None => {
                        let what = format!("{what}: the pod is not on a node, nothing happens");
                        self.trace.push(now, Record::Scenario { object, what });
                    }
                }
            }
        }
    }

    /// The oldest pod not yet deleted whose name starts with `prefix`.
    fn oldest_live(&self, prefix: &str) -> Option<PodId> {
        let live = self.api.pods().iter().filter(|p| !p.meta.removed && p.meta.deletion.is_none());
        live.filter(|p| p.spec.name.starts_with(prefix)).min_by_key(|p| (p.meta.created, p.id)).map(|p| p.id)
    }

    /// `kubectl patch`: the API server validates and stores the new spec, or
    /// the row says what kubectl printed.
    fn patch_pod(&mut self, pod: PodId, patch: &PodPatch, now: SimTime) {
        let name = &self.api.pod(pod).spec.name;
        let what = format!("kubectl patch pod {name} -p '{}'", patch.to_json());
        if self.api.pod(pod).meta.removed {
            return self.scenario_record(pod, what, now);
        }
        match self.api.patched_spec(pod, patch) {
            Ok(Some(spec)) => {
                self.scenario_record(pod, what, now);
                self.api.store_spec(pod, spec, now, &mut self.trace);
                self.sync_watch(false);
            }
            Ok(None) => self.scenario_record(pod, format!("{what}: pod/{name} patched (no change)"), now),
            Err(invalid) => self.scenario_record(pod, format!("{what}: {invalid}"), now),
        }
    }

    /// The action's row; a request for a pod the API server no longer has
    /// fails as kubectl reports it.
    /// `kubectl cordon` / `uncordon` (kubectl's `RunCordonOrUncordon`): the
    /// node's `spec.unschedulable` patched, and what kubectl prints; the
    /// scheduler's node informer sees the change.
    fn cordon(&mut self, node: Arc<str>, unschedulable: bool, now: SimTime) {
        let verb = if unschedulable { "cordon" } else { "uncordon" };
        let command: Arc<str> = Arc::from(format!("kubectl {verb} {node}"));
        let object = format!("node/{node}");
        self.trace.push(now, Record::Scenario { object: object.clone(), what: command.to_string() });
        let changed = self.set_unschedulable(&node, unschedulable, now);
        let line = match changed {
            true => format!("{object} {verb}ed"),
            false => format!("{object} already {verb}ed"),
        };
        self.trace.push(now, Record::Kubectl { command, line, exit: Some(0) });
    }

    fn scenario_record(&mut self, pod: PodId, what: String, now: SimTime) {
        let p = self.api.pod(pod);
        let object = format!("pod/{}", p.spec.name);
        let what = match p.meta.removed {
            true => format!("{what}: Error from server (NotFound): pods \"{}\" not found", p.spec.name),
            false => what,
        };
        self.trace.push(now, Record::Scenario { object, what });
    }

    /// The binding is stored: the scheduler's event, then the node's kubelet sees the pod.
    fn bind(&mut self, pod: PodId, node: Arc<str>, now: SimTime) {
        if !self.api.bind(pod, node.clone(), now, &mut self.trace) {
            return;
        }
        // A sweep's trace keeps no Events.
        if self.trace.keeps_all() {
            let p = self.api.pod(pod);
            let message = format!("Successfully assigned {}/{} to {node}", p.spec.namespace, p.spec.name);
            self.scheduler_event(pod, "Scheduled", message, false, now);
        }
        self.sync_watch(false);
    }

    /// An event from the default-scheduler about `pod`.
    fn scheduler_event(&mut self, pod: PodId, reason: &'static str, message: String, warning: bool, now: SimTime) {
        // A sweep's trace keeps no Events but FailedScheduling (`scheduling_failures`).
        if !self.trace.keeps_all() && reason != "FailedScheduling" {
            return;
        }
        let p = self.api.pod(pod);
        let about = Involved { name: &p.spec.name, namespace: &p.spec.namespace, uid: &p.meta.uid };
        let ns = event_ns(self.epoch_ns, now);
        let event = ApiEvent::first_at(about, EventSource::Scheduler, warning, reason, message, now, ns);
        self.trace.push(now, Record::Event(Arc::new(event)));
    }

    fn send_to_kubelet(&mut self, node: NodeId, delay: SimDuration, ev: kubelet::Ev) {
        self.q.after(delay, Ev::Kubelet(node, self.kubelet_runs[node.index()], ev));
    }
}

/// An event of a controller the run has, handled with its messages routed
/// into the queue.
fn drive<C: Controller>(c: Option<&mut C>, ev: C::Ev, q: &mut Queue<Ev>, trace: &mut Trace, route: fn(C::Out) -> Ev) {
    if let Some(c) = c {
        let mut out = Routed { q, route };
        c.handle(ev, &mut Ctx { q: &mut out, trace });
    }
}
