//! An exec liveness probe that always fails (initialDelay 20, period 10,
//! failureThreshold 5) on a process that ignores SIGTERM, over 25 minutes.
//!
//! Each cycle: the first failing probe at the first tick ≥ second(start) +
//! 20 s (doProbe reads StartedAt from the kubelet's status cache, which keeps
//! whole seconds), the kill at the fifth (+40 s): kill − second(start) ∈
//! [60, 70] s; SIGKILL after the 30 s grace; so a cycle is 89–101 s. The
//! restart after each kill follows the replayed rule: kills 1–6 restart at
//! once (cycles exceed 10…80 s), kill 7 waits 160 s, kill 8 waits 300 s, kill
//! 9 restarts at once (300 s + a cycle > 300 s), kill 10 waits 300 s.

use super::backoff_rule::{AfterKill, assert_restarts, replay};
use crate::SEEDS;
use crate::common::*;

#[test]
fn always_failing_exec_liveness_over_25_minutes() {
    for seed in SEEDS {
        let trace = run("exec-liveness", seed, None);
        let lives = lives(&trace, "app");
        for l in lives.iter().filter(|l| l.sigterm.is_some()) {
            let second = l.started.floor_second();
            within("kill after start", l.sigterm.unwrap(), second + secs(60.0), second + secs(71.1));
            assert_eq!(l.exit, Some(137), "SIGTERM ignored: SIGKILL (seed {seed})");
            assert_eq!(l.finished, Some(l.sigterm.unwrap() + secs(30.0)));
        }
        let expected = replay(&lives);
        use AfterKill::*;
        let want = [
            Immediate,
            Immediate,
            Immediate,
            Immediate,
            Immediate,
            Immediate,
            Wait { backoff: secs(160.0) },
            Wait { backoff: secs(300.0) },
            Immediate,
        ];
        assert_eq!(&expected[..want.len()], &want, "seed {seed}");
        assert_restarts(&lives, &expected);
        let messages: Vec<String> = actions(&trace, "Killing").into_iter().map(|(_, m)| m).collect();
        assert!(messages.iter().all(|m| m == "Container app failed liveness probe, will be restarted"));
        let (_, first) = first_waiting(&trace, "app", "CrashLoopBackOff").unwrap();
        assert!(first.starts_with("back-off 2m40s restarting failed container=app"), "{first}");
    }
}
