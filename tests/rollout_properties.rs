//! Property tests of rolling updates: a healthy Deployment of 1–12 replicas
//! rolls out a changed template at 30 s, with random maxSurge/maxUnavailable
//! (ints and percents), minReadySeconds, readiness timings of the new pods
//! (or new pods that never become Ready), nodes, versions and seeds. Each
//! property is judged on the trace's ReplicaSet, Deployment and Pod records,
//! against the rules of `src/control/deployment/SOURCES.md` §3.4.
//!
//! `PROPTEST_CASES=256 cargo test --release --test rollout_properties` runs a deeper search.

use podsim::api::deployment::{ConditionStatus, ConditionType, Reason};
use podsim::api::replicaset::ApiReplicaSet;
use podsim::app::Behaviours;
use podsim::cluster::{Cluster, Version};
use podsim::error::SourceFile;
use podsim::manifest::Manifests;
use podsim::run::{DEFAULT_EPOCH, ScenarioParts, setup, simulate};
use podsim::sim::{Action, Applied, Scheduled, Setup};
use podsim::time::{SimDuration, SimTime};
use podsim::trace::jsonl::{self, Header, SCHEMA};
use podsim::trace::record::WatchKind;
use podsim::trace::render::Clock;
use podsim::trace::{Record, Trace};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

/// When the changed template is applied.
const ROLLOUT_AT: SimTime = SimTime::from_millis(30_000);

/// `maxSurge` / `maxUnavailable` as written.
#[derive(Copy, Clone, Debug)]
enum Bound {
    Int(u32),
    Percent(u32),
}

impl Bound {
    fn yaml(self) -> String {
        match self {
            Bound::Int(n) => n.to_string(),
            Bound::Percent(p) => format!("\"{p}%\""),
        }
    }

    /// The number `getIntOrPercentValue` validates (`0` and `0%` are both 0).
    fn raw(self) -> u32 {
        match self {
            Bound::Int(n) | Bound::Percent(n) => n,
        }
    }

    /// intstr.GetScaledValueFromIntOrPercent.
    fn scaled(self, total: u32, round_up: bool) -> u32 {
        match self {
            Bound::Int(n) => n,
            Bound::Percent(p) if round_up => (p * total).div_ceil(100),
            Bound::Percent(p) => p * total / 100,
        }
    }
}

#[derive(Clone, Debug)]
struct Case {
    replicas: u32,
    surge: Bound,
    unavailable: Bound,
    /// `/v2` answers 503 for uniform(lo, lo + spread) ms after the process
    /// starts, then 200; `None`: 503 for ever (the rollout is stuck).
    ready_ms: Option<(u32, u32)>,
    min_ready: u32,
    /// The readiness probe's `periodSeconds`.
    period: u32,
    nodes: u32,
    grace: u32,
    version: usize,
    seed: u64,
}

impl Case {
    /// deploymentutil.ResolveFenceposts, then MaxUnavailable's cap at replicas:
    /// (surge rounded up, unavailable rounded down; both 0 → unavailable 1).
    fn fenceposts(&self) -> (u32, u32) {
        let surge = self.surge.scaled(self.replicas, true);
        let unavailable = self.unavailable.scaled(self.replicas, false);
        let unavailable = if surge == 0 && unavailable == 0 { 1 } else { unavailable };
        (surge, unavailable.min(self.replicas))
    }

    fn min_available(&self) -> u32 {
        self.replicas - self.fenceposts().1
    }

    fn max_total(&self) -> u32 {
        self.replicas + self.fenceposts().0
    }

    /// How long one new pod may take from its creation to being counted
    /// available by its ReplicaSet, and the Deployment reacting to it: start
    /// (scheduling, sandbox ≤ 1.2 s, cached image, container start: < 2 s), the
    /// app's 503 time, one probe period to see the 200, minReadySeconds and the
    /// ReplicaSet's availability requeue, status writes and watches (< 1 s),
    /// with 2 s to spare.
    fn wave(&self) -> SimDuration {
        let (lo, spread) = self.ready_ms.unwrap_or((0, 0));
        SimDuration::from_millis(u64::from(lo + spread))
            + SimDuration::from_secs(u64::from(self.period + self.min_ready) + 5)
    }

    /// A bound on rollout time (§3.4 arithmetic). Whenever every new pod created
    /// so far (N) is available, one sync scales the old ReplicaSets to
    /// max(0, replicas − unavailable − N) and the next raises the new one by
    /// min(surge + unavailable, replicas − N); the first sync creates it with
    /// min(surge + unavailable, replicas) (old first to replicas − unavailable,
    /// then new to the total cap). So ceil(replicas / (surge + unavailable))
    /// waves of pod starts, each within `wave()` of the previous one being
    /// available, then the last old scale-down and the status write (< 3 s).
    fn completion_bound(&self) -> SimDuration {
        let (s, u) = self.fenceposts();
        let waves = u64::from(self.replicas.div_ceil(s + u));
        self.wave() * waves + SimDuration::from_secs(3)
    }

    fn until(&self) -> SimTime {
        match self.ready_ms {
            Some(_) => ROLLOUT_AT + self.completion_bound() + SimDuration::from_secs(10),
            None => ROLLOUT_AT + SimDuration::from_secs(60),
        }
    }
}

fn bound(max_percent: u32) -> impl Strategy<Value = Bound> {
    prop_oneof![
        (0u32..5).prop_map(Bound::Int),
        prop::sample::select(vec![0u32, 1, 10, 20, 25, 30, 33, 50, 75, 100]).prop_map(Bound::Percent),
        (0u32..=max_percent).prop_map(Bound::Percent),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1u32..=12, bound(150), bound(100)),
        (proptest::option::weighted(0.75, (0u32..15_000, prop_oneof![Just(0u32), 0u32..5_000])), 0u32..=3, 1u32..=3),
        (1u32..=3, 0u32..=5, 0usize..Version::ALL.len(), any::<u64>()),
    )
        .prop_filter("maxSurge and maxUnavailable may not both be 0", |((_, s, u), _, _)| s.raw() + u.raw() > 0)
        .prop_map(
            |((replicas, surge, unavailable), (ready_ms, min_ready, period), (nodes, grace, version, seed))| Case {
                replicas,
                surge,
                unavailable,
                ready_ms,
                min_ready,
                period,
                nodes,
                grace,
                version,
                seed,
            },
        )
}

/// The Deployment, revision 1 (probing `/v1`) or 2 (image `app:2`, probing `/v2`).
fn deployment(c: &Case, revision: u8) -> String {
    let mut m = String::new();
    let _ = write!(
        m,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  replicas: {}\n  minReadySeconds: {}\n  selector: {{matchLabels: {{app: web}}}}\n  strategy:\n    type: RollingUpdate\n    rollingUpdate: {{maxSurge: {}, maxUnavailable: {}}}\n",
        c.replicas,
        c.min_ready,
        c.surge.yaml(),
        c.unavailable.yaml()
    );
    let _ = write!(
        m,
        "  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      terminationGracePeriodSeconds: {}\n      containers:\n      - name: app\n        image: app:{revision}\n        ports: [{{containerPort: 8080}}]\n        readinessProbe:\n          httpGet: {{path: /v{revision}, port: 8080}}\n          periodSeconds: {}\n",
        c.grace, c.period
    );
    m
}

fn app(c: &Case) -> String {
    let v2 = match c.ready_ms {
        Some((lo, spread)) => {
            format!("[{{until: \"uniform({lo}ms, {}ms)\", status: 503}}, {{status: 200}}]", lo + spread)
        }
        None => "[{status: 503}]".to_string(),
    };
    format!(
        "containers:\n  app:\n    listen: uniform(50ms, 300ms)\n    ports: [8080]\n    http:\n      /v1: [{{status: 200}}]\n      /v2: {v2}\n    sigterm: {{exit_after: \"uniform(0ms, 500ms)\", code: 0}}\n"
    )
}

fn cluster(c: &Case) -> Cluster {
    let nodes: Vec<String> = (1..=c.nodes).map(|i| format!("{{name: node-{i}, images: [\"*\"]}}")).collect();
    let file = Arc::new(SourceFile { name: "cluster.yaml".into(), text: format!("nodes: [{}]\n", nodes.join(", ")) });
    Cluster::load(&file).unwrap().with_version(Version::ALL[c.version]).unwrap()
}

fn build(c: &Case) -> Setup {
    let file = |name: &str, text: String| Arc::new(SourceFile { name: name.into(), text });
    let (v1, v2, behaviour) = (deployment(c, 1), deployment(c, 2), app(c));
    let manifests = Manifests::load(&[file("web.yaml", v1.clone())]).unwrap_or_else(|e| panic!("{e:?}\n{v1}"));
    let mut applied =
        Manifests::load(&[file("web-v2.yaml", v2.clone())]).unwrap_or_else(|e| panic!("{e:?}\n{v2}")).deployments;
    assert_eq!(applied.len(), 1);
    let behaviours =
        Behaviours::load(&file("app.yaml", behaviour.clone())).unwrap_or_else(|e| panic!("{e:?}\n{behaviour}"));
    let (mut setup, _) =
        setup(manifests, behaviours, cluster(c), DEFAULT_EPOCH.parse().unwrap(), ScenarioParts::default())
            .unwrap_or_else(|e| panic!("{e:?}\n{v1}\n{behaviour}"));
    let object = Applied::Deployment(Arc::new(applied.remove(0)));
    let action = Action::Apply { file: Arc::from("web-v2.yaml"), object };
    setup.actions = Arc::new(vec![Scheduled { at: ROLLOUT_AT, action }]);
    setup
}

/// What a run showed, for the vacuity test.
#[derive(Debug, Default)]
struct Seen {
    /// The largest Σ spec.replicas over the Deployment's ReplicaSets.
    max_spec: u32,
    /// The smallest Σ status.availableReplicas from the rollout on.
    min_available: u32,
    /// When the rollout completed (property 2), from its start.
    completed: Option<SimDuration>,
    /// A scale-down of an old ReplicaSet removed exactly the available
    /// replicas the rule allowed (Σ available − minAvailable).
    tight_scale_down: bool,
    /// Old ReplicaSet scale-down writes.
    scale_downs: u32,
}

fn ms(t: SimTime) -> String {
    format!("{:.3}s", t.as_secs_f64())
}

/// Properties 1–3 on one trace.
fn check(c: &Case, trace: &Trace) -> Result<Seen, String> {
    let (surge, unavailable) = c.fenceposts();
    let (min_available, max_total) = (c.min_available(), c.max_total());
    let mut seen = Seen { min_available: u32::MAX, ..Seen::default() };
    // The Deployment's ReplicaSets as last written, by uid.
    let mut sets: BTreeMap<Arc<str>, Arc<ApiReplicaSet>> = BTreeMap::new();
    // Pods as last written: (Ready, deleted).
    let mut pods: BTreeMap<Arc<str>, (bool, bool)> = BTreeMap::new();
    let mut healthy_at_rollout = false;
    let mut rolled = false;
    let mut min_old_spec = u32::MAX;
    let is_new = |rs: &ApiReplicaSet| rs.meta.created >= ROLLOUT_AT;
    for e in &trace.entries {
        let t = e.t;
        if !rolled && t >= ROLLOUT_AT {
            rolled = true;
            // The rollout starts from a healthy state: one ReplicaSet, all replicas available.
            let spec: u32 = sets.values().map(|r| r.spec.replicas).sum();
            let available: u32 = sets.values().map(|r| r.status.counts.available_replicas).sum();
            healthy_at_rollout = sets.len() == 1 && spec == c.replicas && available == c.replicas;
            if !healthy_at_rollout {
                return Err(format!(
                    "not healthy at {}: {} ReplicaSets, spec {spec}, available {available}",
                    ms(t),
                    sets.len()
                ));
            }
        }
        match &e.record {
            Record::ReplicaSet { kind, rs } => {
                let owned = rs.spec.owner.as_ref().is_some_and(|o| o.kind == "Deployment" && &*o.name == "web");
                if !owned {
                    return Err(format!("{}: ReplicaSet {} not owned by deployment/web", ms(t), rs.spec.name));
                }
                let previous = sets.get(&rs.meta.uid).cloned();
                match kind {
                    WatchKind::Deleted => sets.remove(&rs.meta.uid),
                    _ => sets.insert(rs.meta.uid.clone(), rs.clone()),
                };
                // Property 3: a scale-down write of an old ReplicaSet.
                if let Some(prev) = previous.filter(|p| !is_new(p) && rs.spec.replicas < p.spec.replicas) {
                    seen.scale_downs += 1;
                    let (from, to) = (prev.spec.replicas, rs.spec.replicas);
                    // The write was made on this very version (a conflict otherwise),
                    // so the controller read this ReplicaSet's status as recorded.
                    let own = rs.status.counts.available_replicas;
                    if from < own {
                        return Err(format!(
                            "{}: old {} scaled {from}→{to} while its status counted {own} available: \
                             cleanupUnhealthyReplicas refuses (\"invalid request to scale down\")",
                            ms(t),
                            rs.spec.name
                        ));
                    }
                    // The available replicas this write gives up.
                    let removed = own.saturating_sub(to);
                    // Σ available over the active old ReplicaSets (as before the write) and
                    // the new one, as last written: the new one's count only grows, so it
                    // is at least what the controller read.
                    let available: u32 = sets
                        .values()
                        .filter(|r| is_new(r) || r.meta.uid == rs.meta.uid || r.spec.replicas > 0)
                        .map(|r| r.status.counts.available_replicas)
                        .sum();
                    let allowed = available.saturating_sub(min_available);
                    if removed > allowed {
                        return Err(format!(
                            "{}: old {} scaled {from}→{to} gives up {removed} available replicas, \
                             but Σ available {available} − minAvailable {min_available} allows {allowed}",
                            ms(t),
                            rs.spec.name
                        ));
                    }
                    seen.tight_scale_down |= removed > 0 && removed == allowed;
                }
                if !is_new(rs) && rolled {
                    min_old_spec = min_old_spec.min(rs.spec.replicas);
                }
                // Property 1: the bounds, after every write.
                let spec: u32 = sets.values().map(|r| r.spec.replicas).sum();
                seen.max_spec = seen.max_spec.max(spec);
                if spec > max_total {
                    return Err(format!(
                        "{}: Σ spec.replicas {spec} > replicas {} + maxSurge {surge}: {}",
                        ms(t),
                        c.replicas,
                        describe(&sets)
                    ));
                }
                if rolled {
                    let available: u32 = sets.values().map(|r| r.status.counts.available_replicas).sum();
                    seen.min_available = seen.min_available.min(available);
                    if available < min_available {
                        return Err(format!(
                            "{}: Σ availableReplicas {available} < replicas {} − maxUnavailable {unavailable}: {}",
                            ms(t),
                            c.replicas,
                            describe(&sets)
                        ));
                    }
                }
                if c.ready_ms.is_none() && is_new(rs) && rs.status.counts.ready_replicas > 0 {
                    return Err(format!("{}: a new pod of the stuck rollout is Ready", ms(t)));
                }
            }
            Record::Pod { kind, pod } => {
                let ready = pod
                    .status
                    .conditions
                    .iter()
                    .any(|c| c.kind == podsim::api::status::ConditionType::Ready && c.status);
                match kind {
                    WatchKind::Deleted => pods.remove(&pod.meta.uid),
                    _ => pods.insert(pod.meta.uid.clone(), (ready, pod.meta.deletion.is_some())),
                };
                // Property 1, as the pods show it: Ready ⊇ available, so at least
                // minAvailable pods not being deleted are Ready.
                let ready_pods = pods.values().filter(|(ready, deleted)| *ready && !deleted).count() as u32;
                if rolled && ready_pods < min_available {
                    return Err(format!(
                        "{}: {ready_pods} Ready pods not being deleted < minAvailable {min_available} ({} {})",
                        ms(t),
                        kind.as_str(),
                        pod.spec.name
                    ));
                }
            }
            Record::Deployment { deployment: d, .. } if rolled && seen.completed.is_none() => {
                // Property 2: complete, on the new ReplicaSet.
                let s = &d.status;
                let progressing = s.conditions.iter().find(|c| c.kind == ConditionType::Progressing);
                let complete = progressing
                    .is_some_and(|p| p.status == ConditionStatus::True && p.reason == Reason::NewReplicaSetAvailable)
                    && d.meta.generation >= 2
                    && s.observed_generation >= d.meta.generation as u64
                    && s.updated_replicas == c.replicas
                    && s.available_replicas == c.replicas
                    && s.replicas == c.replicas;
                if complete {
                    seen.completed = Some(t.since(ROLLOUT_AT));
                }
            }
            _ => {}
        }
    }
    if !healthy_at_rollout {
        return Err("the run ended before the rollout".into());
    }
    let new: Vec<&Arc<ApiReplicaSet>> = sets.values().filter(|r| is_new(r)).collect();
    let old_spec: u32 = sets.values().filter(|r| !is_new(r)).map(|r| r.spec.replicas).sum();
    if new.len() != 1 {
        return Err(format!("{} new ReplicaSets: {}", new.len(), describe(&sets)));
    }
    match c.ready_ms {
        Some(_) => {
            let bound = c.completion_bound();
            match seen.completed {
                None => {
                    return Err(format!("not complete by {} (bound {bound:?}): {}", ms(c.until()), describe(&sets)));
                }
                Some(took) if took > bound => {
                    return Err(format!("complete {took:?} after the rollout, over the bound {bound:?}"));
                }
                Some(_) => {}
            }
            if old_spec != 0 || new[0].spec.replicas != c.replicas {
                return Err(format!("complete but not scaled: {}", describe(&sets)));
            }
        }
        None => {
            if seen.completed.is_some() {
                return Err("the stuck rollout completed".into());
            }
            // Property 3, stuck: with no new replica available, maxScaledDown is
            // Σ old − minAvailable and scaleDownOldReplicaSetsForRollingUpdate takes
            // the old ones down to exactly minAvailable, never below; the new one
            // then grows to the cap: min(replicas, surge + unavailable).
            if min_old_spec < min_available {
                return Err(format!("stuck: an old ReplicaSet went to {min_old_spec} < minAvailable {min_available}"));
            }
            let want_new = c.replicas.min(surge + unavailable);
            if old_spec != min_available || new[0].spec.replicas != want_new {
                return Err(format!(
                    "stuck: settled at old {old_spec}, new {}; the rule gives old {min_available}, new {want_new}: {}",
                    new[0].spec.replicas,
                    describe(&sets)
                ));
            }
        }
    }
    Ok(seen)
}

fn describe(sets: &BTreeMap<Arc<str>, Arc<ApiReplicaSet>>) -> String {
    let parts: Vec<String> = sets
        .values()
        .map(|r| {
            let s = &r.status.counts;
            format!(
                "{} spec {} (status replicas {}, available {})",
                r.spec.name, r.spec.replicas, s.replicas, s.available_replicas
            )
        })
        .collect();
    parts.join("; ")
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

/// The case count: `PROPTEST_CASES` when set (a deeper search), else the default.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn run(c: &Case) -> Result<Seen, String> {
    let setup = build(c);
    let trace = simulate(&setup, c.seed, c.until());
    check(c, &trace)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(32), ..ProptestConfig::default() })]

    /// Properties 1–3: Σ spec ≤ replicas + maxSurge and Σ available ≥
    /// replicas − maxUnavailable after every write; a rollout whose new pods
    /// become available completes within the derived bound; every old
    /// scale-down gives up no more available replicas than Σ available −
    /// minAvailable allowed, and a stuck rollout settles exactly where
    /// reconcileOldReplicaSets / NewRSNewReplicas put it.
    #[test]
    fn rolling_update_keeps_its_bounds(c in case()) {
        let result = run(&c);
        prop_assert!(result.is_ok(), "{}\n{c:?}\nfenceposts {:?}\n{}\n{}", result.unwrap_err(), c.fenceposts(), deployment(&c, 2), app(&c));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(16), ..ProptestConfig::default() })]

    /// Property 4: the same inputs and seed give the same bytes.
    #[test]
    fn same_rollout_same_bytes(c in case()) {
        let setup = build(&c);
        prop_assert!(jsonl_bytes(&setup, c.seed, c.until()) == jsonl_bytes(&setup, c.seed, c.until()), "{c:?}");
    }
}

/// The generated cases are not vacuous: across a fixed sample, some roll out
/// fully and some get stuck, Σ spec reaches replicas + maxSurge and Σ
/// available reaches replicas − maxUnavailable, and some old scale-down
/// uses all the room the rule gives.
#[test]
fn generated_rollouts_reach_their_bounds() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = case();
    let (mut complete, mut stuck, mut surge_reached, mut unavailable_reached, mut tight) = (0, 0, 0, 0, 0);
    let mut worst = 0.0f64;
    for _ in 0..24 {
        let c = strategy.new_tree(&mut runner).unwrap().current();
        let seen = run(&c).unwrap_or_else(|e| panic!("{e}\n{c:?}"));
        match seen.completed {
            Some(took) => {
                complete += 1;
                worst = worst.max(took.as_secs_f64() / c.completion_bound().as_secs_f64());
            }
            None => stuck += 1,
        }
        let (s, u) = c.fenceposts();
        surge_reached += usize::from(s > 0 && seen.max_spec == c.max_total());
        unavailable_reached += usize::from(u > 0 && seen.min_available == c.min_available());
        tight += usize::from(seen.tight_scale_down);
    }
    eprintln!(
        "{complete} complete, {stuck} stuck; surge bound reached in {surge_reached}, unavailable bound in {unavailable_reached}; \
         {tight} with a scale-down using all its room; slowest rollout {:.0}% of its bound",
        worst * 100.0
    );
    assert!(complete > 0 && stuck > 0, "{complete} complete, {stuck} stuck");
    assert!(surge_reached > 0, "Σ spec never reached replicas + maxSurge");
    assert!(unavailable_reached > 0, "Σ available never came down to replicas − maxUnavailable");
    assert!(tight > 0, "no old scale-down used all the room the rule gave");
}
