//! Running one simulation: inputs in, trace out.

use crate::app::Behaviours;
use crate::cluster::Cluster;
use crate::error::{Error, Problem};
use crate::manifest::Manifests;
use crate::sim::{Setup, World};
use crate::time::SimTime;
use crate::trace::Trace;
use k8s_openapi::jiff::Timestamp;
use std::sync::Arc;

/// The default start of simulated time: Kubernetes timestamps in the trace
/// are this plus whole seconds.
pub const DEFAULT_EPOCH: &str = "2026-01-01T00:00:00Z";

/// Checks the inputs against each other and builds a run setup.
pub fn setup(
    manifests: Manifests,
    behaviours: Behaviours,
    cluster: Cluster,
    epoch: Timestamp,
) -> Result<(Setup, Vec<Problem>), Error> {
    let mut problems = Vec::new();
    for name in behaviours.container_names() {
        if !manifests
            .pods
            .iter()
            .any(|p| p.container_index(name).is_some())
        {
            let known: Vec<&str> = manifests
                .pods
                .iter()
                .flat_map(|p| p.containers.iter().map(|c| &*c.name))
                .collect();
            problems.push(behaviours.problem_at(
                name,
                format!(
                    "no container named {name:?} in the manifests (containers: {})",
                    known.join(", ")
                ),
            ));
        }
    }
    for pod in &manifests.pods {
        if let Some(n) = &pod.node_name {
            if !cluster.nodes.iter().any(|x| &*x.name == n) {
                let nodes: Vec<&str> = cluster.nodes.iter().map(|x| &*x.name).collect();
                problems.push(Problem::error(format!(
                    "pod {}: spec.nodeName {n:?} is not a node of the cluster profile (nodes: {})",
                    pod.name,
                    nodes.join(", ")
                )));
            }
        }
    }
    if !problems.is_empty() {
        return Err(Error::Input(problems));
    }
    let mut warnings = Vec::new();
    for pod in &manifests.pods {
        for c in &pod.containers {
            if c.ports.is_empty() && behaviours.listens_nowhere(&c.name) {
                warnings.push(behaviours.problem_at(
                    &c.name,
                    format!("container {:?} declares no containerPorts and its behaviour sets no `ports`: it listens on no port, so every HTTP, TCP and gRPC probe is refused", c.name),
                ).warn());
            }
        }
    }
    let epoch_ns = epoch.as_nanosecond().max(0) as u128;
    let setup = Setup {
        pods: manifests.pods,
        behaviours: Arc::new(behaviours),
        cluster: Arc::new(cluster),
        epoch_ns,
    };
    Ok((setup, warnings))
}

/// Simulates `setup` with `seed` until `until`.
pub fn simulate(setup: &Setup, seed: u64, until: SimTime) -> Trace {
    World::new(setup, seed).run(until)
}
