//! Aggregated events as timings. The kubelet's recorder counts repeats of
//! one event on one Event object (client-go `events_cache.go`
//! `eventObserve`: `count + 1`, the first `firstTimestamp` kept, a new
//! `lastTimestamp`), and kubectl prints it as `26s (x3 over 75s)`: the last
//! and the first occurrence as ages at the same instant (`describe.go`
//! DescribeEvents, `events.go` printOneEvent). So a row says how long the
//! first N occurrences took, and what count the Event object had when the
//! listing was printed, `75s` after its `firstTimestamp`. An Event object
//! says the first. The spam filter (`EventSourceObjectSpamFilter`) drops
//! writes but not counts: a run is read the same way, write by write.

use super::{Fit, Line, Unit};
use crate::observe::{EventRow, Origin, Span};
use k8s_openapi::api::core::v1::Event;
use std::collections::BTreeMap;

/// One aggregated event as the recording shows it.
#[derive(Clone, Debug)]
pub struct EventCount {
    pub reason: String,
    pub message: String,
    /// The container it is about (`spec.containers{app}`), when the recording says.
    pub field_path: Option<String>,
    pub count: u32,
    /// The N-th occurrence − the first: real times between whole-second
    /// timestamps, so within a second either side of their difference.
    pub between: Span,
    /// The listing − `firstTimestamp`, when it was printed as ages.
    pub until_print: Option<Span>,
    pub origin: Origin,
    pub basis: String,
    /// Another row of the same listing has this reason: only a run's Event
    /// object with this very message answers it.
    pub by_message: bool,
}

/// A printed age as the interval it stands for.
fn show(s: Span) -> String {
    let secs = |ms: i64| format!("{}s", ms as f64 / 1000.0);
    format!("[{}, {})", secs(s.lo), secs(s.hi))
}

/// An age kubectl could not print (`<invalid>`, `<unknown>`) is read as any age.
fn known(s: Span) -> bool {
    s.hi - s.lo <= 366 * 86_400_000
}

/// A row of describe's Events or `kubectl [get] events` with `(xN over …)`.
pub fn from_row(row: &EventRow, origin: &Origin) -> Option<EventCount> {
    if row.count < 2 || !known(row.first_seen) || !known(row.last_seen) {
        return None;
    }
    // `over 75s` is now − firstTimestamp: the listing came [75 s, 76 s) after it.
    let until_print = row.first_seen;
    Some(EventCount {
        reason: row.reason.clone(),
        message: row.message.clone(),
        field_path: None,
        count: row.count,
        between: row.first_seen.difference(&row.last_seen),
        until_print: Some(until_print),
        origin: origin.clone(),
        by_message: false,
        basis: format!(
            "`x{} over` {} (the first), last seen {} before the same listing",
            row.count,
            show(row.first_seen),
            show(row.last_seen)
        ),
    })
}

/// An Event object counted more than once (`kubectl get events -o json`).
pub fn from_event(e: &Event, origin: &Origin) -> Option<EventCount> {
    let count = u32::try_from(e.count?).ok().filter(|c| *c >= 2)?;
    let first = Span::second(e.first_timestamp.as_ref()?.0.as_second());
    let last = Span::second(e.last_timestamp.as_ref()?.0.as_second());
    Some(EventCount {
        reason: e.reason.clone()?,
        message: e.message.clone().unwrap_or_default(),
        field_path: e.involved_object.field_path.clone(),
        count,
        between: last.difference(&first),
        until_print: None,
        origin: origin.clone(),
        by_message: false,
        basis: format!("count {count}: lastTimestamp − firstTimestamp (whole seconds)"),
    })
}

/// Every write of one Event object in a run: (ms since the epoch, count).
#[derive(Clone, Debug, Default)]
pub struct Versions {
    pub reason: String,
    pub message: String,
    pub field_path: Option<String>,
    /// Its `firstTimestamp` (ms since the epoch, a whole second).
    pub first: i64,
    pub writes: Vec<(i64, u32)>,
}

/// The run's Event object that answers a recorded one: the only one with
/// its reason (and container, when known), else the one with its message too.
fn answering<'a>(runs: &'a BTreeMap<String, Versions>, e: &EventCount) -> Option<&'a Versions> {
    let same: Vec<&Versions> = runs
        .values()
        .filter(|v| v.reason == e.reason && (e.field_path.is_none() || v.field_path == e.field_path))
        .collect();
    match same[..] {
        [one] if !e.by_message => Some(one),
        _ => {
            let exact: Vec<&&Versions> = same.iter().filter(|v| v.message.trim() == e.message.trim()).collect();
            (exact.len() == 1).then(|| *exact[0])
        }
    }
}

/// What the runs gave for one recorded event: the time from the first to
/// the N-th occurrence, and how many there were by the listing.
#[derive(Default)]
pub struct Tally {
    between: Option<(i64, i64)>,
    between_runs: u32,
    counted: Option<(i64, i64)>,
    counted_runs: u32,
}

impl Tally {
    /// One run, which lasted until `end` (ms since the epoch).
    pub fn add(&mut self, e: &EventCount, runs: &BTreeMap<String, Versions>, end: i64) {
        let Some(v) = answering(runs, e) else { return };
        // The first occurrence is in [firstTimestamp, + 1 s): the N-th came (at − first − 1 s, at − first] after it.
        if let Some(&(at, _)) = v.writes.iter().find(|(_, c)| *c == e.count) {
            let (lo, hi) = (at - v.first - 1000, at - v.first + 1);
            self.between = Some(self.between.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
            self.between_runs += 1;
        }
        // The count the listing would print: that of the last write by then.
        if let Some(w) = e.until_print.filter(|w| v.first + w.hi <= end) {
            let count_at = |t: i64| v.writes.iter().take_while(|(at, _)| *at <= t).last().map_or(0, |(_, c)| *c);
            let (lo, hi) = (i64::from(count_at(v.first + w.lo)), i64::from(count_at(v.first + w.hi)));
            self.counted = Some(self.counted.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
            self.counted_runs += 1;
        }
    }

    /// The lines of one recorded event.
    pub fn lines(self, e: &EventCount, of: u32) -> Vec<Line> {
        let at = Some(e.origin.to_string());
        // `spec.containers{app}` → `app`.
        let container = e.field_path.as_deref().and_then(|f| f.split_once('{')).map(|(_, c)| c.trim_end_matches('}'));
        let event = container.map_or(format!("`{}`", e.reason), |c| format!("`{}` of {c}", e.reason));
        let mut out = vec![Line {
            timing: format!("{event} #{} (after #1)", e.count),
            unit: Unit::Ms,
            recorded: (e.between.lo.max(0), e.between.hi.max(1)),
            at: at.clone(),
            reading: e.basis.clone(),
            simulated: self.between,
            open_end: false,
            runs: self.between_runs,
            of,
            fit: super::measure::fit_moment(e.between, self.between),
        }];
        if let Some(w) = e.until_print {
            let n = i64::from(e.count);
            let fit = match self.counted {
                None => Fit::NotSimulated,
                Some((lo, _)) if n < lo => Fit::Fewer { by: lo - n },
                Some((_, hi)) if n > hi => Fit::More { by: n - hi },
                Some(_) => Fit::Inside,
            };
            out.push(Line {
                timing: format!("{event} count {} after the first", show(w)),
                unit: Unit::Events,
                recorded: (n, n),
                at,
                reading: format!(
                    "{}: the count printed; a run's is that of its Event object's last write by then",
                    e.basis
                ),
                simulated: self.counted,
                open_end: false,
                runs: self.counted_runs,
                of,
                fit,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::human_duration;

    fn row(count: u32, last: &str, first: &str) -> EventRow {
        EventRow {
            warning: true,
            reason: "BackOff".into(),
            last_seen: human_duration(last).unwrap(),
            count,
            first_seen: human_duration(first).unwrap(),
            from: "kubelet".into(),
            message: "Back-off restarting failed container app".into(),
        }
    }

    fn origin() -> Origin {
        Origin { file: "e.txt".into(), line: 4 }
    }

    /// Trace 023's `26s (x3 over 75s)`: firstTimestamp is [75 s, 76 s)
    /// before the listing, lastTimestamp [26 s, 27 s), both whole seconds:
    /// 49 s apart, so the occurrences are (48 s, 50 s) apart.
    #[test]
    fn a_row_gives_its_window_and_its_count() {
        let e = from_row(&row(3, "26s", "75s"), &origin()).unwrap();
        assert_eq!(e.between, Span { lo: 48_000, hi: 50_000 });
        assert_eq!(e.until_print, Some(Span { lo: 75_000, hi: 76_000 }));
        assert!(from_row(&row(1, "26s", "26s"), &origin()).is_none(), "one occurrence: no window");
    }

    /// A run with BackOff written at 10 s, 26 s, 58 s (1.37) against one
    /// written at 10, 30, 45, 61, 76 s (1.34), each with firstTimestamp
    /// 10 s: the listing, [75 s, 76 s) after it, prints 3 in the first, 5 in
    /// the second. A run whose spam filter dropped writes 2 to 6 (one write,
    /// count 7 at 80 s) has no version counting 3, and prints 7.
    #[test]
    fn the_count_by_the_listing_is_that_of_the_last_write() {
        let e = from_row(&row(3, "26s", "75s"), &origin()).unwrap();
        let run = |writes: &[(i64, u32)]| {
            let writes = writes.iter().map(|(t, c)| (t * 1000, *c)).collect();
            let v = Versions { reason: "BackOff".into(), message: "x".into(), field_path: None, first: 10_000, writes };
            BTreeMap::from([("a".to_string(), v)])
        };
        let mut t137 = Tally::default();
        t137.add(&e, &run(&[(10, 1), (26, 2), (58, 3)]), 90_000);
        // #3 at 58 s, the first in [10 s, 11 s): 47 to 48 s after it.
        assert_eq!((t137.between, t137.counted), (Some((47_000, 48_001)), Some((3, 3))));
        let lines = t137.lines(&e, 1);
        assert_eq!((lines[0].fit.clone(), lines[1].fit.clone()), (Fit::Inside, Fit::Inside));
        let mut t134 = Tally::default();
        t134.add(&e, &run(&[(10, 1), (30, 2), (45, 3), (61, 4), (76, 5)]), 90_000);
        let lines = t134.lines(&e, 1);
        // #3 came at most 35 s after #1: the recording's (48 s, 50 s) is later.
        assert_eq!(lines[0].fit, Fit::Late { by_ms: 12_999 });
        assert_eq!(lines[1].fit, Fit::Fewer { by: 2 });
        // A run that ends before the listing's time says nothing about the count.
        let mut short = Tally::default();
        short.add(&e, &run(&[(10, 1), (26, 2), (58, 3)]), 60_000);
        assert_eq!((short.counted, short.counted_runs), (None, 0));
        let mut filtered = Tally::default();
        filtered.add(&e, &run(&[(10, 1), (80, 7)]), 90_000);
        assert_eq!((filtered.between_runs, filtered.counted), (0, Some((7, 7))));
    }
}
