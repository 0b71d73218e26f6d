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
    /// The controller sees the pod late, so against the pod an endpoint must
    /// match some (Ready, terminating) the pod showed before, in a watch that
    /// saw every version of both; snapshots are judged on their own.
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
            let uid = e.target_ref.as_ref().and_then(|t| t.uid.as_ref());
            let states =
                uid.and_then(|u| pods.get(&format!("uid/{u}"))).map(|p| &p.watched_states).filter(|s| !s.is_empty());
            match (states, r.watch.is_some()) {
                (Some(states), true) if !states.contains(&(serving == Some(true), terminating)) => self.tally.violate(
                    &[&r.origin],
                    format!("{who}: serving and terminating as the pod was at some point: one of {states:?} (Ready, terminating)"),
                    format!("serving={serving:?} terminating={terminating}"),
                ),
                _ => self.tally.hold(),
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

#[cfg(test)]
mod tests {
    use crate::cluster::Cluster;
    use crate::error::SourceFile;
    use crate::invariants::{Checker, Verdict};
    use std::sync::Arc;

    fn pod(ready: &str, deleting: bool) -> String {
        let del = if deleting {
            r#","deletionTimestamp":"2026-01-01T00:01:00Z","deletionGracePeriodSeconds":30"#
        } else {
            ""
        };
        format!(
            r#"{{"type":"MODIFIED","object":{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web","uid":"u1"{del}}},"status":{{"phase":"Running","conditions":[{{"type":"Ready","status":"{ready}"}}]}}}}}}"#
        )
    }

    fn slice(ready: bool, serving: bool, terminating: bool) -> String {
        format!(
            r#"{{"type":"MODIFIED","object":{{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{{"name":"web-abc"}},"addressType":"IPv4","endpoints":[{{"addresses":["10.0.0.1"],"conditions":{{"ready":{ready},"serving":{serving},"terminating":{terminating}}},"targetRef":{{"kind":"Pod","name":"web","uid":"u1"}}}}]}}}}"#
        )
    }

    fn verdict(lines: &[String]) -> Verdict {
        let file = Arc::new(SourceFile { name: "watch.json".into(), text: lines.join("\n") });
        let mut c = Checker::new(Cluster::default());
        crate::observe::read(&file, &mut |r| c.observe(&r));
        c.report().verdict("(EndpointSlices)", "endpoint-conditions").cloned().unwrap()
    }

    /// The slice lags the pod: it may show an older state the pod had, never
    /// one it did not have.
    #[test]
    fn a_slice_reflects_some_state_its_pod_showed() {
        let lagging = [pod("False", false), pod("True", false), pod("True", true), slice(true, true, false)];
        assert!(matches!(verdict(&lagging), Verdict::Holds { .. }));
        let invented = [pod("True", false), slice(false, true, true)];
        assert!(matches!(verdict(&invented), Verdict::Violated { .. }));
        let ready_while_terminating = [pod("True", true), slice(true, true, true)];
        assert!(matches!(verdict(&ready_while_terminating), Verdict::Violated { .. }));
    }
}
