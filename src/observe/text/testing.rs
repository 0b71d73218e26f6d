//! Helpers of the unit tests: reading a text and picking records.

use super::read_text;
use crate::error::Problem;
use crate::observe::{EventRow, Observed, PodRow, Record, Span};
use k8s_openapi::api::core::v1::{Pod, PodSpec, PodStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use std::sync::Arc;

/// A recording of tests/traces.
macro_rules! trace {
    ($path:literal) => {
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/traces/", $path))
    };
}
pub(super) use trace;

pub(super) fn read(text: &str) -> (Vec<Record>, Vec<Problem>) {
    let file: Arc<str> = Arc::from("test.txt");
    let mut records = Vec::new();
    let mut problems = Vec::new();
    read_text(&file, text, &mut |r| records.push(r), &mut problems);
    (records, problems)
}

pub(super) fn rows(records: &[Record]) -> Vec<(u64, &PodRow)> {
    records
        .iter()
        .filter_map(|r| match &r.observed {
            Observed::Row(p) => Some((r.origin.line, p)),
            _ => None,
        })
        .collect()
}

pub(super) fn events(records: &[Record]) -> Vec<(u64, Option<&str>, &EventRow)> {
    records
        .iter()
        .filter_map(|r| match &r.observed {
            Observed::EventRow { pod, row } => Some((r.origin.line, pod.as_deref(), row)),
            _ => None,
        })
        .collect()
}

pub(super) fn pods(records: &[Record]) -> Vec<(u64, &Pod)> {
    records
        .iter()
        .filter_map(|r| match &r.observed {
            Observed::Pod(p) => Some((r.origin.line, p.as_ref())),
            _ => None,
        })
        .collect()
}

/// The interval an age of `s` seconds printed as `Ns` stands for.
pub(super) fn secs(s: i64) -> Span {
    Span { lo: s * 1000, hi: s * 1000 + 1000 }
}

pub(super) fn time(t: &Option<Time>) -> String {
    t.as_ref().map(|t| t.0.to_string()).unwrap_or_default()
}

pub(super) fn messages(problems: &[Problem]) -> Vec<String> {
    problems.iter().map(|p| p.to_string()).collect()
}

pub(super) fn status(p: &Pod) -> &PodStatus {
    p.status.as_ref().expect("status")
}

pub(super) fn spec(p: &Pod) -> &PodSpec {
    p.spec.as_ref().expect("spec")
}
