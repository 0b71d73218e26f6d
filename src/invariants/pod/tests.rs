//! The stale-gate allowance of `ready-implies-containers-ready`.

use crate::cluster::Cluster;
use crate::error::SourceFile;
use crate::invariants::{Checker, Verdict};
use std::sync::Arc;

/// Pod `web` (grace 5 s) Ready since 00:01:10 while its gate has been False
/// since 00:01:00, as a snapshot whose latest timestamp is `now`.
fn snapshot(now: &str) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web","uid":"u1"}},"spec":{{"terminationGracePeriodSeconds":5,"readinessGates":[{{"conditionType":"example.com/lb"}}],"containers":[{{"name":"app","image":"app:1"}}]}},"status":{{"phase":"Running","conditions":[{{"type":"example.com/lb","status":"False","lastTransitionTime":"2026-01-01T00:01:00Z"}},{{"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:01:10Z"}},{{"type":"ContainersReady","status":"True","lastTransitionTime":"2026-01-01T00:01:10Z"}}],"containerStatuses":[{{"name":"app","image":"app:1","imageID":"","ready":true,"started":true,"restartCount":0,"state":{{"running":{{"startedAt":"{now}"}}}}}}]}}}}"#
    )
}

fn verdict(now: &str) -> Verdict {
    let file = Arc::new(SourceFile { name: "pod.json".into(), text: snapshot(now) });
    let mut c = Checker::new(Cluster::default());
    crate::observe::read(&file, &mut |r| c.observe(&r));
    c.report().verdict("web", "ready-implies-containers-ready").cloned().unwrap()
}

/// The correcting sync may wait for one stopping a container for its grace
/// (5 s here): Ready with an unmet gate is allowed for 2 s plus that.
#[test]
fn a_stale_gate_is_allowed_for_the_kill_grace_and_no_longer() {
    assert!(matches!(verdict("2026-01-01T00:01:16Z"), Verdict::Holds { .. }));
    assert!(matches!(verdict("2026-01-01T00:01:17Z"), Verdict::Violated { .. }));
}
