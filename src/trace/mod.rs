//! Traces: the records of a run, and their renderings (JSON Lines, table).

pub mod changes;
mod daemonset_rows;
mod job_rows;
pub mod jsonl;
pub mod network_rows;
pub mod record;
pub mod render;
pub mod render_controllerrevision;
pub mod render_daemonsets;
pub mod render_disruption;
pub mod render_jobs;
pub mod render_network;
pub mod render_statefulset;
pub mod render_workloads;
mod request_rows;
mod statefulset_rows;
pub mod table;
pub mod workload_rows;

use crate::time::SimTime;
pub use record::{Entry, Record};

/// Everything one run observed, in time order.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub entries: Vec<Entry>,
    keep: Keep,
    /// Set when the run stopped at its event budget before its end.
    pub exhausted: Option<crate::budget::Exhausted>,
}

/// Which records a trace keeps.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// Every record: what a run prints.
    #[default]
    All,
    /// Only the records milestones and state functions read
    /// ([`Record::is_state`]): a sweep over seeds reads nothing else, and
    /// the others would be stored only to be dropped.
    State,
}

impl Trace {
    /// The trace of a run that reached its end, or where it stopped.
    pub fn finished(&self) -> Result<(), crate::budget::Exhausted> {
        self.exhausted.map_or(Ok(()), Err)
    }

    /// An empty trace that keeps `keep`.
    pub fn keeping(keep: Keep) -> Trace {
        Trace { entries: Vec::new(), keep, exhausted: None }
    }

    /// Whether records that are not state ([`Record::is_state`]) are kept:
    /// a component can skip building them when not.
    pub fn keeps_all(&self) -> bool {
        self.keep == Keep::All
    }

    pub fn push(&mut self, t: SimTime, record: Record) {
        if self.keep == Keep::State && !record.is_state() {
            return;
        }
        self.entries.push(Entry { t, record });
    }

    /// Adds a record observed after the run (a client's view), after every
    /// entry of the same instant.
    pub fn insert(&mut self, t: SimTime, record: Record) {
        let at = self.entries.partition_point(|e| e.t <= t);
        self.entries.insert(at, Entry { t, record });
    }
}
