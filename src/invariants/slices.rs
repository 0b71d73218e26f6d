//! EndpointSlice endpoint conditions, alone and against their pod.

use super::report::{PodReport, Tally};
use crate::observe::Record;
use k8s_openapi::api::discovery::v1::EndpointSlice;

#[derive(Default)]
pub struct SliceState {
    tally: Tally,
    slices: u32,
}

impl SliceState {
    /// `podToEndpoint`: ready = serving ∧ ¬terminating (publishNotReadyAddresses
    /// aside), serving = pod Ready, terminating = pod deletionTimestamp set.
    /// Recordings rarely capture a slice and its pod at the same moment, and
    /// the controller sees the pod late, so the slice is judged on its own.
    pub fn observe(&mut self, r: &Record, s: &EndpointSlice) {
        self.slices += 1;
        for e in s.endpoints.iter().flatten() {
            let c = e.conditions.as_ref();
            let ready = c.and_then(|c| c.ready);
            let serving = c.and_then(|c| c.serving).or(ready);
            let terminating = c.and_then(|c| c.terminating).unwrap_or(false);
            let who = e.target_ref.as_ref().and_then(|t| t.name.clone()).unwrap_or_else(|| e.addresses.join(","));
            if ready == Some(true) && (terminating || serving == Some(false)) {
                self.tally.violate(
                    &[&r.origin],
                    format!("{who}: ready only if serving and not terminating (publishNotReadyAddresses off)"),
                    format!("ready={ready:?} serving={serving:?} terminating={terminating}"),
                );
                continue;
            }
            self.tally.hold();
        }
    }

    pub fn report(self) -> Option<PodReport> {
        (self.slices > 0).then(|| PodReport {
            pod: "(EndpointSlices)".into(),
            observed: format!("{} slice(s)", self.slices),
            verdicts: [("endpoint-conditions", self.tally.verdict("no endpoints"))].into_iter().collect(),
        })
    }
}
