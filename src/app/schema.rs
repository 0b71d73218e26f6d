//! The behaviour of one container instance, as written in a behaviour file.

use crate::dist::Dist;
use crate::source::key_path;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContainerBehaviour {
    /// Process start → its ports accept connections (default 0s).
    #[serde(default)]
    pub listen: Option<Dist>,
    /// Ports it listens on (default: the container's declared containerPorts).
    #[serde(default)]
    pub ports: Option<Vec<u16>>,
    /// Per HTTP path, the responses over time since the process started.
    #[serde(default)]
    pub http: BTreeMap<String, Vec<Phase<u16>>>,
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
}

/// One stretch of a response schedule: `{until: 10s, status: 503, latency: 5ms}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Phase<T> {
    /// End of this stretch, since process start; absent on the last one.
    #[serde(default)]
    pub until: Option<Dist>,
    pub status: T,
    /// Time to answer (default 0s).
    #[serde(default)]
    pub latency: Option<Dist>,
}

/// An exec stretch: `{until: 30s, exit: 0, latency: 10ms}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecPhase {
    #[serde(default)]
    pub until: Option<Dist>,
    pub exit: i32,
    /// What the command prints (stdout then stderr), shown in probe events.
    #[serde(default)]
    pub output: Option<Arc<str>>,
    #[serde(default)]
    pub latency: Option<Dist>,
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
#[serde(deny_unknown_fields)]
pub struct ExitSpec {
    pub after: Dist,
    #[serde(default)]
    pub code: i32,
}

/// `{exit_after: 3s, code: 0}` or `{ignore: true}`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SigtermSpec {
    #[serde(default)]
    pub exit_after: Option<Dist>,
    #[serde(default)]
    pub code: Option<i32>,
    #[serde(default)]
    pub ignore: bool,
}

/// Anything with an `until` can be checked the same way.
pub trait Stretch {
    fn until(&self) -> Option<&Dist>;
}
impl<T> Stretch for Phase<T> {
    fn until(&self) -> Option<&Dist> {
        self.until.as_ref()
    }
}
impl Stretch for ExecPhase {
    fn until(&self) -> Option<&Dist> {
        self.until.as_ref()
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
                if !(100..=599).contains(&p.status) {
                    out.push((
                        format!("{field}[{i}].status"),
                        format!("{}: an HTTP status is between 100 and 599", p.status),
                    ));
                }
            }
        }
        for (cmd, phases) in &self.exec {
            let field = key_path("exec", cmd);
            check_schedule(&field, phases, &mut out);
            for (i, p) in phases.iter().enumerate() {
                if !(0..=255).contains(&p.exit) {
                    out.push((format!("{field}[{i}].exit"), format!("{}: an exit code is between 0 and 255", p.exit)));
                }
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
        if let Some(exit) = &self.exit
            && !(0..=255).contains(&exit.code)
        {
            out.push(("exit.code".into(), format!("{}: an exit code is between 0 and 255", exit.code)));
        }
        if let Some(s) = &self.sigterm {
            if s.ignore && (s.exit_after.is_some() || s.code.is_some()) {
                out.push(("sigterm".into(), "`ignore: true` cannot be combined with `exit_after` or `code`".into()));
            }
            if let Some(code) = s.code
                && !(0..=255).contains(&code)
            {
                out.push(("sigterm.code".into(), format!("{code}: an exit code is between 0 and 255")));
            }
        }
        out
    }
}

/// Every stretch but the last needs `until`; fixed `until`s must increase.
fn check_schedule<S: Stretch>(field: &str, phases: &[S], out: &mut Vec<(String, String)>) {
    if phases.is_empty() {
        out.push((field.to_string(), "a schedule needs at least one entry".into()));
        return;
    }
    let last = phases.len() - 1;
    let mut previous = None;
    for (i, p) in phases.iter().enumerate() {
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
