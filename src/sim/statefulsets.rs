//! StatefulSets in a run: created with the manifests or applied, their
//! controller (present only when a StatefulSet is) fed by its informers, and
//! its writes applied by the API server, with the events
//! `stateful_pod_control.go` records (`recordPodEvent`, `recordClaimEvent`).

use super::watch::{Subscriber, Subscription};
use super::{World, routes};
use crate::api::meta::Propagation;
use crate::api::statefulset::drop_disabled_fields;
use crate::control::runtime::Watching;
use crate::control::statefulset::{self as sts, Answer, Write};
use crate::engine::{Ctx, Routed};
use crate::ids::StsId;
use crate::spec::StatefulSetSpec;
use crate::trace::Record;
use crate::trace::record::{ApiEvent, EventSource, Involved, event_ns};
use std::sync::Arc;

impl World {
    /// The StatefulSet controller's informers, opened after every other
    /// component's (their deliveries are queued last).
    pub(super) fn subscribe_stateful_sets(&mut self) {
        if self.stateful_sets.is_none() {
            return;
        }
        let group = (sts::Controller::WATCHES.iter())
            .map(|&(kind, name)| Subscription {
                kind,
                watcher: self.watches.register(format!("kube-controller-manager/{name}")),
                to: Subscriber::StatefulSets,
            })
            .collect();
        self.informers.groups.push(group);
    }

    /// `kubectl apply` of a StatefulSet: created, or its spec replaced.
    pub(super) fn apply_stateful_set(&mut self, spec: Arc<StatefulSetSpec>) {
        let now = self.q.now();
        let existing = (self.api.stateful_sets().iter())
            .find(|s| !s.meta.removed && s.spec.name == spec.name && s.spec.namespace == spec.namespace);
        let gate = crate::control::statefulset::rolling::max_unavailable_gate(self.cluster.version);
        let spec = drop_disabled_fields(spec, existing.map(|s| &*s.spec), gate);
        match existing.map(|s| s.id) {
            Some(id) => self.api.update_stateful_set(id, spec, now, &mut self.trace),
            None => {
                self.api.create_stateful_set(spec, now, &mut self.trace);
            }
        }
    }

    /// `kubectl scale statefulset/NAME --replicas=N`.
    pub(super) fn scale_stateful_set(&mut self, name: &str, replicas: u32) {
        let now = self.q.now();
        let what = format!("kubectl scale statefulset/{name} --replicas={replicas}");
        self.trace.push(now, Record::Scenario { object: format!("statefulset/{name}"), what });
        let Some(s) = self.api.stateful_sets().iter().find(|s| !s.meta.removed && s.spec.name == name) else {
            return;
        };
        let (id, spec) = (s.id, Arc::new(s.spec.with_replicas(replicas)));
        self.api.update_stateful_set(id, spec, now, &mut self.trace);
    }

    /// A write of the StatefulSet controller reaches the API server; the
    /// answer goes straight back to it.
    pub(super) fn sts_write(&mut self, write: Write) {
        let now = self.q.now();
        let (set, answer) = match write {
            Write::CreateRevision { set, name, number, template } => {
                let _ = self.api.create_revision(set, name, number, template, now, &mut self.trace);
                (set, Answer::Done)
            }
            Write::RenumberRevision { set, revision, number } => {
                self.api.renumber_controller_revision(revision, number, now, &mut self.trace);
                (set, Answer::Done)
            }
            Write::CreatePod { set, pod, claims } => (set, self.create_stateful_pod(set, pod, &claims)),
            Write::DeletePod { set, pod, claims } => {
                if !claims.is_empty() {
                    self.pod_owned_claims.push((pod, claims));
                }
                let name = self.api.pod(pod).spec.name.clone();
                self.api.delete(pod, None, now, &mut self.trace);
                self.sync_watch(false);
                self.sts_event(
                    set,
                    false,
                    "SuccessfulDelete",
                    format!("delete Pod {name} in StatefulSet {{set}} successful"),
                );
                (set, Answer::Done)
            }
            Write::Status { set, status } => {
                self.api.update_stateful_set_status(set, status, now, &mut self.trace);
                (set, Answer::Done)
            }
            Write::DeleteRevision { set, revision } => {
                self.api.delete_controller_revision(revision, Propagation::Background, None, now, &mut self.trace);
                (set, Answer::Done)
            }
        };
        if let Some(c) = self.stateful_sets.as_mut() {
            let mut out = Routed { q: &mut self.q, route: routes::stateful_sets };
            let mut ctx = Ctx { q: &mut out, trace: &mut self.trace };
            c.written(set, answer, &mut ctx);
        }
    }

    /// `CreateStatefulPod`: each claim that does not exist yet, then the
    /// pod; a pod whose name is taken is AlreadyExists (no event).
    fn create_stateful_pod(
        &mut self,
        set: StsId,
        pod: Arc<crate::spec::PodSpec>,
        claims: &[Arc<crate::spec::ClaimSpec>],
    ) -> Answer {
        let now = self.q.now();
        for claim in claims {
            let exists = self
                .claims
                .iter()
                .any(|c| !c.removed && c.spec.name == claim.name && c.spec.namespace == claim.namespace);
            if !exists {
                let message = format!("create Claim {} Pod {} in StatefulSet {{set}} success", claim.name, pod.name);
                self.create_claim(claim.clone(), now);
                self.sts_event(set, false, "SuccessfulCreate", message);
            }
        }
        if self.api.pod_named(&pod.namespace, &pod.name).is_some() {
            return Answer::Failed;
        }
        // `PodClaimIsStale`: a claim still owned by the gone pod of that
        // name waits for the garbage collector (podsim: a failed sync, retried).
        let stale = |name: &Arc<str>| self.pod_owned_claims.iter().any(|(_, owned)| owned.contains(name));
        if claims.iter().any(|c| stale(&c.name)) {
            return Answer::Failed;
        }
        let name = pod.name.clone();
        self.api.create(pod, now, &mut self.trace);
        self.sync_watch(false);
        self.sts_event(set, false, "SuccessfulCreate", format!("create Pod {name} in StatefulSet {{set}} successful"));
        Answer::Done
    }

    /// The garbage collector sees a pod gone: the claims it owned are
    /// deleted after its watch and its DELETE (`attemptToDeleteItem`).
    pub(super) fn collect_claims_of(&mut self, pod: crate::ids::PodId, namespace: &str) {
        let Some((_, names)) = self.pod_owned_claims.iter().find(|(p, _)| *p == pod) else { return };
        let names = names.clone();
        let now = self.q.now();
        for name in names {
            let live = |c: &Arc<crate::api::claim::ApiClaim>| {
                !c.removed && c.spec.name == name && *c.spec.namespace == *namespace
            };
            let Some(i) = self.claims.iter().position(live) else { continue };
            let latencies = &self.cluster.latencies;
            let label =
                || crate::rng::Label::new(crate::rng::What::ApiWrite, format!("pvc/{name}")).with("garbage collector");
            let d = latencies.watch.sample(&mut self.claim_rng, label)
                + latencies.api_write.sample(&mut self.claim_rng, label);
            self.q.at(now + d, super::Ev::CollectClaim(i));
        }
    }

    /// A StatefulSet deleted with `persistentVolumeClaimRetentionPolicy.whenDeleted:
    /// Delete`: its controller had made the set an owner of each claim
    /// (`updateClaimOwnerRefForSetAndPod`), so the garbage collector deletes
    /// them once it sees the set go, after its watch and its DELETE. A claim
    /// a pod still mounts is removed only after that pod (the
    /// `kubernetes.io/pvc-protection` finalizer; its Terminating state in
    /// between is not shown).
    pub(super) fn collect_set_claims(&mut self, set: StsId) {
        let s = self.api.stateful_set(set);
        if s.spec.when_deleted != crate::spec::statefulset::Retention::Delete {
            return;
        }
        let (name, namespace) = (s.spec.name.clone(), s.spec.namespace.clone());
        let prefixes: Vec<String> = s.spec.claim_templates.iter().map(|t| format!("{}-{name}-", t.name)).collect();
        let of_set = |c: &Arc<crate::api::claim::ApiClaim>| {
            let ordinal = |p: &String| c.spec.name.strip_prefix(p.as_str()).is_some_and(|n| n.parse::<u32>().is_ok());
            !c.removed && *c.spec.namespace == *namespace && prefixes.iter().any(ordinal)
        };
        let now = self.q.now();
        for i in (0..self.claims.len()).filter(|i| of_set(&self.claims[*i])) {
            let claim = self.claims[i].spec.name.clone();
            let mounted = |p: &&crate::api::pod::ApiPod| {
                !p.meta.removed && *p.spec.namespace == *namespace && p.spec.claims.contains(&claim)
            };
            if let Some(pod) = self.api.pods().iter().find(mounted).map(|p| p.id) {
                match self.pod_owned_claims.iter_mut().find(|(p, _)| *p == pod) {
                    Some((_, owned)) if !owned.contains(&claim) => owned.push(claim),
                    Some(_) => {}
                    None => self.pod_owned_claims.push((pod, vec![claim])),
                }
                continue;
            }
            let label =
                || crate::rng::Label::new(crate::rng::What::ApiWrite, format!("pvc/{claim}")).with("garbage collector");
            let latencies = &self.cluster.latencies;
            let d = latencies.watch.sample(&mut self.claim_rng, label)
                + latencies.api_write.sample(&mut self.claim_rng, label);
            self.q.at(now + d, super::Ev::CollectClaim(i));
        }
    }

    /// The garbage collector's DELETE of claim `i` is stored: no pod owns it any more.
    pub(super) fn collect_claim(&mut self, i: usize) {
        let now = self.q.now();
        self.delete_claim(i, now);
        let name = self.claims[i].spec.name.clone();
        for (_, owned) in &mut self.pod_owned_claims {
            owned.retain(|c| *c != name);
        }
        self.pod_owned_claims.retain(|(_, owned)| !owned.is_empty());
    }

    /// An event of the statefulset-controller about the set (its name
    /// replaces `{set}` in the message).
    fn sts_event(&mut self, set: StsId, warning: bool, reason: &'static str, message: String) {
        let now = self.q.now();
        // A sweep's trace keeps no Events.
        if !self.trace.keeps_all() {
            return;
        }
        let s = self.api.stateful_set(set);
        let message = message.replace("{set}", &s.spec.name);
        let about = Involved { name: &s.spec.name, namespace: &s.spec.namespace, uid: &s.meta.uid };
        let source = EventSource::Controller { component: "statefulset-controller", kind: "StatefulSet" };
        let ns = event_ns(self.epoch_ns, now) + u128::from(self.api.revision());
        let event = ApiEvent::first_at(about, source, warning, reason, message, now, ns);
        self.trace.push(now, Record::Event(Arc::new(event)));
    }
}
