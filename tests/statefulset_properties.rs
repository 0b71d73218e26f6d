//! Property tests of the StatefulSet controller: a set of 1–5 replicas,
//! OrderedReady or Parallel, starts, then at 60 s rolls out a new template
//! with a random partition, whose pods become Ready after a random time or
//! never; random nodes, versions and seeds. Judged on the trace's Pod
//! records against stateful_set_control.go's rules:
//!
//! 1. never two pods of one ordinal at once (a replacement is created only
//!    once the old pod is gone: the name is the identity);
//! 2. under OrderedReady, ordinal N+1 is created only while ordinal N is
//!    Running and Ready and not being deleted (`processReplica`, monotonic);
//! 3. the rolling update deletes old pods from the highest ordinal down,
//!    never one below the partition, and (gate off, or OrderedReady) each
//!    only once every pod above it is updated and Ready;
//! 4. a rollout whose pods become Ready reaches every ordinal at or above
//!    the partition; one whose pods never do stops at the first it replaced.
//!
//! `PROPTEST_CASES=64 cargo test --release --test statefulset_properties` searches deeper.

use podsim::app::Behaviours;
use podsim::cluster::{Cluster, Version};
use podsim::error::SourceFile;
use podsim::manifest::Manifests;
use podsim::run::{DEFAULT_EPOCH, ScenarioParts, setup, simulate};
use podsim::sim::{Action, Applied, Scheduled, Setup};
use podsim::time::SimTime;
use podsim::trace::record::WatchKind;
use podsim::trace::{Record, Trace};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

/// When the new template is applied, and how long the run goes on after.
const ROLLOUT_AT: SimTime = SimTime::from_millis(60_000);
const UNTIL: SimTime = SimTime::from_millis(240_000);

#[derive(Clone, Debug)]
struct Case {
    replicas: u32,
    parallel: bool,
    partition: u32,
    /// The new pods' `/v2` answers 503 for this long after their process
    /// starts, then 200; `None`: 503 for ever.
    ready_ms: Option<u32>,
    nodes: u32,
    version: usize,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        1u32..=5,
        any::<bool>(),
        0u32..=5,
        proptest::option::weighted(0.75, 0u32..8_000),
        1u32..=2,
        0usize..Version::ALL.len(),
        any::<u64>(),
    )
        .prop_map(|(replicas, parallel, partition, ready_ms, nodes, version, seed)| Case {
            replicas,
            parallel,
            partition,
            ready_ms,
            nodes,
            version,
            seed,
        })
}

/// The set, revision 1 (probing `/v1`) or 2 (image `app:2`, probing `/v2`, the partition).
fn stateful_set(c: &Case, revision: u8) -> String {
    let policy = if c.parallel { "Parallel" } else { "OrderedReady" };
    let strategy = match revision {
        1 => String::new(),
        _ => format!("  updateStrategy:\n    rollingUpdate: {{partition: {}}}\n", c.partition),
    };
    format!(
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: db}}\nspec:\n  replicas: {}\n  podManagementPolicy: {policy}\n{strategy}  serviceName: db\n  selector: {{matchLabels: {{app: db}}}}\n  template:\n    metadata: {{labels: {{app: db}}}}\n    spec:\n      terminationGracePeriodSeconds: 5\n      containers:\n      - name: app\n        image: app:{revision}\n        ports: [{{containerPort: 8080}}]\n        readinessProbe:\n          httpGet: {{path: /v{revision}, port: 8080}}\n          periodSeconds: 1\n",
        c.replicas
    )
}

fn app(c: &Case) -> String {
    let v2 = match c.ready_ms {
        Some(ms) => format!("[{{until: {ms}ms, status: 503}}, {{status: 200}}]"),
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
    let (v1, v2, behaviour) = (stateful_set(c, 1), stateful_set(c, 2), app(c));
    let manifests = Manifests::load(&[file("db.yaml", v1.clone())]).unwrap_or_else(|e| panic!("{e:?}\n{v1}"));
    let mut applied =
        Manifests::load(&[file("db-v2.yaml", v2.clone())]).unwrap_or_else(|e| panic!("{e:?}\n{v2}")).stateful_sets;
    let behaviours = Behaviours::load(&file("app.yaml", behaviour.clone())).unwrap_or_else(|e| panic!("{e:?}"));
    let (mut setup, _) =
        setup(manifests, behaviours, cluster(c), DEFAULT_EPOCH.parse().unwrap(), ScenarioParts::default())
            .unwrap_or_else(|e| panic!("{e:?}\n{v1}"));
    let object = Applied::StatefulSet(Arc::new(applied.remove(0)));
    setup.actions =
        Arc::new(vec![Scheduled { at: ROLLOUT_AT, action: Action::Apply { file: Arc::from("db-v2.yaml"), object } }]);
    setup
}

/// One pod's last version as the trace showed it.
#[derive(Clone, Debug)]
struct Last {
    uid: Arc<str>,
    image: String,
    ready: bool,
    deleting: bool,
}

fn ordinal(name: &str) -> u32 {
    name.rsplit_once('-').and_then(|(_, n)| n.parse().ok()).expect("an ordinal")
}

fn check(c: &Case, trace: &Trace) -> Result<(), String> {
    let mut live: BTreeMap<u32, Last> = BTreeMap::new();
    // Deletions of old-revision pods for the update, in order.
    let mut update_deletions: Vec<(SimTime, u32)> = Vec::new();
    for e in &trace.entries {
        let Record::Pod { kind, pod } = &e.record else { continue };
        let n = ordinal(&pod.spec.name);
        let image = pod.spec.containers[0].image.clone();
        let ready = pod.status.phase == podsim::api::status::PodPhase::Running
            && pod.status.condition_true(&podsim::api::status::ConditionType::Ready);
        let deleting = pod.meta.deletion.is_some();
        let t = e.t.as_millis();
        match (kind, live.get(&n)) {
            // 1. one pod per ordinal
            (WatchKind::Added, Some(old)) => {
                return Err(format!(
                    "{t} ms: {} created while {} (uid {}) lives",
                    pod.spec.name, pod.spec.name, old.uid
                ));
            }
            // 2. OrderedReady: the ordinal below is Running and Ready, not deleting.
            (WatchKind::Added, None) if !c.parallel && n > 0 => match live.get(&(n - 1)) {
                Some(below) if below.ready && !below.deleting => {}
                below => {
                    return Err(format!("{t} ms: {} created while ordinal {} is {below:?}", pod.spec.name, n - 1));
                }
            },
            (WatchKind::Deleted, _) => {
                live.remove(&n);
                continue;
            }
            (WatchKind::Modified, Some(old)) if !old.deleting && deleting && e.t > ROLLOUT_AT && image == "app:1" => {
                update_deletions.push((e.t, n));
                // 3. never below the partition; every pod above updated and Ready.
                if n < c.partition {
                    return Err(format!("{t} ms: {} below the partition {} deleted", pod.spec.name, c.partition));
                }
                let above_ok = live.range(n + 1..).all(|(_, p)| p.image == "app:2" && p.ready && !p.deleting);
                let one_at_a_time = !c.parallel || Version::ALL[c.version] < Version::V1_37;
                if one_at_a_time && c.ready_ms.is_some() && !above_ok {
                    return Err(format!(
                        "{t} ms: {} deleted before every pod above is updated and Ready: {live:?}",
                        pod.spec.name
                    ));
                }
            }
            _ => {}
        }
        live.insert(n, Last { uid: pod.meta.uid.clone(), image, ready, deleting });
    }
    // 3. from the top down.
    let ordinals: Vec<u32> = update_deletions.iter().map(|(_, n)| *n).collect();
    if !c.parallel && ordinals.windows(2).any(|w| w[1] >= w[0]) {
        return Err(format!("update deletions not from the top down: {update_deletions:?}"));
    }
    // 4. how far the rollout got.
    let expected: Vec<u32> = match c.ready_ms {
        Some(_) => (c.partition..c.replicas).rev().collect(),
        None if c.partition < c.replicas && !c.parallel => vec![c.replicas - 1],
        None => return Ok(()),
    };
    if ordinals != expected {
        return Err(format!("update deletions {ordinals:?}, expected {expected:?}"));
    }
    if c.ready_ms.is_some() {
        for (n, p) in &live {
            let want = if *n >= c.partition { "app:2" } else { "app:1" };
            if p.image != want || !p.ready {
                return Err(format!("at the end, ordinal {n} is {p:?}, expected {want} and Ready"));
            }
        }
    }
    Ok(())
}

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(24), ..ProptestConfig::default() })]

    #[test]
    fn the_controller_keeps_ordinal_order_and_updates_from_the_top(c in case()) {
        let setup = build(&c);
        let trace = simulate(&setup, c.seed, UNTIL);
        let result = check(&c, &trace);
        prop_assert!(result.is_ok(), "{}\n{c:?}\n{}\n{}", result.unwrap_err(), stateful_set(&c, 2), app(&c));
    }
}
