//! Property tests over random pods, behaviours, versions and seeds: the
//! invariants of `podsim::invariants` hold on every simulated trace, and a
//! run is a pure function of its inputs and seed.
//!
//! `PROPTEST_CASES=1000 cargo test --test properties` runs a deeper search.

use podsim::app::Behaviours;
use podsim::cluster::{Cluster, Version};
use podsim::error::SourceFile;
use podsim::invariants::check_trace;
use podsim::manifest::Manifests;
use podsim::run::{DEFAULT_EPOCH, ScenarioParts, setup, simulate};
use podsim::sim::Setup;
use podsim::time::SimTime;
use podsim::trace::jsonl::{self, Header, SCHEMA};
use podsim::trace::render::Clock;
use proptest::prelude::*;
use std::fmt::Write;
use std::sync::Arc;

#[derive(Clone, Debug)]
struct Probe {
    handler: u8,
    period: u8,
    timeout: u8,
    failure: u8,
    success: u8,
    delay: u8,
}

#[derive(Clone, Debug)]
struct Container {
    startup: Option<Probe>,
    readiness: Option<Probe>,
    liveness: Option<Probe>,
    listen_ms: u32,
    flip_s: u8,
    before_ok: bool,
    after_ok: bool,
    latency_ms: u16,
    exit: Option<(u8, u8)>,
    sigterm: Option<u8>,
}

#[derive(Clone, Debug)]
struct Pod {
    policy: u8,
    grace: u8,
    containers: Vec<Container>,
    version: u8,
    seed: u64,
}

fn probe() -> impl Strategy<Value = Probe> {
    (0u8..4, 1u8..6, 1u8..3, 1u8..5, 1u8..3, 0u8..12).prop_map(|(handler, period, timeout, failure, success, delay)| {
        Probe { handler, period, timeout, failure, success, delay }
    })
}

fn container() -> impl Strategy<Value = Container> {
    (
        (proptest::option::of(probe()), proptest::option::of(probe()), proptest::option::of(probe())),
        (0u32..3000, 0u8..90, any::<bool>(), any::<bool>(), 0u16..1500),
        (proptest::option::weighted(0.4, (1u8..120, 0u8..2)), proptest::option::of(0u8..6)),
    )
        .prop_map(
            |(
                (startup, readiness, liveness),
                (listen_ms, flip_s, before_ok, after_ok, latency_ms),
                (exit, sigterm),
            )| {
                Container {
                    startup,
                    readiness,
                    liveness,
                    listen_ms,
                    flip_s,
                    before_ok,
                    after_ok,
                    latency_ms,
                    exit,
                    sigterm,
                }
            },
        )
}

fn pod() -> impl Strategy<Value = Pod> {
    (0u8..3, 1u8..8, proptest::collection::vec(container(), 1..3), 0u8..4, any::<u64>())
        .prop_map(|(policy, grace, containers, version, seed)| Pod { policy, grace, containers, version, seed })
}

fn probe_yaml(out: &mut String, kind: &str, p: &Probe) {
    let handler = match p.handler {
        0 => "httpGet: {path: /check, port: 8080}",
        1 => "tcpSocket: {port: 8080}",
        2 => "exec: {command: [check]}",
        _ => "grpc: {port: 8080}",
    };
    let success = if kind == "readinessProbe" { p.success } else { 1 };
    let _ = writeln!(
        out,
        "    {kind}:\n      {handler}\n      periodSeconds: {}\n      timeoutSeconds: {}\n      failureThreshold: {}\n      successThreshold: {success}\n      initialDelaySeconds: {}",
        p.period, p.timeout, p.failure, p.delay
    );
}

/// The manifest and behaviour file of a generated pod.
fn files(p: &Pod) -> (String, String) {
    let policy = ["Always", "OnFailure", "Never"][p.policy as usize];
    let mut m = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: prop}}\nspec:\n  restartPolicy: {policy}\n  terminationGracePeriodSeconds: {}\n  containers:\n",
        p.grace
    );
    let mut b = String::from("containers:\n");
    for (i, c) in p.containers.iter().enumerate() {
        let _ = writeln!(m, "  - name: c{i}\n    image: app:1\n    ports: [{{containerPort: 8080}}]");
        for (kind, probe) in
            [("startupProbe", &c.startup), ("readinessProbe", &c.readiness), ("livenessProbe", &c.liveness)]
        {
            if let Some(pr) = probe {
                probe_yaml(&mut m, kind, pr);
            }
        }
        let (s1, s2) = (if c.before_ok { 200 } else { 503 }, if c.after_ok { 200 } else { 503 });
        let (g1, g2) =
            (if c.before_ok { "SERVING" } else { "NOT_SERVING" }, if c.after_ok { "SERVING" } else { "NOT_SERVING" });
        let (e1, e2) = (u8::from(!c.before_ok), u8::from(!c.after_ok));
        let (u, l) = (c.flip_s, c.latency_ms);
        let _ = writeln!(b, "  c{i}:\n    listen: {}ms", c.listen_ms);
        let _ = writeln!(b, "    http: {{/check: [{{until: {u}s, status: {s1}, latency: {l}ms}}, {{status: {s2}}}]}}");
        let _ = writeln!(b, "    exec: {{check: [{{until: {u}s, exit: {e1}, latency: {l}ms}}, {{exit: {e2}}}]}}");
        let _ = writeln!(b, "    grpc: {{\"\": [{{until: {u}s, status: {g1}, latency: {l}ms}}, {{status: {g2}}}]}}");
        if let Some((after, code)) = c.exit {
            let _ = writeln!(b, "    exit: {{after: {after}s, code: {code}}}");
        }
        match c.sigterm {
            Some(0) => {
                let _ = writeln!(b, "    sigterm: {{ignore: true}}");
            }
            Some(s) => {
                let _ = writeln!(b, "    sigterm: {{exit_after: {s}s, code: 0}}");
            }
            None => {}
        }
    }
    (m, b)
}

fn build(p: &Pod) -> Setup {
    let (manifest, behaviour) = files(p);
    let file = |name: &str, text: String| Arc::new(SourceFile { name: name.into(), text });
    let manifests =
        Manifests::load(&[file("pod.yaml", manifest.clone())]).unwrap_or_else(|e| panic!("{e:?}\n{manifest}"));
    let behaviours =
        Behaviours::load(&file("app.yaml", behaviour.clone())).unwrap_or_else(|e| panic!("{e:?}\n{behaviour}"));
    let cluster = Cluster::default().with_version(Version::ALL[p.version as usize]).unwrap();
    setup(manifests, behaviours, cluster, DEFAULT_EPOCH.parse().unwrap(), ScenarioParts::default()).unwrap().0
}

fn jsonl_bytes(setup: &Setup, seed: u64, until: SimTime) -> Vec<u8> {
    let trace = simulate(setup, seed, until);
    let header = Header {
        schema: SCHEMA,
        podsim: "test",
        seed,
        epoch: DEFAULT_EPOCH.into(),
        kubernetes: setup.cluster.version.to_string(),
        cluster: setup.cluster.name.clone(),
        feature_gates: setup.cluster.gates.iter().collect(),
        until: until.as_secs_f64(),
    };
    let mut out = Vec::new();
    jsonl::write(&trace, &header, &Clock { epoch: DEFAULT_EPOCH.parse().unwrap() }, &mut out).unwrap();
    out
}

const FIVE_MINUTES: SimTime = SimTime::from_millis(300_000);

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Ready ⇒ ContainersReady ⇒ every container ready ⇒ started; no
    /// readiness or liveness probe before the startup probe succeeds;
    /// lastTransitionTime moves only with its status; no crash-loop restart
    /// earlier than the backoff allows.
    #[test]
    fn kubelet_invariants_hold(p in pod()) {
        let setup = build(&p);
        let trace = simulate(&setup, p.seed, FIVE_MINUTES);
        let report = check_trace(&trace, &Clock { epoch: DEFAULT_EPOCH.parse().unwrap() }, &setup.cluster);
        prop_assert!(!report.violated(), "seed {}:\n{}\n{}", p.seed, report.render_violations(), files(&p).0);
    }

    /// The same inputs and seed give the same bytes.
    #[test]
    fn same_seed_same_bytes(p in pod()) {
        let setup = build(&p);
        prop_assert_eq!(jsonl_bytes(&setup, p.seed, FIVE_MINUTES), jsonl_bytes(&setup, p.seed, FIVE_MINUTES));
    }
}

const VALID: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  restartPolicy: OnFailure\n  containers:\n  - name: app\n    image: nginx:1.27\n    ports: [{containerPort: 8080, name: http}]\n    readinessProbe:\n      httpGet: {path: /ready, port: http}\n      periodSeconds: 2\n    livenessProbe:\n      exec: {command: [cat, /tmp/ok]}\n      initialDelaySeconds: 5\n";
const APP: &str = "containers:\n  app:\n    listen: uniform(1s, 2s)\n    http:\n      /ready: [{until: 10s, status: 503}, {status: 200}]\n    exit: {after: 30s, code: 1}\n";

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Bad input never panics: any text, or a valid file with one byte
    /// replaced, either loads or gives problems; whatever loads also runs.
    #[test]
    fn any_input_is_an_answer_or_an_error(
        junk in ".{0,200}",
        which in 0usize..3,
        at in 0usize..400,
        byte in prop::sample::select(vec![b' ', b':', b'-', b'[', b'{', b'"', b'\n', b'0', b'x', b'#', b'\t']),
    ) {
        let base = [VALID, APP, "kubernetes: \"1.35\"\nlatencies: {watch: 5ms}\n"][which];
        let mut mutated = base.as_bytes().to_vec();
        let i = at % mutated.len();
        mutated[i] = byte;
        let mutated = String::from_utf8_lossy(&mutated).into_owned();
        for text in [junk, mutated] {
            let file = Arc::new(SourceFile { name: "input.yaml".into(), text });
            let manifests = Manifests::load(std::slice::from_ref(&file));
            let _ = Behaviours::load(&file);
            let _ = Cluster::load(&file);
            if let Ok(m) = manifests {
                let app = Behaviours::load(&Arc::new(SourceFile { name: "app.yaml".into(), text: APP.into() })).unwrap();
                if let Ok((setup, _)) = setup(m, app, Cluster::default(), DEFAULT_EPOCH.parse().unwrap(), ScenarioParts::default()) {
                    let _ = simulate(&setup, 1, SimTime::from_millis(60_000));
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// The recording reader never panics, whatever the bytes: random bytes,
    /// or random bytes after the start of each format it detects.
    #[test]
    fn the_recording_reader_takes_any_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        prefix in prop::sample::select(vec![
            "", "{", "[{", "{\"type\":\"MODIFIED\",\"object\":", "apiVersion: v1\nkind: Pod\n",
            "NAME READY STATUS RESTARTS AGE\nweb ", "Name: web\nNamespace: default\nContainers:\n  app:\n    State: ",
            "Events:\n  Type Reason Age From Message\n  Normal Started ",
            "{\"t\":0.000,\"type\":\"HEADER\",\"run\":{\"schema\":\"podsim/trace/v1\"}}\n",
        ]),
    ) {
        let text = format!("{prefix}{}", String::from_utf8_lossy(&bytes));
        let file = Arc::new(SourceFile { name: "recording".into(), text });
        let mut checker = podsim::invariants::Checker::new(Cluster::default());
        let _ = podsim::observe::read(&file, &mut |r| checker.observe(&r));
        let _ = checker.report();
    }
}
