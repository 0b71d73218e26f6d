//! Watch delivery: each informer is its own stream from the API server,
//! with the profile's watch latency and in order (a later change never
//! arrives before an earlier one). An informer subscribes to one kind for
//! one component; the world's fan-out delivers every watch record to every
//! informer of its kind.

use super::{Ev, NodeId};
use crate::api::ApiServer;
use crate::api::store::{Kind, Watch};
use crate::control::deployment as deploy;
use crate::control::endpointslice as eps;
use crate::control::garbagecollector as gc;
use crate::control::replicaset as rs;
use crate::control::runtime::Watching;
use crate::dist::Dist;
use crate::proxy;
use crate::rng::{Label, Stream, What};
use crate::time::SimTime;
use crate::trace::Record;
use std::borrow::Cow;
use std::sync::Arc;

/// One informer's watch, registered once: a change is delivered by id, not
/// by looking its name up.
#[derive(Copy, Clone, Debug)]
pub struct Watcher(u32);

struct OpenWatch {
    /// The random stream its latencies are drawn from.
    stream: usize,
    /// When it last delivered.
    last: SimTime,
}

/// A random stream of watch latencies.
struct LatencyStream {
    /// An informer's name (its stream is `watch/<name>`), or a shared
    /// stream's own name.
    name: Cow<'static, str>,
    informer: bool,
    /// Made at its first draw: a watch that never delivers draws nothing.
    rng: Option<Stream>,
}

pub struct Watches {
    seed: u64,
    watches: Vec<OpenWatch>,
    streams: Vec<LatencyStream>,
}

impl Watches {
    pub fn new(seed: u64) -> Self {
        Watches { seed, watches: Vec::new(), streams: Vec::new() }
    }

    /// The watch of the informer named `informer`, with its own stream.
    pub fn register(&mut self, informer: impl Into<Cow<'static, str>>) -> Watcher {
        self.streams.push(LatencyStream { name: informer.into(), informer: true, rng: None });
        self.open(self.streams.len() - 1)
    }

    /// A watch whose latencies come from the stream named `stream`, shared
    /// with every other watch registered on it: the kubelets' pod watches
    /// draw from the one stream they have always drawn from, so that their
    /// seeds keep their timelines.
    pub fn register_sharing(&mut self, stream: &'static str) -> Watcher {
        let i = match self.streams.iter().position(|s| !s.informer && s.name == stream) {
            Some(i) => i,
            None => {
                self.streams.push(LatencyStream { name: stream.into(), informer: false, rng: None });
                self.streams.len() - 1
            }
        };
        self.open(i)
    }

    fn open(&mut self, stream: usize) -> Watcher {
        self.watches.push(OpenWatch { stream, last: SimTime::ZERO });
        Watcher(self.watches.len() as u32 - 1)
    }

    /// When a change made at `now` reaches `watcher`; `label` names the
    /// draw by the object changed ([`subject`]).
    pub fn due(&mut self, watcher: Watcher, now: SimTime, latency: &Dist, label: impl FnOnce() -> Label) -> SimTime {
        let w = &mut self.watches[watcher.0 as usize];
        let s = &mut self.streams[w.stream];
        let rng = s.rng.get_or_insert_with(|| match s.informer {
            true => Stream::new(self.seed, &format!("watch/{}", s.name)),
            false => Stream::new(self.seed, &s.name),
        });
        let at = (now + latency.sample(rng, label)).max(w.last);
        w.last = at;
        at
    }
}

/// The object a watch record is about, by a seed-independent name (a pod
/// by its alias), and for an EndpointSlice (whose name is generated) its
/// Service's, with the kind as detail: what a watch draw's label names.
pub fn subject(api: &ApiServer, record: &Record) -> Label {
    let (subject, detail): (Arc<str>, &str) = match record {
        Record::Pod { pod, .. } => (pod.spec.alias.clone(), ""),
        Record::Service { svc, .. } => (Arc::from(format!("svc/{}", svc.spec.name)), ""),
        Record::Slice { slice, .. } => {
            (Arc::from(format!("svc/{}", api.service(slice.service).spec.name)), "EndpointSlice")
        }
        Record::ReplicaSet { rs, .. } => (Arc::from(format!("rs/{}", rs.spec.name)), ""),
        Record::Deployment { deployment, .. } => (Arc::from(format!("deploy/{}", deployment.spec.name)), ""),
        Record::Pdb { pdb, .. } => (Arc::from(format!("pdb/{}", pdb.spec.name)), ""),
        Record::Job { job, .. } => (Arc::from(format!("job/{}", job.spec.name)), ""),
        Record::CronJob { cronjob, .. } => (Arc::from(format!("cronjob/{}", cronjob.spec.name)), ""),
        Record::StatefulSet { sts, .. } => (Arc::from(format!("sts/{}", sts.spec.name)), ""),
        Record::ControllerRevision { revision, .. } => {
            let subject = match &revision.owner {
                Some(o) if o.kind == "DaemonSet" => format!("ds/{}", o.name),
                Some(o) => format!("sts/{}", o.name),
                None => format!("controllerrevision/{}", revision.name),
            };
            (Arc::from(subject), "ControllerRevision")
        }
        Record::DaemonSet { ds, .. } => (Arc::from(format!("ds/{}", ds.spec.name)), ""),
        Record::Node { node, .. } => (Arc::from(format!("node/{}", node.name)), ""),
        _ => (Arc::from("?"), ""),
    };
    Label::new(What::Watch, subject).with(detail)
}

/// The component an informer feeds.
#[derive(Copy, Clone, Debug)]
pub enum Subscriber {
    SliceController,
    Proxy(NodeId),
    ReplicaSets,
    Deployments,
    Collector,
    Disruption,
    Jobs,
    Ttl,
    CronJobs,
    StatefulSets,
    DaemonSets,
}

impl Subscriber {
    /// The watch record as this component's event (its kind was checked).
    pub fn event(self, record: &Record) -> Ev {
        let ev = match self {
            Subscriber::SliceController => eps::Controller::watched(record).map(Ev::SliceController),
            Subscriber::Proxy(node) => proxy::KubeProxy::watched(record).map(|e| Ev::Proxy(node, e)),
            Subscriber::ReplicaSets => rs::Controller::watched(record).map(Ev::RsController),
            Subscriber::Deployments => deploy::Controller::watched(record).map(Ev::DeploymentController),
            Subscriber::Collector => gc::Collector::watched(record).map(Ev::Collector),
            Subscriber::Jobs => crate::control::job::Controller::watched(record).map(Ev::JobController),
            Subscriber::CronJobs => crate::control::cronjob::Controller::watched(record).map(Ev::CronJobController),
            Subscriber::Ttl => crate::control::ttlafterfinished::Controller::watched(record)
                .map(|e| Ev::Ttl(crate::control::ttlafterfinished::Out::Own(e))),
            Subscriber::DaemonSets => crate::control::daemon::Controller::watched(record).map(Ev::DaemonSetController),
            Subscriber::Disruption => {
                crate::control::disruption::Controller::watched(record).map(Ev::DisruptionController)
            }
            Subscriber::StatefulSets => crate::control::statefulset::Controller::watched(record).map(Ev::StsController),
        };
        ev.unwrap_or_else(|| unreachable!("{self:?} subscribed to {:?}", Kind::of(record)))
    }
}

/// One informer: the kind it watches, its watch, and the component it feeds.
pub struct Subscription {
    pub kind: Kind,
    pub watcher: Watcher,
    pub to: Subscriber,
}

/// The informers of the controllers and kube-proxies, in groups: a change
/// is delivered group by group, record by record, informer by informer
/// (the order their deliveries enter the queue).
pub struct Informers {
    pub groups: Vec<Vec<Subscription>>,
}

impl Informers {
    /// The informers of the components a run has: the Service path (the
    /// EndpointSlice controller and each node's kube-proxy) when it has a
    /// Service, the ReplicaSet controller and the Deployment controller when
    /// it has them.
    pub fn new(
        watches: &mut Watches,
        service_path: bool,
        replica_sets: bool,
        deployments: bool,
        collector: bool,
        nodes: &[crate::cluster::Node],
    ) -> Self {
        // Each component's informers as it declares them, its watches named
        // after the process that runs it.
        let mut on = |process: &str, declared: &[Watch], to: Subscriber| -> Vec<Subscription> {
            let on = |&(kind, name): &Watch| Subscription {
                kind,
                watcher: watches.register(format!("{process}/{name}")),
                to,
            };
            declared.iter().map(on).collect()
        };
        let kcm = "kube-controller-manager";
        let mut groups = Vec::new();
        if service_path {
            let mut group = on(kcm, eps::Controller::WATCHES, Subscriber::SliceController);
            for (i, n) in nodes.iter().enumerate() {
                let node = Subscriber::Proxy(NodeId(i as u32));
                group.extend(on(&format!("kube-proxy/{}", n.name), proxy::KubeProxy::WATCHES, node));
            }
            groups.push(group);
        }
        if replica_sets {
            groups.push(on(kcm, rs::Controller::WATCHES, Subscriber::ReplicaSets));
        }
        if deployments {
            groups.push(on(kcm, deploy::Controller::WATCHES, Subscriber::Deployments));
        }
        if collector {
            groups.push(on(kcm, gc::Collector::WATCHES, Subscriber::Collector));
        }
        Informers { groups }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Node;

    fn node(name: &str) -> Node {
        Node::bare(name)
    }

    /// The order deliveries enter the queue: the Service path (the
    /// EndpointSlice controller, then each node's kube-proxy), the
    /// ReplicaSet controller, the Deployment controller; a component the run
    /// lacks has no informers.
    #[test]
    fn informers_come_in_the_order_their_deliveries_are_queued() {
        let nodes = [node("a"), node("b")];
        let shape = |i: &Informers| -> Vec<Vec<(Kind, String)>> {
            let groups = i.groups.iter();
            groups.map(|g| g.iter().map(|s| (s.kind, format!("{:?}", s.to))).collect()).collect()
        };
        let all = Informers::new(&mut Watches::new(1), true, true, true, false, &nodes);
        let (slices, a, b) =
            ("SliceController".to_string(), "Proxy(NodeId(0))".to_string(), "Proxy(NodeId(1))".to_string());
        assert_eq!(
            shape(&all),
            vec![
                vec![
                    (Kind::Pod, slices.clone()),
                    (Kind::Service, slices.clone()),
                    (Kind::EndpointSlice, slices),
                    (Kind::Service, a.clone()),
                    (Kind::EndpointSlice, a),
                    (Kind::Service, b.clone()),
                    (Kind::EndpointSlice, b),
                ],
                vec![(Kind::Pod, "ReplicaSets".into()), (Kind::ReplicaSet, "ReplicaSets".into())],
                vec![
                    (Kind::Pod, "Deployments".into()),
                    (Kind::ReplicaSet, "Deployments".into()),
                    (Kind::Deployment, "Deployments".into()),
                ],
            ]
        );
        let replica_sets_only = Informers::new(&mut Watches::new(1), false, true, false, false, &nodes);
        assert_eq!(shape(&replica_sets_only).len(), 1);
        assert!(Informers::new(&mut Watches::new(1), false, false, false, false, &nodes).groups.is_empty());
    }
}
