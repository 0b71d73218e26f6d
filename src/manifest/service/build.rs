//! From a defaulted, valid, supported API Service to the simulator's [`ServiceSpec`].

use super::ip::parse_ip_sloppy;
use crate::spec::{PortRef, ServicePort, ServiceSpec, TrafficPolicy};
use crate::time::SimDuration;
use k8s_openapi::api::core::v1::{LoadBalancerStatus, Service, ServiceStatus};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::net::IpAddr;

/// Builds the typed Service. The object keeps what the API server would store,
/// with the status `PrepareForCreate` resets it to (`status: {loadBalancer: {}}`).
pub fn service_spec(mut service: Service) -> ServiceSpec {
    service.status = Some(ServiceStatus { load_balancer: Some(LoadBalancerStatus::default()), conditions: None });
    let spec = service.spec.clone().unwrap_or_default();
    let ports = spec
        .ports
        .iter()
        .flatten()
        .map(|p| ServicePort {
            name: p.name.clone().unwrap_or_default(),
            port: p.port.clamp(1, 65535) as u16,
            target: match &p.target_port {
                Some(IntOrString::String(name)) => PortRef::Name(name.clone()),
                Some(IntOrString::Int(n)) => PortRef::Number((*n).clamp(1, 65535) as u16),
                None => PortRef::Number(p.port.clamp(1, 65535) as u16),
            },
            app_protocol: p.app_protocol.clone(),
        })
        .collect();
    // validation left only IPv4 cluster IPs (the cluster is single-stack)
    let cluster_ip = match spec.cluster_ip.as_deref().and_then(parse_ip_sloppy) {
        Some(IpAddr::V4(ip)) => Some(ip),
        _ => None,
    };
    let affinity = (spec.session_affinity.as_deref() == Some("ClientIP")).then(|| {
        let config = spec.session_affinity_config.as_ref().and_then(|c| c.client_ip.as_ref());
        let seconds =
            config.and_then(|c| c.timeout_seconds).unwrap_or(super::defaults::DEFAULT_CLIENT_IP_AFFINITY_SECONDS);
        SimDuration::from_secs(seconds.max(1) as u64)
    });
    let internal_traffic_policy = match spec.internal_traffic_policy.as_deref() {
        Some("Local") => TrafficPolicy::Local,
        _ => TrafficPolicy::Cluster,
    };
    ServiceSpec {
        name: service.metadata.name.clone().unwrap_or_default(),
        namespace: service.metadata.namespace.clone().unwrap_or_else(|| "default".to_string()),
        labels: service.metadata.labels.clone().unwrap_or_default(),
        selector: spec.selector.clone().unwrap_or_default(),
        ports,
        cluster_ip,
        publish_not_ready_addresses: spec.publish_not_ready_addresses.unwrap_or(false),
        affinity,
        internal_traffic_policy,
        headless: spec.cluster_ip.as_deref() == Some("None"),
        object: service,
    }
}
