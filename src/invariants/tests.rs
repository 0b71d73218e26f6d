//! The checker can fail: every rule of the catalogue (Pod-object rules,
//! simulation-only rules, the Service path's) is fed a trace broken for it
//! and must report itself VIOLATED by name, and must hold on the same trace
//! unbroken. A rule added to a catalogue without a case here fails
//! `every_rule_has_a_broken_trace`.

use super::{Checker, Report, Verdict, catalogue, check_run};
use crate::cluster::Cluster;
use crate::error::SourceFile;
use crate::run::{Inputs, Prepared, prepare, simulate};
use crate::spec::ProbeKind;
use crate::time::{SimDuration, SimTime};
use crate::trace::record::{ProcessFact, Record, WatchKind};
use crate::trace::{Entry, Trace};
use serde_json::{Value, json};
use std::sync::Arc;

/// A rule's pair of traces: the report on the broken one, the report on the
/// sound one, and the report entry (pod) that carries the rule.
struct Judged {
    pod: String,
    broken: Report,
    sound: Report,
}

type Case = (&'static str, fn() -> Judged);

const CASES: &[Case] = &[
    ("ready-implies-containers-ready", ready_without_containers_ready),
    ("containers-ready-implies-all-ready", containers_ready_with_an_unready_container),
    ("ready-implies-running", ready_but_not_running),
    ("initialized-after-init", initialized_while_init_runs),
    ("ready-after-initial-delay", ready_before_the_initial_delay),
    ("restart-gap-backoff", restart_inside_the_backoff),
    ("crashloop-message-delay", backoff_message_too_long),
    ("transition-time-moves-with-status", transition_time_moves_alone),
    ("restart-count-steps", restart_count_goes_down),
    ("phase-consistent", succeeded_after_a_failure),
    ("exit-code-reason", completed_with_exit_1),
    ("no-start-after-deletion", restarts_after_deletion),
    ("endpoint-conditions", ready_endpoint_while_terminating),
    ("startup-gates-probes", readiness_probe_before_startup_success),
    ("init-order", app_starts_before_init_exits),
    ("stopped-within-grace", exit_after_the_grace),
    ("sidecars-stop-last", sidecar_stopped_before_the_app),
    ("crash-loop-backoff", restart_before_the_backoff),
    ("deletion-stops-containers", running_at_the_final_delete),
    ("request-follows-proxy-rules", request_to_an_unprogrammed_endpoint),
    ("proxy-after-slice", forwarding_without_slices),
    ("one-outcome-per-request", request_recorded_twice),
    ("controller-counts", ready_above_current),
    ("job-parallelism", job_pods_beyond_parallelism),
    ("job-replacement-backoff", job_pod_before_the_backoff),
    ("ordinal-order", second_ordinal_before_the_first_is_ready),
];

/// Every rule the checker can report, taken from the catalogues and from
/// the Service path's report on a scenario that has one.
fn every_rule() -> Vec<&'static str> {
    let mut rules: Vec<&'static str> = catalogue().map(|(i, _)| i.name).collect();
    let (p, trace) = simulated("models/scenarios/c28-service.yaml");
    let report = check_run(&trace, &p.clock, &p.setup, SimTime::ZERO + p.until);
    let path = report.pods.iter().find(|r| r.pod == super::service_path::ENTRY).expect("c28 has a Service path");
    rules.extend(path.verdicts.keys().copied());
    rules
}

#[test]
fn every_rule_has_a_broken_trace() {
    let rules = every_rule();
    for rule in &rules {
        assert!(CASES.iter().any(|(r, _)| r == rule), "{rule}: no broken trace in CASES");
    }
    for (rule, _) in CASES {
        assert!(rules.contains(rule), "{rule}: in CASES but not a rule the checker reports");
    }
}

#[test]
fn each_broken_trace_fires_its_rule_by_name() {
    let mut failures = Vec::new();
    for (rule, case) in CASES {
        let Judged { pod, broken, sound } = case();
        let rendered = broken.render();
        if !matches!(broken.verdict(&pod, rule), Some(Verdict::Violated { .. })) {
            failures.push(format!("{rule}: not violated on its broken trace:\n{rendered}"));
        } else if !rendered.contains(&format!("VIOLATED  {rule}")) {
            failures.push(format!("{rule}: the report does not name it:\n{rendered}"));
        }
        if !matches!(sound.verdict(&pod, rule), Some(Verdict::Holds { .. })) {
            failures.push(format!("{rule}: does not hold on the sound trace:\n{}", sound.render()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- Pod objects, as a watch stream -------------------------------------

/// Judges API objects given in watch order.
fn watch(objects: &[Value]) -> Report {
    let lines: Vec<String> = objects.iter().map(|o| json!({"type": "MODIFIED", "object": o}).to_string()).collect();
    let file = Arc::new(SourceFile { name: "watch.json".into(), text: lines.join("\n") });
    let mut c = Checker::new(Cluster::default());
    let problems = crate::observe::read(&file, &mut |r| c.observe(&r));
    assert!(problems.is_empty(), "{problems:?}");
    c.report()
}

fn judged(broken: &[Value], sound: &[Value]) -> Judged {
    Judged { pod: "web".into(), broken: watch(broken), sound: watch(sound) }
}

/// Pod `web` (one container `app` unless `spec` says otherwise).
fn pod(spec: Value, status: Value) -> Value {
    let spec = if spec.is_null() { json!({"containers": [{"name": "app", "image": "app:1"}]}) } else { spec };
    let mut spec = spec;
    if spec.get("restartPolicy").is_none() {
        spec["restartPolicy"] = json!("Always");
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "uid": "u1", "namespace": "default"},
        "spec": spec, "status": status})
}

fn at(secs: u32) -> String {
    format!("2026-01-01T00:{:02}:{:02}Z", secs / 60, secs % 60)
}

fn condition(kind: &str, status: &str, since: u32) -> Value {
    json!({"type": kind, "status": status, "lastTransitionTime": at(since)})
}

/// Container `name` running since `since`.
fn running(name: &str, ready: bool, started: bool, since: u32) -> Value {
    json!({"name": name, "image": "app:1", "imageID": "", "containerID": format!("containerd://{name}-0"),
        "ready": ready, "started": started, "restartCount": 0, "state": {"running": {"startedAt": at(since)}}})
}

fn status(phase: &str, conditions: Value, containers: Value) -> Value {
    json!({"phase": phase, "conditions": conditions, "containerStatuses": containers})
}

/// GenerateContainersReadyCondition feeds Ready: Ready=True over ContainersReady=False.
fn ready_without_containers_ready() -> Judged {
    let with = |ready: &str| {
        let conditions = json!([condition("Ready", ready, 5), condition("ContainersReady", "False", 0)]);
        pod(Value::Null, status("Running", conditions, json!([running("app", false, true, 1)])))
    };
    judged(&[with("True")], &[with("False")])
}

/// ContainersReady=True with `app` not ready.
fn containers_ready_with_an_unready_container() -> Judged {
    let with = |ready: bool| {
        let conditions = json!([condition("Ready", "True", 5), condition("ContainersReady", "True", 5)]);
        pod(Value::Null, status("Running", conditions, json!([running("app", ready, true, 1)])))
    };
    judged(&[with(false)], &[with(true)])
}

/// A ready container whose startup has not succeeded.
fn ready_but_not_running() -> Judged {
    let conditions = || json!([condition("Ready", "True", 5), condition("ContainersReady", "True", 5)]);
    let with =
        |started: bool| pod(Value::Null, status("Running", conditions(), json!([running("app", true, started, 1)])));
    let in_state = |state: Value| {
        let c = json!({"name": "app", "image": "app:1", "imageID": "", "containerID": "containerd://app-0",
            "ready": true, "started": false, "restartCount": 0, "state": state});
        pod(Value::Null, status("Running", conditions(), json!([c])))
    };
    // A late readiness result marks the instance that has just exited ready
    // (SetContainerReadiness finds its containerID); a waiting one never is.
    let exited = json!({"terminated": {"exitCode": 1, "reason": "Error", "startedAt": at(1), "finishedAt": at(4)}});
    let waiting = json!({"waiting": {"reason": "CrashLoopBackOff"}});
    // Running, not started, ready: `SetContainerStartup` after a 1.34 kubelet restart.
    judged(&[in_state(waiting)], &[with(true), with(false), in_state(exited)])
}

/// Initialized=True while the init container still runs and `app` waits.
fn initialized_while_init_runs() -> Judged {
    let spec = json!({"initContainers": [{"name": "init", "image": "init:1"}],
        "containers": [{"name": "app", "image": "app:1"}]});
    let with = |init: Value| {
        let mut s = status(
            "Pending",
            json!([condition("Initialized", "True", 8)]),
            json!([{"name": "app", "image": "app:1", "imageID": "", "ready": false, "restartCount": 0,
                "state": {"waiting": {"reason": "PodInitializing"}}}]),
        );
        s["initContainerStatuses"] = json!([init]);
        pod(spec.clone(), s)
    };
    let done = json!({"name": "init", "image": "init:1", "imageID": "", "containerID": "containerd://init-0",
        "ready": true, "restartCount": 0,
        "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": at(1), "finishedAt": at(7)}}});
    judged(&[with(running("init", false, true, 1))], &[with(done)])
}

/// Ready 3 s after the start of a container whose readiness probe waits 10 s.
fn ready_before_the_initial_delay() -> Judged {
    let spec = json!({"containers": [{"name": "app", "image": "app:1",
        "readinessProbe": {"exec": {"command": ["true"]}, "initialDelaySeconds": 10}}]});
    let with = |ready_at: u32| {
        let conditions = json!([condition("Ready", "True", ready_at), condition("ContainersReady", "True", ready_at)]);
        pod(spec.clone(), status("Running", conditions, json!([running("app", true, true, 0)])))
    };
    judged(&[with(3)], &[with(10)])
}

/// Restart 3 of a container that exits by itself, 4 s after its exit
/// (doBackOff: 10 s · 2^(3−2) = 20 s).
fn restart_inside_the_backoff() -> Judged {
    let with = |restarted: u32| {
        let app = json!({"name": "app", "image": "app:1", "imageID": "", "containerID": "containerd://app-3",
            "ready": true, "started": true, "restartCount": 3, "state": {"running": {"startedAt": at(restarted)}},
            "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "containerID": "containerd://app-2",
                "startedAt": at(40), "finishedAt": at(41)}}});
        pod(Value::Null, status("Running", json!([]), json!([app])))
    };
    judged(&[with(45)], &[with(61)])
}

/// `back-off 2m40s` at restartCount 2, where the entry has doubled once (20 s).
fn backoff_message_too_long() -> Judged {
    let with = |delay: &str| {
        let app = json!({"name": "app", "image": "app:1", "imageID": "", "ready": false, "restartCount": 2,
            "state": {"waiting": {"reason": "CrashLoopBackOff",
                "message": format!("back-off {delay} restarting failed container=app pod=web_default(u1)")}}});
        pod(Value::Null, status("Running", json!([]), json!([app])))
    };
    judged(&[with("2m40s")], &[with("20s")])
}

/// Ready stays True while its lastTransitionTime moves.
fn transition_time_moves_alone() -> Judged {
    let with = |since: u32| {
        let conditions = json!([condition("Ready", "True", since), condition("ContainersReady", "True", 10)]);
        pod(Value::Null, status("Running", conditions, json!([running("app", true, true, 1)])))
    };
    judged(&[with(10), with(30)], &[with(10), with(10)])
}

/// restartCount 3, then 2.
fn restart_count_goes_down() -> Judged {
    let with = |count: u32, last: Option<u32>| {
        let mut app = running("app", true, true, 1);
        app["restartCount"] = json!(count);
        app["containerID"] = json!(format!("containerd://app-{count}"));
        if let Some(l) = last {
            app["lastState"] = json!({"terminated": {"exitCode": 1, "reason": "Error",
                "containerID": format!("containerd://app-{l}")}});
        }
        pod(Value::Null, status("Running", json!([]), json!([app])))
    };
    judged(&[with(3, None), with(2, None)], &[with(3, None), with(4, Some(3))])
}

/// restartPolicy Never and exit 1: getPhase gives Failed, never Succeeded.
fn succeeded_after_a_failure() -> Judged {
    let spec = json!({"restartPolicy": "Never", "containers": [{"name": "app", "image": "app:1"}]});
    let with = |phase: &str| {
        let app = json!({"name": "app", "image": "app:1", "imageID": "", "containerID": "containerd://app-0",
            "ready": false, "restartCount": 0,
            "state": {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": at(1), "finishedAt": at(3)}}});
        pod(spec.clone(), status(phase, json!([]), json!([app])))
    };
    judged(&[with("Succeeded")], &[with("Failed")])
}

/// reason Completed with exit code 1.
fn completed_with_exit_1() -> Judged {
    let with = |reason: &str| {
        let app = json!({"name": "app", "image": "app:1", "imageID": "", "containerID": "containerd://app-0",
            "ready": false, "restartCount": 0,
            "state": {"terminated": {"exitCode": 1, "reason": reason, "startedAt": at(1), "finishedAt": at(3)}}});
        pod(Value::Null, status("Running", json!([]), json!([app])))
    };
    judged(&[with("Completed")], &[with("Error")])
}

/// A deleted pod whose container starts twice more.
fn restarts_after_deletion() -> Judged {
    let with = |count: u32| {
        let mut p = restart_count_pod(count);
        p["metadata"]["deletionTimestamp"] = json!(at(40));
        p["metadata"]["deletionGracePeriodSeconds"] = json!(30);
        p
    };
    judged(&[with(1), with(3)], &[with(1), with(2)])
}

fn restart_count_pod(count: u32) -> Value {
    let mut app = running("app", false, true, 1);
    app["restartCount"] = json!(count);
    pod(Value::Null, status("Running", json!([]), json!([app])))
}

/// podToEndpoint: a terminating endpoint is not ready (no Service with
/// publishNotReadyAddresses).
fn ready_endpoint_while_terminating() -> Judged {
    let slice = |ready: bool| {
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": "web-abc", "labels": {"kubernetes.io/service-name": "web",
                "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"}},
            "addressType": "IPv4",
            "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": ready, "serving": true, "terminating": true},
                "targetRef": {"kind": "Pod", "name": "web", "uid": "u1"}}]})
    };
    Judged { pod: "(EndpointSlices)".into(), broken: watch(&[slice(true)]), sound: watch(&[slice(false)]) }
}

/// `kubectl get rs -w`: READY 3 while CURRENT is 2 (calculateStatus counts
/// ready pods among the active ones); the sound rows have READY 2.
fn ready_above_current() -> Judged {
    let rows = |ready: u32| {
        let text = format!(
            "NAME        DESIRED   CURRENT   READY   AGE\nweb-5d8f9   3         2         1       10s\nweb-5d8f9   3         2         {ready}       12s\n"
        );
        let file = Arc::new(SourceFile { name: "rs.txt".into(), text });
        let mut c = Checker::new(Cluster::default());
        let problems = crate::observe::read(&file, &mut |r| c.observe(&r));
        assert!(problems.iter().all(|p| !p.is_error()), "{problems:?}");
        c.report()
    };
    Judged { pod: "(ReplicaSet web-5d8f9)".into(), broken: rows(3), sound: rows(2) }
}

// ---- Simulated traces, with one fact moved ------------------------------

/// web-1's creation moved to right after web-0's, while web-0 is Pending.
fn second_ordinal_before_the_first_is_ready() -> Judged {
    mutated("models/scenarios/statefulset-rollout.yaml", "(StatefulSet web)", |t| {
        let added = |name: &str| {
            let at =
                |e: &Entry| matches!(&e.record, Record::Pod { kind: WatchKind::Added, pod } if pod.spec.name == name);
            t.entries.iter().position(at).expect("the pod is created")
        };
        let (first, second) = (added("web-0"), added("web-1"));
        let mut moved = t.entries.remove(second);
        moved.t = t.entries[first].t;
        t.entries.insert(first + 1, moved);
    })
}

fn simulated(scenario: &str) -> (Prepared, Trace) {
    let p = prepare(&Inputs { scenario: Some(scenario.into()), ..Default::default() }).unwrap();
    let trace = simulate(&p.setup, p.seed, SimTime::ZERO + p.until);
    (p, trace)
}

/// The scenario's trace judged as `podsim run` judges it, before and after `break_it`.
fn mutated(scenario: &str, pod: &str, break_it: impl FnOnce(&mut Trace)) -> Judged {
    let (p, trace) = simulated(scenario);
    let until = SimTime::ZERO + p.until;
    let sound = check_run(&trace, &p.clock, &p.setup, until);
    let mut broken = trace;
    break_it(&mut broken);
    Judged { pod: pod.into(), broken: check_run(&broken, &p.clock, &p.setup, until), sound }
}

/// The index of the first entry `f` picks.
fn find(trace: &Trace, f: impl Fn(&Record) -> bool) -> usize {
    trace.entries.iter().position(|e| f(&e.record)).expect("the scenario has the record")
}

fn is_process(r: &Record, who: &str, what: fn(&ProcessFact) -> bool) -> bool {
    matches!(r, Record::Process { container, fact, .. } if &**container == who && what(fact))
}

/// c28-probe's readiness probe runs just before its startup probe's first
/// (successful) run.
fn readiness_probe_before_startup_success() -> Judged {
    mutated("models/scenarios/c28-service.yaml", "c28-probe", |t| {
        let i = find(t, |r| matches!(r, Record::Probe(p) if p.probe == ProbeKind::Startup));
        let Record::Probe(mut early) = t.entries[i].record.clone() else { unreachable!() };
        early.probe = ProbeKind::Readiness;
        t.entries.insert(i, Entry { t: t.entries[i].t, record: Record::Probe(early) });
    })
}

/// `app` starts 1 ms after `migrate`, while the init container still runs.
fn app_starts_before_init_exits() -> Judged {
    mutated("models/scenarios/init-sidecar-order.yaml", "ordered", |t| {
        let migrate = t.entries[find(t, |r| is_process(r, "migrate", |f| *f == ProcessFact::Started))].t;
        let app = find(t, |r| is_process(r, "app", |f| *f == ProcessFact::Started));
        t.entries[app].t = migrate + SimDuration::from_millis(1);
    })
}

/// `app` exits 37 s after its Killing, with a 30 s grace (bound 30 + 2 + 2 s).
fn exit_after_the_grace() -> Judged {
    mutated("models/scenarios/init-sidecar-order.yaml", "ordered", |t| {
        let kill = find(t, |r| matches!(r, Record::Kubelet(a) if a.reason == "Killing"));
        let at = t.entries[kill].t + SimDuration::from_secs(37);
        let exit = find(t, |r| is_process(r, "app", |f| matches!(f, ProcessFact::Exited { .. })));
        t.entries[exit].t = at;
    })
}

/// The `logs` sidecar gets SIGTERM at the pod kill, before `app` has exited.
fn sidecar_stopped_before_the_app() -> Judged {
    mutated("models/scenarios/init-sidecar-order.yaml", "ordered", |t| {
        let kill = t.entries[find(t, |r| matches!(r, Record::Kubelet(a) if a.reason == "Killing"))].t;
        let term = find(t, |r| is_process(r, "logs", |f| *f == ProcessFact::Sigterm));
        t.entries[term].t = kill + SimDuration::from_millis(1);
    })
}

/// The third start of the crash-looping `app` 1 s after its second exit
/// (doBackOff: the first back-off is 10 s).
fn restart_before_the_backoff() -> Judged {
    mutated("models/scenarios/crashloop.yaml", "crashloop", |t| {
        let exits: Vec<usize> = (0..t.entries.len())
            .filter(|&i| is_process(&t.entries[i].record, "app", |f| matches!(f, ProcessFact::Exited { .. })))
            .collect();
        let starts: Vec<usize> = (0..t.entries.len())
            .filter(|&i| is_process(&t.entries[i].record, "app", |f| *f == ProcessFact::Started))
            .collect();
        assert!(starts.len() >= 3 && exits.len() >= 2, "a crash loop of three starts");
        t.entries[starts[2]].t = t.entries[exits[1]].t + SimDuration::from_secs(1);
    })
}

/// bound-pod's container still running at the kubelet's final DELETE: its
/// exit after the delete at 50 s taken out.
fn running_at_the_final_delete() -> Judged {
    mutated("models/scenarios/bound-pod.yaml", "c28-bound", |t| {
        let delete = SimTime::ZERO + SimDuration::from_secs(50);
        t.entries.retain(|e| {
            !(e.t >= delete && matches!(&e.record, Record::Process { fact: ProcessFact::Exited { .. }, .. }))
        });
    })
}

/// job-backoff-never's Job recorded with parallelism 0: its one pod is one too many.
fn job_pods_beyond_parallelism() -> Judged {
    mutated("models/scenarios/job-backoff-never.yaml", "(Job fail-never)", |t| {
        for e in &mut t.entries {
            if let Record::Job { job, .. } = &mut e.record {
                let mut j = (**job).clone();
                let mut spec = (*j.spec).clone();
                spec.parallelism = 0;
                spec.object.spec.get_or_insert_default().parallelism = Some(0);
                j.spec = Arc::new(spec);
                *job = Arc::new(j);
            }
        }
    })
}

/// job-backoff-never's second pod created (its creationTimestamp) 3 s
/// after the first pod's exit, not the 10 s the back-off asks.
fn job_pod_before_the_backoff() -> Judged {
    mutated("models/scenarios/job-backoff-never.yaml", "(Job fail-never)", |t| {
        let mut seen: Vec<Arc<str>> = Vec::new();
        let exit =
            t.entries.iter().find(|e| matches!(&e.record, Record::Process { fact: ProcessFact::Exited { .. }, .. }));
        let early = exit.expect("the first pod exits").t + SimDuration::from_secs(3);
        for e in &mut t.entries {
            if let Record::Pod { pod, .. } = &mut e.record {
                if !seen.contains(&pod.meta.uid) {
                    seen.push(pod.meta.uid.clone());
                    if seen.len() == 2 {
                        e.t = early;
                    }
                }
                if seen.get(1) == Some(&pod.meta.uid) {
                    let mut p = (**pod).clone();
                    p.meta.created = early;
                    *pod = Arc::new(p);
                }
            }
        }
    })
}

fn service_path(break_it: impl FnOnce(&mut Trace)) -> Judged {
    mutated("models/scenarios/c28-service.yaml", super::service_path::ENTRY, break_it)
}

/// A request through the Service answered by an address no kube-proxy forwards to.
fn request_to_an_unprogrammed_endpoint() -> Judged {
    service_path(|t| {
        let i =
            find(t, |r| matches!(r, Record::Request(q) if q.target.starts_with("service/") && q.endpoint.is_some()));
        let Record::Request(q) = &t.entries[i].record else { unreachable!() };
        let mut q = (**q).clone();
        q.endpoint = Some("10.244.9.9:18080".into());
        t.entries[i].record = Record::Request(Arc::new(q));
    })
}

/// Every slice version that holds an endpoint removed: kube-proxy forwards
/// to addresses no slice held.
fn forwarding_without_slices() -> Judged {
    service_path(|t| {
        t.entries.retain(|e| {
            !matches!(&e.record, Record::Slice { kind, slice } if *kind != WatchKind::Deleted && !slice.content.endpoints.is_empty())
        })
    })
}

/// One request with two outcomes.
fn request_recorded_twice() -> Judged {
    service_path(|t| {
        let i = find(t, |r| matches!(r, Record::Request(_)));
        let copy = Entry { t: t.entries[i].t, record: t.entries[i].record.clone() };
        t.entries.insert(i + 1, copy);
    })
}

// ---- One pod across formats --------------------------------------------

/// Reads the files, in order, into one checker.
fn read_all(files: &[(&str, String)]) -> Report {
    let mut c = Checker::new(Cluster::default());
    for (name, text) in files {
        let file = Arc::new(SourceFile { name: name.to_string(), text: text.clone() });
        let problems = crate::observe::read(&file, &mut |r| c.observe(&r));
        assert!(problems.iter().all(|p| !p.is_error()), "{problems:?}");
    }
    c.report()
}

/// `kubectl describe pod loop` (no UID) waiting in CrashLoopBackOff at
/// restartCount 3, instance 3 having exited at 00:01:00.
const DESCRIBE_LOOP: &str = "\
Name:             loop
Namespace:        default
Status:           Running
Containers:
  app:
    Image:          busybox
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
      Started:      Thu, 01 Jan 2026 00:00:59 +0000
      Finished:     Thu, 01 Jan 2026 00:01:00 +0000
    Ready:          False
    Restart Count:  3
";

/// `kubectl get pod loop -o yaml` (UID u1) running instance 4 from `started`.
fn dump_loop(uid: &str, started: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: loop, namespace: default, uid: {uid}}}\nspec:\n  containers: [{{name: app, image: busybox}}]\nstatus:\n  phase: Running\n  containerStatuses:\n  - {{name: app, image: busybox, imageID: x, ready: true, restartCount: 4, state: {{running: {{startedAt: \"{started}\"}}}}}}\n"
    )
}

/// A describe has no UID, a dump has one: the same namespace and name make
/// them one pod, in either order, so restart-gap-backoff reads restart 4's
/// gap across both: instance 3 exited at 00:01:00 (the describe), instance 4
/// started at 00:01:30 (the dump), and restart 4 waits 10 s · 2^(4−2) = 40 s.
#[test]
fn a_describe_and_a_dump_of_one_pod_are_one_pod() {
    for files in [
        [("describe.txt", DESCRIBE_LOOP.to_string()), ("pod.yaml", dump_loop("u1", "2026-01-01T00:01:30Z"))],
        [("pod.yaml", dump_loop("u1", "2026-01-01T00:01:30Z")), ("describe.txt", DESCRIBE_LOOP.to_string())],
    ] {
        let report = read_all(&files);
        assert_eq!(report.pods.len(), 1, "{}", report.render());
        assert!(report.render().starts_with("pod loop (2 object(s), 0 row(s), 0 event(s))"), "{}", report.render());
    }
    let report =
        read_all(&[("describe.txt", DESCRIBE_LOOP.to_string()), ("pod.yaml", dump_loop("u1", "2026-01-01T00:01:30Z"))]);
    assert!(matches!(report.verdict("loop", "restart-gap-backoff"), Some(Verdict::Violated { .. })));
    let report =
        read_all(&[("describe.txt", DESCRIBE_LOOP.to_string()), ("pod.yaml", dump_loop("u1", "2026-01-01T00:01:41Z"))]);
    assert!(matches!(report.verdict("loop", "restart-gap-backoff"), Some(Verdict::Holds { .. })));
}

/// Two UIDs of one name are two pods (deleted and created again), and a
/// record without UID then belongs to neither; events that do not say their
/// namespace join the one pod of that name in any namespace.
#[test]
fn two_uids_of_one_name_stay_apart() {
    let report = read_all(&[
        ("a.yaml", dump_loop("u1", "2026-01-01T00:01:30Z")),
        ("b.yaml", dump_loop("u2", "2026-01-01T00:09:30Z")),
        ("describe.txt", DESCRIBE_LOOP.to_string()),
    ]);
    let entries: Vec<&str> = report.pods.iter().map(|p| p.observed.as_str()).collect();
    assert_eq!(entries, ["1 object(s), 0 row(s), 0 event(s)"; 3], "{}", report.render());
    let events =
        "  Normal   Pulled   5s (x2 over 40s)  kubelet  Container image \"busybox\" already present on machine\n";
    let shop = dump_loop("u1", "2026-01-01T00:01:30Z").replace("namespace: default", "namespace: shop");
    let report =
        read_all(&[("events.txt", format!("$ kubectl describe pod loop -n shop\n{events}")), ("pod.yaml", shop)]);
    assert!(report.render().starts_with("pod loop (1 object(s), 0 row(s), 1 event(s))"), "{}", report.render());
    assert_eq!(report.pods.len(), 1, "{}", report.render());
}
