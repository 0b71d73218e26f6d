//! Each rule holds on the c28 Service scenario and catches a planted break.

use super::{ENTRY, Horizon, judge};
use crate::client::{Outcome, RequestRecord};
use crate::invariants::Verdict;
use crate::run::{Inputs, prepare, simulate};
use crate::time::{SimDuration, SimTime};
use crate::trace::record::{Record, WatchKind};
use crate::trace::{Entry, Trace};
use std::sync::Arc;

/// The c28 scenario's trace and what the checker knows of its run.
fn c28() -> (Trace, Horizon) {
    let inputs = Inputs { scenario: Some("models/scenarios/c28-service.yaml".into()), ..Default::default() };
    let p = prepare(&inputs).unwrap();
    let until = SimTime::ZERO + p.until;
    let timeouts = p.setup.clients.iter().map(|c| (c.name.clone(), c.timeout)).collect();
    (simulate(&p.setup, p.seed, until), Horizon { end: Some(until), timeouts })
}

fn verdict(trace: &Trace, horizon: &Horizon, rule: &str) -> Verdict {
    judge(trace, horizon).unwrap().verdicts[rule].clone()
}

fn holds(v: &Verdict) -> bool {
    matches!(v, Verdict::Holds { .. })
}

fn violated(v: &Verdict) -> bool {
    matches!(v, Verdict::Violated { .. })
}

/// The index of the first entry `f` picks, and the request it holds.
fn request(trace: &Trace, f: impl Fn(&RequestRecord) -> bool) -> (usize, RequestRecord) {
    trace
        .entries
        .iter()
        .enumerate()
        .find_map(|(i, e)| match &e.record {
            Record::Request(r) if f(r) => Some((i, (**r).clone())),
            _ => None,
        })
        .unwrap()
}

fn set(trace: &mut Trace, i: usize, r: RequestRecord) {
    trace.entries[i].record = Record::Request(Arc::new(r));
}

#[test]
fn the_c28_service_path_holds() {
    let (trace, h) = c28();
    let report = judge(&trace, &h).unwrap();
    assert_eq!(report.pod, ENTRY);
    for (rule, v) in &report.verdicts {
        assert!(holds(v), "{rule}: {v:?}");
    }
    // Without the run's facts the same trace holds too.
    assert!(judge(&trace, &Horizon::default()).unwrap().verdicts.values().all(holds));
}

#[test]
fn a_request_to_an_endpoint_its_node_never_programmed_is_caught() {
    let (mut trace, h) = c28();
    let (i, mut r) = request(&trace, |r| r.target.starts_with("service/") && r.endpoint.is_some());
    r.endpoint = Some("10.244.9.9:18080".into());
    set(&mut trace, i, r);
    assert!(violated(&verdict(&trace, &h, "request-follows-proxy-rules")));
}

#[test]
fn a_refusal_where_the_rules_forward_is_caught() {
    let (mut trace, h) = c28();
    let (i, mut r) = request(&trace, |r| r.target.starts_with("service/") && r.endpoint.is_some());
    r.outcome = Outcome::Refused(crate::client::Refusal::NoEndpoints { rule: "c28/c28-probe:http".into() });
    r.endpoint = None;
    set(&mut trace, i, r);
    assert!(violated(&verdict(&trace, &h, "request-follows-proxy-rules")));
}

#[test]
fn a_sticky_pick_without_affinity_is_caught() {
    let (mut trace, h) = c28();
    let (i, mut r) = request(&trace, |r| r.target.starts_with("service/") && r.endpoint.is_some());
    r.sticky = true;
    set(&mut trace, i, r);
    assert!(violated(&verdict(&trace, &h, "request-follows-proxy-rules")));
}

#[test]
fn an_endpoint_programmed_before_any_slice_held_it_is_caught() {
    let (mut trace, h) = c28();
    // Drop every slice version that holds an endpoint: kube-proxy then
    // forwards to addresses no slice ever held.
    trace.entries.retain(|e| !matches!(&e.record, Record::Slice { slice, .. } if !slice.content.endpoints.is_empty()));
    assert!(violated(&verdict(&trace, &h, "proxy-after-slice")));
    // A slice written only after the sync that used it is as bad.
    let (mut trace, h) = c28();
    let first_forward = trace
        .entries
        .iter()
        .position(|e| {
            matches!(&e.record, Record::ProxySync(s)
                if s.rules.values().any(|r| matches!(r.action, crate::proxy::Action::Forward(_))))
        })
        .unwrap();
    let late = trace.entries[first_forward].t + SimDuration::from_millis(1);
    for e in &mut trace.entries[..first_forward] {
        if let Record::Slice { kind, .. } = &e.record
            && *kind != WatchKind::Deleted
        {
            e.t = late;
        }
    }
    assert!(violated(&verdict(&trace, &h, "proxy-after-slice")));
}

#[test]
fn a_request_recorded_twice_is_caught() {
    let (mut trace, h) = c28();
    let (i, _) = request(&trace, |_| true);
    let copy = Entry { t: trace.entries[i].t, record: trace.entries[i].record.clone() };
    trace.entries.insert(i + 1, copy);
    assert!(violated(&verdict(&trace, &h, "one-outcome-per-request")));
}

#[test]
fn a_request_lost_long_before_the_end_is_caught_and_one_open_at_the_end_is_not() {
    let (trace, h) = c28();
    let is = |n: u32| move |e: &Entry| matches!(&e.record, Record::Request(r) if &*r.client == "curl" && r.n == n);
    let mut lost = trace.clone();
    lost.entries.retain(|e| !is(3)(e));
    assert!(violated(&verdict(&lost, &h, "one-outcome-per-request")));
    // From the trace alone: the end is its last record, the timeout that of
    // curl's first request (it timed out: no rule for the cluster IP yet).
    assert!(violated(&verdict(&lost, &Horizon::default(), "one-outcome-per-request")));
    // The last request may still be open when the run ends: its record is
    // missing only if the run ended within its timeout.
    let (_, last) = request(&trace, |r| &*r.client == "curl" && r.n == 15);
    let mut open = trace.clone();
    open.entries.retain(|e| !is(15)(e));
    let end = |at: SimTime| Horizon { end: Some(at), ..h.clone() };
    assert!(holds(&verdict(&open, &end(last.sent + SimDuration::from_millis(999)), "one-outcome-per-request")));
    // A request missing before a later one that had a full timeout left is lost.
    let (_, next) = request(&trace, |r| &*r.client == "curl" && r.n == 15);
    let mut gap = trace.clone();
    gap.entries.retain(|e| !is(14)(e));
    assert!(holds(&verdict(&gap, &end(next.sent + SimDuration::from_millis(999)), "one-outcome-per-request")));
    assert!(violated(&verdict(&gap, &end(next.sent + SimDuration::from_secs(1)), "one-outcome-per-request")));
}

#[test]
fn an_outcome_after_the_timeout_or_before_the_send_is_caught() {
    let (trace, h) = c28();
    let (i, r) = request(&trace, |r| &*r.client == "curl" && matches!(r.outcome, Outcome::Http { .. }));
    let mut late = trace.clone();
    late.entries[i].t = r.sent + SimDuration::from_millis(1001);
    assert!(violated(&verdict(&late, &h, "one-outcome-per-request")));
    let mut early = trace.clone();
    let mut before = r.clone();
    before.sent = trace.entries[i].t + SimDuration::from_millis(1);
    set(&mut early, i, before);
    assert!(violated(&verdict(&early, &h, "one-outcome-per-request")));
}

/// `check_run` feeds the trace's Services and EndpointSlices to the
/// catalogue: a slice version the controller could not have written is caught.
#[test]
fn the_simulated_slices_are_checked_against_their_service() {
    let inputs = Inputs { scenario: Some("models/scenarios/c28-service.yaml".into()), ..Default::default() };
    let p = prepare(&inputs).unwrap();
    let until = SimTime::ZERO + p.until;
    let mut trace = simulate(&p.setup, p.seed, until);
    let check = |t: &Trace| crate::invariants::check_run(t, &p.clock, &p.setup, until);
    let report = check(&trace);
    assert!(!report.violated(), "{}", report.render_violations());
    assert!(holds(report.verdict("(EndpointSlices)", "endpoint-conditions").unwrap()));
    assert!(holds(report.verdict(ENTRY, "one-outcome-per-request").unwrap()));
    let e = trace
        .entries
        .iter_mut()
        .find(|e| matches!(&e.record, Record::Slice { slice, .. } if slice.content.endpoints.iter().any(|x| !x.ready)))
        .unwrap();
    if let Record::Slice { slice, .. } = &mut e.record {
        let mut s = (**slice).clone();
        s.content.endpoints.iter_mut().for_each(|x| x.ready = true);
        *slice = Arc::new(s);
    }
    assert!(violated(check(&trace).verdict("(EndpointSlices)", "endpoint-conditions").unwrap()));
}
