//! The Deployment controller of kube-controller-manager
//! (pkg/controller/deployment/deployment_controller.go `syncDeployment`): it
//! watches Deployments, ReplicaSets and pod deletions, and for each queued
//! Deployment claims its ReplicaSets (adopting orphans its selector matches),
//! then makes one step of its rollout: create or find the new ReplicaSet,
//! scale one side, then write the status. Its API calls are made one after
//! the other, each waited for, as the real sync does.

use super::conditions::{Condition, ConditionStatus, ConditionType, Reason, get_condition, set_condition};
use super::hash::{HASH_LABEL, equal_ignore_hash, pod_template_hash, replica_set_name};
use super::proportional::{is_scaling_event, scale};
use super::revisions::{self, Annotations, REVISION};
use super::rolling::{RollingStep, new_rs_new_replicas, rolling_step};
use super::status::{
    PAUSED_MESSAGE, RESUMED_MESSAGE, Requeue, calculate_status, deployment_complete, new_replica_set_message,
    sync_rollout_status,
};
use super::view::{DeploymentView, RsRef, RsView, ScaleWrite};
use crate::api::deployment::{ApiDeployment, DeploymentStatus};
use crate::api::ownership::{OwnerPatch, Patched};
use crate::api::pod::ApiPod;
use crate::api::replicaset::{ApiReplicaSet, OwnerRef, RsSpec};
use crate::api::store::{Kind, Watch};
use crate::cluster::{Cluster, Version};
use crate::control::controller_ref::{Candidate, Claim, ClaimAnswer, claim, selects, wants_orphan};
use crate::control::runtime::{self, Watching};
use crate::control::workers::Workers;
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::{DeploymentId, RsId};
use crate::informer::Informer;
use crate::rng::{Label, Stream, What};
use crate::spec::{DeploymentSpec, PodTemplate, Strategy};
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::WatchKind;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

/// What the controller sends: messages to itself (its work queue's timers)
/// and its calls to the API server.
#[derive(Debug)]
pub enum Out {
    Own(Ev),
    Write(Box<Write>),
}

/// What reaches the controller.
#[derive(Debug)]
pub enum Ev {
    Deployment(WatchKind, Arc<ApiDeployment>),
    ReplicaSet(WatchKind, Arc<ApiReplicaSet>),
    Pod(WatchKind, Arc<ApiPod>),
    Wake(DeploymentId),
}

/// Its informers (`NewDeploymentController`'s pod, ReplicaSet and Deployment informers).
impl Watching for Controller {
    type Ev = Ev;
    const WATCHES: &'static [Watch] = &[
        (Kind::Pod, "deployment/pods"),
        (Kind::ReplicaSet, "deployment/replicasets"),
        (Kind::Deployment, "deployment/deployments"),
    ];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Pod { kind, pod } => Some(Ev::Pod(*kind, pod.clone())),
            Record::ReplicaSet { kind, rs } => Some(Ev::ReplicaSet(*kind, rs.clone())),
            Record::Deployment { kind, deployment } => Some(Ev::Deployment(*kind, deployment.clone())),
            _ => None,
        }
    }
}

impl runtime::Controller for Controller {
    type Out = Out;

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match ev {
            Ev::Deployment(kind, d) => {
                self.deployments.apply(kind, &d);
                self.workers.queue.add(d.id);
            }
            Ev::ReplicaSet(kind, rs) => self.replica_set_event(kind, rs),
            Ev::Pod(kind, pod) => self.pod_event(kind, pod),
            Ev::Wake(id) => self.workers.queue.wake(id, now),
        }
        self.work(ctx);
    }
}

/// One API call of a sync.
#[derive(Clone, Debug)]
pub enum Write {
    /// POST the new ReplicaSet.
    CreateRs { d: DeploymentId, spec: Arc<RsSpec> },
    /// PUT a ReplicaSet (`scaleReplicaSet`, annotation updates), based on
    /// the version read.
    UpdateRs { d: DeploymentId, rs: RsId, spec: Arc<RsSpec>, read: u64 },
    /// PUT the Deployment's status (and its revision annotation).
    Status { d: DeploymentId, status: DeploymentStatus, annotations: Annotations, read: u64 },
    /// DELETE an old ReplicaSet (`cleanupDeployment`).
    DeleteRs { d: DeploymentId, rs: RsId },
    /// A `ScalingReplicaSet` event, recorded when the scale write returns.
    Event { d: DeploymentId, message: String },
    /// The uncached GET of the Deployment before its first adoption of a
    /// sync (`getReplicaSetsForDeployment`'s `RecheckDeletionTimestamp`).
    Recheck { d: DeploymentId, uid: Arc<str> },
    /// PATCH a ReplicaSet's controller reference (`AdoptReplicaSet`, `ReleaseReplicaSet`).
    PatchRs { d: DeploymentId, rs: RsId, patch: OwnerPatch },
}

/// What a write's latency draw is about: its Deployment, and the write.
fn write_label(deployments: &Informer<ApiDeployment>, write: &Write) -> Label {
    let (d, what) = match write {
        Write::CreateRs { d, .. } => (d, "create a ReplicaSet"),
        Write::UpdateRs { d, .. } => (d, "update a ReplicaSet"),
        Write::Status { d, .. } => (d, "write the status"),
        Write::DeleteRs { d, .. } => (d, "delete a ReplicaSet"),
        Write::Event { d, .. } => (d, "record an event"),
        Write::Recheck { d, .. } => (d, "re-check the Deployment"),
        Write::PatchRs { d, .. } => (d, "adopt or release a ReplicaSet"),
    };
    let name = deployments.get(*d).map_or_else(|| "?".to_string(), |x| format!("deploy/{}", x.spec.name));
    Label::new(What::ApiWrite, name).with(what)
}

/// The API server's answer to a write of the sync's plan.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Done,
    /// A ReplicaSet PUT returns the object as stored: the sync's next write
    /// of it is based on this resourceVersion (`scaleReplicaSet` and
    /// `getNewReplicaSet` return the updated ReplicaSet, which the rest of
    /// the sync uses).
    Stored {
        rs: RsId,
        resource_version: u64,
    },
    /// 409 Conflict: based on an older version than the stored one.
    Refused,
}

/// What a refused call does to the rest of the sync.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum OnRefusal {
    /// The sync returns the error: it ends, and the Deployment is queued
    /// again through the rate limiter (`handleErr`).
    Fails,
    /// `reconcileOldReplicaSets` returns `false, nil` when
    /// `cleanupUnhealthyReplicas` or `scaleDownOldReplicaSetsForRollingUpdate`
    /// fails: its remaining scale writes are skipped, the sync goes on.
    SkipsOldScaleDown,
}

/// One call of the plan.
#[derive(Clone, Debug)]
struct Step {
    write: Write,
    on_refusal: OnRefusal,
}

/// A sync of one Deployment: its claims, then its plan's calls.
enum Syncing {
    Claiming(Claiming),
    Writing(Writing),
}

/// `getReplicaSetsForDeployment` (`ClaimReplicaSets`), before the plan.
struct Claiming {
    /// The Deployment as read when the sync began.
    d: Arc<ApiDeployment>,
    /// The ReplicaSets claimed, as read when the sync began: owned ones at
    /// once, adopted ones once their PATCH succeeded (the sync goes on with
    /// the informer's copy, not the PATCH's answer).
    sets: Vec<Arc<ApiReplicaSet>>,
    calls: VecDeque<ClaimCall>,
    waiting: Option<ClaimCall>,
    /// `canAdopt` failed: every later adoption fails without a call.
    cannot_adopt: bool,
    /// An adoption failed: the sync returns the error once every ReplicaSet is claimed.
    failed: bool,
}

#[derive(Clone, Debug)]
enum ClaimCall {
    Recheck,
    Adopt(Arc<ApiReplicaSet>),
    Release(Arc<ApiReplicaSet>),
}

impl Claiming {
    /// The next call to send, if any: an adoption after `canAdopt` failed
    /// fails without one.
    fn next_call(&mut self) -> Option<Write> {
        let d = &self.d;
        while let Some(call) = self.calls.pop_front() {
            let write = match &call {
                ClaimCall::Recheck => Write::Recheck { d: d.id, uid: d.meta.uid.clone() },
                ClaimCall::Adopt(_) if self.cannot_adopt => {
                    self.failed = true;
                    continue;
                }
                ClaimCall::Adopt(rs) => {
                    let owner =
                        OwnerRef { kind: "Deployment", name: Arc::from(d.spec.name.as_str()), uid: d.meta.uid.clone() };
                    Write::PatchRs { d: d.id, rs: rs.id, patch: OwnerPatch::Adopt(owner) }
                }
                ClaimCall::Release(rs) => {
                    Write::PatchRs { d: d.id, rs: rs.id, patch: OwnerPatch::Release(d.meta.uid.clone()) }
                }
            };
            self.waiting = Some(call);
            return Some(write);
        }
        None
    }
}

/// The plan's calls still to make, and the ReplicaSets they already stored.
struct Writing {
    steps: VecDeque<Step>,
    /// What a refusal of the call in flight does.
    sent: OnRefusal,
    stored: BTreeMap<RsId, u64>,
}

/// `ConcurrentDeploymentSyncs`.
const WORKERS: usize = 5;

pub struct Controller {
    cluster: Arc<Cluster>,
    deployments: Informer<ApiDeployment>,
    sets: Informer<ApiReplicaSet>,
    pods: Informer<ApiPod>,
    /// Its work queue and the Deployments being synced.
    workers: Workers<DeploymentId, Syncing>,
    templates: TemplateMatches,
    rng: Stream,
}

/// `EqualIgnoreHash` of the templates a sync compared before: specs are
/// shared and never change in place, so one comparison of a pair stands.
#[derive(Default)]
struct TemplateMatches {
    seen: Vec<(Arc<PodTemplate>, Arc<DeploymentSpec>, bool)>,
}

impl TemplateMatches {
    fn equal(&mut self, rs: &Arc<PodTemplate>, d: &Arc<DeploymentSpec>) -> bool {
        let found = self.seen.iter().find(|(t, s, _)| Arc::ptr_eq(t, rs) && Arc::ptr_eq(s, d));
        if let Some(&(_, _, equal)) = found {
            return equal;
        }
        let equal = equal_ignore_hash(rs, &d.template);
        self.seen.push((rs.clone(), d.clone(), equal));
        equal
    }
}

impl Controller {
    pub fn new(cluster: Arc<Cluster>, seed: u64) -> Self {
        Controller {
            cluster,
            deployments: Informer::default(),
            sets: Informer::default(),
            pods: Informer::default(),
            workers: Workers::new(WorkQueue::controller_default(), WORKERS),
            templates: TemplateMatches::default(),
            rng: Stream::new(seed, "kube-controller-manager/deployment"),
        }
    }

    /// `deletePod`: a Recreate Deployment is synced once none of its pods is left.
    fn pod_event(&mut self, kind: WatchKind, pod: Arc<ApiPod>) {
        self.pods.apply(kind, &pod);
        if kind != WatchKind::Deleted {
            return;
        }
        let Some(rs_uid) = pod.spec.owner.as_ref().map(|o| o.uid.clone()) else { return };
        let Some(rs) = self.sets.list().find(|r| r.meta.uid == rs_uid).cloned() else { return };
        let Some(d) = self.owner_of(&rs) else { return };
        let recreate = self.deployments.get(d).is_some_and(|d| d.spec.strategy == Strategy::Recreate);
        let uids: Vec<Arc<str>> = self.owned_sets(d).iter().map(|r| r.meta.uid.clone()).collect();
        let left = self.pods.list().any(|p| p.spec.owner.as_ref().is_some_and(|o| uids.contains(&o.uid)));
        if recreate && !left {
            self.workers.queue.add(d);
        }
    }

    /// `addReplicaSet` / `updateReplicaSet` / `deleteReplicaSet`: the owner
    /// (and a former owner) is queued; an orphan's creation, or a change of
    /// its labels or controller, queues every Deployment whose selector
    /// matches it, to see whether one wants to adopt it.
    fn replica_set_event(&mut self, kind: WatchKind, rs: Arc<ApiReplicaSet>) {
        let old = self.sets.apply(kind, &rs);
        if old.as_ref().is_some_and(|o| o.meta.resource_version == rs.meta.resource_version) {
            return;
        }
        let changed = old.as_ref().is_some_and(|o| o.spec.owner != rs.spec.owner);
        if changed && let Some(d) = old.as_deref().and_then(|o| self.owner_of(o)) {
            self.workers.queue.add(d);
        }
        if rs.spec.owner.is_some() {
            if let Some(d) = self.owner_of(&rs) {
                self.workers.queue.add(d);
            }
            return;
        }
        let labels_changed = old.as_ref().is_some_and(|o| o.spec.labels != rs.spec.labels);
        if kind == WatchKind::Added || (kind == WatchKind::Modified && (labels_changed || changed)) {
            let wanting: Vec<DeploymentId> = self
                .deployments
                .list()
                .filter(|d| d.spec.namespace == *rs.spec.namespace && wants_orphan(&d.spec.selector, &rs.spec.labels))
                .map(|d| d.id)
                .collect();
            for d in wanting {
                self.workers.queue.add(d);
            }
        }
    }

    /// The Deployment a controller reference names (`resolveControllerRef`).
    fn owner_of(&self, rs: &ApiReplicaSet) -> Option<DeploymentId> {
        let owner = rs.spec.owner.as_ref().filter(|o| o.kind == "Deployment")?;
        self.deployments.list().find(|d| d.meta.uid == owner.uid).map(|d| d.id)
    }

    fn owned_sets(&self, d: DeploymentId) -> Vec<Arc<ApiReplicaSet>> {
        let Some(dep) = self.deployments.get(d) else { return Vec::new() };
        self.sets.list().filter(|r| r.spec.owner.as_ref().is_some_and(|o| o.uid == dep.meta.uid)).cloned().collect()
    }

    /// The API server answered the sync's last write: the next one. After a
    /// conflict the sync fails and the Deployment is retried later
    /// (`handleErr`: `AddRateLimited`), unless `reconcileOldReplicaSets`
    /// swallows the error.
    pub fn written(&mut self, d: DeploymentId, answer: Answer, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(Syncing::Writing(w)) = self.workers.state(d) else { return };
        match answer {
            Answer::Done => {}
            Answer::Stored { rs, resource_version } => {
                w.stored.insert(rs, resource_version);
            }
            Answer::Refused => match w.sent {
                OnRefusal::SkipsOldScaleDown => {
                    while w.steps.front().is_some_and(|s| s.on_refusal == OnRefusal::SkipsOldScaleDown) {
                        w.steps.pop_front();
                    }
                }
                OnRefusal::Fails => {
                    self.fail(d, ctx);
                    self.work(ctx);
                    return;
                }
            },
        }
        self.next_write(d, ctx);
        self.work(ctx);
    }

    /// The API server answered the sync's claim call (`ClaimObject`): an
    /// adopted ReplicaSet is claimed; one gone (404) is not, and is no
    /// error; a refused adoption is; a release's failures are ignored.
    pub fn claim_answered(&mut self, d: DeploymentId, answer: ClaimAnswer, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(Syncing::Claiming(c)) = self.workers.state(d) {
            match (c.waiting.take(), answer) {
                (Some(ClaimCall::Recheck), ClaimAnswer::Gone) => c.cannot_adopt = true,
                (Some(ClaimCall::Adopt(rs)), ClaimAnswer::Patched(Patched::Changed | Patched::Unchanged)) => {
                    c.sets.push(rs)
                }
                (Some(ClaimCall::Adopt(_)), ClaimAnswer::Patched(Patched::Invalid)) => c.failed = true,
                _ => {}
            }
        }
        self.claim(d, ctx);
        self.work(ctx);
    }

    /// The sync failed: the key comes back through the rate limiter.
    fn fail(&mut self, d: DeploymentId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(due) = self.workers.failed(d, ctx.q.now()) {
            ctx.q.at(due, Out::Own(Ev::Wake(d)));
        }
    }

    fn work(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while let Some(id) = self.workers.get() {
            self.sync(id, ctx);
        }
    }

    /// The plan's next call; a ReplicaSet written before in the same sync
    /// is written based on the answer.
    fn next_write(&mut self, id: DeploymentId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(Syncing::Writing(w)) = self.workers.state(id) else { return };
        match w.steps.pop_front() {
            Some(Step { mut write, on_refusal }) => {
                if let Write::UpdateRs { rs, read, .. } = &mut write
                    && let Some(stored) = w.stored.get(rs)
                {
                    *read = *stored;
                }
                w.sent = on_refusal;
                let deployments = &self.deployments;
                let delay = match write {
                    Write::Event { .. } => SimDuration::ZERO,
                    _ => self.cluster.latencies.api_write.sample(&mut self.rng, || write_label(deployments, &write)),
                };
                ctx.q.after(delay, Out::Write(Box::new(write)));
            }
            None => {
                self.workers.succeeded(id);
            }
        }
    }

    /// `syncDeployment`: claim the ReplicaSets (`getReplicaSetsForDeployment`:
    /// `ClaimReplicaSets` over every ReplicaSet of the namespace), then plan.
    fn sync(&mut self, id: DeploymentId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(d) = self.deployments.get(id).cloned() else {
            self.workers.done(id);
            return;
        };
        let mut c = Claiming {
            d: d.clone(),
            sets: Vec::new(),
            calls: VecDeque::new(),
            waiting: None,
            cannot_adopt: false,
            failed: false,
        };
        for rs in self.sets.list().filter(|r| !r.meta.removed) {
            let candidate = Candidate {
                owner: rs.spec.owner.as_ref(),
                matches: selects(&d.spec.selector, &rs.spec.labels),
                deleting: false,
                same_namespace: *rs.spec.namespace == d.spec.namespace,
            };
            match claim(&d.meta.uid, d.meta.deletion.is_some(), candidate) {
                Claim::Owned => c.sets.push(rs.clone()),
                Claim::Adopt => {
                    if !c.calls.iter().any(|c| matches!(c, ClaimCall::Recheck)) {
                        c.calls.push_back(ClaimCall::Recheck);
                    }
                    c.calls.push_back(ClaimCall::Adopt(rs.clone()));
                }
                Claim::Release => c.calls.push_back(ClaimCall::Release(rs.clone())),
                Claim::Ignore => {}
            }
        }
        self.workers.run(id, Syncing::Claiming(c));
        self.claim(id, ctx);
    }

    /// The next claim call once the previous one is answered; after the
    /// last, the plan.
    fn claim(&mut self, id: DeploymentId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(Syncing::Claiming(c)) = self.workers.state(id) else { return };
        if c.waiting.is_some() {
            return;
        }
        if let Some(write) = c.next_call() {
            let deployments = &self.deployments;
            let delay = self.cluster.latencies.api_write.sample(&mut self.rng, || write_label(deployments, &write));
            ctx.q.after(delay, Out::Write(Box::new(write)));
            return;
        }
        let Some(Syncing::Claiming(c)) = self.workers.take(id) else { return };
        if c.failed {
            self.fail(id, ctx);
            return;
        }
        let now = ctx.q.now();
        let mut plan = Plan::new(&c.d, c.sets, &mut self.templates, self.cluster.version);
        let requeue = plan.run(&self.pods, now);
        match requeue {
            Requeue::Never => {}
            Requeue::RateLimited => self.add_after(id, SimDuration::from_millis(5), ctx),
            Requeue::After(after) => self.add_after(id, after, ctx),
        }
        let writing = Writing { steps: plan.writes, sent: OnRefusal::Fails, stored: BTreeMap::new() };
        self.workers.run(id, Syncing::Writing(writing));
        self.next_write(id, ctx);
    }

    fn add_after(&mut self, id: DeploymentId, delay: SimDuration, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(due) = self.workers.queue.add_after(id, delay, ctx.q.now()) {
            ctx.q.at(due, Out::Own(Ev::Wake(id)));
        }
    }
}

/// One sync's reading of the world and the calls it decides on, in order.
struct Plan {
    d: Arc<ApiDeployment>,
    /// The Deployment's name, made once for the sync's views.
    name: Arc<str>,
    /// The new ReplicaSet (matching the template), once found or planned.
    new: Option<(Option<RsId>, Arc<RsSpec>, RsView)>,
    old: Vec<(RsId, Arc<RsSpec>, RsView)>,
    /// Each ReplicaSet's `metadata.generation` and `resourceVersion` as read.
    generations: BTreeMap<RsId, u64>,
    versions: BTreeMap<RsId, u64>,
    /// Old ReplicaSets being deleted (`cleanupDeployment` leaves them be).
    deleting: BTreeSet<RsId>,
    annotations: Annotations,
    status: DeploymentStatus,
    version: Version,
    writes: VecDeque<Step>,
    /// The ReplicaSets as the sync's status sees them, once a scale was
    /// planned: `scaleReplicaSet` updates a copy, so `syncRolloutStatus` and
    /// `syncDeploymentStatus` count the sizes read (a ReplicaSet this sync
    /// creates, its created size).
    read_views: Option<(Option<RsView>, Vec<RsView>)>,
}

impl Plan {
    fn new(
        d: &Arc<ApiDeployment>,
        sets: Vec<Arc<ApiReplicaSet>>,
        templates: &mut TemplateMatches,
        version: Version,
    ) -> Plan {
        let mut sets: Vec<Arc<ApiReplicaSet>> = sets.into_iter().filter(|r| !r.meta.removed).collect();
        // `FindNewReplicaSet`: the oldest whose template equals the Deployment's, hash aside.
        sets.sort_by(|a, b| {
            a.meta.created.whole_seconds().cmp(&b.meta.created.whole_seconds()).then(a.spec.name.cmp(&b.spec.name))
        });
        let new_index = sets.iter().position(|r| templates.equal(&r.spec.template, &d.spec));
        let mut new = None;
        let mut old = Vec::new();
        for (i, r) in sets.iter().enumerate() {
            let entry = (r.id, r.spec.clone(), rs_view(r));
            match Some(i) == new_index {
                true => new = Some((Some(entry.0), entry.1, entry.2)),
                false => old.push(entry),
            }
        }
        let generations = sets.iter().map(|r| (r.id, r.meta.generation as u64)).collect();
        let deleting = sets.iter().filter(|r| r.meta.deletion.is_some()).map(|r| r.id).collect();
        let versions = sets.iter().map(|r| (r.id, r.meta.resource_version)).collect();
        Plan {
            d: d.clone(),
            name: Arc::from(d.spec.name.as_str()),
            new,
            old,
            generations,
            versions,
            deleting,
            annotations: d.annotations.clone(),
            status: d.status.clone(),
            version,
            writes: VecDeque::new(),
            read_views: None,
        }
    }

    /// The new and old ReplicaSets for the sync's status (`read_views`).
    fn status_views(&self) -> (Option<RsView>, Vec<RsView>) {
        match &self.read_views {
            Some(views) => views.clone(),
            None => (self.new.as_ref().map(|n| n.2.clone()), self.old_views()),
        }
    }

    /// The Deployment as read, its status as read.
    fn view(&self) -> DeploymentView {
        self.view_with(self.d.status.clone())
    }

    /// The Deployment as read, with `status` (the one the sync has computed so far).
    fn view_with(&self, status: DeploymentStatus) -> DeploymentView {
        let s = &self.d.spec;
        DeploymentView {
            name: self.name.clone(),
            generation: self.d.meta.generation as u64,
            replicas: s.replicas,
            strategy: s.strategy,
            progress_deadline_seconds: s.progress_deadline_seconds,
            status,
        }
    }

    fn old_views(&self) -> Vec<RsView> {
        self.old.iter().map(|o| o.2.clone()).collect()
    }

    /// `syncDeploymentStatus`: the counts of the ReplicaSets as planned,
    /// written when they changed.
    fn sync_counts(&mut self, now: SimTime) {
        let view = self.view_with(self.status.clone());
        let gate = self.version >= Version::V1_35;
        let (new, olds) = self.status_views();
        self.status = calculate_status(&view, new.as_ref(), &olds, gate, now);
        self.write_status_if_changed();
    }

    /// The sync; returns the requeue `syncRolloutStatus` asks for.
    fn run(&mut self, pods: &Informer<ApiPod>, now: SimTime) -> Requeue {
        let d = self.d.clone();
        // `syncDeployment`: a Deployment being deleted has its status synced only (`syncStatusOnly`).
        if d.meta.deletion.is_some() {
            self.new_replica_set(false, now);
            self.sync_counts(now);
            return Requeue::Never;
        }
        let spec = &d.spec;
        let olds = self.old_views();
        self.paused_conditions(now);
        // `sync()`: a paused Deployment or a scaling event scales
        // proportionally and writes counts only (`syncDeploymentStatus`).
        if spec.paused || is_scaling_event(spec.replicas, self.new.as_ref().map(|n| &n.2), &olds) {
            self.new_replica_set(false, now);
            let writes = scale(&self.view(), self.new.as_ref().map(|n| &n.2), &self.old_views());
            self.scale_all(&writes, OnRefusal::Fails);
            if spec.paused {
                self.cleanup();
            }
            self.sync_counts(now);
            return Requeue::Never;
        }
        match spec.strategy {
            Strategy::RollingUpdate { .. } => {
                self.new_replica_set(true, now);
                let new_view = self.new.as_ref().expect("created").2.clone();
                let step = rolling_step(spec.strategy, spec.replicas, &new_view, &self.old_views());
                let (scaled, on_refusal) = match &step {
                    RollingStep::New(_) => (true, OnRefusal::Fails),
                    RollingStep::Old(o) => (o.scaled(), OnRefusal::SkipsOldScaleDown),
                };
                self.scale_all(step.writes(), on_refusal);
                if !scaled && deployment_complete(&self.view(), &d.status) {
                    self.cleanup();
                }
            }
            // `rolloutRecreate`.
            Strategy::Recreate => {
                self.new_replica_set(false, now);
                let downs: Vec<ScaleWrite> = (0..self.old.len())
                    .filter(|&i| self.old[i].2.spec_replicas > 0)
                    .map(|i| ScaleWrite { rs: RsRef::Old(i), from: self.old[i].2.spec_replicas, to: 0 })
                    .collect();
                if !downs.is_empty() {
                    self.scale_all(&downs, OnRefusal::Fails);
                    return self.rollout_status(now);
                }
                if self.old_pods_running(pods) {
                    return self.rollout_status(now);
                }
                if self.new.is_none() {
                    self.new_replica_set(true, now);
                }
                let n = self.new.as_ref().expect("created").2.spec_replicas;
                if n != spec.replicas {
                    self.scale_all(&[ScaleWrite { rs: RsRef::New, from: n, to: spec.replicas }], OnRefusal::Fails);
                }
                if deployment_complete(&self.view(), &d.status) {
                    self.cleanup();
                }
            }
        }
        self.rollout_status(now)
    }

    /// `checkPausedConditions`: Progressing Unknown while paused, and once
    /// resumed, unless the deadline already passed.
    fn paused_conditions(&mut self, now: SimTime) {
        if self.d.spec.progress_deadline_seconds.is_none() {
            return;
        }
        let current = get_condition(&self.status.conditions, ConditionType::Progressing).map(|c| c.reason);
        if current == Some(Reason::ProgressDeadlineExceeded) {
            return;
        }
        let paused = self.d.spec.paused;
        let (reason, message) = match (paused, current) {
            (true, r) if r != Some(Reason::DeploymentPaused) => (Reason::DeploymentPaused, PAUSED_MESSAGE),
            (false, Some(Reason::DeploymentPaused)) => (Reason::DeploymentResumed, RESUMED_MESSAGE),
            _ => return,
        };
        let c = Condition::new(ConditionType::Progressing, ConditionStatus::Unknown, reason, message.into(), now);
        set_condition(&mut self.status.conditions, c);
        self.write_status_if_changed();
    }

    /// `oldPodsRunning`: old ReplicaSets still count pods, or a pod of theirs
    /// is not finished (terminating ones included).
    fn old_pods_running(&self, pods: &Informer<ApiPod>) -> bool {
        if self.old.iter().any(|o| o.2.status_replicas > 0) {
            return true;
        }
        let old_names: Vec<&Arc<str>> = self.old.iter().map(|o| &o.1.name).collect();
        pods.list().any(|p| {
            p.spec.owner.as_ref().is_some_and(|o| old_names.contains(&&o.name)) && !p.status.phase.is_terminal()
        })
    }

    /// `getNewReplicaSet`: update the existing one's annotations, or create it.
    fn new_replica_set(&mut self, create: bool, now: SimTime) {
        let d = self.d.clone();
        let spec = &d.spec;
        let old_annotations: Vec<&Annotations> = self.old.iter().map(|o| &o.1.annotations).collect();
        let new_revision = revisions::new_revision(old_annotations).to_string();
        if let Some((Some(id), rs, _)) = &self.new {
            let mut annotations = rs.annotations.clone();
            let changed = revisions::set_new_replica_set_annotations(
                &self.annotations,
                spec.replicas,
                spec.strategy,
                &mut annotations,
                &new_revision,
                true,
            );
            let min_ready = rs.min_ready_seconds != spec.min_ready_seconds;
            if changed || min_ready {
                let id = *id;
                let updated =
                    Arc::new(RsSpec { annotations, min_ready_seconds: spec.min_ready_seconds, ..RsSpec::clone(rs) });
                self.update_rs(id, updated.clone(), OnRefusal::Fails);
                self.new.as_mut().expect("new").1 = updated;
                return;
            }
            let revision = rs.annotations.get(REVISION).cloned().unwrap_or_default();
            revisions::set_deployment_revision(&mut self.annotations, &revision);
            if spec.progress_deadline_seconds.is_some()
                && get_condition(&self.status.conditions, ConditionType::Progressing).is_none()
            {
                let message = new_replica_set_message(false, &rs.name);
                let c = Condition::new(
                    ConditionType::Progressing,
                    ConditionStatus::True,
                    Reason::FoundNewReplicaSet,
                    message,
                    now,
                );
                set_condition(&mut self.status.conditions, c);
            }
            self.write_status_if_changed();
            return;
        }
        if !create {
            return;
        }
        // Template and selector get `pod-template-hash`.
        let canonical = serde_json::to_vec(&spec.template.object).unwrap_or_default();
        let hash = pod_template_hash(&canonical, self.status.collision_count);
        let name = replica_set_name(&spec.name, &hash);
        let mut template: PodTemplate = spec.template.clone();
        template.labels.insert(HASH_LABEL.into(), hash.clone());
        template.pod.labels.insert(HASH_LABEL.into(), hash.clone());
        let meta = template.object.metadata.get_or_insert_with(Default::default);
        meta.labels.get_or_insert_with(Default::default).insert(HASH_LABEL.into(), hash.clone());
        let mut selector = spec.selector.clone();
        selector.insert(HASH_LABEL.into(), hash);
        let replicas = new_rs_new_replicas(spec.strategy, spec.replicas, 0, &self.old_views());
        let mut annotations = Annotations::new();
        revisions::set_new_replica_set_annotations(
            &self.annotations,
            spec.replicas,
            spec.strategy,
            &mut annotations,
            &new_revision,
            false,
        );
        let rs = Arc::new(RsSpec {
            name: Arc::from(name.as_str()),
            namespace: Arc::from(spec.namespace.as_str()),
            labels: template.labels.clone(),
            annotations,
            owner: Some(OwnerRef { kind: "Deployment", name: Arc::from(spec.name.as_str()), uid: d.meta.uid.clone() }),
            replicas,
            selector,
            template: Arc::new(template),
            min_ready_seconds: spec.min_ready_seconds,
        });
        self.push(Write::CreateRs { d: d.id, spec: rs.clone() }, OnRefusal::Fails);
        if replicas > 0 {
            let message = format!("Scaled up replica set {name} from 0 to {replicas}");
            self.push(Write::Event { d: d.id, message }, OnRefusal::Fails);
        }
        let mut view = RsView::new(name.as_str(), now, replicas);
        view.revision = new_revision.parse().unwrap_or(0);
        self.new = Some((None, rs, view));
        revisions::set_deployment_revision(&mut self.annotations, &new_revision);
        if spec.progress_deadline_seconds.is_some() {
            let message = new_replica_set_message(true, &name);
            let c = Condition::new(
                ConditionType::Progressing,
                ConditionStatus::True,
                Reason::NewReplicaSetCreated,
                message,
                now,
            );
            set_condition(&mut self.status.conditions, c);
        }
        self.write_status_if_changed();
    }

    /// `scaleReplicaSetAndRecordEvent` for each write: the size, the
    /// desired/max annotations, and the event when the size changed.
    fn scale_all(&mut self, writes: &[ScaleWrite], on_refusal: OnRefusal) {
        let d = self.d.clone();
        let spec = &d.spec;
        let max = spec.replicas + super::fenceposts::max_surge(spec.strategy, spec.replicas);
        if self.read_views.is_none() {
            self.read_views = Some((self.new.as_ref().map(|n| n.2.clone()), self.old_views()));
        }
        for w in writes {
            let (id, rs, view) = match w.rs {
                RsRef::New => {
                    let n = self.new.as_mut().expect("new");
                    (n.0, &mut n.1, &mut n.2)
                }
                RsRef::Old(i) => {
                    let o = &mut self.old[i];
                    (Some(o.0), &mut o.1, &mut o.2)
                }
            };
            let mut annotations = rs.annotations.clone();
            revisions::set_replicas_annotations(&mut annotations, spec.replicas, max);
            view.spec_replicas = w.to;
            let name = rs.name.clone();
            if rs.replicas == w.to && rs.annotations == annotations {
                continue;
            }
            let updated = Arc::new(RsSpec { replicas: w.to, annotations, ..RsSpec::clone(rs) });
            *rs = updated.clone();
            match id {
                Some(id) => self.update_rs(id, updated, on_refusal),
                // Planned in this sync: the create carries the size.
                None => {
                    if let Some((Some(read), _)) = self.read_views.as_mut() {
                        read.spec_replicas = w.to;
                    }
                    for step in self.writes.iter_mut() {
                        if let Write::CreateRs { spec, .. } = &mut step.write {
                            *spec = updated.clone();
                        }
                    }
                }
            }
            if let Some(message) = w.event_message(&name) {
                self.push(Write::Event { d: d.id, message }, on_refusal);
            }
        }
    }

    /// A PUT of ReplicaSet `rs`, based on the version read; a second one in
    /// the same sync is a second PUT, based on the first's answer
    /// (`cleanupUnhealthyReplicas` then `scaleDownOldReplicaSetsForRollingUpdate`
    /// scale the same old ReplicaSet twice).
    fn update_rs(&mut self, rs: RsId, spec: Arc<RsSpec>, on_refusal: OnRefusal) {
        let read = self.versions.get(&rs).copied().unwrap_or(0);
        self.push(Write::UpdateRs { d: self.d.id, rs, spec, read }, on_refusal);
    }

    fn push(&mut self, write: Write, on_refusal: OnRefusal) {
        self.writes.push_back(Step { write, on_refusal });
    }

    /// `cleanupDeployment`: the oldest revisions beyond `revisionHistoryLimit`
    /// are deleted, if fully scaled down and settled; one being deleted
    /// already is not counted.
    fn cleanup(&mut self) {
        let limit = self.d.spec.revision_history_limit as usize;
        let mut cleanable: Vec<&(RsId, Arc<RsSpec>, RsView)> =
            self.old.iter().filter(|o| !self.deleting.contains(&o.0)).collect();
        if cleanable.len() <= limit {
            return;
        }
        cleanable.sort_by_key(|o| (o.2.revision, o.2.created));
        let diff = cleanable.len() - limit;
        let doomed: Vec<RsId> = cleanable[..diff]
            .iter()
            .filter(|o| {
                o.2.status_replicas == 0 && o.1.replicas == 0 && o.2.observed_generation >= self.generation_of(o.0)
            })
            .map(|o| o.0)
            .collect();
        for rs in doomed {
            self.push(Write::DeleteRs { d: self.d.id, rs }, OnRefusal::Fails);
        }
    }

    fn generation_of(&self, rs: RsId) -> u64 {
        self.generations.get(&rs).copied().unwrap_or(0)
    }

    /// `syncRolloutStatus`.
    fn rollout_status(&mut self, now: SimTime) -> Requeue {
        let view = self.view_with(self.status.clone());
        let gate = self.version >= Version::V1_35;
        let (new, olds) = self.status_views();
        let sync = sync_rollout_status(&view, new.as_ref(), &olds, gate, now);
        self.status = sync.status;
        self.write_status_if_changed();
        sync.requeue
    }

    /// Queues an UpdateStatus when something changed; condition times are
    /// stored as the API stores them (whole seconds).
    fn write_status_if_changed(&mut self) {
        for c in &mut self.status.conditions {
            c.last_update = whole_seconds(c.last_update);
            c.last_transition = whole_seconds(c.last_transition);
        }
        if self.status != self.d.status || self.annotations != self.d.annotations {
            let write = Write::Status {
                d: self.d.id,
                status: self.status.clone(),
                annotations: self.annotations.clone(),
                read: self.d.meta.resource_version,
            };
            // Each UpdateStatus is sent from the Deployment as read: a second
            // one in the same sync (getNewReplicaSet's, then syncRolloutStatus's)
            // conflicts, and the sync is retried, as on a cluster.
            self.push(write, OnRefusal::Fails);
        }
    }
}

fn whole_seconds(t: SimTime) -> SimTime {
    SimTime::from_millis(t.whole_seconds() * 1000)
}

fn rs_view(r: &ApiReplicaSet) -> RsView {
    let c = &r.status.counts;
    let a = &r.spec.annotations;
    let created = SimTime::from_millis(r.meta.created.whole_seconds() * 1000);
    // The name shared, not copied: a view of each ReplicaSet is made every sync.
    let mut v = RsView::new(r.spec.name.clone(), created, r.spec.replicas);
    v.revision = revisions::revision(a).unwrap_or(0).max(0) as u64;
    v.status_replicas = c.replicas;
    v.ready = c.ready_replicas;
    v.available = c.available_replicas;
    v.terminating = c.terminating_replicas;
    v.observed_generation = r.status.observed_generation.max(0) as u64;
    v.desired_replicas = revisions::int_annotation(a, revisions::DESIRED_REPLICAS);
    v.max_replicas = revisions::int_annotation(a, revisions::MAX_REPLICAS);
    v
}
