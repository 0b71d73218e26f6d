//! The StatefulSet controller of kube-controller-manager
//! (pkg/controller/statefulset/stateful_set.go and stateful_set_control.go):
//! it watches StatefulSets and Pods (and lists ControllerRevisions), and for
//! each queued set finds or writes its update revision, walks its ordinals
//! (`processReplica`, `processCondemned`), takes one rolling-update step and
//! writes the status. There are no expectations: it reads its own writes
//! from the cache, and a create that finds the name taken fails the sync,
//! which comes back rate-limited.
//!
//! Left out: adopting orphan pods and releasing pods (`ClaimPods`),
//! identity repair (`UpdateStatefulPod`), `whenDeleted: Delete` (a
//! StatefulSet is never deleted in a run), `updateStrategy: Recreate`
//! (alpha in 1.37, gate off).

use super::identity::{REVISION_LABEL, Slot, parent_and_ordinal, slot};
use super::pods::{at_current_revision, claim_names, claims, new_pod};
use super::replica::{PodState, Step, process_condemned, process_replica};
use super::revision;
use super::rolling::{max_unavailable, max_unavailable_gate, one_at_a_time, within_budget};
use super::status::{Counted, complete_rolling_update, counts, inconsistent};
use crate::api::controllerrevision::ApiControllerRevision as ApiRevision;
use crate::api::pod::ApiPod;
use crate::api::statefulset::{ApiStatefulSet, StsStatus};
use crate::api::status::{ConditionType, PodPhase};
use crate::api::store::{Kind, Watch};
use crate::cluster::{Cluster, Version};
use crate::control::replicaset::status::is_pod_available;
use crate::control::runtime::{self, Watching};
use crate::control::workers::Workers;
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::{PodId, RevisionId, StsId};
use crate::informer::Informer;
use crate::rng::{Label, Stream, What};
use crate::spec::statefulset::{PodManagement, Retention, UpdateStrategy};
use crate::spec::{ClaimSpec, PodSpec, PodTemplate};
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::WatchKind;
use foldhash::{HashMap, HashMapExt};
use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

/// What reaches the controller.
#[derive(Debug)]
pub enum Ev {
    Pod(WatchKind, Arc<ApiPod>),
    StatefulSet(WatchKind, Arc<ApiStatefulSet>),
    Revision(WatchKind, Arc<ApiRevision>),
    /// A delayed add of the work queue is due.
    Wake(StsId),
}

/// What the controller sends.
#[derive(Debug)]
pub enum Out {
    Own(Ev),
    Write(Box<Write>),
}

/// A call on its way to the API server.
#[derive(Debug)]
pub enum Write {
    /// `CreateControllerRevision` (an existing one of that name and template is taken as is).
    CreateRevision { set: StsId, name: Arc<str>, number: i64, template: Arc<PodTemplate> },
    /// `UpdateControllerRevision`: a rollback renumbers an old revision.
    RenumberRevision { set: StsId, revision: RevisionId, number: i64 },
    /// `CreateStatefulPod`: its claims that do not exist, then the pod.
    CreatePod { set: StsId, pod: Arc<PodSpec>, claims: Vec<Arc<ClaimSpec>> },
    /// `DeleteStatefulPod`; `claims`: those `fixPodClaim` gave the pod as
    /// owner (a scale-down under `whenScaled: Delete`), which the garbage
    /// collector deletes once the pod is gone.
    DeletePod { set: StsId, pod: PodId, claims: Vec<Arc<str>> },
    /// `UpdateStatus`.
    Status { set: StsId, status: StsStatus },
    /// `truncateHistory`'s delete.
    DeleteRevision { set: StsId, revision: RevisionId },
}

impl Write {
    fn set(&self) -> StsId {
        match self {
            Write::CreateRevision { set, .. }
            | Write::RenumberRevision { set, .. }
            | Write::CreatePod { set, .. }
            | Write::DeletePod { set, .. }
            | Write::Status { set, .. }
            | Write::DeleteRevision { set, .. } => *set,
        }
    }

    fn what(&self) -> &'static str {
        match self {
            Write::CreateRevision { .. } => "create a revision",
            Write::RenumberRevision { .. } => "renumber a revision",
            Write::CreatePod { .. } => "create a pod",
            Write::DeletePod { .. } => "delete a pod",
            Write::Status { .. } => "write the status",
            Write::DeleteRevision { .. } => "delete a revision",
        }
    }
}

/// The API server's answer to a write.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Done,
    /// The pod's name is taken (AlreadyExists): the sync returns an error.
    Failed,
}

/// Its informers (`NewStatefulSetController`): pods, sets, and the revision lister.
impl Watching for Controller {
    type Ev = Ev;
    const WATCHES: &'static [Watch] = &[
        (Kind::Pod, "statefulset/pods"),
        (Kind::StatefulSet, "statefulset/statefulsets"),
        (Kind::ControllerRevision, "statefulset/controllerrevisions"),
    ];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Pod { kind, pod } => Some(Ev::Pod(*kind, pod.clone())),
            Record::StatefulSet { kind, sts } => Some(Ev::StatefulSet(*kind, sts.clone())),
            Record::ControllerRevision { kind, revision } => Some(Ev::Revision(*kind, revision.clone())),
            _ => None,
        }
    }
}

/// `ConcurrentStatefulSetSyncs`.
const WORKERS: usize = 5;
/// `slowStartBatch`'s cap (`MaxBatchSize`).
const MAX_BATCH: usize = 500;

/// A set's revisions as a sync finds them: names and templates.
struct Revisions<'a> {
    current: (Arc<str>, Arc<PodTemplate>),
    update: (Arc<str>, Arc<PodTemplate>),
    collisions: u32,
    /// Every revision of the set, oldest first (`truncateHistory` reads them).
    revs: Vec<&'a Arc<ApiRevision>>,
}

/// A sync under way: its writes, a batch at a time.
#[derive(Debug, Default)]
struct Syncing {
    /// Revision and pod writes: dropped after a failure.
    pods: VecDeque<Vec<Write>>,
    /// The status and history writes, sent even after a failure.
    after: VecDeque<Vec<Write>>,
    in_flight: u32,
    failed: bool,
}

pub struct Controller {
    cluster: Arc<Cluster>,
    pods: Informer<ApiPod>,
    /// Pods by their controller's UID (`ClaimPods` reads the set's own).
    by_owner: HashMap<Arc<str>, BTreeSet<PodId>>,
    sets: Informer<ApiStatefulSet>,
    revisions: Informer<ApiRevision>,
    workers: Workers<StsId, Syncing>,
    rng: Stream,
}

impl runtime::Controller for Controller {
    type Out = Out;

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match ev {
            Ev::StatefulSet(kind, s) => {
                self.sets.apply(kind, &s);
                self.workers.queue.add(s.id);
            }
            // The revision lister has no handlers.
            Ev::Revision(kind, r) => {
                self.revisions.apply(kind, &r);
            }
            Ev::Pod(kind, pod) => self.pod_event(kind, pod, now, ctx),
            Ev::Wake(id) => self.workers.queue.wake(id, now),
        }
        self.work(ctx);
    }
}

impl Controller {
    pub fn new(cluster: Arc<Cluster>, seed: u64) -> Self {
        Controller {
            cluster,
            pods: Informer::default(),
            by_owner: HashMap::new(),
            sets: Informer::default(),
            revisions: Informer::default(),
            workers: Workers::new(WorkQueue::controller_default(), WORKERS),
            rng: Stream::new(seed, "kube-controller-manager/statefulset"),
        }
    }

    /// `addPod` / `updatePod` / `deletePod`: the owner is queued; a pod
    /// turning Ready queues it again after minReadySeconds + 1 s, for its
    /// availability check.
    fn pod_event(&mut self, kind: WatchKind, pod: Arc<ApiPod>, now: SimTime, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let old = self.pods.apply(kind, &pod);
        if let Some(o) = pod.spec.owner.as_ref().filter(|o| o.kind == "StatefulSet") {
            let owned = self.by_owner.entry(o.uid.clone()).or_default();
            if kind == WatchKind::Deleted {
                owned.remove(&pod.id);
            } else {
                owned.insert(pod.id);
            }
        }
        if old.as_ref().is_some_and(|o| o.meta.resource_version == pod.meta.resource_version) {
            return;
        }
        let Some(set) = self.owner_of(&pod).cloned() else { return };
        self.workers.queue.add(set.id);
        let ready = |p: &ApiPod| p.status.condition_true(&ConditionType::Ready);
        let mrs = set.spec.min_ready_seconds;
        if kind == WatchKind::Modified && mrs > 0 && old.as_deref().is_some_and(|o| !ready(o)) && ready(&pod) {
            let delay = SimDuration::from_secs(u64::from(mrs) + 1);
            if let Some(due) = self.workers.queue.add_after(set.id, delay, now) {
                ctx.q.at(due, Out::Own(Ev::Wake(set.id)));
            }
        }
    }

    /// `resolveControllerRef`.
    fn owner_of(&self, pod: &ApiPod) -> Option<&Arc<ApiStatefulSet>> {
        let owner = pod.spec.owner.as_ref().filter(|o| o.kind == "StatefulSet")?;
        self.sets.list().find(|s| s.meta.uid == owner.uid)
    }

    /// The API server answered one of the sync's writes.
    pub fn written(&mut self, set: StsId, answer: Answer, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(s) = self.workers.state(set) {
            s.in_flight = s.in_flight.saturating_sub(1);
            if answer == Answer::Failed {
                s.failed = true;
                s.pods.clear();
            }
        }
        self.advance(set, ctx);
        self.work(ctx);
    }

    fn work(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while let Some(id) = self.workers.get() {
            self.sync(id, ctx);
        }
    }

    /// The next batch once the last one is answered; at the end, the key
    /// is done (with an error: back through the rate limiter).
    fn advance(&mut self, id: StsId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(s) = self.workers.state(id) else { return };
        if s.in_flight > 0 {
            return;
        }
        if let Some(batch) = s.pods.pop_front().or_else(|| s.after.pop_front()) {
            s.in_flight = batch.len() as u32;
            for w in batch {
                self.send(w, ctx);
            }
            return;
        }
        if s.failed {
            if let Some(due) = self.workers.failed(id, ctx.q.now()) {
                ctx.q.at(due, Out::Own(Ev::Wake(id)));
            }
        } else {
            self.workers.succeeded(id);
        }
    }

    fn send(&mut self, write: Write, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let sets = &self.sets;
        let label = || {
            let name = sets.get(write.set()).map_or_else(|| "?".to_string(), |s| format!("sts/{}", s.spec.name));
            Label::new(What::ApiWrite, name).with(write.what())
        };
        let d = self.cluster.latencies.api_write.sample(&mut self.rng, label);
        ctx.q.after(d, Out::Write(Box::new(write)));
    }

    /// `sync` → `syncStatefulSet` → `UpdateStatefulSet`: the writes of
    /// this pass, then the availability requeue.
    fn sync(&mut self, id: StsId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(set) = self.sets.get(id).cloned() else {
            self.workers.succeeded(id);
            return;
        };
        let (syncing, available) = self.plan(&set, now);
        let s = &set.spec;
        if s.min_ready_seconds > 0 && available.0 != s.replicas {
            let delay = self.availability_requeue(s.min_ready_seconds, available.1, now);
            if let Some(due) = self.workers.queue.add_after(id, delay, now) {
                ctx.q.at(due, Out::Own(Ev::Wake(id)));
            }
        }
        self.workers.run(id, syncing);
        self.advance(id, ctx);
    }

    /// The requeue `syncStatefulSet` asks for while pods are not yet
    /// available: minReadySeconds in 1.34; from 1.35 (PR #135428, 1.35.1)
    /// when the earliest Ready pod becomes available.
    fn availability_requeue(&self, mrs: u32, earliest: Option<SimTime>, now: SimTime) -> SimDuration {
        let fixed = SimDuration::from_secs(u64::from(mrs));
        match (self.cluster.version >= Version::V1_35, earliest) {
            (true, Some(t)) => (t + fixed).since(now).max(SimDuration::from_millis(1)),
            _ => fixed,
        }
    }

    /// `getStatefulSetRevisions`: the set's revisions (oldest first), the
    /// update revision (the latest if its template is the set's; an older
    /// equal one renumbered, a rollback; else a new one, its name clear of
    /// collisions), and the current one (`status.currentRevision`, else the update).
    fn revisions<'a>(&'a self, set: &ApiStatefulSet, out: &mut Syncing) -> Revisions<'a> {
        let s = &set.spec;
        let id = set.id;
        let mut revs: Vec<&Arc<ApiRevision>> =
            self.revisions.list().filter(|r| owned_by(r, set) && !r.meta.removed).collect();
        revs.sort_by(|a, b| (a.revision, a.meta.created, &a.name).cmp(&(b.revision, b.meta.created, &b.name)));
        let next_number = revs.last().map_or(1, |r| r.revision + 1);
        let mut collisions = set.status.collision_count;
        let equal = revs.iter().rposition(|r| *r.template == s.template);
        let update = match equal {
            Some(i) if i + 1 == revs.len() => (revs[i].name.clone(), revs[i].template.clone()),
            Some(i) => {
                let w = Write::RenumberRevision { set: id, revision: revs[i].id, number: next_number };
                out.pods.push_back(vec![w]);
                (revs[i].name.clone(), revs[i].template.clone())
            }
            None => {
                let template = Arc::new(s.template.clone());
                let data = revision::patch(&template);
                let name: Arc<str> = loop {
                    let name = revision::name(&s.name, &revision::hash(&data, collisions));
                    if !revs.iter().any(|r| *r.name == *name) {
                        break Arc::from(name);
                    }
                    collisions += 1;
                };
                let w = Write::CreateRevision {
                    set: id,
                    name: name.clone(),
                    number: next_number,
                    template: template.clone(),
                };
                out.pods.push_back(vec![w]);
                (name, template)
            }
        };
        let current = (revs.iter().find(|r| r.name == set.status.current_revision))
            .map_or_else(|| update.clone(), |r| (r.name.clone(), r.template.clone()));
        Revisions { current, update, collisions, revs }
    }

    /// `updateStatefulSet` and `updateStatefulSetStatus` as writes; with the
    /// status's available count and the earliest Ready-but-not-available pod.
    fn plan(&self, set: &ApiStatefulSet, now: SimTime) -> (Syncing, (u32, Option<SimTime>)) {
        let s = &set.spec;
        let id = set.id;
        let mut out = Syncing::default();
        let Revisions { current: (current_name, current_template), update, collisions, revs } =
            self.revisions(set, &mut out);
        let (update_name, update_template) = update;
        // The pods, by slot.
        let mut replicas: Vec<Option<&Arc<ApiPod>>> = vec![None; s.replicas as usize];
        let mut condemned: Vec<(u32, &Arc<ApiPod>)> = Vec::new();
        let owned = self.by_owner.get(&set.meta.uid).into_iter().flatten().filter_map(|&p| self.pods.get(p));
        for pod in owned {
            let Some((parent, ordinal)) = parent_and_ordinal(&pod.spec.name) else { continue };
            if parent != s.name {
                continue;
            }
            match slot(ordinal, s.start, s.replicas) {
                Slot::Replica(i) => replicas[i] = Some(pod),
                Slot::Condemned => condemned.push((ordinal, pod)),
            }
        }
        condemned.sort_by_key(|c| std::cmp::Reverse(c.0));
        let mrs = s.min_ready_seconds;
        let state = |p: &ApiPod| pod_state(p, &update_name, mrs, now);
        // Placeholders: the revision the pod would be created at.
        let placeholder = |i: usize| PodState {
            finished: false,
            terminating: false,
            running_and_ready: false,
            available: false,
            updated: !at_current_revision(set, s.start + i as u32) || current_name == update_name,
        };
        let states: Vec<PodState> =
            replicas.iter().enumerate().map(|(i, p)| p.map_or_else(|| placeholder(i), |p| state(p))).collect();
        // The status, from the pods as the sync began.
        let counted: Vec<Counted> = (replicas.iter().flatten().copied())
            .chain(condemned.iter().map(|(_, p)| *p))
            .map(|p| Counted { state: state(p), current: revision_of(p) == Some(&*current_name) })
            .collect();
        let mut status = StsStatus {
            observed_generation: set.meta.generation,
            current_revision: current_name.clone(),
            update_revision: update_name.clone(),
            collision_count: collisions,
            ..Default::default()
        };
        counts(&counted, &mut status);
        let earliest = (counted.iter())
            .zip(replicas.iter().flatten().copied().chain(condemned.iter().map(|(_, p)| *p)))
            .filter(|(c, _)| c.state.running_and_ready && !c.state.available)
            .filter_map(|(_, p)| ready_since(p))
            .min();
        let available = (status.available_replicas, earliest);
        if set.meta.deletion.is_none() {
            self.walk(
                set,
                &replicas,
                &states,
                &condemned,
                (&current_name, &current_template),
                (&update_name, &update_template),
                &mut status,
                &mut out,
                now,
            );
        }
        let rolling = matches!(s.update_strategy, UpdateStrategy::RollingUpdate { .. });
        complete_rolling_update(rolling, s.replicas, &mut status);
        if inconsistent(&set.status, &status) || set.status.collision_count != status.collision_count {
            out.after.push_back(vec![Write::Status { set: id, status: status.clone() }]);
        }
        // truncateHistory: the revisions no pod and neither status revision uses, oldest first.
        let mut live: BTreeSet<&str> = [&*current_name, &*update_name].into_iter().collect();
        let all_pods = replicas.iter().flatten().copied().chain(condemned.iter().map(|(_, p)| *p));
        live.extend(all_pods.filter_map(|p| revision_of(p)));
        let history: Vec<&&Arc<ApiRevision>> = revs.iter().filter(|r| !live.contains(&*r.name)).collect();
        if let Ok(limit) = usize::try_from(s.revision_history_limit) {
            for r in history.iter().take(history.len().saturating_sub(limit)) {
                out.after.push_back(vec![Write::DeleteRevision { set: id, revision: r.id }]);
            }
        }
        (out, available)
    }

    /// `runForAll(replicas, processReplica)`, `runForAll(condemned,
    /// processCondemned)`, then the update step: one write per batch under
    /// OrderedReady; slow-start batches under Parallel.
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &self,
        set: &ApiStatefulSet,
        replicas: &[Option<&Arc<ApiPod>>],
        states: &[PodState],
        condemned: &[(u32, &Arc<ApiPod>)],
        current: (&Arc<str>, &Arc<PodTemplate>),
        update: (&Arc<str>, &Arc<PodTemplate>),
        status: &mut StsStatus,
        out: &mut Syncing,
        now: SimTime,
    ) {
        let s = &set.spec;
        let id = set.id;
        let monotonic = s.pod_management == PodManagement::OrderedReady;
        let mut parallel: Vec<Write> = Vec::new();
        let mut push = |w: Write, out: &mut Syncing| match monotonic {
            true => out.pods.push_back(vec![w]),
            false => parallel.push(w),
        };
        for (i, pod) in replicas.iter().enumerate() {
            let ordinal = s.start + i as u32;
            let step = process_replica(pod.map(|_| &states[i]), monotonic);
            match (step, pod) {
                (Step::Create, _) => {
                    let (name, template) = if at_current_revision(set, ordinal) { current } else { update };
                    let pod = new_pod(set, template, name, ordinal);
                    push(Write::CreatePod { set: id, pod, claims: claims(set, ordinal) }, out);
                }
                (Step::Delete, Some(p)) => push(Write::DeletePod { set: id, pod: p.id, claims: Vec::new() }, out),
                _ => {}
            }
            if monotonic && step.stops() {
                return;
            }
        }
        // firstUnhealthyPod: the first unavailable replica, else the lowest unavailable condemned pod.
        let mrs = s.min_ready_seconds;
        let condemned_states: Vec<PodState> = condemned.iter().map(|(_, p)| pod_state(p, update.0, mrs, now)).collect();
        let first_unhealthy = match states.iter().any(PodState::unavailable) {
            true => None,
            false => condemned_states.iter().rposition(PodState::unavailable),
        };
        for (j, (_, pod)) in condemned.iter().enumerate() {
            let step = process_condemned(&condemned_states[j], monotonic, first_unhealthy == Some(j));
            if step == Step::Delete {
                let ordinal = parent_and_ordinal(&pod.spec.name).map_or(0, |(_, n)| n);
                let claims = match s.when_scaled {
                    Retention::Delete => claim_names(set, ordinal),
                    Retention::Retain => Vec::new(),
                };
                push(Write::DeletePod { set: id, pod: pod.id, claims }, out);
            }
            if monotonic && step.stops() {
                return;
            }
        }
        let batches = slow_start(parallel);
        out.pods.extend(batches);
        let UpdateStrategy::RollingUpdate { rolling } = s.update_strategy else { return };
        let partition = s.update_strategy.partition();
        let step = match max_unavailable_gate(self.cluster.version) {
            true => {
                let budget = max_unavailable(rolling.and_then(|r| r.max_unavailable), s.replicas);
                within_budget(states, partition, budget, !monotonic)
            }
            false => one_at_a_time(states, partition),
        };
        for i in step.delete {
            if let Some(p) = replicas[i] {
                status.current_replicas = status.current_replicas.saturating_sub(1);
                out.pods.push_back(vec![Write::DeletePod { set: id, pod: p.id, claims: Vec::new() }]);
            }
        }
    }
}

/// `slowStartBatch(1, …)`: batches of 1, 2, 4 … (at most 500), each sent
/// once the one before has returned.
fn slow_start(writes: Vec<Write>) -> Vec<Vec<Write>> {
    let mut batches = Vec::new();
    let mut size = 1;
    let mut writes = writes.into_iter().peekable();
    while writes.peek().is_some() {
        batches.push(writes.by_ref().take(size).collect());
        size = (size * 2).min(MAX_BATCH);
    }
    batches
}

/// A revision the set controls (`ControlledBy`): an orphaned one is not its.
fn owned_by(r: &ApiRevision, set: &ApiStatefulSet) -> bool {
    r.owner.as_ref().is_some_and(|o| o.uid == set.meta.uid)
}

/// The pod's `controller-revision-hash` (`getPodRevision`).
fn revision_of(p: &ApiPod) -> Option<&str> {
    p.spec.labels.get(REVISION_LABEL).map(String::as_str)
}

/// When the pod turned Ready, as the API stores it (whole seconds), if Ready.
fn ready_since(p: &ApiPod) -> Option<SimTime> {
    let c = p.status.condition(&ConditionType::Ready).filter(|c| c.status)?;
    Some(SimTime::from_millis(c.last_transition.whole_seconds() * 1000))
}

/// What `processReplica` and the status read of a pod.
fn pod_state(p: &ApiPod, update: &str, mrs: u32, now: SimTime) -> PodState {
    let phase = p.status.phase;
    let since = ready_since(p);
    PodState {
        finished: phase.is_terminal(),
        terminating: p.meta.deletion.is_some(),
        running_and_ready: phase == PodPhase::Running && since.is_some(),
        available: is_pod_available(since, mrs, now),
        updated: revision_of(p) == Some(update),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_doubles_batches() {
        let w = |i: u32| Write::DeletePod { set: StsId(0), pod: PodId(i), claims: Vec::new() };
        let sizes: Vec<usize> = slow_start((0..10).map(w).collect()).iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![1, 2, 4, 3]);
    }
}
