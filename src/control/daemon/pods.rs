//! The pods a DaemonSet creates (`CreatePodTemplate` in daemonset_util.go,
//! then `syncNodes`' node-name affinity) and how the controller reads them:
//! the node a pod is for (`GetTargetNodeName`), whether it runs the current
//! template (`IsPodUpdated`), the template's hash (`ComputeHash`).

use super::eligibility::daemon_tolerations;
use crate::api::controllerrevision::NewRevision;
use crate::api::daemonset::ApiDaemonSet;
use crate::api::pod::ApiPod;
use crate::control::deployment::hash::pod_template_hash;
use crate::spec::PodSpec;
use k8s_openapi::api::core::v1::{
    Affinity, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodSpec as CorePodSpec,
};
use std::sync::Arc;

/// `apps.DefaultDaemonSetUniqueLabelKey` (= `ControllerRevisionHashLabelKey`).
pub const REVISION_HASH: &str = "controller-revision-hash";
/// `extensions.DaemonSetTemplateGenerationKey`.
pub const TEMPLATE_GENERATION: &str = "pod-template-generation";

/// `controller.ComputeHash` of the DaemonSet's template (podsim's canonical
/// bytes, as for Deployments): the ControllerRevision's name suffix and the
/// `controller-revision-hash` of its pods.
pub fn template_hash(ds: &ApiDaemonSet) -> String {
    let canonical = serde_json::to_vec(&ds.spec.template.object).unwrap_or_default();
    pod_template_hash(&canonical, None)
}

/// The template's pod for `node`: the two labels, the daemon tolerations,
/// the required node affinity replaced by `metadata.name In [node]`
/// (`ReplaceDaemonSetPodNodeNameNodeAffinity`: the user's required terms
/// are dropped, preferred ones kept), and the controller reference. The
/// API server names it from `<ds>-`; the default scheduler binds it.
pub fn new_pod(ds: &ApiDaemonSet, node: &str, hash: &str) -> Arc<PodSpec> {
    let t = &ds.spec.template;
    let mut pod = t.pod.clone();
    pod.namespace = ds.spec.namespace.clone();
    pod.labels = t.labels.clone();
    pod.labels.insert(REVISION_HASH.into(), hash.to_string());
    pod.labels.insert(TEMPLATE_GENERATION.into(), ds.template_generation.to_string());
    pod.owner = Some(ds.as_owner());
    let written = ds.spec.pod_spec();
    let spec = pod.object.spec.get_or_insert_default();
    spec.tolerations = Some(daemon_tolerations(&written.tolerations.unwrap_or_default(), pod.host_network));
    spec.affinity = Some(node_name_affinity(spec.affinity.take(), node));
    let meta = &mut pod.object.metadata;
    meta.labels = Some(pod.labels.clone());
    meta.annotations = (!t.annotations.is_empty()).then(|| t.annotations.clone());
    meta.namespace = Some(pod.namespace.clone());
    Arc::new(pod)
}

/// `ReplaceDaemonSetPodNodeNameNodeAffinity`.
fn node_name_affinity(affinity: Option<Affinity>, node: &str) -> Affinity {
    let mut affinity = affinity.unwrap_or_default();
    let node_affinity = affinity.node_affinity.get_or_insert_with(NodeAffinity::default);
    node_affinity.required_during_scheduling_ignored_during_execution = Some(NodeSelector {
        node_selector_terms: vec![NodeSelectorTerm {
            match_expressions: None,
            match_fields: Some(vec![NodeSelectorRequirement {
                key: "metadata.name".into(),
                operator: "In".into(),
                values: Some(vec![node.to_string()]),
            }]),
        }],
    });
    affinity
}

/// The nodes a pod's required node affinity names by `metadata.name In`
/// in its only term (NodeAffinity's PreFilter `getPodNodeNames`... as the
/// DaemonSet controller writes it): `None` when it names none.
pub fn affinity_node_names(spec: &CorePodSpec) -> Option<&[String]> {
    let required = spec.affinity.as_ref()?.node_affinity.as_ref()?;
    let terms = &required.required_during_scheduling_ignored_during_execution.as_ref()?.node_selector_terms;
    let [term] = terms.as_slice() else { return None };
    let fields = term.match_fields.as_deref()?;
    let [r] = fields else { return None };
    (r.key == "metadata.name" && r.operator == "In").then(|| r.values.as_deref().unwrap_or_default())
}

/// `snapshot`: the ControllerRevision `<ds>-<hash>` of the template, with
/// the template's labels and the hash, the DaemonSet's annotations, and the
/// patch that restores the template (`getPatch`).
pub fn new_revision(ds: &ApiDaemonSet, hash: &str, number: i64) -> NewRevision {
    let mut labels = ds.spec.template.labels.clone();
    labels.insert(REVISION_HASH.into(), hash.to_string());
    let mut annotations = ds.spec.annotations.clone();
    annotations.insert(crate::api::daemonset::TEMPLATE_GENERATION.into(), ds.template_generation.to_string());
    NewRevision {
        name: format!("{}-{hash}", ds.spec.name),
        namespace: ds.spec.namespace.clone(),
        labels,
        annotations,
        owner: ds.as_owner(),
        revision: number,
        template: Arc::new(ds.spec.template.clone()),
    }
}

/// `util.GetTargetNodeName`: the bound node, else the one its node-name
/// affinity names.
pub fn target_node(pod: &ApiPod) -> Option<&str> {
    if let Some(n) = pod.node.as_deref() {
        return Some(n);
    }
    let names = affinity_node_names(pod.spec.object.spec.as_ref()?)?;
    match names {
        [n] => Some(n.as_str()),
        _ => None,
    }
}

/// `util.IsPodUpdated`: the pod carries the current hash, or the current
/// template generation.
pub fn is_updated(pod: &ApiPod, hash: &str, template_generation: i64) -> bool {
    let labels = &pod.spec.labels;
    labels.get(REVISION_HASH).is_some_and(|h| h == hash)
        || labels.get(TEMPLATE_GENERATION).is_some_and(|g| *g == template_generation.to_string())
}
