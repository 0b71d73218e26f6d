//! YAML or JSON that is part of an object, not a whole one: `.status` from a
//! jsonpath, a `status:` block cut out of `kubectl get -o yaml`, a list of
//! container statuses, a probe. Each is named for what it is and what it
//! lacks; a Pod's status (or part of one) is still read, as an unnamed Pod.

use serde_json::{Map, Value, json};

/// What a value without `kind` is.
pub(super) enum Fragment {
    /// Part of a Pod, read as this Pod object; the message says what is missing.
    Pod(Value, String),
    /// Nothing podsim can read; the message says what it is.
    Skip(String),
}

/// Pod condition types (`pkg/apis/core/types.go`, `PodReadyToStartContainers`).
const POD_CONDITIONS: &[&str] =
    &["PodScheduled", "PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready", "DisruptionTarget"];

/// Job condition types (`pkg/apis/batch/types.go`).
const JOB_CONDITIONS: &[&str] = &["Complete", "Failed", "Suspended", "FailureTarget", "SuccessCriteriaMet"];

fn condition_types(v: &Value) -> Vec<&str> {
    let items = v.get("conditions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    items.iter().filter_map(|c| c.get("type").and_then(Value::as_str)).collect()
}

/// A Pod's `.status`: its phase, container statuses, pod conditions or IPs.
fn is_pod_status(v: &Value) -> bool {
    let Some(m) = v.as_object() else { return false };
    let types = condition_types(v);
    ["phase", "containerStatuses", "initContainerStatuses", "podIP", "podIPs", "hostIP", "qosClass"]
        .iter()
        .any(|k| m.contains_key(*k))
        || (!types.is_empty() && types.iter().all(|t| POD_CONDITIONS.contains(t)))
}

/// One entry of `containerStatuses`.
fn is_container_status(v: &Value) -> bool {
    v.get("name").is_some() && ["state", "lastState", "restartCount"].iter().any(|k| v.get(*k).is_some())
}

/// The fields of a `ContainerStatus` (`pkg/apis/core/types.go`).
const CONTAINER_STATUS_FIELDS: &[&str] = &[
    "name",
    "state",
    "lastState",
    "ready",
    "restartCount",
    "image",
    "imageID",
    "containerID",
    "started",
    "allocatedResources",
    "allocatedResourcesStatus",
    "resources",
    "volumeMounts",
    "user",
    "stopSignal",
];

/// Part of one entry of `containerStatuses` cut without its `name`
/// (`lastState:` and the lines under it): the fields it has, in the order
/// of [`CONTAINER_STATUS_FIELDS`].
fn container_status_part(m: &Map<String, Value>) -> Option<Vec<&'static str>> {
    let observed = ["state", "lastState", "restartCount", "ready", "started", "containerID"];
    (!m.contains_key("name")
        && m.keys().all(|k| CONTAINER_STATUS_FIELDS.contains(&k.as_str()))
        && observed.iter().any(|k| m.contains_key(*k)))
    .then(|| CONTAINER_STATUS_FIELDS.iter().copied().filter(|f| m.contains_key(*f)).collect())
}

/// One entry of a Pod's `spec.containers` (or `initContainers`): a name and
/// what a container spec has, and nothing a container status has.
fn is_container_spec(v: &Value) -> bool {
    let spec_fields = ["image", "command", "args", "ports", "env", "livenessProbe", "readinessProbe", "startupProbe"];
    v.get("name").is_some_and(Value::is_string)
        && spec_fields.iter().any(|k| v.get(*k).is_some())
        && !is_container_status(v)
}

/// A controller's `.status`: a Job's, or a Deployment's, ReplicaSet's or StatefulSet's.
fn controller_status(v: &Value) -> Option<&'static str> {
    let m = v.as_object()?;
    let types = condition_types(v);
    if (!types.is_empty() && types.iter().all(|t| JOB_CONDITIONS.contains(t)))
        || ["active", "succeeded", "failed", "completionTime", "uncountedTerminatedPods"]
            .iter()
            .any(|k| m.contains_key(*k))
    {
        return Some("a Job's");
    }
    ["replicas", "readyReplicas", "availableReplicas", "updatedReplicas", "observedGeneration"]
        .iter()
        .any(|k| m.contains_key(*k))
        .then_some("a Deployment's, ReplicaSet's or StatefulSet's")
}

/// What a Pod assembled from `status` (and whatever `metadata` and `spec`
/// came with it) lacks, and the message for it.
fn pod_from(object: Map<String, Value>, what: &str) -> Fragment {
    let meta = object.get("metadata");
    let has = |k: &str| meta.and_then(|m| m.get(k)).is_some();
    let mut missing: Vec<&str> = Vec::new();
    if meta.is_none() {
        missing.push("metadata (no name, uid or creationTimestamp)");
    } else {
        missing.extend(["name", "uid", "creationTimestamp"].into_iter().filter(|k| !has(k)));
    }
    if object.get("spec").is_none() {
        missing.push("spec (no restartPolicy, probes or init containers)");
    }
    let named = meta.and_then(|m| m.get("name")).and_then(Value::as_str);
    let read_as = named.map_or("an unnamed Pod".to_string(), |n| format!("Pod {n}"));
    let mut pod = object;
    pod.insert("kind".into(), json!("Pod"));
    pod.insert("apiVersion".into(), json!("v1"));
    Fragment::Pod(Value::Object(pod), format!("{what} without {}: read as {read_as}", missing.join(", ")))
}

/// One condition: `type` and `status`.
fn is_condition(v: &Value) -> bool {
    v.get("type").is_some_and(Value::is_string) && v.get("status").is_some_and(Value::is_string)
}

/// A list without objects: container statuses, conditions, or values of no kind.
fn list_fragment(items: &[Value]) -> Option<Fragment> {
    if items.is_empty() {
        return None;
    }
    if items.iter().all(is_container_status) {
        let object = Map::from_iter([("status".to_string(), json!({"containerStatuses": items}))]);
        return Some(pod_from(object, "a list of container statuses"));
    }
    if items.iter().all(is_condition) {
        // `-o jsonpath='{.status.conditions}'`: a Pod's, or a controller's.
        let object = json!({"conditions": items});
        if condition_types(&object).iter().all(|t| POD_CONDITIONS.contains(t)) {
            let object = Map::from_iter([("status".to_string(), object)]);
            return Some(pod_from(object, "a list of Pod conditions (`.status.conditions`)"));
        }
        let whose = if condition_types(&object).iter().all(|t| JOB_CONDITIONS.contains(t)) {
            "a Job's"
        } else {
            "another object's (not a Pod's)"
        };
        return Some(Fragment::Skip(format!(
            "a list of {whose} conditions without the object around them: nothing to check"
        )));
    }
    if items.iter().all(is_container_spec) {
        return Some(Fragment::Skip(format!(
            "part of a Pod: a list of {} container(s) of its spec (`-o jsonpath='{{.spec.containers}}'`), without \
             the Pod's metadata and status: a spec, not an observation; nothing to check",
            items.len()
        )));
    }
    // A list of objects or watch events is read item by item.
    let whole =
        |i: &Value| i.get("kind").is_some() || i.get("object").is_some() || i.pointer("/spec/containers").is_some();
    (!items.iter().any(whole)).then(|| {
        Fragment::Skip(format!(
            "a list of {} values without `kind` that are neither Kubernetes objects, watch events nor a part of a \
             Pod podsim knows: nothing read",
            items.len()
        ))
    })
}

/// What a value without `kind` (and not a watch event) is, if recognised.
pub(super) fn fragment(v: &Value) -> Option<Fragment> {
    if let Some(items) = v.as_array() {
        return list_fragment(items);
    }
    let m = v.as_object()?;
    if let Some(status) = m.get("status") {
        if is_pod_status(status) {
            return Some(pod_from(m.clone(), "a Pod's status"));
        }
        if let Some(what) = controller_status(status) {
            return Some(Fragment::Skip(format!(
                "{what} status without kind or metadata: podsim check reads Pods, Events, EndpointSlices and \
                 Services (and controllers' `kubectl get` rows): nothing read"
            )));
        }
    }
    if is_pod_status(v) {
        let object = Map::from_iter([("status".to_string(), v.clone())]);
        return Some(pod_from(object, "a Pod's `.status`, without the object around it,"));
    }
    if is_container_status(v) {
        let object = Map::from_iter([("status".to_string(), json!({"containerStatuses": [v]}))]);
        return Some(pod_from(object, "one container status"));
    }
    if let Some(fields) = container_status_part(m) {
        let fields: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
        return Some(Fragment::Skip(format!(
            "part of a Pod: {} of a container status (`status.containerStatuses[]`), without the container's \
             `name` and the Pod around it, so it cannot be tied to a pod or container: nothing to check",
            fields.join(", ")
        )));
    }
    if is_container_spec(v) {
        return Some(Fragment::Skip(
            "part of a Pod: one container of its spec (`.spec.containers[]`), without the Pod's metadata and \
             status: a spec, not an observation; nothing to check"
                .into(),
        ));
    }
    if m.contains_key("spec") || m.contains_key("containers") {
        return Some(Fragment::Skip(
            "a Pod's spec without kind, metadata or status: a spec, not an observation; nothing to check".into(),
        ));
    }
    if ["waiting", "running", "terminated"].iter().any(|k| m.contains_key(*k)) {
        return Some(Fragment::Skip(
            "a container's `state` (or `lastState`) without its container status (no name, restartCount or \
             instance): nothing to check"
                .into(),
        ));
    }
    if m.contains_key("metadata") && m.len() == 1 {
        return Some(Fragment::Skip(
            "an object's `metadata` alone, without kind, spec or status: nothing to check".into(),
        ));
    }
    if m.get("items").is_some_and(|i| i.as_array().is_some_and(Vec::is_empty)) {
        return Some(Fragment::Skip("a list with no items: nothing to check".into()));
    }
    let probe =
        ["livenessProbe", "readinessProbe", "startupProbe", "lifecycle"].into_iter().find(|k| m.contains_key(*k));
    if let Some(p) = probe {
        return Some(Fragment::Skip(format!(
            "a container's `{p}`, not a whole object: a part of a spec, not an observation; nothing to check"
        )));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(v: Value) -> String {
        match fragment(&v) {
            Some(Fragment::Pod(_, m) | Fragment::Skip(m)) => m,
            None => "none".into(),
        }
    }

    #[test]
    fn a_pod_status_without_metadata_is_read_and_named_so() {
        let status = json!({"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}});
        let Some(Fragment::Pod(pod, m)) = fragment(&status) else { panic!() };
        assert_eq!(
            m,
            "a Pod's status without metadata (no name, uid or creationTimestamp), spec (no restartPolicy, probes or \
             init containers): read as an unnamed Pod"
        );
        assert_eq!((pod["kind"].as_str(), pod["status"]["phase"].as_str()), (Some("Pod"), Some("Running")));
        // `-o jsonpath='{.status}'`: the status itself.
        assert!(message(json!({"phase": "Pending", "qosClass": "BestEffort"})).starts_with("a Pod's `.status`"));
        // metadata without uid: only what is missing is named.
        let m = message(json!({"metadata": {"name": "web"}, "status": {"phase": "Running"}}));
        assert!(m.starts_with("a Pod's status without uid, creationTimestamp, spec"), "{m}");
        assert!(m.ends_with("read as Pod web"), "{m}");
    }

    #[test]
    fn container_statuses_become_one_pod() {
        let list = json!([{"name": "app", "restartCount": 2, "state": {"running": {}}}, {"name": "side", "restartCount": 0, "state": {}}]);
        let Some(Fragment::Pod(pod, m)) = fragment(&list) else { panic!() };
        assert_eq!(pod["status"]["containerStatuses"].as_array().map(Vec::len), Some(2));
        assert!(m.starts_with("a list of container statuses without metadata"), "{m}");
        assert!(message(json!({"name": "app", "lastState": {}})).starts_with("one container status without"));
    }

    #[test]
    fn other_parts_are_named_and_skipped() {
        // Trace 017's job2-status.yaml.
        let job =
            json!({"status": {"conditions": [{"type": "Failed", "status": "True", "reason": "DeadlineExceeded"}]}});
        assert!(message(job).starts_with("a Job's status without kind or metadata"));
        assert!(message(json!({"status": {"replicas": 3, "readyReplicas": 2}})).starts_with("a Deployment's"));
        // Trace 031's spec-livenessProbe.yaml.
        let probe = json!({"livenessProbe": {"exec": {"command": ["zkOk.sh"]}, "initialDelaySeconds": 15}});
        assert_eq!(
            message(probe),
            "a container's `livenessProbe`, not a whole object: a part of a spec, not an observation; nothing to check"
        );
        assert!(message(json!({"spec": {"containers": []}})).starts_with("a Pod's spec without kind"));
        assert!(message(json!({"waiting": {"reason": "CrashLoopBackOff"}})).starts_with("a container's `state`"));
        assert!(message(json!({"metadata": {"name": "web"}})).starts_with("an object's `metadata` alone"));
        assert_eq!(message(json!({"items": []})), "a list with no items: nothing to check");
        assert_eq!(message(json!({"hello": 1})), "none");
        assert_eq!(
            message(json!([1, 2])),
            "a list of 2 values without `kind` that are neither Kubernetes objects, watch events nor a part of a Pod \
             podsim knows: nothing read"
        );
        // A list of objects is no fragment: its items are read.
        assert_eq!(message(json!([{"kind": "Pod"}, {"kind": "Pod"}])), "none");
    }

    /// `kubectl get pod web -o jsonpath='{.status.conditions}'`: one Pod's
    /// conditions, read as its status; a Job's are named.
    #[test]
    fn a_list_of_conditions_is_a_status() {
        let conditions = json!([{"type": "Ready", "status": "True"}, {"type": "ContainersReady", "status": "False"}]);
        let Some(Fragment::Pod(pod, m)) = fragment(&conditions) else { panic!() };
        assert!(m.starts_with("a list of Pod conditions (`.status.conditions`) without metadata"), "{m}");
        assert_eq!(pod["status"]["conditions"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            message(json!([{"type": "Complete", "status": "True"}])),
            "a list of a Job's conditions without the object around them: nothing to check"
        );
    }

    /// A container's `lastState:` cut out of `kubectl get pod -o yaml`: part
    /// of a Pod, named so, with what it lacks.
    #[test]
    fn a_container_status_without_its_name_is_part_of_a_pod() {
        let last_state = json!({"lastState": {"terminated": {"exitCode": 1, "reason": "Error"}}});
        assert_eq!(
            message(last_state),
            "part of a Pod: `lastState` of a container status (`status.containerStatuses[]`), without the \
             container's `name` and the Pod around it, so it cannot be tied to a pod or container: nothing to check"
        );
        let m = message(json!({"restartCount": 3, "ready": false, "state": {"waiting": {}}}));
        assert!(m.starts_with("part of a Pod: `state`, `ready`, `restartCount` of a container status"), "{m}");
        // Another object's fields are no container status.
        assert_eq!(message(json!({"lastState": {}, "replicas": 3})), "none");
    }

    /// `-o jsonpath='{.spec.containers}'` (as YAML or JSON) and one container:
    /// part of a Pod's spec, named so.
    #[test]
    fn containers_of_a_spec_are_part_of_a_pod() {
        let containers = json!([{"name": "main", "image": "alpine:latest", "command": ["sh", "-c", "exit 1"]}]);
        assert_eq!(
            message(containers),
            "part of a Pod: a list of 1 container(s) of its spec (`-o jsonpath='{.spec.containers}'`), without the \
             Pod's metadata and status: a spec, not an observation; nothing to check"
        );
        let one = json!({"name": "main", "image": "alpine:latest"});
        assert!(message(one).starts_with("part of a Pod: one container of its spec (`.spec.containers[]`)"));
        // Container statuses (which also have a name and an image) stay statuses.
        let statuses = json!([{"name": "main", "image": "alpine", "restartCount": 1, "state": {}}]);
        assert!(message(statuses).starts_with("a list of container statuses without metadata"));
    }
}
