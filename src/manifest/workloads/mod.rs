//! Deployment and ReplicaSet (apps/v1) manifests, read as the API server
//! creates them: decoded strictly (unknown fields are errors), defaulted
//! (`SetDefaults_Deployment`, `SetDefaults_ReplicaSet` and the pod defaults of
//! the template, defaults.rs), validated (`ValidateDeployment`,
//! `ValidateReplicaSet`, with the template's pod spec checked by the Pod
//! validation under `spec.template.spec`, validation.rs and selector.rs), then
//! checked for what podsim does not simulate (unsupported.rs) and typed
//! (build.rs).
//!
//! Reported, each at its file, line and field: decoding and unknown-field
//! errors; the API server's validation errors in its words; unsupported fields
//! (errors when they would change the answer, warnings when left out on
//! purpose); the API server's create warnings (warnings.rs); and what the
//! kubelet cannot run as written in the template's containers.
//!
//! `read_object` does not call these yet: it will once the controllers that run
//! Deployments and ReplicaSets exist.

mod build;
mod cronjob;
mod daemonset;
mod daemonset_validation;
mod defaults;
mod job;
mod job_validation;
pub use cronjob::read_cronjob;
pub use daemonset::read_daemon_set;
pub use job::{JOB_CONTROLLER, read_job};
mod selector;
mod statefulset;
pub(super) use selector::validate_selector;
pub use selector::{go_map, go_string};
pub use statefulset::{read_stateful_set, with_claim_volumes};
pub(super) use validation::{percent, shown, validate_int_or_percent, validate_object_meta};
mod unsupported;
mod validation;
mod warnings;

use super::field::FieldError;
use super::unsupported::Finding;
use super::{join, strict};
use crate::error::{Problem, Severity};
use crate::source::{Doc, decode_value};
use crate::spec::{DeploymentSpec, ReplicaSetSpec};
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Reads the Deployment `json` found at `prefix` of `doc`; its problems go to `problems`.
pub fn read_deployment(doc: &Doc, json: Value, prefix: &str, problems: &mut Vec<Problem>) -> Option<DeploymentSpec> {
    let mut deployment: Deployment = decode(doc, &json, prefix, problems)?;
    quantities_decode(doc, prefix, deployment.spec.template.spec.as_ref(), "Deployment", problems)?;
    defaults::set_defaults_deployment(&mut deployment);
    let namespace = deployment.metadata.namespace.clone();
    let pod = defaults::template_pod(&mut deployment.spec.template, namespace);
    let selector = selector_written(&json).then_some(&deployment.spec.selector);
    let errors = validation::validate_deployment(&deployment, selector, &pod);
    let status = deployment.status.as_ref().is_some_and(|s| s != &Default::default());
    let findings = unsupported::check(&deployment.metadata, selector, status, &pod);
    let reported = report(doc, prefix, errors, findings, problems);
    if !(quantities_valid(doc, prefix, &pod, problems) && reported) {
        return None;
    }
    let mut warnings = warnings::warnings_on_create(&deployment.metadata);
    warnings.extend(pod.spec.as_ref().map(template_warnings).unwrap_or_default());
    let (spec, kubelet) = build::deployment_spec(deployment, pod);
    warn(doc, prefix, warnings, kubelet, problems);
    Some(spec)
}

/// Reads the ReplicaSet `json` found at `prefix` of `doc`; its problems go to `problems`.
pub fn read_replica_set(doc: &Doc, json: Value, prefix: &str, problems: &mut Vec<Problem>) -> Option<ReplicaSetSpec> {
    let mut replica_set: ReplicaSet = decode(doc, &json, prefix, problems)?;
    let template = replica_set.spec.template.as_ref().and_then(|t| t.spec.as_ref());
    quantities_decode(doc, prefix, template, "ReplicaSet", problems)?;
    defaults::set_defaults_replica_set(&mut replica_set);
    let namespace = replica_set.metadata.namespace.clone();
    let pod = defaults::template_pod(replica_set.spec.template.get_or_insert_default(), namespace);
    let selector = selector_written(&json).then_some(&replica_set.spec.selector);
    let errors = validation::validate_replica_set(&replica_set, selector, &pod);
    let status = replica_set.status.as_ref().is_some_and(|s| s != &Default::default());
    let findings = unsupported::check(&replica_set.metadata, selector, status, &pod);
    let reported = report(doc, prefix, errors, findings, problems);
    if !(quantities_valid(doc, prefix, &pod, problems) && reported) {
        return None;
    }
    let mut warnings = warnings::warnings_on_create(&replica_set.metadata);
    warnings.extend(pod.spec.as_ref().map(template_warnings).unwrap_or_default());
    let (spec, kubelet) = build::replica_set_spec(replica_set, pod);
    warn(doc, prefix, warnings, kubelet, problems);
    Some(spec)
}

/// What `GetWarningsForPodTemplate` says of `spec.template` that podsim
/// checks: the negative grace (a Pod has none left to warn of: it is
/// converted to 1 first) and the ports.
fn template_warnings(spec: &k8s_openapi::api::core::v1::PodSpec) -> Vec<(String, String)> {
    let at = "spec.template.spec";
    let grace = super::pod_warnings::grace_warning(spec, at);
    grace.into_iter().chain(super::pod_warnings::port_warnings(spec, at)).collect()
}

/// Decodes `json` strictly: a type error or an unknown field is reported and gives `None`.
pub(super) fn decode<T: DeserializeOwned + Serialize>(
    doc: &Doc,
    json: &Value,
    prefix: &str,
    problems: &mut Vec<Problem>,
) -> Option<T> {
    let object: T = match decode_value(doc, json.clone(), prefix) {
        Ok(o) => o,
        Err(e) => {
            problems.push(e);
            return None;
        }
    };
    let unknown = strict::unknown_fields(json, &object);
    for path in &unknown {
        let full = join(prefix, path);
        problems.push(
            Problem::error(format!("strict decoding error: unknown field {full:?}"))
                .in_file(&doc.file, Some(doc.locate_key(&full))),
        );
    }
    unknown.is_empty().then_some(object)
}

/// The template's resource quantities decode (`quantities::undecodable`); `None` when one does not.
fn quantities_decode(
    doc: &Doc,
    prefix: &str,
    template: Option<&k8s_openapi::api::core::v1::PodSpec>,
    kind: &str,
    problems: &mut Vec<Problem>,
) -> Option<()> {
    let bad = template.map(|t| super::quantities::undecodable(t, "spec.template.spec", kind)).unwrap_or_default();
    let ok = bad.is_empty();
    problems.extend(bad.into_iter().map(|(at, message)| doc.problem(&join(prefix, &at), message)));
    ok.then_some(())
}

/// The template's resource quantities are not negative (`quantities::negative`).
fn quantities_valid(
    doc: &Doc,
    prefix: &str,
    pod: &k8s_openapi::api::core::v1::Pod,
    problems: &mut Vec<Problem>,
) -> bool {
    let bad = pod.spec.as_ref().map(|s| super::quantities::negative(s, "spec.template.spec")).unwrap_or_default();
    let ok = bad.is_empty();
    problems
        .extend(bad.into_iter().map(|(at, e)| doc.problem(&join(prefix, &at), e.body).field(join(prefix, &e.path))));
    ok
}

/// Whether `spec.selector` is written: the decoded object cannot tell a missing
/// selector (Go's nil, which selects nothing) from `{}` (which selects everything).
pub(super) fn selector_written(json: &Value) -> bool {
    json.get("spec").and_then(|s| s.get("selector")).is_some_and(|s| !s.is_null())
}

/// A problem about the API field `path`, located where the manifest writes it.
fn located(doc: &Doc, prefix: &str, path: &str, message: String) -> Problem {
    doc.problem(&join(prefix, &written_at(path)), message).field(join(prefix, path))
}

/// Where the manifest writes the field an error names: `ValidatePodTemplateSpec`
/// says `spec.template.labels` and `spec.template.annotations` for the
/// template's `metadata.labels` and `metadata.annotations`.
fn written_at(path: &str) -> String {
    for field in ["labels", "annotations"] {
        if let Some(rest) = path.strip_prefix(&format!("spec.template.{field}")) {
            return format!("spec.template.metadata.{field}{rest}");
        }
    }
    path.to_string()
}

/// Reports the validation errors and the unsupported fields: whether the object can be simulated.
fn report(
    doc: &Doc,
    prefix: &str,
    errors: Vec<FieldError>,
    findings: Vec<Finding>,
    problems: &mut Vec<Problem>,
) -> bool {
    let mut ok = errors.is_empty();
    for e in errors {
        problems.push(located(doc, prefix, &e.path, e.body));
    }
    for (path, severity, message) in findings {
        ok &= severity != Severity::Error;
        let mut p = located(doc, prefix, &path, message);
        p.severity = severity;
        problems.push(p);
    }
    ok
}

/// Reports the API server's create warnings (their text names the field) and
/// what the kubelet cannot run as the template writes it.
fn warn(
    doc: &Doc,
    prefix: &str,
    api: Vec<(String, String)>,
    kubelet: Vec<(String, String)>,
    problems: &mut Vec<Problem>,
) {
    for (path, text) in api {
        let mut p = located(doc, prefix, &path, text);
        p.field = None;
        p.severity = Severity::Warning;
        problems.push(p);
    }
    for (path, message) in kubelet {
        let mut p = located(doc, prefix, &path, message);
        p.severity = Severity::Warning;
        problems.push(p);
    }
}

#[cfg(test)]
mod tests;
