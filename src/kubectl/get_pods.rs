//! `printPod` (pkg/printers/internalversion/printers.go): the READY, STATUS
//! and RESTARTS cells of `kubectl get pods`, and the READINESS GATES cell of
//! `-o wide`.

use super::human_duration;
use k8s_openapi::api::core::v1::{ContainerStatus, Pod, PodStatus};
use k8s_openapi::jiff::Timestamp;

/// One `kubectl get pods` line of a Pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodLine {
    pub name: String,
    /// READY `1/2`: ready containers (and started, ready sidecars) of all.
    pub ready: (u32, u32),
    pub status: String,
    pub restarts: u32,
    /// The newest `lastState.terminated.finishedAt` among the counted containers.
    pub last_restart: Option<Timestamp>,
    /// READINESS GATES `1/2`, when the pod has gates.
    pub readiness_gates: Option<(u32, u32)>,
    pub created: Option<Timestamp>,
}

impl PodLine {
    /// RESTARTS as printed at `now`: `3`, or `3 (20s ago)`.
    pub fn restarts_cell(&self, now: Timestamp) -> String {
        match self.last_restart {
            Some(t) if self.restarts != 0 => {
                format!("{} ({} ago)", self.restarts, human_duration(now.duration_since(t).as_millis() as i64))
            }
            _ => self.restarts.to_string(),
        }
    }

    /// AGE as printed at `now`.
    pub fn age_cell(&self, now: Timestamp) -> String {
        match self.created {
            Some(c) => human_duration(now.duration_since(c).as_millis() as i64),
            None => "<unknown>".into(),
        }
    }
}

fn is_sidecar(pod: &Pod, name: &str) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.init_containers.as_ref())
        .is_some_and(|ics| ics.iter().any(|c| c.name == name && c.restart_policy.as_deref() == Some("Always")))
}

fn last_finished(c: &ContainerStatus) -> Option<Timestamp> {
    c.last_state.as_ref()?.terminated.as_ref()?.finished_at.as_ref().map(|t| t.0)
}

fn later(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

/// The first condition of that type is True (`GetPodCondition`).
fn condition_true(s: &PodStatus, kind: &str) -> bool {
    s.conditions.iter().flatten().find(|c| c.type_ == kind).is_some_and(|c| c.status == "True")
}

/// `printPod`.
pub fn print_pod(pod: &Pod) -> PodLine {
    let empty = PodStatus::default();
    let status = pod.status.as_ref().unwrap_or(&empty);
    let spec = pod.spec.clone().unwrap_or_default();
    let init_specs = spec.init_containers.as_deref().unwrap_or_default();
    let mut total = spec.containers.len() as u32;
    total += init_specs.iter().filter(|c| c.restart_policy.as_deref() == Some("Always")).count() as u32;
    let mut ready = 0;
    let (mut restarts, mut sidecar_restarts) = (0u32, 0u32);
    let (mut last_restart, mut last_sidecar_restart) = (None, None);
    let phase = status.phase.clone().unwrap_or_default();
    let mut reason = status.reason.clone().filter(|r| !r.is_empty()).unwrap_or_else(|| phase.clone());
    if status
        .conditions
        .iter()
        .flatten()
        .any(|c| c.type_ == "PodScheduled" && c.reason.as_deref() == Some("SchedulingGated"))
    {
        reason = "SchedulingGated".into();
    }
    let mut initializing = false;
    for (i, c) in status.init_container_statuses.iter().flatten().enumerate() {
        let count = c.restart_count.max(0) as u32;
        restarts += count;
        last_restart = later(last_restart, last_finished(c));
        let sidecar = is_sidecar(pod, &c.name);
        if sidecar {
            sidecar_restarts += count;
            last_sidecar_restart = later(last_sidecar_restart, last_finished(c));
        }
        let state = c.state.clone().unwrap_or_default();
        let waiting_reason = state.waiting.as_ref().and_then(|w| w.reason.clone()).filter(|r| !r.is_empty());
        match &state.terminated {
            Some(t) if t.exit_code == 0 => continue,
            _ if sidecar && c.started == Some(true) => {
                if c.ready {
                    ready += 1;
                }
                continue;
            }
            Some(t) => {
                reason = match t.reason.as_deref().filter(|r| !r.is_empty()) {
                    Some(r) => format!("Init:{r}"),
                    None if t.signal.unwrap_or(0) != 0 => format!("Init:Signal:{}", t.signal.unwrap_or(0)),
                    None => format!("Init:ExitCode:{}", t.exit_code),
                };
            }
            None => match waiting_reason {
                Some(r) if r != "PodInitializing" => reason = format!("Init:{r}"),
                _ => reason = format!("Init:{i}/{}", init_specs.len()),
            },
        }
        initializing = true;
        break;
    }
    if !initializing || condition_true(status, "Initialized") {
        restarts = sidecar_restarts;
        last_restart = last_sidecar_restart;
        let mut has_running = false;
        for c in status.container_statuses.iter().flatten().rev() {
            restarts += c.restart_count.max(0) as u32;
            last_restart = later(last_restart, last_finished(c));
            let state = c.state.clone().unwrap_or_default();
            let waiting = state.waiting.as_ref().and_then(|w| w.reason.clone()).filter(|r| !r.is_empty());
            if let Some(w) = waiting {
                reason = w;
            } else if let Some(t) = &state.terminated {
                reason = match t.reason.as_deref().filter(|r| !r.is_empty()) {
                    Some(r) => r.to_string(),
                    None if t.signal.unwrap_or(0) != 0 => format!("Signal:{}", t.signal.unwrap_or(0)),
                    None => format!("ExitCode:{}", t.exit_code),
                };
            } else if c.ready && state.running.is_some() {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && has_running {
            reason = if condition_true(status, "Ready") { "Running".into() } else { "NotReady".into() };
        }
    }
    let deleting = pod.metadata.deletion_timestamp.is_some();
    if deleting && status.reason.as_deref() == Some("NodeLost") {
        reason = "Unknown".into();
    } else if deleting && phase != "Succeeded" && phase != "Failed" {
        reason = "Terminating".into();
    }
    let gates = spec.readiness_gates.as_deref().unwrap_or_default();
    let readiness_gates = (!gates.is_empty()).then(|| {
        let on = gates.iter().filter(|g| condition_true(status, &g.condition_type)).count() as u32;
        (on, gates.len() as u32)
    });
    PodLine {
        name: pod.metadata.name.clone().unwrap_or_default(),
        ready: (ready, total),
        status: reason,
        restarts,
        last_restart,
        readiness_gates,
        created: pod.metadata.creation_timestamp.as_ref().map(|t| t.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(pod: serde_json::Value) -> PodLine {
        print_pod(&serde_json::from_value(pod).unwrap())
    }

    fn spec(inits: serde_json::Value, containers: serde_json::Value) -> serde_json::Value {
        json!({"initContainers": inits, "containers": containers})
    }

    fn waiting(name: &str, reason: &str) -> serde_json::Value {
        json!({"name": name, "image": "i", "imageID": "", "ready": false, "restartCount": 0,
               "state": {"waiting": {"reason": reason}}})
    }
    fn running(name: &str, ready: bool, started: bool) -> serde_json::Value {
        json!({"name": name, "image": "i", "imageID": "", "ready": ready, "started": started, "restartCount": 0,
               "state": {"running": {"startedAt": "2026-01-01T00:00:05Z"}}})
    }
    fn terminated(name: &str, code: i32, reason: &str) -> serde_json::Value {
        json!({"name": name, "image": "i", "imageID": "", "ready": false, "restartCount": 0,
               "state": {"terminated": {"exitCode": code, "reason": reason}}})
    }

    #[test]
    fn init_containers_show_their_progress() {
        let two_inits = spec(json!([{"name": "a"}, {"name": "b"}]), json!([{"name": "app"}]));
        // The first init container runs: Init:0/2, READY counts regular containers only.
        let l = line(json!({"metadata": {"name": "p"}, "spec": two_inits, "status": {"phase": "Pending",
            "initContainerStatuses": [running("a", false, true), waiting("b", "PodInitializing")],
            "containerStatuses": [waiting("app", "PodInitializing")]}}));
        assert_eq!((l.ready, l.status.as_str()), ((0, 1), "Init:0/2"));
        // The first is done, the second runs: Init:1/2.
        let l = line(json!({"metadata": {"name": "p"}, "spec": two_inits, "status": {"phase": "Pending",
            "initContainerStatuses": [terminated("a", 0, "Completed"), running("b", false, true)],
            "containerStatuses": [waiting("app", "PodInitializing")]}}));
        assert_eq!(l.status, "Init:1/2");
        // A failed init container: Init:Error, then Init:CrashLoopBackOff.
        let l = line(json!({"metadata": {"name": "p"}, "spec": two_inits, "status": {"phase": "Pending",
            "initContainerStatuses": [terminated("a", 1, "Error"), waiting("b", "PodInitializing")]}}));
        assert_eq!(l.status, "Init:Error");
        let l = line(json!({"metadata": {"name": "p"}, "spec": two_inits, "status": {"phase": "Pending",
            "initContainerStatuses": [waiting("a", "CrashLoopBackOff"), waiting("b", "PodInitializing")]}}));
        assert_eq!(l.status, "Init:CrashLoopBackOff");
        // Every init container done, the app not started yet: PodInitializing.
        let l = line(json!({"metadata": {"name": "p"}, "spec": two_inits, "status": {"phase": "Pending",
            "conditions": [{"type": "Initialized", "status": "True"}],
            "initContainerStatuses": [terminated("a", 0, "Completed"), terminated("b", 0, "Completed")],
            "containerStatuses": [waiting("app", "PodInitializing")]}}));
        assert_eq!(l.status, "PodInitializing");
    }

    #[test]
    fn sidecars_count_in_ready() {
        let s = spec(json!([{"name": "proxy", "restartPolicy": "Always"}]), json!([{"name": "app"}]));
        let l = line(json!({"metadata": {"name": "p"}, "spec": s, "status": {"phase": "Running",
            "conditions": [{"type": "Initialized", "status": "True"}],
            "initContainerStatuses": [running("proxy", true, true)],
            "containerStatuses": [running("app", false, true)]}}));
        assert_eq!((l.ready, l.status.as_str()), ((1, 2), "Running"));
        // A sidecar not started yet stops the init loop: Init:0/1.
        let l = line(json!({"metadata": {"name": "p"}, "spec": s, "status": {"phase": "Pending",
            "initContainerStatuses": [running("proxy", false, false)],
            "containerStatuses": [waiting("app", "PodInitializing")]}}));
        assert_eq!((l.ready, l.status.as_str()), ((0, 2), "Init:0/1"));
    }

    #[test]
    fn regular_containers_and_termination() {
        let s = spec(json!(null), json!([{"name": "a"}, {"name": "b"}]));
        // The alphabetically first container's reason wins (the loop runs backwards).
        let l = line(json!({"metadata": {"name": "p"}, "spec": s, "status": {"phase": "Running",
            "containerStatuses": [waiting("a", "CrashLoopBackOff"), terminated("b", 1, "Error")]}}));
        assert_eq!(l.status, "CrashLoopBackOff");
        // Completed next to a running, ready container: Running if the pod is Ready, else NotReady.
        let l = line(json!({"metadata": {"name": "p"}, "spec": s, "status": {"phase": "Running",
            "containerStatuses": [terminated("a", 0, "Completed"), running("b", true, true)]}}));
        assert_eq!((l.ready, l.status.as_str()), ((1, 2), "NotReady"));
        let l = line(json!({"metadata": {"name": "p"}, "spec": s, "status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}],
            "containerStatuses": [terminated("a", 0, "Completed"), running("b", true, true)]}}));
        assert_eq!(l.status, "Running");
        // Deleted and not yet terminal: Terminating, whatever the containers say.
        let l = line(json!({"metadata": {"name": "p", "deletionTimestamp": "2026-01-01T00:01:00Z"}, "spec": s,
            "status": {"phase": "Running", "containerStatuses": [running("a", true, true), running("b", true, true)]}}));
        assert_eq!((l.ready, l.status.as_str()), ((2, 2), "Terminating"));
        let l = line(json!({"metadata": {"name": "p", "deletionTimestamp": "2026-01-01T00:01:00Z"}, "spec": s,
            "status": {"phase": "Failed", "containerStatuses": [terminated("a", 143, "Error"), terminated("b", 0, "Completed")]}}));
        assert_eq!(l.status, "Error");
    }

    #[test]
    fn restarts_show_the_last_restart() {
        let s = spec(json!(null), json!([{"name": "a"}]));
        let l = line(json!({"metadata": {"name": "p", "creationTimestamp": "2026-01-01T00:00:00Z"}, "spec": s,
            "status": {"phase": "Running", "containerStatuses": [{"name": "a", "image": "i", "imageID": "",
            "ready": true, "restartCount": 3, "state": {"running": {}},
            "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2026-01-01T00:02:00Z"}}}]}}));
        let now: Timestamp = "2026-01-01T00:02:20Z".parse().unwrap();
        assert_eq!(l.restarts_cell(now), "3 (20s ago)");
        assert_eq!(l.age_cell(now), "2m20s");
    }

    #[test]
    fn readiness_gates_cell() {
        let s = json!({"containers": [{"name": "a"}], "readinessGates": [{"conditionType": "x/y"}, {"conditionType": "z"}]});
        let l = line(json!({"metadata": {"name": "p"}, "spec": s, "status": {"phase": "Running",
            "conditions": [{"type": "x/y", "status": "True"}]}}));
        assert_eq!(l.readiness_gates, Some((1, 2)));
    }
}
