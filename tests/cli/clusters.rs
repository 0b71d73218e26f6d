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
