//! `manage` (daemon_controller.go): for each node, `podsShouldBeOnNode`
//! says whether it needs a pod and which of its pods go; failed pods are
//! deleted under the back-off.

use super::backoff::{FailedPodsBackoff, Key};
use super::view::{NodePods, NodeVerdict, PodView, by_creation_and_phase};
use crate::api::status::PodPhase;
use crate::ids::PodId;
use crate::time::{SimDuration, SimTime};
use std::sync::Arc;

/// An event the controller records on the DaemonSet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DsEvent {
    pub warning: bool,
    pub reason: &'static str,
    pub message: String,
}

/// What one `manage` decided.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ManagePlan {
    /// `nodesNeedingDaemonPods`, in the order the nodes were listed.
    pub create_on: Vec<Arc<str>>,
    pub delete: Vec<PodId>,
    pub events: Vec<DsEvent>,
    /// `enqueueDaemonSetAfter` for a failed pod in back-off.
    pub requeue: Option<SimDuration>,
}

/// The DaemonSet as `manage` reads it.
pub struct Manage<'a> {
    pub namespace: &'a str,
    pub uid: &'a Arc<str>,
    pub observed_generation: i64,
    pub surge: bool,
    pub min_ready_seconds: u32,
    pub now: SimTime,
}

/// `manage`: every node in `nodes`' order.
pub fn manage(m: &Manage, nodes: &[NodeVerdict], pods: &NodePods, backoff: &mut FailedPodsBackoff) -> ManagePlan {
    let mut plan = ManagePlan::default();
    for node in nodes {
        pods_should_be_on_node(m, node, pods.get(&node.name), backoff, &mut plan);
    }
    plan
}

/// `podsShouldBeOnNode`.
fn pods_should_be_on_node(
    m: &Manage,
    node: &NodeVerdict,
    pods: Option<&Vec<PodView>>,
    backoff: &mut FailedPodsBackoff,
    plan: &mut ManagePlan,
) {
    match pods {
        None if node.should_run => plan.create_on.push(node.name.clone()),
        Some(pods) if node.should_continue => {
            let mut running: Vec<&PodView> = Vec::new();
            for pod in pods.iter().filter(|p| !p.deleting) {
                match pod.phase {
                    PodPhase::Failed => {
                        let key: Key = (m.uid.clone(), m.observed_generation, node.name.clone());
                        if backoff.in_backoff(&key, m.now) {
                            let delay = backoff.get(&key);
                            plan.requeue = Some(plan.requeue.map_or(delay, |d| d.min(delay)));
                            continue;
                        }
                        backoff.next(key, m.now);
                        let message = format!(
                            "Found failed daemon pod {}/{} on node {}, will try to kill it",
                            m.namespace, pod.name, node.name
                        );
                        plan.events.push(DsEvent { warning: true, reason: "FailedDaemonPod", message });
                        plan.delete.push(pod.id);
                    }
                    PodPhase::Succeeded => {
                        let message = format!(
                            "Found succeeded daemon pod {}/{} on node {}, will try to delete it",
                            m.namespace, pod.name, node.name
                        );
                        plan.events.push(DsEvent { warning: false, reason: "SucceededDaemonPod", message });
                        plan.delete.push(pod.id);
                    }
                    _ => running.push(pod),
                }
            }
            running.sort_by(|a, b| by_creation_and_phase(a, b));
            if !m.surge {
                // Without surge a node keeps its oldest pod only.
                plan.delete.extend(running.iter().skip(1).map(|p| p.id));
                return;
            }
            if running.len() <= 1 {
                if running.is_empty() && node.should_run {
                    plan.create_on.push(node.name.clone());
                }
                return;
            }
            // With surge: the oldest pod of the current hash and the oldest
            // other stay; the old one goes once it is not Ready or the new one is available.
            let (mut new, mut old): (Option<&PodView>, Option<&PodView>) = (None, None);
            for pod in running {
                let slot = if pod.current_hash { &mut new } else { &mut old };
                match slot {
                    None => *slot = Some(pod),
                    Some(_) => plan.delete.push(pod.id),
                }
            }
            if let (Some(new), Some(old)) = (new, old)
                && (!old.ready() || new.available(m.min_ready_seconds, m.now))
            {
                plan.delete.push(old.id);
            }
        }
        Some(pods) if !node.should_continue => {
            plan.delete.extend(pods.iter().filter(|p| !p.deleting).map(|p| p.id));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(id: u32, created: u64, phase: PodPhase, ready: bool, updated: bool) -> PodView {
        PodView {
            id: PodId(id),
            name: Arc::from(format!("ds-{id}")),
            bound: true,
            created: SimTime::from_millis(created * 1000),
            deleting: false,
            phase,
            ready_since: ready.then_some(SimTime::ZERO),
            updated,
            current_hash: updated,
        }
    }

    fn node(name: &str, should_run: bool, should_continue: bool) -> NodeVerdict {
        NodeVerdict { name: Arc::from(name), should_run, should_continue }
    }

    fn m(uid: &Arc<str>, surge: bool, now: u64) -> Manage<'_> {
        Manage {
            namespace: "default",
            uid,
            observed_generation: 1,
            surge,
            min_ready_seconds: 0,
            now: SimTime::from_millis(now * 1000),
        }
    }

    /// An empty eligible node needs a pod; an ineligible one whose pod may
    /// stay keeps it; one whose pod may not loses it; extra pods go, the oldest stays.
    #[test]
    fn each_node_gets_one_pod() {
        let uid: Arc<str> = Arc::from("u");
        let mut pods = NodePods::new();
        pods.insert(
            Arc::from("b"),
            vec![pod(2, 5, PodPhase::Running, true, true), pod(1, 3, PodPhase::Running, true, true)],
        );
        pods.insert(Arc::from("c"), vec![pod(3, 1, PodPhase::Running, true, true)]);
        pods.insert(Arc::from("d"), vec![pod(4, 1, PodPhase::Running, true, true)]);
        let nodes = [node("a", true, true), node("b", true, true), node("c", false, true), node("d", false, false)];
        let plan = manage(&m(&uid, false, 10), &nodes, &pods, &mut FailedPodsBackoff::default());
        assert_eq!(plan.create_on, vec![Arc::<str>::from("a")]);
        assert_eq!(plan.delete, vec![PodId(2), PodId(4)]);
    }

    /// A failed pod is deleted with a FailedDaemonPod event; the next
    /// failure within the back-off waits and requeues after the full back-off.
    #[test]
    fn failed_pods_are_deleted_under_back_off() {
        let uid: Arc<str> = Arc::from("u");
        let mut pods = NodePods::new();
        pods.insert(Arc::from("a"), vec![pod(1, 0, PodPhase::Failed, false, true)]);
        let nodes = [node("a", true, true)];
        let mut backoff = FailedPodsBackoff::default();
        let plan = manage(&m(&uid, false, 10), &nodes, &pods, &mut backoff);
        assert_eq!(plan.delete, vec![PodId(1)]);
        assert_eq!(plan.events[0].message, "Found failed daemon pod default/ds-1 on node a, will try to kill it");
        assert_eq!(plan.events[0].reason, "FailedDaemonPod");
        let again = manage(&m(&uid, false, 10), &nodes, &pods, &mut backoff);
        assert!(again.delete.is_empty());
        assert_eq!(again.requeue, Some(SimDuration::from_secs(1)));
        let later = manage(&m(&uid, false, 11), &nodes, &pods, &mut backoff);
        assert_eq!(later.delete, vec![PodId(1)]);
        assert_eq!(backoff.get(&(uid.clone(), 1, Arc::from("a"))), SimDuration::from_secs(2));
    }

    /// With surge, a node whose only pod is terminating gets a new one at
    /// once, and the old pod goes once the new one is available.
    #[test]
    fn surge_keeps_old_until_new_is_available() {
        let uid: Arc<str> = Arc::from("u");
        let nodes = [node("a", true, true)];
        let mut pods = NodePods::new();
        let mut going = pod(1, 0, PodPhase::Running, true, false);
        going.deleting = true;
        pods.insert(Arc::from("a"), vec![going]);
        let plan = manage(&m(&uid, true, 10), &nodes, &pods, &mut FailedPodsBackoff::default());
        assert_eq!(plan.create_on, vec![Arc::<str>::from("a")]);
        let plan = manage(&m(&uid, false, 10), &nodes, &pods, &mut FailedPodsBackoff::default());
        assert!(plan.create_on.is_empty(), "without surge the replacement waits for the old pod to go");
        pods.insert(
            Arc::from("a"),
            vec![pod(1, 0, PodPhase::Running, true, false), pod(2, 5, PodPhase::Running, false, true)],
        );
        let plan = manage(&m(&uid, true, 10), &nodes, &pods, &mut FailedPodsBackoff::default());
        assert!(plan.delete.is_empty(), "the new pod is not Ready yet");
        pods.insert(
            Arc::from("a"),
            vec![pod(1, 0, PodPhase::Running, true, false), pod(2, 5, PodPhase::Running, true, true)],
        );
        let plan = manage(&m(&uid, true, 10), &nodes, &pods, &mut FailedPodsBackoff::default());
        assert_eq!(plan.delete, vec![PodId(1)]);
    }
}
