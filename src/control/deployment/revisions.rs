//! The annotations the Deployment controller keeps on its ReplicaSets and on
//! itself (deployment/util/deployment_util.go): revision numbers, the
//! revision history of a rolled-back ReplicaSet, the Deployment's annotations
//! copied to its new ReplicaSet, and the desired/max replicas used by
//! proportional scaling.

use super::fenceposts::max_surge;
use crate::spec::Strategy;
use std::collections::BTreeMap;

pub type Annotations = BTreeMap<String, String>;

pub const REVISION: &str = "deployment.kubernetes.io/revision";
pub const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
pub const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
pub const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
pub const LAST_APPLIED_CONFIG: &str = "kubectl.kubernetes.io/last-applied-configuration";
pub const DEPRECATED_ROLLBACK_TO: &str = "deprecated.deployment.rollback.to";
/// `maxRevHistoryLengthInChars`: the cap on the revision-history annotation.
pub const MAX_REV_HISTORY_LENGTH_IN_CHARS: usize = 2000;

/// deploymentutil.Revision: 0 when absent, None when not an int64.
pub fn revision(annotations: &Annotations) -> Option<i64> {
    match annotations.get(REVISION) {
        None => Some(0),
        Some(v) => v.parse().ok(),
    }
}

/// deploymentutil.MaxRevision: the highest parseable revision (unparseable ones are skipped), at least 0.
pub fn max_revision<'a>(rss: impl IntoIterator<Item = &'a Annotations>) -> i64 {
    rss.into_iter().filter_map(revision).fold(0, i64::max)
}

/// The revision a new (or newly current) ReplicaSet gets in
/// `getNewReplicaSet`: `MaxRevision(oldRSs) + 1`.
pub fn new_revision<'a>(old_rss: impl IntoIterator<Item = &'a Annotations>) -> i64 {
    max_revision(old_rss) + 1
}

/// skipCopyAnnotation (annotationsToSkip)
pub fn skip_copy_annotation(key: &str) -> bool {
    matches!(
        key,
        LAST_APPLIED_CONFIG | REVISION | REVISION_HISTORY | DESIRED_REPLICAS | MAX_REPLICAS | DEPRECATED_ROLLBACK_TO
    )
}

/// copyDeploymentAnnotationsToReplicaSet: adds or overwrites (never removes) every annotation
/// not on the skip list. Returns whether anything changed.
pub fn copy_deployment_annotations(deployment: &Annotations, rs: &mut Annotations) -> bool {
    let mut changed = false;
    for (k, v) in deployment {
        if skip_copy_annotation(k) || rs.get(k) == Some(v) {
            continue;
        }
        rs.insert(k.clone(), v.clone());
        changed = true;
    }
    changed
}

/// SetNewReplicaSetAnnotations: copy the Deployment's annotations, raise the revision to
/// `new_revision` if lower (appending the old one to the history when it existed: a rollback),
/// and, for a ReplicaSet about to be created, set desired/max replicas. Returns whether anything
/// changed.
pub fn set_new_replica_set_annotations(
    deployment: &Annotations,
    replicas: u32,
    strategy: Strategy,
    rs: &mut Annotations,
    new_revision: &str,
    exists: bool,
) -> bool {
    let mut changed = copy_deployment_annotations(deployment, rs);
    let old_revision = rs.get(REVISION).cloned();
    let old_int = match old_revision.as_deref().unwrap_or("").parse::<i64>() {
        Ok(n) => n,
        Err(_) if old_revision.as_deref().unwrap_or("").is_empty() => 0,
        Err(_) => return false,
    };
    let Ok(new_int) = new_revision.parse::<i64>() else { return false };
    if old_int < new_int {
        rs.insert(REVISION.into(), new_revision.into());
        changed = true;
        if let Some(old) = old_revision {
            append_revision_history(rs, &old, MAX_REV_HISTORY_LENGTH_IN_CHARS);
        }
    }
    if !exists && set_replicas_annotations(rs, replicas, replicas + max_surge(strategy, replicas)) {
        changed = true;
    }
    changed
}

/// The revision-history part of `SetNewReplicaSetAnnotations`: append
/// `old_revision`, dropping the oldest entries while the result would be
/// longer than `limit` characters (and appending nothing if even that is not
/// enough).
pub fn append_revision_history(rs: &mut Annotations, old_revision: &str, limit: usize) {
    let history = rs.get(REVISION_HISTORY).cloned().unwrap_or_default();
    let old: Vec<&str> = history.split(',').collect();
    if old[0].is_empty() {
        rs.insert(REVISION_HISTORY.into(), old_revision.into());
        return;
    }
    let mut total = history.len() as i64 + old_revision.len() as i64 + 1;
    let mut start = 0;
    while total > limit as i64 && start < old.len() {
        total -= old[start].len() as i64 + 1;
        start += 1;
    }
    if total <= limit as i64 {
        let mut kept: Vec<&str> = old[start..].to_vec();
        kept.push(old_revision);
        rs.insert(REVISION_HISTORY.into(), kept.join(","));
    }
}

/// SetReplicasAnnotations: desired-replicas and max-replicas as decimal strings. Returns whether
/// either changed.
pub fn set_replicas_annotations(rs: &mut Annotations, desired: u32, max: u32) -> bool {
    let mut updated = false;
    for (key, value) in [(DESIRED_REPLICAS, desired), (MAX_REPLICAS, max)] {
        let value = value.to_string();
        if rs.get(key) != Some(&value) {
            rs.insert(key.into(), value);
            updated = true;
        }
    }
    updated
}

/// ReplicasAnnotationsNeedUpdate
pub fn replicas_annotations_need_update(rs: &Annotations, desired: u32, max: u32) -> bool {
    rs.get(DESIRED_REPLICAS) != Some(&desired.to_string()) || rs.get(MAX_REPLICAS) != Some(&max.to_string())
}

/// SetDeploymentRevision: the Deployment's own revision annotation. Returns whether it changed.
pub fn set_deployment_revision(deployment: &mut Annotations, revision: &str) -> bool {
    if deployment.get(REVISION).map(String::as_str) == Some(revision) {
        return false;
    }
    deployment.insert(REVISION.into(), revision.into());
    true
}

/// getIntFromAnnotation: the annotation as an int32, None if absent or not one.
pub fn int_annotation(annotations: &Annotations, key: &str) -> Option<i32> {
    annotations.get(key)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::IntOrPercent::Percent;

    fn ann(pairs: &[(&str, &str)]) -> Annotations {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn revisions() {
        assert_eq!(revision(&ann(&[])), Some(0));
        assert_eq!(revision(&ann(&[(REVISION, "7")])), Some(7));
        assert_eq!(revision(&ann(&[(REVISION, "x")])), None);
        // Max over 2, 5, an unparseable one (skipped) and a missing one (0): 5; new = 6.
        let rss = [ann(&[(REVISION, "2")]), ann(&[(REVISION, "5")]), ann(&[(REVISION, "oops")]), ann(&[])];
        assert_eq!(max_revision(&rss), 5);
        assert_eq!(new_revision(&rss), 6);
        assert_eq!(new_revision([]), 1);
    }

    #[test]
    fn copies_all_but_the_skip_list() {
        let d = ann(&[
            ("team", "a"),
            (LAST_APPLIED_CONFIG, "{}"),
            (REVISION, "3"),
            (REVISION_HISTORY, "1"),
            (DESIRED_REPLICAS, "3"),
            (MAX_REPLICAS, "4"),
            (DEPRECATED_ROLLBACK_TO, "1"),
        ]);
        let mut rs = ann(&[("old", "kept")]);
        assert!(copy_deployment_annotations(&d, &mut rs));
        assert_eq!(rs, ann(&[("old", "kept"), ("team", "a")]));
        // Already equal: no change.
        assert!(!copy_deployment_annotations(&d, &mut rs));
    }

    #[test]
    fn new_replica_set_annotations() {
        let s = crate::spec::Strategy::RollingUpdate { max_surge: Percent(25), max_unavailable: Percent(25) };
        let d = ann(&[("team", "a"), (REVISION, "1")]);
        // A new ReplicaSet: copied annotations, revision 2, desired 10, max 10 + ceil(2.5) = 13.
        let mut rs = Annotations::new();
        assert!(set_new_replica_set_annotations(&d, 10, s, &mut rs, "2", false));
        assert_eq!(rs, ann(&[("team", "a"), (REVISION, "2"), (DESIRED_REPLICAS, "10"), (MAX_REPLICAS, "13")]));
        // An existing one already at revision 2: nothing changes.
        assert!(!set_new_replica_set_annotations(&d, 10, s, &mut rs, "2", true));
        // A rollback (§3.9): A = 1 becomes 3 and remembers 1.
        let mut a = ann(&[(REVISION, "1")]);
        assert!(set_new_replica_set_annotations(&Annotations::new(), 10, s, &mut a, "3", true));
        assert_eq!(a, ann(&[(REVISION, "3"), (REVISION_HISTORY, "1")]));
        // And again: 3 → 5 appends: "1,3".
        assert!(set_new_replica_set_annotations(&Annotations::new(), 10, s, &mut a, "5", true));
        assert_eq!(a[REVISION_HISTORY], "1,3");
        // A higher revision than the new one is never lowered.
        assert!(!set_new_replica_set_annotations(&Annotations::new(), 10, s, &mut a, "4", true));
        assert_eq!(a[REVISION], "5");
        // An unparseable revision stops everything after the copy.
        let mut bad = ann(&[(REVISION, "x")]);
        assert!(!set_new_replica_set_annotations(&ann(&[("team", "a")]), 10, s, &mut bad, "3", true));
        assert_eq!(bad[REVISION], "x");
    }

    #[test]
    fn history_is_capped() {
        // "1,2,3" + "4" is 7 characters: under a limit of 7 it is appended.
        let mut rs = ann(&[(REVISION_HISTORY, "1,2,3")]);
        append_revision_history(&mut rs, "4", 7);
        assert_eq!(rs[REVISION_HISTORY], "1,2,3,4");
        // Limit 5: 7 > 5 → drop "1" (7 − 2 = 5) → "2,3,4".
        let mut rs = ann(&[(REVISION_HISTORY, "1,2,3")]);
        append_revision_history(&mut rs, "4", 5);
        assert_eq!(rs[REVISION_HISTORY], "2,3,4");
        // Limit 0: dropping everything leaves 5 + 1 + 1 − 6 = 1 > 0 → nothing appended.
        let mut rs = ann(&[(REVISION_HISTORY, "1,2,3")]);
        append_revision_history(&mut rs, "4", 0);
        assert_eq!(rs[REVISION_HISTORY], "1,2,3");
        // The real cap: a 1999-character history of "9"s… made of 1000 entries "9" (1999 chars)
        // plus "8": 1999 + 1 + 1 = 2001 > 2000 → drop one "9" (−2) → 1999 ≤ 2000.
        let long = vec!["9"; 1000].join(",");
        let mut rs = ann(&[(REVISION_HISTORY, &long)]);
        append_revision_history(&mut rs, "8", MAX_REV_HISTORY_LENGTH_IN_CHARS);
        let h = &rs[REVISION_HISTORY];
        assert_eq!(h.len(), 1999);
        assert!(h.ends_with(",9,8"));
    }

    #[test]
    fn replicas_annotations_and_deployment_revision() {
        let mut rs = Annotations::new();
        assert!(replicas_annotations_need_update(&rs, 3, 4));
        assert!(set_replicas_annotations(&mut rs, 3, 4));
        assert!(!replicas_annotations_need_update(&rs, 3, 4));
        assert!(!set_replicas_annotations(&mut rs, 3, 4));
        assert!(replicas_annotations_need_update(&rs, 3, 5));
        assert_eq!(int_annotation(&rs, DESIRED_REPLICAS), Some(3));
        assert_eq!(int_annotation(&ann(&[(MAX_REPLICAS, "x")]), MAX_REPLICAS), None);
        assert_eq!(int_annotation(&rs, "missing"), None);
        let mut d = Annotations::new();
        assert!(set_deployment_revision(&mut d, "2"));
        assert!(!set_deployment_revision(&mut d, "2"));
    }
}
