//! Rules on the order of a pod's containers that only a simulated trace can
//! show (they need process start, SIGTERM and exit times): init containers
//! and sidecars start in order before the regular containers, a kill runs
//! within the grace period, sidecars last, and a deleted pod's containers stop.

use super::report::Tally;
use crate::api::pod::ApiPod;
use crate::observe::Origin;
use crate::spec::{PodSpec, Role};
use crate::time::{SimDuration, SimTime};
use crate::trace::Trace;
use crate::trace::record::{ProcessFact, Record, Verdict, WatchKind};
use foldhash::HashSet;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One container instance as its process lived it.
#[derive(Clone, Debug, Default)]
struct Life {
    started: SimTime,
    sigterm: Option<SimTime>,
    finished: Option<SimTime>,
    exit: Option<i32>,
    /// The startup probe's first published success, if any.
    startup_ok: Option<SimTime>,
    id: Arc<str>,
    line: usize,
}

/// What the trace says about one pod.
#[derive(Default)]
struct PodLives {
    spec: Option<Arc<PodSpec>>,
    /// deletionGracePeriodSeconds of the first deletion, when it was seen.
    deletion: Option<(i64, SimTime)>,
    /// When the pod left the API server (its DELETED record), the trace
    /// line, and whether the kubelet's final DELETE removed it.
    removed: Option<(SimTime, usize, bool)>,
    lives: BTreeMap<Arc<str>, Vec<Life>>,
    /// `Killing` events: time, container, trace line, and whether it is part
    /// of a pod kill (`Stopping container …`, every running container at once).
    kills: Vec<(SimTime, Arc<str>, usize, bool)>,
}

fn origin(i: usize) -> Origin {
    Origin { file: Arc::from("trace"), line: i as u64 + 1 }
}

/// Each pod by name, one entry per incarnation: a StatefulSet re-creates a
/// pod under the same name once the last one of that name is gone.
fn collect(trace: &Trace) -> BTreeMap<Arc<str>, Vec<PodLives>> {
    let mut pods: BTreeMap<Arc<str>, Vec<PodLives>> = BTreeMap::new();
    let mut startup_ok: BTreeMap<Arc<str>, SimTime> = BTreeMap::new();
    for (i, e) in trace.entries.iter().enumerate() {
        match &e.record {
            Record::Pod { kind, pod } => {
                let incarnations = pods.entry(Arc::from(pod.spec.name.as_str())).or_default();
                if *kind == WatchKind::Added && incarnations.last().is_none_or(|p| p.removed.is_some()) {
                    incarnations.push(PodLives::default());
                }
                let Some(p) = incarnations.last_mut() else { continue };
                p.spec.get_or_insert_with(|| pod.spec.clone());
                if let (None, Some(d)) = (p.deletion, deletion(pod)) {
                    p.deletion = Some((d, e.t));
                }
                if *kind == WatchKind::Deleted {
                    p.removed = Some((e.t, i, pod.meta.deletion.is_some_and(|d| d.by_kubelet)));
                }
            }
            Record::Probe(p)
                if p.probe == crate::spec::ProbeKind::Startup && p.published && p.verdict == Verdict::Success =>
            {
                startup_ok.entry(p.container_id.clone()).or_insert(e.t);
            }
            Record::Process { pod, container, container_id, fact, .. } => {
                let incarnations = pods.entry(pod.clone()).or_default();
                // A fact of a process goes to the incarnation that started it.
                let mine =
                    |p: &&mut PodLives| p.lives.get(container).is_some_and(|l| l.iter().any(|x| x.id == *container_id));
                let at = incarnations.iter_mut().rev().position(|p| mine(&p));
                if incarnations.is_empty() {
                    incarnations.push(PodLives::default());
                }
                let n = incarnations.len();
                let p = match (fact, at) {
                    (ProcessFact::Started, _) | (_, None) => &mut incarnations[n - 1],
                    (_, Some(k)) => &mut incarnations[n - 1 - k],
                };
                let l = p.lives.entry(container.clone()).or_default();
                match fact {
                    ProcessFact::Started => {
                        l.push(Life { started: e.t, id: container_id.clone(), line: i, ..Life::default() })
                    }
                    ProcessFact::Sigterm => l.last_mut().into_iter().for_each(|x| x.sigterm = Some(e.t)),
                    ProcessFact::Exited { code } => l.last_mut().into_iter().for_each(|x| {
                        x.finished = Some(e.t);
                        x.exit = Some(*code);
                    }),
                    // Gone with its node: finished, with no exit code of its own.
                    ProcessFact::NodeStopped => l.last_mut().into_iter().for_each(|x| x.finished = Some(e.t)),
                    _ => {}
                }
            }
            Record::Kubelet(a) if a.reason == "Killing" => {
                if let Some(c) = &a.container {
                    let pod_kill = a.message.starts_with("Stopping container");
                    let incarnations = pods.entry(a.pod.clone()).or_default();
                    if incarnations.is_empty() {
                        incarnations.push(PodLives::default());
                    }
                    incarnations.last_mut().into_iter().for_each(|p| p.kills.push((e.t, c.clone(), i, pod_kill)));
                }
            }
            _ => {}
        }
    }
    for p in pods.values_mut().flatten() {
        for l in p.lives.values_mut().flatten() {
            l.startup_ok = startup_ok.get(&l.id).copied();
        }
    }
    pods
}

fn deletion(pod: &ApiPod) -> Option<i64> {
    pod.meta.deletion.map(|d| d.grace_seconds)
}

/// init-order: the first start of each init container and of each regular
/// container comes after every earlier init container finished with 0 (a
/// sidecar: started, and its startup probe passed when it has one).
fn init_order(p: &PodLives, t: &mut Tally) {
    let Some(spec) = &p.spec else { return };
    let init: Vec<_> = spec.init().map(|(_, c)| c).collect();
    if init.is_empty() {
        return;
    }
    let first_start = |name: &str| p.lives.get(name).and_then(|v| v.first());
    for (pos, c) in spec.containers.iter().enumerate() {
        let Some(me) = first_start(&c.name) else { continue };
        let before = if c.role.is_init() { &init[..pos] } else { &init[..] };
        for prev in before {
            let done = p.lives.get(&*prev.name).into_iter().flatten().any(|l| match prev.role {
                Role::Sidecar => {
                    let started = if prev.startup.is_some() { l.startup_ok } else { Some(l.started) };
                    started.is_some_and(|s| s <= me.started)
                }
                _ => l.exit == Some(0) && l.finished.is_some_and(|f| f <= me.started),
            });
            if done {
                t.hold();
            } else {
                t.violate(
                    &[&origin(me.line)],
                    format!(
                        "{} starts after {} {}",
                        c.name,
                        prev.name,
                        if prev.role == Role::Sidecar { "started" } else { "exited 0" }
                    ),
                    format!("{} started first", c.name),
                );
            }
        }
    }
}

/// The grace a kill of this pod may use, in seconds: the deletion's if the
/// pod was deleted before the kill, else the largest of the pod's and its
/// probes' (a probe kill may use the probe's own).
fn grace_of(spec: &PodSpec, deletion: Option<(i64, SimTime)>, kill: SimTime) -> i64 {
    if let Some((g, _)) = deletion.filter(|(_, at)| *at <= kill) {
        return g.max(1);
    }
    let probes = spec.containers.iter().flat_map(|c| [c.startup.as_ref(), c.liveness.as_ref()]).flatten();
    let probe_grace = probes.filter_map(|p| p.termination_grace).map(|g| g.as_millis() / 1000).max().unwrap_or(0);
    ((spec.termination_grace.as_millis() / 1000).max(probe_grace) as i64).max(1)
}

/// stopped-within-grace and sidecars-stop-last.
fn kills(p: &PodLives, within: &mut Tally, last: &mut Tally) {
    let Some(spec) = &p.spec else { return };
    // The instance each kill hit: the newest one started before it.
    let hit = |c: &str, at: SimTime| p.lives.get(c).and_then(|v| v.iter().rev().find(|l| l.started <= at));
    for &(k, ref c, line, _) in &p.kills {
        let g = grace_of(spec, p.deletion, k);
        let Some(l) = hit(c, k) else { continue };
        if l.finished.is_some_and(|f| f < k) {
            continue;
        }
        // preStop ≤ grace, the turn wait ≤ what is left, then StopContainer(max(left, 2));
        // each of the two waits is taken off in whole seconds (up to 1 s more each).
        let bound = k + SimDuration::from_secs(g as u64 + 2 + 2);
        match l.finished {
            Some(f) if f <= bound => within.hold(),
            Some(f) => within.violate(
                &[&origin(line)],
                format!("{c} stopped by {bound} (grace {g} s + 2 s)"),
                format!("exited at {f}"),
            ),
            None => {}
        }
    }
    // A pod kill: every running container told at the same instant.
    let mut groups: BTreeMap<SimTime, Vec<Arc<str>>> = BTreeMap::new();
    for (k, c, _, _) in p.kills.iter().filter(|k| k.3) {
        groups.entry(*k).or_default().push(c.clone());
    }
    for (k, names) in groups {
        let g = grace_of(spec, p.deletion, k);
        let deadline = k + SimDuration::from_secs(g as u64);
        let killed: HashSet<&str> = names.iter().map(|n| &**n).collect();
        let ends = |role_filter: &dyn Fn(&crate::spec::ContainerSpec) -> bool| -> Option<SimTime> {
            spec.containers
                .iter()
                .filter(|c| role_filter(c) && killed.contains(&*c.name))
                .filter_map(|c| hit(&c.name, k).and_then(|l| l.finished))
                .max()
        };
        let regular_end = ends(&|c| c.role == Role::Regular);
        let sidecars: Vec<_> =
            spec.containers.iter().filter(|c| c.role == Role::Sidecar && killed.contains(&*c.name)).collect();
        for (i, s) in sidecars.iter().enumerate() {
            let Some(l) = hit(&s.name, k) else { continue };
            let Some(term) = l.sigterm.filter(|t| *t >= k) else { continue };
            // It waits for the regular containers and the next later sidecar, up to its grace.
            let later = sidecars[i + 1..].first().and_then(|n| hit(&n.name, k)).and_then(|l| l.finished);
            let wait_for = regular_end.into_iter().chain(later).max();
            match wait_for {
                Some(w) if term < w && term < deadline => last.violate(
                    &[&origin(l.line)],
                    format!("{} stops after the regular containers and later sidecars (or at its grace)", s.name),
                    format!("SIGTERM at {term}, before {w}"),
                ),
                _ => last.hold(),
            }
        }
    }
}

/// deletion-stops-containers. The kubelet's final DELETE comes only once
/// every container has stopped, so none runs at that removal. Any other
/// removal (grace 0) leaves the kubelet to stop what still runs when it sees
/// the pod gone: each such process (or one started later by a sync already
/// running) gets a Killing, a SIGTERM, or exits — judged once the run has
/// gone on for the pod's kill grace + the 2 s minimum after the removal,
/// which a sync already running may hold back.
fn deletion_stops(p: &PodLives, end: SimTime, t: &mut Tally) {
    let (Some(spec), Some((removed, line, graceful))) = (&p.spec, p.removed) else { return };
    let due = removed + SimDuration::from_secs(grace_of(spec, None, removed) as u64 + 2);
    for (name, lives) in &p.lives {
        for l in lives.iter().filter(|l| l.finished.is_none_or(|f| f > removed)) {
            let killed =
                l.sigterm.is_some() || p.kills.iter().any(|(k, c, _, _)| c == name && *k >= l.started.max(removed));
            if graceful && l.started <= removed {
                t.violate(
                    &[&origin(l.line), &origin(line)],
                    format!("{name} stopped before the kubelet's final DELETE"),
                    format!("still running at the removal ({removed})"),
                );
            } else if l.finished.is_some() || killed {
                t.hold();
            } else if end >= due {
                t.violate(
                    &[&origin(line)],
                    format!("{name} stopped by its kubelet after the pod was removed at once"),
                    format!("never killed and still running at {end}"),
                );
            }
        }
        if graceful && lives.iter().any(|l| l.finished.is_some_and(|f| f <= removed)) {
            t.hold();
        }
    }
}

/// The composition rules' verdicts per pod; `end` is when the run ended.
pub fn judge(trace: &Trace, end: SimTime) -> BTreeMap<Arc<str>, Vec<(&'static str, super::Verdict)>> {
    let mut out: BTreeMap<Arc<str>, Vec<(&'static str, super::Verdict)>> = BTreeMap::new();
    for (pod, incarnations) in collect(trace) {
        let (mut order, mut within, mut last) = (Tally::default(), Tally::default(), Tally::default());
        let mut stops = Tally::default();
        for p in &incarnations {
            init_order(p, &mut order);
            kills(p, &mut within, &mut last);
            deletion_stops(p, end, &mut stops);
        }
        let v = out.entry(pod).or_default();
        v.push(("init-order", order.verdict("no init containers")));
        v.push(("stopped-within-grace", within.verdict("no container was killed")));
        v.push(("sidecars-stop-last", last.verdict("no sidecar was stopped with the pod")));
        v.push((
            "deletion-stops-containers",
            stops.verdict("the pod did not leave the API server, or no container ran then"),
        ));
    }
    out
}
