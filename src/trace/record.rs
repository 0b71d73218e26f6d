//! The records of a trace: what every layer observed, in time order.

use crate::api::endpointslice::ApiSlice;
use crate::api::pod::ApiPod;
use crate::api::quantity::Quantity;
use crate::api::service::ApiService;
use crate::spec::{HookKind, ProbeKind};
use crate::time::SimTime;
use std::sync::Arc;

/// `ADDED` / `MODIFIED` / `DELETED`, as in a watch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WatchKind {
    Added,
    Modified,
    Deleted,
}

impl WatchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WatchKind::Added => "ADDED",
            WatchKind::Modified => "MODIFIED",
            WatchKind::Deleted => "DELETED",
        }
    }
}

/// A core/v1 Event as the API server stores it (after the kubelet's correlator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiEvent {
    pub name: String,
    /// The involved object: a Pod, or for a controller's event its own kind.
    pub pod: Arc<str>,
    pub namespace: Arc<str>,
    pub pod_uid: Arc<str>,
    /// `spec.containers{app}` for container events.
    pub field_path: Option<String>,
    pub warning: bool,
    pub reason: &'static str,
    pub message: String,
    pub count: u32,
    pub first: SimTime,
    pub last: SimTime,
    /// Reporting component: `kubelet` (with its node), `default-scheduler`,
    /// or a kube-controller-manager controller.
    pub source: EventSource,
}

/// The object an event is about.
pub struct Involved<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
    pub uid: &'a Arc<str>,
}

impl ApiEvent {
    /// An event recorded for the first time, at `now` (count 1), named
    /// `<object>.<ns in hex>` as client-go's recorder names it: `ns` is its
    /// time in nanoseconds since the epoch, made unique by the caller.
    pub fn first_at(
        about: Involved<'_>,
        source: EventSource,
        warning: bool,
        reason: &'static str,
        message: String,
        now: SimTime,
        ns: u128,
    ) -> ApiEvent {
        ApiEvent {
            name: format!("{}.{ns:x}", about.name),
            pod: Arc::from(about.name),
            namespace: Arc::from(about.namespace),
            pod_uid: about.uid.clone(),
            field_path: None,
            warning,
            reason,
            message,
            count: 1,
            first: now,
            last: now,
            source,
        }
    }
}

/// Nanoseconds since the Unix epoch of simulated time `now` (an event's name).
pub fn event_ns(epoch_ns: u128, now: SimTime) -> u128 {
    epoch_ns + now.as_millis() as u128 * 1_000_000
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventSource {
    Kubelet {
        node: Arc<str>,
    },
    Scheduler,
    /// `replicaset-controller` about a ReplicaSet, `deployment-controller` about a Deployment.
    Controller {
        component: &'static str,
        kind: &'static str,
    },
}

/// A process-level fact about one container instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcessFact {
    Started,
    Listening {
        ports: Vec<u16>,
    },
    /// `bind()` of `port` failed: another process of the pod's network
    /// namespace holds it (EADDRINUSE).
    AddressInUse {
        port: u16,
    },
    /// A lifecycle hook started in the container, or returned (with its
    /// error, if it failed).
    Hook {
        kind: HookKind,
        started: bool,
        error: Option<String>,
    },
    Sigterm,
    Sigkill,
    /// The kernel OOM-killed its container: its resident set `rss` went
    /// above the memory `limit` of the container's cgroup.
    OomKilled {
        rss: Quantity,
        limit: Quantity,
    },
    /// A signal from outside the kubelet (a scenario `kill` action).
    Signal {
        signal: &'static str,
    },
    Exited {
        code: i32,
    },
    /// Its node stopped (power lost): the process is gone with it, unseen.
    NodeStopped,
}

impl ProcessFact {
    pub fn as_str(&self) -> &'static str {
        match self {
            ProcessFact::Started => "started",
            ProcessFact::Listening { .. } => "listening",
            ProcessFact::AddressInUse { .. } => "address-in-use",
            ProcessFact::Hook { started: true, .. } => "hook-started",
            ProcessFact::Hook { started: false, .. } => "hook-returned",
            ProcessFact::Signal { .. } => "signal",
            ProcessFact::Sigterm => "sigterm",
            ProcessFact::Sigkill => "sigkill",
            ProcessFact::OomKilled { .. } => "oom-killed",
            ProcessFact::Exited { .. } => "exited",
            ProcessFact::NodeStopped => "node-stopped",
        }
    }
}

/// The verdict of one probe run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Success,
    Failure,
    /// The prober returned an error: the kubelet throws the result away.
    Error,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Success => "success",
            Verdict::Failure => "failure",
            Verdict::Error => "error",
        }
    }
}

/// One probe run and what the worker made of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeRun {
    pub pod: Arc<str>,
    pub namespace: Arc<str>,
    pub container: Arc<str>,
    /// The instance probed (`containerd://…`).
    pub container_id: Arc<str>,
    pub probe: ProbeKind,
    pub verdict: Verdict,
    /// The handler's output (`HTTP probe failed with statuscode: 503`).
    pub detail: String,
    /// Consecutive identical results so far, and the threshold for this
    /// result (both 0 for an error, which is not counted).
    pub run: u32,
    pub threshold: u32,
    /// This run changed the published result.
    pub published: bool,
}

/// Something the kubelet did and announced with an event (before the event
/// recorder's correlation and spam filter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubeletAction {
    pub pod: Arc<str>,
    pub namespace: Arc<str>,
    pub container: Option<Arc<str>>,
    pub reason: &'static str,
    pub message: String,
    pub warning: bool,
}

impl KubeletAction {
    pub fn is_pull_failure(&self) -> bool {
        is_pull_failure(self.reason, &self.message)
    }
}

/// `pullImage`'s `Failed to pull image …` (its `Error: ErrImagePull` follows).
pub fn is_pull_failure(reason: &str, message: &str) -> bool {
    reason == "Failed" && message.starts_with("Failed to pull image ")
}

#[derive(Clone, Debug)]
pub enum Record {
    Pod {
        kind: WatchKind,
        pod: Arc<ApiPod>,
    },
    Service {
        kind: WatchKind,
        svc: Arc<ApiService>,
    },
    Slice {
        kind: WatchKind,
        slice: Arc<ApiSlice>,
    },
    ReplicaSet {
        kind: WatchKind,
        rs: Arc<crate::api::replicaset::ApiReplicaSet>,
    },
    Deployment {
        kind: WatchKind,
        deployment: Arc<crate::api::deployment::ApiDeployment>,
    },
    /// A PodDisruptionBudget written.
    Pdb {
        kind: WatchKind,
        pdb: Arc<crate::api::disruption::ApiPdb>,
    },
    /// A Job written.
    Job {
        kind: WatchKind,
        job: Arc<crate::api::job::ApiJob>,
    },
    /// A CronJob written.
    CronJob {
        kind: WatchKind,
        cronjob: Arc<crate::api::cronjob::ApiCronJob>,
    },
    /// A PersistentVolumeClaim written.
    Claim {
        kind: WatchKind,
        claim: Arc<crate::api::claim::ApiClaim>,
    },
    /// A Node changed (the profile's nodes exist before the run: only
    /// their changes are written).
    Node {
        kind: WatchKind,
        node: Arc<crate::api::node::ApiNode>,
    },
    /// A kube-proxy sync committed its rules.
    ProxySync(Arc<crate::proxy::ProxySync>),
    /// A client's request and what it got.
    Request(Arc<crate::client::RequestRecord>),
    Event(Arc<ApiEvent>),
    Probe(ProbeRun),
    Process {
        pod: Arc<str>,
        namespace: Arc<str>,
        container: Arc<str>,
        container_id: Arc<str>,
        fact: ProcessFact,
    },
    Kubelet(KubeletAction),
    /// A line a kubectl command printed (`rollout status`), and its exit code
    /// on the line that ends it.
    Kubectl {
        command: Arc<str>,
        line: String,
        exit: Option<i32>,
    },
    /// A scenario action and its immediate effect.
    Scenario {
        object: String,
        what: String,
    },
    /// A StatefulSet written.
    StatefulSet {
        kind: WatchKind,
        sts: Arc<crate::api::statefulset::ApiStatefulSet>,
    },
    /// A DaemonSet written.
    DaemonSet {
        kind: WatchKind,
        ds: Arc<crate::api::daemonset::ApiDaemonSet>,
    },
    /// A ControllerRevision written.
    ControllerRevision {
        kind: WatchKind,
        revision: Arc<crate::api::controllerrevision::ApiControllerRevision>,
    },
}

impl Record {
    /// An API object, a process fact, a proxy sync, a request, a refused
    /// image pull or a scheduling failure: what milestones, state functions
    /// and the watches read. Probe runs, other kubelet actions and Events,
    /// kubectl and scenario lines are only printed.
    pub fn is_state(&self) -> bool {
        match self {
            Record::Pod { .. }
            | Record::Service { .. }
            | Record::Slice { .. }
            | Record::ReplicaSet { .. }
            | Record::Deployment { .. }
            | Record::Claim { .. }
            | Record::Pdb { .. }
            | Record::Job { .. }
            | Record::CronJob { .. }
            | Record::DaemonSet { .. }
            | Record::ControllerRevision { .. }
            | Record::Node { .. }
            | Record::ProxySync(_)
            | Record::Request(_)
            | Record::Process { .. }
            | Record::StatefulSet { .. } => true,
            Record::Kubelet(k) => k.is_pull_failure(),
            Record::Event(e) => e.reason == "FailedScheduling",
            Record::Probe(_) | Record::Kubectl { .. } | Record::Scenario { .. } => false,
        }
    }
}

/// A record with its time.
#[derive(Clone, Debug)]
pub struct Entry {
    pub t: SimTime,
    pub record: Record,
}
