//! `rollingUpdate` (pkg/controller/daemon/update.go): how many nodes may be
//! without an available pod (`maxUnavailable`, delete first) or have two
//! (`maxSurge`, create first), and which nodes go next. Go walks the nodes
//! in map order, different on every sync: the caller gives the order, drawn
//! from its own random stream.

use super::view::{NodePods, NodeVerdict, PodView};
use crate::ids::PodId;
use crate::spec::IntOrPercent;
use crate::time::SimTime;
use std::sync::Arc;

/// What one rolling-update step decided (`syncNodes`' arguments).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct UpdatePlan {
    pub delete: Vec<PodId>,
    pub create_on: Vec<Arc<str>>,
}

/// `intstr.GetScaledValueFromIntOrPercent(v, desired, roundUp=true)`.
pub fn scaled(v: IntOrPercent, desired: u32) -> u32 {
    match v {
        IntOrPercent::Int(n) => n,
        IntOrPercent::Percent(p) => (u64::from(p) * u64::from(desired)).div_ceil(100) as u32,
    }
}

/// `updatedDesiredNodeCounts`: (maxSurge, maxUnavailable, desired), and
/// every eligible node without pods added to `pods` with none. A
/// DaemonSet allowing neither is treated as `maxUnavailable: 1`.
pub fn desired_counts(
    nodes: &[NodeVerdict],
    pods: &mut NodePods,
    max_surge: IntOrPercent,
    max_unavailable: IntOrPercent,
) -> (u32, u32, u32) {
    let mut desired = 0;
    for n in nodes.iter().filter(|n| n.should_run) {
        desired += 1;
        pods.entry(n.name.clone()).or_default();
    }
    let (surge, mut unavailable) = (scaled(max_surge, desired), scaled(max_unavailable, desired));
    if desired > 0 && surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    (surge, unavailable, desired)
}

/// `findUpdatedPodsOnNode`: the node's new and old pod, leaving out those
/// being deleted; `None` when it has two of either.
fn updated_pods(pods: &[PodView]) -> Option<(Option<&PodView>, Option<&PodView>)> {
    let (mut new, mut old) = (None, None);
    for p in pods.iter().filter(|p| !p.deleting) {
        let slot = if p.updated { &mut new } else { &mut old };
        if slot.is_some() {
            return None;
        }
        *slot = Some(p);
    }
    Some((new, old))
}

/// The rolling update's inputs beyond the pods.
pub struct Rolling<'a> {
    /// `pods`' nodes in the order this sync walks them.
    pub order: &'a [Arc<str>],
    pub nodes: &'a [NodeVerdict],
    pub max_surge: u32,
    pub max_unavailable: u32,
    pub min_ready_seconds: u32,
    pub now: SimTime,
}

/// `rollingUpdate`.
pub fn rolling_update(r: &Rolling, pods: &NodePods) -> UpdatePlan {
    let available = |p: &PodView| p.available(r.min_ready_seconds, r.now);
    let empty = Vec::new();
    let on = |n: &Arc<str>| pods.get(n).unwrap_or(&empty);
    if r.max_surge == 0 {
        // Delete first: unavailable old pods always, available ones while
        // fewer than maxUnavailable nodes lack an available pod.
        let (mut unavailable, mut replace, mut candidates) = (0u32, Vec::new(), Vec::new());
        for node in r.order {
            let Some((new, old)) = updated_pods(on(node)) else {
                unavailable += 1;
                continue;
            };
            match (new, old) {
                (None, None) | (Some(_), Some(_)) => unavailable += 1,
                (Some(new), None) => unavailable += u32::from(!available(new)),
                (None, Some(old)) if !available(old) => {
                    replace.push(old.id);
                    unavailable += 1;
                }
                (None, Some(_)) if unavailable >= r.max_unavailable => {}
                (None, Some(old)) => candidates.push(old.id),
            }
        }
        let remaining = (r.max_unavailable.saturating_sub(unavailable) as usize).min(candidates.len());
        replace.extend(&candidates[..remaining]);
        return UpdatePlan { delete: replace, create_on: Vec::new() };
    }
    // Create first: a new pod on up to maxSurge nodes at once; the old pod
    // goes once the new one is available.
    let should_run = |n: &Arc<str>| r.nodes.iter().any(|v| v.name == *n && v.should_run);
    let (mut surging, mut available_count) = (0u32, 0u32);
    let (mut old_to_delete, mut not_wanted, mut allowed, mut candidates) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for node in r.order {
        let Some((new, old)) = updated_pods(on(node)) else {
            surging += 1;
            continue;
        };
        if old.or(new).is_some_and(available) {
            available_count += 1;
        }
        let Some(old) = old else { continue };
        match new {
            None if !available(old) => match should_run(node) {
                false => old_to_delete.push(old.id),
                true => allowed.push(node.clone()),
            },
            None if !should_run(node) => not_wanted.push(old.id),
            None if surging >= r.max_surge => {}
            None => candidates.push(node.clone()),
            Some(new) if !available(new) => surging += 1,
            Some(_) => old_to_delete.push(old.id),
        }
    }
    // Nodes that stopped matching: delete their old pods only while the
    // others keep every desired node available.
    let desired = r.nodes.iter().filter(|n| n.should_run).count() as u32;
    let spare = available_count.saturating_sub(desired) as usize;
    old_to_delete.extend(not_wanted.into_iter().take(spare));
    let remaining = (r.max_surge.saturating_sub(surging) as usize).min(candidates.len());
    allowed.extend(candidates.into_iter().take(remaining));
    UpdatePlan { delete: old_to_delete, create_on: allowed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::status::PodPhase;

    fn pod(id: u32, ready: bool, updated: bool) -> PodView {
        PodView {
            id: PodId(id),
            name: Arc::from(format!("ds-{id}")),
            bound: true,
            created: SimTime::ZERO,
            deleting: false,
            phase: PodPhase::Running,
            ready_since: ready.then_some(SimTime::ZERO),
            updated,
            current_hash: updated,
        }
    }

    fn three(pods: [Vec<PodView>; 3]) -> (Vec<NodeVerdict>, NodePods, Vec<Arc<str>>) {
        let names: Vec<Arc<str>> = ["node-1", "node-2", "node-3"].map(Arc::from).to_vec();
        let nodes = names.iter().map(|n| NodeVerdict { name: n.clone(), should_run: true, should_continue: true });
        let map = names.iter().cloned().zip(pods).collect();
        (nodes.collect(), map, names)
    }

    #[test]
    fn percentages_round_up() {
        assert_eq!(scaled(IntOrPercent::Percent(10), 3), 1);
        assert_eq!(scaled(IntOrPercent::Percent(50), 3), 2);
        assert_eq!(scaled(IntOrPercent::Int(2), 3), 2);
        let (nodes, mut pods, _) = three([vec![], vec![], vec![]]);
        assert_eq!(desired_counts(&nodes, &mut pods, IntOrPercent::Int(0), IntOrPercent::Percent(0)), (0, 1, 3));
    }

    /// maxUnavailable 1: one old pod deleted at a time, in the walk's
    /// order; while a node has no available pod nothing else goes, except
    /// an old pod that is unavailable anyway.
    #[test]
    fn max_unavailable_deletes_one_node_at_a_time() {
        let (nodes, pods, order) =
            three([vec![pod(1, true, false)], vec![pod(2, true, false)], vec![pod(3, true, false)]]);
        let r = Rolling {
            order: &order,
            nodes: &nodes,
            max_surge: 0,
            max_unavailable: 1,
            min_ready_seconds: 0,
            now: SimTime::ZERO,
        };
        assert_eq!(rolling_update(&r, &pods).delete, vec![PodId(1)]);
        let reversed: Vec<Arc<str>> = order.iter().rev().cloned().collect();
        assert_eq!(rolling_update(&Rolling { order: &reversed, ..r }, &pods).delete, vec![PodId(3)]);
        let (_, pods, _) = three([vec![], vec![pod(2, true, false)], vec![pod(3, false, false)]]);
        assert_eq!(rolling_update(&Rolling { order: &order, ..r }, &pods).delete, vec![PodId(3)]);
        let (_, pods, _) = three([vec![pod(1, false, true)], vec![pod(2, true, false)], vec![pod(3, true, false)]]);
        assert!(rolling_update(&Rolling { order: &order, ..r }, &pods).delete.is_empty());
    }

    /// maxSurge 1: a new pod on one node; its old pod deleted once the
    /// new one is available, and the next node starts at that point.
    #[test]
    fn max_surge_creates_one_node_at_a_time() {
        let (nodes, pods, order) =
            three([vec![pod(1, true, false)], vec![pod(2, true, false)], vec![pod(3, true, false)]]);
        let r = Rolling {
            order: &order,
            nodes: &nodes,
            max_surge: 1,
            max_unavailable: 0,
            min_ready_seconds: 0,
            now: SimTime::ZERO,
        };
        assert_eq!(rolling_update(&r, &pods), UpdatePlan { delete: vec![], create_on: vec![order[0].clone()] });
        let (_, pods, _) = three([
            vec![pod(1, true, false), pod(4, false, true)],
            vec![pod(2, true, false)],
            vec![pod(3, true, false)],
        ]);
        assert_eq!(rolling_update(&r, &pods), UpdatePlan::default());
        let (_, pods, _) = three([
            vec![pod(1, true, false), pod(4, true, true)],
            vec![pod(2, true, false)],
            vec![pod(3, true, false)],
        ]);
        assert_eq!(rolling_update(&r, &pods), UpdatePlan { delete: vec![PodId(1)], create_on: vec![order[1].clone()] });
    }
}
