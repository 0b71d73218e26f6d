//! readinessProbe initialDelaySeconds 20: doProbe skips while
//! `int32(now − StartedAt) < 20`, with StartedAt read from the kubelet's
//! status cache, which keeps whole seconds (normalizeStatus). So Ready never
//! comes before second(StartedAt) + 20 s — up to a second before StartedAt +
//! 20 s; the first probe after that is the next tick (period 10 s), and the
//! app (default: ready at once) passes it.

use crate::SEEDS;
use crate::common::*;

#[test]
fn ready_never_before_started_at_plus_the_initial_delay() {
    for seed in SEEDS {
        let trace = run("readiness-delay", seed, None);
        let second = lives(&trace, "web")[0].started.floor_second();
        let ready = ready_transitions(&trace, true);
        assert_eq!(ready.len(), 1, "seed {seed}");
        within("Ready", ready[0], second + secs(20.0), second + secs(30.1));
    }
}
