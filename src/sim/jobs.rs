//! Jobs in a run: created with the manifests (or applied later, a Job of
//! that name then given its new spec), and the Job controller's calls
//! applied by the API server — present only when a Job exists.

use super::watch::{Subscriber, Subscription};
use super::{World, routes};
use crate::control::job::{self as jobc, Answer, Controller as JobController, Write};
use crate::control::runtime::Watching;
use crate::ids::JobId;
use crate::spec::JobSpec;
use crate::trace::Record;
use crate::trace::record::{ApiEvent, EventSource, Involved, event_ns};
use std::sync::Arc;

impl World {
    /// The informers of the Job controller and of the TTL-after-finished
    /// controller, opened after the others'.
    pub(super) fn subscribe_jobs(&mut self) {
        let mut open = |watches: &'static [crate::api::store::Watch], to: Subscriber| -> Vec<Subscription> {
            let subscribe = |&(kind, name): &crate::api::store::Watch| Subscription {
                kind,
                watcher: self.watches.register(format!("kube-controller-manager/{name}")),
                to,
            };
            watches.iter().map(subscribe).collect()
        };
        let mut groups = Vec::new();
        if self.jobs.is_some() {
            groups.push(open(JobController::WATCHES, Subscriber::Jobs));
        }
        if self.ttl.is_some() {
            groups.push(open(crate::control::ttlafterfinished::Controller::WATCHES, Subscriber::Ttl));
        }
        self.informers.groups.extend(groups);
    }

    /// The TTL-after-finished controller's GET and DELETE of an expired
    /// Job: deleted in the foreground if it is still the Job it read and
    /// still expired (`processJob` checks the fresh copy again).
    pub(super) fn ttl_delete(&mut self, job: JobId, uid: &str) {
        let now = self.q.now();
        let j = self.api.job(job);
        if j.meta.removed || &*j.meta.uid != uid || !crate::control::ttlafterfinished::expired(j, now) {
            return;
        }
        let policy = crate::api::meta::Propagation::Foreground;
        let _ = self.api.delete_job(job, policy, Some(uid), now, &mut self.trace);
    }

    /// `kubectl apply` of a Job: created, or (one of that name exists) its
    /// spec replaced, e.g. `suspend` flipped.
    pub(super) fn apply_job(&mut self, spec: Arc<JobSpec>) {
        let now = self.q.now();
        let existing = self
            .api
            .jobs()
            .iter()
            .find(|j| !j.meta.removed && j.spec.name == spec.name && j.spec.namespace == spec.namespace);
        match existing.map(|j| j.id) {
            Some(id) => {
                self.api.update_job(id, spec, now, &mut self.trace);
            }
            None => {
                self.api.create_job(spec, None, now, &mut self.trace);
            }
        }
    }

    /// A call of the Job controller reaches the API server; the answer goes
    /// straight back to it.
    pub(super) fn job_write(&mut self, write: Write) {
        let now = self.q.now();
        let (job, answer) = match write {
            Write::CreatePod { job, pod, prefix, index } => {
                let alias = self.job_alias(job, index);
                let id = self.api.create_generated(pod, &prefix, alias, now, &mut self.trace);
                let message = format!("Created pod: {}", self.api.pod(id).spec.name);
                self.job_event(job, false, "SuccessfulCreate", message);
                self.sync_watch(false);
                (job, Answer::Done)
            }
            Write::DeletePod { job, pod } => {
                let outcome = self.api.delete(pod, None, now, &mut self.trace);
                self.sync_watch(false);
                if outcome != crate::api::DeleteOutcome::NotFound {
                    let message = format!("Deleted pod: {}", self.api.pod(pod).spec.name);
                    self.job_event(job, false, "SuccessfulDelete", message);
                }
                (job, Answer::Done)
            }
            Write::StripFinalizer { job, pod } => {
                self.api.remove_pod_finalizer(pod, jobc::pods::TRACKING_FINALIZER, now, &mut self.trace);
                self.sync_watch(false);
                (job, Answer::Done)
            }
            Write::Status { job, read, status } => {
                match self.api.update_job_status(job, read, *status, now, &mut self.trace) {
                    Ok(rv) => (job, Answer::Stored(rv)),
                    Err(_) => (job, Answer::Refused),
                }
            }
            Write::Event { job, event } => {
                self.job_event(job, event.warning, event.reason, event.message);
                return;
            }
            Write::StripOrphan { pod } => {
                self.api.remove_pod_finalizer(pod, jobc::pods::TRACKING_FINALIZER, now, &mut self.trace);
                self.sync_watch(false);
                return;
            }
        };
        if let Some(c) = self.jobs.as_mut() {
            let mut out = crate::engine::Routed { q: &mut self.q, route: routes::jobs };
            let mut ctx = crate::engine::Ctx { q: &mut out, trace: &mut self.trace };
            c.written(job, answer, &mut ctx);
        }
    }

    /// The next pod of Job `job` by the name milestones give it:
    /// `pod/<job>#<n>`, or for an index `pod/<job>-<index>#<n>` (the n-th
    /// pod of that index).
    fn job_alias(&mut self, job: JobId, index: Option<u32>) -> Arc<str> {
        let name = &self.api.job(job).spec.name;
        let group = match index {
            Some(i) => format!("{name}-{i}"),
            None => name.clone(),
        };
        let n = self.aliases.entry(group.clone()).or_default();
        *n += 1;
        Arc::from(format!("pod/{group}#{n}"))
    }

    /// An event of the job-controller about `job`.
    fn job_event(&mut self, job: JobId, warning: bool, reason: &'static str, message: String) {
        let now = self.q.now();
        // A sweep's trace keeps no Events.
        if !self.trace.keeps_all() {
            return;
        }
        let j = self.api.job(job);
        let about = Involved { name: &j.spec.name, namespace: &j.spec.namespace, uid: &j.meta.uid };
        let source = EventSource::Controller { component: "job-controller", kind: "Job" };
        let ns = event_ns(self.epoch_ns, now) + job.0 as u128;
        let event = ApiEvent::first_at(about, source, warning, reason, message, now, ns);
        self.trace.push(now, Record::Event(Arc::new(event)));
    }
}

impl World {
    /// The CronJob controller's informers, opened after the others'.
    pub(super) fn subscribe_cronjobs(&mut self) {
        if self.cronjobs.is_none() {
            return;
        }
        let subscribe = |&(kind, name): &crate::api::store::Watch| Subscription {
            kind,
            watcher: self.watches.register(format!("kube-controller-manager/{name}")),
            to: Subscriber::CronJobs,
        };
        let group = crate::control::cronjob::Controller::WATCHES.iter().map(subscribe).collect();
        self.informers.groups.push(group);
    }

    /// A call of the CronJob controller reaches the API server.
    pub(super) fn cronjob_write(&mut self, write: crate::control::cronjob::Write) {
        use crate::control::cronjob::{Created, Write as W};
        let now = self.q.now();
        match write {
            W::CreateJob { cj, spec } => {
                let owner = self.api.cronjob(cj).as_owner();
                let created = self.api.create_job(spec, Some(owner), now, &mut self.trace);
                let answer = Created(created.map(|id| {
                    let j = self.api.job(id);
                    (id, Arc::from(j.spec.name.as_str()), j.meta.uid.clone())
                }));
                if let Some(c) = self.cronjobs.as_mut() {
                    let mut out = crate::engine::Routed { q: &mut self.q, route: routes::cronjobs };
                    let mut ctx = crate::engine::Ctx { q: &mut out, trace: &mut self.trace };
                    c.created(cj, answer, &mut ctx);
                }
            }
            W::DeleteJob { job, .. } => {
                let policy = crate::api::meta::Propagation::Background;
                let _ = self.api.delete_job(job, policy, None, now, &mut self.trace);
            }
            W::Status { cj, read, status } => {
                let stored = self.api.update_cronjob_status(cj, read, *status, now, &mut self.trace).is_ok();
                if let Some(c) = self.cronjobs.as_mut() {
                    let mut out = crate::engine::Routed { q: &mut self.q, route: routes::cronjobs };
                    let mut ctx = crate::engine::Ctx { q: &mut out, trace: &mut self.trace };
                    c.status_written(cj, stored, &mut ctx);
                }
            }
            W::Event { cj, warning, reason, message } => {
                if !self.trace.keeps_all() {
                    return;
                }
                let c = self.api.cronjob(cj);
                let about = Involved { name: &c.spec.name, namespace: &c.spec.namespace, uid: &c.meta.uid };
                let source = EventSource::Controller { component: "cronjob-controller", kind: "CronJob" };
                let ns = event_ns(self.epoch_ns, now) + cj.0 as u128;
                let event = ApiEvent::first_at(about, source, warning, reason, message, now, ns);
                self.trace.push(now, Record::Event(Arc::new(event)));
            }
        }
    }
}
