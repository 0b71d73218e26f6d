//! The scheduling cycle's filters, in the default profile's order, each
//! node stopping at the first that fails (`RunFilterPlugins`):
//! NodeUnschedulable (a cordoned node), TaintToleration (a NoSchedule or NoExecute taint the pod does not
//! tolerate), NodePorts (`node_ports`: a host port taken), NodeResourcesFit
//! (`fitsRequest`: too many pods, not enough cpu or memory left); then the
//! scoring plugins choose among the nodes left ([`super::scoring`]), or
//! `FitError` says why none is. Node affinity and selectors are not
//! filtered on.

use super::node_ports::{self, HostPort};
use super::noderesources;
use super::scoring::{self, NodeInfo};
use crate::cluster::{Node, Version};
use crate::spec::resources::PodRequests;
use k8s_openapi::api::core::v1::{Taint, Toleration};
use std::sync::Arc;

/// `Toleration.ToleratesTaint` (k8s.io/api/core/v1/toleration.go).
pub fn tolerates(t: &Toleration, taint: &Taint) -> bool {
    let effect = t.effect.as_deref().unwrap_or("");
    let key = t.key.as_deref().unwrap_or("");
    if !effect.is_empty() && effect != taint.effect {
        return false;
    }
    if !key.is_empty() && key != taint.key {
        return false;
    }
    match t.operator.as_deref().unwrap_or("") {
        "" | "Equal" => t.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or(""),
        "Exists" => true,
        _ => false,
    }
}

/// `FindMatchingUntoleratedTaint`: the first taint `inclusion` keeps that no
/// toleration tolerates.
pub fn untolerated_taint<'a>(
    taints: &'a [Taint],
    tolerations: &[Toleration],
    inclusion: impl Fn(&Taint) -> bool,
) -> Option<&'a Taint> {
    taints.iter().filter(|t| inclusion(t)).find(|t| !tolerations.iter().any(|tol| tolerates(tol, t)))
}

/// The filter's `FindMatchingUntoleratedTaint`, NoSchedule and NoExecute taints.
fn untolerated<'a>(node: &'a Node, tolerations: &[Toleration]) -> Option<&'a Taint> {
    untolerated_taint(&node.taints, tolerations, |t| t.effect == "NoSchedule" || t.effect == "NoExecute")
}

/// What the filters and scores read of the pod being scheduled.
pub struct Wanted<'a> {
    pub tolerations: &'a [Toleration],
    /// `util.GetHostPorts` of the pod.
    pub ports: &'a [HostPort],
    /// `preemptionPolicy: Never`: the pod may not preempt others.
    pub never_preempts: bool,
    pub requests: PodRequests,
    /// Its containers' images (ImageLocality).
    pub images: &'a [&'a str],
    /// PodTopologySpread's system default constraints apply: the pod has a
    /// controller, whose pods it is spread among.
    pub spread: bool,
    /// NodeAffinity's PreFilter result: the only nodes a required
    /// `metadata.name In […]` term allows (a DaemonSet's pod); `None`: all.
    pub node_names: Option<&'a [String]>,
}

/// The filter that ruled a node out (the first that fails, in the default
/// profile's order: TaintToleration, NodePorts, NodeResourcesFit).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Rejection {
    /// Left out by NodeAffinity's PreFilter result (`SetAbsentNodesStatus`,
    /// UnschedulableAndUnresolvable).
    PreFilter,
    /// NodeUnschedulable: a cordoned node the pod does not tolerate.
    Cordoned,
    Taint,
    Ports,
    /// `fitsRequest`'s reasons, and whether one is unresolvable (the
    /// request exceeds the node's whole allocatable).
    Resources {
        reasons: Vec<&'static str>,
        unresolvable: bool,
    },
}

impl Rejection {
    /// The plugin's status reasons (`ErrReasonNotMatch`, `nodeports.ErrReason`,
    /// `Too many pods`, `Insufficient cpu`, `Insufficient memory`).
    fn reasons(&self) -> Vec<&'static str> {
        match self {
            Rejection::PreFilter => vec!["node(s) didn't satisfy plugin(s) [NodeAffinity]"],
            Rejection::Cordoned => vec!["node(s) were unschedulable"],
            Rejection::Taint => vec!["node(s) had untolerated taint(s)"],
            Rejection::Ports => vec!["node(s) didn't have free ports for the requested pod ports"],
            Rejection::Resources { reasons, .. } => reasons.clone(),
        }
    }

    /// DefaultPreemption's verdict on the node: a taint, or a request no
    /// eviction could make room for, is `UnschedulableAndUnresolvable`
    /// (`nodesWherePreemptionMightHelp` skips it); a port conflict or a
    /// full node is `Unschedulable`, so the dry run looks for lower-priority
    /// victims, and podsim's pods all have priority 0 (`SelectVictimsOnNode`
    /// finds none).
    fn preemption(&self) -> &'static str {
        match self {
            Rejection::PreFilter
            | Rejection::Cordoned
            | Rejection::Taint
            | Rejection::Resources { unresolvable: true, .. } => "Preemption is not helpful for scheduling",
            Rejection::Ports | Rejection::Resources { .. } => "No preemption victims found for incoming pod",
        }
    }
}

/// NodeResourcesFit: every reason the node fails on.
fn fits_request(node: &Node, info: &NodeInfo, pod: &PodRequests) -> Option<Rejection> {
    let short = noderesources::fits_request(pod.exact, info.requested, info.pods as i64, &node.allocatable);
    let unresolvable = short.iter().any(|s| s.unresolvable());
    let reasons = short.iter().map(|s| s.reason()).collect::<Vec<_>>();
    (!reasons.is_empty()).then_some(Rejection::Resources { reasons, unresolvable })
}

/// `FitError.Error`'s histogram: `count reason` for each reason, sorted as strings.
fn histogram(reasons: impl Iterator<Item = &'static str>) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for r in reasons {
        match counts.iter_mut().find(|(x, _)| *x == r) {
            Some((_, n)) => *n += 1,
            None => counts.push((r, 1)),
        }
    }
    let mut lines: Vec<String> = counts.iter().map(|(r, n)| format!("{n} {r}")).collect();
    lines.sort();
    lines.join(", ")
}

/// The PostFilter plugins' words before preemption's: DynamicResources
/// says `no new claims to deallocate` for a pod without claims, until 1.37
/// dropped that reason from the message (PR #140222).
fn post_filter_prefix(version: Version) -> &'static str {
    if version >= Version::V1_37 { "" } else { "no new claims to deallocate, " }
}

/// `FitError.Error` when a PreFilter plugin rejected the pod: its message
/// instead of the per-node histogram, then the PostFilter plugins' (every
/// node `UnschedulableAndUnresolvable`: preemption cannot help).
pub fn pre_filter_message(nodes: usize, reason: &str, never_preempts: bool, version: Version) -> String {
    let preemption = match never_preempts {
        true => "not eligible due to preemptionPolicy=Never.".to_string(),
        false => format!("0/{nodes} nodes are available: {nodes} Preemption is not helpful for scheduling."),
    };
    let dra = post_filter_prefix(version);
    format!("0/{nodes} nodes are available: {reason}. {dra}preemption: {preemption}")
}

/// The node the pod is bound to, or the `FailedScheduling` message
/// (`FitError.Error`, with the PostFilter plugins' words). `info(node)` is
/// what the scheduler's cache holds on a node, `size(image)` an image's
/// size; `tie(n)` draws one of `n` nodes with the best score.
pub fn pick<'i>(
    nodes: &[Node],
    pod: &Wanted<'_>,
    info: impl Fn(&str) -> &'i NodeInfo,
    size: impl Fn(&str) -> u64,
    version: Version,
    tie: impl FnMut(u64) -> u64,
) -> Result<Arc<str>, Unschedulable> {
    // NodeUnschedulable lets in a pod that tolerates the taint a cordon
    // stands for (`node.kubernetes.io/unschedulable:NoSchedule`).
    let cordon = Taint {
        key: "node.kubernetes.io/unschedulable".into(),
        effect: "NoSchedule".into(),
        value: None,
        time_added: None,
    };
    let tolerates_cordon = pod.tolerations.iter().any(|t| tolerates(t, &cordon));
    let verdict = |n: &Node| {
        let i = info(&n.name);
        if pod.node_names.is_some_and(|names| !names.iter().any(|x| **x == *n.name)) {
            Some(Rejection::PreFilter)
        } else if i.unschedulable && !tolerates_cordon {
            Some(Rejection::Cordoned)
        } else if untolerated(n, pod.tolerations).is_some() {
            Some(Rejection::Taint)
        } else if !node_ports::fits(pod.ports, &i.ports) {
            Some(Rejection::Ports)
        } else {
            fits_request(n, i, &pod.requests)
        }
    };
    let verdicts: Vec<Option<Rejection>> = nodes.iter().map(verdict).collect();
    let feasible: Vec<&Node> = nodes.iter().zip(&verdicts).filter(|(_, v)| v.is_none()).map(|(n, _)| n).collect();
    if !feasible.is_empty() {
        return Ok(scoring::select_host(nodes, &feasible, pod, info, size, tie).name.clone());
    }
    let rejected = || verdicts.iter().flatten();
    let n = nodes.len();
    // `PodEligibleToPreemptOthers`, then `preempt`'s own FitError.
    let preemption = match pod.never_preempts {
        true => "not eligible due to preemptionPolicy=Never.".to_string(),
        false => format!("0/{n} nodes are available: {}.", histogram(rejected().map(|r| r.preemption()))),
    };
    let message = format!(
        "0/{n} nodes are available: {}. {}preemption: {preemption}",
        histogram(rejected().flat_map(|r| r.reasons())),
        post_filter_prefix(version),
    );
    let by_fit = rejected().any(|r| matches!(r, Rejection::Resources { .. }));
    let by_cordon = rejected().any(|r| *r == Rejection::Cordoned);
    let by_taint = rejected().any(|r| *r == Rejection::Taint);
    Err(Unschedulable { message, by_fit, by_cordon, by_taint })
}

/// No node fits: `FitError`'s message, and whether NodeResourcesFit was
/// among the plugins that rejected the pod (its queueing hints apply).
#[derive(Debug, PartialEq, Eq)]
pub struct Unschedulable {
    pub message: String,
    pub by_fit: bool,
    /// NodeUnschedulable rejected it on some node.
    pub by_cordon: bool,
    /// TaintToleration rejected it on some node.
    pub by_taint: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, value: Option<&str>, effect: &str) -> Taint {
        Taint { key: key.into(), value: value.map(str::to_string), effect: effect.into(), time_added: None }
    }

    fn toleration(key: Option<&str>, op: Option<&str>, value: Option<&str>, effect: Option<&str>) -> Toleration {
        Toleration {
            key: key.map(str::to_string),
            operator: op.map(str::to_string),
            value: value.map(str::to_string),
            effect: effect.map(str::to_string),
            toleration_seconds: None,
        }
    }

    fn node(name: &str, taints: Vec<Taint>) -> Node {
        let allocatable = crate::cluster::Allocatable { milli_cpu: 2000, memory: 4 << 30, pods: 3 };
        Node { taints, allocatable, ..Node::bare(name) }
    }

    const CP: &str = "node-role.kubernetes.io/control-plane";

    fn wanted(tolerations: &[Toleration]) -> Wanted<'_> {
        Wanted {
            tolerations,
            ports: &[],
            never_preempts: false,
            requests: PodRequests::default(),
            images: &[],
            spread: false,
            node_names: None,
        }
    }

    /// `pick` with every node holding `info(node)`, the first best node on a tie.
    fn choose<'i>(nodes: &[Node], pod: &Wanted<'_>, info: impl Fn(&str) -> &'i NodeInfo) -> Result<Arc<str>, String> {
        pick(nodes, pod, info, |_| 0, Version::V1_36, |_| 0).map_err(|u| u.message)
    }

    fn empty(_: &str) -> &'static NodeInfo {
        static EMPTY: std::sync::LazyLock<NodeInfo> = std::sync::LazyLock::new(NodeInfo::default);
        &EMPTY
    }

    #[test]
    fn a_toleration_matches_by_key_effect_and_operator() {
        let t = taint(CP, None, "NoSchedule");
        assert!(tolerates(&toleration(Some(CP), Some("Exists"), None, Some("NoSchedule")), &t));
        assert!(tolerates(&toleration(Some(CP), Some("Exists"), None, None), &t));
        assert!(tolerates(&toleration(None, Some("Exists"), None, None), &t)); // tolerates everything
        assert!(tolerates(&toleration(Some(CP), None, None, None), &t)); // Equal "" == ""
        assert!(!tolerates(&toleration(Some(CP), None, Some("x"), None), &t));
        assert!(!tolerates(&toleration(Some(CP), Some("Exists"), None, Some("NoExecute")), &t));
        assert!(!tolerates(&toleration(Some("other"), Some("Exists"), None, None), &t));
    }

    #[test]
    fn a_tainted_control_plane_is_skipped_and_load_spreads() {
        let nodes = [node("cp", vec![taint(CP, None, "NoSchedule")]), node("w1", vec![]), node("w2", vec![])];
        assert_eq!(&*choose(&nodes, &wanted(&[]), empty).unwrap(), "w1");
        // A pod on w1 (100m, 200Mi counted for scoring) leaves w2 the least allocated.
        let busy = NodeInfo {
            pods: 1,
            non_zero: crate::spec::resources::Resources { milli_cpu: 100, memory: 200 << 20 },
            ..NodeInfo::default()
        };
        assert_eq!(&*choose(&nodes, &wanted(&[]), |n| if n == "w1" { &busy } else { empty(n) }).unwrap(), "w2");
        let tol = [toleration(Some(CP), Some("Exists"), None, Some("NoSchedule"))];
        assert_eq!(&*choose(&nodes[..1], &wanted(&tol), empty).unwrap(), "cp");
    }

    #[test]
    fn prefer_no_schedule_does_not_filter() {
        let nodes = [node("a", vec![taint("k", Some("v"), "PreferNoSchedule")])];
        assert_eq!(&*choose(&nodes, &wanted(&[]), empty).unwrap(), "a");
    }

    #[test]
    fn no_node_fits_gives_the_schedulers_message() {
        let nodes = [node("cp", vec![taint(CP, None, "NoSchedule")])];
        assert_eq!(
            choose(&nodes, &wanted(&[]), empty).unwrap_err(),
            "0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, \
             preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
        );
        // 1.37 drops DynamicResources' "no new claims to deallocate" (PR #140222).
        assert_eq!(
            pick(&nodes, &wanted(&[]), empty, |_| 0, Version::V1_37, |_| 0).unwrap_err().message,
            "0/1 nodes are available: 1 node(s) had untolerated taint(s). \
             preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
        );
    }

    /// fitsRequest on nodes of 2 CPUs, 4 GiB and 3 pods: w1 has 1.5 CPUs
    /// requested, so 1 CPU does not fit there (Unschedulable: preemption
    /// looks for victims); w2 is full of pods; 3 CPUs fit on no node
    /// (Unresolvable: "Preemption is not helpful").
    #[test]
    fn requests_that_do_not_fit() {
        use crate::spec::resources::Resources;
        let nodes = [node("w1", vec![]), node("w2", vec![])];
        let half = NodeInfo { pods: 1, requested: Resources { milli_cpu: 1500, memory: 0 }, ..NodeInfo::default() };
        let full = NodeInfo { pods: 3, ..NodeInfo::default() };
        let info = |n: &str| if n == "w1" { &half } else { &full };
        let mut pod = wanted(&[]);
        pod.requests.exact = Resources { milli_cpu: 1000, memory: 1 << 30 };
        assert_eq!(
            pick(&nodes, &pod, info, |_| 0, Version::V1_37, |_| 0).unwrap_err().message,
            "0/2 nodes are available: 1 Insufficient cpu, 1 Too many pods. \
             preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
        );
        pod.requests.exact = Resources { milli_cpu: 3000, memory: 8 << 30 };
        assert_eq!(
            pick(&nodes, &pod, empty, |_| 0, Version::V1_37, |_| 0).unwrap_err().message,
            "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory. \
             preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
        );
    }

    #[test]
    fn a_taken_host_port_rules_a_node_out() {
        let port = |ip: &str, p: i32| HostPort { ip: ip.into(), protocol: "TCP".into(), port: p };
        let nodes = [node("cp", vec![taint(CP, None, "NoSchedule")]), node("w1", vec![]), node("w2", vec![])];
        let want = [port("0.0.0.0", 80)];
        let pod = Wanted { ports: &want, ..wanted(&[]) };
        let on_w1 = NodeInfo { ports: vec![port("0.0.0.0", 80)], ..NodeInfo::default() };
        let used = |n: &str| if n == "w1" { &on_w1 } else { empty(n) };
        // w1 has the least load but port 80 taken.
        assert_eq!(&*choose(&nodes, &pod, used).unwrap(), "w2");
        let both = |n: &str| if n == "cp" { empty(n) } else { &on_w1 };
        // The taint is checked first on cp; w1 and w2 fail NodePorts, whose
        // rejection is Unschedulable: preemption looks for victims there.
        assert_eq!(
            choose(&nodes, &pod, both).unwrap_err(),
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't have free ports for the requested pod ports. \
             no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, \
             2 No preemption victims found for incoming pod."
        );
        let never = Wanted { never_preempts: true, ..pod };
        assert!(choose(&nodes[1..], &never, both).unwrap_err().ends_with(
            "2 node(s) didn't have free ports for the requested pod ports. no new claims to deallocate, \
             preemption: not eligible due to preemptionPolicy=Never."
        ));
    }

    /// A DaemonSet's pod names its node (`matchFields metadata.name In`):
    /// NodeAffinity's PreFilter leaves only that node, and the others are
    /// `node(s) didn't satisfy plugin(s) [NodeAffinity]`,
    /// UnschedulableAndUnresolvable (schedule_one.go `SetAbsentNodesStatus`).
    #[test]
    fn a_named_node_is_the_only_candidate() {
        let nodes = [node("w1", vec![]), node("w2", vec![]), node("w3", vec![])];
        let names = ["w3".to_string()];
        let pod = Wanted { node_names: Some(&names), ..wanted(&[]) };
        assert_eq!(&*choose(&nodes, &pod, empty).unwrap(), "w3");
        let full = NodeInfo { pods: 3, ..NodeInfo::default() };
        let info = |n: &str| if n == "w3" { &full } else { empty(n) };
        assert_eq!(
            pick(&nodes, &pod, info, |_| 0, Version::V1_37, |_| 0).unwrap_err().message,
            "0/3 nodes are available: 1 Too many pods, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. \
             preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, \
             2 Preemption is not helpful for scheduling."
        );
    }
}
