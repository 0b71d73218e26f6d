//! The garbage collector of kube-controller-manager
//! (pkg/controller/garbagecollector): it watches every kind that owns or is
//! owned, keeps the graph of ownerReferences (`GraphBuilder`), and works two
//! queues. `attemptToDelete` deletes an object whose owners are all gone
//! (background cascading), or whose owner waits for its dependents
//! (foreground cascading), and removes the `foregroundDeletion` finalizer
//! of an owner none of whose dependents is left. `attemptToOrphan` removes
//! an owner's reference from each dependent, then its `orphan` finalizer.
//!
//! Each attempt reads the object and its owner from the API server
//! (uncached GETs), as the collector does; one DELETE or PATCH follows.
//! Not modelled: the graph's virtual nodes for an owner not yet observed
//! (here an owner is always created before its dependents, so the
//! collector's lookup of one finds it and does nothing), and the cycle
//! breaking of owners that block each other.

mod graph;

use crate::api::deployment::ApiDeployment;
use crate::api::meta::{FOREGROUND, ORPHAN, Propagation};
use crate::api::pod::ApiPod;
use crate::api::replicaset::ApiReplicaSet;
use crate::api::store::{Kind, Watch};
use crate::cluster::Cluster;
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::{ObjectId, Owner};
use crate::rng::Stream;
use crate::spec::OwnerRef;
use crate::trace::Record;
use crate::trace::record::WatchKind;
use graph::Graph;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What reaches the collector.
#[derive(Debug)]
pub enum Ev {
    Pod(WatchKind, Arc<ApiPod>),
    ReplicaSet(WatchKind, Arc<ApiReplicaSet>),
    Deployment(WatchKind, Arc<ApiDeployment>),
}

/// Its informers: one per kind it monitors (`GraphBuilder.monitors`).
pub const WATCHES: [Watch; 3] = [
    (Kind::Pod, "garbagecollector/pods"),
    (Kind::ReplicaSet, "garbagecollector/replicasets"),
    (Kind::Deployment, "garbagecollector/deployments"),
];

impl Ev {
    /// A record of a watch it declared, as its event.
    pub fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Pod { kind, pod } => Some(Ev::Pod(*kind, pod.clone())),
            Record::ReplicaSet { kind, rs } => Some(Ev::ReplicaSet(*kind, rs.clone())),
            Record::Deployment { kind, deployment } => Some(Ev::Deployment(*kind, deployment.clone())),
            _ => None,
        }
    }
}

/// An object as an uncached GET returns it: what the collector decides on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Live {
    pub uid: Arc<str>,
    pub deleting: bool,
    pub finalizers: Vec<Arc<str>>,
    pub owner: Option<OwnerRef>,
}

impl Live {
    /// Deleting and waiting for its dependents (`isDeletingDependents`).
    fn deleting_dependents(&self) -> bool {
        self.deleting && self.finalizers.iter().any(|f| **f == *FOREGROUND)
    }
}

/// Which queue an attempt came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Queue {
    Delete,
    Orphan,
}

/// A call on its way to the API server, for the attempt on `item`.
#[derive(Clone, Debug)]
pub enum Call {
    /// `getObject`: the object as stored now (`None`: 404).
    Get { item: ObjectId, object: ObjectId },
    /// `isDangling`'s GET of an owner by its reference (`None`: 404).
    GetOwner { item: ObjectId, owner: OwnerRef },
    /// `deleteObject`: DELETE with the UID it saw as precondition.
    Delete { item: ObjectId, uid: Arc<str>, policy: Propagation },
    /// `removeFinalizer`: GET, then PUT without `finalizer`.
    RemoveFinalizer { item: ObjectId, owner: Owner, finalizer: &'static str },
    /// `orphanDependents`: PATCH `dependent` without the reference to `owner`.
    Orphan { item: ObjectId, dependent: ObjectId, owner: Arc<str> },
}

/// The API server's answer to a call.
#[derive(Clone, Debug)]
pub enum Answer {
    Got(Option<Live>),
    Done,
}

/// What the collector sends.
#[derive(Debug)]
pub enum Out {
    Call(Call),
}

/// `ConcurrentGCSyncs`: workers per queue.
const WORKERS: usize = 20;

/// Where an attempt stands.
#[derive(Debug)]
enum Step {
    /// `attemptToDeleteItem`: waiting for the GET of the item.
    Reading,
    /// Waiting for the GET of the item's owner.
    ReadingOwner(Live),
    /// Waiting for its DELETE or finalizer removal.
    Writing,
    /// `attemptToOrphanWorker`: waiting for this many PATCHes of dependents.
    Orphaning(usize),
}

pub struct Collector {
    cluster: Arc<Cluster>,
    graph: Graph,
    attempt_to_delete: WorkQueue<ObjectId>,
    attempt_to_orphan: WorkQueue<Owner>,
    attempts: BTreeMap<(Queue, ObjectId), Step>,
    rng: Stream,
}

impl Collector {
    pub fn new(cluster: Arc<Cluster>, seed: u64) -> Self {
        Collector {
            cluster,
            graph: Graph::default(),
            attempt_to_delete: WorkQueue::controller_default(),
            attempt_to_orphan: WorkQueue::controller_default(),
            attempts: BTreeMap::new(),
            rng: Stream::new(seed, "kube-controller-manager/garbagecollector"),
        }
    }

    /// A watch event (`processGraphChanges`).
    pub fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let changes = match ev {
            Ev::Pod(kind, pod) => self.graph.observe(kind, &*pod),
            Ev::ReplicaSet(kind, rs) => self.graph.observe(kind, &*rs),
            Ev::Deployment(kind, d) => self.graph.observe(kind, &*d),
        };
        for item in changes.attempt_to_delete {
            self.attempt_to_delete.add(item);
        }
        for owner in changes.attempt_to_orphan {
            self.attempt_to_orphan.add(owner);
        }
        self.work(ctx);
    }

    /// Starts attempts while workers are free.
    fn work(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while self.busy(Queue::Delete) < WORKERS {
            let Some(item) = self.attempt_to_delete.get() else { break };
            self.attempt_to_delete_item(item, ctx);
        }
        while self.busy(Queue::Orphan) < WORKERS {
            let Some(owner) = self.attempt_to_orphan.get() else { break };
            self.attempt_to_orphan_item(owner, ctx);
        }
    }

    fn busy(&self, queue: Queue) -> usize {
        self.attempts.keys().filter(|(q, _)| *q == queue).count()
    }

    /// `attemptToDeleteItem`, first step: an object already being deleted
    /// (and not waiting for its dependents) is left to its final deletion;
    /// else the item is read from the API server.
    fn attempt_to_delete_item(&mut self, item: ObjectId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if self.graph.being_deleted(item) && !self.graph.deleting_dependents(item) {
            return self.finish(Queue::Delete, item, ctx);
        }
        self.attempts.insert((Queue::Delete, item), Step::Reading);
        self.call(Call::Get { item, object: item }, ctx);
    }

    /// `attemptToOrphanWorker`: every dependent's reference removed, then the
    /// owner's `orphan` finalizer.
    fn attempt_to_orphan_item(&mut self, owner: Owner, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let item = ObjectId::from(owner);
        let dependents = self.graph.dependents(item);
        let Some(uid) = self.graph.uid(item) else { return self.finish(Queue::Orphan, item, ctx) };
        if dependents.is_empty() {
            self.attempts.insert((Queue::Orphan, item), Step::Writing);
            return self.call(Call::RemoveFinalizer { item, owner, finalizer: ORPHAN }, ctx);
        }
        self.attempts.insert((Queue::Orphan, item), Step::Orphaning(dependents.len()));
        for dependent in dependents {
            self.call(Call::Orphan { item, dependent, owner: uid.clone() }, ctx);
        }
    }

    /// The API server answered a call of the attempt on `item`.
    pub fn answered(&mut self, call: &Call, answer: Answer, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let (queue, item) = match call {
            Call::Orphan { item, .. } => (Queue::Orphan, *item),
            Call::RemoveFinalizer { finalizer, item, .. } if *finalizer == ORPHAN => (Queue::Orphan, *item),
            Call::Get { item, .. }
            | Call::GetOwner { item, .. }
            | Call::Delete { item, .. }
            | Call::RemoveFinalizer { item, .. } => (Queue::Delete, *item),
        };
        let Some(step) = self.attempts.remove(&(queue, item)) else { return };
        match (step, answer) {
            (Step::Reading, Answer::Got(live)) => self.item_read(item, live, ctx),
            (Step::ReadingOwner(live), Answer::Got(owner)) => self.owner_read(item, live, owner, ctx),
            (Step::Orphaning(left), _) if left > 1 => {
                self.attempts.insert((queue, item), Step::Orphaning(left - 1));
            }
            (Step::Orphaning(_), _) => match Owner::of(item) {
                Some(owner) => {
                    self.attempts.insert((queue, item), Step::Writing);
                    self.call(Call::RemoveFinalizer { item, owner, finalizer: ORPHAN }, ctx);
                }
                None => self.finish(queue, item, ctx),
            },
            _ => self.finish(queue, item, ctx),
        }
    }

    /// The item as stored: gone (a virtual delete: its dependents are
    /// attempted), waiting for its dependents, or to be judged by its owner.
    fn item_read(&mut self, item: ObjectId, live: Option<Live>, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(live) = live.filter(|l| Some(&l.uid) == self.graph.uid(item).as_ref()) else {
            for dependent in self.graph.dependents(item) {
                self.attempt_to_delete.add(dependent);
            }
            return self.finish(Queue::Delete, item, ctx);
        };
        if self.graph.deleting_dependents(item) {
            return self.process_deleting_dependents(item, ctx);
        }
        let Some(owner) = live.owner.clone() else { return self.finish(Queue::Delete, item, ctx) };
        self.attempts.insert((Queue::Delete, item), Step::ReadingOwner(live));
        self.call(Call::GetOwner { item, owner }, ctx);
    }

    /// `processDeletingDependentsItem`: with no blocking dependent left the
    /// `foregroundDeletion` finalizer goes; else each dependent not itself
    /// waiting is attempted.
    fn process_deleting_dependents(&mut self, item: ObjectId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let blocking = self.graph.dependents(item);
        if blocking.is_empty() {
            // A pod owns nothing: its finalizer is not the collector's to remove here.
            let Some(owner) = Owner::of(item) else { return self.finish(Queue::Delete, item, ctx) };
            self.attempts.insert((Queue::Delete, item), Step::Writing);
            return self.call(Call::RemoveFinalizer { item, owner, finalizer: FOREGROUND }, ctx);
        }
        for dependent in blocking {
            if !self.graph.deleting_dependents(dependent) {
                self.attempt_to_delete.add(dependent);
            }
        }
        self.finish(Queue::Delete, item, ctx);
    }

    /// `classifyReferences` of the one reference, then the decision: a
    /// solid owner keeps the item; an owner waiting for its dependents has
    /// an item with dependents deleted in the foreground; otherwise (the
    /// owner is gone) the item is deleted with the policy its own
    /// finalizers ask for, background by default.
    fn owner_read(&mut self, item: ObjectId, live: Live, owner: Option<Live>, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let owner_ref = live.owner.as_ref().map(|o| &o.uid);
        let owner = owner.filter(|o| Some(&o.uid) == owner_ref);
        let waiting = owner.as_ref().is_some_and(Live::deleting_dependents);
        if owner.is_some() && !waiting {
            return self.finish(Queue::Delete, item, ctx);
        }
        let policy = if waiting && !self.graph.dependents(item).is_empty() {
            Propagation::Foreground
        } else if live.finalizers.iter().any(|f| **f == *ORPHAN) {
            Propagation::Orphan
        } else if live.finalizers.iter().any(|f| **f == *FOREGROUND) {
            Propagation::Foreground
        } else {
            Propagation::Background
        };
        self.attempts.insert((Queue::Delete, item), Step::Writing);
        self.call(Call::Delete { item, uid: live.uid, policy }, ctx);
    }

    /// The attempt is over: the key is done and forgotten.
    fn finish(&mut self, queue: Queue, item: ObjectId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        match (queue, Owner::of(item)) {
            (Queue::Delete, _) => {
                self.attempt_to_delete.forget(item);
                self.attempt_to_delete.done(item);
            }
            (Queue::Orphan, Some(owner)) => {
                self.attempt_to_orphan.forget(owner);
                self.attempt_to_orphan.done(owner);
            }
            (Queue::Orphan, None) => {}
        }
        self.work(ctx);
    }

    /// Sends a call; `removeFinalizer` is two (a GET, then the PUT).
    fn call(&mut self, call: Call, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let mut d = self.cluster.latencies.api_write.sample(&mut self.rng);
        if let Call::RemoveFinalizer { .. } = call {
            d = d + self.cluster.latencies.api_write.sample(&mut self.rng);
        }
        ctx.q.after(d, Out::Call(call));
    }
}
