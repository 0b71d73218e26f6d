//! The taint-eviction controller (pkg/controller/tainteviction): a pod on a
//! node with a NoExecute taint is deleted once the shortest
//! `tolerationSeconds` among the tolerations that match has passed (at
//! once if one taint is not tolerated, never if the matching tolerations
//! set no seconds). The DefaultTolerationSeconds admission gives every pod
//! 300 s for `not-ready` and `unreachable`.

use crate::control::scheduler::tolerates;
use crate::engine::Outbox;
use crate::ids::PodId;
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{Taint, Toleration};
use std::collections::BTreeMap;

#[derive(Debug)]
pub enum Ev {
    /// A pod's timer fires (`TimedWorkerQueue`); `work` tells a cancelled one apart.
    Fire { pod: PodId, work: u64 },
}

#[derive(Debug)]
pub enum Out {
    Own(Ev),
    /// `deletePodHandler`: the TaintManagerEviction event, the DisruptionTarget
    /// condition, then a DELETE with the pod's own grace period.
    Delete(PodId),
    /// `emitCancelPodDeletionEvent`: a scheduled deletion was cancelled.
    Cancelled(PodId),
}

/// A scheduled deletion (`TimedWorker`).
struct Work {
    id: u64,
    created: SimTime,
}

#[derive(Default)]
pub struct TaintEviction {
    work: BTreeMap<PodId, Work>,
    next: u64,
}

/// What matters of a pod on a tainted node.
pub struct PodOnNode<'a> {
    pub id: PodId,
    pub tolerations: &'a [Toleration],
}

impl TaintEviction {
    /// `handleNodeUpdate`: the node's NoExecute taints changed; each of its
    /// pods is processed against them (`processPodOnNode`), or, with none
    /// left, their scheduled deletions are cancelled.
    pub fn node_updated<'a>(
        &mut self,
        taints: &[Taint],
        pods: impl Iterator<Item = PodOnNode<'a>>,
        out: &mut impl Outbox<Out>,
    ) {
        let no_execute: Vec<&Taint> = taints.iter().filter(|t| t.effect == "NoExecute").collect();
        for pod in pods {
            match no_execute.is_empty() {
                true => self.cancel(pod.id, out),
                false => self.process_pod_on_node(&pod, &no_execute, out),
            }
        }
    }

    /// The pod is gone: its timer goes with it (`handlePodUpdate` of a deleted pod).
    pub fn pod_deleted(&mut self, pod: PodId) {
        self.work.remove(&pod);
    }

    /// `processPodOnNode`.
    fn process_pod_on_node(&mut self, pod: &PodOnNode<'_>, taints: &[&Taint], out: &mut impl Outbox<Out>) {
        let now = out.now();
        // `GetMatchingTolerations`: every taint must be tolerated.
        let mut used = Vec::new();
        for taint in taints {
            match pod.tolerations.iter().find(|t| tolerates(t, taint)) {
                Some(t) => used.push(t),
                None => {
                    // "Not all taints are tolerated after update for pod on node": delete now.
                    self.cancel(pod.id, out);
                    return self.add_work(pod.id, now, now, out);
                }
            }
        }
        let Some(min) = min_toleration_time(&used) else {
            return self.cancel(pod.id, out);
        };
        let trigger = now + min;
        let mut start = now;
        if let Some(w) = self.work.get(&pod.id) {
            // A later update never postpones a deletion already scheduled.
            start = w.created;
            if start + min < trigger {
                return;
            }
            self.cancel(pod.id, out);
        }
        self.add_work(pod.id, start, trigger, out);
    }

    fn add_work(&mut self, pod: PodId, created: SimTime, fire: SimTime, out: &mut impl Outbox<Out>) {
        self.next += 1;
        self.work.insert(pod, Work { id: self.next, created });
        out.at(fire.max(out.now()), Out::Own(Ev::Fire { pod, work: self.next }));
    }

    /// `cancelWorkWithEvent`: the event only when a deletion was pending.
    fn cancel(&mut self, pod: PodId, out: &mut impl Outbox<Out>) {
        if self.work.remove(&pod).is_some() {
            out.after(SimDuration::ZERO, Out::Cancelled(pod));
        }
    }

    pub fn handle(&mut self, ev: Ev, out: &mut impl Outbox<Out>) {
        match ev {
            Ev::Fire { pod, work } => {
                if self.work.get(&pod).is_some_and(|w| w.id == work) {
                    self.work.remove(&pod);
                    out.after(SimDuration::ZERO, Out::Delete(pod));
                }
            }
        }
    }
}

/// `getMinTolerationTime`: the shortest `tolerationSeconds` (≤ 0 counts as
/// 0); `None` when no matching toleration sets one: tolerated forever.
pub fn min_toleration_time(tolerations: &[&Toleration]) -> Option<SimDuration> {
    let seconds = tolerations.iter().filter_map(|t| t.toleration_seconds).min()?;
    Some(SimDuration::from_secs(seconds.max(0) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toleration(key: &str, seconds: Option<i64>) -> Toleration {
        Toleration {
            key: Some(key.into()),
            operator: Some("Exists".into()),
            effect: Some("NoExecute".into()),
            toleration_seconds: seconds,
            value: None,
        }
    }

    #[test]
    fn the_shortest_matching_toleration_wins_and_none_means_forever() {
        let (a, b, c) = (toleration("x", Some(300)), toleration("y", Some(60)), toleration("z", None));
        assert_eq!(min_toleration_time(&[&a, &b]), Some(SimDuration::from_secs(60)));
        assert_eq!(min_toleration_time(&[&a, &c]), Some(SimDuration::from_secs(300)));
        assert_eq!(min_toleration_time(&[&c]), None);
        let negative = toleration("n", Some(-5));
        assert_eq!(min_toleration_time(&[&negative]), Some(SimDuration::ZERO));
    }
}
