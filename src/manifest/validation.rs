//! API-server validation of the Pod fields podsim reads (pkg/apis/core/validation/validation.go).
//!
//! Messages come from validation.go and apimachinery's util/validation. Fields
//! absent from the k8s-openapi types are read as Go's zero values.

use super::field::FieldError;
use super::names::{dns1123_label_errors, dns1123_subdomain_errors, port_name_errors, qualified_name_errors};
use foldhash::{HashSet, HashSetExt};
use k8s_openapi::api::core::v1::{
    Container, ContainerPort, ExecAction, GRPCAction, HTTPGetAction, Lifecycle, Pod, PodSpec, Probe, SleepAction,
    TCPSocketAction,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

pub(super) type Errors = Vec<FieldError>;

/// `validation.InclusiveRangeError(1, 65535)`.
const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";
/// `apimachineryvalidation.IsNegativeErrorMsg`.
const NEGATIVE: &str = "must be greater than or equal to 0";
/// `validateInitContainers`: what a non-restartable init container may not have.
const INIT_ONLY_SIDECAR: &str = "may not be set for init containers without restartPolicy=Always";

/// Validates a defaulted Pod like the API server does on create, in the API server's order.
pub fn validate_pod(pod: &Pod) -> Vec<FieldError> {
    let mut errs = Errors::new();
    validate_object_meta(&pod.metadata, &mut errs);
    let no_spec = PodSpec::default();
    let spec = pod.spec.as_ref().unwrap_or(&no_spec);
    validate_pod_spec(spec, &mut errs);
    validate_containers_only_for_pod(&spec.containers, "spec.containers", &mut errs);
    validate_containers_only_for_pod(init_containers(spec), "spec.initContainers", &mut errs);
    dedup(errs)
}

/// `ErrorList.ToAggregate`: the first of each distinct message.
pub(super) fn dedup(errs: Errors) -> Errors {
    let mut seen = HashSet::new();
    errs.into_iter().filter(|e| seen.insert(e.to_string())).collect()
}

/// `ValidateObjectMetaAccessor` with `ValidatePodName`. A generateName is left to
/// unsupported.rs; the namespace is checked only when set (the API server takes it from the request).
fn validate_object_meta(meta: &ObjectMeta, errs: &mut Errors) {
    match meta.name.as_deref().unwrap_or("") {
        "" if meta.generate_name.as_deref().unwrap_or("").is_empty() => {
            errs.push(FieldError::required("metadata.name", "name or generateName is required"));
        }
        "" => {}
        name => invalid_each("metadata.name", name, &dns1123_subdomain_errors(name), errs),
    }
    if let Some(ns) = meta.namespace.as_deref().filter(|ns| !ns.is_empty()) {
        invalid_each("metadata.namespace", ns, &dns1123_label_errors(ns), errs);
    }
}

/// `ValidatePodSpec`, for the fields podsim reads, in its order (volumes are not modelled).
fn validate_pod_spec(spec: &PodSpec, errs: &mut Errors) {
    let grace = spec.termination_grace_period_seconds;
    if grace.is_none() {
        errs.push(FieldError::required("spec.terminationGracePeriodSeconds", ""));
    }
    validate_containers(spec, grace, errs);
    validate_init_containers(spec, grace, errs);
    validate_pod_host_network_deps(spec, errs);
    // validateRestartPolicy
    let restart_policies = ["Always", "OnFailure", "Never"];
    validate_one_of("spec.restartPolicy", spec.restart_policy.as_deref(), &restart_policies, errs);
    // validateDNSPolicy
    let dns_policies = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
    validate_one_of("spec.dnsPolicy", spec.dns_policy.as_deref(), &dns_policies, errs);
    // ValidateServiceAccountName and ValidateNodeName: DNS subdomains
    for (path, value) in [("spec.serviceAccountName", &spec.service_account_name), ("spec.nodeName", &spec.node_name)] {
        if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
            invalid_each(path, v, &dns1123_subdomain_errors(v), errs);
        }
    }
    if let Some(d) = spec.active_deadline_seconds.filter(|d| !(1..=i64::from(i32::MAX)).contains(d)) {
        errs.push(FieldError::invalid("spec.activeDeadlineSeconds", d, "must be between 1 and 2147483647, inclusive"));
    }
    // validateReadinessGates
    for (i, g) in spec.readiness_gates.iter().flatten().enumerate() {
        let path = format!("spec.readinessGates[{i}].conditionType");
        invalid_each(&path, &g.condition_type, &qualified_name_errors(&g.condition_type), errs);
    }
}

/// The init containers of a spec, empty when absent.
fn init_containers(spec: &PodSpec) -> &[Container] {
    spec.init_containers.as_deref().unwrap_or(&[])
}

/// `validateContainers`: regular containers; names unique among them.
fn validate_containers(spec: &PodSpec, grace: Option<i64>, errs: &mut Errors) {
    if spec.containers.is_empty() {
        errs.push(FieldError::required("spec.containers", ""));
        return;
    }
    let mut names = HashSet::new();
    for (i, c) in spec.containers.iter().enumerate() {
        let path = format!("spec.containers[{i}]");
        validate_container_common(c, &path, errs);
        if !names.insert(c.name.as_str()) {
            errs.push(FieldError::duplicate(format!("{path}.name"), &c.name));
        }
        validate_lifecycle_and_probes(c, &path, grace, errs);
        if c.restart_policy.is_some() {
            errs.push(FieldError::forbidden(format!("{path}.restartPolicy"), "may not be set for non-init containers"));
        }
    }
    check_host_port_conflicts(&spec.containers, "spec.containers", errs);
}

/// `validateInitContainers`: names unique across all containers; probes and lifecycle only
/// for restartable (sidecar) init containers.
fn validate_init_containers(spec: &PodSpec, grace: Option<i64>, errs: &mut Errors) {
    let mut names: HashSet<&str> = spec.containers.iter().map(|c| c.name.as_str()).collect();
    for (i, c) in init_containers(spec).iter().enumerate() {
        let path = format!("spec.initContainers[{i}]");
        validate_container_common(c, &path, errs);
        // validateInitContainerRestartPolicy
        if let Some(policy) = c.restart_policy.as_deref().filter(|p| *p != "Always") {
            errs.push(FieldError::not_supported(format!("{path}.restartPolicy"), policy, &["Always"]));
        }
        if names.contains(c.name.as_str()) {
            errs.push(FieldError::duplicate(format!("{path}.name"), &c.name));
        } else if !c.name.is_empty() {
            names.insert(c.name.as_str());
        }
        // Go checks each init container alone, so its paths always say initContainers[0].
        check_host_port_conflicts(std::slice::from_ref(c), "spec.initContainers", errs);
        if c.restart_policy.as_deref() == Some("Always") {
            validate_lifecycle_and_probes(c, &path, grace, errs);
        } else {
            forbid_sidecar_fields(c, &path, errs);
        }
    }
}

/// `validateInitContainers`: lifecycle and probes are forbidden on a run-to-completion init container.
fn forbid_sidecar_fields(c: &Container, path: &str, errs: &mut Errors) {
    let set = [
        ("lifecycle", c.lifecycle.is_some()),
        ("livenessProbe", c.liveness_probe.is_some()),
        ("readinessProbe", c.readiness_probe.is_some()),
        ("startupProbe", c.startup_probe.is_some()),
    ];
    for (field, _) in set.into_iter().filter(|(_, is_set)| *is_set) {
        errs.push(FieldError::forbidden(format!("{path}.{field}"), INIT_ONLY_SIDECAR));
    }
}

/// `validateContainerCommon`, for the fields podsim reads: name, image,
/// terminationMessagePolicy, ports, imagePullPolicy and resources (env and mounts are not read).
fn validate_container_common(c: &Container, path: &str, errs: &mut Errors) {
    let name_path = format!("{path}.name");
    if c.name.is_empty() {
        errs.push(FieldError::required(name_path, ""));
    } else {
        invalid_each(&name_path, &c.name, &dns1123_label_errors(&c.name), errs);
    }
    if c.image.as_deref().unwrap_or("").is_empty() {
        errs.push(FieldError::required(format!("{path}.image"), ""));
    }
    let policies = ["File", "FallbackToLogsOnError"];
    let policy = c.termination_message_policy.as_deref();
    validate_one_of(&format!("{path}.terminationMessagePolicy"), policy, &policies, errs);
    validate_container_ports(c.ports.as_deref().unwrap_or(&[]), &format!("{path}.ports"), errs);
    // validatePullPolicy: the supported values are a sorted set
    let pull = c.image_pull_policy.as_deref();
    validate_one_of(&format!("{path}.imagePullPolicy"), pull, &["Always", "IfNotPresent", "Never"], errs);
    if let Some(r) = &c.resources {
        super::resources::validate_resource_requirements(r, &format!("{path}.resources"), errs);
    }
}

/// `validateContainersOnlyForPod`: no leading or trailing whitespace in an image.
fn validate_containers_only_for_pod(containers: &[Container], path: &str, errs: &mut Errors) {
    for (i, c) in containers.iter().enumerate() {
        let image = c.image.as_deref().unwrap_or("");
        if image.trim() != image {
            let detail = "must not have leading or trailing whitespace";
            errs.push(FieldError::invalid(format!("{path}[{i}].image"), format!("{image:?}"), detail));
        }
    }
}

/// `validateContainerPorts`: name (IANA_SVC_NAME, unique), containerPort, hostPort, protocol.
fn validate_container_ports(ports: &[ContainerPort], path: &str, errs: &mut Errors) {
    let mut names = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        let path = format!("{path}[{i}]");
        if let Some(name) = port.name.as_deref().filter(|n| !n.is_empty()) {
            let msgs = port_name_errors(name);
            if !msgs.is_empty() {
                invalid_each(&format!("{path}.name"), name, &msgs, errs);
            } else if !names.insert(name) {
                errs.push(FieldError::duplicate(format!("{path}.name"), name));
            }
        }
        if port.container_port == 0 {
            errs.push(FieldError::required(format!("{path}.containerPort"), ""));
        } else {
            validate_port_num(port.container_port.into(), &format!("{path}.containerPort"), errs);
        }
        if let Some(host_port) = port.host_port.filter(|p| *p != 0) {
            validate_port_num(host_port.into(), &format!("{path}.hostPort"), errs);
        }
        // supportedPortProtocols, listed sorted
        validate_one_of(&format!("{path}.protocol"), port.protocol.as_deref(), &["SCTP", "TCP", "UDP"], errs);
    }
}

/// `checkHostPortConflicts`: a protocol/hostIP/hostPort triple is used once across the list.
fn check_host_port_conflicts(containers: &[Container], path: &str, errs: &mut Errors) {
    let mut seen = HashSet::new();
    for (i, c) in containers.iter().enumerate() {
        for (j, port) in c.ports.iter().flatten().enumerate() {
            let (protocol, ip) = (port.protocol.as_deref().unwrap_or(""), port.host_ip.as_deref().unwrap_or(""));
            let key = format!("{protocol}/{ip}/{}", port.host_port.unwrap_or(0));
            if port.host_port.unwrap_or(0) != 0 && !seen.insert(key.clone()) {
                errs.push(FieldError::duplicate(format!("{path}[{i}].ports[{j}].hostPort"), &key));
            }
        }
    }
}

/// `validatePodHostNetworkDeps`: with hostNetwork, each regular container's hostPort is its containerPort.
fn validate_pod_host_network_deps(spec: &PodSpec, errs: &mut Errors) {
    if spec.host_network != Some(true) {
        return;
    }
    for (i, c) in spec.containers.iter().enumerate() {
        for (j, port) in c.ports.iter().flatten().enumerate() {
            let host_port = port.host_port.unwrap_or(0);
            if host_port != port.container_port {
                let detail = "must match `containerPort` when `hostNetwork` is true";
                errs.push(FieldError::invalid(format!("spec.containers[{i}].ports[{j}].hostPort"), host_port, detail));
            }
        }
    }
}

/// `validateContainers`: lifecycle, then liveness, readiness and startup probes.
fn validate_lifecycle_and_probes(c: &Container, path: &str, grace: Option<i64>, errs: &mut Errors) {
    if let Some(lifecycle) = &c.lifecycle {
        validate_lifecycle(lifecycle, &format!("{path}.lifecycle"), grace, errs);
    }
    let probes = [
        ("livenessProbe", &c.liveness_probe),
        ("readinessProbe", &c.readiness_probe),
        ("startupProbe", &c.startup_probe),
    ];
    for (field, probe) in probes {
        if let Some(p) = probe {
            validate_probe(p, &format!("{path}.{field}"), field == "readinessProbe", grace, errs);
        }
    }
}

/// `validateLifecycle`: postStart then preStop, each exactly one of exec, httpGet, tcpSocket, sleep.
fn validate_lifecycle(lifecycle: &Lifecycle, path: &str, grace: Option<i64>, errs: &mut Errors) {
    for (field, handler) in [("postStart", &lifecycle.post_start), ("preStop", &lifecycle.pre_stop)] {
        if let Some(h) = handler {
            let actions = [
                ("exec", h.exec.as_ref().map(Action::Exec)),
                ("httpGet", h.http_get.as_ref().map(Action::HttpGet)),
                ("tcpSocket", h.tcp_socket.as_ref().map(Action::TcpSocket)),
                ("sleep", h.sleep.as_ref().map(Action::Sleep)),
            ];
            validate_handler(&actions, &format!("{path}.{field}"), grace, errs);
        }
    }
}

/// `validateProbe` plus `validateReadinessProbe` (no terminationGracePeriodSeconds) or
/// `validateLivenessProbe`/`validateStartupProbe` (successThreshold must be 1).
fn validate_probe(p: &Probe, path: &str, readiness: bool, grace: Option<i64>, errs: &mut Errors) {
    let actions = [
        ("exec", p.exec.as_ref().map(Action::Exec)),
        ("httpGet", p.http_get.as_ref().map(Action::HttpGet)),
        ("tcpSocket", p.tcp_socket.as_ref().map(Action::TcpSocket)),
        ("grpc", p.grpc.as_ref().map(Action::Grpc)),
    ];
    validate_handler(&actions, path, grace, errs);
    let counts = [
        ("initialDelaySeconds", p.initial_delay_seconds),
        ("timeoutSeconds", p.timeout_seconds),
        ("periodSeconds", p.period_seconds),
        ("successThreshold", p.success_threshold),
        ("failureThreshold", p.failure_threshold),
    ];
    for (field, value) in counts {
        if let Some(v) = value.filter(|v| *v < 0) {
            errs.push(FieldError::invalid(format!("{path}.{field}"), v, NEGATIVE));
        }
    }
    let grace_path = format!("{path}.terminationGracePeriodSeconds");
    if let Some(t) = p.termination_grace_period_seconds.filter(|t| *t <= 0) {
        errs.push(FieldError::invalid(&grace_path, t, "must be greater than 0"));
    }
    match (readiness, p.termination_grace_period_seconds, p.success_threshold.unwrap_or(0)) {
        (true, Some(t), _) => errs.push(FieldError::invalid(grace_path, t, "must not be set for readinessProbes")),
        (false, _, threshold) if threshold != 1 => {
            errs.push(FieldError::invalid(format!("{path}.successThreshold"), threshold, "must be 1"));
        }
        _ => {}
    }
}

/// `commonHandler`: one action of a probe or lifecycle handler, with the field it is set in.
enum Action<'a> {
    Exec(&'a ExecAction),
    HttpGet(&'a HTTPGetAction),
    TcpSocket(&'a TCPSocketAction),
    Grpc(&'a GRPCAction),
    Sleep(&'a SleepAction),
}

impl Action<'_> {
    /// `validateHandler`'s per-action check; `validateTCPSocketAction` and `validateGRPCAction` inline.
    fn validate(&self, path: &str, grace: Option<i64>, errs: &mut Errors) {
        match self {
            Action::Exec(e) => validate_exec_action(e, path, errs),
            Action::HttpGet(h) => validate_http_get_action(h, path, errs),
            Action::TcpSocket(t) => validate_port_num_or_name(&t.port, &format!("{path}.port"), errs),
            Action::Grpc(g) => validate_port_num(g.port.into(), &format!("{path}.port"), errs),
            Action::Sleep(s) => validate_sleep_action(s, path, grace, errs),
        }
    }
}

/// `validateHandler`: exactly one action; the first set is validated, later ones are forbidden.
fn validate_handler(actions: &[(&str, Option<Action>)], path: &str, grace: Option<i64>, errs: &mut Errors) {
    let mut found = false;
    for (field, action) in actions.iter().filter_map(|(f, a)| Some((f, a.as_ref()?))) {
        let action_path = format!("{path}.{field}");
        if found {
            errs.push(FieldError::forbidden(action_path, "may not specify more than 1 handler type"));
        } else {
            found = true;
            action.validate(&action_path, grace, errs);
        }
    }
    if !found {
        errs.push(FieldError::required(path, "must specify a handler type"));
    }
}

/// `validateExecAction`: a command is required.
fn validate_exec_action(e: &ExecAction, path: &str, errs: &mut Errors) {
    if e.command.as_ref().is_none_or(Vec::is_empty) {
        errs.push(FieldError::required(format!("{path}.command"), ""));
    }
}

/// `validateHTTPGetAction`: path, port and scheme (podsim sends no headers).
fn validate_http_get_action(h: &HTTPGetAction, path: &str, errs: &mut Errors) {
    if h.path.as_deref().unwrap_or("").is_empty() {
        errs.push(FieldError::required(format!("{path}.path"), ""));
    }
    validate_port_num_or_name(&h.port, &format!("{path}.port"), errs);
    let scheme = h.scheme.as_deref().unwrap_or("");
    if !matches!(scheme, "HTTP" | "HTTPS") {
        errs.push(FieldError::not_supported(format!("{path}.scheme"), scheme, &["HTTP", "HTTPS"]));
    }
}

/// `validateSleepAction` (PodLifecycleSleepActionAllowZero, GA in 1.34): 0 ≤ seconds ≤ the pod's grace period.
fn validate_sleep_action(s: &SleepAction, path: &str, grace: Option<i64>, errs: &mut Errors) {
    if let Some(g) = grace.filter(|g| s.seconds < 0 || s.seconds > *g) {
        let detail = format!("must be non-negative and less than terminationGracePeriodSeconds ({g})");
        errs.push(FieldError::invalid(path, s.seconds, &detail));
    }
}

/// `ValidatePortNumOrName`: a number in range or an IANA_SVC_NAME.
pub(super) fn validate_port_num_or_name(port: &IntOrString, path: &str, errs: &mut Errors) {
    match port {
        IntOrString::Int(n) => validate_port_num((*n).into(), path, errs),
        IntOrString::String(name) => invalid_each(path, name, &port_name_errors(name), errs),
    }
}

/// `IsValidPortNum`: 1–65535.
pub(super) fn validate_port_num(port: i64, path: &str, errs: &mut Errors) {
    if !(1..=65535).contains(&port) {
        errs.push(FieldError::invalid(path, port, PORT_RANGE));
    }
}

/// Required when empty, NotSupported (values in the order given) when not listed.
fn validate_one_of(path: &str, value: Option<&str>, supported: &[&str], errs: &mut Errors) {
    match value.unwrap_or("") {
        "" => errs.push(FieldError::required(path, "")),
        v if !supported.contains(&v) => errs.push(FieldError::not_supported(path, v, supported)),
        _ => {}
    }
}

/// One `Invalid value: "<value>": <msg>` per message.
pub(super) fn invalid_each<M: AsRef<str>>(path: &str, value: &str, msgs: &[M], errs: &mut Errors) {
    errs.extend(msgs.iter().map(|msg| FieldError::invalid(path, format!("{value:?}"), msg.as_ref())));
}

#[cfg(test)]
mod tests {
    use super::super::defaults::apply_defaults;
    use super::*;
    use serde_json::{Value, json};

    /// Decodes, defaults and validates `pod`, and compares the messages with `want` (texts from validation.go).
    fn check(pod: Value, want: &[&str]) {
        let mut pod: Pod = serde_json::from_value(pod).expect("test pod decodes");
        apply_defaults(&mut pod);
        let got: Vec<String> = validate_pod(&pod).iter().map(ToString::to_string).collect();
        assert_eq!(got, want);
    }

    fn pod(spec: Value) -> Value {
        json!({"metadata": {"name": "p"}, "spec": spec})
    }

    /// A pod whose one container `app` (nginx) also has the fields of `extra`.
    fn with_container(extra: Value) -> Value {
        let mut c = json!({"name": "app", "image": "nginx"});
        if let (Some(c), Value::Object(extra)) = (c.as_object_mut(), extra) {
            c.extend(extra);
        }
        pod(json!({"containers": [c]}))
    }

    #[test]
    fn plain_pod_is_valid() {
        check(with_container(json!({})), &[]);
    }

    #[test]
    fn metadata() {
        check(
            json!({"spec": {"containers": [{"name": "a", "image": "x"}]}}),
            &["metadata.name: Required value: name or generateName is required"],
        );
        let mut bad = with_container(json!({}));
        bad["metadata"] = json!({"name": "My_Pod", "namespace": "a.b"});
        check(
            bad,
            &[
                r#"metadata.name: Invalid value: "My_Pod": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"#,
                r#"metadata.namespace: Invalid value: "a.b": must not contain dots"#,
            ],
        );
    }

    #[test]
    fn container_names() {
        check(pod(json!({"containers": []})), &["spec.containers: Required value"]);
        let long = "a".repeat(64);
        let names = ["", "My_App", "a.b", &long, "a.b"];
        let containers: Vec<Value> = names.iter().map(|n| json!({"name": n, "image": "x"})).collect();
        check(
            pod(json!({"initContainers": [{"name": "a.b", "image": "x"}], "containers": containers})),
            &[
                "spec.containers[0].name: Required value",
                r#"spec.containers[1].name: Invalid value: "My_App": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"#,
                r#"spec.containers[2].name: Invalid value: "a.b": must not contain dots"#,
                &format!("spec.containers[3].name: Invalid value: \"{long}\": must be no more than 63 characters"),
                r#"spec.containers[4].name: Invalid value: "a.b": must not contain dots"#,
                r#"spec.containers[4].name: Duplicate value: "a.b""#,
                r#"spec.initContainers[0].name: Invalid value: "a.b": must not contain dots"#,
                r#"spec.initContainers[0].name: Duplicate value: "a.b""#,
            ],
        );
    }

    #[test]
    fn images() {
        check(
            pod(json!({"initContainers": [{"name": "init"}], "containers": [{"name": "app", "image": " nginx"}]})),
            &[
                "spec.initContainers[0].image: Required value",
                r#"spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace"#,
            ],
        );
    }

    #[test]
    fn unsupported_values() {
        let mut p = with_container(json!({"imagePullPolicy": "Sometimes", "terminationMessagePolicy": "X"}));
        p["spec"]["restartPolicy"] = json!("Sometimes");
        p["spec"]["dnsPolicy"] = json!("Google");
        check(
            p,
            &[
                r#"spec.containers[0].terminationMessagePolicy: Unsupported value: "X": supported values: "File", "FallbackToLogsOnError""#,
                r#"spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never""#,
                r#"spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never""#,
                r#"spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None""#,
            ],
        );
    }

    #[test]
    fn container_ports() {
        let ports = json!([
            {"containerPort": 0}, {"containerPort": 70000, "protocol": "HTTP"},
            {"containerPort": 80, "name": "web"}, {"containerPort": 81, "name": "web"}, {"containerPort": 82, "name": "Web_Port"},
        ]);
        check(
            with_container(json!({ "ports": ports })),
            &[
                "spec.containers[0].ports[0].containerPort: Required value",
                "spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
                r#"spec.containers[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP""#,
                r#"spec.containers[0].ports[3].name: Duplicate value: "web""#,
                r#"spec.containers[0].ports[4].name: Invalid value: "Web_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"#,
            ],
        );
    }

    #[test]
    fn host_ports_and_identical_messages() {
        let ports = json!([{"containerPort": 1, "hostPort": 8080}, {"containerPort": 2, "hostPort": 8080}]);
        let mut p = pod(json!({
            "initContainers": [{"name": "a", "image": "x", "ports": ports}, {"name": "b", "image": "x", "ports": ports}],
            "containers": [{"name": "app", "image": "x", "ports": [{"containerPort": 80, "hostPort": 81}]}],
        }));
        // Go checks each init container alone (always as initContainers[0]); the repeated text is reported once.
        check(p.clone(), &[r#"spec.initContainers[0].ports[1].hostPort: Duplicate value: "TCP//8080""#]);
        p["spec"]["hostNetwork"] = json!(true);
        check(
            p,
            &[
                r#"spec.initContainers[0].ports[1].hostPort: Duplicate value: "TCP//8080""#,
                "spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` is true",
            ],
        );
    }

    #[test]
    fn success_threshold_must_be_1() {
        let probe = json!({"tcpSocket": {"port": 80}, "successThreshold": 2});
        check(
            with_container(json!({ "livenessProbe": probe })),
            &["spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"],
        );
        check(
            with_container(json!({ "startupProbe": probe })),
            &["spec.containers[0].startupProbe.successThreshold: Invalid value: 2: must be 1"],
        );
        check(with_container(json!({ "readinessProbe": probe })), &[]);
    }

    #[test]
    fn handler_count() {
        check(
            with_container(json!({"livenessProbe": {"periodSeconds": 5}, "lifecycle": {"postStart": {}}})),
            &[
                "spec.containers[0].lifecycle.postStart: Required value: must specify a handler type",
                "spec.containers[0].livenessProbe: Required value: must specify a handler type",
            ],
        );
        let probe = json!({"exec": {}, "tcpSocket": {"port": 80}, "grpc": {"port": 9000}});
        let pre_stop = json!({"exec": {"command": ["true"]}, "sleep": {"seconds": 5}});
        check(
            with_container(json!({"readinessProbe": probe, "lifecycle": {"preStop": pre_stop}})),
            &[
                "spec.containers[0].lifecycle.preStop.sleep: Forbidden: may not specify more than 1 handler type",
                "spec.containers[0].readinessProbe.exec.command: Required value",
                "spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
                "spec.containers[0].readinessProbe.grpc: Forbidden: may not specify more than 1 handler type",
            ],
        );
    }

    #[test]
    fn probe_numbers_and_grace_periods() {
        let live = json!({"exec": {"command": ["true"]}, "periodSeconds": -1, "successThreshold": -1, "terminationGracePeriodSeconds": 0});
        let ready = json!({"exec": {"command": ["true"]}, "terminationGracePeriodSeconds": 10});
        check(
            with_container(json!({"livenessProbe": live, "readinessProbe": ready})),
            &[
                "spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0",
                "spec.containers[0].livenessProbe.successThreshold: Invalid value: -1: must be greater than or equal to 0",
                "spec.containers[0].livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0",
                "spec.containers[0].livenessProbe.successThreshold: Invalid value: -1: must be 1",
                "spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 10: must not be set for readinessProbes",
            ],
        );
    }

    #[test]
    fn probe_actions() {
        let actions = [
            json!({"httpGet": {"port": 70000, "scheme": "FTP"}}),
            json!({"tcpSocket": {"port": 0}}),
            json!({"grpc": {"port": 0}}),
        ];
        let [http, tcp, grpc] = actions;
        check(
            with_container(json!({"livenessProbe": http, "readinessProbe": tcp, "startupProbe": grpc})),
            &[
                "spec.containers[0].livenessProbe.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive",
                r#"spec.containers[0].livenessProbe.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS""#,
                "spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive",
                "spec.containers[0].startupProbe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive",
            ],
        );
    }

    #[test]
    fn named_ports() {
        let cases: [(&str, &[&str]); 6] = [
            ("averyveryverylongname", &["must be no more than 15 characters"]),
            ("8080", &["must contain at least one letter (a-z)"]),
            ("8080-9", &["must contain at least one letter (a-z)"]),
            ("a--b", &["must not contain consecutive hyphens"]),
            ("-web", &["must not begin or end with a hyphen"]),
            (
                "--",
                &[
                    "must contain at least one letter (a-z)",
                    "must not contain consecutive hyphens",
                    "must not begin or end with a hyphen",
                ],
            ),
        ];
        for (name, msgs) in cases {
            let path = "spec.containers[0].livenessProbe.httpGet.port";
            let want: Vec<String> = msgs.iter().map(|m| format!("{path}: Invalid value: \"{name}\": {m}")).collect();
            let want: Vec<&str> = want.iter().map(String::as_str).collect();
            check(with_container(json!({"livenessProbe": {"httpGet": {"port": name}}})), &want);
        }
    }

    #[test]
    fn init_containers_and_container_restart_policy() {
        let probe = json!({"tcpSocket": {"port": 80}, "successThreshold": 2});
        check(
            pod(json!({
                "initContainers": [
                    {"name": "init", "image": "x", "livenessProbe": probe, "lifecycle": {"preStop": {"sleep": {"seconds": 1}}}},
                    {"name": "job", "image": "x", "restartPolicy": "OnFailure"},
                    {"name": "sidecar", "image": "x", "restartPolicy": "Always", "startupProbe": probe},
                ],
                "containers": [{"name": "app", "image": "x", "restartPolicy": "Always"}],
            })),
            &[
                "spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers",
                "spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always",
                "spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
                r#"spec.initContainers[1].restartPolicy: Unsupported value: "OnFailure": supported values: "Always""#,
                "spec.initContainers[2].startupProbe.successThreshold: Invalid value: 2: must be 1",
            ],
        );
    }

    #[test]
    fn sleep_within_grace_period() {
        for seconds in [-1, 31] {
            check(
                with_container(json!({"lifecycle": {"preStop": {"sleep": {"seconds": seconds}}}})),
                &[&format!(
                    "spec.containers[0].lifecycle.preStop.sleep: Invalid value: {seconds}: must be non-negative and less than terminationGracePeriodSeconds (30)"
                )],
            );
        }
        check(with_container(json!({"lifecycle": {"preStop": {"sleep": {"seconds": 0}}}})), &[]);
    }

    #[test]
    fn pod_level_fields() {
        let mut p = with_container(json!({}));
        p["spec"]["activeDeadlineSeconds"] = json!(0);
        p["spec"]["nodeName"] = json!("Node_1");
        check(
            p,
            &[
                r#"spec.nodeName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"#,
                "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
            ],
        );
    }

    #[test]
    fn undefaulted_pod_reads_go_zero_values() {
        let p: Pod =
            serde_json::from_value(pod(json!({"containers": [{"name": "app", "image": "x"}]}))).expect("decodes");
        let got: Vec<String> = validate_pod(&p).iter().map(ToString::to_string).collect();
        assert_eq!(
            got,
            [
                "spec.terminationGracePeriodSeconds: Required value",
                "spec.containers[0].terminationMessagePolicy: Required value",
                "spec.containers[0].imagePullPolicy: Required value",
                "spec.restartPolicy: Required value",
                "spec.dnsPolicy: Required value",
            ]
        );
    }
}
