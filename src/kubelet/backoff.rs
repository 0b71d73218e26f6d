//! CrashLoopBackOff: client-go's `flowcontrol.Backoff` as the kubelet
//! configures it, and the kubelet's `doBackOff` decision.

use crate::time::{SimDuration, SimTime};
use foldhash::{HashMap, HashMapExt};

/// After this long without an update an entry counts as expired
/// (`crashLoopBackOff.HasExpiredFunc` in NewMainKubelet: hard-coded 600 s).
const EXPIRE_AFTER: SimDuration = SimDuration::from_secs(600);

/// The node-wide CrashLoopBackOff table (`flowcontrol.NewBackOff(initial, max)`, no jitter).
#[derive(Clone, Debug)]
pub struct Backoff {
    initial: SimDuration,
    max: SimDuration,
    entries: HashMap<String, Entry>,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    backoff: SimDuration,
    last_update: SimTime,
}

impl Backoff {
    /// `newCrashLoopBackOff`: 10 s → 300 s by default; 1 s → 60 s with
    /// ReduceDefaultCrashLoopBackOffDecay; with KubeletCrashLoopBackOffMax the
    /// configured max, and the initial lowered to it when smaller.
    pub fn new(initial: SimDuration, max: SimDuration) -> Self {
        Backoff { initial: initial.min(max), max, entries: HashMap::new() }
    }

    /// `hasExpired` with the kubelet's override: eventTime − lastUpdate > 600 s.
    fn expired(event_time: SimTime, e: &Entry) -> bool {
        event_time > e.last_update && event_time - e.last_update > EXPIRE_AFTER
    }

    /// `IsInBackOffSince(id, eventTime)`: now − eventTime < backoff.
    pub fn in_backoff_since(&self, key: &str, event_time: SimTime, now: SimTime) -> bool {
        match self.entries.get(key) {
            None => false,
            Some(e) if Self::expired(event_time, e) => false,
            Some(e) => now.since(event_time) < e.backoff,
        }
    }

    /// `IsInBackOffSinceUpdate(id, eventTime)`: eventTime − lastUpdate < backoff
    /// (the image back-off's test: from the failed pull, not a container's exit).
    pub fn in_backoff_since_update(&self, key: &str, now: SimTime) -> bool {
        match self.entries.get(key) {
            None => false,
            Some(e) if Self::expired(now, e) => false,
            Some(e) => now.since(e.last_update) < e.backoff,
        }
    }

    /// `Next(id, eventTime)`: a fresh entry starts at the initial delay, an
    /// existing one doubles up to the max; either way lastUpdate = now.
    pub fn next(&mut self, key: &str, event_time: SimTime, now: SimTime) {
        let backoff = match self.entries.get(key) {
            Some(e) if !Self::expired(event_time, e) => (e.backoff * 2).min(self.max),
            _ => self.initial,
        };
        self.entries.insert(key.to_string(), Entry { backoff, last_update: now });
    }

    /// `Get(id)`: the current delay (zero when there is no entry).
    pub fn get(&self, key: &str) -> SimDuration {
        self.entries.get(key).map_or(SimDuration::ZERO, |e| e.backoff)
    }

    /// `GC()`, run by housekeeping every 2 s: drops entries idle for 2 × max.
    pub fn gc(&mut self, now: SimTime) {
        let limit = self.max * 2;
        self.entries.retain(|_, e| now.since(e.last_update) <= limit);
    }

    /// The first instant at which `gc` drops an entry (`GC`: now −
    /// lastUpdate > 2 × max, in whole ms), none without entries.
    pub fn gc_due(&self) -> Option<SimTime> {
        let oldest = self.entries.values().map(|e| e.last_update).min()?;
        Some(oldest + self.max * 2 + SimDuration::from_millis(1))
    }
}

/// What `doBackOff` decided for one container start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// No exited instance in the snapshot: start without a check and without `Next`.
    NoExitedInstance,
    /// Backoff over (or none yet): `Next` was called, start now.
    Start,
    /// Still backing off: do not start until `expiry` (FinishedAt + backoff).
    Wait { backoff: SimDuration, expiry: SimTime },
}

/// `doBackOff` (kuberuntime_manager.go): `newest_exit` is the FinishedAt of the
/// newest *exited* instance of the container in the sync's snapshot.
pub fn do_backoff(table: &mut Backoff, key: &str, newest_exit: Option<SimTime>, now: SimTime) -> Decision {
    let Some(finished) = newest_exit else {
        return Decision::NoExitedInstance;
    };
    if table.in_backoff_since(key, finished, now) {
        let backoff = table.get(key);
        return Decision::Wait { backoff, expiry: finished + backoff };
    }
    table.next(key, finished, now);
    Decision::Start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: u64) -> SimTime {
        SimTime::from_millis(x * 1000)
    }

    /// The image back-off (`IsInBackOffSinceUpdate`): measured from the last
    /// failed pull; 10 s, then 20 s after the second failure; forgotten after
    /// 600 s without one.
    #[test]
    fn image_backoff_runs_from_the_last_failed_pull() {
        let mut b = Backoff::new(SimDuration::from_secs(10), SimDuration::from_secs(300));
        assert!(!b.in_backoff_since_update("p_img", s(0)));
        b.next("p_img", s(1), s(1));
        assert!(b.in_backoff_since_update("p_img", s(10)));
        assert!(!b.in_backoff_since_update("p_img", s(11)));
        b.next("p_img", s(12), s(12));
        assert!(b.in_backoff_since_update("p_img", s(31)));
        assert!(!b.in_backoff_since_update("p_img", s(32)));
        assert!(!b.in_backoff_since_update("p_img", s(12 + 601)));
    }

    /// A container that exits 1 s after each start, restarted as soon as
    /// allowed: the delays measured from each FinishedAt are 0 (first crash),
    /// then 10, 20, 40, 80, 160, 300, 300 s (doBackOff over client-go's
    /// flowcontrol.Backoff: the entry doubles from 10 s to the 300 s cap).
    #[test]
    fn crash_loop_delays_double_to_the_cap() {
        let mut b = Backoff::new(SimDuration::from_secs(10), SimDuration::from_secs(300));
        let mut now = s(100);
        let mut delays = vec![];
        let mut finished = now; // first crash
        while delays.len() < 8 {
            match do_backoff(&mut b, "k", Some(finished), now) {
                Decision::Start => {
                    delays.push(now.since(finished).whole_seconds());
                    finished = now + SimDuration::from_secs(1); // runs 1 s, crashes
                    now = finished;
                }
                Decision::Wait { expiry, .. } => now = expiry,
                Decision::NoExitedInstance => unreachable!(),
            }
        }
        assert_eq!(delays, vec![0, 10, 20, 40, 80, 160, 300, 300]);
    }

    /// A container that ran more than 10 minutes since its last restart is
    /// restarted at once and its backoff starts again at 10 s.
    #[test]
    fn ten_minutes_of_running_resets_the_backoff() {
        let mut b = Backoff::new(SimDuration::from_secs(10), SimDuration::from_secs(300));
        b.next("k", s(0), s(0));
        b.next("k", s(10), s(10)); // 20 s
        assert_eq!(b.get("k"), SimDuration::from_secs(20));
        let crash = s(10 + 601);
        assert!(!b.in_backoff_since("k", crash, crash));
        assert_eq!(do_backoff(&mut b, "k", Some(crash), crash), Decision::Start);
        assert_eq!(b.get("k"), SimDuration::from_secs(10));
    }

    #[test]
    fn the_configured_max_lowers_the_initial_delay() {
        let mut b = Backoff::new(SimDuration::from_secs(10), SimDuration::from_secs(5));
        b.next("k", s(0), s(0));
        assert_eq!(b.get("k"), SimDuration::from_secs(5));
        b.next("k", s(1), s(1));
        assert_eq!(b.get("k"), SimDuration::from_secs(5));
    }
}
