//! The parts of a Pod that the simulator reads, defaulted, validated and typed.
//!
//! Built once from the API object (`manifest`); the kubelet model only ever
//! sees these types, so an invalid state (a probe with two handlers, a
//! negative period) cannot reach it.

mod claim;
mod config;
pub mod cron;
pub mod cronjob;
pub mod daemonset;
mod disruption;
pub mod job;
mod ports;
pub mod resources;
mod service;
pub mod statefulset;
mod workload;

pub use claim::{BindingMode, ClaimSpec, StorageClass};
pub use config::{ConfigKind, ConfigNeeds, ConfigRef, EnvNeed, VolumeNeed, VolumeSource};
pub use cronjob::CronJobSpec;
pub use daemonset::DaemonSetSpec;
pub use disruption::{Budget, PdbSpec, UnhealthyPodEvictionPolicy};
pub use job::JobSpec;
pub use ports::AssumedPort;
pub use service::{ServicePort, ServiceSpec, TrafficPolicy};
pub use statefulset::StatefulSetSpec;
pub use workload::{DeploymentSpec, IntOrPercent, PodTemplate, ReplicaSetSpec, Strategy};

use crate::api::quantity::Quantity;
use crate::time::SimDuration;
use k8s_openapi::api::core::v1::Pod;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// `spec.restartPolicy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RestartPolicy {
    Always,
    OnFailure,
    Never,
}

/// `imagePullPolicy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PullPolicy {
    Always,
    IfNotPresent,
    Never,
}

/// The three probe kinds, in the order the kubelet gates them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProbeKind {
    Startup,
    Readiness,
    Liveness,
}

impl ProbeKind {
    pub const ALL: [ProbeKind; 3] = [ProbeKind::Startup, ProbeKind::Readiness, ProbeKind::Liveness];

    /// As in probe events: `Liveness probe failed: …`.
    pub fn title(self) -> &'static str {
        match self {
            ProbeKind::Startup => "Startup",
            ProbeKind::Readiness => "Readiness",
            ProbeKind::Liveness => "Liveness",
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeKind::Startup => "startup",
            ProbeKind::Readiness => "readiness",
            ProbeKind::Liveness => "liveness",
        }
    }
}

impl fmt::Display for ProbeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A probe port: a number, or the name of one of the container's ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortRef {
    Number(u16),
    Name(String),
}

/// Exactly one probe handler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handler {
    HttpGet { port: PortRef, path: String, scheme: String },
    TcpSocket { port: PortRef },
    Exec { command: Vec<String> },
    Grpc { port: u16, service: String },
}

/// A lifecycle hook handler (`LifecycleHandler`): exactly one action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookHandler {
    Exec {
        command: Vec<String>,
    },
    /// `host` is empty for the pod IP.
    HttpGet {
        port: PortRef,
        path: String,
        scheme: String,
        host: Option<String>,
    },
    Sleep {
        duration: SimDuration,
    },
    /// Accepted by the API server for compatibility; the kubelet cannot run it.
    TcpSocket {
        port: PortRef,
    },
}

/// Which hook, as events and messages name it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HookKind {
    PostStart,
    PreStop,
}

impl HookKind {
    pub fn as_str(self) -> &'static str {
        match self {
            HookKind::PostStart => "PostStart",
            HookKind::PreStop => "PreStop",
        }
    }
}

/// A defaulted probe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeSpec {
    pub handler: Handler,
    pub initial_delay_seconds: u32,
    pub period: SimDuration,
    pub timeout: SimDuration,
    pub success_threshold: u32,
    pub failure_threshold: u32,
    /// Probe-level `terminationGracePeriodSeconds` (liveness and startup only).
    pub termination_grace: Option<SimDuration>,
}

/// A declared container port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerPort {
    pub name: Option<String>,
    pub port: u16,
    /// `TCP` (the default), `UDP` or `SCTP`.
    pub protocol: String,
}

/// What kind of container: the kubelet runs each kind by its own rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// An init container that runs to completion before the next one starts.
    Init,
    /// An init container with `restartPolicy: Always` (a native sidecar):
    /// started in init order, then kept running alongside the regular containers.
    Sidecar,
    /// One of `spec.containers`.
    Regular,
}

impl Role {
    /// Listed in `spec.initContainers` (and `status.initContainerStatuses`).
    pub fn is_init(self) -> bool {
        matches!(self, Role::Init | Role::Sidecar)
    }
}

/// A container of the pod, of any role.
#[derive(Clone, Debug)]
pub struct ContainerSpec {
    pub name: Arc<str>,
    pub role: Role,
    pub image: String,
    /// `command` and `args` as written (the image's ENTRYPOINT and CMD apply
    /// where they are empty).
    pub command: Vec<String>,
    pub args: Vec<String>,
    /// The `env` entries with a literal `value`, in order.
    pub env: Vec<(String, String)>,
    /// Its `volumeMounts`: each mount path with the volume's name.
    pub mounts: Vec<(String, String)>,
    pub pull_policy: PullPolicy,
    pub ports: Vec<ContainerPort>,
    pub startup: Option<ProbeSpec>,
    pub readiness: Option<ProbeSpec>,
    pub liveness: Option<ProbeSpec>,
    pub post_start: Option<HookHandler>,
    pub pre_stop: Option<HookHandler>,
    /// `resources.limits.memory`: its cgroup's `memory.max`, above which the
    /// kernel OOM-kills the container. Requests never kill.
    pub memory_limit: Option<Quantity>,
}

impl ContainerSpec {
    pub fn probe(&self, kind: ProbeKind) -> Option<&ProbeSpec> {
        match kind {
            ProbeKind::Startup => self.startup.as_ref(),
            ProbeKind::Readiness => self.readiness.as_ref(),
            ProbeKind::Liveness => self.liveness.as_ref(),
        }
    }

    /// Resolves a probe port the way the kubelet does (`probe.ResolveContainerPort`):
    /// a name must match one of the container's declared ports.
    pub fn resolve_port(&self, port: &PortRef) -> Option<u16> {
        match port {
            PortRef::Number(n) => Some(*n),
            PortRef::Name(name) => self.ports.iter().find(|p| p.name.as_deref() == Some(name)).map(|p| p.port),
        }
    }

    pub fn hook(&self, kind: HookKind) -> Option<&HookHandler> {
        match kind {
            HookKind::PostStart => self.post_start.as_ref(),
            HookKind::PreStop => self.pre_stop.as_ref(),
        }
    }

    /// The field path events use: `spec.containers{app}`, `spec.initContainers{fetch}`.
    pub fn field_path(&self) -> String {
        let list = if self.role.is_init() { "initContainers" } else { "containers" };
        format!("spec.{list}{{{}}}", self.name)
    }

    /// The declared TCP containerPorts: what its process binds unless told otherwise.
    pub fn declared_tcp_ports(&self) -> impl Iterator<Item = u16> + '_ {
        self.ports.iter().filter(|p| p.protocol == "TCP").map(|p| p.port)
    }
}

/// `status.qosClass`, computed by the API server from requests and limits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QosClass {
    Guaranteed,
    Burstable,
    BestEffort,
}

impl QosClass {
    pub fn as_str(self) -> &'static str {
        match self {
            QosClass::Guaranteed => "Guaranteed",
            QosClass::Burstable => "Burstable",
            QosClass::BestEffort => "BestEffort",
        }
    }
}

/// A Pod as the simulator runs it.
#[derive(Clone, Debug)]
pub struct PodSpec {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub restart_policy: RestartPolicy,
    /// `spec.terminationGracePeriodSeconds` as stored (a negative one is
    /// stored as 1: `Convert_v1_Pod_To_core_Pod`, from 1.37 `SetDefaults_Pod`).
    pub termination_grace: SimDuration,
    /// `spec.activeDeadlineSeconds`: how long the pod may be active on its
    /// node, counted from `status.startTime`.
    pub active_deadline_seconds: Option<i64>,
    /// `spec.nodeName` when the manifest pins the pod to a node.
    pub node_name: Option<String>,
    pub host_network: bool,
    /// Every container: the init containers (run-to-completion and sidecars)
    /// in spec order, then the regular containers in spec order. The kubelet
    /// model refers to a container by its index here.
    pub containers: Vec<ContainerSpec>,
    /// `spec.readinessGates[].conditionType`.
    pub readiness_gates: Vec<String>,
    /// What its containers' environment and its volumes read from ConfigMaps and Secrets.
    pub config: Arc<ConfigNeeds>,
    /// The PersistentVolumeClaims its volumes name (`persistentVolumeClaim.claimName`).
    pub claims: Vec<Arc<str>>,
    pub qos: QosClass,
    /// What the scheduler counts it as asking of a node.
    pub requests: resources::PodRequests,
    /// The ReplicaSet that created it (`ownerReferences[controller=true]`).
    pub owner: Option<OwnerRef>,
    /// Its seed-independent name, as milestones name it: `pod/web@rev2#3`
    /// for the third pod of a Deployment's revision 2, `pod/NAME` for a pod
    /// the manifests name. What its timing draws are about
    /// (`rng::Label`): a generated name depends on the seed and on the
    /// order objects were created in, which shrinking changes.
    pub alias: Arc<str>,
    /// The defaulted API object, for rendering the trace's Pod objects.
    pub object: Pod,
}

/// The controller that owns an object (`ownerReferences[controller=true]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerRef {
    pub kind: &'static str,
    pub name: Arc<str>,
    pub uid: Arc<str>,
}

impl PodSpec {
    pub fn container_index(&self, name: &str) -> Option<usize> {
        self.containers.iter().position(|c| &*c.name == name)
    }

    /// The regular containers (`spec.containers`) with their indices.
    pub fn regular(&self) -> impl Iterator<Item = (usize, &ContainerSpec)> {
        self.containers.iter().enumerate().filter(|(_, c)| c.role == Role::Regular)
    }

    /// The init containers (`spec.initContainers`, sidecars included), in order.
    pub fn init(&self) -> impl Iterator<Item = (usize, &ContainerSpec)> {
        self.containers.iter().enumerate().filter(|(_, c)| c.role.is_init())
    }

    pub fn has_init_containers(&self) -> bool {
        self.containers.iter().any(|c| c.role.is_init())
    }

    /// `spec.terminationGracePeriodSeconds` as the API server stores it (a
    /// negative value written in the manifest is stored as 1).
    pub fn stored_grace_seconds(&self) -> i64 {
        self.object.spec.as_ref().and_then(|s| s.termination_grace_period_seconds).unwrap_or(30)
    }
}
