//! The scenarios of `models/`, each checked against values derived from the
//! kubelet's rules (its source, named in each test), never from podsim's own
//! output.
//! Every test runs several seeds: the derivations hold for any latency the
//! profile can draw.

#[path = "../common/mod.rs"]
mod common;

mod active_deadline;
mod api_defaulting;
mod backoff_rule;
mod bound_pod;
mod c28_service;
mod crash_loop;
mod garbage_collector;
mod hooks;
mod inferred;
mod initial_delay;
mod kubelet_admission;
mod liveness_exec;
mod network_namespace;
mod node_ports;
mod ownership;
mod pod_composition;
mod pod_patch;
mod probe_actions;
mod probe_redirects;
mod readiness_delay;
mod readiness_gates;
mod relays;
mod replicaset;
mod restart_policy;
mod rollouts;
mod seed_asr;
mod service_path;
mod termination;

/// Seeds every scenario test runs.
const SEEDS: std::ops::Range<u64> = 1..9;
