//! Manifests with YAML/JSON syntax errors, type errors and unknown fields.

use crate::{TempDir, assert_bad_input, assert_error, line_of, pod_with, podsim};

#[test]
fn malformed_yaml_unclosed_flow_sequence() {
    let dir = TempDir::new("malformed");
    let text = pod_with("    command: [sleep, \"3600\"\n");
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    let col = assert_error(&run, &file, line_of(&text, "command: ["), "unclosed bracket '['");
    assert_eq!(col, 14, "the caret points at the '[': {run:?}");
}

#[test]
fn malformed_yaml_unclosed_flow_sequence_before_more_keys() {
    let dir = TempDir::new("malformed-more");
    let text = pod_with("    command: [sleep, \"3600\"\n    ports:\n    - containerPort: 80\n");
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    assert_bad_input(&run);
    // Where the bracket opened (like the end-of-file case) or where the parser gave up (like
    // Go's yaml: "did not find expected ',' or ']'"); either way the message names the bracket.
    let opened = line_of(&text, "command: [");
    let found = [opened, opened + 1].iter().any(|l| {
        run.stderr
            .lines()
            .any(|x| x.starts_with(&format!("error: {file}:{l}:")) && (x.contains('[') || x.contains(']')))
    });
    assert!(found, "the error should name the unclosed '[' of line {opened}: {run:?}");
}

#[test]
fn json_manifest_with_a_type_error() {
    let dir = TempDir::new("json-type");
    let text = r#"{
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {"name": "web"},
  "spec": {
    "containers": [{
      "name": "app",
      "image": "nginx:1.27",
      "livenessProbe": {
        "tcpSocket": {"port": 80},
        "periodSeconds": "ten"
      }
    }]
  }
}
"#;
    let file = dir.write("pod.json", text);
    let run = podsim(["run", "-f", &file]);
    let col = assert_error(
        &run,
        &file,
        line_of(text, "\"periodSeconds\""),
        "spec.containers[0].livenessProbe.periodSeconds: invalid type: string \"ten\"",
    );
    assert_eq!(col, 26, "the caret points at the value: {run:?}");
}

#[test]
fn misspelled_field_is_a_strict_decoding_error() {
    let dir = TempDir::new("misspelled");
    let text = pod_with("    lisenessProbe:\n      tcpSocket: {port: 80}\n");
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    let col = assert_error(
        &run,
        &file,
        line_of(&text, "lisenessProbe:"),
        r#"strict decoding error: unknown field "spec.containers[0].lisenessProbe""#,
    );
    assert_eq!(col, 5, "the caret points at the key: {run:?}");
}

/// Manifests given where a scenario goes are said to be manifests, with
/// the `-f` that reads them, not refused field by field as a scenario.
#[test]
fn manifests_given_as_a_scenario_point_to_dash_f() {
    let dir = TempDir::new("manifest-as-scenario");
    let one = dir.write("pod.yaml", &pod_with(""));
    let run = podsim(["run", &one]);
    assert_bad_input(&run);
    let expected = format!(
        "error: {one}: this file holds Kubernetes objects (Pod web), not a podsim scenario: give manifests with -f, as kubectl does (podsim run -f {one})"
    );
    assert!(run.stderr.contains(&expected), "{run:?}");
    let two = dir.write(
        "two.yaml",
        &format!(
            "{}---\napiVersion: v1\nkind: Service\nmetadata: {{name: web}}\nspec: {{ports: [{{port: 80}}]}}\n",
            pod_with("")
        ),
    );
    let run = podsim(["run", &two]);
    assert!(run.stderr.contains("(Pod web and 1 more), not a podsim scenario"), "{run:?}");
}

/// A manifest line longer than 65,535 columns with an error at its end: the
/// caret is written under it, not a panic of a format width.
#[test]
fn an_error_past_column_65535_is_reported_with_its_caret() {
    let dir = TempDir::new("long-line");
    let text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: web}}\nspec:\n  containers: [{{name: app, image: nginx, {}bogus: 1}}]\n",
        " ".repeat(70_000)
    );
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("bogus"), "{}", &run.stderr[..run.stderr.len().min(300)]);
    assert!(run.stderr.lines().any(|l| l.trim_end().ends_with('^') && l.len() > 70_000));
}

/// Messages a user can act on (issue 22): a second document where one is
/// expected is located; invalid UTF-8 gives its line, column and byte; a
/// manifest set without pods names the files read.
#[test]
fn errors_about_a_whole_file_say_where_and_what() {
    let dir = TempDir::new("whole-file");
    let two = dir.write("two.yaml", "until: 10s\n---\nseed: 3\n");
    let run = podsim(["run", &two]);
    assert_bad_input(&run);
    assert!(
        run.stderr.contains(&format!("error: {two}:3:1: expected one YAML document, found 2: the second begins here")),
        "{run:?}"
    );
    let latin1 = {
        let path = dir.path("latin1.yaml");
        std::fs::write(&path, b"until: 10s\nseed: \xe9\n").unwrap();
        path
    };
    let run = podsim(["run", &latin1]);
    assert_bad_input(&run);
    assert!(run.stderr.contains(&format!("error: {latin1}:2:7: not UTF-8 text: byte 17 (0xe9)")), "{run:?}");
    let cm = dir.write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n");
    let run = podsim(["run", "-f", &cm]);
    assert_bad_input(&run);
    assert!(run.stderr.contains(&format!("the manifests declare no Pod: podsim needs one to simulate, or a workload that makes pods (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob); read: {cm}")), "{run:?}");
}

/// The limits of one YAML file (`source.rs`): a rendered chart of 2,000
/// documents is read (the old 1,024-document cap refused it); 20,001
/// documents, nesting past 64 levels and an alias inside its own anchor are
/// refused in words, at their line.
#[test]
fn the_limits_of_one_yaml_file_are_stated_in_words() {
    let dir = TempDir::new("yaml-limits");
    let mut chart: Vec<String> = (0..2000)
        .map(|i| format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i}}}\ndata: {{a: b}}\n"))
        .collect();
    chart.push(pod_with(""));
    let many = dir.write("chart.yaml", &chart.join("---\n"));
    let run = podsim(["run", "-f", &many, "--until", "1s"]);
    assert_eq!(run.code, Some(0), "{}", &run.stderr[..run.stderr.len().min(400)]);
    let storm = dir.write("storm.yaml", &"a: 1\n---\n".repeat(20_001));
    let run = podsim(["run", "-f", &storm]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("more than 20000 YAML documents in one file: split it into several files"), "{run:?}");
    let deep = dir.write("deep.yaml", &format!("a: {}{}\n", "[".repeat(70), "]".repeat(70)));
    let run = podsim(["run", "-f", &deep]);
    assert_bad_input(&run);
    assert!(run.stderr.contains(&format!("error: {deep}:1:67: nested more than 64 levels deep")), "{run:?}");
    let cycle = dir.write("cycle.yaml", "a: &a [*a]\n");
    let run = podsim(["run", "-f", &cycle]);
    assert_bad_input(&run);
    assert!(
        run.stderr.contains(&format!(
            "error: {cycle}:1:8: a YAML alias (*name) inside the value of its own anchor (&name): a cycle"
        )),
        "{run:?}"
    );
}

/// A device given as a file is read up to the cap, then refused (it used
/// to be read whole: 4 GB and more).
#[test]
fn a_device_given_as_a_file_stops_at_the_cap() {
    let run = podsim(["run", "-f", "/dev/zero"]);
    assert_bad_input(&run);
    assert!(
        run.stderr.contains(
            "error: /dev/zero: more than 256 MiB: podsim reads input files of at most that size (a device or an endless stream given as a file? split a real one)"
        ),
        "{run:?}"
    );
}
