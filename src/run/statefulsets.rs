//! StatefulSets in a run's setup: their claim templates' binding modes,
//! and what `kubectl apply` of a changed StatefulSet may change.

use crate::error::Problem;
use crate::manifest::Manifests;
use crate::scenario::ActionOrigin;
use crate::spec::{BindingMode, StatefulSetSpec, StorageClass};
use std::sync::Arc;

/// The set with each claim template's class resolved as a claim's is
/// (`with_binding`): the default class where it names none.
pub fn with_bindings(s: &StatefulSetSpec, classes: &[StorageClass]) -> StatefulSetSpec {
    let mut s = s.clone();
    for t in &mut s.claim_templates {
        t.binding = BindingMode::of(t.storage_class.as_deref(), classes);
        if t.storage_class.is_none() {
            t.storage_class = classes.iter().find(|k| k.default).map(|k| k.name.clone());
        }
    }
    s
}

/// `ValidateStatefulSetUpdate`: only replicas, ordinals, template,
/// updateStrategy, revisionHistoryLimit, the retention policy and
/// minReadySeconds may change (the 1.34+ message, which lists
/// `revisionHistoryLimit`).
pub fn forbidden_update(before: &StatefulSetSpec, after: &StatefulSetSpec) -> Option<String> {
    let strip = |s: &StatefulSetSpec| {
        let mut spec = s.object.spec.clone();
        spec.replicas = None;
        spec.ordinals = None;
        spec.template = Default::default();
        spec.update_strategy = None;
        spec.revision_history_limit = None;
        spec.persistent_volume_claim_retention_policy = None;
        spec.min_ready_seconds = None;
        spec
    };
    (strip(before) != strip(after)).then(|| {
        "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', \
         'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' \
         are forbidden"
            .to_string()
    })
}

/// A StatefulSet the manifests or an `apply` file declare, by name.
pub fn known(
    manifests: &Manifests,
    applied: &[Manifests],
    name: &str,
    origin: &ActionOrigin,
) -> Result<Arc<str>, Problem> {
    let every = || std::iter::once(manifests).chain(applied).flat_map(|m| &m.stateful_sets);
    if every().any(|s| s.name == name) {
        return Ok(Arc::from(name));
    }
    let known: Vec<&str> = every().map(|s| s.name.as_str()).collect();
    let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
    Err(origin.problem("scale", format!("no StatefulSet named {name:?} in the manifests (StatefulSets: {known})")))
}

/// The pod is named as a StatefulSet's ordinal (`<set>-<n>`) and is no manifest Pod.
pub fn owns(manifests: &Manifests, applied: &[Manifests], pod: &str) -> bool {
    let every = || std::iter::once(manifests).chain(applied);
    let Some((parent, _)) = crate::control::statefulset::identity::parent_and_ordinal(pod) else { return false };
    !every().flat_map(|m| &m.pods).any(|p| p.name == pod)
        && every().flat_map(|m| &m.stateful_sets).any(|s| s.name == parent)
}
