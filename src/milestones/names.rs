//! The subjects milestone names are about, and the seed-independent aliases
//! of pods a ReplicaSet created.
//!
//! A ReplicaSet's pods get random names (`web-5cb8c6cb66-sq5zk`) that differ
//! from seed to seed, so a milestone name never uses them. A pod is named:
//! - `pod/<deployment>@rev<k>#<n>` when its ReplicaSet belongs to a
//!   Deployment: `k` is the ReplicaSet's `deployment.kubernetes.io/revision`
//!   when the pod first appears in the trace, `n` counts the pods of that
//!   Deployment and revision in the order they first appear (1, 2, …);
//! - `pod/<replicaset>#<n>` when its ReplicaSet has no Deployment (or the
//!   trace never showed the ReplicaSet: then its name, as the owner
//!   reference gives it);
//! - `pod/<job>#<n>` for a Job's, `pod/<job>-<index>#<n>` for the n-th pod
//!   of an index of an Indexed Job;
//! - `pod/<daemonset>@<node>#<n>` for the n-th pod a DaemonSet created for
//!   that node (the node its `metadata.name` affinity names);
//! - `pod/<name>` otherwise: a pod the manifests or the scenario named.

use crate::api::pod::ApiPod;
use crate::api::replicaset::ApiReplicaSet;
use crate::ids::ServiceId;

use crate::control::deployment::revisions;
use crate::trace::Trace;
use crate::trace::record::Record;
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

/// A ReplicaSet as the aliases need it: its Deployment and current revision.
struct Rs {
    deployment: Option<Arc<str>>,
    revision: i64,
}

/// Every subject of one trace, by the handle records use for it.
#[derive(Default)]
pub struct Names {
    /// Pod UID → `pod/<alias>`.
    by_uid: HashMap<Arc<str>, Arc<str>>,
    /// Pod name → `pod/<alias>` (process records name the pod, not its UID).
    by_name: HashMap<Arc<str>, Arc<str>>,
    services: HashMap<ServiceId, String>,
}

impl Names {
    /// Reads the trace once: ReplicaSets before the pods they create, in
    /// trace order, so a pod sees its ReplicaSet's revision of the time.
    pub fn new(trace: &Trace) -> Names {
        let mut names = Names::default();
        let mut rss: HashMap<Arc<str>, Rs> = HashMap::new();
        let mut counts: HashMap<String, u32> = HashMap::new();
        for e in &trace.entries {
            match &e.record {
                Record::ReplicaSet { rs, .. } => {
                    rss.insert(rs.meta.uid.clone(), replicaset(rs));
                }
                Record::Pod { pod, .. } if !names.by_uid.contains_key(&pod.meta.uid) => {
                    let alias: Arc<str> = match group(pod, &rss) {
                        Some(group) => {
                            let n = counts.entry(group.clone()).or_default();
                            *n += 1;
                            format!("pod/{group}#{n}").into()
                        }
                        None => format!("pod/{}", pod.spec.name).into(),
                    };
                    names.by_name.insert(pod.spec.name.as_str().into(), alias.clone());
                    names.by_uid.insert(pod.meta.uid.clone(), alias);
                }
                Record::Service { svc, .. } => {
                    names.services.insert(svc.id, format!("svc/{}", svc.spec.name));
                }
                _ => {}
            }
        }
        names
    }

    /// `pod/<alias>` of the pod with this UID, else of the pod named `name`.
    pub fn pod(&self, uid: &str, name: &str) -> Arc<str> {
        self.by_uid.get(uid).cloned().unwrap_or_else(|| self.pod_named(name))
    }

    /// `pod/<alias>` of the pod last named `name`.
    pub fn pod_named(&self, name: &str) -> Arc<str> {
        self.by_name.get(name).cloned().unwrap_or_else(|| format!("pod/{name}").into())
    }

    /// `svc/<name>`, once the trace showed the Service.
    pub fn service(&self, id: ServiceId) -> Option<&str> {
        self.services.get(&id).map(String::as_str)
    }
}

fn replicaset(rs: &ApiReplicaSet) -> Rs {
    let deployment = rs.spec.owner.as_ref().filter(|o| o.kind == "Deployment").map(|o| o.name.clone());
    Rs { deployment, revision: revisions::revision(&rs.spec.annotations).unwrap_or(0) }
}

/// The group a controller's pod is numbered in: `<deployment>@rev<k>` or
/// `<replicaset>`, `<job>` or `<job>-<index>` for an Indexed Job's,
/// `<daemonset>@<node>`; `None` for a pod no controller owns.
fn group(pod: &ApiPod, rss: &HashMap<Arc<str>, Rs>) -> Option<String> {
    let owner = pod.spec.owner.as_ref()?;
    if owner.kind == "Job" {
        let index =
            pod.spec.object.metadata.annotations.as_ref().and_then(|a| a.get(crate::control::job::indexes::INDEX));
        return Some(match index {
            Some(i) => format!("{}-{i}", owner.name),
            None => owner.name.to_string(),
        });
    }
    if owner.kind == "DaemonSet" {
        let spec = pod.spec.object.spec.as_ref()?;
        let node = crate::control::daemon::pods::affinity_node_names(spec)?.first()?;
        return Some(format!("{}@{node}", owner.name));
    }
    let owner = Some(owner).filter(|o| o.kind == "ReplicaSet")?;
    Some(match rss.get(&owner.uid) {
        Some(Rs { deployment: Some(d), revision }) => format!("{d}@rev{revision}"),
        _ => owner.name.to_string(),
    })
}
