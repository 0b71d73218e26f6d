//! Runs per second of whole simulations on the Service path: the c28 scenario
//! (one pod behind a Service on a two-node kind cluster, 30 requests), and a
//! Service in front of many pods with a client sending to it.
//! `cargo bench --bench service`.

use criterion::{Criterion, criterion_group, criterion_main};
use podsim::app::Behaviours;
use podsim::cluster::Cluster;
use podsim::dist::Dist;
use podsim::error::SourceFile;
use podsim::manifest::Manifests;
use podsim::run::{DEFAULT_EPOCH, Inputs, ScenarioParts, prepare, setup, simulate};
use podsim::scenario::ActionOrigin;
use podsim::scenario::traffic::{To, Traffic, When};
use podsim::sim::Setup;
use podsim::time::{SimDuration, SimTime};
use std::fmt::Write;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

/// How long the many-endpoint runs last (simulated).
const ENDPOINTS_UNTIL: SimDuration = SimDuration::from_secs(60);

fn scenario(name: &str) -> podsim::run::Prepared {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/scenarios").join(format!("{name}.yaml"));
    prepare(&Inputs { scenario: Some(path), ..Inputs::default() }).expect("the scenario loads")
}

/// `pods` pods `web-0`… (label `app: web`, container `app` with a port named
/// `http`, no probes) behind Service `web` (`targetPort: http`) on three
/// nodes, and a client on node-1 sending `GET /` to the Service every second
/// from 5 s on. Built through the public API, as a scenario would be.
fn many_endpoints(pods: usize) -> Setup {
    let mut m = String::new();
    for i in 0..pods {
        let _ = write!(
            m,
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: web-{i}, labels: {{app: web}}}}\nspec:\n  containers:\n  - name: app\n    image: nginx\n    ports: [{{name: http, containerPort: 8080}}]\n---\n"
        );
    }
    m.push_str(
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]\n",
    );
    let file = |name: &str, text: &str| Arc::new(SourceFile { name: name.into(), text: text.into() });
    let manifests = Manifests::load(&[file("web.yaml", &m)]).expect("the manifests load");
    let app =
        "containers:\n  app:\n    listen: 100ms\n    ports: [8080]\n    http: {/: [{status: 200, latency: 2ms}]}\n";
    let behaviours = Behaviours::load(&file("app.yaml", app)).expect("the behaviours load");
    let cluster = "nodes: [{name: node-1}, {name: node-2}, {name: node-3}]\n";
    let cluster = Cluster::load(&file("cluster.yaml", cluster)).expect("the cluster loads");
    let client = Traffic {
        name: Some("curl".into()),
        from: Some(podsim::scenario::traffic::From::Node("node-1".into())),
        to: To::Service { name: "web".into(), port: Some("http".into()) },
        path: "/".into(),
        when: When::Every {
            start: SimTime::ZERO + SimDuration::from_secs(5),
            every: Dist::Fixed(SimDuration::from_secs(1)),
            count: None,
        },
        timeout: SimDuration::from_secs(1),
    };
    let parts = ScenarioParts { traffic: vec![(client, ActionOrigin::Flag("curl".into()))], ..Default::default() };
    let epoch = DEFAULT_EPOCH.parse().expect("the default epoch parses");
    let (setup, warnings) = setup(manifests, behaviours, cluster, epoch, parts).expect("the setup builds");
    assert!(warnings.is_empty(), "{warnings:?}");
    setup
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("service");
    let p = scenario("c28-service");
    let until = SimTime::ZERO + p.until;
    let mut seed = 0u64;
    group.bench_function("c28-service", |b| {
        b.iter(|| {
            seed += 1;
            black_box(simulate(&p.setup, seed, until).entries.len())
        })
    });
    for pods in [10, 100] {
        let s = many_endpoints(pods);
        let until = SimTime::ZERO + ENDPOINTS_UNTIL;
        let mut seed = 0u64;
        group.bench_function(format!("endpoints-{pods}"), |b| {
            b.iter(|| {
                seed += 1;
                black_box(simulate(&s, seed, until).entries.len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
