//! Records as Kubernetes API objects: a Pod exactly as
//! `kubectl get pods -w -o json` prints it, an Event as the API stores it.
//! Timestamps are whole seconds after the run's epoch, as metav1.Time is.

use crate::api::pod::ApiPod;
use crate::api::status::{ContainerState, ContainerStatus, PodStatus, Terminated};
use crate::time::SimTime;
use crate::trace::record::{ApiEvent, EventSource};
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};
use k8s_openapi::jiff::{SignedDuration, Timestamp};

/// Converts simulated time to API timestamps.
#[derive(Copy, Clone, Debug)]
pub struct Clock {
    pub epoch: Timestamp,
}

impl Clock {
    /// metav1.Time: truncated to whole seconds.
    pub fn time(&self, t: SimTime) -> Time {
        Time(self.epoch + SignedDuration::from_secs(t.whole_seconds() as i64))
    }
    /// metav1.MicroTime: microsecond precision.
    pub fn micro(&self, t: SimTime) -> MicroTime {
        MicroTime(self.epoch + SignedDuration::from_millis(t.as_millis() as i64))
    }
}

fn status_word(b: bool) -> String {
    if b { "True" } else { "False" }.to_string()
}

/// The Pod object at one resourceVersion.
pub fn pod(p: &ApiPod, clock: &Clock) -> core::Pod {
    let mut object = p.spec.object.clone();
    let meta = &mut object.metadata;
    meta.namespace = Some(p.spec.namespace.clone());
    meta.uid = Some(p.meta.uid.to_string());
    meta.resource_version = Some(p.meta.resource_version.to_string());
    meta.creation_timestamp = Some(clock.time(p.meta.created));
    meta.generation = Some(p.meta.generation);
    meta.deletion_timestamp = p.meta.deletion.map(|d| clock.time(d.timestamp));
    meta.deletion_grace_period_seconds = p.meta.deletion.map(|d| d.grace_seconds);
    if let Some(owner) = &p.spec.owner {
        meta.name = Some(p.spec.name.clone());
        meta.labels = Some(p.spec.labels.clone());
        meta.owner_references = Some(vec![super::render_workloads::owner_reference(owner)]);
    }
    if let Some(spec) = object.spec.as_mut() {
        spec.node_name = p.node.as_ref().map(|n| n.to_string());
    }
    object.status = Some(status(&p.status, clock));
    object
}

fn status(s: &PodStatus, clock: &Clock) -> core::PodStatus {
    // Set by the kubelet; the scheduler's first condition already says generation 1.
    let generation = s.observed_generation.max(1);
    core::PodStatus {
        phase: Some(s.phase.as_str().to_string()),
        reason: s.reason.map(|r| r.as_str().to_string()),
        message: s.reason.map(|r| r.message().to_string()),
        observed_generation: (s.observed_generation > 0).then_some(s.observed_generation),
        conditions: (!s.conditions.is_empty()).then(|| {
            s.conditions
                .iter()
                .map(|c| core::PodCondition {
                    type_: c.kind.as_str().to_string(),
                    status: status_word(c.status),
                    reason: c.reason.as_ref().map(|r| r.to_string()),
                    message: c.message.clone(),
                    last_transition_time: Some(clock.time(c.last_transition)),
                    observed_generation: c.kind.by_kubelet().then_some(generation),
                    last_probe_time: None,
                })
                .collect()
        }),
        host_ip: s.host_ip.as_ref().map(|i| i.to_string()),
        host_ips: s.host_ip.as_ref().map(|i| vec![core::HostIP { ip: i.to_string() }]),
        pod_ip: s.pod_ip.as_ref().map(|i| i.to_string()),
        pod_ips: s.pod_ip.as_ref().map(|i| vec![core::PodIP { ip: i.to_string() }]),
        start_time: s.start_time.map(|t| clock.time(t)),
        qos_class: Some(s.qos.as_str().to_string()),
        init_container_statuses: (!s.init_containers.is_empty())
            .then(|| s.init_containers.iter().map(|c| container(c, clock)).collect()),
        container_statuses: (!s.containers.is_empty())
            .then(|| s.containers.iter().map(|c| container(c, clock)).collect()),
        ..Default::default()
    }
}

fn container(c: &ContainerStatus, clock: &Clock) -> core::ContainerStatus {
    core::ContainerStatus {
        name: c.name.to_string(),
        image: c.image.to_string(),
        image_id: c.instance.as_ref().map(|i| i.image_id.to_string()).unwrap_or_default(),
        container_id: c.instance.as_ref().map(|i| i.container_id.to_string()),
        state: Some(state(&c.state, clock)),
        last_state: Some(c.last_state.as_ref().map(|t| terminated(t, clock)).unwrap_or_default()),
        ready: c.ready,
        started: Some(c.started),
        restart_count: c.restart_count as i32,
        resources: c.instance.as_ref().map(|_| Default::default()),
        ..Default::default()
    }
}

fn state(s: &ContainerState, clock: &Clock) -> core::ContainerState {
    match s {
        ContainerState::Waiting { reason, message } => core::ContainerState {
            waiting: Some(core::ContainerStateWaiting {
                reason: reason.as_ref().map(|r| r.to_string()),
                message: message.clone(),
            }),
            ..Default::default()
        },
        ContainerState::Running { started_at } => core::ContainerState {
            running: Some(core::ContainerStateRunning { started_at: Some(clock.time(*started_at)) }),
            ..Default::default()
        },
        ContainerState::Terminated(t) => terminated(t, clock),
    }
}

fn terminated(t: &Terminated, clock: &Clock) -> core::ContainerState {
    core::ContainerState {
        terminated: Some(core::ContainerStateTerminated {
            container_id: t.container_id.as_ref().map(|c| c.to_string()),
            exit_code: t.exit_code,
            reason: Some(t.reason.to_string()),
            message: t.message.map(str::to_string),
            started_at: t.started_at.map(|s| clock.time(s)),
            finished_at: t.finished_at.map(|f| clock.time(f)),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A core/v1 Event. The scheduler writes through events.k8s.io, so its
/// events carry `eventTime` and no source or counters.
pub fn event(e: &ApiEvent, clock: &Clock) -> core::Event {
    let (api_version, kind) = match &e.source {
        EventSource::Controller {
            kind: kind @ ("ReplicaSet" | "Deployment" | "StatefulSet" | "DaemonSet"), ..
        } => ("apps/v1", *kind),
        EventSource::Controller { kind: "PodDisruptionBudget", .. } => ("policy/v1", "PodDisruptionBudget"),
        EventSource::Controller { kind: "Job", .. } => ("batch/v1", "Job"),
        // The node lifecycle and taint-eviction controllers write about Nodes and Pods.
        EventSource::Controller { kind, .. } => ("v1", *kind),
        _ => ("v1", "Pod"),
    };
    let involved = core::ObjectReference {
        api_version: Some(api_version.into()),
        kind: Some(kind.into()),
        name: Some(e.pod.to_string()),
        namespace: Some(e.namespace.to_string()),
        uid: Some(e.pod_uid.to_string()),
        field_path: e.field_path.clone(),
        ..Default::default()
    };
    let mut out = core::Event {
        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            name: Some(e.name.clone()),
            namespace: Some(e.namespace.to_string()),
            creation_timestamp: Some(clock.time(e.first)),
            ..Default::default()
        },
        involved_object: involved,
        reason: Some(e.reason.to_string()),
        message: Some(e.message.clone()),
        type_: Some(if e.warning { "Warning" } else { "Normal" }.to_string()),
        ..Default::default()
    };
    match &e.source {
        EventSource::Kubelet { node } => {
            out.source = Some(core::EventSource { component: Some("kubelet".into()), host: Some(node.to_string()) });
            out.reporting_component = Some("kubelet".into());
            out.reporting_instance = Some(node.to_string());
            out.first_timestamp = Some(clock.time(e.first));
            out.last_timestamp = Some(clock.time(e.last));
            out.count = Some(e.count as i32);
        }
        // The controllers record through the old events API (`record.EventRecorder`).
        EventSource::Controller { component, .. } => {
            out.source = Some(core::EventSource { component: Some((*component).into()), host: None });
            out.reporting_component = Some((*component).into());
            out.first_timestamp = Some(clock.time(e.first));
            out.last_timestamp = Some(clock.time(e.last));
            out.count = Some(e.count as i32);
        }
        EventSource::Scheduler => {
            // schedulePod's "Binding" on success, handleSchedulingFailure's "Scheduling"
            out.action = Some(if e.warning { "Scheduling" } else { "Binding" }.into());
            out.event_time = Some(clock.micro(e.first));
            out.reporting_component = Some("default-scheduler".into());
            out.reporting_instance = Some("default-scheduler".into());
        }
    }
    out
}

/// The Node object: its taints, unschedulable, Ready condition and address.
pub fn node(n: &crate::api::node::ApiNode, clock: &Clock) -> core::Node {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    let taints: Vec<core::Taint> = n
        .taints
        .iter()
        .map(|(t, added)| core::Taint { time_added: added.map(|a| clock.time(a)), ..t.clone() })
        .collect();
    let (reason, message) = n.ready.reason_and_message();
    let ready = core::NodeCondition {
        type_: "Ready".into(),
        status: n.ready.as_str().into(),
        reason: Some(reason.into()),
        message: Some(message.into()),
        last_transition_time: Some(clock.time(n.ready_since)),
        ..Default::default()
    };
    core::Node {
        metadata: ObjectMeta {
            name: Some(n.name.to_string()),
            creation_timestamp: n.created.map(|t| clock.time(t)),
            ..Default::default()
        },
        spec: Some(core::NodeSpec {
            unschedulable: n.unschedulable.then_some(true),
            taints: (!taints.is_empty()).then_some(taints),
            ..Default::default()
        }),
        status: Some(core::NodeStatus {
            conditions: Some(vec![ready]),
            // A reboot is seen as a new boot ID; the rest of nodeInfo is not modelled.
            node_info: (n.boots > 0).then(|| core::NodeSystemInfo { boot_id: n.boot_id(), ..Default::default() }),
            addresses: Some(vec![core::NodeAddress { type_: "InternalIP".into(), address: n.ip.to_string() }]),
            ..Default::default()
        }),
    }
}

/// The PersistentVolumeClaim object: name, namespace, class, the volume and
/// selected node once set, and its phase.
pub fn claim(c: &crate::api::claim::ApiClaim, clock: &Clock) -> k8s_openapi::api::core::v1::PersistentVolumeClaim {
    use k8s_openapi::api::core::v1::{
        PersistentVolumeClaim, PersistentVolumeClaimSpec, PersistentVolumeClaimStatus, VolumeResourceRequirements,
    };
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    use std::collections::BTreeMap;
    let annotations = c
        .selected_node
        .as_ref()
        .map(|n| BTreeMap::from([("volume.kubernetes.io/selected-node".to_string(), n.to_string())]));
    let modes: Vec<String> = c.spec.access_modes.iter().map(|m| m.to_string()).collect();
    let storage = || BTreeMap::from([("storage".to_string(), Quantity(c.spec.storage.to_string()))]);
    // A bound claim's status has its volume's modes and capacity: the
    // provisioned volume is the size asked for.
    let bound = c.volume.is_some();
    PersistentVolumeClaim {
        metadata: ObjectMeta {
            name: Some(c.spec.name.to_string()),
            namespace: Some(c.spec.namespace.to_string()),
            uid: Some(c.uid.to_string()),
            creation_timestamp: Some(clock.time(c.created)),
            annotations,
            ..Default::default()
        },
        spec: Some(PersistentVolumeClaimSpec {
            access_modes: Some(modes.clone()),
            resources: Some(VolumeResourceRequirements { requests: Some(storage()), ..Default::default() }),
            storage_class_name: c.spec.storage_class.as_deref().map(str::to_string),
            volume_mode: Some(c.spec.volume_mode.to_string()),
            volume_name: c.volume.as_deref().map(str::to_string),
            ..Default::default()
        }),
        status: Some(PersistentVolumeClaimStatus {
            phase: Some(c.phase.as_str().to_string()),
            access_modes: bound.then_some(modes),
            capacity: bound.then(storage),
            ..Default::default()
        }),
    }
}
