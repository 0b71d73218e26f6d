//! The create path end to end (defaulting, `beginCreate`, `ValidateServiceCreate`),
//! message by message. Expected texts are those of the research notes on the API
//! server (issue5-service-api.md §2), not podsim's output.

use super::*;
use crate::error::SourceFile;
use crate::manifest::Manifests;
use serde_json::json;
use std::sync::Arc;

/// `<DNS1035>` of the research notes.
const DNS1035: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
/// `<LABELVAL>`.
const LABEL_VALUE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
/// `<DNS1123L>`.
const DNS1123_LABEL: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
/// `<DNS1123S>`.
const DNS1123_SUBDOMAIN: &str = r"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
/// `IsQualifiedName` for a key with two slashes.
const QUALIFIED_NAME: &str = "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
/// `<PORTRANGE>`.
const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";

/// Decodes, defaults and creates `service`: the errors the API server returns.
fn errors(service: Value) -> Vec<String> {
    let mut service: Service = serde_json::from_value(service).expect("test service decodes");
    defaults::set_defaults_service(&mut service);
    let begin = create::begin_create(&mut service);
    let errs = if begin.is_empty() { validation::validate_service_create(&service) } else { begin };
    errs.iter().map(ToString::to_string).collect()
}

fn check(service: Value, want: &[&str]) {
    assert_eq!(errors(service), want);
}

/// Service `web` selecting `app: web` on port 80, with `extra` merged into its spec.
fn service(extra: Value) -> Value {
    let mut spec = json!({"selector": {"app": "web"}, "ports": [{"port": 80}]});
    if let (Some(spec), Value::Object(extra)) = (spec.as_object_mut(), extra) {
        spec.extend(extra);
    }
    json!({"metadata": {"name": "web"}, "spec": spec})
}

/// The defaulted, created object of `service` (which must be valid).
fn created(service: Value) -> Service {
    let mut service: Service = serde_json::from_value(service).expect("test service decodes");
    defaults::set_defaults_service(&mut service);
    assert!(create::begin_create(&mut service).is_empty());
    assert!(validation::validate_service_create(&service).is_empty());
    service
}

#[test]
fn plain_service_is_valid() {
    check(service(json!({})), &[]);
    let spec = created(service(json!({}))).spec.expect("spec");
    assert_eq!(spec.ip_family_policy.as_deref(), Some("SingleStack"));
    assert_eq!(spec.ip_families, Some(vec!["IPv4".to_string()]));
    assert_eq!(spec.cluster_ip, None);
    assert_eq!(spec.cluster_ips, None);
}

// §1 rules 11–13: what the registry fills in on create.

#[test]
fn cluster_ips_come_from_cluster_ip_and_give_the_families() {
    let spec = created(service(json!({"clusterIP": "10.96.0.10"}))).spec.expect("spec");
    assert_eq!(spec.cluster_ips, Some(vec!["10.96.0.10".to_string()]));
    assert_eq!(spec.ip_families, Some(vec!["IPv4".to_string()]));
    let spec = created(service(json!({"clusterIP": "None"}))).spec.expect("spec");
    assert_eq!(spec.cluster_ips, Some(vec!["None".to_string()]));
    assert_eq!(spec.ip_family_policy.as_deref(), Some("SingleStack"));
    let spec = created(service(json!({"ipFamilyPolicy": "PreferDualStack"}))).spec.expect("spec");
    assert_eq!(spec.ip_families, Some(vec!["IPv4".to_string()]));
}

#[test]
fn headless_selectorless_services_default_to_dual_stack_even_on_one_family() {
    let mut svc = service(json!({"clusterIP": "None"}));
    svc["spec"].as_object_mut().expect("spec").remove("selector");
    let spec = created(svc.clone()).spec.expect("spec");
    assert_eq!(spec.ip_family_policy.as_deref(), Some("RequireDualStack"));
    assert_eq!(spec.ip_families, Some(vec!["IPv4".to_string(), "IPv6".to_string()]));
    svc["spec"]["ipFamilyPolicy"] = json!("SingleStack");
    let spec = created(svc).spec.expect("spec");
    assert_eq!(spec.ip_families, Some(vec!["IPv4".to_string()]));
}

#[test]
fn external_name_services_get_no_ip_fields() {
    let spec = created(
        json!({"metadata": {"name": "db"}, "spec": {"type": "ExternalName", "externalName": "db.example.com"}}),
    )
    .spec
    .expect("spec");
    assert_eq!((spec.ip_family_policy, spec.ip_families, spec.internal_traffic_policy), (None, None, None));
}

// §2 rows C1–C13: beginCreate, whose errors come alone.

#[test]
fn cluster_ip_syntax() {
    check(
        service(json!({"clusterIP": "10.96.0.300"})),
        &[
            r#"spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"#,
        ],
    );
    // leading zeros are accepted while StrictIPCIDRValidation is off
    check(service(json!({"clusterIP": "010.96.0.5"})), &[]);
}

#[test]
fn cluster_ip_and_cluster_ips_agree() {
    check(
        service(json!({"clusterIP": "10.96.0.5", "clusterIPs": ["10.96.0.6"]})),
        &["spec.clusterIPs: Invalid value: []string{\"10.96.0.6\"}: first value must match `clusterIP`"],
    );
    check(
        service(json!({"clusterIPs": ["10.96.0.6"]})),
        &["spec.clusterIPs: Invalid value: []string{\"10.96.0.6\"}: must be empty when `clusterIP` is not specified"],
    );
    check(
        service(json!({"clusterIP": "None", "clusterIPs": ["None", "10.96.0.6"]})),
        &[r#"spec.clusterIPs: Invalid value: []string{"None", "10.96.0.6"}: 'None' must be the first and only value"#],
    );
}

#[test]
fn cluster_ips_count_and_families() {
    check(
        service(json!({"clusterIP": "10.96.0.5", "clusterIPs": ["10.96.0.5", "fd00::5", "10.96.0.7"]})),
        &[
            r#"spec.clusterIPs: Invalid value: []string{"10.96.0.5", "fd00::5", "10.96.0.7"}: may only hold up to 2 values"#,
        ],
    );
    check(
        service(json!({"clusterIP": "10.96.0.5", "clusterIPs": ["10.96.0.5", "10.96.0.6"]})),
        &[
            r#"spec.clusterIPs: Invalid value: []string{"10.96.0.5", "10.96.0.6"}: may specify no more than one IP for each IP family"#,
        ],
    );
    check(
        service(json!({"clusterIP": "fd00::1", "ipFamilies": ["IPv4"]})),
        &["spec.clusterIPs[0]: Invalid value: \"fd00::1\": expected an IPv4 value as indicated by `ipFamilies[0]`"],
    );
}

#[test]
fn ip_family_values() {
    check(
        service(json!({"ipFamilies": ["IPv5"]})),
        &[r#"spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6""#],
    );
    check(service(json!({"ipFamilies": ["IPv4", "IPv4"]})), &[r#"spec.ipFamilies[1]: Duplicate value: "IPv4""#]);
    check(
        service(json!({"ipFamilyPolicy": "Single"})),
        &[
            r#"spec.ipFamilyPolicy: Unsupported value: "Single": supported values: "PreferDualStack", "RequireDualStack", "SingleStack""#,
        ],
    );
}

#[test]
fn single_stack_cluster() {
    check(
        service(json!({"clusterIP": "10.96.0.5", "clusterIPs": ["10.96.0.5", "fd00::5"]})),
        &[
            r#"spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"#,
            r#"spec.clusterIPs[1]: Invalid value: []string{"10.96.0.5", "fd00::5"}: IPv6 is not configured on this cluster"#,
        ],
    );
    check(
        service(json!({"ipFamilies": ["IPv4", "IPv6"]})),
        &[
            r#"spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"#,
        ],
    );
    check(
        service(json!({"clusterIP": "fd00::5"})),
        &[r#"spec.clusterIPs[0]: Invalid value: []string{"fd00::5"}: IPv6 is not configured on this cluster"#],
    );
    check(
        service(json!({"ipFamilyPolicy": "RequireDualStack"})),
        &[
            r#"spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services"#,
        ],
    );
    check(
        service(json!({"ipFamilies": ["IPv6"]})),
        &[r#"spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster"#],
    );
}

#[test]
fn cluster_ip_errors_come_alone() {
    let mut svc = service(json!({"clusterIP": "10.96.0.300", "ports": [{"port": 0}]}));
    svc["metadata"]["name"] = json!("1web");
    check(
        svc,
        &[
            r#"spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"#,
        ],
    );
}

// Rows M1–M4: ValidateObjectMeta.

#[test]
fn names() {
    let mut svc = service(json!({}));
    svc["metadata"] = json!({});
    check(svc.clone(), &["metadata.name: Required value: name or generateName is required"]);
    for name in ["1web", "my.svc", "My_Svc"] {
        svc["metadata"]["name"] = json!(name);
        check(svc.clone(), &[&format!("metadata.name: Invalid value: {name:?}: {DNS1035}")]);
    }
    let long = format!("a{}", "-b".repeat(32));
    svc["metadata"]["name"] = json!(long);
    check(svc.clone(), &[&format!("metadata.name: Invalid value: {long:?}: must be no more than 63 characters")]);
    let long = "A".repeat(64);
    svc["metadata"]["name"] = json!(long);
    check(
        svc.clone(),
        &[
            &format!("metadata.name: Invalid value: {long:?}: must be no more than 63 characters"),
            &format!("metadata.name: Invalid value: {long:?}: {DNS1035}"),
        ],
    );
    svc["metadata"] = json!({"name": "web", "namespace": "a.b"});
    check(svc, &[r#"metadata.namespace: Invalid value: "a.b": must not contain dots"#]);
}

#[test]
fn labels_and_annotations() {
    let mut svc = service(json!({}));
    svc["metadata"]["labels"] = json!({"a/b/c": "web", "app": "-x", "tier": "-x"});
    svc["metadata"]["annotations"] = json!({"Example.com/Note": "ok", "x/y/z": "no"});
    check(
        svc,
        &[
            &format!(r#"metadata.labels: Invalid value: "a/b/c": {QUALIFIED_NAME}"#),
            // the same text twice is reported once (ErrorList.ToAggregate)
            &format!(r#"metadata.labels: Invalid value: "-x": {LABEL_VALUE}"#),
            &format!(r#"metadata.annotations: Invalid value: "x/y/z": {QUALIFIED_NAME}"#),
        ],
    );
}

// Rows S1–S17 and P1–P11: validateService, in its order.

#[test]
fn topology_annotations_must_agree() {
    let mut svc = service(json!({}));
    svc["metadata"]["annotations"] = json!({
        "service.kubernetes.io/topology-mode": "Auto",
        "service.kubernetes.io/topology-aware-hints": "Disabled",
    });
    check(
        svc,
        &[
            r#"metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Auto": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified"#,
        ],
    );
}

#[test]
fn ports_are_required_unless_headless() {
    check(service(json!({"ports": []})), &["spec.ports: Required value"]);
    check(service(json!({"ports": [], "clusterIP": "None"})), &[]);
}

#[test]
fn headless_node_ports_and_load_balancers() {
    for t in ["NodePort", "LoadBalancer"] {
        check(
            service(json!({"type": t, "clusterIP": "None"})),
            &[&format!(r#"spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for {t} services"#)],
        );
    }
}

#[test]
fn external_name_services() {
    let spec = json!({"type": "ExternalName", "clusterIP": "10.96.0.5", "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack"});
    check(
        json!({"metadata": {"name": "db"}, "spec": spec}),
        &[
            "spec.clusterIPs: Forbidden: may not be set for ExternalName services",
            "spec.ipFamilies: Forbidden: may not be set for ExternalName services",
            "spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services",
            "spec.externalName: Required value",
        ],
    );
    check(
        json!({"metadata": {"name": "db"}, "spec": {"type": "ExternalName", "externalName": "Foo_bar."}}),
        &[&format!(r#"spec.externalName: Invalid value: "Foo_bar": {DNS1123_SUBDOMAIN}"#)],
    );
    check(
        json!({"metadata": {"name": "db"}, "spec": {"type": "ExternalName", "externalName": "db.example.com."}}),
        &[],
    );
}

#[test]
fn port_names() {
    check(
        service(json!({"ports": [{"port": 80}, {"port": 81}]})),
        &["spec.ports[0].name: Required value", "spec.ports[1].name: Required value"],
    );
    let ports = json!([
        {"port": 80, "name": "Web"}, {"port": 81, "name": "a.b"}, {"port": 82, "name": "http"},
        {"port": 83, "name": "http"}, {"port": 443, "name": "443"},
    ]);
    check(
        service(json!({ "ports": ports })),
        &[
            &format!(r#"spec.ports[0].name: Invalid value: "Web": {DNS1123_LABEL}"#),
            r#"spec.ports[1].name: Invalid value: "a.b": must not contain dots"#,
            r#"spec.ports[3].name: Duplicate value: "http""#,
        ],
    );
}

#[test]
fn port_numbers_protocols_and_targets() {
    let ports = json!([
        {"name": "a"},
        {"name": "b", "port": 81, "protocol": "HTTP"},
        {"name": "c", "port": 82, "targetPort": 70000},
        {"name": "d", "port": 83, "targetPort": "8080"},
        {"name": "e", "port": 84, "appProtocol": "-h2"},
    ]);
    check(
        service(json!({ "ports": ports })),
        &[
            &format!("spec.ports[0].port: Invalid value: 0: {PORT_RANGE}"),
            &format!("spec.ports[0].targetPort: Invalid value: 0: {PORT_RANGE}"),
            r#"spec.ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP""#,
            &format!("spec.ports[2].targetPort: Invalid value: 70000: {PORT_RANGE}"),
            r#"spec.ports[3].targetPort: Invalid value: "8080": must contain at least one letter (a-z)"#,
            r#"spec.ports[4].appProtocol: Invalid value: "-h2": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"#,
        ],
    );
    // a named target and an appProtocol with a prefix are fine; port and targetPort need not relate
    let ports = json!([{"port": 80, "targetPort": "http", "appProtocol": "kubernetes.io/h2c"}]);
    check(service(json!({ "ports": ports })), &[]);
}

#[test]
fn selector_keys_and_values_sorted() {
    check(
        service(json!({"selector": {"app/x/y": "web", "app": "-x"}})),
        &[
            &format!(r#"spec.selector: Invalid value: "-x": {LABEL_VALUE}"#),
            &format!(r#"spec.selector: Invalid value: "app/x/y": {QUALIFIED_NAME}"#),
        ],
    );
}

#[test]
fn session_affinity() {
    check(
        service(json!({"sessionAffinity": "Cookie"})),
        &[r#"spec.sessionAffinity: Unsupported value: "Cookie": supported values: "ClientIP", "None""#],
    );
    for timeout in [0, 86401] {
        let config = json!({"clientIP": {"timeoutSeconds": timeout}});
        check(
            service(json!({"sessionAffinity": "ClientIP", "sessionAffinityConfig": config})),
            &[&format!(
                "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: {timeout}: must be greater than 0 and less than 86400"
            )],
        );
    }
    let config = json!({"clientIP": {"timeoutSeconds": 86400}});
    check(service(json!({"sessionAffinity": "ClientIP", "sessionAffinityConfig": config})), &[]);
    // defaulting drops a config with None, so "must not be set when session affinity is None" cannot happen
    check(service(json!({"sessionAffinity": "None", "sessionAffinityConfig": config})), &[]);
}

#[test]
fn external_ips() {
    check(
        service(json!({"externalIPs": ["x", "0.0.0.0", "127.0.0.1", "169.254.1.1", "224.0.0.5", "192.0.2.10"]})),
        &[
            r#"spec.externalIPs[0]: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"#,
            r#"spec.externalIPs[1]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)"#,
            r#"spec.externalIPs[2]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)"#,
            r#"spec.externalIPs[3]: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)"#,
            r#"spec.externalIPs[4]: Invalid value: "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"#,
        ],
    );
}

#[test]
fn service_type() {
    check(
        service(json!({"type": "Internal"})),
        &[
            r#"spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort""#,
        ],
    );
}

#[test]
fn node_ports() {
    check(
        service(json!({"ports": [{"port": 80, "nodePort": 30080}]})),
        &["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
    );
    let ports = json!([{"name": "a", "port": 80, "nodePort": 30080}, {"name": "b", "port": 81, "nodePort": 30080}]);
    check(service(json!({"type": "NodePort", "ports": ports})), &["spec.ports[1].nodePort: Duplicate value: 30080"]);
    // the same node port for another protocol is allowed
    let ports = json!([{"name": "a", "port": 80, "nodePort": 30080}, {"name": "b", "port": 80, "nodePort": 30080, "protocol": "UDP"}]);
    check(service(json!({"type": "NodePort", "ports": ports})), &[]);
}

#[test]
fn duplicate_protocol_and_port() {
    let ports = json!([{"name": "a", "port": 80}, {"name": "b", "port": 80, "targetPort": 8080}]);
    check(
        service(json!({ "ports": ports })),
        &[
            r#"spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}"#,
        ],
    );
}

#[test]
fn load_balancer_only_fields() {
    let extra = json!({
        "loadBalancerSourceRanges": ["10.0.0.0/8", "x"],
        "allocateLoadBalancerNodePorts": true,
        "loadBalancerClass": "example.com/lb",
    });
    check(
        service(extra),
        &[
            "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
            r#"spec.LoadBalancerSourceRanges[1]: Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"#,
            "spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'",
            "spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'",
        ],
    );
    let mut svc = service(json!({}));
    svc["metadata"]["annotations"] = json!({"service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8"});
    check(
        svc,
        &[
            "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Forbidden: may only be used when `type` is 'LoadBalancer'",
        ],
    );
    let extra = json!({"type": "LoadBalancer", "loadBalancerSourceRanges": ["10.0.0.0/8"], "loadBalancerClass": "example.com/lb"});
    check(service(extra), &[]);
}

#[test]
fn traffic_policies() {
    check(
        service(json!({"externalTrafficPolicy": "Local"})),
        &[r#"spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services"#],
    );
    check(
        service(json!({"type": "NodePort", "externalTrafficPolicy": "x"})),
        &[r#"spec.externalTrafficPolicy: Unsupported value: "x": supported values: "Cluster", "Local""#],
    );
    check(
        service(json!({"healthCheckNodePort": 30000})),
        &[
            "spec.healthCheckNodePort: Invalid value: 30000: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ],
    );
    check(
        service(json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local", "healthCheckNodePort": 30000})),
        &[],
    );
    check(
        service(json!({"internalTrafficPolicy": "Node"})),
        &[r#"spec.internalTrafficPolicy: Unsupported value: "Node": supported values: "Cluster", "Local""#],
    );
    check(
        service(json!({"trafficDistribution": "Nearest"})),
        &[
            r#"spec.trafficDistribution: Unsupported value: "Nearest": supported values: "PreferClose", "PreferSameZone", "PreferSameNode""#,
        ],
    );
    check(service(json!({"trafficDistribution": "PreferSameNode", "internalTrafficPolicy": "Local"})), &[]);
}

// read_service through Manifests::load: locations, unsupported fields, the typed Service.

fn load(text: &str) -> Result<Manifests, Vec<Problem>> {
    let file = Arc::new(SourceFile { name: "svc.yaml".into(), text: text.into() });
    Manifests::load(&[file]).map_err(|e| match e {
        crate::error::Error::Input(p) => p,
        e => panic!("{e}"),
    })
}

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  containers:\n  - name: app\n    image: nginx\n";

#[test]
fn a_valid_service_is_typed() {
    // the pod declares the port `http` names: no warning about the target port
    let pod = format!("{POD}    ports: [{{name: http, containerPort: 8080}}]\n");
    let text = format!(
        "{pod}---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {{app: web}}\n  clusterIP: 010.96.0.20\n  sessionAffinity: ClientIP\n  internalTrafficPolicy: Local\n  publishNotReadyAddresses: true\n  ports:\n  - {{name: http, port: 80, targetPort: http, appProtocol: http}}\n  - {{name: admin, port: 9000}}\n"
    );
    let m = load(&text).expect("loads");
    assert!(m.target_port_warnings().is_empty());
    let s = &m.services[0];
    assert_eq!((s.name.as_str(), s.namespace.as_str()), ("web", "default"));
    assert_eq!(s.cluster_ip, Some(std::net::Ipv4Addr::new(10, 96, 0, 20)));
    assert_eq!(s.affinity, Some(crate::time::SimDuration::from_secs(10800)));
    assert_eq!(s.internal_traffic_policy, crate::spec::TrafficPolicy::Local);
    assert!(s.publish_not_ready_addresses);
    assert_eq!(s.ports[0].target, crate::spec::PortRef::Name("http".into()));
    assert_eq!(s.ports[1].target, crate::spec::PortRef::Number(9000));
    assert_eq!(s.port("admin"), Some(1));
    let status = serde_json::to_value(&s.object.status).expect("encodes");
    assert_eq!(status, json!({"loadBalancer": {}}));
    // the API server's warning for the leading zero, at the clusterIP line
    let w: Vec<String> = m.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        w,
        [
            r#"svc.yaml:18:14: spec.clusterIPs[0]: non-standard IP address "010.96.0.20" will be considered invalid in a future Kubernetes release: use "10.96.0.20""#
        ]
    );
}

#[test]
fn errors_about_cluster_ips_point_at_cluster_ip_when_only_that_is_written() {
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  clusterIP: 10.96.0.300\n  ports: [{port: 80}]\n";
    let p = load(text).expect_err("invalid");
    assert_eq!(
        p[0].to_string(),
        r#"svc.yaml:7:14: spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"#
    );
}

#[test]
fn unsupported_services() {
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: dns\n  labels: {service.kubernetes.io/headless: \"\"}\nspec:\n  clusterIP: None\n  ports: [{port: 53, protocol: UDP}]\n";
    let p = load(text).expect_err("unsupported");
    let got: Vec<String> = p.iter().map(ToString::to_string).collect();
    assert_eq!(
        got,
        [
            r#"svc.yaml:5:44: metadata.labels["service.kubernetes.io/headless"]: kube-proxy ignores Services with this label: the cluster IP would not work"#,
            "svc.yaml:6:1: spec.selector: Services without a selector get no EndpointSlices from the controller; endpoints written by hand are not simulated",
            "svc.yaml:8:32: spec.ports[0].protocol: UDP Service ports are not simulated",
        ]
    );
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  type: ExternalName\n  externalName: db.example.com\n";
    let p = load(text).expect_err("unsupported");
    assert_eq!(
        p[0].to_string(),
        "svc.yaml:6:9: spec.type: ExternalName Services are not simulated (DNS CNAME, no cluster IP, no endpoints)"
    );
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  generateName: web-\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n";
    let p = load(text).expect_err("unsupported");
    assert_eq!(
        p[0].to_string(),
        "svc.yaml:4:17: metadata.generateName: podsim needs metadata.name; generateName is not supported"
    );
}

#[test]
fn warned_services() {
    let text = format!(
        "{POD}---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations: {{service.kubernetes.io/topology-mode: Auto}}\nspec:\n  type: LoadBalancer\n  selector: {{app: web}}\n  externalTrafficPolicy: Local\n  externalIPs: [192.0.2.10]\n  trafficDistribution: PreferClose\n  ports: [{{port: 80, nodePort: 30080}}]\nstatus:\n  loadBalancer:\n    ingress: [{{ip: 192.0.2.1}}]\n"
    );
    let m = load(&text).expect("loads with warnings");
    let got: Vec<String> = m.warnings.iter().map(ToString::to_string).collect();
    let topology =
        "topology-aware routing is not simulated: kube-proxy spreads traffic over every ready endpoint as without it";
    let external = "affects external traffic only, which podsim does not simulate";
    assert_eq!(
        got,
        [
            format!(r#"svc.yaml:15:54: metadata.annotations["service.kubernetes.io/topology-mode"]: {topology}"#),
            "svc.yaml:23:1: status: ignored: the API server resets status on create".to_string(),
            "svc.yaml:17:9: spec.type: node ports and load balancers are not simulated: clients reach the Service through its cluster IP".to_string(),
            format!("svc.yaml:22:32: spec.ports[0].nodePort: {external}"),
            format!("svc.yaml:19:26: spec.externalTrafficPolicy: {external}"),
            "svc.yaml:20:16: spec.externalIPs: external IPs are not simulated: clients reach the Service through its cluster IP".to_string(),
            format!("svc.yaml:21:24: spec.trafficDistribution: {topology}"),
        ]
    );
}

#[test]
fn kinds_versions_and_duplicates() {
    let svc =
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n";
    let p = load(&format!("{POD}---\n{svc}---\n{svc}")).expect_err("duplicate");
    assert_eq!(p[0].to_string(), r#"svc.yaml:22:9: metadata.name: services "web" already exists"#);
    let p = load(&format!("{POD}---\n{}", svc.replace("apiVersion: v1", "apiVersion: apps/v1"))).expect_err("version");
    assert_eq!(
        p[0].to_string(),
        r#"svc.yaml:11:13: apiVersion: no matches for kind "Service" in version "apps/v1" (Services are apiVersion v1)"#
    );
    let p = load(svc).expect_err("no pod");
    assert_eq!(
        p[0].to_string(),
        "the manifests declare no Pod: podsim needs one to simulate, or a workload that makes pods (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob); read: svc.yaml"
    );
    let p = load(&format!("{POD}---\n{}", svc.replace("selector", "selecter"))).expect_err("strict");
    assert_eq!(p[0].to_string(), r#"svc.yaml:16:3: strict decoding error: unknown field "spec.selecter""#);
}

// Named target ports against the selected pods (target_ports.rs).

#[test]
fn named_target_ports_a_selected_pod_does_not_declare_are_warned() {
    let pod = |name: &str, labels: &str, spec: &str| {
        format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {labels}\nspec:\n{spec}---\n")
    };
    let app = |ports: &str| format!("  containers:\n  - name: app\n    image: nginx\n    ports: {ports}\n");
    let text = [
        // unnamed port: warned
        pod("web", "{app: web}", &app("[{containerPort: 8080}]")),
        // the name: resolved
        pod("web-ok", "{app: web}", &app("[{name: http, containerPort: 8080}]")),
        // on a sidecar: resolved, as FindPort looks at sidecars after the containers
        pod(
            "web-sidecar",
            "{app: web}",
            &format!(
                "  initContainers:\n  - name: proxy\n    image: envoy\n    restartPolicy: Always\n    ports: [{{name: http, containerPort: 15001}}]\n{}",
                app("[{containerPort: 8080}]")
            ),
        ),
        // UDP, and on a plain init container: neither counts
        pod(
            "web-udp",
            "{app: web}",
            &format!(
                "  initContainers:\n  - name: setup\n    image: busybox\n    ports: [{{name: http, containerPort: 9000}}]\n{}",
                app("[{name: http, containerPort: 8080, protocol: UDP}, {name: metrics, containerPort: 9090}]")
            ),
        ),
        // no ports at all: warned
        pod("web-bare", "{app: web}", "  containers:\n  - name: app\n    image: nginx\n"),
        // not selected: nothing, whatever its ports
        pod("db", "{app: db}", "  containers:\n  - name: db\n    image: postgres\n"),
    ]
    .concat();
    let svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - name: http\n    port: 80\n    targetPort: http\n  - {name: admin, port: 9000, targetPort: 9000}\n";
    let m = load(&format!("{text}{svc}")).expect("loads");
    let line = text.lines().count() + 10;
    let got: Vec<String> = m.target_port_warnings().iter().map(ToString::to_string).collect();
    let tail = "the EndpointSlice controller leaves the pod out of this port's endpoints";
    assert_eq!(
        got,
        [
            format!(
                r#"svc.yaml:{line}:17: spec.ports[0].targetPort: pod "web" declares no TCP container port named "http" (its ports: 8080): {tail}"#
            ),
            format!(
                r#"svc.yaml:{line}:17: spec.ports[0].targetPort: pod "web-udp" declares no TCP container port named "http" (its ports: "http" 8080/UDP, "metrics" 9090): {tail}"#
            ),
            format!(
                r#"svc.yaml:{line}:17: spec.ports[0].targetPort: pod "web-bare" declares no TCP container port named "http" (it declares none): {tail}"#
            ),
        ]
    );
    assert!(m.target_port_warnings().iter().all(|w| !w.is_error()));
}
