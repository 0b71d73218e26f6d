//! One container instance's process: its behaviour with every random time drawn
//! once at start, and the answers it gives to probes at any moment.

use super::schema::{ContainerBehaviour, GrpcStatus, Moment, Phase, Stretch};
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
    fn draw<S: Stretch>(entries: &[S], rng: &mut Stream) -> Schedule {
        let find = |m: Moment| entries.iter().position(|e| e.moment() == m);
        let timed: Vec<usize> = (0..entries.len()).filter(|&i| entries[i].moment() == Moment::Timed).collect();
        let untils = untils(timed.iter().map(|&i| entries[i].until()), rng);
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
    /// Drawn schedules, per http path / exec command / grpc service, in the
    /// order of the behaviour's maps.
    http: Vec<Schedule>,
    exec: Vec<Schedule>,
    grpc: Vec<Schedule>,
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
                http: Vec::new(),
                exec: Vec::new(),
                grpc: Vec::new(),
            };
        };
        let listen_after = latency(&b.listen, rng);
        let exit = b.exit.as_ref().map(|e| (e.after.sample(rng), e.code));
        let on_sigterm = match &b.sigterm {
            Some(s) if s.ignore => OnSigterm::Ignore,
            Some(s) => OnSigterm::Exit { after: latency(&s.exit_after, rng), code: s.code.unwrap_or(0) },
            None => OnSigterm::Exit { after: SimDuration::ZERO, code: 0 },
        };
        let http = b.http.values().map(|ps| Schedule::draw(ps, rng)).collect();
        let exec = b.exec.values().map(|ps| Schedule::draw(ps, rng)).collect();
        let grpc = b.grpc.values().map(|ps| Schedule::draw(ps, rng)).collect();
        let ports = b.ports.clone().unwrap_or_else(|| declared_ports.to_vec());
        Plan { behaviour: Some(b), ports, listen_after, exit, on_sigterm, http, exec, grpc }
    }

    /// False for podsim's default app (no behaviour given).
    pub fn has_behaviour(&self) -> bool {
        self.behaviour.is_some()
    }

    /// The ports the process listens on (behaviour apps only).
    pub fn ports(&self) -> &[u16] {
        &self.ports
    }

    /// The answer to `ask` when the process has been up for `age`, after
    /// `moments`; the latency draw (if any) comes from `rng`.
    pub fn answer(&self, ask: Ask<'_>, age: SimDuration, moments: Moments, rng: &mut Stream) -> Answer {
        let Some(b) = &self.behaviour else {
            return match ask {
                Ask::Http { .. } => Answer::Http { status: 200, latency: SimDuration::ZERO },
                Ask::Tcp { .. } => Answer::Accepted,
                Ask::Grpc { .. } => Answer::Grpc { status: GrpcStatus::Serving, latency: SimDuration::ZERO },
                Ask::Exec { .. } => Answer::Exit { code: 0, latency: SimDuration::ZERO, output: None },
            };
        };
        let closed = moments.sigterm && b.sigterm.as_ref().is_some_and(|s| s.stop_listening);
        let listening = |port: u16| age >= self.listen_after && !closed && self.ports.contains(&port);
        match ask {
            Ask::Exec { command } => match b.exec.iter().position(|(k, _)| k == command) {
                Some(i) => {
                    let phase = &b.exec[command][self.exec[i].pick(age, moments)];
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
                    let p: &Phase<u16> = &b.http[path][self.http[i].pick(age, moments)];
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
                    let p = &b.grpc[service][self.grpc[i].pick(age, moments)];
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
fn untils<'a>(items: impl Iterator<Item = Option<&'a Dist>>, rng: &mut Stream) -> Vec<SimDuration> {
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

    const M: Moments = Moments { prestop: false, sigterm: false };

    #[test]
    fn answers_follow_the_schedule() {
        let p = plan(
            "containers:\n  app:\n    listen: 2s\n    http:\n      /ready: [{until: 10s, status: 503}, {status: 200}]\n",
        );
        let mut r = Stream::new(1, "r");
        let at = |s: u64| SimDuration::from_secs(s);
        let ready = Ask::Http { port: 8080, path: "/ready" };
        assert_eq!(p.answer(ready, at(1), M, &mut r), Answer::Refused);
        assert_eq!(p.answer(ready, at(2), M, &mut r), Answer::Http { status: 503, latency: SimDuration::ZERO });
        assert_eq!(p.answer(ready, at(10), M, &mut r), Answer::Http { status: 200, latency: SimDuration::ZERO });
        assert_eq!(
            p.answer(Ask::Http { port: 8080, path: "/x" }, at(10), M, &mut r),
            Answer::Http { status: 404, latency: SimDuration::ZERO }
        );
        assert_eq!(p.answer(Ask::Tcp { port: 9090 }, at(10), M, &mut r), Answer::Refused);
        assert_eq!(
            p.answer(Ask::Exec { command: "true" }, at(0), M, &mut r),
            Answer::Exit { code: 0, latency: SimDuration::ZERO, output: None }
        );
        assert_eq!(p.answer(Ask::Grpc { port: 8080, service: "" }, at(10), M, &mut r), Answer::GrpcUnimplemented);
    }

    #[test]
    fn sigterm_and_prestop_entries_take_over() {
        let p = plan(
            "containers:\n  app:\n    http:\n      /ready: [{after_sigterm: true, status: 500}, {until: 10s, status: 503}, {after_prestop: true, status: 429}, {status: 200}]\n",
        );
        let mut r = Stream::new(1, "r");
        let ready = Ask::Http { port: 8080, path: "/ready" };
        let at = |s: u64| SimDuration::from_secs(s);
        let status = |m: Moments, s: u64, r: &mut Stream| match p.answer(ready, at(s), m, r) {
            Answer::Http { status, .. } => status,
            other => panic!("{other:?}"),
        };
        assert_eq!(status(M, 5, &mut r), 503);
        assert_eq!(status(M, 50, &mut r), 200);
        assert_eq!(status(Moments { prestop: true, sigterm: false }, 5, &mut r), 429);
        assert_eq!(status(Moments { prestop: true, sigterm: true }, 50, &mut r), 500);
    }

    #[test]
    fn stop_listening_refuses_new_connections_from_sigterm_on() {
        let p = plan(
            "containers:\n  app:\n    http:\n      /: [{status: 200}]\n    sigterm: {exit_after: 5s, stop_listening: true}\n",
        );
        let mut r = Stream::new(1, "r");
        let ask = Ask::Http { port: 8080, path: "/" };
        let at = SimDuration::from_secs(3);
        assert_eq!(p.answer(ask, at, M, &mut r), Answer::Http { status: 200, latency: SimDuration::ZERO });
        let after = Moments { prestop: false, sigterm: true };
        assert_eq!(p.answer(ask, at, after, &mut r), Answer::Refused);
        assert_eq!(p.answer(Ask::Tcp { port: 8080 }, at, after, &mut r), Answer::Refused);
    }

    #[test]
    fn the_default_app_always_succeeds() {
        let p = Plan::draw(None, &[], &mut Stream::new(1, "t"));
        let mut r = Stream::new(1, "r");
        assert_eq!(p.answer(Ask::Tcp { port: 1 }, SimDuration::ZERO, M, &mut r), Answer::Accepted);
        assert_eq!(p.on_sigterm, OnSigterm::Exit { after: SimDuration::ZERO, code: 0 });
    }
}
