//! The catalogue of milestone events by subject kind, so a property that
//! names an event no extraction produces is an error, not a silent "never".
//! A test checks every milestone of the model scenarios against it.

/// The subject kinds milestones are about.
pub const SUBJECT_KINDS: [&str; 9] = ["pod", "svc", "client", "deploy", "job", "cronjob", "node", "sts", "ds"];

/// An event word; `#` means numbered (`restart#2`), `(` takes an argument.
const POD: &[&str] = &[
    "created",
    "scheduled",
    "ready_to_start_containers",
    "initialized",
    "containers_ready",
    "ready",
    "not_ready",
    "phase_running",
    "phase_succeeded",
    "phase_failed",
    "crashloop",
    "deleted",
    "evicted",
    "removed",
    "condition(",
];
const CONTAINER: &[&str] = &[
    "running",
    "terminated",
    "crashloop",
    "started",
    "ready",
    "restart#",
    "last_restart",
    "process_started",
    "listening",
    "address_in_use",
    "poststart_started",
    "poststart_returned",
    "poststart_failed",
    "prestop_started",
    "prestop_returned",
    "prestop_failed",
    "sigterm",
    "sigkill",
    "oom_killed",
    "signal(",
    "exited",
    "last_exited",
    "node_stopped",
];
const SERVICE: &[&str] = &[
    "endpoint_added(",
    "endpoint_ready(",
    "endpoint_serving(",
    "endpoint_terminating(",
    "endpoint_not_ready(",
    "endpoint_removed(",
    "first_ready_endpoint",
    "no_ready_endpoint_start#",
    "no_ready_endpoint_end#",
    "programmed(",
    "unprogrammed(",
    "first_ok",
    "last_ok",
];
const CLIENT: &[&str] = &["first_ok", "last_ok"];
const DEPLOYMENT: &[&str] = &["rollout_started", "rollout_complete", "progress_deadline_exceeded"];
const NODE: &[&str] = &["not_ready", "ready", "no_execute", "rebooted#", "joined"];
const DAEMONSET: &[&str] = &["rollout_complete"];
const JOB: &[&str] = &["started", "failure_target", "failed", "success_criteria_met", "complete", "suspended"];
const CRONJOB: &[&str] = &["job#"];
/// A StatefulSet's; `pod#N:created` and `pod#N:ready` are its ordinals'.
const STATEFULSET: &[&str] = &["ready", "rollout_complete", "pod#N:created", "pod#N:ready"];

/// Whether a subject can have an event.
#[derive(Debug, PartialEq, Eq)]
pub enum EventCheck {
    Known,
    /// Unknown; the subject's events, for the message.
    Unknown(String),
}

/// Checks `event` against the events of `subject`'s kind (`pod/a` is a pod,
/// `pod/a/app` a container).
pub fn check(subject: &str, event: &str) -> EventCheck {
    let events = match subject.split('/').collect::<Vec<_>>()[..] {
        ["pod", _] => POD,
        ["pod", _, _] => CONTAINER,
        ["svc", ..] => SERVICE,
        ["client", ..] => CLIENT,
        ["deploy", ..] => DEPLOYMENT,
        ["node", _] => NODE,
        ["job", _] => JOB,
        ["cronjob", _] => CRONJOB,
        ["sts", _] => STATEFULSET,
        ["ds", _] => DAEMONSET,
        _ => &[],
    };
    // An ordinal's event: `pod#2:ready`.
    let ordinal = |e: &str| {
        let (Some(word), Some(rest)) = (e.strip_prefix("pod#N:"), event.strip_prefix("pod#")) else { return false };
        rest.split_once(':').is_some_and(|(n, w)| is_number(n) && w == word)
    };
    let known = events.iter().any(|e| {
        ordinal(e)
            || match e.strip_suffix('#') {
                Some(word) => event.strip_prefix(word).and_then(|n| n.strip_prefix('#')).is_some_and(is_number),
                None if e.ends_with('(') => event.starts_with(e) && event.ends_with(')') && event.len() > e.len() + 1,
                None => event == *e,
            }
    });
    match known {
        true => EventCheck::Known,
        false => EventCheck::Unknown(events.iter().map(|e| shown(e)).collect::<Vec<_>>().join(", ")),
    }
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn shown(e: &str) -> String {
    match (e.strip_suffix('#'), e.strip_suffix('(')) {
        (Some(w), _) => format!("{w}#K"),
        (_, Some(w)) => format!("{w}(…)"),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_by_subject_kind() {
        assert_eq!(check("pod/web@rev1#2", "ready"), EventCheck::Known);
        assert_eq!(check("pod/web/app", "restart#3"), EventCheck::Known);
        assert_ne!(check("pod/web/app", "restart#"), EventCheck::Known);
        assert_ne!(check("pod/web", "restart#1"), EventCheck::Known);
        assert_eq!(check("svc/web", "endpoint_ready(pod/web-1)"), EventCheck::Known);
        assert_ne!(check("svc/web", "endpoint_ready()"), EventCheck::Known);
        assert_eq!(check("deploy/web@rev2", "rollout_complete"), EventCheck::Known);
        assert_eq!(check("node/node-2", "rebooted#1"), EventCheck::Known);
        assert_eq!(check("sts/web", "pod#2:ready"), EventCheck::Known);
        assert_ne!(check("sts/web", "pod#x:ready"), EventCheck::Known);
        assert_eq!(check("sts/web@gen2", "rollout_complete"), EventCheck::Known);
        let EventCheck::Unknown(list) = check("client/c", "ready") else { panic!() };
        assert_eq!(list, "first_ok, last_ok");
    }
}
