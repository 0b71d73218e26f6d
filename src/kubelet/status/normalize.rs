//! `normalizeStatus` (pkg/kubelet/status/status_manager.go): every time in a
//! status the kubelet caches is cut to the whole second (`Rfc3339Copy`), as
//! the API server stores it. Whatever reads the kubelet's cache — the prober's
//! initialDelaySeconds check, the active-deadline handler — therefore sees the
//! same whole seconds as a controller reading the pod from an informer.

use crate::api::status::{ContainerState, ContainerStatus, PodStatus, Terminated};

/// `normalizeStatus`: startTime, each condition's lastTransitionTime, and the
/// startedAt / finishedAt of every container's state and last state.
pub fn normalize_status(status: &mut PodStatus) {
    if let Some(t) = &mut status.start_time {
        *t = t.floor_second();
    }
    for c in &mut status.conditions {
        c.last_transition = c.last_transition.floor_second();
    }
    for c in status.init_containers.iter_mut().chain(&mut status.containers) {
        normalize_container(c);
    }
}

/// `normalizeContainerState` of `State` and `LastTerminationState`.
fn normalize_container(c: &mut ContainerStatus) {
    match &mut c.state {
        ContainerState::Running { started_at } => *started_at = started_at.floor_second(),
        ContainerState::Terminated(t) => normalize_terminated(t),
        ContainerState::Waiting { .. } => {}
    }
    if let Some(t) = &mut c.last_state {
        normalize_terminated(t);
    }
}

fn normalize_terminated(t: &mut Terminated) {
    for time in [&mut t.started_at, &mut t.finished_at].into_iter().flatten() {
        *time = time.floor_second();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::status::{Condition, ConditionType};
    use crate::spec::QosClass;
    use crate::time::SimTime;
    use std::borrow::Cow;
    use std::sync::Arc;

    fn ms(ms: u64) -> SimTime {
        SimTime::from_millis(ms)
    }

    fn container(state: ContainerState, last_state: Option<Terminated>) -> ContainerStatus {
        ContainerStatus {
            name: Arc::from("app"),
            image: Arc::from("busybox:1.36"),
            instance: None,
            state,
            last_state,
            ready: false,
            started: true,
            restart_count: 1,
            ready_why: Cow::Borrowed(""),
            started_why: Cow::Borrowed(""),
        }
    }

    fn terminated(started: u64, finished: u64) -> Terminated {
        Terminated {
            exit_code: 1,
            reason: "Error",
            message: None,
            started_at: Some(ms(started)),
            finished_at: Some(ms(finished)),
            container_id: None,
            why: Arc::from(""),
        }
    }

    /// A container started at 12.7 s is cached as started at 12 s, and every
    /// other time of the status loses its fraction the same way.
    #[test]
    fn every_time_is_cut_to_its_second() {
        let mut s = PodStatus::new(QosClass::BestEffort);
        s.start_time = Some(ms(3_999));
        let mut ready = Condition::new(ConditionType::Ready, true);
        ready.last_transition = ms(13_500);
        s.conditions.push(ready);
        s.containers
            .push(container(ContainerState::Running { started_at: ms(12_700) }, Some(terminated(1_200, 2_201))));
        s.init_containers.push(container(ContainerState::Terminated(terminated(999, 1_000)), None));
        normalize_status(&mut s);
        assert_eq!(s.start_time, Some(ms(3_000)));
        assert_eq!(s.conditions[0].last_transition, ms(13_000));
        assert_eq!(s.containers[0].state, ContainerState::Running { started_at: ms(12_000) });
        let last = s.containers[0].last_state.as_ref().unwrap();
        assert_eq!((last.started_at, last.finished_at), (Some(ms(1_000)), Some(ms(2_000))));
        let ContainerState::Terminated(init) = &s.init_containers[0].state else { panic!() };
        assert_eq!((init.started_at, init.finished_at), (Some(ms(0)), Some(ms(1_000))));
    }

    /// Whole seconds stay as they are, and a made-up termination without
    /// times (ContainerStatusUnknown) keeps none.
    #[test]
    fn whole_seconds_and_missing_times_are_kept() {
        let mut s = PodStatus::new(QosClass::BestEffort);
        let unknown = Terminated { started_at: None, finished_at: None, ..terminated(0, 0) };
        s.containers.push(container(ContainerState::Running { started_at: ms(7_000) }, Some(unknown.clone())));
        normalize_status(&mut s);
        assert_eq!(s.start_time, None);
        assert_eq!(s.containers[0].state, ContainerState::Running { started_at: ms(7_000) });
        assert_eq!(s.containers[0].last_state, Some(unknown));
    }
}
