//! The Job controller (pkg/controller/job), its rules as pure functions:
//!
//! - [`backoff`]: when a failed pod may be replaced (`backoff_utils.go`);
//! - [`failure_policy`]: what `podFailurePolicy` says of a failed pod;
//! - [`indexes`]: completion indexes, their failures and per-index back-off;
//! - [`pods`]: the pods it creates (names, labels, finalizer, index);
//! - [`sync`]: one sync, from the Job and its pods to the calls it makes;
//!
//! and [`Controller`], which runs the syncs against the API server.

pub mod backoff;
pub mod failure_policy;
pub mod indexes;
pub mod pods;
pub mod sync;

mod controller;
pub use controller::{Answer, Controller, Ev, Out, Write};
