//! Every recording in tests/traces/ (real clusters, see each source.md) is
//! read and judged by the invariant catalogue, with the verdicts the kubelet
//! source predicts for it (derivations in /book/src/checking.md); and the
//! recordings podsim can simulate fall inside podsim's envelope.

use podsim::cluster::Cluster;
use podsim::envelope::{Fit, envelopes};
use podsim::error::Severity;
use podsim::invariants::{Checker, Report, Verdict};
use podsim::observe::{Record, read_file};
use podsim::run::{Inputs, prepare};
use std::path::{Path, PathBuf};

fn folder(id: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(id))
        .unwrap()
}

/// Every recording file of a folder (not its source.md).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut f: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| !p.ends_with("source.md")).collect();
    f.sort();
    f
}

/// Reads a folder: its records and whether any problem was an error.
fn read(dir: &Path) -> (Vec<Record>, usize) {
    let mut records = Vec::new();
    let mut errors = 0;
    for f in files(dir) {
        let problems = read_file(&f, &mut |r| records.push(r)).unwrap();
        errors += problems
            .iter()
            .filter(|p| p.severity == Severity::Error && !p.message.contains("mapping values are not allowed"))
            .count();
    }
    (records, errors)
}

fn check(id: &str) -> Report {
    let (records, _) = read(&folder(id));
    let mut c = Checker::new(Cluster::default());
    for r in &records {
        c.observe(r);
    }
    c.report()
}

#[track_caller]
fn holds(r: &Report, pod: &str, invariant: &str) {
    match r.verdict(pod, invariant) {
        Some(Verdict::Holds { .. }) => {}
        other => panic!("{pod} {invariant}: {other:?}\n{}", r.render()),
    }
}

/// Every recording with something to check (016, 018 and 019 are notes and
/// logs: below), and exactly the rules judged on it (each holds at least
/// once; every other rule is "not applicable" throughout). An empty list
/// says, and checks, that nothing is judged.
const ALL: [(&str, &[&str]); 22] = [
    (
        "001",
        &[
            "restart-gap-backoff",
            "crashloop-message-delay",
            "restart-count-steps",
            "phase-consistent",
            "exit-code-reason",
            "ready-implies-containers-ready",
            "ready-implies-running",
        ],
    ),
    (
        "002",
        &[
            "crashloop-message-delay",
            "phase-consistent",
            "exit-code-reason",
            "ready-implies-containers-ready",
            "ready-implies-running",
        ],
    ),
    ("003", &["phase-consistent", "exit-code-reason", "ready-implies-containers-ready", "ready-implies-running"]),
    (
        "004",
        &[
            "phase-consistent",
            "exit-code-reason",
            "restart-count-steps",
            "ready-implies-containers-ready",
            "ready-implies-running",
        ],
    ),
    ("005", &["phase-consistent", "ready-implies-containers-ready", "ready-implies-running"]),
    // The describe and the dump are one pod (same name, the dump's UID): two snapshots, one step.
    (
        "006",
        &[
            "containers-ready-implies-all-ready",
            "phase-consistent",
            "ready-implies-containers-ready",
            "ready-implies-running",
            "restart-count-steps",
        ],
    ),
    ("007", &["endpoint-conditions"]),
    ("009", &["restart-count-steps"]),
    // A describe elided down to its name and events, and one `kubectl get` row.
    ("010", &[]),
    (
        "011",
        &[
            "containers-ready-implies-all-ready",
            "phase-consistent",
            "ready-implies-containers-ready",
            "ready-implies-running",
        ],
    ),
    (
        "014",
        &[
            "initialized-after-init",
            "containers-ready-implies-all-ready",
            "exit-code-reason",
            "phase-consistent",
            "ready-implies-containers-ready",
            "ready-implies-running",
        ],
    ),
    // job3's pod rows, counted against its parallelism (spec-job3.yaml).
    ("017", &["restart-count-steps", "job-parallelism"]),
    // One `kubectl get` row per pod; the Deployment's and the ReplicaSet's rows.
    ("020", &["controller-counts"]),
    // `kubectl get rs` rows; one `kubectl get` row per pod.
    ("021", &["controller-counts"]),
    ("023", &["restart-count-steps"]),
    ("027", &["restart-count-steps"]),
    // One `kubectl get` row per pod.
    ("028", &[]),
    ("029", &["exit-code-reason", "phase-consistent", "ready-implies-running", "restart-count-steps"]),
    // The Pod is a spec without status; the rest are events.
    ("030", &[]),
    ("031", &["restart-count-steps"]),
    // One `kubectl get` listing of the Indexed Job's pods, counted against its parallelism (spec.yaml).
    ("032", &["job-parallelism"]),
    ("035", &["endpoint-conditions"]),
];

/// The rules that hold somewhere in a report, and how many times they were checked.
fn judged(report: &Report) -> std::collections::BTreeMap<&'static str, u32> {
    let mut out = std::collections::BTreeMap::new();
    let pods = report.pods.iter().map(|p| &p.verdicts);
    for verdicts in pods.chain(report.controllers.iter().map(|c| &c.verdicts)) {
        for (rule, v) in verdicts {
            if let Verdict::Holds { checked } = v {
                *out.entry(*rule).or_default() += checked;
            }
        }
    }
    out
}

/// Each recording reads without an error (warnings for what is not a
/// kubectl output; 014's damaged YAML is the one syntax error, reported and
/// skipped), yields pods, breaks no invariant, and exactly the rules listed
/// for it are judged there.
#[test]
fn every_recording_reads_and_breaks_no_invariant() {
    for (id, listed) in ALL {
        let (records, errors) = read(&folder(id));
        assert_eq!(errors, 0, "{id}");
        let mut c = Checker::new(Cluster::default());
        for r in &records {
            c.observe(r);
        }
        let report = c.report();
        assert!(!report.pods.is_empty() || !report.controllers.is_empty(), "{id}: nothing read");
        assert!(!report.violated(), "{id}:\n{}", report.render());
        let mut held: Vec<&str> = judged(&report).into_keys().collect();
        let mut listed = listed.to_vec();
        held.sort();
        listed.sort();
        assert_eq!(held, listed, "{id}:\n{}", report.render());
    }
}

/// Controllers' rows: each row prints one status write and is judged once.
/// 020's `kubectl get pod,deploy,rs` has one Deployment row (AVAILABLE 0 ≤
/// READY 0) and one ReplicaSet row (READY 0 ≤ CURRENT 0); 021's two `kubectl
/// get rs` listings have 2 and 3 ReplicaSet rows, READY ≤ CURRENT in each.
#[test]
fn controllers_rows_are_each_judged() {
    assert_eq!(judged(&check("020")).get("controller-counts"), Some(&2));
    assert_eq!(judged(&check("021")).get("controller-counts"), Some(&5));
    assert_eq!(check("021").controllers.len(), 3, "three ReplicaSets");
}

/// Recordings made only of logs, notes and Go source give no observations;
/// 018 and 019 give only their `kubectl get jobs` rows, whose DURATION never
/// exceeds AGE (the Job controller sets startTime after creation). 018 has
/// six Jobs: three in its first CronJob watch, job4, and two in its second
/// CronJob watch, pasted without command or header.
#[test]
fn notes_and_logs_give_nothing_to_check() {
    assert_eq!(read(&folder("016")).1, 0);
    let r = check("016");
    assert!(r.pods.is_empty() && r.controllers.is_empty());
    for (id, jobs) in [("018", 6), ("019", 3)] {
        let r = check(id);
        assert!(r.pods.is_empty(), "{id}: {}", r.render());
        assert_eq!(r.controllers.len(), jobs, "{id}: {}", r.render());
        for p in &r.controllers {
            assert_eq!(p.kind, "Job", "{id}: {}", p.entry());
            assert!(matches!(p.verdicts.get("controller-counts"), Some(Verdict::Holds { .. })), "{id}");
        }
    }
}

/// 001: restartCount 2 then 3; the restarts came 15 s (needs 10) and 29 s
/// (needs 20) after the previous exit; `Back-off 40s` at restartCount 3 is
/// 10 s · 2^(3−1).
#[test]
fn crash_loop_snapshots_follow_the_backoff_schedule() {
    let r = check("001");
    for inv in [
        "restart-gap-backoff",
        "crashloop-message-delay",
        "restart-count-steps",
        "phase-consistent",
        "exit-code-reason",
    ] {
        holds(&r, "my-pod", inv);
    }
    // 002: `Back-off 1m20s` at restartCount 4 = 10 s · 2^3.
    holds(&check("002"), "my-pod", "crashloop-message-delay");
}

/// 003 Never + exit 1 → Failed; 004 Never + exit 0 → Succeeded after Running.
#[test]
fn terminal_phases_follow_get_phase() {
    holds(&check("003"), "my-pod", "phase-consistent");
    let r = check("004");
    holds(&r, "my-pod", "phase-consistent");
    holds(&r, "my-pod", "exit-code-reason");
}

/// 005: never Ready with a failing TCP probe, Ready at once without a probe.
#[test]
fn readiness_conditions_agree() {
    let r = check("005");
    holds(&r, "my-pod", "ready-implies-containers-ready");
    holds(&r, "never-ready", "ready-implies-running");
}

/// 007 (terminating, serving) and 035 (terminating, not serving):
/// a terminating endpoint is never ready.
#[test]
fn terminating_endpoints_are_not_ready() {
    holds(&check("007"), "(EndpointSlices)", "endpoint-conditions");
    holds(&check("035"), "(EndpointSlices)", "endpoint-conditions");
}

/// 014: the init container exited 0 before Initialized=True.
#[test]
fn initialized_after_the_init_container() {
    holds(&check("014"), "blue", "initialized-after-init");
}

/// Watch tables: RESTARTS steps by at most one per printed change.
#[test]
fn watch_tables_step_restart_counts() {
    for (id, pod) in
        [("009", "web-0"), ("017", "job3-qgv4b"), ("023", "lifecycle-crashloop"), ("027", "thing"), ("031", "zk-0")]
    {
        holds(&check(id), pod, "restart-count-steps");
    }
}

/// 029: OOMKilled with exit code 137 (a describe excerpt that never names
/// its pod, known by its file).
#[test]
fn oom_kills_have_a_non_zero_exit_code() {
    let r = check("029");
    let pod =
        r.pods.iter().find(|p| p.pod.ends_with("b2-describe-oom-demo.txt)")).expect("the excerpt's pod").pod.clone();
    holds(&r, &pod, "exit-code-reason");
}

fn envelope(trace: &str, file: &str, scenario: &str) -> Vec<(String, Fit)> {
    let mut records = Vec::new();
    read_file(&folder(trace).join(file), &mut |r| records.push(r)).unwrap();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/scenarios/recorded").join(scenario);
    let p = prepare(&Inputs { scenario: Some(scenario), ..Inputs::default() }).unwrap();
    let (e, _) = envelopes(&records, &p, 100).unwrap();
    e.into_iter().flat_map(|e| e.lines).map(|l| (l.timing, l.fit)).collect()
}

/// 023 (minikube 1.37): every restart and CrashLoopBackOff time of the lab's
/// crash loop, and its readiness delay, fall inside podsim's envelope. The
/// crash loop's watch gives 14 timings (tests/cli/check.rs counts them row
/// by row); the readiness watch 3: the listing's ContainerCreating, the
/// first `Running` (the first start) and `1/1` five seconds later.
#[test]
fn a_1_37_crash_loop_and_readiness_fit_the_envelope() {
    for (file, scenario, timings) in
        [("05a-crashloop-watch.txt", "023-crashloop.yaml", 14), ("07-readiness-watch.txt", "023-readiness.yaml", 3)]
    {
        let lines = envelope("023", file, scenario);
        assert_eq!(lines.len(), timings, "{file}: {lines:?}");
        for (timing, fit) in lines {
            assert_eq!(fit, Fit::Inside, "{file}: {timing}");
        }
    }
}

/// 027 (a 1.30-era cluster): after the first start every timing fits the
/// ≤1.34 pod-worker requeue; the first start itself came after 97 s of
/// Pending that the manifest cannot explain (scheduling and pull), and the
/// watch's first row lists the pod still Pending at 29 s. The 13 rows, read
/// as a watch (the first a listing, the rest changes), give: the listing's
/// state; `Running` at restarts 0–3; CrashLoopBackOff after 1 and 2; all
/// containers ready at restarts 0–3 (rows 4, 6, 9, 12: READY becomes 1/1);
/// and from the RESTARTS annotations the exits of instances 0 (rows 6, 7),
/// 1 (rows 8–10) and 2 (rows 11–13).
#[test]
fn a_1_30_crash_loop_fits_the_1_34_envelope_after_its_first_start() {
    let after = |t: &str| format!("{t} (after the first start)");
    let mut names: Vec<String> = ["Running #1", "Running #2", "Running #3", "CrashLoopBackOff after #1"]
        .into_iter()
        .chain(["CrashLoopBackOff after #2", "all containers ready", "exited #0", "exited #1", "exited #2"])
        .map(String::from)
        .collect();
    names.extend((1..=3).map(|n| format!("all containers ready (RESTARTS {n})")));
    let mut expected: Vec<(String, Fit)> = names.iter().map(|t| (after(t), Fit::Inside)).collect();
    let mut lines = envelope("027", "watch.txt", "027-thing.yaml");
    // The first start and the listing before it: the environment's Pending, later than any run.
    for late in ["Running #0", "shows `0/1 Pending 0`"] {
        let i = lines.iter().position(|(t, _)| t == late).unwrap_or_else(|| panic!("{late}: {lines:?}"));
        assert!(matches!(lines.remove(i).1, Fit::Late { .. }), "{late}");
    }
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(lines, expected);
}

/// A watch stream is checked as it is read: a long one goes through in
/// order, every version counted (the 700 MB measurement is in the book).
#[test]
fn a_long_watch_stream_is_checked_as_it_streams() {
    let dir = std::env::temp_dir().join(format!("podsim-long-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("watch.json");
    let mut text = String::new();
    for i in 0..20_000 {
        let ready = if i % 2 == 0 { "True" } else { "False" };
        text.push_str(&format!(
            "{{\"type\":\"MODIFIED\",\"object\":{{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{{\"name\":\"web\",\"uid\":\"u1\",\"resourceVersion\":\"{i}\"}},\"spec\":{{\"containers\":[{{\"name\":\"app\",\"image\":\"nginx\"}}]}},\"status\":{{\"phase\":\"Running\",\"conditions\":[{{\"type\":\"Ready\",\"status\":\"{ready}\"}},{{\"type\":\"ContainersReady\",\"status\":\"{ready}\"}}],\"containerStatuses\":[{{\"name\":\"app\",\"image\":\"nginx\",\"imageID\":\"\",\"ready\":{},\"restartCount\":0,\"state\":{{\"running\":{{}}}}}}]}}}}}}\n",
            ready == "True"
        ));
    }
    std::fs::write(&path, text).unwrap();
    let (report, problems) =
        podsim::invariants::check_files(&[path.as_path()], Checker::new(Cluster::default())).unwrap();
    assert!(problems.is_empty());
    assert_eq!(report.verdict("web", "ready-implies-containers-ready"), Some(&Verdict::Holds { checked: 20_000 }));
}

/// 009 (the StatefulSet Basics tutorial, GKE): web-0 runs at AGE 19 s and
/// web-1, created once web-0 is Running and Ready, at 18 s, both inside the
/// envelope of the profile whose persistent disks take 14–18 s (most of
/// both pods' start: web-1's image was cached).
#[test]
fn a_statefulset_s_ordered_start_fits_the_envelope() {
    let lines = envelope("009", "watch-1-ordered-create.txt", "009-web.yaml");
    assert_eq!(lines.len(), 6, "{lines:?}");
    for (timing, fit) in lines {
        assert_eq!(fit, Fit::Inside, "{timing}");
    }
}

/// 017 (early 2020): job3's OnFailure restarts in its one pod, the untagged
/// busybox pulled again before each (a 3–6 s manifest check on the profile):
/// the first start, both restarts, the CrashLoopBackOff between them and the
/// listing's ContainerCreating fall inside the envelope (8 timings). The
/// Job's pod is matched to the run's by its generated name (`job3-xxxxx`).
#[test]
fn a_jobs_in_place_restarts_fit_the_envelope() {
    let lines = envelope("017", "watch-pods.txt", "017-job3.yaml");
    assert_eq!(lines.len(), 8, "{lines:?}");
    for (timing, fit) in lines {
        assert_eq!(fit, Fit::Inside, "{timing}");
    }
}

/// 032 (the docs' pod failure policy example): each of the Indexed Job's
/// five pods, listed once, shows the state podsim's runs reach by its AGE
/// (index 0 failed twice, index 1 once with 42, indexes 2 and 3 completed).
#[test]
fn an_indexed_jobs_listing_fits_the_envelope() {
    let lines = envelope("032", "get-pods.txt", "032-failindex.yaml");
    assert_eq!(lines.len(), 5, "{lines:?}");
    for (timing, fit) in lines {
        assert_eq!(fit, Fit::Inside, "{timing}");
    }
}
