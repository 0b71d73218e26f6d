//! The node lifecycle controller (pkg/controller/nodelifecycle), as far as
//! a lost node goes: every `--node-monitor-period` it looks at each node's
//! heartbeat (its lease), marks a node whose kubelet has been silent past
//! the grace period `Unknown` (and its pods not Ready), and queues it for
//! the `unreachable:NoExecute` taint the taint-eviction controller acts on.
//! When the kubelet posts again it takes the taint away.
//!
//! What it writes goes out as messages; the world stores them and runs the
//! consequences the controller runs in the same pass (`MarkPodsNotReady`,
//! the NoSchedule taint of `doNoScheduleTaintingPass`, the events).

pub mod zone;

use crate::cluster::{Cluster, Version};
use crate::engine::Outbox;
use crate::ids::NodeId;
use crate::kubelet::lease::Lease;
use crate::rng::{Label, Stream, What};
use crate::time::{SimDuration, SimTime};
use std::collections::BTreeSet;
use std::sync::Arc;
use zone::{LARGE_CLUSTER_SIZE_THRESHOLD, ZoneState, compute_zone_state};

/// `--node-monitor-period`.
pub const NODE_MONITOR_PERIOD: SimDuration = SimDuration::from_secs(5);
/// `NodeEvictionPeriod`: how often `doNoExecuteTaintingPass` runs.
const NODE_EVICTION_PERIOD: SimDuration = SimDuration::from_millis(100);
/// `--node-eviction-rate` 0.1 nodes/s (burst 1): one node tainted per 10 s.
const EVICTION_TOKEN: SimDuration = SimDuration::from_secs(10);

/// `--node-monitor-grace-period`: 50 s since 1.32 (40 s before; PR #126287),
/// so in every version podsim models.
pub fn node_monitor_grace_period(_version: Version) -> SimDuration {
    SimDuration::from_secs(50)
}

#[derive(Debug)]
pub enum Ev {
    /// `monitorNodeHealth`'s pass.
    Monitor,
    /// `doNoExecuteTaintingPass` takes the node from the queue.
    Taint(NodeId),
}

#[derive(Debug)]
pub enum Out {
    Own(Ev),
    /// `tryUpdateNodeHealth` set Ready (and the pressure conditions) to
    /// Unknown; the same pass marks the node's pods not Ready.
    Unknown(NodeId),
    /// The `unreachable:NoExecute` taint added (`true`) or removed.
    NoExecute {
        node: NodeId,
        add: bool,
    },
}

/// `nodeHealthData`, and where the node is in the tainting queue.
struct Health {
    lease: Lease,
    /// The renewal the controller last saw.
    seen: Option<SimTime>,
    /// `probeTimestamp`: the controller's own time of seeing that renewal.
    probe: SimTime,
    /// Ready as the API server holds it (the kubelet posts True; this controller Unknown).
    ready: bool,
    queued: bool,
    tainted: bool,
    /// Registered: a node that joins later is not monitored before it does.
    present: bool,
}

pub struct NodeLifecycle {
    nodes: Vec<Health>,
    grace: SimDuration,
    /// When the tainting queue's rate limiter has its next token.
    next_token: SimTime,
    /// The phase of the 100 ms tainting loop.
    tainting_phase: SimDuration,
    /// "Entering master disruption mode": every zone fully disrupted.
    all_disrupted: bool,
    /// Nodes whose taint is due (`Taint` sent, not yet handled).
    due: BTreeSet<NodeId>,
}

impl NodeLifecycle {
    /// `absent`: the profile's nodes that join during the run.
    pub fn new(cluster: &Cluster, seed: u64, absent: &[Arc<str>], out: &mut impl Outbox<Out>) -> Self {
        let mut rng = Stream::new(seed, "kube-controller-manager/nodelifecycle");
        let subject = || Label::new(What::Phase, "nodelifecycle");
        let monitor = rng.phase(NODE_MONITOR_PERIOD, || subject().with("monitorNodeHealth"));
        let tainting_phase = rng.phase(NODE_EVICTION_PERIOD, || subject().with("doNoExecuteTaintingPass"));
        out.after(monitor, Out::Own(Ev::Monitor));
        let nodes = cluster
            .nodes
            .iter()
            .map(|n| Health {
                lease: Lease::running(n.name.clone(), seed),
                seen: None,
                probe: SimTime::ZERO,
                ready: true,
                queued: false,
                tainted: false,
                present: !absent.contains(&n.name),
            })
            .collect();
        NodeLifecycle {
            nodes,
            grace: node_monitor_grace_period(cluster.version),
            next_token: SimTime::ZERO,
            tainting_phase,
            all_disrupted: false,
            due: BTreeSet::new(),
        }
    }

    /// The node's kubelet stopped at `at`: its lease is no longer renewed.
    pub fn kubelet_stopped(&mut self, node: NodeId, at: SimTime) {
        self.nodes[node.index()].lease.stop(at);
    }

    /// The node's kubelet started at `at`: it renews its lease at once and
    /// posts Ready True.
    pub fn kubelet_started(&mut self, node: NodeId, at: SimTime) {
        let h = &mut self.nodes[node.index()];
        h.lease.start(at);
        h.ready = true;
        h.present = true;
    }

    pub fn handle(&mut self, ev: Ev, out: &mut impl Outbox<Out>) {
        match ev {
            Ev::Monitor => {
                self.monitor_node_health(out);
                out.after(NODE_MONITOR_PERIOD, Out::Own(Ev::Monitor));
            }
            Ev::Taint(node) => {
                self.due.remove(&node);
                let h = &mut self.nodes[node.index()];
                h.queued = false;
                // `doNoExecuteTaintingPass` reads Ready again: True drops the request.
                if !h.ready && !h.tainted && !self.all_disrupted {
                    h.tainted = true;
                    out.after(SimDuration::ZERO, Out::NoExecute { node, add: true });
                }
            }
        }
    }

    /// `monitorNodeHealth`: each node's `tryUpdateNodeHealth` and
    /// `processTaintBaseEviction` (with the Ready condition as it was
    /// before this pass), then `handleDisruption`, then the tainting queue.
    fn monitor_node_health(&mut self, out: &mut impl Outbox<Out>) {
        let now = out.now();
        for (i, h) in self.nodes.iter_mut().enumerate().filter(|(_, h)| h.present) {
            let node = NodeId(i as u32);
            // "Always update the probe time if node lease is renewed."
            let renewed = h.lease.latest(now);
            if renewed.is_some() && renewed != h.seen {
                h.seen = renewed;
                h.probe = now;
            }
            let observed_ready = h.ready;
            if h.ready && now > h.probe + self.grace {
                h.ready = false;
                out.after(SimDuration::ZERO, Out::Unknown(node));
            }
            // `processTaintBaseEviction` with the observed condition.
            match observed_ready {
                false if !h.tainted && !h.queued => h.queued = true,
                false => {}
                true => {
                    h.queued = false;
                    if h.tainted {
                        // `markNodeAsReachable`: "Node is healthy again, removed all taints".
                        h.tainted = false;
                        out.after(SimDuration::ZERO, Out::NoExecute { node, add: false });
                    }
                }
            }
        }
        let present = self.nodes.iter().filter(|h| h.present);
        let (ready, all) = present.fold((0, 0), |(r, a), h| (r + usize::from(h.ready), a + 1));
        let state = compute_zone_state(ready, all - ready);
        self.handle_disruption(state, now, out);
        // `setLimiterInZone`: a partly disrupted small zone is not tainted at all.
        let stopped =
            self.all_disrupted || (state == ZoneState::PartialDisruption && all <= LARGE_CLUSTER_SIZE_THRESHOLD);
        if stopped {
            return;
        }
        for i in 0..self.nodes.len() {
            let node = NodeId(i as u32);
            if !self.nodes[i].queued || self.due.contains(&node) {
                continue;
            }
            // The first pass of the 100 ms loop at or after the token.
            let from = self.next_token.max(now);
            let since = (from - SimTime::ZERO).as_millis();
            let (period, phase) = (NODE_EVICTION_PERIOD.as_millis(), self.tainting_phase.as_millis() % 100);
            let tick = since.saturating_sub(phase).div_ceil(period) * period + phase;
            let at = SimTime::ZERO + SimDuration::from_millis(tick.max(since));
            self.next_token = at + EVICTION_TOKEN;
            self.due.insert(node);
            out.at(at, Out::Own(Ev::Taint(node)));
        }
    }

    /// `handleDisruption`: with every zone fully disrupted the controller
    /// assumes its own view is broken ("Entering master disruption mode"),
    /// takes the NoExecute taints away and stops tainting; on leaving it
    /// gives every node a fresh grace period.
    fn handle_disruption(&mut self, state: ZoneState, now: SimTime, out: &mut impl Outbox<Out>) {
        let all = state == ZoneState::FullDisruption;
        if all && !self.all_disrupted {
            self.all_disrupted = true;
            for (i, h) in self.nodes.iter_mut().enumerate() {
                if h.tainted {
                    h.tainted = false;
                    out.after(SimDuration::ZERO, Out::NoExecute { node: NodeId(i as u32), add: false });
                }
            }
        } else if !all && self.all_disrupted {
            self.all_disrupted = false;
            for h in &mut self.nodes {
                h.probe = now;
            }
        }
    }
}
