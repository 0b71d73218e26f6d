//! The disruption controller of kube-controller-manager
//! (pkg/controller/disruption/disruption.go): for each PodDisruptionBudget it
//! counts the selected pods that are healthy, how many must be, and so how
//! many may be disrupted, and writes that status for the Eviction API to
//! read (`trySync`). A pod change of a selected pod queues the budget (its
//! informer's handlers); the controller's ReplicaSet and Deployment
//! informers only feed the scale of the pods' controllers
//! (`getExpectedScale`), with no handlers. One worker syncs one budget at a
//! time, its `UpdateStatus` in flight until answered.
//!
//! Its events (`dc.recorder`, component `controllermanager`) are recorded
//! as the client-go correlator aggregates them: a repeat of the same reason
//! and message about the same object raises the first one's count.
//!
//! Left out: the stale DisruptionTarget worker (`syncStalePodDisruption`:
//! an evicted pod here is always deleted), and ReplicationControllers as
//! scale sources (podsim has none). A pod
//! several budgets select queues the first created (the controller queues
//! the first its lister returns, in the cache's order).

mod expected_pod_count;
mod healthy;
mod status;

pub use expected_pod_count::{Selected, get_expected_pod_count};
pub use healthy::{DELETION_TIMEOUT, Disrupted, PodView, build_disrupted_pod_map, count_healthy_pods};
pub use status::{Counts, disruptions_allowed, update_pdb_status};

use crate::api::deployment::ApiDeployment;
use crate::api::disruption::{ApiPdb, PdbStatus, Sufficiency};
use crate::api::pod::ApiPod;
use crate::api::replicaset::ApiReplicaSet;
use crate::api::status::ConditionType;
use crate::api::store::{Kind, Refused, Watch};
use crate::cluster::Cluster;
use crate::control::runtime::{self, Watching};
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::PdbId;
use crate::informer::Informer;
use crate::manifest::workloads::go_string;
use crate::rng::{Label, Stream, What};
use crate::spec::{Budget, IntOrPercent};
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::{ApiEvent, EventSource, Involved, WatchKind, event_ns};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What reaches the controller.
#[derive(Debug)]
pub enum Ev {
    Pod(WatchKind, Arc<ApiPod>),
    Pdb(WatchKind, Arc<ApiPdb>),
    ReplicaSet(WatchKind, Arc<ApiReplicaSet>),
    Deployment(WatchKind, Arc<ApiDeployment>),
    StatefulSet(WatchKind, Arc<crate::api::statefulset::ApiStatefulSet>),
    /// A delayed key of the queue is due (a failed sync's backoff).
    Wake(PdbId),
    /// A key of the recheck queue is due (`enqueuePdbForRecheck`).
    Recheck(PdbId),
    /// The API server answered the status write of a budget.
    Written(PdbId, Result<(), Refused>),
}

/// `UpdateStatus` of a budget, based on the budget as read (resourceVersion `read`).
#[derive(Debug)]
pub struct Write {
    pub pdb: PdbId,
    pub read: u64,
    pub status: PdbStatus,
}

/// What the controller sends.
#[derive(Debug)]
pub enum Out {
    Own(Ev),
    Write(Box<Write>),
}

impl Watching for Controller {
    type Ev = Ev;
    const WATCHES: &'static [Watch] = &[
        (Kind::Pod, "disruption/pods"),
        (Kind::PodDisruptionBudget, "disruption/poddisruptionbudgets"),
        (Kind::ReplicaSet, "disruption/replicasets"),
        (Kind::Deployment, "disruption/deployments"),
        (Kind::StatefulSet, "disruption/statefulsets"),
    ];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Pod { kind, pod } => Some(Ev::Pod(*kind, pod.clone())),
            Record::Pdb { kind, pdb } => Some(Ev::Pdb(*kind, pdb.clone())),
            Record::ReplicaSet { kind, rs } => Some(Ev::ReplicaSet(*kind, rs.clone())),
            Record::Deployment { kind, deployment } => Some(Ev::Deployment(*kind, deployment.clone())),
            Record::StatefulSet { kind, sts } => Some(Ev::StatefulSet(*kind, sts.clone())),
            _ => None,
        }
    }
}

pub struct Controller {
    cluster: Arc<Cluster>,
    pods: Informer<ApiPod>,
    pdbs: Informer<ApiPdb>,
    replica_sets: Informer<ApiReplicaSet>,
    deployments: Informer<ApiDeployment>,
    stateful_sets: Informer<crate::api::statefulset::ApiStatefulSet>,
    queue: WorkQueue<PdbId>,
    /// `recheckQueue`: a budget waits here until a `disruptedPods` entry
    /// expires, then its worker adds it to the queue, rate-limited.
    recheck: WorkQueue<PdbId>,
    /// The one worker's budget, its status write in flight.
    syncing: Option<PdbId>,
    rng: Stream,
    /// Nanoseconds since the Unix epoch of simulated time zero (events' names).
    epoch_ns: u128,
    /// Each event recorded, by object, reason and message (the correlator's key).
    events: BTreeMap<(Arc<str>, &'static str, String), ApiEvent>,
}

/// The object an event is about.
struct About<'a> {
    kind: &'static str,
    name: &'a str,
    namespace: &'a str,
    uid: &'a Arc<str>,
}

impl runtime::Controller for Controller {
    type Out = Out;

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match ev {
            // addPod / updatePod / deletePod: the budget of the pod as it is now.
            Ev::Pod(kind, pod) => {
                self.pods.apply(kind, &pod);
                if let Some(id) = self.get_pdb_for_pod(&pod, ctx) {
                    self.queue.add(id);
                }
            }
            Ev::Pdb(kind, pdb) => {
                self.pdbs.apply(kind, &pdb);
                self.queue.add(pdb.id);
            }
            Ev::ReplicaSet(kind, rs) => {
                self.replica_sets.apply(kind, &rs);
            }
            Ev::Deployment(kind, d) => {
                self.deployments.apply(kind, &d);
            }
            Ev::StatefulSet(kind, s) => {
                self.stateful_sets.apply(kind, &s);
            }
            Ev::Wake(id) => self.queue.wake(id, now),
            // `processNextRecheckWorkItem`.
            Ev::Recheck(id) => {
                self.recheck.wake(id, now);
                while let Some(id) = self.recheck.get() {
                    self.recheck.done(id);
                    self.requeue(id, now, ctx);
                }
            }
            Ev::Written(id, result) => {
                self.syncing = None;
                match result {
                    // A stale read (409) is synced again after the backoff.
                    Err(Refused::Conflict) => self.requeue(id, now, ctx),
                    _ => self.queue.forget(id),
                }
                self.queue.done(id);
            }
        }
        self.work(ctx);
    }
}

impl Controller {
    pub fn new(cluster: Arc<Cluster>, seed: u64, epoch_ns: u128) -> Self {
        Controller {
            recheck: WorkQueue::controller_default(),
            epoch_ns,
            events: BTreeMap::new(),
            cluster,
            pods: Informer::default(),
            pdbs: Informer::default(),
            replica_sets: Informer::default(),
            deployments: Informer::default(),
            stateful_sets: Informer::default(),
            queue: WorkQueue::controller_default(),
            syncing: None,
            rng: Stream::new(seed, "kube-controller-manager/disruption"),
        }
    }

    /// The worker takes the next budget when it is free.
    fn work(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while self.syncing.is_none() {
            let Some(id) = self.queue.get() else { return };
            self.sync(id, ctx);
        }
    }

    /// `getPdbForPod`: the first budget selecting the pod; with several, a
    /// `MultiplePodDisruptionBudgets` Warning about the pod.
    fn get_pdb_for_pod(&mut self, pod: &ApiPod, ctx: &mut Ctx<'_, impl Outbox<Out>>) -> Option<PdbId> {
        let selects = |b: &&Arc<ApiPdb>| b.spec.selects(&pod.spec.namespace, &pod.spec.labels);
        let first = self.pdbs.list().find(selects)?.clone();
        let several = self.pdbs.list().filter(selects).nth(1).is_some();
        if several {
            let (ns, name) = (&pod.spec.namespace, &pod.spec.name);
            let about = About { kind: "Pod", name, namespace: ns, uid: &pod.meta.uid };
            let message = || {
                format!(
                    "Pod {ns:?}/{name:?} matches multiple PodDisruptionBudgets.  Chose {:?} arbitrarily.",
                    first.spec.name
                )
            };
            self.event(about, true, "MultiplePodDisruptionBudgets", message, ctx);
        }
        Some(first.id)
    }

    /// An event of `dc.recorder`, through the correlator; none in a sweep.
    fn event(
        &mut self,
        about: About<'_>,
        warning: bool,
        reason: &'static str,
        message: impl FnOnce() -> String,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        if !ctx.trace.keeps_all() {
            return;
        }
        let now = ctx.q.now();
        let message = message();
        let key = (about.uid.clone(), reason, message.clone());
        let event = match self.events.get(&key) {
            Some(e) => ApiEvent { count: e.count + 1, last: now, ..e.clone() },
            None => {
                let source = EventSource::Controller { component: "controllermanager", kind: about.kind };
                let involved = Involved { name: about.name, namespace: about.namespace, uid: about.uid };
                ApiEvent::first_at(involved, source, warning, reason, message, now, event_ns(self.epoch_ns, now))
            }
        };
        self.events.insert(key, event.clone());
        ctx.trace.push(now, Record::Event(Arc::new(event)));
    }

    fn requeue(&mut self, id: PdbId, now: SimTime, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(due) = self.queue.add_rate_limited(id, now) {
            ctx.q.at(due, Out::Own(Ev::Wake(id)));
        }
    }

    /// `sync` → `trySync`: the budget's status from the cached pods; a
    /// failure (a pod whose controller is not in the cache) writes the
    /// fail-safe status and is retried after the backoff.
    fn sync(&mut self, id: PdbId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(pdb) = self.pdbs.get(id).cloned() else { return self.queue.done(id) };
        let pods: Vec<Arc<ApiPod>> =
            self.pods.list().filter(|p| pdb.spec.selects(&p.spec.namespace, &p.spec.labels)).cloned().collect();
        let about = || About {
            kind: "PodDisruptionBudget",
            name: &pdb.spec.name,
            namespace: &pdb.spec.namespace,
            uid: &pdb.meta.uid,
        };
        if pods.is_empty() {
            self.event(about(), false, "NoPods", || "No matching pods found".into(), ctx);
        }
        let refs: Vec<&Arc<ApiPod>> = pods.iter().collect();
        let selected = Selected { pods: pods.len() as i32, scale: self.expected_scale(&refs) };
        let status = match get_expected_pod_count(pdb.spec.budget, &selected) {
            Ok((expected_pods, desired_healthy)) => {
                // The scale counts only pods with a controller: the others are said once per sync.
                let by_scale = !matches!(pdb.spec.budget, None | Some(Budget::MinAvailable(IntOrPercent::Int(_))));
                if by_scale && pods.iter().any(|p| p.spec.owner.is_none()) {
                    let selector =
                        LabelSelector { match_labels: Some(pdb.spec.selector.clone()), match_expressions: None };
                    let message = || {
                        format!(
                            "Pods selected by this PodDisruptionBudget (selector: {}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.",
                            go_string(&selector)
                        )
                    };
                    self.event(about(), true, "UnmanagedPods", message, ctx);
                }
                let views: Vec<PodView> = pods.iter().map(|p| view(p)).collect();
                let disrupted = build_disrupted_pod_map(&views, &pdb.status.disrupted_pods, now);
                for name in &disrupted.expired {
                    let Some(p) = pods.iter().find(|p| *p.spec.name == **name) else { continue };
                    let about = About { kind: "Pod", name, namespace: &p.spec.namespace, uid: &p.meta.uid };
                    // The controller names the budget by its namespace twice.
                    let ns = &pdb.spec.namespace;
                    let message = || format!("Pod was expected by PDB {ns}/{ns} to be deleted but it wasn't");
                    self.event(about, true, "NotDeleted", message, ctx);
                }
                let current_healthy = count_healthy_pods(&views, &disrupted.pods, now);
                let counts = Counts { current_healthy, desired_healthy, expected_pods, disrupted_pods: disrupted.pods };
                let status = update_pdb_status(&pdb.status, pdb.meta.generation, counts, now);
                if let Some(at) = disrupted.recheck
                    && let Some(due) = self.recheck.add_after(id, at.since(now).max(SimDuration::from_millis(1)), now)
                {
                    ctx.q.at(due, Out::Own(Ev::Recheck(id)));
                }
                status
            }
            Err(e) => {
                let message = || format!("Failed to calculate the number of expected pods: {e}");
                self.event(about(), true, "CalculateExpectedPodCountFailed", message, ctx);
                // `failSafe`: no disruption allowed, the error said.
                let mut s = pdb.status.clone();
                s.disruptions_allowed = 0;
                s.set_condition(Sufficiency::SyncFailed(Arc::from(e)), s.observed_generation, now);
                self.requeue(id, now, ctx);
                (s != pdb.status).then_some(s)
            }
        };
        let Some(status) = status else { return self.queue.done(id) };
        self.syncing = Some(id);
        let label = || Label::new(What::ApiWrite, format!("pdb/{}", pdb.spec.name)).with("write the status");
        let d = self.cluster.latencies.api_write.sample(&mut self.rng, label);
        ctx.q.after(d, Out::Write(Box::new(Write { pdb: id, read: pdb.meta.resource_version, status })));
    }

    /// `getExpectedScale`: the sum of the scales of the selected pods'
    /// controllers, each counted once — a Deployment's replicas for the pods
    /// of its ReplicaSets, a ReplicaSet's own otherwise, a StatefulSet's
    /// replicas (`getPodStatefulSet`). Pods without a controller are left out
    /// (`unmanagedPods`).
    fn expected_scale(&self, pods: &[&Arc<ApiPod>]) -> Result<i32, String> {
        let mut scales: BTreeMap<Arc<str>, i32> = BTreeMap::new();
        for p in pods {
            let Some(owner) = &p.spec.owner else { continue };
            if owner.kind == "StatefulSet" {
                let set = self.stateful_sets.list().find(|s| s.meta.uid == owner.uid);
                let Some(set) = set else { return Err(format!("found no controllers for pod {:?}", p.spec.name)) };
                scales.insert(set.meta.uid.clone(), set.spec.replicas as i32);
                continue;
            }
            let rs = self.replica_sets.list().find(|r| r.meta.uid == owner.uid && owner.kind == "ReplicaSet");
            let Some(rs) = rs else { return Err(format!("found no controllers for pod {:?}", p.spec.name)) };
            let (uid, scale) = match &rs.spec.owner {
                Some(d) if d.kind == "Deployment" => match self.deployments.list().find(|x| x.meta.uid == d.uid) {
                    Some(dep) => (dep.meta.uid.clone(), dep.spec.replicas as i32),
                    None => return Err(format!("found no controllers for pod {:?}", p.spec.name)),
                },
                _ => (rs.meta.uid.clone(), rs.spec.replicas as i32),
            };
            scales.insert(uid, scale);
        }
        Ok(scales.values().sum())
    }
}

/// What a sync reads of a pod.
fn view(p: &ApiPod) -> PodView {
    PodView {
        name: Arc::from(p.spec.name.as_str()),
        deleting: p.meta.deletion.is_some(),
        ready: p.status.condition_true(&ConditionType::Ready),
    }
}
