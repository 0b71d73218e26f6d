//! The EndpointSlice controller of kube-controller-manager
//! (pkg/controller/endpointslice): it watches Pods, Services and
//! EndpointSlices through its own informers, queues a Service when a change
//! can alter its endpoints, and reconciles the Service's slices with the
//! API server, one write at a time.

mod endpoint;
mod reconciler;
mod tracker;
mod trigger;

pub use endpoint::{endpoint_ports, included, pod_to_endpoint, target_ref};
pub use reconciler::{Desired, Write, reconcile};

use crate::api::endpointslice::{ApiSlice, TargetRef};
use crate::api::pod::ApiPod;
use crate::api::service::ApiService;
use crate::api::status::ConditionType;
use crate::api::store::{Kind, Watch};
use crate::cluster::Cluster;
use crate::control::runtime::{self, Watching};
use crate::control::workers::Workers;
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::ids::{ServiceId, SliceId};
use crate::informer::Informer;
use crate::rng::{Label, Stream, What};
use crate::trace::Record;
use crate::trace::record::WatchKind;
use foldhash::{HashMap, HashMapExt};
use std::collections::VecDeque;
use std::sync::Arc;
use tracker::Tracker;
use trigger::TriggerTimes;

/// What the controller sends: messages to itself (its work queue's timers)
/// and its calls to the API server.
#[derive(Debug)]
pub enum Out {
    Own(Ev),
    Write(Box<Request>),
}

/// What reaches the controller.
#[derive(Debug)]
pub enum Ev {
    /// A change from one of its informers.
    Pod(WatchKind, Arc<ApiPod>),
    Service(WatchKind, Arc<ApiService>),
    Slice(WatchKind, Arc<ApiSlice>),
    /// A delayed add of the work queue is due.
    Wake(ServiceId),
}

/// Its informers (`NewController`'s pod, Service and EndpointSlice informers).
impl Watching for Controller {
    type Ev = Ev;
    const WATCHES: &'static [Watch] =
        &[(Kind::Pod, "pods"), (Kind::Service, "services"), (Kind::EndpointSlice, "endpointslices")];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Pod { kind, pod } => Some(Ev::Pod(*kind, pod.clone())),
            Record::Service { kind, svc } => Some(Ev::Service(*kind, svc.clone())),
            Record::Slice { kind, slice } => Some(Ev::Slice(*kind, slice.clone())),
            _ => None,
        }
    }
}

impl runtime::Controller for Controller {
    type Out = Out;

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match ev {
            // `onServiceUpdate` / `onServiceDelete`: at once.
            Ev::Service(kind, svc) => {
                self.services.apply(kind, &svc);
                self.workers.queue.add(svc.id);
            }
            Ev::Pod(kind, pod) => {
                if kind == WatchKind::Deleted {
                    self.targets.remove(&pod.id);
                } else {
                    self.targets.entry(pod.id).or_insert_with(|| target_ref(&pod));
                }
                let old = self.pods.apply(kind, &pod);
                let queue = match (&old, kind) {
                    (_, WatchKind::Added | WatchKind::Deleted) | (None, _) => true,
                    (Some(old), _) => {
                        old.meta.resource_version != pod.meta.resource_version && endpoint_changed(old, &pod)
                    }
                };
                if queue {
                    self.queue_pod_services(&pod, ctx);
                }
            }
            Ev::Slice(kind, slice) => {
                self.slices.apply(kind, &slice);
                let ours = match kind {
                    WatchKind::Deleted => self.tracker.deleted(&slice),
                    _ => self.tracker.should_sync(&slice),
                };
                // `queueServiceForEndpointSlice`: a change the controller did not make.
                if ours {
                    let label = || service_label(&self.services, What::EndpointBatch, slice.service, "a slice changed");
                    let batch = self.cluster.endpoint_slice.endpoint_updates_batch_period.sample(&mut self.rng, label);
                    self.add_after(slice.service, SLICE_CHANGE_DELAY.max(batch), ctx);
                }
            }
            Ev::Wake(id) => self.workers.queue.wake(id, now),
        }
        self.work(ctx);
    }
}

/// A write on its way to the API server.
#[derive(Debug)]
pub struct Request {
    pub service: ServiceId,
    pub write: Write,
}

/// `getEndpointSlicePrefix` (endpointslice utils.go): `<service>-`, a valid
/// prefix for every valid Service name; the API server appends the suffix.
pub fn slice_prefix(service: &str) -> String {
    format!("{service}-")
}

/// `maxRetries`: after this many failed syncs in a row a Service is dropped
/// until the next event.
const MAX_RETRIES: u32 = 15;
/// `endpointSliceChangeMinSyncDelay`.
const SLICE_CHANGE_DELAY: crate::time::SimDuration = crate::time::SimDuration::from_secs(1);

pub struct Controller {
    cluster: Arc<Cluster>,
    pods: Informer<ApiPod>,
    /// Each known pod's `targetRef`, made once.
    targets: HashMap<PodId, TargetRef>,
    services: Informer<ApiService>,
    slices: Informer<ApiSlice>,
    /// Its work queue and the Services being synced, each with the
    /// writes still to make.
    workers: Workers<ServiceId, VecDeque<Write>>,
    tracker: Tracker,
    triggers: TriggerTimes,
    rng: Stream,
}

impl Controller {
    pub fn new(cluster: Arc<Cluster>, seed: u64) -> Self {
        let workers = Workers::new(WorkQueue::default(), cluster.endpoint_slice.concurrent_service_endpoint_syncs);
        Controller {
            cluster,
            pods: Informer::default(),
            targets: HashMap::new(),
            services: Informer::default(),
            slices: Informer::default(),
            workers,
            tracker: Tracker::default(),
            triggers: TriggerTimes::default(),
            rng: Stream::new(seed, "kube-controller-manager/endpointslice"),
        }
    }

    /// The API server answered a write: the next one, or the sync is done.
    pub fn written(
        &mut self,
        service: ServiceId,
        result: Option<Arc<ApiSlice>>,
        deleted: bool,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        if let Some(s) = &result {
            match deleted {
                true => self.tracker.deleting(s),
                false => self.tracker.wrote(s),
            }
        }
        self.next_write(service, ctx);
        self.work(ctx);
    }

    /// `addPod` / `updatePod` / `deletePod`: every Service selecting the pod,
    /// after the batch period.
    fn queue_pod_services(&mut self, pod: &ApiPod, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let matching: Vec<ServiceId> = self
            .services
            .list()
            .filter(|s| s.spec.selects(&pod.spec.namespace, &pod.spec.labels))
            .map(|s| s.id)
            .collect();
        for id in matching {
            let label = || service_label(&self.services, What::EndpointBatch, id, "a pod changed");
            let batch = self.cluster.endpoint_slice.endpoint_updates_batch_period.sample(&mut self.rng, label);
            self.add_after(id, batch, ctx);
        }
    }

    fn add_after(&mut self, id: ServiceId, delay: crate::time::SimDuration, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(due) = self.workers.queue.add_after(id, delay, ctx.q.now()) {
            ctx.q.at(due, Out::Own(Ev::Wake(id)));
        }
    }

    /// Free workers take queued Services.
    fn work(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while let Some(id) = self.workers.get() {
            self.sync(id, ctx);
        }
    }

    /// `syncService`.
    fn sync(&mut self, id: ServiceId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(svc) = self.services.get(id).cloned() else {
            self.workers.succeeded(id);
            return;
        };
        // A cache older than the controller's own writes: try again later (`handleErr`).
        if self.tracker.stale(id, &self.slices) {
            self.workers.done(id);
            if self.workers.queue.requeues(id) < MAX_RETRIES {
                if let Some(due) = self.workers.queue.add_rate_limited(id, now) {
                    ctx.q.at(due, Out::Own(Ev::Wake(id)));
                }
            } else {
                self.workers.queue.forget(id);
            }
            return;
        }
        let pods: Vec<&Arc<ApiPod>> =
            self.pods.list().filter(|p| svc.spec.selects(&p.spec.namespace, &p.spec.labels)).collect();
        let trigger = self.triggers.compute(&svc, pods.iter().map(|p| &***p));
        let mut desired: Desired = Vec::new();
        for pod in pods.iter().filter(|p| included(p)) {
            let Some(endpoint) = pod_to_endpoint(pod, &svc.spec, &self.targets[&pod.id]) else { continue };
            let ports = endpoint_ports(pod, &svc.spec);
            match desired.iter_mut().find(|(p, _)| *p == ports) {
                Some((_, eps)) => eps.push(endpoint),
                None => desired.push((ports, vec![endpoint])),
            }
        }
        let existing: Vec<(SliceId, &crate::api::endpointslice::SliceContent)> =
            self.slices.list().filter(|s| s.service == id).map(|s| (s.id, &s.content)).collect();
        let writes = reconcile(&existing, desired, self.cluster.endpoint_slice.max_endpoints_per_slice, trigger);
        self.workers.run(id, writes.into());
        self.next_write(id, ctx);
    }

    /// Sends the sync's next write, or ends the sync (`Forget`, `Done`).
    fn next_write(&mut self, id: ServiceId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let next = self.workers.state(id).and_then(VecDeque::pop_front);
        match next {
            Some(write) => {
                let label = || service_label(&self.services, What::ApiWrite, id, "write an EndpointSlice");
                let d = self.cluster.latencies.api_write.sample(&mut self.rng, label);
                ctx.q.after(d, Out::Write(Box::new(Request { service: id, write })));
            }
            None => {
                self.workers.succeeded(id);
            }
        }
    }
}

/// `podEndpointsChanged`: a new deletionTimestamp (compared as pointers, so
/// every update of a terminating pod counts), the Ready condition, or the
/// pod's IPs. Labels never change in a run.
fn endpoint_changed(old: &ApiPod, new: &ApiPod) -> bool {
    let ready = |p: &ApiPod| p.status.condition_true(&ConditionType::Ready);
    new.meta.deletion.is_some()
        || old.meta.deletion.is_some()
        || ready(old) != ready(new)
        || old.status.pod_ip != new.status.pod_ip
}

/// What a draw of the controller is about: the Service it syncs.
fn service_label(services: &Informer<ApiService>, what: What, id: ServiceId, why: &'static str) -> Label {
    let name = services.get(id).map_or_else(|| "svc/?".to_string(), |s| format!("svc/{}", s.spec.name));
    Label::new(what, name).with(why)
}
