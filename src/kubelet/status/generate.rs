//! `generateAPIPodStatus` (pkg/kubelet/kubelet_pods.go): the API status the
//! kubelet writes, computed from the runtime snapshot of the sync, the
//! previous status, the reason cache and the probe results.

use super::conditions;
use super::phase::pod_phase;
use crate::api::status::{
    Condition, ConditionType, ContainerState, ContainerStatus, InstanceRef, PodPhase, PodReason, PodStatus, Terminated,
};
use crate::cluster::Version;
use crate::kubelet::pleg::{ContainerSnap, PodSnapshot};
use crate::kubelet::prober::{ProbeManager, Restarted};
use crate::kubelet::runtime::{EndCause, InstState};
use crate::spec::{ContainerSpec, PodSpec, RestartPolicy, Role};
use crate::time::SimTime;
use foldhash::HashMap;
use std::borrow::Cow;
use std::sync::Arc;

/// The reason cache: the last start failure of each container
/// (`pkg/kubelet/reason_cache.go`), e.g. CrashLoopBackOff and its message.
pub type ReasonCache = HashMap<usize, (Cow<'static, str>, String)>;

/// Inputs of one status generation.
pub struct Inputs<'a> {
    pub spec: &'a PodSpec,
    pub snapshot: &'a PodSnapshot,
    /// The status manager's cached status, or the API status before the first.
    pub previous: &'a PodStatus,
    /// The conditions of the kubelet's copy of the API pod that it does not
    /// own (readiness gates): preserved, and read by the Ready condition.
    pub others: &'a [Condition],
    pub reasons: &'a ReasonCache,
    pub probes: &'a ProbeManager,
    pub host_ip: &'a Arc<str>,
    /// The pod worker has stopped every container (SyncTerminatingPod).
    pub terminal: bool,
    /// The pod has a deletionTimestamp.
    pub deleting: bool,
    /// `metadata.generation` of the kubelet's copy of the pod.
    pub generation: i64,
    /// The active-deadline handler's `ShouldEvict` said yes.
    pub deadline_exceeded: bool,
    pub version: Version,
    /// PodReadyToStartContainers is written (feature gate).
    pub ready_to_start_condition: bool,
    /// The kubelet restarted during the run and keeps its containers'
    /// status (KEP-4781): its start less `kubeletRestartGracePeriod`.
    pub restarted_before: Option<SimTime>,
    /// The API pod's Ready condition is True.
    pub api_ready: bool,
}

/// The generated status and the readiness workers to trigger at once.
pub struct Generated {
    pub status: PodStatus,
    pub readiness_triggers: Vec<usize>,
}

pub fn generate(i: &Inputs<'_>) -> Generated {
    let mut init_containers = container_statuses(i, true);
    let mut containers = container_statuses(i, false);
    // Only a restarted kubelet reads the old statuses.
    let previous: Vec<ContainerStatus> = match i.restarted_before {
        Some(_) => i.previous.init_containers.iter().chain(&i.previous.containers).cloned().collect(),
        None => Vec::new(),
    };
    let restarted = i.restarted_before.map(|before| Restarted { before, api_ready: i.api_ready, previous: &previous });
    let readiness_triggers =
        i.probes.update_pod_status(i.spec, &mut init_containers, &mut containers, restarted.as_ref());
    // `HasAnyActiveRegularContainerStarted`: a regular container exists in the runtime.
    let has_initialized = i.spec.regular().any(|(idx, _)| i.snapshot.newest(idx).is_some());
    let mut phase = pod_phase(i.spec, &init_containers, &containers, i.terminal, has_initialized);
    // A phase never leaves Succeeded or Failed once reported.
    if i.previous.phase.is_terminal() {
        phase = i.previous.phase;
    }
    // The reason stays with an unchanged phase; a pod sync handler that
    // evicts overrides both (a terminal phase still stands).
    let mut reason = i.previous.reason.filter(|_| phase == i.previous.phase);
    if i.deadline_exceeded {
        reason = Some(PodReason::DeadlineExceeded);
        if !phase.is_terminal() {
            phase = PodPhase::Failed;
        }
    }
    let mut status = PodStatus {
        phase,
        reason,
        conditions: i.others.to_vec(),
        host_ip: Some(i.host_ip.clone()),
        pod_ip: if i.spec.host_network { Some(i.host_ip.clone()) } else { i.snapshot.sandbox.ip().cloned() },
        start_time: i.previous.start_time,
        init_containers,
        containers,
        qos: i.spec.qos,
        observed_generation: i.generation,
    };
    if status.pod_ip.is_none() {
        status.pod_ip = i.previous.pod_ip.clone();
    }
    if i.ready_to_start_condition {
        status.set_condition(conditions::ready_to_start(&i.snapshot.sandbox, i.version));
    }
    status.set_condition(conditions::initialized(i.spec, &status, phase));
    let containers = conditions::containers_ready(i.spec, &status, phase);
    status.set_condition(conditions::ready_given(i.spec, &status, &containers));
    status.set_condition(containers);
    status.set_condition(Condition::new(ConditionType::PodScheduled, true));
    Generated { status, readiness_triggers }
}

/// `convertToAPIContainerStatuses` for the init containers (spec order) or
/// the regular containers (sorted by name).
fn container_statuses(i: &Inputs<'_>, init: bool) -> Vec<ContainerStatus> {
    let has_init = i.spec.has_init_containers();
    let mut out: Vec<ContainerStatus> = i
        .spec
        .containers
        .iter()
        .enumerate()
        .filter(|(_, c)| c.role.is_init() == init)
        .map(|(idx, c)| {
            let previous = i.previous.container(&c.name);
            let waiting = if has_init { "PodInitializing" } else { "ContainerCreating" };
            let mut s = match previous {
                Some(p) if matches!(p.state, ContainerState::Terminated(_)) => p.clone(),
                _ => ContainerStatus {
                    name: c.name.clone(),
                    image: Arc::from(c.image.as_str()),
                    instance: None,
                    state: ContainerState::Waiting { reason: Some(Cow::Borrowed(waiting)), message: None },
                    last_state: previous.and_then(|p| p.last_state.clone()),
                    ready: false,
                    started: false,
                    restart_count: previous.map_or(0, |p| p.restart_count),
                    ready_why: Cow::Borrowed("the container has not started"),
                    started_why: Cow::Borrowed("the container has not started"),
                },
            };
            let (newest, second) = i.snapshot.two_newest(idx);
            if let Some(n) = newest {
                s.image = n.image.clone();
                s.instance = Some(InstanceRef {
                    handle: n.inst.0,
                    container_id: n.container_id.clone(),
                    image: n.image.clone(),
                    image_id: n.image_id.clone(),
                });
                s.restart_count = n.restart_count;
                s.state = state_of(n);
            }
            if let Some(ContainerState::Terminated(t)) = second.map(state_of) {
                s.last_state = Some(t);
            }
            // A container due to be (re)started shows why its start failed;
            // an init container that completed stays Terminated.
            let completed = init && newest.is_some_and(|n| matches!(n.state, InstState::Exited { exit_code: 0, .. }));
            let policy = displayed_restart_policy(i.spec, c, i.version);
            if !completed
                && should_restart(policy, newest, i.deleting)
                && let Some((reason, message)) = i.reasons.get(&idx)
            {
                if let ContainerState::Terminated(t) = &s.state {
                    s.last_state = Some(t.clone());
                }
                s.state = ContainerState::Waiting { reason: Some(reason.clone()), message: Some(message.clone()) };
            }
            s
        })
        .collect();
    if !init {
        out.sort_by(|a, b| a.name.cmp(&b.name));
    }
    out
}

/// `convertContainerStatus`: the runtime state as an API state.
fn state_of(c: &ContainerSnap) -> ContainerState {
    match &c.state {
        InstState::Created => ContainerState::Waiting { reason: None, message: None },
        InstState::Running { started } => ContainerState::Running { started_at: *started },
        InstState::Exited { started, finished, exit_code, cause } => ContainerState::Terminated(Terminated {
            exit_code: *exit_code,
            // containerd's `toCRIContainerStatus`: the TaskOOM event set the
            // reason already; Completed or Error fill only an empty one.
            reason: match (cause, exit_code) {
                (EndCause::OomKilled { .. }, _) => "OOMKilled",
                (EndCause::NodeLost, _) => "Unknown",
                (_, 0) => "Completed",
                _ => "Error",
            },
            message: None,
            started_at: Some(*started),
            finished_at: Some(*finished),
            container_id: Some(c.container_id.clone()),
            why: end_why(*exit_code, cause),
        }),
    }
}

fn end_why(code: i32, cause: &EndCause) -> Arc<str> {
    match cause {
        EndCause::Exited => Arc::from(format!("the process exited by itself with code {code}")),
        EndCause::Signalled { signal } => Arc::from(format!("the process was killed from outside with {signal}")),
        EndCause::Stopped { why, sigkill: true } => Arc::from(format!("{why}: still running at the deadline, SIGKILL")),
        EndCause::Stopped { why, sigkill: false } => Arc::from(format!("{why}: exited with {code} after SIGTERM")),
        EndCause::OomKilled { rss, limit } => {
            Arc::from(format!("the kernel OOM-killed it: rss {rss} above its memory limit {limit}"))
        }
        EndCause::NodeLost => Arc::from("its node stopped: containerd found the task gone (exit 255, Unknown)"),
    }
}

/// The restart policy `ShouldContainerBeRestarted` applies to a container:
/// the pod's, except that from 1.35 (`ContainerRestartRules` on) a sidecar's
/// own `restartPolicy: Always` counts.
pub fn displayed_restart_policy(spec: &PodSpec, c: &ContainerSpec, version: Version) -> RestartPolicy {
    if c.role == Role::Sidecar && version >= Version::V1_35 { RestartPolicy::Always } else { spec.restart_policy }
}

/// `ShouldContainerBeRestarted` (pkg/kubelet/container/helpers.go).
pub fn should_restart(policy: RestartPolicy, newest: Option<&ContainerSnap>, deleting: bool) -> bool {
    if deleting {
        return false;
    }
    match newest.map(|n| &n.state) {
        None | Some(InstState::Created) => true,
        Some(InstState::Running { .. }) => false,
        Some(InstState::Exited { exit_code, .. }) => match policy {
            RestartPolicy::Always => true,
            RestartPolicy::OnFailure => *exit_code != 0,
            RestartPolicy::Never => false,
        },
    }
}
