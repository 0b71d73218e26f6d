//! Service (v1) manifests: the API server's defaulting and validation, what
//! podsim does not simulate, and named target ports the selected pods lack.

use crate::{POD, Run, TempDir, assert_error, assert_no_panic, assert_problem, line_of, podsim};

/// A valid Service selecting the pod `web` of [`POD`] (which has no labels: the
/// selector matching nothing is not an error).
const SERVICE: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: 8080
";

fn assert_ok(run: &Run) {
    assert_no_panic(run);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(!run.stderr.lines().any(|l| l.starts_with("error")), "no errors on a good run: {run:?}");
}

/// Runs `podsim run` on the pod and `service` (one file each); returns the service file's path too.
fn run_with(tag: &str, service: &str) -> (TempDir, String, Run) {
    let dir = TempDir::new(tag);
    let pod = dir.write("pod.yaml", POD);
    let file = dir.write("svc.yaml", service);
    let run = podsim(["run", "-f", &pod, "-f", &file, "--until", "30s"]);
    (dir, file, run)
}

#[test]
fn a_valid_service_is_accepted_next_to_its_pod() {
    let (_dir, _file, run) = run_with("svc-ok", SERVICE);
    assert_ok(&run);
    assert!(run.stdout.lines().next().unwrap_or_default().trim_start().starts_with("TIME"), "{run:?}");
    assert!(!run.stderr.contains("warning"), "nothing to warn about: {run:?}");
}

#[test]
fn a_bad_target_port_is_rejected_with_its_line() {
    let text = SERVICE.replace("targetPort: 8080", "targetPort: 70000");
    let (_dir, file, run) = run_with("svc-target-port", &text);
    assert_error(
        &run,
        &file,
        line_of(&text, "targetPort:"),
        "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    );
}

#[test]
fn service_names_are_dns_1035_labels() {
    let text = SERVICE.replace("name: web", "name: 1web");
    let (_dir, file, run) = run_with("svc-name", &text);
    assert_error(
        &run,
        &file,
        line_of(&text, "name: 1web"),
        r#"metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"#,
    );
}

#[test]
fn cluster_ip_errors_come_alone_at_the_cluster_ip_line() {
    // the name is also invalid, but the registry stops before validating it
    let text = SERVICE.replace("name: web", "name: 1web").replace("spec:\n", "spec:\n  clusterIP: 10.96.0.300\n");
    let (_dir, file, run) = run_with("svc-cluster-ip", &text);
    let col = assert_error(
        &run,
        &file,
        line_of(&text, "clusterIP:"),
        r#"spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"#,
    );
    assert_eq!(col, 14, "at the value: {run:?}");
    assert_eq!(run.stderr.matches("error: ").count(), 1, "{run:?}");
}

#[test]
fn a_dual_stack_service_needs_a_dual_stack_cluster() {
    let text = SERVICE.replace("spec:\n", "spec:\n  ipFamilyPolicy: RequireDualStack\n");
    let (_dir, file, run) = run_with("svc-dual-stack", &text);
    assert_error(
        &run,
        &file,
        line_of(&text, "ipFamilyPolicy:"),
        r#"spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services"#,
    );
}

/// A headless Service (a StatefulSet's governing one) runs: the
/// EndpointSlice controller writes its slices, labelled headless, and no
/// kube-proxy programs it (`ShouldSkipService`); `get svc` shows no cluster IP.
#[test]
fn headless_services_get_slices_and_no_proxy_rules() {
    let text = SERVICE.replace("spec:\n", "spec:\n  clusterIP: None\n");
    let (dir, file, run) = run_with("svc-headless", &text);
    assert_ok(&run);
    let pod = dir.path("pod.yaml");
    let get =
        podsim(["get", "svc,endpointslices", "-f", &pod, "-f", &file, "--until", "30s", "--at", "30s", "-o", "json"]);
    assert_ok(&get);
    assert!(get.stdout.contains(r#""clusterIP": "None""#), "{get:?}");
    assert!(get.stdout.contains(r#""service.kubernetes.io/headless": """#), "{get:?}");
    assert!(!run.stdout.contains("proxy/"), "no kube-proxy rule for a headless Service: {run:?}");
}

#[test]
fn load_balancers_run_with_a_warning() {
    let text = SERVICE.replace("spec:\n", "spec:\n  type: LoadBalancer\n");
    let (_dir, file, run) = run_with("svc-lb", &text);
    assert_ok(&run);
    assert_problem(
        &run,
        "warning",
        &file,
        line_of(&text, "type:"),
        "spec.type: node ports and load balancers are not simulated: clients reach the Service through its cluster IP",
    );
}

#[test]
fn services_without_a_pod_are_not_enough() {
    let dir = TempDir::new("svc-no-pod");
    let file = dir.write("svc.yaml", SERVICE);
    let run = podsim(["run", "-f", &file]);
    crate::assert_bad_input(&run);
    assert!(run.stderr.contains("the manifests declare no Pod"), "{run:?}");
    // A warning about the Service does not hide the missing Pod.
    let lb = dir.write("lb.yaml", &SERVICE.replace("spec:\n", "spec:\n  type: LoadBalancer\n"));
    let run = podsim(["run", "-f", &lb]);
    crate::assert_bad_input(&run);
    assert!(run.stderr.contains("the manifests declare no Pod"), "{run:?}");
    assert!(run.stderr.contains("load balancers are not simulated"), "{run:?}");
}

#[test]
fn two_services_with_one_name() {
    let text = format!("{SERVICE}---\n{SERVICE}");
    let (_dir, file, run) = run_with("svc-twice", &text);
    let second = crate::nth_line_of(&text, "name: web", 1, 2);
    assert_error(&run, &file, second, r#"metadata.name: services "web" already exists"#);
}

/// [`POD`] labelled `app: web` (so [`SERVICE`] selects it), its container
/// declaring `ports`.
fn labelled_pod(name: &str, ports: &str) -> String {
    let pod = POD.replace("  name: web\n", &format!("  name: {name}\n  labels:\n    app: web\n"));
    format!("{pod}    ports:\n{ports}")
}

#[test]
fn a_named_target_port_a_selected_pod_lacks_is_warned() {
    let dir = TempDir::new("svc-named-target");
    let pod = dir.write("pod.yaml", &labelled_pod("web", "    - containerPort: 8080\n"));
    let text = SERVICE.replace("targetPort: 8080", "targetPort: http");
    let file = dir.write("svc.yaml", &text);
    let run = podsim(["run", "-f", &pod, "-f", &file, "--until", "30s"]);
    assert_ok(&run);
    let col = assert_problem(
        &run,
        "warning",
        &file,
        line_of(&text, "targetPort:"),
        r#"spec.ports[0].targetPort: pod "web" declares no TCP container port named "http" (its ports: 8080): the EndpointSlice controller leaves the pod out of this port's endpoints"#,
    );
    assert_eq!(col, 17, "at the value: {run:?}");
    assert_eq!(run.stderr.matches("warning: ").count(), 1, "{run:?}");
}

#[test]
fn a_pod_without_the_named_target_port_gets_no_traffic() {
    let dir = TempDir::new("svc-named-target-traffic");
    let lacking = labelled_pod("web", "    - containerPort: 8080\n");
    let named = labelled_pod("web-2", "    - name: http\n      containerPort: 8080\n");
    // An image podsim does not know: its default app serves the declared 8080 (nginx would serve 80).
    let pods = format!("{lacking}---\n{named}").replace("image: nginx:1.27", "image: registry.example.com/web:1.0");
    let pods = dir.write("pods.yaml", &pods);
    let file = dir.write("svc.yaml", &SERVICE.replace("targetPort: 8080", "targetPort: http"));
    let traffic = "service/web:http/@20s,every=1s,count=5";
    let run = podsim(["run", "-f", &pods, "-f", &file, "--until", "30s", "--traffic", traffic, "-o", "jsonl"]);
    assert_ok(&run);
    let requests: Vec<&str> = run.stdout.lines().filter(|l| l.contains(r#""type":"REQUEST""#)).collect();
    assert_eq!(requests.len(), 5, "{run:?}");
    for r in requests {
        assert!(r.contains(r#""pod":"web-2""#) && r.contains(r#""status":200"#), "only web-2 serves http: {r}");
    }
}
