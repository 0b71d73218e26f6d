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
}

/// An object of a kind that owns others (the ones a DELETE may cascade from).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Owner {
    ReplicaSet(RsId),
    Deployment(DeploymentId),
    Job(JobId),
}

impl From<Owner> for ObjectId {
    fn from(o: Owner) -> ObjectId {
        match o {
            Owner::ReplicaSet(id) => ObjectId::ReplicaSet(id),
            Owner::Deployment(id) => ObjectId::Deployment(id),
            Owner::Job(id) => ObjectId::Job(id),
        }
    }
}

impl From<PodId> for ObjectId {
    fn from(id: PodId) -> ObjectId {
        ObjectId::Pod(id)
    }
}

impl From<RsId> for ObjectId {
    fn from(id: RsId) -> ObjectId {
        ObjectId::ReplicaSet(id)
    }
}

impl From<JobId> for ObjectId {
    fn from(id: JobId) -> ObjectId {
        ObjectId::Job(id)
    }
}

impl From<DeploymentId> for ObjectId {
    fn from(id: DeploymentId) -> ObjectId {
        ObjectId::Deployment(id)
    }
}

impl Owner {
    /// The owner an object is, if its kind owns others.
    pub fn of(object: ObjectId) -> Option<Owner> {
        match object {
            ObjectId::ReplicaSet(id) => Some(Owner::ReplicaSet(id)),
            ObjectId::Deployment(id) => Some(Owner::Deployment(id)),
            ObjectId::Job(id) => Some(Owner::Job(id)),
            ObjectId::Pod(_) => None,
        }
    }
}
