//! The ReplicaSet controller of kube-controller-manager
//! (pkg/controller/replicaset/replica_set.go): it watches ReplicaSets and
//! Pods through its own informers, and for each queued ReplicaSet compares
//! its active pods with `spec.replicas`, creates (in slow-start batches) or
//! deletes pods, and writes the status. Expectations keep it from acting
//! again before it has seen its own creations and deletions.

use super::names::pod_name_prefix;
use super::ranking::{PodRankView, RankPhase, pods_to_delete, related_on_node};
use super::slow_start::{ReplicaChange, manage_replicas};
use super::status::{RsPodView, calculate_status, next_availability_check};
use crate::api::pod::ApiPod;
use crate::api::replicaset::{ApiReplicaSet, RsId, RsStatus};
use crate::api::status::{ConditionType, PodPhase};
use crate::cluster::Cluster;
use crate::control::workqueue::WorkQueue;
use crate::rng::Stream;
use crate::sim::{Ctx, PodId};
use crate::spec::{PodSpec, PodTemplate};
use crate::time::{SimDuration, SimTime};
use crate::trace::record::WatchKind;
use foldhash::{HashMap, HashMapExt};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

/// What reaches the controller.
#[derive(Debug)]
pub enum Ev {
    Pod(WatchKind, Arc<ApiPod>),
    ReplicaSet(WatchKind, Arc<ApiReplicaSet>),
    /// A delayed add of the work queue is due.
    Wake(RsId),
}

/// A write on its way to the API server.
#[derive(Debug)]
pub enum Write {
    /// POST a pod with `generateName: <prefix>` (`RealPodControl.CreatePods`).
    CreatePod { rs: RsId, pod: Arc<PodSpec>, prefix: String },
    /// DELETE a pod (`RealPodControl.DeletePod`), with its default grace.
    DeletePod { rs: RsId, pod: PodId },
    /// PUT the status (`updateReplicaSetStatus`).
    Status { rs: RsId, status: RsStatus },
}

/// `ConcurrentRSSyncs`.
const WORKERS: usize = 5;
/// `ExpectationsTimeout`: expectations older than this are ignored.
const EXPECTATIONS_TIMEOUT: SimDuration = SimDuration::from_secs(300);

/// `ControllerExpectations` for one ReplicaSet.
#[derive(Debug)]
struct Expectations {
    add: i64,
    /// Pods it asked to delete and has not seen go (`UIDTrackingControllerExpectations`).
    del: BTreeSet<PodId>,
    at: SimTime,
}

/// A sync between its start and its status write.
#[derive(Debug)]
struct Syncing {
    /// Slow-start batches still to send, each a list of pods.
    batches: VecDeque<Vec<Arc<PodSpec>>>,
    in_flight: u32,
    /// Computed from the pods seen when the sync began, written at its end
    /// (taken when the write is sent).
    status: Option<RsStatus>,
    /// The status as read when the sync began (`updateReplicaSetStatus` compares with it).
    read: RsStatus,
}

pub struct Controller {
    cluster: Arc<Cluster>,
    pods: BTreeMap<PodId, Arc<ApiPod>>,
    /// The pods by the UID of their controller reference (the informer index
    /// `AddPodControllerUIDIndexer` registers, `PodControllerUIDIndex`): a
    /// sync reads its own pods, not every pod.
    by_owner: HashMap<Arc<str>, BTreeSet<PodId>>,
    /// Whether a pod's labels match a template, by pod: pod specs and
    /// templates are shared and never change in place.
    template_matches: HashMap<PodId, (Arc<PodTemplate>, bool)>,
    sets: BTreeMap<RsId, Arc<ApiReplicaSet>>,
    expectations: BTreeMap<RsId, Expectations>,
    queue: WorkQueue<RsId>,
    syncing: BTreeMap<RsId, Syncing>,
    rng: Stream,
}

impl Controller {
    pub fn new(cluster: Arc<Cluster>, seed: u64) -> Self {
        Controller {
            cluster,
            pods: BTreeMap::new(),
            by_owner: HashMap::new(),
            template_matches: HashMap::new(),
            sets: BTreeMap::new(),
            expectations: BTreeMap::new(),
            queue: WorkQueue::controller_default(),
            syncing: BTreeMap::new(),
            rng: Stream::new(seed, "kube-controller-manager/replicaset"),
        }
    }

    pub fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_>) {
        let now = ctx.q.now();
        match ev {
            // `addRS` / `updateRS` / `deleteRS`.
            Ev::ReplicaSet(kind, rs) => {
                let id = rs.id;
                match kind {
                    WatchKind::Deleted => {
                        self.sets.remove(&id);
                    }
                    _ => {
                        self.sets.insert(id, rs);
                    }
                }
                self.queue.add(id);
            }
            Ev::Pod(kind, pod) => self.pod_event(kind, pod),
            Ev::Wake(id) => self.queue.wake(id, now),
        }
        self.work(ctx);
    }

    /// `addPod` / `updatePod` / `deletePod`: observe expectations, queue the owner.
    fn pod_event(&mut self, kind: WatchKind, pod: Arc<ApiPod>) {
        let old = match kind {
            WatchKind::Deleted => self.pods.remove(&pod.id),
            _ => self.pods.insert(pod.id, pod.clone()),
        };
        if let Some(owner) = &pod.spec.owner {
            match kind {
                WatchKind::Deleted => {
                    if let Some(owned) = self.by_owner.get_mut(&owner.uid) {
                        owned.remove(&pod.id);
                    }
                    self.template_matches.remove(&pod.id);
                }
                _ => {
                    self.by_owner.entry(owner.uid.clone()).or_default().insert(pod.id);
                }
            }
        }
        let Some(rs) = self.owner_of(&pod) else { return };
        let e = self.expectations.get_mut(&rs);
        match (kind, &old) {
            (WatchKind::Added, None) => {
                if let Some(e) = e {
                    e.add -= 1;
                }
            }
            // A pod that turns terminating counts as deleted (`updatePod` → `deletePod`).
            _ if kind == WatchKind::Deleted || pod.deletion.is_some() => {
                if let Some(e) = e {
                    e.del.remove(&pod.id);
                }
            }
            _ => {}
        }
        if old.as_ref().is_none_or(|o| o.resource_version != pod.resource_version) {
            self.queue.add(rs);
        }
    }

    /// The ReplicaSet whose controller reference the pod carries.
    fn owner_of(&self, pod: &ApiPod) -> Option<RsId> {
        let owner = pod.spec.owner.as_ref()?;
        self.sets.values().find(|r| r.uid == owner.uid).map(|r| r.id)
    }

    /// The API server answered one of the sync's writes.
    pub fn written(&mut self, rs: RsId, ctx: &mut Ctx<'_>) {
        if let Some(s) = self.syncing.get_mut(&rs) {
            s.in_flight = s.in_flight.saturating_sub(1);
        }
        self.advance(rs, ctx);
        self.work(ctx);
    }

    /// Free workers take queued ReplicaSets.
    fn work(&mut self, ctx: &mut Ctx<'_>) {
        while self.syncing.len() < WORKERS {
            let Some(id) = self.queue.get() else { return };
            self.sync(id, ctx);
        }
    }

    /// `syncReplicaSet`.
    fn sync(&mut self, id: RsId, ctx: &mut Ctx<'_>) {
        let now = ctx.q.now();
        let Some(rs) = self.sets.get(&id).cloned() else {
            self.expectations.remove(&id);
            self.queue.done(id);
            return;
        };
        let satisfied = self
            .expectations
            .get(&id)
            .is_none_or(|e| (e.add <= 0 && e.del.is_empty()) || now.since(e.at) > EXPECTATIONS_TIMEOUT);
        let owned: Vec<Arc<ApiPod>> =
            self.by_owner.get(&rs.uid).into_iter().flatten().map(|id| self.pods[id].clone()).collect();
        let active: Vec<&Arc<ApiPod>> = owned.iter().filter(|p| is_active(p)).collect();
        let terminating = owned.iter().filter(|p| p.deletion.is_some() && !p.status.phase.is_terminal()).count();
        let mut syncing = Syncing { batches: VecDeque::new(), in_flight: 0, status: None, read: rs.status.clone() };
        if satisfied {
            match manage_replicas(active.len() as u32, rs.spec.replicas) {
                ReplicaChange::None => {}
                ReplicaChange::Create { count, batches } => {
                    self.expectations.insert(id, Expectations { add: count as i64, del: BTreeSet::new(), at: now });
                    let pod = new_pod(&rs);
                    syncing.batches = batches.iter().map(|n| vec![pod.clone(); *n as usize]).collect();
                }
                ReplicaChange::Delete { count } => {
                    let doomed = self.pods_to_delete(&rs, &active, count as usize, now);
                    self.expectations
                        .insert(id, Expectations { add: 0, del: doomed.iter().copied().collect(), at: now });
                    // Deletes are not slow-started: all at once.
                    for pod in doomed {
                        self.send(Write::DeletePod { rs: id, pod }, ctx);
                        syncing.in_flight += 1;
                    }
                }
            }
        }
        let views: Vec<RsPodView> = active.iter().map(|p| self.pod_view(p, &rs)).collect();
        let gate = self.cluster.version >= crate::cluster::Version::V1_35;
        let counts = calculate_status(&views, terminating as u32, gate, rs.spec.min_ready_seconds, now);
        syncing.status = Some(RsStatus { counts, observed_generation: rs.generation });
        if let Some(after) = next_availability_check(&views, &counts, rs.spec.min_ready_seconds, now, now) {
            // Availability is strictly after the deadline: look again a millisecond later at least.
            let delay = after.max(SimDuration::from_millis(1));
            if let Some(due) = self.queue.add_after(id, delay, now) {
                ctx.q.at(due, crate::sim::Ev::RsController(Ev::Wake(id)));
            }
        }
        self.syncing.insert(id, syncing);
        self.advance(id, ctx);
    }

    /// The next slow-start batch once the previous one has returned; after
    /// the last write, the status; then the sync is done.
    fn advance(&mut self, id: RsId, ctx: &mut Ctx<'_>) {
        let Some(s) = self.syncing.get_mut(&id) else { return };
        if s.in_flight > 0 {
            return;
        }
        if let Some(batch) = s.batches.pop_front() {
            s.in_flight = batch.len() as u32;
            let prefix = pod_name_prefix(&self.sets.get(&id).map_or_else(String::new, |r| r.spec.name.to_string()));
            for pod in batch {
                self.send(Write::CreatePod { rs: id, pod, prefix: prefix.clone() }, ctx);
            }
            return;
        }
        // The status PUT is part of the sync: the key is done when it returns.
        if let Some(status) = s.status.take()
            && s.read != status
        {
            s.in_flight = 1;
            self.send(Write::Status { rs: id, status }, ctx);
            return;
        }
        self.syncing.remove(&id);
        self.queue.done(id);
    }

    fn pod_view(&mut self, p: &ApiPod, rs: &ApiReplicaSet) -> RsPodView {
        let template = &rs.spec.template;
        let labels_match_template = match self.template_matches.get(&p.id) {
            Some((t, matches)) if Arc::ptr_eq(t, template) => *matches,
            _ => {
                let matches = template.labels.iter().all(|(k, v)| p.spec.labels.get(k) == Some(v));
                self.template_matches.insert(p.id, (template.clone(), matches));
                matches
            }
        };
        RsPodView { labels_match_template, ready_since: ready_since(p) }
    }

    fn send(&mut self, write: Write, ctx: &mut Ctx<'_>) {
        let d = self.cluster.latencies.api_write.sample(&mut self.rng);
        ctx.q.after(d, crate::sim::Ev::RsWrite(write));
    }

    /// `getPodsToDelete`: rank the active pods (`ActivePodsWithRanks`),
    /// counting co-located pods of every ReplicaSet of the same owner.
    fn pods_to_delete(&self, rs: &ApiReplicaSet, active: &[&Arc<ApiPod>], count: usize, now: SimTime) -> Vec<PodId> {
        let related_sets: Vec<&Arc<str>> = self
            .sets
            .values()
            .filter(|r| match (&r.spec.owner, &rs.spec.owner) {
                (Some(a), Some(b)) => a.uid == b.uid,
                _ => r.id == rs.id,
            })
            .map(|r| &r.uid)
            .collect();
        let related_nodes = self
            .pods
            .values()
            .filter(|p| is_active(p) && p.spec.owner.as_ref().is_some_and(|o| related_sets.contains(&&o.uid)))
            .map(|p| p.node.as_deref().unwrap_or(""));
        let nodes: Vec<&str> = active.iter().map(|p| p.node.as_deref().unwrap_or("")).collect();
        let ranks = related_on_node(&nodes, related_nodes);
        let views: Vec<PodRankView> = active.iter().zip(ranks).map(|(p, rank)| rank_view(p, rank)).collect();
        pods_to_delete(&views, count, now).into_iter().map(|i| active[i].id).collect()
    }
}

/// `IsPodActive`: not finished and not being deleted.
fn is_active(p: &ApiPod) -> bool {
    !p.removed && p.deletion.is_none() && !p.status.phase.is_terminal()
}

/// When the pod turned Ready, as the API stores it (whole seconds), if Ready.
fn ready_since(p: &ApiPod) -> Option<SimTime> {
    let c = p.status.condition(&ConditionType::Ready).filter(|c| c.status)?;
    Some(SimTime::from_millis(c.last_transition.whole_seconds() * 1000))
}

fn rank_view(p: &ApiPod, related_on_node: u32) -> PodRankView {
    let cost = p
        .spec
        .object
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("controller.kubernetes.io/pod-deletion-cost"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    PodRankView {
        assigned: p.node.is_some(),
        phase: match p.status.phase {
            PodPhase::Pending => RankPhase::Pending,
            PodPhase::Running => RankPhase::Running,
            _ => RankPhase::Unknown,
        },
        ready: ready_since(p).is_some(),
        deletion_cost: cost,
        related_on_node,
        ready_since: ready_since(p),
        max_restarts: p.status.containers.iter().map(|c| c.restart_count).max().unwrap_or(0),
        created: SimTime::from_millis(p.created.whole_seconds() * 1000),
        uid: p.uid.clone(),
    }
}

/// `GetPodFromTemplate`: the template's pod with the template's labels and
/// annotations and a controller reference to the ReplicaSet; the API server names it.
fn new_pod(rs: &ApiReplicaSet) -> Arc<PodSpec> {
    let t = &rs.spec.template;
    let mut pod = t.pod.clone();
    pod.namespace = rs.spec.namespace.to_string();
    pod.labels = t.labels.clone();
    pod.owner = Some(rs.as_owner());
    let meta = &mut pod.object.metadata;
    meta.labels = Some(t.labels.clone());
    meta.annotations = (!t.annotations.is_empty()).then(|| t.annotations.clone());
    meta.namespace = Some(pod.namespace.clone());
    Arc::new(pod)
}
