//! From a defaulted, valid API Pod to the simulator's [`PodSpec`].

use crate::api::quantity::Quantity;
use crate::spec::{
    ContainerPort, ContainerSpec, Handler, HookHandler, PodSpec, PortRef, ProbeSpec, PullPolicy, QosClass,
    RestartPolicy, Role,
};
use crate::time::SimDuration;
use k8s_openapi::api::core::v1::{Container, LifecycleHandler, Pod, Probe};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::sync::Arc;

/// Builds the typed spec, with warnings (path, message) for what the API
/// server accepts but the kubelet cannot run as written.
pub fn pod_spec(pod: Pod) -> (PodSpec, Vec<(String, String)>) {
    let mut warnings = Vec::new();
    let spec = pod.spec.clone().unwrap_or_default();
    let restart_policy = match spec.restart_policy.as_deref() {
        Some("OnFailure") => RestartPolicy::OnFailure,
        Some("Never") => RestartPolicy::Never,
        _ => RestartPolicy::Always,
    };
    let inits = spec.init_containers.as_deref().unwrap_or_default();
    let init = inits.iter().enumerate().map(|(i, c)| {
        let role = if c.restart_policy.as_deref() == Some("Always") { Role::Sidecar } else { Role::Init };
        container(&format!("spec.initContainers[{i}]"), c, role, &mut warnings)
    });
    let init: Vec<ContainerSpec> = init.collect();
    let regular = spec
        .containers
        .iter()
        .enumerate()
        .map(|(i, c)| container(&format!("spec.containers[{i}]"), c, Role::Regular, &mut warnings));
    let containers: Vec<ContainerSpec> = init.into_iter().chain(regular).collect();
    let qos = qos_class(spec.containers.iter().chain(inits));
    let mut pod = pod;
    // A Pod's negative grace is stored as 1 — on 1.34–1.36 by conversion
    // (`Convert_v1_Pod_To_core_Pod`, PR #115606, 1.27+), from 1.37 by the
    // Pod's defaulting (`SetDefaults_Pod`, PR #139857) — for Pods only, so
    // templates keep theirs and warn.
    let grace = match spec.termination_grace_period_seconds.unwrap_or(30) {
        g if g < 0 => {
            pod.spec.get_or_insert_default().termination_grace_period_seconds = Some(1);
            1
        }
        g => g,
    };
    let name = pod.metadata.name.clone().unwrap_or_default();
    let built = PodSpec {
        alias: Arc::from(format!("pod/{name}")),
        name,
        namespace: pod.metadata.namespace.clone().unwrap_or_else(|| "default".to_string()),
        labels: pod.metadata.labels.clone().unwrap_or_default(),
        restart_policy,
        termination_grace: secs(grace),
        active_deadline_seconds: spec.active_deadline_seconds,
        node_name: spec.node_name.clone(),
        host_network: spec.host_network.unwrap_or(false),
        containers,
        readiness_gates: spec.readiness_gates.iter().flatten().map(|g| g.condition_type.clone()).collect(),
        config: Arc::new(super::references::needs(&spec)),
        claims: spec
            .volumes
            .iter()
            .flatten()
            .filter_map(|v| v.persistent_volume_claim.as_ref().map(|c| Arc::from(c.claim_name.as_str())))
            .collect(),
        qos,
        requests: crate::spec::resources::pod_requests(&spec),
        owner: None,
        object: pod,
    };
    (built, warnings)
}

fn secs(s: i64) -> SimDuration {
    SimDuration::from_secs(s.max(0) as u64)
}

fn container(path: &str, c: &Container, role: Role, warnings: &mut Vec<(String, String)>) -> ContainerSpec {
    let ports: Vec<ContainerPort> = c
        .ports
        .iter()
        .flatten()
        .map(|p| ContainerPort {
            name: p.name.clone(),
            port: p.container_port.clamp(1, 65535) as u16,
            protocol: p.protocol.clone().unwrap_or_else(|| "TCP".into()),
        })
        .collect();
    let pull_policy = match c.image_pull_policy.as_deref() {
        Some("Always") => PullPolicy::Always,
        Some("Never") => PullPolicy::Never,
        _ => PullPolicy::IfNotPresent,
    };
    let mut probe_of = |field: &str, p: &Option<Probe>| {
        let probe = p.as_ref().map(probe)?;
        if let Some(PortRef::Name(name)) = port_of(&probe.handler)
            && !ports.iter().any(|d| d.name.as_deref() == Some(name))
        {
            warnings.push((
                format!("{path}.{field}"),
                format!(
                    "port name {name:?} is not declared in {path}.ports: the kubelet cannot resolve it, \
                         so every {} probe errors and its result is thrown away (it never succeeds or fails)",
                    field.trim_end_matches("Probe")
                ),
            ));
        }
        Some(probe)
    };
    let startup = probe_of("startupProbe", &c.startup_probe);
    let readiness = probe_of("readinessProbe", &c.readiness_probe);
    let liveness = probe_of("livenessProbe", &c.liveness_probe);
    let lifecycle = c.lifecycle.as_ref();
    ContainerSpec {
        name: Arc::from(c.name.as_str()),
        role,
        image: c.image.clone().unwrap_or_default(),
        command: c.command.clone().unwrap_or_default(),
        args: c.args.clone().unwrap_or_default(),
        env: c.env.iter().flatten().filter_map(|e| Some((e.name.clone(), e.value.clone()?))).collect(),
        mounts: c.volume_mounts.iter().flatten().map(|m| (m.mount_path.clone(), m.name.clone())).collect(),
        pull_policy,
        ports,
        startup,
        readiness,
        liveness,
        post_start: lifecycle.and_then(|l| l.post_start.as_ref()).map(hook),
        pre_stop: lifecycle.and_then(|l| l.pre_stop.as_ref()).map(hook),
        // Decoding checked every quantity (quantities.rs); validation that none is negative.
        memory_limit: (c.resources.as_ref().and_then(|r| r.limits.as_ref()))
            .and_then(|l| l.get("memory"))
            .and_then(|q| Quantity::parse(&q.0).ok()),
    }
}

/// A validated hook has exactly one action; validation ran before this.
fn hook(h: &LifecycleHandler) -> HookHandler {
    if let Some(e) = &h.exec {
        HookHandler::Exec { command: e.command.clone().unwrap_or_default() }
    } else if let Some(g) = &h.http_get {
        HookHandler::HttpGet {
            port: port_ref(&g.port),
            path: g.path.clone().unwrap_or_else(|| "/".into()),
            scheme: g.scheme.clone().unwrap_or_else(|| "HTTP".into()),
            host: g.host.clone().filter(|h| !h.is_empty()),
        }
    } else if let Some(t) = &h.tcp_socket {
        HookHandler::TcpSocket { port: port_ref(&t.port) }
    } else {
        let seconds = h.sleep.as_ref().map_or(0, |s| s.seconds);
        HookHandler::Sleep { duration: secs(seconds) }
    }
}

fn port_of(h: &Handler) -> Option<&PortRef> {
    match h {
        Handler::HttpGet { port, .. } | Handler::TcpSocket { port } => Some(port),
        _ => None,
    }
}

fn port_ref(p: &IntOrString) -> PortRef {
    match p {
        IntOrString::Int(n) => PortRef::Number((*n).clamp(1, 65535) as u16),
        IntOrString::String(s) => match s.parse::<u16>() {
            Ok(n) => PortRef::Number(n),
            Err(_) => PortRef::Name(s.clone()),
        },
    }
}

/// A validated probe has exactly one handler; validation ran before this.
fn probe(p: &Probe) -> ProbeSpec {
    let handler = if let Some(h) = &p.http_get {
        Handler::HttpGet {
            port: port_ref(&h.port),
            path: h.path.clone().unwrap_or_else(|| "/".into()),
            scheme: h.scheme.clone().unwrap_or_else(|| "HTTP".into()),
        }
    } else if let Some(t) = &p.tcp_socket {
        Handler::TcpSocket { port: port_ref(&t.port) }
    } else if let Some(g) = &p.grpc {
        Handler::Grpc { port: g.port.clamp(1, 65535) as u16, service: g.service.clone().unwrap_or_default() }
    } else {
        Handler::Exec { command: p.exec.as_ref().and_then(|e| e.command.clone()).unwrap_or_default() }
    };
    let positive = |v: Option<i32>, default: i32| v.filter(|v| *v > 0).unwrap_or(default) as u32;
    ProbeSpec {
        handler,
        initial_delay_seconds: p.initial_delay_seconds.unwrap_or(0).max(0) as u32,
        period: SimDuration::from_secs(positive(p.period_seconds, 10) as u64),
        timeout: SimDuration::from_secs(positive(p.timeout_seconds, 1) as u64),
        success_threshold: positive(p.success_threshold, 1),
        failure_threshold: positive(p.failure_threshold, 3),
        termination_grace: p.termination_grace_period_seconds.map(secs),
    }
}

/// `GetPodQOS` (pkg/apis/core/v1/helper/qos): Guaranteed when every container
/// has cpu and memory limits equal to its requests, BestEffort when none has
/// any, else Burstable. Quantities are compared as written.
fn qos_class<'a>(containers: impl Iterator<Item = &'a Container>) -> QosClass {
    let mut any = false;
    let mut guaranteed = true;
    for c in containers {
        let r = c.resources.as_ref();
        let requests = r.and_then(|r| r.requests.as_ref());
        let limits = r.and_then(|r| r.limits.as_ref());
        for res in ["cpu", "memory"] {
            let req = requests.and_then(|m| m.get(res));
            let lim = limits.and_then(|m| m.get(res));
            any |= req.is_some() || lim.is_some();
            guaranteed &= lim.is_some() && req.is_none_or(|q| Some(q) == lim);
        }
    }
    match (any, guaranteed) {
        (false, _) => QosClass::BestEffort,
        (true, true) => QosClass::Guaranteed,
        (true, false) => QosClass::Burstable,
    }
}
