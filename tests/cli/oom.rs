//! OOMKilled: an app whose `memory:` schedule goes above its container's
//! memory limit. The kubelet sets the cgroup's `memory.max` to the limit
//! (`calculateLinuxResources`) and `memory.oom.group` on cgroup v2
//! (`singleProcessOOMKill` false by default), so the kernel kills the whole
//! container the moment the charge would pass the limit: PID 1 by SIGKILL,
//! exit 128 + 9 = 137. containerd's `TaskOOM` handler sets the status reason
//! `OOMKilled`, and `toCRIContainerStatus` fills `Completed`/`Error` only
//! into an empty one. Everything else is an ordinary non-zero exit:
//! `ShouldContainerBeRestarted`, CrashLoopBackOff (`doBackOff`), the phase.

use super::{POD, TempDir, assert_error, line_of, manifest_error, podsim};
use serde_json::Value;

const SCENARIO: &str = "models/scenarios/memory-leak.yaml";

fn records(jsonl: &str) -> Vec<Value> {
    jsonl.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// Milliseconds since the start of the run, as the trace writes `t`.
fn ms(v: &Value) -> i64 {
    (v["t"].as_f64().expect("a time") * 1000.0).round() as i64
}

/// The records of one process fact, in order.
fn facts<'a>(records: &'a [Value], fact: &str) -> Vec<&'a Value> {
    records.iter().filter(|v| v["type"] == "PROCESS" && v["fact"] == fact).collect()
}

/// Every terminated state (current or last) of the pods' containers in the trace.
fn terminations(records: &[Value]) -> Vec<Value> {
    let pods = records.iter().filter(|v| v["type"] == "MODIFIED" && v["object"]["kind"] == "Pod");
    let statuses =
        pods.flat_map(|v| v["object"]["status"]["containerStatuses"].as_array().cloned().unwrap_or_default());
    statuses
        .flat_map(|s| [s["state"]["terminated"].clone(), s["lastState"]["terminated"].clone()])
        .filter(|t| !t.is_null())
        .collect()
}

#[test]
fn a_leak_past_the_limit_is_oom_killed_at_the_stretch_start_then_restarted_with_back_off() {
    let run = podsim(["run", SCENARIO, "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let all = records(&run.stdout);
    let started = facts(&all, "started");
    let killed = facts(&all, "oom-killed");
    let exited = facts(&all, "exited");
    assert!(killed.len() >= 4, "four OOM kills in 5 minutes: {killed:?}");
    for (k, kill) in killed.iter().enumerate() {
        // The schedule's third stretch (300Mi > 256Mi) starts 40 s after
        // process start: the kill comes then, to the millisecond.
        assert_eq!(ms(kill), ms(started[k]) + 40_000, "kill {k}");
        assert_eq!((&kill["rss"], &kill["limit"]), (&Value::from("300Mi"), &Value::from("256Mi")));
        // PID 1 dies of the group kill's SIGKILL at the same instant.
        assert_eq!((ms(exited[k]), &exited[k]["code"]), (ms(kill), &Value::from(137)), "exit {k}");
    }
    // Every termination the API shows is the runtime's OOMKilled with 137.
    let terminated = terminations(&all);
    assert!(!terminated.is_empty());
    for t in &terminated {
        assert_eq!((&t["reason"], &t["exitCode"]), (&Value::from("OOMKilled"), &Value::from(137)), "{t}");
    }
    // Back-off (restarts-and-backoff.md): no entry at the first death, so the
    // first restart waits only for the PLEG relist (1 s) and a sync; then
    // 10 s, 20 s, 40 s from FinishedAt, and on 1.37 the restart comes at the
    // pod worker's requeue: min(expiry − sync, 60 s) jittered by up to +50 %,
    // so within half the back-off after it (plus a relist and a tick).
    for k in 0..killed.len().min(started.len() - 1) {
        let waited = ms(started[k + 1]) - ms(killed[k]);
        if k == 0 {
            assert!(waited < 2_000, "the first restart is immediate: {waited} ms");
        } else {
            let backoff = 10_000 << (k - 1);
            assert!(
                (backoff..=backoff * 3 / 2 + 2_000).contains(&waited),
                "restart {k}: {waited} ms, back-off {backoff}"
            );
        }
    }
    // No event for a container OOM (the kubelet's SystemOOM is a node's).
    let oom_event = all.iter().any(|v| {
        matches!(v["type"].as_str(), Some("EVENT" | "KUBELET")) && v.to_string().to_lowercase().contains("oom")
    });
    assert!(!oom_event, "no event mentions the OOM");
}

/// printPod shows the current state's reason: `OOMKilled` while the
/// container is terminated, `CrashLoopBackOff` once the kubelet's sync puts
/// it in back-off; `describe` shows the killed instance as Last State.
#[test]
fn kubectl_shows_oomkilled_then_crashloopbackoff() {
    let watch = podsim(["get", "pods", SCENARIO, "-w"]);
    assert_eq!(watch.code, Some(0), "{watch:?}");
    let statuses: Vec<&str> = watch.stdout.lines().skip(1).filter_map(|l| l.split_whitespace().nth(2)).collect();
    let first_oom = statuses.iter().position(|s| *s == "OOMKilled").expect("OOMKilled shown");
    let first_loop = statuses.iter().position(|s| *s == "CrashLoopBackOff").expect("CrashLoopBackOff shown");
    assert!(first_oom < first_loop, "{statuses:?}");
    // The second death: OOMKilled, then CrashLoopBackOff during its 10 s.
    let second_oom = first_oom + 1 + statuses[first_oom + 1..].iter().position(|s| *s == "OOMKilled").unwrap();
    assert_eq!(statuses[second_oom + 1], "CrashLoopBackOff", "{statuses:?}");
    assert!(watch.stdout.contains("0/1     OOMKilled           1 (41s ago)   88s"), "{}", watch.stdout);

    // On 1.37 the back-off shows from the sync at its expiry until the
    // restart's status: describe it then.
    let pod = watch.stdout.lines().nth(1).and_then(|l| l.split_whitespace().next()).unwrap().to_string();
    let trace = records(&podsim(["run", SCENARIO, "-o", "jsonl"]).stdout);
    let backoff =
        trace.iter().find(|v| v["type"] == "CHANGE" && v["change"] == "container app Waiting(CrashLoopBackOff)");
    let at = format!("{}ms", ms(backoff.expect("a back-off")));
    let describe = podsim(["describe", &format!("pod/{pod}"), SCENARIO, "--at", &at]);
    let text = describe.stdout;
    let waiting = "    State:          Waiting\n      Reason:       CrashLoopBackOff\n";
    let last = "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n";
    assert!(text.contains(&format!("{waiting}{last}")), "{text}");
    assert!(text.contains("    Limits:\n      memory:  256Mi\n"), "{text}");
}

/// Runs the plain pod `web` for 60 s with `policy`, its container `app`
/// with `resources` and the behaviour `app`, and the scenario's `actions`;
/// returns the trace's records (and the directory, kept while they are read).
fn run_pod(tag: &str, resources: &str, policy: &str, app: &str, actions: &str) -> (Vec<Value>, TempDir) {
    let dir = TempDir::new(tag);
    let (head, containers) = POD.split_at(POD.find("  containers:").expect("POD has containers"));
    let pod = format!("{head}  restartPolicy: {policy}\n{containers}{resources}");
    dir.write("pod.yaml", &pod);
    dir.write("app.yaml", app);
    let s = dir.write("s.yaml", &format!("manifests: [pod.yaml]\napp: app.yaml\nseed: 1\nuntil: 60s\n{actions}"));
    let run = podsim(["run", &s, "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    (records(&run.stdout), dir)
}

const LIMIT: &str = "    resources:\n      limits: {memory: 256Mi}\n";
const LEAK: &str = "containers:\n  app:\n    memory: [{until: 20s, rss: 100Mi}, {rss: 300Mi}]\n";

/// The last Pod the trace shows.
fn last_pod(records: &[Value]) -> Value {
    let is_pod = |v: &&Value| matches!(v["type"].as_str(), Some("ADDED" | "MODIFIED")) && v["object"]["kind"] == "Pod";
    records.iter().rev().find(is_pod).expect("a pod")["object"].clone()
}

#[test]
fn restart_policy_never_leaves_the_pod_failed_without_a_reason() {
    let (all, dir) = run_pod("oom-never", LIMIT, "Never", LEAK, "");
    let pod = last_pod(&all);
    // An exit ≠ 0 under Never: no restart, phase Failed; the kubelet sets no
    // pod reason (trace 029 b: `Status: Failed`, no `Reason:`).
    assert_eq!(pod["status"]["phase"], "Failed", "{pod}");
    assert!(pod["status"]["reason"].is_null(), "{pod}");
    let c = &pod["status"]["containerStatuses"][0];
    assert_eq!((&c["restartCount"], &c["state"]["terminated"]["reason"]), (&Value::from(0), &Value::from("OOMKilled")));
    assert_eq!(c["state"]["terminated"]["exitCode"], 137);
    assert_eq!(ms(facts(&all, "oom-killed")[0]), ms(facts(&all, "started")[0]) + 20_000);
    let get = podsim(["get", "pods", &dir.path("s.yaml")]);
    assert!(get.stdout.contains("web    0/1     OOMKilled   0"), "{}", get.stdout);
}

#[test]
fn on_failure_restarts_an_oom_killed_container() {
    let (all, _dir) = run_pod("oom-onfailure", LIMIT, "OnFailure", LEAK, "");
    // 137 ≠ 0: restarted at once (no back-off entry yet), killed 20 s later again.
    let started = facts(&all, "started");
    let killed = facts(&all, "oom-killed");
    assert!(started.len() >= 2 && killed.len() >= 2, "{started:?}");
    assert!(ms(started[1]) - ms(killed[0]) < 2_000);
    assert_eq!(ms(killed[1]), ms(started[1]) + 20_000);
}

/// Whichever ends the process first wins; an OOM during a graceful stop
/// still kills with 137 and OOMKilled.
#[test]
fn an_exit_sigterm_or_oom_whichever_comes_first() {
    // Its own exit at 10 s comes before the 20 s OOM: an ordinary Error.
    let exits =
        "containers:\n  app:\n    memory: [{until: 20s, rss: 100Mi}, {rss: 300Mi}]\n    exit: {after: 10s, code: 3}\n";
    let (all, _d) = run_pod("oom-exit-first", LIMIT, "Never", exits, "");
    assert!(facts(&all, "oom-killed").is_empty());
    let t = &last_pod(&all)["status"]["containerStatuses"][0]["state"]["terminated"];
    assert_eq!((&t["reason"], &t["exitCode"]), (&Value::from("Error"), &Value::from(3)));

    // Deleted at 15 s, the app drains for 25 s after SIGTERM (grace 30 s):
    // its memory passes the limit 20 s after start, mid-drain.
    let drains =
        "containers:\n  app:\n    memory: [{until: 20s, rss: 100Mi}, {rss: 300Mi}]\n    sigterm: {exit_after: 25s}\n";
    let (all, _d) = run_pod("oom-during-stop", LIMIT, "Always", drains, "actions:\n- {at: 15s, delete: pod/web}\n");
    let sigterm = facts(&all, "sigterm");
    let killed = facts(&all, "oom-killed");
    assert_eq!((sigterm.len(), killed.len()), (1, 1));
    assert!(ms(sigterm[0]) < ms(killed[0]));
    assert_eq!(ms(killed[0]), ms(facts(&all, "started")[0]) + 20_000);
    let t = terminations(&all);
    assert!(t.iter().all(|t| t["reason"] == "OOMKilled" && t["exitCode"] == 137) && !t.is_empty(), "{t:?}");

    // SIGTERM's exit (at once) before the OOM: Completed, never killed.
    let (all, _d) = run_pod("oom-after-stop", LIMIT, "Always", LEAK, "actions:\n- {at: 15s, delete: pod/web}\n");
    assert!(facts(&all, "oom-killed").is_empty());
}

/// Only a limit kills: no limit (node memory is not modelled), a request
/// alone, a limit never passed, or a limit of 0 (`calculateLinuxResources`
/// sets no `memory.max` for 0).
#[test]
fn no_limit_no_oom_kill() {
    for (tag, resources) in [
        ("oom-none", ""),
        ("oom-request", "    resources:\n      requests: {memory: 64Mi}\n"),
        ("oom-high", "    resources:\n      limits: {memory: 1Gi}\n"),
        ("oom-equal", "    resources:\n      limits: {memory: 300Mi}\n"),
        ("oom-zero", "    resources:\n      limits: {memory: \"0\"}\n"),
    ] {
        let (all, _d) = run_pod(tag, resources, "Never", LEAK, "");
        assert!(facts(&all, "oom-killed").is_empty(), "{tag}");
        assert_eq!(last_pod(&all)["status"]["phase"], "Running", "{tag}");
    }
}

#[test]
fn a_memory_quantity_that_does_not_parse_is_an_error_at_its_line() {
    let dir = TempDir::new("oom-bad-rss");
    let pod = dir.write("pod.yaml", POD);
    let text = "containers:\n  app:\n    memory:\n    - {until: 20s, rss: 100Mi}\n    - {rss: 300MB}\n";
    let app = dir.write("app.yaml", text);
    let run = podsim(["run", "-f", &pod, "--app", &app]);
    assert_error(&run, &app, line_of(text, "300MB"), "containers.app.memory[1].rss: \"300MB\": quantities must match");
    let text = "containers:\n  app:\n    memory: [{rss: 1Mi, limit: 2Mi}]\n";
    let app = dir.write("app2.yaml", text);
    let run = podsim(["run", "-f", &pod, "--app", &app]);
    assert_error(&run, &app, 3, "containers.app.memory[0].limit: unknown field `limit`, expected `until` or `rss`");
}

/// A resource quantity that does not parse fails the decoding of the object
/// (`Quantity.UnmarshalJSON`), before validation; a negative one fails
/// `ValidateNonnegativeQuantity`.
#[test]
fn a_memory_limit_that_does_not_parse_or_is_negative_is_refused() {
    manifest_error(
        "oom-bad-limit",
        "    resources:\n      limits: {memory: 256MB}\n",
        "256MB",
        "spec.containers[0].resources.limits.memory: Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression",
    );
    manifest_error(
        "oom-bad-suffix",
        "    resources:\n      requests:\n        memory: 1K\n",
        "1K",
        "spec.containers[0].resources.requests.memory: Pod in version \"v1\" cannot be handled as a Pod: unable to parse quantity's suffix",
    );
    manifest_error(
        "oom-negative",
        "    resources:\n      requests: {memory: 1Mi}\n      limits: {memory: -256Mi}\n",
        "-256Mi",
        "spec.containers[0].resources.limits[memory]: Invalid value: \"-256Mi\": must be greater than or equal to 0",
    );
    let dir = TempDir::new("oom-bad-template");
    let text = std::fs::read_to_string("models/manifests/memory-leak.yaml")
        .unwrap()
        .replace("{memory: 256Mi}", "{memory: 256MB}");
    let file = dir.write("d.yaml", &text);
    let run = podsim(["run", "-f", &file]);
    assert_error(
        &run,
        &file,
        line_of(&text, "{memory: 256MB}"),
        "spec.template.spec.containers[0].resources.limits.memory: Deployment in version \"v1\" cannot be handled as a Deployment",
    );
}
