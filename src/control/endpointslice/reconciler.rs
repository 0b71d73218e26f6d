//! Which EndpointSlices to create, update and delete so that a Service's
//! slices hold exactly its desired endpoints (staging/src/k8s.io/endpointslice
//! reconciler.go `reconcileByAddressType`, `reconcileByPortMapping`,
//! `finalize`). Pure: the caller writes the result through the API.

use crate::api::endpointslice::{Endpoint, SliceContent, SlicePort};
use crate::ids::SliceId;
use crate::time::SimTime;
use foldhash::{HashMap, HashMapExt};
use std::collections::VecDeque;

/// One API call, in the order the controller makes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    Create(SliceContent),
    Update(SliceId, SliceContent),
    Delete(SliceId),
}

/// The endpoints of one port set, in the order the pods were listed.
pub type Desired = Vec<(Vec<SlicePort>, Vec<Endpoint>)>;

/// An endpoint's identity: its addresses, hostname and pod name
/// (`hashEndpoint`) — not the pod's UID. Borrowed: a sync hashes a
/// thousand of them without copying one.
type Key<'a> = (&'a str, Option<&'a str>, &'a str, &'a str);

fn key(e: &Endpoint) -> Key<'_> {
    (&e.address, e.hostname.as_deref(), &e.target.namespace, &e.target.name)
}

/// The first unmatched wanted endpoint with `e`'s identity, now matched.
fn take<'a>(
    first: &mut HashMap<Key<'a>, usize>,
    later: &[Option<usize>],
    remaining: &mut [Option<Endpoint>],
    e: &'a Endpoint,
) -> Option<Endpoint> {
    let slot = first.get_mut(&key(e))?;
    let i = *slot;
    match later[i] {
        Some(next) => *slot = next,
        None => {
            first.remove(&key(e));
        }
    }
    remaining[i].take()
}

/// `EndpointsEqualBeyondHash`: node, conditions and target are unchanged.
fn equal_beyond_hash(a: &Endpoint, b: &Endpoint) -> bool {
    a.node == b.node
        && (a.ready, a.serving, a.terminating) == (b.ready, b.serving, b.terminating)
        && a.target == b.target
}

/// The writes that turn `existing` (in list order) into `desired`, each
/// created or updated slice stamped with `trigger`.
pub fn reconcile(
    existing: &[(SliceId, &SliceContent)],
    desired: Desired,
    max: usize,
    trigger: Option<SimTime>,
) -> Vec<Write> {
    let content = |ports: &[SlicePort], endpoints: Vec<Endpoint>| SliceContent {
        ports: ports.to_vec(),
        endpoints,
        trigger_time: trigger,
    };
    let mut creates: Vec<SliceContent> = Vec::new();
    let mut updates: Vec<(SliceId, SliceContent)> = Vec::new();
    let mut deletes: Vec<SliceId> = Vec::new();
    let desired_sets: Vec<&Vec<SlicePort>> = desired.iter().map(|(p, _)| p).collect();
    for (ports, wanted) in &desired {
        let mut remaining: Vec<Option<Endpoint>> = wanted.iter().cloned().map(Some).collect();
        // Wanted endpoints by identity, in order: a slice of a thousand
        // endpoints would otherwise be matched by a search per endpoint.
        // Per identity its first unmatched index; `later` chains the others.
        let mut first: HashMap<Key, usize> = HashMap::with_capacity(wanted.len());
        let mut later: Vec<Option<usize>> = vec![None; wanted.len()];
        for (i, w) in wanted.iter().enumerate().rev() {
            later[i] = first.insert(key(w), i);
        }
        let mut take = |e| take(&mut first, &later, &mut remaining, e);
        let mut to_update: Vec<(SliceId, Vec<Endpoint>)> = Vec::new();
        let mut unchanged: Vec<(SliceId, &SliceContent)> = Vec::new();
        // 1. Existing slices keep their endpoints in place, refreshed; gone ones leave.
        for &(id, slice) in existing.iter().filter(|(_, s)| s.ports == *ports) {
            let mut kept = Vec::new();
            let mut changed = false;
            for e in &slice.endpoints {
                match take(e) {
                    Some(new) => {
                        changed |= !equal_beyond_hash(e, &new);
                        kept.push(new);
                    }
                    None => changed = true,
                }
            }
            match (kept.is_empty(), changed) {
                (true, _) => deletes.push(id),
                (false, true) => to_update.push((id, kept)),
                (false, false) => unchanged.push((id, slice)),
            }
        }
        let mut left: VecDeque<Endpoint> = remaining.into_iter().flatten().collect();
        // 2. New endpoints fill the slices being updated anyway, fullest first.
        to_update.sort_by_key(|(_, eps)| std::cmp::Reverse(eps.len()));
        for (_, eps) in &mut to_update {
            while eps.len() < max
                && let Some(e) = left.pop_front()
            {
                eps.push(e);
            }
        }
        // 3. The rest: one unchanged slice that takes them all (the one that
        // ends up fullest, `getSliceToFill`), else new slices.
        while !left.is_empty() {
            let fill = (left.len() < max)
                .then(|| unchanged.iter().enumerate().filter(|(_, (_, s))| s.endpoints.len() + left.len() <= max))
                .and_then(|fits| fits.max_by_key(|(i, (_, s))| (s.endpoints.len(), std::cmp::Reverse(*i))))
                .map(|(i, _)| i);
            let (id, mut eps) = match fill {
                Some(i) => {
                    let (id, s) = unchanged.remove(i);
                    (Some(id), s.endpoints.clone())
                }
                None => (None, Vec::new()),
            };
            while eps.len() < max
                && let Some(e) = left.pop_front()
            {
                eps.push(e);
            }
            match id {
                Some(id) => to_update.push((id, eps)),
                None => creates.push(content(ports, eps)),
            }
        }
        updates.extend(to_update.into_iter().map(|(id, eps)| (id, content(ports, eps))));
    }
    // Slices of port sets no longer wanted go.
    for &(id, s) in existing {
        if !desired_sets.contains(&&s.ports) {
            deletes.push(id);
        }
    }
    // No endpoints at all: a placeholder slice stands in, kept if one exists.
    if existing.len() == deletes.len() && creates.is_empty() {
        let placeholder = |s: &SliceContent| s.ports.is_empty() && s.endpoints.is_empty();
        match deletes.as_slice() {
            [only] if existing.iter().any(|(id, s)| id == only && placeholder(s)) => deletes.clear(),
            _ => creates.push(content(&[], Vec::new())),
        }
    }
    // `finalize`: a create reuses the name of a slice about to be deleted.
    while let (Some(_), Some(&id)) = (creates.last(), deletes.first()) {
        let c = creates.pop().unwrap_or_else(|| unreachable!());
        deletes.remove(0);
        updates.push((id, c));
    }
    let creates = creates.into_iter().map(Write::Create);
    let updates = updates.into_iter().map(|(id, c)| Write::Update(id, c));
    creates.chain(updates).chain(deletes.into_iter().map(Write::Delete)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::endpointslice::TargetRef;
    use crate::ids::PodId;
    use std::sync::Arc;

    fn ep(i: u32, ready: bool) -> Endpoint {
        Endpoint {
            address: Arc::from(format!("10.244.0.{i}")),
            ready,
            serving: ready,
            terminating: false,
            hostname: None,
            node: Some(Arc::from("node-1")),
            target: TargetRef {
                pod: PodId(i),
                name: Arc::from(format!("web-{i}")),
                namespace: Arc::from("default"),
                uid: Arc::from(format!("uid-{i}")),
            },
        }
    }

    fn ports() -> Vec<SlicePort> {
        vec![SlicePort { name: String::new(), port: 8080, app_protocol: None }]
    }

    fn slice(eps: Vec<Endpoint>) -> SliceContent {
        SliceContent { ports: ports(), endpoints: eps, trigger_time: None }
    }

    #[test]
    fn no_endpoints_gives_one_placeholder_and_keeps_it() {
        let writes = reconcile(&[], vec![], 100, None);
        let empty = SliceContent { ports: vec![], endpoints: vec![], trigger_time: None };
        assert_eq!(writes, vec![Write::Create(empty.clone())]);
        assert_eq!(reconcile(&[(SliceId(0), &empty)], vec![], 100, None), vec![]);
    }

    #[test]
    fn the_first_endpoint_turns_the_placeholder_into_a_slice_in_place() {
        let empty = SliceContent { ports: vec![], endpoints: vec![], trigger_time: None };
        let writes = reconcile(&[(SliceId(7), &empty)], vec![(ports(), vec![ep(1, false)])], 100, None);
        assert_eq!(writes, vec![Write::Update(SliceId(7), slice(vec![ep(1, false)]))]);
    }

    #[test]
    fn a_condition_change_updates_in_place_and_new_endpoints_are_appended() {
        let old = slice(vec![ep(1, false), ep(2, true)]);
        let desired = vec![(ports(), vec![ep(3, true), ep(2, true), ep(1, true)])];
        let writes = reconcile(&[(SliceId(0), &old)], desired, 100, None);
        assert_eq!(writes, vec![Write::Update(SliceId(0), slice(vec![ep(1, true), ep(2, true), ep(3, true)]))]);
    }

    #[test]
    fn unchanged_slices_are_not_written() {
        let old = slice(vec![ep(1, true)]);
        assert_eq!(reconcile(&[(SliceId(0), &old)], vec![(ports(), vec![ep(1, true)])], 100, None), vec![]);
    }

    #[test]
    fn the_last_endpoint_leaving_makes_the_slice_the_placeholder() {
        let old = slice(vec![ep(1, true)]);
        let writes = reconcile(&[(SliceId(0), &old)], vec![], 100, None);
        let empty = SliceContent { ports: vec![], endpoints: vec![], trigger_time: None };
        assert_eq!(writes, vec![Write::Update(SliceId(0), empty)]);
    }

    #[test]
    fn slices_hold_at_most_max_endpoints() {
        let desired = vec![(ports(), (1..=5).map(|i| ep(i, true)).collect())];
        let writes = reconcile(&[], desired, 2, None);
        let sizes: Vec<usize> = writes
            .iter()
            .map(|w| match w {
                Write::Create(c) => c.endpoints.len(),
                _ => panic!("{w:?}"),
            })
            .collect();
        assert_eq!(sizes, vec![2, 2, 1]);
    }

    #[test]
    fn leftovers_fill_the_unchanged_slice_that_ends_fullest() {
        let a = slice(vec![ep(1, true)]);
        let b = slice(vec![ep(2, true), ep(3, true)]);
        let desired = vec![(ports(), vec![ep(1, true), ep(2, true), ep(3, true), ep(4, true)])];
        let writes = reconcile(&[(SliceId(0), &a), (SliceId(1), &b)], desired, 3, None);
        assert_eq!(writes, vec![Write::Update(SliceId(1), slice(vec![ep(2, true), ep(3, true), ep(4, true)]))]);
    }
}
