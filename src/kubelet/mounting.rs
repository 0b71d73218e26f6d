//! The kubelet's side of volumes: the populator adding an admitted pod's
//! volumes, the reconciler's passes while one is not mounted (each failure
//! a `FailedMount` event), and `SyncPod` waiting in `WaitForAttachAndMount`.

use super::Out;
use super::pod_worker::Lifecycle;
use super::sync::Wait;
use super::volume_manager::{LOOP_PERIOD, MOUNT_TIMEOUT, PodVolumes, next_tick, seen_at};
use super::{Ev, Kubelet};
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::rng::{Label, What};

impl Kubelet {
    /// The populator adds the pod's volumes; one whose object the kubelet
    /// lacks waits for the reconciler's next pass after the populator's.
    pub(super) fn add_pod_volumes(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(p) = self.pods[pod.0 as usize].as_deref_mut() else { return };
        p.volumes = PodVolumes::new(&p.spec.config, &p.namespace, &self.objects);
        if p.volumes.all_mounted() {
            return;
        }
        let rng = &mut self.rng;
        let node = &self.node.name;
        let ticker = |which: &'static str| move || Label::new(What::Phase, format!("node/{node}")).with(which);
        let (populator, reconciler) = *self.reconciler_phase.get_or_insert_with(|| {
            (rng.phase(LOOP_PERIOD, ticker("volume populator")), rng.phase(LOOP_PERIOD, ticker("volume reconciler")))
        });
        let first = next_tick(reconciler, next_tick(populator, now));
        self.send(ctx, first.since(now), Ev::MountVolumes { pod });
    }

    /// A reconciler pass: set-ups not in backoff are tried; when all are
    /// mounted, the waiting sync sees it at its next poll.
    pub(super) fn mount_pass(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(p) = self.pods[pod.0 as usize].as_deref_mut() else { return };
        // Terminating pods' volumes are not (re)added by the populator.
        if p.worker.lifecycle != Lifecycle::Syncing {
            return;
        }
        let failures = p.volumes.reconcile(now, &p.spec.config, &p.namespace, &self.objects);
        let waiting = p.sync.as_ref().and_then(|r| match r.wait {
            Wait::Volumes { started } => Some((r.id(), started)),
            _ => None,
        });
        let next = match p.volumes.all_mounted() {
            true => None,
            false => p.volumes.next_pass(self.reconciler_phase.map(|(_, r)| r).unwrap_or_default(), now),
        };
        for (volume, error) in failures {
            // `GenerateError("MountVolume.SetUp failed", err)`.
            let message = format!("MountVolume.SetUp failed for volume {volume:?} : {error}");
            self.emit(pod, None, true, "FailedMount", message, ctx);
        }
        match (next, waiting) {
            (Some(at), _) => self.send(ctx, at.since(now), Ev::MountVolumes { pod }),
            (None, Some((sync, started))) => {
                self.send(ctx, seen_at(started, now).since(now), Ev::MountWait { pod, sync, timeout: false })
            }
            (None, None) => {}
        }
    }

    /// `WaitForAttachAndMount`: true when the sync has to wait.
    pub(super) fn wait_for_attach_and_mount(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) -> bool {
        let now = ctx.q.now();
        let p = self.pod(pod).expect("synced pod exists");
        if p.volumes.all_mounted() {
            return false;
        }
        let run = p.sync.as_mut().expect("sync exists");
        run.wait = Wait::Volumes { started: now };
        let sync = run.id();
        self.send(ctx, MOUNT_TIMEOUT, Ev::MountWait { pod, sync, timeout: true });
        true
    }

    /// The waiting sync looks: mounted, it goes on to the runtime's
    /// SyncPod; timed out, it returns the error (no event: the timeout is
    /// `wait.Interrupted`), and the pod worker requeues it.
    pub(super) fn mount_wait(&mut self, pod: PodId, sync: u64, timeout: bool, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(p) = self.pod(pod) else { return };
        let mounted = p.volumes.all_mounted();
        let Some(run) = p.sync.as_mut().filter(|r| r.id() == sync && matches!(r.wait, Wait::Volumes { .. })) else {
            return;
        };
        if mounted {
            run.wait = Wait::Nothing;
            self.sync_pod_runtime(pod, ctx);
        } else if timeout {
            self.abandon_sync(pod, ctx);
        }
    }

    /// A termination request cancels the sync's context: a sync waiting for
    /// its volumes returns at once, and the terminating sync follows.
    pub(super) fn cancel_mount_wait(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let waiting =
            self.pod(pod).and_then(|p| p.sync.as_ref()).is_some_and(|r| matches!(r.wait, Wait::Volumes { .. }));
        if waiting {
            self.abandon_sync(pod, ctx);
        }
    }

    fn abandon_sync(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let run = self.pod(pod).and_then(|p| p.sync.as_mut()).expect("sync exists");
        run.wait = Wait::Nothing;
        run.failed = true;
        self.advance(pod, ctx);
    }
}
