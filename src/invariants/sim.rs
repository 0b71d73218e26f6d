//! The second arm: podsim's own traces judged by the same catalogue (every
//! Pod, Service and EndpointSlice version rendered as the API object a
//! recording would hold), plus rules only a simulated trace can show, from
//! its probe, process, kube-proxy and request records.

use super::report::{Report, Tally};
use super::service_path::{self, Horizon};
use super::{Checker, Invariant, Scope, inv};
use crate::cluster::Cluster;
use crate::observe::{Observed, Origin, simulated_records};
use crate::sim::Setup;
use crate::spec::ProbeKind;
use crate::time::{SimDuration, SimTime};
use crate::trace::Trace;
use crate::trace::record::{ProcessFact, Record, Verdict};
use crate::trace::render::Clock;
use foldhash::{HashSet, HashSetExt};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Rules that need podsim's PROBE, PROCESS, PROXY and REQUEST records.
pub const SIM_ONLY: &[Invariant] = &[
    inv(
        "startup-gates-probes",
        "no readiness or liveness probe runs on a container before its startup probe succeeded",
        "pkg/kubelet/prober/worker.go doProbe",
        Scope::Sequence,
    ),
    inv(
        "init-order",
        "init containers start one at a time, each after the previous exited 0 (a sidecar: started, its startup probe passed), and regular containers after all of them",
        "pkg/kubelet/kuberuntime/kuberuntime_container.go computeInitContainerActions",
        Scope::Sequence,
    ),
    inv(
        "stopped-within-grace",
        "a killed container has stopped by its Killing + grace + the 2 s minimum (+ up to 1 s for each of the preStop and turn waits, taken off in whole seconds)",
        "pkg/kubelet/kuberuntime/kuberuntime_container.go killContainer",
        Scope::Sequence,
    ),
    inv(
        "sidecars-stop-last",
        "in a pod kill a sidecar gets SIGTERM only after every regular container and every later sidecar has exited, or once its grace is used up",
        "pkg/kubelet/kuberuntime/kuberuntime_termination_order.go waitForTurn",
        Scope::Sequence,
    ),
    inv(
        "crash-loop-backoff",
        "a container that keeps exiting by itself waits at least 10 s, 20 s, 40 s … (the profile's schedule) before each restart after the first",
        "pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff",
        Scope::Sequence,
    ),
    inv(
        "deletion-stops-containers",
        "a deleted pod's containers stop: none still runs when the kubelet's final DELETE removes the pod, and each one running when the pod is removed at once (grace 0) is then killed by its kubelet or exits (judged once the run has gone on for the pod's kill grace + 2 s after the removal)",
        "pkg/registry/core/pod/strategy.go CheckGracefulDelete; pkg/kubelet/status/status_manager.go canBeDeleted; pkg/kubelet/kubelet.go HandlePodRemoves; pod_workers.go UpdatePod",
        Scope::Sequence,
    ),
    inv(
        "request-follows-proxy-rules",
        "a request to a Service meets the rules its node's kube-proxy last committed before the send (or at that instant): it goes to an IP:port they forward that Service port to (by ClientIP affinity only if they keep it), is refused only by their REJECT, and gets no answer unrouted only by their DROP or with no rule for the cluster IP",
        "pkg/proxy/iptables/proxier.go syncProxyRules (the kernel holds what iptables-restore committed)",
        Scope::Sequence,
    ),
    inv(
        "proxy-after-slice",
        "a kube-proxy sync forwards a Service port to an IP:port only if it started after the EndpointSlice controller wrote a slice of that Service holding that address under that port",
        "pkg/proxy/endpointslicecache.go updatePending; pkg/proxy/iptables/proxier.go syncProxyRules",
        Scope::Sequence,
    ),
    inv(
        "one-outcome-per-request",
        "each client request has one REQUEST record, at or after its send and no later than the client's timeout (a timeout exactly then), requests leave in number order, and a number is missing only if the run ended less than a timeout after its send",
        "no Kubernetes source: podsim's client model (like curl --max-time, one answer, connection error or timeout per request)",
        Scope::Sequence,
    ),
];

/// Judges a simulated trace: the catalogue over its Pod, Service and
/// EndpointSlice versions, and the simulation-only rules. The run's end and
/// its clients' timeouts are taken from the records.
pub fn check_trace(trace: &Trace, clock: &Clock, cluster: &Cluster) -> Report {
    judge(trace, clock, cluster, &Horizon::default())
}

/// [`check_trace`] knowing the run: its end and every client's timeout.
pub fn check_run(trace: &Trace, clock: &Clock, setup: &Setup, until: SimTime) -> Report {
    let timeouts = setup.clients.iter().map(|c| (c.name.clone(), c.timeout)).collect();
    judge(trace, clock, &setup.cluster, &Horizon { end: Some(until), timeouts })
}

fn judge(trace: &Trace, clock: &Clock, cluster: &Cluster, horizon: &Horizon) -> Report {
    let mut checker = Checker::new(cluster.clone());
    for e in &trace.entries {
        if let Record::StatefulSet { sts, .. } = &e.record
            && sts.spec.pod_management == crate::spec::statefulset::PodManagement::Parallel
        {
            checker.parallel_set(&sts.spec.namespace, &sts.spec.name);
        }
    }
    for r in simulated_records(trace, clock) {
        if matches!(r.observed, Observed::Pod(_) | Observed::EndpointSlice(_) | Observed::Service(_) | Observed::Job(_))
        {
            checker.observe(&r);
        }
    }
    let mut report = checker.report();
    for (pod, verdicts) in sim_only(trace, cluster, horizon) {
        if let Some(p) = report.pods.iter_mut().find(|p| *p.pod == *pod) {
            p.verdicts.extend(verdicts);
        }
    }
    report.pods.extend(service_path::judge(trace, horizon));
    report
}

/// The instances of each (pod, container), with the trace line of each start.
type Lives = BTreeMap<(Arc<str>, Arc<str>), Vec<(Life, usize)>>;

/// One container instance as its process lived it.
struct Life {
    started: SimTime,
    finished: Option<SimTime>,
    killed: bool,
    /// The image it runs: a new image is a new backoff key (`GetStableKey`).
    image: Option<Arc<str>>,
}

fn origin(i: usize) -> Origin {
    Origin { file: Arc::from("trace"), line: i as u64 + 1 }
}

fn sim_only(
    trace: &Trace,
    cluster: &Cluster,
    horizon: &Horizon,
) -> BTreeMap<Arc<str>, Vec<(&'static str, super::Verdict)>> {
    let mut gates: BTreeMap<Arc<str>, Tally> = BTreeMap::new();
    let mut started_ok: HashSet<Arc<str>> = HashSet::new();
    let mut startup_probed: HashSet<Arc<str>> = HashSet::new();
    // (pod, container) whose spec has a startup probe: gated even before the first startup run.
    let mut has_startup: HashSet<(Arc<str>, Arc<str>)> = HashSet::new();
    let mut lives: Lives = BTreeMap::new();
    let mut images: BTreeMap<(Arc<str>, Arc<str>), Arc<str>> = BTreeMap::new();
    for (i, e) in trace.entries.iter().enumerate() {
        match &e.record {
            Record::Pod { pod, .. } => {
                for c in pod.spec.containers.iter().filter(|c| c.startup.is_some()) {
                    has_startup.insert((Arc::from(pod.spec.name.as_str()), c.name.clone()));
                }
            }
            Record::Probe(p) if p.probe == ProbeKind::Startup => {
                startup_probed.insert(p.container_id.clone());
                if p.published && p.verdict == Verdict::Success {
                    started_ok.insert(p.container_id.clone());
                }
            }
            Record::Probe(p) => {
                let t = gates.entry(p.pod.clone()).or_default();
                let gated = startup_probed.contains(&p.container_id)
                    || has_startup.contains(&(p.pod.clone(), p.container.clone()));
                if gated && !started_ok.contains(&p.container_id) {
                    t.violate(
                        &[&origin(i)],
                        "no probe before the startup probe succeeds".into(),
                        format!("{} {} probe ran first", p.container, p.probe),
                    );
                } else {
                    t.hold();
                }
            }
            Record::Process { pod, container, fact, .. } => {
                let l = lives.entry((pod.clone(), container.clone())).or_default();
                match fact {
                    ProcessFact::Started => {
                        let image = images.get(&(pod.clone(), container.clone())).cloned();
                        l.push((Life { started: e.t, finished: None, killed: false, image }, i))
                    }
                    ProcessFact::Sigterm => l.last_mut().into_iter().for_each(|(x, _)| x.killed = true),
                    ProcessFact::Exited { .. } => l.last_mut().into_iter().for_each(|(x, _)| x.finished = Some(e.t)),
                    _ => {}
                }
            }
            // `EnsureImageExists` names the image of every start in its event.
            Record::Kubelet(a) if a.reason == "Pulling" || a.reason == "Pulled" => {
                if let (Some(c), Some(image)) = (&a.container, a.message.split('"').nth(1)) {
                    images.insert((a.pod.clone(), c.clone()), Arc::from(image));
                }
            }
            // A kill decided on a stale snapshot may find the process gone;
            // the restart still follows the kill rule.
            Record::Kubelet(a) if a.reason == "Killing" => {
                if let Some((l, _)) = a
                    .container
                    .as_ref()
                    .and_then(|c| lives.get_mut(&(a.pod.clone(), c.clone())))
                    .and_then(|v| v.last_mut())
                {
                    l.killed = true;
                }
            }
            _ => {}
        }
    }
    let mut out: BTreeMap<Arc<str>, Vec<(&'static str, super::Verdict)>> = BTreeMap::new();
    for (pod, t) in gates {
        out.entry(pod).or_default().push(("startup-gates-probes", t.verdict("no probe ran")));
    }
    let mut loops: BTreeMap<Arc<str>, Tally> = BTreeMap::new();
    for ((pod, _), l) in &lives {
        // Each image's instances back off under their own key.
        for run in l.chunk_by(|(a, _), (b, _)| a.image == b.image) {
            crash_loop(run, cluster, loops.entry(pod.clone()).or_default());
        }
    }
    for (pod, t) in loops {
        out.entry(pod)
            .or_default()
            .push(("crash-loop-backoff", t.verdict("no container exited by itself and restarted twice")));
    }
    let end = horizon.end.or(trace.entries.last().map(|e| e.t)).unwrap_or(SimTime::ZERO);
    for (pod, verdicts) in super::composition::judge(trace, end) {
        out.entry(pod).or_default().extend(verdicts);
    }
    out
}

/// For a container whose every exit so far was its own (no kill) and whose
/// runs were short (no 10-minute reset), restart 1 is immediate (#133472)
/// and restart i ≥ 2 waits at least min(initial · 2^(i−2), max) after the
/// previous exit.
fn crash_loop(lives: &[(Life, usize)], cluster: &Cluster, t: &mut Tally) {
    let reset_guard = SimDuration::from_secs(600).saturating_sub(cluster.backoff_max);
    for i in 1..lives.len() {
        let window = &lives[..=i];
        if window.iter().any(|(l, _)| l.killed)
            || window[..i].iter().any(|(l, _)| l.finished.is_none_or(|f| f.since(l.started) >= reset_guard))
        {
            return;
        }
        if i < 2 {
            continue;
        }
        let finished = lives[i - 1].0.finished.unwrap_or(SimTime::ZERO);
        let want = (cluster.backoff_initial * (1 << (i - 2).min(20))).min(cluster.backoff_max);
        let gap = lives[i].0.started.since(finished);
        if gap < want {
            t.violate(
                &[&origin(lives[i].1)],
                format!("restart {i} at least {want} after the exit"),
                format!("restarted {gap} after it"),
            );
        } else {
            t.hold();
        }
    }
}
