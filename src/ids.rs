//! The ids by which the components of a run name its objects and nodes.
//! They live below every component, so a component names what it talks
//! about without importing the world that routes its messages.

/// A pod of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PodId(pub u32);

/// A node of the run (its index in the cluster's node list): messages to a
/// kubelet or kube-proxy carry it, so delivering one looks nothing up.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A Service of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServiceId(pub u32);

/// An EndpointSlice of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SliceId(pub u32);

/// A ReplicaSet of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RsId(pub u32);

/// A Deployment of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeploymentId(pub u32);

/// A PodDisruptionBudget of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PdbId(pub u32);

/// A Job of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub u32);

/// A CronJob of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CronJobId(pub u32);

/// An id that is an object's index in its store.
pub trait Index: Copy {
    fn from_index(index: usize) -> Self;
    fn index(self) -> usize;
}

macro_rules! store_index {
    ($($id:ident),*) => {$(
        impl Index for $id {
            fn from_index(index: usize) -> Self {
                $id(index as u32)
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
    )*};
}

/// A StatefulSet of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StsId(pub u32);

/// A ControllerRevision of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RevisionId(pub u32);

/// A DaemonSet of the run (its index in the API server).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DaemonSetId(pub u32);

store_index!(PodId, ServiceId, SliceId, RsId, DeploymentId, PdbId, JobId, CronJobId, StsId, RevisionId, DaemonSetId);

/// An object of one of the kinds that own or are owned (ownerReferences),
/// as the garbage collector names them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectId {
    Pod(PodId),
    ReplicaSet(RsId),
    Deployment(DeploymentId),
    Job(JobId),
    CronJob(CronJobId),
    StatefulSet(StsId),
    DaemonSet(DaemonSetId),
    ControllerRevision(RevisionId),
}

/// An object of a kind that owns others (the ones a DELETE may cascade from).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Owner {
    ReplicaSet(RsId),
    Deployment(DeploymentId),
    Job(JobId),
    CronJob(CronJobId),
    StatefulSet(StsId),
    DaemonSet(DaemonSetId),
}

impl From<Owner> for ObjectId {
    fn from(o: Owner) -> ObjectId {
        match o {
            Owner::ReplicaSet(id) => ObjectId::ReplicaSet(id),
            Owner::Deployment(id) => ObjectId::Deployment(id),
            Owner::Job(id) => ObjectId::Job(id),
            Owner::CronJob(id) => ObjectId::CronJob(id),
            Owner::StatefulSet(id) => ObjectId::StatefulSet(id),
            Owner::DaemonSet(id) => ObjectId::DaemonSet(id),
        }
    }
}

macro_rules! object_id {
    ($($id:ident => $variant:ident),*) => {$(
        impl From<$id> for ObjectId {
            fn from(id: $id) -> ObjectId {
                ObjectId::$variant(id)
            }
        }
    )*};
}

object_id!(
    PodId => Pod,
    RsId => ReplicaSet,
    DeploymentId => Deployment,
    JobId => Job,
    CronJobId => CronJob,
    StsId => StatefulSet,
    DaemonSetId => DaemonSet,
    RevisionId => ControllerRevision
);

impl Owner {
    /// The owner an object is, if its kind owns others.
    pub fn of(object: ObjectId) -> Option<Owner> {
        match object {
            ObjectId::ReplicaSet(id) => Some(Owner::ReplicaSet(id)),
            ObjectId::Deployment(id) => Some(Owner::Deployment(id)),
            ObjectId::Job(id) => Some(Owner::Job(id)),
            ObjectId::CronJob(id) => Some(Owner::CronJob(id)),
            ObjectId::StatefulSet(id) => Some(Owner::StatefulSet(id)),
            ObjectId::DaemonSet(id) => Some(Owner::DaemonSet(id)),
            ObjectId::Pod(_) | ObjectId::ControllerRevision(_) => None,
        }
    }
}
