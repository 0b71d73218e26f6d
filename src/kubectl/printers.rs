//! The `kubectl get` tables of each kind podsim simulates, cell for cell as
//! kubectl's printers make them (pkg/printers/internalversion/printers.go:
//! `printPod`, `printDeployment`, `printReplicaSet`, `printService`,
//! `printEndpointSlice`, `printStatefulSet`), with the `-o wide` columns.

use super::{human_duration, print_pod};
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod, PodTemplateSpec, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use std::collections::BTreeMap;

/// The column headers of a kind's table.
pub fn header(kind: Kind, wide: bool) -> Vec<String> {
    if kind == Kind::Event && wide {
        let cells =
            ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"];
        return cells.iter().map(|s| s.to_string()).collect();
    }
    let (base, extra): (&[&str], &[&str]) = match kind {
        Kind::Pod => {
            (&["NAME", "READY", "STATUS", "RESTARTS", "AGE"], &["IP", "NODE", "NOMINATED NODE", "READINESS GATES"])
        }
        Kind::Deployment => {
            (&["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], &["CONTAINERS", "IMAGES", "SELECTOR"])
        }
        Kind::ReplicaSet => (&["NAME", "DESIRED", "CURRENT", "READY", "AGE"], &["CONTAINERS", "IMAGES", "SELECTOR"]),
        Kind::Service => (&["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"], &["SELECTOR"]),
        Kind::EndpointSlice => (&["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"], &[]),
        Kind::Event => (&["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], &[]),
        Kind::Pdb => (&["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"], &[]),
        Kind::Job => (&["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"], &["CONTAINERS", "IMAGES", "SELECTOR"]),
        Kind::CronJob => (
            &["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"],
            &["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        Kind::DaemonSet => (
            &["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"],
            &["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        Kind::ControllerRevision => (&["NAME", "CONTROLLER", "REVISION", "AGE"], &[]),
        Kind::Node => (
            &["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
            &["INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"],
        ),
        Kind::StatefulSet => (&["NAME", "READY", "AGE"], &["CONTAINERS", "IMAGES"]),
        Kind::Claim => (
            &["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"],
            &["VOLUMEMODE"],
        ),
    };
    let extra = if wide { extra } else { &[] };
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// The kinds `podsim get` prints.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Pod,
    Deployment,
    ReplicaSet,
    Service,
    EndpointSlice,
    Event,
    /// PersistentVolumeClaims.
    Claim,
    /// PodDisruptionBudgets.
    Pdb,
    /// Nodes (cluster-scoped).
    Node,
    Job,
    CronJob,
    StatefulSet,
    DaemonSet,
    ControllerRevision,
}

/// The kind as kubectl names it before a name when it shows kinds
/// (`deployment.apps/web`): the resource's singular, with its group.
pub fn qualified_kind(kind: Kind) -> &'static str {
    match kind {
        Kind::Pod => "pod",
        Kind::Deployment => "deployment.apps",
        Kind::ReplicaSet => "replicaset.apps",
        Kind::Service => "service",
        Kind::EndpointSlice => "endpointslice.discovery.k8s.io",
        Kind::Event => "event",
        Kind::Claim => "persistentvolumeclaim",
        Kind::Pdb => "poddisruptionbudget.policy",
        Kind::Node => "node",
        Kind::Job => "job.batch",
        Kind::CronJob => "cronjob.batch",
        Kind::StatefulSet => "statefulset.apps",
        Kind::DaemonSet => "daemonset.apps",
        Kind::ControllerRevision => "controllerrevision.apps",
    }
}

/// `translateTimestampSince`: the AGE cell at `now`.
fn age(meta: &ObjectMeta, now: Timestamp) -> String {
    match &meta.creation_timestamp {
        Some(Time(t)) => human_duration(now.duration_since(*t).as_millis() as i64),
        None => "<unknown>".into(),
    }
}

fn name(meta: &ObjectMeta) -> String {
    meta.name.clone().unwrap_or_default()
}

fn or_none(s: Option<String>) -> String {
    s.filter(|s| !s.is_empty()).unwrap_or_else(|| "<none>".into())
}

/// `printPod`'s row.
pub fn pod_row(pod: &Pod, now: Timestamp, wide: bool) -> Vec<String> {
    let line = print_pod(pod);
    let mut row = vec![
        name(&pod.metadata),
        format!("{}/{}", line.ready.0, line.ready.1),
        line.status.clone(),
        line.restarts_cell(now),
        age(&pod.metadata, now),
    ];
    if wide {
        let status = pod.status.as_ref();
        row.push(or_none(status.and_then(|s| s.pod_ip.clone())));
        row.push(or_none(pod.spec.as_ref().and_then(|s| s.node_name.clone())));
        row.push(or_none(status.and_then(|s| s.nominated_node_name.clone())));
        row.push(line.readiness_gates.map_or_else(|| "<none>".into(), |(on, all)| format!("{on}/{all}")));
    }
    row
}

/// `layoutContainerCells`: the template's container names and images.
fn containers(template: Option<&PodTemplateSpec>) -> [String; 2] {
    let containers = template.and_then(|t| t.spec.as_ref()).map(|s| s.containers.as_slice()).unwrap_or(&[]);
    let names: Vec<&str> = containers.iter().map(|c| c.name.as_str()).collect();
    let images: Vec<&str> = containers.iter().map(|c| c.image.as_deref().unwrap_or("")).collect();
    [names.join(","), images.join(",")]
}

/// `metav1.FormatLabelSelector`: `k=v` pairs by key, then expressions; `<none>` when empty.
fn selector(s: Option<&LabelSelector>) -> String {
    let Some(s) = s else { return "<none>".into() };
    let mut parts: Vec<String> = s.match_labels.iter().flatten().map(|(k, v)| format!("{k}={v}")).collect();
    for e in s.match_expressions.iter().flatten() {
        let values = e.values.clone().unwrap_or_default().join(",");
        parts.push(match e.operator.as_str() {
            "In" => format!("{} in ({values})", e.key),
            "NotIn" => format!("{} notin ({values})", e.key),
            "Exists" => e.key.clone(),
            "DoesNotExist" => format!("!{}", e.key),
            other => format!("{} {other} ({values})", e.key),
        });
    }
    if parts.is_empty() { "<none>".into() } else { parts.join(",") }
}

/// `printDeployment`'s row.
pub fn deployment_row(d: &Deployment, now: Timestamp, wide: bool) -> Vec<String> {
    let spec = &d.spec;
    let status = d.status.clone().unwrap_or_default();
    let desired = spec.replicas.unwrap_or(0);
    let mut row = vec![
        name(&d.metadata),
        format!("{}/{desired}", status.ready_replicas.unwrap_or(0)),
        status.updated_replicas.unwrap_or(0).to_string(),
        status.available_replicas.unwrap_or(0).to_string(),
        age(&d.metadata, now),
    ];
    if wide {
        row.extend(containers(Some(&spec.template)));
        row.push(selector(Some(&spec.selector)));
    }
    row
}

/// `printStatefulSet`'s row: READY is `readyReplicas/spec.replicas`.
pub fn stateful_set_row(s: &StatefulSet, now: Timestamp, wide: bool) -> Vec<String> {
    let status = s.status.clone().unwrap_or_default();
    let desired = s.spec.replicas.unwrap_or(0);
    let mut row =
        vec![name(&s.metadata), format!("{}/{desired}", status.ready_replicas.unwrap_or(0)), age(&s.metadata, now)];
    if wide {
        row.extend(containers(Some(&s.spec.template)));
    }
    row
}

/// The READY cell of `printStatefulSet` for a stored StatefulSet.
pub fn stateful_set_ready(s: &crate::api::statefulset::ApiStatefulSet) -> String {
    format!("{}/{}", s.status.ready_replicas, s.spec.replicas)
}

/// `printReplicaSet`'s row.
pub fn replica_set_row(r: &ReplicaSet, now: Timestamp, wide: bool) -> Vec<String> {
    let spec = &r.spec;
    let status = r.status.clone().unwrap_or_default();
    let mut row = vec![
        name(&r.metadata),
        spec.replicas.unwrap_or(0).to_string(),
        status.replicas.to_string(),
        status.ready_replicas.unwrap_or(0).to_string(),
        age(&r.metadata, now),
    ];
    if wide {
        row.extend(containers(spec.template.as_ref()));
        row.push(selector(Some(&spec.selector)));
    }
    row
}

/// `printJob`'s row (1.30+ with STATUS; `SuccessCriteriaMet` since 1.34,
/// PR #132832): the first of Complete, Failed, Terminating, Suspended,
/// FailureTarget, SuccessCriteriaMet that holds, else Running; DURATION
/// from startTime to completionTime, or to now while there is none.
pub fn job_row(j: &k8s_openapi::api::batch::v1::Job, now: Timestamp, wide: bool) -> Vec<String> {
    let spec = j.spec.clone().unwrap_or_default();
    let status = j.status.clone().unwrap_or_default();
    let succeeded = status.succeeded.unwrap_or(0);
    let completions = job_completions(succeeded, spec.completions, spec.parallelism.unwrap_or(0));
    let since = |a: &Time, b: Timestamp| human_duration(b.duration_since(a.0).as_millis() as i64);
    let duration = match (&status.start_time, &status.completion_time) {
        (None, _) => String::new(),
        (Some(s), None) => since(s, now),
        (Some(s), Some(c)) => since(s, c.0),
    };
    let has = |t: &str| status.conditions.iter().flatten().any(|c| c.type_ == t && c.status == "True");
    let state = job_status(has, j.metadata.deletion_timestamp.is_some());
    let mut row = vec![name(&j.metadata), state.into(), completions, duration, age(&j.metadata, now)];
    if wide {
        row.extend(containers(Some(&spec.template)));
        row.push(selector(spec.selector.as_ref()));
    }
    row
}

/// `printJob`'s STATUS: the first of Complete, Failed, Terminating,
/// Suspended, FailureTarget, SuccessCriteriaMet that holds (`has`: a
/// condition of that type is True), else Running.
pub fn job_status(has: impl Fn(&str) -> bool, deleting: bool) -> &'static str {
    match () {
        _ if has("Complete") => "Complete",
        _ if has("Failed") => "Failed",
        _ if deleting => "Terminating",
        _ if has("Suspended") => "Suspended",
        _ if has("FailureTarget") => "FailureTarget",
        _ if has("SuccessCriteriaMet") => "SuccessCriteriaMet",
        _ => "Running",
    }
}

/// `printJob`'s COMPLETIONS: `succeeded/completions`, or without
/// completions `succeeded/1`, `of P` when parallelism P > 1.
pub fn job_completions(succeeded: i32, completions: Option<i32>, parallelism: i32) -> String {
    match completions {
        Some(c) => format!("{succeeded}/{c}"),
        None if parallelism > 1 => format!("{succeeded}/1 of {parallelism}"),
        None => format!("{succeeded}/1"),
    }
}

/// `printCronJob`'s row: TIMEZONE `<none>` when unset, LAST SCHEDULE the
/// age of `status.lastScheduleTime` (or `<none>`), ACTIVE the Jobs in
/// `status.active`.
pub fn cronjob_row(c: &k8s_openapi::api::batch::v1::CronJob, now: Timestamp, wide: bool) -> Vec<String> {
    let spec = &c.spec;
    let status = c.status.clone().unwrap_or_default();
    let last = match &status.last_schedule_time {
        Some(t) => human_duration(now.duration_since(t.0).as_millis() as i64),
        None => "<none>".into(),
    };
    let suspend = if spec.suspend == Some(true) { "True" } else { "False" };
    let mut row = vec![
        name(&c.metadata),
        spec.schedule.clone(),
        spec.time_zone.clone().unwrap_or_else(|| "<none>".into()),
        suspend.into(),
        status.active.map_or(0, |a| a.len()).to_string(),
        last,
        age(&c.metadata, now),
    ];
    if wide {
        let job = spec.job_template.spec.clone().unwrap_or_default();
        row.extend(containers(Some(&job.template)));
        row.push(selector(job.selector.as_ref()));
    }
    row
}

/// `printDaemonSet`'s row: the status counts, the template's node selector
/// (`labels.FormatLabels`, `<none>` when empty); with -o wide the
/// containers, images and selector.
pub fn daemon_set_row(d: &k8s_openapi::api::apps::v1::DaemonSet, now: Timestamp, wide: bool) -> Vec<String> {
    let spec = &d.spec;
    let s = d.status.clone().unwrap_or_default();
    let node_selector = spec.template.spec.as_ref().and_then(|p| p.node_selector.clone()).unwrap_or_default();
    let node_selector = match node_selector.is_empty() {
        true => "<none>".to_string(),
        false => node_selector.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","),
    };
    let mut row = vec![
        name(&d.metadata),
        s.desired_number_scheduled.to_string(),
        s.current_number_scheduled.to_string(),
        s.number_ready.to_string(),
        s.updated_number_scheduled.unwrap_or(0).to_string(),
        s.number_available.unwrap_or(0).to_string(),
        node_selector,
        age(&d.metadata, now),
    ];
    if wide {
        row.extend(containers(Some(&spec.template)));
        row.push(selector(Some(&spec.selector)));
    }
    row
}

/// `printControllerRevision`'s row: CONTROLLER is the controller reference
/// as `kind.group/name` (`formatResourceName` with the kind).
pub fn controller_revision_row(r: &k8s_openapi::api::apps::v1::ControllerRevision, now: Timestamp) -> Vec<String> {
    let controller = r.metadata.owner_references.iter().flatten().find(|o| o.controller == Some(true));
    let controller = controller.map_or("<none>".to_string(), |o| {
        let group = o.api_version.split_once('/').map_or("", |(g, _)| g);
        let kind = if group.is_empty() { o.kind.to_lowercase() } else { format!("{}.{group}", o.kind.to_lowercase()) };
        format!("{kind}/{}", o.name)
    });
    vec![name(&r.metadata), controller, r.revision.unwrap_or(0).to_string(), age(&r.metadata, now)]
}

/// `printPersistentVolumeClaim`'s row: STATUS `Terminating` once deleted;
/// VOLUME, CAPACITY and ACCESS MODES (`GetAccessModesAsString`) from the
/// status once the claim is bound; STORAGECLASS as
/// `GetPersistentVolumeClaimClass` reads it (the beta annotation, else the
/// spec).
pub fn claim_row(c: &PersistentVolumeClaim, now: Timestamp, wide: bool) -> Vec<String> {
    let spec = c.spec.clone().unwrap_or_default();
    let status = c.status.clone().unwrap_or_default();
    let phase = match c.metadata.deletion_timestamp {
        Some(_) => "Terminating".to_string(),
        None => status.phase.unwrap_or_default(),
    };
    let volume = spec.volume_name.clone().unwrap_or_default();
    let (capacity, modes) = match volume.is_empty() {
        true => (String::new(), String::new()),
        false => {
            let capacity = status.capacity.as_ref().and_then(|c| c.get("storage")).map(|q| q.0.clone());
            (capacity.unwrap_or_else(|| "0".into()), access_modes(status.access_modes.as_deref().unwrap_or_default()))
        }
    };
    let beta = c.metadata.annotations.as_ref().and_then(|a| a.get("volume.beta.kubernetes.io/storage-class"));
    let class = beta.cloned().or(spec.storage_class_name.clone()).unwrap_or_default();
    let attributes = spec.volume_attributes_class_name.clone().unwrap_or_else(|| "<unset>".into());
    let mut row = vec![name(&c.metadata), phase, volume, capacity, modes, class, attributes, age(&c.metadata, now)];
    if wide {
        row.push(spec.volume_mode.clone().unwrap_or_else(|| "<unset>".into()));
    }
    row
}

/// `printPodDisruptionBudget`: each bound as written (`IntOrString.String()`)
/// or `N/A`, then `status.disruptionsAllowed`.
pub fn pdb_row(b: &PodDisruptionBudget, now: Timestamp) -> Vec<String> {
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    let spec = b.spec.clone().unwrap_or_default();
    let shown = |v: Option<IntOrString>| match v {
        Some(IntOrString::Int(n)) => n.to_string(),
        Some(IntOrString::String(s)) => s,
        None => "N/A".to_string(),
    };
    let allowed = b.status.as_ref().and_then(|s| s.disruptions_allowed).unwrap_or(0);
    vec![
        name(&b.metadata),
        shown(spec.min_available),
        shown(spec.max_unavailable),
        allowed.to_string(),
        age(&b.metadata, now),
    ]
}

/// `printNode` (pkg/printers/internalversion/printers.go): STATUS from the Ready condition (`Ready`, `NotReady`, or
/// `Unknown` without one) and `SchedulingDisabled`; ROLES from the
/// `node-role.kubernetes.io/` labels; with -o wide the addresses and what
/// `nodeInfo` says.
pub fn node_row(n: &k8s_openapi::api::core::v1::Node, now: Timestamp, wide: bool) -> Vec<String> {
    let status = n.status.clone().unwrap_or_default();
    let ready = status.conditions.iter().flatten().find(|c| c.type_ == "Ready");
    let mut shown: Vec<&str> = vec![match ready {
        Some(c) if c.status == "True" => "Ready",
        Some(_) => "NotReady",
        None => "Unknown",
    }];
    if n.spec.as_ref().and_then(|s| s.unschedulable) == Some(true) {
        shown.push("SchedulingDisabled");
    }
    // `findNodeRoles`: each `node-role.kubernetes.io/<role>` key, and the value of
    // `kubernetes.io/role`, as a sorted set.
    let labels = n.metadata.labels.iter().flatten();
    let roles: std::collections::BTreeSet<&str> = labels
        .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
            Some(role) => Some(role),
            None if k == "kubernetes.io/role" => Some(v.as_str()),
            None => None,
        })
        .filter(|r| !r.is_empty())
        .collect();
    let roles: Vec<&str> = roles.into_iter().collect();
    let info = status.node_info.clone().unwrap_or_default();
    let mut row = vec![
        name(&n.metadata),
        shown.join(","),
        or_none(Some(roles.join(","))),
        age(&n.metadata, now),
        info.kubelet_version.clone(),
    ];
    if wide {
        let address =
            |kind: &str| status.addresses.iter().flatten().find(|a| a.type_ == kind).map(|a| a.address.clone());
        let unknown = |s: String| if s.is_empty() { "<unknown>".to_string() } else { s };
        row.extend([
            or_none(address("InternalIP")),
            or_none(address("ExternalIP")),
            unknown(info.os_image),
            unknown(info.kernel_version),
            unknown(info.container_runtime_version),
        ]);
    }
    row
}

/// `GetAccessModesAsString`: each mode once, in this order, abbreviated.
fn access_modes(modes: &[String]) -> String {
    let order =
        [("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP")];
    let shown: Vec<&str> = order.iter().filter(|(m, _)| modes.iter().any(|x| x == m)).map(|(_, a)| *a).collect();
    shown.join(",")
}

/// `printService`'s row: EXTERNAL-IP `<none>` for a ClusterIP Service,
/// PORT(S) `80/TCP` (`80:30080/TCP` with a node port).
pub fn service_row(s: &Service, now: Timestamp, wide: bool) -> Vec<String> {
    let spec = s.spec.clone().unwrap_or_default();
    let ports: Vec<String> = spec
        .ports
        .iter()
        .flatten()
        .map(|p| {
            let protocol = p.protocol.clone().unwrap_or_else(|| "TCP".into());
            match p.node_port {
                Some(n) if n != 0 => format!("{}:{n}/{protocol}", p.port),
                _ => format!("{}/{protocol}", p.port),
            }
        })
        .collect();
    let mut row = vec![
        name(&s.metadata),
        spec.type_.clone().unwrap_or_else(|| "ClusterIP".into()),
        or_none(spec.cluster_ip.clone()),
        "<none>".into(),
        if ports.is_empty() { "<none>".into() } else { ports.join(",") },
        age(&s.metadata, now),
    ];
    if wide {
        // `labels.FormatLabels`: sorted `k=v`, `<none>` when empty.
        let labels: BTreeMap<&String, &String> = spec.selector.iter().flatten().collect();
        let pairs: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        row.push(if pairs.is_empty() { "<none>".into() } else { pairs.join(",") });
    }
    row
}

/// `printEndpointSlice`'s row: PORTS `formatDiscoveryPorts`, ENDPOINTS the
/// first three addresses and ` + N more...` (`formatDiscoveryEndpoints`).
pub fn endpoint_slice_row(s: &EndpointSlice, now: Timestamp) -> Vec<String> {
    let ports = match s.ports.as_deref() {
        None | Some([]) => "<unset>".to_string(),
        Some(ports) => {
            let each: Vec<String> = ports.iter().map(|p| p.port.map_or("<unset>".into(), |n| n.to_string())).collect();
            each.join(",")
        }
    };
    let addresses: Vec<&String> = s.endpoints.iter().flatten().flat_map(|e| &e.addresses).collect();
    let endpoints = match addresses.len() {
        0 => "<none>".to_string(),
        n if n > 3 => {
            let first: Vec<&str> = addresses[..3].iter().map(|a| a.as_str()).collect();
            format!("{} + {} more...", first.join(","), n - 3)
        }
        _ => addresses.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(","),
    };
    vec![name(&s.metadata), s.address_type.clone(), ports, endpoints, age(&s.metadata, now)]
}

/// `printEvent`'s row: LAST SEEN (the first timestamp when there is no
/// last), TYPE, REASON, OBJECT `kind/name` in lower case, MESSAGE trimmed;
/// `-o wide` puts SUBOBJECT and SOURCE before the MESSAGE and FIRST SEEN,
/// COUNT and NAME after it.
pub fn event_row(e: &Event, now: Timestamp, wide: bool) -> Vec<String> {
    let since = |t: &Option<Time>| t.as_ref().map(|Time(t)| human_duration(now.duration_since(*t).as_millis() as i64));
    // An events.k8s.io event (the scheduler's) has an eventTime instead.
    let event_time = e.event_time.as_ref().map(|t| human_duration(now.duration_since(t.0).as_millis() as i64));
    let first = since(&e.first_timestamp).or(event_time).unwrap_or_else(|| "<unknown>".into());
    let last = since(&e.last_timestamp).unwrap_or_else(|| first.clone());
    let involved = &e.involved_object;
    let kind = involved.kind.clone().unwrap_or_default().to_lowercase();
    let target = match involved.name.as_deref() {
        Some(n) if !n.is_empty() => format!("{kind}/{n}"),
        _ => kind,
    };
    let message = e.message.clone().unwrap_or_default().trim().to_string();
    let (type_, reason) = (e.type_.clone().unwrap_or_default(), e.reason.clone().unwrap_or_default());
    if !wide {
        return vec![last, type_, reason, target, message];
    }
    // `formatEventSource`: the source's component, else the reporting
    // controller; `, ` and the source's host, else the reporting instance.
    let first_non_empty = |a: Option<&String>, b: Option<&String>| {
        a.filter(|s| !s.is_empty()).or(b.filter(|s| !s.is_empty())).cloned().unwrap_or_default()
    };
    let es = e.source.as_ref();
    let component = first_non_empty(es.and_then(|s| s.component.as_ref()), e.reporting_component.as_ref());
    let instance = first_non_empty(es.and_then(|s| s.host.as_ref()), e.reporting_instance.as_ref());
    let source = if instance.is_empty() { component } else { format!("{component}, {instance}") };
    let count = e.count.filter(|c| *c != 0).unwrap_or(1).to_string();
    vec![
        last,
        type_,
        reason,
        target,
        involved.field_path.clone().unwrap_or_default(),
        source,
        message,
        first,
        count,
        name(&e.metadata),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{ServicePort, ServiceSpec};
    use k8s_openapi::api::discovery::v1::{Endpoint, EndpointPort};

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn meta(name: &str) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.into()),
            creation_timestamp: Some(Time(at("2026-01-01T00:00:00Z"))),
            ..Default::default()
        }
    }

    #[test]
    fn a_cluster_ip_service_row() {
        let s = Service {
            metadata: meta("web"),
            spec: Some(ServiceSpec {
                cluster_ip: Some("10.96.0.12".into()),
                ports: Some(vec![ServicePort { port: 80, protocol: Some("TCP".into()), ..Default::default() }]),
                selector: Some(BTreeMap::from([("tier".into(), "web".into()), ("app".into(), "shop".into())])),
                ..Default::default()
            }),
            status: None,
        };
        assert_eq!(
            service_row(&s, at("2026-01-01T00:02:05Z"), true),
            ["web", "ClusterIP", "10.96.0.12", "<none>", "80/TCP", "2m5s", "app=shop,tier=web"]
        );
    }

    #[test]
    fn endpoint_slice_rows_list_three_addresses() {
        let endpoint = |ip: &str| Endpoint { addresses: vec![ip.into()], ..Default::default() };
        let mut s =
            EndpointSlice { metadata: meta("web-abcde"), address_type: "IPv4".into(), endpoints: None, ports: None };
        let now = at("2026-01-01T00:00:09Z");
        assert_eq!(endpoint_slice_row(&s, now), ["web-abcde", "IPv4", "<unset>", "<none>", "9s"]);
        s.ports = Some(vec![EndpointPort { port: Some(8080), ..Default::default() }]);
        s.endpoints = Some(["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5"].map(endpoint).to_vec());
        assert_eq!(
            endpoint_slice_row(&s, now),
            ["web-abcde", "IPv4", "8080", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...", "9s"]
        );
    }
}
