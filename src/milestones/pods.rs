//! Pod milestones, from the Pod objects the API server stored (`Record::Pod`):
//! its conditions, phase and deletion, and each container's status.

use super::found::Found;
use super::names::Names;
use crate::api::pod::ApiPod;
use crate::api::status::{ConditionType, ContainerState, PodPhase};
use crate::time::SimTime;
use crate::trace::record::WatchKind;
use foldhash::HashMap;
use std::fmt::{self, Display, Formatter};
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
    offered: Offered,
    containers: HashMap<Arc<str>, ContainerSeen>,
}

#[derive(Default)]
struct ContainerSeen {
    /// The highest `restartCount` so far.
    restarts: u32,
    offered: Offered,
}

/// A fixed event and its bit in [`Offered`].
#[derive(Copy, Clone)]
struct Event(u32, &'static str);

const CREATED: Event = Event(1, "created");
const NOT_READY: Event = Event(1 << 1, "not_ready");
const DELETED: Event = Event(1 << 2, "deleted");
const REMOVED: Event = Event(1 << 3, "removed");
const CRASHLOOP: Event = Event(1 << 4, "crashloop");
const SCHEDULED: Event = Event(1 << 5, "scheduled");
const READY_TO_START: Event = Event(1 << 6, "ready_to_start_containers");
const INITIALIZED: Event = Event(1 << 7, "initialized");
const CONTAINERS_READY: Event = Event(1 << 8, "containers_ready");
const READY: Event = Event(1 << 9, "ready");
const PHASE_RUNNING: Event = Event(1 << 10, "phase_running");
const PHASE_SUCCEEDED: Event = Event(1 << 11, "phase_succeeded");
const PHASE_FAILED: Event = Event(1 << 12, "phase_failed");
const RUNNING: Event = Event(1 << 13, "running");
const TERMINATED: Event = Event(1 << 14, "terminated");
const STARTED: Event = Event(1 << 15, "started");
const EVICTED: Event = Event(1 << 16, "evicted");

/// The fixed events one subject has offered: every version of a pod offers
/// them again, and an offer of a name already found changes nothing, so a
/// repeat is not even written.
#[derive(Default)]
struct Offered(u32);

impl Offered {
    fn first(&mut self, Event(bit, event): Event, subject: impl Display, t: SimTime, found: &mut Found) {
        if self.0 & bit == 0 {
            self.0 |= bit;
            found.first(subject, event, t);
        }
    }
}

impl Pods {
    pub fn see(&mut self, t: SimTime, kind: WatchKind, pod: &ApiPod, names: &Names, found: &mut Found) {
        let subject = names.pod(&pod.meta.uid, &pod.spec.name);
        let subject = &*subject;
        let Seen { ready: was_ready, offered, containers } = self.seen.entry(pod.meta.uid.clone()).or_default();
        let status = &pod.status;
        offered.first(CREATED, subject, t, found);
        for c in status.conditions.iter().filter(|c| c.status) {
            match condition(&c.kind) {
                Some(event) => offered.first(event, subject, t, found),
                None => found.first(subject, format_args!("condition({})", c.kind.as_str()), t),
            }
            // The DisruptionTarget of the Eviction API or of the taint-eviction
            // controller (each `addConditionAndDeletePod`).
            let evicting = matches!(c.reason.as_deref(), Some("EvictionByEvictionAPI" | "DeletionByTaintManager"));
            if evicting && c.kind.as_str() == "DisruptionTarget" {
                offered.first(EVICTED, subject, t, found);
            }
        }
        let ready = status.condition_true(&ConditionType::Ready);
        if *was_ready && !ready {
            offered.first(NOT_READY, subject, t, found);
        }
        *was_ready = ready;
        let phase = match status.phase {
            PodPhase::Pending => None,
            PodPhase::Running => Some(PHASE_RUNNING),
            PodPhase::Succeeded => Some(PHASE_SUCCEEDED),
            PodPhase::Failed => Some(PHASE_FAILED),
        };
        if let Some(phase) = phase {
            offered.first(phase, subject, t, found);
        }
        if pod.meta.deletion.is_some() {
            offered.first(DELETED, subject, t, found);
        }
        if kind == WatchKind::Deleted || pod.meta.removed {
            offered.first(REMOVED, subject, t, found);
        }
        for c in status.all_containers() {
            let container = &Container(subject, &c.name);
            let seen = containers.entry(c.name.clone()).or_default();
            match &c.state {
                ContainerState::Running { .. } => seen.offered.first(RUNNING, container, t, found),
                ContainerState::Terminated(_) => seen.offered.first(TERMINATED, container, t, found),
                ContainerState::Waiting { .. } if c.state.waiting_reason() == Some("CrashLoopBackOff") => {
                    seen.offered.first(CRASHLOOP, container, t, found);
                    offered.first(CRASHLOOP, subject, t, found);
                }
                ContainerState::Waiting { .. } => {}
            }
            if c.started {
                seen.offered.first(STARTED, container, t, found);
            }
            if c.ready {
                seen.offered.first(READY, container, t, found);
            }
            if c.restart_count > seen.restarts {
                for k in seen.restarts + 1..=c.restart_count {
                    found.first(container, format_args!("restart#{k}"), t);
                }
                found.last(container, "last_restart", t);
                seen.restarts = c.restart_count;
            }
        }
    }
}

/// The event of a pod condition turning True; `None` for another
/// condition (`condition(<type>)`).
fn condition(kind: &ConditionType) -> Option<Event> {
    match kind {
        ConditionType::PodScheduled => Some(SCHEDULED),
        ConditionType::PodReadyToStartContainers => Some(READY_TO_START),
        ConditionType::Initialized => Some(INITIALIZED),
        ConditionType::ContainersReady => Some(CONTAINERS_READY),
        ConditionType::Ready => Some(READY),
        ConditionType::Other(_) => None,
    }
}

/// `<pod subject>/<container>`, written only when a name is offered.
struct Container<'a>(&'a str, &'a str);

impl Display for Container<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.0, self.1)
    }
}
