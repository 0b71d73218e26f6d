//! The CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go):
//! each CronJob is synced when it or one of its Jobs changes, and 100 ms
//! after each tick of its schedule (`nextScheduleTimeDuration`). A sync
//! cleans up finished Jobs beyond the history limits, takes finished Jobs
//! out of `status.active`, and creates the Job of the most recent missed
//! tick unless the concurrency policy or the starting deadline says no.
//! Times are Unix seconds in UTC: the run's epoch plus simulated time.

mod schedule;

use crate::api::cronjob::{ApiCronJob, CronJobStatus};
use crate::api::job::{ApiJob, JobConditionType};
use crate::api::store::{Kind, Watch};
use crate::cluster::Cluster;
use crate::control::runtime::{self, Watching};
use crate::control::workqueue::WorkQueue;
use crate::engine::{Ctx, Outbox};
use crate::ids::{CronJobId, JobId};
use crate::informer::Informer;
use crate::rng::{Label, Stream, What};
use crate::spec::JobSpec;
use crate::spec::cronjob::ConcurrencyPolicy;
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::WatchKind;
pub use schedule::{ScheduleTime, most_recent};
use std::collections::VecDeque;
use std::sync::Arc;

/// `nextScheduleDelta`: a sync comes this long after each tick.
const NEXT_SCHEDULE_DELTA: SimDuration = SimDuration::from_millis(100);
/// `batch.CronJobScheduledTimestampAnnotation`.
pub const SCHEDULED_TIMESTAMP: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";

#[derive(Debug)]
pub enum Ev {
    CronJob(WatchKind, Arc<ApiCronJob>),
    Job(WatchKind, Arc<ApiJob>),
    Wake(CronJobId),
}

#[derive(Debug)]
pub enum Out {
    Own(Ev),
    Write(Write),
}

/// A call on its way to the API server.
#[derive(Debug)]
pub enum Write {
    /// POST the Job of a tick (`getJobFromTemplate2`), owned by the CronJob.
    CreateJob { cj: CronJobId, spec: Arc<JobSpec> },
    /// DELETE a Job, propagationPolicy Background (`deleteJob`).
    DeleteJob { cj: CronJobId, job: JobId },
    /// `UpdateStatus` of the CronJob as read at resourceVersion `read`: a
    /// stale one is refused (409) and the CronJob synced again, with back-off.
    Status { cj: CronJobId, read: u64, status: Box<CronJobStatus> },
    /// An event about the CronJob.
    Event { cj: CronJobId, warning: bool, reason: &'static str, message: String },
}

/// The answer to a Job creation: the Job, or nothing (AlreadyExists).
#[derive(Debug)]
pub struct Created(pub Option<(JobId, Arc<str>, Arc<str>)>);

impl Watching for Controller {
    type Ev = Ev;
    const WATCHES: &'static [Watch] = &[(Kind::Job, "cronjob/jobs"), (Kind::CronJob, "cronjob/cronjobs")];

    fn watched(record: &Record) -> Option<Ev> {
        match record {
            Record::Job { kind, job } => Some(Ev::Job(*kind, job.clone())),
            Record::CronJob { kind, cronjob } => Some(Ev::CronJob(*kind, cronjob.clone())),
            _ => None,
        }
    }
}

/// A sync waiting for its Job creation to be answered before its status write.
#[derive(Debug)]
struct Pending {
    status: CronJobStatus,
    read: u64,
    events: VecDeque<Write>,
}

pub struct Controller {
    cluster: Arc<Cluster>,
    /// Unix seconds of simulated time zero.
    epoch: i64,
    jobs: Informer<ApiJob>,
    cronjobs: Informer<ApiCronJob>,
    queue: WorkQueue<CronJobId>,
    pending: Vec<(CronJobId, Pending)>,
    /// The Jobs the informer saw deleted.
    gone: std::collections::BTreeSet<JobId>,
    rng: Stream,
}

impl runtime::Controller for Controller {
    type Out = Out;

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match ev {
            Ev::CronJob(kind, cj) => {
                self.cronjobs.apply(kind, &cj);
                if kind != WatchKind::Deleted {
                    self.queue.add(cj.id);
                }
            }
            // `addJob`, `updateJob`, `deleteJob`: the owner syncs at once.
            Ev::Job(kind, job) => {
                self.jobs.apply(kind, &job);
                if kind == WatchKind::Deleted {
                    self.gone.insert(job.id);
                }
                if let Some(owner) = self.owner_of(&job) {
                    self.queue.add(owner);
                }
            }
            Ev::Wake(id) => self.queue.wake(id, now),
        }
        self.work(ctx);
    }
}

impl Controller {
    pub fn new(cluster: Arc<Cluster>, seed: u64, epoch_ns: u128) -> Self {
        Controller {
            cluster,
            epoch: (epoch_ns / 1_000_000_000) as i64,
            jobs: Informer::default(),
            cronjobs: Informer::default(),
            queue: WorkQueue::controller_default(),
            pending: Vec::new(),
            gone: std::collections::BTreeSet::new(),
            rng: Stream::new(seed, "kube-controller-manager/cronjob"),
        }
    }

    fn owner_of(&self, job: &ApiJob) -> Option<CronJobId> {
        let owner = job.owner.as_ref().filter(|o| o.kind == "CronJob")?;
        self.cronjobs.list().find(|c| c.meta.uid == owner.uid).map(|c| c.id)
    }

    /// Unix seconds at simulated time `t` (whole seconds).
    fn unix(&self, t: SimTime) -> i64 {
        self.epoch + t.whole_seconds() as i64
    }

    /// Simulated time of Unix second `s`.
    fn sim(&self, s: i64) -> SimTime {
        SimTime::from_millis((s - self.epoch).max(0) as u64 * 1000)
    }

    /// Each queued CronJob syncs; its key stays taken until its status
    /// write is answered (the controller's calls are synchronous).
    fn work(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        while let Some(id) = self.queue.get() {
            if !self.sync(id, ctx) {
                self.queue.done(id);
            }
        }
    }

    /// `sync` → `cleanupFinishedJobs` then `syncCronJob`; whether it waits
    /// for the answer of a status write.
    fn sync(&mut self, id: CronJobId, ctx: &mut Ctx<'_, impl Outbox<Out>>) -> bool {
        let now = ctx.q.now();
        let Some(cj) = self.cronjobs.get(id).cloned() else { return false };
        let children: Vec<Arc<ApiJob>> = (self.jobs.list())
            .filter(|j| !j.meta.removed && j.owner.as_ref().is_some_and(|o| o.uid == cj.meta.uid))
            .cloned()
            .collect();
        let mut calls: VecDeque<Write> = VecDeque::new();
        let mut status = cj.status.clone();
        let event = |warning, reason, message| Write::Event { cj: id, warning, reason, message };
        // `syncCronJob`: finished Jobs leave `active`.
        for j in &children {
            let Some(done) = j.status.finished() else { continue };
            if let Some(i) = status.active.iter().position(|(job, ..)| *job == j.id) {
                status.active.remove(i);
                let message = format!("Saw completed job: {}, status: {}", j.spec.name, done.as_str());
                calls.push_back(event(false, "SawCompletedJob", message));
            }
            if done == JobConditionType::Complete {
                status.last_successful = status.last_successful.max(j.status.completion_time);
            }
        }
        // An active Job the cache saw go (the controller's GET of one it
        // has not seen yet finds it: it created it).
        let missing: Vec<Arc<str>> =
            (status.active.iter()).filter(|(job, ..)| self.gone.contains(job)).map(|(_, n, _)| n.clone()).collect();
        for name in missing {
            status.active.retain(|(_, n, _)| *n != name);
            calls.push_back(event(false, "MissingJob", format!("Active job went missing: {name}")));
        }
        calls.extend(self.cleanup(&cj, &children));
        let now_unix = self.unix(now);
        let mut created = None;
        if cj.meta.deletion.is_none() && !cj.spec.suspend {
            let when = most_recent(&cj.spec.schedule, self.earliest(&cj, now_unix), now_unix);
            if let ScheduleTime::Due { at, missed } = when {
                if missed > 100 {
                    let message = "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew";
                    calls.push_back(event(true, "TooManyMissedTimes", message.into()));
                }
                created = self.start(&cj, at, now_unix, &mut status, &mut calls);
            }
            self.requeue(&cj, now_unix, now, ctx);
        }
        match created {
            Some(spec) => {
                let mut rest = VecDeque::new();
                std::mem::swap(&mut rest, &mut calls);
                // The Job is created first; its answer puts it in `active`, then the status.
                let read = cj.meta.resource_version;
                self.pending.push((id, Pending { status, read, events: rest }));
                self.send(Write::CreateJob { cj: id, spec }, ctx);
                true
            }
            None => {
                let writes = status != cj.status;
                if writes {
                    let read = cj.meta.resource_version;
                    calls.push_front(Write::Status { cj: id, read, status: Box::new(status) });
                }
                for call in calls {
                    self.send(call, ctx);
                }
                writes
            }
        }
    }

    /// `earliestTime` of `mostRecentScheduleTime`: the last schedule, else
    /// the creation, no older than the starting deadline.
    fn earliest(&self, cj: &ApiCronJob, now_unix: i64) -> i64 {
        let base = cj.status.last_schedule.unwrap_or(cj.meta.created);
        let mut earliest = self.unix(base);
        if let Some(d) = cj.spec.starting_deadline_seconds {
            earliest = earliest.max(now_unix - d);
        }
        earliest
    }

    /// The rest of `syncCronJob` for the tick `at`: too late, already
    /// started, forbidden, or replacing; else the Job to create.
    fn start(
        &self,
        cj: &ApiCronJob,
        at: i64,
        now_unix: i64,
        status: &mut CronJobStatus,
        calls: &mut VecDeque<Write>,
    ) -> Option<Arc<JobSpec>> {
        let id = cj.id;
        let event = |warning, reason, message| Write::Event { cj: id, warning, reason, message };
        if cj.spec.starting_deadline_seconds.is_some_and(|d| at + d < now_unix) {
            let message = format!("Missed scheduled time to start a job: {}", rfc1123z(at));
            calls.push_back(event(true, "MissSchedule", message));
            return None;
        }
        let name = format!("{}-{}", cj.spec.name, at / 60);
        if status.active.iter().any(|(_, n, _)| **n == *name) || status.last_schedule == Some(self.sim(at)) {
            return None;
        }
        match cj.spec.concurrency {
            ConcurrencyPolicy::Forbid if !status.active.is_empty() => {
                let message = "Not starting job because prior execution is running and concurrency policy is Forbid";
                calls.push_back(event(false, "JobAlreadyActive", message.into()));
                return None;
            }
            ConcurrencyPolicy::Replace => {
                for (job, name, _) in std::mem::take(&mut status.active) {
                    calls.push_back(Write::DeleteJob { cj: id, job });
                    calls.push_back(event(false, "SuccessfulDelete", format!("Deleted job {name}")));
                }
            }
            _ => {}
        }
        status.last_schedule = Some(self.sim(at));
        let scheduled = rfc3339(at);
        Some(Arc::new(cj.spec.job.named(&name, &[(SCHEDULED_TIMESTAMP, scheduled)])))
    }

    /// `cleanupFinishedJobs` / `removeOldestJobs`: the oldest finished Jobs
    /// (by startTime) beyond each history limit are deleted.
    fn cleanup(&self, cj: &ApiCronJob, children: &[Arc<ApiJob>]) -> Vec<Write> {
        let mut out = Vec::new();
        let limits = [
            (JobConditionType::Complete, cj.spec.successful_jobs_history_limit),
            (JobConditionType::Failed, cj.spec.failed_jobs_history_limit),
        ];
        for (kind, limit) in limits {
            let Some(limit) = limit else { continue };
            let mut finished: Vec<&Arc<ApiJob>> =
                children.iter().filter(|j| j.meta.deletion.is_none() && j.status.finished() == Some(kind)).collect();
            finished.sort_by_key(|j| (j.status.start_time.is_none(), j.status.start_time, j.spec.name.clone()));
            let excess = finished.len().saturating_sub(limit as usize);
            for j in finished.into_iter().take(excess) {
                out.push(Write::DeleteJob { cj: cj.id, job: j.id });
                let message = format!("Deleted job {}", j.spec.name);
                out.push(Write::Event { cj: cj.id, warning: false, reason: "SuccessfulDelete", message });
            }
        }
        out
    }

    /// `nextScheduleTimeDuration`: the next tick after the most recent one
    /// (or the earliest time), plus 100 ms.
    fn requeue(&mut self, cj: &ApiCronJob, now_unix: i64, now: SimTime, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let base = cj.status.last_schedule.unwrap_or(cj.meta.created);
        let from = match most_recent(&cj.spec.schedule, self.unix(base), now_unix) {
            ScheduleTime::Due { at, .. } => at,
            ScheduleTime::NotYet => self.unix(base),
        };
        let Some(next) = cj.spec.schedule.next(from) else { return };
        let due = self.sim(next) + NEXT_SCHEDULE_DELTA;
        let delay = due.since(now).max(SimDuration::from_millis(1));
        if let Some(at) = self.queue.add_after(cj.id, delay, now) {
            ctx.q.at(at, Out::Own(Ev::Wake(cj.id)));
        }
    }

    /// The API server answered the Job creation of `cj`'s sync: the Job
    /// joins `active` and the status is written, then the sync's events.
    pub fn created(&mut self, cj: CronJobId, answer: Created, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(i) = self.pending.iter().position(|(p, _)| *p == cj) else { return };
        let (_, mut pending) = self.pending.remove(i);
        match answer.0 {
            Some((job, name, uid)) => {
                pending.status.active.push((job, name.clone(), uid));
                let message = format!("Created job {name}");
                pending.events.push_back(Write::Event { cj, warning: false, reason: "SuccessfulCreate", message });
            }
            // AlreadyExists: a Job of this name the CronJob owns joins `active` if it is not in it.
            None => {
                let last = pending.status.last_schedule;
                let owner = self.cronjobs.get(cj).map(|c| c.meta.uid.clone());
                let name =
                    self.cronjobs.get(cj).zip(last).map(|(c, t)| format!("{}-{}", c.spec.name, self.unix(t) / 60));
                let ours = self.jobs.list().find(|j| {
                    Some(&j.spec.name) == name.as_ref() && j.owner.as_ref().map(|o| &o.uid) == owner.as_ref()
                });
                if let Some(j) = ours.filter(|j| !pending.status.active.iter().any(|(id, ..)| *id == j.id)) {
                    pending.status.active.push((j.id, Arc::from(j.spec.name.as_str()), j.meta.uid.clone()));
                }
            }
        }
        let read = pending.read;
        self.send(Write::Status { cj, read, status: Box::new(pending.status) }, ctx);
        for call in pending.events {
            self.send(call, ctx);
        }
    }

    /// The API server answered the sync's status write: the key is free;
    /// a refusal (409) requeues the CronJob with back-off (`handleErr`).
    pub fn status_written(&mut self, cj: CronJobId, stored: bool, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match stored {
            true => self.queue.forget(cj),
            false => {
                if let Some(due) = self.queue.add_rate_limited(cj, now) {
                    ctx.q.at(due, Out::Own(Ev::Wake(cj)));
                }
            }
        }
        self.queue.done(cj);
        self.work(ctx);
    }

    fn send(&mut self, write: Write, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let cronjobs = &self.cronjobs;
        let label = || {
            let (cj, what) = match &write {
                Write::CreateJob { cj, .. } => (cj, "create a Job"),
                Write::DeleteJob { cj, .. } => (cj, "delete a Job"),
                Write::Status { cj, .. } => (cj, "write the status"),
                Write::Event { cj, .. } => (cj, "record an event"),
            };
            let name = cronjobs.get(*cj).map_or_else(|| "?".into(), |c| format!("cronjob/{}", c.spec.name));
            Label::new(What::ApiWrite, name).with(what)
        };
        let d = self.cluster.latencies.api_write.sample(&mut self.rng, label);
        ctx.q.after(d, Out::Write(write));
    }
}

/// RFC 3339 of Unix second `s`, in UTC (the scheduled-time annotation).
fn rfc3339(s: i64) -> String {
    k8s_openapi::jiff::Timestamp::from_second(s).map(|t| t.to_string()).unwrap_or_default()
}

/// Go's `time.RFC1123Z` of Unix second `s`, in UTC (`MissSchedule`'s message).
fn rfc1123z(s: i64) -> String {
    k8s_openapi::jiff::Timestamp::from_second(s)
        .map(|t| t.strftime("%a, %d %b %Y %H:%M:%S +0000").to_string())
        .unwrap_or_default()
}
