//! API-server validation of a Service on create: `ValidateServiceCreate`
//! (pkg/apis/core/validation/validation.go), `ValidateObjectMeta` then
//! `validateService`, in their order. Go iterates maps (labels, selector,
//! annotations) in random order; podsim sorts their keys.

use super::cluster_ips::{is_headless, validate_cluster_ips_related_fields};
use super::defaults::externally_accessible;
use super::ip::{endpoint_ip_errors, legacy_cidr_error, legacy_ip_error};
use crate::manifest::field::FieldError;
use crate::manifest::names::{
    dns1035_label_errors, dns1123_label_errors, dns1123_subdomain_errors, label_value_errors, qualified_name_errors,
};
use crate::manifest::validation::{Errors, dedup, invalid_each, validate_port_num, validate_port_num_or_name};
use foldhash::{HashSet, HashSetExt};
use k8s_openapi::api::core::v1::{Service, ServicePort, ServiceSpec, SessionAffinityConfig};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

/// `core.MaxClientIPServiceAffinitySeconds`: one day.
const MAX_CLIENT_IP_AFFINITY_SECONDS: i32 = 86400;
/// `supportedPortProtocols`, as `sets.List` sorts it.
const PROTOCOLS: [&str; 3] = ["SCTP", "TCP", "UDP"];
/// `core.DeprecatedAnnotationTopologyAwareHints`.
pub const TOPOLOGY_AWARE_HINTS: &str = "service.kubernetes.io/topology-aware-hints";
/// `core.AnnotationTopologyMode`.
pub const TOPOLOGY_MODE: &str = "service.kubernetes.io/topology-mode";
/// `core.AnnotationLoadBalancerSourceRangesKey`.
const SOURCE_RANGES_ANNOTATION: &str = "service.beta.kubernetes.io/load-balancer-source-ranges";
/// The detail of every field that only a LoadBalancer Service may set.
const LOAD_BALANCER_ONLY: &str = "may only be used when `type` is 'LoadBalancer'";

/// `ValidateServiceCreate` of a defaulted Service that passed `beginCreate`.
pub fn validate_service_create(service: &Service) -> Vec<FieldError> {
    let mut errs = Errors::new();
    validate_object_meta(&service.metadata, &mut errs);
    let no_spec = ServiceSpec::default();
    validate_service(&service.metadata, service.spec.as_ref().unwrap_or(&no_spec), &mut errs);
    dedup(errs)
}

/// `ValidateObjectMeta` with `ValidateServiceName` = `NameIsDNS1035Label` (1.34, 1.35).
/// From 1.36 `RelaxedServiceNameValidation` (beta, on) takes DNS-1123 labels instead;
/// the manifests are read before the release is known, so the stricter rule applies.
/// A generateName is left to unsupported.rs; the namespace is checked only when set.
fn validate_object_meta(meta: &ObjectMeta, errs: &mut Errors) {
    match meta.name.as_deref().unwrap_or("") {
        "" if meta.generate_name.as_deref().unwrap_or("").is_empty() => {
            errs.push(FieldError::required("metadata.name", "name or generateName is required"));
        }
        "" => {}
        name => invalid_each("metadata.name", name, &dns1035_label_errors(name), errs),
    }
    if let Some(ns) = meta.namespace.as_deref().filter(|ns| !ns.is_empty()) {
        invalid_each("metadata.namespace", ns, &dns1123_label_errors(ns), errs);
    }
    if let Some(labels) = &meta.labels {
        validate_labels(labels, "metadata.labels", errs);
    }
    // ValidateAnnotations: keys are qualified names, whatever their case
    for key in meta.annotations.iter().flatten().map(|(k, _)| k) {
        invalid_each("metadata.annotations", key, &qualified_name_errors(&key.to_lowercase()), errs);
    }
}

/// `ValidateLabels` (apimachinery meta/v1/validation): each key a qualified name,
/// each value a label value; the path is the map's, not the key's.
fn validate_labels(labels: &BTreeMap<String, String>, path: &str, errs: &mut Errors) {
    for (key, value) in labels {
        invalid_each(path, key, &qualified_name_errors(key), errs);
        invalid_each(path, value, &label_value_errors(value), errs);
    }
}

/// `validateService` with no old Service.
fn validate_service(meta: &ObjectMeta, spec: &ServiceSpec, errs: &mut Errors) {
    let annotations = meta.annotations.clone().unwrap_or_default();
    if let (Some(mode), Some(hints)) = (annotations.get(TOPOLOGY_MODE), annotations.get(TOPOLOGY_AWARE_HINTS))
        && mode != hints
    {
        let path = format!("metadata.annotations[{TOPOLOGY_MODE}]");
        let detail = format!("must match annotations[{TOPOLOGY_AWARE_HINTS}] when both are specified");
        errs.push(FieldError::invalid(path, format!("{mode:?}"), &detail));
    }
    let service_type = spec.type_.as_deref().unwrap_or("");
    let ports = spec.ports.as_deref().unwrap_or_default();
    if ports.is_empty() && !is_headless(spec) && service_type != "ExternalName" {
        errs.push(FieldError::required("spec.ports", ""));
    }
    validate_type_specific(spec, service_type, errs);
    let mut names = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        validate_service_port(port, ports.len() > 1, &mut names, &format!("spec.ports[{i}]"), errs);
    }
    if let Some(selector) = &spec.selector {
        validate_labels(selector, "spec.selector", errs);
    }
    validate_session_affinity(spec, errs);
    errs.extend(validate_cluster_ips_related_fields(spec));
    for (i, ip) in spec.external_ips.iter().flatten().enumerate() {
        let path = format!("spec.externalIPs[{i}]");
        match legacy_ip_error(&path, ip) {
            Some(e) => errs.push(e),
            None => errs.extend(endpoint_ip_errors(&path, ip)),
        }
    }
    // supportedServiceType, as sets.List sorts it
    validate_one_of("spec.type", service_type, &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"], errs);
    validate_node_ports(ports, service_type, errs);
    // duplicate ports: the key is a core.ServicePort holding only the protocol and port
    let mut seen = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        let protocol = port.protocol.as_deref().unwrap_or("");
        if !seen.insert((protocol, port.port)) {
            let key = format!(
                "core.ServicePort{{Name:\"\", Protocol:{protocol:?}, AppProtocol:(*string)(nil), Port:{}, \
                 TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, NodePort:0}}",
                port.port
            );
            errs.push(FieldError::duplicate_value(format!("spec.ports[{i}]"), key));
        }
    }
    validate_load_balancer_fields(&annotations, spec, service_type, errs);
    validate_external_traffic_policy(spec, errs);
    // validateServiceInternalTrafficFieldsValue
    match spec.internal_traffic_policy.as_deref() {
        None if matches!(service_type, "ClusterIP" | "NodePort" | "LoadBalancer") => {
            errs.push(FieldError::required("spec.internalTrafficPolicy", ""));
        }
        Some(policy) if !matches!(policy, "Cluster" | "Local") => {
            errs.push(FieldError::not_supported("spec.internalTrafficPolicy", policy, &["Cluster", "Local"]));
        }
        _ => {}
    }
    // validateServiceTrafficDistribution, PreferSameTrafficDistribution on (1.34 beta, 1.35 GA): listed unsorted
    let distributions = ["PreferClose", "PreferSameZone", "PreferSameNode"];
    if let Some(d) = spec.traffic_distribution.as_deref().filter(|d| !distributions.contains(d)) {
        errs.push(FieldError::not_supported("spec.trafficDistribution", d, &distributions));
    }
}

/// `validateService`'s switch on the type: headless NodePort and LoadBalancer
/// Services, and what an ExternalName Service may not have.
fn validate_type_specific(spec: &ServiceSpec, service_type: &str, errs: &mut Errors) {
    match service_type {
        "LoadBalancer" | "NodePort" if is_headless(spec) => {
            let detail = format!("may not be set to 'None' for {service_type} services");
            errs.push(FieldError::invalid("spec.clusterIPs[0]", "\"None\"", &detail));
        }
        "ExternalName" => {
            let forbidden = "may not be set for ExternalName services";
            if spec.cluster_ips.as_ref().is_some_and(|ips| !ips.is_empty()) {
                errs.push(FieldError::forbidden("spec.clusterIPs", forbidden));
            }
            if spec.ip_families.as_ref().is_some_and(|f| !f.is_empty()) {
                errs.push(FieldError::forbidden("spec.ipFamilies", forbidden));
            }
            if spec.ip_family_policy.is_some() {
                errs.push(FieldError::forbidden("spec.ipFamilyPolicy", forbidden));
            }
            // a CNAME may end with one dot
            let external_name = spec.external_name.as_deref().unwrap_or("");
            match external_name.strip_suffix('.').unwrap_or(external_name) {
                "" => errs.push(FieldError::required("spec.externalName", "")),
                cname => invalid_each("spec.externalName", cname, &dns1123_subdomain_errors(cname), errs),
            }
        }
        _ => {}
    }
}

/// `validateServicePort`: name (required when there are several, a DNS-1123 label,
/// unique), port, protocol, targetPort and appProtocol.
fn validate_service_port<'a>(
    port: &'a ServicePort,
    require_name: bool,
    names: &mut HashSet<&'a str>,
    path: &str,
    errs: &mut Errors,
) {
    let name = port.name.as_deref().unwrap_or("");
    let name_path = format!("{path}.name");
    if require_name && name.is_empty() {
        errs.push(FieldError::required(&name_path, ""));
    } else if !name.is_empty() {
        invalid_each(&name_path, name, &dns1123_label_errors(name), errs);
        if !names.insert(name) {
            errs.push(FieldError::duplicate(&name_path, name));
        }
    }
    validate_port_num(port.port.into(), &format!("{path}.port"), errs);
    validate_one_of(&format!("{path}.protocol"), port.protocol.as_deref().unwrap_or(""), &PROTOCOLS, errs);
    if let Some(target) = &port.target_port {
        validate_port_num_or_name(target, &format!("{path}.targetPort"), errs);
    }
    if let Some(app_protocol) = &port.app_protocol {
        invalid_each(&format!("{path}.appProtocol"), app_protocol, &qualified_name_errors(app_protocol), errs);
    }
}

/// `sessionAffinity`, then `validateClientIPAffinityConfig` or the None case.
fn validate_session_affinity(spec: &ServiceSpec, errs: &mut Errors) {
    let affinity = spec.session_affinity.as_deref().unwrap_or("");
    validate_one_of("spec.sessionAffinity", affinity, &["ClientIP", "None"], errs);
    let path = "spec.sessionAffinityConfig";
    match (affinity, spec.session_affinity_config.as_ref()) {
        ("ClientIP", config) => validate_client_ip_affinity_config(config, path, errs),
        ("None", Some(_)) => errs.push(FieldError::forbidden(path, "must not be set when session affinity is None")),
        _ => {}
    }
}

/// `validateClientIPAffinityConfig` and `validateAffinityTimeout`; the `Required`
/// cases cannot follow defaulting but are kept for an undefaulted Service.
fn validate_client_ip_affinity_config(config: Option<&SessionAffinityConfig>, path: &str, errs: &mut Errors) {
    let required = "when session affinity type is ClientIP";
    let Some(config) = config else {
        return errs.push(FieldError::required(path, required));
    };
    let Some(client_ip) = &config.client_ip else {
        return errs.push(FieldError::required(format!("{path}.clientIP"), required));
    };
    let timeout_path = format!("{path}.clientIP.timeoutSeconds");
    match client_ip.timeout_seconds {
        None => errs.push(FieldError::required(timeout_path, required)),
        Some(t) if !(1..=MAX_CLIENT_IP_AFFINITY_SECONDS).contains(&t) => {
            let detail = format!("must be greater than 0 and less than {MAX_CLIENT_IP_AFFINITY_SECONDS}");
            errs.push(FieldError::invalid(timeout_path, t, &detail));
        }
        Some(_) => {}
    }
}

/// No node port on a ClusterIP Service; no (protocol, nodePort) twice.
fn validate_node_ports(ports: &[ServicePort], service_type: &str, errs: &mut Errors) {
    if service_type == "ClusterIP" {
        for (i, _) in ports.iter().enumerate().filter(|(_, p)| p.node_port.unwrap_or(0) != 0) {
            let detail = "may not be used when `type` is 'ClusterIP'";
            errs.push(FieldError::forbidden(format!("spec.ports[{i}].nodePort"), detail));
        }
    }
    let mut seen = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        let node_port = port.node_port.unwrap_or(0);
        if node_port != 0 && !seen.insert((port.protocol.as_deref().unwrap_or(""), node_port)) {
            errs.push(FieldError::duplicate_value(format!("spec.ports[{i}].nodePort"), node_port));
        }
    }
}

/// `loadBalancerSourceRanges` (or its annotation), `allocateLoadBalancerNodePorts`
/// and `validateLoadBalancerClassField`: only for type LoadBalancer.
fn validate_load_balancer_fields(
    annotations: &BTreeMap<String, String>,
    spec: &ServiceSpec,
    service_type: &str,
    errs: &mut Errors,
) {
    let load_balancer = service_type == "LoadBalancer";
    let ranges = spec.load_balancer_source_ranges.as_deref().unwrap_or_default();
    if !ranges.is_empty() {
        // the path is capitalised in validation.go
        let path = "spec.LoadBalancerSourceRanges";
        if !load_balancer {
            errs.push(FieldError::forbidden(path, LOAD_BALANCER_ONLY));
        }
        for (i, range) in ranges.iter().enumerate() {
            errs.extend(legacy_cidr_error(&format!("{path}[{i}]"), range.trim()));
        }
    } else if let Some(value) = annotations.get(SOURCE_RANGES_ANNOTATION) {
        let path = format!("metadata.annotations[{SOURCE_RANGES_ANNOTATION}]");
        if !load_balancer {
            errs.push(FieldError::forbidden(&path, LOAD_BALANCER_ONLY));
        }
        for range in value.trim().split(',').filter(|_| !value.trim().is_empty()) {
            errs.extend(legacy_cidr_error(&path, range.trim()));
        }
    }
    if spec.allocate_load_balancer_node_ports.is_some() && !load_balancer {
        errs.push(FieldError::forbidden("spec.allocateLoadBalancerNodePorts", LOAD_BALANCER_ONLY));
    }
    if load_balancer && spec.allocate_load_balancer_node_ports.is_none() {
        // sic: no `spec.` (unreachable after defaulting)
        errs.push(FieldError::required("allocateLoadBalancerNodePorts", ""));
    }
    match (&spec.load_balancer_class, load_balancer) {
        (Some(class), true) => {
            invalid_each("spec.loadBalancerClass", class, &qualified_name_errors(class), errs);
        }
        (Some(_), false) => errs.push(FieldError::forbidden("spec.loadBalancerClass", LOAD_BALANCER_ONLY)),
        (None, _) => {}
    }
}

/// `validateServiceExternalTrafficPolicy`: only externally accessible Services have
/// a policy; only LoadBalancer Services with policy Local have a health check port.
fn validate_external_traffic_policy(spec: &ServiceSpec, errs: &mut Errors) {
    let policy = spec.external_traffic_policy.as_deref().unwrap_or("");
    if !externally_accessible(spec) {
        if !policy.is_empty() {
            let detail = "may only be set for externally-accessible services";
            errs.push(FieldError::invalid("spec.externalTrafficPolicy", format!("{policy:?}"), detail));
        }
    } else {
        validate_one_of("spec.externalTrafficPolicy", policy, &["Cluster", "Local"], errs);
    }
    let health_check_port = spec.health_check_node_port.unwrap_or(0);
    // apiservice.NeedsHealthCheck
    if !(spec.type_.as_deref() == Some("LoadBalancer") && policy == "Local") {
        if health_check_port != 0 {
            let detail = "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'";
            errs.push(FieldError::invalid("spec.healthCheckNodePort", health_check_port, detail));
        }
    } else if health_check_port != 0 {
        // 0 is not `Required value` here: the registry allocates the port before validating
        validate_port_num(health_check_port.into(), "spec.healthCheckNodePort", errs);
    }
}

/// Required when empty, NotSupported (values in the order given) when not listed.
fn validate_one_of(path: &str, value: &str, supported: &[&str], errs: &mut Errors) {
    match value {
        "" => errs.push(FieldError::required(path, "")),
        v if !supported.contains(&v) => errs.push(FieldError::not_supported(path, v, supported)),
        _ => {}
    }
}
