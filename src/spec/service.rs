//! The parts of a Service that the simulator reads: a ClusterIP Service with
//! a selector and TCP ports, defaulted and validated (`manifest::service`).

use super::PortRef;
use crate::time::SimDuration;
use k8s_openapi::api::core::v1::Service;
use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// `spec.internalTrafficPolicy`: which endpoints a node's kube-proxy sends
/// cluster-IP traffic to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TrafficPolicy {
    /// Every usable endpoint of the cluster.
    Cluster,
    /// Only the endpoints on the client's own node.
    Local,
}

/// One `spec.ports[]` entry (protocol TCP: other protocols are rejected).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServicePort {
    /// `""` when the Service has a single unnamed port.
    pub name: String,
    pub port: u16,
    /// `targetPort`: a number, or a container port name resolved per pod.
    pub target: PortRef,
    pub app_protocol: Option<String>,
}

/// A Service as the simulator runs it.
#[derive(Clone, Debug)]
pub struct ServiceSpec {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    /// `spec.selector`: never empty (a Service without one is rejected).
    pub selector: BTreeMap<String, String>,
    pub ports: Vec<ServicePort>,
    /// A `spec.clusterIP` the manifest asks for; else the API server allocates one.
    pub cluster_ip: Option<Ipv4Addr>,
    pub publish_not_ready_addresses: bool,
    /// `sessionAffinity: ClientIP` and its `timeoutSeconds`.
    pub affinity: Option<SimDuration>,
    pub internal_traffic_policy: TrafficPolicy,
    /// The defaulted API object, for rendering the trace's Service objects.
    pub object: Service,
    /// `clusterIP: None`: no cluster IP, no kube-proxy rules; its
    /// EndpointSlices name the pods (a StatefulSet's governing Service).
    pub headless: bool,
}

impl ServiceSpec {
    /// The selector matches these pod labels (`labels.Set(selector).AsSelector()`).
    pub fn selects(&self, namespace: &str, labels: &BTreeMap<String, String>) -> bool {
        namespace == self.namespace && self.selector.iter().all(|(k, v)| labels.get(k) == Some(v))
    }

    /// The port named `name`, or numbered `name`.
    pub fn port(&self, name: &str) -> Option<usize> {
        self.ports.iter().position(|p| p.name == name).or_else(|| {
            let n: u16 = name.parse().ok()?;
            self.ports.iter().position(|p| p.port == n)
        })
    }
}
