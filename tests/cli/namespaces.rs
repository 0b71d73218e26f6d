//! Namespaces: Namespace objects, objects in a namespace no manifest
//! creates (assumed, and said), `--namespace`, and Services that select only their own
//! namespace's pods.

use crate::{TempDir, assert_bad_input, podsim};

/// A Namespace, and a pod and a Service named `web` in it.
fn app(ns: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n---\n\
         apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: {ns}\n  labels: {{app: web}}\n\
         spec:\n  containers:\n  - name: app\n    image: nginx:1.27\n    ports: [{{containerPort: 80}}]\n---\n\
         apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: {ns}\n\
         spec:\n  selector: {{app: web}}\n  ports: [{{port: 80}}]\n"
    )
}

/// Two namespaces, each with a pod and a Service named `web`: names are
/// unique per namespace, and each Service's EndpointSlice lists only the
/// pod of its own namespace.
#[test]
fn a_service_selects_the_pods_of_its_own_namespace() {
    let dir = TempDir::new("namespaces");
    let (shop, blog) = (dir.write("shop.yaml", &app("shop")), dir.write("blog.yaml", &app("blog")));
    let run = podsim(["run", "-f", &shop, "-f", &blog, "--until", "30s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let mut slices = 0;
    for line in run.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(o) = v.get("object").filter(|o| o["kind"] == "EndpointSlice") else { continue };
        slices += 1;
        let ns = &o["metadata"]["namespace"];
        assert_eq!(o["metadata"]["labels"]["kubernetes.io/service-name"], "web");
        for e in o["endpoints"].as_array().into_iter().flatten() {
            assert_eq!(&e["targetRef"]["namespace"], ns, "{line}");
        }
    }
    assert!(slices >= 4, "both slices created and filled: {slices}");
    assert!(!run.stderr.contains("Namespace"), "Namespaces are simulated, not noted: {run:?}");
}

/// An object in a namespace that neither every cluster has nor a manifest
/// creates runs, and the run says once that it assumed the namespace.
#[test]
fn a_namespace_no_manifest_creates_is_assumed_and_said() {
    let dir = TempDir::new("namespace-missing");
    let text = app("shop").split_once("---\n").unwrap().1.to_string();
    let file = dir.write("app.yaml", &text);
    let run = podsim(["run", "-f", &file, "--until", "2s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let note = r#"note: assumed to exist, as no manifest creates them: namespace shop (a cluster without them refuses their objects: namespaces "shop" not found)"#;
    assert_eq!(run.stderr.matches(note).count(), 1, "{run:?}");
}

/// `--namespace` puts the objects that name none there, and refuses one
/// that names another, with kubectl's message.
#[test]
fn the_namespace_flag_is_kubectls() {
    let dir = TempDir::new("namespace-flag");
    let text = app("shop");
    let file = dir.write("app.yaml", &text);
    let other = podsim(["run", "-f", &file, "-n", "blog"]);
    assert_bad_input(&other);
    assert!(
        other.stderr.contains(
            r#"the namespace from the provided object "shop" does not match the namespace "blog". You must pass '--namespace=shop' to perform this operation."#
        ),
        "{other:?}"
    );
    let unnamed = dir.write("plain.yaml", &text.replace("  namespace: shop\n", ""));
    let run = podsim(["run", "-f", &unnamed, "-n", "shop", "--until", "2s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains(r#""namespace":"shop""#) && !run.stdout.contains(r#""namespace":"default""#),
        "{run:?}"
    );
}

/// With two namespaces the timeline table gets kubectl's NAMESPACE column
/// (`kubectl get -A`): each namespaced row names its namespace, cluster
/// objects (nodes) none; with one namespace the column is left out. In the
/// JSON Lines trace the kubelet's records carry the pod's namespace.
#[test]
fn the_table_shows_namespaces_when_a_run_has_more_than_one() {
    let dir = TempDir::new("namespaces-table");
    let (shop, blog) = (dir.write("shop.yaml", &app("shop")), dir.write("blog.yaml", &app("blog")));
    let run = podsim(["run", "-f", &shop, "-f", &blog, "--until", "8s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let header = run.stdout.lines().next().unwrap();
    assert_eq!(header.split_whitespace().collect::<Vec<_>>(), ["TIME", "NAMESPACE", "OBJECT", "CHANGE", "WHY"]);
    let cells = |l: &str| l.split_whitespace().take(3).map(str::to_string).collect::<Vec<_>>();
    let rows: Vec<Vec<String>> = run.stdout.lines().skip(1).map(cells).collect();
    for ns in ["shop", "blog"] {
        for object in ["pod/web", "service/web"] {
            assert!(rows.iter().any(|r| r[1] == ns && r[2] == object), "{ns} {object}: {run:?}");
        }
        assert!(rows.iter().any(|r| r[1] == ns && r[2].starts_with("endpointslice/web-")), "{run:?}");
    }
    assert!(rows.iter().filter(|r| r[1].starts_with("node/")).count() >= 2, "nodes have no namespace: {run:?}");
    let one = podsim(["run", "-f", &shop, "--until", "8s"]);
    assert!(one.stdout.lines().next().unwrap().split_whitespace().all(|c| c != "NAMESPACE"), "{one:?}");
    let jsonl = podsim(["run", "-f", &shop, "-f", &blog, "--until", "20s", "-o", "jsonl"]);
    for kind in ["PROCESS", "KUBELET"] {
        let lines: Vec<&str> = jsonl.stdout.lines().filter(|l| l.contains(&format!("\"type\":\"{kind}\""))).collect();
        assert!(!lines.is_empty(), "{kind}");
        for ns in ["shop", "blog"] {
            assert!(lines.iter().any(|l| l.contains(&format!("\"namespace\":\"{ns}\""))), "{kind} {ns}");
        }
    }
}
