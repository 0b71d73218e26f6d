//! Errors in behaviour files given with `--app`.

use crate::{POD, Run, TempDir, assert_bad_input, assert_error, assert_problem, line_of, podsim};

/// Runs the plain pod with the behaviour file `app`; returns the run and the behaviour's path.
fn run_with_app(dir: &TempDir, app: &str) -> (Run, String) {
    let pod = dir.write("pod.yaml", POD);
    let app_file = dir.write("app.yaml", app);
    (podsim(["run", "-f", &pod, "--app", &app_file, "--until", "10s"]), app_file)
}

#[test]
fn behaviour_unknown_key() {
    let dir = TempDir::new("app-unknown-key");
    let text = "containers:\n  app:\n    lisen: 1s\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(&run, &file, line_of(text, "lisen"), "containers.app.lisen: unknown field `lisen`");
    assert!(run.stderr.contains("`listen`"), "the expected keys are listed: {run:?}");
}

#[test]
fn behaviour_negative_duration() {
    let dir = TempDir::new("app-negative");
    let text = "containers:\n  app:\n    listen: -1s\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(&run, &file, line_of(text, "listen"), r#"containers.app.listen: "-1s": must not be negative"#);
}

#[test]
fn behaviour_unitless_duration() {
    let dir = TempDir::new("app-unitless");
    let text = "containers:\n  app:\n    listen: 5\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(&run, &file, line_of(text, "listen"), "containers.app.listen: 5: a duration needs a unit (e.g. 5s)");
}

#[test]
fn behaviour_schedule_whose_last_entry_has_until() {
    let dir = TempDir::new("app-until");
    let text = "\
containers:
  app:
    ports: [80]
    http:
      /ready:
      - until: 10s
        status: 503
      - until: 20s
        status: 200
";
    let (run, file) = run_with_app(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "until: 20s"),
        r#"containers.app.http["/ready"][1].until: the last entry must not have `until`"#,
    );
}

#[test]
fn behaviour_names_an_unknown_container() {
    let dir = TempDir::new("app-unknown-container");
    let text = "containers:\n  app:\n    listen: 1s\n  web:\n    listen: 2s\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "web:"),
        r#"containers.web: no container named "web" in the manifests (containers: app)"#,
    );
}

#[test]
fn behaviour_names_an_unknown_container_flow_style() {
    let dir = TempDir::new("app-unknown-container-flow");
    let text = "containers: {app: {listen: 1s}, web: {listen: 2s}}\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(&run, &file, 1, r#"containers.web: no container named "web" in the manifests (containers: app)"#);
}

#[test]
fn behaviour_exec_command_with_a_dot() {
    let dir = TempDir::new("app-exec-dot");
    let text = "\
containers:
  app:
    exec:
      \"test -f /tmp/ready.flag\":
      - {until: 5s, exit: 1}
      - {exit: 300}
";
    let (run, file) = run_with_app(&dir, text);
    assert_bad_input(&run);
    let line = line_of(text, "exit: 300");
    let head = format!("error: {file}:{line}:");
    assert!(
        run.stderr.lines().any(|l| l.starts_with(&head) && l.contains("300: an exit code is between 0 and 255")),
        "expected the error on line {line} (`- {{exit: 300}}`): {run:?}"
    );
}

#[test]
fn behaviour_location_only_on_a_3xx() {
    let dir = TempDir::new("app-location-status");
    let text = "containers:\n  app:\n    http:\n      /ready:\n      - status: 200\n        location: /other\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "location"),
        r#"containers.app.http["/ready"][0].location: 200: a `location` belongs to a redirect (a 3xx status)"#,
    );
}

/// Go's client follows a `Location` only on 301, 302, 303, 307 and 308
/// (`redirectBehavior`): on a 304 it is read, ignored, and warned about; the
/// run goes on.
#[test]
fn behaviour_location_on_a_3xx_go_does_not_follow_is_a_warning() {
    let dir = TempDir::new("app-location-304");
    let text = "containers:\n  app:\n    http:\n      /ready:\n      - status: 304\n        location: /other\n";
    let (run, file) = run_with_app(&dir, text);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_problem(
        &run,
        "warning",
        &file,
        line_of(text, "location"),
        r#"containers.app.http["/ready"][0].location: ignored: Go's HTTP client follows a `location` only on 301, 302, 303, 307 and 308 (`redirectBehavior`), so a 304 is itself the response"#,
    );
    assert!(run.stdout.contains("pod/web"), "{run:?}");
}

#[test]
fn behaviour_relay_with_a_bad_port_or_path() {
    let dir = TempDir::new("app-forward");
    let text = "containers:\n  app:\n    http:\n      /readyz:\n      - forward: {port: 70000, path: /health}\n      /livez:\n      - forward: {port: 9080, path: health}\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "70000"),
        r#"containers.app.http["/readyz"][0].forward.port: 70000: must be between 1 and 65535, inclusive"#,
    );
}

#[test]
fn behaviour_relay_path_without_a_slash() {
    let dir = TempDir::new("app-forward-path");
    let text = "containers:\n  app:\n    http:\n      /livez:\n      - forward: {port: 9080, path: health}\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "health"),
        r#"containers.app.http["/livez"][0].forward.path: "health": a relayed path starts with `/`"#,
    );
}

#[test]
fn behaviour_relay_with_a_status() {
    let dir = TempDir::new("app-forward-status");
    let text =
        "containers:\n  app:\n    http:\n      /livez:\n      - {status: 200, forward: {port: 9080, path: /health}}\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "forward"),
        r#"containers.app.http["/livez"][0]: `status` and `forward` exclude each other"#,
    );
}

#[test]
fn behaviour_location_with_another_scheme() {
    let dir = TempDir::new("app-location-scheme");
    let text =
        "containers:\n  app:\n    http:\n      /:\n      - {status: 302, location: \"ftp://files.example.com/\"}\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "ftp"),
        r#"containers.app.http["/"][0].location: "ftp://files.example.com/": the kubelet's client follows http and https URLs only (`unsupported protocol scheme`)"#,
    );
}

#[test]
fn behaviour_address_in_use_ignore_with_an_exit() {
    let dir = TempDir::new("app-address-in-use");
    let text = "containers:\n  app:\n    address_in_use: {ignore: true, code: 2}\n";
    let (run, file) = run_with_app(&dir, text);
    assert_error(
        &run,
        &file,
        line_of(text, "address_in_use"),
        "containers.app.address_in_use: `ignore: true` cannot be combined with `exit_after` or `code`",
    );
}

/// A scalar where the behaviour file wants a mapping: the error says what
/// is expected in the file's own terms, never a Rust type name.
#[test]
fn behaviour_scalar_where_a_mapping_is_expected() {
    let cases = [
        (
            "address_in_use: exit",
            "containers.app.address_in_use: invalid type: string \"exit\", expected a mapping such as `{exit_after: 0s, code: 1}` or `{ignore: true}`",
            21,
        ),
        (
            "sigterm: exit",
            "containers.app.sigterm: invalid type: string \"exit\", expected a mapping such as `{exit_after: 3s, code: 0}` or `{ignore: true}` (with `stop_listening: true` to close its sockets at once)",
            14,
        ),
        (
            "exit: 3",
            "containers.app.exit: invalid type: integer `3`, expected a mapping such as `{after: 1s, code: 1}`",
            11,
        ),
        (
            "http: {/a: [503]}",
            "containers.app.http[\"/a\"][0]: invalid type: integer `503`, expected a stretch such as `{until: 10s, status: 503, latency: 5ms}`",
            17,
        ),
    ];
    for (i, (line, expected, col)) in cases.into_iter().enumerate() {
        let dir = TempDir::new(&format!("app-scalar-{i}"));
        let text = format!("containers:\n  app:\n    {line}\n");
        let (run, file) = run_with_app(&dir, &text);
        assert_eq!(assert_error(&run, &file, 3, expected), col, "{line}");
        assert!(!run.stderr.contains("struct"), "{run:?}");
    }
}

/// Two containers declare port 80; the second's behaviour says what it does
/// when its `bind()` finds 80 taken: keep running on the ports it could bind,
/// or exit with its code after its delay.
#[test]
fn address_in_use_says_what_the_second_binder_does() {
    let dir = TempDir::new("address-in-use");
    let pod = dir.write(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: two}\nspec:\n  containers:\n  - name: a\n    image: nginx\n    ports: [{containerPort: 80}]\n  - name: b\n    image: nginx\n    ports: [{containerPort: 80}, {containerPort: 81}]\n",
    );
    let facts = |app: &str| -> Vec<(f64, String, serde_json::Value)> {
        let file = dir.write("app.yaml", app);
        let run = podsim(["run", "-f", &pod, "--app", &file, "--until", "20s", "-o", "jsonl"]);
        assert!(run.code == Some(0), "{run:?}");
        run.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["type"] == "PROCESS" && v["container"] == "b")
            .map(|v| (v["t"].as_f64().unwrap(), v["fact"].as_str().unwrap().to_string(), v))
            .collect()
    };
    let kept = facts("containers:\n  b:\n    address_in_use: {ignore: true}\n");
    let names: Vec<&str> = kept.iter().map(|f| f.1.as_str()).collect();
    assert_eq!(names, ["started", "address-in-use", "listening"], "{kept:?}");
    assert_eq!((kept[1].2["port"].as_u64(), kept[2].2["ports"].clone()), (Some(80), serde_json::json!([81])));
    let exits = facts("containers:\n  b:\n    address_in_use: {exit_after: 2s, code: 3}\n");
    let (started, exited) = (&exits[0], exits.iter().find(|f| f.1 == "exited").expect("b exits"));
    let after_ms = ((exited.0 - started.0) * 1000.0).round() as i64;
    assert_eq!((exited.2["code"].as_i64(), after_ms), (Some(3), 2000), "{exits:?}");
}

/// A probe worker's run of equal results is not reset by a new container
/// (`doProbe` resets `resultRun` only on a different result): after a
/// liveness restart the readiness success that publishes Ready for the new
/// container is the 4th success in a row (0 s, 5 s, 10 s ticks before, with
/// the 15 s tick the first liveness failure), shown against its threshold.
#[test]
fn a_probe_run_that_outlasts_its_threshold_says_so() {
    let dir = TempDir::new("app-run-past-threshold");
    let pod = dir.write(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: web\n    image: web:1\n    ports: [{containerPort: 8080}]\n    readinessProbe:\n      httpGet: {path: /ready, port: 8080}\n      periodSeconds: 5\n    livenessProbe:\n      httpGet: {path: /live, port: 8080}\n      periodSeconds: 5\n      failureThreshold: 1\n",
    );
    let app = dir.write(
        "app.yaml",
        "containers:\n  web:\n    http:\n      /ready: [{status: 200}]\n      /live: [{until: 12s, status: 200}, {status: 500}]\n",
    );
    let run = podsim(["run", "-f", &pod, "--app", &app, "--until", "30s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let rows: Vec<&str> = run.stdout.lines().filter(|l| l.contains("web readiness probe")).collect();
    assert!(rows[0].ends_with("web readiness probe succeeded (1 of 1 in a row)"), "{rows:?}");
    assert!(rows[1].ends_with("web readiness probe succeeded (4 in a row, threshold 1)"), "{rows:?}");
}

/// The documentation's exec liveness pod, pasted unchanged, needs no
/// behaviour: its script is read, and `cat /tmp/healthy` is answered from
/// the script's files. A probe command the interpreter cannot run
/// (`pg_isready`) is said where it is written, with why and the assumption
/// (exit 0); a behaviour that answers it silences the warning.
#[test]
fn an_exec_probe_no_behaviour_answers_is_named_with_the_assumption() {
    let dir = TempDir::new("exec-assumed");
    let pod = "\
apiVersion: v1
kind: Pod
metadata:
  name: liveness-exec
spec:
  containers:
  - name: liveness
    image: registry.k8s.io/busybox:1.27.2
    args: [/bin/sh, -c, touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600]
    livenessProbe:
      exec:
        command: [cat, /tmp/healthy]
      initialDelaySeconds: 5
      periodSeconds: 5
";
    let file = dir.write("pod.yaml", pod);
    let run = podsim(["run", "-f", &file, "--until", "10s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        run.stderr,
        "note: no behaviour file describes these containers, so podsim reads them from themselves: \
         container liveness of pod/liveness-exec (its shell script)\n",
        "{run:?}"
    );
    let unknown = dir.write("pg.yaml", &pod.replace("[cat, /tmp/healthy]", "[pg_isready, -U, app]"));
    let run = podsim(["run", "-f", &unknown, "--until", "10s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let warning = format!(
        "warning: {unknown}:12:18: spec.containers[0].livenessProbe.exec.command: exec liveness probe \"pg_isready -U app\" \
         of container liveness: no behaviour gives its exit code (its script is read, but command \"pg_isready\" is not \
         one podsim can interpret), so podsim assumes exit 0"
    );
    assert!(run.stderr.contains(&warning), "{run:?}");
    let app = dir.write("app.yaml", "containers:\n  liveness:\n    exec:\n      \"pg_isready -U app\": [{exit: 0}]\n");
    let answered = podsim(["run", "-f", &unknown, "--app", &app, "--until", "10s"]);
    assert_eq!(answered.code, Some(0), "{answered:?}");
    assert!(!answered.stderr.contains("assumes exit 0"), "{answered:?}");
}
