//! `kubectl rollout status deployment/NAME --timeout=T`, run right after a
//! rollout: what it prints over the Deployment's versions and when it stops
//! (cmd/rollout `RolloutStatusOptions.Run`: `UntilWithSync` lists the object,
//! then evaluates every watch event; the timeout is the client's own window,
//! unrelated to `progressDeadlineSeconds`).

use super::rollout_status::{RolloutView, Verdict, rollout_status};
use crate::api::deployment::ApiDeployment;
use crate::control::deployment::conditions::{ConditionType, get_condition};
use crate::control::deployment::revisions;
use crate::time::{SimDuration, SimTime};
use crate::trace::Trace;
use crate::trace::record::Record;

/// The lines kubectl prints, with their times, ending with the verdict that
/// stops it; `timeout` `None` waits until the trace ends.
pub fn watch(trace: &Trace, name: &str, start: SimTime, timeout: Option<SimDuration>) -> Vec<(SimTime, Verdict)> {
    let versions = trace.entries.iter().filter_map(|e| match &e.record {
        Record::Deployment { deployment, .. } if deployment.spec.name == name => {
            Some((e.t, deployment.meta.removed, verdict(deployment)))
        }
        _ => None,
    });
    watch_versions(versions, start, timeout)
}

/// `UntilWithSync` over an object's versions (time, removed, the viewer's
/// verdict): the versions up to `start` listed and judged at `start`, each
/// later one as its watch event comes, until a verdict stops it or the timeout.
pub fn watch_versions(
    versions: impl Iterator<Item = (SimTime, bool, Verdict)>,
    start: SimTime,
    timeout: Option<SimDuration>,
) -> Vec<(SimTime, Verdict)> {
    // `--timeout=0` waits for ever.
    let deadline = timeout.filter(|t| *t > SimDuration::ZERO).map(|t| start + t);
    let mut out = Vec::new();
    let mut listed: Option<Verdict> = None;
    for (t, removed, v) in versions {
        if t <= start {
            listed = Some(v);
            continue;
        }
        // The LIST at the start is evaluated first.
        if let Some(first) = listed.take() {
            out.push((start, first));
            if out.last().is_some_and(|(_, v)| v.exit_code().is_some()) {
                return out;
            }
        }
        if deadline.is_some_and(|end| t >= end) {
            break;
        }
        if removed {
            out.push((t, Verdict::deleted()));
            return out;
        }
        out.push((t, v));
        if out.last().is_some_and(|(_, v)| v.exit_code().is_some()) {
            return out;
        }
    }
    if let Some(first) = listed.take() {
        out.push((start, first));
        if out.last().is_some_and(|(_, v)| v.exit_code().is_some()) {
            return out;
        }
    }
    if let Some(end) = deadline {
        out.push((end, Verdict::timed_out()));
    }
    out
}

fn verdict(d: &ApiDeployment) -> Verdict {
    let s = &d.status;
    let progressing = get_condition(&s.conditions, ConditionType::Progressing);
    let view = RolloutView {
        name: &d.spec.name,
        generation: d.meta.generation.max(0) as u64,
        observed_generation: s.observed_generation,
        spec_replicas: d.spec.replicas,
        replicas: s.replicas,
        updated_replicas: s.updated_replicas,
        available_replicas: s.available_replicas,
        progressing_reason: progressing.map(|c| c.reason.as_str()),
        revision: revisions::revision(&d.annotations).unwrap_or(0).max(0) as u64,
    };
    rollout_status(&view, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{Inputs, prepare, simulate};

    fn lines(timeout: u64, start: u64) -> Vec<(u64, String)> {
        let inputs = Inputs { scenario: Some("models/scenarios/c28-bad-rollout.yaml".into()), ..Default::default() };
        let p = prepare(&inputs).unwrap();
        let trace = simulate(&p.setup, p.seed, SimTime::ZERO + p.until);
        let start = SimTime::ZERO + SimDuration::from_secs(start);
        watch(&trace, "c28-probe", start, Some(SimDuration::from_secs(timeout)))
            .into_iter()
            .map(|(t, v)| {
                let text = match v {
                    Verdict::Waiting(l) | Verdict::Done(l) | Verdict::Failed(l) => l,
                };
                (t.as_millis(), text.trim_end().to_string())
            })
            .collect()
    }

    /// The bad readiness path: the new pod is never available, so kubectl
    /// waits on the old replica until its own 60 s window ends — before the
    /// Deployment's 90 s progress deadline.
    #[test]
    fn a_stuck_rollout_times_out_on_the_clients_window() {
        let out = lines(60, 30);
        let texts: Vec<&str> = out.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(texts.first(), Some(&"Waiting for deployment spec update to be observed..."));
        assert!(texts.contains(
            &"Waiting for deployment \"c28-probe\" rollout to finish: 1 old replicas are pending termination..."
        ));
        assert_eq!(out.last(), Some(&(90_000, "error: timed out waiting for the condition".to_string())));
    }

    /// With a window longer than the deadline, kubectl stops on the
    /// Deployment's ProgressDeadlineExceeded (lastUpdateTime 30 s + 90 s + the 1 s requeue).
    #[test]
    fn a_long_window_sees_the_progress_deadline() {
        let out = lines(120, 30);
        let (t, last) = out.last().unwrap();
        assert_eq!(last, "error: deployment \"c28-probe\" exceeded its progress deadline");
        assert!((121_000..121_100).contains(t), "{t}");
    }
}
