//! The pods proptest once shrank failures to (the seeds it saved stopped
//! reproducing them when the generators grew), written out from their
//! shrunk values: every one must keep the invariants. Fields the generator
//! did not have then take the value that leaves them out (no init
//! containers, hooks, gate, deletion, kill, Service, deadline or patch).

use super::{ClientGen, Container, Hook, Init, Net, Pod, Probe, invariants_hold};

/// `Probe { handler, period, timeout, failure, success, delay }`; handler 0
/// httpGet, 1 tcpSocket, 2 exec, 3 grpc.
fn probe(handler: u8, period: u8, timeout: u8, failure: u8, success: u8, delay: u8) -> Option<Probe> {
    Some(Probe { handler, period, timeout, failure, success, delay })
}

/// A container with no probes that listens at once and never exits.
fn plain() -> Container {
    Container {
        startup: None,
        readiness: None,
        liveness: None,
        listen_ms: 0,
        flip_s: 0,
        before_ok: false,
        after_ok: false,
        latency_ms: 0,
        exit: None,
        sigterm: None,
    }
}

/// restartPolicy Always, grace 1 s, Kubernetes 1.34 (version 0), seed 0.
fn pod(containers: Vec<Container>) -> Pod {
    Pod {
        policy: 0,
        grace: 1,
        init: vec![],
        containers,
        hooks: vec![(None, None), (None, None)],
        gate: None,
        delete: None,
        kill: None,
        version: 0,
        seed: 0,
        net: None,
        deadline: None,
        patch: None,
    }
}

fn sidecar(after: u8, fails: bool) -> Init {
    Init { sidecar: true, after, fails, startup: None, readiness: None, pre_stop: None }
}

/// Each saved case, named by what made it hard.
fn cases() -> Vec<(&'static str, Pod)> {
    vec![
        (
            "77c0ef84: exits 0 after 10 s under HTTP readiness and liveness (delay 3 s)",
            Pod {
                seed: 5734995656545212,
                ..pod(vec![Container {
                    readiness: probe(0, 2, 1, 1, 1, 0),
                    liveness: probe(0, 1, 1, 1, 1, 3),
                    after_ok: true,
                    exit: Some((10, 0)),
                    ..plain()
                }])
            },
        ),
        (
            "4b93d546: exec probes that start failing at 9 s, 938 ms latency and 1–2 s timeouts",
            Pod {
                seed: 895792845763623139,
                ..pod(vec![Container {
                    readiness: probe(2, 1, 2, 1, 1, 8),
                    liveness: probe(2, 1, 1, 1, 1, 7),
                    flip_s: 9,
                    before_ok: true,
                    latency_ms: 938,
                    ..plain()
                }])
            },
        ),
        (
            "cc79df8d: an exec liveness probe that always fails, every second, threshold 1",
            pod(vec![Container { liveness: probe(2, 1, 1, 1, 1, 0), ..plain() }]),
        ),
        (
            "aa1a2560: a native sidecar with an exec preStop hook of 0 s",
            Pod {
                init: vec![Init { pre_stop: Some(Hook::Exec { secs: 0, code: 0 }), ..sidecar(1, false) }],
                ..pod(vec![plain()])
            },
        ),
        (
            "8be0151b: a sidecar that exits 1, exec liveness kills, an exec preStop, deleted at 114 s (1.35)",
            Pod {
                init: vec![sidecar(1, true)],
                hooks: vec![(None, Some(Hook::Exec { secs: 1, code: 0 })), (None, None)],
                delete: Some((114, None)),
                version: 1,
                seed: 1861996685817732663,
                ..pod(vec![Container { liveness: probe(2, 1, 1, 2, 1, 6), ..plain() }])
            },
        ),
        (
            "4df19188: a sidecar whose HTTP startup probe waits for its listener at 1.2 s",
            Pod { init: vec![Init { startup: probe(0, 1, 1, 1, 1, 0), ..sidecar(12, false) }], ..pod(vec![plain()]) },
        ),
        (
            "65897d78: exits 0 after 3 s with a readiness gate set by a controller",
            Pod { gate: Some(true), ..pod(vec![Container { exit: Some((3, 0)), ..plain() }]) },
        ),
        (
            "0e4d7857: the same, seed 7810",
            Pod { gate: Some(true), seed: 7810, ..pod(vec![Container { exit: Some((3, 0)), ..plain() }]) },
        ),
        (
            "70af7252: a failing exec startup probe, a 4 s postStart and 7 s preStop sleep, deleted at 38 s",
            Pod {
                grace: 16,
                hooks: vec![(Some(Hook::Exec { secs: 4, code: 0 }), Some(Hook::Sleep(7))), (None, None)],
                delete: Some((38, None)),
                seed: 1815081670182556344,
                ..pod(vec![Container { startup: probe(2, 1, 1, 1, 1, 0), ..plain() }])
            },
        ),
        (
            "b308c7b1: TCP startup and readiness, exec liveness, a 3 s SIGTERM drain, postStart and preStop (1.37)",
            Pod {
                grace: 6,
                hooks: vec![(Some(Hook::Sleep(5)), Some(Hook::Http)), (None, None)],
                gate: Some(true),
                version: 3,
                seed: 2088717028965225086,
                ..pod(vec![Container {
                    startup: probe(1, 3, 1, 1, 1, 10),
                    readiness: probe(1, 2, 1, 4, 1, 0),
                    liveness: probe(2, 5, 1, 4, 1, 0),
                    flip_s: 33,
                    latency_ms: 882,
                    sigterm: Some(3),
                    ..plain()
                }])
            },
        ),
        (
            "c0b131c3: two containers, one killed by liveness every second with a 5 s preStop, deleted at 0 s",
            Pod {
                grace: 6,
                hooks: vec![(None, None), (None, Some(Hook::Exec { secs: 5, code: 0 }))],
                delete: Some((0, None)),
                ..pod(vec![plain(), Container { liveness: probe(2, 1, 1, 1, 1, 0), ..plain() }])
            },
        ),
        (
            "4ef6842b: a sidecar, one container exiting 0 at 38 s, deleted at 56 s, the other SIGKILLed at 64 s (1.37)",
            Pod {
                grace: 3,
                init: vec![sidecar(2, false)],
                hooks: vec![(Some(Hook::Sleep(2)), None), (None, None)],
                delete: Some((56, None)),
                kill: Some((2, 64, false)),
                version: 3,
                seed: 8072217698543929542,
                ..pod(vec![plain(), Container { exit: Some((38, 0)), ..plain() }])
            },
        ),
        (
            "da4ba37f: a failing sidecar with a gRPC startup probe, an HTTP startup probe, an exec liveness kill of a SIGTERM-ignoring container",
            Pod {
                init: vec![Init { startup: probe(3, 2, 1, 1, 1, 1), ..sidecar(19, true) }],
                seed: 1053120224928944600,
                ..pod(vec![
                    Container { startup: probe(0, 2, 1, 1, 1, 0), flip_s: 2, latency_ms: 554, ..plain() },
                    Container { liveness: probe(2, 5, 1, 2, 1, 2), sigterm: Some(0), ..plain() },
                ])
            },
        ),
        (
            "2c7690b0: an init container, readiness and liveness, a gate, behind a Service on 3 nodes, a client every 1 ms, deleted at 74 s",
            Pod {
                grace: 3,
                init: vec![Init {
                    sidecar: false,
                    after: 9,
                    fails: false,
                    startup: None,
                    readiness: None,
                    pre_stop: None,
                }],
                gate: Some(true),
                seed: 10234637727062316414,
                net: Some(Net {
                    nodes: 3,
                    replicas: 1,
                    publish: false,
                    local: false,
                    affinity: None,
                    named_target: false,
                    other_port: false,
                    clients: vec![ClientGen {
                        from: 0,
                        to_service: false,
                        other: false,
                        replica: 0,
                        check_path: false,
                        start_s: 0,
                        every_ms: (1, 0),
                        count: None,
                        timeout_ms: 100,
                    }],
                    deletes: vec![(0, 74)],
                }),
                ..pod(vec![
                    Container { readiness: probe(0, 5, 1, 1, 2, 7), after_ok: true, exit: Some((31, 0)), ..plain() },
                    Container {
                        readiness: probe(1, 1, 1, 1, 1, 4),
                        liveness: probe(2, 4, 1, 3, 1, 3),
                        flip_s: 13,
                        latency_ms: 910,
                        sigterm: Some(3),
                        ..plain()
                    },
                ])
            },
        ),
        (
            "a readiness probe answered by another container's process returns after its own instance exited: \
             SetContainerReadiness marks the exited instance ready until the next status",
            Pod {
                seed: 5607025868101279597,
                ..pod(vec![
                    Container { flip_s: 7, before_ok: true, latency_ms: 20, ..plain() },
                    Container { readiness: probe(3, 1, 1, 1, 1, 3), listen_ms: 1884, ..plain() },
                ])
            },
        ),
    ]
}

#[test]
fn the_saved_failures_keep_the_invariants() {
    let cases = cases();
    assert_eq!(cases.len(), 15, "every case the regression file held, and the ones found since");
    let failures: Vec<String> =
        cases.iter().filter_map(|(what, p)| invariants_hold(p).err().map(|e| format!("{what}:\n{e}"))).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
