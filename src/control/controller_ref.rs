//! Controller references (pkg/controller/controller_ref_manager.go): which
//! objects a workload controller claims. A controller owns what carries its
//! `ownerReferences[controller=true]`; an object with no controller that its
//! selector matches is an orphan it adopts with a PATCH; an object it owns that
//! its selector no longer matches is released. The Deployment controller
//! claims ReplicaSets (`ClaimReplicaSets`), the ReplicaSet controller pods
//! (`ClaimPods`).

use crate::api::ownership::Patched;
use crate::spec::OwnerRef;
use std::collections::BTreeMap;

/// What `ClaimObject` does with one object.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Another controller's, or an orphan it does not take: left alone.
    Ignore,
    /// Its own, and the selector matches: claimed with no call.
    Owned,
    /// An orphan the selector matches: PATCH in a controller reference
    /// (`AdoptPod`, `AdoptReplicaSet`); claimed if the PATCH succeeds.
    Adopt,
    /// Its own, but the selector no longer matches: PATCH the reference out
    /// (`ReleasePod`, `ReleaseReplicaSet`); not claimed.
    Release,
}

/// The API server's answer to a claim call: the uncached GET of the
/// controller before its first adoption (`RecheckDeletionTimestamp`), or an
/// ownerReferences PATCH.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClaimAnswer {
    /// The GET found the controller as it was read.
    Found,
    /// The GET found it gone, replaced (another UID) or being deleted:
    /// every adoption of the sync fails.
    Gone,
    Patched(Patched),
}

/// What the controller knows of one object when it claims it.
#[derive(Copy, Clone, Debug)]
pub struct Candidate<'a> {
    /// Its controller reference.
    pub owner: Option<&'a OwnerRef>,
    /// The controller's selector matches its labels.
    pub matches: bool,
    /// It has a `deletionTimestamp`.
    pub deleting: bool,
    pub same_namespace: bool,
}

/// `BaseControllerRefManager.ClaimObject` for the controller with UID
/// `controller`; a controller being deleted neither releases nor adopts.
pub fn claim(controller: &str, controller_deleting: bool, c: Candidate<'_>) -> Claim {
    match c.owner {
        Some(o) if &*o.uid != controller => Claim::Ignore,
        // Claimed before the object's deletion is looked at: it costs no call.
        Some(_) if c.matches => Claim::Owned,
        Some(_) if controller_deleting => Claim::Ignore,
        Some(_) => Claim::Release,
        None if controller_deleting || !c.matches || c.deleting || !c.same_namespace => Claim::Ignore,
        None => Claim::Adopt,
    }
}

/// Whether a `matchLabels` selector selects an object with `labels`
/// (`LabelSelectorAsSelector(…).Matches`): every pair is among the labels.
pub fn selects(selector: &BTreeMap<String, String>, labels: &BTreeMap<String, String>) -> bool {
    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

/// The controllers an orphan's change is queued to (`getPodReplicaSets`,
/// `GetDeploymentsForReplicaSet`): an object with no labels concerns none,
/// and an empty selector matches nothing here, not everything.
pub fn wants_orphan(selector: &BTreeMap<String, String>, labels: &BTreeMap<String, String>) -> bool {
    !labels.is_empty() && !selector.is_empty() && selects(selector, labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(uid: &str) -> OwnerRef {
        OwnerRef { kind: "ReplicaSet", name: "web".into(), uid: uid.into() }
    }

    fn candidate(owner: Option<&OwnerRef>, matches: bool) -> Candidate<'_> {
        Candidate { owner, matches, deleting: false, same_namespace: true }
    }

    #[test]
    fn claim_object_follows_the_controller_reference_then_the_selector() {
        let (mine, theirs) = (owner("me"), owner("other"));
        // Someone else's: ignored whether or not the selector matches.
        assert_eq!(claim("me", false, candidate(Some(&theirs), true)), Claim::Ignore);
        assert_eq!(claim("me", false, candidate(Some(&theirs), false)), Claim::Ignore);
        // Mine: kept while the selector matches, even while being deleted;
        // released when it no longer matches.
        assert_eq!(claim("me", false, Candidate { deleting: true, ..candidate(Some(&mine), true) }), Claim::Owned);
        assert_eq!(claim("me", false, candidate(Some(&mine), false)), Claim::Release);
        // An orphan: adopted only if it matches, is not being deleted and is
        // in the controller's namespace.
        assert_eq!(claim("me", false, candidate(None, true)), Claim::Adopt);
        assert_eq!(claim("me", false, candidate(None, false)), Claim::Ignore);
        assert_eq!(claim("me", false, Candidate { deleting: true, ..candidate(None, true) }), Claim::Ignore);
        assert_eq!(claim("me", false, Candidate { same_namespace: false, ..candidate(None, true) }), Claim::Ignore);
    }

    #[test]
    fn selectors_match_labels_and_orphans_need_labels() {
        let labels = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        let selector = labels(&[("app", "web")]);
        assert!(selects(&selector, &labels(&[("app", "web"), ("pod-template-hash", "5d9f")])));
        assert!(!selects(&selector, &labels(&[("app", "api")])));
        assert!(!selects(&selector, &labels(&[])));
        // The informer handlers queue no controller for a pod without labels,
        // nor a controller with an empty selector.
        assert!(!wants_orphan(&labels(&[]), &labels(&[("app", "web")])));
        assert!(!wants_orphan(&selector, &labels(&[])));
        assert!(wants_orphan(&selector, &labels(&[("app", "web")])));
    }
}
