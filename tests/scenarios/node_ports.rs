//! kube-scheduler's NodePorts filter (plugins/nodeports): two hostNetwork
//! pods that declare the same port (hostPort = containerPort by defaulting)
//! never share a node.

use crate::SEEDS;
use crate::common::*;
use podsim::api::status::{ConditionType, PodPhase};
use podsim::time::SimTime;
use podsim::trace::Trace;
use podsim::trace::record::Record;

/// The default-scheduler's events for pod `pod`: (time, reason, message).
fn scheduler_events(trace: &Trace, pod: &str) -> Vec<(SimTime, &'static str, String)> {
    trace
        .entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::Event(ev) if &*ev.pod == pod && ev.reason.contains("Schedul") => {
                Some((e.t, ev.reason, ev.message.clone()))
            }
            _ => None,
        })
        .collect()
}

/// agent-old arrives bound to node-1 and takes host port 9100/TCP on every
/// IP; agent-new wants the same. Its scheduling attempt, 5–30 ms after its
/// creation (the profile's scheduling latency), finds the one node ruled out
/// by NodePorts: `FailedScheduling` with `FitError.Error`'s words — the
/// filter's count and DefaultPreemption's verdict (1.37, the scenario's
/// version, dropped DynamicResources' `no new claims to deallocate`, PR #140222)
/// (NodePorts' rejection is `Unschedulable`, so preemption dry-runs, and no
/// pod has a lower priority: "No preemption victims found") — and
/// `PodScheduled=False`, reason `Unschedulable`. agent-old is deleted at
/// 20 s; once its Succeeded phase is stored the scheduler's informer (which
/// lists no terminal pods) drops it, NodePorts' queueing hint moves
/// agent-new, and it is bound 5–30 ms later, then runs on the freed port.
#[test]
fn a_taken_host_port_keeps_the_pod_pending_until_it_is_free() {
    let message = "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. \
                   preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";
    for seed in SEEDS {
        let trace = run("hostport-conflict", seed, None);
        let events = scheduler_events(&trace, "agent-new");
        assert_eq!(events.len(), 2, "seed {seed}: {events:?}");
        let (failed, reason, m) = &events[0];
        assert_eq!((*reason, m.as_str()), ("FailedScheduling", message), "seed {seed}");
        within("FailedScheduling", *failed, t(0.005), t(0.030));
        let pending = pod_versions(&trace, "agent-new").into_iter().find(|(at, _)| at == failed).map(|(_, p)| p);
        let c = pending.expect("stored at the failure").status.condition(&ConditionType::PodScheduled).cloned();
        let c = c.expect("PodScheduled is set");
        assert_eq!(
            (c.status, c.reason.as_deref(), c.message.as_deref()),
            (false, Some("Unschedulable"), Some(message))
        );
        let freed = pod_versions(&trace, "agent-old")
            .into_iter()
            .find(|(_, p)| p.status.phase == PodPhase::Succeeded)
            .expect("agent-old stops")
            .0;
        let (bound, reason, m) = &events[1];
        assert_eq!((*reason, m.as_str()), ("Scheduled", "Successfully assigned default/agent-new to node-1"));
        within("Scheduled", *bound, freed + secs(0.005), freed + secs(0.030));
        assert_eq!(pod_lives(&trace, "agent-new", "exporter").len(), 1, "seed {seed}: no crash loop");
        let ready = pod_condition(&trace, "agent-new", &ConditionType::Ready, true).expect("agent-new gets Ready");
        assert!(ready > *bound, "seed {seed}");
    }
}
