//! Observations: what a recording (or a podsim trace) shows about pods, in
//! observation order, with the file and line of every record and every time
//! carried at its true precision.
//!
//! Readers turn each input format into [`Record`]s: full Pod objects (from
//! `kubectl get -o yaml|json`, watch streams, podsim's JSON Lines), rows of
//! `kubectl get pods` tables, Events (objects or `kubectl describe` rows),
//! EndpointSlices and the Services they belong to, and the rows of
//! `kubectl get rs|deploy|sts|job`. The invariant checker
//! consumes them one at a time.

mod detect;
mod fragment;
mod instances;
mod json;
mod sim;
mod text;
mod when;

pub use detect::{Format, detect_file, read, read_file};
pub use instances::last_state_instance;
pub use sim::simulated_records;
pub use when::{Span, When, human_duration};

use k8s_openapi::api::core::v1::{Event, Pod, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use std::fmt;
use std::sync::Arc;

/// Where a record was read: file and 1-based line.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Origin {
    pub file: Arc<str>,
    pub line: u64,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A line of `kubectl get pods` (`NAME READY STATUS RESTARTS AGE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodRow {
    pub namespace: Option<String>,
    pub name: String,
    /// READY `1/2`: ready containers and all counted containers.
    pub ready: (u32, u32),
    pub status: String,
    pub restarts: u32,
    /// RESTARTS `3 (20s ago)`: how long before the row the last restart ended.
    pub last_restart_ago: Option<Span>,
    /// AGE: time since the pod's creation when the row was printed.
    pub age: Span,
    pub printed: Printed,
}

/// What moment a table row stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Printed {
    /// A watch printing a change as it happens: AGE is the time of the change.
    /// It always follows a row of the object in the same output, the state
    /// it changed from.
    Change,
    /// A listing (a one-shot `kubectl get`, the first row of each object in a
    /// watch): the state the object was in at AGE, entered at some earlier
    /// time, after anything that happened before the output began.
    Snapshot,
}

/// A row of `kubectl get rs|deploy|sts|job`: the counts a controller wrote
/// to its object's status, as printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadRow {
    pub namespace: Option<String>,
    pub name: String,
    pub shows: Workload,
    /// AGE: time since the object's creation when the row was printed.
    pub age: Span,
    pub printed: Printed,
}

/// The columns of each controller's row (`printReplicaSet`, `printDeployment`,
/// `printStatefulSet`, `printJob` in pkg/printers/internalversion/printers.go).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Workload {
    /// DESIRED (spec.replicas), CURRENT (status.replicas), READY (status.readyReplicas).
    ReplicaSet { desired: u32, current: u32, ready: u32 },
    /// READY `readyReplicas/spec.replicas`, UP-TO-DATE, AVAILABLE (kubectl ≥ 1.11).
    Deployment { ready: u32, desired: u32, updated: u32, available: u32 },
    /// READY `readyReplicas/spec.replicas`.
    StatefulSet { ready: u32, desired: u32 },
    /// COMPLETIONS `succeeded/completions` (`succeeded/1 of P` without
    /// completions: None), DURATION (empty before the Job starts), and the
    /// STATUS column of newer kubectl.
    Job { succeeded: u32, completions: Option<u32>, duration: Option<Span>, status: Option<String> },
    /// DESIRED, CURRENT, READY, UP-TO-DATE, AVAILABLE (`printDaemonSet`).
    DaemonSet { desired: u32, current: u32, ready: u32, updated: u32, available: u32 },
}

impl Workload {
    pub fn kind(&self) -> &'static str {
        match self {
            Workload::ReplicaSet { .. } => "ReplicaSet",
            Workload::Deployment { .. } => "Deployment",
            Workload::StatefulSet { .. } => "StatefulSet",
            Workload::Job { .. } => "Job",
            Workload::DaemonSet { .. } => "DaemonSet",
        }
    }
}

/// An event line of `kubectl describe` or `kubectl get events`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRow {
    pub warning: bool,
    pub reason: String,
    /// Age of the last occurrence when printed.
    pub last_seen: Span,
    /// `(x3 over 30s)`: the count and the age of the first occurrence.
    pub count: u32,
    pub first_seen: Span,
    pub from: String,
    pub message: String,
}

/// What one record shows.
#[derive(Clone, Debug)]
pub enum Observed {
    /// A whole Pod object.
    Pod(Box<Pod>),
    /// A pod as a `kubectl get pods` row.
    Row(PodRow),
    /// A core/v1 Event object.
    Event(Box<Event>),
    /// An event as printed by `kubectl describe`/`get events`, about `pod`.
    EventRow {
        pod: Option<String>,
        row: EventRow,
    },
    EndpointSlice(Box<EndpointSlice>),
    /// A Service: its `publishNotReadyAddresses` decides its endpoints' `ready`.
    Service(Box<Service>),
    /// A ReplicaSet, Deployment, StatefulSet or Job as a `kubectl get` row.
    Workload(WorkloadRow),
    /// A StatefulSet object: its `podManagementPolicy` says whether its pods keep an order.
    StatefulSet(Box<k8s_openapi::api::apps::v1::StatefulSet>),
    /// A Job object: its parallelism, completion mode, pod failure policy and restart policy.
    Job(Box<k8s_openapi::api::batch::v1::Job>),
}

/// One observation.
#[derive(Clone, Debug)]
pub struct Record {
    pub origin: Origin,
    /// When it was observed, if the input says (podsim's `t`); recordings
    /// usually only carry the timestamps inside the objects.
    pub seen: When,
    /// `ADDED`/`MODIFIED`/`DELETED` for watch events.
    pub watch: Option<String>,
    pub observed: Observed,
}

impl Record {
    /// The pod this record is about: UID when known, else namespace/name.
    pub fn pod_key(&self) -> Option<String> {
        match &self.observed {
            // An excerpt that never names its pod is known by its file.
            Observed::Pod(p) => {
                let name = p.metadata.name.clone().unwrap_or_else(|| format!("(unnamed in {})", self.origin.file));
                Some(pod_key(p.metadata.uid.as_deref(), p.metadata.namespace.as_deref(), &name))
            }
            Observed::Row(r) => Some(pod_key(None, r.namespace.as_deref(), &r.name)),
            Observed::Event(e) => {
                let o = &e.involved_object;
                (o.kind.as_deref() == Some("Pod"))
                    .then(|| pod_key(o.uid.as_deref(), o.namespace.as_deref(), o.name.as_deref().unwrap_or("")))
            }
            Observed::EventRow { pod, .. } => pod.as_deref().map(|p| pod_key(None, None, p)),
            Observed::EndpointSlice(_)
            | Observed::Service(_)
            | Observed::Workload(_)
            | Observed::StatefulSet(_)
            | Observed::Job(_) => None,
        }
    }
}

/// `uid/…` when the UID is known, else `namespace/name`.
pub fn pod_key(uid: Option<&str>, namespace: Option<&str>, name: &str) -> String {
    match uid {
        Some(u) if !u.is_empty() => format!("uid/{u}"),
        _ => format!("{}/{name}", namespace.unwrap_or("default")),
    }
}
