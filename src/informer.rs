//! A component's informer cache of one kind (client-go's `cache.Indexer`
//! as its reflector keeps it): the objects as the component's own watch
//! last delivered them, which lag the API server by that watch's latency.
//! Controllers and kube-proxy read these, never the API server's store.

use crate::api::store::Object;
use crate::ids::Index;
use crate::trace::record::WatchKind;
use std::sync::Arc;

pub struct Informer<T: Object> {
    /// By id: the store's ids are dense and never reused.
    objects: Vec<Option<Arc<T>>>,
}

impl<T: Object> Default for Informer<T> {
    fn default() -> Self {
        Informer { objects: Vec::new() }
    }
}

impl<T: Object> Informer<T> {
    /// A watch event reaches the cache (`processDeltas`): ADDED and MODIFIED
    /// store the object, DELETED drops it. Returns the object it replaced,
    /// the `old` of the event handlers' `OnUpdate` and `OnDelete`.
    pub fn apply(&mut self, kind: WatchKind, object: &Arc<T>) -> Option<Arc<T>> {
        let i = object.id().index();
        if i >= self.objects.len() {
            self.objects.resize_with(i + 1, || None);
        }
        match kind {
            WatchKind::Deleted => self.objects[i].take(),
            WatchKind::Added | WatchKind::Modified => self.objects[i].replace(object.clone()),
        }
    }

    /// `GetByKey`.
    pub fn get(&self, id: T::Id) -> Option<&Arc<T>> {
        self.objects.get(id.index())?.as_ref()
    }

    /// `List`, by id (the order objects were created).
    pub fn list(&self) -> impl Iterator<Item = &Arc<T>> {
        self.objects.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiServer;
    use crate::manifest::Manifests;
    use crate::time::SimTime;
    use crate::trace::{Record, Trace};

    /// Every watch record of a pod, delivered in order, leaves the cache as
    /// the store; a DELETED one hands the handler the last object it had.
    #[test]
    fn a_cache_fed_by_the_watch_holds_what_the_store_holds() {
        let text =
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: app, image: nginx}]\n";
        let file = Arc::new(crate::error::SourceFile { name: "p.yaml".into(), text: text.into() });
        let spec = Arc::new(Manifests::load(&[file]).unwrap().pods.remove(0));
        let (mut api, mut trace) = (ApiServer::new(1), Trace::default());
        let a = api.create(spec.clone(), SimTime::ZERO, &mut trace);
        let b = api.create(spec, SimTime::ZERO, &mut trace);
        api.bind(a, "kind-worker".into(), SimTime::ZERO, &mut trace);
        api.delete(b, None, SimTime::ZERO, &mut trace);
        let mut cache = Informer::default();
        let mut olds = Vec::new();
        for e in &trace.entries {
            if let Record::Pod { kind, pod } = &e.record {
                olds.push(cache.apply(*kind, pod).map(|o| o.meta.resource_version));
            }
        }
        // a ADDED (rv 1), b ADDED (2), a MODIFIED (3, bound), b MODIFIED (4, deleting), b DELETED (5).
        assert_eq!(olds, [None, None, Some(1), Some(2), Some(4)]);
        let listed: Vec<u64> = cache.list().map(|p| p.meta.resource_version).collect();
        assert_eq!(listed, [3]);
        assert_eq!(cache.get(a).map(|p| p.node.as_deref()), Some(Some("kind-worker")));
        assert!(cache.get(b).is_none());
    }
}
