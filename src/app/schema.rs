//! The behaviour of one container instance, as written in a behaviour file.

use crate::dist::Dist;
use crate::source::key_path;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a behaviour: a mapping of `listen`, `ports`, `http`, `exec`, `grpc`, `exit`, `sigterm`, `address_in_use`, `memory`"
)]
pub struct ContainerBehaviour {
    /// Process start → its ports accept connections (default 0s).
    #[serde(default)]
    pub listen: Option<Dist>,
    /// Ports it listens on (default: the container's declared containerPorts).
    #[serde(default)]
    pub ports: Option<Vec<u16>>,
    /// Per HTTP path, the responses over time since the process started.
    #[serde(default)]
    pub http: BTreeMap<String, Vec<HttpPhase>>,
    /// Per exec command (argv joined by single spaces), the exit codes over time.
    #[serde(default)]
    pub exec: BTreeMap<String, Vec<ExecPhase>>,
    /// Per gRPC health service name ("" for the server), the status over time.
    #[serde(default)]
    pub grpc: BTreeMap<String, Vec<Phase<GrpcStatus>>>,
    /// The process ends by itself (absent: runs forever).
    #[serde(default)]
    pub exit: Option<ExitSpec>,
    /// What the process does on SIGTERM (absent: exits 0 at once).
    #[serde(default)]
    pub sigterm: Option<SigtermSpec>,
    /// What the process does when another process of the pod has already
    /// bound one of its ports (absent: exits 1 at once).
    #[serde(default)]
    pub address_in_use: Option<AddressInUseSpec>,
    /// Its resident memory over time since process start (absent: never
    /// above any limit).
    #[serde(default)]
    pub memory: Option<Vec<super::memory::MemoryPhase>>,
    /// The shell script this behaviour was inferred from, when it was: what
    /// SIGTERM does depends on when it arrives (a trap waits for the
    /// foreground `sleep`), so the script answers then (`Plan::sigterm_at`).
    #[serde(skip)]
    pub script: Option<Arc<super::shell::Script>>,
}

/// One stretch of a response schedule: `{until: 10s, status: 503, latency: 5ms}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a stretch such as `{until: 10s, status: SERVING, latency: 5ms}`")]
pub struct Phase<T> {
    /// End of this stretch, since process start; absent on the last one.
    #[serde(default)]
    pub until: Option<Dist>,
    pub status: T,
    /// Time to answer (default 0s).
    #[serde(default)]
    pub latency: Option<Dist>,
    /// Applies once the process has received SIGTERM, whatever the time.
    #[serde(default)]
    pub after_sigterm: bool,
    /// Applies once the container's preStop hook has started (e.g. after a
    /// `/drain` call), until SIGTERM.
    #[serde(default)]
    pub after_prestop: bool,
}

/// An HTTP stretch: `{until: 10s, status: 302, location: /login, latency: 5ms}`,
/// or a relay: `{forward: {port: 9080, path: /health}, latency: 1ms}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "RawHttpPhase")]
pub struct HttpPhase {
    pub until: Option<Dist>,
    pub answer: HttpAnswerSpec,
    /// Time to answer (default 0s); a relay's own time, added to the relayed request's.
    pub latency: Option<Dist>,
    pub after_sigterm: bool,
    pub after_prestop: bool,
}

/// What an HTTP stretch answers.
#[derive(Clone, Debug)]
pub enum HttpAnswerSpec {
    /// A status, with the `Location` header of a redirect: a path, or an absolute URL.
    Status { status: u16, location: Option<Arc<str>> },
    /// The request is relayed to another port and path of the pod's network namespace.
    Forward(Forward),
}

/// `{port: 9080, path: /health, timeout: 1s}`: where a relay sends the request,
/// and the timeout of its own client (absent: none).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a relay such as `{port: 9080, path: /health, timeout: 1s}`")]
pub struct Forward {
    pub port: Port,
    pub path: Arc<str>,
    #[serde(default)]
    pub timeout: Option<Dist>,
}

/// A TCP port: 1 to 65535, else the API server's message.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "i64")]
pub struct Port(pub u16);

impl TryFrom<i64> for Port {
    type Error = String;
    fn try_from(n: i64) -> Result<Port, String> {
        u16::try_from(n)
            .ok()
            .filter(|p| *p != 0)
            .map(Port)
            .ok_or_else(|| format!("{n}: must be between 1 and 65535, inclusive"))
    }
}

/// An HTTP stretch as written, before `status` and `forward` are told apart.
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a stretch such as `{until: 10s, status: 503, latency: 5ms}` or `{forward: {port: 9080, path: /health}}`"
)]
struct RawHttpPhase {
    #[serde(default)]
    until: Option<Dist>,
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    location: Option<Arc<str>>,
    #[serde(default)]
    forward: Option<Forward>,
    #[serde(default)]
    latency: Option<Dist>,
    #[serde(default)]
    after_sigterm: bool,
    #[serde(default)]
    after_prestop: bool,
}

impl TryFrom<RawHttpPhase> for HttpPhase {
    type Error = &'static str;
    fn try_from(r: RawHttpPhase) -> Result<HttpPhase, &'static str> {
        let answer = match (r.status, r.forward, r.location) {
            (Some(status), None, location) => HttpAnswerSpec::Status { status, location },
            (None, Some(forward), None) => HttpAnswerSpec::Forward(forward),
            (None, Some(_), Some(_)) => {
                return Err("`location` goes with a `status`: a relay answers with the status its request got");
            }
            (Some(_), Some(_), _) => {
                return Err(
                    "`status` and `forward` exclude each other: a relay answers with the status its request got",
                );
            }
            (None, None, _) => return Err("missing field `status` (or `forward`, to relay the request)"),
        };
        let RawHttpPhase { until, latency, after_sigterm, after_prestop, .. } = r;
        Ok(HttpPhase { until, answer, latency, after_sigterm, after_prestop })
    }
}

/// The statuses Go's HTTP client follows a `Location` on (`redirectBehavior`).
pub const REDIRECT_STATUSES: [u16; 5] = [301, 302, 303, 307, 308];

/// An exec stretch: `{until: 30s, exit: 0, latency: 10ms}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a stretch such as `{until: 30s, exit: 0, latency: 10ms}`")]
pub struct ExecPhase {
    #[serde(default)]
    pub until: Option<Dist>,
    pub exit: i32,
    /// What the command prints (stdout then stderr), shown in probe events.
    #[serde(default)]
    pub output: Option<Arc<str>>,
    #[serde(default)]
    pub latency: Option<Dist>,
    #[serde(default)]
    pub after_sigterm: bool,
    #[serde(default)]
    pub after_prestop: bool,
}

/// The statuses of the standard gRPC health service.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
pub enum GrpcStatus {
    #[serde(rename = "SERVING")]
    Serving,
    #[serde(rename = "NOT_SERVING")]
    NotServing,
    #[serde(rename = "UNKNOWN")]
    Unknown,
    #[serde(rename = "SERVICE_UNKNOWN")]
    ServiceUnknown,
}

impl GrpcStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            GrpcStatus::Serving => "SERVING",
            GrpcStatus::NotServing => "NOT_SERVING",
            GrpcStatus::Unknown => "UNKNOWN",
            GrpcStatus::ServiceUnknown => "SERVICE_UNKNOWN",
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping such as `{after: 1s, code: 1}`")]
pub struct ExitSpec {
    pub after: Dist,
    #[serde(default)]
    pub code: i32,
}

/// `{exit_after: 3s, code: 0}`, `{ignore: true}`, with `stop_listening: true`
/// when the process closes its listening sockets as soon as SIGTERM arrives.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping such as `{exit_after: 3s, code: 0}` or `{ignore: true}` (with `stop_listening: true` to close its sockets at once)"
)]
pub struct SigtermSpec {
    #[serde(default)]
    pub exit_after: Option<Dist>,
    #[serde(default)]
    pub code: Option<i32>,
    #[serde(default)]
    pub ignore: bool,
    /// New connections are refused from SIGTERM on (requests in flight finish).
    #[serde(default)]
    pub stop_listening: bool,
}

/// `{exit_after: 2s, code: 1}` or `{ignore: true}`: what the process does when
/// its `bind()` fails with EADDRINUSE because another container of the pod
/// (one network namespace) already listens on the port.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping such as `{exit_after: 0s, code: 1}` or `{ignore: true}`")]
pub struct AddressInUseSpec {
    #[serde(default)]
    pub exit_after: Option<Dist>,
    #[serde(default)]
    pub code: Option<i32>,
    /// It keeps running, listening on the ports it could bind.
    #[serde(default)]
    pub ignore: bool,
}

/// When a schedule entry applies.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Moment {
    /// By time since process start (`until`).
    Timed,
    AfterPrestop,
    AfterSigterm,
}

/// Anything with an `until` can be checked the same way.
pub trait Stretch {
    fn until(&self) -> Option<&Dist>;
    fn moment(&self) -> Moment;
}

fn moment(after_sigterm: bool, after_prestop: bool) -> Moment {
    match (after_sigterm, after_prestop) {
        (true, _) => Moment::AfterSigterm,
        (_, true) => Moment::AfterPrestop,
        _ => Moment::Timed,
    }
}

impl Stretch for HttpPhase {
    fn until(&self) -> Option<&Dist> {
        self.until.as_ref()
    }
    fn moment(&self) -> Moment {
        moment(self.after_sigterm, self.after_prestop)
    }
}
impl<T> Stretch for Phase<T> {
    fn until(&self) -> Option<&Dist> {
        self.until.as_ref()
    }
    fn moment(&self) -> Moment {
        moment(self.after_sigterm, self.after_prestop)
    }
}
impl Stretch for ExecPhase {
    fn until(&self) -> Option<&Dist> {
        self.until.as_ref()
    }
    fn moment(&self) -> Moment {
        moment(self.after_sigterm, self.after_prestop)
    }
}

impl ContainerBehaviour {
    /// Checks what serde cannot: schedule shapes, code ranges, contradictions.
    /// Returns (field path relative to this behaviour, message).
    pub fn check(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (path, phases) in &self.http {
            let field = key_path("http", path);
            check_schedule(&field, phases, &mut out);
            for (i, p) in phases.iter().enumerate() {
                match &p.answer {
                    HttpAnswerSpec::Status { status, location } => {
                        if !(100..=599).contains(status) {
                            out.push((
                                format!("{field}[{i}].status"),
                                format!("{status}: an HTTP status is between 100 and 599"),
                            ));
                        }
                        if let Some(location) = location {
                            let at = format!("{field}[{i}].location");
                            if !(300..=399).contains(status) {
                                out.push((
                                    at.clone(),
                                    format!("{status}: a `location` belongs to a redirect (a 3xx status)"),
                                ));
                            }
                            if let Err(e) = crate::kubelet::http_client::check_location(location) {
                                out.push((at, e));
                            }
                        }
                    }
                    HttpAnswerSpec::Forward(f) => {
                        if !f.path.starts_with('/') {
                            out.push((
                                format!("{field}[{i}].forward.path"),
                                format!("{:?}: a relayed path starts with `/`", f.path),
                            ));
                        }
                    }
                }
            }
        }
        for (cmd, phases) in &self.exec {
            let field = key_path("exec", cmd);
            check_schedule(&field, phases, &mut out);
            for (i, p) in phases.iter().enumerate() {
                check_exit_code(format!("{field}[{i}].exit"), p.exit, &mut out);
            }
        }
        for (svc, phases) in &self.grpc {
            check_schedule(&key_path("grpc", svc), phases, &mut out);
        }
        if let Some(ports) = &self.ports {
            for (i, p) in ports.iter().enumerate() {
                if *p == 0 {
                    out.push((format!("ports[{i}]"), "0: must be between 1 and 65535, inclusive".into()));
                }
            }
        }
        if let Some(exit) = &self.exit {
            check_exit_code("exit.code".into(), exit.code, &mut out);
        }
        if let Some(s) = &self.sigterm {
            if s.ignore && (s.exit_after.is_some() || s.code.is_some() || s.stop_listening) {
                out.push((
                    "sigterm".into(),
                    "`ignore: true` cannot be combined with `exit_after`, `code` or `stop_listening`".into(),
                ));
            }
            if let Some(code) = s.code {
                check_exit_code("sigterm.code".into(), code, &mut out);
            }
        }
        if let Some(memory) = &self.memory {
            check_schedule("memory", memory, &mut out);
        }
        if let Some(a) = &self.address_in_use {
            if a.ignore && (a.exit_after.is_some() || a.code.is_some()) {
                out.push((
                    "address_in_use".into(),
                    "`ignore: true` cannot be combined with `exit_after` or `code`".into(),
                ));
            }
            if let Some(code) = a.code {
                check_exit_code("address_in_use.code".into(), code, &mut out);
            }
        }
        out
    }
}

impl ContainerBehaviour {
    /// What the file says that the kubelet would not act on: a `location` on
    /// a 3xx that Go's HTTP client does not follow (300, 304, 305, 306):
    /// `redirectBehavior` returns that response itself, and the kubelet's
    /// prober takes it as a success with a `ProbeWarning`.
    /// Returns (field path relative to this behaviour, message).
    pub fn warnings(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (path, phases) in &self.http {
            for (i, p) in phases.iter().enumerate() {
                if let HttpAnswerSpec::Status { status, location: Some(_) } = p.answer
                    && (300..=399).contains(&status)
                    && !REDIRECT_STATUSES.contains(&status)
                {
                    out.push((
                        format!("{}[{i}].location", key_path("http", path)),
                        format!(
                            "ignored: Go's HTTP client follows a `location` only on 301, 302, 303, 307 and 308 (`redirectBehavior`), so a {status} is itself the response: a success with a ProbeWarning for a probe"
                        ),
                    ));
                }
            }
        }
        out
    }
}

/// An exit code a process can have: 0–255.
fn check_exit_code(field: String, code: i32, out: &mut Vec<(String, String)>) {
    if !(0..=255).contains(&code) {
        out.push((field, format!("{code}: an exit code is between 0 and 255")));
    }
}

/// Every timed stretch but the last needs `until`; fixed `until`s must
/// increase; `after_sigterm`/`after_prestop` entries stand apart, at most
/// one of each, without `until`.
fn check_schedule<S: Stretch>(field: &str, phases: &[S], out: &mut Vec<(String, String)>) {
    if phases.is_empty() {
        out.push((field.to_string(), "a schedule needs at least one entry".into()));
        return;
    }
    let mut seen = Vec::new();
    for (i, p) in phases.iter().enumerate() {
        let m = p.moment();
        if m == Moment::Timed {
            continue;
        }
        let name = if m == Moment::AfterSigterm { "after_sigterm" } else { "after_prestop" };
        if p.until().is_some() {
            out.push((
                format!("{field}[{i}].until"),
                format!("an `{name}` entry applies from that moment on: it takes no `until`"),
            ));
        }
        if seen.contains(&m) {
            out.push((format!("{field}[{i}]"), format!("only one entry may be `{name}`")));
        }
        seen.push(m);
    }
    let timed: Vec<(usize, &S)> = phases.iter().enumerate().filter(|(_, p)| p.moment() == Moment::Timed).collect();
    let Some(&(last, _)) = timed.last() else {
        out.push((
            field.to_string(),
            "a schedule needs an entry for normal times (one without `after_sigterm` or `after_prestop`)".into(),
        ));
        return;
    };
    let mut previous = None;
    for (i, p) in timed {
        match (p.until(), i == last) {
            (None, false) => out.push((
                format!("{field}[{i}]"),
                "only the last entry may omit `until` (later entries could never apply)".into(),
            )),
            (Some(_), true) => out.push((
                format!("{field}[{i}].until"),
                "the last entry must not have `until`: it says what the app answers from then on".into(),
            )),
            (Some(Dist::Fixed(d)), false) => {
                if previous.is_some_and(|p| *d <= p) {
                    out.push((format!("{field}[{i}].until"), format!("{d}: `until` times must increase")));
                }
                previous = Some(*d);
            }
            _ => {}
        }
    }
}
