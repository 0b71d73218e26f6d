//! What the kubelet's timing draws are about: a pod or one of its
//! containers, by the pod's seed-independent alias (`PodSpec::alias`), so
//! `verify`'s shrinking names the same draw in every run of a seed.

use super::KPod;
use crate::ids::PodId;
use crate::rng::{Label, What};
use std::sync::Arc;

/// `pod/web@rev2#3`, or with a container `pod/web@rev2#3/app`; `pod/?`
/// for a pod the kubelet has forgotten (no draw is made for one).
pub(super) fn about(pods: &[Option<Box<KPod>>], pod: PodId, container: Option<usize>) -> Arc<str> {
    let Some(p) = pods.get(pod.0 as usize).and_then(Option::as_deref) else { return Arc::from("pod/?") };
    match container.and_then(|c| p.spec.containers.get(c)) {
        Some(c) => Arc::from(format!("{}/{}", p.spec.alias, c.name)),
        None => p.spec.alias.clone(),
    }
}

/// The label of a draw of `what` about `pod` (and `container`).
pub(super) fn label(pods: &[Option<Box<KPod>>], what: What, pod: PodId, container: Option<usize>) -> Label {
    Label::new(what, about(pods, pod, container))
}
