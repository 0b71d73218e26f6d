//! Deployment and ReplicaSet fields the API server accepts but podsim does not
//! simulate. As for Pods (manifest/unsupported.rs), what would change the
//! answer is an error, what is left out on purpose a warning.
//!
//! Every field of a Deployment's spec is simulated (replicas, selector
//! matchLabels, template, strategy, minReadySeconds, revisionHistoryLimit,
//! progressDeadlineSeconds, paused), and every field of a ReplicaSet's, except:
//! - `spec.selector.matchExpressions` (error): the controllers select by matchLabels;
//! - `metadata.generateName` without a name (error), as for Pods;
//! - `metadata.ownerReferences` (error): there is no garbage collector, which
//!   would delete an object whose owners do not exist;
//! - `metadata.finalizers`, `metadata.deletionTimestamp`, `status` and what
//!   the API server writes itself (manifest/server_written.rs) (warnings);
//! - in the template, what the Pod check finds in the pod it makes (paths
//!   under `spec.template.`), and an image with surrounding whitespace, which
//!   the API server accepts in a template but refuses in every pod created from it.

use super::validation::IMAGE_WHITESPACE;
use crate::error::Severity;
use crate::manifest::server_written::{self, Generation};
use crate::manifest::unsupported::{self as pod_unsupported, Finding, error, warning};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};

/// Findings that are validation errors of a template, not unsupported fields.
const VALIDATED_IN_TEMPLATE: [&str; 1] = ["spec.ephemeralContainers"];

/// Every unsupported field of a defaulted Deployment or ReplicaSet with this
/// metadata and selector (`None` when not written), a non-empty `status` or
/// not, whose template makes `pod`.
pub fn check(meta: &ObjectMeta, selector: Option<&LabelSelector>, status: bool, pod: &Pod) -> Vec<Finding> {
    let mut out = Vec::new();
    if meta.name.is_none() && meta.generate_name.is_some() {
        out.push(error("metadata.generateName".into(), "podsim needs metadata.name; generateName is not supported"));
    }
    if meta.deletion_timestamp.is_some() || meta.deletion_grace_period_seconds.is_some() {
        out.push(warning(
            "metadata.deletionTimestamp".into(),
            "ignored: the API server clears deletion fields on create",
        ));
    }
    out.extend(server_written::findings(meta, Generation::SetToOne));
    if meta.owner_references.as_ref().is_some_and(|o| !o.is_empty()) {
        out.push(error(
            "metadata.ownerReferences".into(),
            "owner references are not simulated: the garbage collector would delete this object, whose owners do not exist",
        ));
    }
    if meta.finalizers.as_ref().is_some_and(|f| !f.is_empty()) {
        out.push(warning(
            "metadata.finalizers".into(),
            "nothing in the simulation removes finalizers: once deleted, the object stays",
        ));
    }
    if status {
        out.push(warning("status".into(), "ignored: the API server resets status on create"));
    }
    if selector.and_then(|s| s.match_expressions.as_ref()).is_some_and(|e| !e.is_empty()) {
        out.push(error(
            "spec.selector.matchExpressions".into(),
            "selector expressions are not simulated: the controllers select pods by matchLabels only",
        ));
    }
    let template =
        pod_unsupported::check(pod).into_iter().filter(|(path, _, _)| !VALIDATED_IN_TEMPLATE.contains(&path.as_str()));
    out.extend(template.map(|(path, severity, message)| (format!("spec.template.{path}"), severity, message)));
    out.extend(refused_images(pod));
    out
}

/// `validateContainersOnlyForPod`: the ReplicaSet controller's creates would all fail.
fn refused_images(pod: &Pod) -> Vec<Finding> {
    let Some(spec) = &pod.spec else { return Vec::new() };
    let lists = [
        ("containers", spec.containers.as_slice()),
        ("initContainers", spec.init_containers.as_deref().unwrap_or_default()),
    ];
    let mut out = Vec::new();
    for (list, containers) in lists {
        for (i, c) in containers.iter().enumerate() {
            let image = c.image.as_deref().unwrap_or("");
            if image.trim() != image {
                let message = format!(
                    "every pod created from this template would be refused (Invalid value: {image:?}: {IMAGE_WHITESPACE}): failed pod creations are not simulated"
                );
                out.push((format!("spec.template.spec.{list}[{i}].image"), Severity::Error, message));
            }
        }
    }
    out
}
