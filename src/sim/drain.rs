//! `kubectl drain NODE` as a client of the run (kubectl's `RunDrain`,
//! staging/src/k8s.io/kubectl/pkg/cmd/drain/drain.go, and its `drain.Helper`,
//! pkg/drain/drain.go and filters.go): cordon the node, list its pods and
//! filter them, evict every one in parallel — a 429 is retried 5 s later —
//! and wait for each to be gone (a GET every second), then say the node is
//! drained, or print the error block. Every line kubectl prints, on stdout
//! or stderr, is a `Kubectl` record at its simulated time; kubectl's own
//! requests are answered at once.
//!
//! Filters (`makeFilters`): a DaemonSet's pods stop the drain unless
//! `--ignore-daemonsets` (then they stay, with a warning); podsim has no
//! mirror pods, so that filter passes every pod;
//! `--skip-wait-for-delete-timeout` and `--pod-selector` are not modelled.

use super::{Ev, PodId, World};
use crate::api::eviction::{Eviction, MORE_THAN_ONE_BUDGET, VIOLATES_BUDGET};
use crate::api::status::PodPhase;
use crate::scenario::drain::DrainOptions;
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use std::sync::Arc;

/// `evictPods`: the sleep after a 429.
const RETRY: SimDuration = SimDuration::from_secs(5);
/// `waitForDelete`'s poll interval.
const POLL: SimDuration = SimDuration::from_secs(1);

const LOCAL_STORAGE_FATAL: &str = "Pods with local storage (use --delete-emptydir-data to override)";
const UNMANAGED_FATAL: &str = "cannot delete Pods that declare no controller (use --force to override)";
const UNMANAGED_WARNING: &str = "deleting Pods that declare no controller";
const DAEMONSET_FATAL: &str = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)";
const DAEMONSET_WARNING: &str = "ignoring DaemonSet-managed Pods";

/// A step of one pod's goroutine.
#[derive(Copy, Clone, Debug)]
pub enum Step {
    /// An eviction attempt (the loop of `evictPods`).
    Evict,
    /// A GET of `waitForDelete`.
    Poll,
}

/// One pod's eviction.
struct Evicting {
    pod: PodId,
    name: String,
    namespace: String,
    uid: Arc<str>,
    done: bool,
}

/// A drain under way.
pub struct DrainRun {
    command: Arc<str>,
    options: Arc<DrainOptions>,
    /// When `--timeout` runs out.
    deadline: Option<SimTime>,
    pods: Vec<Evicting>,
    errors: Vec<String>,
}

/// `PodDeleteStatus` as the filters leave it: the last filter run decides
/// (a warning of an earlier filter is dropped, as kubectl's TODO says).
enum Filtered {
    Okay,
    /// Said as a warning; the pod is evicted (`--force` on a pod without a
    /// controller) or left (a DaemonSet's, with `--ignore-daemonsets`).
    Warning(&'static str, bool),
    Error(&'static str),
}

impl World {
    /// The drain starts: cordon, list and filter the node's pods, evict them.
    pub(super) fn drain(&mut self, options: Arc<DrainOptions>, now: SimTime) {
        let command: Arc<str> = Arc::from(options.command());
        let node: Arc<str> = Arc::from(options.node.as_str());
        self.trace.push(now, Record::Scenario { object: format!("node/{node}"), what: command.to_string() });
        let line = match self.set_unschedulable(&node, true, now) {
            true => format!("node/{node} cordoned"),
            false => format!("node/{node} already cordoned"),
        };
        self.kubectl(&command, line, None, now);
        // GetPodsForDeletion: the pods whose spec.nodeName is the node, in
        // the API's list order (by namespace, then name).
        let mut on_node: Vec<&crate::api::pod::ApiPod> =
            (self.api.pods().iter()).filter(|p| !p.meta.removed && p.node.as_deref() == Some(&*node)).collect();
        on_node.sort_by(|a, b| (&a.spec.namespace, &a.spec.name).cmp(&(&b.spec.namespace, &b.spec.name)));
        let on_node: Vec<PodId> = on_node.into_iter().map(|p| p.id).collect();
        let mut errors: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
        let mut warnings: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
        let mut pods = Vec::new();
        for id in on_node {
            let p = self.api.pod(id);
            let named = format!("{}/{}", p.spec.namespace, p.spec.name);
            match filter(&options, p) {
                Filtered::Error(m) => errors.entry(m).or_default().push(named),
                Filtered::Warning(m, deleted) => {
                    warnings.entry(m).or_default().push(named);
                    if !deleted {
                        continue;
                    }
                }
                Filtered::Okay => {}
            }
            let (name, namespace) = (p.spec.name.clone(), p.spec.namespace.clone());
            pods.push(Evicting { pod: id, name, namespace, uid: p.meta.uid.clone(), done: false });
        }
        // Go's map order of several messages is random: podsim sorts them.
        if !errors.is_empty() {
            let errs: Vec<String> =
                errors.iter().map(|(m, pods)| format!("cannot delete {m}: {}", pods.join(", "))).collect();
            return self.drain_failed(&command, &node, &errs, false, now);
        }
        if !warnings.is_empty() {
            let said: Vec<String> = warnings.iter().map(|(m, pods)| format!("{m}: {}", pods.join(", "))).collect();
            self.kubectl(&command, format!("Warning: {}", said.join("; ")), None, now);
        }
        if pods.is_empty() {
            return self.kubectl(&command, format!("node/{node} drained"), Some(0), now);
        }
        let deadline = options.timeout.map(|t| now + t);
        self.drains.push(DrainRun { command, options, deadline, pods, errors: Vec::new() });
        let run = self.drains.len() - 1;
        for pod in 0..self.drains[run].pods.len() {
            self.drain_step(run, pod, Step::Evict, now);
        }
    }

    /// One step of pod `pod`'s goroutine in drain `run`.
    pub(super) fn drain_step(&mut self, run: usize, pod: usize, step: Step, now: SimTime) {
        let d = &self.drains[run];
        if d.pods[pod].done {
            return;
        }
        let (command, e) = (d.command.clone(), &d.pods[pod]);
        let (id, name, namespace) = (e.pod, e.name.clone(), e.namespace.clone());
        let timed_out = d.deadline.is_some_and(|at| now >= at);
        let timeout = d.options.timeout.unwrap_or_default();
        match step {
            Step::Evict => {
                self.kubectl(&command, format!("evicting pod {namespace}/{name}"), None, now);
                if timed_out {
                    let error = format!(
                        "error when evicting pods/{name:?} -n {namespace:?}: global timeout reached: {timeout}"
                    );
                    return self.pod_finished(run, pod, Some(error), now);
                }
                let grace = self.drains[run].options.grace_period_seconds;
                match self.api.evict(id, grace, now, &mut self.trace) {
                    Eviction::Evicted => {
                        self.sync_watch(false);
                        self.drain_step(run, pod, Step::Poll, now);
                    }
                    Eviction::NotFound => self.pod_finished(run, pod, None, now),
                    Eviction::TooManyRequests { .. } => {
                        let line = format!(
                            "error when evicting pods/{name:?} -n {namespace:?} (will retry after 5s): {VIOLATES_BUDGET}"
                        );
                        self.kubectl(&command, line, None, now);
                        self.q.at(now + RETRY, Ev::Drain { run, pod, step: Step::Evict });
                    }
                    Eviction::MoreThanOneBudget => {
                        let error =
                            format!("error when evicting pods/{name:?} -n {namespace:?}: {MORE_THAN_ONE_BUDGET}");
                        self.pod_finished(run, pod, Some(error), now);
                    }
                }
            }
            // `waitForDelete`'s condition: gone, or a new pod of the same name
            // (another UID); a pod still there when the context is done ends
            // the wait with an error, else the next GET is a second later.
            Step::Poll => {
                let p = self.api.pod(id);
                let e = &self.drains[run].pods[pod];
                if p.meta.removed || p.meta.uid != e.uid {
                    self.kubectl(&command, format!("pod/{name} evicted"), None, now);
                    return self.pod_finished(run, pod, None, now);
                }
                if timed_out {
                    let error = format!(
                        "error when waiting for pod {name:?} in namespace {namespace:?} to terminate: global timeout reached: {timeout}"
                    );
                    return self.pod_finished(run, pod, Some(error), now);
                }
                self.q.at(now + POLL, Ev::Drain { run, pod, step: Step::Poll });
            }
        }
    }

    /// A goroutine returned: once every one has, the node is drained or
    /// the error block is printed.
    fn pod_finished(&mut self, run: usize, pod: usize, error: Option<String>, now: SimTime) {
        let d = &mut self.drains[run];
        d.pods[pod].done = true;
        d.errors.extend(error);
        if d.pods.iter().any(|p| !p.done) {
            return;
        }
        let (command, node) = (d.command.clone(), d.options.node.clone());
        match d.errors.is_empty() {
            true => self.kubectl(&command, format!("node/{node} drained"), Some(0), now),
            false => {
                let errors = std::mem::take(&mut self.drains[run].errors);
                self.drain_failed(&command, &node, &errors, true, now)
            }
        }
    }

    /// `RunDrain`'s error block: the pods left (after a failed eviction),
    /// the node's error, the nodes left, and `CheckErr`'s lines; exit 1.
    fn drain_failed(&mut self, command: &Arc<str>, node: &str, errors: &[String], evicting: bool, now: SimTime) {
        // An aggregate of one prints as its error, of several as `[e1, e2]`.
        let text = match errors {
            [one] => one.clone(),
            _ => format!("[{}]", errors.join(", ")),
        };
        if evicting {
            let mut left: Vec<(&str, &str)> = (self.api.pods().iter())
                .filter(|p| !p.meta.removed && p.node.as_deref() == Some(node))
                .map(|p| (p.spec.namespace.as_str(), p.spec.name.as_str()))
                .collect();
            left.sort();
            let left: Vec<String> = left.into_iter().map(|(_, name)| format!("pod/{name}")).collect();
            if !left.is_empty() {
                let line = format!("There are pending pods in node {node:?} when an error occurred: {text}");
                self.kubectl(command, line, None, now);
                for l in left {
                    self.kubectl(command, l, None, now);
                }
            }
        }
        self.kubectl(
            command,
            format!("error: unable to drain node {node:?} due to error: {text}, continuing command..."),
            None,
            now,
        );
        self.kubectl(command, "There are pending nodes to be drained:".into(), None, now);
        self.kubectl(command, format!(" {node}"), None, now);
        let last = errors.len().saturating_sub(1);
        for (i, e) in errors.iter().enumerate() {
            self.kubectl(command, e.clone(), (i == last).then_some(1), now);
        }
    }

    fn kubectl(&mut self, command: &Arc<str>, line: String, exit: Option<i32>, now: SimTime) {
        self.trace.push(now, Record::Kubectl { command: command.clone(), line, exit });
    }
}

/// The filters in `makeFilters`' order, each pod stopping at the first
/// that refuses it: daemonSet (a running DaemonSet pod is an error, or
/// left with a warning under --ignore-daemonsets), localStorage (an
/// emptyDir volume, unless the pod is finished or --delete-emptydir-data),
/// then unreplicated (no controller, unless finished; --force deletes it
/// with a warning).
fn filter(options: &DrainOptions, p: &crate::api::pod::ApiPod) -> Filtered {
    let finished = matches!(p.status.phase, PodPhase::Succeeded | PodPhase::Failed);
    // `daemonSetFilter`: podsim's DaemonSets are never deleted, so the GET of the owner finds it.
    if !finished && p.spec.owner.as_ref().is_some_and(|o| o.kind == "DaemonSet") {
        return match options.ignore_daemonsets {
            true => Filtered::Warning(DAEMONSET_WARNING, false),
            false => Filtered::Error(DAEMONSET_FATAL),
        };
    }
    let volumes = p.spec.object.spec.as_ref().and_then(|s| s.volumes.as_deref()).unwrap_or_default();
    let local_storage = volumes.iter().any(|v| v.empty_dir.is_some());
    if local_storage && !finished && !options.delete_emptydir_data {
        return Filtered::Error(LOCAL_STORAGE_FATAL);
    }
    match (finished || p.spec.owner.is_some(), options.force) {
        (true, _) => Filtered::Okay,
        (false, true) => Filtered::Warning(UNMANAGED_WARNING, true),
        (false, false) => Filtered::Error(UNMANAGED_FATAL),
    }
}
