//! Property-tested configurations: `podsim verify` runs seeded timelines of
//! a scenario and checks properties over milestones and trace state in each
//! ([`language`] defines them). A property that breaks gets its first
//! counterexample (lowest seed) and a shrunk timeline ([`shrink`]).
//!
//! Runs go in blocks of seeds on many threads, and the result is the same
//! whatever the threads: each block is gathered in seed order, and the run
//! stops after the first block that decides every property.

pub mod eval;
pub mod functions;
pub mod language;
pub mod shrink;
pub mod view;
pub mod words;

use crate::run::simulate_state;
use crate::sim::Setup;
use crate::sweep::{Control, Swept};
use crate::time::SimTime;
use eval::{Instant, RunResult, check};
use language::{Kind, Property};
use shrink::Shrunk;
use std::collections::BTreeSet;
use view::RunView;

/// Seeds simulated between two looks at the verdicts.
const BLOCK: u32 = 64;

/// What N runs say about one property.
#[derive(Debug)]
pub enum Outcome {
    /// always/never/eventually held in every run; sometimes was seen
    /// (first in `witness`'s run).
    Holds { runs: u32, witness: Option<(u64, Instant)> },
    /// The first run that broke it.
    Counterexample { seed: u64, run: u32, instant: Instant, shrunk: Option<Shrunk> },
    /// sometimes: no run showed it.
    NotSeen { runs: u32 },
}

impl Outcome {
    pub fn holds(&self) -> bool {
        matches!(self, Outcome::Holds { .. })
    }
}

/// Where a property stands while runs go on.
enum State {
    Open,
    Witness(u64, Instant),
    Broken(u64, u32, Instant),
}

/// Why properties could not be judged.
#[derive(Debug, PartialEq)]
pub enum Unjudged {
    /// A property names an object no run has.
    Unknown(UnknownSubject),
    /// A run reached its event budget.
    Exhausted(crate::budget::Exhausted),
}

/// Checks every property over runs `first_seed`, `first_seed + 1`, … (at most
/// `runs`), on `jobs` threads, then shrinks each counterexample; with
/// whether the sweep was stopped (its outcomes are then over the runs done,
/// unshrunk).
pub fn verify(
    setup: &Setup,
    properties: &[Property],
    first_seed: u64,
    runs: u32,
    until: SimTime,
    jobs: usize,
    control: Control<'_>,
) -> Result<(Vec<Outcome>, Option<u32>), Unjudged> {
    let named: BTreeSet<&str> = properties
        .iter()
        .flat_map(|p| p.cond.leaves())
        .filter_map(|t| t.subject())
        .filter(|s| !s.contains('*'))
        .collect();
    let mut states: Vec<State> = properties.iter().map(|_| State::Open).collect();
    let decided =
        |s: &State, p: &Property| matches!((s, p.kind), (State::Broken(..), _) | (State::Witness(..), Kind::Sometimes));
    let mut done = 0;
    let mut stopped = false;
    while !stopped && done < runs && !states.iter().zip(properties).all(|(s, p)| decided(s, p)) {
        let block = done..(done + BLOCK).min(runs);
        let one = |i: u32| {
            let seed = first_seed + i as u64;
            let trace = simulate_state(setup, seed, until);
            trace.finished()?;
            let view = RunView::new(&trace, until);
            let unknown: BTreeSet<&str> = named.iter().copied().filter(|s| !view.knows(s)).collect();
            let alike = unknown.first().map(|s| view.alike(s)).unwrap_or_default();
            Ok((properties.iter().map(|p| check(p, &view)).collect::<Vec<_>>(), unknown, alike))
        };
        let results: Vec<(Vec<RunResult>, BTreeSet<&str>, BTreeSet<String>)> =
            match crate::sweep::runs(block.clone(), jobs, control, one) {
                Swept::All(r) => r,
                Swept::Stopped(r) => {
                    stopped = true;
                    r
                }
                Swept::Exhausted(e) => return Err(Unjudged::Exhausted(e)),
            };
        // A subject no run of the first block has is a typo, not a property
        // that holds vacuously.
        if done == 0
            && let Some((_, unknown, alike)) = results.iter().min_by_key(|(_, unknown, _)| unknown.len())
            && let Some(subject) = unknown.first()
        {
            return Err(Unjudged::Unknown(UnknownSubject {
                subject: subject.to_string(),
                runs: results.len() as u32,
                alike: alike.clone(),
            }));
        }
        let finished = results.len() as u32;
        for (i, (run, ..)) in block.zip(results) {
            for ((state, p), result) in states.iter_mut().zip(properties).zip(run) {
                let seed = first_seed + i as u64;
                *state = match (std::mem::replace(state, State::Open), result, p.kind) {
                    (s @ State::Broken(..), ..) => s,
                    (State::Open, RunResult::Held { seen: Some(w) }, Kind::Sometimes) => State::Witness(seed, w),
                    (s, RunResult::Held { .. } | RunResult::Broken(_), Kind::Sometimes) => s,
                    (_, RunResult::Broken(at), _) => State::Broken(seed, i + 1, at),
                    (State::Open, RunResult::Held { seen: Some(w) }, _) => State::Witness(seed, w),
                    (s, RunResult::Held { .. }, _) => s,
                };
            }
        }
        done += finished;
    }
    let outcomes = states
        .into_iter()
        .zip(properties)
        .map(|(state, p)| match (state, p.kind) {
            (State::Broken(seed, run, instant), _) => {
                // A stopped sweep is not kept waiting by shrinking.
                let shrunk = (!stopped).then(|| shrink::shrink(setup, seed, until, p)).flatten();
                Outcome::Counterexample { seed, run, instant, shrunk }
            }
            (State::Open, Kind::Sometimes) => Outcome::NotSeen { runs: done },
            (State::Witness(seed, w), _) => Outcome::Holds { runs: done, witness: Some((seed, w)) },
            (State::Open, _) => Outcome::Holds { runs: done, witness: None },
        })
        .collect();
    Ok((outcomes, stopped.then_some(done)))
}

/// A property names an object that none of the first runs has.
#[derive(Debug, PartialEq)]
pub struct UnknownSubject {
    pub subject: String,
    pub runs: u32,
    /// The run's objects of the same kind.
    pub alike: BTreeSet<String>,
}

impl std::fmt::Display for UnknownSubject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: no such object in any of the first {} runs", self.subject, self.runs)?;
        match self.alike.is_empty() {
            true => write!(f, " (nor any of its kind)"),
            false => write!(f, " (they have: {})", self.alike.iter().cloned().collect::<Vec<_>>().join(", ")),
        }
    }
}

/// Properties from a file: one per line; blank lines and `#` comments skipped.
/// Errors name the line and column.
pub fn parse_file(text: &str) -> Result<Vec<Property>, (usize, language::ParseError)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| language::parse(l).map_err(|e| (i + 1, e)))
        .collect()
}
