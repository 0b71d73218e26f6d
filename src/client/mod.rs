//! Clients: HTTP requests sent at scenario times from a node or a pod, to a
//! Service's cluster IP or straight to a pod's IP, and what each one got.

use crate::dist::Dist;
use crate::ids::PodId;
use crate::ids::ServiceId;
use crate::rng::{Label, What};
use crate::time::{SimDuration, SimTime};
use std::sync::Arc;

/// Where a client runs: its requests leave through that node's kube-proxy rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A process on the node itself (source IP: the node's).
    Node(Arc<str>),
    /// A process in a pod (source IP: the pod's; it needs one to send).
    Pod(PodId),
}

/// What a client sends to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The cluster IP and the port at `spec.ports[port]`.
    Service { service: ServiceId, port: usize },
    /// The pod's IP, as the API shows it when the request leaves.
    Pod { pod: PodId, port: u16 },
}

/// A client and its requests' send times.
#[derive(Clone, Debug, PartialEq)]
pub struct Client {
    pub name: Arc<str>,
    pub from: Source,
    /// `node/node-1` or `pod/curl`, as each request records it.
    pub source: Arc<str>,
    pub to: Target,
    /// As written: `service/web:8080`, `pod/web:8080`.
    pub target: Arc<str>,
    pub path: Arc<str>,
    pub schedule: Schedule,
    /// The client gives up after this (no answer: a timeout).
    pub timeout: SimDuration,
}

/// When a client sends.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    /// At these times.
    At(Vec<SimTime>),
    /// From `start`, then after each gap drawn from `every`, `count` times
    /// (until the run ends if `None`).
    Every { start: SimTime, every: Dist, count: Option<u32> },
}

impl Schedule {
    /// The time of request `n` (1-based) given request `n - 1` left at
    /// `previous`, or `None` when the client is done. `client` names the
    /// gap's draw (`client/NAME`).
    pub fn next(
        &self,
        n: u32,
        previous: Option<SimTime>,
        rng: &mut crate::rng::Stream,
        client: &str,
    ) -> Option<SimTime> {
        match self {
            Schedule::At(times) => times.get(n as usize - 1).copied(),
            Schedule::Every { count: Some(c), .. } if n > *c => None,
            Schedule::Every { start, every, .. } => match previous {
                None => Some(*start),
                Some(p) => {
                    let label =
                        || Label::new(What::ClientInterval, format!("client/{client}")).with(format!("request {n}"));
                    Some(p + every.sample(rng, label).max(SimDuration::from_millis(1)))
                }
            },
        }
    }
}

/// Why a connection was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// kube-proxy's REJECT: the Service has no usable endpoint.
    NoEndpoints { rule: String },
    /// The pod's kernel answered RST: nothing listens on the port.
    NotListening,
}

/// Why no answer came in time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Silence {
    /// The node's kube-proxy has no rule for the cluster IP yet.
    NotProgrammed,
    /// kube-proxy's DROP: Local policy, no endpoint on this node.
    NoLocalEndpoints { rule: String },
    /// The connection was made but the answer took too long.
    Slow,
    /// The pod IP does not answer ARP, and the client gave up first.
    NoRoute,
    /// The pod's node is down: nothing there answers.
    NodeDown { node: Arc<str> },
}

/// What one request got: exactly one of these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Http {
        status: u16,
    },
    Refused(Refusal),
    /// The process died with the request in flight.
    Reset,
    /// `No route to host`: the pod IP's interface is gone.
    NoRoute,
    Timeout(Silence),
    /// Not sent: the client pod has no IP, or the target pod has none.
    NotSent {
        why: String,
    },
}

impl Outcome {
    /// A short word for JSON and tables.
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Http { .. } => "http",
            Outcome::Refused(_) => "refused",
            Outcome::Reset => "reset",
            Outcome::NoRoute => "no-route",
            Outcome::Timeout(_) => "timeout",
            Outcome::NotSent { .. } => "not-sent",
        }
    }

    /// Why it ended so, in words.
    pub fn detail(&self) -> String {
        match self {
            Outcome::Http { .. } => String::new(),
            Outcome::Refused(Refusal::NoEndpoints { rule }) => {
                format!("kube-proxy REJECT: \"{rule} has no endpoints\"")
            }
            Outcome::Refused(Refusal::NotListening) => "the pod answered RST: nothing listens on the port".into(),
            Outcome::Reset => "the process exited with the request in flight".into(),
            Outcome::NoRoute => "the pod IP's interface is gone (no ARP answer)".into(),
            Outcome::Timeout(Silence::NotProgrammed) => {
                "the node's kube-proxy has no rule for the cluster IP yet: the SYN is lost".into()
            }
            Outcome::Timeout(Silence::NoLocalEndpoints { rule }) => {
                format!("kube-proxy DROP: \"{rule} has no local endpoints\"")
            }
            Outcome::Timeout(Silence::Slow) => "connected, but the answer came after the client's timeout".into(),
            Outcome::Timeout(Silence::NoRoute) => "the pod IP does not answer ARP".into(),
            Outcome::Timeout(Silence::NodeDown { node }) => format!("node/{node} is down: the SYN is lost"),
            Outcome::NotSent { why } => why.clone(),
        }
    }

    /// What the client printed, curl-like.
    pub fn summary(&self) -> String {
        match self {
            Outcome::Http { status } => status.to_string(),
            Outcome::Refused(_) => "connection refused".into(),
            Outcome::Reset => "connection reset by peer".into(),
            Outcome::NoRoute => "no route to host".into(),
            Outcome::Timeout(_) => "timed out".into(),
            Outcome::NotSent { .. } => "not sent".into(),
        }
    }
}

/// One request and its outcome, as the trace records it.
#[derive(Clone, Debug)]
pub struct RequestRecord {
    pub client: Arc<str>,
    /// 1 for the client's first request.
    pub n: u32,
    pub sent: SimTime,
    /// `node/node-1` or `pod/curl`, and the node whose rules routed it.
    pub from: Arc<str>,
    pub node: Option<Arc<str>>,
    pub target: Arc<str>,
    pub path: Arc<str>,
    /// The `IP:port` the connection went to, once known.
    pub endpoint: Option<String>,
    /// The pod that answered or was chosen (name, UID).
    pub pod: Option<(Arc<str>, Arc<str>)>,
    /// kube-proxy picked the endpoint by ClientIP affinity.
    pub sticky: bool,
    pub outcome: Outcome,
}

/// What came back from the pod side of a connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Http {
        status: u16,
    },
    /// RST: the pod is there, nothing listens on the port.
    Refused,
    /// The answering process died before it wrote its response.
    Reset,
    /// No interface has the IP any more.
    NoRoute,
}

/// A reply and the pod it came from (name, UID).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answered {
    pub reply: Reply,
    pub pod: Option<(Arc<str>, Arc<str>)>,
}
