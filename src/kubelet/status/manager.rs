//! The status manager (pkg/kubelet/status/status_manager.go): the kubelet's
//! cache of each pod's status, versioned, and the PATCHes that carry it to the
//! API server one at a time.

use super::conditions;
use super::normalize::normalize_status;
use crate::api::pod::ApiPod;
use crate::api::status::{ConditionType, ContainerState, PodPhase, PodStatus, Terminated};
use crate::spec::{PodSpec, Role};
use crate::time::SimTime;
use std::borrow::Cow;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct StatusManager {
    /// `podStatuses[uid]`: the last status the kubelet generated.
    cached: Option<PodStatus>,
    version: u64,
    sent_version: u64,
    in_flight: bool,
    /// The status as the API server holds it (from the watch, then our PATCHes).
    api: ApiStatus,
    /// Bumped when `api` changes.
    api_version: u64,
    /// (`version`, `api_version`, `could_run`) when a resync last found the
    /// API in step with the cache: the same inputs merge to the same status.
    in_step: Option<(u64, u64, bool)>,
    /// `podIsFinished`: set by `TerminatePod`, after which a deleted pod's
    /// object may be removed.
    finished: bool,
    delete_sent: bool,
}

/// The API server's status of the pod: the stored pod the watch delivered
/// or a PATCH answered with, shared rather than copied (or, in tests, a
/// status on its own).
#[derive(Clone, Debug)]
enum ApiStatus {
    Own(PodStatus),
    Stored(Arc<ApiPod>),
}

impl std::ops::Deref for ApiStatus {
    type Target = PodStatus;
    fn deref(&self) -> &PodStatus {
        match self {
            ApiStatus::Own(s) => s,
            ApiStatus::Stored(p) => &p.status,
        }
    }
}

impl StatusManager {
    /// The status manager of a pod the watch delivered.
    pub fn observing(stored: Arc<ApiPod>) -> Self {
        StatusManager::with(ApiStatus::Stored(stored))
    }

    /// The status manager of a pod whose API status is `api`.
    pub fn new(api: PodStatus) -> Self {
        StatusManager::with(ApiStatus::Own(api))
    }

    fn with(api: ApiStatus) -> Self {
        StatusManager {
            cached: None,
            version: 0,
            sent_version: 0,
            in_flight: false,
            api,
            api_version: 0,
            in_step: None,
            finished: false,
            delete_sent: false,
        }
    }

    /// `GetPodStatus`: the cached status, if the pod has been synced.
    pub fn cached(&self) -> Option<&PodStatus> {
        self.cached.as_ref()
    }

    /// The previous status a new one is generated against.
    pub fn previous(&self) -> &PodStatus {
        self.cached.as_ref().unwrap_or(&self.api)
    }

    pub fn api(&self) -> &PodStatus {
        &self.api
    }

    /// `updateStatusInternal`: stamps lastTransitionTime and startTime,
    /// cuts every time to the second (`normalizeStatus`), and caches the
    /// status unless it equals the cached one. Returns whether it changed.
    pub fn set(&mut self, mut status: PodStatus, now: SimTime, force: bool) -> bool {
        let old = self.previous();
        for c in &mut status.conditions {
            c.last_transition = match old.condition(&c.kind) {
                Some(o) if o.status == c.status => o.last_transition,
                _ => now,
            };
        }
        status.start_time = old.start_time.or(Some(now));
        normalize_status(&mut status);
        if !force && self.cached.as_ref().is_some_and(|c| c.same_as(&status)) {
            return false;
        }
        self.cached = Some(status);
        self.version += 1;
        true
    }

    /// A copy of the cached status and the name of the container running as
    /// instance `handle`, if the cache lists it.
    fn cached_container(&self, handle: u32) -> Option<(PodStatus, Arc<str>)> {
        let status = self.cached.clone()?;
        let name =
            status.all_containers().find(|c| c.instance.as_ref().is_some_and(|i| i.handle == handle))?.name.clone();
        Some((status, name))
    }

    /// `SetContainerReadiness`: flips one container's `ready` and regenerates
    /// Ready and ContainersReady at once. A container the cached status does
    /// not list yet is ignored (the sync that follows fixes it).
    pub fn set_container_readiness(
        &mut self,
        spec: &PodSpec,
        handle: u32,
        ready: bool,
        why: Cow<'static, str>,
        now: SimTime,
    ) -> bool {
        let Some((mut status, name)) = self.cached_container(handle) else { return false };
        let c = status.container_mut(&name).expect("found above");
        if c.ready == ready {
            return false;
        }
        c.ready = ready;
        c.ready_why = why;
        let phase = status.phase;
        let containers = conditions::containers_ready(spec, &status, phase);
        status.set_condition(conditions::ready_given(spec, &status, &containers));
        status.set_condition(containers);
        self.set(status, now, false)
    }

    /// `SetContainerStartup`: flips one container's `started`; no condition changes.
    pub fn set_container_startup(&mut self, handle: u32, started: bool, why: Cow<'static, str>, now: SimTime) -> bool {
        let Some((mut status, name)) = self.cached_container(handle) else { return false };
        let c = status.container_mut(&name).expect("found above");
        if c.started == started {
            return false;
        }
        c.started = started;
        c.started_why = why;
        self.set(status, now, false)
    }

    /// The next PATCH to send, if the cache is ahead of what was sent and no
    /// PATCH is in flight (`syncBatch`). `could_run` is
    /// `PodCouldHaveRunningContainers`.
    pub fn next_patch(&mut self, could_run: bool, now: SimTime) -> Option<PodStatus> {
        if self.in_flight || self.version == self.sent_version {
            return None;
        }
        let cached = self.cached.as_ref()?;
        let merged = merge(&self.api, cached, could_run, now);
        self.sent_version = self.version;
        if merged.same_as(&self.api) {
            return None;
        }
        self.in_flight = true;
        Some(merged)
    }

    /// The 10 s resync (`syncBatch(true)`): resend when the API lags the cache
    /// (e.g. a terminal phase that was held back).
    pub fn needs_reconcile(&mut self, could_run: bool, now: SimTime) -> Option<PodStatus> {
        if self.in_flight {
            return None;
        }
        let inputs = (self.version, self.api_version, could_run);
        if self.in_step == Some(inputs) {
            return None;
        }
        let merged = merge(&self.api, self.cached.as_ref()?, could_run, now);
        if merged.same_as(&self.api) {
            // `merge` reads `now` for a terminal phase only.
            if !merged.phase.is_terminal() {
                self.in_step = Some(inputs);
            }
            return None;
        }
        self.in_flight = true;
        Some(merged)
    }

    /// The PATCH returned: the API now holds `status`.
    pub fn patched(&mut self, stored: Arc<ApiPod>) {
        self.api = ApiStatus::Stored(stored);
        self.api_version += 1;
        self.in_flight = false;
    }

    /// The watch delivered a status another client wrote.
    pub fn observed(&mut self, stored: Arc<ApiPod>) {
        self.api = ApiStatus::Stored(stored);
        self.api_version += 1;
    }

    /// `TerminatePod`: every container that has no terminated state is
    /// marked `ContainerStatusUnknown` (regular ones once the pod has
    /// initialized; init containers up to the last one that ran), and a
    /// phase that is not terminal becomes Failed. The pod is finished.
    pub fn terminate_pod(&mut self, spec: &PodSpec, now: SimTime) {
        let mut status = self.previous().clone();
        let unknown = || {
            ContainerState::Terminated(Terminated {
                exit_code: 137,
                reason: "ContainerStatusUnknown",
                message: Some("The container could not be located when the pod was terminated"),
                started_at: None,
                finished_at: None,
                container_id: None,
                why: Arc::from("TerminatePod: the container was not running when the pod finished"),
            })
        };
        if has_pod_initialized(spec, &self.api) {
            for c in status.containers.iter_mut().filter(|c| !matches!(c.state, ContainerState::Terminated(_))) {
                c.state = unknown();
            }
        }
        // `initializedContainers`: all but the trailing never-started ones (at least one).
        let ran = status
            .init_containers
            .iter()
            .rposition(|c| !matches!(c.state, ContainerState::Waiting { .. }) || c.last_state.is_some())
            .map_or(1, |i| i + 1);
        for c in status.init_containers.iter_mut().take(ran) {
            if !matches!(c.state, ContainerState::Terminated(_)) {
                c.state = unknown();
            }
        }
        if !status.phase.is_terminal() {
            status.phase = PodPhase::Failed;
        }
        self.finished = true;
        self.set(status, now, true);
    }

    /// `canBeDeleted`: the pod is deleted, finished, and the API shows its
    /// terminal phase. Returns true once, when the final DELETE is due.
    pub fn take_delete(&mut self, deleting: bool) -> bool {
        let due = deleting && self.finished && self.api.phase.is_terminal() && !self.in_flight && !self.delete_sent;
        self.delete_sent |= due;
        due
    }
}

/// `hasPodInitialized` (status_manager.go), on the API status.
fn has_pod_initialized(spec: &PodSpec, api: &PodStatus) -> bool {
    if !spec.has_init_containers() {
        return true;
    }
    if api.containers.iter().any(|c| c.last_state.is_some() || !matches!(c.state, ContainerState::Waiting { .. })) {
        return true;
    }
    let (Some(last), Some(last_spec)) = (api.init_containers.last(), spec.init().last().map(|(_, c)| c)) else {
        return false;
    };
    if last_spec.role == Role::Sidecar {
        return last.state.is_running() && last.started;
    }
    let ok = |t: &Terminated| t.exit_code == 0;
    last.last_state.as_ref().is_some_and(ok) || matches!(&last.state, ContainerState::Terminated(t) if ok(t))
}

/// `mergePodStatus`: conditions the kubelet does not own come from the API
/// object; a terminal phase (and its reason) is held back while containers
/// could still run;
/// a terminal phase forces Ready and ContainersReady to False.
pub fn merge(api: &PodStatus, new: &PodStatus, could_run: bool, now: SimTime) -> PodStatus {
    let mut out = new.clone();
    out.conditions =
        api.other_conditions().chain(new.conditions.iter().filter(|c| c.kind.by_kubelet())).cloned().collect();
    if !api.phase.is_terminal() && out.phase.is_terminal() && could_run {
        out.phase = api.phase;
        out.reason = api.reason;
    }
    if out.phase.is_terminal() {
        for kind in [ConditionType::ContainersReady, ConditionType::Ready] {
            if out.condition_true(&kind) {
                let mut c = conditions::terminal(kind, out.phase);
                // `metav1.Now()`, stored by the API server to the second.
                c.last_transition = now.floor_second();
                out.set_condition(c);
            }
        }
    }
    out
}
