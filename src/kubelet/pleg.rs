//! The pod lifecycle event generator: a relist of the runtime every second
//! (`genericPlegRelistPeriod`), a cache of each pod's runtime status stamped
//! with the relist time, and the events that wake the pod worker.

use super::runtime::{InstId, InstState, Runtime};
use crate::sim::PodId;
use crate::time::SimTime;
use std::sync::Arc;

/// A container instance as the runtime reported it at a relist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerSnap {
    pub inst: InstId,
    pub container: usize,
    pub name: Arc<str>,
    pub container_id: Arc<str>,
    pub image: Arc<str>,
    pub image_id: Arc<str>,
    pub restart_count: u32,
    /// `Status.Hash`: the spec hash the instance was created with.
    pub hash: u32,
    pub state: InstState,
}

/// `kubecontainer.PodStatus`: the sandbox and every instance, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodSnapshot {
    /// The sandbox IP once it exists and is ready.
    pub sandbox_ip: Option<Arc<str>>,
    pub containers: Vec<ContainerSnap>,
}

impl PodSnapshot {
    /// Reads the runtime's current state of `pod`.
    pub fn read(runtime: &Runtime, pod: PodId) -> PodSnapshot {
        PodSnapshot {
            sandbox_ip: runtime.sandbox(pod).map(|s| s.ip.clone()),
            containers: runtime
                .pod_instances(pod)
                .map(|(id, i)| ContainerSnap {
                    inst: id,
                    container: i.container,
                    name: i.name.clone(),
                    container_id: i.container_id.clone(),
                    image: i.image.clone(),
                    image_id: i.image_id.clone(),
                    restart_count: i.restart_count,
                    hash: i.hash,
                    state: i.state.clone(),
                })
                .collect(),
        }
    }

    /// `FindContainerStatusByName`: the newest instance, in any state.
    pub fn newest(&self, container: usize) -> Option<&ContainerSnap> {
        self.containers.iter().find(|c| c.container == container)
    }

    /// The newest instance that has exited (what `doBackOff` looks at).
    pub fn newest_exited(&self, container: usize) -> Option<&ContainerSnap> {
        self.containers.iter().find(|c| c.container == container && matches!(c.state, InstState::Exited { .. }))
    }

    /// The two newest instances of a container: they give `state` and `lastState`.
    pub fn two_newest(&self, container: usize) -> (Option<&ContainerSnap>, Option<&ContainerSnap>) {
        let mut it = self.containers.iter().filter(|c| c.container == container);
        (it.next(), it.next())
    }
}

/// A change seen by a relist (`pleg.PodLifecycleEventType`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PlegEvent {
    ContainerStarted(InstId),
    ContainerDied(InstId),
    ContainerChanged(InstId),
    SandboxChanged,
}

/// Per-pod cache entry (`kubecontainer.Cache`).
#[derive(Clone, Debug, Default)]
pub struct CacheEntry {
    pub status: Arc<PodSnapshot>,
    /// The runtime's `version` of the pod when `status` was read.
    pub version: u64,
    pub modified: SimTime,
}

/// A relist's read of one pod, with the runtime's version it was read at.
#[derive(Clone, Debug)]
pub struct Relisted {
    pub snapshot: Arc<PodSnapshot>,
    pub version: u64,
}

/// The PLEG's memory of what the last relist saw, and the pod cache.
#[derive(Debug, Default)]
pub struct Pleg {
    pub cache: Vec<Option<CacheEntry>>,
    /// Global cache timestamp: the start time of the last completed relist.
    pub timestamp: Option<SimTime>,
}

impl Pleg {
    /// `GetNewerThan(uid, minTime)` without blocking: is there data newer than `min`?
    pub fn newer_than(&self, pod: PodId, min: Option<SimTime>) -> bool {
        let Some(min) = min else {
            return self.timestamp.is_some() || self.entry(pod).is_some();
        };
        self.timestamp.is_some_and(|t| t > min) || self.entry(pod).is_some_and(|e| e.modified > min)
    }

    pub fn entry(&self, pod: PodId) -> Option<&CacheEntry> {
        self.cache.get(pod.0 as usize).and_then(Option::as_ref)
    }

    /// The cached snapshot (empty before the first relist).
    pub fn snapshot(&self, pod: PodId) -> Arc<PodSnapshot> {
        self.entry(pod).map(|e| e.status.clone()).unwrap_or_default()
    }

    /// Reads `pod` from the runtime (`runtime.GetPods`); an unchanged pod
    /// gives the cached snapshot itself, neither copied nor compared again.
    pub fn read(&self, runtime: &Runtime, pod: PodId) -> Relisted {
        let version = runtime.version(pod);
        let snapshot = match self.entry(pod) {
            Some(e) if e.version == version => e.status.clone(),
            _ => Arc::new(PodSnapshot::read(runtime, pod)),
        };
        Relisted { snapshot, version }
    }

    /// Stores a relist result for `pod` taken at `at` and returns the events
    /// (`GenericPLEG.Relist` / `relistPod`).
    pub fn update(&mut self, pod: PodId, fresh: Relisted, at: SimTime) -> Vec<PlegEvent> {
        let i = pod.0 as usize;
        if self.cache.len() <= i {
            self.cache.resize(i + 1, None);
        }
        let events = match &self.cache[i] {
            Some(old) if Arc::ptr_eq(&old.status, &fresh.snapshot) => Vec::new(),
            Some(old) => diff(&old.status, &fresh.snapshot),
            None => diff(&PodSnapshot::default(), &fresh.snapshot),
        };
        self.cache[i] = Some(CacheEntry { status: fresh.snapshot, version: fresh.version, modified: at });
        events
    }
}

/// `generateEvents`: compares each instance's old and new state.
fn diff(old: &PodSnapshot, new: &PodSnapshot) -> Vec<PlegEvent> {
    let mut out = Vec::new();
    if old.sandbox_ip != new.sandbox_ip {
        out.push(PlegEvent::SandboxChanged);
    }
    for c in &new.containers {
        let before = old.containers.iter().find(|o| o.inst == c.inst).map(|o| &o.state);
        let event = match (before, &c.state) {
            (Some(InstState::Running { .. }), InstState::Running { .. }) => None,
            (Some(InstState::Exited { .. }), InstState::Exited { .. }) => None,
            (Some(InstState::Created), InstState::Created) => None,
            (_, InstState::Running { .. }) => Some(PlegEvent::ContainerStarted(c.inst)),
            (_, InstState::Exited { .. }) => Some(PlegEvent::ContainerDied(c.inst)),
            (_, InstState::Created) => Some(PlegEvent::ContainerChanged(c.inst)),
        };
        out.extend(event);
    }
    out
}
