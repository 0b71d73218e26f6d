//! Errors in behaviour files given with `--app`.

use crate::{POD, Run, TempDir, assert_bad_input, assert_error, line_of, podsim};

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
