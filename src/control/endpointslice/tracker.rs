//! What the controller last wrote, so that its own writes do not trigger it
//! again and a sync never runs on a cache older than its writes
//! (staging/src/k8s.io/endpointslice/util/endpointslice_tracker.go).

use crate::api::endpointslice::ApiSlice;
use crate::ids::{ServiceId, SliceId};
use crate::informer::Informer;

use std::collections::BTreeMap;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Expect {
    Generation(i64),
    Deleted,
}

#[derive(Default)]
pub struct Tracker {
    expected: BTreeMap<SliceId, (ServiceId, Expect)>,
}

impl Tracker {
    /// `Update`: the controller wrote this generation.
    pub fn wrote(&mut self, s: &ApiSlice) {
        self.expected.insert(s.id, (s.service, Expect::Generation(s.meta.generation)));
    }

    /// `ExpectDeletion`.
    pub fn deleting(&mut self, s: &ApiSlice) {
        self.expected.insert(s.id, (s.service, Expect::Deleted));
    }

    /// `ShouldSync`: a slice event the controller did not cause (unknown, or
    /// newer than what it wrote) makes it sync the Service.
    pub fn should_sync(&self, s: &ApiSlice) -> bool {
        match self.expected.get(&s.id) {
            None => true,
            Some((_, Expect::Generation(g))) => s.meta.generation > *g,
            Some((_, Expect::Deleted)) => false,
        }
    }

    /// A deletion the controller expected is done.
    pub fn deleted(&mut self, s: &ApiSlice) -> bool {
        let expected = matches!(self.expected.get(&s.id), Some((_, Expect::Deleted)));
        self.expected.remove(&s.id);
        !expected
    }

    /// `StaleSlices`: the cache misses a write of the controller, holds an
    /// older generation, or still holds a slice it deleted.
    pub fn stale(&self, service: ServiceId, cached: &Informer<ApiSlice>) -> bool {
        self.expected.iter().filter(|(_, (svc, _))| *svc == service).any(|(&id, (_, e))| match (e, cached.get(id)) {
            (Expect::Generation(_), None) => true,
            (Expect::Generation(g), Some(s)) => s.meta.generation < *g,
            (Expect::Deleted, cached) => cached.is_some(),
        })
    }
}
