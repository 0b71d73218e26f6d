//! Named target ports against the pods a Service selects.
//!
//! The EndpointSlice controller resolves `targetPort: http` per pod
//! (`podutil.FindPort`, pkg/api/v1/pod/util.go): the first port of that name
//! and the Service port's protocol among the regular containers, then among
//! the sidecars (init containers with `restartPolicy: Always`); other init
//! containers are not looked at. A pod without one is left out of that port's
//! endpoints (`getEndpointPorts` logs and skips it), so the simulation sends it
//! nothing on that port (control/endpointslice/endpoint.rs `endpoint_ports`).
//! The API server accepts such a Service without a word; podsim warns, at the
//! Service's `targetPort`, once per selected pod.

use crate::error::Problem;
use crate::manifest::Manifests;
use crate::spec::{ContainerPort, PodSpec, PortRef, Role, ServiceSpec};

/// Service ports are TCP: validation and `unsupported::check` reject the others.
const PROTOCOL: &str = "TCP";

/// The ports `FindPort` looks at, in its order: the regular containers', then
/// the sidecars'.
fn findable_ports(pod: &PodSpec) -> impl Iterator<Item = &ContainerPort> {
    let of = |role: Role| pod.containers.iter().filter(move |c| c.role == role).flat_map(|c| &c.ports);
    of(Role::Regular).chain(of(Role::Sidecar))
}

/// `FindPort` for a named target: the container port `name` of `pod`, TCP.
fn find_port(pod: &PodSpec, name: &str) -> Option<u16> {
    findable_ports(pod).find(|p| p.name.as_deref() == Some(name) && p.protocol == PROTOCOL).map(|p| p.port)
}

/// `8080`, `"metrics" 9090`, `"dns" 53/UDP`.
fn describe(port: &ContainerPort) -> String {
    let mut out = match &port.name {
        Some(name) => format!("{name:?} {}", port.port),
        None => port.port.to_string(),
    };
    if port.protocol != PROTOCOL {
        out = format!("{out}/{}", port.protocol);
    }
    out
}

/// Each named target port of `service` that a pod it selects does not
/// declare: (the field, the message).
fn unresolved(service: &ServiceSpec, pods: &[PodSpec]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, port) in service.ports.iter().enumerate() {
        let PortRef::Name(name) = &port.target else { continue };
        for pod in pods.iter().filter(|p| service.selects(&p.namespace, &p.labels)) {
            if find_port(pod, name).is_some() {
                continue;
            }
            let ports: Vec<String> = findable_ports(pod).map(describe).collect();
            let ports = match ports.is_empty() {
                true => "it declares none".to_string(),
                false => format!("its ports: {}", ports.join(", ")),
            };
            out.push((
                format!("spec.ports[{i}].targetPort"),
                format!(
                    "pod {:?} declares no {PROTOCOL} container port named {name:?} ({ports}): \
                     the EndpointSlice controller leaves the pod out of this port's endpoints",
                    pod.name
                ),
            ));
        }
    }
    out
}

impl Manifests {
    /// A warning for each named `targetPort` that a pod its Service selects
    /// does not declare, located at the Service's `targetPort`.
    pub fn target_port_warnings(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        for (i, service) in self.services.iter().enumerate() {
            for (path, message) in unresolved(service, &self.pods) {
                out.push(self.service_problem(i, &path, message).warn());
            }
        }
        out
    }
}
