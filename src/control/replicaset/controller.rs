//! The ReplicaSet controller of kube-controller-manager
//! (pkg/controller/replicaset/replica_set.go): it watches ReplicaSets and
//! Pods through its own informers, and for each queued ReplicaSet claims its
//! pods (adopting the orphans its selector matches), compares its active pods
//! with `spec.replicas`, creates (in slow-start batches) or deletes pods, and
//! writes the status. Expectations keep it from acting again before it has
//! seen its own creations and deletions.

use super::names::pod_name_prefix;
use super::ranking::{PodRankView, pods_to_delete, ready_since, related_on_node, view_of as rank_view};
use super::slow_start::{ReplicaChange, manage_replicas};
use super::status::{RsPodView, calculate_status, next_availability_check};
use crate::api::ownership::{OwnerPatch, Patched};
use crate::api::pod::ApiPod;
use crate::api::replicaset::{ApiReplicaSet, RsSpec, RsStatus};
use crate::api::store::{Kind, Watch};
use crate::cluster::Cluster;
use crate::control::controller_ref::{Candidate, Claim, ClaimAnswer, claim, selects, wants_orphan};
use crate::control::expectations::Expectations;
use crate::control::runtime::{self, Watching};
use crate::control::workers::Workers;
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::ids::RsId;
use crate::informer::Informer;
use crate::rng::{Label, Stream, What};
use crate::spec::{PodSpec, PodTemplate};
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::WatchKind;
use foldhash::{HashMap, HashMapExt};
use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

/// What the controller sends: messages to itself (its work queue's timers)
/// and its calls to the API server.
#[derive(Debug)]
pub enum Out {
    Own(Ev),
    Write(Write),
}

/// What reaches the controller.
#[derive(Debug)]
pub enum Ev {
    Pod(WatchKind, Arc<ApiPod>),
    ReplicaSet(WatchKind, Arc<ApiReplicaSet>),
    /// A delayed add of the work queue is due.
    Wake(RsId),
}

/// Its informers (`NewReplicaSetController`'s pod and ReplicaSet informers).
impl Watching for Controller {
    type Ev = Ev;
    const WATCHES: &'static [Watch] = &[(Kind::Pod, "replicaset/pods"), (Kind::ReplicaSet, "replicaset/replicasets")];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Pod { kind, pod } => Some(Ev::Pod(*kind, pod.clone())),
            Record::ReplicaSet { kind, rs } => Some(Ev::ReplicaSet(*kind, rs.clone())),
            _ => None,
        }
    }
}

impl runtime::Controller for Controller {
    type Out = Out;

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match ev {
            // `addRS` / `updateRS` / `deleteRS`.
            Ev::ReplicaSet(kind, rs) => {
                self.sets.apply(kind, &rs);
                self.workers.queue.add(rs.id);
            }
            Ev::Pod(kind, pod) => self.pod_event(kind, pod),
            Ev::Wake(id) => self.workers.queue.wake(id, now),
        }
        self.work(ctx);
    }
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
    /// The uncached GET of the ReplicaSet before its first adoption of a
    /// sync (`claimPods`' `RecheckDeletionTimestamp`): it must still exist,
    /// with the same UID, and not be deleting.
    Recheck { rs: RsId, uid: Arc<str> },
    /// PATCH a pod's controller reference (`AdoptPod`, `ReleasePod`).
    PatchPod { rs: RsId, pod: PodId, patch: OwnerPatch },
}

/// `ConcurrentRSSyncs`.
const WORKERS: usize = 5;
/// A claim call of a sync, sent after the previous one is answered
/// (`ClaimPods` loops over the pods).
#[derive(Debug)]
enum ClaimCall {
    /// `RecheckDeletionTimestamp`, once, before the first adoption.
    Recheck,
    Adopt(Arc<ApiPod>),
    Release(Arc<ApiPod>),
}

/// A sync of one ReplicaSet: its claims, then its replicas and status.
#[derive(Debug)]
enum Syncing {
    Claiming(Claiming),
    Managing(Managing),
}

/// `claimPods`, before `manageReplicas`.
#[derive(Debug)]
struct Claiming {
    /// The ReplicaSet as read when the sync began.
    rs: Arc<ApiReplicaSet>,
    /// The calls still to send.
    calls: VecDeque<ClaimCall>,
    /// The call waiting for its answer.
    waiting: Option<ClaimCall>,
    /// The active pods claimed: those it owned when the sync began, and
    /// each orphan once its adoption succeeded.
    claimed: Vec<Arc<ApiPod>>,
    /// `canAdopt` failed: every later adoption fails without a call.
    cannot_adopt: bool,
    /// An adoption failed: the sync returns the error once every pod is
    /// claimed (`ClaimPods` aggregates the errors).
    failed: bool,
    /// `SatisfiedExpectations`, read when the sync began.
    satisfied: bool,
    /// Its pods being deleted that have not finished, when the sync began.
    terminating: u32,
}

/// `manageReplicas` and the status write.
#[derive(Debug)]
struct Managing {
    /// Slow-start batches still to send, each a list of pods.
    batches: VecDeque<Vec<Arc<PodSpec>>>,
    in_flight: u32,
    /// Computed from the pods claimed, written at the sync's end (taken
    /// when the write is sent).
    status: Option<RsStatus>,
    /// The status as read when the sync began (`updateReplicaSetStatus` compares with it).
    read: RsStatus,
}

impl Claiming {
    /// The next call to send, if any: an adoption after `canAdopt` failed
    /// fails without one.
    fn next_call(&mut self, rs: RsId) -> Option<Write> {
        while let Some(call) = self.calls.pop_front() {
            let write = match &call {
                ClaimCall::Recheck => Write::Recheck { rs, uid: self.rs.meta.uid.clone() },
                ClaimCall::Adopt(_) if self.cannot_adopt => {
                    self.failed = true;
                    continue;
                }
                ClaimCall::Adopt(p) => Write::PatchPod { rs, pod: p.id, patch: OwnerPatch::Adopt(self.rs.as_owner()) },
                ClaimCall::Release(p) => {
                    Write::PatchPod { rs, pod: p.id, patch: OwnerPatch::Release(self.rs.meta.uid.clone()) }
                }
            };
            self.waiting = Some(call);
            return Some(write);
        }
        None
    }
}

pub struct Controller {
    cluster: Arc<Cluster>,
    pods: Informer<ApiPod>,
    /// The pods by the UID of their controller reference (the informer index
    /// `AddPodControllerUIDIndexer` registers, `PodControllerUIDIndex`): a
    /// sync reads its own pods, not every pod.
    by_owner: HashMap<Arc<str>, BTreeSet<PodId>>,
    /// The pods with no controller (the orphan key of the same index).
    orphans: BTreeSet<PodId>,
    /// Whether a pod's labels match a template, by pod: pod specs and
    /// templates are shared and never change in place.
    template_matches: HashMap<PodId, (Arc<PodTemplate>, bool)>,
    /// Whether a ReplicaSet's selector selects a pod, by pod, for the pod
    /// spec and ReplicaSet spec it was worked out for (both shared, never
    /// changed in place): each sync claims every pod of its ReplicaSet.
    selector_matches: HashMap<PodId, (Arc<PodSpec>, Arc<RsSpec>, bool)>,
    sets: Informer<ApiReplicaSet>,
    /// The pods each ReplicaSet's sync created or deleted, until seen.
    expectations: Expectations<RsId, PodId>,
    /// Its work queue and the ReplicaSets being synced.
    workers: Workers<RsId, Syncing>,
    rng: Stream,
}

impl Controller {
    pub fn new(cluster: Arc<Cluster>, seed: u64) -> Self {
        Controller {
            cluster,
            pods: Informer::default(),
            by_owner: HashMap::new(),
            orphans: BTreeSet::new(),
            template_matches: HashMap::new(),
            selector_matches: HashMap::new(),
            sets: Informer::default(),
            expectations: Expectations::default(),
            workers: Workers::new(WorkQueue::controller_default(), WORKERS),
            rng: Stream::new(seed, "kube-controller-manager/replicaset"),
        }
    }

    /// `addPod` / `updatePod` / `deletePod`: observe expectations, queue the
    /// owner and a former owner; an orphan queues every ReplicaSet whose
    /// selector matches it, to see whether one wants to adopt it.
    fn pod_event(&mut self, kind: WatchKind, pod: Arc<ApiPod>) {
        let old = self.pods.apply(kind, &pod);
        self.index(old.as_deref(), &pod, kind);
        if old.as_ref().is_some_and(|o| o.meta.resource_version == pod.meta.resource_version) {
            return;
        }
        // `deletePod` (also for a pod that turns terminating): the deletion is observed.
        if kind == WatchKind::Deleted || pod.meta.deletion.is_some() {
            if let Some(rs) = self.owner_of(&pod) {
                self.expectations.deletion_observed(rs, &pod.id);
                self.workers.queue.add(rs);
            }
            return;
        }
        let old_owner = old.as_ref().and_then(|o| o.spec.owner.as_ref());
        let owner_changed = old.is_some() && old_owner != pod.spec.owner.as_ref();
        if owner_changed && let Some(rs) = old.as_deref().and_then(|o| self.owner_of(o)) {
            self.workers.queue.add(rs);
        }
        if pod.spec.owner.is_some() {
            let Some(rs) = self.owner_of(&pod) else { return };
            if old.is_none() {
                self.expectations.creation_observed(rs);
            }
            self.workers.queue.add(rs);
        } else if old.is_none() || owner_changed {
            // No controller observes the creation of an orphan.
            let wanting: Vec<RsId> = self
                .sets
                .list()
                .filter(|r| {
                    *r.spec.namespace == *pod.spec.namespace && wants_orphan(&r.spec.selector, &pod.spec.labels)
                })
                .map(|r| r.id)
                .collect();
            for rs in wanting {
                self.workers.queue.add(rs);
            }
        }
    }

    /// The informer's index of pods by controller UID, and of orphans.
    fn index(&mut self, old: Option<&ApiPod>, pod: &ApiPod, kind: WatchKind) {
        let gone = kind == WatchKind::Deleted;
        if let Some(o) = old.and_then(|o| o.spec.owner.as_ref())
            && (gone || pod.spec.owner.as_ref().is_none_or(|n| n.uid != o.uid))
            && let Some(owned) = self.by_owner.get_mut(&o.uid)
        {
            owned.remove(&pod.id);
        }
        match (&pod.spec.owner, gone) {
            (_, true) => {
                if let Some(owned) = pod.spec.owner.as_ref().and_then(|o| self.by_owner.get_mut(&o.uid)) {
                    owned.remove(&pod.id);
                }
                self.orphans.remove(&pod.id);
                self.template_matches.remove(&pod.id);
                self.selector_matches.remove(&pod.id);
            }
            (Some(o), false) => {
                self.by_owner.entry(o.uid.clone()).or_default().insert(pod.id);
                self.orphans.remove(&pod.id);
            }
            (None, false) => {
                self.orphans.insert(pod.id);
            }
        }
    }

    /// The ReplicaSet whose controller reference the pod carries (`resolveControllerRef`).
    fn owner_of(&self, pod: &ApiPod) -> Option<RsId> {
        let owner = pod.spec.owner.as_ref().filter(|o| o.kind == "ReplicaSet")?;
        self.sets.list().find(|r| r.meta.uid == owner.uid).map(|r| r.id)
    }

    /// The API server answered one of the sync's pod creations, deletions or its status write.
    pub fn written(&mut self, rs: RsId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(Syncing::Managing(m)) = self.workers.state(rs) {
            m.in_flight = m.in_flight.saturating_sub(1);
        }
        self.advance(rs, ctx);
        self.work(ctx);
    }

    /// The API server answered the sync's claim call (`ClaimObject`): an
    /// adopted pod is claimed; a pod gone (404) is not, and is no error; a
    /// refused adoption is; a release's failures are ignored (`ReleasePod`).
    pub fn claim_answered(&mut self, rs: RsId, answer: ClaimAnswer, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(Syncing::Claiming(c)) = self.workers.state(rs) {
            match (c.waiting.take(), answer) {
                (Some(ClaimCall::Recheck), ClaimAnswer::Gone) => c.cannot_adopt = true,
                (Some(ClaimCall::Adopt(p)), ClaimAnswer::Patched(Patched::Changed | Patched::Unchanged)) => {
                    c.claimed.push(p)
                }
                (Some(ClaimCall::Adopt(_)), ClaimAnswer::Patched(Patched::Invalid)) => c.failed = true,
                _ => {}
            }
        }
        self.advance(rs, ctx);
        self.work(ctx);
    }

    /// Free workers take queued ReplicaSets.
    fn work(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while let Some(id) = self.workers.get() {
            self.sync(id, ctx);
        }
    }

    /// `syncReplicaSet`: its pods (`FilterPodsByOwner` with the orphans,
    /// `FilterActivePods`) claimed (`claimPods`), then managed.
    fn sync(&mut self, id: RsId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(rs) = self.sets.get(id).cloned() else {
            self.expectations.delete(id);
            self.workers.done(id);
            return;
        };
        let satisfied = self.expectations.satisfied(id, now);
        // The two index keys are disjoint: no pod is listed twice.
        let owned = self.by_owner.get(&rs.meta.uid).into_iter().flatten();
        let listed = owned.chain(&self.orphans);
        let mut claiming = Claiming {
            rs: rs.clone(),
            calls: VecDeque::new(),
            waiting: None,
            claimed: Vec::new(),
            cannot_adopt: false,
            failed: false,
            satisfied,
            terminating: 0,
        };
        for p in listed.filter_map(|&id| self.pods.get(id)) {
            let mine = p.spec.owner.as_ref().is_some_and(|o| o.uid == rs.meta.uid);
            if mine && p.meta.deletion.is_some() && !p.status.phase.is_terminal() {
                claiming.terminating += 1;
            }
            if !is_active(p) {
                continue;
            }
            let matches = match self.selector_matches.get(&p.id) {
                Some((pod, set, matches)) if Arc::ptr_eq(pod, &p.spec) && Arc::ptr_eq(set, &rs.spec) => *matches,
                _ => {
                    let matches = selects(&rs.spec.selector, &p.spec.labels);
                    self.selector_matches.insert(p.id, (p.spec.clone(), rs.spec.clone(), matches));
                    matches
                }
            };
            let candidate = Candidate {
                owner: p.spec.owner.as_ref(),
                matches,
                deleting: p.meta.deletion.is_some(),
                same_namespace: *p.spec.namespace == *rs.spec.namespace,
            };
            match claim(&rs.meta.uid, rs.meta.deletion.is_some(), candidate) {
                Claim::Owned => claiming.claimed.push(p.clone()),
                Claim::Adopt => {
                    if !claiming.calls.iter().any(|c| matches!(c, ClaimCall::Recheck)) {
                        claiming.calls.push_back(ClaimCall::Recheck);
                    }
                    claiming.calls.push_back(ClaimCall::Adopt(p.clone()));
                }
                Claim::Release => claiming.calls.push_back(ClaimCall::Release(p.clone())),
                Claim::Ignore => {}
            }
        }
        self.workers.run(id, Syncing::Claiming(claiming));
        self.advance(id, ctx);
    }

    /// The next claim call once the previous one is answered; then the
    /// replicas; then the next slow-start batch once the previous one has
    /// returned; after the last write, the status; then the sync is done.
    fn advance(&mut self, id: RsId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(Syncing::Claiming(c)) = self.workers.state(id) {
            if c.waiting.is_some() {
                return;
            }
            if let Some(write) = c.next_call(id) {
                self.send(write, ctx);
                return;
            }
            if let Some(Syncing::Claiming(c)) = self.workers.take(id) {
                if c.failed {
                    // `handleErr`: the key comes back through the rate limiter.
                    if let Some(due) = self.workers.failed(id, ctx.q.now()) {
                        ctx.q.at(due, Out::Own(Ev::Wake(id)));
                    }
                    return;
                }
                self.manage(id, c, ctx);
            }
            return;
        }
        let Some(Syncing::Managing(m)) = self.workers.state(id) else { return };
        if m.in_flight > 0 {
            return;
        }
        if let Some(batch) = m.batches.pop_front() {
            m.in_flight = batch.len() as u32;
            let prefix = pod_name_prefix(&self.sets.get(id).map_or_else(String::new, |r| r.spec.name.to_string()));
            for pod in batch {
                self.send(Write::CreatePod { rs: id, pod, prefix: prefix.clone() }, ctx);
            }
            return;
        }
        // The status PUT is part of the sync: the key is done when it returns.
        if let Some(status) = m.status.take()
            && m.read != status
        {
            m.in_flight = 1;
            self.send(Write::Status { rs: id, status }, ctx);
            return;
        }
        self.workers.succeeded(id);
    }

    /// `manageReplicas` over the claimed pods (when the expectations are
    /// satisfied), then `calculateStatus`.
    fn manage(&mut self, id: RsId, c: Claiming, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let rs = c.rs;
        let mut active = c.claimed;
        active.sort_by_key(|p| p.id);
        let active: Vec<&Arc<ApiPod>> = active.iter().collect();
        let mut managing = Managing { batches: VecDeque::new(), in_flight: 0, status: None, read: rs.status.clone() };
        // `syncReplicaSet`: a ReplicaSet being deleted is not managed, only its status written.
        if c.satisfied && rs.meta.deletion.is_none() {
            match manage_replicas(active.len() as u32, rs.spec.replicas) {
                ReplicaChange::None => {}
                ReplicaChange::Create { count, batches } => {
                    self.expectations.expect_creations(id, count, now);
                    let pod = new_pod(&rs);
                    managing.batches = batches.iter().map(|n| vec![pod.clone(); *n as usize]).collect();
                }
                ReplicaChange::Delete { count } => {
                    let doomed = self.pods_to_delete(&rs, &active, count as usize, now);
                    self.expectations.expect_deletions(id, doomed.iter().copied(), now);
                    // Deletes are not slow-started: all at once.
                    for pod in doomed {
                        self.send(Write::DeletePod { rs: id, pod }, ctx);
                        managing.in_flight += 1;
                    }
                }
            }
        }
        let views: Vec<RsPodView> = active.iter().map(|p| self.pod_view(p, &rs)).collect();
        let gate = self.cluster.version >= crate::cluster::Version::V1_35;
        let counts = calculate_status(&views, c.terminating, gate, rs.spec.min_ready_seconds, now);
        managing.status = Some(RsStatus { counts, observed_generation: rs.meta.generation });
        if let Some(after) = next_availability_check(&views, &counts, rs.spec.min_ready_seconds, now, now) {
            // Never a requeue at the same instant: time must move on for anything to change.
            let delay = after.max(SimDuration::from_millis(1));
            if let Some(due) = self.workers.queue.add_after(id, delay, now) {
                ctx.q.at(due, Out::Own(Ev::Wake(id)));
            }
        }
        self.workers.run(id, Syncing::Managing(managing));
        self.advance(id, ctx);
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

    fn send(&mut self, write: Write, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let sets = &self.sets;
        let label = || {
            let (rs, what) = match &write {
                Write::CreatePod { rs, .. } => (rs, "create a pod"),
                Write::DeletePod { rs, .. } => (rs, "delete a pod"),
                Write::Status { rs, .. } => (rs, "write the status"),
                Write::Recheck { rs, .. } => (rs, "re-check the ReplicaSet"),
                Write::PatchPod { rs, .. } => (rs, "adopt or release a pod"),
            };
            let name = sets.get(*rs).map_or_else(|| "?".to_string(), |r| format!("rs/{}", r.spec.name));
            Label::new(What::ApiWrite, name).with(what)
        };
        let d = self.cluster.latencies.api_write.sample(&mut self.rng, label);
        ctx.q.after(d, Out::Write(write));
    }

    /// `getPodsToDelete`: rank the active pods (`ActivePodsWithRanks`),
    /// counting co-located pods of every ReplicaSet of the same owner.
    fn pods_to_delete(&self, rs: &ApiReplicaSet, active: &[&Arc<ApiPod>], count: usize, now: SimTime) -> Vec<PodId> {
        let related_sets: Vec<&Arc<str>> = self
            .sets
            .list()
            .filter(|r| match (&r.spec.owner, &rs.spec.owner) {
                (Some(a), Some(b)) => a.uid == b.uid,
                _ => r.id == rs.id,
            })
            .map(|r| &r.meta.uid)
            .collect();
        let related_nodes = self
            .pods
            .list()
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
    !p.meta.removed && p.meta.deletion.is_none() && !p.status.phase.is_terminal()
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
