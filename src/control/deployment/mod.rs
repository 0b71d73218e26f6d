//! The Deployment controller's rules (pkg/controller/deployment), as pure
//! functions over small views of a Deployment and its ReplicaSets. The event
//! loop reads the objects, calls these, and performs the writes they return;
//! nothing here touches the simulation.
//!
//! - [`view`]: the inputs (ReplicaSet and Deployment views) and their orders;
//! - [`fenceposts`]: `maxSurge` / `maxUnavailable` resolved to counts;
//! - [`rolling`]: one `rolloutRolling` step (`reconcileNewReplicaSet`,
//!   `reconcileOldReplicaSets`);
//! - [`proportional`]: `scale()`, on a scaling event or while paused;
//! - [`conditions`] and [`status`]: `calculateStatus`, `syncRolloutStatus`,
//!   the progress deadline and its requeue;
//! - [`hash`]: `pod-template-hash` and the ReplicaSet name;
//! - [`revisions`]: the revision annotations.
//!
//! `SOURCES.md` beside this file records, rule by rule, the Kubernetes source
//! each behaviour was read from (and what could not be verified); the sync
//! loops (`syncDeployment`, `syncReplicaSet`) follow its §2–§3.

pub mod conditions;
pub mod fenceposts;
pub mod hash;
pub mod proportional;
pub mod revisions;
pub mod rolling;
pub mod status;
pub mod view;

mod controller;
pub use controller::{Answer, Controller, Ev, Out, Write};
