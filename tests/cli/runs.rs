//! Successful `podsim run` invocations: output formats, determinism, warnings.

use std::ffi::OsStr;
use std::fs;
use std::path::Path;

use crate::{Run, TempDir, assert_no_panic, assert_problem, line_of, pod_with, podsim};

const PROBE_ACTIONS: &str = "models/scenarios/probe-actions.yaml";

fn assert_ok(run: &Run) {
    assert_no_panic(run);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(!run.stderr.lines().any(|l| l.starts_with("error")), "no errors on a good run: {run:?}");
}

#[test]
fn probe_actions_prints_a_table() {
    let run = podsim(["run", PROBE_ACTIONS]);
    assert_ok(&run);
    let header = run.stdout.lines().next().unwrap_or_default();
    assert!(header.trim_start().starts_with("TIME"), "table header: {header:?}");
    for column in ["OBJECT", "CHANGE", "WHY"] {
        assert!(header.contains(column), "column {column} in {header:?}");
    }
    assert!(run.stdout.lines().count() > 10, "{run:?}");
    assert!(run.stdout.contains("pod/worker"), "{run:?}");
}

#[test]
fn probe_actions_as_json_lines() {
    let run = podsim(["run", PROBE_ACTIONS, "-o", "jsonl"]);
    assert_ok(&run);
    let records: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("line {} is not JSON ({e}): {l}", i + 1)))
        .collect();
    assert!(records.len() > 10, "{run:?}");
    let mut previous = 0.0;
    for (i, r) in records.iter().enumerate() {
        let t = r["t"].as_f64().unwrap_or_else(|| panic!("record {} has a numeric \"t\": {r}", i + 1));
        assert!(r["type"].is_string(), "record {} has a \"type\": {r}", i + 1);
        assert!(t >= previous, "record {} goes back in time ({t} < {previous}): {r}", i + 1);
        previous = t;
    }
    let header = &records[0];
    assert_eq!(header["type"], "HEADER", "{header}");
    assert_eq!(header["t"].as_f64(), Some(0.0), "{header}");
    assert_eq!(header["run"]["schema"], "podsim/trace/v1", "{header}");
    assert_eq!(header["run"]["seed"], 1, "the scenario's seed: {header}");
    assert_eq!(header["run"]["until"].as_f64(), Some(180.0), "the scenario's until (3m): {header}");
    assert_eq!(records.iter().filter(|r| r["type"] == "HEADER").count(), 1, "one header");
}

#[test]
fn same_seed_gives_identical_json_lines() {
    let args = ["run", PROBE_ACTIONS, "-o", "jsonl", "--seed", "7"];
    let (a, b) = (podsim(args), podsim(args));
    assert_ok(&a);
    assert_ok(&b);
    assert!(!a.stdout.is_empty());
    assert!(a.stdout == b.stdout, "two runs with seed 7 differ");
    let header: serde_json::Value = serde_json::from_str(a.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(header["run"]["seed"], 7, "--seed overrides the scenario: {header}");
}

#[test]
fn every_model_scenario_runs_cleanly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/scenarios");
    let mut n = 0;
    for entry in fs::read_dir(&dir).expect("models/scenarios") {
        let path = entry.expect("dir entry").path();
        if path.extension() != Some(OsStr::new("yaml")) {
            continue;
        }
        let run = podsim([OsStr::new("run"), path.as_os_str()]);
        assert_no_panic(&run);
        assert_eq!(run.code, Some(0), "{}: {run:?}", path.display());
        assert!(!run.stderr.lines().any(|l| l.starts_with("error")), "{}: {run:?}", path.display());
        n += 1;
    }
    assert!(n > 0, "no scenarios found in {}", dir.display());
}

#[test]
fn probe_on_an_undeclared_named_port_warns() {
    let dir = TempDir::new("warn-port");
    let text = pod_with(
        "    ports:\n    - containerPort: 8080\n      name: http\n    readinessProbe: {httpGet: {path: /, port: metrics}}\n",
    );
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file, "--until", "30s"]);
    assert_ok(&run);
    assert!(run.stdout.lines().next().unwrap_or_default().trim_start().starts_with("TIME"), "{run:?}");
    assert_problem(&run, "warning", &file, line_of(&text, "readinessProbe:"), "spec.containers[0].readinessProbe: ");
    assert!(run.stderr.contains(r#"port name "metrics" is not declared in spec.containers[0].ports"#), "{run:?}");
}

#[test]
fn probe_on_an_undeclared_named_port_warns_block_style() {
    let dir = TempDir::new("warn-port-block");
    let text = pod_with("    readinessProbe:\n      httpGet:\n        path: /\n        port: metrics\n");
    let file = dir.write("pod.yaml", &text);
    let run = podsim(["run", "-f", &file, "--until", "30s"]);
    assert_ok(&run);
    assert_problem(&run, "warning", &file, line_of(&text, "readinessProbe:"), "spec.containers[0].readinessProbe: ");
}

/// `--only`: the table's rows about the objects named — a whole kind, a
/// name, or a name prefix — and a warning for a pattern no row matches.
#[test]
fn only_keeps_the_rows_about_the_objects_named() {
    let scenario = "models/scenarios/c28-service.yaml";
    let run = podsim(["run", scenario, "--only", "node,endpointslice"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let objects: Vec<&str> = run.stdout.lines().skip(1).map(|l| l.split_whitespace().nth(1).unwrap()).collect();
    assert!(objects.iter().all(|o| o.starts_with("node/") || o.starts_with("endpointslice/")), "{objects:?}");
    assert!(objects.iter().any(|o| o.starts_with("node/")) && objects.iter().any(|o| o.starts_with("endpointslice/")));
    let pods = podsim(["run", scenario, "--only", "pod/c28-*", "--only", "pod/nope"]);
    let objects: Vec<&str> = pods.stdout.lines().skip(1).map(|l| l.split_whitespace().nth(1).unwrap()).collect();
    assert!(!objects.is_empty() && objects.iter().all(|o| o.starts_with("pod/c28-")), "{objects:?}");
    assert!(pods.stderr.contains("warning: --only pod/nope: no row of the run is about such an object"), "{pods:?}");
}

/// 1,000 requests a second through a rolling update: the client's rows are
/// the changes (no endpoint, the first 200, the new pod, the old pod's RST
/// and reset while the new one answers, its IP gone), each with the counts
/// since the last row, not a row per request; every request is counted once.
#[test]
fn requests_are_aggregated_per_client_and_outcome() {
    let fast = "service/c28-probe:http/identity@10s,rate=1000/s,from=node/kind-worker,name=fast";
    let run = podsim(["run", "models/scenarios/c28-rollout.yaml", "--types", "request", "--traffic", fast]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let rows: Vec<&str> = run.stdout.lines().filter(|l| l.contains("client/fast")).collect();
    assert!(rows.len() <= 12, "a row per change, not per request: {} rows\n{}", rows.len(), rows.join("\n"));
    assert!(rows[0].contains("GET /identity #1 → connection refused"), "{}", rows[0]);
    assert!(rows[1].contains("→ 200") && rows[1].contains("since the last row: #1–#"), "{}", rows[1]);
    let last = rows.last().expect("a closing row");
    assert!(last.contains("the client's requests since its last row"), "{last}");
    // The closing row ends at the client's last answered request, as the trace has it.
    let jsonl = podsim(["run", "models/scenarios/c28-rollout.yaml", "-o", "jsonl", "--traffic", fast]);
    let answered = (jsonl.stdout.lines())
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "REQUEST" && v["client"] == "fast")
        .filter_map(|v| v["n"].as_u64())
        .max()
        .expect("requests in the trace");
    assert!(answered > 70_000, "1000/s for 80 s: {answered}");
    assert!(last.contains(&format!("–#{answered}: ")), "{last}");
    // Only client rows with --types request.
    assert!(run.stdout.lines().skip(1).all(|l| l.contains(" client/")), "{run:?}");
}

#[test]
fn types_keep_the_rows_of_the_layers_named_and_jsonl_has_the_kubectl_rows() {
    let run = podsim(["run", "models/scenarios/c28-bad-rollout.yaml", "--types", "kubectl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let rows: Vec<&str> = run.stdout.lines().skip(1).collect();
    assert!(rows.iter().all(|l| l.contains("kubectl")), "{rows:?}");
    let pods = rows.iter().filter(|l| l.contains(" pod/") && l.contains("kubectl get pods")).count();
    let workloads = rows.iter().filter(|l| l.contains("kubectl get deploy") || l.contains("kubectl get rs")).count();
    assert!(pods > 0 && workloads > 0, "{rows:?}");
    let bad = podsim(["run", "models/scenarios/c28-bad-rollout.yaml", "--types", "pods"]);
    assert_eq!(bad.code, Some(2), "{bad:?}");
    assert!(bad.stderr.contains("unknown row type \"pods\" (the types: pod, probe, process"), "{bad:?}");
    // The same kubectl rows, as KUBECTL_GET records of the JSON Lines trace.
    let jsonl = podsim(["run", "models/scenarios/c28-bad-rollout.yaml", "-o", "jsonl"]);
    let records: Vec<serde_json::Value> = (jsonl.stdout.lines())
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "KUBECTL_GET")
        .collect();
    assert_eq!(records.len(), pods + workloads, "one record per kubectl row of the table");
    let first = &records[0];
    assert_eq!(first["object"], "pod/c28-probe-5cb8c6cb66-sq5zk");
    assert_eq!(first["namespace"], "c28");
    assert_eq!(first["change"], "kubectl Pending (READY 0/1, RESTARTS 0)");
    assert_eq!(first["why"], "kubectl get pods");
}
