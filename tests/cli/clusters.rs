//! Errors in cluster profiles, `--kubernetes` and node names.

use crate::{POD, Run, TempDir, assert_bad_input, assert_error, line_of, manifest_error, podsim};

/// Runs the plain pod with the cluster profile `profile`; returns the run and the profile's path.
fn run_with_cluster(dir: &TempDir, profile: &str) -> (Run, String) {
    let pod = dir.write("pod.yaml", POD);
    let file = dir.write("cluster.yaml", profile);
    (podsim(["run", "-f", &pod, "--cluster", &file, "--until", "10s"]), file)
}

#[test]
fn cluster_unknown_kubernetes_version() {
    let dir = TempDir::new("cluster-version");
    let text = "name: test\nkubernetes: \"1.33\"\n";
    let (run, file) = run_with_cluster(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "kubernetes:"),
        r#"kubernetes: "1.33": podsim models Kubernetes 1.34, 1.35, 1.36 and 1.37"#,
    );
}

#[test]
fn cluster_unknown_feature_gate() {
    let dir = TempDir::new("cluster-gate");
    let text = "name: test\nkubernetes: \"1.37\"\nfeatureGates:\n  NoSuchGate: true\n";
    let (run, file) = run_with_cluster(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "NoSuchGate"),
        "featureGates.NoSuchGate: unrecognized feature gate: NoSuchGate",
    );
}

#[test]
fn cluster_locked_feature_gate_set_to_false() {
    let dir = TempDir::new("cluster-locked");
    let text = "name: test\nkubernetes: \"1.37\"\nfeatureGates:\n  PLEGOnDemandRelist: false\n";
    let (run, file) = run_with_cluster(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "PLEGOnDemandRelist"),
        "featureGates.PLEGOnDemandRelist: cannot set feature gate PLEGOnDemandRelist to false, feature is locked to true",
    );
}

#[test]
fn kubernetes_flag_with_an_unknown_version() {
    let dir = TempDir::new("kubernetes-flag");
    let pod = dir.write("pod.yaml", POD);
    let run = podsim(["run", "-f", &pod, "--kubernetes", "1.33"]);
    assert_bad_input(&run);
    assert!(
        run.stderr.contains(r#"error: --kubernetes: "1.33": podsim models Kubernetes 1.34, 1.35, 1.36 and 1.37"#),
        "{run:?}"
    );
}

#[test]
fn node_name_not_in_the_cluster() {
    manifest_error(
        "node-name",
        "  nodeName: node-9\n",
        "nodeName",
        r#"spec.nodeName: "node-9" is not a node of the cluster profile"#,
    );
}

/// A profile of 200,000 nodes hung podsim (its duplicate-name check went
/// over every pair): more than Kubernetes' tested 5,000 nodes is refused at
/// `nodes`; up to that, every node gets its own address (10.0.1.0 follows
/// 10.0.0.255).
#[test]
fn a_cluster_has_at_most_five_thousand_nodes() {
    let dir = TempDir::new("many-nodes");
    let profile = |n: usize| (0..n).map(|i| format!("- {{name: n{i}}}\n")).collect::<String>();
    let big = dir.write("big.yaml", &format!("nodes:\n{}", profile(5001)));
    let run = podsim(["run", "-f", "models/manifests/crashloop.yaml", "--cluster", &big, "--until", "1s"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains(":1:1: nodes: 5001 nodes: podsim models clusters of at most 5000 nodes"), "{run:?}");
    let wide = dir.write("wide.yaml", &format!("nodes:\n{}", profile(300)));
    let run = podsim([
        "get",
        "nodes",
        "-f",
        "models/manifests/crashloop.yaml",
        "--cluster",
        &wide,
        "-o",
        "wide",
        "--until",
        "1s",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let ip = |node: &str| {
        run.stdout
            .lines()
            .find(|l| l.starts_with(&format!("{node} ")))
            .map(|l| l.split_whitespace().nth(4).unwrap_or("").to_string())
    };
    assert_eq!(
        [ip("n245"), ip("n246"), ip("n299")],
        [Some("10.0.0.255".into()), Some("10.0.1.0".into()), Some("10.0.1.53".into())]
    );
}
