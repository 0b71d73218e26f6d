//! API-server defaulting for the Pod fields podsim reads (pkg/apis/core/v1/defaults.go).
//!
//! Also applies what the admission plugins every cluster runs add on create
//! (ServiceAccount, Priority, DefaultTolerationSeconds), because those fields
//! are present on every real pod. The kube-api-access projected volume is not
//! added: podsim does not model volumes.

use k8s_openapi::api::core::v1::{Container, HTTPGetAction, Lifecycle, Pod, PodSpec, Probe, Toleration};

/// Applies the defaults the API server applies on create, as listed in kubelet-B.md §6.1
pub fn apply_defaults(pod: &mut Pod) {
    let spec = pod.spec.get_or_insert_default();
    set_defaults_pod(spec);
    set_defaults_pod_spec(spec);
    for c in spec.containers.iter_mut().chain(spec.init_containers.iter_mut().flatten()) {
        set_defaults_container(c);
    }
    admit_service_account(spec);
    admit_priority(spec);
    admit_default_toleration_seconds(spec);
}

/// `SetDefaults_Pod`: requests from limits, enableServiceLinks, host-network ports.
fn set_defaults_pod(spec: &mut PodSpec) {
    let host_network = spec.host_network == Some(true);
    for c in spec.containers.iter_mut().chain(spec.init_containers.iter_mut().flatten()) {
        default_requests_to_limits(c);
        if host_network {
            default_host_network_ports(c);
        }
    }
    // SetDefaults_Pod: v1.DefaultEnableServiceLinks
    spec.enable_service_links.get_or_insert(true);
}

/// `SetDefaults_Pod`: a container's request defaults to its limit for each resource without one.
fn default_requests_to_limits(c: &mut Container) {
    let Some(resources) = c.resources.as_mut() else {
        return;
    };
    let Some(limits) = resources.limits.as_ref() else {
        return;
    };
    let requests = resources.requests.get_or_insert_default();
    for (key, value) in limits {
        requests.entry(key.clone()).or_insert_with(|| value.clone());
    }
}

/// `defaultHostNetworkPorts`: with hostNetwork, an unset hostPort becomes the containerPort.
fn default_host_network_ports(c: &mut Container) {
    for port in c.ports.iter_mut().flatten() {
        if port.host_port.unwrap_or(0) == 0 {
            port.host_port = Some(port.container_port);
        }
    }
}

/// `SetDefaults_PodSpec`: dnsPolicy, restartPolicy, securityContext, grace period, scheduler.
fn set_defaults_pod_spec(spec: &mut PodSpec) {
    set_if_empty(&mut spec.dns_policy, "ClusterFirst");
    set_if_empty(&mut spec.restart_policy, "Always");
    spec.security_context.get_or_insert_default();
    // SetDefaults_PodSpec: v1.DefaultTerminationGracePeriodSeconds
    spec.termination_grace_period_seconds.get_or_insert(30);
    set_if_empty(&mut spec.scheduler_name, "default-scheduler");
}

/// `SetDefaults_Container` plus the generated port, probe and lifecycle defaults of one container.
fn set_defaults_container(c: &mut Container) {
    if c.image_pull_policy.as_deref().unwrap_or("").is_empty() {
        c.image_pull_policy = Some(default_pull_policy(c.image.as_deref().unwrap_or("")).to_string());
    }
    // SetDefaults_Container: v1.TerminationMessagePathDefault
    set_if_empty(&mut c.termination_message_path, "/dev/termination-log");
    // SetDefaults_Container: v1.TerminationMessageReadFile
    set_if_empty(&mut c.termination_message_policy, "File");
    for port in c.ports.iter_mut().flatten() {
        // zz_generated.defaults: ContainerPort.Protocol
        set_if_empty(&mut port.protocol, "TCP");
    }
    for probe in [&mut c.startup_probe, &mut c.readiness_probe, &mut c.liveness_probe].into_iter().flatten() {
        set_defaults_probe(probe);
    }
    if let Some(lifecycle) = c.lifecycle.as_mut() {
        set_defaults_lifecycle(lifecycle);
    }
}

/// `SetDefaults_Container`: `Always` when the parsed tag is `latest`, else `IfNotPresent`.
fn default_pull_policy(image: &str) -> &'static str {
    if image_tag(image) == Some("latest") { "Always" } else { "IfNotPresent" }
}

/// `SetDefaults_Probe` (0 counts as unset) plus `SetDefaults_HTTPGetAction` and the grpc service.
fn set_defaults_probe(p: &mut Probe) {
    for (field, default) in [
        (&mut p.timeout_seconds, 1),
        (&mut p.period_seconds, 10),
        (&mut p.success_threshold, 1),
        (&mut p.failure_threshold, 3),
    ] {
        if field.unwrap_or(0) == 0 {
            *field = Some(default);
        }
    }
    if let Some(h) = p.http_get.as_mut() {
        set_defaults_http_get_action(h);
    }
    if let Some(g) = p.grpc.as_mut() {
        // zz_generated.defaults: GRPCAction.Service = ""
        g.service.get_or_insert_default();
    }
}

/// zz_generated.defaults: `SetDefaults_HTTPGetAction` on postStart and preStop.
fn set_defaults_lifecycle(l: &mut Lifecycle) {
    for handler in [&mut l.post_start, &mut l.pre_stop].into_iter().flatten() {
        if let Some(h) = handler.http_get.as_mut() {
            set_defaults_http_get_action(h);
        }
    }
}

/// `SetDefaults_HTTPGetAction`: path `/`, scheme `HTTP`.
fn set_defaults_http_get_action(h: &mut HTTPGetAction) {
    set_if_empty(&mut h.path, "/");
    set_if_empty(&mut h.scheme, "HTTP");
}

/// ServiceAccount admission (plugin/pkg/admission/serviceaccount) and the v1
/// conversion that mirrors `serviceAccountName` into deprecated `serviceAccount`.
fn admit_service_account(spec: &mut PodSpec) {
    let name = [&spec.service_account_name, &spec.service_account]
        .into_iter()
        .flatten()
        .find(|s| !s.is_empty())
        .cloned()
        .unwrap_or_else(|| "default".to_string());
    spec.service_account_name = Some(name.clone());
    spec.service_account = Some(name);
}

/// Priority admission (plugin/pkg/admission/priority): priority 0 and PreemptLowerPriority.
fn admit_priority(spec: &mut PodSpec) {
    spec.priority.get_or_insert(0);
    set_if_empty(&mut spec.preemption_policy, "PreemptLowerPriority");
}

/// DefaultTolerationSeconds admission: not-ready and unreachable NoExecute for 300 s,
/// each unless a toleration with that key (or no key) and NoExecute (or no effect) exists.
fn admit_default_toleration_seconds(spec: &mut PodSpec) {
    let tolerations = spec.tolerations.get_or_insert_default();
    for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
        if !tolerations.iter().any(|t| tolerates_no_execute(t, key)) {
            tolerations.push(Toleration {
                key: Some(key.to_string()),
                operator: Some("Exists".to_string()),
                effect: Some("NoExecute".to_string()),
                toleration_seconds: Some(300),
                value: None,
            });
        }
    }
}

/// DefaultTolerationSeconds: the toleration matches `key` (or every key) for NoExecute (or every effect).
fn tolerates_no_execute(t: &Toleration, key: &str) -> bool {
    let key_matches = matches!(t.key.as_deref(), None | Some("")) || t.key.as_deref() == Some(key);
    key_matches && matches!(t.effect.as_deref(), None | Some("" | "NoExecute"))
}

/// Sets an optional string field that is absent or empty (Go's `if x == ""`).
pub(super) fn set_if_empty(field: &mut Option<String>, value: &str) {
    if field.as_deref().unwrap_or("").is_empty() {
        *field = Some(value.to_string());
    }
}

/// `parsers.ParseImageName` (distribution/reference `ParseNormalizedNamed`): the tag,
/// `latest` when there is neither tag nor digest, `""` for a digest only, `None` when unparsable.
fn image_tag(image: &str) -> Option<&str> {
    let (name_and_tag, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    if digest.is_some_and(|d| !valid_digest(d)) || is_hex_identifier(image) {
        return None;
    }
    let last_part = name_and_tag.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match name_and_tag[last_part..].rfind(':') {
        Some(i) => (&name_and_tag[..last_part + i], Some(&name_and_tag[last_part + i + 1..])),
        None => (name_and_tag, None),
    };
    if !valid_name(name) || tag.is_some_and(|t| !valid_tag(t)) {
        return None;
    }
    Some(match (tag, digest) {
        (Some(t), _) => t,
        (None, None) => "latest",
        (None, Some(_)) => "",
    })
}

/// `anchoredIdentifierRegexp`: a bare 64-hex image ID is not a repository name.
fn is_hex_identifier(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `splitDockerDomain` + `ReferenceRegexp`: optional domain, lowercase path components, ≤255 bytes.
fn valid_name(name: &str) -> bool {
    let (domain, path) = match name.split_once('/') {
        Some((d, rest)) if d.contains(['.', ':']) || d == "localhost" || d.to_lowercase() != d => (d, rest),
        _ => ("docker.io", name),
    };
    let library = if domain == "docker.io" && !path.contains('/') { "library/".len() } else { 0 };
    valid_domain(domain) && path.split('/').all(valid_path_component) && domain.len() + 1 + library + path.len() <= 255
}

/// `domainAndPort`: dot-separated host labels (or a bracketed IPv6) and an optional numeric port.
fn valid_domain(domain: &str) -> bool {
    let (host_ok, port) = match domain.strip_prefix('[').map(|rest| rest.split_once(']')) {
        Some(None) => return false,
        Some(Some((v6, after))) => {
            let port = match after.strip_prefix(':') {
                Some(p) => Some(p),
                None if after.is_empty() => None,
                None => return false,
            };
            (!v6.is_empty() && v6.bytes().all(|b| b == b':' || b.is_ascii_hexdigit()), port)
        }
        None => {
            let (host, port) = domain.split_once(':').map_or((domain, None), |(h, p)| (h, Some(p)));
            (host.split('.').all(valid_host_label), port)
        }
    };
    host_ok && port.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `domainNameComponent`: `[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]`.
fn valid_host_label(l: &str) -> bool {
    let b = l.as_bytes();
    b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        && b.first().is_some_and(u8::is_ascii_alphanumeric)
        && b.last().is_some_and(u8::is_ascii_alphanumeric)
}

/// `pathComponent`: `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`.
fn valid_path_component(c: &str) -> bool {
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let bytes = c.as_bytes();
    if !bytes.first().is_some_and(|b| alnum(*b)) || !bytes.last().is_some_and(|b| alnum(*b)) {
        return false;
    }
    bytes
        .split(|b| alnum(*b))
        .filter(|sep| !sep.is_empty())
        .all(|sep| matches!(sep, b"." | b"_" | b"__") || sep.iter().all(|b| *b == b'-'))
}

/// `tag`: `[\w][\w.-]{0,127}`.
fn valid_tag(t: &str) -> bool {
    let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    t.len() <= 128 && t.as_bytes().first().is_some_and(word) && t.bytes().all(|b| word(&b) || b == b'.' || b == b'-')
}

/// go-digest `Digest.Validate`: an available algorithm and lowercase hex of its exact length.
fn valid_digest(d: &str) -> bool {
    let Some((algorithm, encoded)) = d.split_once(':') else {
        return false;
    };
    let len = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return false,
    };
    encoded.len() == len && encoded.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{ContainerPort, GRPCAction, LifecycleHandler, ResourceRequirements};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn pod_with(c: Container) -> Pod {
        let mut pod = Pod { spec: Some(PodSpec { containers: vec![c], ..Default::default() }), ..Default::default() };
        apply_defaults(&mut pod);
        pod
    }

    fn container(image: &str) -> Container {
        Container { name: "app".into(), image: Some(image.into()), ..Default::default() }
    }

    fn defaulted(c: Container) -> Container {
        pod_with(c).spec.unwrap_or_default().containers.remove(0)
    }

    #[test]
    fn pull_policy_follows_the_parsed_tag() {
        let cases = [
            ("nginx", "Always"),
            ("nginx:latest", "Always"),
            ("nginx:1.27", "IfNotPresent"),
            (&format!("nginx@{DIGEST}"), "IfNotPresent"),
            (&format!("nginx:latest@{DIGEST}"), "Always"),
            ("localhost:5000/nginx", "Always"),
            ("localhost:5000/nginx:1.0", "IfNotPresent"),
            ("registry.example.com/team/app", "Always"),
            ("busybox:1.28", "IfNotPresent"),
            ("Nginx", "IfNotPresent"),
            ("nginx@sha256:abc", "IfNotPresent"),
            ("", "IfNotPresent"),
        ];
        for (image, want) in cases {
            assert_eq!(defaulted(container(image)).image_pull_policy.as_deref(), Some(want), "image {image:?}");
        }
    }

    #[test]
    fn explicit_pull_policy_is_kept() {
        let c = Container { image_pull_policy: Some("Never".into()), ..container("nginx") };
        assert_eq!(defaulted(c).image_pull_policy.as_deref(), Some("Never"));
    }

    #[test]
    fn pod_spec_and_admission_defaults() {
        let spec = pod_with(container("nginx")).spec.unwrap_or_default();
        assert_eq!(spec.dns_policy.as_deref(), Some("ClusterFirst"));
        assert_eq!(spec.restart_policy.as_deref(), Some("Always"));
        assert!(spec.security_context.is_some());
        assert_eq!(spec.termination_grace_period_seconds, Some(30));
        assert_eq!(spec.scheduler_name.as_deref(), Some("default-scheduler"));
        assert_eq!(spec.enable_service_links, Some(true));
        assert_eq!(spec.priority, Some(0));
        assert_eq!(spec.preemption_policy.as_deref(), Some("PreemptLowerPriority"));
        assert_eq!(spec.service_account_name.as_deref(), Some("default"));
        assert_eq!(spec.service_account.as_deref(), Some("default"));
        let keys: Vec<_> = spec.tolerations.iter().flatten().map(|t| (t.key.clone(), t.toleration_seconds)).collect();
        assert_eq!(
            keys,
            [
                (Some("node.kubernetes.io/not-ready".into()), Some(300)),
                (Some("node.kubernetes.io/unreachable".into()), Some(300))
            ]
        );
    }

    #[test]
    fn existing_toleration_is_not_duplicated() {
        let mut pod = Pod {
            spec: Some(PodSpec {
                containers: vec![container("nginx")],
                tolerations: Some(vec![Toleration {
                    key: Some("node.kubernetes.io/unreachable".into()),
                    operator: Some("Exists".into()),
                    effect: Some("NoExecute".into()),
                    toleration_seconds: Some(5),
                    value: None,
                }]),
                ..Default::default()
            }),
            ..Default::default()
        };
        apply_defaults(&mut pod);
        let t = pod.spec.unwrap_or_default().tolerations.unwrap_or_default();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].toleration_seconds, Some(5));
        assert_eq!(t[1].key.as_deref(), Some("node.kubernetes.io/not-ready"));
    }

    #[test]
    fn container_ports_probes_and_resources() {
        let limits = [("cpu".to_string(), Quantity("500m".into()))].into_iter().collect();
        let c = Container {
            ports: Some(vec![ContainerPort { container_port: 80, ..Default::default() }]),
            resources: Some(ResourceRequirements { limits: Some(limits), ..Default::default() }),
            liveness_probe: Some(Probe {
                http_get: Some(HTTPGetAction { port: IntOrString::Int(80), ..Default::default() }),
                period_seconds: Some(0),
                ..Default::default()
            }),
            readiness_probe: Some(Probe {
                grpc: Some(GRPCAction { port: 9000, ..Default::default() }),
                ..Default::default()
            }),
            lifecycle: Some(Lifecycle {
                pre_stop: Some(LifecycleHandler {
                    http_get: Some(HTTPGetAction { port: IntOrString::Int(80), ..Default::default() }),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..container("nginx")
        };
        let c = defaulted(c);
        assert_eq!(c.termination_message_path.as_deref(), Some("/dev/termination-log"));
        assert_eq!(c.termination_message_policy.as_deref(), Some("File"));
        assert_eq!(c.ports.unwrap_or_default()[0].protocol.as_deref(), Some("TCP"));
        let requests = c.resources.and_then(|r| r.requests).unwrap_or_default();
        assert_eq!(requests.get("cpu"), Some(&Quantity("500m".into())));
        let live = c.liveness_probe.unwrap_or_default();
        let got = (live.timeout_seconds, live.period_seconds, live.success_threshold, live.failure_threshold);
        assert_eq!(got, (Some(1), Some(10), Some(1), Some(3)));
        let h = live.http_get.unwrap_or_default();
        assert_eq!((h.path.as_deref(), h.scheme.as_deref()), (Some("/"), Some("HTTP")));
        let grpc = c.readiness_probe.and_then(|p| p.grpc).unwrap_or_default();
        assert_eq!(grpc.service.as_deref(), Some(""));
        let pre_stop = c.lifecycle.and_then(|l| l.pre_stop).and_then(|h| h.http_get).unwrap_or_default();
        assert_eq!(pre_stop.path.as_deref(), Some("/"));
    }

    #[test]
    fn host_network_ports_default_to_container_port() {
        let mut pod = Pod {
            spec: Some(PodSpec {
                host_network: Some(true),
                containers: vec![Container {
                    ports: Some(vec![ContainerPort { container_port: 8080, ..Default::default() }]),
                    ..container("nginx")
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        apply_defaults(&mut pod);
        let port = &pod.spec.unwrap_or_default().containers[0].ports.clone().unwrap_or_default()[0];
        assert_eq!(port.host_port, Some(8080));
    }
}
