//! What the Service registry does on create before it validates: `REST.beginCreate`
//! (pkg/registry/core/service/storage/storage.go) runs `normalizeClusterIPs`, then
//! `Allocators.initIPFamilyFields` (alloc.go), which defaults `ipFamilyPolicy` and
//! `ipFamilies` and returns its errors alone (nothing about the name or the ports).
//!
//! podsim's clusters are IPv4 single-stack (one service CIDR, IPv4). Allocating
//! the cluster IP itself is the simulated API server's job, not the manifest's.

use super::cluster_ips::{IP_FAMILIES, family_of, validate_cluster_ips_related_fields};
use crate::manifest::field::{FieldError, go_strings};
use crate::manifest::validation::dedup;
use k8s_openapi::api::core::v1::{Service, ServiceSpec};

/// `serviceIPAllocatorsByFamily`: the families the cluster has a service range for.
const CONFIGURED_FAMILIES: [&str; 1] = ["IPv4"];
/// `defaultServiceIPFamily`: the family of `--service-cluster-ip-range`'s first range.
const DEFAULT_FAMILY: &str = "IPv4";

/// `beginCreate` up to allocation: the errors that stop the create before validation
/// (as `errors.NewInvalid` prints them: exact duplicates once).
pub fn begin_create(service: &mut Service) -> Vec<FieldError> {
    let spec = service.spec.get_or_insert_default();
    normalize_cluster_ips(spec);
    dedup(init_ip_family_fields(spec))
}

/// `normalizeClusterIPs`, create branch: `clusterIPs` from `clusterIP` when only the
/// singular is given (never the reverse).
fn normalize_cluster_ips(spec: &mut ServiceSpec) {
    let cluster_ip = spec.cluster_ip.as_deref().unwrap_or("");
    if !cluster_ip.is_empty() && spec.cluster_ips.as_ref().is_none_or(Vec::is_empty) {
        spec.cluster_ips = Some(vec![cluster_ip.to_string()]);
    }
}

/// `Allocators.initIPFamilyFields` with no old Service.
fn init_ip_family_fields(spec: &mut ServiceSpec) -> Vec<FieldError> {
    if spec.type_.as_deref() == Some("ExternalName") {
        return Vec::new();
    }
    let headless_selectorless =
        spec.cluster_ip.as_deref() == Some("None") && spec.selector.as_ref().is_none_or(|s| s.is_empty());
    if spec.ip_family_policy.is_none() {
        let policy = if headless_selectorless { "RequireDualStack" } else { "SingleStack" };
        spec.ip_family_policy = Some(policy.to_string());
    }
    let errs = validate_cluster_ips_related_fields(spec);
    if !errs.is_empty() {
        return errs;
    }
    let policy = spec.ip_family_policy.clone().unwrap_or_default();
    let policy_value = format!("{policy:?}");
    let mut errs = Vec::new();
    let ips = spec.cluster_ips.clone().unwrap_or_default();
    if policy == "SingleStack" {
        let multiple = "must be 'RequireDualStack' or 'PreferDualStack' when multiple";
        if ips.len() == 2 {
            let detail = format!("{multiple} cluster IPs are specified");
            errs.push(FieldError::invalid("spec.ipFamilyPolicy", &policy_value, &detail));
        }
        if spec.ip_families.as_ref().is_some_and(|f| f.len() == 2) {
            let detail = format!("{multiple} IP families are specified");
            errs.push(FieldError::invalid("spec.ipFamilyPolicy", &policy_value, &detail));
        }
    }
    // infer ipFamilies from the cluster IPs given
    for (i, ip) in ips.iter().enumerate() {
        if ip == "None" {
            break;
        }
        let family = family_of(ip);
        let families = spec.ip_families.get_or_insert_default();
        if i >= families.len() {
            if CONFIGURED_FAMILIES.contains(&family) {
                families.push(family.to_string());
            } else {
                let detail = format!("{family} is not configured on this cluster");
                errs.push(FieldError::invalid(format!("spec.clusterIPs[{i}]"), go_strings(Some(&ips)), &detail));
            }
        }
    }
    if spec.ip_families.as_ref().is_some_and(Vec::is_empty) {
        spec.ip_families = None;
    }
    if !errs.is_empty() {
        return errs;
    }
    let families = spec.ip_families.get_or_insert_default();
    if headless_selectorless {
        // may be dual-stack even on a single-stack cluster
        if families.is_empty() {
            families.push(DEFAULT_FAMILY.to_string());
        }
        if families.len() < 2 && policy != "SingleStack" {
            let other = if families[0] == IP_FAMILIES[0] { IP_FAMILIES[1] } else { IP_FAMILIES[0] };
            families.push(other.to_string());
        }
        return errs;
    }
    if policy == "RequireDualStack" && CONFIGURED_FAMILIES.len() < 2 {
        let detail = "this cluster is not configured for dual-stack services";
        errs.push(FieldError::invalid("spec.ipFamilyPolicy", &policy_value, detail));
    }
    for (i, family) in families.iter().enumerate() {
        if !CONFIGURED_FAMILIES.contains(&family.as_str()) {
            errs.push(FieldError::invalid(
                format!("spec.ipFamilies[{i}]"),
                format!("{family:?}"),
                "not configured on this cluster",
            ));
        }
    }
    if !errs.is_empty() {
        return errs;
    }
    if families.is_empty() {
        families.push(DEFAULT_FAMILY.to_string());
    }
    // a second family is only appended on a dual-stack cluster
    errs
}
