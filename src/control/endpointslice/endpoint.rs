//! One pod as an endpoint of one Service (staging/src/k8s.io/endpointslice
//! utils.go): whether it is included, its conditions, its ports.

use crate::api::endpointslice::{Endpoint, SlicePort, TargetRef};
use crate::api::pod::ApiPod;
use crate::api::status::ConditionType;
use crate::spec::{PortRef, Role, ServiceSpec};
use std::sync::Arc;

/// `ShouldPodBeInEndpoints(pod, includeTerminating=true)`: a pod with an IP
/// that has not finished; a terminating pod stays.
pub fn included(pod: &ApiPod) -> bool {
    !pod.status.phase.is_terminal() && pod.status.pod_ip.is_some()
}

/// `podToEndpoint`: serving = the pod's Ready condition; terminating =
/// deletionTimestamp set; ready = publishNotReadyAddresses, or serving and
/// not terminating. `target` is the pod's `targetRef` (see [`target_ref`]).
pub fn pod_to_endpoint(pod: &ApiPod, svc: &ServiceSpec, target: &TargetRef) -> Option<Endpoint> {
    let address = pod.status.pod_ip.clone()?;
    let serving = pod.status.condition_true(&ConditionType::Ready);
    let terminating = pod.meta.deletion.is_some();
    let object = pod.spec.object.spec.as_ref();
    // `ShouldSetHostname`: only when the pod's subdomain is the Service's name.
    let hostname =
        object.and_then(|s| s.hostname.clone().filter(|h| !h.is_empty() && s.subdomain.as_deref() == Some(&svc.name)));
    Some(Endpoint {
        address,
        ready: svc.publish_not_ready_addresses || (serving && !terminating),
        serving,
        terminating,
        hostname,
        node: pod.node.clone(),
        target: target.clone(),
    })
}

/// The pod's `targetRef`. Its parts never change, so the controller makes
/// it once per pod: every endpoint it then writes for the pod shares the
/// same strings, and comparing them with the slices' copies is a pointer
/// comparison.
pub fn target_ref(pod: &ApiPod) -> TargetRef {
    TargetRef {
        pod: pod.id,
        name: Arc::from(pod.spec.name.as_str()),
        namespace: Arc::from(pod.spec.namespace.as_str()),
        uid: pod.meta.uid.clone(),
    }
}

/// `getEndpointPorts`: each Service port with its target resolved for this
/// pod. A named target is looked up among the regular containers' ports,
/// then the sidecars', by name and protocol (`FindPort`); a name the pod
/// does not declare leaves that port out.
pub fn endpoint_ports(pod: &ApiPod, svc: &ServiceSpec) -> Vec<SlicePort> {
    let containers = || {
        let spec = &pod.spec.containers;
        spec.iter().filter(|c| c.role == Role::Regular).chain(spec.iter().filter(|c| c.role == Role::Sidecar))
    };
    svc.ports
        .iter()
        .filter_map(|p| {
            let port = match &p.target {
                PortRef::Number(n) => *n,
                PortRef::Name(name) => {
                    containers()
                        .flat_map(|c| &c.ports)
                        .find(|cp| cp.name.as_deref() == Some(name) && cp.protocol == "TCP")?
                        .port
                }
            };
            Some(SlicePort { name: p.name.clone(), port, app_protocol: p.app_protocol.clone() })
        })
        .collect()
}
