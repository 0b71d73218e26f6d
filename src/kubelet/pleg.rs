//! The pod lifecycle event generator: a relist of the runtime every second
//! (`genericPlegRelistPeriod`), a cache of each pod's runtime status stamped
//! with the relist time, and the events that wake the pod worker.

use super::runtime::{InstId, InstState, Runtime};
use crate::ids::PodId;
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

/// The pod's sandbox as the runtime lists it (what `PodSandboxChanged` reads).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SandboxSnap {
    /// None yet.
    #[default]
    Absent,
    /// Stopped with the pod (`SANDBOX_NOTREADY`).
    Stopped,
    /// Ready, with its IP.
    Ready(Arc<str>),
}

impl SandboxSnap {
    /// The ready sandbox's IP.
    pub fn ip(&self) -> Option<&Arc<str>> {
        match self {
            SandboxSnap::Ready(ip) => Some(ip),
            SandboxSnap::Absent | SandboxSnap::Stopped => None,
        }
    }
}

/// `kubecontainer.PodStatus`: the sandbox and every instance, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodSnapshot {
    pub sandbox: SandboxSnap,
    pub containers: Vec<ContainerSnap>,
}

impl PodSnapshot {
    /// Reads the runtime's current state of `pod`.
    pub fn read(runtime: &Runtime, pod: PodId) -> PodSnapshot {
        PodSnapshot {
            sandbox: match runtime.sandbox(pod) {
                Some(s) => SandboxSnap::Ready(s.ip.clone()),
                None if runtime.sandbox_stopped(pod) => SandboxSnap::Stopped,
                None => SandboxSnap::Absent,
            },
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
    /// A container seen Created (CRI's created maps to the PLEG's unknown):
    /// the cache is updated, but `Relist` never sends the event ("not
    /// reliable and no other components use yet").
    ContainerChanged(InstId),
    SandboxChanged,
}

impl PlegEvent {
    /// Whether `Relist` sends it to the sync loop, where it syncs the pod.
    pub fn is_sent(&self) -> bool {
        !matches!(self, PlegEvent::ContainerChanged(_))
    }
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
    if old.sandbox != new.sandbox {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(state: InstState) -> Relisted {
        let c = ContainerSnap {
            inst: InstId(3),
            container: 0,
            name: Arc::from("app"),
            container_id: Arc::from("containerd://3"),
            image: Arc::from("docker.io/library/busybox:1.36"),
            image_id: Arc::from("sha256:3"),
            restart_count: 1,
            hash: 0,
            state,
        };
        let snapshot = PodSnapshot { sandbox: SandboxSnap::Absent, containers: vec![c] };
        Relisted { snapshot: Arc::new(snapshot), version: 0 }
    }

    /// A relist between CreateContainer and StartContainer sees the instance
    /// Created: `ContainerChanged`, which updates the cache but is never sent
    /// to the sync loop; the next relist's `ContainerStarted` is.
    #[test]
    fn a_created_container_updates_the_cache_but_syncs_nothing() {
        let mut pleg = Pleg::default();
        let t = |ms| SimTime::from_millis(ms);
        pleg.update(PodId(0), Relisted { snapshot: Arc::default(), version: 0 }, t(0));
        let created = pleg.update(PodId(0), snap(InstState::Created), t(1_000));
        assert_eq!(created, vec![PlegEvent::ContainerChanged(InstId(3))]);
        assert!(!created.iter().any(PlegEvent::is_sent));
        assert_eq!(pleg.entry(PodId(0)).unwrap().modified, t(1_000));
        let running = pleg.update(PodId(0), snap(InstState::Running { started: t(1_500) }), t(2_000));
        assert_eq!(running, vec![PlegEvent::ContainerStarted(InstId(3))]);
        assert!(running.iter().all(PlegEvent::is_sent));
    }
}
