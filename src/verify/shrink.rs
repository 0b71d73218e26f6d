//! Shrinking a counterexample: the smallest set of timing draws that still
//! breaks the property when every other draw takes its nominal value.
//!
//! Delta debugging (Zeller's ddmin) over the draws of the failing run whose
//! value was not already nominal: try halves, then complements, then finer
//! splits, until no single draw can be pinned without the property holding.
//! A draw kept random replays the value it had in the failing run, found by
//! its key (`rng::draws`), so each trial asks one question: do these draws,
//! at these values, break it?

use super::eval::{Instant, RunResult, check};
use super::language::Property;
use super::view::RunView;
use crate::rng::draws::{Draw, Policy, with_policy};
use crate::run::simulate;
use crate::sim::Setup;
use crate::time::SimTime;
use crate::trace::Trace;
use std::collections::{BTreeMap, BTreeSet};

/// Runs spent on shrinking one counterexample, at most.
pub const BUDGET: u32 = 400;

/// A shrunk counterexample.
#[derive(Debug)]
pub struct Shrunk {
    /// The draws left random, with the values they took; every other is nominal.
    pub random: Vec<Draw>,
    /// How many draws of the failing run were not nominal to begin with.
    pub candidates: usize,
    /// Where the shrunk run breaks the property, and its trace.
    pub instant: Instant,
    pub trace: Trace,
    pub runs: u32,
    /// No single remaining draw can be pinned (false: the budget ran out first).
    pub minimal: bool,
}

/// One run of `seed` with only `random` draws left random.
struct Trial<'a> {
    setup: &'a Setup,
    seed: u64,
    until: SimTime,
    property: &'a Property,
    runs: u32,
}

impl Trial<'_> {
    fn run(&mut self, policy: std::sync::Arc<Policy>) -> (Option<Instant>, Trace) {
        self.runs += 1;
        let trace = with_policy(policy, || simulate(self.setup, self.seed, self.until));
        // A trial past its event budget did not reach the end: it shows nothing.
        if trace.exhausted.is_some() {
            return (None, trace);
        }
        let result = check(self.property, &RunView::new(&trace, self.until));
        match result {
            RunResult::Broken(i) => (Some(i), trace),
            RunResult::Held { .. } => (None, trace),
        }
    }

    fn breaks(&mut self, random: &[Draw]) -> bool {
        self.runs < BUDGET && self.run(keeping(random)).0.is_some()
    }
}

/// The policy that keeps `random` at their values and pins every other draw.
fn keeping(random: &[Draw]) -> std::sync::Arc<Policy> {
    Policy::keep(random.iter().map(|d| (d.key.clone(), d.value.clone())).collect::<BTreeMap<_, _>>())
}

/// Shrinks the counterexample of `property` at `seed`.
pub fn shrink(setup: &Setup, seed: u64, until: SimTime, property: &Property) -> Option<Shrunk> {
    let mut trial = Trial { setup, seed, until, property, runs: 0 };
    let recorder = Policy::record();
    trial.run(recorder.clone()).0?;
    let candidates: Vec<Draw> = recorder.draws().into_iter().filter(|d| !d.value.is_nominal()).collect();
    let count = candidates.len();
    let kept = ddmin(candidates, &mut |draws| trial.breaks(draws));
    let minimal = trial.runs < BUDGET;
    let policy = keeping(&kept);
    let (instant, trace) = trial.run(policy.clone());
    let kept: BTreeSet<_> = kept.into_iter().map(|d| d.key).collect();
    let random = policy.draws().into_iter().filter(|d| kept.contains(&d.key)).collect();
    Some(Shrunk { random, candidates: count, instant: instant?, trace, runs: trial.runs, minimal })
}

/// ddmin: a subset of `items` for which `fails` still holds, and from which
/// no single item can be removed (as long as `fails` answers truthfully).
fn ddmin<T: Clone>(mut items: Vec<T>, fails: &mut impl FnMut(&[T]) -> bool) -> Vec<T> {
    if fails(&[]) {
        return Vec::new();
    }
    let mut n = 2;
    while items.len() >= 2 {
        let size = items.len().div_ceil(n);
        let chunks: Vec<Vec<T>> = items.chunks(size).map(<[T]>::to_vec).collect();
        if let Some(c) = chunks.iter().find(|c| fails(c)) {
            items = c.clone();
            n = 2;
            continue;
        }
        let complement = |i: usize| -> Vec<T> {
            chunks.iter().enumerate().filter(|(j, _)| *j != i).flat_map(|(_, c)| c.iter().cloned()).collect()
        };
        if chunks.len() > 2
            && let Some(c) = (0..chunks.len()).map(complement).find(|c| fails(c))
        {
            items = c;
            n = (n - 1).max(2);
            continue;
        }
        if n >= items.len() {
            break;
        }
        n = (2 * n).min(items.len());
    }
    items
}

#[cfg(test)]
mod tests {
    use super::ddmin;

    #[test]
    fn ddmin_finds_the_two_draws_that_matter() {
        let items: Vec<u32> = (0..40).collect();
        let mut tries = 0;
        let kept = ddmin(items, &mut |s: &[u32]| {
            tries += 1;
            s.contains(&7) && s.contains(&31)
        });
        assert_eq!(kept, vec![7, 31]);
        assert!(tries < 60, "{tries} tries");
    }

    #[test]
    fn nothing_kept_when_it_fails_with_every_draw_nominal() {
        assert!(ddmin(vec![1, 2, 3], &mut |_: &[i32]| true).is_empty());
    }
}
