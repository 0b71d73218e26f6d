//! The prober manager of one pod (`pkg/kubelet/prober/prober_manager.go`):
//! its workers, the three results caches, and `UpdatePodStatus`, which turns
//! cached results into each container's `started` and `ready`.

pub mod handler;
pub mod results;
pub mod worker;

use crate::api::status::{ContainerState, ContainerStatus};
use crate::kubelet::runtime::InstId;
use crate::spec::{PodSpec, ProbeKind, Role};
use results::{ProbeResult, Results};
use std::borrow::Cow;
use worker::Worker;

/// What a kubelet restarted during the run keeps of its containers' status
/// (KEP-4781, from 1.35 with `ChangeContainerStatusOnKubeletRestart` off):
/// a container running since before `before` (the new kubelet's start less
/// `kubeletRestartGracePeriod`, 10 s) keeps `started` from the pod's old
/// status, and, until its first readiness result, `ready` from the API
/// pod's Ready condition (`setReadyStateOnKubeletRestart`).
pub struct Restarted<'a> {
    pub before: crate::time::SimTime,
    /// The API pod's Ready condition is True.
    pub api_ready: bool,
    /// The containers' statuses before (`oldStatuses`).
    pub previous: &'a [ContainerStatus],
}

impl Restarted<'_> {
    /// The old status of `c` when it ran before the kubelet started.
    fn old<'s>(&'s self, c: &ContainerStatus) -> Option<&'s ContainerStatus> {
        let ContainerState::Running { started_at } = c.state else { return None };
        let same = |o: &&ContainerStatus| o.name == c.name && o.instance == c.instance;
        (started_at < self.before).then(|| self.previous.iter().find(same)).flatten()
    }
}

#[derive(Clone, Debug, Default)]
pub struct ProbeManager {
    pub workers: Vec<Worker>,
    results: [Results; 3],
    added: bool,
}

fn slot(kind: ProbeKind) -> usize {
    match kind {
        ProbeKind::Startup => 0,
        ProbeKind::Readiness => 1,
        ProbeKind::Liveness => 2,
    }
}

impl ProbeManager {
    pub fn results(&self, kind: ProbeKind) -> &Results {
        &self.results[slot(kind)]
    }

    /// A worker and the results cache of its kind, borrowed together.
    pub fn worker_and_results(&mut self, w: usize) -> (&mut Worker, &mut Results) {
        let kind = self.workers[w].kind;
        (&mut self.workers[w], &mut self.results[slot(kind)])
    }

    /// `AddPod`: one worker per (container, probe) of the regular containers
    /// and the sidecars, on the pod's first sync. Returns the indices of the
    /// workers created now.
    pub fn add_pod(&mut self, spec: &PodSpec) -> Vec<usize> {
        if self.added {
            return Vec::new();
        }
        self.added = true;
        let probed = spec.containers.iter().enumerate().filter(|(_, c)| c.role != Role::Init);
        for (i, c) in probed {
            for kind in ProbeKind::ALL {
                if let Some(p) = c.probe(kind) {
                    self.workers.push(Worker::new(kind, i, c.name.clone(), p.clone()));
                }
            }
        }
        (0..self.workers.len()).collect()
    }

    fn worker(&self, name: &str, kind: ProbeKind) -> Option<usize> {
        self.workers.iter().position(|w| !w.stopped && w.kind == kind && &*w.name == name)
    }

    /// `UpdatePodStatus`: fills `started` and `ready` of every container, and
    /// returns the readiness workers to trigger at once (started, running,
    /// not yet ready).
    pub fn update_pod_status(
        &self,
        spec: &PodSpec,
        init: &mut [ContainerStatus],
        regular: &mut [ContainerStatus],
        restarted: Option<&Restarted<'_>>,
    ) -> Vec<usize> {
        let mut triggers = Vec::new();
        for c in init {
            let sidecar = spec.container_index(&c.name).is_some_and(|i| spec.containers[i].role == Role::Sidecar);
            if sidecar {
                self.update_container(c, &mut triggers, restarted);
                continue;
            }
            // A run-to-completion init container: started while it runs,
            // ready once it has exited 0.
            let inst = c.instance.as_ref().map(|i| InstId(i.handle));
            (c.started, c.started_why) = self.is_started(&c.name, c.state.is_running(), inst, None);
            let completed = matches!(&c.state, ContainerState::Terminated(t) if t.exit_code == 0);
            (c.ready, c.ready_why) = if completed {
                (true, Cow::Borrowed("it completed (exit 0)"))
            } else {
                (false, Cow::Borrowed("it has not completed"))
            };
        }
        for c in regular {
            self.update_container(c, &mut triggers, restarted);
        }
        triggers
    }

    fn update_container(&self, c: &mut ContainerStatus, triggers: &mut Vec<usize>, restarted: Option<&Restarted<'_>>) {
        let inst = c.instance.as_ref().map(|i| InstId(i.handle));
        let running = c.state.is_running();
        let old = restarted.and_then(|r| r.old(c).map(|o| (r, o)));
        let (started, started_why) = self.is_started(&c.name, running, inst, old.map(|(_, o)| o));
        c.started = started;
        c.started_why = started_why;
        if !started {
            c.ready = false;
            c.ready_why = c.started_why.clone();
            return;
        }
        let readiness = inst.and_then(|i| self.results(ProbeKind::Readiness).get(i));
        (c.ready, c.ready_why) = match (running, readiness, self.worker(&c.name, ProbeKind::Readiness)) {
            (false, _, _) => (false, Cow::Borrowed("the container is not running")),
            (true, Some(ProbeResult::Success), _) => (true, Cow::Borrowed("the readiness probe succeeded")),
            (true, _, None) => (true, Cow::Borrowed("it runs and has no readiness probe")),
            // `setReadyStateOnKubeletRestart`: no result yet, the API pod's Ready.
            (true, None, Some(_)) if old.is_some() => match old.is_some_and(|(r, _)| r.api_ready) {
                true => (true, Cow::Borrowed("the pod was Ready when the kubelet restarted")),
                false => (false, Cow::Borrowed("the pod was not Ready when the kubelet restarted")),
            },
            (true, result, Some(w)) => {
                triggers.push(w);
                let why = if result == Some(ProbeResult::Failure) && self.workers[w].result_run > 0 {
                    "the readiness probe is failing"
                } else {
                    "the readiness probe has not succeeded yet"
                };
                (false, Cow::Borrowed(why))
            }
        };
    }

    /// `isContainerStarted`; `old`: the container's status before a kubelet
    /// restart, whose `started` stands until a startup result exists.
    fn is_started(
        &self,
        name: &str,
        running: bool,
        inst: Option<InstId>,
        old: Option<&ContainerStatus>,
    ) -> (bool, Cow<'static, str>) {
        if !running {
            return (false, Cow::Borrowed("the container is not running"));
        }
        match inst.and_then(|i| self.results(ProbeKind::Startup).get(i)) {
            Some(ProbeResult::Success) => (true, Cow::Borrowed("the startup probe succeeded")),
            Some(_) => (false, Cow::Borrowed("the startup probe has not succeeded yet")),
            None if old.is_some_and(|o| o.started) => {
                (true, Cow::Borrowed("it had started when the kubelet restarted"))
            }
            None if self.worker(name, ProbeKind::Startup).is_some() => {
                (false, Cow::Borrowed("the startup probe has not succeeded yet"))
            }
            None => (true, Cow::Borrowed("it runs and has no startup probe")),
        }
    }

    /// `StopLivenessAndStartup`: regular containers only; a sidecar's keep
    /// running until `RemovePod` (1.34–1.37; sidecars join in 1.38, PR #141766).
    pub fn stop_liveness_and_startup(&mut self, spec: &PodSpec) {
        for w in 0..self.workers.len() {
            let regular = spec.containers[self.workers[w].container].role == Role::Regular;
            if regular && self.workers[w].kind != ProbeKind::Readiness {
                self.stop_worker(w);
            }
        }
    }

    /// A worker exits: its ticker stops and its cached result is removed.
    pub fn stop_worker(&mut self, w: usize) {
        let (worker, results) = self.worker_and_results(w);
        worker.stopped = true;
        worker.ticker += 1;
        if let Some(id) = worker.container_id {
            results.remove(id);
        }
    }

    /// `RemovePod`: every worker stops.
    pub fn remove_pod(&mut self) {
        for w in 0..self.workers.len() {
            self.stop_worker(w);
        }
    }
}
