//! Lifecycle hooks (pkg/kubelet/lifecycle/handlers.go, `handlerRunner.Run`):
//! running a postStart or preStop handler against a container's process —
//! how long it takes and whether it fails, with the kubelet's messages.
//!
//! Hooks have no timeout of their own. An httpGet hook fails only when the
//! request does (any HTTP status counts as success, unlike probes); it dials
//! the pod IP, so whichever container bound the port answers, and follows
//! same-host redirects as probes do. An exec hook fails on a non-zero exit;
//! a sleep hook does not fail.

use super::http_client::{self, Hop, Url};
use super::netns::NetnsId;
use super::probing;
use crate::kubelet::runtime::{InstId, Instance, Runtime};
use crate::rng::Stream;
use crate::spec::{ContainerSpec, HookHandler, PortRef};
use crate::time::{SimDuration, SimTime};

/// The outcome of one hook run, known when it starts (unless a process it
/// waits on dies first: see `cuts`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookRun {
    pub took: SimDuration,
    /// The handler's message when it fails (shown as a PostStartHookError).
    pub error: Option<String>,
    /// The processes the hook waits on, and how it fails if one dies meanwhile.
    pub cuts: Vec<Cut>,
}

/// An exec hook waits on its container's process, an httpGet hook on each
/// process that answers one of its requests: if `server` dies between
/// `from` and `to` after the hook started, the hook ends then with `error`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    pub server: InstId,
    pub from: SimDuration,
    pub to: SimDuration,
    pub error: String,
}

impl HookRun {
    /// The error of the hook if `inst` dies `at` after the hook started.
    pub fn cut_by(&self, inst: InstId, at: SimDuration) -> Option<&str> {
        self.cuts.iter().find(|c| c.server == inst && c.from <= at && at <= c.to).map(|c| c.error.as_str())
    }
}

/// What a hook runs against.
pub struct Target<'a> {
    pub container: &'a ContainerSpec,
    /// `format.Pod`: `name_namespace(uid)`.
    pub pod: &'a str,
    /// `GetPodStatus(…).IPs[0]`: the IP the runtime reports for the pod's
    /// ready sandbox — none for a hostNetwork one (see `Sandbox::reported_ip`).
    pub ip: Option<&'a str>,
    /// The runtime's pod status as `%v` prints it when it has no IP.
    pub status: &'a RuntimeStatus<'a>,
    pub netns: Option<NetnsId>,
    pub inst: InstId,
    pub instance: &'a Instance,
    /// The node's runtime: an httpGet hook reaches whichever process bound its port.
    pub runtime: &'a Runtime,
    pub now: SimTime,
    /// `ExecSync` setup before the command answers.
    pub exec_overhead: SimDuration,
}

/// The runtime's view of the pod (`kubecontainer.PodStatus`), for the
/// error of an httpGet hook that finds no IP in it.
pub struct RuntimeStatus<'a> {
    pub uid: &'a str,
    pub name: &'a str,
    pub namespace: &'a str,
}

impl RuntimeStatus<'_> {
    /// `failed to find networking container: %v` of `*PodStatus`: `&{ID Name
    /// Namespace IPs …}`. The fields after the empty IPs (pointers to the
    /// container statuses, the sandbox's CRI status, a timestamp) depend on
    /// the kubelet's memory and clock: podsim writes them as `…`.
    fn no_ip_error(&self) -> String {
        format!("failed to find networking container: &{{{} {} {} [] …}}", self.uid, self.name, self.namespace)
    }
}

/// Go's `%v` of a string slice: `[sh -c exit 3]`.
fn go_slice(items: &[String]) -> String {
    format!("[{}]", items.join(" "))
}

/// `handlerRunner.Run`.
pub fn run(handler: &HookHandler, t: &Target<'_>, rng: &mut Stream) -> HookRun {
    let name = &t.container.name;
    let alive = t.instance.is_running();
    match handler {
        HookHandler::Exec { command } => {
            let joined = command.join(" ");
            let message = |err: String, output: &str| {
                format!(
                    "Exec lifecycle hook ({}) for Container {name:?} in Pod {:?} failed - error: {err}, message: {output:?}",
                    go_slice(command),
                    t.pod
                )
            };
            // The command is killed with the container: exit 137.
            let killed = message(format!("command '{joined}' exited with 137: "), "");
            let cuts = |took| vec![Cut { server: t.inst, from: SimDuration::ZERO, to: took, error: killed.clone() }];
            if !alive {
                let err = "rpc error: code = Unknown desc = failed to exec in container: container is in CONTAINER_EXITED state";
                let error = Some(message(err.to_string(), ""));
                return HookRun { took: SimDuration::ZERO, error, cuts: cuts(SimDuration::ZERO) };
            }
            let i = t.instance;
            let answer = i.plan.exec(&joined, i.age(t.now), i.moments, rng);
            let took = t.exec_overhead + answer.latency;
            // The error carries the command's stderr, the message all its
            // output; a behaviour gives one `output`, taken as stdout.
            let error = (answer.code != 0).then(|| {
                let out = answer.output.as_deref().unwrap_or("");
                message(format!("command '{joined}' exited with {}: ", answer.code), out)
            });
            HookRun { took, error, cuts: cuts(took) }
        }
        // `runHTTPHandler`: a GET to the pod IP, with the prober's redirect
        // policy and no timeout; any status succeeds. Without an IP in the
        // runtime's status (a hostNetwork pod, kubernetes#134285) it fails
        // before any request.
        HookHandler::HttpGet { port, path, scheme, .. } => {
            let message = |err: String| {
                format!("HTTP lifecycle hook ({path}) for Container {name:?} in Pod {:?} failed - error: {err}", t.pod)
            };
            let Some(ip) = t.ip else {
                let error = Some(message(t.status.no_ip_error()));
                return HookRun { took: SimDuration::ZERO, error, cuts: Vec::new() };
            };
            let Some(port) = t.container.resolve_port(port) else {
                let error = Some(message(probing::unresolved_port(port)));
                return HookRun { took: SimDuration::ZERO, error, cuts: Vec::new() };
            };
            let url = Url::new(scheme, ip, port, path);
            let mut cuts = Vec::new();
            let send = |u: &Url<'_>, elapsed| probing::send(t.runtime, t.netns, u, t.now + elapsed, rng);
            let eof = |h: Hop<'_, '_, InstId>| {
                let error = message(format!("Get {:?}: EOF", h.url.to_string()));
                cuts.push(Cut { server: h.server, from: h.from, to: h.to, error });
            };
            let fetched = http_client::get(url, None, send, eof);
            HookRun { took: fetched.took, error: fetched.got.error().map(message), cuts }
        }
        HookHandler::Sleep { duration } => HookRun { took: *duration, error: None, cuts: Vec::new() },
        HookHandler::TcpSocket { port } => {
            // The API server accepts it for compatibility; the kubelet has no runner for it.
            let port = match port {
                PortRef::Number(n) => format!("{{0 {n} }}"),
                PortRef::Name(n) => format!("{{1 0 {n}}}"),
            };
            let handler = format!(
                "&LifecycleHandler{{Exec:nil,HTTPGet:nil,TCPSocket:&TCPSocketAction{{Port:{port},Host:,}},Sleep:nil,}}"
            );
            HookRun {
                took: SimDuration::ZERO,
                error: Some(format!("Cannot run handler: invalid handler: {handler}")),
                cuts: Vec::new(),
            }
        }
    }
}
