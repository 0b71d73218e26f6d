//! Many seeded runs on a pool of threads, the one way every sweep (predict,
//! verify, plot, report, check --against) runs them: results in run order
//! whatever the threads did, a run past its event budget reported as the
//! lowest such run, and a stop (Ctrl-C, SIGTERM) that keeps the runs done.

use crate::budget::Exhausted;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// `A–B`, the seeds of `runs` runs from `first` (one seed for none, as a
/// header of zero runs still names where the sweep starts); `check_seeds`
/// in the CLI keeps `B` within 64 bits.
pub fn seed_range(first: u64, runs: u64) -> String {
    format!("{first}–{}", first.saturating_add(runs.max(1) - 1))
}

/// What a caller hands a sweep besides its inputs.
#[derive(Clone, Copy)]
pub struct Control<'a> {
    /// Called once per finished run.
    pub progress: &'a (dyn Fn() + Sync),
    /// Once set, runs not yet started are skipped.
    pub stop: &'a AtomicBool,
}

/// A sweep that nothing watches or stops (tests, benches).
pub static NEVER: AtomicBool = AtomicBool::new(false);

impl Control<'static> {
    pub fn quiet() -> Control<'static> {
        Control { progress: &|| {}, stop: &NEVER }
    }
}

/// How a sweep ended, with its runs' results `R`.
#[derive(Debug, PartialEq)]
pub enum Swept<R> {
    /// Every run's, in order.
    All(R),
    /// The lowest run that reached its event budget (the same run whatever
    /// the threads: every run below it ran).
    Exhausted(Exhausted),
    /// Stopped: the results of the runs done in order before the first one skipped.
    Stopped(R),
}

impl<R> Swept<R> {
    /// The same end, the results made into `S`.
    pub fn map<S>(self, f: impl FnOnce(R) -> S) -> Swept<S> {
        match self {
            Swept::All(r) => Swept::All(f(r)),
            Swept::Stopped(r) => Swept::Stopped(f(r)),
            Swept::Exhausted(e) => Swept::Exhausted(e),
        }
    }
}

/// Runs `one(i)` for every `i` of `which` on `jobs` threads.
pub fn runs<T: Send>(
    which: Range<u32>,
    jobs: usize,
    control: Control<'_>,
    one: impl Fn(u32) -> Result<T, Exhausted> + Sync,
) -> Swept<Vec<T>> {
    // Runs above an exhausted one are skipped; runs below it all run, so the
    // lowest exhausted run is found whatever the order of the threads.
    let lowest_exhausted = AtomicU32::new(u32::MAX);
    let each = |i: u32| {
        if control.stop.load(Ordering::Relaxed) || i > lowest_exhausted.load(Ordering::Relaxed) {
            return None;
        }
        let result = one(i);
        match &result {
            Ok(_) => (control.progress)(),
            Err(_) => _ = lowest_exhausted.fetch_min(i, Ordering::Relaxed),
        }
        Some(result)
    };
    // Each thread takes the next run in seed order, so a stop leaves few
    // holes: the runs done before the first skipped one are nearly all done.
    let next = AtomicU64::new(u64::from(which.start));
    let worker = || {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(i) = u32::try_from(i).ok().filter(|i| *i < which.end) else { return mine };
            mine.push((i, each(i)));
        }
    };
    let gathered = std::sync::Mutex::new(Vec::with_capacity(which.len()));
    let gather = |mine: Vec<_>| gathered.lock().unwrap_or_else(|e| e.into_inner()).extend(mine);
    match rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build() {
        Ok(pool) => pool.scope(|s| {
            for _ in 0..jobs.max(1) {
                s.spawn(|_| gather(worker()));
            }
        }),
        Err(_) => gather(worker()),
    }
    let mut results = gathered.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_unstable_by_key(|(i, _)| *i);
    let results = results.into_iter().map(|(_, r)| r);
    let mut done = Vec::with_capacity(which.len());
    let mut complete = true;
    for r in results {
        match r {
            Some(Err(e)) => return Swept::Exhausted(e),
            Some(Ok(t)) if complete => done.push(t),
            Some(Ok(_)) => {}
            None => complete = false,
        }
    }
    if complete { Swept::All(done) } else { Swept::Stopped(done) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn exhausted(seed: u64) -> Exhausted {
        Exhausted { seed, limit: crate::budget::Limit::Events(10), at: SimTime::ZERO }
    }

    #[test]
    fn results_come_in_run_order_on_any_number_of_threads() {
        for jobs in [1, 2, 7] {
            assert_eq!(runs(0..50, jobs, Control::quiet(), Ok), Swept::All((0..50).collect()));
        }
    }

    #[test]
    fn the_lowest_exhausted_run_is_reported_whatever_the_threads() {
        for jobs in [1, 3, 8] {
            let one = |i: u32| if i % 7 == 5 { Err(exhausted(i as u64)) } else { Ok(i) };
            assert_eq!(runs(0..100, jobs, Control::quiet(), one), Swept::Exhausted(exhausted(5)));
        }
    }

    #[test]
    fn a_stop_keeps_the_runs_done_in_order() {
        let stop = AtomicBool::new(false);
        let control = Control { progress: &|| {}, stop: &stop };
        let one = |i: u32| {
            if i == 9 {
                stop.store(true, Ordering::Relaxed);
            }
            Ok(i)
        };
        assert_eq!(runs(0..1000, 1, control, one), Swept::Stopped((0..10).collect()));
    }

    #[test]
    fn progress_counts_finished_runs() {
        let n = std::sync::atomic::AtomicU32::new(0);
        let progress = || _ = n.fetch_add(1, Ordering::Relaxed);
        let control = Control { progress: &progress, stop: &NEVER };
        runs(0..20, 4, control, Ok);
        assert_eq!(n.load(Ordering::Relaxed), 20);
    }
}
