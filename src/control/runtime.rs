//! The controller runtime, in client-go's shape as podsim runs it. A
//! component fed by informers declares the watches it opens and turns their
//! records into its own events ([`Watching`]); a controller handles each of
//! its events by sending messages — its work queue's timers and its calls
//! to the API server — which the world routes ([`Controller`]). What they
//! share for the rest: the cache (`informer.rs`), the work queue
//! (`workqueue.rs`), the workers that sync a key at a time (`workers.rs`)
//! and the expectations (`expectations.rs`).

use crate::api::store::Watch;
use crate::engine::{Ctx, Outbox};
use crate::trace::Record;

/// A component fed by informers.
pub trait Watching {
    /// What reaches it.
    type Ev;
    /// Its informers, in the order their watches are opened.
    const WATCHES: &'static [Watch];
    /// A record of a watch it declared, as its event (`None` for a kind it
    /// did not declare).
    fn watched(record: &Record) -> Option<Self::Ev>;
}

/// A controller: it handles its events and sends its messages.
pub trait Controller: Watching {
    /// What it sends: its own events and its calls to the API server.
    type Out;
    fn handle(&mut self, ev: Self::Ev, ctx: &mut Ctx<'_, impl Outbox<Self::Out>>);
}
