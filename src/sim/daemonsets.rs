//! DaemonSets in a run: created with the manifests (or applied later, a
//! DaemonSet of that name then given its new spec: a new template starts a
//! rolling update), and the DaemonSet controller's calls applied by the API
//! server — present only when a DaemonSet exists.

use super::watch::{Subscriber, Subscription};
use super::{World, routes};
use crate::control::daemon::{Answer, Controller as DaemonSetController, Write};
use crate::control::runtime::Watching;
use crate::ids::DaemonSetId;
use crate::spec::DaemonSetSpec;
use crate::trace::Record;
use crate::trace::record::{ApiEvent, EventSource, Involved, event_ns};
use std::sync::Arc;

impl World {
    /// The DaemonSet controller's informers, opened after the others'.
    pub(super) fn subscribe_daemon_sets(&mut self) {
        if self.daemon_sets.is_none() {
            return;
        }
        let group = (DaemonSetController::WATCHES.iter())
            .map(|&(kind, name)| Subscription {
                kind,
                watcher: self.watches.register(format!("kube-controller-manager/{name}")),
                to: Subscriber::DaemonSets,
            })
            .collect();
        self.informers.groups.push(group);
    }

    /// `kubectl apply` of a DaemonSet: created, or (one of that name
    /// exists) its spec replaced.
    pub(super) fn apply_daemon_set(&mut self, spec: Arc<DaemonSetSpec>) {
        let now = self.q.now();
        let existing = self
            .api
            .daemon_sets()
            .iter()
            .find(|d| !d.meta.removed && d.spec.name == spec.name && d.spec.namespace == spec.namespace);
        match existing.map(|d| d.id) {
            Some(id) => {
                self.api.update_daemon_set(id, spec, now, &mut self.trace);
            }
            None => {
                self.api.create_daemon_set(spec, now, &mut self.trace);
            }
        }
    }

    /// A call of the DaemonSet controller reaches the API server; the
    /// answer goes straight back to it.
    pub(super) fn daemon_set_write(&mut self, write: Write) {
        let now = self.q.now();
        let (ds, answer) = match write {
            Write::CreatePod { ds, pod, node } => {
                let alias = self.daemon_alias(ds, &node);
                let prefix = format!("{}-", self.api.daemon_set(ds).spec.name);
                let id = self.api.create_generated(pod, &prefix, alias, now, &mut self.trace);
                let message = format!("Created pod: {}", self.api.pod(id).spec.name);
                self.daemon_set_event(ds, false, "SuccessfulCreate", message);
                self.sync_watch(false);
                (ds, Answer::Done)
            }
            Write::DeletePod { ds, pod } => {
                let outcome = self.api.delete(pod, None, now, &mut self.trace);
                self.sync_watch(false);
                if outcome != crate::api::DeleteOutcome::NotFound {
                    let message = format!("Deleted pod: {}", self.api.pod(pod).spec.name);
                    self.daemon_set_event(ds, false, "SuccessfulDelete", message);
                }
                (ds, Answer::Done)
            }
            Write::Status { ds, read, status } => {
                match self.api.update_daemon_set_status(ds, read, *status, now, &mut self.trace) {
                    Ok(_) => (ds, Answer::Done),
                    Err(_) => (ds, Answer::Refused),
                }
            }
            Write::CreateRevision { ds, revision } => {
                self.api.create_controller_revision(*revision, now, &mut self.trace);
                (ds, Answer::Done)
            }
            Write::RenumberRevision { ds, name, revision } => {
                let namespace = &self.api.daemon_set(ds).spec.namespace;
                if let Some(id) = self.api.controller_revision_named(namespace, &name) {
                    self.api.renumber_controller_revision(id, revision, now, &mut self.trace);
                }
                (ds, Answer::Done)
            }
            Write::Event { ds, event } => {
                self.daemon_set_event(ds, event.warning, event.reason, event.message);
                return;
            }
        };
        if let Some(c) = self.daemon_sets.as_mut() {
            let mut out = crate::engine::Routed { q: &mut self.q, route: routes::daemon_sets };
            let mut ctx = crate::engine::Ctx { q: &mut out, trace: &mut self.trace };
            c.written(ds, answer, &mut ctx);
        }
    }

    /// The next pod of DaemonSet `ds` for `node` by the name milestones
    /// give it: `pod/<ds>@<node>#<n>` (the n-th pod created for that node).
    fn daemon_alias(&mut self, ds: DaemonSetId, node: &str) -> Arc<str> {
        let group = format!("{}@{node}", self.api.daemon_set(ds).spec.name);
        let n = self.aliases.entry(group.clone()).or_default();
        *n += 1;
        Arc::from(format!("pod/{group}#{n}"))
    }

    /// An event of the daemonset-controller about `ds`.
    fn daemon_set_event(&mut self, ds: DaemonSetId, warning: bool, reason: &'static str, message: String) {
        let now = self.q.now();
        // A sweep's trace keeps no Events.
        if !self.trace.keeps_all() {
            return;
        }
        let d = self.api.daemon_set(ds);
        let about = Involved { name: &d.spec.name, namespace: &d.spec.namespace, uid: &d.meta.uid };
        let source = EventSource::Controller { component: "daemonset-controller", kind: "DaemonSet" };
        let ns = event_ns(self.epoch_ns, now) + ds.0 as u128;
        let event = ApiEvent::first_at(about, source, warning, reason, message, now, ns);
        self.trace.push(now, Record::Event(Arc::new(event)));
    }
}
