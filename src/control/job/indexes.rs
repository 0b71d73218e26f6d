//! Completion indexes of an Indexed Job (pkg/controller/job/indexed_job_utils.go).

use super::backoff::{finish_time, remaining_for};
use super::failure_policy::match_policy;
use crate::api::job::ApiJob;
use crate::api::pod::ApiPod;
use crate::spec::job::{FailureAction, Intervals};
use crate::time::{SimDuration, SimTime};
use std::collections::BTreeMap;
use std::sync::Arc;

/// `batch.JobCompletionIndexAnnotation` (also the label, PodIndexLabel GA).
pub const INDEX: &str = "batch.kubernetes.io/job-completion-index";
/// `batch.JobIndexFailureCountAnnotation`.
pub const FAILURE_COUNT: &str = "batch.kubernetes.io/job-index-failure-count";
/// `batch.JobIndexIgnoredFailureCountAnnotation`.
pub const IGNORED_FAILURE_COUNT: &str = "batch.kubernetes.io/job-index-ignored-failure-count";

fn annotation(p: &ApiPod, key: &str) -> Option<u32> {
    p.spec.object.metadata.annotations.as_ref()?.get(key)?.parse().ok()
}

/// `getCompletionIndex`: the pod's index, if it has a valid one below `completions`.
pub fn index(p: &ApiPod, completions: u32) -> Option<u32> {
    annotation(p, INDEX).filter(|i| *i < completions)
}

/// `getIndexFailureCount` and the ignored count.
pub fn failure_counts(p: &ApiPod) -> (u32, u32) {
    (annotation(p, FAILURE_COUNT).unwrap_or(0), annotation(p, IGNORED_FAILURE_COUNT).unwrap_or(0))
}

/// `getIndexAbsoluteFailureCount`.
fn absolute_failures(p: &ApiPod) -> u32 {
    let (counted, ignored) = failure_counts(p);
    counted + ignored
}

/// `isIndexFailed`: a failed pod fails its index when a `FailIndex` rule
/// matches it, or when it counts and its index has used up its limit.
pub fn index_failed(job: &ApiJob, p: &ApiPod, failed: bool) -> bool {
    if !failed {
        return false;
    }
    let limit = job.spec.backoff_limit_per_index.unwrap_or(u32::MAX);
    let counted = match &job.spec.failure_policy {
        Some(rules) => {
            let v = match_policy(rules, p, true);
            if v.action == Some(FailureAction::FailIndex) {
                return true;
            }
            v.count
        }
        None => true,
    };
    counted && failure_counts(p).0 >= limit
}

/// `getNewIndexFailureCounts`: the counts the replacement of `replaced` carries.
pub fn new_failure_counts(job: &ApiJob, replaced: Option<&ApiPod>) -> (u32, u32) {
    let Some(p) = replaced else { return (0, 0) };
    let (counted, ignored) = failure_counts(p);
    let counts = match &job.spec.failure_policy {
        Some(rules) => match_policy(rules, p, true).count,
        None => true,
    };
    if counts { (counted + 1, ignored) } else { (counted, ignored + 1) }
}

/// `firstPendingIndexes`: the `count` lowest indexes that are neither
/// succeeded, active, failed nor (when only failed pods are replaced) terminating.
pub fn first_pending(
    not_pending: &[u32],
    done: &Intervals,
    failed: Option<&Intervals>,
    count: usize,
    completions: u32,
) -> Vec<u32> {
    let busy = |i: u32| done.contains(i) || failed.is_some_and(|f| f.contains(i)) || not_pending.contains(&i);
    (0..completions).filter(|i| !busy(*i)).take(count).collect()
}

/// `getPodsWithDelayedDeletionPerIndex`: per pending index, its newest
/// failed pod still holding the finalizer, which carries the failure count
/// to the replacement.
pub fn delayed_deletion<'a>(
    pods: impl Iterator<Item = &'a Arc<ApiPod>>,
    completions: u32,
    busy: impl Fn(u32) -> bool,
) -> BTreeMap<u32, &'a Arc<ApiPod>> {
    let mut out: BTreeMap<u32, &Arc<ApiPod>> = BTreeMap::new();
    for p in pods {
        let Some(i) = index(p, completions).filter(|i| !busy(*i)) else { continue };
        match out.get(&i) {
            Some(last) if absolute_failures(last) > absolute_failures(p) || finish_time(p) < finish_time(last) => {}
            _ => {
                out.insert(i, p);
            }
        }
    }
    out
}

/// `getRemainingTimePerIndex`: the back-off of an index whose last failed
/// pod is `last` (none: no wait).
pub fn remaining(last: Option<&ApiPod>, now: SimTime) -> SimDuration {
    match last {
        None => SimDuration::ZERO,
        Some(p) => remaining_for(absolute_failures(p) + 1, Some(finish_time(p)), now),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_pending_indexes_skip_done_active_and_failed_ones() {
        let done = Intervals::of([2]);
        let failed = Intervals::of([1]);
        assert_eq!(first_pending(&[0], &done, Some(&failed), 2, 5), [3, 4]);
        assert_eq!(first_pending(&[], &done, Some(&failed), 2, 4), [0, 3]);
        assert_eq!(first_pending(&[], &Intervals::default(), None, 10, 3), [0, 1, 2]);
    }
}
