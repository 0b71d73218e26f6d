//! The invariants a `kubectl get pods` row can support: restart counts step
//! by at most one between consecutive rows of the same pod.

use super::pod::PodState;
use crate::observe::{PodRow, Record};

pub fn observe(state: &mut PodState, r: &Record, row: &PodRow) {
    state.rows += 1;
    if state.name.is_empty() {
        state.name = row.name.clone();
    }
    let age = row.age.lo;
    let prev = state.last_row.replace((row.restarts, age, r.origin.clone()));
    let t = state.tallies.entry("restart-count-steps").or_default();
    let Some((restarts, prev_age, prev_o)) = prev else { return t.skip("a single row of the pod") };
    if age + 1000 < prev_age || prev_o.file != r.origin.file {
        // A younger pod of the same name (recreated), or another capture
        // (rows carry no UID to join them): a new sequence starts.
        return;
    }
    let step = row.restarts as i64 - restarts as i64;
    if step < 0 {
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
