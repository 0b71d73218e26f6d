//! The `endpoints.kubernetes.io/last-change-trigger-time` annotation
//! (staging/src/k8s.io/endpointslice/util/trigger_time_tracker.go): the
//! earliest Ready transition among the pods that changed since the last
//! sync, or the Service's creation on its first sync.

use crate::api::pod::ApiPod;
use crate::api::service::ApiService;
use crate::api::status::ConditionType;
use crate::ids::ServiceId;
use crate::spec::PodSpec;
use crate::time::SimTime;
use foldhash::HashMap;
use std::borrow::Borrow;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A pod's name, read through its shared spec: no copy of it per sync.
#[derive(Clone)]
struct PodName(Arc<PodSpec>);

impl Borrow<str> for PodName {
    fn borrow(&self) -> &str {
        &self.0.name
    }
}

impl PartialEq for PodName {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for PodName {}

/// Hashed as its name, so that a lookup by `&str` finds it.
impl Hash for PodName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.name.as_str().hash(state)
    }
}

#[derive(Default)]
pub struct TriggerTimes {
    /// Per Service: each pod's Ready lastTransitionTime at the last sync.
    seen: HashMap<ServiceId, HashMap<PodName, SimTime>>,
}

impl TriggerTimes {
    /// `ComputeEndpointLastChangeTriggerTime`, which also records the state.
    pub fn compute<'a>(&mut self, svc: &ApiService, pods: impl Iterator<Item = &'a ApiPod>) -> Option<SimTime> {
        let now: HashMap<PodName, SimTime> = pods
            .filter_map(|p| {
                // API times are whole seconds.
                let ltt = p.status.condition(&ConditionType::Ready)?.last_transition;
                Some((PodName(p.spec.clone()), ltt.floor_second()))
            })
            .collect();
        let changed = match self.seen.get(&svc.id) {
            None => Some(svc.meta.created.floor_second()),
            Some(before) => {
                let newer = |name: &PodName, t: &SimTime| before.get::<str>(name.borrow()).is_none_or(|b| t > b);
                now.iter().filter(|(name, t)| newer(name, t)).map(|(_, t)| *t).min()
            }
        };
        self.seen.insert(svc.id, now);
        changed
    }
}
