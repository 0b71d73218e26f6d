//! The scheduling cycle's filters and choice: the TaintToleration filter
//! rules out nodes with a NoSchedule or NoExecute taint the pod does not
//! tolerate, the NodePorts filter (`node_ports`) nodes where one of its host
//! ports is taken, then the node with the fewest pods bound wins (first in
//! profile order on a tie) — a simple stand-in for the scoring plugins that
//! spreads replicas. Node affinity, selectors and resources are not filtered
//! on.

use super::node_ports::{self, HostPort};
use crate::cluster::Node;
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

/// What the filters read of the pod being scheduled.
pub struct Wanted<'a> {
    pub tolerations: &'a [Toleration],
    /// `util.GetHostPorts` of the pod.
    pub ports: &'a [HostPort],
    /// `preemptionPolicy: Never`: the pod may not preempt others.
    pub never_preempts: bool,
}

/// The filter that ruled a node out (the first that fails, in the default
/// profile's order: TaintToleration before NodePorts).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Rejection {
    Taint,
    Ports,
}

impl Rejection {
    /// The plugin's status reason (`ErrReasonNotMatch`, `nodeports.ErrReason`).
    fn reason(self) -> &'static str {
        match self {
            Rejection::Taint => "node(s) had untolerated taint(s)",
            Rejection::Ports => "node(s) didn't have free ports for the requested pod ports",
        }
    }

    /// DefaultPreemption's verdict on the node: a taint is
    /// `UnschedulableAndUnresolvable` (`nodesWherePreemptionMightHelp` skips
    /// it); a port conflict is `Unschedulable`, so the dry run looks for
    /// lower-priority victims, and podsim's pods all have priority 0
    /// (`SelectVictimsOnNode` finds none).
    fn preemption(self) -> &'static str {
        match self {
            Rejection::Taint => "Preemption is not helpful for scheduling",
            Rejection::Ports => "No preemption victims found for incoming pod",
        }
    }
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

/// `FitError.Error` when a PreFilter plugin rejected the pod: its message
/// instead of the per-node histogram, then the PostFilter plugins' (every
/// node `UnschedulableAndUnresolvable`: preemption cannot help).
pub fn pre_filter_message(nodes: usize, reason: &str, never_preempts: bool) -> String {
    let preemption = match never_preempts {
        true => "not eligible due to preemptionPolicy=Never.".to_string(),
        false => format!("0/{nodes} nodes are available: {nodes} Preemption is not helpful for scheduling."),
    };
    format!("0/{nodes} nodes are available: {reason}. no new claims to deallocate, preemption: {preemption}")
}

/// The node the pod is bound to, or the `FailedScheduling` message
/// (`FitError.Error`, with the DRA plugin's and preemption's PostFilter
/// words). `used(node)` are the host ports the pods on `node` take.
pub fn pick<'u>(
    nodes: &[Node],
    pod: &Wanted<'_>,
    bound: impl Fn(&str) -> usize,
    used: impl Fn(&str) -> &'u [HostPort],
) -> Result<Arc<str>, String> {
    let verdict = |n: &Node| {
        if untolerated(n, pod.tolerations).is_some() {
            Some(Rejection::Taint)
        } else if !node_ports::fits(pod.ports, used(&n.name)) {
            Some(Rejection::Ports)
        } else {
            None
        }
    };
    let verdicts: Vec<Option<Rejection>> = nodes.iter().map(verdict).collect();
    let fits = nodes.iter().zip(&verdicts).filter(|(_, v)| v.is_none()).map(|(n, _)| n);
    if let Some(best) = fits.min_by_key(|n| bound(&n.name)) {
        return Ok(best.name.clone());
    }
    let rejected = || verdicts.iter().flatten();
    let n = nodes.len();
    // `PodEligibleToPreemptOthers`, then `preempt`'s own FitError.
    let preemption = match pod.never_preempts {
        true => "not eligible due to preemptionPolicy=Never.".to_string(),
        false => format!("0/{n} nodes are available: {}.", histogram(rejected().map(|r| r.preemption()))),
    };
    Err(format!(
        "0/{n} nodes are available: {}. no new claims to deallocate, preemption: {preemption}",
        histogram(rejected().map(|r| r.reason()))
    ))
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
        Node { name: Arc::from(name), ip: Arc::from("10.0.0.1"), images: Vec::new(), taints }
    }

    const CP: &str = "node-role.kubernetes.io/control-plane";

    fn wanted(tolerations: &[Toleration]) -> Wanted<'_> {
        Wanted { tolerations, ports: &[], never_preempts: false }
    }

    fn no_ports(_: &str) -> &'static [HostPort] {
        &[]
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
    fn a_tainted_control_plane_is_skipped_and_replicas_spread() {
        let nodes = [node("cp", vec![taint(CP, None, "NoSchedule")]), node("w1", vec![]), node("w2", vec![])];
        assert_eq!(&*pick(&nodes, &wanted(&[]), |_| 0, no_ports).unwrap(), "w1");
        assert_eq!(&*pick(&nodes, &wanted(&[]), |n| usize::from(n == "w1"), no_ports).unwrap(), "w2");
        let tol = [toleration(Some(CP), Some("Exists"), None, Some("NoSchedule"))];
        assert_eq!(&*pick(&nodes, &wanted(&tol), |_| 0, no_ports).unwrap(), "cp");
    }

    #[test]
    fn prefer_no_schedule_does_not_filter() {
        let nodes = [node("a", vec![taint("k", Some("v"), "PreferNoSchedule")])];
        assert_eq!(&*pick(&nodes, &wanted(&[]), |_| 0, no_ports).unwrap(), "a");
    }

    #[test]
    fn no_node_fits_gives_the_schedulers_message() {
        let nodes = [node("cp", vec![taint(CP, None, "NoSchedule")])];
        assert_eq!(
            pick(&nodes, &wanted(&[]), |_| 0, no_ports).unwrap_err(),
            "0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, \
             preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
        );
    }

    #[test]
    fn a_taken_host_port_rules_a_node_out() {
        let port = |ip: &str, p: i32| HostPort { ip: ip.into(), protocol: "TCP".into(), port: p };
        let nodes = [node("cp", vec![taint(CP, None, "NoSchedule")]), node("w1", vec![]), node("w2", vec![])];
        let want = [port("0.0.0.0", 80)];
        let pod = Wanted { tolerations: &[], ports: &want, never_preempts: false };
        let on_w1 = [port("0.0.0.0", 80)];
        let used = |n: &str| if n == "w1" { &on_w1[..] } else { &[][..] };
        // w2 has more pods but the only free port 80.
        assert_eq!(&*pick(&nodes, &pod, |n| usize::from(n == "w2") * 5, used).unwrap(), "w2");
        let both = |n: &str| if n == "cp" { &[][..] } else { &on_w1[..] };
        // The taint is checked first on cp; w1 and w2 fail NodePorts, whose
        // rejection is Unschedulable: preemption looks for victims there.
        assert_eq!(
            pick(&nodes, &pod, |_| 0, both).unwrap_err(),
            "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't have free ports for the requested pod ports. \
             no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, \
             2 No preemption victims found for incoming pod."
        );
        let never = Wanted { never_preempts: true, ..pod };
        assert!(pick(&nodes[1..], &never, |_| 0, both).unwrap_err().ends_with(
            "2 node(s) didn't have free ports for the requested pod ports. no new claims to deallocate, \
             preemption: not eligible due to preemptionPolicy=Never."
        ));
    }
}
