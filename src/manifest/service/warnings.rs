//! The warnings the API server returns when it creates a valid Service (kubectl
//! prints them as `Warning: …`): `GetWarningsForService` (pkg/api/service/warnings.go),
//! in its order.
//!
//! Left out because they depend on the release, which the manifests are read
//! without: `spec.externalIPs is deprecated…` (1.36+), and the `PreferClose`
//! deprecation of `trafficDistribution` (1.35+, not confirmed for 1.34); podsim's
//! own warnings cover both fields. The CIDR-form warnings of
//! `loadBalancerSourceRanges` are left out too (LoadBalancer only, not simulated).

use super::ip::ip_warning;
use super::validation::{TOPOLOGY_AWARE_HINTS, TOPOLOGY_MODE};
use crate::source::key_path;
use k8s_openapi::api::core::v1::Service;

/// Each warning as (where it is written, the API server's text).
pub fn warnings_for_service(service: &Service) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if service.metadata.annotations.as_ref().is_some_and(|a| a.contains_key(TOPOLOGY_AWARE_HINTS)) {
        out.push((
            key_path("metadata.annotations", TOPOLOGY_AWARE_HINTS),
            format!("annotation {TOPOLOGY_AWARE_HINTS} is deprecated, please use {TOPOLOGY_MODE} instead"),
        ));
    }
    let Some(spec) = &service.spec else { return out };
    let service_type = spec.type_.as_deref().unwrap_or("");
    // helper.IsServiceIPSet: a cluster IP that is neither empty nor None
    if !matches!(spec.cluster_ip.as_deref().unwrap_or(""), "" | "None") {
        for (i, ip) in spec.cluster_ips.iter().flatten().enumerate() {
            let path = format!("spec.clusterIPs[{i}]");
            out.extend(ip_warning(&path, ip).map(|w| (path, w)));
        }
    }
    // isHeadlessService of warnings.go: type ClusterIP and clusterIP None
    if service_type == "ClusterIP" && spec.cluster_ip.as_deref() == Some("None") {
        if !spec.load_balancer_ip.as_deref().unwrap_or("").is_empty() {
            out.push(("spec.loadBalancerIP".into(), "spec.loadBalancerIP is ignored for headless services".into()));
        }
        if spec.external_ips.as_ref().is_some_and(|ips| !ips.is_empty()) {
            out.push(("spec.externalIPs".into(), "spec.externalIPs is ignored for headless services".into()));
        }
        if spec.session_affinity.as_deref() != Some("None") {
            // sic: capital S
            out.push(("spec.sessionAffinity".into(), "spec.SessionAffinity is ignored for headless services".into()));
        }
    }
    for (i, ip) in spec.external_ips.iter().flatten().enumerate() {
        let path = format!("spec.externalIPs[{i}]");
        out.extend(ip_warning(&path, ip).map(|w| (path, w)));
    }
    if let Some(ip) = spec.load_balancer_ip.as_deref().filter(|ip| !ip.is_empty()) {
        out.extend(ip_warning("spec.loadBalancerIP", ip).map(|w| ("spec.loadBalancerIP".to_string(), w)));
    }
    if service_type == "ExternalName" && spec.external_ips.as_ref().is_some_and(|ips| !ips.is_empty()) {
        out.push(("spec.externalIPs".into(), "spec.externalIPs is ignored when spec.type is \"ExternalName\"".into()));
    }
    if service_type != "ExternalName" && !spec.external_name.as_deref().unwrap_or("").is_empty() {
        let text = "spec.externalName is ignored when spec.type is not \"ExternalName\"";
        out.push(("spec.externalName".into(), text.into()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(service: serde_json::Value) -> Vec<String> {
        let service: Service = serde_json::from_value(service).expect("decodes");
        warnings_for_service(&service).into_iter().map(|(_, text)| text).collect()
    }

    #[test]
    fn api_server_warnings_in_order() {
        let service = json!({
            "metadata": {"name": "web", "annotations": {"service.kubernetes.io/topology-aware-hints": "Auto"}},
            "spec": {
                "type": "ClusterIP", "clusterIP": "010.96.0.5", "clusterIPs": ["010.96.0.5"],
                "externalIPs": ["::ffff:192.0.2.1"], "loadBalancerIP": "2001:DB8::1", "externalName": "example.com",
            },
        });
        assert_eq!(
            texts(service),
            [
                "annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead",
                r#"spec.clusterIPs[0]: non-standard IP address "010.96.0.5" will be considered invalid in a future Kubernetes release: use "10.96.0.5""#,
                r#"spec.externalIPs[0]: non-standard IP address "::ffff:192.0.2.1" will be considered invalid in a future Kubernetes release: use "192.0.2.1""#,
                r#"spec.loadBalancerIP: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")"#,
                r#"spec.externalName is ignored when spec.type is not "ExternalName""#,
            ]
        );
    }

    #[test]
    fn headless_services_ignore_some_fields() {
        let spec = json!({"type": "ClusterIP", "clusterIP": "None", "clusterIPs": ["None"], "loadBalancerIP": "192.0.2.1",
            "externalIPs": ["192.0.2.2"], "sessionAffinity": "ClientIP"});
        assert_eq!(
            texts(json!({"metadata": {"name": "web"}, "spec": spec})),
            [
                "spec.loadBalancerIP is ignored for headless services",
                "spec.externalIPs is ignored for headless services",
                "spec.SessionAffinity is ignored for headless services",
            ]
        );
    }

    #[test]
    fn a_standard_service_has_none() {
        let spec = json!({"type": "ClusterIP", "clusterIP": "10.96.0.5", "clusterIPs": ["10.96.0.5"], "sessionAffinity": "None"});
        assert!(texts(json!({"metadata": {"name": "web"}, "spec": spec})).is_empty());
    }
}
