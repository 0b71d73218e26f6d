//! PersistentVolumeClaims in a run: created Pending; an Immediate one is
//! provisioned and bound at once, a WaitForFirstConsumer one once the
//! scheduler chose its first pod's node (PreBind), and that pod is bound
//! when all its claims are (the profile's `volumeProvision` latency stands
//! for the external provisioner and the PV controller).

use super::{PodId, World};
use crate::api::claim::{ApiClaim, ClaimPhase};
use crate::engine::Routed;
use crate::rng::{Label, What};
use crate::spec::{BindingMode, ClaimSpec};
use crate::time::SimTime;
use crate::trace::Record;
use crate::trace::record::WatchKind;
use std::sync::Arc;

impl World {
    /// A claim is created (the manifests', or applied).
    pub(super) fn create_claim(&mut self, spec: Arc<ClaimSpec>, now: SimTime) {
        let uid: Arc<str> = Arc::from(crate::api::uid(&mut self.claim_rng));
        let immediate = spec.binding == BindingMode::Immediate;
        let claim = ApiClaim {
            spec,
            uid,
            created: now,
            phase: ClaimPhase::Pending,
            volume: None,
            selected_node: None,
            removed: false,
        };
        self.claims.push(Arc::new(claim));
        let i = self.claims.len() - 1;
        self.claim_written(i, WatchKind::Added, now);
        if immediate {
            self.provision(i, now);
        }
    }

    /// The provisioner starts on claim `i`; the claim is bound after the profile's latency.
    fn provision(&mut self, i: usize, now: SimTime) {
        let claims = &self.claims;
        let d = (self.cluster.latencies.volume_provision)
            .sample(&mut self.claim_rng, || Label::new(What::VolumeProvision, format!("pvc/{}", claims[i].spec.name)));
        self.q.at(now + d, super::Ev::ClaimBound(i));
    }

    /// The scheduler chose `node` for `pod`: its WaitForFirstConsumer claims
    /// `names` are provisioned there (`volume.kubernetes.io/selected-node`),
    /// and the pod is bound once every one is bound.
    pub(super) fn bind_after_provisioning(&mut self, pod: PodId, node: Arc<str>, names: &[Arc<str>], now: SimTime) {
        let ns = self.api.pod(pod).spec.namespace.clone();
        let mut waiting = Vec::new();
        for name in names {
            let named = |c: &Arc<ApiClaim>| !c.removed && *c.spec.namespace == *ns && c.spec.name == *name;
            let Some(i) = self.claims.iter().position(named) else {
                continue;
            };
            if self.claims[i].phase == ClaimPhase::Bound {
                continue;
            }
            waiting.push(i);
            if self.claims[i].selected_node.is_none() {
                Arc::make_mut(&mut self.claims[i]).selected_node = Some(node.clone());
                self.claim_written(i, WatchKind::Modified, now);
                self.provision(i, now);
            }
        }
        match waiting.is_empty() {
            true => self.bind(pod, node, now),
            false => self.prebind.push((pod, node, waiting)),
        }
    }

    /// Claim `i` is bound to its new volume; pods whose PreBind waited only
    /// for it are bound.
    pub(super) fn claim_bound(&mut self, i: usize, now: SimTime) {
        let c = Arc::make_mut(&mut self.claims[i]);
        c.phase = ClaimPhase::Bound;
        c.volume = Some(Arc::from(format!("pvc-{}", c.uid)));
        self.claim_written(i, WatchKind::Modified, now);
        let claims = &self.claims;
        let bound = |w: &Vec<usize>| w.iter().all(|&j| claims[j].phase == ClaimPhase::Bound);
        let (ready, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.prebind).into_iter().partition(|(_, _, w)| bound(w));
        self.prebind = waiting;
        for (pod, node, _) in ready {
            self.bind(pod, node, now);
        }
    }

    /// The garbage collector deletes claim `i`, whose owner (a pod a
    /// StatefulSet scaled away, `whenScaled: Delete`) is gone.
    pub(super) fn delete_claim(&mut self, i: usize, now: SimTime) {
        if self.claims[i].removed {
            return;
        }
        Arc::make_mut(&mut self.claims[i]).removed = true;
        self.claim_written(i, WatchKind::Deleted, now);
    }

    /// The write is recorded and reaches the scheduler's claim informer.
    fn claim_written(&mut self, i: usize, kind: WatchKind, now: SimTime) {
        let claim = self.claims[i].clone();
        self.trace.push(now, Record::Claim { kind, claim: claim.clone() });
        let mut out = Routed { q: &mut self.q, route: super::Ev::Scheduler };
        self.scheduler.claim_changed(&claim, &mut out);
    }
}
