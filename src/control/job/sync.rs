//! One sync of a Job (`syncJob`, `manageJob`, `trackJobStatusAndRemoveFinalizers`
//! in pkg/controller/job/job_controller.go) as a pure function: from the Job
//! as read and its pods in the informer's cache, the calls the sync makes,
//! in order, and what it writes.

use super::backoff::{BackoffRecord, finish_time};
use super::failure_policy::match_policy;
use super::indexes::{self, delayed_deletion, first_pending, index, index_failed, new_failure_counts};
use super::pods::{NewPod, TRACKING_FINALIZER};
use crate::api::job::{ApiJob, JobCondition, JobConditionType as C, JobStatus, Uncounted};
use crate::api::pod::ApiPod;
use crate::api::status::{ConditionType, PodPhase};
use crate::control::replicaset::ranking::{active_pods_key, view_of};
use crate::ids::PodId;
use crate::spec::RestartPolicy;
use crate::spec::job::{CompletionMode, Intervals, ReplacementPolicy};
use crate::time::{SimDuration, SimTime};
use std::collections::BTreeSet;
use std::sync::Arc;

/// `MaxPodCreateDeletePerSync`.
const MAX_CREATE_DELETE: usize = 500;
/// `SyncJobBatchPeriod`: the shortest delay of a requeue.
pub const BATCH_PERIOD: SimDuration = SimDuration::from_secs(1);

/// What a sync reads.
pub struct Input<'a> {
    pub job: &'a ApiJob,
    /// The pods whose controller reference is this Job, finished or not.
    pub pods: Vec<&'a Arc<ApiPod>>,
    /// `SatisfiedExpectations`, read before the pods were listed.
    pub satisfied: bool,
    /// Pods whose finalizer removal this controller has sent but not yet seen.
    pub expected_rm: &'a BTreeSet<PodId>,
    pub backoff: BackoffRecord,
    pub now: SimTime,
}

/// An event the sync records about its Job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobEvent {
    pub warning: bool,
    pub reason: &'static str,
    pub message: String,
}

/// The calls of one sync, in the order they are made.
#[derive(Debug, Default)]
pub struct Plan {
    /// Events recorded as the sync decides (`Suspended`, `Resumed`).
    pub early_events: Vec<JobEvent>,
    /// DELETE these pods (`deleteActivePods`, or `deleteJobPods` after their
    /// finalizer is removed when `strip` holds).
    pub deletes: Vec<PodId>,
    pub strip: bool,
    /// Creations in slow-start batches of 1, 2, 4, …
    pub creates: Vec<Vec<NewPod>>,
    /// The status write that records the newly finished pods as uncounted
    /// and the interim condition (`None`: nothing to write).
    pub status1: Option<JobStatus>,
    /// The pods whose tracking finalizer is removed after it.
    pub finalizers: Vec<PodId>,
    /// The status write that counts them and adds the terminal condition.
    pub status2: Option<JobStatus>,
    /// Events after the last write (`recordJobFinished`).
    pub late_events: Vec<JobEvent>,
    /// `AddAfter` of the Job's key (back-off, active deadline).
    pub requeue: Option<SimDuration>,
    /// The back-off record, stored once status1 is written.
    pub backoff: BackoffRecord,
    /// The Job's finished status is written (`finishedJobExpectations`).
    pub finishes: bool,
}

fn has_finalizer(p: &ApiPod) -> bool {
    p.meta.finalizers.iter().any(|f| &**f == TRACKING_FINALIZER)
}

fn is_active(p: &ApiPod) -> bool {
    !p.status.phase.is_terminal() && p.meta.deletion.is_none() && !p.meta.removed
}

fn is_ready(p: &ApiPod) -> bool {
    p.status.condition_true(&ConditionType::Ready)
}

/// `onlyReplaceFailedPods`.
fn only_replace_failed(job: &ApiJob) -> bool {
    job.spec.replacement == ReplacementPolicy::Failed || job.spec.failure_policy.is_some()
}

/// `isPodFailed`: phase Failed, or (replacing terminating pods too) being
/// deleted before it succeeded.
fn is_failed(job: &ApiJob, p: &ApiPod) -> bool {
    match only_replace_failed(job) {
        true => p.status.phase == PodPhase::Failed,
        false => {
            p.status.phase == PodPhase::Failed || (p.meta.deletion.is_some() && p.status.phase != PodPhase::Succeeded)
        }
    }
}

/// Whether the policy counts a failed pod (`Ignore` does not).
fn counts(job: &ApiJob, p: &ApiPod) -> bool {
    let per_index = job.spec.backoff_limit_per_index.is_some();
    job.spec.failure_policy.as_ref().is_none_or(|rules| match_policy(rules, p, per_index).count)
}

/// `syncJob` of a Job that is not finished.
pub fn sync(i: &Input) -> Plan {
    let (job, now) = (i.job, i.now);
    let spec = &job.spec;
    let mut status = job.status.clone();
    let mut plan = Plan { backoff: i.backoff, ..Plan::default() };
    let indexed = spec.mode == CompletionMode::Indexed;
    let completions = spec.completions.unwrap_or(0);
    let uncounted = status.uncounted.clone().unwrap_or_default();
    let uncounted_has =
        |p: &ApiPod| uncounted.succeeded.contains(&p.meta.uid) || uncounted.failed.contains(&p.meta.uid);
    // `getValidPodsWithFilter`: tracked pods not yet recorded in the status.
    let valid = |p: &&&Arc<ApiPod>| {
        has_finalizer(p) && !i.expected_rm.contains(&p.id) && (!indexed || index(p, completions).is_some())
    };
    let new_succeeded: Vec<&Arc<ApiPod>> = i
        .pods
        .iter()
        .filter(valid)
        .filter(|p| !uncounted_has(p) && p.status.phase == PodPhase::Succeeded)
        .copied()
        .collect();
    let new_failed: Vec<&Arc<ApiPod>> =
        i.pods.iter().filter(valid).filter(|p| !uncounted_has(p) && is_failed(job, p)).copied().collect();
    let mut active: Vec<&Arc<ApiPod>> = i.pods.iter().filter(|p| is_active(p)).copied().collect();
    let mut ready = active.iter().filter(|p| is_ready(p)).count() as u32;
    let mut terminating =
        i.pods.iter().filter(|p| p.meta.deletion.is_some() && !p.status.phase.is_terminal() && !p.meta.removed).count()
            as u32;
    let mut succeeded = status.succeeded + new_succeeded.len() as u32 + uncounted.succeeded.len() as u32;
    let failed =
        status.failed + new_failed.iter().filter(|p| counts(job, p)).count() as u32 + uncounted.failed.len() as u32;
    let mut start_time_set_now = false;
    if status.start_time.is_none() && !spec.suspend {
        status.start_time = Some(now);
        start_time_set_now = true;
    }
    let times = |pods: &[&Arc<ApiPod>]| pods.iter().map(|p| finish_time(p)).collect::<Vec<_>>();
    plan.backoff = i.backoff.after(&times(&new_succeeded), &times(&new_failed));

    // Indexed: the indexes done (`calculateSucceededIndexes`) and failed.
    let mut done = Intervals::default();
    let mut failed_indexes: Option<Intervals> = None;
    if indexed {
        let prev = status.completed_indexes.clone().unwrap_or_default();
        let fresh = i.pods.iter().filter(|p| has_finalizer(p) && p.status.phase == PodPhase::Succeeded);
        done = Intervals::of(prev.iter().chain(fresh.filter_map(|p| index(p, completions))));
        if spec.backoff_limit_per_index.is_some() {
            let prev = status.failed_indexes.clone().unwrap_or_default();
            let fresh = i.pods.iter().filter(|p| p.status.phase == PodPhase::Failed && has_finalizer(p));
            let fresh = fresh.filter(|p| index_failed(job, p, is_failed(job, p))).filter_map(|p| index(p, completions));
            failed_indexes = Some(Intervals::of(prev.iter().chain(fresh)));
        }
    }

    // The finished condition, first match wins.
    let mut finished: Option<JobCondition> = None;
    let per_index = spec.backoff_limit_per_index.is_some();
    if let Some(c) = status.condition(C::SuccessCriteriaMet).filter(|c| c.status) {
        finished = Some(c.clone());
    } else if let Some(c) = status.condition(C::FailureTarget).filter(|c| c.status) {
        finished = Some(JobCondition::new(C::Failed, true, c.reason, c.message.clone(), now));
    } else if let Some(message) = fail_job_message(job, &i.pods, per_index) {
        finished = Some(failure("PodFailurePolicy", message, now));
    } else if failed > spec.backoff_limit || past_backoff_limit_on_failure(job, &i.pods) {
        finished = Some(failure("BackoffLimitExceeded", "Job has reached the specified backoff limit".into(), now));
    } else if let (Some(ads), Some(start), false) = (spec.active_deadline_seconds, status.start_time, spec.suspend) {
        let deadline = SimDuration::from_secs(ads);
        let elapsed = now.since(if start_time_set_now { start } else { start.floor_second() });
        if elapsed >= deadline {
            finished = Some(failure("DeadlineExceeded", "Job was active longer than specified deadline".into(), now));
        } else {
            plan.requeue = Some(deadline.saturating_sub(elapsed));
        }
    }
    let mut delayed = std::collections::BTreeMap::new();
    if indexed {
        succeeded = done.total();
        if let Some(fi) = &failed_indexes
            && finished.is_none()
        {
            if spec.max_failed_indexes.is_some_and(|m| fi.total() > m) {
                let message = "Job has exceeded the specified maximal number of failed indexes".into();
                finished = Some(failure("MaxFailedIndexesExceeded", message, now));
            } else if fi.total() > 0 && fi.total() + done.total() >= completions {
                finished = Some(failure("FailedIndexes", "Job has failed indexes".into(), now));
            }
        }
        if per_index {
            let active_indexes: Vec<u32> = active.iter().filter_map(|p| index(p, completions)).collect();
            let busy = |ix: u32| {
                done.contains(ix)
                    || failed_indexes.as_ref().is_some_and(|f| f.contains(ix))
                    || active_indexes.contains(&ix)
            };
            let candidates = i.pods.iter().filter(valid).filter(|p| is_failed(job, p));
            delayed = delayed_deletion(candidates.copied(), completions, busy);
        }
        if finished.is_none()
            && let Some(k) = (spec.success_policy.iter().enumerate()).find(|(_, r)| success_rule_met(r, &done))
        {
            finished = Some(JobCondition::new(
                C::SuccessCriteriaMet,
                true,
                "SuccessPolicy",
                format!("Matched rules at index {}", k.0),
                now,
            ));
        }
    }

    let mut manage_called = false;
    if finished.is_some() {
        // `deleteActivePods`: every active pod is deleted; the terminal
        // condition waits for them.
        plan.deletes = active.iter().map(|p| p.id).collect();
        terminating += plan.deletes.len() as u32;
        ready = 0;
        active.clear();
        if !i.satisfied {
            // The deletions' expectations are not met: decide again later.
            finished = None;
        }
    } else if i.satisfied && job.meta.deletion.is_none() {
        manage_called = true;
        let kept = manage(i, &mut plan, &active, terminating, succeeded, &done, failed_indexes.as_ref(), &delayed);
        if let Some((removed, removed_ready)) = kept.deleted {
            terminating += removed;
            ready -= removed_ready;
        }
        let complete = match spec.completions {
            None => succeeded > 0 && kept.active == 0,
            Some(c) => succeeded >= c && kept.active == 0,
        };
        if complete {
            let message = "Reached expected number of succeeded pods".to_string();
            finished = Some(JobCondition::new(C::SuccessCriteriaMet, true, "CompletionsReached", message, now));
        }
        status.active = kept.active;
    } else {
        status.active = active.len() as u32;
    }
    if finished.is_some() {
        status.active = active.len() as u32;
    }
    let mut suspend_changed = false;
    if finished.is_none() && manage_called {
        let (state, reason, message, event) = match spec.suspend {
            true => (true, "JobSuspended", "Job suspended", "Suspended"),
            false => (false, "JobResumed", "Job resumed", "Resumed"),
        };
        if ensure_condition(&mut status.conditions, C::Suspended, state, reason, message, now) {
            suspend_changed = true;
            plan.early_events.push(JobEvent { warning: false, reason: event, message: message.into() });
            if !state {
                status.start_time = Some(now);
            }
        }
    }
    let needs_update = suspend_changed
        || status.active != job.status.active
        || Some(ready) != job.status.ready
        || Some(terminating) != job.status.terminating
        || status.start_time.is_some() && job.status.start_time.is_none();
    status.ready = Some(ready);
    status.terminating = Some(terminating);
    track(i, &mut plan, status, finished, needs_update, &done, failed_indexes, &delayed, terminating);
    plan
}

/// `newFailureCondition`: the interim FailureTarget (the terminal Failed
/// follows once no pod is left terminating).
fn failure(reason: &'static str, message: String, now: SimTime) -> JobCondition {
    JobCondition::new(C::FailureTarget, true, reason, message, now)
}

/// `getFailJobMessage`: a failed pod that a FailJob rule matches.
fn fail_job_message(job: &ApiJob, pods: &[&Arc<ApiPod>], per_index: bool) -> Option<String> {
    let rules = job.spec.failure_policy.as_ref()?;
    pods.iter().filter(|p| is_failed(job, p)).find_map(|p| match_policy(rules, p, per_index).fail_job)
}

/// `pastBackoffLimitOnFailure`: with restartPolicy OnFailure, the restarts
/// of the containers of pods still Pending or Running reach the limit.
fn past_backoff_limit_on_failure(job: &ApiJob, pods: &[&Arc<ApiPod>]) -> bool {
    if job.spec.template.pod.restart_policy != RestartPolicy::OnFailure {
        return false;
    }
    let live = pods.iter().filter(|p| matches!(p.status.phase, PodPhase::Pending | PodPhase::Running));
    let restarts: u32 = live.flat_map(|p| p.status.all_containers()).map(|c| c.restart_count).sum();
    match job.spec.backoff_limit {
        0 => restarts > 0,
        limit => restarts >= limit,
    }
}

/// `matchSuccessPolicy`'s test of one rule.
fn success_rule_met(rule: &crate::spec::job::SuccessRule, done: &Intervals) -> bool {
    match (&rule.indexes, rule.count) {
        (Some(listed), count) => {
            let hits = listed.iter().filter(|i| done.contains(*i)).count() as u32;
            match count {
                Some(c) => hits >= c,
                None => hits == listed.total(),
            }
        }
        (None, Some(c)) => done.total() >= c,
        (None, None) => false,
    }
}

/// `ensureJobConditionStatus`: whether the list changed.
fn ensure_condition(
    list: &mut Vec<JobCondition>,
    kind: C,
    status: bool,
    reason: &'static str,
    message: &str,
    now: SimTime,
) -> bool {
    if let Some(c) = list.iter_mut().find(|c| c.kind == kind) {
        if c.status != status || c.reason != reason || c.message != message {
            *c = JobCondition::new(kind, status, reason, message.into(), now);
            return true;
        }
        return false;
    }
    if status {
        list.push(JobCondition::new(kind, status, reason, message.into(), now));
        return true;
    }
    false
}

/// What `manageJob` leaves: the active count (creations counted at once)
/// and, when it deleted pods, how many and how many of them were ready.
struct Managed {
    active: u32,
    deleted: Option<(u32, u32)>,
}

/// `manageJob`: delete what is too many (all, when suspended), else create
/// what is missing — after the back-off, in slow-start batches.
#[allow(clippy::too_many_arguments)]
fn manage(
    i: &Input,
    plan: &mut Plan,
    active: &[&Arc<ApiPod>],
    terminating: u32,
    succeeded: u32,
    done: &Intervals,
    failed_indexes: Option<&Intervals>,
    delayed: &std::collections::BTreeMap<u32, &Arc<ApiPod>>,
) -> Managed {
    let (job, spec) = (i.job, &i.job.spec);
    let n = active.len() as u32;
    if spec.suspend {
        plan.deletes = active.iter().map(|p| p.id).collect();
        plan.strip = true;
        let ready = active.iter().filter(|p| is_ready(p)).count() as u32;
        return Managed { active: 0, deleted: Some((n, ready)) };
    }
    let want = match spec.completions {
        None if succeeded > 0 => n,
        None => spec.parallelism,
        Some(c) => c.saturating_sub(succeeded).min(spec.parallelism),
    };
    if n > want {
        // `activePodsForRemoval`: the pods least far along go first (`controller.ActivePods`).
        let mut ranked: Vec<&&Arc<ApiPod>> = active.iter().collect();
        ranked.sort_by_cached_key(|p| active_pods_key(&view_of(p, 0)));
        let doomed: Vec<&&Arc<ApiPod>> =
            ranked.into_iter().take(((n - want) as usize).min(MAX_CREATE_DELETE)).collect();
        plan.deletes = doomed.iter().map(|p| p.id).collect();
        plan.strip = true;
        let ready = doomed.iter().filter(|p| is_ready(p)).count() as u32;
        return Managed { active: n - doomed.len() as u32, deleted: Some((doomed.len() as u32, ready)) };
    }
    let terminating = if only_replace_failed(job) { terminating } else { 0 };
    let diff = want.saturating_sub(terminating).saturating_sub(n) as usize;
    if diff == 0 {
        return Managed { active: n, deleted: None };
    }
    if spec.backoff_limit_per_index.is_none() {
        let remaining = plan.backoff.remaining(i.now);
        if remaining > SimDuration::ZERO {
            plan.requeue = Some(plan.requeue.map_or(remaining, |r| r.min(remaining)).max(BATCH_PERIOD));
            return Managed { active: n, deleted: None };
        }
    }
    let diff = diff.min(MAX_CREATE_DELETE);
    let new: Vec<NewPod> = match spec.mode {
        CompletionMode::NonIndexed => vec![NewPod { index: None, failures: (0, 0) }; diff],
        CompletionMode::Indexed => {
            let completions = spec.completions.unwrap_or(0);
            let mut busy: Vec<u32> = active.iter().filter_map(|p| index(p, completions)).collect();
            if only_replace_failed(job) {
                let terminating = i.pods.iter().filter(|p| p.meta.deletion.is_some() && !p.status.phase.is_terminal());
                busy.extend(terminating.filter_map(|p| index(p, completions)));
            }
            let pending = first_pending(&busy, done, failed_indexes, diff, completions);
            let mut now_ready = pending;
            if spec.backoff_limit_per_index.is_some() {
                // `getPodCreationInfoForIndependentIndexes`.
                let waits: Vec<SimDuration> =
                    now_ready.iter().map(|ix| indexes::remaining(delayed.get(ix).map(|p| &***p), i.now)).collect();
                let free: Vec<u32> =
                    now_ready.iter().zip(&waits).filter(|(_, w)| **w == SimDuration::ZERO).map(|(ix, _)| *ix).collect();
                if free.is_empty() {
                    if let Some(min) = waits.into_iter().min().filter(|w| *w > SimDuration::ZERO) {
                        plan.requeue = Some(plan.requeue.map_or(min, |r| r.min(min)).max(BATCH_PERIOD));
                    }
                    return Managed { active: n, deleted: None };
                }
                now_ready = free;
            }
            now_ready
                .into_iter()
                .map(|ix| NewPod {
                    index: Some(ix),
                    failures: new_failure_counts(job, delayed.get(&ix).map(|p| &***p)),
                })
                .collect()
        }
    };
    // Slow start: 1, 2, 4, … (`controller.SlowStartInitialBatchSize`).
    let mut rest = new.as_slice();
    let mut size = 1;
    while !rest.is_empty() {
        let (batch, tail) = rest.split_at(size.min(rest.len()));
        plan.creates.push(batch.to_vec());
        rest = tail;
        size *= 2;
    }
    Managed { active: n + new.len() as u32, deleted: None }
}

/// `trackJobStatusAndRemoveFinalizers`, `flushUncountedAndRemoveFinalizers`
/// and `enactJobFinished`.
#[allow(clippy::too_many_arguments)]
fn track(
    i: &Input,
    plan: &mut Plan,
    mut status: JobStatus,
    finished: Option<JobCondition>,
    mut needs_flush: bool,
    done: &Intervals,
    failed_indexes: Option<Intervals>,
    delayed: &std::collections::BTreeMap<u32, &Arc<ApiPod>>,
    terminating: u32,
) {
    let (job, now) = (i.job, i.now);
    let indexed = job.spec.mode == CompletionMode::Indexed;
    let completions = job.spec.completions.unwrap_or(0);
    let mut uncounted = status.uncounted.clone().unwrap_or_default();
    let read = uncounted.clone();
    let with_finalizer: BTreeSet<&str> =
        i.pods.iter().filter(|p| has_finalizer(p) && !i.expected_rm.contains(&p.id)).map(|p| &*p.meta.uid).collect();
    needs_flush |= count_removed(&mut status, &mut uncounted, &with_finalizer);
    let failure = finished.as_ref().is_some_and(|f| !matches!(f.kind, C::SuccessCriteriaMet | C::Complete));
    for p in &i.pods {
        if !has_finalizer(p) || i.expected_rm.contains(&p.id) {
            continue;
        }
        let considered_failed = is_failed(job, p);
        // `canRemoveFinalizer`.
        let removable = job.meta.deletion.is_some()
            || finished.is_some()
            || p.status.phase == PodPhase::Succeeded
            || (considered_failed
                && !(job.spec.backoff_limit_per_index.is_some()
                    && index(p, completions).and_then(|ix| delayed.get(&ix)).is_some_and(|d| d.id == p.id)));
        if !removable {
            continue;
        }
        plan.finalizers.push(p.id);
        if p.status.phase == PodPhase::Succeeded && !read.failed.contains(&p.meta.uid) {
            if !indexed && !read.succeeded.contains(&p.meta.uid) {
                needs_flush = true;
                uncounted.succeeded.push(p.meta.uid.clone());
            }
        } else if (considered_failed || failure)
            && !read.failed.contains(&p.meta.uid)
            && (!indexed || index(p, completions).is_some())
            && counts(job, p)
        {
            needs_flush = true;
            uncounted.failed.push(p.meta.uid.clone());
        }
    }
    if indexed {
        if status.completed_indexes.as_ref() != Some(done) {
            needs_flush = true;
        }
        status.succeeded = done.total();
        status.completed_indexes = Some(done.clone());
        if status.failed_indexes != failed_indexes {
            status.failed_indexes = failed_indexes;
            needs_flush = true;
        }
    }
    status.uncounted = Some(uncounted.clone());
    let mut terminal = finished;
    if let Some(f) = terminal.as_mut() {
        match f.kind {
            C::FailureTarget => {
                status.conditions.push(f.clone());
                needs_flush = true;
                *f = JobCondition::new(C::Failed, true, f.reason, f.message.clone(), now);
            }
            C::SuccessCriteriaMet => {
                if !status.is_true(C::SuccessCriteriaMet) {
                    status.conditions.push(f.clone());
                    needs_flush = true;
                }
                *f = JobCondition::new(C::Complete, true, f.reason, f.message.clone(), now);
            }
            _ => {}
        }
    }
    if needs_flush {
        plan.status1 = Some(status.clone());
        needs_flush = false;
    }
    // The finalizers go (assumed to succeed: a pod already gone counts too).
    let stripped: BTreeSet<&str> =
        plan.finalizers.iter().filter_map(|id| i.pods.iter().find(|p| p.id == *id)).map(|p| &*p.meta.uid).collect();
    let remaining: BTreeSet<&str> = with_finalizer.difference(&stripped).copied().collect();
    needs_flush |= count_removed(&mut status, &mut uncounted, &remaining);
    status.uncounted = Some(uncounted.clone());
    // `enactJobFinished`: once nothing is uncounted and no pod terminating.
    if let Some(f) = terminal.filter(|_| uncounted.is_empty() && terminating == 0) {
        if f.kind == C::Complete {
            status.completion_time = Some(f.last_transition);
        }
        let (kind, reason, message) = (f.kind, f.reason, f.message.clone());
        ensure_condition(&mut status.conditions, kind, true, reason, &message, now);
        needs_flush = true;
        plan.finishes = true;
        plan.late_events = match kind {
            C::Complete => {
                let mut events = Vec::new();
                if job.spec.completions.is_some_and(|c| status.succeeded > c) {
                    let message = "Too many succeeded pods running after completion count reached".into();
                    events.push(JobEvent { warning: true, reason: "TooManySucceededPods", message });
                }
                events.push(JobEvent { warning: false, reason: "Completed", message: "Job completed".into() });
                events
            }
            _ => vec![JobEvent { warning: true, reason, message }],
        };
    }
    if needs_flush {
        plan.status2 = Some(status);
    }
}

/// `cleanUncountedPodsWithoutFinalizers`: uncounted pods whose finalizer is
/// gone are counted; whether anything moved.
fn count_removed(status: &mut JobStatus, uncounted: &mut Uncounted, with_finalizer: &BTreeSet<&str>) -> bool {
    let (s, f) = (uncounted.succeeded.len(), uncounted.failed.len());
    uncounted.succeeded.retain(|u| with_finalizer.contains(&**u));
    uncounted.failed.retain(|u| with_finalizer.contains(&**u));
    status.succeeded += (s - uncounted.succeeded.len()) as u32;
    status.failed += (f - uncounted.failed.len()) as u32;
    s != uncounted.succeeded.len() || f != uncounted.failed.len()
}
