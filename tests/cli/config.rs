//! ConfigMaps and Secrets a pod needs: what the kubelet does while one is
//! missing, and when it notices one created later.
//!
//! - The environment (`makeEnvironmentVariables`): `CreateContainerConfigError`
//!   with the manager's NotFound message, a `Failed` event per sync, retried
//!   on the pod worker's error requeue (`backOffPeriod`, 10 s jittered up to
//!   15 s).
//! - A volume (`SetUpAt` of the secret plugin): `ContainerCreating`, a
//!   `FailedMount` event per reconciler attempt, retried on the operation
//!   executor's backoff (500 ms doubling to 2m2s) at the next 100 ms pass.

use super::{TempDir, line_of, podsim};

const ENV_POD: &str = "apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: app
    image: nginx:1.27
    env:
    - name: LOG_LEVEL
      valueFrom:
        configMapKeyRef: {name: app-config, key: LOG_LEVEL}
    - name: TOKEN
      valueFrom:
        secretKeyRef: {name: app-token, key: token, optional: true}
";

const VOLUME_POD: &str = "apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: app
    image: nginx:1.27
    volumeMounts: [{name: tls, mountPath: /etc/tls}]
  volumes:
  - name: tls
    secret: {secretName: web-tls}
";

/// The times (seconds) of the JSON Lines records of `type` whose text has `needle`.
fn times(stdout: &str, kind: &str, needle: &str) -> Vec<f64> {
    stdout
        .lines()
        .filter(|l| l.contains(&format!("\"type\":\"{kind}\"")) && l.contains(needle))
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["t"].as_f64().unwrap()
        })
        .collect()
}

/// A required ConfigMap no manifest creates: noted where it is referenced;
/// the container is never created, the pod shows CreateContainerConfigError
/// with the kubelet's message, and each sync's `Failed` event follows the
/// previous by the error requeue (at least 10 s, at most 15 s plus the sync).
/// The optional Secret is skipped without a word.
#[test]
fn a_missing_config_map_keeps_the_container_from_being_created() {
    let dir = TempDir::new("missing-configmap");
    let file = dir.write("pod.yaml", ENV_POD);
    let run = podsim(["run", "-f", &file, "--until", "60s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let note = format!(
        "note: {file}:{}:33: spec.containers[0].env[0].valueFrom.configMapKeyRef.name: configmap \"app-config\" is created \
         by no manifest in namespace default: podsim runs the pod as a cluster without it would: the container is not \
         created (CreateContainerConfigError) until it exists",
        line_of(ENV_POD, "configMapKeyRef")
    );
    assert!(run.stderr.contains(&note), "{run:?}");
    assert!(!run.stderr.contains("app-token"), "an optional reference: {run:?}");
    assert!(!run.stdout.contains("\"Created\""), "{run:?}");
    assert!(
        run.stdout.contains(
            r#"{"waiting":{"message":"configmap \"app-config\" not found","reason":"CreateContainerConfigError"}}"#
        ),
        "{run:?}"
    );
    let failed = times(&run.stdout, "KUBELET", r#"Error: configmap \"app-config\" not found"#);
    assert!(failed.len() >= 4, "{failed:?}");
    // After the sandbox's own sync, each retry is a requeue of the failed sync.
    for w in failed[1..].windows(2) {
        let gap = w[1] - w[0];
        assert!((10.0..16.0).contains(&gap), "{failed:?}");
    }
    let table = podsim(["run", "-f", &file, "--until", "30s"]);
    assert!(table.stdout.contains("kubectl CreateContainerConfigError (READY 0/1, RESTARTS 0)"), "{table:?}");
}

/// A missing key of a ConfigMap that exists is the kubelet's other message.
#[test]
fn a_missing_key_names_the_key_and_the_object() {
    let dir = TempDir::new("missing-key");
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app-config}\ndata: {MODE: fast}\n---\n";
    let file = dir.write("pod.yaml", &format!("{cm}{ENV_POD}"));
    let run = podsim(["run", "-f", &file, "--until", "20s"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("Error: couldn't find key LOG_LEVEL in ConfigMap default/app-config"), "{run:?}");
    assert!(!run.stderr.contains("created by no manifest"), "the ConfigMap exists: {run:?}");
    let optional = file.replace("pod.yaml", "optional.yaml");
    std::fs::write(&optional, format!("{cm}{}", ENV_POD.replace("key: LOG_LEVEL}", "key: LOG_LEVEL, optional: true}")))
        .unwrap();
    let run = podsim(["run", "-f", &optional, "--until", "20s"]);
    assert!(run.stdout.contains("kubectl Running (READY 1/1, RESTARTS 0)"), "an optional key is skipped: {run:?}");
}

/// The ConfigMap applied at 60 s: the kubelet's watch has it within the
/// watch delay, and the next requeued sync (at most 15 s later, plus the
/// sync's own time) creates the container.
#[test]
fn a_config_map_created_later_lets_the_container_start_at_the_next_sync() {
    let dir = TempDir::new("configmap-later");
    dir.write("pod.yaml", ENV_POD);
    dir.write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app-config}\ndata: {LOG_LEVEL: debug}\n");
    let scenario = dir.write("s.yaml", "manifests: [pod.yaml]\nuntil: 90s\nactions:\n- {at: 60s, apply: cm.yaml}\n");
    let run = podsim(["run", &scenario, "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let failed = times(&run.stdout, "KUBELET", "not found");
    let created = times(&run.stdout, "KUBELET", "\"reason\":\"Created\"");
    assert_eq!(created.len(), 1, "{run:?}");
    let last_failure = failed.last().copied().unwrap();
    assert!(last_failure < 61.0, "{failed:?}");
    assert!(created[0] > 60.0 && created[0] - last_failure < 16.0, "{failed:?} {created:?}");
    assert!(run.stdout.contains(r#""object":"configmap/app-config""#), "{run:?}");
}

/// A missing Secret volume: the pod stays ContainerCreating, and each
/// failed set-up is a FailedMount event; the retries come 0.6, 1.1, 2.1,
/// 4.1 … s apart (the backoff, then the next 100 ms reconciler pass) up to
/// 2m2s + 0.1 s. The Secret applied at 150 s is mounted at the retry after
/// it (128.x + 122.1 s), and only then does the pod get its sandbox.
#[test]
fn a_missing_secret_volume_keeps_the_pod_container_creating_until_a_retry_finds_it() {
    let dir = TempDir::new("secret-volume");
    dir.write("pod.yaml", VOLUME_POD);
    dir.write("secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: web-tls}\nstringData: {tls.crt: x}\n");
    let scenario =
        dir.write("s.yaml", "manifests: [pod.yaml]\nuntil: 300s\nactions:\n- {at: 150s, apply: secret.yaml}\n");
    let run = podsim(["run", &scenario, "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let message = r#"MountVolume.SetUp failed for volume \"tls\" : secret \"web-tls\" not found"#;
    let mounts = times(&run.stdout, "KUBELET", message);
    let gaps: Vec<u64> = mounts.windows(2).map(|w| ((w[1] - w[0]) * 1000.0).round() as u64).collect();
    assert_eq!(gaps, [600, 1100, 2100, 4100, 8100, 16100, 32100, 64100], "{mounts:?}");
    let sandbox = times(&run.stdout, "KUBELET", "Pulling image");
    assert_eq!(sandbox.len(), 1, "{run:?}");
    let mounted = mounts.last().unwrap() + 122.1;
    assert!(sandbox[0] > mounted && sandbox[0] < mounted + 2.0, "{mounts:?} {sandbox:?}");
    let table = podsim(["run", &scenario, "--until", "100s"]);
    assert!(table.stdout.contains("kubectl ContainerCreating (READY 0/1, RESTARTS 0)"), "{table:?}");
    assert!(!table.stdout.contains("PodReadyToStartContainers=True"), "{table:?}");
}

/// A pod deleted while its sync waits for a volume is stopped at once: the
/// termination request cancels the wait (the sync's context), and the
/// terminating sync starts once the PLEG cache is newer than the cancelled
/// one's end (the next relist, within about 2 s), not after the 2m3s wait.
#[test]
fn a_pod_waiting_for_a_volume_is_deleted_at_once() {
    let dir = TempDir::new("volume-delete");
    dir.write("pod.yaml", VOLUME_POD);
    let scenario = dir.write("s.yaml", "manifests: [pod.yaml]\nuntil: 60s\nactions:\n- {at: 20s, delete: pod/web}\n");
    let run = podsim(["run", &scenario]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let deleted = run.stdout.lines().find(|l| l.contains("deleted from the API server"));
    let deleted = deleted.unwrap_or_else(|| panic!("{run:?}"));
    let t: f64 = deleted.split_whitespace().next().unwrap().trim_end_matches('s').parse().unwrap();
    assert!(t < 23.0, "{deleted}");
}

/// The documentation's "Configure a Pod to Use a ConfigMap" pods, pasted
/// unchanged, need no behaviour file: `env` prints the environment, `ls
/// /etc/config/` lists the mounted keys, `cat /etc/config/keys` reads the
/// `items` path; each exits 0, so the pod (restartPolicy Never) Succeeds.
/// Without the ConfigMap the volume's pod never starts.
#[test]
fn the_docs_configmap_pods_run_to_completion() {
    let dir = TempDir::new("docs-configmap");
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: special-config\n  namespace: default\n\
              data:\n  SPECIAL_LEVEL: very\n  SPECIAL_TYPE: charm\n---\n";
    let pod = |command: &str, tail: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: dapi-test-pod\nspec:\n  containers:\n    - name: test-container\n      \
             image: registry.k8s.io/busybox\n      command: [ \"/bin/sh\", \"-c\", \"{command}\" ]\n{tail}  restartPolicy: Never\n"
        )
    };
    let env = "      env:\n        - name: SPECIAL_LEVEL_KEY\n          valueFrom:\n            configMapKeyRef:\n              \
               name: special-config\n              key: SPECIAL_LEVEL\n";
    let mount = "      volumeMounts:\n      - name: config-volume\n        mountPath: /etc/config\n  volumes:\n    \
                 - name: config-volume\n      configMap:\n        name: special-config\n";
    let items = format!("{mount}        items:\n        - key: SPECIAL_LEVEL\n          path: keys\n");
    for (name, text) in [
        ("env.yaml", pod("env", env)),
        ("ls.yaml", pod("ls /etc/config/", mount)),
        ("keys.yaml", pod("cat /etc/config/keys", &items)),
    ] {
        let file = dir.write(name, &format!("{cm}{text}"));
        let run = podsim(["run", "-f", &file, "--until", "20s"]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(run.stderr.contains("container test-container of pod/dapi-test-pod (its shell script)"), "{run:?}");
        assert!(run.stdout.contains("test-container process exited with 0"), "{name}: {run:?}");
        assert!(run.stdout.contains("phase=Succeeded"), "{name}: {run:?}");
    }
    let missing = dir.write("missing.yaml", &pod("ls /etc/config/", mount));
    let run = podsim(["run", "-f", &missing, "--until", "20s"]);
    assert!(!run.stdout.contains("process started"), "{run:?}");
    assert!(run.stdout.contains("FailedMount"), "{run:?}");
}
