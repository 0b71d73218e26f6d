//! podsim: a discrete-event simulator of the Kubernetes pod lifecycle.
pub mod dist;
pub mod engine;
pub mod error;
pub mod rng;
pub mod source;
pub mod time;
