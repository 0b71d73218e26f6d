//! Property test of the Eviction API under `kubectl drain`: random nodes, a
//! Deployment of random size whose pods become Ready after a random delay,
//! a PodDisruptionBudget of a random kind (minAvailable or maxUnavailable,
//! a count or a percent), and drains of one or two nodes at random times.
//! Whatever the draws, an eviction never takes the budget's Ready pods
//! below its desiredHealthy: each time a Ready pod starts deleting, the
//! Ready pods not deleting still number at least that many
//! (`checkAndDecrement` refuses with 429 when `disruptionsAllowed` is 0, and
//! the disruption controller counts an evicted pod out at once through
//! `disruptedPods`).
//!
//! `PROPTEST_CASES=256 cargo test --release --test disruption_properties` runs a deeper search.

use podsim::app::Behaviours;
use podsim::cluster::Cluster;
use podsim::error::SourceFile;
use podsim::manifest::Manifests;
use podsim::run::{DEFAULT_EPOCH, ScenarioParts, setup, simulate};
use podsim::scenario::ActionOrigin;
use podsim::scenario::actions::{Action, Timed};
use podsim::scenario::drain::DrainOptions;
use podsim::time::{SimDuration, SimTime};
use podsim::trace::Record;
use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Budget {
    MinAvailable(u32),
    MinAvailablePercent(u32),
    MaxUnavailable(u32),
    MaxUnavailablePercent(u32),
}

#[derive(Clone, Debug)]
struct Case {
    nodes: usize,
    replicas: u32,
    budget: Budget,
    /// Seconds until a pod's /ready answers 200.
    ready_after: u32,
    /// (seconds, node index) of each drain.
    drains: Vec<(u32, usize)>,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    let budget = prop_oneof![
        (0u32..6).prop_map(Budget::MinAvailable),
        (0u32..=100).prop_map(Budget::MinAvailablePercent),
        (0u32..4).prop_map(Budget::MaxUnavailable),
        (0u32..=100).prop_map(Budget::MaxUnavailablePercent),
    ];
    (2usize..4, 1u32..6, budget, 1u32..15, prop::collection::vec((5u32..60, 0usize..3), 1..3), any::<u64>()).prop_map(
        |(nodes, replicas, budget, ready_after, drains, seed)| Case {
            nodes,
            replicas,
            budget,
            ready_after,
            drains: drains.into_iter().map(|(t, n)| (t, n % nodes)).collect(),
            seed,
        },
    )
}

impl Case {
    /// desiredHealthy as `getExpectedPodCount` computes it for a Deployment
    /// of `replicas` (percentages rounded up).
    fn desired_healthy(&self) -> i64 {
        let r = i64::from(self.replicas);
        let up = |p: u32| (i64::from(p) * r + 99) / 100;
        match self.budget {
            Budget::MinAvailable(n) => i64::from(n),
            Budget::MinAvailablePercent(p) => up(p),
            Budget::MaxUnavailable(m) => (r - i64::from(m)).max(0),
            Budget::MaxUnavailablePercent(p) => (r - up(p)).max(0),
        }
    }

    fn manifest(&self) -> String {
        let bound = match self.budget {
            Budget::MinAvailable(n) => format!("minAvailable: {n}"),
            Budget::MinAvailablePercent(p) => format!("minAvailable: \"{p}%\""),
            Budget::MaxUnavailable(m) => format!("maxUnavailable: {m}"),
            Budget::MaxUnavailablePercent(p) => format!("maxUnavailable: \"{p}%\""),
        };
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  replicas: {}\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n        readinessProbe: {{httpGet: {{path: /ready, port: 80}}, periodSeconds: 2}}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: web}}\nspec:\n  {bound}\n  selector: {{matchLabels: {{app: web}}}}\n",
            self.replicas
        )
    }
}

fn file(name: &str, text: String) -> Arc<SourceFile> {
    Arc::new(SourceFile { name: name.into(), text })
}

/// Every eviction of a Ready pod leaves at least desiredHealthy Ready pods
/// not deleting. Returns how many Ready pods were evicted.
fn holds(c: &Case) -> Result<usize, String> {
    let text = c.manifest();
    let manifests = Manifests::load(&[file("web.yaml", text.clone())]).map_err(|e| format!("{e:?}\n{text}"))?;
    let app = format!(
        "containers:\n  web:\n    ports: [80]\n    http:\n      /ready: [{{until: {}s, status: 503}}, {{status: 200}}]\n",
        c.ready_after
    );
    let behaviours = Behaviours::load(&file("app.yaml", app)).map_err(|e| format!("{e:?}"))?;
    let nodes: Vec<String> = (0..c.nodes).map(|i| format!("{{name: node-{i}}}")).collect();
    let cluster = Cluster::load(&file("cluster.yaml", format!("nodes: [{}]\n", nodes.join(", ")))).unwrap();
    let drains = (c.drains.iter()).map(|(t, n)| {
        let timed = Timed {
            at: SimTime::ZERO + SimDuration::from_secs(u64::from(*t)),
            action: Action::Drain(DrainOptions::new(format!("node-{n}"))),
        };
        (timed, ActionOrigin::Flag(format!("--drain node/node-{n}@{t}s")))
    });
    let parts = ScenarioParts { actions: drains.collect(), ..ScenarioParts::default() };
    let (setup, _) = setup(manifests, behaviours, cluster, DEFAULT_EPOCH.parse().unwrap(), parts)
        .map_err(|e| format!("{e:?}\n{text}"))?;
    let trace = simulate(&setup, c.seed, SimTime::from_millis(120_000));
    let desired = c.desired_healthy();
    // Each pod as last written: (Ready, deleting).
    let mut pods: BTreeMap<Arc<str>, (bool, bool)> = BTreeMap::new();
    let mut evicted = 0;
    for e in &trace.entries {
        let Record::Pod { pod, .. } = &e.record else { continue };
        let ready = pod.status.condition_true(&podsim::api::status::ConditionType::Ready);
        let state = (ready, pod.meta.deletion.is_some());
        let before = pods.insert(pod.meta.uid.clone(), state);
        if pod.meta.removed {
            pods.remove(&pod.meta.uid);
        }
        if before == Some((true, false)) && state.1 {
            evicted += 1;
            let left = pods.values().filter(|(r, d)| *r && !*d).count() as i64;
            if left < desired {
                return Err(format!(
                    "at {}: evicting {} left {left} Ready pods, desiredHealthy {desired}\n{text}",
                    e.t, pod.spec.name
                ));
            }
        }
    }
    Ok(evicted)
}

/// The case count: `PROPTEST_CASES` when set (a deeper search), else the default.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(24), ..ProptestConfig::default() })]

    #[test]
    fn a_drain_never_takes_a_budget_below_its_desired_healthy(c in case()) {
        let r = holds(&c);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

/// The property is not vacuous: `drain.yaml`'s shape (three replicas on two
/// nodes, minAvailable 2) evicts Ready pods, and a budget of 0 lets every
/// pod of a drained node go at once.
#[test]
fn drains_do_evict_ready_pods() {
    let c = Case {
        nodes: 2,
        replicas: 3,
        budget: Budget::MinAvailable(2),
        ready_after: 5,
        drains: vec![(30, 0), (60, 1)],
        seed: 1,
    };
    assert!(holds(&c).unwrap() >= 2);
    let c = Case { budget: Budget::MaxUnavailablePercent(100), ..c };
    assert!(holds(&c).unwrap() >= 2);
}
