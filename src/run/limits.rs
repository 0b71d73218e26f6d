//! A run's pod budget checked before it starts: a workload that alone asks
//! for more pods than the run may create is refused by name (a StatefulSet
//! controller's sync holds a slot per replica, so 2^31 replicas would not
//! even be allocated).

use crate::budget::thousands;
use crate::error::Problem;
use crate::sim::{Action, Applied, Setup};

/// Every Deployment, ReplicaSet and StatefulSet, created or applied, and
/// every `scale`, within `setup.max_pods`.
pub fn replicas_within_budget(setup: &Setup) -> Result<(), Vec<Problem>> {
    let mut asked: Vec<(String, u64)> = Vec::new();
    asked.extend(setup.deployments.iter().map(|d| (format!("deployment/{}", d.name), u64::from(d.replicas))));
    asked.extend(setup.replica_sets.iter().map(|r| (format!("replicaset/{}", r.name), u64::from(r.replicas))));
    asked.extend(setup.stateful_sets.iter().map(|s| (format!("statefulset/{}", s.name), u64::from(s.replicas))));
    for a in setup.actions.iter() {
        let (name, replicas) = match &a.action {
            Action::Apply { object: Applied::Deployment(d), .. } => (format!("deployment/{}", d.name), d.replicas),
            Action::Apply { object: Applied::ReplicaSet(r), .. } => (format!("replicaset/{}", r.name), r.replicas),
            Action::Apply { object: Applied::StatefulSet(s), .. } => (format!("statefulset/{}", s.name), s.replicas),
            Action::Scale { deployment, replicas } => (format!("deployment/{deployment} (scaled)"), *replicas),
            Action::ScaleStatefulSet { name, replicas } => (format!("statefulset/{name} (scaled)"), *replicas),
            _ => continue,
        };
        asked.push((name, u64::from(replicas)));
    }
    let problems: Vec<Problem> = asked
        .into_iter()
        .filter(|(_, replicas)| *replicas > setup.max_pods)
        .map(|(name, replicas)| {
            Problem::error(format!(
                "{name}: spec.replicas: {replicas} replicas are more than the {} pods a run may create; raise the \
                 budget with --max-pods N (or `maxPods: N` in the scenario), or ask for fewer",
                thousands(setup.max_pods)
            ))
        })
        .collect();
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}
