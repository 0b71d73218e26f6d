//! One container instance's process: its behaviour with every random time drawn
//! once at start, and the answers it gives to probes at any moment.

use super::memory::MemoryUse;
use super::schema::{ContainerBehaviour, GrpcStatus, HttpAnswerSpec, Moment, Stretch};
use crate::dist::Dist;
use crate::rng::{Label, Stream, What};
use crate::time::SimDuration;
use std::sync::Arc;

/// An HTTP response, before any timeout is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub latency: SimDuration,
    /// The `Location` header of a redirect.
    pub location: Option<Arc<str>>,
}

/// What a process does with a GET: answer it, or relay it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HttpAnswer {
    Response(HttpResponse),
    /// It sends the request on to `port` and `path` of its own network
    /// namespace, with a client `timeout` of its own, and answers with what
    /// that got, `latency` later (`kubelet::relay`).
    Relay {
        port: u16,
        path: Arc<str>,
        timeout: Option<SimDuration>,
        latency: SimDuration,
    },
}

/// What a gRPC health `Check` gets from a server that accepted the connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GrpcAnswer {
    Status {
        status: GrpcStatus,
        latency: SimDuration,
    },
    /// The server has no health service registered for that name.
    NotFound,
    /// The server does not implement the gRPC health protocol.
    Unimplemented,
}

/// How a command run in the container ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecAnswer {
    pub code: i32,
    pub latency: SimDuration,
    /// What it printed (stdout then stderr).
    pub output: Option<Arc<str>>,
}

/// What has happened to the process that a schedule may react to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Moments {
    /// Its container's preStop hook has started.
    pub prestop: bool,
    /// It has received SIGTERM.
    pub sigterm: bool,
}

/// One response schedule with its random boundaries drawn.
#[derive(Clone, Debug)]
struct Schedule {
    /// Indices of the timed entries, and the drawn `until` of each but the last.
    timed: Vec<usize>,
    untils: Vec<SimDuration>,
    after_prestop: Option<usize>,
    after_sigterm: Option<usize>,
}

impl Schedule {
    /// `label`: each boundary's draw (`answer_change` of the path).
    fn draw<S: Stretch>(entries: &[S], rng: &mut Stream, label: &dyn Fn() -> Label) -> Schedule {
        let find = |m: Moment| entries.iter().position(|e| e.moment() == m);
        let timed: Vec<usize> = (0..entries.len()).filter(|&i| entries[i].moment() == Moment::Timed).collect();
        let untils = untils(timed.iter().map(|&i| entries[i].until()), rng, label);
        Schedule { timed, untils, after_prestop: find(Moment::AfterPrestop), after_sigterm: find(Moment::AfterSigterm) }
    }

    /// The entry in force at `age`, given what happened to the process.
    fn pick(&self, age: SimDuration, m: Moments) -> usize {
        match (m.sigterm.then_some(self.after_sigterm).flatten(), m.prestop.then_some(self.after_prestop).flatten()) {
            (Some(i), _) | (None, Some(i)) => i,
            _ => self.timed[stretch(&self.untils, age)],
        }
    }
}

/// What SIGTERM does to the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnSigterm {
    /// It exits with `code` after `after`.
    Exit { after: SimDuration, code: i32 },
    /// It keeps running until SIGKILL.
    Ignore,
}

/// What the process does when a port it binds is taken (EADDRINUSE).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OnAddressInUse {
    /// It exits with `code` after `after` (nginx, Envoy, Go's `ListenAndServe`: at once).
    Exit { after: SimDuration, code: i32 },
    /// It keeps running on the ports it could bind.
    Ignore,
}

/// What most servers do when `bind()` fails: log "address already in use", exit 1.
const EXIT_ON_ADDRESS_IN_USE: OnAddressInUse = OnAddressInUse::Exit { after: SimDuration::ZERO, code: 1 };

/// One instance's behaviour with its random times drawn.
#[derive(Clone, Debug)]
pub struct Plan {
    behaviour: Option<Arc<ContainerBehaviour>>,
    /// The ports it binds once listening.
    ports: Vec<u16>,
    /// Since process start: when it starts accepting connections.
    pub listen_after: SimDuration,
    /// Since process start: when and how it exits by itself.
    pub exit: Option<(SimDuration, i32)>,
    pub on_sigterm: OnSigterm,
    pub on_address_in_use: OnAddressInUse,
    /// Its resident memory over time (empty: never above any limit).
    pub memory: MemoryUse,
    /// Drawn schedules, per http path / exec command / grpc service, in the
    /// order of the behaviour's maps.
    http: Vec<Schedule>,
    exec: Vec<Schedule>,
    grpc: Vec<Schedule>,
    /// The container its draws are about (`pod/web@rev2#3/app`).
    about: Arc<str>,
}

impl Plan {
    /// Draws the instance's times; `default_ports` are the ports it binds
    /// unless its behaviour names `ports`. `None` is podsim's default app:
    /// binds its default ports at once, answers every request with success,
    /// runs forever, exits 0 on SIGTERM and 1 when a port is taken.
    /// `about` names the container in its draws' labels.
    pub fn draw(
        behaviour: Option<Arc<ContainerBehaviour>>,
        default_ports: &[u16],
        about: Arc<str>,
        rng: &mut Stream,
    ) -> Plan {
        let label = |what: What| Label::new(what, about.clone());
        let Some(b) = behaviour else {
            return Plan {
                behaviour: None,
                ports: default_ports.to_vec(),
                listen_after: SimDuration::ZERO,
                exit: None,
                on_sigterm: OnSigterm::Exit { after: SimDuration::ZERO, code: 0 },
                on_address_in_use: EXIT_ON_ADDRESS_IN_USE,
                memory: MemoryUse::default(),
                http: Vec::new(),
                exec: Vec::new(),
                grpc: Vec::new(),
                about,
            };
        };
        let listen_after = latency(&b.listen, rng, || label(What::Listen));
        let exit = b.exit.as_ref().map(|e| (e.after.sample(rng, || label(What::Exit)), e.code));
        let on_sigterm = match &b.sigterm {
            Some(s) if s.ignore => OnSigterm::Ignore,
            Some(s) => OnSigterm::Exit {
                after: latency(&s.exit_after, rng, || label(What::SigtermExit)),
                code: s.code.unwrap_or(0),
            },
            None => OnSigterm::Exit { after: SimDuration::ZERO, code: 0 },
        };
        let change = |to: String| label(What::AnswerChange).with(to);
        let http = b.http.iter().map(|(k, ps)| Schedule::draw(ps, rng, &|| change(format!("GET {k}")))).collect();
        let exec = b.exec.iter().map(|(k, ps)| Schedule::draw(ps, rng, &|| change(format!("exec {k}")))).collect();
        let grpc = b.grpc.iter().map(|(k, ps)| Schedule::draw(ps, rng, &|| change(grpc_name(k)))).collect();
        let on_address_in_use = match &b.address_in_use {
            None => EXIT_ON_ADDRESS_IN_USE,
            Some(a) if a.ignore => OnAddressInUse::Ignore,
            Some(a) => OnAddressInUse::Exit {
                after: latency(&a.exit_after, rng, || label(What::AddressInUseExit)),
                code: a.code.unwrap_or(1),
            },
        };
        // Drawn last: a behaviour without `memory` draws as it did before it existed.
        let memory = (b.memory.as_deref())
            .map_or_else(MemoryUse::default, |m| MemoryUse::draw(m, rng, &|| label(What::MemoryChange)));
        let ports = b.ports.clone().unwrap_or_else(|| default_ports.to_vec());
        Plan {
            behaviour: Some(b),
            ports,
            listen_after,
            exit,
            on_sigterm,
            on_address_in_use,
            memory,
            http,
            exec,
            grpc,
            about,
        }
    }

    /// The label of a draw about one answer of this process.
    fn answer(&self, what: What, to: String) -> Label {
        Label::new(what, self.about.clone()).with(to)
    }

    /// What SIGTERM does to the process when it arrives at `age`: the
    /// script's answer for a behaviour inferred from one, else the drawn one.
    pub fn sigterm_at(&self, age: SimDuration) -> OnSigterm {
        match self.behaviour.as_ref().and_then(|b| b.script.as_ref()).map(|s| s.sigterm(age)) {
            Some(super::shell::Sigterm::Ignore) => OnSigterm::Ignore,
            Some(super::shell::Sigterm::Exit { after, code }) => OnSigterm::Exit { after, code },
            None => self.on_sigterm,
        }
    }

    /// False for podsim's default app (no behaviour given).
    pub fn has_behaviour(&self) -> bool {
        self.behaviour.is_some()
    }

    /// The ports the process binds once listening.
    pub fn ports(&self) -> &[u16] {
        &self.ports
    }

    /// It closes its listening sockets when SIGTERM arrives (`stop_listening`).
    pub fn closes_on_sigterm(&self) -> bool {
        self.behaviour.as_ref().and_then(|b| b.sigterm.as_ref()).is_some_and(|s| s.stop_listening)
    }

    // Each answer is the one in force when the process has been up for
    // `age`, after `moments`; a latency draw (if any) comes from `rng`. A
    // connection reaches the process only through a port it bound in its
    // pod's network namespace (`kubelet::netns`): here it is accepted.

    /// A GET of `path` (with its query); a path the behaviour does not list answers 404.
    pub fn http(&self, path: &str, age: SimDuration, moments: Moments, rng: &mut Stream) -> HttpAnswer {
        let Some(b) = &self.behaviour else {
            return HttpAnswer::Response(HttpResponse { status: 200, latency: SimDuration::ZERO, location: None });
        };
        let Some(i) = b.http.keys().position(|k| k == path) else {
            return HttpAnswer::Response(HttpResponse { status: 404, latency: SimDuration::ZERO, location: None });
        };
        let p = &b.http[path][self.http[i].pick(age, moments)];
        let latency = latency(&p.latency, rng, || self.answer(What::AnswerLatency, format!("GET {path}")));
        match &p.answer {
            HttpAnswerSpec::Status { status, location } => {
                HttpAnswer::Response(HttpResponse { status: *status, latency, location: location.clone() })
            }
            HttpAnswerSpec::Forward(f) => HttpAnswer::Relay {
                port: f.port.0,
                path: f.path.clone(),
                timeout: (f.timeout.as_ref())
                    .map(|t| t.sample(rng, || self.answer(What::RelayTimeout, format!("GET {path}")))),
                latency,
            },
        }
    }

    /// A health `Check` of `service` ("" for the server).
    pub fn grpc(&self, service: &str, age: SimDuration, moments: Moments, rng: &mut Stream) -> GrpcAnswer {
        let Some(b) = &self.behaviour else {
            return GrpcAnswer::Status { status: GrpcStatus::Serving, latency: SimDuration::ZERO };
        };
        if b.grpc.is_empty() {
            return GrpcAnswer::Unimplemented;
        }
        match b.grpc.keys().position(|k| k == service) {
            Some(i) => {
                let p = &b.grpc[service][self.grpc[i].pick(age, moments)];
                let latency = latency(&p.latency, rng, || self.answer(What::AnswerLatency, grpc_name(service)));
                GrpcAnswer::Status { status: p.status, latency }
            }
            None => GrpcAnswer::NotFound,
        }
    }

    /// `command` (its argv joined by single spaces) run in the container; a
    /// command the behaviour does not list exits 0 at once.
    pub fn exec(&self, command: &str, age: SimDuration, moments: Moments, rng: &mut Stream) -> ExecAnswer {
        let listed = self.behaviour.as_ref().and_then(|b| Some((b, b.exec.keys().position(|k| k == command)?)));
        match listed {
            Some((b, i)) => {
                let phase = &b.exec[command][self.exec[i].pick(age, moments)];
                let latency =
                    latency(&phase.latency, rng, || self.answer(What::AnswerLatency, format!("exec {command}")));
                ExecAnswer { code: phase.exit, latency, output: phase.output.clone() }
            }
            None => ExecAnswer { code: 0, latency: SimDuration::ZERO, output: None },
        }
    }
}

/// `gRPC Check(SERVICE)`, the server's own for "".
fn grpc_name(service: &str) -> String {
    match service {
        "" => "gRPC Check".to_string(),
        s => format!("gRPC Check({s})"),
    }
}

/// Draws a schedule's boundaries; random ones are kept non-decreasing.
pub(super) fn untils<'a>(
    items: impl Iterator<Item = Option<&'a Dist>>,
    rng: &mut Stream,
    label: &dyn Fn() -> Label,
) -> Vec<SimDuration> {
    let mut out: Vec<SimDuration> = Vec::new();
    for u in items.flatten() {
        let d = u.sample(rng, label).max(out.last().copied().unwrap_or(SimDuration::ZERO));
        out.push(d);
    }
    out
}

/// Index of the stretch in force at `age`: the first whose `until` is later.
fn stretch(untils: &[SimDuration], age: SimDuration) -> usize {
    untils.iter().position(|u| age < *u).unwrap_or(untils.len())
}

/// Draws an optional duration; absent is zero.
fn latency(d: &Option<Dist>, rng: &mut Stream, label: impl FnOnce() -> Label) -> SimDuration {
    d.as_ref().map_or(SimDuration::ZERO, |d| d.sample(rng, label))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Behaviours;
    use crate::error::SourceFile;

    fn plan(text: &str) -> Plan {
        let b = Behaviours::load(&Arc::new(SourceFile { name: "a.yaml".into(), text: text.into() })).unwrap();
        Plan::draw(b.for_instance("app", 0), &[8080], Arc::from("t"), &mut Stream::new(1, "t"))
    }

    const M: Moments = Moments { prestop: false, sigterm: false };

    fn http(status: u16) -> HttpAnswer {
        HttpAnswer::Response(HttpResponse { status, latency: SimDuration::ZERO, location: None })
    }

    #[test]
    fn answers_follow_the_schedule() {
        let p = plan(
            "containers:\n  app:\n    listen: 2s\n    http:\n      /ready: [{until: 10s, status: 503}, {status: 302, location: /r2}]\n",
        );
        assert_eq!((p.listen_after, p.ports()), (SimDuration::from_secs(2), &[8080][..]));
        let mut r = Stream::new(1, "r");
        let at = |s: u64| SimDuration::from_secs(s);
        assert_eq!(p.http("/ready", at(2), M, &mut r), http(503));
        assert_eq!(
            p.http("/ready", at(10), M, &mut r),
            HttpAnswer::Response(HttpResponse {
                status: 302,
                latency: SimDuration::ZERO,
                location: Some("/r2".into())
            })
        );
        assert_eq!(p.http("/x", at(10), M, &mut r), http(404));
        assert_eq!(p.exec("true", at(0), M, &mut r), ExecAnswer { code: 0, latency: SimDuration::ZERO, output: None });
        assert_eq!(p.grpc("", at(10), M, &mut r), GrpcAnswer::Unimplemented);
        assert_eq!(p.on_address_in_use, OnAddressInUse::Exit { after: SimDuration::ZERO, code: 1 });
    }

    #[test]
    fn a_forward_entry_is_a_relay_with_its_own_latency_and_timeout() {
        let p = plan(
            "containers:\n  app:\n    http:\n      /readyz: [{until: 5s, status: 503}, {forward: {port: 9080, path: /health, timeout: 1s}, latency: 2ms}]\n",
        );
        let mut r = Stream::new(1, "r");
        assert_eq!(p.http("/readyz", SimDuration::from_secs(1), M, &mut r), http(503));
        let relay = HttpAnswer::Relay {
            port: 9080,
            path: "/health".into(),
            timeout: Some(SimDuration::from_secs(1)),
            latency: SimDuration::from_millis(2),
        };
        assert_eq!(p.http("/readyz", SimDuration::from_secs(5), M, &mut r), relay);
    }

    #[test]
    fn sigterm_and_prestop_entries_take_over() {
        let p = plan(
            "containers:\n  app:\n    http:\n      /ready: [{after_sigterm: true, status: 500}, {until: 10s, status: 503}, {after_prestop: true, status: 429}, {status: 200}]\n",
        );
        let mut r = Stream::new(1, "r");
        let at = |s: u64| SimDuration::from_secs(s);
        let status = |m: Moments, s: u64, r: &mut Stream| match p.http("/ready", at(s), m, r) {
            HttpAnswer::Response(h) => h.status,
            relay => panic!("{relay:?}"),
        };
        assert_eq!(status(M, 5, &mut r), 503);
        assert_eq!(status(M, 50, &mut r), 200);
        assert_eq!(status(Moments { prestop: true, sigterm: false }, 5, &mut r), 429);
        assert_eq!(status(Moments { prestop: true, sigterm: true }, 50, &mut r), 500);
    }

    #[test]
    fn behaviour_ports_and_reactions_override_the_defaults() {
        let p = plan(
            "containers:\n  app:\n    ports: [9090]\n    sigterm: {exit_after: 5s, stop_listening: true}\n    address_in_use: {exit_after: 2s, code: 3}\n",
        );
        assert_eq!(p.ports(), &[9090]);
        assert!(p.closes_on_sigterm());
        assert_eq!(p.on_address_in_use, OnAddressInUse::Exit { after: SimDuration::from_secs(2), code: 3 });
        let kept = plan("containers:\n  app:\n    address_in_use: {ignore: true}\n");
        assert_eq!((kept.ports(), kept.on_address_in_use), (&[8080][..], OnAddressInUse::Ignore));
        assert!(!kept.closes_on_sigterm());
    }

    #[test]
    fn the_default_app_always_succeeds() {
        let p = Plan::draw(None, &[80], Arc::from("t"), &mut Stream::new(1, "t"));
        let mut r = Stream::new(1, "r");
        assert_eq!(p.ports(), &[80]);
        assert_eq!(p.http("/anything", SimDuration::ZERO, M, &mut r), http(200));
        let serving = GrpcAnswer::Status { status: GrpcStatus::Serving, latency: SimDuration::ZERO };
        assert_eq!(p.grpc("any", SimDuration::ZERO, M, &mut r), serving);
        assert_eq!(p.on_sigterm, OnSigterm::Exit { after: SimDuration::ZERO, code: 0 });
        assert_eq!(p.on_address_in_use, OnAddressInUse::Exit { after: SimDuration::ZERO, code: 1 });
    }
}
