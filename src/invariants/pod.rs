//! The invariants judged on whole Pod objects, and each pod's memory of what
//! it looked like before (for the sequence rules).

use super::CATALOGUE;
use super::report::{PodReport, Tally, Verdict};
use crate::cluster::Cluster;
use crate::observe::{Origin, Record};
use k8s_openapi::api::core::v1::{ContainerState, ContainerStatus, Pod, PodCondition};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use std::collections::BTreeMap;

/// What the checker keeps about one pod.
#[derive(Default)]
pub struct PodState {
    pub name: String,
    pub objects: u32,
    pub rows: u32,
    pub events: u32,
    pub tallies: BTreeMap<&'static str, Tally>,
    /// Per container: the last restartCount and container ID seen, and where.
    last_counts: BTreeMap<String, (i32, Option<String>, Origin)>,
    /// Per condition: the last status and lastTransitionTime seen, and where.
    last_conditions: BTreeMap<String, (String, Option<i64>, Origin)>,
    /// The last `kubectl get` row: restarts, age in ms, where.
    pub last_row: Option<(u32, i64, Origin)>,
    /// Every (Ready, terminating) the pod showed in a watch so far: an
    /// EndpointSlice, written late, must reflect one of them.
    pub watched_states: Vec<(bool, bool)>,
}

fn secs(t: &Time) -> i64 {
    t.0.as_second()
}

fn condition<'a>(p: &'a Pod, kind: &str) -> Option<&'a PodCondition> {
    p.status.as_ref()?.conditions.as_ref()?.iter().find(|c| c.type_ == kind)
}

fn is_true(c: Option<&PodCondition>) -> bool {
    c.is_some_and(|c| c.status == "True")
}

fn statuses(p: &Pod) -> impl Iterator<Item = &ContainerStatus> {
    let s = p.status.as_ref();
    s.and_then(|s| s.container_statuses.as_ref()).into_iter().flatten()
}

fn init_statuses(p: &Pod) -> impl Iterator<Item = &ContainerStatus> {
    let s = p.status.as_ref();
    s.and_then(|s| s.init_container_statuses.as_ref()).into_iter().flatten()
}

/// Restartable init containers (native sidecars) by name.
fn sidecars(p: &Pod) -> Vec<&str> {
    let spec = p.spec.as_ref();
    let init = spec.and_then(|s| s.init_containers.as_ref()).into_iter().flatten();
    init.filter(|c| c.restart_policy.as_deref() == Some("Always")).map(|c| c.name.as_str()).collect()
}

/// A Go duration as the kubelet prints backoffs: `10s`, `1m20s`, `5m0s`.
fn go_duration_secs(text: &str) -> Option<i64> {
    let mut total = 0i64;
    let mut num = String::new();
    for c in text.chars() {
        match c {
            '0'..='9' => num.push(c),
            'h' | 'm' | 's' => {
                let n: i64 = num.parse().ok()?;
                num.clear();
                total += n * match c {
                    'h' => 3600,
                    'm' => 60,
                    _ => 1,
                };
            }
            _ => return None,
        }
    }
    num.is_empty().then_some(total)
}

impl PodState {
    fn tally(&mut self, name: &'static str) -> &mut Tally {
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
        self.conditions(p, o);
        self.started(p, o);
        self.initialized(p, o);
        self.initial_delay(p, o);
        self.backoff(p, o, cluster);
        self.message_delay(p, o, cluster);
        self.steps(p, o);
        self.transitions(p, o);
        self.phase(p, o);
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
    fn conditions(&mut self, p: &Pod, o: &Origin) {
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
        let unmet: Vec<&str> = gates.iter().copied().filter(|g| !is_true(condition(p, g))).collect();
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

    /// ready-implies-started.
    fn started(&mut self, p: &Pod, o: &Origin) {
        let all: Vec<&ContainerStatus> = statuses(p)
            .chain(init_statuses(p).filter(|s| s.ready && s.state.as_ref().is_some_and(|x| x.running.is_some())))
            .collect();
        let t = self.tally("ready-implies-started");
        if all.is_empty() {
            return t.skip("no container statuses");
        }
        let bad: Vec<String> = all
            .iter()
            .filter(|s| s.ready && (s.started == Some(false) || s.state.as_ref().is_none_or(|x| x.running.is_none())))
            .map(|s| s.name.clone())
            .collect();
        if bad.is_empty() {
            t.hold();
        } else {
            t.violate(
                &[o],
                "a ready container is running and started".into(),
                format!("ready but not running/started: {}", bad.join(", ")),
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

    /// restart-gap-backoff: for a container that can only exit by itself.
    fn backoff(&mut self, p: &Pod, o: &Origin, cluster: &Cluster) {
        let probe_kills = |name: &str| {
            p.spec
                .as_ref()
                .and_then(|s| s.containers.iter().find(|c| c.name == name))
                .is_some_and(|c| c.liveness_probe.is_some() || c.startup_probe.is_some())
        };
        let mut out = Vec::new();
        let mut any = false;
        let mut skip = None;
        // Sidecars follow the same schedule, whatever the pod's restartPolicy.
        let sidecars = sidecars(p);
        for s in statuses(p).chain(init_statuses(p).filter(|s| sidecars.contains(&s.name.as_str()))) {
            let Some(last) = s.last_state.as_ref().and_then(|l| l.terminated.as_ref()) else { continue };
            let (Some(finished), Some(prev_start)) = (last.finished_at.as_ref(), last.started_at.as_ref()) else {
                continue;
            };
            let start = match s.state.as_ref() {
                Some(ContainerState { running: Some(r), .. }) => r.started_at.as_ref(),
                Some(ContainerState { terminated: Some(t), .. }) => t.started_at.as_ref(),
                _ => None,
            };
            let Some(start) = start else { continue };
            if probe_kills(&s.name) {
                skip = Some(
                    "the container has a liveness or startup probe: a probe kill restarts without waiting while the backoff entry lags (restarts-and-backoff.md)",
                );
                continue;
            }
            if secs(finished) - secs(prev_start) >= 599 {
                skip = Some("the previous instance ran about 10 minutes or more: the backoff may have reset");
                continue;
            }
            any = true;
            let n = s.restart_count.max(0) as u32;
            let need = required_wait(n, cluster);
            // The most the gap can be, given whole-second timestamps.
            let max_gap_ms = (secs(start) - secs(finished)) * 1000 + 999;
            if max_gap_ms < need * 1000 {
                out.push(format!(
                    "{}: restart {n} came {} s after the previous exit",
                    s.name,
                    secs(start) - secs(finished)
                ));
                let t = self.tally("restart-gap-backoff");
                t.violate(
                    &[o],
                    format!("{}: at least {need} s before restart {n}", s.name),
                    out.last().cloned().unwrap_or_default(),
                );
            }
        }
        let t = self.tally("restart-gap-backoff");
        match (any, skip) {
            (true, _) if out.is_empty() => t.hold(),
            (true, _) => {}
            (false, Some(why)) => t.skip(why),
            (false, None) => t.skip("no container restarted after a recorded termination"),
        }
    }

    /// crashloop-message-delay.
    fn message_delay(&mut self, p: &Pod, o: &Origin, cluster: &Cluster) {
        let initial = cluster.backoff_initial.as_millis() as i64 / 1000;
        let max = cluster.backoff_max.as_millis() as i64 / 1000;
        for s in statuses(p).chain(init_statuses(p)) {
            let Some(w) = s.state.as_ref().and_then(|x| x.waiting.as_ref()) else { continue };
            if w.reason.as_deref() != Some("CrashLoopBackOff") {
                continue;
            }
            // `back-off 40s …` (older kubelets: `Back-off 40s …`).
            let message = w.message.as_deref().unwrap_or("");
            let rest = message.strip_prefix("back-off ").or_else(|| message.strip_prefix("Back-off "));
            let Some(d) = rest.and_then(|m| m.split_whitespace().next()).and_then(go_duration_secs) else {
                continue;
            };
            let schedule: Vec<i64> = (0..12).map(|k| (initial << k).min(max)).collect();
            let n = s.restart_count.max(0) as u32;
            // After n restarts the entry has doubled at most n − 1 times.
            let bound = (initial << n.saturating_sub(1).min(20)).min(max);
            let t = self.tally("crashloop-message-delay");
            if !schedule.contains(&d) || d > bound {
                t.violate(
                    &[o],
                    format!(
                        "{}: a delay on the schedule {:?} and ≤ {bound} s at restartCount {n}",
                        s.name,
                        &schedule[..6]
                    ),
                    format!("back-off {d} s"),
                );
            } else {
                t.hold();
            }
        }
        self.tally("crashloop-message-delay").skip("no CrashLoopBackOff message");
    }

    /// restart-count-steps across snapshots of the same pod.
    fn steps(&mut self, p: &Pod, o: &Origin) {
        for s in statuses(p).chain(init_statuses(p)) {
            let id = s.container_id.clone();
            let last_id =
                s.last_state.as_ref().and_then(|l| l.terminated.as_ref()).and_then(|t| t.container_id.clone());
            let prev = self.last_counts.insert(s.name.clone(), (s.restart_count, id.clone(), o.clone()));
            let Some((count, prev_id, prev_o)) = prev else { continue };
            let t = self.tally("restart-count-steps");
            let step = s.restart_count - count;
            // One start since the last snapshot when the instance it showed is the one that ended.
            let one_start = prev_id.is_some() && prev_id == last_id;
            if step < 0 {
                t.violate(
                    &[&prev_o, o],
                    format!("{}: restartCount ≥ {count}", s.name),
                    format!("restartCount {}", s.restart_count),
                );
            } else if step > 1 && one_start {
                t.violate(
                    &[&prev_o, o],
                    format!("{}: restartCount {} after one start", s.name, count + 1),
                    format!("restartCount {}", s.restart_count),
                );
            } else if step == 0 && id.is_some() && prev_id.is_some() && id != prev_id {
                t.violate(
                    &[&prev_o, o],
                    format!("{}: restartCount > {count} for a new container", s.name),
                    "a new container ID with the same restartCount".into(),
                );
            } else {
                t.hold();
            }
        }
        self.tally("restart-count-steps").skip("fewer than two snapshots of the pod");
    }

    /// transition-time-moves-with-status across snapshots of the same pod.
    fn transitions(&mut self, p: &Pod, o: &Origin) {
        let conditions = p.status.as_ref().and_then(|s| s.conditions.clone()).unwrap_or_default();
        for c in conditions {
            let ltt = c.last_transition_time.as_ref().map(secs);
            let prev = self.last_conditions.insert(c.type_.clone(), (c.status.clone(), ltt, o.clone()));
            let Some((status, prev_ltt, prev_o)) = prev else { continue };
            let t = self.tally("transition-time-moves-with-status");
            match (ltt, prev_ltt) {
                (Some(a), Some(b)) if status == c.status && a != b => t.violate(
                    &[&prev_o, o],
                    format!("{} stays {}: lastTransitionTime stays", c.type_, c.status),
                    format!("lastTransitionTime moved by {} s", a - b),
                ),
                (Some(_), Some(_)) => t.hold(),
                _ => {}
            }
        }
        self.tally("transition-time-moves-with-status").skip("fewer than two snapshots with condition times");
    }

    /// phase-consistent.
    fn phase(&mut self, p: &Pod, o: &Origin) {
        let status = p.status.as_ref();
        let Some(phase) = status.and_then(|s| s.phase.as_deref()) else {
            return self.tally("phase-consistent").skip("no phase");
        };
        if status.and_then(|s| s.reason.as_deref()).is_some_and(|r| !r.is_empty()) {
            return self
                .tally("phase-consistent")
                .skip("the pod has a status reason (eviction, node loss): not a kubelet phase");
        }
        // An API object always has a restartPolicy; `kubectl describe` does not print it.
        let given = p.spec.as_ref().and_then(|s| s.restart_policy.as_deref());
        let policies: Vec<&str> = match given {
            Some(p) => vec![p],
            None => vec!["Always", "OnFailure", "Never"],
        };
        let policy = given.unwrap_or("unknown");
        let mut allowed = Vec::new();
        for pol in &policies {
            let expected = get_phase(p, pol, false);
            allowed.push(expected);
            if p.metadata.deletion_timestamp.is_some() {
                allowed.push(get_phase(p, pol, true));
                // Kubelets up to 1.21 could reset a deleted pod to Pending (kubernetes#70644).
                allowed.push("Pending");
            }
            if matches!(expected, "Succeeded" | "Failed") {
                // mergePodStatus holds a terminal phase back while containers could still run.
                allowed.extend(["Running", "Pending"]);
            }
        }
        allowed.dedup();
        let t = self.tally("phase-consistent");
        if allowed.contains(&phase) {
            t.hold();
        } else {
            t.violate(
                &[o],
                format!("phase {} (restartPolicy {policy})", allowed.join(" or ")),
                format!("phase {phase}"),
            );
        }
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

    /// no-start-after-deletion: a start 2 s or more after the deletion
    /// request (deletionTimestamp − grace) is one the kubelet made knowing of it.
    fn deletion(&mut self, p: &Pod, o: &Origin) {
        let t = self.tally("no-start-after-deletion");
        let Some(dt) = p.metadata.deletion_timestamp.as_ref() else { return t.skip("the pod is never being deleted") };
        let requested = secs(dt) - p.metadata.deletion_grace_period_seconds.unwrap_or(0);
        let late: Vec<String> = statuses(p)
            .chain(init_statuses(p))
            .filter_map(|s| Some((s.name.clone(), s.state.as_ref()?.running.as_ref()?.started_at.as_ref().map(secs)?)))
            .filter(|(_, started)| *started >= requested + 2)
            .map(|(n, started)| format!("{n} started {} s after the deletion request", started - requested))
            .collect();
        if late.is_empty() {
            t.hold();
        } else {
            t.violate(&[o], "no start after the deletion request".into(), late.join("; "));
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

/// The CrashLoopBackOff wait before restart `n` of a container that exits by
/// itself: restart 1 is immediate (#133472), restart n ≥ 2 waits
/// initial · 2^(n−2), capped at max.
pub fn required_wait(n: u32, cluster: &Cluster) -> i64 {
    let initial = cluster.backoff_initial.as_millis() as i64 / 1000;
    let max = cluster.backoff_max.as_millis() as i64 / 1000;
    if n < 2 { 0 } else { (initial << (n - 2).min(20)).min(max) }
}

/// `getPhase` from the API's container statuses.
fn get_phase(p: &Pod, policy: &str, terminal: bool) -> &'static str {
    let sidecars = sidecars(p);
    let spec = p.spec.as_ref();
    let regular_init_pending = spec
        .and_then(|s| s.init_containers.as_ref())
        .into_iter()
        .flatten()
        .filter(|c| !sidecars.contains(&c.name.as_str()))
        .any(|c| {
            let st = init_statuses(p).find(|s| s.name == c.name).and_then(|s| s.state.clone());
            st.and_then(|x| x.terminated).is_none_or(|t| t.exit_code != 0)
        });
    let (mut running, mut waiting, mut stopped, mut succeeded, mut unknown) = (0, 0, 0, 0, 0);
    let names: Vec<String> = match spec {
        Some(s) if !s.containers.is_empty() => s.containers.iter().map(|c| c.name.clone()).collect(),
        _ => statuses(p).map(|s| s.name.clone()).collect(),
    };
    let regular_started = statuses(p).any(|s| {
        s.state.as_ref().is_some_and(|x| x.running.is_some() || x.terminated.is_some()) || s.restart_count > 0
    });
    for name in &names {
        let Some(s) = statuses(p).find(|s| &s.name == name) else {
            unknown += 1;
            continue;
        };
        match s.state.as_ref() {
            Some(ContainerState { running: Some(_), .. }) => running += 1,
            Some(ContainerState { terminated: Some(t), .. }) => {
                stopped += 1;
                if t.exit_code == 0 {
                    succeeded += 1;
                }
            }
            Some(ContainerState { waiting: Some(_), .. })
                if s.last_state.as_ref().is_some_and(|l| l.terminated.is_some()) =>
            {
                stopped += 1
            }
            Some(ContainerState { waiting: Some(_), .. }) => waiting += 1,
            _ => unknown += 1,
        }
    }
    if regular_init_pending && !regular_started {
        return "Pending";
    }
    if waiting > 0 {
        return "Pending";
    }
    if running > 0 && unknown == 0 {
        return "Running";
    }
    if running == 0 && stopped > 0 && unknown == 0 {
        if terminal {
            return if stopped == succeeded { "Succeeded" } else { "Failed" };
        }
        return match policy {
            "Always" => "Running",
            _ if stopped == succeeded => "Succeeded",
            "Never" => "Failed",
            _ => "Running",
        };
    }
    "Pending"
}
