//! `ValidateResourceRequirements` (pkg/apis/core/validation/validation.go)
//! for a container's `resources`, after `SetDefaults_Pod` copied each
//! missing request from its limit: the resource names, and each request
//! against its limit. Quantities that do not decode or are negative are
//! `quantities`' errors.

use super::field::FieldError;
use super::validation::Errors;
use crate::api::quantity::Quantity;
use k8s_openapi::api::core::v1::ResourceRequirements;
use std::collections::BTreeMap;

/// The resources a container may name without a domain (`IsStandardContainerResourceName`).
fn standard(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage") || name.starts_with("hugepages-")
}

/// `helper.IsOvercommitAllowed`: a native resource (no domain, or
/// kubernetes.io's) other than huge pages may request below its limit.
fn overcommit_allowed(name: &str) -> bool {
    let native = match name.split_once('/') {
        None => true,
        Some((domain, _)) => domain == "kubernetes.io" || domain.ends_with(".kubernetes.io"),
    };
    native && !name.starts_with("hugepages-")
}

type List = BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>;

/// Each quantity of `list` that is not negative, by name (a quantity that
/// does not parse failed the decoding, a negative one `quantities::negative`),
/// and the errors of the names.
fn parsed(list: Option<&List>, path: &str, errs: &mut Errors) -> BTreeMap<String, Quantity> {
    let mut out = BTreeMap::new();
    for (name, q) in list.into_iter().flatten() {
        if !name.contains('/') && !standard(name) {
            // validateResourceName, then validateContainerResourceName.
            let at = format!("{path}[{name}]");
            let detail = "must be a standard resource type or fully qualified";
            errs.push(FieldError::invalid(&at, format!("{name:?}"), detail));
            errs.push(FieldError::invalid(&at, format!("{name:?}"), "must be a standard resource for containers"));
        }
        if let Some(v) = Quantity::parse(&q.0).ok().filter(|v| !v.is_negative()) {
            out.insert(name.clone(), v);
        }
    }
    out
}

pub(super) fn validate_resource_requirements(r: &ResourceRequirements, path: &str, errs: &mut Errors) {
    let limits = parsed(r.limits.as_ref(), &format!("{path}.limits"), errs);
    let requests = parsed(r.requests.as_ref(), &format!("{path}.requests"), errs);
    let req_path = format!("{path}.requests");
    for (name, q) in &requests {
        match limits.get(name) {
            Some(l) if q != l && !overcommit_allowed(name) => {
                errs.push(FieldError::invalid(
                    &req_path,
                    format!("\"{q}\""),
                    &format!("must be equal to {name} limit of {l}"),
                ));
            }
            Some(l) if q > l => errs.push(FieldError::invalid(
                &req_path,
                format!("\"{q}\""),
                &format!("must be less than or equal to {name} limit of {l}"),
            )),
            Some(_) => {}
            None if !overcommit_allowed(name) => errs.push(FieldError::required(
                format!("{path}.limits[{name}]"),
                "Limit must be set for non overcommitable resources",
            )),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(json: serde_json::Value) -> Vec<String> {
        let r: ResourceRequirements = serde_json::from_value(json).unwrap();
        let mut errs = Errors::new();
        validate_resource_requirements(&r, "spec.containers[0].resources", &mut errs);
        errs.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn a_request_above_its_limit() {
        let errs = check(serde_json::json!({"limits": {"cpu": "500m"}, "requests": {"cpu": "0.7"}}));
        assert_eq!(
            errs,
            [
                "spec.containers[0].resources.requests: Invalid value: \"700m\": must be less than or equal to cpu limit of 500m"
            ]
        );
        assert!(check(serde_json::json!({"limits": {"memory": "1Gi"}, "requests": {"memory": "1024Mi"}})).is_empty());
    }

    #[test]
    fn names() {
        // Negative quantities are `quantities::negative`'s, not repeated here.
        let errs = check(serde_json::json!({"requests": {"memroy": "1Gi", "cpu": "-1"}, "limits": {"cpu": "-2"}}));
        assert_eq!(
            errs,
            [
                "spec.containers[0].resources.requests[memroy]: Invalid value: \"memroy\": must be a standard resource type or fully qualified",
                "spec.containers[0].resources.requests[memroy]: Invalid value: \"memroy\": must be a standard resource for containers",
            ]
        );
        let errs = check(serde_json::json!({"requests": {"hugepages-2Mi": "2Mi"}}));
        assert_eq!(
            errs,
            [
                "spec.containers[0].resources.limits[hugepages-2Mi]: Required value: Limit must be set for non overcommitable resources"
            ]
        );
    }
}
