//! `kubectl rollout status statefulset/NAME --timeout=T`, run right after
//! an apply: the line `StatefulSetStatusViewer.Status` gives for every
//! version of the set kubectl sees (it prints each one, repeats
//! included), until one ends it.

use super::rollout_status::{Verdict, failed};
use crate::api::statefulset::ApiStatefulSet;
use crate::spec::statefulset::UpdateStrategy;
use crate::time::{SimDuration, SimTime};
use crate::trace::Trace;
use crate::trace::record::Record;

/// `StatefulSetStatusViewer.Status` (polymorphichelpers/rollout_status.go);
/// `--revision` is ignored for StatefulSets.
pub fn status(s: &ApiStatefulSet) -> Verdict {
    let st = &s.status;
    let replicas = s.spec.replicas;
    let UpdateStrategy::RollingUpdate { rolling } = s.spec.update_strategy else {
        return failed("rollout status is only available for RollingUpdate strategy type");
    };
    if st.observed_generation == 0 || s.meta.generation > st.observed_generation {
        return Verdict::Waiting("Waiting for statefulset spec update to be observed...\n".into());
    }
    if st.ready_replicas < replicas {
        return Verdict::Waiting(format!("Waiting for {} pods to be ready...\n", replicas - st.ready_replicas));
    }
    if let Some(r) = rolling {
        // Go subtracts int32s: a partition above the replicas wants a negative count.
        let wanted = i64::from(replicas) - i64::from(r.partition);
        if i64::from(st.updated_replicas) < wanted {
            return Verdict::Waiting(format!(
                "Waiting for partitioned roll out to finish: {} out of {wanted} new pods have been updated...\n",
                st.updated_replicas
            ));
        }
        return Verdict::Done(format!(
            "partitioned roll out complete: {} new pods have been updated...\n",
            st.updated_replicas
        ));
    }
    if st.update_revision != st.current_revision {
        return Verdict::Waiting(format!(
            "waiting for statefulset rolling update to complete {} pods at revision {}...\n",
            st.updated_replicas, st.update_revision
        ));
    }
    Verdict::Done(format!(
        "statefulset rolling update complete {} pods at revision {}...\n",
        st.current_replicas, st.current_revision
    ))
}

/// The lines kubectl prints from `start`, with their times, ending with the
/// verdict that stops it (or the timeout).
pub fn watch(trace: &Trace, name: &str, start: SimTime, timeout: Option<SimDuration>) -> Vec<(SimTime, Verdict)> {
    let versions = trace.entries.iter().filter_map(|e| match &e.record {
        Record::StatefulSet { sts, .. } if sts.spec.name == name => Some((e.t, sts)),
        _ => None,
    });
    let deadline = timeout.filter(|t| *t > SimDuration::ZERO).map(|t| start + t);
    let mut out = Vec::new();
    let mut listed: Option<&ApiStatefulSet> = None;
    let ends = |out: &Vec<(SimTime, Verdict)>| out.last().is_some_and(|(_, v)| v.exit_code().is_some());
    for (t, s) in versions {
        if t <= start {
            listed = Some(s);
            continue;
        }
        // The LIST at the start is evaluated first.
        if let Some(first) = listed.take() {
            out.push((start, status(first)));
            if ends(&out) {
                return out;
            }
        }
        if deadline.is_some_and(|end| t >= end) {
            break;
        }
        if s.meta.removed {
            out.push((t, Verdict::deleted()));
            return out;
        }
        out.push((t, status(s)));
        if ends(&out) {
            return out;
        }
    }
    if let Some(first) = listed.take() {
        out.push((start, status(first)));
        if ends(&out) {
            return out;
        }
    }
    if let Some(end) = deadline {
        out.push((end, Verdict::timed_out()));
    }
    out
}
