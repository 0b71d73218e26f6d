//! The control plane's components other than the API server: the scheduler
//! and the controllers that write pod status or EndpointSlices.

pub mod deployment;
pub mod endpointslice;
pub mod readiness_gate;
pub mod replicaset;
pub mod scheduler;
