//! The envelope check: does a recorded timing fall inside what podsim
//! predicts for the same pod? The recorded pod's own spec is simulated with a
//! scenario's app behaviour and cluster profile over many seeds; each timing
//! the recording shows is compared with the simulated range.

mod node;
mod patches;
mod timings;

pub use timings::{AFTER_DELETION, DELETION_REQUESTED, Timing, Timings, row_timings, timings};

use crate::cluster::Node;
use crate::error::{Error, Problem, SourceFile};
use crate::manifest::Manifests;
use crate::observe::{Observed, Origin, Record, simulated_records};
use crate::run::{Prepared, ScenarioParts, setup, simulate};
use crate::sim::{Action, PodId, Scheduled};
use crate::time::{SimDuration, SimTime};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where a recorded timing falls against the simulated range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "fit", rename_all = "kebab-case")]
pub enum Fit {
    Inside,
    /// Earlier than every simulated run, by this many milliseconds at least.
    Early {
        by_ms: i64,
    },
    /// Later than every simulated run.
    Late {
        by_ms: i64,
    },
    /// No simulated run reached this point.
    NotSimulated,
}

/// One recorded timing against the simulation.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    pub timing: String,
    /// Milliseconds since the pod's creation, as an interval.
    pub recorded: (i64, i64),
    pub at: Option<String>,
    /// The smallest and largest simulated value, over the runs that reached it.
    pub simulated: Option<(i64, i64)>,
    pub runs: u32,
    pub of: u32,
    #[serde(flatten)]
    pub fit: Fit,
}

/// The envelope of one recorded pod.
#[derive(Clone, Debug, Serialize)]
pub struct Envelope {
    pub pod: String,
    /// Which spec was simulated: the recorded one, or the scenario's.
    pub spec: String,
    pub lines: Vec<Line>,
}

impl Envelope {
    pub fn misses(&self) -> bool {
        self.lines.iter().any(|l| matches!(l.fit, Fit::Early { .. } | Fit::Late { .. }))
    }
}

/// The spec of the newest recorded Pod object with that name (the first one
/// when its spec patches are replayed), as a manifest (status left out), for
/// the simulator; and a note when its node changes.
fn recorded_spec(
    records: &[Record],
    pod: &str,
    first: bool,
    nodes: &[Node],
) -> Option<(String, Origin, Option<String>)> {
    let mut versions = records.iter().filter_map(|r| match &r.observed {
        Observed::Pod(p) if p.metadata.name.as_deref() == Some(pod) && p.spec.is_some() => Some((p, &r.origin)),
        _ => None,
    });
    let (p, origin) = if first { versions.next() } else { versions.next_back() }?;
    let mut spec = p.spec.clone()?;
    let (node, note) = node::simulated_node(node::created_bound(records, pod), nodes);
    spec.node_name = node;
    let manifest = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": pod, "namespace": p.metadata.namespace, "labels": p.metadata.labels},
        "spec": spec,
    });
    Some((manifest.to_string(), origin.clone(), note))
}

/// Simulates each recorded pod `runs` times and compares its timings.
pub fn envelopes(records: &[Record], scenario: &Prepared, runs: u32) -> Result<(Vec<Envelope>, Vec<Problem>), Error> {
    let mut recorded = timings(records);
    for (pod, t) in row_timings_of_rows(records) {
        recorded.entry(pod).or_default().extend(t);
    }
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for (pod, wanted) in recorded {
        // The first start the recording shows is the base of both sides.
        let base = first_start(&wanted);
        let wanted = rebase(wanted, base.as_deref());
        if wanted.is_empty() {
            continue;
        }
        let patches = patches::recorded_patches(records, &pod);
        let (setup_used, spec) = match recorded_spec(records, &pod, !patches.is_empty(), &scenario.setup.cluster.nodes)
        {
            Some((text, origin, note)) => {
                notes.extend(note.map(|n| Problem::warning(format!("pod {pod}: {n}"))));
                let file = Arc::new(SourceFile { name: format!("{origin} (the recorded spec of pod {pod})"), text });
                let loaded = Manifests::load(&[file]).and_then(|m| {
                    setup(
                        m,
                        (*scenario.setup.behaviours).clone(),
                        (*scenario.setup.cluster).clone(),
                        scenario.clock.epoch,
                        ScenarioParts { actions: Vec::new(), gates: scenario.setup.gates.clone(), traffic: Vec::new() },
                    )
                });
                match loaded {
                    Ok((s, _)) => (s, format!("the recorded spec ({origin})")),
                    Err(Error::Input(problems)) => {
                        notes.push(Problem::warning(format!("pod {pod}: its recorded spec cannot be simulated; the scenario's manifests are used instead")));
                        notes.extend(problems.into_iter().map(Problem::warn));
                        (scenario.setup.clone(), "the scenario's manifests".to_string())
                    }
                    Err(e) => return Err(e),
                }
            }
            None => (scenario.setup.clone(), "the scenario's manifests".to_string()),
        };
        // A recorded deletion is replayed at its time (since creation) and grace.
        let mut setup_used = setup_used;
        if let Some(d) = wanted.get(DELETION_REQUESTED) {
            let at = SimTime::ZERO + SimDuration::from_millis(((d.at.lo + d.at.hi) / 2).max(0) as u64);
            let index = setup_used.pods.iter().position(|p| p.name == pod).unwrap_or(0);
            let grace = recorded_grace(records, &pod);
            let mut actions = (*setup_used.actions).clone();
            actions.push(Scheduled {
                at,
                action: Action::Delete { pod: PodId(index as u32), grace_period_seconds: grace },
            });
            actions.sort_by_key(|a| a.at);
            setup_used.actions = Arc::new(actions);
        }
        // So is each recorded spec patch.
        if !patches.is_empty() {
            let index = setup_used.pods.iter().position(|p| p.name == pod).unwrap_or(0);
            let mut actions = (*setup_used.actions).clone();
            for (at, patch) in patches {
                actions
                    .push(Scheduled { at, action: Action::Patch { pod: PodId(index as u32), patch: Arc::new(patch) } });
            }
            actions.sort_by_key(|a| a.at);
            setup_used.actions = Arc::new(actions);
        }
        let wanted: Timings = wanted.into_iter().filter(|(name, _)| name != DELETION_REQUESTED).collect();
        let mut seen: BTreeMap<String, (i64, i64, u32)> = BTreeMap::new();
        for seed in 1..=u64::from(runs) {
            let trace = simulate(&setup_used, seed, SimTime::ZERO + scenario.until);
            let sim = simulated_records(&trace, &scenario.clock);
            let mut all = timings(&sim);
            for (p, t) in row_timings(&sim) {
                all.entry(p).or_default().extend(t);
            }
            // The simulated pod is the recorded one, or the scenario's first pod.
            let simulated =
                rebase(all.remove(&pod).or_else(|| all.into_values().next()).unwrap_or_default(), base.as_deref());
            for (name, t) in simulated {
                let e = seen.entry(name).or_insert((i64::MAX, i64::MIN, 0));
                e.0 = e.0.min(t.at.lo);
                e.1 = e.1.max(t.at.hi);
                e.2 += 1;
            }
        }
        let lines = wanted
            .into_iter()
            .map(|(name, t)| {
                let sim = seen.get(&name).copied();
                let fit = match sim {
                    None => Fit::NotSimulated,
                    Some((lo, _, _)) if t.at.hi <= lo => Fit::Early { by_ms: lo - (t.at.hi - 1) },
                    Some((_, hi, _)) if t.at.lo >= hi => Fit::Late { by_ms: t.at.lo - (hi - 1) },
                    Some(_) => Fit::Inside,
                };
                Line {
                    timing: name,
                    recorded: (t.at.lo, t.at.hi),
                    at: t.origin.map(|o| o.to_string()),
                    simulated: sim.map(|(lo, hi, _)| (lo, hi)),
                    runs: sim.map_or(0, |s| s.2),
                    of: runs,
                    fit,
                }
            })
            .collect();
        out.push(Envelope { pod, spec, lines });
    }
    Ok((out, notes))
}

/// The name of the first start among `t`'s timings: a container's first
/// start, else the first `Running` row.
fn first_start(t: &Timings) -> Option<String> {
    let container = t.keys().find(|n| n.ends_with(" started #0"));
    container.or_else(|| t.keys().find(|n| n.as_str() == "Running #0")).cloned()
}

/// Measures every timing but the first start from the first start (the
/// timing named `base`): how long a pod waits for scheduling and its image
/// is the environment's business, what follows the first start is the
/// kubelet's. The first start itself stays measured from creation.
fn rebase(t: Timings, base: Option<&str>) -> Timings {
    let Some((first_name, base)) = base.and_then(|b| t.get(b).map(|v| (b.to_string(), v.at))) else { return t };
    t.into_iter()
        .map(|(name, v)| {
            // The deletion is an input, at its recorded time; what follows it is measured from it.
            if name == first_name || name == DELETION_REQUESTED || name.ends_with(AFTER_DELETION) {
                return (name, v);
            }
            let at = crate::observe::Span { lo: v.at.lo - (base.hi - 1), hi: v.at.hi - base.lo };
            (format!("{name} (after the first start)"), Timing { at, ..v })
        })
        .collect()
}

/// The grace period of a recorded deletion (`deletionGracePeriodSeconds`).
fn recorded_grace(records: &[Record], pod: &str) -> Option<i64> {
    records.iter().find_map(|r| match &r.observed {
        Observed::Pod(p) if p.metadata.name.as_deref() == Some(pod) => p.metadata.deletion_grace_period_seconds,
        _ => None,
    })
}

/// Row timings of a recording's `kubectl get` rows.
fn row_timings_of_rows(records: &[Record]) -> BTreeMap<String, Timings> {
    let rows: Vec<Record> = records.iter().filter(|r| matches!(r.observed, Observed::Row(_))).cloned().collect();
    timings(&rows)
}

/// Renders envelopes as a table.
pub fn render(envelopes: &[Envelope]) -> String {
    use std::fmt::Write;
    let secs = |ms: i64| format!("{:.1}s", ms as f64 / 1000.0);
    let mut s = String::new();
    for e in envelopes {
        let _ = writeln!(s, "envelope of pod {} (simulating {})", e.pod, e.spec);
        for l in &e.lines {
            let recorded = format!("{}–{}", secs(l.recorded.0), secs(l.recorded.1));
            let simulated = l
                .simulated
                .map_or("never".to_string(), |(a, b)| format!("{}–{} ({}/{} runs)", secs(a), secs(b), l.runs, l.of));
            let fit = match &l.fit {
                Fit::Inside => "inside".to_string(),
                Fit::Early { by_ms } => format!("EARLY by {}", secs(*by_ms)),
                Fit::Late { by_ms } => format!("LATE by {}", secs(*by_ms)),
                Fit::NotSimulated => "not simulated".to_string(),
            };
            let _ = writeln!(s, "  {:<52} recorded {:<16} simulated {:<30} {fit}", l.timing, recorded, simulated);
        }
    }
    s
}
