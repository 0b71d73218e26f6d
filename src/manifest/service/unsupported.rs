//! Service fields the API server accepts but podsim does not simulate.
//!
//! podsim models ClusterIP Services with a selector and TCP ports, reached
//! through kube-proxy. As for Pods (manifest/unsupported.rs), what would change
//! the answer is an error, what is deliberately left out a warning. Session
//! affinity (ClientIP), `publishNotReadyAddresses` and `internalTrafficPolicy:
//! Local` are simulated; `appProtocol` and `ipFamilyPolicy: PreferDualStack` (on a
//! single-stack cluster) have no effect and pass silently.

use super::defaults::externally_accessible;
use super::validation::{TOPOLOGY_AWARE_HINTS, TOPOLOGY_MODE};
use crate::manifest::server_written::{self, Generation};
use crate::manifest::unsupported::{Finding, error, warning};
use crate::source::key_path;
use k8s_openapi::api::core::v1::Service;

/// Labels that make kube-proxy skip a Service (its informer selects
/// `!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless`).
const PROXY_SKIP_LABELS: [&str; 2] = ["service.kubernetes.io/service-proxy-name", "service.kubernetes.io/headless"];
const EXTERNAL_ONLY: &str = "affects external traffic only, which podsim does not simulate";
const TOPOLOGY: &str =
    "topology-aware routing is not simulated: kube-proxy spreads traffic over every ready endpoint as without it";

/// Every unsupported field of a defaulted Service (after `beginCreate`).
pub fn check(service: &Service) -> Vec<Finding> {
    let mut out = Vec::new();
    let meta = &service.metadata;
    if meta.name.is_none() && meta.generate_name.is_some() {
        out.push(error("metadata.generateName".into(), "podsim needs metadata.name; generateName is not supported"));
    }
    if meta.deletion_timestamp.is_some() || meta.deletion_grace_period_seconds.is_some() {
        out.push(warning(
            "metadata.deletionTimestamp".into(),
            "ignored: the API server clears deletion fields on create",
        ));
    }
    out.extend(server_written::findings(meta, Generation::Kept));
    for label in PROXY_SKIP_LABELS.into_iter().filter(|l| meta.labels.as_ref().is_some_and(|m| m.contains_key(*l))) {
        out.push(error(
            key_path("metadata.labels", label),
            "kube-proxy ignores Services with this label: the cluster IP would not work",
        ));
    }
    for annotation in [TOPOLOGY_MODE, TOPOLOGY_AWARE_HINTS] {
        let value = meta.annotations.as_ref().and_then(|a| a.get(annotation));
        // "" and Disabled turn the feature off
        if value.is_some_and(|v| !matches!(v.as_str(), "" | "Disabled" | "disabled")) {
            out.push(warning(key_path("metadata.annotations", annotation), TOPOLOGY));
        }
    }
    let status = service.status.as_ref();
    let ingress = status
        .and_then(|s| s.load_balancer.as_ref())
        .is_some_and(|lb| lb.ingress.as_ref().is_some_and(|i| !i.is_empty()));
    if ingress || status.is_some_and(|s| s.conditions.as_ref().is_some_and(|c| !c.is_empty())) {
        out.push(warning("status".into(), "ignored: the API server resets status on create"));
    }
    let Some(spec) = &service.spec else { return out };
    let service_type = spec.type_.as_deref().unwrap_or("");
    match service_type {
        "ExternalName" => out.push(error(
            "spec.type".into(),
            "ExternalName Services are not simulated (DNS CNAME, no cluster IP, no endpoints)",
        )),
        "NodePort" | "LoadBalancer" => out.push(warning(
            "spec.type".into(),
            "node ports and load balancers are not simulated: clients reach the Service through its cluster IP",
        )),
        _ => {}
    }
    if service_type != "ExternalName" && spec.selector.as_ref().is_none_or(|s| s.is_empty()) {
        out.push(error(
            "spec.selector".into(),
            "Services without a selector get no EndpointSlices from the controller; endpoints written by hand are not simulated",
        ));
    }
    for (i, port) in spec.ports.iter().flatten().enumerate() {
        if let Some(protocol @ ("UDP" | "SCTP")) = port.protocol.as_deref() {
            let message = format!("{protocol} Service ports are not simulated");
            out.push(error(format!("spec.ports[{i}].protocol"), &message));
        }
    }
    if externally_accessible(spec) {
        for (i, _) in spec.ports.iter().flatten().enumerate().filter(|(_, p)| p.node_port.unwrap_or(0) != 0) {
            out.push(warning(format!("spec.ports[{i}].nodePort"), EXTERNAL_ONLY));
        }
        let set = [
            ("externalTrafficPolicy", spec.external_traffic_policy.as_deref() == Some("Local")),
            ("healthCheckNodePort", spec.health_check_node_port.unwrap_or(0) != 0),
            ("loadBalancerSourceRanges", spec.load_balancer_source_ranges.as_ref().is_some_and(|r| !r.is_empty())),
            ("loadBalancerClass", spec.load_balancer_class.is_some()),
            ("allocateLoadBalancerNodePorts", spec.allocate_load_balancer_node_ports == Some(false)),
        ];
        for (field, _) in set.into_iter().filter(|(_, is_set)| *is_set) {
            out.push(warning(format!("spec.{field}"), EXTERNAL_ONLY));
        }
    }
    // accepted on any type, used only by LoadBalancer Services
    if !spec.load_balancer_ip.as_deref().unwrap_or("").is_empty() {
        out.push(warning("spec.loadBalancerIP".into(), EXTERNAL_ONLY));
    }
    if spec.external_ips.as_ref().is_some_and(|ips| !ips.is_empty()) {
        out.push(warning(
            "spec.externalIPs".into(),
            "external IPs are not simulated: clients reach the Service through its cluster IP",
        ));
    }
    if spec.traffic_distribution.is_some() {
        out.push(warning("spec.trafficDistribution".into(), TOPOLOGY));
    }
    out
}
