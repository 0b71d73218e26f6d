//! Issue 22's bounds: a run's event budget (`--max-events`, `maxEvents:`),
//! a prediction's run limit, named pipes without a writer, and sweeps that
//! say how far they got and stop on Ctrl-C or SIGTERM with what they did.

use super::{BIN, TempDir, podsim};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const BUDGET: &str = "reached its budget of 200,000 events at simulated time";

/// `--until 876000h` on a crash loop used to run until memory ran out; it
/// now stops at its budget, says where and how to raise it, prints no
/// trace (which would read as a whole run) and exits 2.
#[test]
fn a_run_past_its_event_budget_stops_with_the_limit_and_the_time() {
    let run = podsim(["run", "models/scenarios/crashloop.yaml", "--until", "876000h", "--max-events", "200000"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    assert!(run.stderr.starts_with("error: --max-events: the run of seed 1 "), "{run:?}");
    assert!(run.stderr.contains(BUDGET), "{run:?}");
    assert!(run.stderr.contains("of the 876000h0m0s asked for"), "{run:?}");
    assert!(run.stderr.contains("raise the budget with --max-events N (or `maxEvents: N` in the scenario)"), "{run:?}");
    // The default budget lets the scenario's own ten minutes run.
    assert_eq!(podsim(["run", "models/scenarios/crashloop.yaml"]).code, Some(0));
}

/// The scenario's `maxEvents` is the same budget; a flag overrides it; 0 is refused at its field.
#[test]
fn a_scenario_states_its_budget() {
    let dir = TempDir::new("max-events");
    let root = env!("CARGO_MANIFEST_DIR");
    let scenario = |budget: &str| {
        format!("manifests: [{root}/models/manifests/crashloop.yaml]\nuntil: 100h\nmaxEvents: {budget}\n")
    };
    let small = dir.write("small.yaml", &scenario("1000"));
    let run = podsim(["run", &small]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("reached its budget of 1,000 events"), "{run:?}");
    let run = podsim(["run", &small, "--max-events", "200000"]);
    assert!(run.stderr.contains(BUDGET), "{run:?}");
    let zero = dir.write("zero.yaml", &scenario("0"));
    let run = podsim(["run", &zero]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("zero.yaml:3:12: maxEvents: must be at least 1"), "{run:?}");
    let run = podsim(["run", "models/scenarios/crashloop.yaml", "--max-events", "0"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("--max-events <N>"), "{run:?}");
}

/// `get` and `describe` answer for an instant before the stop, and not after it.
#[test]
fn get_answers_before_the_run_stopped_and_not_after() {
    let args = |at: &str| {
        ["get", "pods", "models/scenarios/crashloop.yaml", "--max-events", "300", "--at", at].map(String::from)
    };
    let before = podsim(args("2s"));
    assert_eq!(before.code, Some(0), "{before:?}");
    assert!(before.stdout.starts_with("NAME"), "{before:?}");
    let after = podsim(args("9m"));
    assert_eq!(after.code, Some(2), "{after:?}");
    assert!(after.stderr.contains("reached its budget of 300 events"), "{after:?}");
}

/// A sweep reports the lowest seed past the budget, whatever its threads.
#[test]
fn a_sweep_names_the_lowest_run_past_its_budget() {
    for jobs in ["1", "2"] {
        let run = podsim([
            "predict",
            "models/scenarios/crashloop.yaml",
            "--runs",
            "8",
            "--max-events",
            "300",
            "--jobs",
            jobs,
        ]);
        assert_eq!(run.code, Some(2), "{run:?}");
        assert!(run.stdout.is_empty(), "{run:?}");
        assert!(
            run.stderr.contains("error: --max-events: the run of seed 1 reached its budget of 300 events"),
            "{run:?}"
        );
    }
    let run = podsim([
        "verify",
        "models/scenarios/crashloop.yaml",
        "--runs",
        "4",
        "--max-events",
        "300",
        "-p",
        "always restarts(pod/crashloop) < 100",
    ]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("the run of seed 1 reached its budget of 300 events"), "{run:?}");
}

/// A prediction holds every run's milestones: more runs than it can hold
/// are refused before anything runs.
#[test]
fn a_prediction_of_more_runs_than_it_holds_is_refused_at_once() {
    for args in [
        vec!["predict", "models/scenarios/crashloop.yaml", "--runs", "100000000"],
        vec!["predict", "models/scenarios/crashloop.yaml", "--runs", "100000000", "--shard", "0/100"],
        vec!["plot", "cdf", "models/scenarios/crashloop.yaml", "-o", "x.svg", "--runs", "1000001"],
    ] {
        let run = podsim(&args);
        assert_eq!(run.code, Some(2), "{run:?}");
        assert!(run.stderr.contains("holds at most 1,000,000 runs"), "{run:?}");
    }
}

/// A named pipe nobody writes used to block podsim forever in open(2).
#[test]
fn a_named_pipe_without_a_writer_is_said_at_once() {
    let dir = TempDir::new("fifo");
    let fifo = dir.path("pipe.yaml");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    for args in [vec!["run", "-f", &fifo], vec!["run", &fifo], vec!["merge", &fifo]] {
        let run = podsim(&args);
        assert_eq!(run.code, Some(2), "{run:?}");
        assert!(run.stderr.contains("pipe.yaml: a named pipe with no writer: nothing was read"), "{run:?}");
    }
}

/// Off a terminal, `--progress always` writes a line as runs finish (the
/// first at once), `never` nothing, and the default nothing for a short sweep.
#[test]
fn progress_lines_off_a_terminal() {
    let sweep = |when: &str| podsim(["predict", "models/scenarios/crashloop.yaml", "--runs", "3", "--progress", when]);
    let always = sweep("always");
    assert_eq!(always.code, Some(0), "{always:?}");
    assert!(always.stderr.lines().any(|l| l.starts_with("podsim: 1/3 runs, ") && l.ends_with(" left")), "{always:?}");
    for when in ["never", "auto"] {
        let run = sweep(when);
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(!run.stderr.contains(" runs, "), "{run:?}");
    }
}

/// Starts a long sweep, waits for its first progress line (its signal
/// handlers are in place by then), sends `signal`, and returns its output.
fn stopped(args: &[&str], signal: &str) -> super::Run {
    let mut child = Command::new(BIN)
        .args(args)
        .args(["--progress", "always"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run podsim");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut first = String::new();
    stderr.read_line(&mut first).expect("a progress line");
    assert!(first.starts_with("podsim: "), "{first}");
    let sent = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status();
    assert!(sent.expect("kill").success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("stderr");
    let out = child.wait_with_output().expect("wait for podsim");
    super::Run { code: out.status.code(), stdout: String::from_utf8_lossy(&out.stdout).into_owned(), stderr: rest }
}

/// Ctrl-C stops a sharded prediction after the runs under way: exit 130,
/// how far it got, and a partial result of exactly those runs that
/// `podsim merge` reads as a sweep of its own.
#[test]
fn an_interrupted_prediction_writes_the_runs_it_did_as_a_partial_result() {
    let dir = TempDir::new("interrupted");
    let run = stopped(&["predict", "models/scenarios/crashloop.yaml", "--runs", "1000000", "--shard", "0/1"], "INT");
    assert_eq!(run.code, Some(130), "{run:?}");
    let done = run.stdout.lines().count() - 1;
    assert!(done >= 1, "{run:?}");
    let said = format!("warning: stopped after {done} of 1,000,000 runs (seeds 1–{done}); the partial result above");
    assert!(run.stderr.contains(&said), "{run:?}");
    let header = run.stdout.lines().next().unwrap_or_default();
    assert!(header.contains(&format!("\"runs\":{done},")) && header.contains("\"shard\":[0,1]"), "{header}");
    let partial = dir.write("partial.jsonl", &run.stdout);
    let merged = podsim(["merge", &partial]);
    assert_eq!(merged.code, Some(0), "{merged:?}");
    assert!(
        merged.stdout.starts_with(&format!("models/scenarios/crashloop.yaml: {done} runs, seeds 1–{done}")),
        "{merged:?}"
    );
}

/// SIGTERM stops `verify` too: its verdicts are over the runs done.
#[test]
fn a_terminated_verify_gives_its_verdicts_over_the_runs_done() {
    let args = [
        "verify",
        "models/scenarios/crashloop.yaml",
        "--runs",
        "1000000",
        "-p",
        "always restarts(pod/crashloop) < 100",
    ];
    let run = stopped(&args, "TERM");
    assert_eq!(run.code, Some(130), "{run:?}");
    assert!(run.stdout.starts_with("HOLDS"), "{run:?}");
    assert!(run.stderr.contains("warning: stopped after "), "{run:?}");
    assert!(run.stderr.contains("the verdicts above are over these runs"), "{run:?}");
}

/// A Deployment of a million replicas used to run on for hours (every
/// controller pass goes over every pod): a workload asking for more pods
/// than the run may create is refused by name before anything runs; a run
/// that creates more over time (a Job's replacements) stops at the pod past
/// the budget.
#[test]
fn the_pods_a_run_may_create_are_bounded() {
    let dir = TempDir::new("max-pods");
    let manifest = std::fs::read_to_string("models/manifests/c28-deployment.yaml").expect("the manifest");
    let big = dir.write("big.yaml", &manifest.replacen("replicas: 1", "replicas: 2147483647", 1));
    let run = podsim(["run", "-f", &big]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains(
            "error: deployment/c28-probe: spec.replicas: 2147483647 replicas are more than the 10,000 pods a run may create"
        ),
        "{run:?}"
    );
    let run = podsim(["run", "models/scenarios/job-backoff-never.yaml", "--max-pods", "3"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("error: --max-pods: the run of seed 1 reached its budget of 3 pods"), "{run:?}");
    // The Job's four pods (backoffLimit 3) fit a budget of four.
    assert_eq!(podsim(["run", "models/scenarios/job-backoff-never.yaml", "--max-pods", "4"]).code, Some(0));
}

/// `check` read a recording without a bound: /dev/zero (no line end) grew
/// to gigabytes. Now it stops at the input cap, and bytes that are not
/// UTF-8 are located.
#[test]
fn check_reads_a_device_up_to_the_input_cap() {
    let run = podsim(["check", "/dev/zero"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("error: /dev/zero: more than 256 MiB: podsim reads input files of at most that size"),
        "{run:?}"
    );
    let dir = TempDir::new("binary-recording");
    let path = dir.path("rec.txt");
    std::fs::write(&path, b"NAME READY\n\xff\xfe").expect("write");
    let run = podsim(["check", &path]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("rec.txt:2:1: not UTF-8 text: byte 11 (0xff)"), "{run:?}");
}
