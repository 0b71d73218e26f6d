//! Pod milestones, from the Pod objects the API server stored (`Record::Pod`):
//! its conditions, phase and deletion, and each container's status.

use super::found::Found;
use super::names::{Names, milestone};
use crate::api::pod::ApiPod;
use crate::api::status::{ConditionType, ContainerState, PodPhase};
use crate::time::SimTime;
use crate::trace::record::WatchKind;
use std::collections::HashMap;
use std::sync::Arc;

/// What the earlier versions of each pod showed.
#[derive(Default)]
pub struct Pods {
    seen: HashMap<Arc<str>, Seen>,
}

#[derive(Default)]
struct Seen {
    /// The Ready condition was True in the last version.
    ready: bool,
    /// The highest `restartCount` so far, by container.
    restarts: HashMap<Arc<str>, u32>,
}

impl Pods {
    pub fn see(&mut self, t: SimTime, kind: WatchKind, pod: &ApiPod, names: &Names, found: &mut Found) {
        let subject = names.pod(&pod.uid, &pod.spec.name);
        let at = |event: &str| milestone(&subject, event);
        let seen = self.seen.entry(pod.uid.clone()).or_default();
        let status = &pod.status;
        found.first(at("created"), t);
        for c in status.conditions.iter().filter(|c| c.status) {
            found.first(at(&condition(&c.kind)), t);
        }
        let ready = status.condition_true(&ConditionType::Ready);
        if seen.ready && !ready {
            found.first(at("not_ready"), t);
        }
        seen.ready = ready;
        let phase = match status.phase {
            PodPhase::Pending => None,
            PodPhase::Running => Some("phase_running"),
            PodPhase::Succeeded => Some("phase_succeeded"),
            PodPhase::Failed => Some("phase_failed"),
        };
        if let Some(phase) = phase {
            found.first(at(phase), t);
        }
        if pod.deletion.is_some() {
            found.first(at("deleted"), t);
        }
        if kind == WatchKind::Deleted || pod.removed {
            found.first(at("removed"), t);
        }
        for c in status.all_containers() {
            let container = format!("{subject}/{}", c.name);
            let at = |event: &str| milestone(&container, event);
            match &c.state {
                ContainerState::Running { .. } => found.first(at("running"), t),
                ContainerState::Terminated(_) => found.first(at("terminated"), t),
                ContainerState::Waiting { .. } if c.state.waiting_reason() == Some("CrashLoopBackOff") => {
                    found.first(at("crashloop"), t);
                    found.first(milestone(&subject, "crashloop"), t);
                }
                ContainerState::Waiting { .. } => {}
            }
            if c.started {
                found.first(at("started"), t);
            }
            if c.ready {
                found.first(at("ready"), t);
            }
            let most = seen.restarts.entry(c.name.clone()).or_default();
            if c.restart_count > *most {
                for k in *most + 1..=c.restart_count {
                    found.first(at(&format!("restart#{k}")), t);
                }
                found.last(at("last_restart"), t);
                *most = c.restart_count;
            }
        }
    }
}

/// The event of a pod condition turning True.
fn condition(kind: &ConditionType) -> String {
    match kind {
        ConditionType::PodScheduled => "scheduled".into(),
        ConditionType::PodReadyToStartContainers => "ready_to_start_containers".into(),
        ConditionType::Initialized => "initialized".into(),
        ConditionType::ContainersReady => "containers_ready".into(),
        ConditionType::Ready => "ready".into(),
        ConditionType::Other(t) => format!("condition({t})"),
    }
}
