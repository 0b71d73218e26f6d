//! PodDisruptionBudgets in a run: created with the manifests, their status
//! written by the disruption controller (present only when a budget
//! exists), and the Eviction API as a scenario action.

use super::watch::{Subscriber, Subscription};
use super::{PodId, World};
use crate::api::eviction::Eviction;
use crate::control::disruption::{self as pdbc, Controller as DisruptionController};
use crate::control::runtime::Watching;
use crate::spec::PdbSpec;
use crate::time::SimTime;
use crate::trace::Record;
use std::sync::Arc;

/// The pod an eviction names: one of the manifests', or the oldest live
/// pod whose name starts with a prefix (a ReplicaSet's pods have generated names).
#[derive(Clone, Debug)]
pub enum PodRef {
    Id(PodId),
    Prefix(Arc<str>),
}

impl World {
    /// The disruption controller's informers, opened after the others'
    /// (their deliveries are queued last).
    pub(super) fn subscribe_disruption(&mut self) {
        if self.disruption.is_none() {
            return;
        }
        let group = (DisruptionController::WATCHES.iter())
            .map(|&(kind, name)| Subscription {
                kind,
                watcher: self.watches.register(format!("kube-controller-manager/{name}")),
                to: Subscriber::Disruption,
            })
            .collect();
        self.informers.groups.push(group);
    }

    pub(super) fn create_pdb(&mut self, spec: Arc<PdbSpec>, now: SimTime) {
        self.api.create_pdb(spec, now, &mut self.trace);
    }

    /// The controller's `UpdateStatus` reaches the API server; its answer goes back at once.
    pub(super) fn pdb_write(&mut self, write: pdbc::Write, now: SimTime) {
        let result = self.api.update_pdb_status(write.pdb, write.read, write.status, now, &mut self.trace);
        let answer = pdbc::Ev::Written(write.pdb, result.map(|_| ()));
        super::drive(self.disruption.as_mut(), answer, &mut self.q, &mut self.trace, super::routes::disruption);
    }

    /// `POST pods/NAME/eviction`, as a client (not kubectl, which has no
    /// such command) sends it: the row names the request and its answer.
    pub(super) fn evict_action(&mut self, pod: PodRef, grace: Option<i64>, now: SimTime) {
        let options = grace.map(|g| format!(" with gracePeriodSeconds={g}")).unwrap_or_default();
        let id = match pod {
            PodRef::Id(id) => id,
            PodRef::Prefix(prefix) => match self.oldest_live(&prefix) {
                Some(id) => id,
                None => {
                    let what = format!("POST pods/{prefix}*/eviction{options}: no live pod matches");
                    return self.trace.push(now, Record::Scenario { object: format!("pod/{prefix}*"), what });
                }
            },
        };
        // The row first, as for every action; the answer is what the API
        // server decides before it writes.
        let name = self.api.pod(id).spec.name.clone();
        let answer = self.api.admit_eviction(id).err().unwrap_or(Eviction::Evicted);
        let what = format!("POST pods/{name}/eviction{options} (policy/v1 Eviction): {}", answer.describe(&name));
        self.trace.push(now, Record::Scenario { object: format!("pod/{name}"), what });
        if self.api.evict(id, grace, now, &mut self.trace) == Eviction::Evicted {
            self.sync_watch(false);
        }
    }
}
