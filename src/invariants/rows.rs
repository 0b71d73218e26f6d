//! The invariants a `kubectl get pods` row can support: restart counts step
//! by at most one per container between consecutive changes a watch prints
//! of the same pod.
//!
//! Only a watch's changes are consecutive: each is printed at one write of
//! the pod, and its predecessor is the pod's previous row in the same watch
//! (its listing or its previous change). A snapshot (a one-shot `kubectl
//! get`, a script's `--- t=10s ---` marker, a watch's listing) is the state
//! at its AGE after any number of starts (`startContainer` adds one per
//! start), and may be of another pod of the same name (rows carry no UID):
//! it starts a new sequence.

use super::pod::PodState;
use crate::observe::{PodRow, Printed, Record};

pub fn observe(state: &mut PodState, r: &Record, row: &PodRow) {
    state.rows += 1;
    if state.name.is_empty() {
        state.name = row.name.clone();
    }
    let age = row.age.lo;
    let initializing = row.status.starts_with("Init:");
    let prev = state.last_row.replace((row.restarts, initializing, age, r.origin.clone()));
    let t = state.tallies.entry("restart-count-steps").or_default();
    if row.printed == Printed::Snapshot {
        return t
            .skip("listings only (a one-shot `kubectl get`, a watch's first row): any number of starts between them");
    }
    let Some((restarts, was_initializing, prev_age, prev_o)) = prev else { return t.skip("a single row of the pod") };
    if age + 1000 < prev_age || prev_o.file != r.origin.file {
        // A younger pod of the same name (recreated), or another capture: a new sequence starts.
        return;
    }
    let step = row.restarts as i64 - restarts as i64;
    if step < 0 && was_initializing {
        // Once Initialized, printPod stops summing the (non-sidecar) init containers' restarts.
        t.hold();
    } else if step < 0 {
        t.violate(&[&prev_o, &r.origin], format!("RESTARTS ≥ {restarts}"), format!("RESTARTS {}", row.restarts));
    } else if step > i64::from(row.ready.1.max(1)) {
        // RESTARTS sums the containers: each may restart once per printed change.
        let most = restarts + row.ready.1.max(1);
        t.violate(
            &[&prev_o, &r.origin],
            format!("RESTARTS at most {most} (one more per container and printed change)"),
            format!("RESTARTS {}", row.restarts),
        );
    } else {
        t.hold();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Checker, Verdict};
    use crate::cluster::Cluster;
    use crate::error::SourceFile;
    use std::sync::Arc;

    fn verdict(text: &str) -> Verdict {
        let file = Arc::new(SourceFile { name: "rows.txt".into(), text: text.into() });
        let mut c = Checker::new(Cluster::default());
        let problems = crate::observe::read(&file, &mut |r| c.observe(&r));
        assert!(problems.is_empty(), "{problems:?}");
        c.report().verdict("crashloop", "restart-count-steps").cloned().expect("a verdict")
    }

    const HEADER: &str = "NAME  READY  STATUS  RESTARTS  AGE\n";

    /// Two one-shot listings 4m20s apart: any number of starts between them
    /// (the reviewer's reproduction: 2, then 5).
    #[test]
    fn listings_are_not_consecutive_changes() {
        let rows = [
            "crashloop  0/1  CrashLoopBackOff  2 (10s ago)  40s\n",
            "crashloop  0/1  CrashLoopBackOff  5 (1m ago)  5m\n",
        ];
        let listings = format!("$ kubectl get pods\n{HEADER}{}$ kubectl get pods\n{HEADER}{}", rows[0], rows[1]);
        assert!(matches!(verdict(&listings), Verdict::NotApplicable { .. }), "{:?}", verdict(&listings));
        let marked = "--- t=40s --- crashloop 0/1 CrashLoopBackOff 2 (10s ago) 40s\n\
                      --- t=300s --- crashloop 0/1 CrashLoopBackOff 5 (1m ago) 5m\n";
        assert!(matches!(verdict(marked), Verdict::NotApplicable { .. }));
        // A watch started after a listing: its own listing, then one change.
        let watch =
            format!("{listings}$ kubectl get pods -w\n{HEADER}{}crashloop  1/1  Running  6 (1s ago)  5m\n", rows[1]);
        assert_eq!(verdict(&watch), Verdict::Holds { checked: 1 });
    }

    /// Consecutive changes of one watch: one start per container and change.
    #[test]
    fn a_watch_steps_by_one_per_container() {
        let watch = format!(
            "$ kubectl get pods -w\n{HEADER}crashloop  0/1  Error  2 (1s ago)  40s\ncrashloop  1/1  Running  4 (1s ago)  60s\n"
        );
        assert!(matches!(verdict(&watch), Verdict::Violated { .. }), "{:?}", verdict(&watch));
        // `--watch-only`: the first row has no row before it in the output.
        let only = watch.replace(" -w", " --watch-only");
        let only = format!("$ kubectl get pods\n{HEADER}crashloop  0/1  Pending  0  0s\n{}", only);
        assert!(matches!(verdict(&only), Verdict::Violated { .. }));
        let only = format!(
            "$ kubectl get pods\n{HEADER}crashloop  0/1  Pending  0  0s\n$ kubectl get pods --watch-only\n{HEADER}\
             crashloop  1/1  Running  4 (1s ago)  60s\n"
        );
        assert!(matches!(verdict(&only), Verdict::NotApplicable { .. }), "{:?}", verdict(&only));
    }

    /// printPod sums the init containers' restarts only while initializing.
    #[test]
    fn restarts_drop_when_initialized() {
        let watch = format!(
            "$ kubectl get pods -w\n{HEADER}crashloop  0/1  Init:CrashLoopBackOff  3 (5s ago)  60s\n\
             crashloop  0/1  PodInitializing  0  80s\ncrashloop  0/1  Running  0  81s\n"
        );
        assert_eq!(verdict(&watch), Verdict::Holds { checked: 2 });
    }
}
