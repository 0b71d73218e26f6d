//! A StatefulSet pod's stable identity (stateful_set_utils.go): its name
//! `<set>-<ordinal>`, the ordinal read back from a name, the labels
//! `updateIdentity` sets, and the claim names `updateStorage` gives.

/// `statefulset.kubernetes.io/pod-name`.
pub const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
/// `apps.kubernetes.io/pod-index` (PodIndexLabel, always on from 1.32).
pub const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";
/// `controller-revision-hash`: the full ControllerRevision name.
pub const REVISION_LABEL: &str = "controller-revision-hash";

/// `getPodName`.
pub fn pod_name(set: &str, ordinal: u32) -> String {
    format!("{set}-{ordinal}")
}

/// `getParentNameAndOrdinal`: the regex `(.*)-([0-9]+)$`; `None` when the
/// name does not match (the pod is ignored).
pub fn parent_and_ordinal(name: &str) -> Option<(&str, u32)> {
    let (parent, digits) = name.rsplit_once('-')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((parent, digits.parse().ok()?))
}

/// `getPersistentVolumeClaimName`: `<template>-<set>-<ordinal>`.
pub fn claim_name(template: &str, set: &str, ordinal: u32) -> String {
    format!("{template}-{set}-{ordinal}")
}

/// Where an ordinal stands against `start..start+replicas` (`podInOrdinalRange`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// In range: `replicas[ordinal - start]`.
    Replica(usize),
    /// Out of range: to be deleted (scale-down, or a raised `ordinals.start`).
    Condemned,
}

pub fn slot(ordinal: u32, start: u32, replicas: u32) -> Slot {
    match ordinal.checked_sub(start) {
        Some(i) if i < replicas => Slot::Replica(i as usize),
        _ => Slot::Condemned,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ordinals_round_trip_as_the_regex_reads_them() {
        assert_eq!(pod_name("web", 2), "web-2");
        assert_eq!(parent_and_ordinal("web-2"), Some(("web", 2)));
        assert_eq!(parent_and_ordinal("my-db-10"), Some(("my-db", 10)), "the last dash splits");
        assert_eq!(parent_and_ordinal("web-x"), None);
        assert_eq!(parent_and_ordinal("web"), None);
        assert_eq!(claim_name("www", "web", 0), "www-web-0");
        assert_eq!(slot(3, 0, 3), Slot::Condemned);
        assert_eq!(slot(2, 0, 3), Slot::Replica(2));
        assert_eq!(slot(0, 1, 3), Slot::Condemned, "below a raised start");
        assert_eq!(slot(3, 1, 3), Slot::Replica(2));
    }
}
