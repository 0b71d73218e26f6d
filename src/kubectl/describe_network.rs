//! `kubectl describe service` and `kubectl describe endpointslice`
//! (k8s.io/kubectl/pkg/describe: `describeService`, `formatEndpointSlices`,
//! `describeEndpointSliceV1`).

use super::describe::{Writer, annotations, describe_events, labels};
use super::selector::format_labels;
use super::tabwriter::go_tabwriter;
use k8s_openapi::api::core::v1::{Event, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;

/// `describeService` of `svc`, with its EndpointSlices (those labelled
/// `kubernetes.io/service-name=NAME`, which kubectl ≥ 1.33 reads for the
/// Endpoints lines in place of the Endpoints object) and its events.
pub fn describe_service(svc: &Service, slices: &[EndpointSlice], events: &[Event], now: Timestamp) -> String {
    let mut w = Writer(String::new());
    let meta = &svc.metadata;
    let spec = svc.spec.clone().unwrap_or_default();
    w.line(0, &format!("Name:\t{}", meta.name.clone().unwrap_or_default()));
    w.line(0, &format!("Namespace:\t{}", meta.namespace.clone().unwrap_or_default()));
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    w.line(0, &format!("Selector:\t{}", format_labels(spec.selector.as_ref())));
    w.line(0, &format!("Type:\t{}", spec.type_.clone().unwrap_or_default()));
    if let Some(p) = &spec.ip_family_policy {
        w.line(0, &format!("IP Family Policy:\t{p}"));
    }
    let or_none = |list: Option<&Vec<String>>| match list.filter(|l| !l.is_empty()) {
        Some(l) => l.join(","),
        None => "<none>".into(),
    };
    w.line(0, &format!("IP Families:\t{}", or_none(spec.ip_families.as_ref())));
    w.line(0, &format!("IP:\t{}", spec.cluster_ip.clone().unwrap_or_default()));
    w.line(0, &format!("IPs:\t{}", or_none(spec.cluster_ips.as_ref())));
    if let Some(ips) = spec.external_ips.as_ref().filter(|l| !l.is_empty()) {
        w.line(0, &format!("External IPs:\t{}", ips.join(",")));
    }
    if let Some(ip) = spec.load_balancer_ip.as_deref().filter(|s| !s.is_empty()) {
        w.line(0, &format!("Desired LoadBalancer IP:\t{ip}"));
    }
    if let Some(n) = spec.external_name.as_deref().filter(|s| !s.is_empty()) {
        w.line(0, &format!("External Name:\t{n}"));
    }
    let ingress = svc.status.as_ref().and_then(|s| s.load_balancer.as_ref()).and_then(|l| l.ingress.clone());
    if let Some(ingress) = ingress.filter(|i| !i.is_empty()) {
        // buildIngressString
        let list: Vec<String> = ingress
            .iter()
            .map(|i| match (i.ip.as_deref().filter(|ip| !ip.is_empty()), &i.ip_mode) {
                (Some(ip), Some(mode)) => format!("{ip} ({mode})"),
                (Some(ip), None) => ip.to_string(),
                (None, _) => i.hostname.clone().unwrap_or_default(),
            })
            .collect();
        w.line(0, &format!("LoadBalancer Ingress:\t{}", list.join(", ")));
    }
    for sp in spec.ports.iter().flatten() {
        let protocol = sp.protocol.clone().unwrap_or_default();
        let name = sp.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "<unset>".into());
        w.line(0, &format!("Port:\t{name}\t{}/{protocol}", sp.port));
        // An unset targetPort is Go's zero IntOrString, the Int 0.
        let target = match &sp.target_port {
            Some(IntOrString::Int(n)) => n.to_string(),
            Some(IntOrString::String(s)) => s.clone(),
            None => "0".into(),
        };
        w.line(0, &format!("TargetPort:\t{target}/{protocol}"));
        if let Some(n) = sp.node_port.filter(|n| *n != 0) {
            w.line(0, &format!("NodePort:\t{name}\t{n}/{protocol}"));
        }
        let port_name = sp.name.clone().unwrap_or_default();
        w.line(0, &format!("Endpoints:\t{}", format_endpoint_slices(slices, &port_name)));
    }
    w.line(0, &format!("Session Affinity:\t{}", spec.session_affinity.clone().unwrap_or_default()));
    if let Some(p) = spec.external_traffic_policy.as_deref().filter(|s| !s.is_empty()) {
        w.line(0, &format!("External Traffic Policy:\t{p}"));
    }
    if let Some(p) = &spec.internal_traffic_policy {
        w.line(0, &format!("Internal Traffic Policy:\t{p}"));
    }
    if let Some(n) = spec.health_check_node_port.filter(|n| *n != 0) {
        w.line(0, &format!("HealthCheck NodePort:\t{n}"));
    }
    if let Some(r) = spec.load_balancer_source_ranges.as_ref().filter(|r| !r.is_empty()) {
        w.line(0, &format!("LoadBalancer Source Ranges:\t{}", r.join(",")));
    }
    describe_events(&mut w, events, now);
    go_tabwriter(&w.0, 0, 2)
}

/// `formatEndpointSlices` for one Service port: the ready endpoints
/// (an unset `ready` counts as ready) as `host:port`, the first three, then
/// `+ N more...`; a slice without ports lists bare addresses; `<none>`
/// without slices (an empty string when no endpoint is ready).
pub fn format_endpoint_slices(slices: &[EndpointSlice], port_name: &str) -> String {
    if slices.is_empty() {
        return "<none>".into();
    }
    const MAX: usize = 3;
    let mut list: Vec<String> = Vec::new();
    let (mut more, mut count) = (false, 0);
    let ready =
        |e: &k8s_openapi::api::discovery::v1::Endpoint| e.conditions.as_ref().and_then(|c| c.ready).unwrap_or(true);
    for slice in slices {
        let endpoints = slice.endpoints.as_deref().unwrap_or_default();
        let ports = slice.ports.as_deref().unwrap_or_default();
        // A headless Service's slices may have no ports.
        let targets: Vec<Option<i32>> = if ports.is_empty() {
            vec![None]
        } else {
            ports
                .iter()
                .filter(|p| p.name.as_deref().unwrap_or_default() == port_name)
                .map(|p| Some(p.port.unwrap_or(0)))
                .collect()
        };
        for port in targets {
            for e in endpoints {
                if list.len() == MAX {
                    more = true;
                }
                if !ready(e) {
                    continue;
                }
                let Some(addr) = e.addresses.first() else { continue };
                if !more {
                    list.push(match port {
                        // net.JoinHostPort brackets an IPv6 address.
                        Some(p) if addr.contains(':') => format!("[{addr}]:{p}"),
                        Some(p) => format!("{addr}:{p}"),
                        None => addr.clone(),
                    });
                }
                count += 1;
            }
        }
    }
    let joined = list.join(",");
    if more { format!("{joined} + {} more...", count - MAX) } else { joined }
}

/// `describeEndpointSliceV1`: the address type, the ports table, and each
/// endpoint with its Ready condition (the only one kubectl prints), hostname,
/// target, node and zone, `<unset>` for what the slice leaves out.
pub fn describe_endpoint_slice(slice: &EndpointSlice, events: &[Event], now: Timestamp) -> String {
    let mut w = Writer(String::new());
    let meta = &slice.metadata;
    w.line(0, &format!("Name:\t{}", meta.name.clone().unwrap_or_default()));
    w.line(0, &format!("Namespace:\t{}", meta.namespace.clone().unwrap_or_default()));
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    w.line(0, &format!("AddressType:\t{}", slice.address_type));
    let unset = || "<unset>".to_string();
    match slice.ports.as_deref().unwrap_or_default() {
        [] => w.line(0, "Ports: <unset>"),
        ports => {
            w.line(0, "Ports:");
            w.line(1, "Name\tPort\tProtocol");
            w.line(1, "----\t----\t--------");
            for p in ports {
                let name = p.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(unset);
                let port = p.port.map_or_else(unset, |n| n.to_string());
                w.line(1, &format!("{name}\t{port}\t{}", p.protocol.clone().unwrap_or_default()));
            }
        }
    }
    match slice.endpoints.as_deref().unwrap_or_default() {
        [] => w.line(0, "Endpoints: <none>"),
        endpoints => {
            w.line(0, "Endpoints:");
            for e in endpoints {
                let addresses = if e.addresses.is_empty() { "<none>".into() } else { e.addresses.join(", ") };
                w.line(1, &format!("- Addresses:\t{addresses}"));
                w.line(2, "Conditions:");
                let ready = e.conditions.as_ref().and_then(|c| c.ready).map_or_else(unset, |r| r.to_string());
                w.line(3, &format!("Ready:\t{ready}"));
                w.line(2, &format!("Hostname:\t{}", e.hostname.clone().unwrap_or_else(unset)));
                if let Some(t) = &e.target_ref {
                    let (kind, name) = (t.kind.clone().unwrap_or_default(), t.name.clone().unwrap_or_default());
                    w.line(2, &format!("TargetRef:\t{kind}/{name}"));
                }
                w.line(2, &format!("NodeName:\t{}", e.node_name.clone().unwrap_or_else(unset)));
                w.line(2, &format!("Zone:\t{}", e.zone.clone().unwrap_or_else(unset)));
            }
        }
    }
    describe_events(&mut w, events, now);
    go_tabwriter(&w.0, 0, 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{ObjectReference, ServicePort, ServiceSpec};
    use k8s_openapi::api::discovery::v1::{Endpoint, EndpointConditions, EndpointPort};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    use std::collections::BTreeMap;

    fn endpoint(ip: &str, ready: Option<bool>) -> Endpoint {
        Endpoint {
            addresses: vec![ip.into()],
            conditions: Some(EndpointConditions { ready, serving: ready, terminating: Some(false) }),
            node_name: Some("node-1".into()),
            target_ref: Some(ObjectReference {
                kind: Some("Pod".into()),
                name: Some(format!("web-{ip}")),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn slice(name: &str, port: Option<&str>, endpoints: Vec<Endpoint>) -> EndpointSlice {
        EndpointSlice {
            address_type: "IPv4".into(),
            endpoints: Some(endpoints),
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                labels: Some(BTreeMap::from([("kubernetes.io/service-name".to_string(), "web".to_string())])),
                ..Default::default()
            },
            ports: port.map(|p| {
                vec![EndpointPort {
                    name: Some(p.into()),
                    port: Some(8080),
                    protocol: Some("TCP".into()),
                    app_protocol: None,
                }]
            }),
        }
    }

    /// `formatEndpointSlices`: ready (or unset) endpoints of the port's name,
    /// three at most then `+ N more...`; bare addresses for a slice without
    /// ports; `<none>` without slices, an empty string when none is ready.
    #[test]
    fn endpoints_line_as_kubectl_formats_it() {
        let five = (1..=5).map(|i| endpoint(&format!("10.0.0.{i}"), if i == 2 { Some(false) } else { None })).collect();
        let slices = [slice("web-a", Some("http"), five)];
        assert_eq!(format_endpoint_slices(&slices, "http"), "10.0.0.1:8080,10.0.0.3:8080,10.0.0.4:8080 + 1 more...");
        assert_eq!(format_endpoint_slices(&slices, "metrics"), "");
        assert_eq!(format_endpoint_slices(&[], "http"), "<none>");
        let headless = [slice("web-b", None, vec![endpoint("fd00::1", Some(true))])];
        assert_eq!(format_endpoint_slices(&headless, ""), "fd00::1");
        let v6 = [slice("web-c", Some(""), vec![endpoint("fd00::1", Some(true))])];
        assert_eq!(format_endpoint_slices(&v6, ""), "[fd00::1]:8080");
    }

    /// `describeService`'s lines: `<unset>` for an unnamed port, the target
    /// port, the Endpoints line from the slices, the policies the API defaults.
    #[test]
    fn service_reads_as_kubectl_describes_it() {
        let svc = Service {
            metadata: ObjectMeta { name: Some("web".into()), namespace: Some("default".into()), ..Default::default() },
            spec: Some(ServiceSpec {
                selector: Some(BTreeMap::from([("app".to_string(), "web".to_string())])),
                type_: Some("ClusterIP".into()),
                ip_family_policy: Some("SingleStack".into()),
                ip_families: Some(vec!["IPv4".into()]),
                cluster_ip: Some("10.96.0.10".into()),
                cluster_ips: Some(vec!["10.96.0.10".into()]),
                ports: Some(vec![ServicePort {
                    port: 80,
                    protocol: Some("TCP".into()),
                    target_port: Some(IntOrString::Int(8080)),
                    ..Default::default()
                }]),
                session_affinity: Some("None".into()),
                internal_traffic_policy: Some("Cluster".into()),
                ..Default::default()
            }),
            status: None,
        };
        let slices = [slice("web-a", Some(""), vec![endpoint("10.0.0.1", Some(true))])];
        assert_eq!(
            describe_service(&svc, &slices, &[], Timestamp::UNIX_EPOCH),
            "Name:                     web
Namespace:                default
Labels:                   <none>
Annotations:              <none>
Selector:                 app=web
Type:                     ClusterIP
IP Family Policy:         SingleStack
IP Families:              IPv4
IP:                       10.96.0.10
IPs:                      10.96.0.10
Port:                     <unset>  80/TCP
TargetPort:               8080/TCP
Endpoints:                10.0.0.1:8080
Session Affinity:         None
Internal Traffic Policy:  Cluster
Events:                   <none>
"
        );
    }

    /// `describeEndpointSliceV1`: the ports table, each endpoint's Ready
    /// condition (the only one kubectl prints) and `<unset>` for what is not set.
    #[test]
    fn endpoint_slice_reads_as_kubectl_describes_it() {
        let s = slice("web-a", Some("http"), vec![endpoint("10.0.0.1", Some(true)), endpoint("10.0.0.2", None)]);
        assert_eq!(
            describe_endpoint_slice(&s, &[], Timestamp::UNIX_EPOCH),
            "Name:         web-a
Namespace:    default
Labels:       kubernetes.io/service-name=web
Annotations:  <none>
AddressType:  IPv4
Ports:
  Name  Port  Protocol
  ----  ----  --------
  http  8080  TCP
Endpoints:
  - Addresses:  10.0.0.1
    Conditions:
      Ready:    true
    Hostname:   <unset>
    TargetRef:  Pod/web-10.0.0.1
    NodeName:   node-1
    Zone:       <unset>
  - Addresses:  10.0.0.2
    Conditions:
      Ready:    <unset>
    Hostname:   <unset>
    TargetRef:  Pod/web-10.0.0.2
    NodeName:   node-1
    Zone:       <unset>
Events:         <none>
"
        );
        let empty = EndpointSlice { endpoints: None, ports: None, ..s };
        let text = describe_endpoint_slice(&empty, &[], Timestamp::UNIX_EPOCH);
        assert!(text.contains("AddressType:  IPv4\nPorts: <unset>\nEndpoints: <none>\nEvents:  <none>\n"), "{text}");
    }
}
