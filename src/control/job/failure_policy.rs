//! `podFailurePolicy` (pkg/controller/job/pod_failure_policy.go
//! `matchPodFailurePolicy`): the first rule that matches a failed pod decides.

use crate::api::pod::ApiPod;
use crate::api::status::{ContainerState, PodPhase};
use crate::spec::job::{ConditionStatus, FailureAction, FailureMatch, FailureRule};

/// What the policy says of a failed pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// `FailJob`'s message, which becomes the Job's condition message.
    pub fail_job: Option<String>,
    /// Whether the failure counts towards the back-off limits.
    pub count: bool,
    /// The matching rule's action (`None`: no rule matched).
    pub action: Option<FailureAction>,
}

/// `matchPodFailurePolicy`: rules in order; `FailIndex` needs a per-index limit.
pub fn match_policy(rules: &[FailureRule], pod: &ApiPod, per_index: bool) -> Verdict {
    let mut verdict = Verdict { fail_job: None, count: true, action: None };
    if pod.status.phase != PodPhase::Failed {
        return verdict;
    }
    for (i, rule) in rules.iter().enumerate() {
        let matched = match &rule.on {
            FailureMatch::ExitCodes { container, not_in, values } => {
                on_exit_codes(pod, container.as_deref(), *not_in, values)
            }
            FailureMatch::Conditions(patterns) => on_conditions(pod, patterns).then(String::new),
        };
        let Some(container) = matched else { continue };
        verdict.action = Some(rule.action);
        match rule.action {
            FailureAction::Ignore => verdict.count = false,
            FailureAction::Count => {}
            FailureAction::FailIndex if per_index => {}
            FailureAction::FailIndex => {
                verdict.action = None;
                continue;
            }
            FailureAction::FailJob => {
                let (ns, name) = (&pod.spec.namespace, &pod.spec.name);
                verdict.fail_job = Some(match &rule.on {
                    FailureMatch::ExitCodes { .. } => {
                        let code = exit_code(pod, &container).unwrap_or_default();
                        format!(
                            "Container {container} for pod {ns}/{name} failed with exit code {code} matching FailJob rule at index {i}"
                        )
                    }
                    FailureMatch::Conditions(_) => {
                        let kind = matched_condition(pod, &rule.on).unwrap_or_default();
                        format!("Pod {ns}/{name} has condition {kind} matching FailJob rule at index {i}")
                    }
                });
            }
        }
        return verdict;
    }
    verdict
}

/// `matchOnExitCodes`: regular containers first, then init containers; the
/// first terminated with a non-zero code that the requirement selects.
fn on_exit_codes(pod: &ApiPod, name: Option<&str>, not_in: bool, values: &[i32]) -> Option<String> {
    let statuses = pod.status.containers.iter().chain(&pod.status.init_containers);
    for c in statuses {
        if name.is_some_and(|n| n != &*c.name) {
            continue;
        }
        if let ContainerState::Terminated(t) = &c.state
            && t.exit_code != 0
            && values.contains(&t.exit_code) != not_in
        {
            return Some(c.name.to_string());
        }
    }
    None
}

fn exit_code(pod: &ApiPod, container: &str) -> Option<i32> {
    let c = pod.status.all_containers().find(|c| &*c.name == container)?;
    match &c.state {
        ContainerState::Terminated(t) => Some(t.exit_code),
        _ => None,
    }
}

/// `matchOnPodConditions`: a condition of the pod with a pattern's type and status.
fn on_conditions(pod: &ApiPod, patterns: &[(String, ConditionStatus)]) -> bool {
    pod.status.conditions.iter().any(|c| {
        let status = if c.status { ConditionStatus::True } else { ConditionStatus::False };
        patterns.iter().any(|(kind, s)| c.kind.as_str() == kind && *s == status)
    })
}

fn matched_condition(pod: &ApiPod, on: &FailureMatch) -> Option<String> {
    let FailureMatch::Conditions(patterns) = on else { return None };
    let c = pod.status.conditions.iter().find(|c| {
        let status = if c.status { ConditionStatus::True } else { ConditionStatus::False };
        patterns.iter().any(|(kind, s)| c.kind.as_str() == kind && *s == status)
    })?;
    Some(c.kind.as_str().to_string())
}
