//! Predictions: many seeded runs of one scenario, each milestone's time
//! distribution, and which orderings always hold and which vary. Results do
//! not depend on how many threads ran them: run `i` always has seed
//! `first_seed + i`, and results are gathered in run order.

mod names;
mod ordering;
pub mod partial;
mod stats;
mod telling;

pub use ordering::{MAX_ORDERED, Ordering, Varies, analyse};
pub use stats::Stats;
pub use telling::in_telling_order;

use crate::milestones::extract;
use crate::run::simulate_state;
use crate::sim::Setup;
use crate::sweep::{Control, Swept, runs};
use crate::time::SimTime;
use names::{Indexed, Names};
use std::sync::Arc;

/// The runs a prediction holds at most: it keeps every run's milestones in
/// memory (about 3 KB a run for c28-bad-rollout's 63 milestones, 3 GB for this many).
pub const MAX_RUNS: u32 = 1_000_000;

/// Why a prediction refuses more runs than [`MAX_RUNS`].
pub fn too_many_runs() -> String {
    format!(
        "a prediction keeps every run's milestones in memory and holds at most {} runs (`podsim verify`, which \
         keeps none, takes any number)",
        crate::budget::thousands(u64::from(MAX_RUNS))
    )
}

/// What N runs predict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    pub runs: u32,
    pub first_seed: u64,
    /// Every milestone reached in some run, by name.
    pub names: Vec<Arc<str>>,
    pub stats: Vec<Stats>,
    pub ordering: Ordering,
}

/// One run: its seed and the milestones it reached.
pub type RunMilestones = (u64, Vec<(Arc<str>, SimTime)>);

/// Each run's milestones, as times by milestone index.
#[derive(Debug)]
pub struct Runs {
    /// Sorted, so nothing depends on which run saw a name first.
    pub names: Vec<Arc<str>>,
    pub seeds: Vec<u64>,
    pub times: Vec<Vec<Option<SimTime>>>,
}

/// Simulates runs `which` (run `i` has seed `first_seed + i`) on `jobs`
/// threads ([`crate::sweep::runs`]): their milestones, or the lowest run
/// past its event budget, or the runs done before a stop.
pub fn run_all(
    setup: &Setup,
    first_seed: u64,
    which: std::ops::Range<u32>,
    until: SimTime,
    jobs: usize,
    control: Control<'_>,
) -> Swept<Runs> {
    let names = Names::default();
    let one = |i: u32| {
        let seed = first_seed + i as u64;
        let trace = simulate_state(setup, seed, until);
        trace.finished()?;
        Ok((seed, names.index(extract(&trace).into_iter().map(|m| (m.name, m.at)))))
    };
    runs(which, jobs, control, one).map(|per_run| Runs::from_indexed(names.into_names(), per_run))
}

impl Runs {
    /// Gathers runs given as (seed, milestones), in the order given.
    pub fn from_runs(per_run: Vec<RunMilestones>) -> Runs {
        let names = Names::default();
        let per_run = per_run.into_iter().map(|(seed, run)| (seed, names.index(run))).collect();
        Runs::from_indexed(names.into_names(), per_run)
    }

    /// Gathers runs given as (seed, milestones by index into `names`).
    fn from_indexed(names: Vec<Arc<str>>, per_run: Vec<(u64, Indexed)>) -> Runs {
        // Sorted names, so the result does not depend on which run saw a name first.
        let mut order: Vec<u32> = (0..names.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| names[a as usize].cmp(&names[b as usize]));
        let mut position = vec![0; names.len()];
        for (sorted, &i) in order.iter().enumerate() {
            position[i as usize] = sorted;
        }
        let (seeds, times) = per_run
            .into_iter()
            .map(|(seed, run)| {
                let mut row = vec![None; names.len()];
                for (i, at) in run {
                    let slot = &mut row[position[i as usize]];
                    // A milestone is its first occurrence in the run.
                    if slot.is_none_or(|t: SimTime| at < t) {
                        *slot = Some(at);
                    }
                }
                (seed, row)
            })
            .unzip();
        let names = order.iter().map(|&i| names[i as usize].clone()).collect();
        Runs { names, seeds, times }
    }

    /// The runs with only the milestones `keep` (indexes into `names`, in
    /// order): what a prediction of those milestones alone is made of.
    pub fn only(&self, keep: &[usize]) -> Runs {
        Runs {
            names: keep.iter().map(|&m| self.names[m].clone()).collect(),
            seeds: self.seeds.clone(),
            times: self.times.iter().map(|row| keep.iter().map(|&m| row[m]).collect()).collect(),
        }
    }
}

/// Statistics and orderings of the runs.
pub fn predict(runs: &Runs, first_seed: u64) -> Prediction {
    let n = runs.names.len();
    let total = runs.times.len() as u32;
    // Every name comes from some run, so every milestone has statistics.
    let stats = (0..n).filter_map(|m| Stats::of(runs.times.iter().filter_map(|r| r[m]).collect(), total)).collect();
    Prediction { runs: total, first_seed, names: runs.names.clone(), stats, ordering: analyse(&runs.times, n) }
}
