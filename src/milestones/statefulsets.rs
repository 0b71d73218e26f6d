//! StatefulSet milestones: each ordinal's first creation and first
//! Ready (`sts/web:pod#2:ready`, from the pods it owns: their names are
//! the set's and the ordinal, the same in every seed), the set all Ready
//! (`sts/web:ready`), and each generation rolled out as `kubectl rollout
//! status` reports it (`sts/web@gen2:rollout_complete`).

use super::found::Found;
use crate::api::pod::ApiPod;
use crate::api::statefulset::ApiStatefulSet;
use crate::api::status::{ConditionType, PodPhase};
use crate::control::statefulset::identity::parent_and_ordinal;
use crate::kubectl::rollout_statefulset::status;
use crate::kubectl::rollout_status::Verdict;
use crate::time::SimTime;
use crate::trace::record::WatchKind;

/// The set and ordinal of a pod a StatefulSet owns.
pub fn ordinal_of(pod: &ApiPod) -> Option<(&str, u32)> {
    let owner = pod.spec.owner.as_ref().filter(|o| o.kind == "StatefulSet")?;
    let (parent, ordinal) = parent_and_ordinal(&pod.spec.name)?;
    (parent == &*owner.name).then_some((parent, ordinal))
}

/// `isRunningAndReady`: what the controller waits for before the next ordinal.
pub fn running_and_ready(pod: &ApiPod) -> bool {
    pod.status.phase == PodPhase::Running && pod.status.condition_true(&ConditionType::Ready)
}

pub fn see_pod(t: SimTime, kind: WatchKind, pod: &ApiPod, found: &mut Found) {
    let Some((set, ordinal)) = ordinal_of(pod) else { return };
    let subject = format!("sts/{set}");
    found.first(&subject, format_args!("pod#{ordinal}:created"), t);
    if kind != WatchKind::Deleted && running_and_ready(pod) {
        found.first(&subject, format_args!("pod#{ordinal}:ready"), t);
    }
}

pub fn see(t: SimTime, s: &ApiStatefulSet, found: &mut Found) {
    if s.meta.removed {
        return;
    }
    let subject = format!("sts/{}", s.spec.name);
    let st = &s.status;
    if st.observed_generation >= s.meta.generation && st.ready_replicas == s.spec.replicas {
        found.first(&subject, "ready", t);
    }
    if matches!(status(s), Verdict::Done(_)) {
        found.first(format_args!("{subject}@gen{}", s.meta.generation), "rollout_complete", t);
    }
}
