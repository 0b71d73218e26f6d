//! The restart rules on Pod objects: the CrashLoopBackOff gap, the delay a
//! CrashLoopBackOff message announces, and restartCount steps between
//! snapshots.

use super::pod::{PodState, init_statuses, secs, sidecars, statuses};
use crate::cluster::Cluster;
use crate::observe::Origin;
use k8s_openapi::api::core::v1::{ContainerState, Pod};

impl PodState {
    /// restart-gap-backoff: for a container that can only exit by itself.
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
                // The same instance in both (no older one left, e.g. a deleted
                // pod's init container after pruning): no restart to judge.
                Some(ContainerState { terminated: Some(t), .. }) if t.container_id == last.container_id => None,
                Some(ContainerState { terminated: Some(t), .. }) => t.started_at.as_ref(),
                _ => None,
            };
            let Some(start) = start else { continue };
            if probe_kills(&s.name) {
                skip = Some(
                    "the container has a liveness or startup probe: a probe kill restarts without waiting while the backoff entry lags (SyncPod kills and restarts from a status snapshot taken before the kill)",
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
