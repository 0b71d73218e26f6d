//! The VolumeBinding plugin's PreFilter, as far as podsim models volumes: a
//! pod's PersistentVolumeClaims must exist, and an Immediate one must be
//! bound; a WaitForFirstConsumer one is provisioned on the node chosen
//! (pkg/scheduler/framework/plugins/volumebinding: `podHasPVCs`,
//! `GetPodVolumeClaims`).

use crate::api::claim::{ApiClaim, ClaimPhase};
use crate::spec::BindingMode;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The claims the scheduler's informer holds, by (namespace, name).
#[derive(Default)]
pub struct Claims(BTreeMap<(Arc<str>, Arc<str>), (BindingMode, ClaimPhase)>);

impl Claims {
    pub fn observe(&mut self, c: &ApiClaim) {
        let key = (c.spec.namespace.clone(), c.spec.name.clone());
        match c.removed {
            true => self.0.remove(&key),
            false => self.0.insert(key, (c.spec.binding, c.phase)),
        };
    }

    /// The pod's unbound WaitForFirstConsumer claims, or why it cannot be
    /// scheduled: `persistentvolumeclaim "data" not found` (the lister's
    /// NotFound), `pod has unbound immediate PersistentVolumeClaims`.
    pub fn pre_filter(&self, namespace: &str, claims: &[Arc<str>]) -> Result<Vec<Arc<str>>, String> {
        let mut provision = Vec::new();
        let mut immediate_unbound = false;
        for name in claims {
            match self.0.get(&(Arc::from(namespace), name.clone())) {
                None => return Err(format!("persistentvolumeclaim {:?} not found", &**name)),
                Some((_, ClaimPhase::Bound)) => {}
                Some((BindingMode::Immediate, ClaimPhase::Pending)) => immediate_unbound = true,
                Some((BindingMode::WaitForFirstConsumer, ClaimPhase::Pending)) => {
                    if !provision.contains(name) {
                        provision.push(name.clone());
                    }
                }
            }
        }
        match immediate_unbound {
            true => Err("pod has unbound immediate PersistentVolumeClaims".into()),
            false => Ok(provision),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ClaimSpec;
    use crate::time::SimTime;

    fn claim(name: &str, binding: BindingMode, phase: ClaimPhase) -> ApiClaim {
        let spec = ClaimSpec {
            name: Arc::from(name),
            namespace: Arc::from("default"),
            storage_class: None,
            binding,
            access_modes: vec![Arc::from("ReadWriteOnce")],
            storage: Arc::from("1Gi"),
            volume_mode: Arc::from("Filesystem"),
        };
        ApiClaim {
            spec: Arc::new(spec),
            uid: Arc::from("u"),
            created: SimTime::ZERO,
            phase,
            volume: None,
            selected_node: None,
            removed: false,
        }
    }

    #[test]
    fn missing_and_unbound_immediate_claims_reject_the_pod() {
        let mut c = Claims::default();
        let names = |n: &[&str]| n.iter().map(|s| Arc::from(*s)).collect::<Vec<Arc<str>>>();
        assert_eq!(c.pre_filter("default", &names(&["data"])), Err("persistentvolumeclaim \"data\" not found".into()));
        c.observe(&claim("data", BindingMode::Immediate, ClaimPhase::Pending));
        assert_eq!(
            c.pre_filter("default", &names(&["data"])),
            Err("pod has unbound immediate PersistentVolumeClaims".into())
        );
        assert_eq!(c.pre_filter("other", &names(&["data"])), Err("persistentvolumeclaim \"data\" not found".into()));
        c.observe(&claim("data", BindingMode::Immediate, ClaimPhase::Bound));
        c.observe(&claim("logs", BindingMode::WaitForFirstConsumer, ClaimPhase::Pending));
        assert_eq!(c.pre_filter("default", &names(&["data", "logs"])), Ok(names(&["logs"])));
    }
}
