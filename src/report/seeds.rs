//! Which seeds were slowest and fastest: ranked by the time of the run's
//! last key step (a pod Ready, a rollout complete, …: the steps the pictures
//! show) — the latest, by median, that every run reaches and whose time
//! varies between runs, so neither a fixed-time action nor the end of the
//! traffic ranks them. Without such a key step, any milestone will do.

use crate::plot::key;
use crate::predict::Runs;
use crate::time::SimTime;
use std::sync::Arc;

/// The milestone that ranks the runs, and the seeds at either end with its time.
#[derive(Debug, PartialEq, Eq)]
pub struct Ranking {
    pub milestone: Arc<str>,
    pub slowest: Vec<(u64, SimTime)>,
    pub fastest: Vec<(u64, SimTime)>,
}

/// The `k` slowest and `k` fastest runs (ties by seed), or `None` when no
/// milestone is reached in every run with a time that varies.
pub fn rank(runs: &Runs, k: usize) -> Option<Ranking> {
    let keyed: Vec<usize> = (0..runs.names.len()).filter(|m| key::rank(&runs.names[*m]).is_some()).collect();
    latest(runs, &keyed).or_else(|| latest(runs, &(0..runs.names.len()).collect::<Vec<_>>())).map(|m| ends(runs, m, k))
}

/// Among `candidates`, the milestone every run reaches, varying, latest by median.
fn latest(runs: &Runs, candidates: &[usize]) -> Option<usize> {
    let n = runs.times.len();
    let everywhere = candidates.iter().filter_map(|&m| {
        let times: Option<Vec<SimTime>> = runs.times.iter().map(|r| r[m]).collect();
        let mut times = times?;
        times.sort();
        (times.first() != times.last()).then(|| (times[n / 2], m))
    });
    everywhere.max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1))).map(|(_, m)| m)
}

fn ends(runs: &Runs, m: usize, k: usize) -> Ranking {
    let mut by_time: Vec<(u64, SimTime)> =
        runs.seeds.iter().zip(&runs.times).filter_map(|(s, r)| Some((*s, r[m]?))).collect();
    by_time.sort_by_key(|(seed, t)| (*t, *seed));
    let fastest = by_time.iter().take(k).copied().collect();
    by_time.sort_by_key(|(seed, t)| (std::cmp::Reverse(*t), *seed));
    let slowest = by_time.iter().take(k).copied().collect();
    Ranking { milestone: runs.names[m].clone(), slowest, fastest }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: u64) -> Option<SimTime> {
        Some(SimTime::ZERO + crate::time::SimDuration::from_secs(s))
    }

    #[test]
    fn ranks_by_the_latest_varying_key_step_every_run_reaches() {
        // The deletion is at 60 s in every run, the traffic's last answer is
        // not a key step, and "pod/b:ready" is missed by one run.
        let runs = Runs {
            names: vec!["pod/a:deleted".into(), "pod/a:ready".into(), "pod/b:ready".into()],
            seeds: vec![1, 2, 3, 4],
            times: vec![
                vec![t(60), t(12), t(90)],
                vec![t(60), t(9), None],
                vec![t(60), t(15), t(95)],
                vec![t(60), t(9), t(99)],
            ],
        };
        let r = rank(&runs, 2).expect("a ranking");
        assert_eq!(&*r.milestone, "pod/a:ready");
        assert_eq!(r.slowest, vec![(3, t(15).unwrap()), (1, t(12).unwrap())]);
        assert_eq!(r.fastest, vec![(2, t(9).unwrap()), (4, t(9).unwrap())]);
    }

    #[test]
    fn no_ranking_when_nothing_varies() {
        let runs = Runs { names: vec!["pod/a:ready".into()], seeds: vec![1, 2], times: vec![vec![t(5)], vec![t(5)]] };
        assert_eq!(rank(&runs, 3), None);
    }

    #[test]
    fn any_milestone_ranks_when_no_key_step_varies() {
        let runs =
            Runs { names: vec!["client/c:last_ok".into()], seeds: vec![1, 2], times: vec![vec![t(5)], vec![t(4)]] };
        assert_eq!(rank(&runs, 1).map(|r| r.slowest), Some(vec![(1, t(5).unwrap())]));
    }
}
