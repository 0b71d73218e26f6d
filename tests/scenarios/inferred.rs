//! Containers no behaviour file describes, read from themselves: the
//! Kubernetes docs' exec liveness pod, whose busybox shell script podsim runs.
//!
//! Per instance started at S: `/tmp/healthy` exists over [S, S+30 s), so
//! every `cat /tmp/healthy` run before S+30 s succeeds and every one after
//! fails with busybox's message; the third failure in a row (period 5 s)
//! kills it; the shell is PID 1 with no trap, so SIGTERM is ignored and the
//! SIGKILL comes exactly at the 30 s grace deadline (exit 137).

use crate::SEEDS;
use crate::common::*;
use podsim::spec::ProbeKind;
use podsim::trace::record::Verdict;

#[test]
fn the_docs_exec_liveness_pod_runs_its_script() {
    for seed in SEEDS {
        let trace = run("docs-exec-liveness", seed, None);
        let lives = lives(&trace, "liveness");
        assert!(lives.len() >= 3, "seed {seed}: {} instances", lives.len());
        let runs = probe_runs(&trace, "liveness-exec", "liveness", ProbeKind::Liveness);
        for (k, l) in lives.iter().enumerate() {
            // Killed and gone before the run's end.
            let (Some(sigterm), Some(_)) = (l.sigterm, l.finished) else { continue };
            assert_eq!((l.finished, l.exit), (Some(sigterm + secs(30.0)), Some(137)), "seed {seed}: instance {k}");
            let own: Vec<_> = runs.iter().filter(|(t, _, _)| *t >= l.started && *t <= sigterm).collect();
            for (t, verdict, detail) in &own {
                let healthy = *t < l.started + secs(30.0);
                let want = if healthy { Verdict::Success } else { Verdict::Failure };
                assert_eq!(*verdict, want, "seed {seed}: instance {k} at {t}");
                if !healthy {
                    assert_eq!(detail, "cat: can't open '/tmp/healthy': No such file or directory\n");
                }
            }
            let failures: Vec<_> = own.iter().filter(|(_, v, _)| *v == Verdict::Failure).collect();
            assert_eq!(failures.len(), 3, "seed {seed}: instance {k}");
            assert!(failures[2].0 <= sigterm && sigterm < failures[2].0 + secs(0.2), "seed {seed}");
        }
        assert!(lives.iter().all(|l| l.exit.is_none_or(|e| e == 137)), "the script never ends by itself");
    }
}
