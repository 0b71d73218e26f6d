//! EndpointSlice endpoint conditions, alone, against their Service's
//! `publishNotReadyAddresses`, and against their pod.

use super::pod::PodState;
use super::report::{PodReport, Tally};
use crate::observe::Record;
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::{EndpointConditions, EndpointSlice};
use std::collections::BTreeMap;

/// Whether a Service showed `publishNotReadyAddresses` off (`[0]`) and on (`[1]`).
type Shown = [bool; 2];

/// The EndpointSlice controller's `managed-by` value.
const CONTROLLER: &str = "endpointslice-controller.k8s.io";

#[derive(Default)]
pub struct SliceState {
    tally: Tally,
    slices: u32,
    /// The `publishNotReadyAddresses` values each Service showed so far, by
    /// `namespace/name`: the controller may still follow an older one, as it
    /// sees the Service late.
    services: BTreeMap<String, Shown>,
    /// Endpoints of Services not seen yet, judged as if the Service showed
    /// off, on, or both; settled at the report by the Service, if it came
    /// later, else as off.
    unsettled: BTreeMap<String, [Tally; 3]>,
}

fn key(namespace: Option<&str>, name: &str) -> String {
    format!("{}/{name}", namespace.unwrap_or("default"))
}

/// The Service a slice belongs to: its `kubernetes.io/service-name` label,
/// else its owner.
fn service_of(s: &EndpointSlice) -> Option<String> {
    let m = &s.metadata;
    let name = m
        .labels
        .as_ref()
        .and_then(|l| l.get("kubernetes.io/service-name"))
        .cloned()
        .or_else(|| m.owner_references.iter().flatten().find(|o| o.kind == "Service").map(|o| o.name.clone()))?;
    Some(key(m.namespace.as_deref(), &name))
}

/// Whether `ready` fits the other conditions for a given flag. The
/// controller writes `ready = publishNotReadyAddresses || (serving &&
/// !terminating)` (`podToEndpoint`); another writer (mirroring, a custom
/// controller) is held only to the API's "never ready while terminating or
/// not serving", which the flag lifts.
fn fits(ready: bool, serving: bool, terminating: bool, controller: bool, publish: bool) -> bool {
    let expected = serving && !terminating;
    match (controller, publish) {
        (true, true) => ready,
        (true, false) => ready == expected,
        (false, true) => true,
        (false, false) => !ready || expected,
    }
}

impl SliceState {
    pub fn observe_service(&mut self, svc: &Service) {
        let m = &svc.metadata;
        let publish = svc.spec.as_ref().and_then(|s| s.publish_not_ready_addresses).unwrap_or(false);
        let shown = self.services.entry(key(m.namespace.as_deref(), m.name.as_deref().unwrap_or(""))).or_default();
        shown[usize::from(publish)] = true;
    }

    /// `podToEndpoint`: ready = publishNotReadyAddresses ∨ (serving ∧
    /// ¬terminating), serving = pod Ready, terminating = pod
    /// deletionTimestamp set. The controller sees the pod late, so against
    /// the pod an endpoint must match some (Ready, terminating) the pod
    /// showed before, in a watch that saw every version of both; snapshots
    /// are judged on their own.
    pub fn observe(&mut self, r: &Record, s: &EndpointSlice, pods: &BTreeMap<String, PodState>) {
        self.slices += 1;
        let service = service_of(s);
        let managed_by = s.metadata.labels.as_ref().and_then(|l| l.get("endpointslice.kubernetes.io/managed-by"));
        let controller = managed_by.is_none_or(|m| m == CONTROLLER);
        for e in s.endpoints.iter().flatten() {
            let c = e.conditions.as_ref();
            let serving = c.and_then(|c| c.serving).or(c.and_then(|c| c.ready));
            let terminating = c.and_then(|c| c.terminating).unwrap_or(false);
            let who = e.target_ref.as_ref().and_then(|t| t.name.clone()).unwrap_or_else(|| e.addresses.join(","));
            if !self.ready_fits(r, c, controller, service.as_deref(), &who) {
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

    /// Judges `ready` by the flag values the Service showed, or every way
    /// while the Service is unknown; false when the endpoint broke the rule.
    fn ready_fits(
        &mut self,
        r: &Record,
        c: Option<&EndpointConditions>,
        controller: bool,
        service: Option<&str>,
        who: &str,
    ) -> bool {
        // A nil `ready` is "unknown": nothing to judge.
        let Some(ready) = c.and_then(|c| c.ready) else { return true };
        let serving = c.and_then(|c| c.serving).unwrap_or(ready);
        let terminating = c.and_then(|c| c.terminating).unwrap_or(false);
        let judge = |t: &mut Tally, shown: Shown, note: &str| {
            let ok = (shown[0] && fits(ready, serving, terminating, controller, false))
                || (shown[1] && fits(ready, serving, terminating, controller, true));
            if !ok {
                let flag = match shown {
                    [true, true] => "on or off",
                    [_, true] => "on",
                    _ => "off",
                };
                let rule = match controller {
                    true => "ready = publishNotReadyAddresses or (serving and not terminating)",
                    false => "ready only if serving and not terminating, or publishNotReadyAddresses",
                };
                t.violate(
                    &[&r.origin],
                    format!("{who}: {rule} (publishNotReadyAddresses {flag}{note})"),
                    format!("ready={ready} serving={serving} terminating={terminating}"),
                );
            }
            ok
        };
        match (service.and_then(|k| self.services.get(k).copied()), service) {
            (Some(shown), _) => judge(&mut self.tally, shown, ""),
            (None, Some(k)) => {
                let ways = self.unsettled.entry(k.to_string()).or_default();
                let note = ": its Service came after the slice";
                let mut fit = false;
                for (i, shown) in [[true, false], [false, true], [true, true]].into_iter().enumerate() {
                    fit |= judge(&mut ways[i], shown, note);
                }
                fit
            }
            (None, None) => judge(&mut self.tally, [true, false], ": the slice names no Service"),
        }
    }

    pub fn report(mut self) -> Option<PodReport> {
        for (k, [off, on, either]) in std::mem::take(&mut self.unsettled) {
            // Settled by the values the Service showed; never seen: off.
            let settled = match self.services.get(&k) {
                Some([true, true]) => either,
                Some([false, true]) => on,
                _ => off,
            };
            self.tally.absorb(settled);
        }
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
        slice_by("endpointslice-controller.k8s.io", ready, serving, terminating)
    }

    /// A slice of Service `web` written by `manager`.
    fn slice_by(manager: &str, ready: bool, serving: bool, terminating: bool) -> String {
        format!(
            r#"{{"type":"MODIFIED","object":{{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{{"name":"web-abc","labels":{{"kubernetes.io/service-name":"web","endpointslice.kubernetes.io/managed-by":"{manager}"}}}},"addressType":"IPv4","endpoints":[{{"addresses":["10.0.0.1"],"conditions":{{"ready":{ready},"serving":{serving},"terminating":{terminating}}},"targetRef":{{"kind":"Pod","name":"web","uid":"u1"}}}}]}}}}"#
        )
    }

    fn service(publish: bool) -> String {
        format!(
            r#"{{"type":"ADDED","object":{{"apiVersion":"v1","kind":"Service","metadata":{{"name":"web"}},"spec":{{"selector":{{"app":"web"}},"publishNotReadyAddresses":{publish},"ports":[{{"port":80}}]}}}}}}"#
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

    /// `podToEndpoint`: publishNotReadyAddresses makes every endpoint ready,
    /// terminating or not, whether the Service is read before or after.
    #[test]
    fn publish_not_ready_addresses_makes_every_endpoint_ready() {
        let first = [service(true), pod("True", true), slice(true, true, true)];
        assert!(matches!(verdict(&first), Verdict::Holds { .. }));
        let later = [pod("True", true), slice(true, true, true), service(true)];
        assert!(matches!(verdict(&later), Verdict::Holds { .. }));
        let not_ready = [service(true), pod("False", false), slice(false, false, false)];
        assert!(matches!(verdict(&not_ready), Verdict::Violated { .. }));
        let not_ready_later = [pod("False", false), slice(false, false, false), service(true)];
        assert!(matches!(verdict(&not_ready_later), Verdict::Violated { .. }));
        // The controller sees a Service update late: a slice may follow either value shown.
        let flipped = [service(false), service(true), pod("False", false), slice(true, false, false)];
        assert!(matches!(verdict(&flipped), Verdict::Holds { .. }));
        let never_on = [service(false), pod("False", false), slice(true, false, false)];
        assert!(matches!(verdict(&never_on), Verdict::Violated { .. }));
    }

    /// Without the flag the controller's `ready` is exactly serving and not
    /// terminating; another writer is only held to "never ready while not serving".
    #[test]
    fn without_the_flag_ready_is_exactly_serving_and_not_terminating() {
        let withheld = [service(false), pod("True", false), slice(false, true, false)];
        assert!(matches!(verdict(&withheld), Verdict::Violated { .. }));
        let other = [pod("True", false), slice_by("example.com/mirror", false, true, false)];
        assert!(matches!(verdict(&other), Verdict::Holds { .. }));
        let other_ready_terminating = [pod("True", true), slice_by("example.com/mirror", true, true, true)];
        assert!(matches!(verdict(&other_ready_terminating), Verdict::Violated { .. }));
    }
}
