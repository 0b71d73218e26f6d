//! Services and EndpointSlices as the API server returns them.

use super::render::Clock;
use crate::api::endpointslice::ApiSlice;
use crate::api::service::ApiService;
use crate::client::{Outcome, RequestRecord};
use crate::proxy::{Action, ProxyEndpoint, ProxySync};
use crate::time::SimTime;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::discovery::v1 as discovery;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The Service object: the manifest, defaulted, with its cluster IP.
pub fn service(s: &ApiService, clock: &Clock) -> core::Service {
    let mut object = s.spec.object.clone();
    let meta = &mut object.metadata;
    meta.namespace = Some(s.spec.namespace.clone());
    meta.uid = Some(s.meta.uid.to_string());
    meta.resource_version = Some(s.meta.resource_version.to_string());
    meta.creation_timestamp = Some(clock.time(s.meta.created));
    if let Some(spec) = object.spec.as_mut() {
        let ip = if s.spec.headless { "None".to_string() } else { s.cluster_ip.to_string() };
        spec.cluster_ip = Some(ip.clone());
        spec.cluster_ips = Some(vec![ip]);
    }
    object.status = Some(core::ServiceStatus { load_balancer: Some(Default::default()), ..Default::default() });
    object
}

/// The EndpointSlice object (`newEndpointSlice`, `podToEndpoint`).
pub fn endpoint_slice(s: &ApiSlice, svc: &ApiService, clock: &Clock) -> discovery::EndpointSlice {
    let spec = &svc.spec;
    let mut labels: BTreeMap<String, String> = spec
        .labels
        .iter()
        .filter(|(k, _)| !RESERVED.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    labels.insert("endpointslice.kubernetes.io/managed-by".into(), "endpointslice-controller.k8s.io".into());
    labels.insert("kubernetes.io/service-name".into(), spec.name.clone());
    // setEndpointSliceLabels: kube-proxy's slice informer leaves these out.
    if spec.headless {
        labels.insert("service.kubernetes.io/headless".into(), String::new());
    }
    let annotations = s.content.trigger_time.map(|t| {
        let time = clock.time(t).0.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
        BTreeMap::from([("endpoints.kubernetes.io/last-change-trigger-time".to_string(), time)])
    });
    let endpoints = s.content.endpoints.iter().map(|e| discovery::Endpoint {
        addresses: vec![e.address.to_string()],
        conditions: Some(discovery::EndpointConditions {
            ready: Some(e.ready),
            serving: Some(e.serving),
            terminating: Some(e.terminating),
        }),
        hostname: e.hostname.clone(),
        node_name: e.node.as_ref().map(|n| n.to_string()),
        target_ref: Some(core::ObjectReference {
            kind: Some("Pod".into()),
            name: Some(e.target.name.to_string()),
            namespace: Some(e.target.namespace.to_string()),
            uid: Some(e.target.uid.to_string()),
            ..Default::default()
        }),
        ..Default::default()
    });
    let ports = s.content.ports.iter().map(|p| discovery::EndpointPort {
        name: Some(p.name.clone()),
        port: Some(p.port as i32),
        protocol: Some("TCP".into()),
        app_protocol: p.app_protocol.clone(),
    });
    discovery::EndpointSlice {
        address_type: "IPv4".into(),
        endpoints: (!s.content.endpoints.is_empty()).then(|| endpoints.collect()),
        ports: (!s.content.ports.is_empty()).then(|| ports.collect()),
        metadata: ObjectMeta {
            annotations,
            creation_timestamp: Some(clock.time(s.meta.created)),
            generate_name: Some(format!("{}-", spec.name)),
            generation: Some(s.meta.generation),
            labels: Some(labels),
            name: Some(s.name.to_string()),
            namespace: Some(spec.namespace.clone()),
            owner_references: Some(vec![OwnerReference {
                api_version: "v1".into(),
                block_owner_deletion: Some(true),
                controller: Some(true),
                kind: "Service".into(),
                name: spec.name.clone(),
                uid: svc.meta.uid.to_string(),
            }]),
            resource_version: Some(s.meta.resource_version.to_string()),
            uid: Some(s.meta.uid.to_string()),
            ..Default::default()
        },
    }
}

/// Labels the controller owns and does not copy from the Service (`setEndpointSliceLabels`).
const RESERVED: [&str; 3] =
    ["kubernetes.io/service-name", "endpointslice.kubernetes.io/managed-by", "service.kubernetes.io/headless"];

fn secs(t: SimTime) -> Value {
    let ms = t.as_millis();
    serde_json::from_str(&format!("{}.{:03}", ms / 1000, ms % 1000)).unwrap_or(Value::Null)
}

/// A `PROXY` line: one sync and every rule it committed.
pub fn proxy_fields(p: &ProxySync) -> Vec<(&'static str, Value)> {
    vec![
        ("node", json!(p.node)),
        ("started", secs(p.started)),
        ("full", json!(p.full)),
        ("endpoints", json!(p.endpoints)),
    ]
}

/// The `rules` of a `PROXY` line, serialized from the sync as it is: a
/// node's rules hold every endpoint of every Service (1,000 on
/// rollout-1000), too many to build as JSON values first. Fields in the
/// order of a JSON map's (sorted) keys, as the line always had them.
pub struct ProxyRules<'a>(pub &'a ProxySync);

impl Serialize for ProxyRules<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.rules.iter().map(|((ip, port), r)| {
            let (action, endpoints) = match &r.action {
                Action::Forward(eps) => ("forward", eps.as_slice()),
                Action::Reject => ("reject", &[][..]),
                Action::Drop => ("drop", &[][..]),
            };
            RuleLine { action, cluster_ip: *ip, endpoints: Endpoints(endpoints), port: *port, service: &r.name }
        }))
    }
}

#[derive(Serialize)]
struct RuleLine<'a> {
    action: &'static str,
    #[serde(rename = "clusterIP")]
    cluster_ip: std::net::Ipv4Addr,
    endpoints: Endpoints<'a>,
    port: u16,
    service: &'a str,
}

struct Endpoints<'a>(&'a [Arc<ProxyEndpoint>]);

impl Serialize for Endpoints<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|e| EndpointLine {
            endpoint: Key(e),
            local: e.local,
            pod: e.target.as_ref().map(|t| &*t.name),
            ready: e.ready,
            serving: e.serving,
            terminating: e.terminating,
        }))
    }
}

#[derive(Serialize)]
struct EndpointLine<'a> {
    endpoint: Key<'a>,
    local: bool,
    pod: Option<&'a str>,
    ready: bool,
    serving: bool,
    terminating: bool,
}

/// `ProxyEndpoint::key`, written without a String of its own.
struct Key<'a>(&'a ProxyEndpoint);

impl Serialize for Key<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}:{}", self.0.ip, self.0.port))
    }
}

/// A `REQUEST` line: who sent what, where it went, what came back.
pub fn request_fields(r: &RequestRecord) -> Vec<(&'static str, Value)> {
    let status = match r.outcome {
        Outcome::Http { status } => json!(status),
        _ => Value::Null,
    };
    vec![
        ("client", json!(r.client)),
        ("n", json!(r.n)),
        ("sent", secs(r.sent)),
        ("from", json!(r.from)),
        ("node", json!(r.node)),
        ("target", json!(r.target)),
        ("path", json!(r.path)),
        ("endpoint", json!(r.endpoint)),
        ("pod", json!(r.pod.as_ref().map(|p| p.0.to_string()))),
        ("podUID", json!(r.pod.as_ref().map(|p| p.1.to_string()))),
        ("sticky", json!(r.sticky)),
        ("outcome", json!(r.outcome.as_str())),
        ("status", status),
        ("detail", json!(r.outcome.detail())),
    ]
}
