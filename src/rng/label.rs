//! What a timing draw times and what it is about: the parts of its key.
//!
//! A draw was once named by its stream and its ordinal there; but a stream
//! is shared (one kubelet's loop draws for every pod of its node, one watch
//! for every object), so pinning one draw moved the events that drew after
//! it, and the same ordinal named another draw in the next run: shrinking a
//! rollout could not tell which draws mattered. A label names the step
//! ([`What`]) and the object ([`Label::subject`]) by seed-independent names
//! (a ReplicaSet's pod by its milestone alias, `pod/web@rev2#3`, not its
//! random name), so the k-th draw of one step for one object is the same
//! draw in every run of the seed.

use std::fmt;
use std::sync::Arc;

/// The step a timing draw times. Each has a phrase (`verify::words`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum What {
    // The kubelet.
    /// A ticker's phase against the run's start (`detail`: the ticker).
    Phase,
    PodSync,
    SandboxCreate,
    SandboxStop,
    PodCleanup,
    ImagePull,
    ContainerCreate,
    ContainerStart,
    /// The pod worker's periodic resync (`--sync-frequency`).
    Resync,
    /// Where in its jitter range the resync lands (a fraction).
    ResyncJitter,
    OnDemandRelist,
    PlegRelist,
    StatusPatch,
    FinalDelete,
    /// An exec probe's runtime overhead (`detail`: the probe).
    ExecOverhead,
    /// A lifecycle hook's runtime overhead (`detail`: the hook).
    HookOverhead,
    NoRouteToHost,
    // The app in a container.
    Listen,
    Exit,
    SigtermExit,
    AddressInUseExit,
    /// When the answer to a probe or request path changes (`detail`: which).
    AnswerChange,
    /// How long one answer takes (`detail`: to what).
    AnswerLatency,
    RelayTimeout,
    /// When the app's resident memory moves to its next stretch.
    MemoryChange,
    // The network and clients.
    RequestThere,
    RequestBack,
    ClientInterval,
    // The control plane.
    Watch,
    Scheduling,
    ApiWrite,
    EndpointBatch,
    GateWatch,
    GateDelay,
    GateWrite,
    VolumeProvision,
    /// A node lease renewal's jitter (`JitterUntil`, 4 %).
    LeaseRenew,
    /// The node lifecycle controller's NoExecute tainting pass (every 100 ms).
    TaintingPass,
    // kube-proxy.
    ProxySync,
    ProxyMinSyncPeriod,
}

impl What {
    /// The name in a draw key: the profile's field where there is one.
    pub fn as_str(self) -> &'static str {
        match self {
            What::Phase => "phase",
            What::PodSync => "pod_sync",
            What::SandboxCreate => "sandbox_create",
            What::SandboxStop => "sandbox_stop",
            What::PodCleanup => "pod_cleanup",
            What::ImagePull => "image_pull",
            What::ContainerCreate => "container_create",
            What::ContainerStart => "container_start",
            What::Resync => "sync_frequency",
            What::ResyncJitter => "resync_jitter",
            What::OnDemandRelist => "on_demand_relist",
            What::PlegRelist => "pleg_relist",
            What::StatusPatch => "status_patch",
            What::FinalDelete => "final_delete",
            What::ExecOverhead => "exec_probe",
            What::HookOverhead => "hook",
            What::NoRouteToHost => "no_route_to_host",
            What::Listen => "listen",
            What::Exit => "exit",
            What::SigtermExit => "sigterm_exit",
            What::AddressInUseExit => "address_in_use_exit",
            What::AnswerChange => "answer_change",
            What::AnswerLatency => "answer_latency",
            What::RelayTimeout => "relay_timeout",
            What::MemoryChange => "memory_change",
            What::RequestThere => "request_there",
            What::RequestBack => "request_back",
            What::ClientInterval => "every",
            What::Watch => "watch",
            What::Scheduling => "scheduling",
            What::ApiWrite => "api_write",
            What::EndpointBatch => "endpoint_updates_batch_period",
            What::GateWatch => "gate_watch",
            What::GateDelay => "gate_delay",
            What::GateWrite => "controller_write",
            What::VolumeProvision => "volume_provision",
            What::LeaseRenew => "lease_renew",
            What::TaintingPass => "tainting_pass",
            What::ProxySync => "sync_time",
            What::ProxyMinSyncPeriod => "min_sync_period",
        }
    }
}

/// What one timing draw is: its step, its object, and a detail where one
/// object has several of the step (a container's probes, a ticker).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Label {
    pub what: What,
    /// `pod/web@rev2#3`, `pod/web@rev2#3/app`, `node/kind-worker`,
    /// `svc/web`, `client/curl`, …
    pub subject: Arc<str>,
    /// `readiness probe`, `GET /ready`, `PLEG relist`, … or empty.
    pub detail: Arc<str>,
}

impl Label {
    pub fn new(what: What, subject: impl Into<Arc<str>>) -> Label {
        Label { what, subject: subject.into(), detail: Arc::from("") }
    }

    pub fn with(mut self, detail: impl Into<Arc<str>>) -> Label {
        self.detail = detail.into();
        self
    }
}

/// `container_start(pod/web@rev2#3/app)`, `phase(node/kind-worker, PLEG relist)`.
impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({}", self.what.as_str(), self.subject)?;
        if !self.detail.is_empty() {
            write!(f, ", {}", self.detail)?;
        }
        write!(f, ")")
    }
}
