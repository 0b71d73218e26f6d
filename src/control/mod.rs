//! Controllers other than the kubelet that write pod status.

pub mod endpointslice;
pub mod readiness_gate;
