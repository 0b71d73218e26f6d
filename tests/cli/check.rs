//! `podsim check`: verdicts, exit codes, JSON output and envelopes.

use crate::{TempDir, podsim};

#[test]
fn check_a_recording_that_holds_exits_0() {
    let run = podsim([
        "check",
        "tests/traces/001-crashloop-exit1-restartalways-snapshots/pod-t1-restart2.yaml",
        "tests/traces/001-crashloop-exit1-restartalways-snapshots/pod-t2-restart3.yaml",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("holds     restart-gap-backoff"), "{run:?}");
    assert!(run.stdout.contains("holds     crashloop-message-delay"), "{run:?}");
}

#[test]
fn check_a_broken_invariant_exits_1_and_names_the_record() {
    let dir = TempDir::new("check-broken");
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: bad, uid: u1}\nspec:\n  containers: [{name: app, image: nginx}]\nstatus:\n  phase: Running\n  conditions:\n  - {type: Ready, status: \"True\"}\n  - {type: ContainersReady, status: \"False\"}\n  containerStatuses:\n  - {name: app, image: nginx, imageID: x, ready: false, restartCount: 0, state: {running: {startedAt: \"2026-01-01T00:00:00Z\"}}}\n";
    let file = dir.write("pod.yaml", pod);
    let run = podsim(["check", &file]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains("VIOLATED  ready-implies-containers-ready"), "{run:?}");
    assert!(run.stdout.contains(&format!("at {file}:1")), "{run:?}");
    assert!(run.stdout.contains("expected ContainersReady=True"), "{run:?}");
}

#[test]
fn check_json_output_is_machine_readable() {
    let run = podsim([
        "check",
        "-o",
        "json",
        "tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/05a-crashloop-watch.txt",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let pod = &v["pods"][0];
    assert_eq!(pod["pod"], "lifecycle-crashloop");
    assert_eq!(pod["verdicts"]["restart-count-steps"]["verdict"], "holds");
    assert_eq!(pod["verdicts"]["phase-consistent"]["verdict"], "not-applicable");
}

#[test]
fn check_unreadable_input_exits_2() {
    let run = podsim(["check", "no-such-recording.json"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let dir = TempDir::new("check-nothing");
    let file = dir.write("notes.txt", "just some notes\nnothing kubectl printed\n");
    let run = podsim(["check", &file]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("no kubectl table or describe output found"), "{run:?}");
}

#[test]
fn check_against_a_scenario_reports_the_envelope() {
    let run = podsim([
        "check",
        "tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/05a-crashloop-watch.txt",
        "--against",
        "models/scenarios/recorded/023-crashloop.yaml",
        "--runs",
        "40",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("envelope of pod lifecycle-crashloop"), "{run:?}");
    let timings: Vec<&str> = run.stdout.lines().filter(|l| l.contains(" recorded ")).collect();
    assert!(timings.len() >= 6 && timings.iter().all(|l| l.ends_with("inside")), "{run:?}");
}

/// Every scenario of `models/scenarios/`, run with its own seed, read back
/// the ways a user records a cluster, and checked `--against` the same
/// scenario: the trace itself (`-o jsonl`), `kubectl get pods -w` text
/// printed from it, and two `kubectl get pod -o json` snapshots of its
/// first pod. The scenario's seed is one of the envelope's runs, so every
/// timing read from the recording must fall inside: a miss is a comparison
/// that reads the recording unlike the runs (a `lastState` taken for the
/// wrong instance, a listing row read as a change), not chance. (A fresh
/// seed would fall outside the min–max of N runs with probability 2/(N+1)
/// per timing.)
#[test]
fn every_scenario_trace_falls_inside_its_own_envelope() {
    let dir = TempDir::new("check-self");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/scenarios");
    let mut scenarios: Vec<std::path::PathBuf> = ["", "recorded"]
        .iter()
        .flat_map(|sub| std::fs::read_dir(root.join(sub)).expect("models/scenarios").flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    scenarios.sort();
    assert!(scenarios.len() >= 40, "{} scenarios", scenarios.len());
    let (mut checked, mut misses) = (0, Vec::new());
    for scenario in &scenarios {
        let name = scenario.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        let scenario = scenario.to_str().expect("UTF-8 path");
        let run = podsim(["run", scenario, "-o", "jsonl"]);
        assert_eq!(run.code, Some(0), "{name}: {run:?}");
        let recording = recordings(&run.stdout);
        let trace = dir.write(&format!("{name}/trace.jsonl"), &run.stdout);
        let watch = dir.write(&format!("{name}/watch.txt"), &recording.watch);
        let snaps: Vec<String> = recording
            .snapshots
            .iter()
            .enumerate()
            .map(|(i, s)| dir.write(&format!("{name}/pod-{i}.json"), s))
            .collect();
        let runs = recording.seed.max(1).to_string();
        for files in [vec![trace], vec![watch], snaps] {
            let mut args = vec!["check".to_string()];
            args.extend(files.iter().cloned());
            args.extend(["--against", scenario, "--runs", &runs, "-o", "json"].map(String::from));
            let check = podsim(&args);
            let what = format!(
                "{name} ({})",
                files.iter().map(|f| f.rsplit('/').next().unwrap_or("")).collect::<Vec<_>>().join(" ")
            );
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&check.stdout) else {
                misses.push(format!("{what}: {check:?}"));
                continue;
            };
            let envelopes = v["envelopes"].as_array().into_iter().flatten();
            let before = checked;
            for e in envelopes {
                for l in e["lines"].as_array().into_iter().flatten() {
                    let (lo, hi) = (l["recorded"][0].as_i64().unwrap_or(-1), l["recorded"][1].as_i64().unwrap_or(-1));
                    // Inside, and never a negative or empty interval.
                    if l["fit"] != "inside" || lo < 0 || lo >= hi {
                        misses.push(format!("{what} pod {}: {l}", e["pod"]));
                    }
                    checked += 1;
                }
            }
            // The trace and the watch always show some timing.
            if checked == before && files.len() == 1 {
                misses.push(format!("{what}: no timing compared"));
            }
            if check.code != Some(0) {
                misses.push(format!("{what}: exit code {:?}: {}", check.code, check.stderr));
            }
        }
    }
    assert!(misses.is_empty(), "{} misses:\n{}", misses.len(), misses.join("\n"));
}

/// What a user would have recorded of a run: `kubectl get pods -w` and two
/// `kubectl get pod NAME -o json` snapshots of the first pod (at a third and
/// two thirds of its versions).
struct Recording {
    /// The run's seed: the envelope's runs must include it.
    seed: u64,
    watch: String,
    snapshots: Vec<String>,
}

fn recordings(jsonl: &str) -> Recording {
    let (mut epoch, mut seed) = (None, 0);
    let mut versions: Vec<(f64, serde_json::Value)> = Vec::new();
    for line in jsonl.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        if v["type"] == "HEADER" {
            epoch = v["run"]["epoch"].as_str().and_then(|e| e.parse::<k8s_openapi::jiff::Timestamp>().ok());
            seed = v["run"]["seed"].as_u64().unwrap_or(0);
        }
        if matches!(v["type"].as_str(), Some("ADDED" | "MODIFIED")) && v["object"]["kind"] == "Pod" {
            versions.push((v["t"].as_f64().unwrap_or(0.0), v["object"].clone()));
        }
    }
    let epoch = epoch.expect("the HEADER's epoch");
    let mut watch = String::from("$ kubectl get pods -w\nNAME   READY   STATUS   RESTARTS   AGE\n");
    for (t, object) in &versions {
        let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(object.clone()).expect("a Pod");
        let now = epoch + k8s_openapi::jiff::SignedDuration::from_millis((t * 1000.0).round() as i64);
        let line = podsim::kubectl::print_pod(&pod);
        let ready = format!("{}/{}", line.ready.0, line.ready.1);
        let (restarts, age) = (line.restarts_cell(now), line.age_cell(now));
        watch += &format!("{}   {ready}   {}   {restarts}   {age}\n", line.name, line.status);
    }
    let first = versions.first().map(|(_, o)| o["metadata"]["name"].clone());
    let own: Vec<&serde_json::Value> =
        versions.iter().filter(|(_, o)| Some(&o["metadata"]["name"]) == first.as_ref()).map(|(_, o)| o).collect();
    let snapshots = [own.len() / 3, own.len() * 2 / 3]
        .iter()
        .filter_map(|&i| own.get(i))
        .map(|o| serde_json::to_string_pretty(o).unwrap_or_default())
        .collect();
    Recording { seed, watch, snapshots }
}
