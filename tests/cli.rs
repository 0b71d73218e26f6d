//! The `podsim` command-line contract, tested by running the real binary.
//!
//! Exit codes: 0 the run completed; 1 the simulated trace broke a kubelet
//! invariant (not triggered here); 2 bad input. Bad input never panics, prints
//! nothing on stdout, and names the file, the line and the field:
//!
//! ```text
//! error: <file>:<line>:<col>: <field path>: <message>
//!    |
//! 14 | <the source line>
//!    |      ^^^
//! ```
//!
//! Messages follow the API server's wording where it has one
//! (pkg/apis/core/validation, apimachinery field errors, strict decoding,
//! component-base featuregate).
//!
//! Inputs are written to a fresh directory under the system temp dir per test.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_podsim");

/// A directory of input files, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("podsim-cli-{}-{n}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the temp dir");
        TempDir(dir)
    }

    /// Writes `text` to `name` (which may contain directories) and returns its path.
    fn write(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent dirs");
        }
        fs::write(&path, text).expect("write an input file");
        path.to_str().expect("temp paths are UTF-8").to_string()
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().expect("temp paths are UTF-8").to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The outcome of one `podsim` invocation.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit code {:?}\n--- stderr ---\n{}--- stdout (first 2000 bytes) ---\n", self.code, self.stderr)?;
        let end = self.stdout.char_indices().nth(2000).map_or(self.stdout.len(), |(i, _)| i);
        write!(f, "{}", &self.stdout[..end])
    }
}

/// Runs the binary from the crate root (so `models/...` paths resolve), with backtraces on
/// so that a panic cannot go unnoticed.
fn podsim<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_BACKTRACE", "1")
        .env_remove("RUST_LOG")
        .output()
        .expect("run podsim");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Nothing panicked.
fn assert_no_panic(run: &Run) {
    assert_ne!(run.code, Some(101), "podsim panicked: {run:?}");
    for marker in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(!run.stderr.contains(marker), "podsim panicked ({marker:?} in stderr): {run:?}");
    }
}

/// Exit code exactly 2, no panic, nothing simulated on stdout.
fn assert_bad_input(run: &Run) {
    assert_no_panic(run);
    assert_eq!(run.code, Some(2), "bad input must exit with 2: {run:?}");
    assert!(run.stdout.is_empty(), "nothing is printed on stdout for bad input: {run:?}");
    assert!(run.stderr.contains("error"), "stderr says what is wrong: {run:?}");
}

/// The 1-based number of the line of `text` that contains `needle`; there must be exactly one.
fn line_of(text: &str, needle: &str) -> u64 {
    nth_line_of(text, needle, 0, 1)
}

/// The 1-based number of the `n`-th (0-based) of `count` lines of `text` containing `needle`.
fn nth_line_of(text: &str, needle: &str, n: usize, count: usize) -> u64 {
    let lines: Vec<u64> =
        text.lines().enumerate().filter(|(_, l)| l.contains(needle)).map(|(i, _)| i as u64 + 1).collect();
    assert_eq!(lines.len(), count, "test input: {needle:?} should be on {count} line(s) of\n{text}");
    lines[n]
}

/// Checks a reported problem: a stderr line `<severity>: <file>:<line>:<col>: <rest>` where
/// `rest` starts with `expected` (`<field path>: <message>`), followed by the source line quoted
/// exactly and a caret under column `col`. Returns the column.
fn assert_problem(run: &Run, severity: &str, file: &str, line: u64, expected: &str) -> u64 {
    let head = format!("{severity}: {file}:{line}:");
    let lines: Vec<&str> = run.stderr.lines().collect();
    let Some(i) = lines.iter().position(|l| l.starts_with(&head) && l[head.len()..].contains(expected)) else {
        panic!("expected a line `{head}<col>: {expected}…` in stderr: {run:?}");
    };
    let rest = &lines[i][head.len()..];
    let (col, message) = rest.split_once(": ").unwrap_or_else(|| panic!("no column in {:?}", lines[i]));
    let col: u64 = col.parse().unwrap_or_else(|_| panic!("bad column {col:?} in {:?}", lines[i]));
    assert!(message.starts_with(expected), "expected `{expected}` right after file:line:col in {:?}", lines[i]);

    // The quoted source: ` |`, `<line> | <text>`, ` | <spaces>^^^`.
    let source = fs::read_to_string(file).expect("read the input back");
    let quoted = source.lines().nth(line as usize - 1).expect("the reported line exists in the file");
    let n = line.to_string();
    let pad = " ".repeat(n.len());
    assert_eq!(lines.get(i + 1).copied(), Some(format!("{pad} |").as_str()), "gutter line: {run:?}");
    assert_eq!(lines.get(i + 2).copied(), Some(format!("{n} | {quoted}").as_str()), "quoted line: {run:?}");
    let caret = lines.get(i + 3).copied().unwrap_or_default();
    let caret = caret.strip_prefix(&format!("{pad} | ")).unwrap_or_else(|| panic!("caret line: {run:?}"));
    assert!(caret.trim_start().starts_with('^'), "caret line: {run:?}");
    assert_eq!(caret.len() - caret.trim_start().len() + 1, col as usize, "caret under column {col}: {run:?}");
    col
}

/// Bad input reported as `error: <file>:<line>:<col>: <expected>…`; returns the column.
fn assert_error(run: &Run, file: &str, line: u64, expected: &str) -> u64 {
    assert_bad_input(run);
    let col = assert_problem(run, "error", file, line, expected);
    assert!(run.stderr.contains("error in the input; nothing was simulated"), "summary line: {run:?}");
    col
}

/// Runs `podsim run -f` on a pod with `snippet` added to its container and
/// expects one error at the line holding `anchor`.
fn manifest_error(tag: &str, snippet: &str, anchor: &str, expected: &str) {
    let dir = TempDir::new(tag);
    let text = pod_with(snippet);
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    assert_error(&run, &file, line_of(&text, anchor), expected);
}

/// A valid pod whose one container `app` ends the document, so a test can append its fields
/// (4 spaces of indentation) or pod-level fields (2 spaces).
const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: nginx:1.27
";

fn pod_with(extra: &str) -> String {
    format!("{POD}{extra}")
}

// ---------------------------------------------------------------------------
// Manifests: syntax and types
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Manifests: API-server validation
// ---------------------------------------------------------------------------

#[test]
fn liveness_success_threshold_must_be_1() {
    manifest_error(
        "success-threshold",
        "    livenessProbe:\n      tcpSocket: {port: 80}\n      successThreshold: 2\n",
        "successThreshold: 2",
        "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
    );
}

#[test]
fn probe_with_two_handlers() {
    let dir = TempDir::new("two-handlers");
    let text =
        pod_with("    livenessProbe:\n      exec:\n        command: [\"true\"]\n      tcpSocket:\n        port: 80\n");
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    assert_error(
        &run,
        &file,
        line_of(&text, "tcpSocket:"),
        "spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
    );
}

#[test]
fn probe_with_two_handlers_flow_style() {
    manifest_error(
        "two-handlers-flow",
        "    livenessProbe:\n      exec: {command: [\"true\"]}\n      tcpSocket: {port: 80}\n",
        "tcpSocket:",
        "spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
    );
}

#[test]
fn probe_without_a_handler() {
    manifest_error(
        "no-handler",
        "    livenessProbe:\n      periodSeconds: 5\n",
        "livenessProbe:",
        "spec.containers[0].livenessProbe: Required value: must specify a handler type",
    );
}

#[test]
fn probe_without_a_handler_flow_style() {
    manifest_error(
        "no-handler-flow",
        "    livenessProbe: {periodSeconds: 5}\n",
        "livenessProbe:",
        "spec.containers[0].livenessProbe: Required value: must specify a handler type",
    );
}

#[test]
fn container_port_out_of_range() {
    manifest_error(
        "port-range",
        "    ports:\n    - containerPort: 70000\n",
        "70000",
        "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    );
}

#[test]
fn container_port_name_with_underscore() {
    manifest_error(
        "port-name",
        "    ports:\n    - containerPort: 8080\n      name: web_port\n",
        "web_port",
        r#"spec.containers[0].ports[0].name: Invalid value: "web_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"#,
    );
}

#[test]
fn probe_named_port_with_underscore() {
    let dir = TempDir::new("probe-port-name");
    let text = pod_with("    livenessProbe:\n      httpGet: {path: /, port: web_port}\n");
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    let col = assert_error(
        &run,
        &file,
        line_of(&text, "web_port"),
        r#"spec.containers[0].livenessProbe.httpGet.port: Invalid value: "web_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"#,
    );
    assert_eq!(col as usize, text.lines().find(|l| l.contains("web_port")).unwrap().find("web_port").unwrap() + 1);
}

#[test]
fn negative_initial_delay_seconds() {
    manifest_error(
        "negative-delay",
        "    readinessProbe:\n      tcpSocket: {port: 80}\n      initialDelaySeconds: -5\n",
        "initialDelaySeconds",
        "spec.containers[0].readinessProbe.initialDelaySeconds: Invalid value: -5: must be greater than or equal to 0",
    );
}

#[test]
fn restart_policy_sometimes() {
    manifest_error(
        "restart-policy",
        "  restartPolicy: Sometimes\n",
        "restartPolicy",
        r#"spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never""#,
    );
}

#[test]
fn duplicate_container_names() {
    let dir = TempDir::new("duplicate-names");
    let text = pod_with("  - name: app\n    image: busybox:1.36\n");
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    assert_error(
        &run,
        &file,
        nth_line_of(&text, "- name: app", 1, 2),
        r#"spec.containers[1].name: Duplicate value: "app""#,
    );
}

#[test]
fn missing_image() {
    let dir = TempDir::new("missing-image");
    let text = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    imagePullPolicy: IfNotPresent
";
    let file = dir.write("pod.yaml", text);
    let run = podsim(["run", "-f", &file]);
    // The field is absent: the error points at the container that lacks it.
    assert_error(&run, &file, line_of(text, "- name: app"), "spec.containers[0].image: Required value");
}

// ---------------------------------------------------------------------------
// Manifests: what podsim does not simulate
// ---------------------------------------------------------------------------

#[test]
fn deployment_is_an_unsupported_kind() {
    let dir = TempDir::new("deployment");
    let text = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
";
    let file = dir.write("deploy.yaml", text);
    let run = podsim(["run", "-f", &file]);
    assert_error(&run, &file, line_of(text, "kind:"), "kind: podsim does not simulate kind Deployment (apps/v1)");
    assert!(run.stderr.contains("only Pod (v1) is supported"), "{run:?}");
}

#[test]
fn list_with_an_invalid_item() {
    let dir = TempDir::new("list");
    let text = "\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: one
  spec:
    containers:
    - name: app
      image: nginx:1.27
- apiVersion: v1
  kind: Pod
  metadata:
    name: two
  spec:
    containers:
    - name: app
      image: nginx:1.27
      livenessProbe:
        tcpSocket: {port: 80}
        successThreshold: 3
";
    let file = dir.write("list.yaml", text);
    let run = podsim(["run", "-f", &file]);
    assert_error(
        &run,
        &file,
        line_of(text, "successThreshold"),
        "items[1].spec.containers[0].livenessProbe.successThreshold: Invalid value: 3: must be 1",
    );
    assert_eq!(run.stderr.matches("error: ").count(), 1, "only the second item is wrong: {run:?}");
}

#[test]
fn ephemeral_containers_are_unsupported() {
    manifest_error(
        "ephemeral",
        "  ephemeralContainers:\n  - name: debug\n    image: busybox:1.36\n",
        "ephemeralContainers:",
        "spec.ephemeralContainers: podsim does not simulate this yet",
    );
}

#[test]
fn stop_signals_are_unsupported_flow_style() {
    manifest_error(
        "stop-signal",
        "  initContainers: [{name: proxy, image: envoy:1.30, restartPolicy: Always, lifecycle: {stopSignal: SIGUSR1}}]\n",
        "initContainers:",
        "spec.initContainers[0].lifecycle.stopSignal: stop signals (ContainerStopSignals, alpha) are not simulated: podsim sends SIGTERM",
    );
}

// ---------------------------------------------------------------------------
// Behaviour files
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Cluster profiles
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Scenarios, flags, missing inputs
// ---------------------------------------------------------------------------

#[test]
fn scenario_naming_a_missing_manifest() {
    let dir = TempDir::new("scenario-missing");
    let scenario = dir.write("scenarios/s.yaml", "manifests: [../manifests/nope.yaml]\nseed: 3\n");
    let run = podsim(["run", &scenario]);
    assert_bad_input(&run);
    assert!(run.stderr.contains("cannot read"), "{run:?}");
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
    assert!(run.stderr.contains(&format!("error: cannot read {missing}")), "{run:?}");
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

// ---------------------------------------------------------------------------
// Successful runs
// ---------------------------------------------------------------------------

const PROBE_ACTIONS: &str = "models/scenarios/probe-actions.yaml";

fn assert_ok(run: &Run) {
    assert_no_panic(run);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(!run.stderr.lines().any(|l| l.starts_with("error")), "no errors on a good run: {run:?}");
}

#[test]
fn probe_actions_prints_a_table() {
    let run = podsim(["run", PROBE_ACTIONS]);
    assert_ok(&run);
    let header = run.stdout.lines().next().unwrap_or_default();
    assert!(header.trim_start().starts_with("TIME"), "table header: {header:?}");
    for column in ["OBJECT", "CHANGE", "WHY"] {
        assert!(header.contains(column), "column {column} in {header:?}");
    }
    assert!(run.stdout.lines().count() > 10, "{run:?}");
    assert!(run.stdout.contains("pod/worker"), "{run:?}");
}

#[test]
fn probe_actions_as_json_lines() {
    let run = podsim(["run", PROBE_ACTIONS, "-o", "jsonl"]);
    assert_ok(&run);
    let records: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("line {} is not JSON ({e}): {l}", i + 1)))
        .collect();
    assert!(records.len() > 10, "{run:?}");
    let mut previous = 0.0;
    for (i, r) in records.iter().enumerate() {
        let t = r["t"].as_f64().unwrap_or_else(|| panic!("record {} has a numeric \"t\": {r}", i + 1));
        assert!(r["type"].is_string(), "record {} has a \"type\": {r}", i + 1);
        assert!(t >= previous, "record {} goes back in time ({t} < {previous}): {r}", i + 1);
        previous = t;
    }
    let header = &records[0];
    assert_eq!(header["type"], "HEADER", "{header}");
    assert_eq!(header["t"].as_f64(), Some(0.0), "{header}");
    assert_eq!(header["run"]["schema"], "podsim/trace/v1", "{header}");
    assert_eq!(header["run"]["seed"], 1, "the scenario's seed: {header}");
    assert_eq!(header["run"]["until"].as_f64(), Some(180.0), "the scenario's until (3m): {header}");
    assert_eq!(records.iter().filter(|r| r["type"] == "HEADER").count(), 1, "one header");
}

#[test]
fn same_seed_gives_identical_json_lines() {
    let args = ["run", PROBE_ACTIONS, "-o", "jsonl", "--seed", "7"];
    let (a, b) = (podsim(args), podsim(args));
    assert_ok(&a);
    assert_ok(&b);
    assert!(!a.stdout.is_empty());
    assert!(a.stdout == b.stdout, "two runs with seed 7 differ");
    let header: serde_json::Value = serde_json::from_str(a.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(header["run"]["seed"], 7, "--seed overrides the scenario: {header}");
}

#[test]
fn every_model_scenario_runs_cleanly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/scenarios");
    let mut n = 0;
    for entry in fs::read_dir(&dir).expect("models/scenarios") {
        let path = entry.expect("dir entry").path();
        if path.extension() != Some(OsStr::new("yaml")) {
            continue;
        }
        let run = podsim([OsStr::new("run"), path.as_os_str()]);
        assert_no_panic(&run);
        assert_eq!(run.code, Some(0), "{}: {run:?}", path.display());
        assert!(!run.stderr.lines().any(|l| l.starts_with("error")), "{}: {run:?}", path.display());
        n += 1;
    }
    assert!(n > 0, "no scenarios found in {}", dir.display());
}

#[test]
fn probe_on_an_undeclared_named_port_warns() {
    let dir = TempDir::new("warn-port");
    let text = pod_with(
        "    ports:\n    - containerPort: 8080\n      name: http\n    readinessProbe: {httpGet: {path: /, port: metrics}}\n",
    );
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file, "--until", "30s"]);
    assert_ok(&run);
    assert!(run.stdout.lines().next().unwrap_or_default().trim_start().starts_with("TIME"), "{run:?}");
    assert_problem(&run, "warning", &file, line_of(&text, "readinessProbe:"), "spec.containers[0].readinessProbe: ");
    assert!(run.stderr.contains(r#"port name "metrics" is not declared in spec.containers[0].ports"#), "{run:?}");
}

#[test]
fn probe_on_an_undeclared_named_port_warns_block_style() {
    let dir = TempDir::new("warn-port-block");
    let text = pod_with("    readinessProbe:\n      httpGet:\n        path: /\n        port: metrics\n");
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file, "--until", "30s"]);
    assert_ok(&run);
    assert_problem(&run, "warning", &file, line_of(&text, "readinessProbe:"), "spec.containers[0].readinessProbe: ");
}

// ---------------------------------------------------------------------------
// podsim check
// ---------------------------------------------------------------------------

#[test]
fn check_a_recording_that_holds_exits_0() {
    let run = podsim([
        "check",
        "tests/traces/001-crashloop-exit1-restartalways-snapshots/pod-t1-restart2.yaml",
        "tests/traces/001-crashloop-exit1-restartalways-snapshots/pod-t2-restart3.yaml",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("holds     restart-gap-backoff"), "{run:?}");
    assert!(run.stdout.contains("holds     crashloop-message-delay"), "{run:?}");
}

#[test]
fn check_a_broken_invariant_exits_1_and_names_the_record() {
    let dir = TempDir::new("check-broken");
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: bad, uid: u1}\nspec:\n  containers: [{name: app, image: nginx}]\nstatus:\n  phase: Running\n  conditions:\n  - {type: Ready, status: \"True\"}\n  - {type: ContainersReady, status: \"False\"}\n  containerStatuses:\n  - {name: app, image: nginx, imageID: x, ready: false, restartCount: 0, state: {running: {startedAt: \"2026-01-01T00:00:00Z\"}}}\n";
    let file = dir.write("pod.yaml", pod);
    let run = podsim(["check", &file]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains("VIOLATED  ready-implies-containers-ready"), "{run:?}");
    assert!(run.stdout.contains(&format!("at {file}:1")), "{run:?}");
    assert!(run.stdout.contains("expected ContainersReady=True"), "{run:?}");
}

#[test]
fn check_json_output_is_machine_readable() {
    let run = podsim([
        "check",
        "-o",
        "json",
        "tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/05a-crashloop-watch.txt",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let pod = &v["pods"][0];
    assert_eq!(pod["pod"], "lifecycle-crashloop");
    assert_eq!(pod["verdicts"]["restart-count-steps"]["verdict"], "holds");
    assert_eq!(pod["verdicts"]["phase-consistent"]["verdict"], "not-applicable");
}

#[test]
fn check_unreadable_input_exits_2() {
    let run = podsim(["check", "no-such-recording.json"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let dir = TempDir::new("check-nothing");
    let file = dir.write("notes.txt", "just some notes\nnothing kubectl printed\n");
    let run = podsim(["check", &file]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("no kubectl table or describe output found"), "{run:?}");
}

#[test]
fn check_against_a_scenario_reports_the_envelope() {
    let run = podsim([
        "check",
        "tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/05a-crashloop-watch.txt",
        "--against",
        "models/scenarios/recorded/023-crashloop.yaml",
        "--runs",
        "40",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("envelope of pod lifecycle-crashloop"), "{run:?}");
    assert!(run.stdout.lines().filter(|l| l.contains("recorded")).all(|l| l.ends_with("inside")), "{run:?}");
}
