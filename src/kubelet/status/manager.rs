//! The status manager (pkg/kubelet/status/status_manager.go): the kubelet's
//! cache of each pod's status, versioned, and the PATCHes that carry it to the
//! API server one at a time.

use super::conditions;
use crate::api::status::{ConditionType, PodStatus};
use crate::spec::PodSpec;
use crate::time::SimTime;
use std::borrow::Cow;

#[derive(Clone, Debug)]
pub struct StatusManager {
    /// `podStatuses[uid]`: the last status the kubelet generated.
    cached: Option<PodStatus>,
    version: u64,
    sent_version: u64,
    in_flight: bool,
    /// The status as the API server holds it (from the watch, then our PATCHes).
    api: PodStatus,
}

impl StatusManager {
    pub fn new(api: PodStatus) -> Self {
        StatusManager { cached: None, version: 0, sent_version: 0, in_flight: false, api }
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

    /// `updateStatusInternal`: stamps lastTransitionTime and startTime, and
    /// caches the status unless it equals the cached one. Returns whether it changed.
    pub fn set(&mut self, mut status: PodStatus, now: SimTime, force: bool) -> bool {
        let old = self.previous();
        for c in &mut status.conditions {
            c.last_transition = match old.condition(&c.kind) {
                Some(o) if o.status == c.status => o.last_transition,
                _ => now,
            };
        }
        status.start_time = old.start_time.or(Some(now));
        if !force && self.cached.as_ref().is_some_and(|c| c.same_as(&status)) {
            return false;
        }
        self.cached = Some(status);
        self.version += 1;
        true
    }

    /// A copy of the cached status and the index of the container running
    /// as instance `handle`, if the cache lists it.
    fn cached_container(&self, handle: u32) -> Option<(PodStatus, usize)> {
        let status = self.cached.clone()?;
        let i = status.containers.iter().position(|c| c.instance.as_ref().is_some_and(|i| i.handle == handle))?;
        Some((status, i))
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
        let Some((mut status, i)) = self.cached_container(handle) else { return false };
        if status.containers[i].ready == ready {
            return false;
        }
        status.containers[i].ready = ready;
        status.containers[i].ready_why = why;
        let phase = status.phase;
        status.set_condition(conditions::pod_ready(spec, &status.containers, phase));
        status.set_condition(conditions::containers_ready(spec, &status.containers, phase));
        self.set(status, now, false)
    }

    /// `SetContainerStartup`: flips one container's `started`; no condition changes.
    pub fn set_container_startup(&mut self, handle: u32, started: bool, why: Cow<'static, str>, now: SimTime) -> bool {
        let Some((mut status, i)) = self.cached_container(handle) else { return false };
        if status.containers[i].started == started {
            return false;
        }
        status.containers[i].started = started;
        status.containers[i].started_why = why;
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
        let merged = merge(&self.api, self.cached.as_ref()?, could_run, now);
        if merged.same_as(&self.api) {
            return None;
        }
        self.in_flight = true;
        Some(merged)
    }

    /// The PATCH returned: the API now holds `status`.
    pub fn patched(&mut self, status: PodStatus) {
        self.api = status;
        self.in_flight = false;
    }
}

/// `mergePodStatus`: a terminal phase is held back while containers could
/// still run; a terminal phase forces Ready and ContainersReady to False.
pub fn merge(api: &PodStatus, new: &PodStatus, could_run: bool, now: SimTime) -> PodStatus {
    let mut out = new.clone();
    if !api.phase.is_terminal() && out.phase.is_terminal() && could_run {
        out.phase = api.phase;
    }
    if out.phase.is_terminal() {
        for kind in [ConditionType::ContainersReady, ConditionType::Ready] {
            if out.condition_true(&kind) {
                let mut c = conditions::terminal(kind, out.phase);
                c.last_transition = now;
                out.set_condition(c);
            }
        }
    }
    out
}
