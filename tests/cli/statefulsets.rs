//! StatefulSets from the command line: the controller's order and
//! identity (stateful_set_control.go `processReplica`, `newStatefulSetPod`),
//! the rolling update with a partition, a rollout halted by a pod that
//! never becomes Ready, kubectl's lines and the API server's refusals. The
//! expected values follow from those rules and the profiles' latencies.

use crate::{Run, TempDir, assert_error, assert_no_panic, line_of, podsim};
use serde_json::Value;

const ROLLOUT: &str = "models/scenarios/statefulset-rollout.yaml";
const STUCK: &str = "models/scenarios/statefulset-stuck-rollout.yaml";
const PENDING: &str = "models/scenarios/statefulset-second-pod-pending.yaml";

fn ok(run: &Run) {
    assert_no_panic(run);
    assert_eq!(run.code, Some(0), "{run:?}");
}

/// The JSON lines of a run.
fn lines(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["run"];
    all.extend(args);
    all.extend(["-o", "jsonl"]);
    let run = podsim(all);
    ok(&run);
    run.stdout.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

fn ms(v: &Value) -> u64 {
    (v["t"].as_f64().expect("t") * 1000.0).round() as u64
}

/// The Pod versions of the run, in order: (ms, watch type, object).
fn pods(all: &[Value]) -> Vec<(u64, &str, &Value)> {
    all.iter()
        .filter(|v| {
            v["object"]["kind"] == "Pod" && matches!(v["type"].as_str(), Some("ADDED" | "MODIFIED" | "DELETED"))
        })
        .map(|v| (ms(v), v["type"].as_str().unwrap_or(""), &v["object"]))
        .collect()
}

fn name(o: &Value) -> &str {
    o["metadata"]["name"].as_str().unwrap_or("")
}

fn running_and_ready(o: &Value) -> bool {
    let ready = o["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Ready" && c["status"] == "True");
    o["status"]["phase"] == "Running" && ready
}

/// When each pod of that name was created (its ADDED records).
fn created(all: &[Value], pod: &str) -> Vec<u64> {
    pods(all).into_iter().filter(|(_, t, o)| *t == "ADDED" && name(o) == pod).map(|(ms, ..)| ms).collect()
}

/// When the pod of that name was first Running and Ready at or after `from`.
fn ready_at(all: &[Value], pod: &str, from: u64) -> u64 {
    let p = pods(all).into_iter().find(|(t, _, o)| *t >= from && name(o) == pod && running_and_ready(o));
    p.map(|(t, ..)| t).unwrap_or_else(|| panic!("{pod} never Running and Ready after {from} ms"))
}

/// The rollout status lines of the run, in order.
fn rollout(all: &[Value]) -> Vec<(u64, String)> {
    (all.iter().filter(|v| v["type"] == "KUBECTL"))
        .map(|v| (ms(v), v["output"].as_str().unwrap_or("").trim_end().to_string()))
        .collect()
}

/// OrderedReady: web-1 is created only once web-0 is Running and Ready,
/// web-2 once web-1 is: the controller sees the Ready pod through its pod
/// watch (kind: 1–8 ms) and its next sync POSTs the pod (2–10 ms), behind
/// at most the status PUT of a sync under way (2–10 ms): within 30 ms.
#[test]
fn each_ordinal_is_created_once_the_one_before_is_running_and_ready() {
    let all = lines(&[ROLLOUT]);
    for (before, next) in [("web-0", "web-1"), ("web-1", "web-2")] {
        let at = created(&all, next)[0];
        let ready = ready_at(&all, before, 0);
        assert!(ready < at && at <= ready + 30, "{next} created at {at} ms, {before} ready at {ready} ms");
    }
    // Identity: the name, hostname and subdomain, the labels, the claim.
    let (_, _, web1) = pods(&all).into_iter().find(|(_, t, o)| *t == "ADDED" && name(o) == "web-1").unwrap();
    assert_eq!(web1["spec"]["hostname"], "web-1");
    assert_eq!(web1["spec"]["subdomain"], "nginx");
    let labels = &web1["metadata"]["labels"];
    assert_eq!(
        (labels["statefulset.kubernetes.io/pod-name"].as_str(), labels["apps.kubernetes.io/pod-index"].as_str()),
        (Some("web-1"), Some("1"))
    );
    assert!(labels["controller-revision-hash"].as_str().is_some_and(|h| h.starts_with("web-")), "{labels}");
    assert_eq!(web1["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
    let volume = &web1["spec"]["volumes"][0];
    assert_eq!(
        (volume["name"].as_str(), volume["persistentVolumeClaim"]["claimName"].as_str()),
        (Some("www"), Some("www-web-1"))
    );
    // stateful_pod_control.go's events, the claim's before the pod's.
    let messages: Vec<&str> =
        all.iter().filter(|v| v["type"] == "EVENT").filter_map(|v| v["object"]["message"].as_str()).collect();
    let claim = messages.iter().position(|m| *m == "create Claim www-web-1 Pod web-1 in StatefulSet web success");
    let pod = messages.iter().position(|m| *m == "create Pod web-1 in StatefulSet web successful");
    assert!(claim.is_some() && claim < pod, "{messages:?}");
}

/// Partition 1: web-2 then web-1 are replaced (highest ordinal first, each
/// once the one above is Running and Ready at the new revision); web-0 keeps
/// nginx 1.27 until the partition is lowered to 0 at 120 s. Every pod is
/// deleted and created anew (same name, new UID); the update revision
/// becomes current only when all three are updated and ready.
#[test]
fn a_partitioned_rollout_replaces_from_the_top_down_to_the_partition() {
    let all = lines(&[ROLLOUT]);
    let deleted = |pod: &str| {
        let first =
            pods(&all).into_iter().find(|(_, _, o)| name(o) == pod && o["metadata"]["deletionTimestamp"].is_string());
        first.map(|(t, ..)| t).unwrap_or(u64::MAX)
    };
    let (web2, web1, web0) = (deleted("web-2"), deleted("web-1"), deleted("web-0"));
    assert!((60_000..60_100).contains(&web2), "web-2 first, at once: {web2}");
    let replaced = created(&all, "web-2")[1];
    assert!(web1 > ready_at(&all, "web-2", replaced), "web-1 only once the new web-2 is ready: {web1}");
    assert!(web0 >= 120_000, "web-0 is below the partition until 120 s: {web0}");
    let image = |pod: &str, at: u64| {
        let mut versions = pods(&all).into_iter().filter(|(t, _, o)| *t <= at && name(o) == pod);
        versions.next_back().map(|(_, _, o)| o["spec"]["containers"][0]["image"].as_str().unwrap_or("").to_string())
    };
    assert_eq!(image("web-0", 119_000).as_deref(), Some("nginx:1.27"));
    assert_eq!(image("web-1", 119_000).as_deref(), Some("nginx:1.28"));
    assert_eq!(image("web-0", 180_000).as_deref(), Some("nginx:1.28"));
    let lines = rollout(&all);
    let texts: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
    assert!(texts.contains(&"partitioned roll out complete: 2 new pods have been updated..."), "{texts:?}");
    assert_eq!(texts.last(), Some(&"partitioned roll out complete: 3 new pods have been updated..."));
    let last = all.iter().rfind(|v| v["object"]["kind"] == "StatefulSet").expect("the set");
    let status = &last["object"]["status"];
    assert_eq!(status["currentRevision"], status["updateRevision"]);
    assert_eq!((status["currentReplicas"].as_u64(), status["updatedReplicas"].as_u64()), (Some(3), Some(3)));
}

/// A new pod that never becomes Ready stops the rollout at web-2: the
/// lower ordinals keep the old image, kubectl rollout status times out
/// after its 60 s (40 s + 60 s). Applying the old template again makes it
/// the update revision, but web-2 is still waited for; deleting it lets it
/// come back from the old template.
#[test]
fn a_pod_that_never_becomes_ready_halts_the_rollout_until_deleted() {
    let all = lines(&[STUCK]);
    let lines = rollout(&all);
    assert!(lines.contains(&(100_000, "error: timed out waiting for the condition".into())), "{lines:?}");
    assert_eq!(created(&all, "web-1").len(), 1, "web-1 never replaced");
    assert_eq!(created(&all, "web-0").len(), 1, "web-0 never replaced");
    let web2 = created(&all, "web-2");
    assert_eq!(web2.len(), 3, "created, replaced at 40 s, re-created after the delete at 150 s: {web2:?}");
    assert!(web2[2] > 150_000);
    assert_eq!(
        lines.last().map(|(_, l)| l.as_str()),
        Some("partitioned roll out complete: 3 new pods have been updated...")
    );
    let rows = podsim(["run", STUCK, "--only", "controllerrevision/*"]);
    ok(&rows);
    assert!(rows.stdout.contains("renumbered, revision 3"), "the old template's revision is reused: {rows:?}");
}

/// web-1 asks for 3 of the node's 4 CPUs next to web-0: FailedScheduling,
/// Pending for good; under OrderedReady web-2 is never created.
#[test]
fn a_second_pod_that_never_schedules_holds_back_the_third() {
    let get = podsim(["get", "pods,sts", PENDING, "--at", "60s"]);
    ok(&get);
    let want = "NAME        READY   STATUS    RESTARTS   AGE\npod/web-0   1/1     Running   0          60s\npod/web-1   0/1     Pending   0          54s\n\nNAME                   READY   AGE\nstatefulset.apps/web   1/3     60s\n";
    assert_eq!(get.stdout, want);
    let all = lines(&[PENDING]);
    assert!(created(&all, "web-2").is_empty());
    let events = all.iter().filter(|v| v["type"] == "EVENT");
    assert!(
        events
            .clone()
            .any(|v| v["object"]["reason"] == "FailedScheduling" && v["object"]["involvedObject"]["name"] == "web-1")
    );
}

/// Parallel: every ordinal is created in the first syncs (slow-start
/// batches of 1 and 2), none waiting for another to be Ready.
#[test]
fn parallel_creates_every_ordinal_without_waiting() {
    let dir = TempDir::new("sts-parallel");
    let text = std::fs::read_to_string("models/manifests/web-statefulset.yaml").unwrap();
    let file =
        dir.write("web.yaml", &text.replace("  replicas: 3\n", "  replicas: 3\n  podManagementPolicy: Parallel\n"));
    let all = lines(&["-f", &file, "--cluster", "models/clusters/kind.yaml", "--until", "30s"]);
    let first_ready = ready_at(&all, "web-0", 0).min(ready_at(&all, "web-1", 0)).min(ready_at(&all, "web-2", 0));
    for pod in ["web-0", "web-1", "web-2"] {
        assert!(created(&all, pod)[0] < first_ready, "{pod} created before any pod is ready");
    }
    // Its recording holds the StatefulSet object: check sees it Parallel and keeps no order.
    let run = podsim(["run", "-f", &file, "--cluster", "models/clusters/kind.yaml", "--until", "30s", "-o", "jsonl"]);
    let trace = dir.write("trace.jsonl", &run.stdout);
    let check = podsim(["check", &trace]);
    ok(&check);
    assert!(
        check.stdout.contains("ordinal-order                        podManagementPolicy Parallel: no order to keep"),
        "{check:?}"
    );
}

/// MaxUnavailableStatefulSet is on in 1.37: with maxUnavailable 2, web-4 and
/// web-3 are deleted in the same sync; in 1.36 (off) one at a time.
#[test]
fn max_unavailable_deletes_two_at_once_where_the_gate_is_on() {
    let dir = TempDir::new("sts-max-unavailable");
    let text = std::fs::read_to_string("models/manifests/web-statefulset.yaml").unwrap();
    let five = text.replace("  replicas: 3\n", "  replicas: 5\n");
    let file = dir.write("web.yaml", &five);
    let v2 = five
        .replace("image: nginx:1.27", "image: nginx:1.28")
        .replace("  replicas: 5\n", "  replicas: 5\n  updateStrategy:\n    rollingUpdate: {maxUnavailable: 2}\n");
    let v2 = v2.split("---\n").nth(1).unwrap().to_string();
    let update = dir.write("v2.yaml", &v2);
    let scenario = dir.write(
        "s.yaml",
        &format!("manifests: [{file}]\ncluster: {}/models/clusters/kind.yaml\nseed: 1\nuntil: 60s\nactions:\n- {{at: 40s, apply: {update}}}\n", env!("CARGO_MANIFEST_DIR")),
    );
    let deleting_at = |version: &str| {
        let all = lines(&[&scenario, "--kubernetes", version]);
        let mut first: Vec<(String, u64)> = Vec::new();
        for (t, _, o) in pods(&all) {
            if o["metadata"]["deletionTimestamp"].is_string() && !first.iter().any(|(n, _)| n == name(o)) {
                first.push((name(o).to_string(), t));
            }
        }
        first
    };
    let on = deleting_at("1.37");
    assert_eq!(on.iter().map(|(n, _)| n.as_str()).take(2).collect::<Vec<_>>(), ["web-4", "web-3"]);
    assert!(on[1].1 - on[0].1 < 50, "the same sync: {on:?}");
    let off = deleting_at("1.36");
    assert_eq!(off[0].0, "web-4");
    assert!(off[1].1 - off[0].1 > 1_000, "web-3 only after the new web-4 is ready: {off:?}");
}

/// `kubectl get sts -o wide` (`printStatefulSet`): READY is readyReplicas/spec.replicas.
#[test]
fn get_statefulsets_prints_ready_and_the_template() {
    let get = podsim(["get", "sts", ROLLOUT, "--at", "70s", "-o", "wide"]);
    ok(&get);
    assert!(get.stdout.starts_with("NAME   READY   AGE   CONTAINERS   IMAGES\nweb    "), "{get:?}");
    assert!(get.stdout.contains("nginx        nginx:1.28"), "{get:?}");
}

/// `podsim check` judges a StatefulSet's pods by their owner references:
/// the run's own trace keeps the ordinal order; trace 009's and 031's
/// recordings (kubectl rows, no owner references) pass.
#[test]
fn recordings_of_statefulsets_pass_check() {
    let dir = TempDir::new("sts-check");
    let run = podsim(["run", ROLLOUT, "-o", "jsonl"]);
    ok(&run);
    let trace = dir.write("trace.jsonl", &run.stdout);
    let check = podsim(["check", &trace]);
    ok(&check);
    assert!(
        check.stdout.contains("(StatefulSet web) (pods of ordinals 0, 1, 2)\n  holds     ordinal-order"),
        "{check:?}"
    );
    for folder in [
        "009-statefulset-ordered-create-scale-rollingupdate-watch",
        "031-statefulset-zookeeper-process-kill-and-liveness-readiness",
    ] {
        let path = std::path::Path::new("tests/traces").join(folder);
        for f in std::fs::read_dir(&path).unwrap().map(|f| f.unwrap().path()) {
            if f.extension().is_some_and(|e| e == "txt") {
                let check = podsim(["check", f.to_str().unwrap()]);
                assert_eq!(check.code, Some(0), "{}: {check:?}", f.display());
            }
        }
    }
}

/// The API server's refusals, in its words (`ValidateStatefulSetSpec`).
#[test]
fn invalid_statefulsets_are_refused_as_the_api_server_refuses_them() {
    let text = std::fs::read_to_string("models/manifests/web-statefulset.yaml").unwrap();
    let cases = [
        (
            "  replicas: 3\n",
            "  replicas: 3\n  podManagementPolicy: Fast\n",
            "podManagementPolicy:",
            r#"spec.podManagementPolicy: Invalid value: "Fast": must be 'OrderedReady' or 'Parallel'"#,
        ),
        (
            "  replicas: 3\n",
            "  replicas: 3\n  updateStrategy: {rollingUpdate: {maxUnavailable: 0}}\n",
            "updateStrategy:",
            "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0",
        ),
        (
            "  replicas: 3\n",
            "  replicas: 3\n  updateStrategy: {rollingUpdate: {partition: -1}}\n",
            "updateStrategy:",
            "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            "  replicas: 3\n",
            "  replicas: 3\n  persistentVolumeClaimRetentionPolicy: {whenDeleted: Keep}\n",
            "persistentVolumeClaimRetentionPolicy:",
            r#"spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete""#,
        ),
        (
            "      containers:\n",
            "      restartPolicy: Never\n      containers:\n",
            "restartPolicy:",
            r#"spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always""#,
        ),
    ];
    for (i, (anchor, with, at, expected)) in cases.into_iter().enumerate() {
        let dir = TempDir::new(&format!("sts-invalid-{i}"));
        let bad = text.replacen(anchor, with, 1);
        let file = dir.write("web.yaml", &bad);
        let run = podsim(["run", "-f", &file]);
        assert_error(&run, &file, line_of(&bad, at), expected);
    }
}

/// `kubectl scale statefulset/web`: up from 3 to 5 in order (web-3, then
/// web-4 once web-3 is Ready), down to 2 from the highest ordinal, each
/// deletion only once the pod above is gone (`processCondemned`).
#[test]
fn scaling_adds_ordinals_in_order_and_removes_them_from_the_top() {
    let dir = TempDir::new("sts-scale");
    let root = env!("CARGO_MANIFEST_DIR");
    let scenario = dir.write(
        "s.yaml",
        &format!(
            "manifests: [{root}/models/manifests/web-statefulset.yaml]\napp: {root}/models/apps/nginx-web.yaml\ncluster: {root}/models/clusters/kind.yaml\nseed: 1\nuntil: 90s\nactions:\n- {{at: 30s, scale: statefulset/web, replicas: 5}}\n- {{at: 60s, scale: sts/web, replicas: 2}}\n"
        ),
    );
    let all = lines(&[&scenario]);
    let web3 = created(&all, "web-3")[0];
    assert!(web3 >= 30_000 && created(&all, "web-4")[0] > ready_at(&all, "web-3", web3));
    let removed = |pod: &str| {
        let gone = pods(&all).into_iter().find(|(_, t, o)| *t == "DELETED" && name(o) == pod);
        gone.map(|(t, ..)| t).unwrap_or_else(|| panic!("{pod} never removed"))
    };
    let deleting = |pod: &str| {
        let first = pods(&all)
            .into_iter()
            .find(|(t, _, o)| *t >= 60_000 && name(o) == pod && o["metadata"]["deletionTimestamp"].is_string());
        first.map(|(t, ..)| t).unwrap_or_else(|| panic!("{pod} never deleted"))
    };
    assert!(deleting("web-3") > removed("web-4"), "web-3 only once web-4 is gone");
    assert!(deleting("web-2") > removed("web-3"), "web-2 only once web-3 is gone");
    assert_eq!(created(&all, "web-1").len(), 1, "web-0 and web-1 stay");
    let get = podsim(["get", "sts", &scenario, "--at", "90s"]);
    assert!(get.stdout.contains("web    2/2"), "{get:?}");
}

/// `whenScaled: Delete`: scaled from 3 to 1, web-2's and web-1's claims are
/// deleted by the garbage collector once their pods are gone (their owner,
/// `fixPodClaim`), web-0's kept; scaled back to 3, each ordinal gets a new
/// claim. With the default Retain, the claims outlive the pods.
#[test]
fn claims_of_scaled_away_pods_go_with_them_under_when_scaled_delete() {
    let dir = TempDir::new("sts-retention");
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string("models/manifests/web-statefulset.yaml").unwrap();
    let delete = text
        .replace("  replicas: 3\n", "  replicas: 3\n  persistentVolumeClaimRetentionPolicy: {whenScaled: Delete}\n");
    let scenario = |tag: &str, manifest: &str| {
        let file = dir.write(&format!("{tag}.yaml"), manifest);
        dir.write(
            &format!("{tag}-s.yaml"),
            &format!(
                "manifests: [{file}]\napp: {root}/models/apps/nginx-web.yaml\ncluster: {root}/models/clusters/kind.yaml\nseed: 1\nuntil: 120s\nactions:\n- {{at: 30s, scale: sts/web, replicas: 1}}\n- {{at: 60s, scale: sts/web, replicas: 3}}\n"
            ),
        )
    };
    let claims = |s: &str| {
        let all = lines(&[s]);
        let of = |kind: &str| -> Vec<(u64, String)> {
            (all.iter().filter(|v| v["type"] == kind && v["object"]["kind"] == "PersistentVolumeClaim"))
                .map(|v| (ms(v), v["object"]["metadata"]["name"].as_str().unwrap_or("").to_string()))
                .collect()
        };
        let removed = |pod: &str| {
            let gone = pods(&all).into_iter().find(|(t, k, o)| *t >= 30_000 && *k == "DELETED" && name(o) == pod);
            gone.map(|(t, ..)| t)
        };
        (of("ADDED"), of("DELETED"), removed("web-1"), removed("web-2"))
    };
    let (added, deleted, web1, web2) = claims(&scenario("delete", &delete));
    let names: Vec<&str> = deleted.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["www-web-2", "www-web-1"], "{deleted:?}");
    assert!(deleted[0].0 > web2.unwrap() && deleted[1].0 > web1.unwrap(), "after their pods: {deleted:?}");
    let again: Vec<&str> = added.iter().filter(|(t, _)| *t >= 60_000).map(|(_, n)| n.as_str()).collect();
    assert_eq!(again, ["www-web-1", "www-web-2"], "new claims on the way back up");
    let (added, deleted, ..) = claims(&scenario("retain", &text));
    assert!(deleted.is_empty(), "Retain keeps them: {deleted:?}");
    assert_eq!(added.len(), 3, "and reuses them: {added:?}");
}

/// minReadySeconds 10 holds web-1 back until web-0 is available (Ready for
/// 10 s, counted from its lastTransitionTime, whole seconds: 11 s + 10 s).
/// From 1.35 (PR #135428) the controller looks again exactly then: web-1
/// within 40 ms of 21 s. In 1.34 it looks again minReadySeconds after each
/// sync, and the work queue keeps the earliest wake-up: the chain started by
/// the first sync (at 0 s) wakes it at 10, 20, 30 s, and 30 s is the first
/// after 21 s.
#[test]
fn min_ready_seconds_holds_the_next_ordinal_until_the_pod_is_available() {
    let dir = TempDir::new("sts-min-ready");
    let text = std::fs::read_to_string("models/manifests/web-statefulset.yaml").unwrap();
    let file = dir.write("web.yaml", &text.replace("  replicas: 3\n", "  replicas: 2\n  minReadySeconds: 10\n"));
    for (version, from, to) in [("1.35", 21_000, 21_040), ("1.34", 30_000, 30_100)] {
        let all = lines(&[
            "-f",
            &file,
            "--app",
            "models/apps/nginx-web.yaml",
            "--cluster",
            "models/clusters/kind.yaml",
            "--kubernetes",
            version,
            "--until",
            "40s",
        ]);
        let ready = ready_at(&all, "web-0", 0);
        assert_eq!(ready / 1000, 11, "web-0 Ready in second 11 (the premise)");
        let web1 = created(&all, "web-1")[0];
        assert!((from..to).contains(&web1), "{version}: web-1 created at {web1} ms");
    }
}

/// A PodDisruptionBudget with maxUnavailable over a StatefulSet's pods: the
/// disruption controller takes the expected count from the set's replicas
/// (`getPodStatefulSet`), so with all three Ready one disruption is allowed.
#[test]
fn a_budget_counts_a_statefulset_s_replicas() {
    let dir = TempDir::new("sts-pdb");
    let root = env!("CARGO_MANIFEST_DIR");
    let pdb = dir.write(
        "pdb.yaml",
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app: nginx}}\n",
    );
    let scenario = dir.write(
        "s.yaml",
        &format!(
            "manifests: [{root}/models/manifests/web-statefulset.yaml, {pdb}]\napp: {root}/models/apps/nginx-web.yaml\ncluster: {root}/models/clusters/kind.yaml\nseed: 1\nuntil: 40s\n"
        ),
    );
    let get = podsim(["get", "pdb", &scenario, "--at", "40s"]);
    ok(&get);
    assert!(get.stdout.contains("web    N/A             1                 1                     40s"), "{get:?}");
}

const DELETE: &str = "models/scenarios/statefulset-delete.yaml";

/// Each object's DELETED record: (ms, kind, name).
fn deleted(all: &[Value]) -> Vec<(u64, String, String)> {
    (all.iter().filter(|v| v["type"] == "DELETED"))
        .map(|v| (ms(v), v["object"]["kind"].as_str().unwrap_or("").to_string(), name(&v["object"]).to_string()))
        .collect()
}

/// `kubectl delete statefulset/web` (background): the set goes at once;
/// the garbage collector deletes its three pods together (no order: the
/// set is gone) and its ControllerRevision; with `whenDeleted: Delete`
/// each claim goes after the pod that mounts it (pvc-protection), with
/// `Retain` (the default) every claim stays.
#[test]
fn deleting_a_statefulset_deletes_its_pods_revisions_and_by_policy_its_claims() {
    let all = lines(&[DELETE]);
    let gone = deleted(&all);
    let at = |kind: &str, n: &str| {
        gone.iter()
            .find(|(_, k, m)| k == kind && m == n)
            .map(|(t, ..)| *t)
            .unwrap_or_else(|| panic!("{kind} {n} not deleted: {gone:?}"))
    };
    assert_eq!(at("StatefulSet", "web"), 60_000, "removed at once: background cascade");
    assert!(at("ControllerRevision", "web-7b48ffc6db") > 60_000);
    let first_deletions: Vec<u64> = ["web-0", "web-1", "web-2"]
        .iter()
        .map(|p| {
            let deleting = pods(&all)
                .into_iter()
                .find(|(t, _, o)| *t >= 60_000 && name(o) == *p && o["metadata"]["deletionTimestamp"].is_string());
            deleting.map(|(t, ..)| t).unwrap_or_else(|| panic!("{p} never deleted"))
        })
        .collect();
    let (lo, hi) = (first_deletions.iter().min().unwrap(), first_deletions.iter().max().unwrap());
    assert!(hi - lo < 1_000, "deleted together, not one ordinal after another: {first_deletions:?}");
    for n in 0..3 {
        let (pod, claim) = (format!("web-{n}"), format!("www-web-{n}"));
        assert!(at("PersistentVolumeClaim", &claim) > at("Pod", &pod), "{claim} after {pod}");
    }
    // Retain (the tutorial's manifest, no policy): the claims outlive the set.
    let kept = lines(&[ROLLOUT, "--delete", "statefulset/web@30s", "--until", "60s"]);
    let gone = deleted(&kept);
    assert!(gone.iter().any(|(_, k, n)| k == "StatefulSet" && n == "web"), "{gone:?}");
    assert!(!gone.iter().any(|(_, k, _)| k == "PersistentVolumeClaim"), "{gone:?}");
}

/// `--cascade=foreground`: the set stays, deleting, until its pods are gone;
/// `--cascade=orphan`: its pods live on, without an owner reference.
#[test]
fn a_statefulsets_cascade_is_kubectls() {
    let fg = lines(&[ROLLOUT, "--delete", "sts/web@30s,cascade=foreground", "--until", "60s"]);
    let gone = deleted(&fg);
    let set = gone.iter().find(|(_, k, _)| k == "StatefulSet").map(|(t, ..)| *t).expect("the set goes");
    let last_pod = gone.iter().filter(|(_, k, _)| k == "Pod").map(|(t, ..)| *t).max().expect("pods go");
    assert!(set > last_pod, "the set after its pods: {gone:?}");
    let orphan = lines(&[ROLLOUT, "--delete", "sts/web@30s,cascade=orphan", "--until", "60s"]);
    assert!(!deleted(&orphan).iter().any(|(_, k, _)| k == "Pod"));
    let last: Vec<&Value> = pods(&orphan).into_iter().filter(|(_, _, o)| name(o) == "web-0").map(|(.., o)| o).collect();
    assert_eq!(last.last().expect("web-0")["metadata"]["ownerReferences"], Value::Null, "released by the collector");
}

/// A delete of a StatefulSet the manifests do not declare is refused before the run.
#[test]
fn deleting_an_unknown_statefulset_is_refused() {
    let run = podsim(["run", ROLLOUT, "--delete", "statefulset/db@30s"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("no StatefulSet named \"db\" in the manifests (StatefulSets: web)"), "{run:?}");
}

/// zk-0's rows in a recorded watch after its first (the listing): READY, STATUS, RESTARTS.
fn recorded_changes(file: &str) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(file).expect("the recording");
    let rows = text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).filter(|w| w.first() == Some(&"zk-0"));
    rows.skip(1).map(|w| (w[1].to_string(), w[2].to_string(), w[3].to_string())).collect()
}

/// zk-0's kubectl rows of a podsim run from `from` seconds: READY, STATUS, RESTARTS.
fn simulated_changes(scenario: &str, from: f64) -> Vec<(String, String, String)> {
    let run = podsim(["run", scenario, "--only", "pod/zk-0", "--types", "kubectl"]);
    ok(&run);
    let row = |l: &str| {
        let t: f64 = l.split_whitespace().next()?.trim_end_matches('s').parse().ok()?;
        let (_, rest) = l.split_once("kubectl ")?;
        let (status, rest) = rest.split_once(" (READY ")?;
        let (ready, rest) = rest.split_once(", RESTARTS ")?;
        let restarts = rest.split(')').next()?;
        (t >= from).then(|| (ready.to_string(), status.to_string(), restarts.to_string()))
    };
    run.stdout.lines().filter_map(row).collect()
}

/// Trace 031, the ZooKeeper tutorial's StatefulSet: its watches give only
/// the order of zk-0's states (AGE is in minutes), and podsim's runs of the
/// tutorial's probes show the same rows in the same order. (a) `pkill java`:
/// Error, then restarted at once (no back-off before the first restart) but
/// not Ready, then Ready once the readiness probe passes (initial delay 15 s).
/// (b) zkOk.sh deleted: readiness fails first (not Ready, no restart), then
/// liveness — the same command, failureThreshold 3 — restarts the
/// container, which is Ready again when its probe passes.
#[test]
fn the_zookeeper_tutorials_watches_are_podsims_rows() {
    let dir = "tests/traces/031-statefulset-zookeeper-process-kill-and-liveness-readiness";
    let pkill = recorded_changes(&format!("{dir}/a-watch-pkill-java.txt"));
    assert_eq!(pkill.len(), 3);
    assert_eq!(simulated_changes("models/scenarios/recorded/031-zk-pkill.yaml", 60.0), pkill);
    let rm = recorded_changes(&format!("{dir}/b-watch-rm-zkOk.txt"));
    assert_eq!(rm.len(), 3);
    assert_eq!(simulated_changes("models/scenarios/recorded/031-zk-rm-zkok.yaml", 90.0), rm);
}
