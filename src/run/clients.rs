//! Clients and Services checked against the manifests and the profile:
//! every name a client uses must exist, and a requested cluster IP must be
//! free and inside the Service range.

use crate::client::{Client, Schedule, Source, Target};
use crate::cluster::Cluster;
use crate::error::Problem;
use crate::ids::PodId;
use crate::ids::ServiceId;
use crate::manifest::Manifests;
use crate::scenario::ActionOrigin;
use crate::scenario::traffic::{From, To, Traffic, When};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Each client with its names resolved.
pub fn resolve(
    manifests: &Manifests,
    cluster: &Cluster,
    traffic: &[(Traffic, ActionOrigin)],
) -> Result<Vec<Client>, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut clients = Vec::new();
    let mut names = BTreeSet::new();
    for (i, (t, origin)) in traffic.iter().enumerate() {
        let name = t.name.clone().unwrap_or_else(|| format!("client-{}", i + 1));
        if !names.insert(name.clone()) {
            problems.push(origin.problem("name", format!("{name:?}: two clients have this name")));
        }
        match client(manifests, cluster, t, &name) {
            Ok(c) => clients.push(c),
            Err((field, message)) => problems.push(origin.problem(field, message)),
        }
    }
    match problems.is_empty() {
        true => Ok(clients),
        false => Err(problems),
    }
}

fn pod_index(manifests: &Manifests, name: &str) -> Result<usize, String> {
    manifests.pods.iter().position(|p| p.name == name).ok_or_else(|| {
        let known: Vec<&str> = manifests.pods.iter().map(|p| p.name.as_str()).collect();
        format!("no pod named {name:?} in the manifests (pods: {})", known.join(", "))
    })
}

fn client(manifests: &Manifests, cluster: &Cluster, t: &Traffic, name: &str) -> Result<Client, (&'static str, String)> {
    let from = match &t.from {
        None => Source::Node(cluster.nodes[0].name.clone()),
        Some(From::Node(n)) => match cluster.nodes.iter().find(|x| &*x.name == n.as_str()) {
            Some(node) => Source::Node(node.name.clone()),
            None => {
                let known: Vec<&str> = cluster.nodes.iter().map(|x| &*x.name).collect();
                return Err((
                    "from",
                    format!("{n:?} is not a node of the cluster profile (nodes: {})", known.join(", ")),
                ));
            }
        },
        Some(From::Pod(p)) => Source::Pod(PodId(pod_index(manifests, p).map_err(|e| ("from", e))? as u32)),
    };
    let (to, target) = match &t.to {
        To::Service { name: svc, port } => {
            let index = manifests.services.iter().position(|s| s.name == *svc).ok_or_else(|| {
                let known: Vec<&str> = manifests.services.iter().map(|s| s.name.as_str()).collect();
                ("to", format!("no service named {svc:?} in the manifests (services: {})", known.join(", ")))
            })?;
            let spec = &manifests.services[index];
            if spec.headless {
                let message = format!(
                    "service {svc:?} is headless (clusterIP: None): it has no cluster IP to send to; clients reach its pods by their DNS names, which podsim does not simulate"
                );
                return Err(("to", message));
            }
            let ports: Vec<String> = spec
                .ports
                .iter()
                .map(|p| if p.name.is_empty() { p.port.to_string() } else { p.name.clone() })
                .collect();
            let p = match port {
                Some(p) => spec.port(p).ok_or_else(|| {
                    ("to", format!("service {svc:?} has no port {p:?} (ports: {})", ports.join(", ")))
                })?,
                None if spec.ports.len() == 1 => 0,
                None => {
                    return Err((
                        "to",
                        format!("service {svc:?} has several ports: name one (ports: {})", ports.join(", ")),
                    ));
                }
            };
            let target = format!("service/{svc}:{}", ports[p]);
            (Target::Service { service: ServiceId(index as u32), port: p }, target)
        }
        To::Pod { name: pod, port } => {
            let index = pod_index(manifests, pod).map_err(|e| ("to", e))?;
            let spec = &manifests.pods[index];
            let number = match port.parse::<u16>() {
                Ok(n) if n > 0 => n,
                _ => spec
                    .containers
                    .iter()
                    .flat_map(|c| &c.ports)
                    .find(|p| p.name.as_deref() == Some(port.as_str()))
                    .map(|p| p.port)
                    .ok_or_else(|| ("to", format!("pod {pod:?} declares no container port named {port:?}")))?,
            };
            (Target::Pod { pod: PodId(index as u32), port: number }, format!("pod/{pod}:{number}"))
        }
    };
    let source = match &from {
        Source::Node(n) => format!("node/{n}"),
        Source::Pod(id) => format!("pod/{}", manifests.pods[id.0 as usize].name),
    };
    let schedule = match &t.when {
        When::At(times) => Schedule::At(times.clone()),
        When::Every { start, every, count } => Schedule::Every { start: *start, every: every.clone(), count: *count },
    };
    Ok(Client {
        name: Arc::from(name),
        from,
        source: Arc::from(source),
        to,
        target: Arc::from(target),
        path: Arc::from(t.path.as_str()),
        schedule,
        timeout: t.timeout,
    })
}

/// A `spec.clusterIP` the manifest asks for must lie in the profile's range
/// and be free (`allocIPs`, the API server's allocation errors).
pub fn check_cluster_ips(manifests: &Manifests, cluster: &Cluster) -> Vec<Problem> {
    let mut taken = BTreeSet::new();
    let mut problems = Vec::new();
    for (i, s) in manifests.services.iter().enumerate() {
        let Some(ip) = s.cluster_ip else { continue };
        let (first, last) = cluster.service_cidr.usable();
        let message = if !cluster.service_cidr.contains(ip) {
            Some("the provided network does not match the current range".to_string())
        } else if !(first..=last).contains(&u32::from(ip)) {
            Some(format!("provided IP {ip} is not in the valid range"))
        } else if !taken.insert(ip) {
            Some("provided IP is already allocated".to_string())
        } else {
            None
        };
        if let Some(m) = message {
            let body = format!("Invalid value: []string{{{:?}}}: failed to allocate IP {ip}: {m}", ip.to_string());
            problems.push(manifests.service_problem(i, "spec.clusterIPs", body));
        }
    }
    problems
}
