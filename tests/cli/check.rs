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
    // Four Running rows, two CrashLoopBackOff rows, four rows where READY
    // becomes 1/1 (at RESTARTS 0–3), three exits read from `RESTARTS 1 (1s
    // ago)`, `1 (12s ago)` and `2 (29s ago)` (row 12's `3 (33s ago)` gives
    // exit #2 again), and the first row's listing.
    let timings: Vec<&str> = run.stdout.lines().filter(|l| l.contains(" recorded ")).collect();
    assert_eq!(timings.len(), 14, "{run:?}");
    assert!(timings.iter().all(|l| l.ends_with("inside")), "{run:?}");
}

/// Every scenario of `models/scenarios/`, run with its own seed, read back
/// the ways a user records a cluster, and checked `--against` the same
/// scenario: the trace itself (`-o jsonl`); `kubectl get pods -w` text
/// printed from it, started before the first pod (every write) and started
/// mid-life (a listing at the middle write, then every later write); a
/// series of one-shot `kubectl get pods` listings; and two `kubectl get pod
/// -o json` snapshots of its first pod. The scenario's seed is one of the
/// envelope's runs, so every timing read from the recording must fall
/// inside, and no invariant may be violated: a miss is a comparison that
/// reads the recording unlike the runs (a `lastState` taken for the wrong
/// instance, a listing row read as a change, a readiness flip after a
/// listing read as the first start), not chance. (A fresh seed would fall
/// outside the min–max of N runs with probability 2/(N+1) per timing.)
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
        let late = dir.write(&format!("{name}/late-watch.txt"), &recording.late_watch);
        let listings = dir.write(&format!("{name}/listings.txt"), &recording.listings);
        let snaps: Vec<String> = recording
            .snapshots
            .iter()
            .enumerate()
            .map(|(i, s)| dir.write(&format!("{name}/pod-{i}.json"), s))
            .collect();
        let runs = recording.seed.max(1).to_string();
        // (Every listing may come after the last pod was deleted: no listing then.)
        let listings = if recording.listings.is_empty() { Vec::new() } else { vec![listings] };
        for files in [vec![trace], vec![watch], vec![late], listings, snaps] {
            if files.is_empty() {
                continue;
            }
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
            let invariants = &v["invariants"];
            let entries = ["pods", "controllers"].map(|k| invariants[k].as_array().into_iter().flatten());
            for e in entries.into_iter().flatten() {
                let verdicts = e["verdicts"].as_object().into_iter().flatten();
                for (rule, verdict) in verdicts.filter(|(_, v)| v["verdict"] == "violated") {
                    misses.push(format!("{what} {}: VIOLATED {rule}: {verdict}", e["pod"]));
                }
            }
            let envelopes = v["envelopes"].as_array().into_iter().flatten();
            let before = checked;
            for e in envelopes {
                for l in e["lines"].as_array().into_iter().flatten() {
                    let (lo, hi) = (l["recorded"][0].as_i64().unwrap_or(-1), l["recorded"][1].as_i64().unwrap_or(-1));
                    // Inside, and never a negative or empty interval (a count is one number).
                    let empty = if l["unit"] == "events" { lo != hi } else { lo >= hi };
                    if l["fit"] != "inside" || lo < 0 || empty {
                        misses.push(format!("{what} pod {}: {l}", e["pod"]));
                    }
                    checked += 1;
                }
            }
            // The trace and the watch always show some timing; snapshots taken
            // before the pod started show none, which exits 2 and says why.
            let nothing = checked == before;
            let said = check.stderr.contains("nothing to compare: its objects show no container start or exit");
            if nothing && files.len() == 1 {
                misses.push(format!("{what}: no timing compared"));
            } else if check.code != Some(if nothing { 2 } else { 0 }) || (nothing && !said) {
                misses.push(format!("{what}: exit code {:?}: {}", check.code, check.stderr));
            }
        }
    }
    assert!(misses.is_empty(), "{} misses:\n{}", misses.len(), misses.join("\n"));
}

/// What a user would have recorded of a run: `kubectl get pods -w` from
/// before the first pod and from mid-life, one-shot `kubectl get pods` at
/// four times, and two `kubectl get pod NAME -o json` snapshots of the first
/// pod (at a third and two thirds of its versions). Rows are printed as
/// kubectl prints them (`printPod`, `HumanDuration`) at the time of each
/// write (a watch's changes) or listing.
struct Recording {
    /// The run's seed: the envelope's runs must include it.
    seed: u64,
    watch: String,
    late_watch: String,
    listings: String,
    snapshots: Vec<String>,
}

const TABLE_HEADER: &str = "NAME   READY   STATUS   RESTARTS   AGE\n";

/// The `kubectl get pods` row of a Pod object printed at `now`.
fn pod_row(object: &serde_json::Value, now: k8s_openapi::jiff::Timestamp) -> String {
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(object.clone()).expect("a Pod");
    let line = podsim::kubectl::print_pod(&pod);
    let ready = format!("{}/{}", line.ready.0, line.ready.1);
    let (restarts, age) = (line.restarts_cell(now), line.age_cell(now));
    format!("{}   {ready}   {}   {restarts}   {age}\n", line.name, line.status)
}

/// The pods that exist after the writes up to time `t` (s), in order of creation.
fn existing(writes: &[(f64, bool, serde_json::Value)], t: f64) -> Vec<&serde_json::Value> {
    let mut pods: Vec<&serde_json::Value> = Vec::new();
    for (_, deleted, object) in writes.iter().take_while(|(at, ..)| *at <= t) {
        let name = &object["metadata"]["name"];
        let at = pods.iter().position(|p| &p["metadata"]["name"] == name);
        match (at, deleted) {
            (Some(i), true) => drop(pods.remove(i)),
            (Some(i), false) => pods[i] = object,
            (None, false) => pods.push(object),
            (None, true) => {}
        }
    }
    pods
}

fn recordings(jsonl: &str) -> Recording {
    let (mut epoch, mut seed) = (None, 0);
    // Every write of a Pod: its time, whether it deleted the pod, the object.
    let mut writes: Vec<(f64, bool, serde_json::Value)> = Vec::new();
    for line in jsonl.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        if v["type"] == "HEADER" {
            epoch = v["run"]["epoch"].as_str().and_then(|e| e.parse::<k8s_openapi::jiff::Timestamp>().ok());
            seed = v["run"]["seed"].as_u64().unwrap_or(0);
        }
        if matches!(v["type"].as_str(), Some("ADDED" | "MODIFIED" | "DELETED")) && v["object"]["kind"] == "Pod" {
            writes.push((v["t"].as_f64().unwrap_or(0.0), v["type"] == "DELETED", v["object"].clone()));
        }
    }
    let epoch = epoch.expect("the HEADER's epoch");
    let at = |t: f64| epoch + k8s_openapi::jiff::SignedDuration::from_millis((t * 1000.0).round() as i64);
    let versions: Vec<&(f64, bool, serde_json::Value)> = writes.iter().filter(|(_, deleted, _)| !deleted).collect();
    let mut watch = format!("$ kubectl get pods -w\n{TABLE_HEADER}");
    for (t, _, object) in &versions {
        watch += &pod_row(object, at(*t));
    }
    // Started at the middle write: the pods as they are then, then each later write.
    let middle = versions.get(versions.len() / 2).map_or(0.0, |(t, ..)| *t);
    let mut late_watch = format!("$ kubectl get pods -w\n{TABLE_HEADER}");
    for object in existing(&writes, middle) {
        late_watch += &pod_row(object, at(middle));
    }
    for (t, _, object) in versions.iter().filter(|(t, ..)| *t > middle) {
        late_watch += &pod_row(object, at(*t));
    }
    // One-shot listings at a quarter, half, three quarters and the end of the writes.
    let (first, last) = (writes.first().map_or(0.0, |w| w.0), writes.last().map_or(0.0, |w| w.0));
    let mut listings = String::new();
    for k in 1..=4 {
        let t = first + (last - first) * f64::from(k) / 4.0;
        let pods = existing(&writes, t);
        if !pods.is_empty() {
            listings += &format!("$ kubectl get pods\n{TABLE_HEADER}");
            pods.iter().for_each(|object| listings += &pod_row(object, at(t)));
        }
    }
    let first = versions.first().map(|(_, _, o)| o["metadata"]["name"].clone());
    let own: Vec<&serde_json::Value> =
        versions.iter().filter(|(_, _, o)| Some(&o["metadata"]["name"]) == first.as_ref()).map(|(_, _, o)| o).collect();
    let snapshots = [own.len() / 3, own.len() * 2 / 3]
        .iter()
        .filter_map(|&i| own.get(i))
        .map(|o| serde_json::to_string_pretty(o).unwrap_or_default())
        .collect();
    Recording { seed, watch, late_watch, listings, snapshots }
}

/// The lines of one `--against` envelope as (timing, recorded interval, fit).
fn envelope_lines(run: &crate::Run) -> Vec<(String, (i64, i64), String)> {
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let lines = v["envelopes"].as_array().into_iter().flatten().flat_map(|e| e["lines"].as_array()).flatten();
    lines
        .map(|l| {
            let at = (l["recorded"][0].as_i64().unwrap_or(-1), l["recorded"][1].as_i64().unwrap_or(-1));
            (l["timing"].as_str().unwrap_or("").to_string(), at, l["fit"].as_str().unwrap_or("").to_string())
        })
        .collect()
}

/// Trace 023's `kubectl get pod -w`: the first row lists the pod (a state
/// at an age), the RESTARTS annotation `1 (12s ago)` at AGE 19s under
/// CrashLoopBackOff names instance 1's exit (the waiting container's
/// lastState is its newest instance), and every interval is at least 0.
#[test]
fn check_against_reads_listings_and_restarts_annotations() {
    let run = podsim([
        "check",
        "tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/05a-crashloop-watch.txt",
        "--against",
        "models/scenarios/recorded/023-crashloop.yaml",
        "--runs",
        "20",
        "-o",
        "json",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines = envelope_lines(&run);
    let get = |name: &str| lines.iter().find(|l| l.0 == name).unwrap_or_else(|| panic!("{name}: {lines:?}"));
    // Row 3 `0/1 ContainerCreating 0 0s`: the listing's state at AGE [0 s, 1 s).
    assert_eq!(get("shows `0/1 ContainerCreating 0`").1, (0, 1000));
    // `1 (12s ago)` at `19s`: the exit at AGE − ago ∈ (19 − 13, 20 − 12) s since creation;
    // minus the first start (the `Running` row at AGE [0, 1) s): (6 − 1, 8 − 0) s.
    assert_eq!(get("exited #1 (after the first start)").1, (5_000, 8_000));
    // `Running 1 (1s ago)` at `4s`: the running container's lastState is instance 0, its exit
    // in (4 − 2, 5 − 1) s, minus the first start.
    assert_eq!(get("exited #0 (after the first start)").1, (1_000, 4_000));
    assert!(lines.iter().all(|l| l.2 == "inside" && 0 <= l.1.0 && l.1.0 < l.1.1), "{lines:?}");
}

/// Text output explains each interval on the line below it.
#[test]
fn check_against_explains_each_interval() {
    let run = podsim([
        "check",
        "tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/05a-crashloop-watch.txt",
        "--against",
        "models/scenarios/recorded/023-crashloop.yaml",
        "--runs",
        "5",
    ]);
    let out: Vec<&str> = run.stdout.lines().collect();
    let i = out.iter().position(|l| l.contains("exited #1 (after the first start)")).expect("the line");
    assert_eq!(
        out[i + 1].trim(),
        "AGE [19s, 20s) − RESTARTS' `ago` [12s, 13s) − the first start (Running #0: a watch row's AGE [0s, 1s), after `0/1 ContainerCreating 0`) \
         (tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/05a-crashloop-watch.txt:8)"
    );
}

/// A `kubectl get pods` listing (no watch) shows states at their ages, not
/// changes: nothing is taken as the moment the pod became Running.
#[test]
fn a_one_shot_listing_is_a_state_at_an_age() {
    let dir = TempDir::new("check-listing");
    let file = dir.write(
        "get.txt",
        "$ kubectl get pods\nNAME        READY   STATUS             RESTARTS      AGE\ncrashloop   0/1     CrashLoopBackOff   3 (45s ago)   95s\n",
    );
    let run = podsim(["check", &file, "--against", "models/scenarios/crashloop.yaml", "--runs", "20", "-o", "json"]);
    assert!(matches!(run.code, Some(0 | 1)), "{run:?}");
    let lines = envelope_lines(&run);
    let names: Vec<&str> = lines.iter().map(|l| l.0.as_str()).collect();
    // No `CrashLoopBackOff after #3`: the row is not the moment it began.
    assert_eq!(names, ["exited #3", "shows `0/1 CrashLoopBackOff 3`"], "{lines:?}");
    // AGE `95s` is [95 s, 96 s), `(45s ago)` [45 s, 46 s): the waiting container's
    // lastState is instance 3, its exit in (95 − 46, 96 − 45) s since creation.
    assert_eq!(lines[0].1, (49_000, 51_000));
    assert_eq!(lines[1].1, (95_000, 96_000));
}

/// Two `kubectl get pod -o json` dumps: the first waits in CrashLoopBackOff
/// after instance 3 exited at 00:01:00, the second runs instance 4 from
/// 00:01:30. Restart 4 waits 10 s · 2^(4−2) = 40 s (doBackOff): broken,
/// with both dumps named.
#[test]
fn the_restart_gap_is_judged_across_two_dumps() {
    let dir = TempDir::new("check-two-dumps");
    let pod = |restarts: u32, state: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"loop","uid":"u1","creationTimestamp":"2026-01-01T00:00:00Z"}},"spec":{{"containers":[{{"name":"app","image":"busybox"}}]}},"status":{{"phase":"Running","containerStatuses":[{{"name":"app","image":"busybox","imageID":"","ready":false,"restartCount":{restarts},"state":{state},"lastState":{{"terminated":{{"exitCode":1,"reason":"Error","containerID":"c://3","startedAt":"2026-01-01T00:00:59Z","finishedAt":"2026-01-01T00:01:00Z"}}}}}}]}}}}"#
        )
    };
    let first = dir.write("pod-1.json", &pod(3, r#"{"waiting":{"reason":"CrashLoopBackOff"}}"#));
    let second = dir.write("pod-2.json", &pod(4, r#"{"running":{"startedAt":"2026-01-01T00:01:30Z"}}"#));
    let run = podsim(["check", &first, &second]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains("VIOLATED  restart-gap-backoff"), "{run:?}");
    assert!(run.stdout.contains(&format!("at {first}:1, {second}:1")), "{run:?}");
    assert!(run.stdout.contains("expected app: at least 40 s before restart 4"), "{run:?}");
    assert!(run.stdout.contains("observed app: restart 4 came 30 s after the previous exit"), "{run:?}");
}

/// `--list` prints every invariant with its kind, what it is judged on, its
/// Kubernetes source and what it checks.
#[test]
fn check_list_prints_the_catalogue() {
    let run = podsim(["check", "--list"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let heads: Vec<&str> = run.stdout.lines().filter(|l| !l.starts_with(' ')).collect();
    for (name, head) in [
        ("restart-gap-backoff", "restart-gap-backoff  (snapshot; recordings and podsim runs)"),
        (
            "transition-time-moves-with-status",
            "transition-time-moves-with-status  (sequence; recordings and podsim runs)",
        ),
        ("crash-loop-backoff", "crash-loop-backoff  (sequence; podsim runs only)"),
        ("controller-counts", "controller-counts  (snapshot; controllers' kubectl get rows)"),
    ] {
        assert_eq!(heads.iter().filter(|h| h.split_whitespace().next() == Some(name)).count(), 1, "{name}");
        assert!(heads.contains(&head), "{head}: {run:?}");
    }
    assert!(run.stdout.contains("  source  pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff"), "{run:?}");
    let json = podsim(["check", "--list", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let all = v.as_array().expect("an array");
    assert_eq!(all.len(), heads.len());
    assert!(all.iter().all(|i| matches!(i["kind"].as_str(), Some("snapshot" | "sequence"))
        && i["source"].as_str().is_some_and(|s| !s.is_empty())
        && i["checks"].as_str().is_some_and(|s| !s.is_empty())));
    // Recordings are still required without --list, and --list takes none.
    assert_eq!(podsim(["check"]).code, Some(2));
    let run =
        podsim(["check", "--list", "tests/traces/001-crashloop-exit1-restartalways-snapshots/pod-t1-restart2.yaml"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    assert!(run.stderr.contains("error: the argument '--list' cannot be used with '[TRACE]...'"), "{run:?}");
}

/// The formats users paste, each read as such.
mod formats {
    use crate::{TempDir, podsim};

    const DESCRIBE: &str = include_str!("../traces/006-happy-path-nginx-containerd-describe-and-yaml/describe.txt");

    /// kubectl events (≥ 1.26) prints OBJECT as `Kind/name`.
    #[test]
    fn kubectl_events() {
        let dir = TempDir::new("fmt-events");
        let file = dir.write(
            "events.txt",
            "$ kubectl events\n\
             LAST SEEN          TYPE      REASON      OBJECT          MESSAGE\n\
             2m                 Normal    Scheduled   Pod/web         Successfully assigned default/web to node-1\n\
             5s (x10 over 2m)   Warning   BackOff     Pod/web         Back-off restarting failed container app in pod web_default(0b1c)\n\
             3m                 Normal    ScalingReplicaSet   Deployment/web   Scaled up replica set web-7f9 to 1\n",
        );
        let run = podsim(["check", &file]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(run.stdout.starts_with("pod web (0 object(s), 0 row(s), 2 event(s))"), "{run:?}");
    }

    /// describe's Events section pasted without its `Events:` line, or
    /// without its column names either: the pod is named by the scheduler's
    /// or the kubelet's message.
    #[test]
    fn describe_events_without_their_header() {
        let dir = TempDir::new("fmt-describe-events");
        let rows = "  Normal   Scheduled  2m                 default-scheduler  Successfully assigned default/web to node-1\n  \
                    Normal   Pulled     90s (x3 over 2m)   kubelet            Container image \"busybox\" already present on machine\n  \
                    Warning  BackOff    5s (x10 over 2m)   kubelet            Back-off restarting failed container app in pod web_default(0b1c)\n";
        let with_names = dir.write(
            "a.txt",
            &format!("  Type     Reason     Age                From               Message\n  ----     ------     ----               ----               -------\n{rows}"),
        );
        let run = podsim(["check", &with_names]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(run.stdout.starts_with("pod web (0 object(s), 0 row(s), 3 event(s))"), "{run:?}");
        assert!(run.stderr.contains("the pod is taken to be `web` from its Scheduled event"), "{run:?}");
        let backoff_only = dir.write("b.txt", rows.lines().nth(2).unwrap_or_default());
        let run = podsim(["check", &backoff_only]);
        assert!(run.stdout.starts_with("pod web (0 object(s), 0 row(s), 1 event(s))"), "{run:?}");
        assert!(run.stderr.contains("from a kubelet event's `in pod NAME_NAMESPACE`"), "{run:?}");
    }

    /// A describe pasted after a shell prompt of any style: the pod's name
    /// is its `Name:` field, whatever the command line says.
    #[test]
    fn describe_after_a_prompt() {
        let dir = TempDir::new("fmt-prompt");
        for (i, prompt) in [
            "controlplane:~$ kubectl describe pod web",
            "root@node01:~# kubectl describe po",
            "➜  ~ kubectl describe pod nginx",
            "PS C:\\Users\\me> kubectl describe pod nginx",
            "[root@master ~]# k describe pods",
        ]
        .iter()
        .enumerate()
        {
            let file = dir.write(&format!("d{i}.txt"), &format!("{prompt}\n{DESCRIBE}"));
            let run = podsim(["check", &file]);
            assert_eq!(run.code, Some(0), "{prompt}: {run:?}");
            assert!(
                run.stdout.starts_with("pod nginx-deployment-67d4bdd6f5-w6kd7 (1 object(s), 0 row(s), 5 event(s))"),
                "{prompt}: {run:?}"
            );
        }
    }

    /// `kubectl get rs|deploy|sts|job` rows are read: what their counts can
    /// show is judged (a ReplicaSet's READY ≤ CURRENT: calculateStatus counts
    /// ready pods among the same active pods), the rest listed.
    #[test]
    fn controllers_rows() {
        let run = podsim([
            "check",
            "tests/traces/021-deployment-rollingupdate-events-and-stuck-rollout-docs/b-stuck-rollout-get-rs.txt",
        ]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(
            run.stdout
                .contains("(ReplicaSet nginx-deployment-3066724191) (1 row(s): DESIRED 1 CURRENT 1 READY 0 at AGE 6s)"),
            "{run:?}"
        );
        assert_eq!(run.stdout.matches("holds     controller-counts").count(), 3, "{run:?}");
        let dir = TempDir::new("fmt-controllers");
        let file = dir.write(
            "watch.txt",
            "$ kubectl get rs,sts -w\nNAME         DESIRED   CURRENT   READY   AGE\nweb-5d8f7c   3         2         3       9s\n\n\
             NAME   READY   AGE\ndb     1/3     40s\n",
        );
        let run = podsim(["check", &file]);
        assert_eq!(run.code, Some(1), "{run:?}");
        assert!(run.stdout.contains("expected READY ≤ CURRENT (2)"), "{run:?}");
        assert!(run.stdout.contains("(StatefulSet db) (1 row(s): READY 1/3 at AGE 40s)"), "{run:?}");
        assert!(
            run.stdout.contains("n/a       controller-counts                    a StatefulSet row: READY is listed"),
            "{run:?}"
        );
    }

    /// Controllers' rows pasted without their header are read by their
    /// columns; a broken one is judged like one under its header (READY 3 >
    /// CURRENT 2), and a row that a StatefulSet and a Job print alike is named.
    #[test]
    fn headerless_controllers_rows() {
        // Trace 018: a `kubectl get job -w` continued without its command and header.
        let run =
            podsim(["check", "tests/traces/018-job-completions-sequential-and-cronjob-watch/watch-cronjob2-jobs.txt"]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(run.stderr.is_empty(), "{run:?}");
        assert!(
            run.stdout.contains(
                "(Job cronjob2-1578573480) (3 row(s): COMPLETIONS 0/1 at AGE 0s … COMPLETIONS 1/1 at AGE 95s)"
            ),
            "{run:?}"
        );
        let dir = TempDir::new("fmt-headerless-controllers");
        let broken = dir.write("rs.txt", "web-5d8f7c9b4   3   2   3   10s\n");
        let run = podsim(["check", &broken]);
        assert_eq!(run.code, Some(1), "{run:?}");
        assert!(run.stdout.contains("expected READY ≤ CURRENT (2)"), "{run:?}");
        let alike = dir.write("sts.txt", "db   1/3   40s\n");
        let run = podsim(["check", &alike]);
        assert_eq!(run.code, Some(2), "{run:?}");
        assert!(
            run.stderr.contains(&format!(
                "warning: {alike}:1:1: 1 row(s) without a header (line(s) 1) that a StatefulSet (NAME READY AGE) and \
                 a Job not yet started (NAME COMPLETIONS AGE, DURATION empty) print alike: skipped"
            )),
            "{run:?}"
        );
        assert!(
            run.stderr.contains(
                "podsim: nothing to check: no pod, event, EndpointSlice or controller (ReplicaSet, Deployment, \
                 StatefulSet, Job) could be read"
            ),
            "{run:?}"
        );
    }

    /// A part of an object is named for what it is and what it lacks; a
    /// Pod's status is still judged, as an unnamed pod.
    #[test]
    fn fragments_say_what_they_lack() {
        let dir = TempDir::new("fmt-fragments");
        let status = dir.write(
            "status.yaml",
            "status:\n  phase: Running\n  conditions:\n  - type: Ready\n    status: \"True\"\n  - type: ContainersReady\n    status: \"False\"\n",
        );
        let run = podsim(["check", &status]);
        assert_eq!(run.code, Some(1), "{run:?}");
        assert!(
            run.stderr.contains(&format!(
                "warning: {status}:1:1: a Pod's status without metadata (no name, uid or creationTimestamp), spec (no \
                 restartPolicy, probes or init containers): read as an unnamed Pod"
            )),
            "{run:?}"
        );
        assert!(run.stdout.contains("VIOLATED  ready-implies-containers-ready"), "{run:?}");
        // `kubectl get pod web -o jsonpath='{.status}'`.
        let jsonpath = dir.write("status.json", r#"{"phase":"Pending","qosClass":"BestEffort"}"#);
        let run = podsim(["check", &jsonpath]);
        assert!(run.stderr.contains("a Pod's `.status`, without the object around it, without metadata"), "{run:?}");
        // A YAML list of container statuses, cut out of `-o yaml`: no longer "no kubectl table".
        let statuses = dir.write(
            "statuses.yaml",
            "- name: app\n  ready: false\n  restartCount: 3\n  image: busybox\n  imageID: \"\"\n  state:\n    waiting:\n      reason: CrashLoopBackOff\n",
        );
        let run = podsim(["check", &statuses]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(
            run.stderr.contains(&format!("warning: {statuses}:1:1: a list of container statuses without metadata")),
            "{run:?}"
        );
        // `-o jsonpath='{.status.conditions}'`: one warning for the list, read as the Pod's conditions.
        let conditions = dir.write(
            "conditions.json",
            r#"[{"type":"Ready","status":"True"},{"type":"ContainersReady","status":"False"}]"#,
        );
        let run = podsim(["check", &conditions]);
        assert_eq!(run.code, Some(1), "Ready without ContainersReady: {run:?}");
        assert_eq!(run.stderr.matches("warning:").count(), 1, "{run:?}");
        assert!(run.stderr.contains("a list of Pod conditions (`.status.conditions`) without metadata"), "{run:?}");
        // `{"spec": …}`: a spec, not a Pod that lost its kind.
        let spec = dir.write("spec.json", r#"{"spec":{"containers":[{"name":"app","image":"busybox"}]}}"#);
        let run = podsim(["check", &spec]);
        assert_eq!(run.code, Some(2), "{run:?}");
        assert!(
            run.stderr.contains("a Pod's spec without kind, metadata or status: a spec, not an observation"),
            "{run:?}"
        );
        assert!(!run.stderr.contains("read as a Pod from its fields"), "{run:?}");
        // A container's `lastState:` cut out of `-o yaml`, and `-o jsonpath='{.spec.containers}'`: parts of a Pod.
        let last_state = dir.write(
            "last-state.yaml",
            "lastState:\n  terminated:\n    exitCode: 1\n    finishedAt: '2018-12-02T09:19:41Z'\n    reason: Error\n",
        );
        let containers = dir.write(
            "containers.yaml",
            "- command:\n  - sh\n  - -c\n  - exit 1\n  image: alpine:latest\n  name: main\n  resources: {}\n",
        );
        for (file, says) in [
            (
                &last_state,
                "part of a Pod: `lastState` of a container status (`status.containerStatuses[]`), without the \
                 container's `name` and the Pod around it",
            ),
            (
                &containers,
                "part of a Pod: a list of 1 container(s) of its spec (`-o jsonpath='{.spec.containers}'`), without \
                 the Pod's metadata and status",
            ),
        ] {
            let run = podsim(["check", file]);
            assert_eq!(run.code, Some(2), "{run:?}");
            assert!(run.stderr.contains(&format!("warning: {file}:1:1: {says}")), "{run:?}");
        }
        // Trace 017's Job status and trace 031's probe: named, nothing to check.
        for (file, says) in [
            (
                "tests/traces/017-job-onfailure-backofflimit2-watch/job2-status.yaml",
                "a Job's status without kind or metadata",
            ),
            (
                "tests/traces/031-statefulset-zookeeper-process-kill-and-liveness-readiness/spec-livenessProbe.yaml",
                "a container's `livenessProbe`, not a whole object",
            ),
        ] {
            let run = podsim(["check", file]);
            assert_eq!(run.code, Some(2), "{run:?}");
            assert!(run.stderr.contains(says), "{run:?}");
            assert!(!run.stderr.contains("no kubectl table or describe output found"), "{run:?}");
        }
    }

    /// A terminal paste of several commands: `-o json`, then rows, then
    /// `kubectl get all`; each output is read in its own format, and the
    /// describe-less pod's row and its object are one pod (same name).
    #[test]
    fn a_paste_of_several_commands() {
        let dir = TempDir::new("fmt-paste");
        let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","namespace":"default","uid":"u1"},"spec":{"containers":[{"name":"app","image":"nginx"}]},"status":{"phase":"Running","containerStatuses":[{"name":"app","image":"nginx","imageID":"","ready":true,"restartCount":0,"state":{"running":{}}}]}}"#;
        let file = dir.write(
            "paste.txt",
            &format!(
                "$ kubectl get pod web-0 -o json\n{pod}\n$ kubectl get pods\nNAME    READY   STATUS    RESTARTS   AGE\nweb-0   1/1     Running   0          2m\n\
                 $ kubectl get all\nNAME                  READY   AGE\nstatefulset.apps/web  1/1     5m\n"
            ),
        );
        let run = podsim(["check", &file]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(run.stderr.is_empty(), "{run:?}");
        assert!(run.stdout.starts_with("pod web-0 (1 object(s), 1 row(s), 0 event(s))"), "{run:?}");
        assert!(run.stdout.contains("(StatefulSet web) (1 row(s): READY 1/1 at AGE 5m)"), "{run:?}");
    }

    /// A script's `--- t=10s ---` markers are not YAML document separators.
    #[test]
    fn marked_snapshots_are_rows() {
        let run = podsim([
            "check",
            "tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/08-liveness.txt",
        ]);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(run.stdout.starts_with("pod lifecycle-liveness (0 object(s), 4 row(s), 5 event(s))"), "{run:?}");
    }
}

/// A `kubectl get pod -o yaml` dump always has spec.nodeName; only a pod
/// created with it (here: its last-applied configuration names the node)
/// stays bound when re-simulated, on the profile's first node when the
/// profile lacks that node, and the note says so.
#[test]
fn check_against_keeps_a_pod_created_bound_on_a_node() {
    let dir = TempDir::new("check-bound");
    let applied = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c28-bound","namespace":"c28"},"spec":{"nodeName":"minikube","containers":[{"name":"probe-app","image":"python:3.12-slim-bookworm"}]}}"#;
    let pod = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: c28-bound\n  namespace: c28\n  uid: u1\n  creationTimestamp: \"2026-01-01T00:00:00Z\"\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{applied}'\nspec:\n  nodeName: minikube\n  initContainers:\n  - {{name: init-sleep, image: python:3.12-slim-bookworm}}\n  containers:\n  - {{name: probe-app, image: python:3.12-slim-bookworm, ports: [{{name: http, containerPort: 18080}}]}}\nstatus:\n  phase: Running\n  conditions:\n  - {{type: PodScheduled, status: \"True\", lastTransitionTime: \"2026-01-01T00:00:01Z\"}}\n  initContainerStatuses:\n  - {{name: init-sleep, image: python:3.12-slim-bookworm, imageID: x, ready: true, restartCount: 0, state: {{terminated: {{exitCode: 0, reason: Completed, startedAt: \"2026-01-01T00:00:00Z\", finishedAt: \"2026-01-01T00:00:02Z\"}}}}}}\n  containerStatuses:\n  - {{name: probe-app, image: python:3.12-slim-bookworm, imageID: x, ready: false, started: true, restartCount: 0, state: {{running: {{startedAt: \"2026-01-01T00:00:03Z\"}}}}}}\n"
    );
    let file = dir.write("pod.yaml", &pod);
    let run = podsim(["check", &file, "--against", "models/scenarios/bound-pod.yaml", "--runs", "10"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("envelope of pod c28-bound on Kubernetes 1.35 (simulating the recorded spec"),
        "{run:?}"
    );
    assert!(
        run.stderr.contains(
            r#"pod c28-bound: it was created bound to node "minikube", which the cluster profile lacks: simulated bound to "kind-control-plane""#
        ),
        "{run:?}"
    );
}

/// The fit of the envelope line named `timing`.
fn fit_of<'a>(lines: &'a [(String, (i64, i64), String)], timing: &str) -> &'a str {
    lines.iter().find(|l| l.0 == timing).map(|l| l.2.as_str()).unwrap_or_else(|| panic!("{timing}: {lines:?}"))
}

/// `--kubernetes` overrides the scenario profile's version, as for `podsim
/// run`. Trace 027's second CrashLoopBackOff row came 13 s before its
/// restart (rows 12 and 13). From 1.35 the pod worker sleeps until the
/// back-off expires and the status showing CrashLoopBackOff is written just
/// before the restart, so no 1.37 run shows it that early; the 1.34 profile
/// of the scenario (a retry every 10–15 s) does.
#[test]
fn kubernetes_overrides_the_scenarios_version() {
    let args = |version: Option<&str>| {
        let mut a = vec![
            "check",
            "tests/traces/027-crashloop-free-first-restart-kep4603-watch/watch.txt",
            "--against",
            "models/scenarios/recorded/027-thing.yaml",
            "--runs",
            "30",
            "-o",
            "json",
        ];
        a.extend(version.map(|v| ["--kubernetes", v]).into_iter().flatten());
        podsim(a)
    };
    let (own, newer) = (args(None), args(Some("1.37")));
    let v: serde_json::Value = serde_json::from_str(&newer.stdout).expect("JSON");
    assert_eq!(v["envelopes"][0]["kubernetes"], "1.37", "{newer:?}");
    assert_eq!(fit_of(&envelope_lines(&own), "CrashLoopBackOff after #2 (after the first start)"), "inside");
    assert_eq!(fit_of(&envelope_lines(&newer), "CrashLoopBackOff after #2 (after the first start)"), "early");
    // A profile of another release through --cluster, too.
    let run = podsim([
        "check",
        "tests/traces/027-crashloop-free-first-restart-kep4603-watch/watch.txt",
        "--against",
        "models/scenarios/recorded/027-thing.yaml",
        "--cluster",
        "models/clusters/default.yaml",
        "--runs",
        "5",
    ]);
    assert!(run.stdout.contains("envelope of pod thing on Kubernetes 1.37"), "{run:?}");
}

/// `--against` that reads or compares nothing does not pass: nothing read
/// exits 2 as without `--against`; a recording with no timing says why and
/// exits 2.
#[test]
fn against_with_nothing_to_compare_exits_2() {
    let run = podsim([
        "check",
        "tests/traces/001-crashloop-exit1-restartalways-snapshots/source.md",
        "--against",
        "models/scenarios/crashloop.yaml",
    ]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("podsim: nothing to check"), "{run:?}");
    // A describe: its times are instants, with no creationTimestamp to measure them from.
    let dir = TempDir::new("check-nothing-timed");
    let describe = dir.write(
        "describe.txt",
        "Name:         crashloop\nNamespace:    default\nStatus:       Running\nContainers:\n  app:\n    Image:          busybox\n    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    1\n      Started:      Thu, 01 Jan 2026 00:00:52 +0000\n      Finished:     Thu, 01 Jan 2026 00:00:53 +0000\n    Ready:          False\n    Restart Count:  3\n",
    );
    let run = podsim(["check", &describe, "--against", "models/scenarios/crashloop.yaml", "--runs", "2"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains(
            "pod crashloop: nothing to compare: its times (app exited #3, app started #3) are instants, and the \
             recording has neither the pod's creationTimestamp nor the start of its first instance"
        ),
        "{run:?}"
    );
    assert!(run.stderr.contains("podsim: nothing to compare with models/scenarios/crashloop.yaml"), "{run:?}");
}

/// Trace 023's `BackOff 26s (x3 over 75s)`: the Event object counted 3
/// when printed, 75 s after its firstTimestamp. From 1.35 the pod worker
/// syncs a crash-looping pod once per restart (at the back-off's expiry),
/// and each such sync records one BackOff: three in the 75 s of 10 s, 20 s
/// and 40 s back-offs. On 1.34 it also syncs every 10–15 s while backing
/// off, recording a BackOff each time: more than three by then.
#[test]
fn aggregated_events_tell_the_versions_apart() {
    let run = |version: &str| {
        podsim([
            "check",
            "tests/traces/023-lifecycle-lab-crashloop-probes-startup-termination-v137/05b-crashloop-events.txt",
            "--against",
            "models/scenarios/recorded/023-crashloop.yaml",
            "--kubernetes",
            version,
            "--runs",
            "10",
            "-o",
            "json",
        ])
    };
    let (v137, v134) = (run("1.37"), run("1.34"));
    assert_eq!(v137.code, Some(0), "{v137:?}");
    let lines = envelope_lines(&v137);
    // Pulled, Created, Started ×4 and BackOff ×3: each its window and its count.
    assert_eq!(lines.len(), 8, "{lines:?}");
    assert!(lines.iter().all(|l| l.2 == "inside"), "{lines:?}");
    // `26s (x3 over 75s)`: firstTimestamp and lastTimestamp are 49 s apart, the occurrences (48 s, 50 s).
    let backoff = lines.iter().find(|l| l.0 == "`BackOff` #3 (after #1)").expect("the BackOff window");
    assert_eq!(backoff.1, (48_000, 50_000));
    assert_eq!(v134.code, Some(1), "{v134:?}");
    assert_eq!(fit_of(&envelope_lines(&v134), "`BackOff` count [75s, 76s) after the first"), "fewer");
}

/// Trace 001's pod names its container `main`; crashloop.yaml's app file
/// describes `app`. The one undescribed container takes the one unused
/// behaviour, with a warning naming both and the file, so the runs crash
/// loop as the recording does instead of running the default app forever.
#[test]
fn an_undescribed_container_is_mapped_and_named() {
    let run = podsim([
        "check",
        "tests/traces/001-crashloop-exit1-restartalways-snapshots/pod-t1-restart2.yaml",
        "tests/traces/001-crashloop-exit1-restartalways-snapshots/pod-t2-restart3.yaml",
        "--against",
        "models/scenarios/crashloop.yaml",
        "--runs",
        "10",
        "-o",
        "json",
    ]);
    assert!(
        run.stderr.contains(
            "warning: pod my-pod: the app file models/scenarios/../apps/exit-1-after-1s.yaml describes no container \
             `main`, and `app` is the one container it describes that the recorded spec lacks: `main` is simulated \
             with `app`'s behaviour"
        ),
        "{run:?}"
    );
    let lines = envelope_lines(&run);
    // Instances 1 to 3 of `main`: each start and exit.
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert!(lines.iter().all(|l| l.0.starts_with("main ") && l.2 != "not-simulated"), "{lines:?}");
}

/// `1/1 Running 1 (5m ago) 5s`: an exit five minutes before a pod created
/// five seconds ago. Reported with its row, not clamped to 0 and compared.
#[test]
fn a_recording_that_contradicts_itself_is_reported() {
    let dir = TempDir::new("check-contradiction");
    let file = dir.write(
        "watch.txt",
        "$ kubectl get pods -w\nNAME        READY   STATUS    RESTARTS      AGE\ncrashloop   0/1     ContainerCreating   0   0s\ncrashloop   1/1     Running   0   3s\ncrashloop   0/1     Error   0   4s\ncrashloop   1/1     Running   1 (5m ago)   5s\n",
    );
    let run = podsim(["check", &file, "--against", "models/scenarios/crashloop.yaml", "--runs", "5", "-o", "json"]);
    assert!(
        run.stderr.contains(&format!(
            "warning: {file}:6:1: pod crashloop: `1/1 Running 1` names an exit [300s, 360s) ago in a pod whose AGE \
             is [5s, 6s): before the pod was created; not compared"
        )),
        "{run:?}"
    );
    let lines = envelope_lines(&run);
    assert!(!lines.iter().any(|l| l.0.starts_with("exited #0")), "{lines:?}");
}

/// A podsim trace of crashloop-image-patch (the image patched at 140 s)
/// checked against crashloop.yaml, which runs the same pod unpatched: the
/// recorded patch is replayed on the scenario's pod, as a recorded deletion
/// is, so the fresh back-off of the new image starts instance 5 at once and
/// the run's own seed (7) lies inside.
#[test]
fn a_recorded_patch_is_replayed_on_the_scenarios_pod() {
    let dir = TempDir::new("check-patch");
    let trace = podsim(["run", "models/scenarios/crashloop-image-patch.yaml", "-o", "jsonl", "--seed", "7"]);
    let file = dir.write("t.jsonl", &trace.stdout);
    let run = podsim(["check", &file, "--against", "models/scenarios/crashloop.yaml", "--runs", "10", "-o", "json"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines = envelope_lines(&run);
    assert_eq!(fit_of(&lines, "app started #5 (after the first start)"), "inside");
    assert!(lines.iter().all(|l| l.2 == "inside"), "{lines:?}");
}

/// Trace 006's dump: startedAt 21:51:05Z − creationTimestamp 21:51:01Z is
/// a real in (3 s, 5 s); runs whose timestamps are at most 2 s apart give
/// up to (…, 3 s). They touch, nothing separates them: inside.
#[test]
fn touching_intervals_are_inside() {
    let run = podsim([
        "check",
        "tests/traces/006-happy-path-nginx-containerd-describe-and-yaml/pod.yaml",
        "--against",
        "models/scenarios/bound-pod.yaml",
        "--runs",
        "20",
        "-o",
        "json",
    ]);
    let lines = envelope_lines(&run);
    let started = lines.iter().find(|l| l.0 == "nginx started #0").expect("the start");
    assert_eq!((started.1, started.2.as_str()), ((3_000, 5_000), "inside"), "{run:?}");
}

/// A podsim trace line whose `t` no run can have (2^63 s overflowed into a
/// wrong instant, or a debug build's panic) is skipped with a warning at its line.
#[test]
fn a_trace_time_no_run_has_is_skipped_at_its_line() {
    let dir = TempDir::new("huge-t");
    let trace = podsim(["run", "models/scenarios/c28-service.yaml", "--until", "5s", "-o", "jsonl"]);
    let mut lines: Vec<String> = trace.stdout.lines().take(3).map(String::from).collect();
    let t = lines[1].split("\"t\":").nth(1).and_then(|r| r.split(',').next()).expect("a t").to_string();
    lines[1] = lines[1].replacen(&format!("\"t\":{t}"), "\"t\":9223372036854775807", 1);
    lines[2] = lines[2].replacen("\"t\":", "\"t\":-5", 1);
    let file = dir.write("big.jsonl", &(lines.join("\n") + "\n"));
    let run = podsim(["check", &file]);
    assert!(
        run.stderr.contains(&format!("warning: {file}:2:1: t: 9223372036854776000 is not a time of a run")),
        "{run:?}"
    );
    assert!(run.stderr.contains(&format!("warning: {file}:3:1: t: -50 is not a time of a run")), "{run:?}");
}
