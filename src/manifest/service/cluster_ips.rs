//! `ValidateServiceClusterIPsRelatedFields` (pkg/apis/core/validation/validation.go):
//! `clusterIP` and `clusterIPs` in step, `ipFamilies`, `ipFamilyPolicy`, and each
//! cluster IP's family. Run by the registry before allocation (create.rs) and
//! again by `validateService`.

use super::ip::{is_ipv6, legacy_ip_error, parse_ip_sloppy};
use crate::manifest::field::{FieldError, go_strings};
use crate::manifest::validation::Errors;
use foldhash::{HashSet, HashSetExt};
use k8s_openapi::api::core::v1::ServiceSpec;

/// `supportedServiceIPFamily`, as `sets.List` sorts it.
pub const IP_FAMILIES: [&str; 2] = ["IPv4", "IPv6"];
/// `supportedServiceIPFamilyPolicy`, as `sets.List` sorts it.
const IP_FAMILY_POLICIES: [&str; 3] = ["PreferDualStack", "RequireDualStack", "SingleStack"];

/// `ValidateServiceClusterIPsRelatedFields` for a create (no old Service).
pub fn validate_cluster_ips_related_fields(spec: &ServiceSpec) -> Errors {
    let mut errs = Errors::new();
    if spec.type_.as_deref() == Some("ExternalName") {
        return errs;
    }
    let ips = spec.cluster_ips.as_deref().unwrap_or_default();
    let ips_value = go_strings(spec.cluster_ips.as_deref());
    if !spec.cluster_ip.as_deref().unwrap_or("").is_empty() {
        if ips.is_empty() {
            errs.push(FieldError::required("spec.clusterIPs", ""));
        } else if Some(ips[0].as_str()) != spec.cluster_ip.as_deref() {
            errs.push(FieldError::invalid("spec.clusterIPs", &ips_value, "first value must match `clusterIP`"));
        }
    } else if !ips.is_empty() {
        let detail = "must be empty when `clusterIP` is not specified";
        errs.push(FieldError::invalid("spec.clusterIPs", &ips_value, detail));
    }
    let mut seen = HashSet::new();
    for (i, family) in spec.ip_families.iter().flatten().enumerate() {
        let path = format!("spec.ipFamilies[{i}]");
        if !IP_FAMILIES.contains(&family.as_str()) {
            errs.push(FieldError::not_supported(&path, family, &IP_FAMILIES));
        }
        if !seen.insert(family) {
            errs.push(FieldError::duplicate(&path, family));
        }
    }
    if let Some(policy) = spec.ip_family_policy.as_deref().filter(|p| !IP_FAMILY_POLICIES.contains(p)) {
        errs.push(FieldError::not_supported("spec.ipFamilyPolicy", policy, &IP_FAMILY_POLICIES));
    }
    let mut has_invalid_ips = false;
    for (i, ip) in ips.iter().enumerate() {
        if i == 0 && ip == "None" {
            if ips.len() > 1 {
                has_invalid_ips = true;
                errs.push(FieldError::invalid(
                    "spec.clusterIPs",
                    &ips_value,
                    "'None' must be the first and only value",
                ));
            }
            continue;
        }
        if let Some(e) = legacy_ip_error(&format!("spec.clusterIPs[{i}]"), ip) {
            has_invalid_ips = true;
            errs.push(e);
        }
    }
    if ips.len() > 2 {
        errs.push(FieldError::invalid("spec.clusterIPs", &ips_value, "may only hold up to 2 values"));
    }
    // a bad IP would skew the family checks below
    if has_invalid_ips {
        return errs;
    }
    // netutils.IsDualStackIPStrings
    if ips.len() > 1 && !(ips.iter().any(|ip| is_ipv6(ip)) && ips.iter().any(|ip| !is_ipv6(ip))) {
        let detail = "may specify no more than one IP for each IP family";
        errs.push(FieldError::invalid("spec.clusterIPs", &ips_value, detail));
    }
    let families = spec.ip_families.as_deref().unwrap_or_default();
    if !is_headless(spec) {
        for (i, (ip, family)) in ips.iter().zip(families).enumerate() {
            let expected = match (family.as_str(), is_ipv6(ip)) {
                ("IPv4", true) => "IPv4",
                ("IPv6", false) => "IPv6",
                _ => continue,
            };
            let detail = format!("expected an {expected} value as indicated by `ipFamilies[{i}]`");
            errs.push(FieldError::invalid(format!("spec.clusterIPs[{i}]"), format!("{ip:?}"), &detail));
        }
    }
    errs
}

/// `isHeadlessService` of validation.go: `clusterIPs` is exactly `["None"]`.
pub fn is_headless(spec: &ServiceSpec) -> bool {
    matches!(spec.cluster_ips.as_deref(), Some([only]) if only == "None")
}

/// `familyOf` (alloc.go) of a valid IP.
pub fn family_of(ip: &str) -> &'static str {
    match parse_ip_sloppy(ip) {
        Some(std::net::IpAddr::V6(_)) => "IPv6",
        _ => "IPv4",
    }
}
