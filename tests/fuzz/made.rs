//! Inputs that podsim itself writes, made once per test process by running
//! it on real scenarios: JSON Lines traces (`run -o jsonl`, for `check`) and
//! predict partial results (`predict --shard`, for `merge`).

use super::corpus::{Doc, path};
use super::harness::BIN;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The scenarios the made inputs come from.
const SCENARIOS: &[&str] = &["c28-service", "drain", "rollout-10", "job-indexed-disruption"];

fn podsim(args: &[&str]) -> Vec<u8> {
    let out = Command::new(BIN).args(args).output().expect("run podsim");
    assert!(out.status.success(), "podsim {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn scenario(name: &str) -> String {
    path(&format!("models/scenarios/{name}.yaml")).to_string_lossy().into_owned()
}

/// A made file, parsed as JSON Lines.
fn doc(name: String, bytes: Vec<u8>) -> Doc {
    let docs = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|t| t.lines().map(serde_json::from_str).collect::<Result<Vec<_>, _>>().ok());
    Doc { path: PathBuf::from(name), bytes, docs }
}

/// `podsim run SCENARIO --until 30s -o jsonl` of each scenario.
pub fn traces() -> &'static [Doc] {
    static C: OnceLock<Vec<Doc>> = OnceLock::new();
    C.get_or_init(|| {
        SCENARIOS
            .iter()
            .map(|s| doc(format!("{s}.jsonl"), podsim(&["run", &scenario(s), "--until", "30s", "-o", "jsonl"])))
            .collect()
    })
}

/// For each scenario, the two partials of `predict --runs 4 --shard K/2`.
pub fn partials() -> &'static [[Doc; 2]] {
    static C: OnceLock<Vec<[Doc; 2]>> = OnceLock::new();
    C.get_or_init(|| {
        SCENARIOS
            .iter()
            .map(|s| {
                [0, 1].map(|k| {
                    let shard = format!("{k}/2");
                    let args =
                        ["predict", &scenario(s), "--runs", "4", "--jobs", "1", "--until", "30s", "--shard", &shard];
                    doc(format!("{s}-{k}.jsonl"), podsim(&args))
                })
            })
            .collect()
    })
}
