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

store_index!(PodId, ServiceId, SliceId, RsId, DeploymentId);
