//! The StatefulSet controller's rules (pkg/controller/statefulset), as pure
//! functions over small views of its pods, and the controller that runs them:
//!
//! - [`identity`]: pod names and ordinals, labels, claim names;
//! - [`replica`]: `processReplica` and `processCondemned`;
//! - [`rolling`]: the RollingUpdate step, with and without `maxUnavailable`;
//! - [`status`]: the status counts and `completeRollingUpdate`;
//! - [`revision`]: ControllerRevision names and hashes;
//! - [`pods`]: the pod `newVersionedStatefulSetPod` makes, and its claims.

pub mod identity;
pub mod pods;
pub mod replica;
pub mod revision;
pub mod rolling;
pub mod status;

mod controller;
pub use controller::{Answer, Controller, Ev, Out, Write};
