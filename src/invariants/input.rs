//! Feeding recordings to the checker in observation order.

use super::{Checker, Report};
use crate::error::{Error, Problem};
use crate::observe::{Format, Observed, Record, detect_file, read_file};
use std::path::Path;

/// Reads every file and checks every record. JSON streams (watch output,
/// podsim traces) are already in observation order and are checked as they
/// are read, in bounded memory; snapshot files (YAML, single objects, text)
/// are gathered and their Pods put in resourceVersion order first.
/// Unreadable files are errors; bad records inside a file are reported as
/// warnings and skipped.
pub fn check_files(paths: &[&Path], mut checker: Checker) -> Result<(Report, Vec<Problem>), Error> {
    let mut problems = Vec::new();
    let mut snapshots: Vec<Record> = Vec::new();
    for path in paths {
        match detect_file(path)? {
            Format::PodsimJsonl | Format::Json => {
                flush(&mut snapshots, &mut checker);
                problems.extend(read_file(path, &mut |r| checker.observe(&r))?);
            }
            _ => problems.extend(read_file(path, &mut |r| snapshots.push(r))?),
        }
    }
    flush(&mut snapshots, &mut checker);
    Ok((checker.report(), problems))
}

fn flush(snapshots: &mut Vec<Record>, checker: &mut Checker) {
    sort_snapshots(snapshots);
    for r in snapshots.drain(..) {
        checker.observe(&r);
    }
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
