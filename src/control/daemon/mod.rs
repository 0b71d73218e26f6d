//! The DaemonSet controller (pkg/controller/daemon), its rules as pure functions:
//!
//! - [`eligibility`]: which nodes run a daemon pod, with the tolerations
//!   the controller adds (`NodeShouldRunDaemonPod`);
//! - [`pods`]: the pods it creates (labels, tolerations, node-name
//!   affinity) and how it reads them;
//! - [`view`]: what the rules read of pods and nodes;
//! - [`backoff`]: when a failed pod may be deleted again;
//! - [`manage`]: one pod per eligible node (`manage`, `podsShouldBeOnNode`);
//! - [`update`]: the rolling update with maxUnavailable or maxSurge;
//! - [`status`]: the status counts;
//!
//! and [`Controller`], which runs the syncs against the API server.

pub mod backoff;
pub mod eligibility;
pub mod manage;
pub mod pods;
pub mod status;
pub mod update;
pub mod view;

mod controller;
pub use controller::{Answer, Controller, Ev, Out, Write};
