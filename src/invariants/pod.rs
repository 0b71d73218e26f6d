//! The invariants judged on whole Pod objects, and each pod's memory of what
//! it looked like before (for the sequence rules).

use super::CATALOGUE;
use super::report::{PodReport, Tally, Verdict};
use crate::cluster::Cluster;
use crate::observe::{Origin, Record};
use k8s_openapi::api::core::v1::{ContainerStatus, Pod, PodCondition};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use std::collections::BTreeMap;

/// A condition's status, reason and message.
type Words = (String, Option<String>, Option<String>);

/// What the checker keeps about one pod.
#[derive(Default)]
pub struct PodState {
    pub name: String,
    pub objects: u32,
    pub rows: u32,
    pub events: u32,
    pub tallies: BTreeMap<&'static str, Tally>,
    /// Per container: the last restartCount and container ID seen, and where.
    pub(super) last_counts: BTreeMap<String, (i32, Option<String>, Origin)>,
    /// Per condition: the last status, reason and message, lastTransitionTime, and where.
    last_conditions: BTreeMap<String, (Words, Option<i64>, Origin)>,
    /// Per container: its recent instances' starts and exits (restart-gap-backoff).
    pub(super) lives: BTreeMap<String, super::restarts::Lives>,
    /// Per container: its restartCount in the first snapshot showing the deletion, and where.
    deletion_counts: BTreeMap<String, (i32, Origin)>,
    /// The last Pod object came from a watch event (every version in order).
    watched_last: bool,
    /// The last `kubectl get` row: restarts, whether it showed `Init:…`, age in ms, where.
    pub last_row: Option<(u32, bool, i64, Origin)>,
    /// Every (Ready, terminating) the pod showed in a watch so far: an
    /// EndpointSlice, written late, must reflect one of them.
    pub watched_states: Vec<(bool, bool)>,
}

pub(super) fn secs(t: &Time) -> i64 {
    t.0.as_second()
}

pub(super) fn condition<'a>(p: &'a Pod, kind: &str) -> Option<&'a PodCondition> {
    p.status.as_ref()?.conditions.as_ref()?.iter().find(|c| c.type_ == kind)
}

pub(super) fn is_true(c: Option<&PodCondition>) -> bool {
    c.is_some_and(|c| c.status == "True")
}

pub(super) fn statuses(p: &Pod) -> impl Iterator<Item = &ContainerStatus> {
    let s = p.status.as_ref();
    s.and_then(|s| s.container_statuses.as_ref()).into_iter().flatten()
}

pub(super) fn init_statuses(p: &Pod) -> impl Iterator<Item = &ContainerStatus> {
    let s = p.status.as_ref();
    s.and_then(|s| s.init_container_statuses.as_ref()).into_iter().flatten()
}

/// Restartable init containers (native sidecars) by name.
pub(super) fn sidecars(p: &Pod) -> Vec<&str> {
    let spec = p.spec.as_ref();
    let init = spec.and_then(|s| s.init_containers.as_ref()).into_iter().flatten();
    init.filter(|c| c.restart_policy.as_deref() == Some("Always")).map(|c| c.name.as_str()).collect()
}

impl PodState {
    pub(super) fn tally(&mut self, name: &'static str) -> &mut Tally {
        self.tallies.entry(name).or_default()
    }

    pub fn observe_pod(&mut self, r: &Record, p: &Pod, cluster: &Cluster) {
        self.objects += 1;
        self.name = p.metadata.name.clone().unwrap_or_else(|| format!("(unnamed in {})", r.origin.file));
        let o = &r.origin;
        if p.status.is_none() {
            for inv in CATALOGUE.iter().filter(|i| i.name != "endpoint-conditions") {
                self.tally(inv.name).skip("the object has no status (a spec, not an observation)");
            }
            return;
        }
        self.conditions(p, r);
        self.ready_running(p, o);
        self.initialized(p, o);
        self.initial_delay(p, o);
        self.backoff(p, o, cluster);
        self.message_delay(p, o, cluster);
        self.steps(p, o);
        self.transitions(p, r);
        self.phase(p, o, cluster);
        self.exit_codes(p, o);
        self.deletion(p, o);
        if r.watch.is_some() {
            let state = (is_true(condition(p, "Ready")), p.metadata.deletion_timestamp.is_some());
            if !self.watched_states.contains(&state) {
                self.watched_states.push(state);
            }
        }
    }

    /// ready-implies-containers-ready and containers-ready-implies-all-ready.
    fn conditions(&mut self, p: &Pod, r: &Record) {
        let o = &r.origin;
        if p.status.as_ref().and_then(|s| s.conditions.as_ref()).is_none_or(|c| c.is_empty()) {
            self.tally("ready-implies-containers-ready").skip("no conditions in the snapshots");
            self.tally("containers-ready-implies-all-ready").skip("no conditions in the snapshots");
            return;
        }
        let ready = is_true(condition(p, "Ready"));
        let cr = condition(p, "ContainersReady");
        let gates: Vec<&str> = p
            .spec
            .as_ref()
            .and_then(|s| s.readiness_gates.as_ref())
            .into_iter()
            .flatten()
            .map(|g| g.condition_type.as_str())
            .collect();
        // The kubelet can set Ready from its cached copy of a gate
        // (SetContainerReadiness) before it has seen the gate change; its own
        // PATCH then comes back as a RECONCILE and a sync corrects Ready. That
        // sync waits for the one running, which may be stopping a container
        // for its whole grace. So an unmet gate breaks the rule only when the
        // snapshot is 2 s plus that grace past Ready's transition and the
        // gate's: observed then, or with a later timestamp in it.
        let ready_at = condition(p, "Ready").and_then(|c| c.last_transition_time.as_ref()).map(secs);
        let seen = match r.seen {
            crate::observe::When::At(span) => Some(span.lo.div_euclid(1000)),
            crate::observe::When::Unknown => None,
        };
        let latest = seen.or_else(|| latest_timestamp(p));
        // Saturating: a recorded grace may be as large as i64 allows.
        let lag = kill_grace(p).saturating_add(2);
        let settled = |since: Option<i64>| matches!((since, latest), (Some(r), Some(l)) if l >= r.saturating_add(lag));
        let unmet: Vec<&str> = gates
            .iter()
            .copied()
            .filter(|g| {
                let c = condition(p, g);
                let gate_at = c.and_then(|c| c.last_transition_time.as_ref()).map(secs);
                // Both the Ready transition and the gate's are old enough: the kubelet had time.
                !is_true(c) && settled(ready_at) && (c.is_none() || settled(gate_at))
            })
            .collect();
        let t = self.tally("ready-implies-containers-ready");
        match (ready, cr) {
            (true, Some(c)) if c.status != "True" => {
                t.violate(&[o], "ContainersReady=True".into(), format!("ContainersReady={}", c.status))
            }
            (true, _) if !unmet.is_empty() => {
                t.violate(&[o], "every readiness gate True".into(), format!("not True: {}", unmet.join(", ")))
            }
            _ => t.hold(),
        }
        let sidecars = sidecars(p);
        let unready: Vec<String> = statuses(p)
            .chain(init_statuses(p).filter(|s| sidecars.contains(&s.name.as_str())))
            .filter(|s| !s.ready)
            .map(|s| s.name.clone())
            .collect();
        let t = self.tally("containers-ready-implies-all-ready");
        match cr {
            Some(c) if c.status == "True" && !unready.is_empty() => t.violate(
                &[o],
                "every container ready".into(),
                format!("ContainersReady=True but not ready: {}", unready.join(", ")),
            ),
            Some(_) => t.hold(),
            None => t.skip("no ContainersReady condition"),
        }
    }

    /// ready-implies-running.
    fn ready_running(&mut self, p: &Pod, o: &Origin) {
        let all: Vec<&ContainerStatus> = statuses(p)
            .chain(init_statuses(p).filter(|s| s.ready && s.state.as_ref().is_some_and(|x| x.running.is_some())))
            .collect();
        let t = self.tally("ready-implies-running");
        if all.is_empty() {
            return t.skip("no container statuses");
        }
        let bad: Vec<String> = all
            .iter()
            // Running and `started: false` may stay ready for one write: a
            // kubelet restarted in 1.34 seeds its startup worker Unknown, and
            // `SetContainerStartup` changes `started` alone (its sync follows).
            .filter(|s| s.ready && s.state.as_ref().is_none_or(|x| x.running.is_none()))
            // A late readiness result of the instance that just exited.
            .filter(|s| s.state.as_ref().is_none_or(|x| x.terminated.is_none()))
            .map(|s| s.name.clone())
            .collect();
        if bad.is_empty() {
            t.hold();
        } else {
            t.violate(
                &[o],
                "a ready container is running".into(),
                format!("ready but not running: {}", bad.join(", ")),
            );
        }
    }

    /// initialized-after-init.
    fn initialized(&mut self, p: &Pod, o: &Origin) {
        let spec_init = p.spec.as_ref().and_then(|s| s.init_containers.as_ref()).map_or(0, Vec::len);
        let t = self.tally("initialized-after-init");
        if spec_init == 0 && init_statuses(p).next().is_none() {
            return t.skip("no init containers");
        }
        let succeeded = p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Succeeded");
        if !is_true(condition(p, "Initialized")) || succeeded {
            return t.hold();
        }
        let sidecars = sidecars(p);
        let regular_started = statuses(p).any(|s| {
            s.restart_count > 0 || s.state.as_ref().is_some_and(|x| x.running.is_some() || x.terminated.is_some())
        });
        let unfinished: Vec<String> = init_statuses(p)
            .filter(|s| {
                let st = s.state.as_ref();
                if sidecars.contains(&s.name.as_str()) {
                    s.started != Some(true) && st.is_none_or(|x| x.running.is_none())
                } else {
                    st.and_then(|x| x.terminated.as_ref()).is_none_or(|t| t.exit_code != 0)
                }
            })
            .map(|s| s.name.clone())
            .collect();
        if unfinished.is_empty() || regular_started {
            t.hold();
        } else {
            let t = self.tally("initialized-after-init");
            t.violate(
                &[o],
                "every init container exited 0 (sidecars started)".into(),
                format!("Initialized=True while not done: {}", unfinished.join(", ")),
            );
        }
    }

    /// ready-after-initial-delay: Ready.lastTransitionTime ≥ startedAt + initialDelaySeconds.
    fn initial_delay(&mut self, p: &Pod, o: &Origin) {
        let ready = condition(p, "Ready").filter(|c| c.status == "True").and_then(|c| c.last_transition_time.as_ref());
        let t = self.tally("ready-after-initial-delay");
        let Some(ltt) = ready else { return t.skip("Ready is never True with a lastTransitionTime") };
        let delay = |name: &str| {
            let spec = p.spec.as_ref()?;
            let c = spec.containers.iter().chain(spec.init_containers.iter().flatten()).find(|c| c.name == name)?;
            c.readiness_probe.as_ref().map(|r| i64::from(r.initial_delay_seconds.unwrap_or(0)))
        };
        let mut late = Vec::new();
        let mut checked = false;
        // Only containers with a readiness probe: one without becomes ready as
        // soon as it runs, and a probe kill and restart in one sync can leave
        // Ready True throughout (the API never sees the dead instance).
        for s in statuses(p) {
            let Some(start) = s.state.as_ref().and_then(|x| x.running.as_ref()).and_then(|r| r.started_at.as_ref())
            else {
                continue;
            };
            let Some(d) = delay(&s.name) else { continue };
            checked = true;
            // Whole seconds: Ready's second ≥ StartedAt's second + d (int(now − StartedAt) ≥ d).
            if secs(ltt) < secs(start) + d {
                late.push(format!(
                    "{}: Ready at {} but started at {} with initialDelaySeconds {d}",
                    s.name, ltt.0, start.0
                ));
            }
        }
        match (checked, late.is_empty()) {
            (false, _) => t.skip("no running container with a readiness probe and a startedAt"),
            (true, true) => t.hold(),
            (true, false) => {
                t.violate(&[o], "Ready no earlier than startedAt + initialDelaySeconds".into(), late.join("; "))
            }
        }
    }

    /// transition-time-moves-with-status across consecutive versions of the
    /// same pod: watch events (`--output-watch-events`, podsim's traces).
    /// Between two snapshots taken apart the API may have held the other
    /// status: nothing to judge.
    fn transitions(&mut self, p: &Pod, r: &Record) {
        let o = &r.origin;
        let watched = r.watch.is_some();
        let consecutive = std::mem::replace(&mut self.watched_last, watched) && watched;
        let conditions = p.status.as_ref().and_then(|s| s.conditions.clone()).unwrap_or_default();
        for c in conditions {
            let ltt = c.last_transition_time.as_ref().map(secs);
            let words = (c.status.clone(), c.reason.clone(), c.message.clone());
            let prev = self.last_conditions.insert(c.type_.clone(), (words.clone(), ltt, o.clone()));
            let Some(((status, reason, message), prev_ltt, prev_o)) = prev.filter(|_| consecutive) else { continue };
            let t = self.tally("transition-time-moves-with-status");
            // The kubelet stamps against its cached status: a flip and flip
            // back between two PATCHes moves the time without the API seeing
            // the other status; the regenerated condition then reads differently.
            let reworded = reason != words.1 || message != words.2;
            match (ltt, prev_ltt) {
                (Some(a), Some(b)) if status == c.status && a != b && !reworded => t.violate(
                    &[&prev_o, o],
                    format!("{} stays {}: lastTransitionTime stays", c.type_, c.status),
                    format!("lastTransitionTime moved by {} s", a - b),
                ),
                (Some(_), Some(_)) => t.hold(),
                _ => {}
            }
        }
        self.tally("transition-time-moves-with-status")
            .skip("fewer than two consecutive versions with condition times (a watch with --output-watch-events)");
    }

    /// exit-code-reason.
    fn exit_codes(&mut self, p: &Pod, o: &Origin) {
        let mut seen = false;
        for s in statuses(p).chain(init_statuses(p)) {
            let terms =
                [s.state.as_ref(), s.last_state.as_ref()].into_iter().flatten().filter_map(|x| x.terminated.as_ref());
            for term in terms {
                seen = true;
                let reason = term.reason.as_deref().unwrap_or("");
                let code = term.exit_code;
                let ok = match reason {
                    "Completed" => code == 0,
                    "Error" | "OOMKilled" => code != 0,
                    _ => code != 0 || reason.is_empty(),
                };
                let t = self.tally("exit-code-reason");
                if ok {
                    t.hold();
                } else {
                    t.violate(
                        &[o],
                        format!("{}: Completed ⇔ exit code 0", s.name),
                        format!("reason {reason:?} with exit code {code}"),
                    );
                }
            }
        }
        if !seen {
            self.tally("exit-code-reason").skip("no terminated container");
        }
    }

    /// no-start-after-deletion: once a pod shows its deletion, each
    /// container starts at most once more. The sync running when the
    /// deletion arrives finishes what it was doing (a kill and restart, an
    /// image pull and start: the runtime's SyncPod runs without
    /// cancellation); no later sync starts anything.
    fn deletion(&mut self, p: &Pod, o: &Origin) {
        if p.metadata.deletion_timestamp.is_none() {
            return self.tally("no-start-after-deletion").skip("the pod is never being deleted");
        }
        let mut over = Vec::new();
        let mut checked = false;
        for s in statuses(p).chain(init_statuses(p)) {
            let (base, first_o) =
                self.deletion_counts.entry(s.name.clone()).or_insert((s.restart_count, o.clone())).clone();
            if first_o == *o {
                continue;
            }
            checked = true;
            if s.restart_count > base + 1 {
                over.push((s.name.clone(), base, s.restart_count, first_o));
            }
        }
        let t = self.tally("no-start-after-deletion");
        for (name, base, now, first_o) in over {
            t.violate(
                &[&first_o, o],
                format!("{name}: restartCount at most {} (one start by the sync already running)", base + 1),
                format!("restartCount {now}"),
            );
        }
        if checked {
            t.hold();
        } else {
            t.skip("a single snapshot of the deleted pod");
        }
    }

    pub fn report(self) -> PodReport {
        let observed = format!("{} object(s), {} row(s), {} event(s)", self.objects, self.rows, self.events);
        let why =
            if self.objects == 0 { "no Pod objects with status (only kubectl rows or events)" } else { "not observed" };
        let mut tallies = self.tallies;
        let verdicts = CATALOGUE
            .iter()
            .filter(|i| i.name != "endpoint-conditions")
            .map(|i| (i.name, tallies.remove(i.name).unwrap_or_default().verdict(why)))
            .collect::<BTreeMap<_, Verdict>>();
        PodReport { pod: if self.name.is_empty() { "?".into() } else { self.name }, observed, verdicts }
    }
}

/// The longest a container stop holds up a pod's sync (`killContainer`):
/// the pod's grace (default 30 s), or a liveness or startup probe's own
/// `terminationGracePeriodSeconds`, and never less than the 2 s minimum.
fn kill_grace(p: &Pod) -> i64 {
    let spec = p.spec.as_ref();
    let pod = spec.and_then(|s| s.termination_grace_period_seconds).unwrap_or(30);
    let probes = spec
        .into_iter()
        .flat_map(|s| s.containers.iter().chain(s.init_containers.iter().flatten()))
        .flat_map(|c| [&c.liveness_probe, &c.startup_probe])
        .filter_map(|probe| probe.as_ref()?.termination_grace_period_seconds);
    probes.chain([pod]).max().unwrap_or(pod).max(2)
}

/// The latest timestamp a Pod object carries (conditions, container times):
/// it was written no earlier.
fn latest_timestamp(p: &Pod) -> Option<i64> {
    let s = p.status.as_ref()?;
    let conditions = s.conditions.iter().flatten().filter_map(|c| c.last_transition_time.as_ref());
    let containers = s.container_statuses.iter().chain(&s.init_container_statuses).flatten().flat_map(|c| {
        let st = c.state.as_ref();
        [
            st.and_then(|x| x.running.as_ref()).and_then(|r| r.started_at.as_ref()),
            st.and_then(|x| x.terminated.as_ref()).and_then(|t| t.finished_at.as_ref()),
        ]
        .into_iter()
        .flatten()
    });
    conditions.chain(containers).map(secs).max()
}

#[cfg(test)]
mod tests;
