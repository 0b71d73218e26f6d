//! readinessProbe initialDelaySeconds 20: doProbe skips while
//! int(now − StartedAt) < 20, so Ready never comes before StartedAt + 20 s;
//! the first probe after that is the next tick (period 10 s), and the app
//! (default: ready at once) passes it.

use crate::SEEDS;
use crate::common::*;

#[test]
fn ready_never_before_started_at_plus_the_initial_delay() {
    for seed in SEEDS {
        let trace = run("readiness-delay", seed, None);
        let start = lives(&trace, "web")[0].started;
        let ready = ready_transitions(&trace, true);
        assert_eq!(ready.len(), 1, "seed {seed}");
        within("Ready", ready[0], start + secs(20.0), start + secs(30.1));
    }
}
