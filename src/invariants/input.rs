//! Feeding recordings to the checker in observation order.

use super::{Checker, Report};
use crate::error::{Error, Problem};
use crate::observe::{Observed, Record, read_file};
use std::path::Path;

/// Beyond this many records a recording is checked as it streams, in file
/// order; below it, Pod snapshots are put in resourceVersion order first.
const BUFFER: usize = 100_000;

/// Reads every file and checks every record. Unreadable files are errors;
/// bad records inside a file are reported as warnings and skipped.
pub fn check_files(paths: &[&Path], mut checker: Checker) -> Result<(Report, Vec<Problem>), Error> {
    let mut problems = Vec::new();
    let mut buffer: Vec<Record> = Vec::new();
    let mut streaming = false;
    for path in paths {
        let mut sink = |r: Record| {
            if streaming {
                checker.observe(&r);
            } else {
                buffer.push(r);
                if buffer.len() > BUFFER {
                    streaming = true;
                    for r in buffer.drain(..) {
                        checker.observe(&r);
                    }
                }
            }
        };
        problems.extend(read_file(path, &mut sink)?);
    }
    sort_snapshots(&mut buffer);
    for r in &buffer {
        checker.observe(r);
    }
    Ok((checker.report(), problems))
}

/// Puts the Pod objects in resourceVersion order, leaving every other record
/// where it is (so rows and events keep their place).
fn sort_snapshots(records: &mut [Record]) {
    let rv = |r: &Record| match &r.observed {
        Observed::Pod(p) => p.metadata.resource_version.as_deref().and_then(|v| v.parse::<u64>().ok()),
        _ => None,
    };
    let slots: Vec<usize> = (0..records.len()).filter(|&i| matches!(records[i].observed, Observed::Pod(_))).collect();
    if slots.iter().any(|&i| rv(&records[i]).is_none()) {
        return;
    }
    let mut pods: Vec<Record> = slots.iter().map(|&i| records[i].clone()).collect();
    pods.sort_by_key(|r| rv(r));
    for (slot, pod) in slots.into_iter().zip(pods) {
        records[slot] = pod;
    }
}
