//! One sync of a pod, step by step: `Kubelet.SyncPod` with the runtime's
//! `SyncPod` (kill, sandbox, start), `SyncTerminatingPod` and
//! `SyncTerminatedPod`. Steps that take time schedule their own end.

use super::Out;
use super::actions::{self, Kill, KillReason, ProbeView};
use super::draws::label;
use super::kill::Target;
use super::netns::NetnsId;
use super::pleg::PodSnapshot;
use super::pod_worker::{Lifecycle, SyncOutcome, requeue_delay};
use super::runtime::{InstId, Sandbox};
use super::status::generate::{Inputs, generate};
use super::{Ev, Kubelet};
use crate::api::status::{PodPhase, PodReason};
use crate::cluster::{Gate, Version};
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::rng::What;
use crate::spec::{PodSpec, ProbeKind};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;
use std::sync::Arc;

/// A step of a sync.
#[derive(Clone, Debug)]
pub(super) enum Step {
    /// The sync's own work before any runtime action.
    Overhead,
    /// `killPodWithSyncResult`: stop every running container in parallel
    /// (sidecars last, in reverse order), with `grace` overriding each
    /// container's; the text says why, for the timeline.
    KillPod {
        why: Arc<str>,
        grace: Option<i64>,
    },
    /// One `killContainer` from the kill list, waited for.
    Kill(Kill),
    CreateSandbox,
    /// Start one container (init containers first, in spec order).
    Start(usize),
    StopSandbox,
    /// The end of `SyncTerminatingPod`: probes removed, the final status
    /// from the stopped containers.
    FinishTerminating,
    /// `SyncTerminatedPod`: unmount volumes, remove the pod cgroup.
    Cleanup,
    /// `TerminatePod`: the pod is finished.
    TerminatePod,
}

/// What the current step waits for.
#[derive(Clone, Debug)]
pub(super) enum Wait {
    Nothing,
    /// `WaitForAttachAndMount`, polling since `started`.
    Volumes {
        started: SimTime,
    },
    Overhead,
    Sandbox,
    StopSandbox,
    /// An image pull, asked for at `began`; once done, the pull's own time
    /// or the registry's refusal.
    Pull {
        container: usize,
        began: SimTime,
        result: Option<Result<SimDuration, String>>,
    },
    Create {
        container: usize,
    },
    Start {
        container: usize,
        inst: InstId,
    },
    PostStart {
        hook: u64,
    },
    /// A group of kills; after a failed postStart, the start failure to record.
    Kills {
        group: u64,
        then_failed: Option<(usize, String)>,
    },
    Cleanup,
}

pub(super) struct SyncRun {
    id: u64,
    lifecycle: Lifecycle,
    /// The pod the worker handed this sync (`podWorkerLoop` passes
    /// `update.Options.Pod`): an update during the sync waits as the next
    /// one's, so a long SyncTerminatingPod generates its last status from
    /// the spec it began with.
    spec: Arc<PodSpec>,
    pub(super) snapshot: Arc<PodSnapshot>,
    steps: VecDeque<Step>,
    pub(super) wait: Wait,
    /// Earliest CrashLoopBackOff expiry among the failed starts.
    pub(super) backoff_expiry: Option<SimTime>,
    pub(super) failed: bool,
    acted: bool,
}

impl SyncRun {
    pub(super) fn id(&self) -> u64 {
        self.id
    }

    /// The pod spec this sync works from (an update since waits for the next sync).
    pub(super) fn spec(&self) -> &Arc<PodSpec> {
        &self.spec
    }

    /// A run-to-completion init container failed to start: no more starts.
    pub(super) fn abort_starts(&mut self) {
        self.steps.retain(|s| !matches!(s, Step::Start(_)));
    }
}

impl Kubelet {
    /// Starts the sync if the worker waits and the PLEG cache is newer than
    /// the previous sync's end (`podCache.GetNewerThan`).
    pub(super) fn try_start_sync(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
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
            spec: p.spec.clone(),
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
            Lifecycle::Finished | Lifecycle::Rejected => {}
        }
    }

    /// Generates the API status from `snapshot` and caches it; a deleted
    /// pod's status is always cached anew (`updateStatusInternal` with force).
    /// Returns the generated phase and the readiness workers to trigger.
    fn generate_and_set(
        &mut self,
        pod: PodId,
        snapshot: &PodSnapshot,
        terminal: bool,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) -> (PodPhase, Vec<usize>) {
        let now = ctx.q.now();
        let version = self.cluster.version;
        let gate = self.cluster.gates.enabled(Gate::PodReadyToStartContainersCondition);
        let ip = self.node.ip.clone();
        let p = self.pod(pod).expect("synced pod exists");
        let deleting = p.deletion_grace.is_some();
        let spec = p.sync.as_ref().map(|r| r.spec.clone()).expect("sync exists");
        let deadline_exceeded = p.past_active_deadline(&spec, now);
        let api_ready = p.status.api().condition(&crate::api::status::ConditionType::Ready).is_some_and(|c| c.status);
        let restarted_before = self.restart_cutoff();
        let p = self.pod(pod).expect("synced pod exists");
        let g = generate(&Inputs {
            spec: &spec,
            snapshot,
            previous: p.status.previous(),
            others: &p.others,
            reasons: &p.reasons,
            probes: &p.probes,
            host_ip: &ip,
            terminal,
            deleting,
            generation: p.generation,
            deadline_exceeded,
            version,
            ready_to_start_condition: gate,
            restarted_before,
            api_ready,
        });
        let phase = g.status.phase;
        if p.status.set(g.status, now, deleting || terminal) {
            self.status_changed(pod, ctx);
        }
        if deadline_exceeded {
            // `ShouldEvict` records its Event at every status generation.
            let r = PodReason::DeadlineExceeded;
            self.emit(pod, None, false, r.as_str(), r.message().to_string(), ctx);
        }
        self.flush_status(pod, ctx);
        (phase, g.readiness_triggers)
    }

    fn snapshot_of_sync(&mut self, pod: PodId) -> Arc<PodSnapshot> {
        self.pod(pod).and_then(|p| p.sync.as_ref()).map(|s| s.snapshot.clone()).expect("sync exists")
    }

    /// `Kubelet.SyncPod`.
    fn sync_pod(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let snapshot = self.snapshot_of_sync(pod);
        let (phase, readiness_triggers) = self.generate_and_set(pod, &snapshot, false, ctx);
        if phase.is_terminal() {
            // SyncPod returns isTerminal: the pod worker starts terminating.
            let p = self.pod(pod).expect("synced pod exists");
            p.worker.lifecycle = Lifecycle::Terminating;
            return self.complete_sync(pod, SyncOutcome::PhaseTransition, ctx);
        }
        for w in readiness_triggers {
            self.send(ctx, SimDuration::ZERO, Ev::ProbeManual { pod, worker: w });
        }
        if !self.wait_for_attach_and_mount(pod, ctx) {
            self.sync_pod_runtime(pod, ctx);
        }
    }

    /// The rest of `Kubelet.SyncPod` once the volumes are mounted: the probe
    /// manager adds the pod, then the runtime's `SyncPod` computes its actions.
    pub(super) fn sync_pod_runtime(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        self.get_pull_secrets_for_pod(pod, ctx);
        let snapshot = self.snapshot_of_sync(pod);
        let p = self.pod(pod).expect("synced pod exists");
        for w in p.probes.add_pod(&p.spec) {
            let delay = self.probe_start_jitter(pod, w, ctx.q.now());
            self.send(ctx, delay, Ev::ProbeTick { pod, worker: w, ticker: 0 });
        }
        let p = self.pod(pod).expect("synced pod exists");
        let probes = ProbeView {
            liveness: p.probes.results(ProbeKind::Liveness),
            startup: p.probes.results(ProbeKind::Startup),
        };
        let a = actions::compute(&p.spec, &snapshot, &probes);
        // `SyncPod` step 1: a new sandbox where the runtime lists an old one.
        let changed = a.create_sandbox && snapshot.sandbox != super::pleg::SandboxSnap::Absent;
        if changed {
            let message = "Pod sandbox changed, it will be killed and re-created.".to_string();
            self.emit(pod, None, false, "SandboxChanged", message, ctx);
        }
        let p = self.pod(pod).expect("synced pod exists");
        let run = p.sync.as_mut().expect("sync exists");
        run.steps.push_back(Step::Overhead);
        if a.kill_pod {
            // The kill list is dropped on this path: every container gets the
            // pod-level "Stopping container" kill and its own grace period.
            let why = match a.kill.first() {
                Some(k) => {
                    format!("{} and restartPolicy is Never: the kubelet stops the pod", k.message.to_lowercase())
                }
                None => "no container is left to run: the kubelet stops the pod".to_string(),
            };
            run.steps.push_back(Step::KillPod { why: Arc::from(why), grace: None });
            if !a.create_sandbox {
                run.steps.push_back(Step::StopSandbox);
            }
        } else {
            run.steps.extend(a.kill.into_iter().map(Step::Kill));
        }
        if a.create_sandbox {
            run.steps.push_back(Step::CreateSandbox);
        }
        run.steps.extend(a.start_init.into_iter().chain(a.start).map(Step::Start));
        self.advance(pod, ctx);
    }

    /// `getPullSecretsForPod`, every sync: the pod's `imagePullSecrets` the
    /// secret manager lacks are a warning (the pull goes on without them).
    fn get_pull_secrets_for_pod(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let spec = self.synced_spec(pod);
        let names = super::images::pull_secret_names(spec);
        let (_, missing) = self.objects.pull_secrets(&names, &spec.namespace);
        if !missing.is_empty() {
            let msg = format!(
                "Unable to retrieve some image pull secrets ({}); attempting to pull the image may not succeed.",
                missing.join(", ")
            );
            self.emit(pod, None, true, "FailedToRetrieveImagePullSecret", msg, ctx);
        }
    }

    /// `SyncTerminatingPod`: a status first, liveness and startup probes of
    /// regular containers stop, every running container is killed with the
    /// effective grace, then the sandbox; the final status comes from the
    /// stopped containers.
    fn sync_terminating_pod(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let snapshot = self.snapshot_of_sync(pod);
        self.generate_and_set(pod, &snapshot, false, ctx);
        self.wake_probes(pod, ctx);
        let p = self.pod(pod).expect("synced pod exists");
        let spec = p.spec.clone();
        p.probes.stop_liveness_and_startup(&spec);
        let grace = p.worker.effective_grace(p.deletion_grace, &spec);
        let why = if p.deletion_grace.is_some() {
            "the pod was deleted"
        } else if p.status.previous().reason == Some(PodReason::DeadlineExceeded) {
            "activeDeadlineSeconds passed (DeadlineExceeded)"
        } else {
            "the pod is being stopped"
        };
        let run = p.sync.as_mut().expect("sync exists");
        run.steps.extend([
            Step::Overhead,
            Step::KillPod { why: Arc::from(why), grace: Some(grace) },
            Step::StopSandbox,
            Step::FinishTerminating,
        ]);
        self.advance(pod, ctx);
    }

    /// `SyncTerminatedPod`: the final status, volumes and cgroup cleaned up,
    /// then `TerminatePod`.
    fn sync_terminated_pod(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let snapshot = self.snapshot_of_sync(pod);
        self.generate_and_set(pod, &snapshot, true, ctx);
        let run = self.pod(pod).and_then(|p| p.sync.as_mut()).expect("sync exists");
        run.steps.extend([Step::Cleanup, Step::TerminatePod]);
        self.advance(pod, ctx);
    }

    /// Runs steps until one has to wait, or the sync is done.
    pub(super) fn advance(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
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
                let lifecycle = run.lifecycle;
                let p = self.pod(pod).expect("synced pod exists");
                match lifecycle {
                    Lifecycle::Terminating => p.worker.lifecycle = Lifecycle::Terminated,
                    Lifecycle::Terminated => p.worker.lifecycle = Lifecycle::Finished,
                    _ => {}
                }
                return self.complete_sync(pod, outcome, ctx);
            };
            self.run_step(pod, step, ctx);
        }
    }

    pub(super) fn set_wait(&mut self, pod: PodId, wait: Wait) {
        if let Some(run) = self.pod(pod).and_then(|p| p.sync.as_mut()) {
            run.wait = wait;
        }
    }

    pub(super) fn schedule_step(
        &mut self,
        pod: PodId,
        delay: SimDuration,
        wait: Wait,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let id = self.pod(pod).and_then(|p| p.sync.as_ref()).map(|s| s.id).expect("sync exists");
        self.set_wait(pod, wait);
        self.send(ctx, delay, Ev::SyncStep { pod, sync: id });
    }

    fn run_step(&mut self, pod: PodId, step: Step, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        match step {
            Step::Overhead => {
                let d = self
                    .cluster
                    .latencies
                    .pod_sync
                    .sample(&mut self.rng, || label(&self.pods, What::PodSync, pod, None));
                self.schedule_step(pod, d, Wait::Overhead, ctx);
            }
            Step::KillPod { why, grace } => {
                // `ConvertPodStatusToRunningPod`: the containers running in the sync's snapshot.
                let snapshot = self.snapshot_of_sync(pod);
                let spec = self.pod_spec(pod);
                let targets: Vec<Target> = snapshot
                    .containers
                    .iter()
                    .filter(|c| matches!(c.state, super::runtime::InstState::Running { .. }))
                    .map(|c| Target {
                        inst: c.inst,
                        container: c.container,
                        message: format!("Stopping container {}", spec.containers[c.container].name),
                        reason: super::actions::KillReason::PodKill,
                    })
                    .collect();
                self.kill_group(pod, targets, true, grace, why, None, ctx);
            }
            Step::Kill(k) => {
                let spec = self.pod_spec(pod);
                let why = match k.reason.probe() {
                    Some(kind) => {
                        let t = spec.containers[k.container].probe(kind).map_or(0, |p| p.failure_threshold);
                        format!("killed: {kind} probe failed {t} times")
                    }
                    None if k.reason == KillReason::DefinitionChanged => {
                        format!("killed: its image changed to {}", spec.containers[k.container].image)
                    }
                    None => "killed".to_string(),
                };
                // The snapshot may be stale: the process can have exited since.
                // The kubelet still reports the kill; stopping a dead container is a no-op.
                let target = Target { inst: k.inst, container: k.container, message: k.message, reason: k.reason };
                self.kill_group(pod, vec![target], false, None, Arc::from(why), None, ctx);
            }
            Step::CreateSandbox => {
                let d = (self.cluster.latencies.sandbox_create)
                    .sample(&mut self.rng, || label(&self.pods, What::SandboxCreate, pod, None));
                self.schedule_step(pod, d, Wait::Sandbox, ctx);
            }
            Step::StopSandbox => {
                if self.runtime.sandbox(pod).is_some() {
                    let d = (self.cluster.latencies.sandbox_stop)
                        .sample(&mut self.rng, || label(&self.pods, What::SandboxStop, pod, None));
                    self.schedule_step(pod, d, Wait::StopSandbox, ctx);
                }
            }
            Step::Start(c) => self.start_container(pod, c, ctx),
            Step::FinishTerminating => {
                self.wake_probes(pod, ctx);
                let p = self.pod(pod).expect("synced pod exists");
                p.probes.remove_pod();
                let fresh = PodSnapshot::read(&self.runtime, pod);
                self.generate_and_set(pod, &fresh, true, ctx);
            }
            Step::Cleanup => {
                let d = (self.cluster.latencies.pod_cleanup)
                    .sample(&mut self.rng, || label(&self.pods, What::PodCleanup, pod, None));
                self.schedule_step(pod, d, Wait::Cleanup, ctx);
            }
            Step::TerminatePod => {
                let now = ctx.q.now();
                let p = self.pod(pod).expect("synced pod exists");
                let spec = p.spec.clone();
                p.status.terminate_pod(&spec, now);
                self.status_changed(pod, ctx);
                self.flush_status(pod, ctx);
            }
        }
    }

    /// A timed step ended.
    pub(super) fn sync_step_done(&mut self, pod: PodId, sync: u64, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(run) = self.pod(pod).and_then(|p| p.sync.as_mut()) else {
            return;
        };
        if run.id != sync {
            return;
        }
        let wait = std::mem::replace(&mut run.wait, Wait::Nothing);
        run.acted |= !matches!(wait, Wait::Overhead | Wait::Cleanup);
        match wait {
            Wait::Sandbox => {
                let ip = self.allocate_ip(pod);
                let netns = if self.pod_spec(pod).host_network { NetnsId::Node } else { NetnsId::Pod(pod) };
                self.runtime.set_sandbox(pod, Some(Sandbox { ip, netns }));
                if self.cluster.version >= Version::V1_36
                    && self.cluster.gates.enabled(Gate::PodReadyToStartContainersCondition)
                {
                    self.sandbox_ready_condition(pod, ctx);
                }
            }
            Wait::StopSandbox => self.runtime.stop_sandbox(pod),
            Wait::Pull { container, began, result: Some(result) } => self.pulled(pod, container, began, result, ctx),
            Wait::Create { container } => {
                let inst = self.create_instance(pod, container);
                let msg = self.lifecycle_message("Created", container, pod);
                self.emit(pod, Some(container), false, "Created", msg, ctx);
                let d = (self.cluster.latencies.container_start)
                    .sample(&mut self.rng, || label(&self.pods, What::ContainerStart, pod, Some(container)));
                self.schedule_step(pod, d, Wait::Start { container, inst }, ctx);
            }
            Wait::Start { container, inst } => self.container_started(pod, container, inst, ctx),
            Wait::Nothing
            | Wait::Pull { result: None, .. }
            | Wait::Volumes { .. }
            | Wait::Overhead
            | Wait::Cleanup
            | Wait::PostStart { .. }
            | Wait::Kills { .. } => {}
        }
        self.advance(pod, ctx);
    }

    /// A group of kills is over: the sync goes on.
    pub(super) fn kills_done(&mut self, pod: PodId, group: u64, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(run) = self.pod(pod).and_then(|p| p.sync.as_mut()) else { return };
        let Wait::Kills { group: g, then_failed } = &run.wait else { return };
        if *g != group {
            return;
        }
        let failed = then_failed.clone();
        run.wait = Wait::Nothing;
        run.acted = true;
        if let Some((container, message)) = failed {
            self.start_failed(pod, container, "PostStartHookError", message, None);
        }
        self.advance(pod, ctx);
    }

    /// The sync returned: `completeWork`, and in 1.37 the on-demand relist.
    pub(super) fn complete_sync(&mut self, pod: PodId, outcome: SyncOutcome, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let unit = self.rng.jitter(|| label(&self.pods, What::ResyncJitter, pod, None));
        let version = self.cluster.version;
        let resync =
            self.cluster.kubelet.sync_frequency.sample(&mut self.rng, || label(&self.pods, What::Resync, pod, None));
        let on_demand = self.on_demand_relist();
        let p = self.pod(pod).expect("synced pod exists");
        let acted = p.sync.take().is_some_and(|r| r.acted);
        match p.worker.lifecycle {
            Lifecycle::Finished => self.work_queue.remove(pod),
            _ => {
                let at = now + requeue_delay(outcome, version, resync, now, unit);
                self.work_queue.enqueue(pod, at);
                self.sync_due(at, ctx);
            }
        }
        let p = self.pod(pod).expect("synced pod exists");
        if outcome == SyncOutcome::PhaseTransition {
            p.worker.pending = true;
        }
        let again = p.worker.end(now);
        if p.removed && p.worker.lifecycle == Lifecycle::Finished {
            self.forget(pod, ctx);
            return;
        }
        if on_demand && acted && outcome == SyncOutcome::Ok {
            let d = (self.cluster.latencies.on_demand_relist)
                .sample(&mut self.rng, || label(&self.pods, What::OnDemandRelist, pod, None));
            self.send(ctx, d, Ev::OnDemandRelist { pod, requested: now });
        }
        if again {
            self.try_start_sync(pod, ctx);
        }
    }
}
