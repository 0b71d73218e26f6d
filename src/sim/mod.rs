//! The world of one run: the API server, the scheduler and each node's
//! kubelet, exchanging messages through one event queue that owns time.

use crate::api::ApiServer;
use crate::api::status::PodStatus;
use crate::app::Behaviours;
use crate::cluster::Cluster;
use crate::engine::Queue;
use crate::kubelet::{self, Kubelet};
use crate::rng::Stream;
use crate::spec::PodSpec;
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::Trace;
use crate::trace::record::{ApiEvent, EventSource};
use std::sync::Arc;

/// A pod of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PodId(pub u32);

/// Messages between components.
#[derive(Debug)]
pub enum Ev {
    /// The scenario creates a pod.
    Create(Arc<PodSpec>),
    /// The scheduler's binding reaches the API server.
    Bind { pod: PodId, node: Arc<str> },
    /// A kubelet's status PATCH reaches the API server.
    PatchStatus { pod: PodId, node: Arc<str>, status: Box<PodStatus> },
    /// A message to the kubelet of a node.
    Kubelet(Arc<str>, kubelet::Ev),
}

/// What a component gets to act: the queue (time) and the trace.
pub struct Ctx<'a> {
    pub q: &'a mut Queue<Ev>,
    pub trace: &'a mut Trace,
}

/// Everything a run needs besides the seed.
#[derive(Clone)]
pub struct Setup {
    pub pods: Vec<PodSpec>,
    pub behaviours: Arc<Behaviours>,
    pub cluster: Arc<Cluster>,
    /// Nanoseconds since the Unix epoch of simulated time zero.
    pub epoch_ns: u128,
}

pub struct World {
    q: Queue<Ev>,
    trace: Trace,
    api: ApiServer,
    kubelets: Vec<Kubelet>,
    cluster: Arc<Cluster>,
    scheduler: Stream,
    watch: Stream,
    epoch_ns: u128,
}

impl World {
    pub fn new(setup: &Setup, seed: u64) -> World {
        let mut w = World {
            q: Queue::default(),
            trace: Trace::default(),
            api: ApiServer::new(seed),
            kubelets: setup
                .cluster
                .nodes
                .iter()
                .map(|n| Kubelet::new(n.clone(), setup.cluster.clone(), setup.behaviours.clone(), seed, setup.epoch_ns))
                .collect(),
            cluster: setup.cluster.clone(),
            scheduler: Stream::new(seed, "scheduler"),
            watch: Stream::new(seed, "apiserver/watch"),
            epoch_ns: setup.epoch_ns,
        };
        for k in &mut w.kubelets {
            let mut ctx = Ctx { q: &mut w.q, trace: &mut w.trace };
            k.start(&mut ctx);
        }
        for p in &setup.pods {
            w.q.at(SimTime::ZERO, Ev::Create(Arc::new(p.clone())));
        }
        w
    }

    /// Runs until `until` (inclusive) and returns the trace.
    pub fn run(mut self, until: SimTime) -> Trace {
        while let Some(ev) = self.q.pop_until(until) {
            self.dispatch(ev);
        }
        self.trace
    }

    fn dispatch(&mut self, ev: Ev) {
        let now = self.q.now();
        match ev {
            Ev::Create(spec) => {
                let node = spec.node_name.clone();
                let pod = self.api.create(spec, now, &mut self.trace);
                match node {
                    // A pod with nodeName skips the scheduler.
                    Some(n) => self.deliver(pod, Arc::from(n)),
                    None => {
                        let d = self.cluster.latencies.scheduling.sample(&mut self.scheduler);
                        let node = self.pick_node();
                        self.q.after(d, Ev::Bind { pod, node });
                    }
                }
            }
            Ev::Bind { pod, node } => {
                self.api.bind(pod, node.clone(), now, &mut self.trace);
                let p = self.api.pod(pod);
                let event = ApiEvent {
                    name: format!("{}.{:x}", p.spec.name, self.epoch_ns + now.as_millis() as u128 * 1_000_000),
                    pod: Arc::from(p.spec.name.as_str()),
                    namespace: Arc::from(p.spec.namespace.as_str()),
                    pod_uid: p.uid.clone(),
                    field_path: None,
                    warning: false,
                    reason: "Scheduled",
                    message: format!("Successfully assigned {}/{} to {node}", p.spec.namespace, p.spec.name),
                    count: 1,
                    first: now,
                    last: now,
                    source: EventSource::Scheduler,
                };
                self.trace.push(now, Record::Event(Arc::new(event)));
                self.deliver(pod, node);
            }
            Ev::PatchStatus { pod, node, status } => {
                let stored = self.api.patch_status(pod, *status, now, &mut self.trace);
                self.send_to_kubelet(
                    &node,
                    SimDuration::ZERO,
                    kubelet::Ev::StatusPatched { pod, status: Box::new(stored) },
                );
            }
            Ev::Kubelet(node, kev) => {
                if let Some(k) = self.kubelets.iter_mut().find(|k| k.node_name() == &*node) {
                    let mut ctx = Ctx { q: &mut self.q, trace: &mut self.trace };
                    k.handle(kev, &mut ctx);
                }
            }
        }
    }

    /// The scheduler's choice: the node with the fewest pods bound so far
    /// (first in profile order on a tie). Scheduling constraints are not modelled.
    fn pick_node(&self) -> Arc<str> {
        let bound = |n: &Arc<str>| self.api.pods().iter().filter(|p| p.node.as_ref() == Some(n)).count();
        let best = self.cluster.nodes.iter().min_by_key(|n| bound(&n.name)).expect("a cluster has a node");
        best.name.clone()
    }

    /// The kubelet of `node` learns of the pod through its watch.
    fn deliver(&mut self, pod: PodId, node: Arc<str>) {
        let d = self.cluster.latencies.watch.sample(&mut self.watch);
        let p = self.api.pod(pod);
        let ev =
            kubelet::Ev::PodAdded { pod, spec: p.spec.clone(), uid: p.uid.clone(), status: Box::new(p.status.clone()) };
        self.send_to_kubelet(&node, d, ev);
    }

    fn send_to_kubelet(&mut self, node: &Arc<str>, delay: SimDuration, ev: kubelet::Ev) {
        self.q.after(delay, Ev::Kubelet(node.clone(), ev));
    }
}
