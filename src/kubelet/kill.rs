//! Killing containers (kuberuntime_container.go `killContainer`,
//! `executePreStopHook`, `killContainersWithSyncResult`, and
//! kuberuntime_termination_order.go): each kill runs the container's preStop
//! hook within the grace period, waits for its turn (a sidecar waits for
//! every regular container and the next later sidecar), then stops it with
//! whatever grace is left, at least 2 s. The kills of one pod run in parallel.

use super::Out;
use super::actions::KillReason;
use super::lifecycle::HookRun;
use super::runtime::{InstId, StopOutcome};
use super::sync::Wait;
use super::{Ev, Kubelet};
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::rng::What;
use crate::spec::{HookKind, PodSpec, Role};
use crate::time::{SimDuration, SimTime};
use crate::trace::record::ProcessFact;
use foldhash::{HashMap, HashSet};
use std::sync::Arc;

/// `minimumGracePeriodInSeconds`: the runtime always gets at least 2 s.
const MINIMUM_GRACE_SECONDS: i64 = 2;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Stage {
    /// Announced (Killing), not begun yet.
    Pending,
    /// The preStop hook runs; the kubelet waits for it at most the grace.
    PreStop {
        started: SimTime,
        hook: u64,
    },
    /// `waitForTurn`: a sidecar waits for the containers it must outlive.
    Turn {
        started: SimTime,
    },
    /// `StopContainer` sent SIGTERM; the process has not exited yet.
    Stopping,
    Done,
}

/// One `killContainer` in progress.
#[derive(Clone, Debug)]
struct Task {
    id: u64,
    group: u64,
    inst: InstId,
    container: usize,
    /// Seconds of grace left.
    grace: i64,
    why: Arc<str>,
    stage: Stage,
    /// Bumped on every stage change: older timers are stale.
    timer: u32,
}

/// `terminationOrdering`: per container, whether it has terminated (a
/// container not running when the kill began counts as terminated), and
/// what each sidecar waits for.
#[derive(Clone, Debug, Default)]
struct Ordering {
    terminated: HashSet<usize>,
    prereqs: HashMap<usize, Vec<usize>>,
}

impl Ordering {
    /// `newTerminationOrdering`.
    fn new(spec: &PodSpec, running: &HashSet<usize>) -> Ordering {
        let mut o = Ordering::default();
        let regular: Vec<usize> = spec.regular().map(|(i, _)| i).collect();
        for (i, _) in spec.containers.iter().enumerate().filter(|(i, _)| !running.contains(i)) {
            o.terminated.insert(i);
        }
        let mut later_sidecar = None;
        for (i, c) in spec.init().collect::<Vec<_>>().into_iter().rev() {
            if c.role == Role::Sidecar {
                let mut waits = regular.clone();
                waits.extend(later_sidecar);
                o.prereqs.insert(i, waits);
                later_sidecar = Some(i);
            }
        }
        o
    }

    fn turn_has_come(&self, container: usize) -> bool {
        self.prereqs.get(&container).is_none_or(|p| p.iter().all(|c| self.terminated.contains(c)))
    }
}

#[derive(Clone, Debug)]
struct Group {
    id: u64,
    ordering: Option<Ordering>,
}

/// A lifecycle hook in progress.
#[derive(Clone, Debug)]
pub(super) struct Hook {
    pub id: u64,
    pub inst: InstId,
    pub container: usize,
    pub kind: HookKind,
    pub run: HookRun,
    pub started: SimTime,
    pub done: bool,
}

/// The kills and hooks of one pod.
#[derive(Clone, Debug, Default)]
pub(super) struct Kills {
    tasks: Vec<Task>,
    groups: Vec<Group>,
    pub hooks: Vec<Hook>,
    next: u64,
}

impl Kills {
    fn next_id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }
    fn task(&mut self, id: u64) -> Option<&mut Task> {
        self.tasks.iter_mut().find(|t| t.id == id)
    }
}

/// A container to kill: instance, container index, `Killing` message, reason.
pub(super) struct Target {
    pub inst: InstId,
    pub container: usize,
    pub message: String,
    pub reason: KillReason,
}

/// Whole seconds of `d`, truncated as Go's `int64(d.Seconds())`.
fn whole_seconds(d: SimDuration) -> i64 {
    (d.as_millis() / 1000) as i64
}

impl Kubelet {
    /// `setTerminationGracePeriod`: the deletion's grace, else the probe's own
    /// for a probe kill, else the pod's.
    fn grace_of(&self, pod: PodId, container: usize, reason: KillReason) -> i64 {
        let p = self.pods[pod.0 as usize].as_ref().expect("killed pod exists");
        if let Some(g) = p.deletion_grace {
            return g;
        }
        let probe_grace =
            reason.probe().and_then(|k| p.spec.containers[container].probe(k)).and_then(|p| p.termination_grace);
        whole_seconds(probe_grace.unwrap_or(p.spec.termination_grace))
    }

    /// Starts killing `targets` together (`killContainersWithSyncResult` when
    /// `ordered`, else one `killContainer`), the sync waiting for all of them
    /// (then recording `then_failed` as a start failure). `grace` overrides
    /// the computed grace. Does nothing when there is nothing to kill.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn kill_group(
        &mut self,
        pod: PodId,
        targets: Vec<Target>,
        ordered: bool,
        grace: Option<i64>,
        why: Arc<str>,
        then_failed: Option<(usize, String)>,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        if targets.is_empty() {
            return;
        }
        let running: HashSet<usize> = targets.iter().map(|t| t.container).collect();
        let p = self.pod(pod).expect("killed pod exists");
        let ordering = (ordered && p.spec.containers.iter().any(|c| c.role == Role::Sidecar))
            .then(|| Ordering::new(&p.spec, &running));
        let group = p.kills.next_id();
        p.kills.groups.push(Group { id: group, ordering });
        // The sync waits before any kill begins: a kill of a process already
        // gone ends at once, and must find the sync waiting for it.
        self.set_wait(pod, Wait::Kills { group, then_failed });
        let mut ids = Vec::new();
        for t in targets {
            let g = grace.unwrap_or_else(|| self.grace_of(pod, t.container, t.reason));
            let p = self.pod(pod).expect("killed pod exists");
            let id = p.kills.next_id();
            let task = Task {
                id,
                group,
                inst: t.inst,
                container: t.container,
                grace: g,
                why: why.clone(),
                stage: Stage::Pending,
                timer: 0,
            };
            p.kills.tasks.push(task);
            // Every Killing event comes first, before any preStop runs.
            self.emit(pod, Some(t.container), false, "Killing", t.message, ctx);
            ids.push(id);
        }
        for id in ids {
            self.begin_kill(pod, id, ctx);
        }
    }

    /// `killContainer` from the top: the preStop hook if there is grace.
    fn begin_kill(&mut self, pod: PodId, id: u64, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let p = self.pod(pod).expect("killed pod exists");
        let Some(task) = p.kills.task(id) else { return };
        let (inst, container, grace) = (task.inst, task.container, task.grace);
        let has_hook = p.spec.containers[container].pre_stop.is_some();
        if has_hook && grace > 0 {
            let hook = self.start_hook(pod, inst, container, HookKind::PreStop, ctx);
            let p = self.pod(pod).expect("killed pod exists");
            let task = p.kills.task(id).expect("task exists");
            task.stage = Stage::PreStop { started: now, hook };
            task.timer += 1;
            let timer = task.timer;
            self.send(ctx, SimDuration::from_secs(grace as u64), Ev::KillTimer { pod, task: id, timer });
        } else {
            self.after_prestop(pod, id, now, ctx);
        }
    }

    /// The preStop wait is over: take its whole seconds from the grace, then
    /// wait for this container's turn.
    fn after_prestop(&mut self, pod: PodId, id: u64, now: SimTime, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let p = self.pod(pod).expect("killed pod exists");
        let group = p.kills.task(id).map(|t| t.group);
        let ordering = p.kills.groups.iter().find(|g| Some(g.id) == group).and_then(|g| g.ordering.clone());
        let task = p.kills.task(id).expect("task exists");
        if let Stage::PreStop { started, .. } = task.stage {
            task.grace -= whole_seconds(now.since(started));
        }
        match ordering {
            Some(o) if task.grace > 0 && !o.turn_has_come(task.container) => {
                task.stage = Stage::Turn { started: now };
                task.timer += 1;
                let (timer, grace) = (task.timer, task.grace);
                self.send(ctx, SimDuration::from_secs(grace as u64), Ev::KillTimer { pod, task: id, timer });
            }
            _ => self.stop_container(pod, id, now, ctx),
        }
    }

    /// `StopContainer(max(grace, 2))`: SIGTERM now, SIGKILL at the deadline.
    fn stop_container(&mut self, pod: PodId, id: u64, now: SimTime, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let p = self.pod(pod).expect("killed pod exists");
        let task = p.kills.task(id).expect("task exists");
        if let Stage::Turn { started } = task.stage {
            task.grace -= whole_seconds(now.since(started));
        }
        task.stage = Stage::Stopping;
        task.timer += 1;
        let (inst, why, timer) = (task.inst, task.why.clone(), task.timer);
        let timeout = SimDuration::from_secs(task.grace.max(MINIMUM_GRACE_SECONDS) as u64);
        if !self.runtime.inst(inst).is_running() {
            // Stopping a container that is gone returns at once — as its own
            // event, so a kill never completes inside the call that began it.
            return self.send(ctx, SimDuration::ZERO, Ev::KillTimer { pod, task: id, timer });
        }
        let outcome = self.runtime.stop(inst, now, timeout, why);
        self.process_fact(inst, ProcessFact::Sigterm, ctx);
        match outcome {
            StopOutcome::ExitsAt(t, code) => self.send(ctx, t.since(now), Ev::Exit { inst, code }),
            StopOutcome::Sigkill(t) => self.send(ctx, t.since(now), Ev::Sigkill { inst }),
        }
    }

    /// A preStop or turn deadline passed, or a stop found nothing to stop.
    pub(super) fn kill_timer(&mut self, pod: PodId, id: u64, timer: u32, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(task) = self.pod(pod).and_then(|p| p.kills.task(id)) else { return };
        if task.timer != timer {
            return;
        }
        let (stage, inst) = (task.stage.clone(), task.inst);
        match stage {
            Stage::PreStop { .. } => self.after_prestop(pod, id, now, ctx),
            Stage::Turn { .. } => self.stop_container(pod, id, now, ctx),
            Stage::Stopping if !self.runtime.inst(inst).is_running() => self.task_done(pod, id, ctx),
            Stage::Pending | Stage::Stopping | Stage::Done => {}
        }
    }

    /// `containerTerminated`: the stop returned; sidecars waiting on this
    /// container may go; the group may be done.
    fn task_done(&mut self, pod: PodId, id: u64, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let p = self.pod(pod).expect("killed pod exists");
        let task = p.kills.task(id).expect("task exists");
        task.stage = Stage::Done;
        let (group, container) = (task.group, task.container);
        let Some(g) = p.kills.groups.iter_mut().find(|g| g.id == group) else { return };
        let mut woken = Vec::new();
        if let Some(o) = g.ordering.as_mut() {
            o.terminated.insert(container);
            for t in p.kills.tasks.iter().filter(|t| t.group == group) {
                if matches!(t.stage, Stage::Turn { .. }) && o.turn_has_come(t.container) {
                    woken.push(t.id);
                }
            }
        }
        for w in woken {
            self.stop_container(pod, w, now, ctx);
        }
        let p = self.pod(pod).expect("killed pod exists");
        if p.kills.tasks.iter().any(|t| t.group == group && t.stage != Stage::Done) {
            return;
        }
        p.kills.tasks.retain(|t| t.group != group);
        p.kills.groups.retain(|g| g.id != group);
        self.kills_done(pod, group, ctx);
    }

    /// A process exited: hooks waiting on it end, a stop waiting for it returns.
    pub(super) fn kills_on_exit(&mut self, pod: PodId, inst: InstId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(p) = self.pod(pod) else { return };
        let cut: Vec<(u64, String)> = p
            .kills
            .hooks
            .iter()
            .filter(|h| !h.done)
            .filter_map(|h| Some((h.id, h.run.cut_by(inst, now.since(h.started))?.to_string())))
            .collect();
        for (h, error) in cut {
            self.finish_hook(pod, h, Some(error), ctx);
        }
        let Some(p) = self.pod(pod) else { return };
        let stopped: Vec<u64> =
            p.kills.tasks.iter().filter(|t| t.inst == inst && t.stage == Stage::Stopping).map(|t| t.id).collect();
        for id in stopped {
            self.task_done(pod, id, ctx);
        }
    }

    /// Starts a hook in the container's process; returns its id.
    pub(super) fn start_hook(
        &mut self,
        pod: PodId,
        inst: InstId,
        container: usize,
        kind: HookKind,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) -> u64 {
        let now = ctx.q.now();
        let overhead = self.cluster.latencies.exec_probe.sample(&mut self.rng, || {
            let hook = if kind == HookKind::PreStop { "preStop hook" } else { "postStart hook" };
            super::draws::label(&self.pods, What::HookOverhead, pod, Some(container)).with(hook)
        });
        let sandbox = self.runtime.sandbox(pod);
        let ip = sandbox.and_then(|s| s.reported_ip()).cloned();
        let netns = sandbox.map(|s| s.netns);
        if kind == HookKind::PreStop {
            self.runtime.inst_mut(inst).moments.prestop = true;
        }
        let p = self.pods[pod.0 as usize].as_ref().expect("hooked pod exists");
        let spec = &p.spec.containers[container];
        let handler = spec.hook(kind).expect("the container has this hook").clone();
        let desc = format!("{}_{}({})", p.spec.name, p.spec.namespace, p.uid);
        let status = super::lifecycle::RuntimeStatus { uid: &p.uid, name: &p.spec.name, namespace: &p.spec.namespace };
        let target = super::lifecycle::Target {
            container: spec,
            pod: &desc,
            ip: ip.as_deref(),
            status: &status,
            netns,
            inst,
            instance: self.runtime.inst(inst),
            runtime: &self.runtime,
            now,
            exec_overhead: overhead,
        };
        let run = super::lifecycle::run(&handler, &target, &mut self.app_rng);
        let took = run.took;
        let p = self.pod(pod).expect("hooked pod exists");
        let id = p.kills.next_id();
        p.kills.hooks.push(Hook { id, inst, container, kind, run, started: now, done: false });
        self.process_fact(inst, ProcessFact::Hook { kind, started: true, error: None }, ctx);
        self.send(ctx, took, Ev::HookDone { pod, hook: id });
        id
    }

    /// A hook returned (by itself, or cut short by its process dying).
    pub(super) fn finish_hook(
        &mut self,
        pod: PodId,
        id: u64,
        cut: Option<String>,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let now = ctx.q.now();
        let Some(p) = self.pod(pod) else { return };
        let Some(h) = p.kills.hooks.iter_mut().find(|h| h.id == id && !h.done) else { return };
        h.done = true;
        if cut.is_some() {
            h.run.error = cut;
        }
        let (inst, container, kind, error) = (h.inst, h.container, h.kind, h.run.error.clone());
        p.kills.hooks.retain(|h| h.id != id);
        self.process_fact(inst, ProcessFact::Hook { kind, started: false, error: error.clone() }, ctx);
        match kind {
            HookKind::PreStop => {
                if error.is_some() {
                    self.emit(pod, Some(container), true, "FailedPreStopHook", "PreStopHook failed".into(), ctx);
                }
                let p = self.pod(pod).expect("hooked pod exists");
                let waiting =
                    p.kills.tasks.iter().find(|t| matches!(t.stage, Stage::PreStop { hook, .. } if hook == id));
                if let Some(t) = waiting.map(|t| t.id) {
                    self.after_prestop(pod, t, now, ctx);
                }
            }
            HookKind::PostStart => self.post_start_done(pod, id, container, inst, error, ctx),
        }
    }
}
