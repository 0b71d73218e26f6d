//! PersistentVolumeClaims a pod mounts: the scheduler's VolumeBinding
//! plugin keeps the pod Pending while a claim is missing, or while an
//! Immediate one is unbound; a WaitForFirstConsumer claim is provisioned on
//! the node chosen, and the pod is bound once the claim is (PreBind).

use super::{TempDir, assert_error, line_of, podsim};

const POD: &str = "apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  containers:
  - name: db
    image: registry.example.com/db:1.0
    volumeMounts: [{name: data, mountPath: /var/lib/db}]
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data}
";

const CLAIM: &str = "apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
";

/// The time (seconds) of the first JSON Lines record with all of `needles`.
fn first(stdout: &str, needles: &[&str]) -> f64 {
    let line = stdout.lines().find(|l| needles.iter().all(|n| l.contains(n)));
    let line = line.unwrap_or_else(|| panic!("no line with {needles:?}"));
    serde_json::from_str::<serde_json::Value>(line).unwrap()["t"].as_f64().unwrap()
}

/// No claim: FailedScheduling with the plugin's words, for every node, and
/// no preemption; the claim applied at 20 s (no class: the default
/// WaitForFirstConsumer) requeues the pod, the scheduler picks its node and
/// asks for the volume there (`volume.kubernetes.io/selected-node`), and
/// the pod is bound the instant the claim is.
#[test]
fn a_missing_claim_keeps_the_pod_pending_until_it_exists_and_is_bound() {
    let dir = TempDir::new("claim-missing");
    dir.write("pod.yaml", POD);
    dir.write("claim.yaml", CLAIM);
    let scenario = dir.write("s.yaml", "manifests: [pod.yaml]\nuntil: 40s\nactions:\n- {at: 20s, apply: claim.yaml}\n");
    let run = podsim(["run", &scenario]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr.contains("persistentvolumeclaim \"data\" is created by no manifest in namespace default"),
        "{run:?}"
    );
    assert!(
        run.stdout.contains(
            "FailedScheduling                                  0/1 nodes are available: persistentvolumeclaim \"data\" not found. \
             preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
        ),
        "{run:?}"
    );
    let jsonl = podsim(["run", &scenario, "-o", "jsonl"]);
    let created = first(&jsonl.stdout, &["\"PersistentVolumeClaim\"", "\"type\":\"ADDED\""]);
    let selected = first(&jsonl.stdout, &["volume.kubernetes.io/selected-node"]);
    let bound = first(&jsonl.stdout, &["\"phase\":\"Bound\"", "PersistentVolumeClaim"]);
    let scheduled = first(&jsonl.stdout, &["\"reason\":\"Scheduled\""]);
    assert_eq!(created, 20.0);
    // The requeued attempt lands after the profile's scheduling latency (5–30 ms).
    assert!((20.005..=20.030).contains(&selected), "{selected}");
    // Provisioning takes the profile's volumeProvision (1–3 s); the bind follows at once.
    assert!((selected + 1.0..=selected + 3.0).contains(&bound), "{selected} {bound}");
    assert_eq!(scheduled, bound);
}

/// A StorageClass with `volumeBindingMode: Immediate`: the claim is bound
/// without a pod, and until then the pod is `pod has unbound immediate
/// PersistentVolumeClaims`; it is scheduled once the claim is bound.
#[test]
fn an_immediate_claim_is_bound_before_the_pod_is_scheduled() {
    let dir = TempDir::new("claim-immediate");
    let class =
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: example.com/fast\n";
    let claim = CLAIM.replace("spec:\n", "spec:\n  storageClassName: fast\n");
    let file = dir.write("all.yaml", &format!("{class}---\n{claim}---\n{POD}"));
    let run = podsim(["run", "-f", &file, "--until", "10s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. "),
        "{run:?}"
    );
    let bound = first(&run.stdout, &["\"phase\":\"Bound\"", "PersistentVolumeClaim"]);
    assert!((1.0..=3.0).contains(&bound), "{bound}");
    let scheduled = first(&run.stdout, &["\"reason\":\"Scheduled\""]);
    assert!((bound + 0.005..=bound + 0.030).contains(&scheduled), "{bound} {scheduled}");
    assert!(!run.stdout.contains("selected-node"), "an Immediate claim is not provisioned for a node: {run:?}");
}

/// The API server's checks of the fields podsim reads.
#[test]
fn claims_and_classes_are_validated() {
    let dir = TempDir::new("claim-invalid");
    let bad = CLAIM.replace("  accessModes: [ReadWriteOnce]\n", "");
    let file = dir.write("claim.yaml", &format!("{bad}---\n{POD}"));
    let run = podsim(["run", "-f", &file]);
    assert_error(
        &run,
        &file,
        line_of(&bad, "spec:"),
        "spec.accessModes: Required value: at least 1 access mode is required",
    );
    let class = "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: slow}\nprovisioner: x\nvolumeBindingMode: Later\n";
    let file = dir.write("class.yaml", &format!("{class}---\n{POD}"));
    let run = podsim(["run", "-f", &file]);
    assert_error(
        &run,
        &file,
        line_of(class, "volumeBindingMode"),
        r#"volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer""#,
    );
}

/// `podsim get pvc`: printPersistentVolumeClaim's cells — Pending with no
/// volume before the claim is bound; then its volume, the capacity asked
/// for, the access modes abbreviated (GetAccessModesAsString), the default
/// class the manifests declare (set by the DefaultStorageClass admission),
/// `<unset>` for the attributes class; VOLUMEMODE defaulted to Filesystem.
#[test]
fn get_pvc_prints_kubectls_columns_before_and_after_binding() {
    let dir = TempDir::new("claim-get");
    let class = "apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: \"true\"}
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
";
    dir.write("all.yaml", &format!("{POD}---\n{CLAIM}---\n{class}"));
    let scenario = dir.write("s.yaml", "manifests: [all.yaml]\nuntil: 40s\n");
    let pending = podsim(["get", "pvc", &scenario, "--at", "0s"]);
    assert_eq!(pending.code, Some(0), "{pending:?}");
    assert_eq!(
        pending.stdout,
        "NAME   STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE\n\
         data   Pending                                      standard       <unset>                 0s\n"
    );
    let bound = podsim(["get", "pvc/data", &scenario, "-o", "wide"]);
    assert_eq!(bound.code, Some(0), "{bound:?}");
    let row = bound.stdout.lines().nth(1).unwrap_or_default();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[0], "data");
    assert_eq!(cells[1], "Bound");
    assert!(cells[2].starts_with("pvc-"), "{row}");
    assert_eq!(cells[3..], ["1Gi", "RWO", "standard", "<unset>", "40s", "Filesystem"], "{row}");
    let missing = podsim(["get", "pvc/logs", &scenario]);
    assert_eq!(missing.code, Some(1), "{missing:?}");
    assert!(
        missing.stderr.ends_with("\nError from server (NotFound): persistentvolumeclaims \"logs\" not found\n"),
        "{missing:?}"
    );
}
