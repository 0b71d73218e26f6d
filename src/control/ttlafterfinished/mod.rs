//! The TTL-after-finished controller (pkg/controller/ttlafterfinished):
//! a Job with `ttlSecondsAfterFinished` is deleted that long after it
//! finished — in the foreground, so the garbage collector deletes its pods
//! before the Job goes.

use crate::api::job::ApiJob;
use crate::api::store::{Kind, Watch};
use crate::cluster::Cluster;
use crate::control::runtime::{self, Watching};
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::JobId;
use crate::informer::Informer;
use crate::rng::{Label, Stream, What};
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::WatchKind;
use std::sync::Arc;

/// What reaches the controller.
#[derive(Debug)]
pub enum Ev {
    Job(WatchKind, Arc<ApiJob>),
    /// A delayed add of the work queue is due.
    Wake(JobId),
}

/// What it sends: its queue's timers, and the uncached GET then
/// `DELETE` (propagationPolicy Foreground, the UID as precondition) of an
/// expired Job.
#[derive(Debug)]
pub enum Out {
    Own(Ev),
    Delete { job: JobId, uid: Arc<str> },
}

impl Watching for Controller {
    type Ev = Ev;
    const WATCHES: &'static [Watch] = &[(Kind::Job, "ttlafterfinished/jobs")];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Job { kind, job } => Some(Ev::Job(*kind, job.clone())),
            _ => None,
        }
    }
}

pub struct Controller {
    cluster: Arc<Cluster>,
    jobs: Informer<ApiJob>,
    queue: WorkQueue<JobId>,
    rng: Stream,
}

impl runtime::Controller for Controller {
    type Out = Out;

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match ev {
            // `addJob`, `updateJob`: a finished Job with a TTL, not deleting, is queued.
            Ev::Job(kind, job) => {
                self.jobs.apply(kind, &job);
                if kind != WatchKind::Deleted && job.meta.deletion.is_none() && expiry(&job).is_some() {
                    self.queue.add(job.id);
                }
            }
            Ev::Wake(id) => self.queue.wake(id, now),
        }
        // The workers (`TTLAfterFinishedWorkers`) take no time of their own: each key at once.
        while let Some(id) = self.queue.get() {
            self.process(id, ctx);
            self.queue.done(id);
        }
    }
}

/// `jobFinishTime` + TTL: when a finished Job with `ttlSecondsAfterFinished` expires.
pub fn expiry(job: &ApiJob) -> Option<SimTime> {
    let ttl = job.spec.ttl_seconds_after_finished?;
    let finished = job.status.finished()?;
    let at = job.status.condition(finished).filter(|c| c.status)?.last_transition;
    Some(at + SimDuration::from_secs(u64::from(ttl)))
}

impl Controller {
    pub fn new(cluster: Arc<Cluster>, seed: u64) -> Self {
        Controller {
            cluster,
            jobs: Informer::default(),
            queue: WorkQueue::controller_default(),
            rng: Stream::new(seed, "kube-controller-manager/ttlafterfinished"),
        }
    }

    /// `processJob`: not yet expired, it comes back when it will be
    /// (`enqueueAfter`); expired, it is read fresh and deleted.
    fn process(&mut self, id: JobId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(job) = self.jobs.get(id).cloned() else { return };
        let Some(at) = expiry(&job).filter(|_| job.meta.deletion.is_none()) else { return };
        if at > now {
            if let Some(due) = self.queue.add_after(id, at.since(now), now) {
                ctx.q.at(due, Out::Own(Ev::Wake(id)));
            }
            return;
        }
        let label = || Label::new(What::ApiWrite, format!("job/{}", job.spec.name)).with("GET, then DELETE the Job");
        let latency = &self.cluster.latencies.api_write;
        let d = latency.sample(&mut self.rng, label) + latency.sample(&mut self.rng, label);
        ctx.q.after(d, Out::Delete { job: id, uid: job.meta.uid.clone() });
    }
}

/// Whether a finished Job is due: `expiry` at or before `now`.
pub fn expired(job: &ApiJob, now: SimTime) -> bool {
    job.meta.deletion.is_none() && expiry(job).is_some_and(|at| at <= now)
}
