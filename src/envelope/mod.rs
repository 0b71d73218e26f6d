//! The envelope check: does a recorded timing fall inside what podsim
//! predicts for the same pod? The recorded pod's own spec is simulated with a
//! scenario's app behaviour and cluster profile over many seeds; each timing
//! the recording shows is compared with the simulated range.

mod containers;
mod events;
mod measure;
mod node;
mod patches;
mod timings;

pub use measure::{AFTER_FIRST_START, Contradiction, Measured, first_start, measure};
pub use timings::{AFTER_DELETION, At, DELETION_REQUESTED, PodTimings, Timing, row_state, simulated_timings, timings};

use measure::{fit_moment, fit_shown, windows};

use crate::cluster::Node;
use crate::error::{Error, Problem, SourceFile};
use crate::manifest::Manifests;
use crate::observe::{Observed, Origin, Record, Span, simulated_records};
use crate::run::{Prepared, ScenarioParts, setup, simulate};
use crate::sim::{Action, PodId, Scheduled, Setup};
use crate::time::{SimDuration, SimTime};
use k8s_openapi::api::core::v1::PodSpec;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
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
    /// Fewer occurrences than every simulated run had by then.
    Fewer {
        by: i64,
    },
    /// More occurrences than every simulated run had by then.
    More {
        by: i64,
    },
    /// No simulated run reached this point.
    NotSimulated,
}

/// What a line's numbers count.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Milliseconds: `recorded` is an interval [lo, hi), `simulated` the
    /// smallest and largest value.
    Ms,
    /// Occurrences of an event: `recorded` the count (twice), `simulated`
    /// the fewest and most.
    Events,
}

/// One recorded timing against the simulation.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    pub timing: String,
    pub unit: Unit,
    /// Milliseconds since the timing's base (creation, the first start or the
    /// deletion request), as an interval, never below 0.
    pub recorded: (i64, i64),
    pub at: Option<String>,
    /// What the recorded interval was read from and measured against.
    pub reading: String,
    /// The smallest and largest simulated value, over the runs that reached
    /// it (for a state a listing showed: when the runs showed that state).
    pub simulated: Option<(i64, i64)>,
    /// The state lasted to the end of some run: the simulated range is open.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub open_end: bool,
    pub runs: u32,
    pub of: u32,
    #[serde(flatten)]
    pub fit: Fit,
}

/// The envelope of one recorded pod.
#[derive(Clone, Debug, Serialize)]
pub struct Envelope {
    pub pod: String,
    /// The Kubernetes version the runs model (the profile's, or `--kubernetes`).
    pub kubernetes: String,
    /// Which spec was simulated: the recorded one, or the scenario's.
    pub spec: String,
    pub lines: Vec<Line>,
}

impl Envelope {
    pub fn misses(&self) -> bool {
        self.lines.iter().any(|l| !matches!(l.fit, Fit::Inside | Fit::NotSimulated))
    }
}

/// The newest recorded Pod object with that name (the first one when its
/// spec patches are replayed): where it was read, its metadata for the
/// manifest, a note when its node changes, and its spec (the node the
/// simulation uses).
fn recorded_spec(
    records: &[Record],
    pod: &str,
    first: bool,
    nodes: &[Node],
) -> Option<(Origin, serde_json::Value, Option<String>, PodSpec)> {
    let mut versions = records.iter().filter_map(|r| match &r.observed {
        Observed::Pod(p) if p.metadata.name.as_deref() == Some(pod) && p.spec.is_some() => Some((p, &r.origin)),
        _ => None,
    });
    let (p, origin) = if first { versions.next() } else { versions.next_back() }?;
    let mut spec = p.spec.clone()?;
    let (node, note) = node::simulated_node(node::created_bound(records, pod), nodes);
    spec.node_name = node;
    let metadata = serde_json::json!({"name": pod, "namespace": p.metadata.namespace, "labels": p.metadata.labels});
    Some((origin.clone(), metadata, note, spec))
}

/// A recorded spec as a manifest (status left out), for the simulator.
fn manifest(metadata: &serde_json::Value, spec: &PodSpec) -> String {
    serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}).to_string()
}

/// The pods the scenario runs (one run with its seed), by name, with their
/// first specs as the API stores them (node assignment left out).
fn scenario_pods(scenario: &Prepared) -> Result<Vec<(String, PodSpec)>, Error> {
    let trace = simulate(&scenario.setup, scenario.seed, SimTime::ZERO + scenario.until);
    trace.finished().map_err(|e| Error::input(e.problem(scenario.until)))?;
    let mut out: Vec<(String, PodSpec)> = Vec::new();
    for r in simulated_records(&trace, &scenario.clock) {
        if let Observed::Pod(p) = r.observed
            && let (Some(name), Some(mut spec)) = (p.metadata.name, p.spec)
            && !out.iter().any(|(n, _)| *n == name)
        {
            spec.node_name = None;
            out.push((name, spec));
        }
    }
    Ok(out)
}

/// The recorded pod is one the scenario runs: a pod of that name, or of the
/// same ReplicaSet (a run names its pods anew), with the very spec first
/// recorded. It is then simulated as the scenario runs it, among its other
/// objects, with its own actions (deletions, patches).
fn scenario_runs(own: &[(String, PodSpec)], pod: &str, first: Option<PodSpec>) -> bool {
    let Some(mut spec) = first else { return false };
    spec.node_name = None;
    own.iter().any(|(name, s)| {
        let same_pod = name == pod || generated_prefix(name).is_some_and(|p| generated_prefix(pod) == Some(p));
        same_pod && *s == spec
    })
}

/// What is simulated for one recorded pod.
struct Simulated {
    setup: Setup,
    /// Which spec, for the header.
    spec: String,
    /// The recorded spec itself (not the scenario's manifests).
    own_spec: bool,
    /// A recorded container simulated under the app file's name for it.
    rename: Option<containers::Rename>,
}

/// The recorded spec alone, with the app file's behaviours for its containers.
fn own_setup(
    scenario: &Prepared,
    pod: &str,
    (origin, metadata, spec): (Origin, serde_json::Value, PodSpec),
    notes: &mut Vec<Problem>,
) -> Result<Simulated, Error> {
    let (rename, warning) = containers::undescribed(&spec, &scenario.setup.behaviours);
    notes.extend(warning.map(|w| Problem::warning(format!("pod {pod}: {w}"))));
    let spec = match &rename {
        Some(r) => r.spec(spec),
        None => spec,
    };
    let text = manifest(&metadata, &spec);
    let file = Arc::new(SourceFile { name: format!("{origin} (the recorded spec of pod {pod})"), text });
    let loaded = Manifests::load(&[file]).and_then(|mut m| {
        m.assume_references_exist();
        // The app file may describe other pods' containers too (a rollout's).
        let names: Vec<&str> = m.pods.iter().flat_map(|p| p.containers.iter().map(|c| &*c.name)).collect();
        let behaviours = scenario.setup.behaviours.only(&names);
        setup(
            m,
            behaviours,
            (*scenario.setup.cluster).clone(),
            scenario.clock.epoch,
            ScenarioParts { actions: Vec::new(), gates: scenario.setup.gates.clone(), traffic: Vec::new() },
        )
    });
    match loaded {
        Ok((setup, _)) => {
            Ok(Simulated { setup, spec: format!("the recorded spec ({origin})"), own_spec: true, rename })
        }
        Err(Error::Input(problems)) => {
            notes.push(Problem::warning(format!(
                "pod {pod}: its recorded spec cannot be simulated; the scenario's manifests are used instead"
            )));
            notes.extend(problems.into_iter().map(Problem::warn));
            Ok(Simulated {
                setup: scenario.setup.clone(),
                spec: "the scenario's manifests".to_string(),
                own_spec: false,
                rename: None,
            })
        }
        Err(e) => Err(e),
    }
}

/// Why a recorded pod gives nothing to compare.
fn nothing_timed(t: &PodTimings) -> String {
    let names: Vec<&str> = t.moments.keys().map(String::as_str).take(4).collect();
    let what = if !names.is_empty() {
        format!(
            "its times ({}) are instants, and the recording has neither the pod's creationTimestamp nor the start \
             of its first instance to measure them from",
            names.join(", ")
        )
    } else if t.created.is_some() {
        "its objects show no container start or exit, Ready or deletion yet".to_string()
    } else {
        "the recording shows no time of it since its creation".to_string()
    };
    format!("nothing to compare: {what}, and no event counted more than once (`(xN over …)`)")
}

/// Simulates each recorded pod `runs` times and compares its timings.
pub fn envelopes(records: &[Record], scenario: &Prepared, runs: u32) -> Result<(Vec<Envelope>, Vec<Problem>), Error> {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let all = timings(records);
    let own = if all.is_empty() { Vec::new() } else { scenario_pods(scenario)? };
    let mut shared: BTreeMap<u64, BTreeMap<String, PodTimings>> = BTreeMap::new();
    let ranks = ranks(&all);
    let end = scenario.clock.epoch.as_millisecond() + scenario.until.as_millis() as i64;
    let kubernetes = scenario.setup.cluster.version.to_string();
    for (pod, recorded) in all {
        let rank = ranks.get(&pod).copied().unwrap_or(0);
        // The first start the recording shows is the base of both sides.
        let base = first_start(&recorded);
        let (measured, contradictions) = measure(&recorded, base.as_deref());
        for (origin, why) in &recorded.contradictions {
            notes.push(contradiction(&pod, origin, why));
        }
        for c in contradictions {
            let why = format!(
                "`{}` would be {} ({}): the recording contradicts itself; not compared",
                c.name,
                before(c.at),
                c.reading
            );
            notes.push(match &c.origin {
                Some(o) => contradiction(&pod, o, &why),
                None => Problem::warning(format!("pod {pod}: {why}")),
            });
        }
        let wanted: Vec<Measured> = measured.into_iter().filter(|m| m.name != DELETION_REQUESTED).collect();
        if wanted.is_empty() && recorded.event_counts.is_empty() {
            if recorded.contradictions.is_empty() {
                notes.push(Problem::warning(format!("pod {pod}: {}", nothing_timed(&recorded))));
            }
            continue;
        }
        let patches = patches::recorded_patches(records, &pod);
        let nodes = &scenario.setup.cluster.nodes;
        let first = recorded_spec(records, &pod, true, nodes).map(|s| s.3);
        let sim = match recorded_spec(records, &pod, !patches.is_empty(), nodes) {
            Some((origin, ..)) if scenario_runs(&own, &pod, first) => Simulated {
                setup: scenario.setup.clone(),
                spec: format!("the scenario's manifests, which run the recorded spec ({origin})"),
                own_spec: false,
                rename: None,
            },
            Some((origin, metadata, note, spec)) => {
                notes.extend(note.map(|n| Problem::warning(format!("pod {pod}: {n}"))));
                own_setup(scenario, &pod, (origin, metadata, spec), &mut notes)?
            }
            None => Simulated {
                setup: scenario.setup.clone(),
                spec: "the scenario's manifests".to_string(),
                own_spec: false,
                rename: None,
            },
        };
        let Simulated { setup: mut setup_used, spec, own_spec, rename } = sim;
        // A recorded deletion is replayed at its time (since creation) and grace.
        let deletion = recorded.moments.get(DELETION_REQUESTED).and_then(|d| recorded.since_creation(&d.at));
        if own_spec {
            let replayed = replayed_actions(&scenario.setup, &pod, &setup_used, deletion.is_none());
            setup_used.actions = Arc::new(replayed);
        }
        // (Not when the scenario deletes or patches it itself, or a controller made it.)
        let index = setup_used.pods.iter().position(|p| p.name == pod);
        let deletes = |a: &Scheduled| match &a.action {
            Action::Delete { pod: id, .. } => Some(id.0 as usize) == index,
            Action::DeleteMatching { prefix, .. } => pod.starts_with(&**prefix),
            _ => false,
        };
        let patches_it =
            |a: &Scheduled| matches!(&a.action, Action::Patch { pod: id, .. } if Some(id.0 as usize) == index);
        let replay = deletion.is_some() && index.is_some() && !setup_used.actions.iter().any(deletes);
        let patched = !patches.is_empty() && index.is_some() && !setup_used.actions.iter().any(patches_it);
        let mut actions = (*setup_used.actions).clone();
        if let (Some(d), Some(index), true) = (deletion, index, replay) {
            let at = SimTime::ZERO + SimDuration::from_millis(((d.lo + d.hi) / 2).max(0) as u64);
            let grace = recorded_grace(records, &pod);
            actions.push(Scheduled {
                at,
                action: Action::Delete { pod: PodId(index as u32), grace_period_seconds: grace },
            });
        }
        // So is each recorded spec patch (an image by the simulated container's name).
        if let (Some(index), true) = (index, patched) {
            for (at, mut patch) in patches {
                for image in &mut patch.images {
                    if let Some(r) = rename.as_ref().filter(|r| r.recorded == image.container) {
                        image.container = r.described.clone();
                    }
                }
                let action = Action::Patch { pod: PodId(index as u32), patch: Arc::new(patch) };
                actions.push(Scheduled { at, action });
            }
        }
        if replay || patched {
            actions.sort_by_key(|a| a.at);
            setup_used.actions = Arc::new(actions);
        }
        let mut moments: BTreeMap<String, (i64, i64, u32)> = BTreeMap::new();
        let mut shown: Shown = BTreeMap::new();
        let mut counted: Vec<events::Tally> = recorded.event_counts.iter().map(|_| events::Tally::default()).collect();
        // The scenario as written is simulated once per seed for all the pods it answers.
        let as_written = !own_spec && !replay && !patched;
        for seed in 1..=u64::from(runs) {
            let run = |setup: &Setup| {
                let trace = simulate(setup, seed, SimTime::ZERO + scenario.until);
                trace.finished().map_err(|e| Error::input(e.problem(scenario.until)))?;
                Ok::<_, Error>(simulated_timings(&simulated_records(&trace, &scenario.clock)))
            };
            let fresh;
            let all = if as_written {
                match shared.entry(seed) {
                    std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::btree_map::Entry::Vacant(e) => e.insert(run(&scenario.setup)?),
                }
            } else {
                fresh = run(&setup_used)?;
                &fresh
            };
            let Some(simulated) = counterpart(all, &pod, rank) else { continue };
            // A name several pods had in the run: the recording may show any of
            // them, so each timing's range covers every one.
            let later = (2..).map_while(|k| all.get(&timings::incarnation(&pod, k)));
            let (mut reached, mut showed) = (BTreeSet::new(), BTreeSet::new());
            let mut event_writes = BTreeMap::new();
            for simulated in std::iter::once(simulated).chain(later) {
                let renamed;
                let simulated = match &rename {
                    Some(r) => {
                        renamed = r.timings(simulated);
                        &renamed
                    }
                    None => simulated,
                };
                for m in measure(simulated, base.as_deref()).0 {
                    let e = moments.entry(m.name.clone()).or_insert((i64::MAX, i64::MIN, 0));
                    (e.0, e.1) = (e.0.min(m.at.lo), e.1.max(m.at.hi));
                    if reached.insert(m.name) {
                        e.2 += 1;
                    }
                }
                for (state, from, to) in windows(simulated, base.as_deref()) {
                    let e = shown.entry(state.clone()).or_default();
                    e.0.push((from, to));
                    if showed.insert(state) {
                        e.1 += 1;
                    }
                }
                // Each Event object is about one of them: their writes, together.
                event_writes.extend(simulated.event_writes.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            for (tally, e) in counted.iter_mut().zip(&recorded.event_counts) {
                tally.add(e, &event_writes, end);
            }
        }
        let mut lines: Vec<Line> = wanted.into_iter().map(|w| line(w, &moments, &shown, runs)).collect();
        for (tally, e) in counted.into_iter().zip(&recorded.event_counts) {
            lines.extend(tally.lines(e, runs));
        }
        out.push(Envelope { pod, kubernetes: kubernetes.clone(), spec, lines });
    }
    Ok((out, notes))
}

/// A warning at the record that contradicts the rest.
fn contradiction(pod: &str, origin: &Origin, why: &str) -> Problem {
    Problem::warning(format!("pod {pod}: {why}")).at_line(&origin.file, origin.line)
}

/// A negative interval as the time before the base it would put a timing.
fn before(at: Span) -> String {
    let secs = |ms: i64| format!("{:.1}", ms as f64 / 1000.0);
    format!("{}–{} s before its base", secs(-at.hi), secs(-at.lo))
}

/// Per row state: the windows (ms, the end open when it lasted to the end of
/// a run) in which the runs showed it, and in how many runs.
type Shown = BTreeMap<String, (Vec<(i64, Option<i64>)>, u32)>;

/// A recorded timing against what the runs gave.
fn line(w: Measured, moments: &BTreeMap<String, (i64, i64, u32)>, shown: &Shown, runs: u32) -> Line {
    let (fit, simulated, open_end, reached) = match &w.shown {
        None => {
            let sim = moments.get(&w.name).map(|s| ((s.0, s.1), s.2));
            (fit_moment(w.at, sim.map(|s| s.0)), sim.map(|s| s.0), false, sim.map_or(0, |s| s.1))
        }
        Some(state) => {
            let empty = (Vec::new(), 0);
            let (ws, reached) = shown.get(state).unwrap_or(&empty);
            let lo = ws.iter().map(|w| w.0).min();
            let hi = ws.iter().filter_map(|w| w.1).max().unwrap_or(0);
            let open_end = ws.iter().any(|w| w.1.is_none());
            (fit_shown(w.at, ws), lo.map(|lo| (lo, hi.max(lo + 1))), open_end, *reached)
        }
    };
    Line {
        timing: w.name,
        unit: Unit::Ms,
        recorded: (w.at.lo, w.at.hi),
        at: w.origin.map(|o| o.to_string()),
        reading: w.reading,
        simulated,
        open_end,
        runs: reached,
        of: runs,
        fit,
    }
}

/// A pod name the ReplicaSet controller generated: `web-5d8f7c9b4-x2x9z`,
/// its prefix and a 5-character suffix of `utilrand.String`'s alphabet.
fn generated_prefix(name: &str) -> Option<&str> {
    const ALPHABET: &str = "bcdfghjklmnpqrstvwxz2456789";
    let (prefix, suffix) = name.rsplit_once('-')?;
    (suffix.len() == 5 && suffix.chars().all(|c| ALPHABET.contains(c))).then_some(prefix)
}

/// Each recorded pod's rank among the pods of its generated prefix, in order of appearance.
fn ranks(all: &BTreeMap<String, PodTimings>) -> BTreeMap<String, usize> {
    let mut by_prefix: BTreeMap<&str, Vec<(usize, &str)>> = BTreeMap::new();
    for (name, t) in all {
        if let Some(prefix) = generated_prefix(name) {
            by_prefix.entry(prefix).or_default().push((t.first_record, name));
        }
    }
    let mut out = BTreeMap::new();
    for pods in by_prefix.values_mut() {
        pods.sort();
        out.extend(pods.iter().enumerate().map(|(rank, (_, name))| (name.to_string(), rank)));
    }
    out
}

/// The simulated pod that answers a recorded one: the pod of that name; for
/// a generated name (a run names its pods anew), the pod of the same
/// ReplicaSet (prefix) that appeared `rank`-th; else the run's only pod.
fn counterpart<'a>(all: &'a BTreeMap<String, PodTimings>, pod: &str, rank: usize) -> Option<&'a PodTimings> {
    if let Some(t) = all.get(pod) {
        return Some(t);
    }
    if let Some(prefix) = generated_prefix(pod) {
        let mut same: Vec<(usize, &PodTimings)> =
            all.iter().filter(|(n, _)| generated_prefix(n) == Some(prefix)).map(|(_, t)| (t.first_record, t)).collect();
        same.sort_by_key(|(first, _)| *first);
        return same.get(rank).map(|(_, t)| *t);
    }
    (all.len() == 1).then(|| all.values().next()).flatten()
}

/// The scenario's actions on the pod, for its recorded spec (the only pod
/// of `recorded`): readiness-gate conditions, signals to a container (by
/// name) and, when the recording shows no deletion of its own, a deletion.
fn replayed_actions(scenario: &Setup, pod: &str, recorded: &Setup, delete: bool) -> Vec<Scheduled> {
    let is_pod = |id: &PodId| scenario.pods.get(id.0 as usize).is_some_and(|p| p.name == pod);
    let container = |id: &PodId, c: usize| {
        let name = &scenario.pods.get(id.0 as usize)?.containers.get(c)?.name;
        recorded.pods.first()?.containers.iter().position(|x| x.name == *name)
    };
    let action = |a: &Action| match a {
        Action::SetCondition { pod: id, condition, status } if is_pod(id) => {
            Some(Action::SetCondition { pod: PodId(0), condition: condition.clone(), status: *status })
        }
        Action::Kill { pod: id, container: c, signal } if is_pod(id) => {
            Some(Action::Kill { pod: PodId(0), container: container(id, *c)?, signal: *signal })
        }
        Action::Delete { pod: id, grace_period_seconds } if delete && is_pod(id) => {
            Some(Action::Delete { pod: PodId(0), grace_period_seconds: *grace_period_seconds })
        }
        _ => None,
    };
    scenario.actions.iter().filter_map(|s| Some(Scheduled { at: s.at, action: action(&s.action)? })).collect()
}

/// The grace period of a recorded deletion (`deletionGracePeriodSeconds`).
fn recorded_grace(records: &[Record], pod: &str) -> Option<i64> {
    records.iter().find_map(|r| match &r.observed {
        Observed::Pod(p) if p.metadata.name.as_deref() == Some(pod) => p.metadata.deletion_grace_period_seconds,
        _ => None,
    })
}

/// Renders envelopes as a table, each line followed by what its recorded
/// interval was read from; `paint` writes each fit's words (`inside`,
/// `LATE by 2.0s`), which the command line colours.
pub fn render(envelopes: &[Envelope], paint: &dyn Fn(&Fit, String) -> String) -> String {
    use std::fmt::Write;
    let secs = |ms: i64| format!("{:.1}s", ms as f64 / 1000.0);
    // A gap under a tenth of a second is shown in milliseconds, never as `0.0s`.
    let gap = |ms: i64| if ms < 100 { format!("{ms}ms") } else { secs(ms) };
    let mut s = String::new();
    for e in envelopes {
        let _ = writeln!(s, "envelope of pod {} on Kubernetes {} (simulating {})", e.pod, e.kubernetes, e.spec);
        let _ = writeln!(
            s,
            "  recorded: the interval the recording allows; simulated: the earliest and latest of the runs that reached it"
        );
        for l in &e.lines {
            let (recorded, range) = match l.unit {
                Unit::Ms => {
                    let end = |hi: i64| if l.open_end { "end".to_string() } else { secs(hi) };
                    (
                        format!("{}–{}", secs(l.recorded.0), secs(l.recorded.1)),
                        l.simulated.map(|(a, b)| format!("{}–{}", secs(a), end(b))),
                    )
                }
                Unit::Events => (
                    l.recorded.0.to_string(),
                    l.simulated.map(|(a, b)| if a == b { a.to_string() } else { format!("{a}–{b}") }),
                ),
            };
            let simulated = range.map_or("never".to_string(), |r| format!("{r} ({}/{} runs)", l.runs, l.of));
            let fit = match &l.fit {
                Fit::Inside => "inside".to_string(),
                Fit::Early { by_ms } => format!("EARLY by {}", gap(*by_ms)),
                Fit::Late { by_ms } => format!("LATE by {}", gap(*by_ms)),
                Fit::Fewer { by } => format!("FEWER by {by}"),
                Fit::More { by } => format!("MORE by {by}"),
                Fit::NotSimulated => "not simulated".to_string(),
            };
            let fit = paint(&l.fit, fit);
            let _ = writeln!(s, "  {:<52} recorded {:<16} simulated {:<30} {fit}", l.timing, recorded, simulated);
            let at = l.at.as_deref().map_or(String::new(), |a| format!(" ({a})"));
            let _ = writeln!(s, "      {}{at}", l.reading);
        }
    }
    s
}
