//! Which container instance a container status shows. Instance n is the
//! container's (n+1)-th run, the one created with restartCount n.

use k8s_openapi::api::core::v1::ContainerStatus;

/// Which instance a container status's `lastState` is. The kubelet builds it
/// from the two newest containers of that name, then replaces the state of
/// one due to restart by the start failure its reason cache holds, moving the
/// terminated newest into `lastState` (`kubelet_pods.go`
/// convertToAPIContainerStatuses):
/// running or terminated with restartCount N, `lastState` is instance N − 1;
/// waiting with a reason (CrashLoopBackOff, ErrImagePull, …), instance N.
/// A plain `ContainerCreating`/`PodInitializing` may carry an older status's
/// `lastState`: unknown.
pub fn last_state_instance(s: &ContainerStatus) -> Option<i32> {
    let state = s.state.as_ref()?;
    if let Some(w) = &state.waiting {
        return match w.reason.as_deref() {
            None | Some("ContainerCreating" | "PodInitializing") => None,
            Some(_) => Some(s.restart_count),
        };
    }
    let same = |id: &Option<String>| {
        let last = s.last_state.as_ref().and_then(|l| l.terminated.as_ref()).and_then(|t| t.container_id.as_ref());
        id.is_some() && id.as_ref() == last
    };
    match &state.terminated {
        // The same container in both (no older one left, e.g. after pruning).
        Some(t) if same(&t.container_id) => None,
        _ => (s.restart_count > 0).then_some(s.restart_count - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn status(v: serde_json::Value) -> ContainerStatus {
        serde_json::from_value(v).expect("a container status")
    }

    #[test]
    fn a_waiting_container_shows_its_newest_instance_as_last_state() {
        let last = json!({"terminated": {"exitCode": 1, "containerID": "c://3"}});
        let waiting = |reason: &str| {
            status(json!({"name": "app", "image": "i", "imageID": "", "ready": false, "restartCount": 3,
                "state": {"waiting": {"reason": reason}}, "lastState": last}))
        };
        // CrashLoopBackOff (and any start failure the reason cache holds): instance N.
        assert_eq!(last_state_instance(&waiting("CrashLoopBackOff")), Some(3));
        assert_eq!(last_state_instance(&waiting("CreateContainerError")), Some(3));
        // ContainerCreating may carry an older status's lastState.
        assert_eq!(last_state_instance(&waiting("ContainerCreating")), None);
        // Running instance N: lastState is N − 1.
        let running = status(json!({"name": "app", "image": "i", "imageID": "", "ready": true, "restartCount": 3,
            "state": {"running": {}}, "lastState": last}));
        assert_eq!(last_state_instance(&running), Some(2));
        // Terminated with lastState the very same container (nothing older left): no older instance.
        let same = status(json!({"name": "app", "image": "i", "imageID": "", "ready": false, "restartCount": 3,
            "state": {"terminated": {"exitCode": 1, "containerID": "c://3"}}, "lastState": last}));
        assert_eq!(last_state_instance(&same), None);
    }
}
