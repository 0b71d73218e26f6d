//! Lifecycle hooks (pkg/kubelet/lifecycle/handlers.go, `handlerRunner.Run`):
//! running a postStart or preStop handler against a container's process —
//! how long it takes and whether it fails, with the kubelet's messages.
//!
//! Hooks have no timeout of their own. An httpGet hook fails only when the
//! request does (any HTTP status counts as success, unlike probes); an exec
//! hook fails on a non-zero exit; a sleep hook does not fail.

use crate::app::{Answer, Ask};
use crate::kubelet::runtime::Instance;
use crate::rng::Stream;
use crate::spec::{ContainerSpec, HookHandler, PortRef};
use crate::time::SimDuration;

/// The outcome of one hook run, known when it starts (unless the process
/// dies first: see `on_death`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookRun {
    pub took: SimDuration,
    /// The handler's message when it fails (shown as a PostStartHookError).
    pub error: Option<String>,
    /// An exec or HTTP hook ends early if the process dies: with this error.
    pub on_death: Option<String>,
}

/// What a hook runs against.
pub struct Target<'a> {
    pub container: &'a ContainerSpec,
    /// `format.Pod`: `name_namespace(uid)`.
    pub pod: &'a str,
    pub ip: &'a str,
    pub instance: &'a Instance,
    pub age: SimDuration,
    /// `ExecSync` setup before the command answers.
    pub exec_overhead: SimDuration,
}

/// Go's `%v` of a string slice: `[sh -c exit 3]`.
fn go_slice(items: &[String]) -> String {
    format!("[{}]", items.join(" "))
}

/// `handlerRunner.Run`.
pub fn run(handler: &HookHandler, t: &Target<'_>, rng: &mut Stream) -> HookRun {
    let name = &t.container.name;
    let alive = t.instance.is_running();
    let moments = t.instance.moments;
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
            let on_death = Some(message(format!("command '{joined}' exited with 137: "), ""));
            let fail = |err: String, output: &str, took| HookRun {
                took,
                error: Some(message(err, output)),
                on_death: on_death.clone(),
            };
            if !alive {
                let err = "rpc error: code = Unknown desc = failed to exec in container: container is in CONTAINER_EXITED state";
                return fail(err.to_string(), "", SimDuration::ZERO);
            }
            match t.instance.plan.answer(Ask::Exec { command: &joined }, t.age, moments, rng) {
                Answer::Exit { code: 0, latency, .. } => {
                    HookRun { took: t.exec_overhead + latency, error: None, on_death: on_death.clone() }
                }
                // The error carries the command's stderr, the message all its
                // output; a behaviour gives one `output`, taken as stdout.
                Answer::Exit { code, latency, output } => {
                    let out = output.as_deref().unwrap_or("");
                    fail(format!("command '{joined}' exited with {code}: "), out, t.exec_overhead + latency)
                }
                _ => HookRun { took: t.exec_overhead, error: None, on_death },
            }
        }
        HookHandler::HttpGet { port, path, scheme, .. } => {
            let message = |err: String| {
                format!("HTTP lifecycle hook ({path}) for Container {name:?} in Pod {:?} failed - error: {err}", t.pod)
            };
            let fail = |err: String| HookRun { took: SimDuration::ZERO, error: Some(message(err)), on_death: None };
            let Some(port) = t.container.resolve_port(port) else {
                return fail(super::probing::unresolved_port(port));
            };
            let url = format!("{}://{}:{port}{path}", scheme.to_ascii_lowercase(), t.ip);
            let answer = if alive {
                t.instance.plan.answer(Ask::Http { port, path }, t.age, moments, rng)
            } else {
                Answer::Refused
            };
            match answer {
                Answer::Http { latency, .. } => {
                    HookRun { took: latency, error: None, on_death: Some(message(format!("Get {url:?}: EOF"))) }
                }
                _ => fail(format!("Get {url:?}: dial tcp {}:{port}: connect: connection refused", t.ip)),
            }
        }
        HookHandler::Sleep { duration } => HookRun { took: *duration, error: None, on_death: None },
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
                on_death: None,
            }
        }
    }
}
