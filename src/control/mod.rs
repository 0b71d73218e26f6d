//! Controllers other than the kubelet that write pod status.

pub mod readiness_gate;
