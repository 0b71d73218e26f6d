//! kube-scheduler, as far as podsim places pods: its pod informer, its
//! scheduling queue (an attempt per pod that needs a node, and the pods it
//! could not place waiting among its `unschedulablePods` until a cluster
//! event may make them fit), and the scheduling cycle ([`filters`]).
//!
//! The profile's `scheduling` latency is the whole way from a pod's
//! creation to its binding stored: the scheduler's watch, its queue and the
//! binding's write. So its informer is fed as a change is written, and an
//! attempt's decision is stored as the attempt ends.

pub mod filters;
pub mod node_ports;
pub mod noderesources;
pub mod scoring;
pub mod volume_binding;

pub use filters::{Wanted, pick, tolerates, untolerated_taint};
pub use scoring::NodeInfo;

use crate::api::pod::ApiPod;
use crate::cluster::Cluster;
use crate::engine::Outbox;
use crate::ids::PodId;
use crate::informer::Informer;
use crate::rng::{Label, Stream, What};
use crate::trace::record::WatchKind;
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

/// What reaches the scheduler besides its informer: an attempt is due.
#[derive(Debug)]
pub enum Ev {
    Schedule(PodId),
}

/// What an attempt decided: the write the API server stores.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// The binding to this node.
    Bind(Arc<str>),
    /// The node chosen, once these WaitForFirstConsumer claims (names in the
    /// pod's namespace) are provisioned there and bound (PreBind).
    BindAfterProvisioning(Arc<str>, Vec<Arc<str>>),
    /// `FailedScheduling` with `FitError`'s message; the pod waits.
    Unschedulable(String),
}

pub struct Scheduler {
    cluster: Arc<Cluster>,
    pods: Informer<ApiPod>,
    /// `unschedulablePods`: waiting for an event that may make them fit.
    unschedulable: Vec<PodId>,
    /// Those NodeResourcesFit rejected on some node: a scheduled pod
    /// leaving may make room (its `isSchedulableAfterPodEvent`).
    fit_rejected: Vec<PodId>,
    /// Those NodeUnschedulable rejected: an uncordon may let them in.
    cordon_rejected: Vec<PodId>,
    /// The nodes whose `spec.unschedulable` is true (cordoned).
    cordoned: std::collections::BTreeSet<Arc<str>>,
    /// Its node informer: the profile's nodes with the taints they have now.
    nodes: Vec<crate::cluster::Node>,
    /// Those TaintToleration rejected: a taint taken away may let them in.
    taint_rejected: Vec<PodId>,
    /// Its claim informer: what VolumeBinding reads.
    claims: volume_binding::Claims,
    rng: Stream,
}

impl Scheduler {
    /// `absent`: the profile's nodes that join during the run.
    pub fn new(cluster: Arc<Cluster>, seed: u64, absent: &[Arc<str>]) -> Self {
        Scheduler {
            nodes: cluster.nodes.iter().filter(|n| !absent.contains(&n.name)).cloned().collect(),
            cluster,
            pods: Informer::default(),
            unschedulable: Vec::new(),
            fit_rejected: Vec::new(),
            cordon_rejected: Vec::new(),
            cordoned: Default::default(),
            taint_rejected: Vec::new(),
            claims: Default::default(),
            rng: Stream::new(seed, "scheduler"),
        }
    }

    /// A pod change reaches its informer (the handlers of
    /// `addAllEventHandlers`): a new pod without a node is queued; a pod
    /// that leaves the scheduler's cache (deleted, or terminal: its
    /// informer lists no Succeeded or Failed pods) may free host ports.
    pub fn watched(&mut self, kind: WatchKind, pod: &Arc<ApiPod>, out: &mut impl Outbox<Ev>) {
        let old = self.pods.apply(kind, pod);
        match kind {
            WatchKind::Added if pod.node.is_none() => self.queue(pod.id, out),
            WatchKind::Added => {}
            WatchKind::Modified => {
                if old.is_some_and(|o| !o.status.phase.is_terminal()) && pod.status.phase.is_terminal() {
                    self.left_the_cache(pod, out);
                }
            }
            WatchKind::Deleted => {
                self.unschedulable.retain(|&p| p != pod.id);
                self.fit_rejected.retain(|&p| p != pod.id);
                self.cordon_rejected.retain(|&p| p != pod.id);
                self.taint_rejected.retain(|&p| p != pod.id);
                // A terminal pod already left the scheduler's cache.
                if !pod.status.phase.is_terminal() {
                    self.left_the_cache(pod, out);
                }
            }
        }
    }

    /// The pod's attempt lands after the profile's scheduling latency.
    fn queue(&mut self, pod: PodId, out: &mut impl Outbox<Ev>) {
        let pods = &self.pods;
        let about = || pods.get(pod).map_or_else(|| Arc::from("pod/?"), |p| p.spec.alias.clone());
        let d = self.cluster.latencies.scheduling.sample(&mut self.rng, || Label::new(What::Scheduling, about()));
        out.after(d, Ev::Schedule(pod));
    }

    /// `ScheduleOne`: filter the nodes and bind to the best, or record why
    /// none fits and park the pod among the unschedulable ones. Nothing
    /// when the pod was deleted, or bound, while it waited in the queue.
    pub fn schedule(&mut self, pod: PodId) -> Option<Decision> {
        let p = self.pods.get(pod)?;
        if p.node.is_some() {
            return None;
        }
        let spec = p.spec.object.spec.as_ref();
        let tolerations = spec.and_then(|s| s.tolerations.as_deref()).unwrap_or(&[]);
        let never_preempts = spec.and_then(|s| s.preemption_policy.as_deref()) == Some("Never");
        // VolumeBinding's PreFilter: a missing or unbound Immediate claim rules out every node.
        let to_provision = match self.claims.pre_filter(&p.spec.namespace, &p.spec.claims) {
            Ok(claims) => claims,
            Err(reason) => {
                let message =
                    filters::pre_filter_message(self.nodes.len(), &reason, never_preempts, self.cluster.version);
                self.unschedulable.push(pod);
                return Some(Decision::Unschedulable(message));
            }
        };
        let ports = node_ports::host_ports(&p.spec.object);
        let owner = p.spec.owner.as_ref().map(|o| o.uid.clone());
        // The cache holds only pods that still count: terminal ones
        // (Succeeded, Failed) free their place, resources and ports.
        // Gathered in one pass, not once per node: with many nodes and
        // pods a per-node scan made scheduling quadratic.
        let mut infos: HashMap<&str, NodeInfo> = HashMap::new();
        for q in self.pods.list().filter(|q| !q.status.phase.is_terminal()) {
            let Some(node) = q.node.as_deref() else { continue };
            let info = infos.entry(node).or_default();
            info.pods += 1;
            info.requested = info.requested + q.spec.requests.exact;
            info.non_zero = info.non_zero + q.spec.requests.non_zero;
            // Only a pod that wants host ports needs the nodes' ports.
            if !ports.is_empty() {
                info.ports.extend(node_ports::host_ports(&q.spec.object));
            }
            let same = owner.is_some() && q.spec.owner.as_ref().map(|o| &o.uid) == owner.as_ref();
            if same && q.meta.deletion.is_none() {
                info.matching += 1;
            }
        }
        for node in &self.cordoned {
            infos.entry(node).or_default().unschedulable = true;
        }
        let empty = NodeInfo::default();
        let info = |n: &str| infos.get(n).unwrap_or(&empty);
        let images: Vec<&str> = p.spec.containers.iter().map(|c| &*c.image).collect();
        let wanted = Wanted {
            tolerations,
            ports: &ports,
            never_preempts,
            requests: p.spec.requests,
            images: &images,
            spread: owner.is_some(),
            node_names: spec.and_then(crate::control::daemon::pods::affinity_node_names),
        };
        let registry = &self.cluster.registry;
        let rng = &mut self.rng;
        let picked =
            pick(&self.nodes, &wanted, info, |i| registry.image_size(i), self.cluster.version, |n| rng.below(n));
        match picked {
            Ok(node) if to_provision.is_empty() => Some(Decision::Bind(node)),
            Ok(node) => Some(Decision::BindAfterProvisioning(node, to_provision)),
            Err(u) => {
                self.unschedulable.push(pod);
                if u.by_fit {
                    self.fit_rejected.push(pod);
                }
                if u.by_cordon {
                    self.cordon_rejected.push(pod);
                }
                if u.by_taint {
                    self.taint_rejected.push(pod);
                }
                Some(Decision::Unschedulable(u.message))
            }
        }
    }

    /// A node's `spec.unschedulable` changed (`kubectl cordon`/`uncordon`);
    /// whether it did. NodeUnschedulable's `isSchedulableAfterNodeChange`
    /// queues the pods it rejected once a node is schedulable again.
    pub fn node_unschedulable(&mut self, node: &Arc<str>, unschedulable: bool, out: &mut impl Outbox<Ev>) -> bool {
        let changed = match unschedulable {
            true => self.cordoned.insert(node.clone()),
            false => self.cordoned.remove(node),
        };
        if changed && !unschedulable {
            let rejected = std::mem::take(&mut self.cordon_rejected);
            let (moved, kept): (Vec<PodId>, Vec<PodId>) =
                std::mem::take(&mut self.unschedulable).into_iter().partition(|p| rejected.contains(p));
            self.unschedulable = kept;
            for pod in moved {
                self.queue(pod, out);
            }
        }
        changed
    }

    /// A node joined the cluster (its Node object added): every plugin's
    /// `NodeAdd` event queues the pods that could not be scheduled.
    pub fn node_added(&mut self, node: crate::cluster::Node, out: &mut impl Outbox<Ev>) {
        if self.nodes.iter().any(|n| n.name == node.name) {
            return;
        }
        self.nodes.push(node);
        self.fit_rejected.clear();
        self.cordon_rejected.clear();
        self.taint_rejected.clear();
        for pod in std::mem::take(&mut self.unschedulable) {
            self.queue(pod, out);
        }
    }

    /// A node's taints changed (the node lifecycle controller's). TaintToleration's
    /// `isSchedulableAfterNodeChange` queues the pods it rejected when a
    /// taint goes away.
    pub fn node_taints(
        &mut self,
        node: &str,
        taints: Vec<k8s_openapi::api::core::v1::Taint>,
        out: &mut impl Outbox<Ev>,
    ) {
        let Some(n) = self.nodes.iter_mut().find(|n| &*n.name == node) else { return };
        let removed = n.taints.iter().any(|t| !taints.contains(t));
        n.taints = taints;
        if removed {
            let rejected = std::mem::take(&mut self.taint_rejected);
            let (moved, kept): (Vec<PodId>, Vec<PodId>) =
                std::mem::take(&mut self.unschedulable).into_iter().partition(|p| rejected.contains(p));
            self.unschedulable = kept;
            for pod in moved {
                self.queue(pod, out);
            }
        }
    }

    /// A claim was added or changed (its informer): VolumeBinding's events
    /// queue each unschedulable pod of its namespace that names it.
    pub fn claim_changed(&mut self, claim: &crate::api::claim::ApiClaim, out: &mut impl Outbox<Ev>) {
        self.claims.observe(claim);
        let (ns, name) = (&claim.spec.namespace, &claim.spec.name);
        let pods = &self.pods;
        let names = |p: &PodId| {
            pods.get(*p).is_some_and(|p| *p.spec.namespace == **ns && p.spec.claims.iter().any(|c| c == name))
        };
        let (moved, kept): (Vec<PodId>, Vec<PodId>) =
            std::mem::take(&mut self.unschedulable).into_iter().partition(names);
        self.unschedulable = kept;
        for pod in moved {
            self.queue(pod, out);
        }
    }

    /// Pod `gone` left the cache. NodePorts' `isSchedulableAfterPodDeleted`
    /// queues each unschedulable pod whose host ports conflict with the ones
    /// it held; the queue pops it at once (`SchedulerPopFromBackoffQ`, on
    /// since 1.33: an idle scheduler takes a pod from the backoff queue
    /// without waiting out its backoff), and the attempt lands after the
    /// profile's scheduling latency.
    ///
    /// NodeResourcesFit's hint queues every pod it rejected: "any deletion
    /// event to a scheduled pod could make the unscheduled pod schedulable".
    fn left_the_cache(&mut self, gone: &ApiPod, out: &mut impl Outbox<Ev>) {
        if self.unschedulable.is_empty() || gone.node.is_none() {
            return;
        }
        let freed = node_ports::host_ports(&gone.spec.object);
        let fit = std::mem::take(&mut self.fit_rejected);
        let pods = &self.pods;
        let conflicts = |p: &PodId| {
            if fit.contains(p) {
                return true;
            }
            let wants = pods.get(*p).map(|p| node_ports::host_ports(&p.spec.object)).unwrap_or_default();
            !freed.is_empty() && !node_ports::fits(&wants, &freed)
        };
        let (moved, kept): (Vec<PodId>, Vec<PodId>) =
            std::mem::take(&mut self.unschedulable).into_iter().partition(conflicts);
        self.unschedulable = kept;
        for pod in moved {
            self.queue(pod, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiServer;
    use crate::api::status::{PodPhase, PodStatus};
    use crate::error::SourceFile;
    use crate::manifest::Manifests;
    use crate::time::SimTime;
    use crate::trace::{Record, Trace};

    /// What the scheduler sent, with when.
    #[derive(Default)]
    struct Sent(Vec<(SimTime, PodId)>);

    impl Outbox<Ev> for Sent {
        fn now(&self) -> SimTime {
            SimTime::ZERO
        }
        fn at(&mut self, at: SimTime, Ev::Schedule(pod): Ev) {
            self.0.push((at, pod));
        }
    }

    fn spec(name: &str, host_port: bool) -> Arc<crate::spec::PodSpec> {
        let port = if host_port { ", ports: [{containerPort: 80, hostPort: 80}]" } else { "" };
        let text = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers: [{{name: app, image: nginx{port}}}]\n"
        );
        let file = Arc::new(SourceFile { name: "p.yaml".into(), text });
        Arc::new(Manifests::load(&[file]).unwrap().pods.remove(0))
    }

    fn feed(s: &mut Scheduler, trace: &Trace, from: usize, out: &mut Sent) {
        for e in &trace.entries[from..] {
            if let Record::Pod { kind, pod } = &e.record {
                s.watched(*kind, pod, out);
            }
        }
    }

    /// One node with host port 80 taken: the second pod wanting it is
    /// unschedulable (NodePorts), and queued again, after the profile's
    /// scheduling latency (5–30 ms by default), once the first pod's
    /// phase is Succeeded: a terminal pod leaves the scheduler's cache.
    #[test]
    fn a_pod_waits_unschedulable_until_a_terminal_pod_frees_its_host_port() {
        let mut cluster = Cluster::default();
        cluster.nodes.truncate(1);
        let node = cluster.nodes[0].name.clone();
        let mut s = Scheduler::new(Arc::new(cluster), 1, &[]);
        let (mut api, mut trace, mut out) = (ApiServer::new(1), Trace::default(), Sent::default());
        let a = api.create(spec("a", true), SimTime::ZERO, &mut trace);
        let b = api.create(spec("b", true), SimTime::ZERO, &mut trace);
        feed(&mut s, &trace, 0, &mut out);
        assert_eq!(out.0.iter().map(|&(_, p)| p).collect::<Vec<_>>(), [a, b]);
        assert!(out.0.iter().all(|&(at, _)| (5..=30).contains(&at.as_millis())));

        assert_eq!(s.schedule(a), Some(Decision::Bind(node.clone())));
        let from = trace.entries.len();
        api.bind(a, node.clone(), SimTime::ZERO, &mut trace);
        feed(&mut s, &trace, from, &mut out);
        assert_eq!(s.schedule(a), None, "bound while it waited");
        let Some(Decision::Unschedulable(message)) = s.schedule(b) else { panic!("b fits") };
        assert!(message.starts_with("0/1 nodes are available: 1 node(s) didn't have free ports"), "{message}");

        out.0.clear();
        let from = trace.entries.len();
        let mut done = PodStatus::new(api.pod(a).status.qos);
        done.phase = PodPhase::Succeeded;
        api.patch_status(a, done, SimTime::ZERO, &mut trace);
        feed(&mut s, &trace, from, &mut out);
        assert_eq!(out.0.iter().map(|&(_, p)| p).collect::<Vec<_>>(), [b]);
        assert_eq!(s.schedule(b), Some(Decision::Bind(node)));
    }
}
