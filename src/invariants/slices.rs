//! EndpointSlice endpoint conditions, alone and against their pod.

use super::pod::PodState;
use super::report::{PodReport, Tally};
use crate::observe::Record;
use k8s_openapi::api::discovery::v1::EndpointSlice;
use std::collections::BTreeMap;

#[derive(Default)]
pub struct SliceState {
    tally: Tally,
    slices: u32,
}

impl SliceState {
    /// `podToEndpoint`: ready = serving ∧ ¬terminating (publishNotReadyAddresses
    /// aside), serving = pod Ready, terminating = pod deletionTimestamp set.
    pub fn observe(&mut self, r: &Record, s: &EndpointSlice, pods: &BTreeMap<String, PodState>) {
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
            let pod = e
                .target_ref
                .as_ref()
                .and_then(|t| t.uid.as_ref())
                .and_then(|u| pods.get(&format!("uid/{u}")))
                .and_then(|p| p.last_ready.clone());
            match pod {
                Some((pod_ready, pod_terminating, at)) => {
                    let want_ready = pod_ready && !pod_terminating;
                    if ready != Some(want_ready) || serving != Some(pod_ready) || terminating != pod_terminating {
                        self.tally.violate(&[&at, &r.origin], format!("{who}: ready={want_ready} serving={pod_ready} terminating={pod_terminating} (from the pod)"), format!("ready={ready:?} serving={serving:?} terminating={terminating}"));
                    } else {
                        self.tally.hold();
                    }
                }
                None => self.tally.hold(),
            }
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
