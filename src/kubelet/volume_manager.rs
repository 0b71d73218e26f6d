//! The part of the kubelet's volume manager a pod waits for: the reconciler
//! setting up each configMap, secret and projected volume, a failed set-up
//! retried on the operation executor's exponential backoff, and
//! `WaitForAttachAndMount`, which holds the pod's sync until every volume
//! is mounted or its timeout passes (pkg/kubelet/volumemanager).

use super::config_objects::{ObjectCache, set_up};
use crate::spec::ConfigNeeds;
use crate::time::{SimDuration, SimTime};
use std::sync::Arc;

/// `reconcilerLoopSleepPeriod` and the populator's `loopSleepDuration`.
pub const LOOP_PERIOD: SimDuration = SimDuration::from_millis(100);
/// `podAttachAndMountRetryInterval`: how often the waiting sync looks.
pub const POLL_INTERVAL: SimDuration = SimDuration::from_millis(300);
/// `podAttachAndMountTimeout`.
pub const MOUNT_TIMEOUT: SimDuration = SimDuration::from_millis(123_000);
/// `initialDurationBeforeRetry` and `maxDurationBeforeRetry` of
/// `exponentialbackoff` (nestedpendingoperations).
const INITIAL_RETRY: SimDuration = SimDuration::from_millis(500);
const MAX_RETRY: SimDuration = SimDuration::from_millis(122_000);

/// One volume not mounted yet, with its operation's backoff.
#[derive(Clone, Debug)]
struct Pending {
    /// Index into the pod's `ConfigNeeds::volumes`.
    need: usize,
    /// `lastErrorTime` and `durationBeforeRetry` once a set-up failed.
    failed: Option<(SimTime, SimDuration)>,
}

/// The volumes of one pod that are not mounted yet.
#[derive(Clone, Debug, Default)]
pub struct PodVolumes {
    pending: Vec<Pending>,
}

impl PodVolumes {
    /// The pod's volumes as the populator adds them: those whose objects
    /// the kubelet already has are set up at once.
    pub fn new(needs: &ConfigNeeds, namespace: &str, cache: &ObjectCache) -> PodVolumes {
        let pending = (0..needs.volumes.len())
            .filter(|&i| set_up(&needs.volumes[i], namespace, cache).is_err())
            .map(|need| Pending { need, failed: None })
            .collect();
        PodVolumes { pending }
    }

    pub fn all_mounted(&self) -> bool {
        self.pending.is_empty()
    }

    /// A reconciler pass at `now` (`mountOrAttachVolumes`): each volume not
    /// in backoff is set up; a failure is returned as (volume, error) for
    /// its `FailedMount` event and starts or doubles its backoff
    /// (`ExponentialBackoff.Update`).
    pub fn reconcile(
        &mut self,
        now: SimTime,
        needs: &ConfigNeeds,
        namespace: &str,
        cache: &ObjectCache,
    ) -> Vec<(Arc<str>, String)> {
        let mut failures = Vec::new();
        self.pending.retain_mut(|p| {
            // `SafeToRetry`: only once more than durationBeforeRetry has passed.
            if p.failed.is_some_and(|(at, wait)| now.since(at) <= wait) {
                return true;
            }
            let need = &needs.volumes[p.need];
            match set_up(need, namespace, cache) {
                Ok(()) => false,
                Err(e) => {
                    let wait = p.failed.map_or(INITIAL_RETRY, |(_, w)| (w + w).min(MAX_RETRY));
                    p.failed = Some((now, wait));
                    failures.push((need.volume.clone(), e));
                    true
                }
            }
        });
        failures
    }

    /// The first reconciler pass that may retry a pending volume.
    pub fn next_pass(&self, phase: SimDuration, now: SimTime) -> Option<SimTime> {
        let due = self.pending.iter().map(|p| p.failed.map_or(now, |(at, wait)| at + wait)).min()?;
        Some(next_tick(phase, due.max(now)))
    }
}

/// The first instant of a loop running every `LOOP_PERIOD` from `phase` that
/// is strictly after `t`.
pub fn next_tick(phase: SimDuration, t: SimTime) -> SimTime {
    let period = LOOP_PERIOD.as_millis();
    let (t, phase) = (t.as_millis(), phase.as_millis() % period);
    let k = if t < phase { 0 } else { (t - phase) / period + 1 };
    SimTime::from_millis(phase + k * period)
}

/// When a sync waiting since `started` sees its volumes mounted at
/// `mounted`: its poll runs at once, then every `POLL_INTERVAL`
/// (`PollUntilContextTimeout` with `immediate`).
pub fn seen_at(started: SimTime, mounted: SimTime) -> SimTime {
    let elapsed = mounted.since(started).as_millis();
    let step = POLL_INTERVAL.as_millis();
    started + SimDuration::from_millis(elapsed.div_ceil(step) * step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::config::ConfigObject;
    use crate::spec::{ConfigKind, ConfigRef, VolumeNeed, VolumeSource};

    fn needs() -> ConfigNeeds {
        let object = ConfigRef { kind: ConfigKind::ConfigMap, name: Arc::from("app-config"), optional: false };
        let source = VolumeSource { object, items: Vec::new() };
        ConfigNeeds {
            env: Vec::new(),
            volumes: vec![VolumeNeed { volume: Arc::from("config"), sources: vec![source], projected: false }],
        }
    }

    #[test]
    fn failed_set_ups_back_off_from_half_a_second_doubling_to_2m2s() {
        let needs = needs();
        let cache = ObjectCache::default();
        let mut v = PodVolumes::new(&needs, "default", &cache);
        let phase = SimDuration::from_millis(40);
        let mut at = next_tick(phase, SimTime::ZERO);
        let mut passes = Vec::new();
        while passes.len() < 11 {
            if !v.reconcile(at, &needs, "default", &cache).is_empty() {
                passes.push(at.as_millis());
            }
            at = v.next_pass(phase, at).unwrap();
        }
        // Each retry is the first pass strictly after lastErrorTime + durationBeforeRetry.
        assert_eq!(passes, [40, 640, 1740, 3840, 7940, 16040, 32140, 64240, 128340, 250440, 372540]);
    }

    #[test]
    fn a_volume_mounts_on_the_first_pass_after_its_object_arrives() {
        let needs = needs();
        let mut cache = ObjectCache::default();
        let mut v = PodVolumes::new(&needs, "default", &cache);
        assert!(!v.all_mounted());
        assert_eq!(v.reconcile(SimTime::from_millis(100), &needs, "default", &cache).len(), 1);
        cache.seen(ConfigObject {
            kind: ConfigKind::ConfigMap,
            namespace: Arc::from("default"),
            name: Arc::from("app-config"),
            keys: Default::default(),
            values: Default::default(),
        });
        // Still in backoff at 0.6 s (not more than 500 ms since the error).
        assert!(v.reconcile(SimTime::from_millis(600), &needs, "default", &cache).is_empty());
        assert!(!v.all_mounted());
        assert!(v.reconcile(SimTime::from_millis(700), &needs, "default", &cache).is_empty());
        assert!(v.all_mounted());
    }

    #[test]
    fn the_waiting_sync_sees_the_mount_on_its_next_poll() {
        let s = SimTime::from_millis(1_000);
        assert_eq!(seen_at(s, s), s);
        assert_eq!(seen_at(s, SimTime::from_millis(1_001)), SimTime::from_millis(1_300));
        assert_eq!(seen_at(s, SimTime::from_millis(1_600)), SimTime::from_millis(1_600));
    }
}
