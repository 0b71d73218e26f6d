//! When kube-proxy syncs: `BoundedFrequencyRunner` (pkg/proxy/runner, 1.34+).
//! A change requests a run; runs never overlap; the next run starts no
//! sooner than `minSyncPeriod` after the previous one *finished*; requests
//! during a run or its cool-down merge into one run; with no request at all
//! a run still happens an hour after the last one (`FullSyncPeriod`).

use crate::time::{SimDuration, SimTime};

/// The hourly run when nothing asks for one (`maxInterval`).
pub const MAX_INTERVAL: SimDuration = SimDuration::from_secs(3600);

#[derive(Debug, Default)]
pub struct Runner {
    running: bool,
    /// A run was asked for while one was running or cooling down.
    pending: bool,
    /// The start already scheduled, if any.
    scheduled: Option<SimTime>,
    cooldown_until: SimTime,
    /// Counts finished runs, so a stale hourly timer is recognised.
    pub generation: u64,
}

/// What the caller must do.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next {
    Nothing,
    StartNow,
    /// Wake the runner at this time (then call `due`).
    WakeAt(SimTime),
}

impl Runner {
    /// `Run()`: a change wants the rules synced.
    pub fn request(&mut self, now: SimTime) -> Next {
        if self.running || self.scheduled.is_some() {
            self.pending |= self.running;
            return Next::Nothing;
        }
        if now >= self.cooldown_until {
            self.running = true;
            Next::StartNow
        } else {
            self.scheduled = Some(self.cooldown_until);
            Next::WakeAt(self.cooldown_until)
        }
    }

    /// A scheduled start is due.
    pub fn due(&mut self, now: SimTime) -> bool {
        if self.scheduled.is_some_and(|t| t <= now) && !self.running {
            self.scheduled = None;
            self.running = true;
            return true;
        }
        false
    }

    /// The run finished at `now`: a pending request starts after the cool-down.
    pub fn finished(&mut self, now: SimTime, min_interval: SimDuration) -> Next {
        self.running = false;
        self.generation += 1;
        self.cooldown_until = now + min_interval;
        if std::mem::take(&mut self.pending) {
            self.scheduled = Some(self.cooldown_until);
            return Next::WakeAt(self.cooldown_until);
        }
        Next::Nothing
    }

    /// The hourly timer of run `generation` fired.
    pub fn hourly(&mut self, generation: u64, now: SimTime) -> Next {
        if generation != self.generation {
            return Next::Nothing;
        }
        self.request(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::from_millis(ms)
    }
    const MIN: SimDuration = SimDuration::from_secs(1);

    #[test]
    fn the_cool_down_counts_from_the_end_of_the_previous_run() {
        let mut r = Runner::default();
        assert_eq!(r.request(t(0)), Next::StartNow);
        assert_eq!(r.request(t(10)), Next::Nothing); // during the run
        assert_eq!(r.request(t(20)), Next::Nothing); // merged
        assert_eq!(r.finished(t(40), MIN), Next::WakeAt(t(1040)));
        assert!(r.due(t(1040)));
        assert_eq!(r.finished(t(1070), MIN), Next::Nothing);
        // A change long after starts at once; one during the cool-down waits.
        assert_eq!(r.request(t(1500)), Next::WakeAt(t(2070)));
        assert_eq!(r.request(t(1600)), Next::Nothing);
        assert!(r.due(t(2070)));
        assert_eq!(r.finished(t(2100), MIN), Next::Nothing);
        assert_eq!(r.request(t(5000)), Next::StartNow);
    }

    #[test]
    fn a_stale_hourly_timer_does_nothing() {
        let mut r = Runner::default();
        assert_eq!(r.request(t(0)), Next::StartNow);
        r.finished(t(30), MIN);
        let g = r.generation;
        assert_eq!(r.request(t(2000)), Next::StartNow);
        r.finished(t(2030), MIN);
        assert_eq!(r.hourly(g, t(3_600_030)), Next::Nothing);
        assert_eq!(r.hourly(r.generation, t(3_602_030)), Next::StartNow);
    }
}
