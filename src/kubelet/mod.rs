//! The kubelet of one node: pod workers, PLEG, runtime, prober, status
//! manager, CrashLoopBackOff and the event recorder, driven by one event loop.
//!
//! Each submodule models one kubelet concept and names the Go function it
//! follows; this file wires them: what happens on a watch update, a relist,
//! a ticker, a probe result, a process exit.

pub mod actions;
pub mod active_deadline;
pub mod admission;
pub mod backoff;
pub mod config;
pub mod config_objects;
pub mod container_hash;
mod draws;
pub mod events;
pub mod http_client;
pub mod images;
mod kill;
pub mod lease;
pub mod lifecycle;
mod mounting;
pub mod netns;
pub mod oom;
pub mod pleg;
mod pod_network;
mod pod_updates;
pub mod pod_worker;
pub mod prober;
mod probing;
pub mod puller;
mod pulling;
pub mod relay;
mod restart;
pub mod runtime;
mod start;
pub mod status;
mod sync;
mod tickers;
pub mod volume_manager;
pub mod work_queue;

use crate::api::config::ConfigObject;
use crate::api::pod::ApiPod;
use crate::api::quantity::Quantity;
use crate::api::status::{Condition, PodStatus};
use crate::app::Behaviours;
use crate::client::{Answered, Silence};
use crate::cluster::{Cluster, Gate, Node};
use crate::engine::{Ctx, Outbox};
use crate::ids::{NodeId, PodId};
use crate::rng::{Label, Stream, What};
use crate::scenario::actions::Signal;
use crate::spec::PodSpec;
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::{KubeletAction, ProcessFact};
use backoff::Backoff;
use config_objects::ObjectCache;
use draws::label;
use events::{Recorder, Subject};
use pleg::{PlegEvent, Relisted};
use pod_worker::PodWorker;
use prober::ProbeManager;
use prober::handler::Outcome;
use runtime::{InstId, Runtime};
use status::generate::ReasonCache;
use status::manager::StatusManager;
use std::collections::BTreeSet;
use std::sync::Arc;
use sync::SyncRun;

/// `genericPlegRelistPeriod`.
const RELIST_PERIOD: SimDuration = SimDuration::from_secs(1);
/// The sync loop's `syncTicker`.
const SYNC_TICK: SimDuration = SimDuration::from_secs(1);
/// `housekeepingPeriod`.
const HOUSEKEEPING: SimDuration = SimDuration::from_secs(2);
/// The status manager's `syncPeriod`.
const STATUS_RESYNC: SimDuration = SimDuration::from_secs(10);

/// What a kubelet sends: messages to itself (its timers, the runtime's
/// answers), its writes to the API server, and the answers a pod gives to a
/// client's packets.
#[derive(Debug)]
pub enum Out {
    Own(Ev),
    /// A status PATCH (`syncPod` of the status manager).
    PatchStatus {
        pod: PodId,
        node: NodeId,
        status: Box<PodStatus>,
    },
    /// The final DELETE of a finished pod.
    DeletePod {
        pod: PodId,
        uid: Arc<str>,
    },
    /// How far request `req` got, should its client time out.
    Reached {
        req: u64,
        silence: Silence,
    },
    /// The answer to request `req`, on its way to its client.
    Reply {
        req: u64,
        answer: Answered,
    },
}

/// Messages to the kubelet.
#[derive(Debug)]
pub enum Ev {
    /// The watch delivered a pod bound to this node.
    PodAdded {
        pod: PodId,
        spec: Arc<PodSpec>,
        uid: Arc<str>,
        generation: i64,
        /// The pod as stored, with its status.
        stored: Arc<ApiPod>,
    },
    /// A periodic relist starts.
    Relist,
    /// The relist that started at `started` has read the runtime (into `relisted`).
    RelistDone {
        started: SimTime,
    },
    /// The single-pod relist requested after a sync that acted.
    OnDemandRelist {
        pod: PodId,
        requested: SimTime,
    },
    SyncTick,
    Housekeeping,
    StatusResync,
    /// A timed step of a sync finished.
    SyncStep {
        pod: PodId,
        sync: u64,
    },
    ProbeTick {
        pod: PodId,
        worker: usize,
        ticker: u32,
    },
    ProbeManual {
        pod: PodId,
        worker: usize,
    },
    ProbeDone {
        pod: PodId,
        worker: usize,
        inst: InstId,
        outcome: Result<Outcome, String>,
    },
    /// The process of an instance starts accepting connections.
    Listening {
        inst: InstId,
    },
    /// The process of an instance exits with `code`.
    Exit {
        inst: InstId,
        code: i32,
    },
    /// The process's memory goes above its cgroup's limit: the kernel
    /// OOM-kills the container.
    OomKill {
        inst: InstId,
        rss: Quantity,
        limit: Quantity,
    },
    /// The stop deadline of an instance: SIGKILL.
    Sigkill {
        inst: InstId,
    },
    /// A preStop or termination-order deadline of a kill.
    KillTimer {
        pod: PodId,
        task: u64,
        timer: u32,
    },
    /// A lifecycle hook returned.
    HookDone {
        pod: PodId,
        hook: u64,
    },
    /// A client's connection reaches a pod IP of this node (or the node's
    /// own IP); its answer travels back for `back`.
    Connect {
        req: u64,
        ip: Arc<str>,
        port: u16,
        path: Arc<str>,
        back: SimDuration,
    },
    /// An app writes its response to request `req`.
    Respond {
        req: u64,
    },
    /// The watch delivered a change another client made to a pod on this
    /// node: a deletion (DELETE) or a status change (RECONCILE).
    PodUpdated {
        pod: PodId,
        update: PodUpdate,
    },
    /// The pod is gone from the API server (REMOVE).
    PodRemoved {
        pod: PodId,
    },
    /// A signal to a container's process from outside the kubelet.
    /// The names travel with it: the kubelet may have forgotten the pod.
    Signal {
        pod: PodId,
        container: usize,
        signal: Signal,
        names: Arc<(String, Arc<str>)>,
    },
    /// The kubelet's ConfigMap or Secret watch delivered an object.
    ObjectSeen(Box<ConfigObject>),
    /// A pass of the volume reconciler for a pod with volumes not mounted.
    MountVolumes {
        pod: PodId,
    },
    /// `WaitForAttachAndMount` of sync `sync` looks again: its volumes are
    /// mounted (`timeout` false) or its timeout passed.
    MountWait {
        pod: PodId,
        sync: u64,
        timeout: bool,
    },
    /// The runtime's `PullImage` of pull `pull` returned.
    PullDone {
        pull: u64,
    },
    /// A status PATCH returned.
    StatusPatched {
        pod: PodId,
        /// The pod as stored, with its status.
        stored: Arc<ApiPod>,
    },
}

impl Ev {
    /// What the runtime, the apps and the network send: a restart of the
    /// kubelet process does not stop them. Everything else the process sent
    /// itself, or was answered, dies with it.
    pub fn outlives_the_kubelet(&self) -> bool {
        matches!(
            self,
            Ev::Listening { .. }
                | Ev::Exit { .. }
                | Ev::OomKill { .. }
                | Ev::Sigkill { .. }
                | Ev::Connect { .. }
                | Ev::Respond { .. }
                | Ev::Signal { .. }
        )
    }
}

/// What the kubelet learns from a pod update it did not make itself.
#[derive(Clone, Debug)]
pub struct PodUpdate {
    /// The spec as the API server now holds it (a patch may have changed it).
    pub spec: Arc<PodSpec>,
    /// `metadata.deletionGracePeriodSeconds`, once deleted.
    pub deletion_grace: Option<i64>,
    pub generation: i64,
    /// The pod as the API server now holds it, with its status.
    pub stored: Arc<ApiPod>,
}

/// Everything the kubelet keeps about one pod.
struct KPod {
    spec: Arc<PodSpec>,
    uid: Arc<str>,
    name: Arc<str>,
    namespace: Arc<str>,
    worker: PodWorker,
    probes: ProbeManager,
    status: StatusManager,
    reasons: ReasonCache,
    sync: Option<SyncRun>,
    kills: kill::Kills,
    /// `deletionGracePeriodSeconds` of the kubelet's copy of the pod.
    deletion_grace: Option<i64>,
    /// `metadata.generation` of the kubelet's copy of the pod.
    generation: i64,
    /// Conditions of the API pod the kubelet does not own (readiness gates).
    others: Vec<Condition>,
    /// Gone from the API server: stopped, then forgotten.
    removed: bool,
    /// Its configMap, secret and projected volumes not mounted yet.
    volumes: volume_manager::PodVolumes,
}

pub struct Kubelet {
    /// Where the world's messages for this kubelet go.
    id: NodeId,
    node: Node,
    cluster: Arc<Cluster>,
    behaviours: Arc<Behaviours>,
    /// The kubelet's own draws (latencies, jitter).
    rng: Stream,
    /// The apps' draws (behaviour times, response latencies).
    app_rng: Stream,
    /// The apps' draws when answering clients (kept apart from probes').
    server_rng: Stream,
    /// Client requests the apps are answering.
    inflight: Vec<pod_network::InFlight>,
    runtime: Runtime,
    /// The images its runtime has resolved.
    images: images::Images,
    pleg: pleg::Pleg,
    backoff: Backoff,
    /// The image manager's pull back-off, and each key's last pull error
    /// (`prevPullErrMsg`), which the back-off's message carries.
    image_backoff: Backoff,
    pull_errors: std::collections::BTreeMap<String, String>,
    /// The image puller's turns, and the pulls running by id.
    puller: puller::Puller<pulling::PullRequest>,
    pulls: std::collections::BTreeMap<u64, pulling::RunningPull>,
    next_pull: u64,
    recorder: Recorder,
    /// Indexed by the cluster-wide pod id; boxed, so that a slot for another
    /// node's pod costs a pointer (100 kubelets × 2,000 pods held 250 MB of
    /// empty slots).
    pods: Vec<Option<Box<KPod>>>,
    /// The ids of `pods` that are `Some`, in order: `pods` is indexed by the
    /// cluster-wide id, so scanning it cost every node every pod, every second.
    live: BTreeSet<PodId>,
    /// Each pod's next sync time (`workQueue`).
    work_queue: work_queue::WorkQueue,
    /// The live pods whose spec has an active deadline: with the work
    /// queue's due pods, all a sync-loop tick has to look at.
    deadlined: BTreeSet<PodId>,
    next_ip: u32,
    /// A global relist is reading the runtime.
    relisting: bool,
    /// What the relist in flight read, each pod's snapshot (one relist at a
    /// time: the next starts a period after this one is done); kept between
    /// relists so a relist does not allocate.
    relisted: Vec<(PodId, Relisted)>,
    /// On-demand relists requested during a global relist.
    deferred_relists: Vec<(PodId, SimTime)>,
    /// The ConfigMaps and Secrets its watches have delivered.
    objects: ObjectCache,
    /// The phases of the volume populator's and reconciler's loops, drawn
    /// when a pod first waits for a volume.
    reconciler_phase: Option<(SimDuration, SimDuration)>,
    /// When this kubelet process started, if during the run (the run's
    /// kubelets have been running long before it).
    restarted_at: Option<SimTime>,
    tickers: tickers::Tickers,
}

impl KPod {
    /// The active-deadline handler's `pastActiveDeadline` for this pod, as
    /// `spec` has it, at `now`: the start time from the status manager's
    /// cache, else the API's.
    fn past_active_deadline(&self, spec: &PodSpec, now: SimTime) -> bool {
        if spec.active_deadline_seconds.is_none() {
            return false;
        }
        let start = match self.status.cached() {
            Some(cached) => cached.start_time,
            None => self.status.api().start_time,
        };
        active_deadline::past(spec.active_deadline_seconds, start, now)
    }
}

impl Kubelet {
    pub fn new(
        id: NodeId,
        node: Node,
        cluster: Arc<Cluster>,
        behaviours: Arc<Behaviours>,
        objects: &[ConfigObject],
        seed: u64,
        epoch_ns: u128,
    ) -> Self {
        let runtime = Runtime::new(node.images.clone());
        let stream = |what: &str| Stream::new(seed, &format!("kubelet/{}/{what}", node.name));
        Kubelet {
            backoff: Backoff::new(cluster.backoff_initial, cluster.backoff_max),
            image_backoff: Backoff::new(images::BACKOFF_INITIAL, images::BACKOFF_MAX),
            pull_errors: Default::default(),
            puller: puller::Puller::new(
                cluster.kubelet.serialize_image_pulls,
                cluster.kubelet.max_parallel_image_pulls,
            ),
            pulls: Default::default(),
            next_pull: 0,
            rng: stream("loop"),
            app_rng: stream("apps"),
            server_rng: stream("server"),
            inflight: Vec::new(),
            runtime,
            images: images::Images::default(),
            pleg: pleg::Pleg { cache: Vec::new(), timestamp: Some(SimTime::ZERO) },
            recorder: Recorder::new(epoch_ns),
            pods: Vec::new(),
            live: BTreeSet::new(),
            work_queue: Default::default(),
            deadlined: BTreeSet::new(),
            next_ip: 0,
            relisting: false,
            relisted: Vec::new(),
            deferred_relists: Vec::new(),
            objects: ObjectCache::new(objects),
            reconciler_phase: None,
            restarted_at: None,
            tickers: Default::default(),
            id,
            node,
            cluster,
            behaviours,
        }
    }

    /// Starts the kubelet's tickers, each at a random phase: the kubelet has
    /// been running long before the simulation starts.
    pub fn start(&mut self, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let node = &self.node.name;
        let mut at = |period: SimDuration, ev: Ev, ticker: &'static str, rng: &mut Stream| {
            let offset = rng.phase(period, || Label::new(What::Phase, format!("node/{node}")).with(ticker));
            ctx.q.after(offset, Out::Own(ev));
        };
        at(RELIST_PERIOD, Ev::Relist, "PLEG relist", &mut self.rng);
        at(SYNC_TICK, Ev::SyncTick, "sync loop tick", &mut self.rng);
        at(HOUSEKEEPING, Ev::Housekeeping, "housekeeping", &mut self.rng);
        at(STATUS_RESYNC, Ev::StatusResync, "status resync", &mut self.rng);
    }

    fn send(&self, ctx: &mut Ctx<'_, impl Outbox<Out>>, delay: SimDuration, ev: Ev) {
        ctx.q.after(delay, Out::Own(ev));
    }

    fn pod(&mut self, id: PodId) -> Option<&mut KPod> {
        self.pods.get_mut(id.0 as usize).and_then(Option::as_deref_mut)
    }

    pub fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        match ev {
            Ev::PodAdded { pod, spec, uid, generation, stored } => {
                self.pod_added(pod, spec, uid, generation, stored, ctx)
            }
            Ev::Relist => {
                self.relisting = true;
                let mut relisted = std::mem::take(&mut self.relisted);
                debug_assert!(relisted.is_empty(), "a relist started while another was in flight");
                relisted.extend(self.live_pods().map(|p| (p, self.pleg.read(&self.runtime, p))));
                self.relisted = relisted;
                let node = &self.node.name;
                let d = (self.cluster.latencies.pleg_relist)
                    .sample(&mut self.rng, || Label::new(What::PlegRelist, format!("node/{node}")));
                self.send(ctx, d, Ev::RelistDone { started: now });
            }
            Ev::RelistDone { started } => {
                let mut relisted = std::mem::take(&mut self.relisted);
                for (pod, snap) in relisted.drain(..) {
                    self.apply_relist(pod, snap, started, ctx);
                }
                self.relisted = relisted;
                self.pleg.timestamp = Some(started);
                self.relisting = false;
                let mut at = None;
                while let Some(pod) = self.next_live(at) {
                    at = Some(pod);
                    self.try_start_sync(pod, ctx);
                }
                for (pod, requested) in std::mem::take(&mut self.deferred_relists) {
                    self.relist_pod(pod, requested, ctx);
                }
                self.send(ctx, RELIST_PERIOD, Ev::Relist);
            }
            // The PLEG worker serves single-pod requests between global relists.
            Ev::OnDemandRelist { pod, requested } if self.relisting => self.deferred_relists.push((pod, requested)),
            Ev::OnDemandRelist { pod, requested } => self.relist_pod(pod, requested, ctx),
            Ev::SyncTick => self.sync_tick(ctx),
            Ev::Housekeeping => self.housekeeping(ctx),
            Ev::StatusResync => {
                let mut at = None;
                while let Some(pod) = self.next_live(at) {
                    at = Some(pod);
                    let Some(p) = self.pod(pod) else { continue };
                    let could_run = p.worker.could_have_running_containers();
                    if let Some(s) = p.status.needs_reconcile(could_run, now) {
                        self.send_patch(pod, s, ctx);
                    }
                }
                self.send(ctx, STATUS_RESYNC, Ev::StatusResync);
            }
            Ev::SyncStep { pod, sync } => self.sync_step_done(pod, sync, ctx),
            Ev::PullDone { pull } => self.pull_done(pull, ctx),
            Ev::ProbeTick { pod, worker, ticker } => self.probe_tick(pod, worker, ticker, ctx),
            Ev::ProbeManual { pod, worker } => self.probe_manual(pod, worker, ctx),
            Ev::ProbeDone { pod, worker, inst, outcome } => self.probe_done(pod, worker, inst, outcome, ctx),
            Ev::Listening { inst } => self.listening(inst, ctx),
            Ev::Exit { inst, code } => self.process_exit(inst, code, ctx),
            Ev::OomKill { inst, rss, limit } => self.oom_kill(inst, rss, limit, ctx),
            Ev::KillTimer { pod, task, timer } => self.kill_timer(pod, task, timer, ctx),
            Ev::HookDone { pod, hook } => self.finish_hook(pod, hook, None, ctx),
            Ev::PodUpdated { pod, update } => self.pod_updated(pod, update, ctx),
            Ev::PodRemoved { pod } => self.pod_removed(pod, ctx),
            Ev::Connect { req, ip, port, path, back } => self.connect(req, &ip, port, &path, back, ctx),
            Ev::Respond { req } => self.respond(req, ctx),
            Ev::Signal { pod, container, signal, names } => self.signal(pod, container, signal, &names, ctx),
            Ev::Sigkill { inst } => {
                if self.runtime.inst(inst).is_running() {
                    self.process_fact(inst, ProcessFact::Sigkill, ctx);
                    self.process_exit(inst, runtime::SIGKILL_EXIT, ctx);
                }
            }
            Ev::ObjectSeen(object) => self.objects.seen(*object),
            Ev::MountVolumes { pod } => self.mount_pass(pod, ctx),
            Ev::MountWait { pod, sync, timeout } => self.mount_wait(pod, sync, timeout, ctx),
            Ev::StatusPatched { pod, stored } => {
                if let Some(p) = self.pod(pod) {
                    p.status.patched(stored);
                }
                self.flush_status(pod, ctx);
            }
        }
    }

    fn pod_spec(&self, pod: PodId) -> &PodSpec {
        &self.pods[pod.0 as usize].as_ref().expect("instance of a known pod").spec
    }

    /// The spec of the pod handed to the running sync.
    fn synced_spec(&self, pod: PodId) -> &PodSpec {
        self.pods[pod.0 as usize].as_ref().and_then(|p| p.sync.as_ref()).expect("sync exists").spec()
    }

    fn live_pods(&self) -> impl Iterator<Item = PodId> + '_ {
        self.live.iter().copied()
    }

    /// The live pod after `after` (the first for `None`): a loop whose body
    /// calls back into the kubelet walks the pods so, without copying the set.
    /// A pod forgotten meanwhile is skipped, as its lookup would find nothing.
    fn next_live(&self, after: Option<PodId>) -> Option<PodId> {
        use std::ops::Bound::{Excluded, Unbounded};
        match after {
            None => self.live.first().copied(),
            Some(p) => self.live.range((Excluded(p), Unbounded)).next().copied(),
        }
    }

    /// The kubelet forgets a pod (its parked probe tickers come back, to
    /// find it gone as every tick of theirs would).
    fn forget(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        self.wake_probes(pod, ctx);
        self.pods[pod.0 as usize] = None;
        self.live.remove(&pod);
        self.work_queue.remove(pod);
        self.deadlined.remove(&pod);
    }

    /// Keeps `deadlined` in step with the pod's spec.
    fn note_deadline(&mut self, pod: PodId, spec: &PodSpec, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        match spec.active_deadline_seconds {
            Some(_) => {
                self.deadlined.insert(pod);
                self.sync_every_tick(ctx);
            }
            None => {
                self.deadlined.remove(&pod);
            }
        }
    }

    fn pod_added(
        &mut self,
        pod: PodId,
        spec: Arc<PodSpec>,
        uid: Arc<str>,
        generation: i64,
        stored: Arc<ApiPod>,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let admitted = self.admission(&spec);
        // A pod already deleted when the kubelet first sees it (a kubelet
        // started again): `UpdatePod` begins its teardown at once.
        let deletion_grace = stored.meta.deletion.map(|d| d.grace_seconds);
        let i = pod.0 as usize;
        if self.pods.len() <= i {
            self.pods.resize_with(i + 1, || None);
        }
        self.live.insert(pod);
        // A new pod worker: no work-queue entry of an earlier one.
        self.work_queue.remove(pod);
        self.note_deadline(pod, &spec, ctx);
        self.pods[i] = Some(Box::new(KPod {
            name: Arc::from(spec.name.as_str()),
            namespace: Arc::from(spec.namespace.as_str()),
            spec,
            uid,
            worker: PodWorker::default(),
            probes: ProbeManager::default(),
            others: stored.status.other_conditions().cloned().collect(),
            status: StatusManager::observing(stored),
            reasons: ReasonCache::default(),
            sync: None,
            kills: kill::Kills::default(),
            deletion_grace,
            generation,
            removed: false,
            volumes: Default::default(),
        }));
        if deletion_grace.is_some()
            && let Some(p) = self.pod(pod)
        {
            p.worker.lifecycle = pod_worker::Lifecycle::Terminating;
        }
        match admitted {
            Ok(()) => {
                self.add_pod_volumes(pod, ctx);
                self.update_pod(pod, ctx)
            }
            Err(predicate) => self.reject_pod(pod, predicate, ctx),
        }
    }

    /// Stores a relist of `pod` and reacts to what changed (`HandlePodSyncs`
    /// for every event `Relist` sends; the container deletor after a death).
    fn apply_relist(&mut self, pod: PodId, snap: Relisted, at: SimTime, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let events = self.pleg.update(pod, snap, at);
        for e in &events {
            if let PlegEvent::ContainerDied(inst) = e {
                let container = self.runtime.inst(*inst).container;
                self.runtime.prune_dead(pod, container);
            }
        }
        if events.iter().any(PlegEvent::is_sent) {
            self.update_pod(pod, ctx);
        }
    }

    /// `podWorkers.UpdatePod`.
    fn update_pod(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(p) = self.pod(pod) else { return };
        if p.worker.update() {
            self.try_start_sync(pod, ctx);
        }
    }

    /// Sends the status manager's next PATCH, if any.
    fn flush_status(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(p) = self.pod(pod) else { return };
        let could_run = p.worker.could_have_running_containers();
        if let Some(s) = p.status.next_patch(could_run, now) {
            self.send_patch(pod, s, ctx);
        }
        self.maybe_delete(pod, ctx);
    }

    /// The status manager's final `DELETE` (grace 0, UID precondition) once
    /// a deleted pod is finished and the API shows its terminal phase.
    fn maybe_delete(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(p) = self.pod(pod) else { return };
        let deleting = p.deletion_grace.is_some();
        if p.status.take_delete(deleting) {
            let uid = p.uid.clone();
            let d = self
                .cluster
                .latencies
                .api_write
                .sample(&mut self.rng, || label(&self.pods, What::FinalDelete, pod, None));
            ctx.q.after(d, Out::DeletePod { pod, uid });
        }
    }

    fn send_patch(&mut self, pod: PodId, status: PodStatus, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let d =
            self.cluster.latencies.api_write.sample(&mut self.rng, || label(&self.pods, What::StatusPatch, pod, None));
        ctx.q.after(d, Out::PatchStatus { pod, node: self.id, status: Box::new(status) });
    }

    /// Records an event the kubelet emits about a pod or one of its containers.
    fn emit(
        &mut self,
        pod: PodId,
        container: Option<usize>,
        warning: bool,
        reason: &'static str,
        message: String,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let now = ctx.q.now();
        // A sweep's trace keeps no Events (the recorder's only output) and of
        // the kubelet's actions only refused pulls (`image_pull_failures`).
        let all = ctx.trace.keeps_all();
        if !(all || crate::trace::record::is_pull_failure(reason, &message)) {
            return;
        }
        let Some(p) = self.pods.get(pod.0 as usize).and_then(Option::as_deref) else {
            return;
        };
        let cname = container.map(|c| p.spec.containers[c].name.clone());
        let field_path = container.map(|c| p.spec.containers[c].field_path());
        ctx.trace.push(
            now,
            Record::Kubelet(KubeletAction {
                pod: p.name.clone(),
                namespace: p.namespace.clone(),
                container: cname.clone(),
                reason,
                message: message.clone(),
                warning,
            }),
        );
        if !all {
            return;
        }
        let subject = Subject { pod: &p.name, namespace: &p.namespace, uid: &p.uid, field_path };
        if let Some(e) = self.recorder.record(now, &self.node.name, &subject, warning, reason, message) {
            ctx.trace.push(now, Record::Event(e));
        }
    }

    fn process_fact(&mut self, inst: InstId, fact: ProcessFact, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let i = self.runtime.inst(inst);
        let (pod, namespace) = match self.pods[i.pod.0 as usize].as_ref() {
            Some(p) => (p.name.clone(), p.namespace.clone()),
            None => Default::default(),
        };
        let (container, container_id) = (i.name.clone(), i.container_id.clone());
        ctx.trace.push(ctx.q.now(), Record::Process { pod, namespace, container, container_id, fact });
    }

    fn process_exit(&mut self, inst: InstId, code: i32, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if self.runtime.exit(inst, ctx.q.now(), code) {
            self.process_ended(inst, code, ctx);
        }
    }

    /// What follows a process's end, however it came: its requests and the
    /// hooks and stops waiting on it end.
    fn process_ended(&mut self, inst: InstId, code: i32, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        self.process_fact(inst, ProcessFact::Exited { code }, ctx);
        self.reset_requests(inst, ctx);
        let pod = self.runtime.inst(inst).pod;
        self.kills_on_exit(pod, inst, ctx);
    }

    /// `relistPod`, dropped when a global relist started after the request.
    fn relist_pod(&mut self, pod: PodId, requested: SimTime, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        if self.pleg.timestamp.is_some_and(|t| t > requested) {
            return;
        }
        let snap = self.pleg.read(&self.runtime, pod);
        self.apply_relist(pod, snap, ctx.q.now(), ctx);
        self.try_start_sync(pod, ctx);
    }

    fn on_demand_relist(&self) -> bool {
        self.cluster.gates.enabled(Gate::PlegOnDemandRelist)
    }
}

impl Kubelet {
    pub fn node_name(&self) -> &str {
        &self.node.name
    }
}
