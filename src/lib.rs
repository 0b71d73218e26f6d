//! podsim: a discrete-event simulator of the Kubernetes pod lifecycle.
//!
//! Given real manifests, a description of how the app behaves and a cluster
//! timing profile, podsim predicts what a real cluster would show, layer by
//! layer, following the kubelet's own code. Read it in this order:
//!
//! - inputs: [`manifest`] (API types, defaulting, validation) → [`spec`];
//!   [`app`] behaviour files; [`cluster`] profiles; [`scenario`] files;
//! - the engine: [`time`], [`dist`], [`rng`], [`ids`] (pods and nodes by
//!   index), [`budget`] (the events one run may handle), [`engine`] (the event queue and its same-instant ordering
//!   contract, tickers parked while their ticks change nothing; the context
//!   through which a component sends its messages),
//!   [`sim`] (the world of one run, which routes them);
//! - the components: [`api`] (API server: one object store for every kind,
//!   with the metadata and write rules all kinds share, and the Pod status
//!   types), [`informer`] (a component's cache of one kind, fed by its watch),
//!   [`kubelet`] (pod workers, PLEG, runtime and its network namespaces,
//!   prober and its HTTP client, backoff, status),
//!   [`control`] (scheduler, ReplicaSet, Deployment, Job, CronJob, EndpointSlice,
//!   disruption, node lifecycle, taint-eviction and StatefulSet controllers, and the
//!   controller references by which the workload controllers claim and
//!   adopt objects), [`proxy`] (kube-proxy per node),
//!   [`client`] (requests through a Service);
//! - outputs: [`trace`] (records, JSON Lines, timeline table),
//!   [`envelope`] (timings across many runs), [`plot`] (pictures) and
//!   [`report`] (one self-contained HTML page of a run or a prediction);
//! - many runs: [`sweep`] (runs on a pool of threads, in order, stoppable),
//!   [`milestones`] (named instants of a trace), [`predict`]
//!   (their statistics and orderings over seeds), [`verify`] (properties
//!   checked in every run, counterexamples shrunk);
//! - checking: [`observe`] (reading recordings from real clusters: JSON,
//!   `kubectl` text) and [`invariants`] (the rules both must obey);
//! - [`run`] ties one simulation together; [`cli`] is the `podsim` command.

pub mod api;
pub mod app;
pub mod budget;
pub mod cli;
pub mod client;
pub mod cluster;
pub mod control;
pub mod dist;
pub mod engine;
pub mod envelope;
pub mod error;
pub mod ids;
pub mod informer;
pub mod invariants;
pub mod kubectl;
pub mod kubelet;
#[cfg(test)]
mod layering;
pub mod manifest;
pub mod milestones;
pub mod observe;
pub mod plot;
pub mod predict;
pub mod proxy;
pub mod report;
pub mod rng;
pub mod run;
pub mod scenario;
pub mod sim;
pub mod source;
pub mod spec;
pub mod sweep;
pub mod time;
pub mod trace;
pub mod verify;
