//! The Pod status as the API shows it (core/v1 PodStatus), typed so that a
//! container is in exactly one state.
//!
//! Each container status also carries a short `why` for its ready/started
//! values; it is never sent to the API, only used to explain the timeline.

use crate::kubelet::admission::Predicate;
use crate::spec::QosClass;
use crate::time::SimTime;
use std::borrow::Cow;
use std::sync::Arc;

/// `status.phase`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PodPhase {
    Pending,
    Running,
    Succeeded,
    Failed,
}

impl PodPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            PodPhase::Pending => "Pending",
            PodPhase::Running => "Running",
            PodPhase::Succeeded => "Succeeded",
            PodPhase::Failed => "Failed",
        }
    }
    pub fn is_terminal(self) -> bool {
        matches!(self, PodPhase::Succeeded | PodPhase::Failed)
    }
}

/// `status.reason` and `status.message`: a kubelet module failed the pod.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PodReason {
    /// The active-deadline handler (`activeDeadlineSeconds` passed).
    DeadlineExceeded,
    /// The kubelet's admission rejected the pod (`rejectPod`): the reason is
    /// the first failed predicate's name.
    Rejected(Predicate),
}

impl PodReason {
    /// Also the reason of the Event the kubelet records (active_deadline.go
    /// `reason`; `rejectPod`'s Event).
    pub fn as_str(self) -> &'static str {
        match self {
            PodReason::DeadlineExceeded => "DeadlineExceeded",
            PodReason::Rejected(p) => p.name(),
        }
    }
    /// The status message (for DeadlineExceeded also the Event's, active_deadline.go `message`).
    pub fn message(self) -> String {
        match self {
            PodReason::DeadlineExceeded => "Pod was active on the node longer than the specified deadline".into(),
            PodReason::Rejected(p) => p.status_message(),
        }
    }
}

/// A pod condition type: the ones the kubelet and scheduler own, in the
/// order the kubelet writes them, after any other (a readiness gate's
/// condition, set by another client, which the kubelet's merge keeps first).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConditionType {
    /// Any condition the kubelet does not own (`PodConditionByKubelet` is false).
    Other(Arc<str>),
    PodReadyToStartContainers,
    Initialized,
    Ready,
    ContainersReady,
    PodScheduled,
}

impl ConditionType {
    pub fn as_str(&self) -> &str {
        match self {
            ConditionType::Other(t) => t,
            ConditionType::PodReadyToStartContainers => "PodReadyToStartContainers",
            ConditionType::Initialized => "Initialized",
            ConditionType::Ready => "Ready",
            ConditionType::ContainersReady => "ContainersReady",
            ConditionType::PodScheduled => "PodScheduled",
        }
    }

    /// `kubetypes.PodConditionByKubelet` (PodScheduled included: the kubelet re-asserts it).
    pub fn by_kubelet(&self) -> bool {
        !matches!(self, ConditionType::Other(_))
    }
}

/// One pod condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    pub kind: ConditionType,
    pub status: bool,
    pub reason: Option<Cow<'static, str>>,
    pub message: Option<String>,
    pub last_transition: SimTime,
}

impl Condition {
    pub fn new(kind: ConditionType, status: bool) -> Self {
        Condition { kind, status, reason: None, message: None, last_transition: SimTime::ZERO }
    }
    pub fn reason(mut self, reason: &'static str) -> Self {
        self.reason = Some(Cow::Borrowed(reason));
        self
    }
    pub fn message(mut self, message: String) -> Self {
        self.message = Some(message);
        self
    }
    /// Same status, reason and message (lastTransitionTime aside).
    pub fn same_as(&self, other: &Condition) -> bool {
        self.kind == other.kind
            && self.status == other.status
            && self.reason == other.reason
            && self.message == other.message
    }
}

/// A finished container instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Terminated {
    pub exit_code: i32,
    /// Set by the runtime: `OOMKilled` after an OOM kill, else `Completed`
    /// for 0, `Error` otherwise; or by the kubelet: `ContainerStatusUnknown`
    /// for a container it cannot find.
    pub reason: &'static str,
    pub message: Option<&'static str>,
    /// Absent when the kubelet made the state up (`ContainerStatusUnknown`).
    pub started_at: Option<SimTime>,
    pub finished_at: Option<SimTime>,
    pub container_id: Option<Arc<str>>,
    /// Why it ended, for the timeline (not part of the API object).
    pub why: Arc<str>,
}

/// Exactly one of the three container states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContainerState {
    /// `reason` is `ContainerCreating`, `CrashLoopBackOff`, …, or none for a
    /// created-but-not-started container.
    Waiting {
        reason: Option<Cow<'static, str>>,
        message: Option<String>,
    },
    Running {
        started_at: SimTime,
    },
    Terminated(Terminated),
}

impl ContainerState {
    pub fn is_running(&self) -> bool {
        matches!(self, ContainerState::Running { .. })
    }
    pub fn waiting_reason(&self) -> Option<&str> {
        match self {
            ContainerState::Waiting { reason, .. } => reason.as_deref(),
            _ => None,
        }
    }
}

/// The runtime's view of a container instance, as the API shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceRef {
    /// The runtime's handle for the instance (not shown in the API).
    pub handle: u32,
    /// `containerd://<64 hex>`.
    pub container_id: Arc<str>,
    pub image: Arc<str>,
    pub image_id: Arc<str>,
}

/// `status.containerStatuses[]`.
#[derive(Clone, Debug)]
pub struct ContainerStatus {
    pub name: Arc<str>,
    /// The image as written in the spec until the runtime reports its own name.
    pub image: Arc<str>,
    pub instance: Option<InstanceRef>,
    pub state: ContainerState,
    pub last_state: Option<Terminated>,
    pub ready: bool,
    pub started: bool,
    pub restart_count: u32,
    /// Why `ready` has its value (for the timeline only).
    pub ready_why: Cow<'static, str>,
    /// Why `started` has its value (for the timeline only).
    pub started_why: Cow<'static, str>,
}

impl ContainerStatus {
    /// Equality as the status manager sees it: every API field, no `why`.
    pub fn same_as(&self, o: &ContainerStatus) -> bool {
        self.name == o.name
            && self.image == o.image
            && self.instance == o.instance
            && self.state == o.state
            && self.last_state == o.last_state
            && self.ready == o.ready
            && self.started == o.started
            && self.restart_count == o.restart_count
    }
}

/// `status` of a Pod.
#[derive(Clone, Debug)]
pub struct PodStatus {
    pub phase: PodPhase,
    /// `status.reason` (with its `status.message`), set with a Failed phase.
    pub reason: Option<PodReason>,
    pub conditions: Vec<Condition>,
    pub host_ip: Option<Arc<str>>,
    pub pod_ip: Option<Arc<str>>,
    pub start_time: Option<SimTime>,
    /// `initContainerStatuses`, in spec order.
    pub init_containers: Vec<ContainerStatus>,
    /// `containerStatuses`, sorted by name, as the kubelet sorts them.
    pub containers: Vec<ContainerStatus>,
    pub qos: QosClass,
    /// `status.observedGeneration`: the pod generation the kubelet last saw.
    pub observed_generation: i64,
}

impl PodStatus {
    /// The status the API server gives a new Pod.
    pub fn new(qos: QosClass) -> Self {
        PodStatus {
            phase: PodPhase::Pending,
            reason: None,
            conditions: Vec::new(),
            host_ip: None,
            pod_ip: None,
            start_time: None,
            init_containers: Vec::new(),
            containers: Vec::new(),
            qos,
            observed_generation: 0,
        }
    }

    pub fn condition(&self, kind: &ConditionType) -> Option<&Condition> {
        self.conditions.iter().find(|c| &c.kind == kind)
    }

    pub fn condition_true(&self, kind: &ConditionType) -> bool {
        self.condition(kind).is_some_and(|c| c.status)
    }

    /// Init and regular container statuses (names are unique across both).
    pub fn all_containers(&self) -> impl Iterator<Item = &ContainerStatus> {
        self.init_containers.iter().chain(&self.containers)
    }

    pub fn container(&self, name: &str) -> Option<&ContainerStatus> {
        self.all_containers().find(|c| &*c.name == name)
    }

    pub fn container_mut(&mut self, name: &str) -> Option<&mut ContainerStatus> {
        self.init_containers.iter_mut().chain(&mut self.containers).find(|c| &*c.name == name)
    }

    /// Conditions the kubelet does not own, e.g. readiness gates.
    pub fn other_conditions(&self) -> impl Iterator<Item = &Condition> {
        self.conditions.iter().filter(|c| !c.kind.by_kubelet())
    }

    /// Replaces or appends a condition, keeping the kubelet's order.
    pub fn set_condition(&mut self, c: Condition) {
        match self.conditions.iter_mut().find(|x| x.kind == c.kind) {
            Some(x) => *x = c,
            None => {
                self.conditions.push(c);
                self.conditions.sort_by(|a, b| a.kind.cmp(&b.kind));
            }
        }
    }

    /// `isPodStatusByKubeletEqual`: equal in every field the kubelet writes.
    pub fn same_as(&self, o: &PodStatus) -> bool {
        self.phase == o.phase
            && self.reason == o.reason
            && self.host_ip == o.host_ip
            && self.pod_ip == o.pod_ip
            && self.start_time == o.start_time
            && self.observed_generation == o.observed_generation
            && self
                .conditions
                .iter()
                .filter(|c| c.kind.by_kubelet())
                .eq(o.conditions.iter().filter(|c| c.kind.by_kubelet()))
            && same_list(&self.init_containers, &o.init_containers)
            && same_list(&self.containers, &o.containers)
    }
}

fn same_list(a: &[ContainerStatus], b: &[ContainerStatus]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_as(y))
}
