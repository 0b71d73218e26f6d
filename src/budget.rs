//! A run's budget: the bounds on its time and memory that a user can see
//! and raise. A run handles at most so many events and creates at most so
//! many pods (each pod makes every controller's pass over the pods longer);
//! one that would go past either stops there, its trace saying where, and
//! every command that simulates reports it instead of printing a
//! prediction of a run that did not finish.

use crate::error::Problem;
use crate::time::{SimDuration, SimTime};

/// Events one run may handle unless `--max-events` or `maxEvents:` says
/// otherwise: five times the largest benchmark (a 1,000-replica rollout
/// on 100 nodes handles 2.1 million); that run, continued to the budget,
/// takes 11 s and 700 MB.
pub const DEFAULT_MAX_EVENTS: u64 = 10_000_000;

/// Pods one run may create unless `--max-pods` or `maxPods:` says
/// otherwise: ten times the largest benchmark's 1,000 replicas (a run of
/// 3,000 takes half a minute: the controllers' passes over the pods grow
/// with their number).
pub const DEFAULT_MAX_PODS: u64 = 10_000;

/// Which budget a run used up.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `--max-events`: the events it may handle.
    Events(u64),
    /// `--max-pods`: the pods it may create.
    Pods(u64),
}

/// Where a run stopped because it had used up a budget.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Exhausted {
    /// The seed of the run that stopped.
    pub seed: u64,
    pub limit: Limit,
    /// The simulated time of the first event past the budget (or of the
    /// pod past it): the trace is complete up to this instant.
    pub at: SimTime,
}

impl Exhausted {
    /// The problem a command reports: the limit, where it was hit, and how
    /// to raise it or ask for less. `until` is the end the run was asked for.
    pub fn problem(&self, until: SimDuration) -> Problem {
        let (what, n, flag, key, less) = match self.limit {
            Limit::Events(n) => ("events", n, "--max-events", "maxEvents", "simulate less with --until"),
            Limit::Pods(n) => ("pods", n, "--max-pods", "maxPods", "ask for fewer pods"),
        };
        Problem::error(format!(
            "the run of seed {} reached its budget of {} {what} at simulated time {} of the {until} asked for, and \
             stopped there; raise the budget with {flag} N (or `{key}: N` in the scenario), or {less}",
            self.seed,
            thousands(n),
            self.at.since(SimTime::ZERO),
        ))
        .field(flag)
    }
}

/// `12345678` as `12,345,678`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(10_000_000), "10,000,000");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    /// A run with a budget of exactly the events it handles ends as it
    /// would; one event fewer stops it at the last event's instant, its
    /// trace the full trace up to there.
    #[test]
    fn a_run_stops_at_the_event_past_its_budget() {
        use crate::run::{Inputs, prepare};
        use crate::sim::World;
        let inputs = Inputs { scenario: Some("models/scenarios/probe-actions.yaml".into()), ..Default::default() };
        let mut p = prepare(&inputs).unwrap();
        let until = SimTime::ZERO + p.until;
        let (full, handled) = World::new(&p.setup, p.seed).run_counting(until);
        assert_eq!(full.exhausted, None);
        p.setup.max_events = handled;
        let (exact, n) = World::new(&p.setup, p.seed).run_counting(until);
        assert_eq!((exact.exhausted, n, exact.entries.len()), (None, handled, full.entries.len()));
        p.setup.max_events = handled / 2;
        let (cut, n) = World::new(&p.setup, p.seed).run_counting(until);
        let e = cut.exhausted.expect("stopped at its budget");
        assert_eq!((e.seed, e.limit, n), (p.seed, Limit::Events(handled / 2), handled / 2));
        assert!(e.at > SimTime::ZERO && e.at < until, "{e:?}");
        assert!(cut.entries.len() < full.entries.len());
        for (a, b) in cut.entries.iter().zip(&full.entries) {
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
        assert!(cut.entries.last().is_some_and(|last| last.t <= e.at));
    }

    #[test]
    fn the_message_names_the_limit_the_time_and_the_flag() {
        let e = Exhausted { seed: 3, limit: Limit::Events(1000), at: SimTime::from_millis(62_500) };
        let p = e.problem(SimDuration::from_secs(3600));
        assert_eq!(p.field.as_deref(), Some("--max-events"));
        assert!(
            p.message
                .contains("seed 3 reached its budget of 1,000 events at simulated time 1m2.5s of the 1h0m0s asked for")
        );
    }
}
