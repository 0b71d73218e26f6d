//! One container instance's process: its behaviour with every random time drawn
//! once at start, and the answers it gives to probes at any moment.

use super::schema::{ContainerBehaviour, GrpcStatus, Phase};
use crate::dist::Dist;
use crate::rng::Stream;
use crate::time::SimDuration;
use std::sync::Arc;

/// What a probe (or any client) asks the process.
#[derive(Clone, Copy, Debug)]
pub enum Ask<'a> {
    Http { port: u16, path: &'a str },
    Tcp { port: u16 },
    Grpc { port: u16, service: &'a str },
    Exec { command: &'a str },
}

/// What the process answers, before any timeout is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Nothing listens on the port (yet): the connection is refused at once.
    Refused,
    /// A TCP connection was accepted.
    Accepted,
    Http {
        status: u16,
        latency: SimDuration,
    },
    Grpc {
        status: GrpcStatus,
        latency: SimDuration,
    },
    /// The gRPC server has no health service registered for that name.
    GrpcNotFound,
    /// The server does not implement the gRPC health protocol.
    GrpcUnimplemented,
    Exit {
        code: i32,
        latency: SimDuration,
        output: Option<Arc<str>>,
    },
}

/// What SIGTERM does to the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnSigterm {
    /// It exits with `code` after `after`.
    Exit { after: SimDuration, code: i32 },
    /// It keeps running until SIGKILL.
    Ignore,
}

/// One instance's behaviour with its random times drawn.
#[derive(Clone, Debug)]
pub struct Plan {
    behaviour: Option<Arc<ContainerBehaviour>>,
    /// The ports it listens on once listening.
    ports: Vec<u16>,
    /// Since process start: when it starts accepting connections.
    pub listen_after: SimDuration,
    /// Since process start: when and how it exits by itself.
    pub exit: Option<(SimDuration, i32)>,
    pub on_sigterm: OnSigterm,
    /// Drawn `until`s, per http path / exec command / grpc service, in the
    /// order of the behaviour's maps.
    http_untils: Vec<Vec<SimDuration>>,
    exec_untils: Vec<Vec<SimDuration>>,
    grpc_untils: Vec<Vec<SimDuration>>,
}

impl Plan {
    /// Draws the instance's times. `None` is podsim's default app: listens at
    /// once on every port, every probe succeeds, runs forever, exits 0 on SIGTERM.
    pub fn draw(behaviour: Option<Arc<ContainerBehaviour>>, declared_ports: &[u16], rng: &mut Stream) -> Plan {
        let Some(b) = behaviour else {
            return Plan {
                behaviour: None,
                ports: Vec::new(),
                listen_after: SimDuration::ZERO,
                exit: None,
                on_sigterm: OnSigterm::Exit { after: SimDuration::ZERO, code: 0 },
                http_untils: Vec::new(),
                exec_untils: Vec::new(),
                grpc_untils: Vec::new(),
            };
        };
        let listen_after = latency(&b.listen, rng);
        let exit = b.exit.as_ref().map(|e| (e.after.sample(rng), e.code));
        let on_sigterm = match &b.sigterm {
            Some(s) if s.ignore => OnSigterm::Ignore,
            Some(s) => OnSigterm::Exit { after: latency(&s.exit_after, rng), code: s.code.unwrap_or(0) },
            None => OnSigterm::Exit { after: SimDuration::ZERO, code: 0 },
        };
        let http_untils = b.http.values().map(|ps| untils(ps.iter().map(|p| &p.until), rng)).collect();
        let exec_untils = b.exec.values().map(|ps| untils(ps.iter().map(|p| &p.until), rng)).collect();
        let grpc_untils = b.grpc.values().map(|ps| untils(ps.iter().map(|p| &p.until), rng)).collect();
        let ports = b.ports.clone().unwrap_or_else(|| declared_ports.to_vec());
        Plan { behaviour: Some(b), ports, listen_after, exit, on_sigterm, http_untils, exec_untils, grpc_untils }
    }

    /// False for podsim's default app (no behaviour given).
    pub fn has_behaviour(&self) -> bool {
        self.behaviour.is_some()
    }

    /// The ports the process listens on (behaviour apps only).
    pub fn ports(&self) -> &[u16] {
        &self.ports
    }

    /// The answer to `ask` when the process has been up for `age`; the latency
    /// draw (if any) comes from `rng`.
    pub fn answer(&self, ask: Ask<'_>, age: SimDuration, rng: &mut Stream) -> Answer {
        let Some(b) = &self.behaviour else {
            return match ask {
                Ask::Http { .. } => Answer::Http { status: 200, latency: SimDuration::ZERO },
                Ask::Tcp { .. } => Answer::Accepted,
                Ask::Grpc { .. } => Answer::Grpc { status: GrpcStatus::Serving, latency: SimDuration::ZERO },
                Ask::Exec { .. } => Answer::Exit { code: 0, latency: SimDuration::ZERO, output: None },
            };
        };
        let listening = |port: u16| age >= self.listen_after && self.ports.contains(&port);
        match ask {
            Ask::Exec { command } => match b.exec.iter().position(|(k, _)| k == command) {
                Some(i) => {
                    let phase = &b.exec[command][stretch(&self.exec_untils[i], age)];
                    Answer::Exit {
                        code: phase.exit,
                        latency: latency(&phase.latency, rng),
                        output: phase.output.clone(),
                    }
                }
                None => Answer::Exit { code: 0, latency: SimDuration::ZERO, output: None },
            },
            _ if !listening(port_of(ask)) => Answer::Refused,
            Ask::Tcp { .. } => Answer::Accepted,
            Ask::Http { path, .. } => match b.http.keys().position(|k| k == path) {
                Some(i) => {
                    let p: &Phase<u16> = &b.http[path][stretch(&self.http_untils[i], age)];
                    Answer::Http { status: p.status, latency: latency(&p.latency, rng) }
                }
                None => Answer::Http { status: 404, latency: SimDuration::ZERO },
            },
            Ask::Grpc { service, .. } if b.grpc.is_empty() => {
                let _ = service;
                Answer::GrpcUnimplemented
            }
            Ask::Grpc { service, .. } => match b.grpc.keys().position(|k| k == service) {
                Some(i) => {
                    let p = &b.grpc[service][stretch(&self.grpc_untils[i], age)];
                    Answer::Grpc { status: p.status, latency: latency(&p.latency, rng) }
                }
                None => Answer::GrpcNotFound,
            },
        }
    }
}

fn port_of(ask: Ask<'_>) -> u16 {
    match ask {
        Ask::Http { port, .. } | Ask::Tcp { port } | Ask::Grpc { port, .. } => port,
        Ask::Exec { .. } => 0,
    }
}

/// Draws a schedule's boundaries; random ones are kept non-decreasing.
fn untils<'a>(items: impl Iterator<Item = &'a Option<Dist>>, rng: &mut Stream) -> Vec<SimDuration> {
    let mut out: Vec<SimDuration> = Vec::new();
    for u in items.flatten() {
        let d = u.sample(rng).max(out.last().copied().unwrap_or(SimDuration::ZERO));
        out.push(d);
    }
    out
}

/// Index of the stretch in force at `age`: the first whose `until` is later.
fn stretch(untils: &[SimDuration], age: SimDuration) -> usize {
    untils.iter().position(|u| age < *u).unwrap_or(untils.len())
}

/// Draws an optional duration; absent is zero.
fn latency(d: &Option<Dist>, rng: &mut Stream) -> SimDuration {
    d.as_ref().map_or(SimDuration::ZERO, |d| d.sample(rng))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Behaviours;
    use crate::error::SourceFile;

    fn plan(text: &str) -> Plan {
        let b = Behaviours::load(&Arc::new(SourceFile { name: "a.yaml".into(), text: text.into() })).unwrap();
        Plan::draw(b.for_instance("app", 0), &[8080], &mut Stream::new(1, "t"))
    }

    #[test]
    fn answers_follow_the_schedule() {
        let p = plan(
            "containers:\n  app:\n    listen: 2s\n    http:\n      /ready: [{until: 10s, status: 503}, {status: 200}]\n",
        );
        let mut r = Stream::new(1, "r");
        let at = |s: u64| SimDuration::from_secs(s);
        let ready = Ask::Http { port: 8080, path: "/ready" };
        assert_eq!(p.answer(ready, at(1), &mut r), Answer::Refused);
        assert_eq!(p.answer(ready, at(2), &mut r), Answer::Http { status: 503, latency: SimDuration::ZERO });
        assert_eq!(p.answer(ready, at(10), &mut r), Answer::Http { status: 200, latency: SimDuration::ZERO });
        assert_eq!(
            p.answer(Ask::Http { port: 8080, path: "/x" }, at(10), &mut r),
            Answer::Http { status: 404, latency: SimDuration::ZERO }
        );
        assert_eq!(p.answer(Ask::Tcp { port: 9090 }, at(10), &mut r), Answer::Refused);
        assert_eq!(
            p.answer(Ask::Exec { command: "true" }, at(0), &mut r),
            Answer::Exit { code: 0, latency: SimDuration::ZERO, output: None }
        );
        assert_eq!(p.answer(Ask::Grpc { port: 8080, service: "" }, at(10), &mut r), Answer::GrpcUnimplemented);
    }

    #[test]
    fn the_default_app_always_succeeds() {
        let p = Plan::draw(None, &[], &mut Stream::new(1, "t"));
        let mut r = Stream::new(1, "r");
        assert_eq!(p.answer(Ask::Tcp { port: 1 }, SimDuration::ZERO, &mut r), Answer::Accepted);
        assert_eq!(p.on_sigterm, OnSigterm::Exit { after: SimDuration::ZERO, code: 0 });
    }
}
