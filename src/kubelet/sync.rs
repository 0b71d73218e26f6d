//! One sync of a pod, step by step: `Kubelet.SyncPod` with the runtime's
//! `SyncPod` (kill, sandbox, start), `SyncTerminatingPod` and
//! `SyncTerminatedPod`. Steps that take time schedule their own end.

use super::actions::{self, Kill, KillReason};
use super::backoff::{Decision, do_backoff};
use super::images::{self, ImageAction};
use super::pleg::PodSnapshot;
use super::pod_worker::{Lifecycle, SyncOutcome, requeue_delay};
use super::runtime::{InstId, InstState, Instance, Sandbox};
use super::status::generate::{Generated, Inputs, generate};
use super::{Ev, Kubelet};
use crate::api::status::ConditionType;
use crate::app::Plan;
use crate::cluster::{Gate, Version};
use crate::rng::fnv1a;
use crate::sim::{Ctx, PodId};
use crate::spec::ProbeKind;
use crate::time::{SimDuration, SimTime};
use crate::trace::record::ProcessFact;
use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;

/// `minimumGracePeriodInSeconds`: the runtime always gets at least 2 s.
const MINIMUM_GRACE: SimDuration = SimDuration::from_secs(2);

/// A step of a sync.
#[derive(Clone, Debug)]
pub(super) enum Step {
    /// The sync's own work before any runtime action.
    Overhead,
    /// `killPodWithSyncResult`: stop every running container, in parallel;
    /// the text says why, for the timeline.
    KillAll(Arc<str>),
    Kill(Kill),
    CreateSandbox,
    Start(usize),
    StopSandbox,
    /// The end of `SyncTerminatingPod`: the final status from stopped containers.
    FinishTerminating,
}

/// What the current step waits for.
#[derive(Clone, Debug)]
enum Wait {
    Nothing,
    Overhead,
    Sandbox,
    StopSandbox,
    Pull { container: usize, began: SimTime },
    Create { container: usize },
    Start { container: usize, inst: InstId },
    Exits(Vec<InstId>),
}

pub(super) struct SyncRun {
    id: u64,
    lifecycle: Lifecycle,
    snapshot: Arc<PodSnapshot>,
    steps: VecDeque<Step>,
    wait: Wait,
    /// Earliest CrashLoopBackOff expiry among the failed starts.
    backoff_expiry: Option<SimTime>,
    failed: bool,
    acted: bool,
}

impl Kubelet {
    /// Starts the sync if the worker waits and the PLEG cache is newer than
    /// the previous sync's end (`podCache.GetNewerThan`).
    pub(super) fn try_start_sync(&mut self, pod: PodId, ctx: &mut Ctx<'_>) {
        let Some(p) = self.pod(pod) else { return };
        if p.worker.work != super::pod_worker::Work::WaitingForCache {
            return;
        }
        let last = p.worker.last_sync_end;
        if !self.pleg.newer_than(pod, last) {
            return;
        }
        let snapshot = self.pleg.snapshot(pod);
        let p = self.pod(pod).expect("checked above");
        let id = p.worker.begin();
        let lifecycle = p.worker.lifecycle;
        p.sync = Some(SyncRun {
            id,
            lifecycle,
            snapshot,
            steps: VecDeque::new(),
            wait: Wait::Nothing,
            backoff_expiry: None,
            failed: false,
            acted: false,
        });
        match lifecycle {
            Lifecycle::Syncing => self.sync_pod(pod, ctx),
            Lifecycle::Terminating => self.sync_terminating_pod(pod, ctx),
            Lifecycle::Terminated => self.sync_terminated_pod(pod, ctx),
            Lifecycle::Finished => {}
        }
    }

    /// Generates the API status from the sync's snapshot and caches it.
    fn generate_and_set(
        &mut self,
        pod: PodId,
        snapshot: &PodSnapshot,
        terminal: bool,
        force: bool,
        ctx: &mut Ctx<'_>,
    ) -> Generated {
        let now = ctx.q.now();
        let version = self.cluster.version;
        let gate = self.cluster.gates.enabled(Gate::PodReadyToStartContainersCondition);
        let ip = self.node.ip.clone();
        let p = self.pod(pod).expect("synced pod exists");
        let g = generate(&Inputs {
            spec: &p.spec,
            snapshot,
            previous: p.status.previous(),
            reasons: &p.reasons,
            probes: &p.probes,
            host_ip: &ip,
            terminal,
            deleting: false,
            ready_to_start_condition: gate,
            ready_to_start_reason: version >= Version::V1_36,
        });
        p.status.set(g.status.clone(), now, force);
        self.flush_status(pod, ctx);
        g
    }

    /// `Kubelet.SyncPod`.
    fn sync_pod(&mut self, pod: PodId, ctx: &mut Ctx<'_>) {
        let snapshot = self.pod(pod).and_then(|p| p.sync.as_ref()).map(|s| s.snapshot.clone()).expect("sync exists");
        let g = self.generate_and_set(pod, &snapshot, false, false, ctx);
        if g.status.phase.is_terminal() {
            // SyncPod returns isTerminal: the pod worker starts terminating.
            let p = self.pod(pod).expect("synced pod exists");
            p.worker.lifecycle = Lifecycle::Terminating;
            return self.complete_sync(pod, SyncOutcome::PhaseTransition, ctx);
        }
        for w in g.readiness_triggers {
            self.send(ctx, SimDuration::ZERO, Ev::ProbeManual { pod, worker: w });
        }
        let p = self.pod(pod).expect("synced pod exists");
        for w in p.probes.add_pod(&p.spec) {
            self.send(ctx, SimDuration::ZERO, Ev::ProbeTick { pod, worker: w, ticker: 0 });
        }
        let p = self.pod(pod).expect("synced pod exists");
        let a = actions::compute(
            &p.spec,
            &snapshot,
            p.probes.results(ProbeKind::Liveness),
            p.probes.results(ProbeKind::Startup),
        );
        let run = p.sync.as_mut().expect("sync exists");
        run.steps.push_back(Step::Overhead);
        if a.kill_pod {
            // The kill list is dropped on this path: every container gets the
            // pod-level "Stopping container" kill and the pod's grace period.
            let why = match a.kill.first() {
                Some(k) => {
                    format!("{} and restartPolicy is Never: the kubelet stops the pod", k.message.to_lowercase())
                }
                None => "no container is left to run: the kubelet stops the pod".to_string(),
            };
            run.steps.push_back(Step::KillAll(Arc::from(why)));
            if !a.create_sandbox {
                run.steps.push_back(Step::StopSandbox);
            }
        } else {
            run.steps.extend(a.kill.into_iter().map(Step::Kill));
        }
        if a.create_sandbox {
            run.steps.push_back(Step::CreateSandbox);
        }
        run.steps.extend(a.start.into_iter().map(Step::Start));
        self.advance(pod, ctx);
    }

    /// `SyncTerminatingPod`: liveness and startup stop, every container is
    /// stopped, then the sandbox; the final status comes from the stopped containers.
    fn sync_terminating_pod(&mut self, pod: PodId, ctx: &mut Ctx<'_>) {
        let snapshot = self.pod(pod).and_then(|p| p.sync.as_ref()).map(|s| s.snapshot.clone()).expect("sync exists");
        self.generate_and_set(pod, &snapshot, false, false, ctx);
        let p = self.pod(pod).expect("synced pod exists");
        p.probes.stop_liveness_and_startup();
        let run = p.sync.as_mut().expect("sync exists");
        let why = Arc::from("the pod is being stopped");
        run.steps.extend([Step::Overhead, Step::KillAll(why), Step::StopSandbox, Step::FinishTerminating]);
        self.advance(pod, ctx);
    }

    /// `SyncTerminatedPod`: the final status, forced out (`TerminatePod`).
    fn sync_terminated_pod(&mut self, pod: PodId, ctx: &mut Ctx<'_>) {
        let snapshot = self.pod(pod).and_then(|p| p.sync.as_ref()).map(|s| s.snapshot.clone()).expect("sync exists");
        self.generate_and_set(pod, &snapshot, true, true, ctx);
        self.pod(pod).expect("synced pod exists").worker.lifecycle = Lifecycle::Finished;
        self.complete_sync(pod, SyncOutcome::Ok, ctx);
    }

    /// Runs steps until one has to wait, or the sync is done.
    fn advance(&mut self, pod: PodId, ctx: &mut Ctx<'_>) {
        loop {
            let Some(run) = self.pod(pod).and_then(|p| p.sync.as_mut()) else {
                return;
            };
            if !matches!(run.wait, Wait::Nothing) {
                return;
            }
            let Some(step) = run.steps.pop_front() else {
                let outcome = match (run.lifecycle, run.failed) {
                    (Lifecycle::Terminating, _) => SyncOutcome::PhaseTransition,
                    (_, true) => SyncOutcome::Error { backoff_expiry: run.backoff_expiry },
                    (_, false) => SyncOutcome::Ok,
                };
                if run.lifecycle == Lifecycle::Terminating {
                    self.pod(pod).expect("synced pod exists").worker.lifecycle = Lifecycle::Terminated;
                }
                return self.complete_sync(pod, outcome, ctx);
            };
            self.run_step(pod, step, ctx);
        }
    }

    fn set_wait(&mut self, pod: PodId, wait: Wait) {
        if let Some(run) = self.pod(pod).and_then(|p| p.sync.as_mut()) {
            run.wait = wait;
        }
    }

    fn schedule_step(&mut self, pod: PodId, delay: SimDuration, wait: Wait, ctx: &mut Ctx<'_>) {
        let id = self.pod(pod).and_then(|p| p.sync.as_ref()).map(|s| s.id).expect("sync exists");
        self.set_wait(pod, wait);
        self.send(ctx, delay, Ev::SyncStep { pod, sync: id });
    }

    fn run_step(&mut self, pod: PodId, step: Step, ctx: &mut Ctx<'_>) {
        match step {
            Step::Overhead => {
                let d = self.cluster.latencies.pod_sync.sample(&mut self.rng);
                self.schedule_step(pod, d, Wait::Overhead, ctx);
            }
            Step::KillAll(why) => {
                let grace = self.pod_spec(pod).termination_grace;
                let running: Vec<(InstId, usize)> = self
                    .runtime
                    .pod_instances(pod)
                    .filter(|(_, i)| i.is_running())
                    .map(|(id, i)| (id, i.container))
                    .collect();
                for (inst, container) in &running {
                    let name = self.pod_spec(pod).containers[*container].name.clone();
                    self.kill(pod, *inst, *container, format!("Stopping container {name}"), grace, &why, ctx);
                }
                if !running.is_empty() {
                    self.set_wait(pod, Wait::Exits(running.into_iter().map(|(i, _)| i).collect()));
                }
            }
            Step::Kill(k) => {
                let spec = self.pod_spec(pod);
                let probe = match k.reason {
                    KillReason::LivenessProbe => Some(ProbeKind::Liveness),
                    KillReason::StartupProbe => Some(ProbeKind::Startup),
                    KillReason::PodKill => None,
                };
                // setTerminationGracePeriod: the probe's own grace, else the pod's.
                let grace = probe
                    .and_then(|kind| spec.containers[k.container].probe(kind))
                    .and_then(|p| p.termination_grace)
                    .unwrap_or(spec.termination_grace);
                let why = match probe {
                    Some(kind) => {
                        let t = spec.containers[k.container].probe(kind).map_or(0, |p| p.failure_threshold);
                        format!("killed: {kind} probe failed {t} times")
                    }
                    None => "killed".to_string(),
                };
                // The snapshot may be stale: the process can have exited since.
                // The kubelet still reports the kill; stopping a dead container is a no-op.
                if self.kill(pod, k.inst, k.container, k.message, grace, &why, ctx) {
                    self.set_wait(pod, Wait::Exits(vec![k.inst]));
                }
            }
            Step::CreateSandbox => {
                let d = self.cluster.latencies.sandbox_create.sample(&mut self.rng);
                self.schedule_step(pod, d, Wait::Sandbox, ctx);
            }
            Step::StopSandbox => {
                if self.runtime.sandbox(pod).is_some() {
                    let d = self.cluster.latencies.sandbox_stop.sample(&mut self.rng);
                    self.schedule_step(pod, d, Wait::StopSandbox, ctx);
                }
            }
            Step::Start(c) => self.start_container(pod, c, ctx),
            Step::FinishTerminating => {
                let p = self.pod(pod).expect("synced pod exists");
                p.probes.remove_pod();
                let fresh = PodSnapshot::read(&self.runtime, pod);
                self.generate_and_set(pod, &fresh, true, false, ctx);
            }
        }
    }

    /// `killContainer` without preStop: `Killing` event, then
    /// `StopContainer(max(grace, 2 s))`. Returns false when the process had
    /// already exited (nothing to wait for).
    #[allow(clippy::too_many_arguments)]
    fn kill(
        &mut self,
        pod: PodId,
        inst: InstId,
        container: usize,
        message: String,
        grace: SimDuration,
        why: &str,
        ctx: &mut Ctx<'_>,
    ) -> bool {
        let now = ctx.q.now();
        self.emit(pod, Some(container), false, "Killing", message, ctx);
        if !self.runtime.inst(inst).is_running() {
            return false;
        }
        let timeout = grace.max(MINIMUM_GRACE);
        let outcome = self.runtime.stop(inst, now, timeout, Arc::from(why));
        self.process_fact(inst, ProcessFact::Sigterm, ctx);
        match outcome {
            super::runtime::StopOutcome::ExitsAt(t, code) => self.send(ctx, t.since(now), Ev::Exit { inst, code }),
            super::runtime::StopOutcome::Sigkill(t) => self.send(ctx, t.since(now), Ev::Sigkill { inst }),
        }
        true
    }

    /// The `start` closure of the runtime's SyncPod: backoff, image, create, start.
    fn start_container(&mut self, pod: PodId, c: usize, ctx: &mut Ctx<'_>) {
        let now = ctx.q.now();
        let p = self.pod(pod).expect("synced pod exists");
        let run = p.sync.as_ref().expect("sync exists");
        let newest_exit = run.snapshot.newest_exited(c).and_then(|s| match s.state {
            InstState::Exited { finished, .. } => Some(finished),
            _ => None,
        });
        let container = p.spec.containers[c].clone();
        let key = format!(
            "{}_{}_{}_{}_{:08x}",
            p.spec.name,
            p.spec.namespace,
            p.uid,
            container.name,
            fnv1a(format!("{}{}", container.name, container.image).as_bytes()) as u32
        );
        let pod_desc = format!("{}_{}({})", p.spec.name, p.spec.namespace, p.uid);
        if let Decision::Wait { backoff, expiry } = do_backoff(&mut self.backoff, &key, newest_exit, now) {
            let name = &container.name;
            self.emit(
                pod,
                Some(c),
                true,
                "BackOff",
                format!("Back-off restarting failed container {name} in pod {pod_desc}"),
                ctx,
            );
            let message = format!("back-off {backoff} restarting failed container={name} pod={pod_desc}");
            return self.start_failed(pod, c, "CrashLoopBackOff", message, Some(expiry));
        }
        let present = self.runtime.has_image(&container.image);
        match images::ensure(container.pull_policy, present) {
            ImageAction::Present => {
                let msg = images::already_present(&container.image, self.cluster.version);
                self.emit(pod, Some(c), false, "Pulled", msg, ctx);
                self.begin_create(pod, c, ctx);
            }
            ImageAction::Pull { cached } => {
                self.emit(pod, Some(c), false, "Pulling", format!("Pulling image {:?}", container.image), ctx);
                let lat = &self.cluster.latencies;
                let d =
                    if cached { lat.image_pull_cached.clone() } else { lat.image_pull.clone() }.sample(&mut self.rng);
                self.schedule_step(pod, d, Wait::Pull { container: c, began: now }, ctx);
            }
            ImageAction::NeverPullMissing => {
                let msg = format!("Container image {:?} is not present with pull policy of Never", container.image);
                self.emit(pod, Some(c), true, "ErrImageNeverPull", msg.clone(), ctx);
                self.emit(pod, Some(c), true, "Failed", "Error: ErrImageNeverPull".into(), ctx);
                self.start_failed(pod, c, "ErrImageNeverPull", msg, None);
            }
        }
    }

    /// A start failed: the reason cache remembers it for the next status.
    fn start_failed(&mut self, pod: PodId, c: usize, reason: &'static str, message: String, expiry: Option<SimTime>) {
        let p = self.pod(pod).expect("synced pod exists");
        p.reasons.insert(c, (Cow::Borrowed(reason), message));
        let run = p.sync.as_mut().expect("sync exists");
        run.failed = true;
        if let Some(e) = expiry {
            run.backoff_expiry = Some(run.backoff_expiry.map_or(e, |x| x.min(e)));
        }
    }

    fn begin_create(&mut self, pod: PodId, c: usize, ctx: &mut Ctx<'_>) {
        let d = self.cluster.latencies.container_create.sample(&mut self.rng);
        self.schedule_step(pod, d, Wait::Create { container: c }, ctx);
    }

    /// A timed step ended.
    pub(super) fn sync_step_done(&mut self, pod: PodId, sync: u64, ctx: &mut Ctx<'_>) {
        let now = ctx.q.now();
        let Some(run) = self.pod(pod).and_then(|p| p.sync.as_mut()) else {
            return;
        };
        if run.id != sync {
            return;
        }
        let wait = std::mem::replace(&mut run.wait, Wait::Nothing);
        run.acted |= !matches!(wait, Wait::Overhead);
        match wait {
            Wait::Sandbox => {
                let ip = self.allocate_ip(pod);
                self.runtime.set_sandbox(pod, Some(Sandbox { ip }));
                if self.cluster.version >= Version::V1_36
                    && self.cluster.gates.enabled(Gate::PodReadyToStartContainersCondition)
                {
                    self.sandbox_ready_condition(pod, ctx);
                }
            }
            Wait::StopSandbox => self.runtime.set_sandbox(pod, None),
            Wait::Pull { container, began } => {
                let image = self.pod_spec(pod).containers[container].image.clone();
                self.runtime.images.push(image.clone());
                let took = now.since(began);
                let size = 20_000_000 + fnv1a(image.as_bytes()) % 180_000_000;
                let msg = format!(
                    "Successfully pulled image {image:?} in {took} ({took} including waiting). Image size: {size} bytes."
                );
                self.emit(pod, Some(container), false, "Pulled", msg, ctx);
                self.begin_create(pod, container, ctx);
            }
            Wait::Create { container } => {
                let inst = self.create_instance(pod, container);
                let msg = self.lifecycle_message("Created", container, pod);
                self.emit(pod, Some(container), false, "Created", msg, ctx);
                let d = self.cluster.latencies.container_start.sample(&mut self.rng);
                self.schedule_step(pod, d, Wait::Start { container, inst }, ctx);
            }
            Wait::Start { container, inst } => {
                self.runtime.start(inst, now);
                self.process_fact(inst, ProcessFact::Started, ctx);
                self.schedule_process(inst, ctx);
                let msg = self.lifecycle_message("Started", container, pod);
                self.emit(pod, Some(container), false, "Started", msg, ctx);
                self.pod(pod).expect("synced pod exists").reasons.remove(&container);
            }
            Wait::Nothing | Wait::Overhead | Wait::Exits(_) => {}
        }
        self.advance(pod, ctx);
    }

    /// 1.36+: `OnPodSandboxReady` marks PodReadyToStartContainers True at once.
    fn sandbox_ready_condition(&mut self, pod: PodId, ctx: &mut Ctx<'_>) {
        let now = ctx.q.now();
        let p = self.pod(pod).expect("synced pod exists");
        let mut s = p.status.previous().clone();
        s.set_condition(crate::api::status::Condition::new(ConditionType::PodReadyToStartContainers, true));
        if p.status.set(s, now, false) {
            self.flush_status(pod, ctx);
        }
    }

    /// Created/Started messages: the container name left them in 1.35 (PR #134043).
    fn lifecycle_message(&self, what: &str, container: usize, pod: PodId) -> String {
        let name = &self.pod_spec(pod).containers[container].name;
        match (what, self.cluster.version >= Version::V1_35) {
            ("Created", true) => "Container created".into(),
            ("Created", false) => format!("Created container: {name}"),
            (_, true) => "Container started".into(),
            (_, false) => format!("Started container {name}"),
        }
    }

    fn allocate_ip(&mut self, pod: PodId) -> Arc<str> {
        if self.pod_spec(pod).host_network {
            return self.node.ip.clone();
        }
        self.next_ip += 1;
        let node_index = self.cluster.nodes.iter().position(|n| n.name == self.node.name).unwrap_or(0);
        Arc::from(format!("10.244.{}.{}", node_index, 1 + self.next_ip))
    }

    /// `CreateContainer`: restartCount is the newest instance's + 1 (from the sync's snapshot).
    fn create_instance(&mut self, pod: PodId, c: usize) -> InstId {
        let p = self.pods[pod.0 as usize].as_ref().expect("synced pod exists");
        let snapshot = &p.sync.as_ref().expect("sync exists").snapshot;
        let restart_count = snapshot.newest(c).map_or(0, |n| n.restart_count + 1);
        let spec = &p.spec.containers[c];
        let normalized = images::normalize(&spec.image);
        let digest = format!(
            "{:016x}{:016x}{:016x}{:016x}",
            fnv1a(normalized.as_bytes()),
            fnv1a(b"a"),
            fnv1a(spec.image.as_bytes()),
            fnv1a(b"b")
        );
        let behaviour = self.behaviours.for_instance(&spec.name, restart_count);
        let plan = Plan::draw(behaviour, &spec.declared_ports(), &mut self.app_rng);
        let inst = Instance {
            pod,
            container: c,
            name: spec.name.clone(),
            container_id: Arc::from(format!("containerd://{}", self.rng.hex(64))),
            image_id: Arc::from(images::image_id(&normalized, &digest)),
            image: Arc::from(normalized),
            restart_count,
            state: InstState::Created,
            plan,
            stopping: None,
            removed: false,
        };
        self.runtime.create(inst)
    }

    /// Schedules what the process does by itself: listen, exit.
    fn schedule_process(&mut self, inst: InstId, ctx: &mut Ctx<'_>) {
        let plan = &self.runtime.inst(inst).plan;
        let listens = !plan.has_behaviour() || !plan.ports().is_empty();
        let listen_after = plan.listen_after;
        let exit = plan.exit;
        if listens {
            self.send(ctx, listen_after, Ev::Listening { inst });
        }
        if let Some((after, code)) = exit {
            self.send(ctx, after, Ev::Exit { inst, code });
        }
    }

    /// A process ended: a kill waiting for it may be done.
    pub(super) fn instance_exited(&mut self, pod: PodId, inst: InstId, ctx: &mut Ctx<'_>) {
        let Some(run) = self.pod(pod).and_then(|p| p.sync.as_mut()) else {
            return;
        };
        if let Wait::Exits(list) = &mut run.wait {
            list.retain(|i| *i != inst);
            if list.is_empty() {
                run.wait = Wait::Nothing;
                run.acted = true;
                self.advance(pod, ctx);
            }
        }
    }

    /// The sync returned: `completeWork`, and in 1.37 the on-demand relist.
    fn complete_sync(&mut self, pod: PodId, outcome: SyncOutcome, ctx: &mut Ctx<'_>) {
        let now = ctx.q.now();
        let unit = self.rng.unit();
        let version = self.cluster.version;
        let resync = self.cluster.kubelet.sync_frequency.sample(&mut self.rng);
        let on_demand = self.on_demand_relist();
        let p = self.pod(pod).expect("synced pod exists");
        let acted = p.sync.take().is_some_and(|r| r.acted);
        if p.worker.lifecycle != Lifecycle::Finished {
            p.worker.requeue_at = Some(now + requeue_delay(outcome, version, resync, now, unit));
        } else {
            p.worker.requeue_at = None;
        }
        if outcome == SyncOutcome::PhaseTransition {
            p.worker.pending = true;
        }
        let again = p.worker.end(now);
        if on_demand && acted && outcome == SyncOutcome::Ok {
            let d = self.cluster.latencies.on_demand_relist.sample(&mut self.rng);
            self.send(ctx, d, Ev::OnDemandRelist { pod, requested: now });
        }
        if again {
            self.try_start_sync(pod, ctx);
        }
    }
}
