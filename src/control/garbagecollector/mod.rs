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
//! (uncached GETs; an owner known gone is not read), as the collector
//! does; one DELETE or PATCH follows. A dependent whose owner is not
//! observed is attempted, where the collector would verify a virtual node
//! for the owner: the same calls. Not modelled: the cycle breaking of
//! owners that block each other, and the resourceVersion precondition of
//! its DELETE (the UID is checked).

mod graph;

use crate::api::deployment::ApiDeployment;
use crate::api::meta::{FOREGROUND, ORPHAN, Propagation};
use crate::api::pod::ApiPod;
use crate::api::replicaset::ApiReplicaSet;
use crate::api::store::{Kind, Watch};
use crate::cluster::Cluster;
use crate::control::runtime::{self, Watching};
use crate::control::workers::Workers;
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::{ObjectId, Owner};
use crate::rng::{Label, Stream, What};
use crate::spec::OwnerRef;
use crate::trace::Record;
use crate::trace::record::WatchKind;
use graph::Graph;
use std::sync::Arc;

/// What reaches the collector.
#[derive(Debug)]
pub enum Ev {
    Pod(WatchKind, Arc<ApiPod>),
    ReplicaSet(WatchKind, Arc<ApiReplicaSet>),
    Deployment(WatchKind, Arc<ApiDeployment>),
    Job(WatchKind, Arc<crate::api::job::ApiJob>),
    CronJob(WatchKind, Arc<crate::api::cronjob::ApiCronJob>),
    StatefulSet(WatchKind, Arc<crate::api::statefulset::ApiStatefulSet>),
    DaemonSet(WatchKind, Arc<crate::api::daemonset::ApiDaemonSet>),
    ControllerRevision(WatchKind, Arc<crate::api::controllerrevision::ApiControllerRevision>),
}

/// Its informers: one per kind it monitors (`GraphBuilder.monitors`).
impl Watching for Collector {
    type Ev = Ev;
    const WATCHES: &'static [Watch] = &[
        (Kind::Pod, "garbagecollector/pods"),
        (Kind::ReplicaSet, "garbagecollector/replicasets"),
        (Kind::Deployment, "garbagecollector/deployments"),
        (Kind::Job, "garbagecollector/jobs"),
        (Kind::CronJob, "garbagecollector/cronjobs"),
        (Kind::StatefulSet, "garbagecollector/statefulsets"),
        (Kind::DaemonSet, "garbagecollector/daemonsets"),
        (Kind::ControllerRevision, "garbagecollector/controllerrevisions"),
    ];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Pod { kind, pod } => Some(Ev::Pod(*kind, pod.clone())),
            Record::ReplicaSet { kind, rs } => Some(Ev::ReplicaSet(*kind, rs.clone())),
            Record::Deployment { kind, deployment } => Some(Ev::Deployment(*kind, deployment.clone())),
            Record::Job { kind, job } => Some(Ev::Job(*kind, job.clone())),
            Record::CronJob { kind, cronjob } => Some(Ev::CronJob(*kind, cronjob.clone())),
            Record::StatefulSet { kind, sts } => Some(Ev::StatefulSet(*kind, sts.clone())),
            Record::DaemonSet { kind, ds } => Some(Ev::DaemonSet(*kind, ds.clone())),
            Record::ControllerRevision { kind, revision } => Some(Ev::ControllerRevision(*kind, revision.clone())),
            _ => None,
        }
    }
}

impl runtime::Controller for Collector {
    type Out = Out;

    /// A watch event (`processGraphChanges`).
    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let changes = match ev {
            Ev::Pod(kind, pod) => self.graph.observe(kind, &*pod),
            Ev::ReplicaSet(kind, rs) => self.graph.observe(kind, &*rs),
            Ev::Deployment(kind, d) => self.graph.observe(kind, &*d),
            Ev::Job(kind, j) => self.graph.observe(kind, &*j),
            Ev::CronJob(kind, c) => self.graph.observe(kind, &*c),
            Ev::StatefulSet(kind, s) => self.graph.observe(kind, &*s),
            Ev::DaemonSet(kind, d) => self.graph.observe(kind, &*d),
            Ev::ControllerRevision(kind, r) => self.graph.observe(kind, &*r),
        };
        for item in changes.attempt_to_delete {
            self.attempt_to_delete.queue.add(item);
        }
        for owner in changes.attempt_to_orphan {
            self.attempt_to_orphan.queue.add(owner);
        }
        self.work(ctx);
    }
}

/// An object as an uncached GET returns it: what the collector decides on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Live {
    pub uid: Arc<str>,
    pub namespace: Arc<str>,
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

/// A call of an attempt on its way to the API server.
#[derive(Clone, Debug)]
pub enum Call {
    /// `getObject`: the object as stored now (`None`: 404).
    Get { item: ObjectId },
    /// `isDangling`'s GET of an owner by its reference, in the item's
    /// namespace (`None`: 404).
    GetOwner { item: ObjectId, owner: OwnerRef, namespace: Arc<str> },
    /// `deleteObject`: DELETE with the UID it saw as precondition.
    Delete { item: ObjectId, uid: Arc<str>, policy: Propagation },
    /// `removeFinalizer`: GET, then PUT without `finalizer`.
    RemoveFinalizer { owner: Owner, finalizer: &'static str },
    /// `orphanDependents`: PATCH `dependent` without the reference to
    /// `owner`, whose UID is `uid`.
    Orphan { owner: Owner, dependent: ObjectId, uid: Arc<str> },
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
    /// `attemptToDelete` and its workers, each attempt with where it stands.
    attempt_to_delete: Workers<ObjectId, Step>,
    /// `attemptToOrphan` and its workers.
    attempt_to_orphan: Workers<Owner, Step>,
    rng: Stream,
}

impl Collector {
    pub fn new(cluster: Arc<Cluster>, seed: u64) -> Self {
        Collector {
            cluster,
            graph: Graph::default(),
            attempt_to_delete: Workers::new(WorkQueue::controller_default(), WORKERS),
            attempt_to_orphan: Workers::new(WorkQueue::controller_default(), WORKERS),
            rng: Stream::new(seed, "kube-controller-manager/garbagecollector"),
        }
    }

    /// Starts attempts while workers are free.
    fn work(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while let Some(item) = self.attempt_to_delete.get() {
            self.attempt_to_delete_item(item, ctx);
        }
        while let Some(owner) = self.attempt_to_orphan.get() {
            self.attempt_to_orphan_item(owner, ctx);
        }
    }

    /// `attemptToDeleteItem`, first step: an object already being deleted
    /// (and not waiting for its dependents) is left to its final deletion;
    /// else the item is read from the API server.
    fn attempt_to_delete_item(&mut self, item: ObjectId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if self.graph.being_deleted(item) && !self.graph.deleting_dependents(item) {
            return self.deleted(item);
        }
        self.attempt_to_delete.run(item, Step::Reading);
        self.call(Call::Get { item }, ctx);
    }

    /// `attemptToOrphanWorker`: every dependent's reference removed, then the
    /// owner's `orphan` finalizer.
    fn attempt_to_orphan_item(&mut self, owner: Owner, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let item = ObjectId::from(owner);
        let dependents = self.graph.dependents(item);
        let Some(uid) = self.graph.uid(item) else { return self.orphaned(owner) };
        if dependents.is_empty() {
            self.attempt_to_orphan.run(owner, Step::Writing);
            return self.call(Call::RemoveFinalizer { owner, finalizer: ORPHAN }, ctx);
        }
        self.attempt_to_orphan.run(owner, Step::Orphaning(dependents.len()));
        for dependent in dependents {
            self.call(Call::Orphan { owner, dependent, uid: uid.clone() }, ctx);
        }
    }

    /// The API server answered a call of an attempt; then free workers
    /// take queued keys.
    pub fn answered(&mut self, call: &Call, answer: Answer, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        self.advance(call, answer, ctx);
        self.work(ctx);
    }

    fn advance(&mut self, call: &Call, answer: Answer, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        match call {
            Call::Orphan { owner, .. } => self.orphan_answered(*owner, ctx),
            Call::RemoveFinalizer { owner, finalizer } if *finalizer == ORPHAN => self.orphaned(*owner),
            Call::RemoveFinalizer { owner, .. } => self.deleted(ObjectId::from(*owner)),
            Call::Delete { item, .. } => self.deleted(*item),
            Call::Get { item, .. } | Call::GetOwner { item, .. } => {
                let item = *item;
                match (self.attempt_to_delete.take(item), answer) {
                    (Some(Step::Reading), Answer::Got(live)) => self.item_read(item, live, ctx),
                    (Some(Step::ReadingOwner(live)), Answer::Got(owner)) => self.owner_read(item, live, owner, ctx),
                    _ => self.deleted(item),
                }
            }
        }
    }

    /// One dependent's reference is gone; after the last, the `orphan` finalizer.
    fn orphan_answered(&mut self, owner: Owner, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        match self.attempt_to_orphan.take(owner) {
            Some(Step::Orphaning(left)) if left > 1 => self.attempt_to_orphan.run(owner, Step::Orphaning(left - 1)),
            Some(Step::Orphaning(_)) => {
                self.attempt_to_orphan.run(owner, Step::Writing);
                self.call(Call::RemoveFinalizer { owner, finalizer: ORPHAN }, ctx);
            }
            _ => self.orphaned(owner),
        }
    }

    /// The item as stored: gone (a virtual delete: its dependents are
    /// attempted), waiting for its dependents, or to be judged by its owner.
    fn item_read(&mut self, item: ObjectId, live: Option<Live>, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(live) = live.filter(|l| Some(&l.uid) == self.graph.uid(item).as_ref()) else {
            for dependent in self.graph.dependents(item) {
                self.attempt_to_delete.queue.add(dependent);
            }
            return self.deleted(item);
        };
        if self.graph.deleting_dependents(item) {
            return self.process_deleting_dependents(item, ctx);
        }
        let Some(owner) = live.owner.clone() else { return self.deleted(item) };
        // `isDangling`: an owner known gone needs no GET.
        if self.graph.absent(&owner.uid) {
            return self.owner_read(item, live, None, ctx);
        }
        let namespace = live.namespace.clone();
        self.attempt_to_delete.run(item, Step::ReadingOwner(live));
        self.call(Call::GetOwner { item, owner, namespace }, ctx);
    }

    /// `processDeletingDependentsItem`: with no blocking dependent left the
    /// `foregroundDeletion` finalizer goes; else each dependent not itself
    /// waiting is attempted.
    fn process_deleting_dependents(&mut self, item: ObjectId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let blocking = self.graph.dependents(item);
        if blocking.is_empty() {
            // A pod owns nothing: its finalizer is not the collector's to remove here.
            let Some(owner) = Owner::of(item) else { return self.deleted(item) };
            self.attempt_to_delete.run(item, Step::Writing);
            return self.call(Call::RemoveFinalizer { owner, finalizer: FOREGROUND }, ctx);
        }
        for dependent in blocking {
            if !self.graph.deleting_dependents(dependent) {
                self.attempt_to_delete.queue.add(dependent);
            }
        }
        self.deleted(item);
    }

    /// `classifyReferences` of the one reference, then the decision: a
    /// solid owner keeps the item; an owner waiting for its dependents has
    /// an item with dependents deleted in the foreground; otherwise (the
    /// owner is gone) the item is deleted with the policy its own
    /// finalizers ask for, background by default.
    fn owner_read(&mut self, item: ObjectId, live: Live, owner: Option<Live>, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let owner_ref = live.owner.as_ref().map(|o| &o.uid);
        let owner = owner.filter(|o| Some(&o.uid) == owner_ref);
        if owner.is_none()
            && let Some(uid) = owner_ref
        {
            self.graph.found_absent(uid.clone());
        }
        let waiting = owner.as_ref().is_some_and(Live::deleting_dependents);
        if owner.is_some() && !waiting {
            return self.deleted(item);
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
        self.attempt_to_delete.run(item, Step::Writing);
        self.call(Call::Delete { item, uid: live.uid, policy }, ctx);
    }

    /// The attempt to delete `item` is over: forgotten and done (its
    /// worker takes the next key when the event is handled).
    fn deleted(&mut self, item: ObjectId) {
        self.attempt_to_delete.succeeded(item);
    }

    /// The attempt to orphan `owner`'s dependents is over.
    fn orphaned(&mut self, owner: Owner) {
        self.attempt_to_orphan.succeeded(owner);
    }

    /// Sends a call; `removeFinalizer` is two (a GET, then the PUT).
    fn call(&mut self, call: Call, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let label = || call_label(&call);
        let mut d = self.cluster.latencies.api_write.sample(&mut self.rng, label);
        if let Call::RemoveFinalizer { .. } = call {
            d = d + self.cluster.latencies.api_write.sample(&mut self.rng, label);
        }
        ctx.q.after(d, Out::Call(call));
    }
}

/// What a call's latency draw is about: the object, by its kind and its
/// place in the API server's store (the collector knows objects by id),
/// and the call.
fn call_label(call: &Call) -> Label {
    let object = |o: ObjectId| match o {
        ObjectId::Pod(id) => format!("pod #{}", id.0),
        ObjectId::ReplicaSet(id) => format!("replicaset #{}", id.0),
        ObjectId::Deployment(id) => format!("deployment #{}", id.0),
        ObjectId::Job(id) => format!("job #{}", id.0),
        ObjectId::CronJob(id) => format!("cronjob #{}", id.0),
        ObjectId::StatefulSet(id) => format!("statefulset #{}", id.0),
        ObjectId::DaemonSet(id) => format!("daemonset #{}", id.0),
        ObjectId::ControllerRevision(id) => format!("controllerrevision #{}", id.0),
    };
    let (about, what) = match call {
        Call::Get { item } => (object(*item), "GET the object"),
        Call::GetOwner { item, .. } => (object(*item), "GET its owner"),
        Call::Delete { item, .. } => (object(*item), "DELETE the object"),
        Call::RemoveFinalizer { owner, .. } => (object((*owner).into()), "remove a finalizer"),
        Call::Orphan { dependent, .. } => (object(*dependent), "orphan a dependent"),
    };
    Label::new(What::ApiWrite, about).with(what)
}
