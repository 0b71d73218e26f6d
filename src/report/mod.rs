//! `podsim report`: one self-contained HTML page of a prediction — a run's
//! swimlanes with every object as it was at the instant hovered or clicked,
//! its events and probe results, and, over many runs, the milestone CDFs,
//! the ordering graph, the orderings that vary and the slowest and fastest
//! seeds with their own timelines. Nothing is fetched: the CSS, the script
//! and every picture are inline.
//!
//! What it keeps, so a rollout-sized run stays small and quick to open: the
//! lanes of the first [`swimlanes::MAX_PODS`] pods (the rest are counted);
//! per lane, one mark per pixel column and look (requests and probe results
//! aggregated, with their count); each object's versions up to
//! [`objects::BUDGET`] bytes of JSON per timeline; the first
//! [`tables::MAX_ROWS`] events and probe results of each run.

mod escape;
mod objects;
mod page;
pub mod seeds;
mod sweep;
mod swimlanes;
mod tables;

pub use page::{Page, RunPart, SweepPart};
