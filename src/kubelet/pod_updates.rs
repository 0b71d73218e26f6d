//! Pod changes the kubelet learns from its watch (pkg/kubelet/config
//! `checkAndUpdatePod`, then `HandlePodUpdates`, `HandlePodReconcile`,
//! `HandlePodRemoves`), and signals sent to a container from outside.

use super::Out;
use super::pod_worker::Lifecycle;
use super::runtime::SIGKILL_EXIT;
use super::{Ev, Kubelet, PodUpdate};
use crate::api::status::ConditionType;
use crate::app::OnSigterm;
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::scenario::actions::Signal;
use crate::trace::Record;
use crate::trace::record::ProcessFact;
use std::sync::Arc;

impl Kubelet {
    /// A deletion is an update that starts termination (`UpdatePod`); so is
    /// a new spec (an UPDATE, `HandlePodUpdates`: the sync sees a new image
    /// or deadline); a status-only change is a RECONCILE, which syncs the
    /// pod when its Ready condition no longer matches its readiness gates.
    pub(super) fn pod_updated(&mut self, pod: PodId, update: PodUpdate, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(p) = self.pod(pod) else { return };
        let spec_changed = !Arc::ptr_eq(&p.spec, &update.spec);
        p.spec = update.spec.clone();
        self.note_deadline(pod, &update.spec, ctx);
        let Some(p) = self.pod(pod) else { return };
        p.generation = update.generation;
        p.others = update.stored.status.other_conditions().cloned().collect();
        p.status.observed(update.stored.clone());
        if update.deletion_grace.is_some() && p.deletion_grace != update.deletion_grace {
            p.deletion_grace = update.deletion_grace;
            if p.worker.lifecycle == Lifecycle::Syncing {
                // "Pod is marked for graceful deletion, begin teardown".
                p.worker.lifecycle = Lifecycle::Terminating;
            }
            self.update_pod(pod, ctx);
            return self.cancel_mount_wait(pod, ctx);
        }
        if spec_changed || need_to_reconcile_readiness(&p.spec, &update) {
            self.update_pod(pod, ctx);
        }
    }

    /// The pod is gone from the API server (REMOVE, `HandlePodRemoves`). A
    /// finished pod is forgotten; one removed with grace 0 while its
    /// containers may still run is still stopped (`SyncPodKill`: the
    /// effective grace of a zero-grace deletion is 1 s), then forgotten.
    pub(super) fn pod_removed(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(p) = self.pod(pod) else { return };
        if matches!(p.worker.lifecycle, Lifecycle::Finished | Lifecycle::Rejected) {
            self.forget(pod, ctx);
            return;
        }
        p.removed = true;
        p.deletion_grace = Some(p.deletion_grace.map_or(0, |g| g.min(0)));
        if p.worker.lifecycle == Lifecycle::Syncing {
            p.worker.lifecycle = Lifecycle::Terminating;
        }
        self.update_pod(pod, ctx);
        self.cancel_mount_wait(pod, ctx);
    }

    /// A signal from outside: SIGKILL ends the process at once (137);
    /// SIGTERM does what the app does on SIGTERM.
    pub(super) fn signal(
        &mut self,
        pod: PodId,
        container: usize,
        signal: Signal,
        (pod_name, name): &(String, Arc<str>),
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let now = ctx.q.now();
        let running =
            self.runtime.pod_instances(pod).find(|(_, i)| i.container == container && i.is_running()).map(|(id, _)| id);
        let Some(inst) = running else {
            let what = format!("{} to container {name}: not running, nothing happens", signal.as_str());
            ctx.trace.push(now, Record::Scenario { object: format!("pod/{pod_name}"), what });
            return;
        };
        self.process_fact(inst, ProcessFact::Signal { signal: signal.as_str() }, ctx);
        let i = self.runtime.inst_mut(inst);
        i.signalled = Some(signal.as_str());
        match signal {
            Signal::Kill => self.process_exit(inst, SIGKILL_EXIT, ctx),
            Signal::Term => {
                let age = match i.state {
                    super::runtime::InstState::Running { started } => now.since(started),
                    _ => crate::time::SimDuration::ZERO,
                };
                let on_sigterm = i.plan.sigterm_at(age);
                self.runtime.sigterm(inst);
                if let OnSigterm::Exit { after, code } = on_sigterm {
                    self.send(ctx, after, Ev::Exit { inst, code });
                }
            }
        }
    }
}

/// `NeedToReconcilePodReadiness`: the pod has readiness gates and its API
/// Ready condition differs (status or message) from what the gates give.
fn need_to_reconcile_readiness(spec: &crate::spec::PodSpec, u: &PodUpdate) -> bool {
    if spec.readiness_gates.is_empty() {
        return false;
    }
    let status = &u.stored.status;
    let expected = super::status::conditions::pod_ready(spec, status, status.phase);
    status
        .condition(&ConditionType::Ready)
        .is_some_and(|c| c.status != expected.status || c.message != expected.message)
}
