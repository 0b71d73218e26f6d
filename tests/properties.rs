//! Property tests over random pods, behaviours, versions and seeds: the
//! invariants of `podsim::invariants` hold on every simulated trace, and a
//! run is a pure function of its inputs and seed. Some cases put the pod and
//! its replicas behind a Service on a 2–3 node cluster, with clients sending
//! to it or straight to a pod, so the Service path's rules are judged too.
//!
//! `PROPTEST_CASES=1000 cargo test --release --test properties` runs a deeper search.

use podsim::app::Behaviours;
use podsim::cluster::{Cluster, Version};
use podsim::dist::Dist;
use podsim::error::SourceFile;
use podsim::invariants::{Verdict, check_run};
use podsim::manifest::Manifests;
use podsim::run::{DEFAULT_EPOCH, ScenarioParts, setup, simulate};
use podsim::scenario::actions;
use podsim::scenario::traffic::{From, To, Traffic, When};
use podsim::scenario::{ActionOrigin, GateController};
use podsim::sim::{Setup, World};
use podsim::time::{SimDuration, SimTime};
use podsim::trace::Trace;
use podsim::trace::jsonl::{self, Header, SCHEMA};
use podsim::trace::render::Clock;
use proptest::prelude::*;
use std::fmt::Write;
use std::sync::Arc;

#[path = "properties/regressions.rs"]
mod regressions;

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

/// A lifecycle hook: sleep (shorter than the grace, as validation wants),
/// exec (its time and exit code from the behaviour), or httpGet.
#[derive(Clone, Debug)]
enum Hook {
    Sleep(u8),
    Exec { secs: u8, code: u8 },
    Http,
}

#[derive(Clone, Debug)]
struct Init {
    sidecar: bool,
    /// A run-to-completion container exits after this many seconds...
    after: u8,
    /// ... with 0 or 1.
    fails: bool,
    startup: Option<Probe>,
    readiness: Option<Probe>,
    pre_stop: Option<Hook>,
}

#[derive(Clone, Debug)]
struct Pod {
    policy: u8,
    grace: u8,
    init: Vec<Init>,
    containers: Vec<Container>,
    hooks: Vec<(Option<Hook>, Option<Hook>)>,
    gate: Option<bool>,
    delete: Option<(u16, Option<u8>)>,
    kill: Option<(u8, u16, bool)>,
    version: u8,
    seed: u64,
    net: Option<Net>,
    /// `activeDeadlineSeconds`, and a `kubectl patch` at a time: a new image
    /// for c0 (0) or the first init container (1), or a deadline (2).
    deadline: Option<u16>,
    patch: Option<(u16, u8, u16)>,
}

/// The pod and its replicas (`prop`, `prop-1`, …) behind Service `svc` on a
/// cluster of `nodes` nodes, and clients.
#[derive(Clone, Debug)]
struct Net {
    nodes: u8,
    replicas: u8,
    publish: bool,
    local: bool,
    /// `sessionAffinity: ClientIP` with this `timeoutSeconds`.
    affinity: Option<u8>,
    /// `targetPort: http` (c0's port name) rather than 8080.
    named_target: bool,
    /// A second port `other` to 9090, where nothing listens.
    other_port: bool,
    clients: Vec<ClientGen>,
    /// `kubectl delete` of a replica (index, seconds): endpoints turn terminating.
    deletes: Vec<(u8, u16)>,
}

#[derive(Clone, Debug)]
struct ClientGen {
    /// A node (below the node count), else a replica's pod.
    from: u8,
    /// To the Service (port `other` if `other`), else straight to a replica's IP.
    to_service: bool,
    other: bool,
    replica: u8,
    check_path: bool,
    start_s: u8,
    /// The gap: uniform(lo, lo + spread) milliseconds.
    every_ms: (u16, u16),
    count: Option<u8>,
    timeout_ms: u16,
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

fn hook() -> impl Strategy<Value = Hook> {
    prop_oneof![
        (0u8..8).prop_map(Hook::Sleep),
        (0u8..15, prop_oneof![4 => Just(0u8), 1 => Just(1u8)]).prop_map(|(secs, code)| Hook::Exec { secs, code }),
        Just(Hook::Http),
    ]
}

fn init() -> impl Strategy<Value = Init> {
    (
        any::<bool>(),
        1u8..20,
        proptest::bool::weighted(0.2),
        proptest::option::of(probe()),
        proptest::option::of(probe()),
        proptest::option::of(hook()),
    )
        .prop_map(|(sidecar, after, fails, startup, readiness, pre_stop)| Init {
            sidecar,
            after,
            fails,
            startup: startup.filter(|_| sidecar),
            readiness: readiness.filter(|_| sidecar),
            pre_stop: pre_stop.filter(|_| sidecar),
        })
}

fn client_gen() -> impl Strategy<Value = ClientGen> {
    (
        (0u8..6, proptest::bool::weighted(0.75), proptest::bool::weighted(0.2), 0u8..3, any::<bool>()),
        (0u8..90, 1u16..3000, 0u16..3000, proptest::option::weighted(0.5, 1u8..60), 100u16..3000),
    )
        .prop_map(|((from, to_service, other, replica, check_path), (start_s, lo, spread, count, timeout_ms))| {
            ClientGen {
                from,
                to_service,
                other,
                replica,
                check_path,
                start_s,
                every_ms: (lo, spread),
                count,
                timeout_ms,
            }
        })
}

fn net() -> impl Strategy<Value = Net> {
    (
        (2u8..4, 1u8..4, any::<bool>(), proptest::bool::weighted(0.3)),
        (proptest::option::weighted(0.3, 1u8..30), any::<bool>(), proptest::bool::weighted(0.2)),
        proptest::collection::vec(client_gen(), 1..4),
        proptest::collection::vec((0u8..3, 0u16..200), 0..3),
    )
        .prop_map(|((nodes, replicas, publish, local), (affinity, named_target, other_port), clients, deletes)| {
            Net { nodes, replicas, publish, local, affinity, named_target, other_port, clients, deletes }
        })
}

fn pod() -> impl Strategy<Value = Pod> {
    (
        (0u8..3, 1u8..20, proptest::collection::vec(init(), 0..3), proptest::collection::vec(container(), 1..3)),
        (
            proptest::collection::vec(
                (proptest::option::weighted(0.2, hook()), proptest::option::weighted(0.4, hook())),
                2,
            ),
            proptest::option::weighted(0.3, any::<bool>()),
            proptest::option::weighted(0.5, (0u16..300, proptest::option::weighted(0.3, 0u8..40))),
            proptest::option::weighted(0.2, (0u8..4, 0u16..300, any::<bool>())),
        ),
        (0u8..4, any::<u64>(), proptest::option::weighted(0.4, net())),
        (proptest::option::weighted(0.2, 5u16..200), proptest::option::weighted(0.3, (0u16..300, 0u8..3, 1u16..250))),
    )
        .prop_map(
            |(
                (policy, grace, init, containers),
                (hooks, gate, delete, kill),
                (version, seed, net),
                (deadline, patch),
            )| Pod {
                policy,
                grace,
                init,
                containers,
                hooks,
                gate,
                delete,
                kill,
                version,
                seed,
                net,
                deadline,
                patch,
            },
        )
}

fn hook_yaml(out: &mut String, kind: &str, h: &Hook, grace: u8) {
    let handler = match h {
        Hook::Sleep(s) => format!("sleep: {{seconds: {}}}", u16::from(*s) % u16::from(grace)),
        Hook::Exec { .. } => format!("exec: {{command: [{kind}]}}"),
        Hook::Http => "httpGet: {path: /hook, port: 8080}".to_string(),
    };
    let _ = writeln!(out, "      {kind}:\n        {handler}");
}

/// The behaviour of a hook's command (exec hooks only).
fn hook_behaviour(kind: &str, h: &Option<Hook>) -> String {
    match h {
        Some(Hook::Exec { secs, code }) => format!("      {kind}: [{{exit: {code}, latency: {secs}s}}]\n"),
        _ => String::new(),
    }
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
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: prop, labels: {{app: prop}}}}\nspec:\n  restartPolicy: {policy}\n  terminationGracePeriodSeconds: {}\n",
        p.grace
    );
    let mut b = String::from("containers:\n");
    if p.gate.is_some() {
        m.push_str("  readinessGates: [{conditionType: example.com/lb}]\n");
    }
    if let Some(d) = p.deadline {
        let _ = writeln!(m, "  activeDeadlineSeconds: {d}");
    }
    if !p.init.is_empty() {
        m.push_str("  initContainers:\n");
    }
    for (i, c) in p.init.iter().enumerate() {
        let _ = writeln!(m, "  - name: i{i}\n    image: init:1\n    ports: [{{containerPort: 8080}}]");
        if c.sidecar {
            m.push_str("    restartPolicy: Always\n");
            for (kind, probe) in [("startupProbe", &c.startup), ("readinessProbe", &c.readiness)] {
                if let Some(pr) = probe {
                    probe_yaml(&mut m, kind, pr);
                }
            }
            if let Some(h) = &c.pre_stop {
                m.push_str("    lifecycle:\n");
                hook_yaml(&mut m, "preStop", h, p.grace);
            }
            let _ = writeln!(
                b,
                "  i{i}:\n    listen: {}ms\n    http: {{/check: [{{until: {}s, status: 503}}, {{status: 200}}]}}",
                c.after as u32 * 100,
                c.after
            );
            let _ = writeln!(b, "    grpc: {{\"\": [{{status: SERVING}}]}}\n    exec:\n      check: [{{exit: 0}}]");
            b.push_str(&hook_behaviour("preStop", &c.pre_stop));
            if c.fails {
                let _ = writeln!(b, "    exit: {{after: {}s, code: 1}}", c.after);
            }
        } else {
            let _ = writeln!(b, "  i{i}:\n    exit: {{after: {}s, code: {}}}", c.after, u8::from(c.fails));
        }
    }
    m.push_str("  containers:\n");
    for (i, c) in p.containers.iter().enumerate() {
        let port_name = if i == 0 { ", name: http" } else { "" };
        let _ = writeln!(m, "  - name: c{i}\n    image: app:1\n    ports: [{{containerPort: 8080{port_name}}}]");
        for (kind, probe) in
            [("startupProbe", &c.startup), ("readinessProbe", &c.readiness), ("livenessProbe", &c.liveness)]
        {
            if let Some(pr) = probe {
                probe_yaml(&mut m, kind, pr);
            }
        }
        let (post, pre) = &p.hooks[i];
        if post.is_some() || pre.is_some() {
            m.push_str("    lifecycle:\n");
            for (kind, h) in [("postStart", post), ("preStop", pre)] {
                if let Some(h) = h {
                    hook_yaml(&mut m, kind, h, p.grace);
                }
            }
        }
        let (s1, s2) = (if c.before_ok { 200 } else { 503 }, if c.after_ok { 200 } else { 503 });
        let (g1, g2) =
            (if c.before_ok { "SERVING" } else { "NOT_SERVING" }, if c.after_ok { "SERVING" } else { "NOT_SERVING" });
        let (e1, e2) = (u8::from(!c.before_ok), u8::from(!c.after_ok));
        let (u, l) = (c.flip_s, c.latency_ms);
        let _ = writeln!(b, "  c{i}:\n    listen: {}ms", c.listen_ms);
        let _ = writeln!(b, "    http: {{/check: [{{until: {u}s, status: {s1}, latency: {l}ms}}, {{status: {s2}}}]}}");
        let _ = writeln!(b, "    exec:\n      check: [{{until: {u}s, exit: {e1}, latency: {l}ms}}, {{exit: {e2}}}]");
        let _ = write!(b, "{}{}", hook_behaviour("postStart", post), hook_behaviour("preStop", pre));
        let _ = writeln!(b, "    grpc: {{\"\": [{{until: {u}s, status: {g1}, latency: {l}ms}}, {{status: {g2}}}]}}");
        if let Some((after, code)) = c.exit {
            let _ = writeln!(b, "    exit: {{after: {after}s, code: {code}}}");
        }
        match c.sigterm {
            Some(0) => {
                let _ = writeln!(b, "    sigterm: {{ignore: true}}");
            }
            // Odd drain times also close the listener at SIGTERM.
            Some(s) => {
                let close = s % 2 == 1;
                let _ = writeln!(b, "    sigterm: {{exit_after: {s}s, code: 0, stop_listening: {close}}}");
            }
            None => {}
        }
    }
    if let Some(net) = &p.net {
        m = network_manifests(&m, net);
    }
    (m, b)
}

/// The pod's replicas (the same spec under other names) and the Service.
fn network_manifests(pod: &str, net: &Net) -> String {
    let mut m = pod.to_string();
    for r in 1..net.replicas {
        m.push_str("---\n");
        m.push_str(&pod.replacen("name: prop,", &format!("name: prop-{r},"), 1));
    }
    let policy = if net.local { "Local" } else { "Cluster" };
    let target = if net.named_target { "http" } else { "8080" };
    let _ = write!(
        m,
        "---\napiVersion: v1\nkind: Service\nmetadata: {{name: svc}}\nspec:\n  selector: {{app: prop}}\n  publishNotReadyAddresses: {}\n  internalTrafficPolicy: {policy}\n",
        net.publish
    );
    if let Some(t) = net.affinity {
        let _ =
            writeln!(m, "  sessionAffinity: ClientIP\n  sessionAffinityConfig: {{clientIP: {{timeoutSeconds: {t}}}}}");
    }
    let _ = writeln!(m, "  ports:\n  - {{name: http, port: 80, targetPort: {target}}}");
    if net.other_port {
        m.push_str("  - {name: other, port: 81, targetPort: 9090}\n");
    }
    m
}

fn replica(r: u8, net: &Net) -> String {
    match r % net.replicas {
        0 => "prop".to_string(),
        k => format!("prop-{k}"),
    }
}

/// The clients, as a scenario's `traffic:` would give them.
fn traffic(net: &Net) -> Vec<(Traffic, ActionOrigin)> {
    let ms = SimDuration::from_millis;
    net.clients
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let from = match c.from < net.nodes {
                true => From::Node(format!("node-{}", c.from + 1)),
                false => From::Pod(replica(c.from, net)),
            };
            let to = match (c.to_service, c.other && net.other_port) {
                (true, false) => To::Service { name: "svc".into(), port: Some("http".into()) },
                (true, true) => To::Service { name: "svc".into(), port: Some("other".into()) },
                (false, _) => To::Pod { name: replica(c.replica, net), port: "8080".into() },
            };
            let (lo, spread) = c.every_ms;
            let t = Traffic {
                name: Some(format!("client-{i}")),
                from: Some(from),
                to,
                path: if c.check_path { "/check" } else { "/" }.into(),
                when: When::Every {
                    start: SimTime::ZERO + SimDuration::from_secs(u64::from(c.start_s)),
                    every: Dist::Uniform(ms(u64::from(lo)), ms(u64::from(lo) + u64::from(spread))),
                    count: c.count.map(u32::from),
                },
                timeout: ms(u64::from(c.timeout_ms)),
            };
            (t, ActionOrigin::Flag(format!("client-{i}")))
        })
        .collect()
}

fn build(p: &Pod) -> Setup {
    let (manifest, behaviour) = files(p);
    let file = |name: &str, text: String| Arc::new(SourceFile { name: name.into(), text });
    let manifests =
        Manifests::load(&[file("pod.yaml", manifest.clone())]).unwrap_or_else(|e| panic!("{e:?}\n{manifest}"));
    let behaviours =
        Behaviours::load(&file("app.yaml", behaviour.clone())).unwrap_or_else(|e| panic!("{e:?}\n{behaviour}"));
    let base = match &p.net {
        Some(net) => {
            let nodes: Vec<String> = (1..=net.nodes).map(|i| format!("{{name: node-{i}}}")).collect();
            Cluster::load(&file("cluster.yaml", format!("nodes: [{}]\n", nodes.join(", ")))).unwrap()
        }
        None => Cluster::default(),
    };
    let cluster = base.with_version(Version::ALL[p.version as usize]).unwrap();
    let mut parts = ScenarioParts::default();
    let flag = |text: String| (ActionOrigin::Flag(text.clone()), text);
    let mut flags = Vec::new();
    if let Some(net) = &p.net {
        parts.traffic = traffic(net);
        for (r, at) in &net.deletes {
            flags.push((flag(format!("pod/{}@{at}s", replica(*r, net))), 0));
        }
    }
    if let Some((at, grace)) = p.delete {
        let g = grace.map(|g| format!(",grace-period={g}")).unwrap_or_default();
        flags.push((flag(format!("pod/prop@{at}s{g}")), 0));
    }
    if let Some((c, at, term)) = p.kill {
        let name = match (c as usize) < p.containers.len() {
            true => format!("c{c}"),
            false => "c0".to_string(),
        };
        let signal = if term { ",signal=SIGTERM" } else { "" };
        flags.push((flag(format!("pod/prop/{name}@{at}s{signal}")), 2));
    }
    match p.gate {
        Some(true) => parts.gates.push(GateController {
            condition: "example.com/lb".into(),
            delay: Dist::Fixed(SimTime::from_millis(3000).since(SimTime::ZERO)),
        }),
        Some(false) => flags.push((flag("pod/prop:example.com/lb=True@40s".into()), 1)),
        None => {}
    }
    if let Some((at, what, value)) = p.patch {
        let spec = match what {
            1 if !p.init.is_empty() => r#"{"initContainers":[{"name":"i0","image":"init:2"}]}"#.to_string(),
            2 => format!(r#"{{"activeDeadlineSeconds":{value}}}"#),
            _ => r#"{"containers":[{"name":"c0","image":"app:2"}]}"#.to_string(),
        };
        flags.push((flag(format!(r#"pod/prop:{{"spec":{spec}}}@{at}s"#)), 3));
    }
    for ((origin, text), kind) in flags {
        let parsed = match kind {
            0 => actions::parse_delete_flag(&text),
            1 => actions::parse_condition_flag(&text),
            3 => actions::parse_patch_flag(&text),
            _ => actions::parse_kill_flag(&text),
        };
        parts.actions.push((parsed.unwrap_or_else(|e| panic!("{text}: {e}")), origin));
    }
    setup(manifests, behaviours, cluster, DEFAULT_EPOCH.parse().unwrap(), parts)
        .unwrap_or_else(|e| panic!("{e:?}\n{manifest}\n{behaviour}"))
        .0
}

fn jsonl_bytes(setup: &Setup, seed: u64, until: SimTime) -> Vec<u8> {
    jsonl_of(&simulate(setup, seed, until), setup, seed, until)
}

fn jsonl_of(trace: &Trace, setup: &Setup, seed: u64, until: SimTime) -> Vec<u8> {
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
    jsonl::write(trace, &header, &Clock { epoch: DEFAULT_EPOCH.parse().unwrap() }, &mut out).unwrap();
    out
}

const FIVE_MINUTES: SimTime = SimTime::from_millis(300_000);

/// The rules every run of `p` gives something to judge: the pod has a phase
/// from its creation, and, unless deleted within 10 s, conditions and
/// container statuses in many versions; behind a Service, slices hold
/// endpoints and clients send requests.
fn judged_rules(p: &Pod) -> Vec<(&'static str, &'static str)> {
    let mut rules = vec![("prop", "phase-consistent")];
    let deleted_early = p.delete.is_some_and(|(at, _)| at < 10)
        || p.net.as_ref().is_some_and(|n| n.deletes.iter().any(|(r, at)| replica(*r, n) == "prop" && *at < 10));
    if !deleted_early {
        rules.extend([
            ("prop", "ready-implies-containers-ready"),
            ("prop", "transition-time-moves-with-status"),
            ("prop", "restart-count-steps"),
        ]);
    }
    if p.net.is_some() {
        rules.push(("(Service path)", "one-outcome-per-request"));
        if !deleted_early {
            rules.push(("(EndpointSlices)", "endpoint-conditions"));
        }
    }
    rules
}

/// The case count: `PROPTEST_CASES` when set (a deeper search), else the default.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The pod's five minutes break no invariant, and what it always shows is
/// judged, not skipped.
fn invariants_hold(p: &Pod) -> Result<(), String> {
    let setup = build(p);
    let trace = simulate(&setup, p.seed, FIVE_MINUTES);
    let report = check_run(&trace, &Clock { epoch: DEFAULT_EPOCH.parse().unwrap() }, &setup, FIVE_MINUTES);
    if report.violated() {
        return Err(format!("seed {}:\n{}\n{}\n{:?}", p.seed, report.render_violations(), files(p).0, p.net));
    }
    for (entry, rule) in judged_rules(p) {
        if !matches!(report.verdict(entry, rule), Some(Verdict::Holds { .. })) {
            return Err(format!("{entry} {rule} is not judged:\n{}\n{}", report.render(), files(p).0));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(48), ..ProptestConfig::default() })]

    /// Ready ⇒ ContainersReady ⇒ every container ready ⇒ started; no
    /// readiness or liveness probe before the startup probe succeeds;
    /// lastTransitionTime moves only with its status; no crash-loop restart
    /// earlier than the backoff allows; behind a Service, endpoints follow
    /// their pods and the flag, kube-proxy programs only what slices held,
    /// requests go where the rules said and each gets one outcome.
    #[test]
    fn kubelet_invariants_hold(p in pod()) {
        let judged = invariants_hold(&p);
        prop_assert!(judged.is_ok(), "{}", judged.err().unwrap_or_default());
    }

    /// The same inputs and seed give the same bytes.
    #[test]
    fn same_seed_same_bytes(p in pod()) {
        let setup = build(&p);
        prop_assert_eq!(jsonl_bytes(&setup, p.seed, FIVE_MINUTES), jsonl_bytes(&setup, p.seed, FIVE_MINUTES));
    }

    /// Parking the tickers whose ticks change nothing (dormant probe
    /// workers, sync-loop ticks and housekeeping with nothing due) gives
    /// the bytes of a run that handles every tick, with and without an
    /// event budget that stops the run midway.
    #[test]
    fn parked_tickers_change_no_byte(p in pod(), budget in prop::option::of(500u64..4_000)) {
        let mut setup = build(&p);
        if let Some(budget) = budget {
            setup.max_events = budget;
        }
        let every = World::new(&setup, p.seed).handling_every_tick().run(FIVE_MINUTES);
        prop_assert_eq!(jsonl_bytes(&setup, p.seed, FIVE_MINUTES), jsonl_of(&every, &setup, p.seed, FIVE_MINUTES));
    }
}

const VALID: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  restartPolicy: OnFailure\n  containers:\n  - name: app\n    image: nginx:1.27\n    ports: [{containerPort: 8080, name: http}]\n    readinessProbe:\n      httpGet: {path: /ready, port: http}\n      periodSeconds: 2\n    livenessProbe:\n      exec: {command: [cat, /tmp/ok]}\n      initialDelaySeconds: 5\n";
const APP: &str = "containers:\n  app:\n    listen: uniform(1s, 2s)\n    http:\n      /ready: [{until: 10s, status: 503}, {status: 200}]\n    exit: {after: 30s, code: 1}\n";

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

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
    #![proptest_config(ProptestConfig { cases: cases(512), ..ProptestConfig::default() })]

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

/// The generated Service cases are not vacuous: across a fixed sample, some
/// requests through the Service reach a pod and get HTTP answers, and every
/// Service-path rule is judged somewhere.
#[test]
fn generated_service_cases_exercise_the_service_path() {
    use podsim::client::Outcome;
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = pod().prop_filter("behind a Service", |p| p.net.is_some());
    let (mut answered, mut judged) = (0, std::collections::BTreeSet::new());
    for _ in 0..24 {
        let p = strategy.new_tree(&mut runner).unwrap().current();
        let setup = build(&p);
        let trace = simulate(&setup, p.seed, FIVE_MINUTES);
        answered += trace
            .entries
            .iter()
            .filter(|e| {
                matches!(&e.record, podsim::trace::Record::Request(r)
                if r.target.starts_with("service/") && matches!(r.outcome, Outcome::Http { .. }))
            })
            .count();
        let report = check_run(&trace, &Clock { epoch: DEFAULT_EPOCH.parse().unwrap() }, &setup, FIVE_MINUTES);
        for p in &report.pods {
            judged.extend(p.verdicts.iter().filter(|(_, v)| matches!(v, Verdict::Holds { .. })).map(|(k, _)| *k));
        }
    }
    assert!(answered > 0, "no request through the Service got an HTTP answer");
    for rule in ["request-follows-proxy-rules", "proxy-after-slice", "one-outcome-per-request", "endpoint-conditions"] {
        assert!(judged.contains(rule), "{rule} never judged");
    }
}
