//! The object store: the rules every kind shares, kept once. A create gives
//! the uid, resourceVersion and generation 1; a write is refused when the
//! object is gone (404) or was read at an older resourceVersion (409), and
//! stores nothing when it changes nothing; every stored change takes the
//! next resourceVersion and is one watch record. What differs between kinds
//! — which fields count as spec, how a delete is graceful — is the closure
//! the kind's own write passes (its `rest.RESTUpdateStrategy`).

use super::meta::{Deletion, Meta, Propagation};
use super::names::generate_name;
use crate::ids::Index;
use crate::rng::Stream;
use crate::spec::OwnerRef;
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::record::{Record, WatchKind};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The kinds the API server stores, as their watch records name them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Pod,
    Service,
    EndpointSlice,
    ReplicaSet,
    Deployment,
    PodDisruptionBudget,
    Job,
    CronJob,
    StatefulSet,
    ControllerRevision,
    DaemonSet,
    Node,
}

impl Kind {
    /// The kind of a watch record; `None` for the trace's other records.
    pub fn of(record: &Record) -> Option<Kind> {
        match record {
            Record::Pod { .. } => Some(Kind::Pod),
            Record::Service { .. } => Some(Kind::Service),
            Record::Slice { .. } => Some(Kind::EndpointSlice),
            Record::ReplicaSet { .. } => Some(Kind::ReplicaSet),
            Record::Deployment { .. } => Some(Kind::Deployment),
            Record::Pdb { .. } => Some(Kind::PodDisruptionBudget),
            Record::Job { .. } => Some(Kind::Job),
            Record::CronJob { .. } => Some(Kind::CronJob),
            Record::StatefulSet { .. } => Some(Kind::StatefulSet),
            Record::ControllerRevision { .. } => Some(Kind::ControllerRevision),
            Record::DaemonSet { .. } => Some(Kind::DaemonSet),
            Record::Node { .. } => Some(Kind::Node),
            _ => None,
        }
    }
}

/// An informer a component declares: the kind it watches and the name of
/// its watch (which names the watch's random stream).
pub type Watch = (Kind, &'static str);

/// The accessors every stored kind writes the same way, from its `id` and
/// `meta` fields.
macro_rules! stored_fields {
    () => {
        fn id(&self) -> Self::Id {
            self.id
        }
        fn meta(&self) -> &$crate::api::meta::Meta {
            &self.meta
        }
        fn meta_mut(&mut self) -> &mut $crate::api::meta::Meta {
            &mut self.meta
        }
    };
}
pub(crate) use stored_fields;

/// An object the API server stores.
pub trait Object: Clone {
    type Id: Index + Ord;
    fn id(&self) -> Self::Id;
    fn meta(&self) -> &Meta;
    fn meta_mut(&mut self) -> &mut Meta;
    fn name(&self) -> &str;
    fn namespace(&self) -> &str;
    /// Its controller reference (`metadata.ownerReferences`; the kinds
    /// modelled have at most one, the controller's).
    fn owner(&self) -> Option<&OwnerRef> {
        None
    }
    /// The trace's watch record of this kind.
    fn watch_record(kind: WatchKind, object: Arc<Self>) -> Record;
}

/// A kind with a status subresource: `status` is what a write to
/// `/status` may change; its status strategy (`PrepareForUpdate`) keeps
/// the rest as stored, so such a write never moves the generation.
pub trait WithStatus: Object {
    type Status<'a>
    where
        Self: 'a;
    fn status(&mut self) -> Self::Status<'_>;
}

/// What a write requires of the stored object (`metav1.Preconditions`, or
/// an update's `resourceVersion`).
#[derive(Copy, Clone, Debug)]
pub enum Precondition<'a> {
    None,
    /// The object as read: a newer stored one is a 409 Conflict.
    ResourceVersion(u64),
    /// `preconditions.uid`: a recreated object of the same name is not this one.
    Uid(&'a str),
}

/// What a write changed, as the kind's strategy counts it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing: no new resourceVersion, no watch event.
    None,
    /// Stored (status, metadata): a new resourceVersion.
    Stored,
    /// Stored, and the spec changed: the generation moves too.
    NewGeneration,
}

/// Why a write stored nothing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// 404: the object is gone.
    NotFound,
    /// 409: "the object has been modified; please apply your changes to the
    /// latest version and try again" (or a uid precondition failed).
    Conflict,
}

/// What a DELETE of a kind without graceful deletion did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Deleted {
    /// Gone from storage: a DELETED record.
    Removed,
    /// Kept by finalizers, deleting: a MODIFIED record.
    Finalizing,
    /// Already deleting with these finalizers: nothing stored.
    Unchanged,
}

/// Finalizer lists compared as sets (`sets.NewString(...).Equal`).
fn same_set(a: &[Arc<str>], b: &[Arc<str>]) -> bool {
    a.iter().all(|f| b.contains(f)) && b.iter().all(|f| a.contains(f))
}

/// Where a stored change goes: the next resourceVersion (one counter for
/// every kind, as etcd's revision) and the trace's watch records.
pub struct Commit<'a> {
    pub revision: &'a mut u64,
    pub now: SimTime,
    pub trace: &'a mut Trace,
}

impl Commit<'_> {
    fn next(&mut self) -> u64 {
        *self.revision += 1;
        *self.revision
    }
}

/// Every object of one kind, by id (its index: objects are never reused),
/// and the live ones by namespace and name.
pub struct Store<T: Object> {
    objects: Vec<T>,
    /// Each object as its last watch record holds it: an answer shares it
    /// instead of copying the object again.
    recorded: Vec<Arc<T>>,
    names: BTreeMap<Box<str>, BTreeMap<Box<str>, T::Id>>,
}

impl<T: Object> Default for Store<T> {
    fn default() -> Self {
        Store { objects: Vec::new(), recorded: Vec::new(), names: BTreeMap::new() }
    }
}

impl<T: Object> Store<T> {
    pub fn get(&self, id: T::Id) -> &T {
        &self.objects[id.index()]
    }

    /// The object as stored, shared with its last watch record (every
    /// change is recorded as it is stored, so this is the object as it is).
    pub fn current(&self, id: T::Id) -> &Arc<T> {
        &self.recorded[id.index()]
    }

    /// Every object ever created, the removed ones included (by id).
    pub fn all(&self) -> &[T] {
        &self.objects
    }

    /// The live object of that name in that namespace (a GET by name).
    pub fn named(&self, namespace: &str, name: &str) -> Option<T::Id> {
        self.names.get(namespace)?.get(name).copied()
    }

    /// A live object has that name in that namespace (AlreadyExists).
    pub fn name_taken(&self, namespace: &str, name: &str) -> bool {
        self.named(namespace, name).is_some()
    }

    /// `generateName`: the prefix and five random characters
    /// (`names.SimpleNameGenerator`), drawn again while the name is in use
    /// (`RetryGenerateName`).
    pub fn generate_name(&self, namespace: &str, prefix: &str, names: &mut Stream) -> String {
        loop {
            let name = generate_name(prefix, names);
            if !self.name_taken(namespace, &name) {
                return name;
            }
        }
    }

    /// POST: the object is stored with `uid`, the next resourceVersion and
    /// generation 1 (`BeforeCreate`); an ADDED record.
    pub fn create(&mut self, uid: Arc<str>, c: &mut Commit, make: impl FnOnce(T::Id, Meta) -> T) -> T::Id {
        let id = T::Id::from_index(self.objects.len());
        let meta = Meta::new(uid, c.now, c.next());
        let object = make(id, meta);
        let names = self.names.entry(object.namespace().into()).or_default();
        names.insert(object.name().into(), id);
        self.objects.push(object);
        self.record(id, WatchKind::Added, c);
        id
    }

    /// PUT or PATCH: `change` edits the stored object in place and says
    /// what it changed; a change takes the next resourceVersion (and the
    /// next generation, when the spec changed) and is a MODIFIED record.
    #[inline]
    pub fn write(
        &mut self,
        id: T::Id,
        precondition: Precondition,
        c: &mut Commit,
        change: impl FnOnce(&mut T) -> Change,
    ) -> Result<Change, Refused> {
        self.check(id, precondition)?;
        let object = &mut self.objects[id.index()];
        let changed = change(object);
        if changed == Change::None {
            return Ok(changed);
        }
        let rv = c.next();
        let meta = object.meta_mut();
        meta.resource_version = rv;
        meta.generation += i64::from(changed == Change::NewGeneration);
        self.record(id, WatchKind::Modified, c);
        Ok(changed)
    }

    /// PUT or PATCH of the status subresource: `change` edits what the
    /// kind's status strategy lets through and says whether it changed
    /// anything; a change takes the next resourceVersion, never the next
    /// generation.
    #[inline]
    pub fn write_status(
        &mut self,
        id: T::Id,
        precondition: Precondition,
        c: &mut Commit,
        change: impl FnOnce(T::Status<'_>) -> bool,
    ) -> Result<Change, Refused>
    where
        T: WithStatus,
    {
        self.write(id, precondition, c, |o| if change(o.status()) { Change::Stored } else { Change::None })
    }

    /// A controller's `UpdateStatus` of a whole status (`field`: the
    /// kind's `WithStatus::status`), from the object it read at
    /// resourceVersion `read`: 409 when the object changed since; an equal
    /// status stores nothing.
    pub fn replace_status<S: PartialEq>(
        &mut self,
        id: T::Id,
        read: u64,
        c: &mut Commit,
        status: S,
        field: impl FnOnce(&mut T) -> &mut S,
    ) -> Result<Change, Refused> {
        self.write(id, Precondition::ResourceVersion(read), c, |o| {
            let stored = field(o);
            if *stored == status {
                return Change::None;
            }
            *stored = status;
            Change::Stored
        })
    }

    /// The object leaves storage: the next resourceVersion and a DELETED
    /// record with the last object. False when it was gone already.
    pub fn remove(&mut self, id: T::Id, c: &mut Commit) -> bool {
        if self.objects[id.index()].meta().removed {
            return false;
        }
        let rv = c.next();
        let object = &mut self.objects[id.index()];
        if let Some(names) = self.names.get_mut(object.namespace())
            && names.get(object.name()) == Some(&id)
        {
            names.remove(object.name());
        }
        let meta = object.meta_mut();
        meta.resource_version = rv;
        meta.removed = true;
        self.record(id, WatchKind::Deleted, c);
        true
    }

    /// DELETE of a kind without graceful deletion (`Store.Delete`,
    /// `updateForGracefulDeletionAndFinalizers`, `markAsDeleting`): the
    /// policy sets the garbage collector's finalizers; with none left the
    /// object goes at once, else it stays with deletionTimestamp = now (to
    /// the second), grace 0 and, on the first delete, the next generation.
    pub fn delete(
        &mut self,
        id: T::Id,
        policy: Propagation,
        precondition: Precondition,
        c: &mut Commit,
    ) -> Result<Deleted, Refused> {
        let finalizers = policy.finalizers(&self.get(id).meta().finalizers);
        if finalizers.is_empty() {
            self.check(id, precondition)?;
            self.remove(id, c);
            return Ok(Deleted::Removed);
        }
        let now = c.now;
        let written = self.write(id, precondition, c, |o| {
            let meta = o.meta_mut();
            let first = meta.deletion.is_none();
            if !first && same_set(&meta.finalizers, &finalizers) {
                return Change::None;
            }
            meta.finalizers = finalizers;
            if !first {
                return Change::Stored;
            }
            meta.deletion = Some(Deletion::requested_at(now, 0, false));
            Change::NewGeneration
        })?;
        Ok(if written == Change::None { Deleted::Unchanged } else { Deleted::Finalizing })
    }

    /// A PUT without the finalizer `name` (the garbage collector's
    /// `removeFinalizer`). An object deleting with grace 0 whose last
    /// finalizer goes is deleted instead of updated
    /// (`shouldDeleteDuringUpdate`, `deleteWithoutFinalizers`): one DELETED record.
    pub fn remove_finalizer(&mut self, id: T::Id, name: &str, c: &mut Commit) -> Result<Change, Refused> {
        self.check(id, Precondition::None)?;
        let meta = self.get(id).meta();
        if !meta.finalizers.iter().any(|f| **f == *name) {
            return Ok(Change::None);
        }
        // The update is not stored: the DELETED record has the object as it was.
        if meta.deletion.is_some_and(|d| d.grace_seconds == 0) && meta.finalizers.len() == 1 {
            self.remove(id, c);
            return Ok(Change::Stored);
        }
        self.write(id, Precondition::None, c, |o| {
            o.meta_mut().finalizers.retain(|f| **f != *name);
            Change::Stored
        })
    }

    /// A request's precondition against the stored object.
    fn check(&self, id: T::Id, precondition: Precondition) -> Result<(), Refused> {
        let meta = self.get(id).meta();
        match precondition {
            _ if meta.removed => Err(Refused::NotFound),
            Precondition::ResourceVersion(read) if read != meta.resource_version => Err(Refused::Conflict),
            Precondition::Uid(uid) if uid != &*meta.uid => Err(Refused::Conflict),
            _ => Ok(()),
        }
    }

    /// The watch record of the stored object as it is now.
    #[inline]
    fn record(&mut self, id: T::Id, kind: WatchKind, c: &mut Commit) {
        let i = id.index();
        let object = Arc::new(self.objects[i].clone());
        match self.recorded.get_mut(i) {
            Some(slot) => *slot = object.clone(),
            None => self.recorded.push(object.clone()),
        }
        c.trace.push(c.now, T::watch_record(kind, object));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::record::{ApiEvent, EventSource};

    /// A kind of two fields, as a ConfigMap would be: `data` is its spec.
    #[derive(Clone, Debug)]
    struct Note {
        id: NoteId,
        meta: Meta,
        name: String,
        data: String,
        /// Its status subresource.
        seen: u32,
    }

    #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct NoteId(usize);

    impl Index for NoteId {
        fn from_index(index: usize) -> Self {
            NoteId(index)
        }
        fn index(self) -> usize {
            self.0
        }
    }

    impl Object for Note {
        type Id = NoteId;
        fn id(&self) -> NoteId {
            self.id
        }
        fn meta(&self) -> &Meta {
            &self.meta
        }
        fn meta_mut(&mut self) -> &mut Meta {
            &mut self.meta
        }
        fn name(&self) -> &str {
            &self.name
        }
        fn namespace(&self) -> &str {
            "default"
        }
        // The trace has no record for a test kind: an Event stands in.
        fn watch_record(kind: WatchKind, note: Arc<Self>) -> Record {
            Record::Event(Arc::new(ApiEvent {
                name: note.name.clone(),
                pod: note.name.as_str().into(),
                namespace: "default".into(),
                pod_uid: note.meta.uid.clone(),
                field_path: None,
                warning: false,
                reason: "Watch",
                message: format!("{} {} rv={}", kind.as_str(), note.name, note.meta.resource_version),
                count: 1,
                first: note.meta.created,
                last: note.meta.created,
                source: EventSource::Scheduler,
            }))
        }
    }

    impl WithStatus for Note {
        type Status<'a> = &'a mut u32;
        fn status(&mut self) -> &mut u32 {
            &mut self.seen
        }
    }

    fn set(data: &str) -> impl FnOnce(&mut Note) -> Change + '_ {
        move |n| {
            if n.data == data {
                return Change::None;
            }
            n.data = data.to_string();
            Change::NewGeneration
        }
    }

    #[test]
    fn writes_take_the_next_resource_version_and_refuse_stale_or_gone_objects() {
        let (mut revision, mut trace) = (0, Trace::default());
        let mut c = Commit { revision: &mut revision, now: SimTime::ZERO, trace: &mut trace };
        let mut notes = Store::<Note>::default();
        let make = |name: &str| {
            let name = name.to_string();
            move |id, meta| Note { id, meta, name, data: String::new(), seen: 0 }
        };
        let a = notes.create("uid-a".into(), &mut c, make("a"));
        let b = notes.create("uid-b".into(), &mut c, make("b"));
        assert!(notes.name_taken("default", "a"));
        assert_eq!((notes.named("default", "b"), notes.named("other", "b")), (Some(b), None));
        assert_eq!((notes.get(a).meta.resource_version, notes.get(b).meta.resource_version), (1, 2));
        // An update based on the object as read is stored: rv 3, generation 2.
        assert_eq!(notes.write(a, Precondition::ResourceVersion(1), &mut c, set("x")), Ok(Change::NewGeneration));
        assert_eq!((notes.get(a).meta.resource_version, notes.get(a).meta.generation), (3, 2));
        // The same read again is stale: 409, nothing stored.
        assert_eq!(notes.write(a, Precondition::ResourceVersion(1), &mut c, set("y")), Err(Refused::Conflict));
        assert_eq!(notes.write(a, Precondition::Uid("uid-b"), &mut c, set("y")), Err(Refused::Conflict));
        // A write that changes nothing stores nothing.
        assert_eq!(notes.write(a, Precondition::None, &mut c, set("x")), Ok(Change::None));
        // The status subresource: rv 4, the generation stays; the same status stores nothing.
        let seen = |n: u32| move |s: &mut u32| std::mem::replace(s, n) != n;
        assert_eq!(notes.write_status(a, Precondition::ResourceVersion(3), &mut c, seen(1)), Ok(Change::Stored));
        assert_eq!((notes.get(a).meta.resource_version, notes.get(a).meta.generation, notes.get(a).seen), (4, 2, 1));
        assert_eq!(notes.write_status(a, Precondition::None, &mut c, seen(1)), Ok(Change::None));
        assert_eq!(notes.write_status(a, Precondition::ResourceVersion(3), &mut c, seen(2)), Err(Refused::Conflict));
        assert!(notes.remove(a, &mut c));
        assert!(!notes.remove(a, &mut c), "removed once");
        assert!(!notes.name_taken("default", "a"));
        assert_eq!(notes.named("default", "a"), None, "a removed object has no name");
        assert_eq!(notes.write(a, Precondition::None, &mut c, set("z")), Err(Refused::NotFound));
        let marks: Vec<&str> = trace
            .entries
            .iter()
            .filter_map(|e| if let Record::Event(e) = &e.record { Some(e.message.as_str()) } else { None })
            .collect();
        assert_eq!(marks, ["ADDED a rv=1", "ADDED b rv=2", "MODIFIED a rv=3", "MODIFIED a rv=4", "DELETED a rv=5"]);
    }
}
