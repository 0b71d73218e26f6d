//! The scenarios of `models/`, each checked against values derived from the
//! kubelet's rules (../shared/semantics/), never from podsim's own output.
//! Every test runs several seeds: the derivations hold for any latency the
//! profile can draw.

#[path = "../common/mod.rs"]
mod common;

mod backoff_rule;
mod c28_service;
mod crash_loop;
mod hooks;
mod liveness_exec;
mod ownership;
mod pod_composition;
mod probe_actions;
mod readiness_delay;
mod readiness_gates;
mod replicaset;
mod restart_policy;
mod rollouts;
mod seed_asr;
mod service_path;
mod termination;

/// Seeds every scenario test runs.
const SEEDS: std::ops::Range<u64> = 1..9;
