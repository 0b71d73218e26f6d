//! A readiness-gate controller, as a load-balancer controller behaves: it
//! watches pods that carry its readiness gate and, `delay` after it sees the
//! pod's ContainersReady change, patches the gate's condition to match
//! (True once the target is registered and healthy, False when it is not).

use crate::api::pod::ApiPod;
use crate::api::status::ConditionType;
use crate::dist::Dist;
use crate::ids::PodId;
use crate::rng::Stream;
use crate::scenario::GateController;
use crate::time::SimDuration;
use foldhash::{HashSet, HashSetExt};
use std::sync::Arc;

/// A status patch a controller decided to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatePatch {
    pub pod: PodId,
    pub condition: Arc<str>,
    pub status: bool,
    /// From the pod change it saw to the write reaching the API server.
    pub after: SimDuration,
}

pub struct Controllers {
    gates: Vec<(Arc<str>, Dist)>,
    /// Patches in flight, by pod and condition, so one change is acted on once.
    pending: HashSet<(PodId, Arc<str>)>,
    rng: Stream,
}

impl Controllers {
    pub fn new(gates: &[GateController], seed: u64) -> Self {
        Controllers {
            gates: gates.iter().map(|g| (Arc::from(g.condition.as_str()), g.delay.clone())).collect(),
            pending: HashSet::new(),
            rng: Stream::new(seed, "controllers/readiness-gate"),
        }
    }

    /// A pod change reached the controllers' watch (`watch` is the delivery
    /// delay); returns the patches they decide on.
    pub fn observe(&mut self, pod: &ApiPod, watch: &Dist, write: &Dist) -> Vec<GatePatch> {
        let mut out = Vec::new();
        if pod.meta.removed || pod.meta.deletion.is_some() {
            return out;
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
            let after = watch.sample(&mut self.rng) + delay.sample(&mut self.rng) + write.sample(&mut self.rng);
            out.push(GatePatch { pod: pod.id, condition: condition.clone(), status: desired, after });
        }
        out
    }

    /// The patch was written (or dropped): the controller may act again.
    pub fn done(&mut self, patch: &GatePatch) {
        self.pending.remove(&(patch.pod, patch.condition.clone()));
    }
}
