//! The kubelet's pod config (pkg/kubelet/config): its API source watches
//! the pods bound to its node (`NewSourceApiserver`, a field selector on
//! `spec.nodeName`), and `podStorage.merge` turns each change into the
//! operation the kubelet handles, dropping the ones that change nothing it
//! acts on.
//!
//! podsim applies this as a change leaves the API server for the node: a
//! change the kubelet would drop draws no watch latency. The kubelet's own
//! status writes come back to it as the PATCH's answer
//! ([`Ev::StatusPatched`](super::Ev)), not as watch events: their echo only
//! reconciles a status the kubelet generated itself.

use super::{Ev, PodUpdate};
use crate::api::pod::ApiPod;
use crate::ids::PodId;
use crate::trace::record::WatchKind;
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

/// The pods one kubelet's source has seen, as it last saw them.
pub struct PodConfig {
    node: Arc<str>,
    pods: HashMap<PodId, Arc<ApiPod>>,
}

impl PodConfig {
    pub fn new(node: Arc<str>) -> Self {
        PodConfig { node, pods: HashMap::new() }
    }

    /// A watch event of `pod` written by another client than this kubelet;
    /// the kubelet's operation for it, if any. `removed_next`: the same
    /// write removes the pod at once (a grace-0 deletion), so its watchers
    /// see one DELETED.
    pub fn change(&mut self, kind: WatchKind, pod: &Arc<ApiPod>, removed_next: bool) -> Option<Ev> {
        if pod.node.as_deref() != Some(&*self.node) {
            return None;
        }
        let id = pod.id;
        if kind == WatchKind::Deleted {
            return self.pods.remove(&id).map(|_| Ev::PodRemoved { pod: id });
        }
        let Some(old) = self.pods.insert(id, pod.clone()) else {
            // ADDED, or the binding that put it on this node.
            return Some(Ev::PodAdded {
                pod: id,
                spec: pod.spec.clone(),
                uid: pod.meta.uid.clone(),
                generation: pod.meta.generation,
                stored: pod.clone(),
            });
        };
        if removed_next || !changed(&old, pod) {
            return None;
        }
        let update = PodUpdate {
            spec: pod.spec.clone(),
            deletion_grace: pod.meta.deletion.map(|d| d.grace_seconds),
            generation: pod.meta.generation,
            stored: pod.clone(),
        };
        Some(Ev::PodUpdated { pod: id, update })
    }
}

/// `checkAndUpdatePod` with `podsDifferSemantically` (spec, labels,
/// annotations, deletion fields): an UPDATE when the pod differs (spec
/// or deletion: the changes that bump its generation, or a shorter grace),
/// a RECONCILE when only its status does; ownerReferences alone change
/// nothing. Another client writes only the conditions the kubelet does not
/// own (the kubelet's own writes never reach here), so those are the
/// status compared.
fn changed(old: &ApiPod, new: &ApiPod) -> bool {
    old.meta.generation != new.meta.generation
        || old.meta.deletion != new.meta.deletion
        || !old.status.other_conditions().eq(new.status.other_conditions())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiServer;
    use crate::api::status::{Condition, ConditionType, PodStatus};
    use crate::error::SourceFile;
    use crate::manifest::Manifests;
    use crate::time::SimTime;
    use crate::trace::{Record, Trace};

    fn spec() -> Arc<crate::spec::PodSpec> {
        let text =
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: app, image: nginx}]\n";
        let file = Arc::new(SourceFile { name: "p.yaml".into(), text: text.into() });
        Arc::new(Manifests::load(&[file]).unwrap().pods.remove(0))
    }

    /// Each watch record since `from`, through the node's pod source, as the
    /// kubelet's operation (`own`: the kubelet wrote them, so they do not go
    /// through it).
    fn ops(config: &mut PodConfig, trace: &Trace, from: usize, own: bool) -> Vec<String> {
        let entries = &trace.entries[from..];
        let mut out = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let Record::Pod { kind, pod } = &e.record else { continue };
            let removed_next =
                matches!(entries.get(i + 1).map(|e| &e.record), Some(Record::Pod { kind: WatchKind::Deleted, .. }));
            let op = if own && *kind == WatchKind::Modified { None } else { config.change(*kind, pod, removed_next) };
            out.push(match op {
                None => "-".to_string(),
                Some(Ev::PodAdded { generation, .. }) => format!("ADD gen {generation}"),
                Some(Ev::PodUpdated { update, .. }) => format!("UPDATE grace {:?}", update.deletion_grace),
                Some(Ev::PodRemoved { .. }) => "REMOVE".to_string(),
                Some(other) => format!("{other:?}"),
            });
        }
        out
    }

    /// A pod reaches its node's kubelet when bound (ADD), not before; the
    /// kubelet's own status write is no operation, another client's
    /// condition is (a reconcile), as is a graceful deletion (an UPDATE
    /// with the grace); the kubelet's final grace-0 DELETE is one REMOVE.
    #[test]
    fn the_pod_source_turns_watch_events_into_the_kubelets_operations() {
        let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
        let mut config = PodConfig::new(Arc::from("n1"));
        let mut other = PodConfig::new(Arc::from("n2"));
        let now = SimTime::ZERO;
        let id = api.create(spec(), now, &mut trace);
        api.bind(id, "n1".into(), now, &mut trace);
        assert_eq!(ops(&mut config, &trace, 0, false), ["-", "ADD gen 1"]);
        assert_eq!(ops(&mut other, &trace, 0, false), ["-", "-"]);

        let from = trace.entries.len();
        let mut status = PodStatus::new(api.pod(id).status.qos);
        status.phase = crate::api::status::PodPhase::Running;
        api.patch_status(id, status, now, &mut trace);
        assert_eq!(ops(&mut config, &trace, from, true), ["-"]);

        let from = trace.entries.len();
        let gate = Condition::new(ConditionType::Other("example.com/ready".into()), true);
        api.set_condition(id, gate, now, &mut trace);
        api.delete(id, None, SimTime::from_millis(1000), &mut trace);
        assert_eq!(ops(&mut config, &trace, from, false), ["UPDATE grace None", "UPDATE grace Some(30)"]);

        let from = trace.entries.len();
        let uid = api.pod(id).meta.uid.clone();
        assert!(api.delete_final(id, &uid, SimTime::from_millis(2000), &mut trace));
        assert_eq!(ops(&mut config, &trace, from, true), ["-", "REMOVE"]);
    }
}
