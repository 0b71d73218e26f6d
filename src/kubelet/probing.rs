//! Probe workers on the event loop: ticks, manual triggers, running a probe
//! against the container's process, and the sync loop's reaction to changed
//! results (`syncLoopIteration`, `handleProbeSync`).

use super::Out;
use super::http_client::{self, Hop, Reply, Url};
use super::netns::NetnsId;
use super::prober::handler::{self, HandlerResult, Outcome, Target};
use super::prober::results::ProbeResult;
use super::prober::worker::{Served, Step, Update, Worker};
use super::relay;
use super::runtime::{InstId, Runtime};
use super::{Ev, Kubelet};
use crate::cluster::Gate;
use crate::engine::{Ctx, Outbox};
use crate::ids::PodId;
use crate::rng::{Label, Stream, What};
use crate::spec::{Handler, PortRef, ProbeKind, RestartPolicy, Role};
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::record::{ProbeRun, Verdict};

/// The request to `url`, `at`, in the pod's network namespace `ns` (a
/// redirect is followed only to the same host: the same namespace): the
/// process that bound its port answers (a relay with what its own request
/// got), else the kernel refuses it.
pub(super) fn send(
    runtime: &Runtime,
    ns: Option<NetnsId>,
    url: &Url<'_>,
    at: SimTime,
    rng: &mut Stream,
) -> Reply<InstId> {
    relay::serve(runtime, ns, url.host(), url.port(), &url.path, at, rng)
}

impl Kubelet {
    /// A ticker tick (`probeTicker.C`).
    pub(super) fn probe_tick(&mut self, pod: PodId, w: usize, ticker: u32, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(p) = self.pod(pod) else { return };
        let worker = &mut p.probes.workers[w];
        if worker.stopped || worker.ticker != ticker {
            return;
        }
        let period = worker.spec.period;
        let busy = worker.busy;
        if busy {
            worker.pending_tick = true;
        }
        let tick = Out::Own(Ev::ProbeTick { pod, worker: w, ticker });
        if worker.dormant.is_some() {
            // Its ticks change nothing until woken: they are skipped.
            worker.parked = ctx.q.park(period, tick, None);
            if worker.parked.is_some() {
                return;
            }
        } else {
            ctx.q.after(period, tick);
        }
        if !busy {
            self.do_probe(pod, w, ctx);
        }
    }

    /// The pod's probe workers are to change (stop, or go with the pod):
    /// none stays dormant, and each parked ticker comes back where its tick
    /// is due.
    pub(super) fn wake_probes(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(p) = self.pod(pod) else { return };
        for worker in &mut p.probes.workers {
            wake(worker, ctx);
        }
    }

    /// The cached status changed: the dormant workers that read something
    /// else of it now wake.
    pub(super) fn status_changed(&mut self, pod: PodId, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(p) = self.pod(pod) else { return };
        let status = p.status.cached();
        for worker in &mut p.probes.workers {
            if worker.dormant.is_some_and(|v| v != worker.view(status)) {
                wake(worker, ctx);
            }
        }
    }

    /// A manual trigger (`manualTriggerCh`): probe now and restart the ticker.
    pub(super) fn probe_manual(&mut self, pod: PodId, w: usize, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(p) = self.pod(pod) else { return };
        let worker = &mut p.probes.workers[w];
        wake(worker, ctx);
        if worker.stopped {
            return;
        }
        if worker.busy {
            worker.pending_manual = true;
            return;
        }
        self.reset_ticker(pod, w, ctx);
        self.do_probe(pod, w, ctx);
    }

    fn reset_ticker(&mut self, pod: PodId, w: usize, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let Some(p) = self.pod(pod) else { return };
        let worker = &mut p.probes.workers[w];
        worker.ticker += 1;
        worker.pending_tick = false;
        let (period, ticker) = (worker.spec.period, worker.ticker);
        self.send(ctx, period, Ev::ProbeTick { pod, worker: w, ticker });
    }

    /// `doProbe`: checks against the cached status, then runs the probe.
    fn do_probe(&mut self, pod: PodId, w: usize, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        let Some(p) = self.pod(pod) else { return };
        // A sidecar is restarted whatever the pod's policy (its worker keeps
        // going: PR #133072, in 1.35 and backported to 1.34.x).
        let sidecar = p.spec.containers[p.probes.workers[w].container].role == Role::Sidecar;
        let can_restart = p.spec.restart_policy != RestartPolicy::Never || sidecar;
        let mut updates = Vec::new();
        let restarted_before = self.restart_cutoff();
        let p = self.pod(pod).expect("checked above");
        let (worker, results) = p.probes.worker_and_results(w);
        let step = worker.begin(p.status.cached(), can_restart, restarted_before, now, results, &mut updates);
        // A skip that changed nothing repeats at every tick until what it read changes.
        let repeats = matches!(step, Step::Skip(_)) && updates.is_empty();
        worker.dormant = repeats.then(|| worker.view(p.status.cached()));
        self.handle_updates(pod, updates, ctx);
        match step {
            Step::Skip(_) | Step::Wait(_) => {}
            Step::Stop => {
                if let Some(p) = self.pod(pod) {
                    p.probes.stop_worker(w);
                }
            }
            Step::Run(inst) => {
                let outcome = self.run_probe(pod, w, inst, now);
                let took = outcome.as_ref().map_or(SimDuration::ZERO, |o| o.took);
                if let Some(p) = self.pod(pod) {
                    p.probes.workers[w].busy = true;
                }
                self.send(ctx, took, Ev::ProbeDone { pod, worker: w, inst, outcome });
            }
        }
    }

    /// Runs the handler as it would run now: an exec probe in the instance's
    /// container, a network probe against the pod IP, where whichever
    /// process bound the port answers (`runProbe` dials `status.PodIP`).
    /// The worker keeps which processes answer, and when. An `Err` is a
    /// prober error: the kubelet throws the result away.
    fn run_probe(&mut self, pod: PodId, w: usize, inst: InstId, now: SimTime) -> Result<Outcome, String> {
        let exec_timeout = self.cluster.gates.enabled(Gate::ExecProbeTimeout);
        let sandbox = self.runtime.sandbox(pod);
        let ip = sandbox.map(|s| s.ip.clone()).unwrap_or_else(|| self.node.ip.clone());
        let netns = sandbox.map(|s| s.netns);
        let p = self.pods[pod.0 as usize].as_mut().expect("probed pod exists");
        let mut served = std::mem::take(&mut p.probes.workers[w].served);
        served.clear();
        let worker = &p.probes.workers[w];
        let spec = &p.spec.containers[worker.container];
        let probe = &worker.spec;
        let runtime = &self.runtime;
        let rng = &mut self.app_rng;
        let resolve = |port: &PortRef| spec.resolve_port(port).ok_or_else(|| unresolved_port(port));
        // The process a connection to the probe's port reaches.
        let connect = |port: u16| netns.and_then(|ns| runtime.server(ns, port)).map(|s| (s, runtime.inst(s)));
        let outcome = match &probe.handler {
            Handler::HttpGet { port, path, scheme } => resolve(port).map(|port| {
                let url = Url::new(scheme, &ip, port, path);
                let send = |u: &Url<'_>, elapsed| send(runtime, netns, u, now + elapsed, rng);
                let hop = |h: Hop<'_, '_, InstId>| served.push(Served { inst: h.server, from: h.from, to: h.to });
                handler::http(&http_client::get(url, Some(probe.timeout), send, hop))
            }),
            Handler::TcpSocket { port } => {
                resolve(port).map(|port| handler::tcp(connect(port).is_some(), &Target { ip: &ip, port }))
            }
            Handler::Grpc { port, service } => {
                let answer = connect(*port).map(|(s, i)| (s, i.plan.grpc(service, i.age(now), i.moments, rng)));
                let target = Target { ip: &ip, port: *port };
                let outcome = handler::grpc(answer.as_ref().map(|a| a.1.clone()), &target, probe.timeout);
                served.extend(answer.map(|(inst, _)| Served { inst, from: SimDuration::ZERO, to: outcome.took }));
                Ok(outcome)
            }
            Handler::Exec { command } => {
                let instance = runtime.inst(inst);
                if instance.is_running() {
                    let joined = command.join(" ");
                    let answer = instance.plan.exec(&joined, instance.age(now), instance.moments, rng);
                    let overhead = self.cluster.latencies.exec_probe.sample(&mut self.rng, || {
                        let about = format!("{}/{}", p.spec.alias, spec.name);
                        Label::new(What::ExecOverhead, about).with(format!("{} probe", worker.kind.as_str()))
                    });
                    let outcome = handler::exec(answer, &joined, overhead, exec_timeout.then_some(probe.timeout));
                    served.push(Served { inst, from: SimDuration::ZERO, to: outcome.took });
                    Ok(outcome)
                } else {
                    Err("container not running".to_string())
                }
            }
        };
        if let Some(p) = self.pods[pod.0 as usize].as_mut() {
            p.probes.workers[w].served = served;
        }
        outcome
    }

    /// The probe returned: count it, publish it, and serve a pending trigger or tick.
    pub(super) fn probe_done(
        &mut self,
        pod: PodId,
        w: usize,
        inst: InstId,
        outcome: Result<Outcome, String>,
        ctx: &mut Ctx<'_, impl Outbox<Out>>,
    ) {
        let now = ctx.q.now();
        let Some(p) = self.pod(pod) else { return };
        let worker = &mut p.probes.workers[w];
        worker.busy = false;
        if worker.stopped {
            return;
        }
        let (kind, container, spec) = (worker.kind, worker.container, worker.spec.clone());
        let served = std::mem::take(&mut worker.served);
        let outcome = match outcome {
            Ok(o) => self.cut_short(&served, o, &spec.handler, now),
            err => err,
        };
        if let Some(p) = self.pod(pod) {
            p.probes.workers[w].served = served;
        }
        let title = kind.title();
        match outcome {
            Err(e) => {
                // A sweep's trace keeps no probe runs nor Events: nothing to build.
                if ctx.trace.keeps_all() {
                    let p = self.pod(pod).expect("probed pod exists");
                    let record = ProbeRun {
                        pod: p.name.clone(),
                        namespace: p.namespace.clone(),
                        container: p.probes.workers[w].name.clone(),
                        container_id: self.runtime.inst(inst).container_id.clone(),
                        probe: kind,
                        verdict: Verdict::Error,
                        detail: e.clone(),
                        run: 0,
                        threshold: 0,
                        published: false,
                    };
                    ctx.trace.push(now, Record::Probe(record));
                    let msg = format!("{title} probe errored and resulted in unknown state: {e}");
                    self.emit(pod, Some(container), true, "Unhealthy", msg, ctx);
                }
            }
            Ok(o) => {
                let success = o.succeeded();
                let mut updates = Vec::new();
                let p = self.pod(pod).expect("probed pod exists");
                let (worker, results) = p.probes.worker_and_results(w);
                let run = worker.finish(inst, success, results, &mut updates);
                let threshold = if success { worker.spec.success_threshold } else { worker.spec.failure_threshold };
                // A sweep's trace keeps no probe runs nor Events: nothing to build.
                if ctx.trace.keeps_all() {
                    let record = ProbeRun {
                        pod: p.name.clone(),
                        namespace: p.namespace.clone(),
                        container: worker.name.clone(),
                        container_id: self.runtime.inst(inst).container_id.clone(),
                        probe: kind,
                        verdict: if success { Verdict::Success } else { Verdict::Failure },
                        detail: o.output.clone(),
                        run,
                        threshold,
                        published: !updates.is_empty(),
                    };
                    ctx.trace.push(now, Record::Probe(record));
                    match o.result {
                        HandlerResult::Success => {}
                        HandlerResult::Warning => {
                            let msg = format!("{title} probe warning: {}", o.output);
                            self.emit(pod, Some(container), true, "ProbeWarning", msg, ctx);
                        }
                        HandlerResult::Failure => {
                            let msg = format!("{title} probe failed: {}", o.output);
                            self.emit(pod, Some(container), true, "Unhealthy", msg, ctx);
                        }
                    }
                }
                self.handle_updates(pod, updates, ctx);
            }
        }
        let Some(p) = self.pod(pod) else { return };
        let worker = &mut p.probes.workers[w];
        if worker.stopped {
            return;
        }
        if std::mem::take(&mut worker.pending_manual) {
            self.reset_ticker(pod, w, ctx);
            self.do_probe(pod, w, ctx);
        } else if std::mem::take(&mut worker.pending_tick) {
            self.do_probe(pod, w, ctx);
        }
    }

    /// A probe whose answering process died while it answered does not get
    /// the answer it was computing: an HTTP or gRPC probe reads EOF, an exec
    /// probe's `ExecSync` fails (a prober error, thrown away).
    fn cut_short(&self, served: &[Served], o: Outcome, handler: &Handler, now: SimTime) -> Result<Outcome, String> {
        let began = now - o.took;
        let died = served.iter().any(|s| {
            let finished = self.runtime.inst(s.inst).finished();
            finished.is_some_and(|f| f > began + s.from && f <= began + s.to)
        });
        if !died {
            return Ok(o);
        }
        let fail = |output: String| Ok(Outcome { result: HandlerResult::Failure, output, took: o.took });
        match handler {
            Handler::HttpGet { .. } => fail("EOF".to_string()),
            Handler::Grpc { .. } => fail(
                "error: health rpc probe failed: rpc error: code = Unavailable desc = error reading from server: EOF"
                    .into(),
            ),
            Handler::TcpSocket { .. } => Ok(o),
            Handler::Exec { .. } => Err("container not running".to_string()),
        }
    }

    /// The sync loop's reaction to changed results: readiness and startup
    /// update the status cache first, then every change syncs the pod
    /// (liveness only on Failure).
    fn handle_updates(&mut self, pod: PodId, updates: Vec<Update>, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
        let now = ctx.q.now();
        for u in updates {
            let Some(p) = self.pod(pod) else { return };
            let changed = match u.kind {
                ProbeKind::Readiness => {
                    let spec = p.spec.clone();
                    p.status.set_container_readiness(&spec, u.inst.0, u.result == ProbeResult::Success, u.why, now)
                }
                ProbeKind::Startup => {
                    p.status.set_container_startup(u.inst.0, u.result == ProbeResult::Success, u.why, now)
                }
                ProbeKind::Liveness => false,
            };
            if changed {
                self.status_changed(pod, ctx);
                self.flush_status(pod, ctx);
            }
            if u.kind != ProbeKind::Liveness || u.result == ProbeResult::Failure {
                self.update_pod(pod, ctx);
            }
        }
    }
}

/// A worker is no longer dormant; its parked ticker comes back.
fn wake(worker: &mut Worker, ctx: &mut Ctx<'_, impl Outbox<Out>>) {
    worker.dormant = None;
    if let Some(parked) = worker.parked.take() {
        ctx.q.wake(parked);
    }
}

/// `probe.ResolveContainerPort` for a name the container does not declare:
/// the last-ditch `strconv.Atoi` fails, and its error is what is returned.
pub(super) fn unresolved_port(port: &PortRef) -> String {
    match port {
        PortRef::Number(n) => format!("invalid port number: {n}"),
        PortRef::Name(name) => format!("strconv.Atoi: parsing {name:?}: invalid syntax"),
    }
}
