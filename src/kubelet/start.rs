//! Starting one container (kuberuntime_container.go `startContainer` and the
//! `start` closure of the runtime's `SyncPod`): backoff check, image, create,
//! start, then the postStart hook, all blocking the sync.

use super::Out;
use super::actions::KillReason;
use super::backoff::{Decision, do_backoff};
use super::config_objects::make_environment;
use super::container_hash;
use super::draws::{self, label};
use super::images::{self, ImageAction};
use super::kill::Target;
use super::oom::{OomKill, oom_at};
use super::runtime::{InstId, InstState, Instance};
use super::sync::Wait;
use super::{Ev, Kubelet};
use crate::api::status::ConditionType;
use crate::app::{Moments, Plan};
use crate::cluster::Version;
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::rng::What;
use crate::spec::{HookKind, Role};
use crate::time::{SimDuration, SimTime};
use crate::trace::record::ProcessFact;
use std::borrow::Cow;
use std::sync::Arc;

impl Kubelet {
    /// The `start` closure of the runtime's SyncPod: backoff, image, create, start.
    pub(super) fn start_container(&mut self, pod: PodId, c: usize, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let p = self.pod(pod).expect("synced pod exists");
        let run = p.sync.as_ref().expect("sync exists");
        let newest_exit = run.snapshot.newest_exited(c).and_then(|s| match s.state {
            InstState::Exited { finished, .. } => Some(finished),
            _ => None,
        });
        // The container as the pod handed to this sync has it (a patch since waits).
        let spec = run.spec();
        let container = spec.containers[c].clone();
        let key = container_hash::stable_key(&spec.name, &spec.namespace, &p.uid, &container);
        let pod_desc = format!("{}_{}({})", spec.name, spec.namespace, p.uid);
        let decision = do_backoff(&mut self.backoff, &key, newest_exit, now);
        self.housekeeping_collects(ctx);
        if let Decision::Wait { backoff, expiry } = decision {
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
        // EnsureImageExists: a reference that does not parse is InvalidImageName, before any pull.
        if let Some(msg) = images::invalid_reference(&container.image) {
            self.emit(pod, Some(c), true, "InspectFailed", msg.clone(), ctx);
            self.emit(pod, Some(c), true, "Failed", "Error: InvalidImageName".into(), ctx);
            return self.start_failed(pod, c, "InvalidImageName", msg, None);
        }
        let present = self.runtime.has_image(&container.image);
        match images::ensure(container.pull_policy, present) {
            ImageAction::Present => {
                let msg = images::already_present(&container.image, self.cluster.version);
                self.emit(pod, Some(c), false, "Pulled", msg, ctx);
                self.begin_create(pod, c, ctx);
            }
            ImageAction::Pull { cached } => self.pull_image(pod, c, &container.image, cached, ctx),
            ImageAction::NeverPullMissing => {
                let msg = format!("Container image {:?} is not present with pull policy of Never", container.image);
                self.emit(pod, Some(c), true, "ErrImageNeverPull", msg.clone(), ctx);
                self.emit(pod, Some(c), true, "Failed", "Error: ErrImageNeverPull".into(), ctx);
                self.start_failed(pod, c, "ErrImageNeverPull", msg, None);
            }
        }
    }

    /// A start failed: the reason cache remembers it for the next status. A
    /// run-to-completion init container that fails to start ends the sync's
    /// starts; a sidecar or a regular container does not.
    pub(super) fn start_failed(
        &mut self,
        pod: PodId,
        c: usize,
        reason: &'static str,
        message: String,
        expiry: Option<SimTime>,
    ) {
        let p = self.pod(pod).expect("synced pod exists");
        let aborts = p.spec.containers[c].role == Role::Init;
        p.reasons.insert(c, (Cow::Borrowed(reason), message));
        let run = p.sync.as_mut().expect("sync exists");
        run.failed = true;
        if let Some(e) = expiry {
            run.backoff_expiry = Some(run.backoff_expiry.map_or(e, |x| x.min(e)));
        }
        if aborts {
            run.abort_starts();
        }
    }

    /// The image is there: `generateContainerConfig` builds the container's
    /// environment (a missing ConfigMap or Secret, or key, is
    /// `CreateContainerConfigError`: no container, a `Failed` event, the
    /// sync's error), then `CreateContainer`.
    pub(super) fn begin_create(&mut self, pod: PodId, c: usize, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let spec = self.synced_spec(pod);
        if let Err(message) = make_environment(spec.config.env_of(c), &spec.namespace, &self.objects) {
            self.emit(pod, Some(c), true, "Failed", format!("Error: {message}"), ctx);
            return self.start_failed(pod, c, "CreateContainerConfigError", message, None);
        }
        let d = (self.cluster.latencies.container_create)
            .sample(&mut self.rng, || label(&self.pods, What::ContainerCreate, pod, Some(c)));
        self.schedule_step(pod, d, Wait::Create { container: c }, ctx);
    }

    /// `StartContainer` returned: the process runs; the postStart hook, if
    /// any, runs next and holds the sync until it returns.
    pub(super) fn container_started(
        &mut self,
        pod: PodId,
        container: usize,
        inst: InstId,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let now = ctx.q.now();
        self.runtime.start(inst, now);
        self.process_fact(inst, ProcessFact::Started, ctx);
        let msg = self.lifecycle_message("Started", container, pod);
        self.emit(pod, Some(container), false, "Started", msg, ctx);
        self.schedule_process(inst, ctx);
        if self.pod_spec(pod).containers[container].post_start.is_some() {
            let hook = self.start_hook(pod, inst, container, HookKind::PostStart, ctx);
            self.set_wait(pod, Wait::PostStart { hook });
        } else {
            self.pod(pod).expect("synced pod exists").reasons.remove(&container);
        }
    }

    /// The postStart hook returned. On failure: `FailedPostStartHook`, then
    /// the container is killed (its preStop runs) and the start fails with
    /// `PostStartHookError`.
    pub(super) fn post_start_done(
        &mut self,
        pod: PodId,
        hook: u64,
        container: usize,
        inst: InstId,
        error: Option<String>,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let Some(run) = self.pod(pod).and_then(|p| p.sync.as_mut()) else { return };
        if !matches!(run.wait, Wait::PostStart { hook: h } if h == hook) {
            return;
        }
        run.wait = Wait::Nothing;
        let Some(message) = error else {
            self.pod(pod).expect("synced pod exists").reasons.remove(&container);
            return self.advance(pod, ctx);
        };
        self.emit(pod, Some(container), true, "FailedPostStartHook", "PostStartHook failed".into(), ctx);
        let target =
            Target { inst, container, message: "FailedPostStartHook".into(), reason: KillReason::FailedPostStartHook };
        let why: Arc<str> = Arc::from("killed: its postStart hook failed");
        self.kill_group(pod, vec![target], false, None, why, Some((container, message)), ctx);
    }

    /// 1.36+: `OnPodSandboxReady` marks PodReadyToStartContainers True at once.
    pub(super) fn sandbox_ready_condition(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let p = self.pod(pod).expect("synced pod exists");
        let mut s = p.status.previous().clone();
        s.set_condition(crate::api::status::Condition::new(ConditionType::PodReadyToStartContainers, true));
        if p.status.set(s, now, false) {
            self.status_changed(pod, ctx);
            self.flush_status(pod, ctx);
        }
    }

    /// Created/Started messages: the container name left them in 1.35 (PR #134043).
    pub(super) fn lifecycle_message(&self, what: &str, container: usize, pod: PodId) -> String {
        let name = &self.pod_spec(pod).containers[container].name;
        match (what, self.cluster.version >= Version::V1_35) {
            ("Created", true) => "Container created".into(),
            ("Created", false) => format!("Created container: {name}"),
            (_, true) => "Container started".into(),
            (_, false) => format!("Started container {name}"),
        }
    }

    pub(super) fn allocate_ip(&mut self, pod: PodId) -> Arc<str> {
        if self.pod_spec(pod).host_network {
            return self.node.ip.clone();
        }
        self.next_ip += 1;
        let node_index = self.cluster.nodes.iter().position(|n| n.name == self.node.name).unwrap_or(0);
        Arc::from(format!("10.244.{}.{}", node_index, 1 + self.next_ip))
    }

    /// `CreateContainer`: restartCount is the newest instance's + 1 (from the sync's snapshot).
    pub(super) fn create_instance(&mut self, pod: PodId, c: usize) -> InstId {
        let p = self.pods[pod.0 as usize].as_ref().expect("synced pod exists");
        let run = p.sync.as_ref().expect("sync exists");
        let restart_count = run.snapshot.newest(c).map_or(0, |n| n.restart_count + 1);
        let pod_spec = run.spec();
        let spec = &pod_spec.containers[c];
        let image = self.images.resolve(&spec.image);
        let behaviour = self.behaviours.for_container(spec, restart_count);
        let ports = pod_spec.default_ports(c, |name| {
            pod_spec.container_index(name).is_some_and(|i| self.behaviours.names_ports_of(&pod_spec.containers[i]))
        });
        let plan = Plan::draw(behaviour, &ports, draws::about(&self.pods, pod, Some(c)), &mut self.app_rng);
        let inst = Instance {
            pod,
            container: c,
            name: spec.name.clone(),
            container_id: Arc::from(format!("containerd://{}", self.rng.hex(64))),
            image_id: image.id,
            image: image.image,
            restart_count,
            hash: container_hash::hash(spec),
            state: InstState::Created,
            plan,
            stopping: None,
            moments: Moments::default(),
            signalled: None,
            // `calculateLinuxResources`: a limit of 0 sets no memory.max.
            memory_limit: spec.memory_limit.filter(|l| l.value() != 0),
            removed: false,
        };
        self.runtime.create(inst)
    }

    /// Schedules what the process does by itself: listen, exit, and the
    /// OOM kill its memory leads to. A process that listens at once has
    /// bound its ports when `StartContainer` returns, so the postStart hook
    /// that runs next reaches it.
    fn schedule_process(&mut self, inst: InstId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let i = self.runtime.inst(inst);
        let plan = &i.plan;
        let listens = !plan.has_behaviour() || !plan.ports().is_empty();
        let listen_after = plan.listen_after;
        let exit = plan.exit;
        let oom = i.memory_limit.and_then(|limit| Some((oom_at(&plan.memory, limit)?, limit)));
        if listens && listen_after == SimDuration::ZERO {
            self.listening(inst, ctx);
        } else if listens {
            self.send(ctx, listen_after, Ev::Listening { inst });
        }
        if let Some((after, code)) = exit {
            self.send(ctx, after, Ev::Exit { inst, code });
        }
        if let Some((OomKill { at, rss }, limit)) = oom {
            self.send(ctx, at, Ev::OomKill { inst, rss, limit });
        }
    }
}
