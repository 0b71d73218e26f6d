//! The API server's warnings about a pod spec, as kubectl prints them
//! (`Warning: …`) on creating a Pod or a workload: the negative grace and the
//! ports blocks of `warningsForPodSpecAndMeta` (pkg/api/pod/warnings.go). Every
//! container of a pod shares one network namespace, so two declaring the same
//! port and protocol is only a warning; at run time the first process to
//! bind the port gets it (`kubelet::netns`).

use k8s_openapi::api::core::v1::{Container, ContainerPort, PodSpec};

/// A negative `terminationGracePeriodSeconds`. Only a template can still
/// carry one when the warnings run: a Pod's is made 1 on decoding
/// (`Convert_v1_Pod_To_core_Pod` 1.27–1.36, `SetDefaults_Pod` from 1.37).
pub fn grace_warning(spec: &PodSpec, at: &str) -> Option<(String, String)> {
    let path = format!("{at}.terminationGracePeriodSeconds");
    let text = format!("{path}: must be >= 0; negative values are invalid and will be treated as 1");
    spec.termination_grace_period_seconds.is_some_and(|g| g < 0).then_some((path, text))
}

/// Each warning as (where it is written, the API server's text); `at` is
/// where the pod spec is (`spec`, or `spec.template.spec` in a workload).
pub fn port_warnings(spec: &PodSpec, at: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // `allPorts`: per "port/protocol", each earlier declaration and its path.
    let mut all: Vec<(String, String, &ContainerPort)> = Vec::new();
    for (path, c) in containers(spec, at) {
        for (i, port) in c.ports.iter().flatten().enumerate() {
            let here = format!("{path}.ports[{i}]");
            let host_ip = port.host_ip.as_deref().unwrap_or("");
            let host_port = port.host_port.unwrap_or(0);
            if !host_ip.is_empty() && host_port == 0 {
                out.push((here.clone(), format!("{here}: hostIP set without hostPort: {}", go_value(port))));
            }
            let key = format!("{}/{}", port.container_port, protocol(port));
            for (_, other_path, other) in all.iter().filter(|(k, _, _)| *k == key) {
                let other_ip = other.host_ip.as_deref().unwrap_or("");
                let other_port = other.host_port.unwrap_or(0);
                let what = if host_ip == other_ip && host_port == other_port {
                    "duplicate"
                } else if host_port == 0 || other_port == 0 {
                    "overlapping"
                } else if host_port == other_port && host_ip.is_empty() != other_ip.is_empty() {
                    "dangerously ambiguous"
                } else {
                    continue;
                };
                out.push((here.clone(), format!("{here}: {what} port definition with {other_path}")));
            }
            all.push((key, here, port));
        }
    }
    out
}

/// `VisitContainersWithPath`: init containers, then containers.
fn containers<'a>(spec: &'a PodSpec, at: &str) -> Vec<(String, &'a Container)> {
    let init = spec.init_containers.iter().flatten().enumerate().map(|(i, c)| (format!("{at}.initContainers[{i}]"), c));
    let regular = spec.containers.iter().enumerate().map(|(i, c)| (format!("{at}.containers[{i}]"), c));
    init.chain(regular).collect()
}

fn protocol(port: &ContainerPort) -> &str {
    port.protocol.as_deref().unwrap_or("TCP")
}

/// Go's `%+v` of an `api.ContainerPort`.
fn go_value(p: &ContainerPort) -> String {
    format!(
        "{{Name:{} HostPort:{} ContainerPort:{} Protocol:{} HostIP:{}}}",
        p.name.as_deref().unwrap_or(""),
        p.host_port.unwrap_or(0),
        p.container_port,
        protocol(p),
        p.host_ip.as_deref().unwrap_or("")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: serde_json::Value) -> PodSpec {
        serde_json::from_value(json).unwrap()
    }

    fn texts(spec: &PodSpec) -> Vec<String> {
        port_warnings(spec, "spec").into_iter().map(|(_, t)| t).collect()
    }

    #[test]
    fn two_containers_declaring_one_port_get_the_api_servers_warning() {
        let s = spec(serde_json::json!({"containers": [
            {"name": "nginx1", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}]},
            {"name": "nginx2", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}]},
        ]}));
        assert_eq!(
            port_warnings(&s, "spec"),
            vec![(
                "spec.containers[1].ports[0]".to_string(),
                "spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]".to_string()
            )]
        );
    }

    #[test]
    fn the_protocol_host_port_and_host_ip_decide_the_wording() {
        let s = spec(serde_json::json!({
            "initContainers": [{"name": "proxy", "image": "p", "ports": [{"containerPort": 53, "protocol": "UDP"}]}],
            "containers": [
                {"name": "a", "image": "a", "ports": [
                    {"containerPort": 53, "protocol": "TCP"},
                    {"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"},
                    {"containerPort": 9090, "hostPort": 9090, "hostIP": "10.0.0.1", "protocol": "TCP"},
                    {"name": "m", "containerPort": 9100, "hostIP": "10.0.0.1", "protocol": "TCP"},
                ]},
                {"name": "b", "image": "b", "ports": [
                    {"containerPort": 8080, "protocol": "TCP"},
                    {"containerPort": 9090, "hostPort": 9090, "protocol": "TCP"},
                    {"containerPort": 53, "protocol": "UDP"},
                ]},
            ]
        }));
        assert_eq!(
            texts(&s),
            vec![
                "spec.containers[0].ports[3]: hostIP set without hostPort: {Name:m HostPort:0 ContainerPort:9100 Protocol:TCP HostIP:10.0.0.1}",
                "spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[1]",
                "spec.containers[1].ports[1]: dangerously ambiguous port definition with spec.containers[0].ports[2]",
                "spec.containers[1].ports[2]: duplicate port definition with spec.initContainers[0].ports[0]",
            ]
        );
    }
}
