//! The `endpoints.kubernetes.io/last-change-trigger-time` annotation
//! (staging/src/k8s.io/endpointslice/util/trigger_time_tracker.go): the
//! earliest Ready transition among the pods that changed since the last
//! sync, or the Service's creation on its first sync.

use crate::api::pod::ApiPod;
use crate::api::service::{ApiService, ServiceId};
use crate::api::status::ConditionType;
use crate::time::SimTime;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

#[derive(Default)]
pub struct TriggerTimes {
    /// Per Service: each pod's Ready lastTransitionTime at the last sync.
    seen: HashMap<ServiceId, BTreeMap<Arc<str>, SimTime>>,
}

impl TriggerTimes {
    /// `ComputeEndpointLastChangeTriggerTime`, which also records the state.
    pub fn compute<'a>(&mut self, svc: &ApiService, pods: impl Iterator<Item = &'a ApiPod>) -> Option<SimTime> {
        let now: BTreeMap<Arc<str>, SimTime> = pods
            .filter_map(|p| {
                // API times are whole seconds.
                let ltt = p.status.condition(&ConditionType::Ready)?.last_transition;
                Some((Arc::from(p.spec.name.as_str()), ltt.floor_second()))
            })
            .collect();
        let before = self.seen.insert(svc.id, now.clone());
        let Some(before) = before else { return Some(svc.created.floor_second()) };
        now.iter().filter(|(name, t)| before.get(*name).is_none_or(|b| *t > b)).map(|(_, t)| *t).min()
    }
}
