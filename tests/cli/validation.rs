//! Manifests that parse but fail the API server's validation rules.

use crate::{TempDir, assert_error, line_of, manifest_error, nth_line_of, pod_with, podsim};

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
