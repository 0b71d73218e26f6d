//! `mostRecentScheduleTime` (pkg/controller/cronjob/utils.go): the latest
//! tick of a schedule between the earliest time that counts and now, and
//! how many ticks were missed.

use crate::spec::cron::Schedule;

/// What the schedule says at `now`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScheduleTime {
    /// No tick since the earliest time.
    NotYet,
    /// `at` is the most recent tick; `missed` ticks since the earliest time.
    Due { at: i64, missed: i64 },
}

/// `mostRecentScheduleTime` in Unix seconds: from the two first ticks after
/// `earliest`, the number missed (`(now − t1) / gap + 1`), then a walk from
/// the estimate to the last tick not after `now`.
pub fn most_recent(schedule: &Schedule, earliest: i64, now: i64) -> ScheduleTime {
    let Some(t1) = schedule.next(earliest).filter(|t| *t <= now) else { return ScheduleTime::NotYet };
    let Some(t2) = schedule.next(t1).filter(|t| *t <= now) else { return ScheduleTime::Due { at: t1, missed: 1 } };
    let gap = (t2 - t1).max(1);
    let missed = (now - t1) / gap + 1;
    let mut at = t1 + (missed - 2) * gap;
    while let Some(t) = schedule.next(at).filter(|t| *t <= now) {
        at = t;
    }
    ScheduleTime::Due { at, missed }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_767_225_600;

    #[test]
    fn the_most_recent_tick_and_the_ticks_missed() {
        let every_minute = Schedule::parse("* * * * *").unwrap();
        assert_eq!(most_recent(&every_minute, T0, T0 + 59), ScheduleTime::NotYet);
        assert_eq!(most_recent(&every_minute, T0, T0 + 60), ScheduleTime::Due { at: T0 + 60, missed: 1 });
        assert_eq!(most_recent(&every_minute, T0, T0 + 185), ScheduleTime::Due { at: T0 + 180, missed: 3 });
        let hourly = Schedule::parse("0 * * * *").unwrap();
        assert_eq!(most_recent(&hourly, T0, T0 + 101 * 3600), ScheduleTime::Due { at: T0 + 101 * 3600, missed: 101 });
    }
}
