//! Sweeps beyond one machine: shard K of N runs a contiguous block of the
//! seeds and writes every run's milestones (JSON Lines, times in whole
//! milliseconds, so nothing is lost); merging the shards gives exactly the
//! prediction of one big run.

use super::{MAX_RUNS, Runs};
use crate::time::SimTime;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The schema of a partial result's first line.
pub const PARTIAL: &str = "podsim/predict-partial/v1";

/// `K/N` (0 ≤ K < N).
pub fn parse_shard(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{s:?}: a shard is K/N with 0 ≤ K < N, e.g. 0/8");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (u32, u32) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if n == 0 || k >= n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The runs of shard `k` of `n`: a contiguous block of `0..runs`.
pub fn shard_runs(runs: u32, k: u32, n: u32) -> std::ops::Range<u32> {
    let at = |i: u32| (runs as u64 * i as u64 / n as u64) as u32;
    at(k)..at(k + 1)
}

/// The partial result: a header line, then one line per run.
pub fn write(runs: &Runs, scenario: &str, first_seed: u64, total: u32, shard: (u32, u32)) -> String {
    let mut out = json!({
        "schema": PARTIAL, "scenario": scenario, "firstSeed": first_seed, "runs": total, "shard": [shard.0, shard.1],
    })
    .to_string();
    out.push('\n');
    for (seed, row) in runs.seeds.iter().zip(&runs.times) {
        let milestones: BTreeMap<&str, u64> =
            runs.names.iter().zip(row).filter_map(|(n, t)| t.map(|t| (&**n, t.as_millis()))).collect();
        out.push_str(&json!({"seed": seed, "milestones": milestones}).to_string());
        out.push('\n');
    }
    out
}

/// What the partial results say together.
#[derive(Debug)]
pub struct Merged {
    pub scenario: String,
    pub first_seed: u64,
    pub runs: Runs,
}

/// Reads partial results (`(file name, text)`): they must come from the
/// same scenario and sweep, and together hold every run exactly once.
pub fn merge(files: &[(String, String)]) -> Result<Merged, String> {
    let mut header: Option<(String, u64, u32)> = None;
    let mut by_seed: BTreeMap<u64, Vec<(Arc<str>, SimTime)>> = BTreeMap::new();
    // Where each seed was read, to name the file a wrong one came from.
    let mut read_at: BTreeMap<u64, (usize, usize)> = BTreeMap::new();
    for (f, (name, text)) in files.iter().enumerate() {
        let mut lines = text.lines().enumerate();
        let (_, first) = lines.next().ok_or_else(|| format!("{name}: empty"))?;
        let h: Value = serde_json::from_str(first).map_err(|e| format!("{name}:1: {e}"))?;
        if h["schema"] != PARTIAL {
            return Err(format!("{name}:1: not a podsim partial result (schema {PARTIAL})"));
        }
        let this = (
            h["scenario"].as_str().unwrap_or_default().to_string(),
            h["firstSeed"].as_u64().ok_or_else(|| format!("{name}:1: firstSeed missing"))?,
            runs_of(&h).map_err(|e| format!("{name}:1: {e}"))?,
        );
        match &header {
            None => header = Some(this),
            Some(h) if *h != this => {
                return Err(format!(
                    "{name}: from another sweep ({} from seed {}, {} runs; the first file has {} from seed {}, {} runs)",
                    this.0, this.1, this.2, h.0, h.1, h.2
                ));
            }
            Some(_) => {}
        }
        for (i, line) in lines {
            let v: Value = serde_json::from_str(line).map_err(|e| format!("{name}:{}: {e}", i + 1))?;
            let seed = v["seed"].as_u64().ok_or_else(|| format!("{name}:{}: seed missing", i + 1))?;
            let ms = v["milestones"].as_object().ok_or_else(|| format!("{name}:{}: milestones missing", i + 1))?;
            let row = ms
                .iter()
                .map(|(k, t)| (Arc::from(k.as_str()), SimTime::from_millis(t.as_u64().unwrap_or(0))))
                .collect();
            if by_seed.insert(seed, row).is_some() {
                return Err(format!("{name}:{}: seed {seed} is in two partial results", i + 1));
            }
            read_at.insert(seed, (f, i + 1));
        }
    }
    let (scenario, first_seed, total) = header.ok_or("no partial results")?;
    let end = first_seed.checked_add(u64::from(total)).ok_or("firstSeed + runs is past the last seed (2^64 − 1)")?;
    // The seeds run first_seed..end, each once; walked in order, not listed
    // (a header may claim billions of runs).
    let mut next = first_seed;
    for &seed in by_seed.keys() {
        if seed < first_seed || seed >= end {
            let (f, line) = read_at[&seed];
            let states = match total {
                0 => "no run".to_string(),
                _ => format!("seeds {}", crate::sweep::seed_range(first_seed, total.into())),
            };
            return Err(format!(
                "{}:{line}: seed {seed} is outside the sweep its header states ({states}): a partial result of \
                 another sweep, or an edited one",
                files[f].0
            ));
        }
        if seed > next {
            return Err(missing(next, seed - 1, files.len()));
        }
        next = seed + 1;
    }
    if next < end {
        return Err(missing(next, end - 1, files.len()));
    }
    let per_run: Vec<super::RunMilestones> = by_seed.into_iter().collect();
    Ok(Merged { scenario, first_seed, runs: Runs::from_runs(per_run) })
}

/// The header's `runs`: a whole number of runs a prediction can hold ([`MAX_RUNS`]).
fn runs_of(h: &Value) -> Result<u32, String> {
    let runs = h["runs"].as_u64().ok_or("runs missing (a whole number)")?;
    match u32::try_from(runs) {
        Ok(n) if n <= MAX_RUNS => Ok(n),
        _ => Err(format!("runs {runs}: {}", super::too_many_runs())),
    }
}

/// Seeds `from..=to` are in none of the `files` partial results.
fn missing(from: u64, to: u64, files: usize) -> String {
    let seeds = if from == to { format!("seed {from} is") } else { format!("seeds {from}–{to} are") };
    format!("{seeds} in none of the {files} partial result(s) given: a shard is missing (merge every shard's file)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::predict;

    fn runs(seeds: std::ops::Range<u64>) -> Runs {
        let per_run = seeds
            .map(|s| {
                let a = (Arc::from("a"), SimTime::from_millis(s * 7 % 13));
                let b = (Arc::from("b"), SimTime::from_millis(s * 5 % 11));
                let c = (Arc::from("c"), SimTime::from_millis(20 + s));
                let row = if s % 3 == 0 { vec![a, c] } else { vec![a, b, c] };
                (s, row)
            })
            .collect();
        Runs::from_runs(per_run)
    }

    #[test]
    fn shards_cover_every_run_once() {
        let blocks: Vec<_> = (0..3).map(|k| shard_runs(10, k, 3)).collect();
        assert_eq!(blocks, vec![0..3, 3..6, 6..10]);
        assert_eq!(parse_shard("2/8"), Ok((2, 8)));
        assert!(parse_shard("8/8").is_err() && parse_shard("1/0").is_err() && parse_shard("x").is_err());
    }

    #[test]
    fn merged_shards_predict_exactly_what_one_sweep_does() {
        let whole = predict(&runs(5..25), 5);
        let files: Vec<(String, String)> = (0..3)
            .map(|k| {
                let r = shard_runs(20, k, 3);
                let part = runs(5 + r.start as u64..5 + r.end as u64);
                (format!("part{k}"), write(&part, "s.yaml", 5, 20, (k, 3)))
            })
            .collect();
        // Order of the files does not matter.
        let reversed: Vec<(String, String)> = files.iter().rev().cloned().collect();
        let merged = merge(&reversed).unwrap();
        assert_eq!(predict(&merged.runs, merged.first_seed), whole);
        let missing = merge(&files[..2]).unwrap_err();
        assert!(missing.contains("a shard is missing"), "{missing}");
        let twice = [files[0].clone(), files[0].clone()];
        assert!(merge(&twice).unwrap_err().contains("in two partial results"));
    }

    /// A header of no runs from seed 0 holds no seed: the message says so
    /// (its last seed was `0 - 1`, wrapping to 2^64 − 1 or panicking).
    #[test]
    fn a_seed_under_a_header_of_no_runs_is_outside_it() {
        let text = write(&runs(0..1), "s.yaml", 0, 0, (0, 1));
        let said = merge(&[("part".to_string(), text)]).unwrap_err();
        assert!(said.starts_with("part:2: seed 0 is outside the sweep its header states (no run)"), "{said}");
    }
}
