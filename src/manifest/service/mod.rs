//! Service (v1) manifests: decoded strictly, then put through the API server's
//! create path — `SetDefaults_Service` (defaults.rs), the registry's
//! `beginCreate` (create.rs, whose errors come alone), `ValidateServiceCreate`
//! (validation.rs, cluster_ips.rs, ip.rs) and `GetWarningsForService`
//! (warnings.rs) — then checked for what podsim does not simulate
//! (unsupported.rs) and typed (build.rs). Once every object is read, each
//! named `targetPort` is checked against the pods the Service selects
//! (target_ports.rs).

mod build;
mod cluster_ips;
mod create;
mod defaults;
mod ip;
mod target_ports;
mod unsupported;
mod validation;
mod warnings;

use super::{join, strict};
use crate::error::{Problem, Severity};
use crate::source::{Doc, decode_value};
use crate::spec::ServiceSpec;
use k8s_openapi::api::core::v1::Service;
use serde_json::Value;

/// Reads the Service `json` found at `prefix` of `doc`; its problems go to `problems`.
pub fn read_service(doc: &Doc, json: Value, prefix: &str, problems: &mut Vec<Problem>) -> Option<ServiceSpec> {
    let mut service: Service = match decode_value(doc, json.clone(), prefix) {
        Ok(s) => s,
        Err(e) => {
            problems.push(e);
            return None;
        }
    };
    let unknown = strict::unknown_fields(&json, &service);
    for path in &unknown {
        let full = join(prefix, path);
        problems.push(
            Problem::error(format!("strict decoding error: unknown field {full:?}"))
                .in_file(&doc.file, Some(doc.locate_key(&full))),
        );
    }
    if !unknown.is_empty() {
        return None;
    }
    let located = |path: &str, message: String| doc.problem(&join(prefix, &written_at(&json, path)), message);
    defaults::set_defaults_service(&mut service);
    let begin_errors = create::begin_create(&mut service);
    let errors = if begin_errors.is_empty() { validation::validate_service_create(&service) } else { begin_errors };
    let mut ok = errors.is_empty();
    for e in errors {
        problems.push(located(&e.path, e.body).field(join(prefix, &e.path)));
    }
    for (path, severity, message) in unsupported::check(&service) {
        ok &= severity != Severity::Error;
        let mut p = located(&path, message);
        p.severity = severity;
        problems.push(p);
    }
    if !ok {
        return None;
    }
    for (path, text) in warnings::warnings_for_service(&service) {
        // the text is the API server's, field path included
        let mut p = located(&path, text);
        p.field = None;
        p.severity = Severity::Warning;
        problems.push(p);
    }
    Some(build::service_spec(service))
}

/// Where the manifest writes the field an error names: `spec.clusterIPs` when only
/// `clusterIP` is written is that, and validation.go capitalises
/// `spec.LoadBalancerSourceRanges`.
fn written_at(json: &Value, path: &str) -> String {
    let spec = json.get("spec");
    if let Some(rest) = path.strip_prefix("spec.clusterIPs")
        && spec.and_then(|s| s.get("clusterIPs")).is_none()
        && (rest.is_empty() || rest == "[0]")
    {
        return "spec.clusterIP".to_string();
    }
    match path.strip_prefix("spec.LoadBalancerSourceRanges") {
        Some(rest) => format!("spec.loadBalancerSourceRanges{rest}"),
        None => path.to_string(),
    }
}

#[cfg(test)]
mod tests;
