//! The DaemonSet controller of kube-controller-manager
//! (pkg/controller/daemon/daemon_controller.go): it watches DaemonSets,
//! Pods and Nodes, and for each queued DaemonSet runs one `syncDaemonSet`:
//! with its expectations met, `manage` (then, when that changes nothing,
//! `rollingUpdate`) sends its creations in slow-start batches and its
//! deletions, each batch after the previous one is answered; then the
//! status, computed from the cache once the calls are answered.

use super::backoff::FailedPodsBackoff;
use super::eligibility::{NodeView, daemon_tolerations, should_run};
use super::manage::{DsEvent, Manage, manage};
use super::pods::{REVISION_HASH, is_updated, new_pod, new_revision, target_node, template_hash};
use super::status::{availability_requeue, calculate_status, unchanged};
use super::update::{Rolling, desired_counts, rolling_update, scaled};
use super::view::{NodePods, NodeVerdict, PodView};
use crate::api::controllerrevision::NewRevision;
use crate::api::daemonset::{ApiDaemonSet, DaemonSetStatus};
use crate::api::node::ApiNode;
use crate::api::pod::ApiPod;
use crate::api::status::ConditionType;
use crate::api::store::{Kind, Watch};
use crate::cluster::{Cluster, Version};
use crate::control::expectations::Expectations;
use crate::control::replicaset::slow_start::slow_start_batches;
use crate::control::runtime::{self, Watching};
use crate::control::workers::Workers;
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::{DaemonSetId, PodId};
use crate::informer::Informer;
use crate::rng::{Label, Stream, What};
use crate::spec::PodSpec;
use crate::spec::daemonset::DaemonStrategy;
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::WatchKind;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

/// `ConcurrentDaemonSetSyncs`.
const WORKERS: usize = 2;
/// `BurstReplicas`: creations and deletions per sync.
const BURST: usize = 250;

/// What reaches the controller.
#[derive(Debug)]
pub enum Ev {
    Pod(WatchKind, Arc<ApiPod>),
    DaemonSet(WatchKind, Arc<ApiDaemonSet>),
    Node(WatchKind, Arc<ApiNode>),
    /// A delayed add of the work queue is due.
    Wake(DaemonSetId),
}

/// What it sends: its work queue's timers and its calls.
#[derive(Debug)]
pub enum Out {
    Own(Ev),
    Write(Write),
}

/// A call on its way to the API server.
#[derive(Debug)]
pub enum Write {
    /// POST a pod with `generateName: <ds>-` for `node` (`CreatePods`).
    CreatePod { ds: DaemonSetId, pod: Arc<PodSpec>, node: Arc<str> },
    /// DELETE a pod (`DeletePod`).
    DeletePod { ds: DaemonSetId, pod: PodId },
    /// `UpdateStatus` of the DaemonSet as read at resourceVersion `read`.
    Status { ds: DaemonSetId, read: u64, status: Box<DaemonSetStatus> },
    /// An event about the DaemonSet (sent, not answered).
    Event { ds: DaemonSetId, event: DsEvent },
    /// POST the ControllerRevision of the current template (`snapshot`).
    CreateRevision { ds: DaemonSetId, revision: Box<NewRevision> },
    /// UPDATE the current template's older revision to the next number.
    RenumberRevision { ds: DaemonSetId, name: String, revision: i64 },
}

/// The API server's answer to a call of a sync.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Done,
    /// 409: the sync fails and the DaemonSet is requeued with back-off.
    Refused,
}

/// Its informers (`NewDaemonSetsController`'s DaemonSet, pod and node informers).
impl Watching for Controller {
    type Ev = Ev;
    const WATCHES: &'static [Watch] =
        &[(Kind::DaemonSet, "daemonset/daemonsets"), (Kind::Pod, "daemonset/pods"), (Kind::Node, "daemonset/nodes")];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Pod { kind, pod } => Some(Ev::Pod(*kind, pod.clone())),
            Record::DaemonSet { kind, ds } => Some(Ev::DaemonSet(*kind, ds.clone())),
            Record::Node { kind, node } => Some(Ev::Node(*kind, node.clone())),
            _ => None,
        }
    }
}

/// One step of a running sync.
#[derive(Debug)]
enum Step {
    /// Calls sent together, all answered before the next step.
    Calls(Vec<Write>),
    /// `updateDaemonSetStatus`, observing the generation or not.
    Status(bool),
}

#[derive(Debug)]
struct Running {
    steps: VecDeque<Step>,
    in_flight: u32,
    refused: bool,
}

pub struct Controller {
    cluster: Arc<Cluster>,
    pods: Informer<ApiPod>,
    /// Pods by their controller's UID (`podIndexer`).
    by_owner: BTreeMap<Arc<str>, BTreeSet<PodId>>,
    daemon_sets: Informer<ApiDaemonSet>,
    /// The node informer: the profile's nodes with the taints they have now.
    nodes: Vec<NodeView>,
    expectations: Expectations<DaemonSetId, PodId>,
    backoff: FailedPodsBackoff,
    workers: Workers<DaemonSetId, Running>,
    rng: Stream,
    /// Go's map order, for the nodes a sync walks.
    order: Stream,
    /// The revision number of each template hash it made a
    /// ControllerRevision for, per DaemonSet (`constructHistory`'s list).
    revisions: BTreeMap<DaemonSetId, BTreeMap<String, i64>>,
}

impl runtime::Controller for Controller {
    type Out = Out;

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match ev {
            Ev::DaemonSet(kind, ds) => self.daemon_set_event(kind, ds),
            Ev::Pod(kind, pod) => self.pod_event(kind, pod, ctx),
            Ev::Node(WatchKind::Added, node) => self.node_added(&node),
            Ev::Node(_, node) => self.node_event(&node),
            Ev::Wake(id) => self.workers.queue.wake(id, now),
        }
        self.work(ctx);
    }
}

impl Controller {
    /// `absent`: the profile's nodes that join during the run (not in its
    /// node informer until their Node object is added).
    pub fn new(cluster: Arc<Cluster>, seed: u64, absent: &[Arc<str>]) -> Self {
        let present = cluster.nodes.iter().filter(|n| !absent.contains(&n.name));
        let nodes = present.map(|n| NodeView { node: n.clone(), taints: n.taints.clone() }).collect();
        Controller {
            cluster,
            pods: Informer::default(),
            by_owner: BTreeMap::new(),
            daemon_sets: Informer::default(),
            nodes,
            expectations: Expectations::default(),
            backoff: FailedPodsBackoff::default(),
            workers: Workers::new(WorkQueue::controller_default(), WORKERS),
            rng: Stream::new(seed, "kube-controller-manager/daemonset"),
            order: Stream::new(seed, "kube-controller-manager/daemonset/map-order"),
            revisions: BTreeMap::new(),
        }
    }

    /// `addDaemonset`, `updateDaemonset` (queued), `deleteDaemonset`.
    fn daemon_set_event(&mut self, kind: WatchKind, ds: Arc<ApiDaemonSet>) {
        self.daemon_sets.apply(kind, &ds);
        match kind {
            WatchKind::Deleted => {
                self.expectations.delete(ds.id);
                self.revisions.remove(&ds.id);
            }
            _ => self.workers.queue.add(ds.id),
        }
    }

    /// `addPod`, `updatePod`, `deletePod`: observe the expectations, queue
    /// the owner; a pod turned Ready queues it again after minReadySeconds + 1 s.
    fn pod_event(&mut self, kind: WatchKind, pod: Arc<ApiPod>, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let old = self.pods.apply(kind, &pod);
        let owner = pod.spec.owner.as_ref().filter(|o| o.kind == "DaemonSet");
        if let Some(o) = owner {
            let owned = self.by_owner.entry(o.uid.clone()).or_default();
            match kind {
                WatchKind::Deleted => owned.remove(&pod.id),
                _ => owned.insert(pod.id),
            };
        }
        if old.as_ref().is_some_and(|o| o.meta.resource_version == pod.meta.resource_version) {
            return;
        }
        let Some(ds) = owner.and_then(|o| self.daemon_sets.list().find(|d| d.meta.uid == o.uid)).cloned() else {
            return;
        };
        if kind == WatchKind::Deleted || pod.meta.deletion.is_some() {
            self.expectations.deletion_observed(ds.id, &pod.id);
        } else if old.is_none() {
            self.expectations.creation_observed(ds.id);
        } else {
            let ready = |p: &ApiPod| p.status.condition(&ConditionType::Ready).is_some_and(|c| c.status);
            let min = ds.spec.min_ready_seconds;
            if old.as_deref().is_some_and(|o| !ready(o)) && ready(&pod) && min > 0 {
                self.after(ds.id, SimDuration::from_secs(u64::from(min) + 1), ctx);
            }
        }
        self.workers.queue.add(ds.id);
    }

    /// `addNode`: a node that joined queues each DaemonSet that should run
    /// a pod there (`nodeShouldRunDaemonPod`; none has one there yet).
    fn node_added(&mut self, node: &ApiNode) {
        if self.nodes.iter().any(|n| n.node.name == node.name) {
            return self.node_event(node);
        }
        let Some(profile) = self.cluster.nodes.iter().find(|n| n.name == node.name) else { return };
        self.nodes.push(NodeView { node: profile.clone(), taints: node.taint_list() });
        self.queue_for_node(self.nodes.len() - 1);
    }

    /// `updateNode`: a node whose taints changed.
    fn node_event(&mut self, node: &ApiNode) {
        let Some(i) = self.nodes.iter().position(|n| n.node.name == node.name) else { return };
        let taints = node.taint_list();
        if self.nodes[i].taints == taints {
            return;
        }
        self.nodes[i].taints = taints;
        self.queue_for_node(i);
    }

    /// `syncNodeUpdate`: queues each DaemonSet that should now create or
    /// delete on node `i`, or (1.35+, PR #132477) has a pod there while some
    /// are misscheduled.
    fn queue_for_node(&mut self, i: usize) {
        let name = &self.nodes[i].node.name;
        // PR #132477: 1.35, and a 1.34 patch release (cherry-pick #133749,
        // which patch is not known): podsim's 1.34 is 1.34.0, without it.
        let misscheduled_clause = self.cluster.version >= Version::V1_35;
        let mut queued = Vec::new();
        for ds in self.daemon_sets.list() {
            let spec = ds.spec.pod_spec();
            let tolerations =
                daemon_tolerations(&spec.tolerations.clone().unwrap_or_default(), spec.host_network == Some(true));
            let (run, keep) = should_run(&spec, &tolerations, &self.nodes[i]);
            let owned = self.by_owner.get(&ds.meta.uid);
            let scheduled = owned
                .into_iter()
                .flatten()
                .filter_map(|p| self.pods.get(*p))
                .any(|p| p.node.as_deref() == Some(&**name));
            if (run && !scheduled)
                || (!keep && scheduled)
                || (misscheduled_clause && scheduled && ds.status.number_misscheduled > 0)
            {
                queued.push(ds.id);
            }
        }
        for id in queued {
            self.workers.queue.add(id);
        }
    }

    /// `enqueueDaemonSetAfter`.
    fn after(&mut self, id: DaemonSetId, delay: SimDuration, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(due) = self.workers.queue.add_after(id, delay, ctx.q.now()) {
            ctx.q.at(due, Out::Own(Ev::Wake(id)));
        }
    }

    fn work(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while let Some(id) = self.workers.get() {
            self.start(id, ctx);
        }
    }

    /// Each node's verdict for the DaemonSet, in the node lister's order.
    fn verdicts(&self, ds: &ApiDaemonSet) -> Vec<NodeVerdict> {
        let spec = ds.spec.pod_spec();
        let tolerations =
            daemon_tolerations(&spec.tolerations.clone().unwrap_or_default(), spec.host_network == Some(true));
        let verdict = |n: &NodeView| {
            let (should_run, should_continue) = should_run(&spec, &tolerations, n);
            NodeVerdict { name: n.node.name.clone(), should_run, should_continue }
        };
        self.nodes.iter().map(verdict).collect()
    }

    /// `getNodesToDaemonPods`: the DaemonSet's pods by the node they are for.
    fn node_pods(&self, ds: &ApiDaemonSet, hash: &str) -> NodePods {
        let mut out = NodePods::new();
        let owned = self.by_owner.get(&ds.meta.uid).into_iter().flatten();
        for p in owned.filter_map(|id| self.pods.get(*id)) {
            if p.status.phase.is_terminal() && p.meta.deletion.is_some() {
                continue;
            }
            let Some(node) = target_node(p) else { continue };
            let ready_since = p
                .status
                .condition(&ConditionType::Ready)
                .filter(|c| c.status)
                .map(|c| SimTime::from_millis(c.last_transition.whole_seconds() * 1000));
            let view = PodView {
                id: p.id,
                name: Arc::from(p.spec.name.as_str()),
                bound: p.node.is_some(),
                created: SimTime::from_millis(p.meta.created.whole_seconds() * 1000),
                deleting: p.meta.deletion.is_some(),
                phase: p.status.phase,
                ready_since,
                updated: is_updated(p, hash, ds.template_generation),
                current_hash: p.spec.labels.get(REVISION_HASH).is_some_and(|h| h == hash),
            };
            out.entry(Arc::from(node)).or_default().push(view);
        }
        out
    }

    /// The walk order of this sync: Go's map order, a fresh draw each time.
    fn shuffled<T>(&mut self, mut items: Vec<T>) -> Vec<T> {
        for i in (1..items.len()).rev() {
            let j = self.order.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
        items
    }

    /// `syncDaemonSet`.
    fn start(&mut self, id: DaemonSetId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(ds) = self.daemon_sets.get(id).cloned() else {
            self.workers.succeeded(id);
            return;
        };
        if ds.meta.deletion.is_some() {
            self.workers.succeeded(id);
            return;
        }
        let mut steps = VecDeque::new();
        // `constructHistory`: the current template's revision first, the next number.
        let hash = template_hash(&ds);
        // Back to an older template: its revision is renumbered the newest.
        let known = self.revisions.entry(id).or_default();
        let next = known.iter().filter(|(h, _)| **h != hash).map(|(_, n)| *n).max().map_or(1, |m| m + 1);
        let call = match known.get(&hash) {
            None => Some(Write::CreateRevision { ds: id, revision: Box::new(new_revision(&ds, &hash, next)) }),
            Some(n) if *n < next => {
                Some(Write::RenumberRevision { ds: id, name: format!("{}-{hash}", ds.spec.name), revision: next })
            }
            Some(_) => None,
        };
        if let Some(call) = call {
            known.insert(hash.clone(), next);
            steps.push_back(Step::Calls(vec![call]));
        }
        if !self.expectations.satisfied(id, now) {
            steps.push_back(Step::Status(false));
            return self.run(id, steps, ctx);
        }
        let verdicts = self.shuffled(self.verdicts(&ds));
        let mut pods = self.node_pods(&ds, &hash);
        // `AllowsSurge`: a maxSurge scaled to one node is not zero.
        let (rolling, surge_allowed) = match ds.spec.strategy {
            DaemonStrategy::RollingUpdate { max_surge, max_unavailable } => {
                (Some((max_surge, max_unavailable)), scaled(max_surge, 1) > 0)
            }
            DaemonStrategy::OnDelete => (None, false),
        };
        let m = Manage {
            namespace: &ds.spec.namespace,
            uid: &ds.meta.uid,
            observed_generation: ds.status.observed_generation,
            surge: surge_allowed,
            min_ready_seconds: ds.spec.min_ready_seconds,
            now,
        };
        let plan = manage(&m, &verdicts, &pods, &mut self.backoff);
        if let Some(delay) = plan.requeue {
            self.after(id, delay, ctx);
        }
        for event in plan.events {
            self.send(Write::Event { ds: id, event }, ctx);
        }
        let (mut create_on, mut delete) = (plan.create_on, plan.delete);
        // `rollingUpdate` runs when manage left the expectations met.
        if create_on.is_empty()
            && delete.is_empty()
            && let Some((max_surge, max_unavailable)) = rolling
        {
            let (surge, unavailable, _) = desired_counts(&verdicts, &mut pods, max_surge, max_unavailable);
            let order = self.shuffled(pods.keys().cloned().collect());
            let r = Rolling {
                order: &order,
                nodes: &verdicts,
                max_surge: surge,
                max_unavailable: unavailable,
                min_ready_seconds: ds.spec.min_ready_seconds,
                now,
            };
            let update = rolling_update(&r, &pods);
            (create_on, delete) = (update.create_on, update.delete);
        }
        create_on.truncate(BURST);
        delete.truncate(BURST);
        if !create_on.is_empty() || !delete.is_empty() {
            self.expectations.expect(id, create_on.len() as u32, delete.iter().copied(), now);
        }
        let mut nodes = create_on.into_iter();
        for batch in slow_start_batches(nodes.len() as u32, 1) {
            let calls = nodes.by_ref().take(batch as usize).map(|node| Write::CreatePod {
                ds: id,
                pod: new_pod(&ds, &node, &hash),
                node,
            });
            steps.push_back(Step::Calls(calls.collect()));
        }
        if !delete.is_empty() {
            steps.push_back(Step::Calls(delete.into_iter().map(|pod| Write::DeletePod { ds: id, pod }).collect()));
        }
        steps.push_back(Step::Status(true));
        self.run(id, steps, ctx);
    }

    fn run(&mut self, id: DaemonSetId, steps: VecDeque<Step>, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        self.workers.run(id, Running { steps, in_flight: 0, refused: false });
        self.advance(id, ctx);
    }

    /// The API server answered one call of `ds`'s sync.
    pub fn written(&mut self, ds: DaemonSetId, answer: Answer, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(r) = self.workers.state(ds) {
            r.in_flight = r.in_flight.saturating_sub(1);
            r.refused |= answer == Answer::Refused;
        }
        self.advance(ds, ctx);
        self.work(ctx);
    }

    /// The next step once the previous one is answered; a refused status
    /// write fails the sync (`AddRateLimited`).
    fn advance(&mut self, id: DaemonSetId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(r) = self.workers.state(id) else { return };
        if r.in_flight > 0 {
            return;
        }
        if r.refused {
            if let Some(due) = self.workers.failed(id, now) {
                ctx.q.at(due, Out::Own(Ev::Wake(id)));
            }
            return;
        }
        let calls = match r.steps.pop_front() {
            None => {
                self.workers.succeeded(id);
                return;
            }
            Some(Step::Calls(calls)) => calls,
            Some(Step::Status(observe)) => match self.status_write(id, observe, ctx) {
                Some(call) => vec![call],
                None => {
                    self.workers.succeeded(id);
                    return;
                }
            },
        };
        if let Some(r) = self.workers.state(id) {
            r.in_flight = calls.len() as u32;
        }
        for call in calls {
            self.send(call, ctx);
        }
    }

    /// `updateDaemonSetStatus` from the cache as it is now: the write, or
    /// `None` when nothing changed; a requeue while pods wait out minReadySeconds.
    fn status_write(&mut self, id: DaemonSetId, observe: bool, ctx: &mut Ctx<'_, impl Outbox<Out>>) -> Option<Write> {
        let ds = self.daemon_sets.get(id)?.clone();
        let hash = template_hash(&ds);
        let verdicts = self.verdicts(&ds);
        let pods = self.node_pods(&ds, &hash);
        let mut status = calculate_status(&verdicts, &pods, ds.spec.min_ready_seconds, ctx.q.now());
        status.observed_generation = if observe { ds.meta.generation } else { ds.status.observed_generation };
        if let Some(delay) = availability_requeue(&status, ds.spec.min_ready_seconds) {
            self.after(id, delay, ctx);
        }
        if unchanged(&ds.status, &status, ds.meta.generation) {
            return None;
        }
        Some(Write::Status { ds: id, read: ds.meta.resource_version, status: Box::new(status) })
    }

    fn send(&mut self, write: Write, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let sets = &self.daemon_sets;
        let label = || {
            let (ds, what) = match &write {
                Write::CreatePod { ds, .. } => (ds, "create a pod"),
                Write::DeletePod { ds, .. } => (ds, "delete a pod"),
                Write::Status { ds, .. } => (ds, "write the status"),
                Write::Event { ds, .. } => (ds, "record an event"),
                Write::CreateRevision { ds, .. } => (ds, "create a ControllerRevision"),
                Write::RenumberRevision { ds, .. } => (ds, "renumber a ControllerRevision"),
            };
            let name = sets.get(*ds).map_or_else(|| "?".to_string(), |d| format!("ds/{}", d.spec.name));
            Label::new(What::ApiWrite, name).with(what)
        };
        let d = self.cluster.latencies.api_write.sample(&mut self.rng, label);
        ctx.q.after(d, Out::Write(write));
    }
}
