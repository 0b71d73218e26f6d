//! Which milestones a picture shows: the key steps a reader looks for
//! (scheduled, initialized, Ready, the first 200, a rollout's end…) rather
//! than every milestone a run reached, or the ones the user names.

use crate::milestones::pattern;
use std::sync::Arc;

/// The key events, most telling first: a pod's steps, the Service path,
/// rollouts, then what goes wrong. `(` and `/` end a prefix.
const EVENTS: [&str; 13] = [
    "scheduled",
    "initialized",
    "ready",
    "endpoint_ready(",
    "programmed(node/",
    "first_ok",
    "rollout_complete",
    "progress_deadline_exceeded",
    "crashloop",
    "restart#1",
    "not_ready",
    "deleted",
    "no_ready_endpoint_start#1",
];

/// A key milestone's rank in [`EVENTS`]; `None` for the others. A
/// container's only key step is its first restart, and `programmed` counts
/// once per node, not per pod.
pub fn rank(name: &str) -> Option<usize> {
    let (subject, event) = name.split_once(':')?;
    let container = subject.starts_with("pod/") && subject.matches('/').count() > 1;
    let pos = EVENTS.iter().position(|k| event == *k || (k.ends_with(['(', '/']) && event.starts_with(k)))?;
    ((EVENTS[pos] == "restart#1") == container && !event.contains(',')).then_some(pos)
}

/// Indexes of the key milestones among `names`, most telling first (ties
/// in `names` order).
pub fn key(names: &[Arc<str>]) -> Vec<usize> {
    let mut keyed: Vec<(usize, usize)> =
        names.iter().enumerate().filter_map(|(i, n)| rank(n).map(|r| (r, i))).collect();
    keyed.sort();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// Indexes of the milestones the `asked` patterns choose
/// ([`pattern::matches`]), in the patterns' order and each once; a pattern
/// that chooses none is an error listing them all (a picture without the
/// line asked for would mislead).
pub fn find(names: &[Arc<str>], asked: &[String]) -> Result<Vec<usize>, String> {
    let mut out: Vec<usize> = Vec::new();
    for a in asked {
        let chosen: Vec<usize> = (0..names.len()).filter(|&i| pattern::matches(a, &names[i])).collect();
        if chosen.is_empty() {
            return Err(format!(
                "--milestone {a:?}: no milestone matches it; the runs reached these:\n{}",
                list(names)
            ));
        }
        out.extend(chosen.into_iter().filter(|i| !out.contains(i)).collect::<Vec<_>>());
    }
    Ok(out)
}

/// The names, one per line, indented.
pub fn list(names: &[Arc<str>]) -> String {
    names.iter().map(|n| format!("  {n}")).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::{find, rank};
    use std::sync::Arc;

    #[test]
    fn asked_patterns_choose_in_their_order_each_milestone_once() {
        let names: Vec<Arc<str>> =
            ["pod/web:ready", "pod/web:scheduled", "svc/web:first_ok"].into_iter().map(Arc::from).collect();
        let asked = |a: &[&str]| find(&names, &a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(asked(&["svc/web:first_ok", "pod/web"]), Ok(vec![2, 0, 1]));
        assert_eq!(asked(&["*:ready", "pod/web:ready"]), Ok(vec![0]));
        assert!(
            asked(&["pod/web:redy"]).unwrap_err().starts_with("--milestone \"pod/web:redy\": no milestone matches it")
        );
    }

    #[test]
    fn pod_steps_and_first_restarts_are_key_not_every_milestone() {
        assert_eq!(rank("pod/web:scheduled"), Some(0));
        assert!(rank("svc/web:programmed(node/kind-worker)") < rank("svc/web:first_ok"));
        assert!(rank("pod/web/app:restart#1").is_some());
        assert!(rank("deploy/web@rev2:rollout_complete").is_some());
        assert_eq!(rank("pod/web/app:ready"), None);
        assert_eq!(rank("pod/web/app:restart#2"), None);
        assert_eq!(rank("svc/web:programmed(node/kind-worker,pod/web)"), None);
        assert_eq!(rank("pod/web:created"), None);
    }
}
