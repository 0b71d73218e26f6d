//! A kubelet restarted (`restartKubelet`, `--restart-kubelet`): the
//! containers run on; what the new process makes of their status depends
//! on the version (KEP-4781, `ChangeContainerStatusOnKubeletRestart`).

use super::{TempDir, podsim};
use serde_json::Value;

fn lines(stdout: &str) -> Vec<Value> {
    stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).collect()
}

fn t(v: &Value) -> f64 {
    v["t"].as_f64().expect("every line has a time")
}

/// The pod writes of pods bound to `node`, after `from`.
fn pod_writes<'a>(lines: &'a [Value], node: &'a str, from: f64) -> impl Iterator<Item = &'a Value> + 'a {
    lines
        .iter()
        .filter(move |v| v["object"]["kind"] == "Pod" && v["object"]["spec"]["nodeName"] == node && t(v) >= from)
}

fn ready(v: &Value) -> Option<bool> {
    let conditions = v["object"]["status"]["conditions"].as_array()?;
    conditions.iter().find(|c| c["type"] == "Ready").map(|c| c["status"] == "True")
}

/// (name, containerID, restartCount, started) of each container status.
fn containers(v: &Value) -> Vec<(String, String, i64, bool)> {
    let statuses = v["object"]["status"]["containerStatuses"].as_array().cloned().unwrap_or_default();
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    statuses
        .iter()
        .map(|c| (s(&c["name"]), s(&c["containerID"]), c["restartCount"].as_i64().unwrap_or(-1), c["started"] == true))
        .collect()
}

/// 1.34: the new readiness worker seeds Failure at its first probe, a
/// random part of its 5 s period after the new kubelet's first sync, and
/// the probe's success follows: Ready False then True, once, within the
/// period (plus the watch and sync latencies). The container is the same
/// throughout. From 1.35 no status write says Ready False.
#[test]
fn a_restarted_kubelet_resets_readiness_in_1_34_only() {
    for version in ["1.34", "1.35", "1.36", "1.37"] {
        for seed in ["1", "2", "3"] {
            let args = ["run", "models/scenarios/kubelet-restart.yaml", "--kubernetes", version, "--seed", seed];
            let run = podsim(args.into_iter().chain(["-o", "jsonl"]));
            assert_eq!(run.code, Some(0), "{run:?}");
            let lines = lines(&run.stdout);
            let before: Vec<_> = pod_writes(&lines, "node-1", 0.0).filter(|v| t(v) < 60.0).collect();
            let last = before.last().expect("the pod on node-1 was written");
            let after: Vec<&Value> = pod_writes(&lines, "node-1", 60.0).collect();
            let flips: Vec<(f64, bool)> = after.iter().filter_map(|v| ready(v).map(|r| (t(v), r))).collect();
            match version {
                "1.34" => {
                    assert_eq!(flips.len(), 2, "{version} seed {seed}: {flips:?}");
                    let ((down, false), (up, true)) = (flips[0], flips[1]) else {
                        panic!("{version} seed {seed}: {flips:?}")
                    };
                    assert!((60.0..65.5).contains(&down) && up - down < 0.5, "{version} seed {seed}: {flips:?}");
                }
                _ => assert!(flips.iter().all(|&(_, r)| r), "{version} seed {seed}: {flips:?}"),
            }
            for v in &after {
                let (was, now) = (containers(last), containers(v));
                let ids = |c: &[(String, String, i64, bool)]| c.iter().map(|c| (c.1.clone(), c.2)).collect::<Vec<_>>();
                assert_eq!(ids(&now), ids(&was), "{version} seed {seed}: the container runs on");
            }
        }
    }
}

/// A startup probe: 1.34's new worker starts it again, so `started` is
/// false until it succeeds (its first run, a random part of its 10 s period
/// after the restart); from 1.35 `started` is kept from the old status.
#[test]
fn a_restarted_kubelet_keeps_started_from_1_35() {
    let dir = TempDir::new("kubelet-restart-startup");
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: slow}\nspec:\n  containers:\n  - name: app\n    image: nginx:1.27\n    startupProbe:\n      httpGet: {path: /, port: 80}\n      periodSeconds: 10\n";
    dir.write("pod.yaml", pod);
    let scenario = "manifests: [pod.yaml]\nuntil: 75s\nactions:\n- {at: 50s, restartKubelet: node/node-1}\n";
    let path = dir.write("s.yaml", scenario);
    for version in ["1.34", "1.37"] {
        let run = podsim(["run", &path, "--kubernetes", version, "-o", "jsonl"]);
        assert_eq!(run.code, Some(0), "{run:?}");
        let lines = lines(&run.stdout);
        let node = "node-1";
        let started: Vec<(f64, bool)> =
            pod_writes(&lines, node, 50.0).map(|v| (t(v), containers(v).first().is_some_and(|c| c.3))).collect();
        match version {
            "1.34" => {
                let stopped = started.iter().position(|s| !s.1).expect("started false again");
                assert!((50.0..60.5).contains(&started[stopped].0), "{started:?}");
                assert!(started[stopped..].iter().any(|s| s.1), "started again: {started:?}");
            }
            _ => assert!(started.iter().all(|s| s.1), "{started:?}"),
        }
    }
}

/// A kubelet restart on a node that is down does nothing: no process runs
/// there to restart, and the node lifecycle controller still finds the
/// node silent.
#[test]
fn a_kubelet_restart_on_a_down_node_does_nothing() {
    let args = ["run", "models/scenarios/node-down.yaml", "--until", "130s", "--restart-kubelet", "node/node-2@70s"];
    let run = podsim(args.into_iter().chain(["-o", "jsonl"]));
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("systemctl restart kubelet: the node is down, nothing runs there"), "{run:?}");
    let lines = lines(&run.stdout);
    let unknown = lines
        .iter()
        .any(|v| v["object"]["kind"] == "Node" && v["object"]["status"]["conditions"][0]["status"] == "Unknown");
    assert!(unknown, "node-2 is still marked Unknown");
}
