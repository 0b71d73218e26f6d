//! The default profile's score plugins (pkg/scheduler/framework/plugins),
//! weighted as `getDefaultPlugins` weighs them, and `selectHost`'s choice
//! among the best. With one feasible node nothing is scored
//! (`schedulePod`). NodeAffinity and InterPodAffinity score nothing for a
//! pod without preferred terms, as every pod podsim reads.

use super::filters::Wanted;
use super::node_ports::HostPort;
use crate::cluster::Node;
use crate::spec::resources::Resources;

/// `fwk.MaxNodeScore`.
const MAX: i64 = 100;

/// What the scheduler's cache holds on one node (`NodeInfo`).
#[derive(Clone, Debug, Default)]
pub struct NodeInfo {
    /// Pods bound to it and not terminal.
    pub pods: usize,
    /// Their `PodRequests`, summed (`Requested`).
    pub requested: Resources,
    /// The same with the scoring defaults (`NonZeroRequested`).
    pub non_zero: Resources,
    /// The host ports they take.
    pub ports: Vec<HostPort>,
    /// Pods of the scheduled pod's controller on it, not terminating
    /// (PodTopologySpread's count on the node's hostname domain).
    pub matching: usize,
    /// `spec.unschedulable`: cordoned.
    pub unschedulable: bool,
}

/// NodeResourcesFit's `LeastAllocated` (cpu and memory, weight 1 each):
/// the share left free after the pod, with the non-zero requests.
fn least_allocated(node: &Node, info: &NodeInfo, pod: &Wanted<'_>) -> i64 {
    let score = |requested: i64, capacity: i64| {
        if capacity == 0 || requested > capacity { 0 } else { (capacity - requested) * MAX / capacity }
    };
    let want = pod.requests.non_zero;
    let cpu = score(info.non_zero.milli_cpu + want.milli_cpu, node.allocatable.milli_cpu);
    let memory = score(info.non_zero.memory + want.memory, node.allocatable.memory);
    (cpu + memory) / 2
}

/// NodeResourcesBalancedAllocation: how evenly cpu and memory would be
/// used, with the exact requests; a pod requesting nothing is not scored
/// (`isBestEffortPod`: PreScore's Skip).
fn balanced_allocation(node: &Node, info: &NodeInfo, pod: &Wanted<'_>) -> i64 {
    let want = pod.requests.exact;
    if want.is_zero() {
        return 0;
    }
    let fraction = |requested: i64, allocatable: i64| match allocatable {
        0 => 0.0,
        a => (requested as f64 / a as f64).min(1.0),
    };
    let cpu = fraction(info.requested.milli_cpu + want.milli_cpu, node.allocatable.milli_cpu);
    let memory = fraction(info.requested.memory + want.memory, node.allocatable.memory);
    let std = ((cpu - memory) / 2.0).abs();
    ((1.0 - std) * MAX as f64) as i64
}

/// ImageLocality: the pod's images already on the node, each by its size
/// scaled by the share of nodes that have it (`scaledImageScore`), between
/// 23 MiB and 1000 MiB per container.
fn image_locality(node: &Node, nodes: &[Node], pod: &Wanted<'_>, size: &impl Fn(&str) -> u64) -> i64 {
    const MB: i64 = 1024 * 1024;
    let (min, max) = (23 * MB, 1000 * MB * pod.images.len() as i64);
    let sum: i64 = (pod.images.iter())
        .filter(|i| node.has_image(i))
        .map(|i| {
            let with = nodes.iter().filter(|n| n.has_image(i)).count() as f64;
            (size(i) as f64 * with / nodes.len() as f64) as i64
        })
        .sum();
    let sum = sum.clamp(min, max.max(min));
    if max <= min { 0 } else { MAX * (sum - min) / (max - min) }
}

/// TaintToleration: the PreferNoSchedule taints the pod does not tolerate,
/// fewer better (`DefaultNormalizeScore` reversed).
fn taint_counts(nodes: &[&Node], pod: &Wanted<'_>) -> Vec<i64> {
    let counts: Vec<i64> = (nodes.iter())
        .map(|n| {
            let intolerable = |t: &&k8s_openapi::api::core::v1::Taint| {
                t.effect == "PreferNoSchedule" && !pod.tolerations.iter().any(|tol| super::tolerates(tol, t))
            };
            n.taints.iter().filter(intolerable).count() as i64
        })
        .collect();
    let max = counts.iter().copied().max().unwrap_or(0);
    counts.iter().map(|&c| if max == 0 { MAX } else { MAX - c * MAX / max }).collect()
}

/// PodTopologySpread with the system default constraints (hostname, maxSkew
/// 3, ScheduleAnyway; podsim's nodes have no zone label, so the zone one
/// scores nothing): `cnt × ln(domains + 2) + maxSkew − 1`, rounded, then
/// normalized so that the node with the fewest of the controller's pods
/// scores highest. A pod without a controller has no default selector: Skip.
fn topology_spread(infos: &[&NodeInfo], pod: &Wanted<'_>) -> Vec<i64> {
    if !pod.spread {
        return vec![0; infos.len()];
    }
    let weight = ((infos.len() + 2) as f64).ln();
    let raw: Vec<i64> = infos.iter().map(|i| (i.matching as f64 * weight + 2.0).round() as i64).collect();
    let (max, min) = (raw.iter().copied().max().unwrap_or(0), raw.iter().copied().min().unwrap_or(0));
    raw.iter().map(|&s| if max == 0 { MAX } else { MAX * (max + min - s) / max }).collect()
}

/// The feasible node with the highest weighted score; among equals one at
/// random (`selectHost`'s reservoir sampling).
pub fn select_host<'n, 'i>(
    nodes: &'n [Node],
    feasible: &[&'n Node],
    pod: &Wanted<'_>,
    info: impl Fn(&str) -> &'i NodeInfo,
    size: impl Fn(&str) -> u64,
    mut tie: impl FnMut(u64) -> u64,
) -> &'n Node {
    if feasible.len() == 1 {
        return feasible[0];
    }
    let infos: Vec<&NodeInfo> = feasible.iter().map(|n| info(&n.name)).collect();
    let taints = taint_counts(feasible, pod);
    let spread = topology_spread(&infos, pod);
    let totals: Vec<i64> = (feasible.iter().zip(&infos).enumerate())
        .map(|(k, (n, i))| {
            least_allocated(n, i, pod)
                + balanced_allocation(n, i, pod)
                + image_locality(n, nodes, pod, &size)
                + 3 * taints[k]
                + 2 * spread[k]
        })
        .collect();
    let best = totals.iter().copied().max().unwrap_or(0);
    let top: Vec<usize> = (0..feasible.len()).filter(|&k| totals[k] == best).collect();
    let k = if top.len() == 1 { top[0] } else { top[tie(top.len() as u64) as usize] };
    feasible[k]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Allocatable;
    use crate::spec::resources::{DEFAULT_MEMORY, DEFAULT_MILLI_CPU, PodRequests};

    fn node(name: &str) -> Node {
        Node { allocatable: Allocatable { milli_cpu: 4000, memory: 8 << 30, pods: 110 }, ..Node::bare(name) }
    }

    fn pod(exact: Resources, spread: bool) -> Wanted<'static> {
        let non_zero = Resources {
            milli_cpu: if exact.milli_cpu == 0 { DEFAULT_MILLI_CPU } else { exact.milli_cpu },
            memory: if exact.memory == 0 { DEFAULT_MEMORY } else { exact.memory },
        };
        Wanted {
            tolerations: &[],
            ports: &[],
            never_preempts: false,
            requests: PodRequests { exact, non_zero },
            images: &[],
            spread,
            node_names: None,
        }
    }

    /// LeastAllocated on a 4-CPU, 8-GiB node with 1 CPU and 2 GiB requested,
    /// for a pod of 1 CPU and 2 GiB: cpu (4000 − 2000)·100/4000 = 50, memory
    /// (8 − 4)·100/8 = 50 → 50. Balanced: fractions 0.5 and 0.5 → 100.
    #[test]
    fn resource_scores() {
        let n = node("a");
        let info = NodeInfo {
            requested: Resources { milli_cpu: 1000, memory: 2 << 30 },
            non_zero: Resources { milli_cpu: 1000, memory: 2 << 30 },
            ..NodeInfo::default()
        };
        let p = pod(Resources { milli_cpu: 1000, memory: 2 << 30 }, false);
        assert_eq!(least_allocated(&n, &info, &p), 50);
        assert_eq!(balanced_allocation(&n, &info, &p), 100);
        // With 3 CPUs and 2 GiB more: fractions 1.0 and 0.5, std 0.25 → 75.
        let p = pod(Resources { milli_cpu: 3000, memory: 2 << 30 }, false);
        assert_eq!(balanced_allocation(&n, &info, &p), 75);
        assert_eq!(balanced_allocation(&n, &info, &pod(Resources::default(), false)), 0, "BestEffort: skipped");
    }

    /// Three nodes, the controller's pod on a: hostname size 3, ln 5 = 1.609;
    /// raw a = round(1.609 + 2) = 4, b = c = 2; normalized a = 100·(4+2−4)/4
    /// = 50, b = c = 100·(4+2−2)/4 = 100.
    #[test]
    fn default_spreading_prefers_nodes_without_the_controllers_pods() {
        let on_a = NodeInfo { matching: 1, ..NodeInfo::default() };
        let empty = NodeInfo::default();
        assert_eq!(topology_spread(&[&on_a, &empty, &empty], &pod(Resources::default(), true)), [50, 100, 100]);
        assert_eq!(topology_spread(&[&on_a, &empty, &empty], &pod(Resources::default(), false)), [0, 0, 0]);
    }

    /// Equal nodes tie; the draw picks among them, a busier node loses.
    #[test]
    fn ties_are_drawn_and_load_spreads() {
        let nodes = [node("a"), node("b"), node("c")];
        let feasible: Vec<&Node> = nodes.iter().collect();
        let busy =
            NodeInfo { pods: 1, non_zero: Resources { milli_cpu: 100, memory: 200 << 20 }, ..NodeInfo::default() };
        let empty = NodeInfo::default();
        let info = |n: &str| if n == "a" { &busy } else { &empty };
        let p = pod(Resources::default(), false);
        let picked = |k: u64| {
            select_host(
                &nodes,
                &feasible,
                &p,
                info,
                |_| 0,
                |n| {
                    assert_eq!(n, 2);
                    k
                },
            )
            .name
            .clone()
        };
        assert_eq!((&*picked(0), &*picked(1)), ("b", "c"));
    }
}
