//! Rules of the Job controller judged on podsim's own runs, per Job: its
//! pods (by controller reference) never outnumber its parallelism, and a
//! pod that replaces failed ones comes after the back-off.

use super::report::{ControllerReport, Tally};
use super::{Invariant, Scope, inv};
use crate::api::pod::ApiPod;
use crate::api::status::PodPhase;
use crate::control::job::backoff::finish_time;
use crate::observe::Origin;
use crate::spec::RestartPolicy;
use crate::time::{SimDuration, SimTime};
use crate::trace::Trace;
use crate::trace::record::Record;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The Job rules.
pub const JOB_RULES: &[Invariant] = &[
    inv(
        "job-parallelism",
        "a Job never has more active pods (not finished, not being deleted) than its parallelism",
        "pkg/controller/job/job_controller.go manageJob (wantActive ≤ parallelism; expectations before each create)",
        Scope::Sequence,
    ),
    inv(
        "job-replacement-backoff",
        "a pod of a Job of parallelism 1 (NonIndexed, restartPolicy Never, no pod failure policy) that follows n failed pods since the last success is created no sooner than 10 s · 2^(n−1) (at most 10 min) after the last one finished (its latest container finishedAt, to the second)",
        "pkg/controller/job/backoff_utils.go getRemainingTimeForFailuresCount, getFinishedTime; job_controller.go manageJob",
        Scope::Sequence,
    ),
];

/// What the rules keep of one Job.
#[derive(Default)]
struct JobState {
    name: String,
    parallelism: u32,
    /// Whether the back-off rule applies (parallelism 1, Never, NonIndexed, no policy).
    sequential: bool,
    /// Its pods by UID, as last seen, in creation order.
    pods: Vec<(Arc<str>, Arc<ApiPod>)>,
    counts: Tally,
    backoff: Tally,
}

fn origin(i: usize) -> Origin {
    Origin { file: Arc::from("trace"), line: i as u64 + 1 }
}

fn active(p: &ApiPod) -> bool {
    !p.meta.removed && p.meta.deletion.is_none() && !p.status.phase.is_terminal()
}

/// `isPodFailed` under the default replacement policy.
fn failed(p: &ApiPod) -> bool {
    p.status.phase == PodPhase::Failed || (p.meta.deletion.is_some() && p.status.phase != PodPhase::Succeeded)
}

/// `getRemainingTimeForFailuresCount`'s delay for `n` failures, written
/// here apart from the controller's, so that the check does not share its code.
fn delay(n: u32) -> SimDuration {
    let secs = 10u64.saturating_mul(1 << (n - 1).min(20)).min(600);
    SimDuration::from_secs(secs)
}

/// Judges every Job of the trace.
pub fn judge(trace: &Trace) -> Vec<ControllerReport> {
    let mut jobs: BTreeMap<Arc<str>, JobState> = BTreeMap::new();
    for (i, e) in trace.entries.iter().enumerate() {
        match &e.record {
            Record::Job { job, .. } => {
                let s = jobs.entry(job.meta.uid.clone()).or_default();
                let spec = &job.spec;
                s.name = spec.name.clone();
                s.parallelism = spec.parallelism;
                s.sequential = spec.parallelism == 1
                    && spec.mode == crate::spec::job::CompletionMode::NonIndexed
                    && spec.failure_policy.is_none()
                    && spec.template.pod.restart_policy == RestartPolicy::Never;
            }
            Record::Pod { pod, .. } => {
                let Some(owner) = pod.spec.owner.as_ref().filter(|o| o.kind == "Job") else { continue };
                let Some(s) = jobs.get_mut(&owner.uid) else { continue };
                match s.pods.iter_mut().find(|(uid, _)| *uid == pod.meta.uid) {
                    Some((_, seen)) => *seen = pod.clone(),
                    None => {
                        if s.sequential {
                            created_after_backoff(s, e.t, i);
                        }
                        s.pods.push((pod.meta.uid.clone(), pod.clone()));
                    }
                }
                let n = s.pods.iter().filter(|(_, p)| active(p)).count() as u32;
                match n > s.parallelism {
                    true => s.counts.violate(
                        &[&origin(i)],
                        format!("at most {} active pod(s) (parallelism)", s.parallelism),
                        format!("{n} active"),
                    ),
                    false => s.counts.hold(),
                }
            }
            _ => {}
        }
    }
    jobs.into_values()
        .map(|s| ControllerReport {
            kind: "Job",
            name: s.name,
            observed: format!("{} pod(s)", s.pods.len()),
            verdicts: [
                ("job-parallelism", s.counts.verdict("no pod")),
                (
                    "job-replacement-backoff",
                    s.backoff.verdict("no pod replaced a failed one, or the Job runs pods in parallel"),
                ),
            ]
            .into_iter()
            .collect(),
        })
        .collect()
}

/// A new pod of a sequential Job at `t`: after n failures since the last
/// success, no sooner than the delay after the last one finished.
fn created_after_backoff(s: &mut JobState, t: SimTime, i: usize) {
    let since_success = s.pods.iter().rev().take_while(|(_, p)| p.status.phase != PodPhase::Succeeded);
    let failures: Vec<&Arc<ApiPod>> = since_success.map(|(_, p)| p).filter(|p| failed(p)).collect();
    let Some(last) = failures.first() else { return };
    let due = finish_time(last) + delay(failures.len() as u32);
    match t >= due {
        true => s.backoff.hold(),
        false => s.backoff.violate(
            &[&origin(i)],
            format!(
                "created at or after {:.3}s ({} failure(s) since the last success)",
                due.as_secs_f64(),
                failures.len()
            ),
            format!("created at {:.3}s", t.as_secs_f64()),
        ),
    }
}
