//! The NodePorts filter (pkg/scheduler/framework/plugins/nodeports): a pod
//! fits a node only if none of its host ports is taken there by a pod the
//! scheduler's cache holds. A host port is a (hostIP, protocol, hostPort)
//! triple; `0.0.0.0` (an empty hostIP) binds every address of the node, so it
//! conflicts with the same protocol and port on any IP. hostNetwork pods get
//! `hostPort = containerPort` from API defaulting, so two of them declaring
//! the same port never share a node.

use k8s_openapi::api::core::v1::{ContainerPort, Pod};

/// `DefaultBindAllHostIP`.
const ALL_IPS: &str = "0.0.0.0";

/// One host port a pod takes on its node, sanitized as `HostPortInfo` stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostPort {
    pub ip: String,
    pub protocol: String,
    pub port: i32,
}

impl HostPort {
    /// `HostPortInfo.sanitize`: an empty IP is every IP, an empty protocol TCP.
    fn of(p: &ContainerPort) -> HostPort {
        let ip = p.host_ip.as_deref().filter(|ip| !ip.is_empty()).unwrap_or(ALL_IPS);
        let protocol = p.protocol.as_deref().filter(|p| !p.is_empty()).unwrap_or("TCP");
        HostPort { ip: ip.to_string(), protocol: protocol.to_string(), port: p.host_port.unwrap_or(0) }
    }

    /// `HostPortInfo.CheckConflict` of `self` against the ports in use.
    fn conflicts(&self, used: &[HostPort]) -> bool {
        let same = |u: &&HostPort| u.protocol == self.protocol && u.port == self.port;
        match self.ip.as_str() {
            ALL_IPS => used.iter().any(|u| same(&u)),
            ip => used.iter().filter(same).any(|u| u.ip == ALL_IPS || u.ip == ip),
        }
    }
}

/// `util.GetHostPorts`: the ports with a hostPort of the regular containers
/// and of the init containers that run for the pod's whole life (sidecars).
pub fn host_ports(pod: &Pod) -> Vec<HostPort> {
    let Some(spec) = &pod.spec else { return Vec::new() };
    let sidecars = spec.init_containers.iter().flatten().filter(|c| c.restart_policy.as_deref() == Some("Always"));
    sidecars
        .chain(&spec.containers)
        .flat_map(|c| c.ports.iter().flatten())
        .filter(|p| p.host_port.unwrap_or(0) > 0)
        .map(HostPort::of)
        .collect()
}

/// `fitsPorts`: none of the wanted ports conflicts with those in use.
pub fn fits(want: &[HostPort], used: &[HostPort]) -> bool {
    !want.iter().any(|w| w.conflicts(used))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(ip: &str, protocol: &str, port: i32) -> HostPort {
        HostPort { ip: ip.into(), protocol: protocol.into(), port }
    }

    #[test]
    fn ports_conflict_by_protocol_port_and_ip() {
        let used = [port("0.0.0.0", "TCP", 80), port("10.0.0.1", "UDP", 53)];
        assert!(!fits(&[port("0.0.0.0", "TCP", 80)], &used));
        // 0.0.0.0 in use conflicts with every IP on that protocol and port.
        assert!(!fits(&[port("10.0.0.2", "TCP", 80)], &used));
        assert!(fits(&[port("0.0.0.0", "UDP", 80)], &used));
        assert!(fits(&[port("0.0.0.0", "TCP", 8080)], &used));
        // A wanted 0.0.0.0 conflicts with the port on any one IP.
        assert!(!fits(&[port("0.0.0.0", "UDP", 53)], &used));
        assert!(!fits(&[port("10.0.0.1", "UDP", 53)], &used));
        // Another IP, same protocol and port: both bind.
        assert!(fits(&[port("10.0.0.2", "UDP", 53)], &used));
        assert!(fits(&[], &used));
    }

    #[test]
    fn host_ports_are_those_of_containers_and_sidecars_with_a_host_port() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p"},
            "spec": {
                "initContainers": [
                    {"name": "init", "image": "i", "ports": [{"containerPort": 1, "hostPort": 1}]},
                    {"name": "proxy", "image": "p", "restartPolicy": "Always",
                     "ports": [{"containerPort": 15001, "hostPort": 15001, "hostIP": "10.0.0.1"}]}
                ],
                "containers": [{"name": "app", "image": "a", "ports": [
                    {"containerPort": 8080},
                    {"containerPort": 53, "hostPort": 53, "protocol": "UDP"},
                    {"containerPort": 80, "hostPort": 80}
                ]}]
            }
        }))
        .unwrap();
        assert_eq!(
            host_ports(&pod),
            vec![port("10.0.0.1", "TCP", 15001), port("0.0.0.0", "UDP", 53), port("0.0.0.0", "TCP", 80)]
        );
    }
}
