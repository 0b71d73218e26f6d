//! Timings a person reads off a pod's history: when it became Ready, when
//! each container instance (init containers included) started and exited,
//! when CrashLoopBackOff showed, and which state a listing showed at which
//! age. The same extraction serves recordings and simulated traces, so their
//! numbers compare.

use super::events::{self, EventCount, Versions};
use crate::observe::{Observed, Origin, PodRow, Printed, Record, Span, When, last_state_instance};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The suffix of timings measured from the deletion request.
pub const AFTER_DELETION: &str = " (after the deletion request)";

/// The name of the timing that is the deletion request itself.
pub const DELETION_REQUESTED: &str = "deletion requested";

/// Where a timing sits in time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum At {
    /// An instant, in ms since the epoch: a whole-second timestamp of the
    /// object, or the time a trace line was written.
    Instant(Span),
    /// Time since the pod's creation: a row's AGE (kubectl prints no instant).
    SinceCreation(Span),
}

/// One timing as the recording shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timing {
    pub at: At,
    pub origin: Option<Origin>,
    /// What it was read from, for the explanation of its interval.
    pub basis: String,
}

/// Everything timed about one pod.
#[derive(Clone, Debug, Default)]
pub struct PodTimings {
    /// The index of the pod's first record: pods in order of appearance.
    pub first_record: usize,
    /// creationTimestamp (a whole second), when the recording has it.
    pub created: Option<Span>,
    /// Moments of change by name (`app started #2`), the first occurrence of each.
    pub moments: BTreeMap<String, Timing>,
    /// States a listing showed (`1/1 Running 0`), each at an age.
    pub shown: Vec<(String, Timing)>,
    /// In a simulated trace: the ages (ms since creation) at which each row
    /// state began and ended (None: it lasted to the end of the run).
    pub windows: BTreeMap<String, Vec<(i64, Option<i64>)>>,
    /// Where the recording contradicts itself, and why: not compared.
    pub contradictions: Vec<(Origin, String)>,
    /// Aggregated events (`(x3 over 75s)`, an Event's count).
    pub event_counts: Vec<EventCount>,
    /// The listing each row of `event_counts` came from (Event objects: none).
    event_listings: Vec<usize>,
    /// In a simulated trace: every write of each Event object about the pod, by name.
    pub event_writes: BTreeMap<String, Versions>,
}

impl PodTimings {
    /// `t` measured from the pod's creation, when the recording allows it.
    pub fn since_creation(&self, t: &At) -> Option<Span> {
        match t {
            At::SinceCreation(s) => Some(*s),
            At::Instant(s) => self.created.map(|c| s.difference(&c)),
        }
    }

    /// `t − base`: directly between two instants, else through the creation.
    pub fn between(&self, t: &At, base: &At) -> Option<Span> {
        match (t, base) {
            (At::Instant(a), At::Instant(b)) => Some(a.difference(b)),
            _ => Some(self.since_creation(t)?.difference(&self.since_creation(base)?)),
        }
    }

    fn insert(&mut self, name: String, at: At, origin: &Origin, basis: String) {
        self.moments.entry(name).or_insert(Timing { at, origin: Some(origin.clone()), basis });
    }

    /// A moment seen again (the same exit behind several RESTARTS
    /// annotations): the instants every sighting allows.
    fn narrow(&mut self, name: String, at: At, origin: &Origin, basis: String) {
        let new = Timing { at, origin: Some(origin.clone()), basis };
        let Some(old) = self.moments.get_mut(&name) else {
            self.moments.insert(name, new);
            return;
        };
        let (At::SinceCreation(a), At::SinceCreation(b)) = (old.at, at) else { return };
        if let Some(both) = a.intersect(&b) {
            if both != a {
                old.at = At::SinceCreation(both);
                old.basis = format!("{} and {}", old.basis, new.basis);
            }
        } else if a.hi < b.lo || b.hi < a.lo {
            // Not even touching: two readings of one moment that cannot both be true.
            let first = old.origin.as_ref().map_or(String::new(), |o| format!(" at {o}"));
            let why = format!(
                "`{name}` is {} since creation here ({}) but {} as read{first} ({}): the first reading is kept",
                show(b),
                new.basis,
                show(a),
                old.basis
            );
            self.contradictions.push((origin.clone(), why));
        }
    }
}

fn secs(t: &Time) -> i64 {
    t.0.as_second()
}

fn instant(t: &Time) -> At {
    At::Instant(Span::second(secs(t)))
}

/// Extracts the timings of every pod in `records`, keyed by pod name.
pub fn timings(records: &[Record]) -> BTreeMap<String, PodTimings> {
    let mut out: BTreeMap<String, PodTimings> = BTreeMap::new();
    // Event objects by name: the version with the highest count.
    let mut event_objects: BTreeMap<String, (String, EventCount)> = BTreeMap::new();
    // The rows of one listing (consecutive event rows of one file), by pod and reason.
    let (mut listing, mut in_listing) = (0usize, false);
    let mut listed: BTreeMap<(usize, String, String), usize> = BTreeMap::new();
    // What the current output of each file showed of each pod: a change reads against it.
    let mut outputs: BTreeMap<(Arc<str>, String), Output> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        let first = || PodTimings { first_record: i, ..PodTimings::default() };
        let row = matches!(r.observed, Observed::EventRow { .. });
        if !row || !in_listing || records.get(i.wrapping_sub(1)).is_some_and(|p| p.origin.file != r.origin.file) {
            listing += usize::from(row);
        }
        in_listing = row;
        match &r.observed {
            Observed::EventRow { pod: Some(pod), row } => {
                let t = out.entry(pod.clone()).or_insert_with(first);
                let Some(e) = events::from_row(row, &r.origin) else { continue };
                *listed.entry((listing, pod.clone(), e.reason.clone())).or_default() += 1;
                t.event_counts.push(e);
                t.event_listings.push(listing);
            }
            Observed::Event(e) if e.involved_object.kind.as_deref() == Some("Pod") => {
                let (Some(pod), Some(name)) = (e.involved_object.name.clone(), e.metadata.name.clone()) else {
                    continue;
                };
                let t = out.entry(pod.clone()).or_insert_with(first);
                if let When::At(seen) = r.seen {
                    let v = t.event_writes.entry(name.clone()).or_insert_with(|| Versions {
                        reason: e.reason.clone().unwrap_or_default(),
                        message: e.message.clone().unwrap_or_default(),
                        field_path: e.involved_object.field_path.clone(),
                        first: e.first_timestamp.as_ref().map_or(seen.lo, |f| f.0.as_second() * 1000),
                        writes: Vec::new(),
                    });
                    v.writes.push((seen.lo, u32::try_from(e.count.unwrap_or(1)).unwrap_or(1)));
                }
                if let Some(c) = events::from_event(e, &r.origin)
                    && event_objects.get(&name).is_none_or(|(_, old)| old.count < c.count)
                {
                    event_objects.insert(name, (pod, c));
                }
            }
            Observed::Pod(p) => {
                let Some(name) = p.metadata.name.clone() else { continue };
                let t = out.entry(name).or_insert_with(first);
                if let Some(c) = p.metadata.creation_timestamp.as_ref() {
                    t.created = Some(Span::second(secs(c)));
                }
                from_object(p, r, t);
            }
            Observed::Row(row) => {
                // RESTARTS `3 (33s ago)` and AGE are printed at the same instant.
                let t = out.entry(row.name.clone()).or_insert_with(first);
                let exit = row.last_restart_ago.and_then(|ago| {
                    let at = row.age.difference(&ago);
                    let basis = format!("AGE {} − RESTARTS' `ago` {}", show(row.age), show(ago));
                    if at.hi < 0 {
                        let why = format!(
                            "`{}` names an exit {} ago in a pod whose AGE is {}: before the pod was created; not compared",
                            row_state(row),
                            show(ago),
                            show(row.age)
                        );
                        t.contradictions.push((r.origin.clone(), why));
                        return None;
                    }
                    Some((At::SinceCreation(at), basis))
                });
                // A change is read against the rows before it in its output; a
                // snapshot is the first row of its pod in an output (a listing).
                let key = (r.origin.file.clone(), row.name.clone());
                match (row.printed, outputs.get_mut(&key)) {
                    (Printed::Change, Some(output)) => {
                        from_row(row, Some(&*output), exit, &r.origin, t);
                        output.after(row);
                    }
                    // (A reader prints no change without a row before it; if one did, it
                    // is only a state at its AGE.)
                    _ => {
                        from_row(&PodRow { printed: Printed::Snapshot, ..row.clone() }, None, exit, &r.origin, t);
                        outputs.insert(key, Output::starting(row));
                    }
                }
            }
            _ => {}
        }
    }
    for (pod, c) in event_objects.into_values() {
        out.entry(pod).or_default().event_counts.push(c);
    }
    // Two rows of one reason in one listing (different messages): each answered by its message.
    for (pod, t) in &mut out {
        for (e, l) in t.event_counts.iter_mut().zip(&t.event_listings) {
            e.by_message = listed.get(&(*l, pod.clone(), e.reason.clone())).is_some_and(|n| *n > 1);
        }
    }
    out
}

/// A printed age as the interval it stands for.
fn show(s: Span) -> String {
    let secs = |ms: i64| format!("{}s", ms as f64 / 1000.0);
    format!("[{}, {})", secs(s.lo), secs(s.hi))
}

fn from_object(p: &Pod, r: &Record, out: &mut PodTimings) {
    let o = &r.origin;
    let status = p.status.as_ref();
    let all =
        || status.into_iter().flat_map(|s| s.init_container_statuses.iter().chain(&s.container_statuses)).flatten();
    // Deletion: the request (deletionTimestamp − grace), and each container's end after it.
    if let Some(dt) = p.metadata.deletion_timestamp.as_ref() {
        let requested = secs(dt) - p.metadata.deletion_grace_period_seconds.unwrap_or(0);
        let basis = "deletionTimestamp − deletionGracePeriodSeconds".to_string();
        out.insert(DELETION_REQUESTED.into(), At::Instant(Span::second(requested)), o, basis);
        for s in all() {
            if let Some(t) = s.state.as_ref().and_then(|x| x.terminated.as_ref()).and_then(|t| t.finished_at.as_ref())
                && secs(t) >= requested
            {
                out.insert(format!("{} stopped{AFTER_DELETION}", s.name), instant(t), o, "finishedAt".into());
            }
        }
    }
    if let Some(ready) = status
        .and_then(|s| s.conditions.as_ref())
        .into_iter()
        .flatten()
        .find(|c| c.type_ == "Ready" && c.status == "True")
        && let Some(t) = ready.last_transition_time.as_ref()
    {
        // A snapshot shows the latest transition: name it by the restarts it
        // came after, so it meets the same transition of a full trace.
        let restarts: i32 = all().map(|s| s.restart_count).sum();
        let name = if restarts == 0 { "Ready".to_string() } else { format!("Ready (RESTARTS {restarts})") };
        out.insert(name, instant(t), o, "Ready's lastTransitionTime".into());
    }
    for s in all() {
        let state = s.state.as_ref();
        let n = s.restart_count;
        if let Some(t) = state.and_then(|x| x.running.as_ref()).and_then(|x| x.started_at.as_ref()) {
            out.insert(format!("{} started #{n}", s.name), instant(t), o, "startedAt".into());
        }
        if let Some(t) = state.and_then(|x| x.terminated.as_ref()) {
            if let Some(at) = t.started_at.as_ref() {
                out.insert(format!("{} started #{n}", s.name), instant(at), o, "startedAt".into());
            }
            if let Some(at) = t.finished_at.as_ref() {
                out.insert(format!("{} exited #{n}", s.name), instant(at), o, "finishedAt".into());
            }
        }
        let last = s.last_state.as_ref().and_then(|l| l.terminated.as_ref());
        if let (Some(t), Some(k)) = (last, last_state_instance(s)) {
            if let Some(at) = t.started_at.as_ref() {
                out.insert(format!("{} started #{k}", s.name), instant(at), o, "lastState's startedAt".into());
            }
            if let Some(at) = t.finished_at.as_ref() {
                out.insert(format!("{} exited #{k}", s.name), instant(at), o, "lastState's finishedAt".into());
            }
        }
        // When CrashLoopBackOff showed is an observation time: only a trace with times has it.
        if let (Some(w), When::At(seen)) = (state.and_then(|x| x.waiting.as_ref()), r.seen)
            && w.reason.as_deref() == Some("CrashLoopBackOff")
        {
            let basis = "the time of the write showing it".to_string();
            out.insert(format!("{} CrashLoopBackOff after #{n}", s.name), At::Instant(seen), o, basis);
        }
    }
}

/// A row's state: READY, STATUS and RESTARTS as printed (without the `(… ago)`).
pub fn row_state(row: &PodRow) -> String {
    format!("{}/{} {} {}", row.ready.0, row.ready.1, row.status, row.restarts)
}

/// Which container instance the RESTARTS annotation's exit is, for a pod with
/// one counted container: printPod takes the newest `lastState` finish, and
/// the STATUS shows whether that container waits (then `lastState` is
/// instance N), runs or has ended (instance N − 1). With more containers, or
/// while init containers run (their restarts are summed too), it is unknown.
fn annotated_exit(row: &PodRow) -> Option<u32> {
    if row.ready.1 != 1 {
        return None;
    }
    const WAITING: &[&str] = &[
        "CrashLoopBackOff",
        "ErrImagePull",
        "ImagePullBackOff",
        "CreateContainerError",
        "CreateContainerConfigError",
        "RunContainerError",
        "InvalidImageName",
        "PostStartHookError",
    ];
    const OWN: &[&str] =
        &["Running", "NotReady", "Completed", "Error", "OOMKilled", "ContainerCannotRun", "StartError"];
    let status = row.status.as_str();
    if WAITING.contains(&status) {
        Some(row.restarts)
    } else if OWN.contains(&status) || status.starts_with("ExitCode:") || status.starts_with("Signal:") {
        row.restarts.checked_sub(1)
    } else {
        None
    }
}

/// What one output (a watch, or a simulated run's writes) showed of a pod
/// before a row: its first row and its latest.
#[derive(Clone, Debug)]
struct Output {
    first: PodRow,
    last: PodRow,
}

impl Output {
    fn starting(row: &PodRow) -> Output {
        Output { first: row.clone(), last: row.clone() }
    }

    fn after(&mut self, row: &PodRow) {
        self.last = row.clone();
    }

    /// A moment named by restart count `n` that this output shows is the
    /// pod's first of that name: the output began before the n-th restart,
    /// or before any regular container started (a listing of `Pending`,
    /// `ContainerCreating`, `PodInitializing`, `Init:…`; while initializing,
    /// printPod sums the init containers' restarts, which stop counting
    /// once the pod is initialized).
    fn saw_before(&self, n: u32) -> bool {
        let first = &self.first;
        let not_started = matches!(first.status.as_str(), "Pending" | "ContainerCreating" | "PodInitializing")
            || first.status.starts_with("Init:");
        not_started || first.restarts < n
    }
}

/// `all containers ready`, named like Ready by the restarts it came after.
fn all_ready(restarts: u32) -> String {
    match restarts {
        0 => "all containers ready".to_string(),
        n => format!("all containers ready (RESTARTS {n})"),
    }
}

/// A row. A change row is a moment (AGE is when it changed), read against
/// the row before it in its output: `Running #n` when STATUS becomes
/// Running or RESTARTS steps while Running, all containers ready when READY
/// becomes n/n, `CrashLoopBackOff after #n` when STATUS becomes it; each
/// only when the output began early enough to see the first of its name. A
/// listing's row is a state held at its AGE. The RESTARTS annotation names
/// an exit either way.
fn from_row(row: &PodRow, before: Option<&Output>, exit: Option<(At, String)>, o: &Origin, out: &mut PodTimings) {
    if let (Some((at, basis)), Some(k)) = (exit, annotated_exit(row)) {
        out.narrow(format!("exited #{k}"), at, o, basis);
    }
    let age = At::SinceCreation(row.age);
    match (row.printed, before) {
        (Printed::Change, Some(before)) => {
            if !before.saw_before(row.restarts) {
                return;
            }
            let prev = &before.last;
            let basis = || format!("a watch row's AGE {}, after `{}`", show(row.age), row_state(prev));
            let became =
                |status: &str| row.status == status && (prev.status != status || prev.restarts != row.restarts);
            if became("CrashLoopBackOff") {
                out.insert(format!("CrashLoopBackOff after #{}", row.restarts), age, o, basis());
            }
            if became("Running") {
                out.insert(format!("Running #{}", row.restarts), age, o, basis());
            }
            let all = |r: &PodRow| r.ready.1 > 0 && r.ready.0 == r.ready.1;
            if all(row) && (!all(prev) || prev.restarts != row.restarts) {
                out.insert(all_ready(row.restarts), age, o, basis());
            }
        }
        // A simulated pod's first write, its creation: nothing has happened yet.
        (Printed::Change, None) => {}
        (Printed::Snapshot, _) => {
            let basis = format!("a listing's AGE {}: the state then, entered earlier", show(row.age));
            out.shown.push((row_state(row), Timing { at: age, origin: Some(o.clone()), basis }));
        }
    }
}

/// The key of the `k`-th pod (from 2) a run gave the name `name`: a
/// StatefulSet re-creates an ordinal under the same name.
pub fn incarnation(name: &str, k: usize) -> String {
    format!("{name}#{k}")
}

/// The records with each later pod of a reused name (and the Events about
/// it) renamed by [`incarnation`], so each is timed on its own.
fn split_incarnations(records: &[Record]) -> Vec<Record> {
    let mut uids: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    for r in records {
        if let Observed::Pod(p) = &r.observed
            && let (Some(name), Some(uid)) = (&p.metadata.name, &p.metadata.uid)
        {
            let seen = uids.entry(name.clone()).or_default();
            if !seen.contains(uid) {
                seen.push(uid.clone());
                if seen.len() > 1 {
                    renamed.insert(uid.clone(), incarnation(name, seen.len()));
                }
            }
        }
    }
    let mut out = records.to_vec();
    if renamed.is_empty() {
        return out;
    }
    for r in &mut out {
        match &mut r.observed {
            Observed::Pod(p) => {
                if let Some(name) = p.metadata.uid.as_ref().and_then(|u| renamed.get(u)) {
                    p.metadata.name = Some(name.clone());
                }
            }
            Observed::Event(e) => {
                if let Some(name) = e.involved_object.uid.as_ref().and_then(|u| renamed.get(u)) {
                    e.involved_object.name = Some(name.clone());
                }
            }
            _ => {}
        }
    }
    out
}

/// The timings of a simulated trace: those of its objects, plus the rows
/// `kubectl get pods -w` would print at each API write (changes), and how
/// long each row state lasted. Each later pod of a reused name is timed
/// under its [`incarnation`] key.
pub fn simulated_timings(records: &[Record]) -> BTreeMap<String, PodTimings> {
    let split = split_incarnations(records);
    let records = split.as_slice();
    let mut out = timings(records);
    let mut open: BTreeMap<String, (String, i64)> = BTreeMap::new();
    // Every write of each pod, from its creation: the output a watch since then prints.
    let mut outputs: BTreeMap<String, Output> = BTreeMap::new();
    for r in records {
        let (Observed::Pod(p), When::At(seen)) = (&r.observed, r.seen) else { continue };
        let (Some(name), Some(created)) = (p.metadata.name.clone(), p.metadata.creation_timestamp.as_ref().map(secs))
        else {
            continue;
        };
        let Some((row, last_exit)) = as_row(p) else { continue };
        let age = seen.lo - created * 1000;
        let row = PodRow { age: Span::exact(age), ..row };
        let t = out.entry(name.clone()).or_default();
        let exit = last_exit.map(|f| (At::Instant(Span::second(f)), "the newest lastState's finishedAt".to_string()));
        from_row(&row, outputs.get(&name), exit, &r.origin, t);
        outputs.entry(name.clone()).and_modify(|o| o.after(&row)).or_insert_with(|| Output::starting(&row));
        let state = row_state(&row);
        match open.get(&name) {
            Some((s, _)) if *s == state => {}
            previous => {
                if let Some((s, from)) = previous {
                    t.windows.entry(s.clone()).or_default().push((*from, Some(age)));
                }
                open.insert(name, (state, age));
            }
        }
    }
    // The last state of each pod lasts to the end of the run, and maybe beyond.
    for (name, (state, from)) in open {
        out.entry(name).or_default().windows.entry(state).or_default().push((from, None));
    }
    out
}

/// The `kubectl get pods` row of a Pod (`printPod`), as a change, and the
/// second of its RESTARTS annotation's exit.
fn as_row(p: &Pod) -> Option<(PodRow, Option<i64>)> {
    p.status.as_ref()?;
    let line = crate::kubectl::print_pod(p);
    let row = PodRow {
        namespace: p.metadata.namespace.clone(),
        name: p.metadata.name.clone()?,
        ready: line.ready,
        status: line.status,
        restarts: line.restarts,
        last_restart_ago: None,
        age: Span::exact(0),
        printed: Printed::Change,
    };
    Some((row, line.last_restart.map(|t| t.as_second())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SourceFile;

    /// The moments and listed states read from a `kubectl get pods` text.
    fn read(text: &str) -> PodTimings {
        let file = Arc::new(SourceFile { name: "rows.txt".into(), text: text.into() });
        let mut records = Vec::new();
        let problems = crate::observe::read(&file, &mut |r| records.push(r));
        assert!(problems.is_empty(), "{problems:?}");
        let mut all = timings(&records);
        assert_eq!(all.len(), 1);
        all.pop_first().expect("one pod").1
    }

    fn moments(t: &PodTimings) -> Vec<(&str, Span)> {
        let since = |v: &Timing| match v.at {
            At::SinceCreation(s) => s,
            At::Instant(_) => unreachable!("rows give ages"),
        };
        t.moments.iter().map(|(n, v)| (n.as_str(), since(v))).collect()
    }

    const WATCH: &str = "$ kubectl get pods -w\nNAME  READY  STATUS  RESTARTS  AGE\n";

    /// A watch listing a running, ready pod, then its deletion: no moment
    /// (the reviewer's reproduction A read `all containers ready` at 30 s).
    #[test]
    fn a_listing_is_the_state_before_the_first_change() {
        let t = read(&format!("{WATCH}hang  1/1  Running  0  8s\nhang  1/1  Terminating  0  30s\n"));
        assert_eq!(moments(&t), []);
        assert_eq!(t.shown.len(), 1);
        assert_eq!((t.shown[0].0.as_str(), t.shown[0].1.at), ("1/1 Running 0", At::SinceCreation(Span::second(8))));
    }

    /// A readiness flip after a listing of `0/1 Running 0`: neither the
    /// first start nor, since the pod may have been ready and unready again
    /// before the listing, the first time all containers were ready
    /// (reproduction B read `Running #0` at 50 s).
    #[test]
    fn a_readiness_flip_is_not_a_start() {
        let t = read(&format!("{WATCH}worker  0/1  Running  0  44s\nworker  1/1  Running  0  50s\n"));
        assert_eq!(moments(&t), []);
        // Watched from its creation, the flip is the first time it was ready.
        let t = read(&format!(
            "{WATCH}worker  0/1  Pending  0  0s\nworker  0/1  ContainerCreating  0  0s\nworker  0/1  Running  0  2s\n\
             worker  1/1  Running  0  9s\nworker  0/1  Running  0  30s\nworker  1/1  Running  0  40s\n"
        ));
        assert_eq!(moments(&t), [("Running #0", Span::second(2)), ("all containers ready", Span::second(9))]);
    }

    /// A watch started while the container has exited after its 4th
    /// restart: the next start is `Running #5`, and all containers ready
    /// after 5 restarts. Whether CrashLoopBackOff showed after #4 before the
    /// listing, the listing cannot say: not read.
    #[test]
    fn changes_after_a_late_listing_are_named_by_their_restarts() {
        let t = read(&format!(
            "{WATCH}crashloop  0/1  Error  4 (89s ago)  2m19s\ncrashloop  0/1  CrashLoopBackOff  4 (1s ago)  2m19s\n\
             crashloop  1/1  Running  5 (78s ago)  3m37s\n"
        ));
        let at = |lo: i64, hi: i64| Span { lo: lo * 1000, hi: hi * 1000 };
        // Error 4: `lastState` is instance 3, ended 89 s before AGE 2m19s: [139 − 90, 140 − 89).
        // CrashLoopBackOff 4: instance 4, [139 − 2, 140 − 1); Running 5 says [217 − 79, 218 − 78) too.
        let expected = [
            ("Running #5", Span::second(217)),
            ("all containers ready (RESTARTS 5)", Span::second(217)),
            ("exited #3", at(49, 51)),
            ("exited #4", at(138, 139)),
        ];
        assert_eq!(moments(&t), expected);
    }
}
