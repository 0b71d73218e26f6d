//! The restart rules on Pod objects: the CrashLoopBackOff gap (within a
//! snapshot or across two), the delay a CrashLoopBackOff message announces,
//! and restartCount steps between snapshots.

use super::pod::{PodState, init_statuses, secs, sidecars, statuses};
use crate::cluster::Cluster;
use crate::observe::{Origin, last_state_instance};
use k8s_openapi::api::core::v1::{ContainerState, ContainerStatus, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use std::collections::{BTreeMap, BTreeSet};

/// What the snapshots of a pod showed of one container's recent instances:
/// a restart's gap is judged once both ends are known, from one snapshot or
/// from two (the exit in one, the next start in a later one).
#[derive(Default)]
pub(super) struct Lives {
    /// Instance number → its start and exit (seconds), each with where it was read.
    seen: BTreeMap<i32, Life>,
    /// Restarts already judged (or found not to be judgeable).
    judged: BTreeSet<i32>,
}

#[derive(Default)]
struct Life {
    start: Option<(i64, Origin)>,
    finish: Option<(i64, Origin)>,
}

/// Restart `n`: the previous instance's start and exit, and the new start
/// (seconds, with where each was read).
struct Restart {
    n: i32,
    prev_start: Option<i64>,
    exit: (i64, Origin),
    start: (i64, Origin),
}

/// How many instances back a container is remembered.
const KEEP: usize = 3;

/// Seconds allowed between a start's `Next` and the container's start
/// (creation, an image present or quickly pulled), and the whole-second
/// timestamps.
const NEXT_TO_START: i64 = 10;

impl Lives {
    fn life(&mut self, n: i32) -> &mut Life {
        self.seen.entry(n).or_default()
    }

    /// What one container status shows: its own instance (restartCount)
    /// and the one in `lastState`.
    fn read(&mut self, s: &ContainerStatus, o: &Origin) {
        let at = |t: Option<&Time>| t.map(|t| (secs(t), o.clone()));
        let n = s.restart_count;
        let last = s.last_state.as_ref().and_then(|l| l.terminated.as_ref());
        match s.state.as_ref() {
            Some(ContainerState { running: Some(r), .. }) => {
                let start = at(r.started_at.as_ref());
                self.life(n).start = self.life(n).start.take().or(start);
            }
            // Not when lastState is the very same container (nothing older left).
            Some(ContainerState { terminated: Some(t), .. })
                if t.container_id.is_none() || t.container_id != last.and_then(|l| l.container_id.clone()) =>
            {
                let life = self.life(n);
                life.start = life.start.take().or(at(t.started_at.as_ref()));
                life.finish = life.finish.take().or(at(t.finished_at.as_ref()));
            }
            _ => {}
        }
        if let (Some(t), Some(k)) = (last, last_state_instance(s)) {
            let life = self.life(k);
            life.start = life.start.take().or(at(t.started_at.as_ref()));
            life.finish = life.finish.take().or(at(t.finished_at.as_ref()));
        }
        while self.seen.len() > KEEP {
            self.seen.pop_first();
        }
        let oldest = self.seen.keys().next().copied().unwrap_or(0);
        self.judged.retain(|&k| k > oldest);
    }

    /// Restarts whose previous exit and own start are both known, not judged yet.
    fn ready(&mut self) -> Vec<Restart> {
        let mut out = Vec::new();
        for (&n, life) in self.seen.range(1..) {
            let Some(prev) = self.seen.get(&(n - 1)) else { continue };
            if let (Some(exit), Some(start)) = (&prev.finish, &life.start)
                && !self.judged.contains(&n)
            {
                let prev_start = prev.start.as_ref().map(|s| s.0);
                out.push(Restart { n, prev_start, exit: exit.clone(), start: start.clone() });
            }
        }
        self.judged.extend(out.iter().map(|x| x.n));
        out
    }
}

impl PodState {
    /// restart-gap-backoff: for a container that can only exit by itself,
    /// each restart judged once, when a snapshot (or two) shows both the
    /// previous exit and the new start.
    pub(super) fn backoff(&mut self, p: &Pod, o: &Origin, cluster: &Cluster) {
        if spec_updated(p) {
            return self.tally("restart-gap-backoff").skip(
                "the pod's spec was updated (metadata.generation): a new image restarts its container at once, with a fresh backoff (GetStableKey)",
            );
        }
        let probe_kills = |name: &str| {
            p.spec
                .as_ref()
                .and_then(|s| s.containers.iter().chain(s.init_containers.iter().flatten()).find(|c| c.name == name))
                .is_some_and(|c| c.liveness_probe.is_some() || c.startup_probe.is_some())
        };
        let mut skip = None;
        // Sidecars follow the same schedule, whatever the pod's restartPolicy.
        let sidecars = sidecars(p);
        for s in statuses(p).chain(init_statuses(p).filter(|s| sidecars.contains(&s.name.as_str()))) {
            let lives = self.lives.entry(s.name.clone()).or_default();
            lives.read(s, o);
            let restarts = lives.ready();
            if restarts.is_empty() {
                continue;
            }
            if probe_kills(&s.name) {
                skip = Some(
                    "the container has a liveness or startup probe: a probe kill restarts without waiting while the backoff entry lags (SyncPod kills and restarts from a status snapshot taken before the kill)",
                );
                continue;
            }
            for Restart { n, prev_start, exit: (finished, fo), start: (start, so) } in restarts {
                // The entry's last update is the `Next` before the previous
                // start (up to `NEXT_TO_START` before it): an exit 600 s
                // later finds it expired (`HasExpiredFunc`), and housekeeping
                // collects it 2 × max later (`backOff.GC`).
                let collected = 2 * cluster.backoff_max.as_millis() as i64 / 1000;
                if prev_start
                    .is_some_and(|b| finished - b >= 600 - NEXT_TO_START || start - b >= collected - NEXT_TO_START)
                {
                    skip = Some(
                        "the previous instance started long enough before this restart that the backoff entry may have expired (600 s) or been collected by housekeeping (2 × the maximum back-off)",
                    );
                    continue;
                }
                let need = required_wait(n.max(0) as u32, cluster);
                // The most the gap can be, given whole-second timestamps.
                let t = self.tally("restart-gap-backoff");
                if (start - finished) * 1000 + 999 < need * 1000 {
                    let records: Vec<&Origin> = if fo == so { vec![&so] } else { vec![&fo, &so] };
                    t.violate(
                        &records,
                        format!("{}: at least {need} s before restart {n}", s.name),
                        format!("{}: restart {n} came {} s after the previous exit", s.name, start - finished),
                    );
                } else {
                    t.hold();
                }
            }
        }
        let t = self.tally("restart-gap-backoff");
        t.skip(skip.unwrap_or("no container restarted after a recorded termination"));
    }

    /// crashloop-message-delay.
    pub(super) fn message_delay(&mut self, p: &Pod, o: &Origin, cluster: &Cluster) {
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
    pub(super) fn steps(&mut self, p: &Pod, o: &Origin) {
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
}

/// The API server bumps `metadata.generation` on a spec update and when a
/// graceful deletion begins (`updatePodGeneration`, `BeforeDelete`): a higher
/// one means the spec changed.
fn spec_updated(p: &Pod) -> bool {
    let deleted = i64::from(p.metadata.deletion_timestamp.is_some());
    p.metadata.generation.is_some_and(|g| g > 1 + deleted)
}

/// The CrashLoopBackOff wait before restart `n` of a container that exits by
/// itself: restart 1 is immediate (#133472), restart n ≥ 2 waits
/// initial · 2^(n−2), capped at max.
fn required_wait(n: u32, cluster: &Cluster) -> i64 {
    let initial = cluster.backoff_initial.as_millis() as i64 / 1000;
    let max = cluster.backoff_max.as_millis() as i64 / 1000;
    if n < 2 { 0 } else { (initial << (n - 2).min(20)).min(max) }
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

#[cfg(test)]
mod tests {
    use crate::cluster::Cluster;
    use crate::error::SourceFile;
    use crate::invariants::{Checker, Verdict};
    use std::sync::Arc;

    /// Pod `loop` (exit 1, restartPolicy Always) as `kubectl get pod -o json`
    /// prints it, with container `app`'s restartCount, state and lastState.
    fn pod(restarts: u32, state: &str, last: &str) -> String {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"loop","uid":"u1"}},"spec":{{"containers":[{{"name":"app","image":"busybox"}}]}},"status":{{"phase":"Running","containerStatuses":[{{"name":"app","image":"busybox","imageID":"","ready":false,"restartCount":{restarts},"state":{state},"lastState":{{"terminated":{last}}}}}]}}}}"#
        )
    }

    fn exited(id: u32, started: &str, finished: &str) -> String {
        format!(
            r#"{{"exitCode":1,"reason":"Error","containerID":"c://{id}","startedAt":"2026-01-01T00:{started}Z","finishedAt":"2026-01-01T00:{finished}Z"}}"#
        )
    }

    fn verdict(snapshots: &[String]) -> Verdict {
        verdict_in(snapshots, Cluster::default())
    }

    fn verdict_in(snapshots: &[String], cluster: Cluster) -> Verdict {
        let mut c = Checker::new(cluster);
        for (i, text) in snapshots.iter().enumerate() {
            let file = Arc::new(SourceFile { name: format!("pod-{i}.json"), text: text.clone() });
            crate::observe::read(&file, &mut |r| c.observe(&r));
        }
        c.report().verdict("loop", "restart-gap-backoff").cloned().unwrap()
    }

    /// Two dumps: the first waits in CrashLoopBackOff after instance 3
    /// exited at 00:01:00 (its lastState is instance 3, restartCount 3); the
    /// second runs instance 4. Restart 4 must wait 10 s · 2^(4−2) = 40 s
    /// (doBackOff), which only the two dumps together show.
    #[test]
    fn a_restart_is_judged_across_two_snapshots() {
        let waiting =
            r#"{"waiting":{"reason":"CrashLoopBackOff","message":"back-off 40s restarting failed container"}}"#;
        let first = pod(3, waiting, &exited(3, "00:59", "01:00"));
        let running = |at: &str| format!(r#"{{"running":{{"startedAt":"2026-01-01T00:{at}Z"}}}}"#);
        // Its lastState here is instance 3 again: nothing new on its own.
        let late = pod(4, &running("01:41"), &exited(3, "00:59", "01:00"));
        assert_eq!(verdict(&[first.clone(), late]), Verdict::Holds { checked: 1 });
        let early = pod(4, &running("01:30"), &exited(3, "00:59", "01:00"));
        let Verdict::Violated { violations } = verdict(&[first.clone(), early]) else { panic!() };
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].expected, "app: at least 40 s before restart 4");
        assert_eq!(violations[0].observed, "app: restart 4 came 30 s after the previous exit");
        // The exit was read in one file, the start in the other.
        assert_eq!(violations[0].records, ["pod-0.json:1", "pod-1.json:1"]);
        // Alone, neither dump shows both ends of restart 4.
        let Verdict::NotApplicable { .. } = verdict(&[first]) else { panic!() };
    }

    /// Restart 7 needs 300 s, unless the back-off entry, last updated just
    /// before instance 6 started, was collected by housekeeping 600 s after
    /// that (`backOff.GC`): a restart 232 s after the exit but 632 s after
    /// instance 6's start is not judged; one 180 s after the exit and
    /// 240 s after the start breaks the rule.
    #[test]
    fn a_restart_ten_minutes_after_the_previous_start_is_not_judged() {
        let running = |at: &str| format!(r#"{{"running":{{"startedAt":"2026-01-01T00:{at}Z"}}}}"#);
        let collected = pod(7, &running("16:19"), &exited(6, "05:47", "12:27"));
        let Verdict::NotApplicable { why } = verdict(&[collected]) else { panic!() };
        assert!(why.contains("collected by housekeeping"), "{why}");
        // With a 60 s maximum (`maxContainerRestartPeriod`) the entry goes
        // 120 s after its update: a restart 30 s after an exit 125 s after
        // the start is not judged either.
        let mut short = Cluster::default();
        short.backoff_max = crate::time::SimDuration::from_secs(60);
        let quick = pod(7, &running("02:35"), &exited(6, "00:00", "02:05"));
        let Verdict::NotApplicable { .. } = verdict_in(&[quick], short) else { panic!() };
        let early = pod(7, &running("10:00"), &exited(6, "06:00", "07:00"));
        let Verdict::Violated { violations } = verdict(&[early]) else { panic!() };
        assert_eq!(violations[0].expected, "app: at least 300 s before restart 7");
    }

    /// The restart seen twice (a watch shows it in every later version) is judged once.
    #[test]
    fn each_restart_is_judged_once() {
        let running = r#"{"running":{"startedAt":"2026-01-01T00:01:41Z"}}"#;
        let one = pod(4, running, &exited(3, "00:59", "01:00"));
        assert_eq!(verdict(&[one.clone(), one.clone(), one]), Verdict::Holds { checked: 1 });
    }
}
