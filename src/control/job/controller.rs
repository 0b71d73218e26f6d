//! The Job controller of kube-controller-manager
//! (pkg/controller/job/job_controller.go): it watches Jobs and Pods, and
//! for each queued Job runs one sync (sync.rs) whose calls it sends in
//! order — deletions or slow-start creations, the status write with the
//! newly finished pods uncounted, their finalizers' removal, the status
//! write that counts them — each after the previous ones are answered.

use super::backoff::BackoffRecord;
use super::pods::{NewPod, TRACKING_FINALIZER, generate_name, new_pod};
use super::sync::{BATCH_PERIOD, Input, JobEvent, Plan, sync};
use crate::api::job::{ApiJob, JobStatus};
use crate::api::pod::ApiPod;
use crate::api::store::{Kind, Watch};
use crate::cluster::Cluster;
use crate::control::expectations::Expectations;
use crate::control::runtime::{self, Watching};
use crate::control::workers::Workers;
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::{JobId, PodId};
use crate::informer::Informer;
use crate::rng::{Label, Stream, What};
use crate::spec::PodSpec;
use crate::time::SimDuration;
use crate::trace::Record;
use crate::trace::record::WatchKind;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

/// `ConcurrentJobSyncs`.
const WORKERS: usize = 5;

/// What reaches the controller.
#[derive(Debug)]
pub enum Ev {
    Pod(WatchKind, Arc<ApiPod>),
    Job(WatchKind, Arc<ApiJob>),
    /// A delayed add of the work queue is due.
    Wake(JobId),
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
    /// POST a pod with `generateName` (`RealPodControl.CreatePodsWithGenerateName`).
    CreatePod { job: JobId, pod: Arc<PodSpec>, prefix: String, index: Option<u32> },
    /// DELETE a pod (`RealPodControl.DeletePod`).
    DeletePod { job: JobId, pod: PodId },
    /// PATCH the tracking finalizer off a pod.
    StripFinalizer { job: JobId, pod: PodId },
    /// `UpdateStatus` of the Job as read at resourceVersion `read`.
    Status { job: JobId, read: u64, status: Box<JobStatus> },
    /// An event about the Job (sent, not answered).
    Event { job: JobId, event: JobEvent },
    /// `syncOrphanPod`: PATCH the tracking finalizer off a pod whose Job is
    /// gone or finished (not answered).
    StripOrphan { pod: PodId },
}

/// The API server's answer to a call of a sync.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Done,
    /// The status was stored at this resourceVersion.
    Stored(u64),
    /// 409 (or 404): the sync fails and the Job is requeued with back-off.
    Refused,
}

/// Its informers (`NewController`'s pod and Job informers).
impl Watching for Controller {
    type Ev = Ev;
    const WATCHES: &'static [Watch] = &[(Kind::Pod, "job/pods"), (Kind::Job, "job/jobs")];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Pod { kind, pod } => Some(Ev::Pod(*kind, pod.clone())),
            Record::Job { kind, job } => Some(Ev::Job(*kind, job.clone())),
            _ => None,
        }
    }
}

/// One step of a running sync.
#[derive(Debug)]
enum Step {
    /// Calls sent together, all answered before the next step.
    Calls(Vec<Write>),
    /// The finalizers' removal: expected before it is sent.
    Strip(Vec<PodId>),
    /// A status write; the first stores the back-off record once it is stored.
    Status(Box<JobStatus>, bool),
    /// The events of a finished Job, and the finished expectation.
    Finish(Vec<JobEvent>, bool),
}

#[derive(Debug)]
struct Running {
    steps: VecDeque<Step>,
    in_flight: u32,
    /// The Job's resourceVersion as last read or written.
    read: u64,
    backoff: BackoffRecord,
    /// The status write in flight is the first: once stored, so is the back-off record.
    first_status: bool,
    refused: bool,
}

pub struct Controller {
    cluster: Arc<Cluster>,
    pods: Informer<ApiPod>,
    /// Pods by their controller's UID (`podIndexer`).
    by_owner: BTreeMap<Arc<str>, BTreeSet<PodId>>,
    jobs: Informer<ApiJob>,
    expectations: Expectations<JobId, PodId>,
    /// `finalizerExpectations`: finalizer removals sent, not yet seen.
    removing: BTreeMap<JobId, BTreeSet<PodId>>,
    /// `finishedJobExpectations`: a finished status written, not yet seen.
    finishing: BTreeSet<JobId>,
    /// `podBackoffStore`.
    backoff: BTreeMap<JobId, BackoffRecord>,
    workers: Workers<JobId, Running>,
    rng: Stream,
}

impl runtime::Controller for Controller {
    type Out = Out;

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match ev {
            Ev::Job(kind, job) => self.job_event(kind, job, ctx),
            Ev::Pod(kind, pod) => self.pod_event(kind, pod, ctx),
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
            by_owner: BTreeMap::new(),
            jobs: Informer::default(),
            expectations: Expectations::default(),
            removing: BTreeMap::new(),
            finishing: BTreeSet::new(),
            backoff: BTreeMap::new(),
            // `DefaultJobApiBackOff` 1 s to `MaxJobApiBackOff` 60 s.
            workers: Workers::new(
                WorkQueue::with_backoff(SimDuration::from_secs(1), SimDuration::from_secs(60)),
                WORKERS,
            ),
            rng: Stream::new(seed, "kube-controller-manager/job"),
        }
    }

    /// `addJob` (at once), `updateJob` (a finished Job is left alone; a
    /// status-only change in a batch, a spec change at once), `deleteJob`.
    fn job_event(&mut self, kind: WatchKind, job: Arc<ApiJob>, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let old = self.jobs.apply(kind, &job);
        match (kind, old) {
            (WatchKind::Deleted, _) => {
                self.expectations.delete(job.id);
                self.removing.remove(&job.id);
                self.finishing.remove(&job.id);
                self.backoff.remove(&job.id);
            }
            (_, None) => self.workers.queue.add(job.id),
            (_, Some(_)) if job.status.finished().is_some() => {}
            (_, Some(old)) if old.meta.generation == job.meta.generation => self.batched(job.id, ctx),
            (_, Some(_)) => self.workers.queue.add(job.id),
        }
    }

    /// `enqueueSyncJobBatched`: a sync 1 s later, unless one is due sooner.
    fn batched(&mut self, id: JobId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        self.after(id, BATCH_PERIOD, ctx);
    }

    fn after(&mut self, id: JobId, delay: SimDuration, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if let Some(due) = self.workers.queue.add_after(id, delay, ctx.q.now()) {
            ctx.q.at(due, Out::Own(Ev::Wake(id)));
        }
    }

    /// `addPod`, `updatePod`, `deletePod`: observe the expectations, queue
    /// the owner in a batch.
    fn pod_event(&mut self, kind: WatchKind, pod: Arc<ApiPod>, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let old = self.pods.apply(kind, &pod);
        if let Some(o) = pod.spec.owner.as_ref().filter(|o| o.kind == "Job") {
            let owned = self.by_owner.entry(o.uid.clone()).or_default();
            match kind {
                WatchKind::Deleted => owned.remove(&pod.id),
                _ => owned.insert(pod.id),
            };
        }
        if old.as_ref().is_some_and(|o| o.meta.resource_version == pod.meta.resource_version) {
            return;
        }
        let tracked = pod.meta.finalizers.iter().any(|f| &**f == TRACKING_FINALIZER) && !pod.meta.removed;
        let Some(job) = self.owner_of(&pod) else {
            // `enqueueOrphanPod`: no Job will count it any more.
            if tracked && pod.spec.owner.as_ref().is_some_and(|o| o.kind == "Job") {
                self.send(Write::StripOrphan { pod: pod.id }, ctx);
            }
            return;
        };
        if tracked && self.jobs.get(job).is_some_and(|j| j.status.finished().is_some()) {
            self.send(Write::StripOrphan { pod: pod.id }, ctx);
        }
        let finalized = !pod.meta.finalizers.iter().any(|f| &**f == TRACKING_FINALIZER);
        let deleting = kind == WatchKind::Deleted || pod.meta.deletion.is_some();
        if deleting {
            if self.jobs.get(job).is_some_and(|j| j.status.finished().is_some()) {
                return;
            }
            self.expectations.deletion_observed(job, &pod.id);
        } else if old.is_none() {
            self.expectations.creation_observed(job);
        }
        if (finalized || kind == WatchKind::Deleted)
            && let Some(r) = self.removing.get_mut(&job)
        {
            r.remove(&pod.id);
        }
        self.batched(job, ctx);
    }

    /// `resolveControllerRef`.
    fn owner_of(&self, pod: &ApiPod) -> Option<JobId> {
        let owner = pod.spec.owner.as_ref().filter(|o| o.kind == "Job")?;
        self.jobs.list().find(|j| j.meta.uid == owner.uid).map(|j| j.id)
    }

    fn work(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while let Some(id) = self.workers.get() {
            self.start(id, ctx);
        }
    }

    /// `syncJob`: a finished Job, or one whose finished status is not yet
    /// seen, is done; otherwise the sync's plan runs.
    fn start(&mut self, id: JobId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(job) = self.jobs.get(id).cloned() else {
            self.workers.succeeded(id);
            return;
        };
        if job.status.finished().is_some() {
            self.backoff.remove(&id);
            self.finishing.remove(&id);
            self.workers.succeeded(id);
            return;
        }
        if self.finishing.contains(&id) {
            self.workers.succeeded(id);
            return;
        }
        let satisfied = self.expectations.satisfied(id, now);
        let empty = BTreeSet::new();
        let owned = self.by_owner.get(&job.meta.uid).unwrap_or(&empty);
        let pods: Vec<&Arc<ApiPod>> = owned.iter().filter_map(|p| self.pods.get(*p)).collect();
        let expected_rm = self.removing.get(&id).unwrap_or(&empty);
        let backoff = self.backoff.get(&id).copied().unwrap_or_default();
        let plan = sync(&Input { job: &job, pods, satisfied, expected_rm, backoff, now });
        self.run(id, &job, plan, ctx);
    }

    fn run(&mut self, id: JobId, job: &Arc<ApiJob>, plan: Plan, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        if let Some(delay) = plan.requeue {
            self.after(id, delay, ctx);
        }
        for event in plan.early_events {
            self.send(Write::Event { job: id, event }, ctx);
        }
        let mut steps = VecDeque::new();
        if !plan.deletes.is_empty() {
            self.expectations.expect_deletions(id, plan.deletes.iter().copied(), now);
            if plan.strip {
                steps.push_back(Step::Strip(plan.deletes.clone()));
            }
            steps.push_back(Step::Calls(plan.deletes.iter().map(|&pod| Write::DeletePod { job: id, pod }).collect()));
        }
        let created: usize = plan.creates.iter().map(Vec::len).sum();
        if created > 0 {
            self.expectations.expect_creations(id, created as u32, now);
        }
        for batch in plan.creates {
            let calls = batch.into_iter().map(|new: NewPod| Write::CreatePod {
                job: id,
                pod: new_pod(job, new),
                prefix: generate_name(&job.spec.name, new.index),
                index: new.index,
            });
            steps.push_back(Step::Calls(calls.collect()));
        }
        if let Some(status) = plan.status1 {
            steps.push_back(Step::Status(Box::new(status), true));
        }
        if !plan.finalizers.is_empty() {
            steps.push_back(Step::Strip(plan.finalizers));
        }
        if let Some(status) = plan.status2 {
            steps.push_back(Step::Status(Box::new(status), false));
        }
        steps.push_back(Step::Finish(plan.late_events, plan.finishes));
        let read = job.meta.resource_version;
        let running = Running { steps, in_flight: 0, read, backoff: plan.backoff, first_status: false, refused: false };
        self.workers.run(id, running);
        self.advance(id, ctx);
    }

    /// The API server answered one call of `job`'s sync.
    pub fn written(&mut self, job: JobId, answer: Answer, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let mut store = None;
        if let Some(r) = self.workers.state(job) {
            r.in_flight = r.in_flight.saturating_sub(1);
            match answer {
                Answer::Refused => r.refused = true,
                Answer::Stored(rv) => {
                    r.read = rv;
                    if std::mem::take(&mut r.first_status) {
                        store = Some(r.backoff);
                    }
                }
                Answer::Done => {}
            }
        }
        if let Some(b) = store {
            self.backoff.insert(job, b);
        }
        self.advance(job, ctx);
        self.work(ctx);
    }

    /// The next step once the previous one is answered; a refused status
    /// write fails the sync (`AddRateLimited`).
    fn advance(&mut self, id: JobId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
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
        let Some(step) = r.steps.pop_front() else {
            self.workers.succeeded(id);
            return;
        };
        let calls = match step {
            Step::Calls(calls) => calls,
            Step::Strip(pods) => {
                self.removing.entry(id).or_default().extend(pods.iter().copied());
                pods.into_iter().map(|pod| Write::StripFinalizer { job: id, pod }).collect()
            }
            Step::Status(status, first) => {
                r.first_status = first;
                vec![Write::Status { job: id, read: r.read, status }]
            }
            Step::Finish(events, finishes) => {
                if finishes {
                    self.finishing.insert(id);
                }
                for event in events {
                    self.send(Write::Event { job: id, event }, ctx);
                }
                self.workers.succeeded(id);
                return;
            }
        };
        if let Some(r) = self.workers.state(id) {
            r.in_flight = calls.len() as u32;
        }
        for call in calls {
            self.send(call, ctx);
        }
    }

    fn send(&mut self, write: Write, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let jobs = &self.jobs;
        let label = || {
            let (job, what) = match &write {
                Write::CreatePod { job, .. } => (job, "create a pod"),
                Write::DeletePod { job, .. } => (job, "delete a pod"),
                Write::StripFinalizer { job, .. } => (job, "remove a pod's finalizer"),
                Write::Status { job, .. } => (job, "write the status"),
                Write::Event { job, .. } => (job, "record an event"),
                // Its Job is gone or finished: the pod names the draw, as the collector's do.
                Write::StripOrphan { pod } => {
                    return Label::new(What::ApiWrite, format!("pod #{}", pod.0))
                        .with("remove an orphan pod's finalizer");
                }
            };
            let name = jobs.get(*job).map_or_else(|| "?".to_string(), |j| format!("job/{}", j.spec.name));
            Label::new(What::ApiWrite, name).with(what)
        };
        let d = self.cluster.latencies.api_write.sample(&mut self.rng, label);
        ctx.q.after(d, Out::Write(write));
    }
}
