//! A readiness-gate controller, as a load-balancer controller behaves: it
//! watches pods that carry its readiness gate and, `delay` after it sees the
//! pod's ContainersReady change, patches the gate's condition to match
//! (True once the target is registered and healthy, False when it is not).
//!
//! Its informer is fed as a change is written: the profile's watch latency
//! is drawn with its own delay and write, from its own stream.

use crate::api::pod::ApiPod;
use crate::api::status::ConditionType;
use crate::cluster::Cluster;
use crate::dist::Dist;
use crate::engine::Outbox;
use crate::ids::PodId;
use crate::rng::{Label, Stream, What};
use crate::scenario::GateController;
use crate::trace::record::WatchKind;
use foldhash::{HashSet, HashSetExt};
use std::sync::Arc;

/// A status patch a controller sent, due at the API server when its
/// watch, its delay and its write have passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatePatch {
    pub pod: PodId,
    pub condition: Arc<str>,
    pub status: bool,
}

pub struct Controllers {
    cluster: Arc<Cluster>,
    gates: Vec<(Arc<str>, Dist)>,
    /// Patches in flight, by pod and condition, so one change is acted on once.
    pending: HashSet<(PodId, Arc<str>)>,
    rng: Stream,
}

impl Controllers {
    pub fn new(gates: &[GateController], cluster: Arc<Cluster>, seed: u64) -> Self {
        Controllers {
            cluster,
            gates: gates.iter().map(|g| (Arc::from(g.condition.as_str()), g.delay.clone())).collect(),
            pending: HashSet::new(),
            rng: Stream::new(seed, "controllers/readiness-gate"),
        }
    }

    /// A pod change reached the controllers' informer: the patches they
    /// decide on.
    pub fn watched(&mut self, kind: WatchKind, pod: &ApiPod, out: &mut impl Outbox<GatePatch>) {
        if kind == WatchKind::Deleted || pod.meta.deletion.is_some() || self.gates.is_empty() {
            return;
        }
        let desired = pod.status.condition_true(&ConditionType::ContainersReady);
        for (condition, delay) in &self.gates {
            if !pod.spec.readiness_gates.iter().any(|g| **g == **condition) {
                continue;
            }
            let current = pod.status.condition(&ConditionType::Other(condition.clone())).map(|c| c.status);
            // Nothing to say until the pod is ready the first time.
            if current == Some(desired) || (current.is_none() && !desired) {
                continue;
            }
            if !self.pending.insert((pod.id, condition.clone())) {
                continue;
            }
            let lat = &self.cluster.latencies;
            let label = |what: What| move || Label::new(what, pod.spec.alias.clone()).with(&**condition);
            let after = lat.watch.sample(&mut self.rng, label(What::GateWatch))
                + delay.sample(&mut self.rng, label(What::GateDelay))
                + lat.controller_write.sample(&mut self.rng, label(What::GateWrite));
            out.after(after, GatePatch { pod: pod.id, condition: condition.clone(), status: desired });
        }
    }

    /// The patch was written (or dropped): the controller may act again.
    pub fn done(&mut self, patch: &GatePatch) {
        self.pending.remove(&(patch.pod, patch.condition.clone()));
    }
}
