//! StatefulSet ordinal order: under OrderedReady the controller creates the
//! pod of ordinal N+1 only in a sync where the pod of ordinal N is Running,
//! Ready and not being deleted (`processReplica`, monotonic). Judged on the
//! Pod objects a recording or a podsim run holds, the set's pods known by
//! their owner reference, each creation against ordinal N as last seen.

use super::report::{ControllerReport, Tally, Verdict};
use super::{Invariant, Scope, inv};
use crate::control::statefulset::identity::parent_and_ordinal;
use crate::observe::{Origin, Record};
use k8s_openapi::api::core::v1::Pod;
use std::collections::BTreeMap;

/// The rule judged on a StatefulSet's pods.
pub const STATEFULSET_RULES: &[Invariant] = &[inv(
    "ordinal-order",
    "a StatefulSet's pod of ordinal N+1 is created only while its pod of ordinal N, as last seen before, is Running and Ready and not being deleted (under OrderedReady, the default: a set the recording or the run shows Parallel is not judged; pods are the set's by their owner reference, and a creation whose ordinal N was never seen is not judged)",
    "pkg/controller/statefulset/stateful_set_control.go updateStatefulSet, processReplica (monotonic: isTerminating, isRunningAndReady before the next ordinal)",
    Scope::Sequence,
)];

/// What the rule keeps of one StatefulSet.
#[derive(Default)]
struct SetState {
    /// The last version of each ordinal's pod: its UID, whether it was
    /// Running, Ready and not deleting, and where it was read.
    last: BTreeMap<u32, (String, bool, Origin)>,
    tally: Tally,
}

/// Every StatefulSet whose pods the recording shows, in the order first seen.
#[derive(Default)]
pub struct Ordinals {
    order: Vec<(String, String)>,
    sets: BTreeMap<(String, String), SetState>,
    /// Sets known to be Parallel (podsim's runs say so).
    parallel: Vec<(String, String)>,
}

impl Ordinals {
    /// The set `name` in `namespace` manages its pods in parallel: not judged.
    pub fn parallel(&mut self, namespace: &str, name: &str) {
        let key = (namespace.to_string(), name.to_string());
        if !self.parallel.contains(&key) {
            self.parallel.push(key);
        }
    }

    pub fn observe_pod(&mut self, r: &Record, p: &Pod) {
        let meta = &p.metadata;
        let owner = meta.owner_references.iter().flatten().find(|o| o.controller == Some(true));
        let Some(set) = owner.filter(|o| o.kind == "StatefulSet").map(|o| o.name.clone()) else { return };
        let Some((parent, ordinal)) = meta.name.as_deref().and_then(parent_and_ordinal) else { return };
        if parent != set {
            return;
        }
        let key = (meta.namespace.clone().unwrap_or_else(|| "default".into()), set);
        if !self.sets.contains_key(&key) {
            self.order.push(key.clone());
        }
        let parallel = self.parallel.contains(&key);
        let state = self.sets.entry(key).or_default();
        let uid = meta.uid.clone().unwrap_or_default();
        let created = state.last.get(&ordinal).is_none_or(|(u, ..)| *u != uid);
        if created
            && !parallel
            && let Some(prev) = ordinal.checked_sub(1)
        {
            match state.last.get(&prev) {
                Some((_, true, _)) => state.tally.hold(),
                Some((_, false, at)) => state.tally.violate(
                    &[&r.origin, at],
                    format!(
                        "{} created once {parent}-{prev} was Running and Ready",
                        meta.name.as_deref().unwrap_or("")
                    ),
                    format!("{parent}-{prev} not Running and Ready (or being deleted) when it was last seen"),
                ),
                None => state.tally.skip("the lower ordinal's pod was never seen before a creation"),
            }
        }
        let gone = r.watch.as_deref() == Some("DELETED");
        state.last.insert(ordinal, (uid, !gone && running_and_ready(p), r.origin.clone()));
    }

    pub fn report(mut self) -> Vec<ControllerReport> {
        let parallel = std::mem::take(&mut self.parallel);
        let mut out = Vec::new();
        for key in &self.order {
            let Some(state) = self.sets.remove(key) else { continue };
            let verdict = match parallel.contains(key) {
                true => Verdict::NotApplicable { why: "podManagementPolicy Parallel: no order to keep".into() },
                false => state.tally.verdict("no creation of a pod after the first ordinal"),
            };
            out.push(ControllerReport {
                kind: "StatefulSet",
                name: key.1.clone(),
                observed: format!("pods of ordinals {}", ordinals(&state.last)),
                verdicts: [("ordinal-order", verdict)].into_iter().collect(),
            });
        }
        out
    }
}

/// `isRunningAndReady`, and not deleting (`isTerminating`).
fn running_and_ready(p: &Pod) -> bool {
    let Some(status) = &p.status else { return false };
    let ready = status.conditions.iter().flatten().any(|c| c.type_ == "Ready" && c.status == "True");
    status.phase.as_deref() == Some("Running") && ready && p.metadata.deletion_timestamp.is_none()
}

fn ordinals(last: &BTreeMap<u32, (String, bool, Origin)>) -> String {
    let all: Vec<String> = last.keys().map(u32::to_string).collect();
    all.join(", ")
}
