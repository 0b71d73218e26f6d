//! PodDisruptionBudgets, the Eviction API and `kubectl drain`: the
//! disruption controller's status, the API server's 429, and what kubectl
//! prints, at the times the semantics give.

use super::{assert_error, podsim};
use serde_json::Value;

/// What the JSONL of a run says about the drain.
#[derive(Default, Debug)]
struct Seen {
    /// (t, line, exit) of every line `kubectl drain` printed.
    kubectl: Vec<(f64, String, Option<i64>)>,
    /// (t, status.disruptionsAllowed) of every write of the budget.
    allowed: Vec<(f64, i64)>,
    /// (t, pod) of every pod that left the API server.
    deleted: Vec<(f64, String)>,
}

fn seen(stdout: &str) -> Seen {
    let mut s = Seen::default();
    for v in stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        let t = v["t"].as_f64().unwrap_or(-1.0);
        let o = &v["object"];
        match (v["type"].as_str(), o["kind"].as_str()) {
            (Some("KUBECTL"), _) if v["command"].as_str().is_some_and(|c| c.starts_with("kubectl drain")) => {
                s.kubectl.push((t, v["output"].as_str().unwrap_or_default().into(), v["exit"].as_i64()))
            }
            (Some(_), Some("PodDisruptionBudget")) => {
                s.allowed.push((t, o["status"]["disruptionsAllowed"].as_i64().unwrap_or(-1)))
            }
            (Some("DELETED"), Some("Pod")) => s.deleted.push((t, o["metadata"]["name"].as_str().unwrap_or("").into())),
            _ => {}
        }
    }
    s
}

impl Seen {
    /// The budget's disruptionsAllowed as stored at `t` (its last write at
    /// or before; strictly before: as an eviction at `t` found it).
    fn allowed_at(&self, t: f64, strictly: bool) -> i64 {
        let before = |w: f64| if strictly { w < t } else { w <= t };
        self.allowed.iter().rfind(|(w, _)| before(*w)).map_or(-1, |(_, a)| *a)
    }
    fn times(&self, line: &str) -> Vec<f64> {
        self.kubectl.iter().filter(|(_, l, _)| l == line).map(|(t, _, _)| *t).collect()
    }
}

const VIOLATES: &str = "Cannot evict pod as it would violate the pod's disruption budget.";

/// `drain.yaml`: the drain at 30 s cordons node-2 first; each of its pods
/// gets `evicting pod` at once. For every pod: an attempt the budget
/// refuses (its stored disruptionsAllowed is 0) prints the 429 line and is
/// tried again exactly 5 s later; the attempt that succeeds comes when the
/// budget allows one; `pod/NAME evicted` comes at the first 1 s poll of
/// `waitForDelete` at or after the pod left the API server, and
/// `node/node-2 drained` (exit 0) with the last of them. With seeds 1 and 4
/// node-2 holds two of the three replicas: the second is refused at 30 s
/// and 35 s and evicted at 40 s, after its peer's replacement became Ready.
#[test]
fn a_drain_blocked_by_the_budget_retries_every_five_seconds() {
    for seed in ["1", "2", "3", "4", "5"] {
        let run = podsim(["run", "models/scenarios/drain.yaml", "--seed", seed, "-o", "jsonl"]);
        assert_eq!(run.code, Some(0), "{run:?}");
        let s = seen(&run.stdout);
        assert_eq!(s.kubectl[0], (30.0, "node/node-2 cordoned".into(), None), "seed {seed}");
        let pods: Vec<String> = (s.kubectl.iter())
            .filter_map(|(_, l, _)| l.strip_prefix("evicting pod default/").map(str::to_string))
            .fold(Vec::new(), |mut v, p| {
                if !v.contains(&p) {
                    v.push(p)
                }
                v
            });
        let mut last = 0.0;
        for pod in &pods {
            let attempts = s.times(&format!("evicting pod default/{pod}"));
            assert_eq!(attempts[0], 30.0, "seed {seed} {pod}");
            let refused = s
                .times(&format!("error when evicting pods/\"{pod}\" -n \"default\" (will retry after 5s): {VIOLATES}"));
            // Every attempt but the last was refused, and the next came 5 s later.
            assert_eq!(refused, attempts[..attempts.len() - 1], "seed {seed} {pod}");
            for w in attempts.windows(2) {
                assert!((w[1] - w[0] - 5.0).abs() < 1e-9, "seed {seed} {pod}: {attempts:?}");
            }
            for t in &refused {
                assert_eq!(s.allowed_at(*t, false), 0, "seed {seed} {pod} refused at {t} with disruptions allowed");
            }
            let evicted_at = *attempts.last().unwrap();
            assert!(s.allowed_at(evicted_at, true) >= 1, "seed {seed} {pod} evicted at {evicted_at}");
            let gone = s.deleted.iter().find(|(_, p)| p == pod).map(|(t, _)| *t).expect("deleted");
            let polled = evicted_at + (gone - evicted_at).ceil();
            assert_eq!(s.times(&format!("pod/{pod} evicted")), [polled], "seed {seed} {pod} gone at {gone}");
            last = f64::max(last, polled);
        }
        assert_eq!(s.kubectl.last().unwrap(), &(last, "node/node-2 drained".into(), Some(0)), "seed {seed}");
        if seed == "1" || seed == "4" {
            assert_eq!(pods.len(), 2, "seed {seed}");
            assert_eq!(s.times(&format!("evicting pod default/{}", pods[1])), [30.0, 35.0, 40.0], "seed {seed}");
        }
    }
}

/// A PodDisruptionBudget with both minAvailable and maxUnavailable is
/// refused as the API server refuses it (`ValidatePodDisruptionBudgetSpec`),
/// as is a percent above 100 and an unknown policy.
#[test]
fn an_invalid_budget_is_refused_at_its_field() {
    let dir = crate::TempDir::new("pdb-invalid");
    let deploy = std::fs::read_to_string("models/manifests/web-pdb.yaml").unwrap();
    let head = deploy.split("---").next().unwrap().to_string();
    let cases = [
        (
            "  minAvailable: 1\n  maxUnavailable: 1\n",
            "spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000…), \
             Selector:(*v1.LabelSelector)(0xc000…), MaxUnavailable:(*intstr.IntOrString)(0xc000…), \
             UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set",
            "minAvailable",
        ),
        (
            "  maxUnavailable: 150%\n",
            "spec.maxUnavailable: Invalid value: 150%: must not be greater than 100%",
            "maxUnavailable",
        ),
        (
            "  minAvailable: 1\n  unhealthyPodEvictionPolicy: Never\n",
            "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": supported values: \"AlwaysAllow\", \"IfHealthyBudget\"",
            "unhealthyPodEvictionPolicy",
        ),
    ];
    for (i, (spec, message, key)) in cases.iter().enumerate() {
        let text = format!(
            "{head}---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n{spec}  selector:\n    matchLabels: {{app: web}}\n"
        );
        let file = dir.write(&format!("bad-{i}.yaml"), &text);
        let run = podsim(["run", "-f", &file]);
        let line = text.lines().position(|l| l.contains(key)).unwrap() + 1;
        let line = if *key == "minAvailable" { line - 1 } else { line };
        assert_error(&run, &file, line as u64, message);
    }
}

/// `--evict` of a pod its budget protects: once every replica is Ready
/// the budget allows one disruption, and a second eviction right after the
/// first is refused with 429 (disruptionsAllowed spent; the cause gives the
/// status as stored: 3 healthy, the controller not having seen the
/// deletion yet). A pod still Pending ignores the budget (`canIgnorePDB`).
#[test]
fn the_eviction_api_answers_as_the_budget_allows() {
    let early = podsim(["run", "models/scenarios/drain.yaml", "--until", "1s", "--evict", "pod/web-*@0.065s"]);
    assert_eq!(early.code, Some(0), "{early:?}");
    assert!(early.stdout.contains("(policy/v1 Eviction): 201 Success"), "{}", early.stdout);
    let args = [
        "run",
        "models/scenarios/drain.yaml",
        "--until",
        "21s",
        "--evict",
        "pod/web-*@20s",
        "--evict",
        "pod/web-*@20s",
    ];
    let run = podsim(args);
    assert_eq!(run.code, Some(0), "{run:?}");
    let rows: Vec<&str> = run.stdout.lines().filter(|l| l.contains("/eviction")).collect();
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    assert!(rows[0].contains("(policy/v1 Eviction): 201 Success"), "{rows:?}");
    assert!(rows[1].contains("429 TooManyRequests: Cannot evict pod as it would violate the pod's disruption budget. (The disruption budget web needs 2 healthy pods and has 3 currently)"), "{rows:?}");
    assert!(run.stdout.contains("DisruptionTarget=True"), "{}", run.stdout);
}

/// A drain of a node holding a pod without a controller fails before it
/// evicts anything, with kubectl's (doubled) message; `--force` deletes it
/// with a warning.
#[test]
fn a_drain_refuses_a_pod_without_a_controller_unless_forced() {
    let dir = crate::TempDir::new("drain-bare");
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bare\nspec:\n  nodeName: node-1\n  containers:\n  - name: app\n    image: nginx:1.27\n";
    let file = dir.write("bare.yaml", pod);
    let base = ["run", "-f", &file, "--cluster", "models/clusters/two-nodes.yaml", "--until", "20s", "-o", "jsonl"];
    let run = podsim([&base[..], &["--drain", "node/node-1@10s"]].concat());
    let s = seen(&run.stdout);
    let error = "cannot delete cannot delete Pods that declare no controller (use --force to override): default/bare";
    let want: Vec<(f64, String, Option<i64>)> = vec![
        (10.0, "node/node-1 cordoned".into(), None),
        (10.0, format!("error: unable to drain node \"node-1\" due to error: {error}, continuing command..."), None),
        (10.0, "There are pending nodes to be drained:".into(), None),
        (10.0, " node-1".into(), None),
        (10.0, error.into(), Some(1)),
    ];
    assert_eq!(s.kubectl, want);
    let run = podsim([&base[..], &["--drain", "node/node-1@10s,force=true"]].concat());
    let s = seen(&run.stdout);
    assert_eq!(s.kubectl[1], (10.0, "Warning: deleting Pods that declare no controller: default/bare".into(), None));
    assert_eq!(s.kubectl[2], (10.0, "evicting pod default/bare".into(), None));
    let gone = s.deleted.iter().find(|(_, p)| p == "bare").map(|(t, _)| *t).expect("deleted");
    let polled = 10.0 + (gone - 10.0_f64).ceil();
    assert_eq!(
        s.kubectl[3..],
        [(polled, "pod/bare evicted".into(), None), (polled, "node/node-1 drained".into(), Some(0))]
    );
}

/// A counterexample's re-run command carries `--evict` and `--drain`, and
/// the `evicted` milestone is the instant the Eviction API let the pod go:
/// with the drain of `drain.yaml` moved to node-1 at 31 s and an eviction
/// at 20 s, no pod is evicted before 20 s.
#[test]
fn a_re_run_command_keeps_the_eviction_flags() {
    let run = podsim([
        "verify",
        "models/scenarios/drain.yaml",
        "--runs",
        "2",
        "--evict",
        "pod/web-*@20s",
        "--drain",
        "node/node-1@31s,timeout=1m",
        "-p",
        "always pod/*:evicted >= 21s",
    ]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stdout.contains(":evicted at 20.000s"), "{}", run.stdout);
    assert!(
        run.stdout.contains("re-run: podsim verify models/scenarios/drain.yaml --evict 'pod/web-*@20s' --drain node/node-1@31s,timeout=1m --seed 1"),
        "{}",
        run.stdout
    );
}

/// `evict.yaml` over five seeds: each `POST pods/NAME/eviction` is answered
/// from the pod and the budget as stored at that instant, as
/// `EvictionREST.Create` decides: a Pending pod goes (`canIgnorePDB`); an
/// unready one goes only while currentHealthy ≥ desiredHealthy > 0
/// (IfHealthyBudget); else one disruption must be allowed, or the 429's
/// cause gives the stored desiredHealthy and currentHealthy. A pod let go
/// has DisruptionTarget=True (EvictionByEvictionAPI) and a deletionTimestamp
/// at that instant.
#[test]
fn each_eviction_is_answered_from_the_stored_budget() {
    let mut answers = Vec::new();
    for seed in ["1", "2", "3", "4", "5"] {
        let run = podsim(["run", "models/scenarios/evict.yaml", "--seed", seed, "-o", "jsonl"]);
        assert_eq!(run.code, Some(0), "{run:?}");
        let mut pods: std::collections::BTreeMap<String, Value> = Default::default();
        let mut status = Value::Null;
        let mut pending: Option<(f64, String)> = None;
        for v in run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
            let o = &v["object"];
            let t = v["t"].as_f64().unwrap_or(-1.0);
            match (v["type"].as_str(), o["kind"].as_str()) {
                (Some("SCENARIO"), _) => {
                    let name = v["object"].as_str().unwrap().trim_start_matches("pod/").to_string();
                    let action = v["action"].as_str().unwrap();
                    let p = &pods[&name]["status"];
                    let phase = p["phase"].as_str().unwrap_or("Pending");
                    let ready = (p["conditions"].as_array().into_iter().flatten())
                        .any(|c| c["type"] == "Ready" && c["status"] == "True");
                    let (current, desired) =
                        (status["currentHealthy"].as_i64().unwrap(), status["desiredHealthy"].as_i64().unwrap());
                    let allowed = status["disruptionsAllowed"].as_i64().unwrap();
                    let goes = phase == "Pending" || (!ready && current >= desired && desired > 0) || allowed > 0;
                    let want = match goes {
                        true => "(policy/v1 Eviction): 201 Success".to_string(),
                        false => format!(
                            "(policy/v1 Eviction): 429 TooManyRequests: {VIOLATES} (The disruption budget web needs {desired} healthy pods and has {current} currently)"
                        ),
                    };
                    assert!(action.ends_with(&want), "seed {seed} at {t}: {action}\nwant …{want}");
                    answers.push((seed, t, goes));
                    pending = goes.then_some((t, name));
                }
                (Some(_), Some("PodDisruptionBudget")) => status = o["status"].clone(),
                (Some(_), Some("Pod")) => {
                    let name = o["metadata"]["name"].as_str().unwrap().to_string();
                    if let Some((at, evicted)) = pending.take_if(|(_, n)| *n == name) {
                        // The first write after a 201: the condition, then the DELETE.
                        let c = (o["status"]["conditions"].as_array().into_iter().flatten())
                            .find(|c| c["type"] == "DisruptionTarget")
                            .cloned()
                            .unwrap_or_default();
                        assert_eq!(
                            (t, c["reason"].as_str(), c["message"].as_str()),
                            (at, Some("EvictionByEvictionAPI"), Some("Eviction API: evicting")),
                            "{evicted}"
                        );
                    }
                    pods.insert(name, o.clone());
                }
                _ => {}
            }
        }
    }
    // Seed 1 as the scenario tells it: refused at 9 s (no replica Ready yet),
    // one let go and one refused at 20 s, the last let go at 30 s.
    let one: Vec<(f64, bool)> = answers.iter().filter(|a| a.0 == "1").map(|a| (a.1, a.2)).collect();
    assert_eq!(one, [(9.0, false), (20.0, true), (20.0, false), (30.0, true)]);
}

/// `--timeout` in the wait: a pod that ignores SIGTERM stays Terminating for
/// its 30 s grace, so the drain's 10 s run out. `waitForDelete` checks the
/// context only at its 1 s polls, so the error comes at the first poll at or
/// after the deadline (10 s after the drain: 20 s); the pod is still on the
/// node, so the block starts with the pending pods.
#[test]
fn a_drain_times_out_waiting_for_a_pod_that_ignores_sigterm() {
    let dir = crate::TempDir::new("drain-timeout");
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: stubborn\nspec:\n  nodeName: node-1\n  containers:\n  - name: app\n    image: nginx:1.27\n";
    let file = dir.write("stubborn.yaml", pod);
    let app = dir.write("app.yaml", "containers:\n  app:\n    sigterm: {ignore: true}\n");
    let run = podsim([
        "run",
        "-f",
        &file,
        "--app",
        &app,
        "--cluster",
        "models/clusters/two-nodes.yaml",
        "--until",
        "45s",
        "-o",
        "jsonl",
        "--drain",
        "node/node-1@10s,timeout=10s,force=true",
    ]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let s = seen(&run.stdout);
    let error =
        "error when waiting for pod \"stubborn\" in namespace \"default\" to terminate: global timeout reached: 10s";
    let tail: Vec<(f64, String, Option<i64>)> = vec![
        (20.0, format!("There are pending pods in node \"node-1\" when an error occurred: {error}"), None),
        (20.0, "pod/stubborn".into(), None),
        (20.0, format!("error: unable to drain node \"node-1\" due to error: {error}, continuing command..."), None),
        (20.0, "There are pending nodes to be drained:".into(), None),
        (20.0, " node-1".into(), None),
        (20.0, error.into(), Some(1)),
    ];
    assert_eq!(s.kubectl[..3].iter().map(|(t, ..)| *t).collect::<Vec<_>>(), [10.0, 10.0, 10.0]);
    assert_eq!(s.kubectl[3..], tail[..]);
}

/// The rest of `EvictionREST.Create`'s answers, on `evict.yaml`'s pods at
/// 9 s (Running, none Ready yet): with `unhealthyPodEvictionPolicy:
/// AlwaysAllow` an unready pod goes without spending the budget (it stays
/// at 0 allowed, `disruptedPods` empty); a pod two budgets select gets the 500.
#[test]
fn always_allow_and_two_budgets() {
    let dir = crate::TempDir::new("pdb-policies");
    let deploy = std::fs::read_to_string("models/manifests/web-pdb.yaml").unwrap();
    let head = deploy.split("---").next().unwrap().to_string();
    let budget = |name: &str, extra: &str| {
        format!(
            "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: {name}\nspec:\n  minAvailable: 2\n{extra}  selector:\n    matchLabels: {{app: web}}\n"
        )
    };
    let args = |file: &str| {
        [
            "run",
            "-f",
            file,
            "--app",
            "models/apps/web-ready-after-5s.yaml",
            "--cluster",
            "models/clusters/two-nodes.yaml",
            "--until",
            "10s",
            "--evict",
            "pod/web-*@9s",
            "-o",
            "jsonl",
        ]
        .map(str::to_string)
    };
    let always =
        dir.write("always.yaml", &format!("{head}{}", budget("web", "  unhealthyPodEvictionPolicy: AlwaysAllow\n")));
    let run = podsim(args(&always));
    assert_eq!(run.code, Some(0), "{run:?}");
    let row = run.stdout.lines().find(|l| l.contains("/eviction")).unwrap();
    assert!(row.contains("(policy/v1 Eviction): 201 Success"), "{row}");
    let s = seen(&run.stdout);
    assert!(s.allowed.iter().all(|(_, a)| *a == 0), "{:?}", s.allowed);
    assert!(!run.stdout.contains("disruptedPods"), "the budget is not spent");
    let two = dir.write("two.yaml", &format!("{head}{}{}", budget("web", ""), budget("web-too", "")));
    let run = podsim(args(&two));
    assert_eq!(run.code, Some(0), "{run:?}");
    let row = run.stdout.lines().find(|l| l.contains("/eviction")).unwrap();
    assert!(
        row.contains("(policy/v1 Eviction): 500 InternalError: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."),
        "{row}"
    );
}

/// `makeFilters` on two pods without a controller, `cache` with an emptyDir
/// volume: without flags each refusal is its own error (`cannot delete
/// MESSAGE: ns/pod`), the node's line prints the aggregate as `[e1, e2]`
/// and `CheckErr` one per line (podsim sorts what Go's map orders at
/// random); `--force` leaves the local-storage refusal; with
/// `--delete-emptydir-data` too, the one warning is the last filter's
/// (`localStorageFilter`'s own warning is dropped), the pods in the API's
/// list order (by name: bare, then cache).
#[test]
fn the_drain_filters_refuse_local_storage_and_unmanaged_pods() {
    let dir = crate::TempDir::new("drain-filters");
    let pod = |name: &str, volume: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  nodeName: node-1\n  containers:\n  - name: app\n    image: nginx:1.27\n{volume}"
        )
    };
    let text = format!("{}---\n{}", pod("cache", "  volumes:\n  - name: scratch\n    emptyDir: {}\n"), pod("bare", ""));
    let file = dir.write("two.yaml", &text);
    let lines = |options: &str| {
        let drain = format!("node/node-1@10s{options}");
        let args = [
            "run",
            "-f",
            &file,
            "--cluster",
            "models/clusters/two-nodes.yaml",
            "--until",
            "15s",
            "-o",
            "jsonl",
            "--drain",
            &drain,
        ];
        seen(&podsim(args).stdout).kubectl.into_iter().map(|(_, l, _)| l).collect::<Vec<_>>()
    };
    let local = "cannot delete Pods with local storage (use --delete-emptydir-data to override): default/cache";
    let unmanaged =
        "cannot delete cannot delete Pods that declare no controller (use --force to override): default/bare";
    let block = |text: &str| {
        vec![
            "node/node-1 cordoned".to_string(),
            format!("error: unable to drain node \"node-1\" due to error: {text}, continuing command..."),
            "There are pending nodes to be drained:".into(),
            " node-1".into(),
        ]
    };
    let mut want = block(&format!("[{local}, {unmanaged}]"));
    want.extend([local.to_string(), unmanaged.to_string()]);
    assert_eq!(lines(""), want);
    let mut want = block(local);
    want.push(local.into());
    assert_eq!(lines(",force=true"), want);
    let forced = lines(",force=true,delete-emptydir-data=true");
    assert_eq!(
        forced[1..4],
        [
            "Warning: deleting Pods that declare no controller: default/bare, default/cache",
            "evicting pod default/bare",
            "evicting pod default/cache"
        ]
    );
    assert_eq!(forced.last().unwrap(), "node/node-1 drained");
}

/// A `maxUnavailable` budget over a pod no controller owns: the scale
/// (`getExpectedScale`) leaves it out, so 0 pods are expected and no
/// disruption is allowed, and each sync says so in an `UnmanagedPods`
/// Warning about the budget (the correlator counting the repeats); a budget
/// that selects nothing (yet) says `NoPods`.
#[test]
fn a_budget_over_unmanaged_pods_says_so() {
    let dir = crate::TempDir::new("pdb-unmanaged");
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bare\n  labels: {app: web}\nspec:\n  containers:\n  - name: app\n    image: nginx:1.27\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels: {app: web}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: none\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels: {app: nothing}\n";
    let file = dir.write("bare.yaml", text);
    let run = podsim(["run", "-f", &file, "--until", "20s", "-o", "jsonl"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let events: Vec<Value> = (run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()))
        .filter(|v| v["type"] == "EVENT" && v["object"]["involvedObject"]["kind"] == "PodDisruptionBudget")
        .map(|v| v["object"].clone())
        .collect();
    let unmanaged = events.iter().filter(|e| e["reason"] == "UnmanagedPods").collect::<Vec<_>>();
    assert!(!unmanaged.is_empty(), "{events:?}");
    let e = unmanaged.last().unwrap();
    assert_eq!(e["type"], "Warning");
    assert_eq!(e["involvedObject"]["name"], "web");
    assert_eq!(e["involvedObject"]["apiVersion"], "policy/v1");
    assert_eq!(e["source"]["component"], "controllermanager");
    assert_eq!(
        e["message"],
        "Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value."
    );
    assert_eq!(e["count"].as_i64(), Some(unmanaged.len() as i64), "one event, its count raised");
    let none =
        events.iter().find(|e| e["reason"] == "NoPods" && e["involvedObject"]["name"] == "none").expect("NoPods");
    assert_eq!((none["type"].as_str(), none["message"].as_str()), (Some("Normal"), Some("No matching pods found")));
    let writes: Vec<Value> = (run.stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()))
        .filter(|v| v["object"]["kind"] == "PodDisruptionBudget" && v["object"]["metadata"]["name"] == "web")
        .collect();
    let status = &writes.last().unwrap()["object"]["status"];
    let counts = [&status["expectedPods"], &status["desiredHealthy"], &status["disruptionsAllowed"]];
    assert_eq!(counts.map(|c| c.as_i64()), [Some(0), Some(0), Some(0)]);
}

/// `--grace-period` reaches the eviction's DeleteOptions: the pod's
/// deletionTimestamp is the drain's instant plus 5 s, not its own 30 s.
#[test]
fn a_drain_passes_its_grace_period_to_the_eviction() {
    let dir = crate::TempDir::new("drain-grace");
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bare\nspec:\n  nodeName: node-1\n  containers:\n  - name: app\n    image: nginx:1.27\n";
    let file = dir.write("bare.yaml", pod);
    let drain = "node/node-1@10s,grace-period=5,force=true";
    let run =
        podsim(["run", "-f", &file, "--cluster", "models/clusters/two-nodes.yaml", "--until", "20s", "--drain", drain]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("kubectl drain node-1 --grace-period=5 --force"), "{}", run.stdout);
    let row = run.stdout.lines().find(|l| l.contains("deletionTimestamp=")).unwrap();
    assert!(row.starts_with("    10.000s") && row.contains("deletionTimestamp=+15s (grace 5s)"), "{row}");
}
