//! The API server's pod rules, each against the Kubernetes function it follows.

use super::*;
use crate::error::SourceFile;
use crate::manifest::Manifests;

/// A pod from a manifest, defaulted and validated as the API server would.
fn spec(extra: &str) -> Arc<PodSpec> {
    let text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: web}}\nspec:\n{extra}  containers: [{{name: app, image: nginx:1.27}}]\n"
    );
    let mut m = Manifests::load(&[Arc::new(SourceFile { name: "pod.yaml".into(), text })]).unwrap();
    Arc::new(m.pods.remove(0))
}

/// `kubectl delete pod web` at 12.345 s: the deletion as stored.
fn plain_delete(spec: Arc<PodSpec>) -> (DeleteOutcome, Option<Deletion>, bool) {
    let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
    let id = api.create(spec, SimTime::ZERO, &mut trace);
    let outcome = api.delete(id, None, SimTime::from_millis(12_345), &mut trace);
    let p = api.pod(id);
    (outcome, p.meta.deletion, p.meta.removed)
}

/// A pod created with `spec.nodeName` is stored bound, with no PodScheduled
/// condition (only a binding writes one: `BindingREST.setPodNodeAndMetadata`).
#[test]
fn a_pod_created_with_a_node_is_stored_bound() {
    let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
    let id = api.create(spec("  nodeName: kind-worker\n"), SimTime::ZERO, &mut trace);
    assert_eq!(api.pod(id).node.as_deref(), Some("kind-worker"));
    assert!(api.pod(id).status.condition(&ConditionType::PodScheduled).is_none());
}

/// CheckGracefulDelete: a bound pod's plain DELETE takes its
/// terminationGracePeriodSeconds; the object stays, with deletionTimestamp
/// = the request's second + grace (12 s + 30 s) and the grace stored.
#[test]
fn a_bound_pods_plain_delete_is_graceful_with_its_grace() {
    let (outcome, deletion, removed) = plain_delete(spec("  nodeName: kind-worker\n"));
    assert_eq!(outcome, DeleteOutcome::Graceful);
    let d = deletion.unwrap();
    assert_eq!((d.grace_seconds, d.timestamp), (30, SimTime::from_millis(42_000)));
    assert!(!removed);
}

/// CheckGracefulDelete: a pod without spec.nodeName (never scheduled) is
/// removed at once, grace 0.
#[test]
fn an_unbound_pods_delete_removes_it_at_once() {
    let (outcome, deletion, removed) = plain_delete(spec(""));
    assert_eq!(outcome, DeleteOutcome::Removed);
    assert_eq!(deletion.unwrap().grace_seconds, 0);
    assert!(removed);
}

/// A negative terminationGracePeriodSeconds is stored as 1
/// (`Convert_v1_Pod_To_core_Pod`; `SetDefaults_Pod` from 1.37), so the plain DELETE is graceful with 1 s
/// (deletionTimestamp 12 s + 1 s), where a stored 0 removes the pod at once.
#[test]
fn a_negative_grace_deletes_gracefully_with_one_second() {
    let negative = spec("  nodeName: kind-worker\n  terminationGracePeriodSeconds: -5\n");
    assert_eq!(negative.stored_grace_seconds(), 1);
    let (outcome, deletion, _) = plain_delete(negative);
    assert_eq!(outcome, DeleteOutcome::Graceful);
    let d = deletion.unwrap();
    assert_eq!((d.grace_seconds, d.timestamp), (1, SimTime::from_millis(13_000)));
    let (outcome, _, removed) = plain_delete(spec("  nodeName: kind-worker\n  terminationGracePeriodSeconds: 0\n"));
    assert_eq!(outcome, DeleteOutcome::Removed);
    assert!(removed);
}

/// A Pod's negative grace is converted to 1 before the API server's
/// warnings run, so a Pod gets none; a Deployment's template keeps the value
/// and gets `warningsForPodSpecAndMeta`'s warning, and its pods store 1.
#[test]
fn a_negative_grace_warns_only_for_templates() {
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  terminationGracePeriodSeconds: -5\n  containers: [{name: app, image: nginx:1.27}]\n";
    let m = Manifests::load(&[Arc::new(SourceFile { name: "pod.yaml".into(), text: pod.into() })]).unwrap();
    assert!(m.warnings.iter().all(|w| !w.to_string().contains("terminationGracePeriodSeconds")));
    assert_eq!(m.pods[0].stored_grace_seconds(), 1);
    assert_eq!(m.pods[0].termination_grace, crate::time::SimDuration::from_secs(1));
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      terminationGracePeriodSeconds: -5\n      containers: [{name: app, image: nginx:1.27}]\n";
    let m = Manifests::load(&[Arc::new(SourceFile { name: "d.yaml".into(), text: deployment.into() })]).unwrap();
    let warning = m.warnings.iter().map(|w| w.to_string()).find(|w| w.contains("terminationGracePeriodSeconds"));
    let warning = warning.expect("a warning for the template's negative grace");
    assert!(warning.contains("spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"), "{warning}");
    assert_eq!(m.deployments[0].template.pod.stored_grace_seconds(), 1);
}

/// A patch entry for a container the pod lacks adds one to the merged list,
/// which `ValidateContainerUpdates` refuses before anything else (a pod of a
/// prefix patch may lack it: it is found only when the action runs).
#[test]
fn a_patch_naming_a_container_the_pod_lacks_is_refused() {
    let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
    let id = api.create(spec(""), SimTime::ZERO, &mut trace);
    let cases = [
        (r#"{"spec":{"containers":[{"name":"db","image":"x"}]}}"#, "spec.containers"),
        (r#"{"spec":{"initContainers":[{"name":"app","image":"x"}]}}"#, "spec.initContainers"),
        (
            r#"{"spec":{"containers":[{"name":"db","image":"x"}],"initContainers":[{"name":"app","image":"x"}]}}"#,
            "spec.containers",
        ),
    ];
    for (json, field) in cases {
        let patch = crate::api::pod_patch::PodPatch::from_json(json).unwrap();
        let refused = api.patched_spec(id, &patch).unwrap_err().to_string();
        assert_eq!(
            refused,
            format!("The Pod \"web\" is invalid: {field}: Forbidden: pod updates may not add or remove containers")
        );
    }
}

/// An EndpointSlice's name is `generateName` as for every kind: the prefix
/// `<service>-` cut to 58 characters (`MaxGeneratedNameLength`), then five
/// random ones — a 60-character Service name loses its dash and two letters.
#[test]
fn a_slice_name_is_the_prefix_cut_to_58_and_five_random_characters() {
    const POD: &str =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: app, image: nginx}]\n";
    let name = "s".repeat(60);
    let text = format!(
        "apiVersion: v1\nkind: Service\nmetadata: {{name: {name}}}\nspec:\n  selector: {{app: web}}\n  ports: [{{port: 80}}]\n---\n{POD}"
    );
    let mut m = Manifests::load(&[Arc::new(SourceFile { name: "svc.yaml".into(), text })]).unwrap();
    let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
    let range = Cidr::parse("10.96.0.0/12").unwrap();
    let svc = api.create_service(Arc::new(m.services.remove(0)), range, SimTime::ZERO, &mut trace);
    let prefix = crate::control::endpointslice::slice_prefix(&name);
    let content = SliceContent { ports: Vec::new(), endpoints: Vec::new(), trigger_time: None };
    let slice = api.create_slice(svc, &prefix, content, SimTime::ZERO, &mut trace);
    assert_eq!(slice.name.len(), 63);
    assert_eq!(&slice.name[..58], &name[..58]);
    assert_eq!(&*slice.namespace, "default");
}
