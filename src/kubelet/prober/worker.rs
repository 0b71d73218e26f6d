//! One probe worker (`pkg/kubelet/prober/worker.go`, v1.35): a goroutine per
//! (container, probe kind) that ticks every periodSeconds from its creation at
//! the pod's first sync, and decides from the kubelet's cached status whether
//! to probe at all.

use super::results::{ProbeResult, Results};
use crate::api::status::{ContainerState, PodStatus};
use crate::engine::Parked;
use crate::kubelet::runtime::InstId;
use crate::spec::{ProbeKind, ProbeSpec};
use crate::time::{SimDuration, SimTime};
use std::borrow::Cow;
use std::sync::Arc;

/// A change of a cached result, to be handled by the kubelet's sync loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Update {
    pub kind: ProbeKind,
    pub inst: InstId,
    pub result: ProbeResult,
    /// Why the value changed, for the timeline.
    pub why: Cow<'static, str>,
}

/// A process that answers the worker's probe in flight, from `from` to `to`
/// after the probe started: its death then cuts the answer short.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Served {
    pub inst: InstId,
    pub from: SimDuration,
    pub to: SimDuration,
}

/// What `doProbe` decided before running a probe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing to probe now, nor at any later tick until what was read
    /// changes (the cached status, the worker's own state).
    Skip(&'static str),
    /// Nothing to probe before the initial delay has passed.
    Wait(&'static str),
    /// The worker exits.
    Stop,
    /// Probe this running instance.
    Run(InstId),
}

/// What `begin` reads of the cached status, for a worker whose own state
/// has not changed since: the same view, the same step and no update.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct View {
    status: bool,
    terminal: bool,
    container: bool,
    instance: Option<u32>,
    state: StateView,
    started: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum StateView {
    Waiting,
    /// Past the initial delay once, it stays past it.
    Running(SimTime),
    Terminated,
}

#[derive(Clone, Debug)]
pub struct Worker {
    pub kind: ProbeKind,
    pub container: usize,
    pub name: Arc<str>,
    /// Shared: each probe's result handling reads the handler while the worker is borrowed.
    pub spec: Arc<ProbeSpec>,
    /// The container instance the worker last saw (`w.containerID`).
    pub container_id: Option<InstId>,
    last_result: Option<ProbeResult>,
    /// Consecutive identical results (`resultRun`).
    pub result_run: u32,
    on_hold: bool,
    /// A probe is in flight.
    pub busy: bool,
    /// The processes answering the probe in flight (kept to reuse its room).
    pub served: Vec<Served>,
    /// A tick arrived while busy (the ticker channel holds one).
    pub pending_tick: bool,
    /// A manual trigger arrived while busy (`manualTriggerCh` holds one).
    pub pending_manual: bool,
    /// Ticker generation: a reset or stop invalidates scheduled ticks.
    pub ticker: u32,
    /// Its last tick skipped the probe and changed nothing, having read
    /// this of the cached status: every tick does the same until what it
    /// reads changes.
    pub dormant: Option<View>,
    /// Its ticker, parked while dormant ([`crate::engine::Queue::park`]).
    pub parked: Option<Parked>,
    pub stopped: bool,
}

impl Worker {
    /// `newWorker`.
    pub fn new(kind: ProbeKind, container: usize, name: Arc<str>, spec: ProbeSpec) -> Self {
        Worker {
            kind,
            container,
            name,
            spec: Arc::new(spec),
            container_id: None,
            last_result: None,
            result_run: 0,
            on_hold: false,
            busy: false,
            served: Vec::new(),
            pending_tick: false,
            pending_manual: false,
            ticker: 0,
            dormant: None,
            parked: None,
            stopped: false,
        }
    }

    /// The value stored for a container the worker sees for the first time.
    fn initial_value(&self) -> ProbeResult {
        match self.kind {
            ProbeKind::Readiness => ProbeResult::Failure,
            ProbeKind::Liveness => ProbeResult::Success,
            ProbeKind::Startup => ProbeResult::Unknown,
        }
    }

    fn set(
        &self,
        results: &mut Results,
        inst: InstId,
        result: ProbeResult,
        why: Cow<'static, str>,
        updates: &mut Vec<Update>,
    ) {
        if results.set(inst, result) {
            updates.push(Update { kind: self.kind, inst, result, why });
        }
    }

    /// What `begin` reads of `status`.
    pub fn view(&self, status: Option<&PodStatus>) -> View {
        let c = status.and_then(|s| s.container(&self.name));
        View {
            status: status.is_some(),
            terminal: status.is_some_and(|s| s.phase.is_terminal()),
            container: c.is_some(),
            instance: c.and_then(|c| c.instance.as_ref()).map(|i| i.handle),
            state: match c.map(|c| &c.state) {
                Some(ContainerState::Running { started_at }) => StateView::Running(*started_at),
                Some(ContainerState::Terminated(_)) => StateView::Terminated,
                Some(ContainerState::Waiting { .. }) | None => StateView::Waiting,
            },
            started: c.is_some_and(|c| c.started),
        }
    }

    /// The first half of `doProbe`: every check before the probe runs, in the
    /// source's order. `can_restart` is false when an exited container will
    /// never run again (pod restartPolicy Never).
    pub fn begin(
        &mut self,
        status: Option<&PodStatus>,
        can_restart: bool,
        restarted_before: Option<SimTime>,
        now: SimTime,
        results: &mut Results,
        updates: &mut Vec<Update>,
    ) -> Step {
        let Some(status) = status else {
            return Step::Skip("the pod has no status yet");
        };
        if status.phase.is_terminal() {
            return Step::Stop;
        }
        let Some(c) = status.container(&self.name) else {
            return Step::Skip("no container status");
        };
        let Some(inst) = &c.instance else {
            return Step::Skip("the container has not been created");
        };
        let id = InstId(inst.handle);
        if self.container_id != Some(id) {
            if let Some(old) = self.container_id {
                results.remove(old);
            }
            self.container_id = Some(id);
            // A kubelet restarted from 1.35 seeds no result for a container
            // running since before it started (`kubeletRestartGracePeriod`).
            let kept = matches!(c.state, ContainerState::Running { started_at } if restarted_before.is_some_and(|b| started_at < b));
            if !kept {
                self.set(results, id, self.initial_value(), Cow::Borrowed("a new container"), updates);
            }
            self.on_hold = false;
        }
        if self.on_hold {
            return Step::Skip("on hold until the container is replaced");
        }
        let started_at = match &c.state {
            ContainerState::Running { started_at } => *started_at,
            state => {
                self.set(results, id, ProbeResult::Failure, Cow::Borrowed("the container is not running"), updates);
                let terminated = matches!(state, ContainerState::Terminated(_));
                return if terminated && !can_restart {
                    Step::Stop
                } else {
                    Step::Skip("the container is not running")
                };
            }
        };
        // `int32(time.Since(StartedAt).Seconds()) < InitialDelaySeconds`
        if (now.since(started_at).whole_seconds() as u32) < self.spec.initial_delay_seconds {
            return Step::Wait("initialDelaySeconds has not passed");
        }
        match (c.started, self.kind) {
            (true, ProbeKind::Startup) => Step::Skip("the container has started"),
            (false, ProbeKind::Readiness | ProbeKind::Liveness) => {
                Step::Skip("the startup probe has not succeeded yet")
            }
            _ => Step::Run(id),
        }
    }

    /// The second half of `doProbe`: count the result and publish it once a
    /// threshold is reached. Returns the run length after this result.
    pub fn finish(&mut self, inst: InstId, success: bool, results: &mut Results, updates: &mut Vec<Update>) -> u32 {
        let result = if success { ProbeResult::Success } else { ProbeResult::Failure };
        if self.last_result == Some(result) {
            self.result_run += 1;
        } else {
            self.last_result = Some(result);
            self.result_run = 1;
        }
        let run = self.result_run;
        let threshold = if success { self.spec.success_threshold } else { self.spec.failure_threshold };
        if run < threshold {
            return run;
        }
        let why = if success {
            Cow::Borrowed(match self.kind {
                ProbeKind::Liveness => "the liveness probe succeeded",
                ProbeKind::Readiness => "the readiness probe succeeded",
                ProbeKind::Startup => "the startup probe succeeded",
            })
        } else {
            Cow::Owned(format!("the {} probe failed {run} times", self.kind))
        };
        self.set(results, inst, result, why, updates);
        // Liveness failure, or any startup verdict: hold until a new container
        // (v1.35; startup success also holds since #117153).
        let hold = match self.kind {
            ProbeKind::Liveness => !success,
            ProbeKind::Startup => true,
            ProbeKind::Readiness => false,
        };
        if hold {
            self.on_hold = true;
            self.result_run = 0;
        }
        run
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::status::{ContainerStatus, InstanceRef};
    use crate::kubelet::status::manager::StatusManager;
    use crate::spec::{Handler, QosClass};
    use crate::time::SimDuration;

    fn liveness(initial_delay_seconds: u32) -> Worker {
        let spec = ProbeSpec {
            handler: Handler::Exec { command: vec!["true".into()] },
            initial_delay_seconds,
            period: SimDuration::from_secs(10),
            timeout: SimDuration::from_secs(1),
            success_threshold: 1,
            failure_threshold: 3,
            termination_grace: None,
        };
        Worker::new(ProbeKind::Liveness, 0, Arc::from("app"), spec)
    }

    /// The status manager's cache after a sync that saw the container
    /// running since `started_at`.
    fn cached_running(started_at: SimTime) -> StatusManager {
        let mut status = PodStatus::new(QosClass::BestEffort);
        status.containers.push(ContainerStatus {
            name: Arc::from("app"),
            image: Arc::from("busybox:1.36"),
            instance: Some(InstanceRef {
                handle: 7,
                container_id: Arc::from("containerd://7"),
                image: Arc::from("docker.io/library/busybox:1.36"),
                image_id: Arc::from("sha256:7"),
            }),
            state: ContainerState::Running { started_at },
            last_state: None,
            ready: true,
            started: true,
            restart_count: 0,
            ready_why: Cow::Borrowed(""),
            started_why: Cow::Borrowed(""),
        });
        let mut manager = StatusManager::new(PodStatus::new(QosClass::BestEffort));
        manager.set(status, started_at + SimDuration::from_millis(300), false);
        manager
    }

    fn step_at(w: &mut Worker, m: &StatusManager, now_ms: u64) -> Step {
        w.begin(m.cached(), true, None, SimTime::from_millis(now_ms), &mut Results::default(), &mut Vec::new())
    }

    /// doProbe reads StartedAt from the status manager's cache, which holds
    /// it to the second (normalizeStatus): a container started at 12.7 s
    /// with initialDelaySeconds 5 may be probed from `int32(now − 12 s) ≥ 5`,
    /// i.e. from 17 s, 0.7 s before 12.7 + 5.
    #[test]
    fn initial_delay_counts_from_the_cached_second() {
        let m = cached_running(SimTime::from_millis(12_700));
        let mut w = liveness(5);
        assert_eq!(step_at(&mut w, &m, 16_999), Step::Wait("initialDelaySeconds has not passed"));
        assert_eq!(step_at(&mut w, &m, 17_000), Step::Run(InstId(7)));
        // A start on the second itself gains nothing.
        let m = cached_running(SimTime::from_millis(12_000));
        let mut w = liveness(5);
        assert_eq!(step_at(&mut w, &m, 16_999), Step::Wait("initialDelaySeconds has not passed"));
        assert_eq!(step_at(&mut w, &m, 17_000), Step::Run(InstId(7)));
    }

    /// Without an initial delay nothing changes: `int32(…) ≥ 0` always holds.
    #[test]
    fn no_initial_delay_probes_at_once() {
        let m = cached_running(SimTime::from_millis(12_700));
        let mut w = liveness(0);
        assert_eq!(step_at(&mut w, &m, 12_800), Step::Run(InstId(7)));
    }
}
