//! API-server defaulting of a v1 Service: `SetDefaults_Service`
//! (pkg/apis/core/v1/defaults.go), the only function `SetObjectDefaults_Service` calls.
//! `ipFamilyPolicy`, `ipFamilies` and `clusterIPs` are filled later, by the registry (create.rs).

use crate::manifest::defaults::set_if_empty;
use k8s_openapi::api::core::v1::{ClientIPConfig, Service, ServiceSpec, SessionAffinityConfig};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

/// `v1.DefaultClientIPServiceAffinitySeconds`: 3 hours.
pub const DEFAULT_CLIENT_IP_AFFINITY_SECONDS: i32 = 10800;

/// `SetDefaults_Service`. The LoadBalancer `status.loadBalancer.ingress[].ipMode`
/// default is left out: `PrepareForCreate` resets the status anyway.
pub fn set_defaults_service(service: &mut Service) {
    let spec = service.spec.get_or_insert_default();
    set_if_empty(&mut spec.session_affinity, "None");
    match spec.session_affinity.as_deref() {
        Some("None") => spec.session_affinity_config = None,
        Some("ClientIP") => {
            let config = spec.session_affinity_config.as_ref();
            if config.and_then(|c| c.client_ip.as_ref()).and_then(|c| c.timeout_seconds).is_none() {
                spec.session_affinity_config = Some(SessionAffinityConfig {
                    client_ip: Some(ClientIPConfig { timeout_seconds: Some(DEFAULT_CLIENT_IP_AFFINITY_SECONDS) }),
                });
            }
        }
        _ => {}
    }
    set_if_empty(&mut spec.type_, "ClusterIP");
    for port in spec.ports.iter_mut().flatten() {
        set_if_empty(&mut port.protocol, "TCP");
        // intstr.FromInt32(0) or FromString(""): absent, 0 or ""; becomes the port, as an int
        if matches!(&port.target_port, None | Some(IntOrString::Int(0)))
            || port.target_port == Some(IntOrString::String(String::new()))
        {
            port.target_port = Some(IntOrString::Int(port.port));
        }
    }
    if externally_accessible(spec) {
        set_if_empty(&mut spec.external_traffic_policy, "Cluster");
    }
    if spec.internal_traffic_policy.is_none()
        && matches!(spec.type_.as_deref(), Some("ClusterIP" | "NodePort" | "LoadBalancer"))
    {
        spec.internal_traffic_policy = Some("Cluster".to_string());
    }
    if spec.type_.as_deref() == Some("LoadBalancer") {
        spec.allocate_load_balancer_node_ports.get_or_insert(true);
    }
}

/// `ExternallyAccessible` (pkg/api/v1/service and pkg/api/service): NodePort and
/// LoadBalancer Services, and ClusterIP Services with external IPs.
pub fn externally_accessible(spec: &ServiceSpec) -> bool {
    match spec.type_.as_deref() {
        Some("NodePort" | "LoadBalancer") => true,
        Some("ClusterIP") => spec.external_ips.as_ref().is_some_and(|ips| !ips.is_empty()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// `spec` decoded and defaulted, back as JSON (absent fields omitted).
    fn defaulted(spec: Value) -> Value {
        let mut service: Service =
            serde_json::from_value(json!({"metadata": {"name": "web"}, "spec": spec})).expect("decodes");
        set_defaults_service(&mut service);
        serde_json::to_value(service.spec).expect("encodes")
    }

    #[test]
    fn plain_cluster_ip_service() {
        let spec = defaulted(json!({"selector": {"app": "web"}, "ports": [{"port": 80}]}));
        assert_eq!(
            spec,
            json!({
                "internalTrafficPolicy": "Cluster",
                "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}],
                "selector": {"app": "web"},
                "sessionAffinity": "None",
                "type": "ClusterIP",
            })
        );
    }

    #[test]
    fn missing_spec_gets_the_spec_defaults() {
        let mut service: Service = serde_json::from_value(json!({"metadata": {"name": "web"}})).expect("decodes");
        set_defaults_service(&mut service);
        let spec = serde_json::to_value(service.spec).expect("encodes");
        assert_eq!(spec, json!({"internalTrafficPolicy": "Cluster", "sessionAffinity": "None", "type": "ClusterIP"}));
    }

    #[test]
    fn session_affinity_none_drops_its_config() {
        let config = json!({"clientIP": {"timeoutSeconds": 60}});
        let spec = defaulted(json!({"sessionAffinity": "None", "sessionAffinityConfig": config}));
        assert_eq!(spec.get("sessionAffinityConfig"), None);
        let spec = defaulted(json!({"sessionAffinityConfig": config}));
        assert_eq!(spec.get("sessionAffinityConfig"), None);
    }

    #[test]
    fn client_ip_affinity_gets_three_hours_unless_a_timeout_is_given() {
        let default = json!({"clientIP": {"timeoutSeconds": 10800}});
        for config in [None, Some(json!({})), Some(json!({"clientIP": {}}))] {
            let mut spec = json!({"sessionAffinity": "ClientIP"});
            if let Some(c) = config {
                spec["sessionAffinityConfig"] = c;
            }
            assert_eq!(defaulted(spec)["sessionAffinityConfig"], default);
        }
        let given = json!({"clientIP": {"timeoutSeconds": 60}});
        let spec = defaulted(json!({"sessionAffinity": "ClientIP", "sessionAffinityConfig": given}));
        assert_eq!(spec["sessionAffinityConfig"], given);
        // an unknown affinity keeps its config (validation rejects the value)
        let spec = defaulted(json!({"sessionAffinity": "Cookie", "sessionAffinityConfig": given}));
        assert_eq!(spec["sessionAffinityConfig"], given);
    }

    #[test]
    fn ports_get_tcp_and_the_port_as_target() {
        let spec = defaulted(json!({"ports": [
            {"port": 80, "targetPort": 0},
            {"port": 81, "targetPort": ""},
            {"port": 82, "targetPort": "http", "protocol": "UDP"},
            {"port": 83, "targetPort": 8080},
            {"targetPort": 0},
        ]}));
        assert_eq!(
            spec["ports"],
            json!([
                {"port": 80, "protocol": "TCP", "targetPort": 80},
                {"port": 81, "protocol": "TCP", "targetPort": 81},
                {"port": 82, "protocol": "UDP", "targetPort": "http"},
                {"port": 83, "protocol": "TCP", "targetPort": 8080},
                {"port": 0, "protocol": "TCP", "targetPort": 0},
            ])
        );
    }

    #[test]
    fn external_traffic_policy_only_for_externally_accessible_services() {
        assert_eq!(defaulted(json!({}))["externalTrafficPolicy"], Value::Null);
        for spec in
            [json!({"type": "NodePort"}), json!({"type": "LoadBalancer"}), json!({"externalIPs": ["192.0.2.1"]})]
        {
            assert_eq!(defaulted(spec)["externalTrafficPolicy"], "Cluster");
        }
        assert_eq!(
            defaulted(json!({"type": "NodePort", "externalTrafficPolicy": "Local"}))["externalTrafficPolicy"],
            "Local"
        );
    }

    #[test]
    fn internal_traffic_policy_except_for_external_name_and_unknown_types() {
        for t in ["ClusterIP", "NodePort", "LoadBalancer"] {
            assert_eq!(defaulted(json!({"type": t}))["internalTrafficPolicy"], "Cluster", "{t}");
        }
        for t in ["ExternalName", "Internal"] {
            assert_eq!(defaulted(json!({"type": t}))["internalTrafficPolicy"], Value::Null, "{t}");
        }
        let spec = defaulted(json!({"internalTrafficPolicy": "Local"}));
        assert_eq!(spec["internalTrafficPolicy"], "Local");
    }

    #[test]
    fn load_balancers_allocate_node_ports() {
        assert_eq!(defaulted(json!({"type": "LoadBalancer"}))["allocateLoadBalancerNodePorts"], true);
        let spec = defaulted(json!({"type": "LoadBalancer", "allocateLoadBalancerNodePorts": false}));
        assert_eq!(spec["allocateLoadBalancerNodePorts"], false);
        assert_eq!(defaulted(json!({"type": "NodePort"}))["allocateLoadBalancerNodePorts"], Value::Null);
    }

    #[test]
    fn fields_without_defaults_stay_absent() {
        let spec = defaulted(json!({"selector": {}, "ports": [{"port": 80}]}));
        for field in [
            "publishNotReadyAddresses",
            "clusterIP",
            "clusterIPs",
            "ipFamilies",
            "ipFamilyPolicy",
            "trafficDistribution",
        ] {
            assert_eq!(spec[field], Value::Null, "{field}");
        }
        assert_eq!(spec["selector"], json!({}));
    }
}
