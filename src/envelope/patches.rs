//! Spec patches a recording shows (`kubectl patch`, `kubectl set image`): a
//! change of `activeDeadlineSeconds` or of a container's image between two
//! versions of the pod is an input, like a deletion. The envelope simulates
//! the first recorded spec and replays each change when it was seen.

use crate::api::pod_patch::{ImagePatch, PodPatch};
use crate::observe::{Observed, Record, When};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::{Container, PodSpec};

/// Each spec change of `pod` with the time it was seen since the pod's
/// creation; a change whose record carries no time cannot be placed and is left out.
pub fn recorded_patches(records: &[Record], pod: &str) -> Vec<(SimTime, PodPatch)> {
    let versions = records.iter().filter_map(|r| match &r.observed {
        Observed::Pod(p) if p.metadata.name.as_deref() == Some(pod) => {
            let created = p.metadata.creation_timestamp.as_ref()?.0.as_millisecond();
            Some((p.spec.as_ref()?, created, r.seen))
        }
        _ => None,
    });
    let mut out = Vec::new();
    let mut previous: Option<&PodSpec> = None;
    for (spec, created, seen) in versions {
        if let (Some(old), When::At(span)) = (previous, seen)
            && let Some(patch) = difference(old, spec)
        {
            out.push((SimTime::ZERO + SimDuration::from_millis((span.lo - created).max(0) as u64), patch));
        }
        previous = Some(spec);
    }
    out
}

/// The patch that turns `old` into `new`, if the deadline or an image differs.
fn difference(old: &PodSpec, new: &PodSpec) -> Option<PodPatch> {
    let mut patch = PodPatch::default();
    if old.active_deadline_seconds != new.active_deadline_seconds {
        patch.active_deadline_seconds = Some(new.active_deadline_seconds);
    }
    let none: &[Container] = &[];
    let lists = [
        (true, old.init_containers.as_deref().unwrap_or(none), new.init_containers.as_deref().unwrap_or(none)),
        (false, &old.containers[..], &new.containers[..]),
    ];
    for (init, old, new) in lists {
        for c in new {
            let before = old.iter().find(|o| o.name == c.name).and_then(|o| o.image.as_ref());
            if let Some(image) = c.image.as_ref().filter(|i| Some(*i) != before) {
                patch.images.push(ImagePatch { init, container: c.name.clone(), image: image.clone() });
            }
        }
    }
    (patch != PodPatch::default()).then_some(patch)
}
