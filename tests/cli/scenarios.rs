//! Errors in scenario files, command-line flags and missing inputs.

use crate::{POD, TempDir, assert_bad_input, assert_error, line_of, pod_with, podsim, podsim_stdin};

#[test]
fn scenario_naming_a_missing_manifest() {
    let dir = TempDir::new("scenario-missing");
    let scenario = dir.write("scenarios/s.yaml", "manifests: [../manifests/nope.yaml]\nseed: 3\n");
    let run = podsim(["run", &scenario]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("does not exist"), "{run:?}");
    assert!(run.stderr.contains("manifests/nope.yaml"), "the error names the missing path: {run:?}");
}

#[test]
fn scenario_with_a_bad_epoch() {
    let dir = TempDir::new("scenario-epoch");
    dir.write("pod.yaml", POD);
    let text = "manifests: [pod.yaml]\nepoch: yesterday\n";
    let scenario = dir.write("s.yaml", text);
    let run = podsim(["run", &scenario]);
    assert_error(&run, &scenario, line_of(text, "epoch"), r#"epoch: "yesterday" is not an RFC 3339 time"#);
}

#[test]
fn missing_manifest_file() {
    let dir = TempDir::new("missing-file");
    let missing = dir.path("nope.yaml");
    let run = podsim(["run", "-f", &missing]);
    assert_bad_input(&run);
    // kubectl's words (cli-runtime's pathNotExistError).
    assert!(run.stderr.contains(&format!("error: --filename: the path {missing:?} does not exist")), "{run:?}");
}

/// `helm template` output on the standard input: a leading `---`, a
/// document that is only a `# Source:` comment, comments, and a `---` at
/// the end. Its file is STDIN in messages, as kubectl names it.
#[test]
fn manifests_from_the_standard_input_as_helm_template_writes_them() {
    let chart = "---\n# Source: web/templates/serviceaccount.yaml\n---\n# Source: web/templates/pod.yaml\n".to_string()
        + POD
        + "---\n";
    let run = podsim_stdin(["run", "-f", "-", "--until", "5s", "-o", "jsonl"], &chart);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains(r#""type":"ADDED""#), "{run:?}");
    let bad = podsim_stdin(["run", "-f", "-", "--until", "5s"], "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n");
    assert_bad_input(&bad);
    assert!(bad.stderr.contains("STDIN:"), "{bad:?}");
    let twice = podsim_stdin(["run", "-f", "-", "-f", "-"], POD);
    assert_bad_input(&twice);
    assert!(twice.stderr.contains("standard input cannot be used for multiple arguments"), "{twice:?}");
}

/// `-f DIR` reads the directory's manifests (not its other files), its
/// subdirectories only with `-R`.
#[test]
fn manifests_from_a_directory() {
    let dir = TempDir::new("manifest-dir");
    dir.write("README.md", "# not a manifest\n");
    dir.write("pod.yaml", POD);
    std::fs::create_dir_all(dir.path("more")).unwrap();
    let second = POD.replace("name: web", "name: web-2");
    assert_ne!(second, POD);
    dir.write("more/second.yml", &second);
    let root = dir.path("");
    let flat = podsim(["run", "-f", &root, "--until", "2s", "-o", "jsonl"]);
    assert_eq!(flat.code, Some(0), "{flat:?}");
    assert!(flat.stdout.contains(r#""name":"web""#) && !flat.stdout.contains(r#""name":"web-2""#), "{flat:?}");
    let deep = podsim(["run", "-f", &root, "-R", "--until", "2s", "-o", "jsonl"]);
    assert_eq!(deep.code, Some(0), "{deep:?}");
    assert!(deep.stdout.contains(r#""name":"web-2""#), "{deep:?}");
}

#[test]
fn bad_until_flag() {
    let run = podsim(["run", "models/scenarios/probe-actions.yaml", "--until", "5x"]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("invalid value '5x' for '--until"), "{run:?}");
    assert!(run.stderr.contains(r#"unknown unit "x""#), "{run:?}");
}

#[test]
fn negative_until_flag() {
    let run = podsim(["run", "models/scenarios/probe-actions.yaml", "--until=-5s"]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("must not be negative"), "{run:?}");
}

#[test]
fn bad_output_format() {
    let run = podsim(["run", "models/scenarios/probe-actions.yaml", "-o", "xml"]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("invalid value 'xml'"), "{run:?}");
}

#[test]
fn no_manifests_at_all() {
    let run = podsim(["run"]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("error: no manifests: give a scenario file or -f MANIFEST"), "{run:?}");
}

#[test]
fn manifest_file_without_a_pod() {
    let dir = TempDir::new("empty");
    let file = dir.write("empty.yaml", "# nothing here\n---\n");
    let run = podsim(["run", "-f", &file]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("the manifests declare no Pod"), "{run:?}");
}

#[test]
fn integer_too_large_names_the_field() {
    let dir = TempDir::new("huge-int");
    let text = pod_with("    ports: [{containerPort: 18446744073709551615}]\n");
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    assert_error(&run, &file, line_of(&text, "containerPort"), "spec.containers[0].ports[0].containerPort: ");
}

/// A chart rendered as `helm template` writes it (a leading `---`, `#
/// Source:` comments, a NetworkPolicy, a PodDisruptionBudget, a
/// ServiceAccount, a ConfigMap, a Service, a Deployment, an HPA, a `---` at
/// the end), piped in whole: the kinds podsim does not simulate are named
/// once (the ConfigMap, which the pods mount, and the PodDisruptionBudget
/// are simulated), and the
/// Deployment's two replicas become available.
#[test]
fn a_rendered_chart_runs_from_the_standard_input() {
    let chart = std::fs::read_to_string("models/manifests/rendered-chart.yaml").unwrap();
    let run = podsim_stdin(["run", "-f", "-", "--until", "60s"], &chart);
    assert_eq!(run.code, Some(0), "{run:?}");
    let note = "note: read, not simulated (they do not change how pods start, serve or stop here): \
                NetworkPolicy web; ServiceAccount web; HorizontalPodAutoscaler web\n";
    assert!(run.stderr.contains(note), "{run:?}");
    assert!(run.stdout.contains("READY 2/2, UP-TO-DATE 2, AVAILABLE 2"), "{run:?}");
    assert!(run.stdout.contains("Available=True MinimumReplicasAvailable"), "{run:?}");
}

/// A scenario's `app` or `cluster` naming a directory is located at its
/// field (fuzz finding F3): each names one file, while `manifests` may name
/// a directory whose files are all read; `--app` and `--cluster` likewise.
#[test]
fn a_scenario_app_or_cluster_naming_a_directory_is_located() {
    let dir = TempDir::new("scenario-dirs");
    let root = env!("CARGO_MANIFEST_DIR");
    let s = dir.write(
        "s.yaml",
        &format!("manifests: [{root}/models/manifests/c28-probe.yaml]\napp: {root}/models\ncluster: {root}/models/\n"),
    );
    let run = podsim(["run", &s]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(!run.stderr.contains("Is a directory"), "{run:?}");
    for (line, field, path) in [(2, "app", format!("{root}/models")), (3, "cluster", format!("{root}/models/"))] {
        let said = format!("{s}:{line}:");
        assert!(run.stderr.contains(&said), "{said}\n{run:?}");
        let said = format!("{field}: the path {path:?} is a directory: `{field}` names one file");
        assert!(run.stderr.contains(&said), "{said}\n{run:?}");
    }
    // The same rule for the flags that name one file.
    let run =
        podsim(["run", "-f", "models/manifests/c28-probe.yaml", "--app", "models/", "--cluster", "models/clusters"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    for (flag, path) in [("--app", "models/"), ("--cluster", "models/clusters")] {
        let said = format!("error: {flag}: the path {path:?} is a directory, not a file");
        assert!(run.stderr.contains(&said), "{said}\n{run:?}");
    }
}

/// A path a scenario names that does not exist is located at its field,
/// the same words for manifests, app and cluster.
#[test]
fn a_scenario_path_that_does_not_exist_is_located() {
    let dir = TempDir::new("scenario-paths");
    let root = env!("CARGO_MANIFEST_DIR");
    let s = dir.write(
        "s.yaml",
        &format!("manifests: [{root}/models/manifests/c28-probe.yaml, nope.yaml]\napp: status\ncluster: ../c.yaml\n"),
    );
    let run = podsim(["run", &s]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let dir_name = std::path::Path::new(&s).parent().expect("a dir").display().to_string();
    for (at, field, path) in
        [("1:", "manifests[1]", "nope.yaml"), ("2:6", "app", "status"), ("3:10", "cluster", "../c.yaml")]
    {
        let said = format!("{s}:{at}");
        assert!(run.stderr.contains(&said), "{said}\n{run:?}");
        let said = format!("{field}: the path \"{dir_name}/{path}\" does not exist (a path in a scenario is relative");
        assert!(run.stderr.contains(&said), "{said}\n{run:?}");
    }
    // A flag given instead replaces the scenario's path: nothing is said of it.
    let run = podsim([
        "run",
        &s,
        "--app",
        "models/apps/c28-probe.yaml",
        "--cluster",
        "models/clusters/kind.yaml",
        "-f",
        "models/manifests/c28-probe.yaml",
        "--until",
        "1s",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
}
