//! The invariant catalogue: rules every kubelet trace obeys, each with the
//! Kubernetes source it comes from. One checker judges podsim's own traces
//! (through the same records a recording gives) and real recordings.
//!
//! The checker consumes [`Record`]s one at a time and keeps, per pod, only
//! what the sequence rules need, so a recording of any length is checked in
//! bounded memory.

mod composition;
mod input;
mod jobs;
mod ordinals;
mod phase;
mod pod;
mod report;
mod restarts;
mod rows;
mod service_path;
mod sim;
mod slices;
mod workloads;

pub use input::check_files;
pub use jobs::JOB_RULES;
pub use ordinals::STATEFULSET_RULES;
pub use report::{ControllerReport, PodReport, Report, Verdict, Violation};
pub use service_path::Horizon;
pub use sim::{SIM_ONLY, check_run, check_trace};
pub use workloads::WORKLOAD_RULES;

use crate::cluster::Cluster;
use crate::observe::{Observed, Record, pod_key};
use std::collections::BTreeMap;

/// Whether an invariant needs one snapshot or a sequence of observations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    Snapshot,
    Sequence,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Snapshot => "snapshot",
            Scope::Sequence => "sequence",
        }
    }
}

/// One invariant of the catalogue.
#[derive(Copy, Clone, Debug)]
pub struct Invariant {
    pub name: &'static str,
    pub statement: &'static str,
    pub source: &'static str,
    pub scope: Scope,
}

const fn inv(name: &'static str, statement: &'static str, source: &'static str, scope: Scope) -> Invariant {
    Invariant { name, statement, source, scope }
}

/// Every invariant, in report order.
pub const CATALOGUE: &[Invariant] = &[
    inv(
        "ready-implies-containers-ready",
        "Ready=True ⇒ ContainersReady=True and every readiness gate True (once Ready and the gate are 2 s plus the pod's kill grace old: the kubelet may set Ready from a stale copy of a gate and correct it at its next sync, which waits for a running sync that may be stopping a container)",
        "pkg/kubelet/status/generate.go GeneratePodReadyCondition; status_manager.go SetContainerReadiness (gates from its cached conditions), NeedToReconcilePodReadiness; kuberuntime_container.go killContainer",
        Scope::Snapshot,
    ),
    inv(
        "containers-ready-implies-all-ready",
        "ContainersReady=True ⇒ every container and sidecar is ready",
        "pkg/kubelet/status/generate.go GenerateContainersReadyCondition",
        Scope::Snapshot,
    ),
    inv(
        "ready-implies-running",
        "a ready container is running and started, or the instance that has just exited (a probe that ran while its status still said running returns after it: SetContainerReadiness finds its containerID and sets ready until the next sync's status)",
        "pkg/kubelet/prober/prober_manager.go UpdatePodStatus; status_manager.go SetContainerReadiness; prober/worker.go doProbe",
        Scope::Snapshot,
    ),
    inv(
        "initialized-after-init",
        "Initialized=True ⇒ every init container exited 0 (sidecars: started), or a regular container has started",
        "pkg/kubelet/status/generate.go GeneratePodInitializedCondition",
        Scope::Snapshot,
    ),
    inv(
        "ready-after-initial-delay",
        "Ready turns True no earlier than startedAt + readiness initialDelaySeconds of each container with a readiness probe",
        "pkg/kubelet/prober/worker.go doProbe (initialDelaySeconds against StartedAt)",
        Scope::Snapshot,
    ),
    inv(
        "restart-gap-backoff",
        "a container that exits by itself restarts no sooner than the CrashLoopBackOff delay for its restartCount; the previous exit and the new start may be read from one snapshot or two (lastState is instance N while the container waits, N − 1 once it runs)",
        "pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff; client-go flowcontrol.Backoff",
        Scope::Snapshot,
    ),
    inv(
        "crashloop-message-delay",
        "the delay in `back-off D restarting failed container` is on the backoff schedule and fits the restartCount",
        "pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff",
        Scope::Snapshot,
    ),
    inv(
        "transition-time-moves-with-status",
        "between consecutive versions of a watch, a condition's lastTransitionTime changes only when its status does (or, when the kubelet flipped it and back between two PATCHes, with a new reason or message); snapshots taken apart may hide a flip",
        "pkg/kubelet/status/status_manager.go updateLastTransitionTime",
        Scope::Sequence,
    ),
    inv(
        "restart-count-steps",
        "restartCount never decreases and grows by at most one per observed start",
        "pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer (restartCount = previous + 1)",
        Scope::Sequence,
    ),
    inv(
        "phase-consistent",
        "the phase is the one getPhase gives for the container states and restartPolicy (a terminal phase may lag)",
        "pkg/kubelet/kubelet_pods.go getPhase; pkg/kubelet/status/status_manager.go mergePodStatus",
        Scope::Snapshot,
    ),
    inv(
        "exit-code-reason",
        "a termination's exit code fits its reason: Completed ⇔ 0, Error and OOMKilled ≠ 0",
        "CRI runtime (containerd) exit reasons, as the kubelet reports them",
        Scope::Snapshot,
    ),
    inv(
        "no-start-after-deletion",
        "once a pod shows its deletion, each container starts at most once more (the sync already running finishes; no later sync starts anything)",
        "pkg/kubelet/kubelet.go SyncPod (the runtime's SyncPod runs WithoutCancel); pod_workers.go UpdatePod",
        Scope::Sequence,
    ),
    inv(
        "endpoint-conditions",
        "an EndpointSlice endpoint is ready exactly when serving and not terminating, and always when its Service has publishNotReadyAddresses (a Service absent from the recording counts as without it; slices of other writers: never ready while not serving or terminating, unless the flag is on); in a watch, its serving/terminating are those of some earlier version of its pod (serving ⇔ Ready, terminating ⇔ deletionTimestamp)",
        "staging/src/k8s.io/endpointslice/utils.go podToEndpoint (ready := PublishNotReadyAddresses || (serving && !terminating))",
        Scope::Snapshot,
    ),
];

/// What an invariant is judged on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum JudgedOn {
    /// Pod objects, rows and EndpointSlices: recordings and podsim's traces.
    Recordings,
    /// The PROBE, PROCESS, PROXY and REQUEST records only podsim's traces have.
    PodsimRuns,
    /// `kubectl get rs|deploy|sts|job` rows.
    ControllerRows,
}

impl JudgedOn {
    pub fn as_str(self) -> &'static str {
        match self {
            JudgedOn::Recordings => "recordings and podsim runs",
            JudgedOn::PodsimRuns => "podsim runs only",
            JudgedOn::ControllerRows => "controllers' kubectl get rows",
        }
    }
}

/// Every invariant podsim checks, in report order, with what it is judged on.
pub fn catalogue() -> impl Iterator<Item = (&'static Invariant, JudgedOn)> {
    let all = |list: &'static [Invariant], on| list.iter().map(move |i| (i, on));
    all(CATALOGUE, JudgedOn::Recordings)
        .chain(all(SIM_ONLY, JudgedOn::PodsimRuns))
        .chain(all(JOB_RULES, JudgedOn::Recordings))
        .chain(all(WORKLOAD_RULES, JudgedOn::ControllerRows))
        .chain(all(STATEFULSET_RULES, JudgedOn::Recordings))
}

/// The checker: feed it records, then ask for the report.
pub struct Checker {
    cluster: Cluster,
    pods: BTreeMap<String, pod::PodState>,
    /// The UIDs seen for each pod name, with their namespaces.
    uids: BTreeMap<String, Vec<(String, String)>>,
    /// Pods known by name only from records that do not say their
    /// namespace (kept as `default/NAME`).
    vague: std::collections::BTreeSet<String>,
    slices: slices::SliceState,
    workloads: workloads::Workloads,
    ordinals: ordinals::Ordinals,
    jobs: jobs::Jobs,
}

impl Checker {
    pub fn new(cluster: Cluster) -> Self {
        Checker {
            cluster,
            pods: BTreeMap::new(),
            uids: BTreeMap::new(),
            vague: Default::default(),
            slices: slices::SliceState::default(),
            workloads: workloads::Workloads::default(),
            ordinals: ordinals::Ordinals::default(),
            jobs: jobs::Jobs::default(),
        }
    }

    /// The StatefulSet `name` manages its pods in parallel: `ordinal-order` does not judge it.
    pub fn parallel_set(&mut self, namespace: &str, name: &str) {
        self.ordinals.parallel(namespace, name);
    }

    /// The pod a record is about. A record without UID (a describe, a row,
    /// an event row) is the pod of that name (and namespace, when it says)
    /// whose UID another record showed, if exactly one did; a record with a
    /// UID takes over what was read of its name before any UID was seen.
    /// Two UIDs of one name (a pod deleted and created again) stay apart.
    fn identify(&mut self, r: &Record, key: String) -> String {
        let Some((uid, namespace, name)) = identity(r) else { return key };
        match uid {
            Some(uid) => {
                let ns = namespace.unwrap_or("default").to_string();
                let known = self.uids.entry(name.to_string()).or_default();
                if !known.iter().any(|(_, u)| u == uid) {
                    known.push((ns.clone(), uid.to_string()));
                    // The first UID of this name: what was read of it by name is this pod's
                    // (also what did not say its namespace, read as `default`).
                    let first = known.iter().filter(|(n, _)| *n == ns).count() == 1;
                    let own = pod_key(None, Some(&ns), name);
                    for by_name in [own.clone(), pod_key(None, None, name)] {
                        if first
                            && (by_name == own || self.vague.contains(&by_name))
                            && let Some(state) = self.pods.remove(&by_name)
                        {
                            self.vague.remove(&by_name);
                            self.pods.entry(key.clone()).or_insert(state);
                        }
                    }
                }
                key
            }
            None => {
                let known = self.uids.get(name).map(Vec::as_slice).unwrap_or_default();
                let same: Vec<&(String, String)> =
                    known.iter().filter(|(ns, _)| namespace.is_none_or(|n| n == ns)).collect();
                match same[..] {
                    [(_, uid)] => pod_key(Some(uid), None, name),
                    _ => {
                        // Known only as `default/NAME` while no record says its namespace.
                        if namespace.is_some() {
                            self.vague.remove(&key);
                        } else if !self.pods.contains_key(&key) {
                            self.vague.insert(key.clone());
                        }
                        key
                    }
                }
            }
        }
    }

    pub fn observe(&mut self, r: &Record) {
        let Some(key) = r.pod_key() else {
            match &r.observed {
                Observed::EndpointSlice(s) => self.slices.observe(r, s, &self.pods),
                Observed::Service(s) => self.slices.observe_service(s),
                Observed::Workload(w) => self.workloads.observe(w, &r.origin),
                Observed::Job(j) => self.jobs.observe_job(j),
                Observed::StatefulSet(s) if s.spec.pod_management_policy.as_deref() == Some("Parallel") => {
                    let ns = s.metadata.namespace.as_deref().unwrap_or("default");
                    self.ordinals.parallel(ns, s.metadata.name.as_deref().unwrap_or(""));
                }
                _ => {}
            }
            return;
        };
        let key = self.identify(r, key);
        let state = self.pods.entry(key).or_default();
        match &r.observed {
            Observed::Pod(p) => {
                state.observe_pod(r, p, &self.cluster);
                self.ordinals.observe_pod(r, p);
                self.jobs.observe_pod(r, p);
            }
            Observed::Row(row) => {
                rows::observe(state, r, row);
                self.jobs.observe_row(r, row);
            }
            Observed::Event(e) => {
                state.events += 1;
                if state.name.is_empty() {
                    state.name = e.involved_object.name.clone().unwrap_or_default();
                }
            }
            Observed::EventRow { pod, .. } => {
                state.events += 1;
                if state.name.is_empty() {
                    state.name = pod.clone().unwrap_or_default();
                }
            }
            Observed::EndpointSlice(_)
            | Observed::Service(_)
            | Observed::Workload(_)
            | Observed::StatefulSet(_)
            | Observed::Job(_) => {}
        }
    }

    pub fn report(self) -> Report {
        let mut pods: Vec<PodReport> = self.pods.into_values().map(pod::PodState::report).collect();
        if let Some(r) = self.slices.report() {
            pods.push(r);
        }
        let mut controllers = self.workloads.report();
        controllers.extend(self.ordinals.report());
        // A Job its rows showed too is one entry: the rows' verdicts and the rules'.
        for job in self.jobs.report() {
            match controllers.iter_mut().find(|c| c.kind == job.kind && c.name == job.name) {
                Some(c) => c.verdicts.extend(job.verdicts),
                None => controllers.push(job),
            }
        }
        Report { pods, controllers }
    }
}

/// A record's pod: its UID when it shows one, its namespace when it says, its name.
fn identity(r: &Record) -> Option<(Option<&str>, Option<&str>, &str)> {
    fn some(s: &Option<String>) -> Option<&str> {
        s.as_deref().filter(|s| !s.is_empty())
    }
    match &r.observed {
        Observed::Pod(p) => Some((some(&p.metadata.uid), some(&p.metadata.namespace), some(&p.metadata.name)?)),
        Observed::Row(row) => Some((None, some(&row.namespace), &row.name)),
        Observed::Event(e) => {
            let o = &e.involved_object;
            Some((some(&o.uid), some(&o.namespace), some(&o.name)?))
        }
        Observed::EventRow { pod, .. } => Some((None, None, some(pod)?)),
        Observed::EndpointSlice(_)
        | Observed::Service(_)
        | Observed::Workload(_)
        | Observed::StatefulSet(_)
        | Observed::Job(_) => None,
    }
}

#[cfg(test)]
mod tests;
