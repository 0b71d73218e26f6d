//! Lifecycle hooks (startContainer, handlers.go): trace 030's failing
//! postStart hook.

use crate::SEEDS;
use crate::common::*;
use podsim::trace::record::ProcessFact;

const C: &str = "lifecycle-demo-container";

/// The hook runs after StartContainer and blocks the sync; `badcommand` exits
/// 126: FailedPostStartHook ("PostStartHook failed"), then Killing
/// "FailedPostStartHook" with the pod's grace: the preStop (1 s) runs first,
/// then SIGTERM. The start failed, so the container shows Waiting
/// PostStartHookError with the handler's message; the next start has no
/// backoff yet (the first restart is free), later ones CrashLoopBackOff.
#[test]
fn a_failing_poststart_hook_kills_and_restarts_the_container() {
    for seed in SEEDS {
        let trace = run("poststart-fails", seed, None);
        let lives = lives(&trace, C);
        assert!(lives.len() >= 3, "seed {seed}");
        let failed = actions(&trace, "FailedPostStartHook");
        let killed = actions(&trace, "Killing");
        // Every start's hook fails and is followed by its kill.
        assert_eq!((failed.len(), killed.len()), (lives.len(), lives.len()), "seed {seed}");
        assert!(failed.iter().all(|(_, m)| m == "PostStartHook failed"));
        assert!(killed.iter().all(|(_, m)| m == "FailedPostStartHook"));
        for (l, (k, _)) in lives.iter().zip(&killed) {
            // Hook: exec overhead 20–80 ms after the start, then the preStop's 1 s + overhead.
            within("kill", *k, l.started + secs(0.02), l.started + secs(0.08));
            within("SIGTERM after preStop", l.sigterm.unwrap(), *k + secs(1.02), *k + secs(1.08));
        }
        let starts: Vec<_> = facts(&trace, C).into_iter().filter(|(_, f)| *f == ProcessFact::Started).collect();
        assert_eq!(starts.len(), lives.len());
        let (_, message) = first_waiting(&trace, C, "PostStartHookError").expect("PostStartHookError shows");
        assert!(
            message.starts_with("Exec lifecycle hook ([badcommand]) for Container \"lifecycle-demo-container\" in Pod \"lifecycle-demo_default(")
                && message.contains("failed - error: command 'badcommand' exited with 126: , message: \"OCI runtime exec failed"),
            "{message}"
        );
        // The second start follows the first exit at once (no backoff entry yet);
        // the third waits for the 10 s backoff.
        assert!(lives[1].started.since(lives[0].finished.unwrap()) < secs(2.1), "seed {seed}");
        assert!(lives[2].started.since(lives[1].finished.unwrap()) >= secs(10.0), "seed {seed}");
        assert!(first_waiting(&trace, C, "CrashLoopBackOff").is_some());
    }
}
