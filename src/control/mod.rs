//! The control plane's components other than the API server: the scheduler,
//! the controllers that write pod status or EndpointSlices, and the workload
//! controllers (ReplicaSet, Deployment, StatefulSet) and the controller references they
//! claim objects by, all fed by client-go's work queue.

pub mod controller_ref;
pub mod cronjob;
pub mod daemon;
pub mod deployment;
pub mod disruption;
pub mod endpointslice;
pub mod expectations;
pub mod garbagecollector;
pub mod job;
pub mod nodelifecycle;
pub mod readiness_gate;
pub mod replicaset;
pub mod runtime;
pub mod scheduler;
pub mod statefulset;
pub mod tainteviction;
pub mod ttlafterfinished;
pub mod workers;
pub mod workqueue;
