//! The kubelet process restarts (`systemctl restart kubelet`, an upgrade,
//! or the node's boot after it went down):
//! what it held in memory is gone — pod workers, PLEG's cache, the probe
//! workers and their results, the status manager's cache, the back-off
//! records, the event correlator, the image puller's queue — while the
//! container runtime, its containers and their network namespaces carry on.
//! The new process starts its loops again and learns the pods from a new
//! watch (`HandlePodAdditions`); its first syncs find the containers running.

use super::draws::label;
use super::{Backoff, Kubelet, Out, images, pleg, puller};
use crate::cluster::Gate;
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::rng::What;
use crate::time::{SimDuration, SimTime};
use crate::trace::record::ProcessFact;

/// `kubeletRestartGracePeriod` (prober_manager.go): a container started
/// this little before the kubelet counts as new.
const RESTART_GRACE: SimDuration = SimDuration::from_secs(10);

impl Kubelet {
    /// Containers started before this instant keep their status across the
    /// kubelet's restart: from 1.35, where `ChangeContainerStatusOnKubeletRestart`
    /// is off (KEP-4781); in 1.34 (or with the gate on) nothing is kept.
    pub(super) fn restart_cutoff(&self) -> Option<SimTime> {
        // Most runs never restart a kubelet: no gate lookup for them.
        let start = self.restarted_at?;
        if self.cluster.gates.enabled(Gate::ChangeContainerStatusOnKubeletRestart) {
            return None;
        }
        Some(SimTime::ZERO + (start - SimTime::ZERO).saturating_sub(RESTART_GRACE))
    }

    /// A new probe worker's first probe (worker.go `run`): "If kubelet
    /// restarted the probes could be started in rapid succession", so a
    /// worker created less than one period after the kubelet started
    /// first waits a random part of its period.
    pub(super) fn probe_start_jitter(&mut self, pod: PodId, w: usize, now: SimTime) -> SimDuration {
        let Some(start) = self.restarted_at else { return SimDuration::ZERO };
        let Some(p) = self.pod(pod) else { return SimDuration::ZERO };
        let worker = &p.probes.workers[w];
        let period = worker.spec.period;
        if now - start >= period {
            return SimDuration::ZERO;
        }
        let (container, detail) = (worker.container, format!("{} probe worker start", worker.kind));
        let pods = &self.pods;
        self.rng.phase(period, || label(pods, What::Phase, pod, Some(container)).with(detail))
    }

    /// The node stops: every running process is gone with it (nothing on
    /// the node sees it; the runtime learns it at the boot).
    pub fn power_off(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        self.wake_tickers(ctx);
        let running: Vec<_> = self
            .runtime
            .pods()
            .flat_map(|p| {
                self.runtime.pod_instances(p).filter(|(_, i)| i.is_running()).map(|(id, _)| id).collect::<Vec<_>>()
            })
            .collect();
        for inst in running {
            self.process_fact(inst, ProcessFact::NodeStopped, ctx);
        }
    }

    /// The node boots after it went down: the runtime lost every process
    /// and sandbox, then a new kubelet process starts.
    pub fn boot(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        self.runtime.power_loss(ctx.q.now());
        self.inflight.clear();
        self.restart(ctx);
    }

    pub fn restart(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        self.wake_tickers(ctx);
        self.pods.clear();
        self.live.clear();
        // The new PLEG's first relist runs as it starts (`wait.Until` runs at
        // once): the pod workers' first syncs see the containers running.
        self.pleg = pleg::Pleg { cache: Vec::new(), timestamp: None };
        let listed: Vec<_> = self.runtime.pods().collect();
        for pod in listed {
            let snapshot = self.pleg.read(&self.runtime, pod);
            self.pleg.update(pod, snapshot, now);
        }
        self.pleg.timestamp = Some(now);
        self.relisting = false;
        self.relisted.clear();
        self.deferred_relists.clear();
        self.backoff = Backoff::new(self.cluster.backoff_initial, self.cluster.backoff_max);
        self.image_backoff = Backoff::new(images::BACKOFF_INITIAL, images::BACKOFF_MAX);
        self.pull_errors.clear();
        let config = &self.cluster.kubelet;
        self.puller = puller::Puller::new(config.serialize_image_pulls, config.max_parallel_image_pulls);
        self.pulls.clear();
        self.recorder = self.recorder.restarted();
        self.reconciler_phase = None;
        self.restarted_at = Some(now);
        self.start(ctx);
    }
}
