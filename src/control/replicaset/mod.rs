//! The ReplicaSet controller's rules (pkg/controller/replicaset and the
//! helpers it uses from controller_utils.go), as pure functions over small
//! views of its pods:
//!
//! - [`slow_start`]: how many pods to create or delete, and in which batches;
//! - [`ranking`]: which pods to delete first (`ActivePodsWithRanks`);
//! - [`names`]: the generated pod names;
//! - [`status`]: availability and the status counts, and when to look again.

pub mod names;
pub mod ranking;
pub mod slow_start;
pub mod status;

mod controller;
pub use controller::{Controller, Ev, Out, Write};
