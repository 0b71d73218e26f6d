//! Jobs (batch/v1) as the simulator runs them: defaulted and validated by
//! `manifest::workloads::job`, so the Job controller only sees complete specs.

use super::PodTemplate;
use k8s_openapi::api::batch::v1::Job;
use std::collections::BTreeMap;
use std::fmt;

/// `spec.completionMode`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CompletionMode {
    /// Pods are interchangeable: the Job is done after `completions` successes.
    NonIndexed,
    /// Each pod has an index in `0..completions`; the Job is done when each
    /// index has succeeded once.
    Indexed,
}

/// `spec.podReplacementPolicy` (GA in 1.34).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReplacementPolicy {
    /// A replacement is created as soon as a pod is terminating or failed.
    TerminatingOrFailed,
    /// Only once the pod has failed (phase Failed): the default, and the
    /// only value allowed, with a podFailurePolicy.
    Failed,
}

impl ReplacementPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            ReplacementPolicy::TerminatingOrFailed => "TerminatingOrFailed",
            ReplacementPolicy::Failed => "Failed",
        }
    }
}

/// What a podFailurePolicy rule does with a failed pod it matches.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FailureAction {
    /// The Job fails at once.
    FailJob,
    /// The pod's index fails, with no more retries (needs backoffLimitPerIndex).
    FailIndex,
    /// The failure does not count towards any limit.
    Ignore,
    /// The failure counts, as with no rule.
    Count,
}

impl FailureAction {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureAction::FailJob => "FailJob",
            FailureAction::FailIndex => "FailIndex",
            FailureAction::Ignore => "Ignore",
            FailureAction::Count => "Count",
        }
    }
}

/// What a podFailurePolicy rule matches: exit codes, or pod conditions
/// (validation allows exactly one of the two).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureMatch {
    /// `onExitCodes`: a terminated container (of `container`, else any)
    /// whose non-zero exit code is in (`not_in` false) or not in `values`.
    ExitCodes { container: Option<String>, not_in: bool, values: Vec<i32> },
    /// `onPodConditions`: any condition of the pod with this type and status.
    Conditions(Vec<(String, ConditionStatus)>),
}

/// A pod condition's status as a pattern names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConditionStatus {
    True,
    False,
    Unknown,
}

/// One `podFailurePolicy.rules[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureRule {
    pub action: FailureAction,
    pub on: FailureMatch,
}

/// One `successPolicy.rules[i]`: met when the listed indexes have all
/// succeeded, or `count` of them (of all indexes, with no list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuccessRule {
    pub indexes: Option<Intervals>,
    pub count: Option<u32>,
}

/// A set of completion indexes in the API's compressed form
/// (`orderedIntervals`): `1,3-5,7`, where two neighbours stay `1,2`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Intervals(pub Vec<(u32, u32)>);

impl Intervals {
    /// `validateIndexesFormat` and `parseIndexInterval`: sorted intervals
    /// below `completions`; an error in the API server's words.
    pub fn parse(s: &str, completions: u32) -> Result<Intervals, String> {
        let mut out: Vec<(u32, u32)> = Vec::new();
        if s.is_empty() {
            return Ok(Intervals(out));
        }
        for part in s.split(',') {
            let limits: Vec<&str> = part.split('-').collect();
            if limits.len() > 2 {
                return Err(format!(
                    "the fragment {part:?} violates the requirement that an index interval can have at most two parts separated by '-'"
                ));
            }
            let index = |x: &str| -> Result<u32, String> {
                let n = x.parse::<i64>().map_err(|_| format!("cannot convert string to integer for index: {x:?}"))?;
                match u32::try_from(n) {
                    Ok(n) if n < completions => Ok(n),
                    _ if n >= i64::from(completions) => Err(format!("too large index: {x:?}")),
                    // Go's Atoi takes a negative number; it is below every index, so the order check refuses it
                    _ => {
                        Err(format!("non-increasing order, previous: {}, current: {n}", out.last().map_or(0, |l| l.1)))
                    }
                }
            };
            let first = index(limits[0])?;
            let last = match limits.get(1) {
                Some(y) => {
                    let last = index(y)?;
                    if first >= last {
                        return Err(format!("non-increasing order, previous: {first}, current: {last}"));
                    }
                    last
                }
                None => first,
            };
            match out.last_mut() {
                Some((_, prev)) if *prev >= first => {
                    return Err(format!("non-increasing order, previous: {prev}, current: {first}"));
                }
                // `parseIndexesFromString` joins neighbours: `9,10` is one interval.
                Some((_, prev)) if *prev + 1 == first => *prev = last,
                _ => out.push((first, last)),
            }
        }
        Ok(Intervals(out))
    }

    /// The set of `indexes` (any order, repeats allowed).
    pub fn of(indexes: impl IntoIterator<Item = u32>) -> Intervals {
        let mut all: Vec<u32> = indexes.into_iter().collect();
        all.sort_unstable();
        all.dedup();
        let mut out: Vec<(u32, u32)> = Vec::new();
        for i in all {
            match out.last_mut() {
                Some((_, last)) if *last + 1 == i => *last = i,
                _ => out.push((i, i)),
            }
        }
        Intervals(out)
    }

    pub fn contains(&self, i: u32) -> bool {
        self.0.iter().any(|&(a, b)| a <= i && i <= b)
    }

    /// How many indexes it holds.
    pub fn total(&self) -> u32 {
        self.0.iter().map(|&(a, b)| b - a + 1).sum()
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().flat_map(|&(a, b)| a..=b)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `orderedIntervals.String()`: `a-b` for three or more, `a,b` for two.
impl fmt::Display for Intervals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for &(a, b) in &self.0 {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            match b - a {
                0 => write!(f, "{a}")?,
                1 => write!(f, "{a},{b}")?,
                _ => write!(f, "{a}-{b}")?,
            }
        }
        Ok(())
    }
}

/// A Job.
#[derive(Clone, Debug)]
pub struct JobSpec {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub parallelism: u32,
    /// `None`: a work queue, done after the first success.
    pub completions: Option<u32>,
    pub mode: CompletionMode,
    /// `MaxInt32` when unset with `backoffLimitPerIndex` (the default then).
    pub backoff_limit: u32,
    pub backoff_limit_per_index: Option<u32>,
    pub max_failed_indexes: Option<u32>,
    pub failure_policy: Option<Vec<FailureRule>>,
    pub success_policy: Vec<SuccessRule>,
    pub active_deadline_seconds: Option<u64>,
    pub replacement: ReplacementPolicy,
    pub suspend: bool,
    pub ttl_seconds_after_finished: Option<u32>,
    /// `manualSelector: true` with its `matchLabels`; otherwise the API
    /// server generates the selector from the Job's UID.
    pub manual_selector: Option<BTreeMap<String, String>>,
    pub template: PodTemplate,
    pub object: Job,
}

impl JobSpec {
    /// `kubectl patch job --type=merge -p '{"spec":{"suspend":…}}'`.
    pub fn with_suspend(&self, suspend: bool) -> JobSpec {
        let mut j = self.clone();
        j.suspend = suspend;
        j.object.spec.get_or_insert_default().suspend = Some(suspend);
        j
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_print_and_parse_as_the_api_writes_them() {
        let set = Intervals::of([7, 1, 3, 4, 5, 9, 10]);
        assert_eq!(set.to_string(), "1,3-5,7,9,10");
        assert_eq!(set.total(), 7);
        assert_eq!(Intervals::parse("1,3-5,7,9,10", 11), Ok(set));
        assert_eq!(Intervals::parse("", 3), Ok(Intervals::default()));
        assert_eq!(Intervals::parse("0-3", 3), Err("too large index: \"3\"".to_string()));
        assert_eq!(Intervals::parse("2,1", 3), Err("non-increasing order, previous: 2, current: 1".to_string()));
        assert_eq!(Intervals::parse("1-1", 3), Err("non-increasing order, previous: 1, current: 1".to_string()));
        assert!(Intervals::parse("a", 3).unwrap_err().contains("cannot convert"));
    }
}
