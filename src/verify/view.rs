//! What properties read from one run: its milestones, and each state
//! function as a step series over time, per subject.

use crate::milestones::endpoints::{Conditions, Slices};
use crate::milestones::names::Names;
use crate::milestones::requests::{service, succeeded};
use crate::milestones::{Milestone, extract};
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::record::Record;
use foldhash::{HashMap, HashMapExt};
use std::collections::BTreeSet;
use std::sync::Arc;

/// A count over time: each change, in time order (0 before the first).
type Series = Vec<(SimTime, f64)>;

/// One run, as properties see it.
#[derive(Debug, Default)]
pub struct RunView {
    pub end: SimTime,
    milestones: HashMap<String, SimTime>,
    /// Every subject some milestone is about; Deployments also by bare name.
    subjects: BTreeSet<String>,
    /// `deploy/web` → `deploy/web@rev3`, its last revision in the run.
    latest: HashMap<String, String>,
    series: HashMap<(&'static str, String), Series>,
}

impl RunView {
    /// Reads a trace that ran until `end`.
    pub fn new(trace: &Trace, end: SimTime) -> RunView {
        let mut view = RunView { end, ..RunView::default() };
        view.read_milestones(extract(trace));
        view.read_series(trace);
        view
    }

    fn read_milestones(&mut self, milestones: Vec<Milestone>) {
        let mut revisions: HashMap<String, (i64, String)> = HashMap::new();
        for m in milestones {
            let Some((subject, event)) = m.name.split_once(':') else { continue };
            if let Some((name, rev)) = subject.split_once("@rev")
                && name.starts_with("deploy/")
                && event == "rollout_started"
            {
                let k: i64 = rev.parse().unwrap_or(0);
                let latest = revisions.entry(name.to_string()).or_insert((k, subject.to_string()));
                if k > latest.0 {
                    *latest = (k, subject.to_string());
                }
                self.subjects.insert(name.to_string());
            }
            self.subjects.insert(subject.to_string());
            self.milestones.insert(m.name.to_string(), m.at);
        }
        self.latest = revisions.into_iter().map(|(name, (_, subject))| (name, subject)).collect();
    }

    fn read_series(&mut self, trace: &Trace) {
        let names = Names::new(trace);
        let mut slices = Slices::default();
        let mut daemon_pods = DaemonPods::default();
        let mut requests: HashMap<(&'static str, String), f64> = HashMap::new();
        let mut counted: HashMap<(&'static str, String), f64> = HashMap::new();
        for e in &trace.entries {
            let t = e.t;
            match &e.record {
                Record::Slice { kind, slice } => {
                    let Some((_, svc, pods)) = slices.see(*kind, slice, &names) else { continue };
                    // A pod counts once, with each condition any of its endpoints has.
                    let count = |on: fn(&Conditions) -> bool| pods.values().filter(|c| on(c)).count() as f64;
                    self.set("endpoints", svc, t, pods.len() as f64);
                    self.set("ready_endpoints", svc, t, count(|c| c.ready));
                    self.set("serving_endpoints", svc, t, count(|c| c.serving));
                    self.set("terminating_endpoints", svc, t, count(|c| c.terminating));
                }
                Record::Pod { kind, pod } => {
                    if let Some((set, ordinal)) = crate::milestones::statefulsets::ordinal_of(pod) {
                        let live = *kind != crate::trace::record::WatchKind::Deleted;
                        let ready = live && crate::milestones::statefulsets::running_and_ready(pod);
                        self.set("ordinal_ready", &format!("sts/{set}#{ordinal}"), t, f64::from(u8::from(ready)));
                    }
                    let subject = names.pod(&pod.meta.uid, &pod.spec.name);
                    let mut total = 0;
                    for c in pod.status.all_containers() {
                        total += c.restart_count;
                        self.set("restarts", &format!("{subject}/{}", c.name), t, c.restart_count as f64);
                    }
                    self.set("restarts", &subject, t, total as f64);
                    if let Some((ds, most)) = daemon_pods.see(pod) {
                        self.set("max_pods_per_node", &format!("ds/{ds}"), t, most as f64);
                    }
                }
                Record::Deployment { deployment: d, .. } => {
                    let subject = format!("deploy/{}", d.spec.name);
                    let s = &d.status;
                    self.set("replicas", &subject, t, s.replicas as f64);
                    self.set("updated_replicas", &subject, t, s.updated_replicas as f64);
                    self.set("ready_replicas", &subject, t, s.ready_replicas as f64);
                    self.set("available_replicas", &subject, t, s.available_replicas as f64);
                }
                Record::Job { job: j, .. } => {
                    let subject = format!("job/{}", j.spec.name);
                    let s = &j.status;
                    self.set("active", &subject, t, s.active as f64);
                    self.set("succeeded_pods", &subject, t, s.succeeded as f64);
                    self.set("failed_pods", &subject, t, s.failed as f64);
                    self.set("ready_pods", &subject, t, s.ready.unwrap_or(0) as f64);
                    self.set("terminating_pods", &subject, t, s.terminating.unwrap_or(0) as f64);
                }
                Record::StatefulSet { sts, .. } => {
                    let subject = format!("sts/{}", sts.spec.name);
                    let s = &sts.status;
                    self.set("replicas", &subject, t, s.replicas as f64);
                    self.set("updated_replicas", &subject, t, s.updated_replicas as f64);
                    self.set("ready_replicas", &subject, t, s.ready_replicas as f64);
                    self.set("available_replicas", &subject, t, s.available_replicas as f64);
                }
                Record::DaemonSet { ds: d, .. } => {
                    let subject = format!("ds/{}", d.spec.name);
                    let s = &d.status;
                    self.set("desired_scheduled", &subject, t, s.desired_number_scheduled as f64);
                    self.set("current_scheduled", &subject, t, s.current_number_scheduled as f64);
                    self.set("number_ready", &subject, t, s.number_ready as f64);
                    self.set("updated_scheduled", &subject, t, s.updated_number_scheduled as f64);
                    self.set("number_available", &subject, t, s.number_available as f64);
                    self.set("number_unavailable", &subject, t, s.number_unavailable as f64);
                    self.set("misscheduled", &subject, t, s.number_misscheduled as f64);
                }
                Record::Kubelet(k) if k.is_pull_failure() => {
                    let subject = names.pod_named(&k.pod);
                    let mut subjects = vec![subject.to_string()];
                    subjects.extend(k.container.as_ref().map(|c| format!("{subject}/{c}")));
                    for subject in subjects {
                        self.count("image_pull_failures", subject, t, &mut counted);
                    }
                }
                Record::Event(ev) if ev.reason == "FailedScheduling" => {
                    let subject = names.pod(&ev.pod_uid, &ev.pod).to_string();
                    self.count("scheduling_failures", subject, t, &mut counted);
                }
                Record::Request(r) => {
                    let which = if succeeded(&r.outcome) { "ok_requests" } else { "failed_requests" };
                    let mut subjects = vec![format!("client/{}", r.client)];
                    subjects.extend(service(&r.target).map(|s| format!("svc/{s}")));
                    for subject in subjects {
                        for function in ["requests", which] {
                            let n = requests.entry((function, subject.clone())).or_default();
                            *n += 1.0;
                            let n = *n;
                            self.set(function, &subject, t, n);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// One more of what `function` counts for `subject`.
    fn count(
        &mut self,
        function: &'static str,
        subject: String,
        t: SimTime,
        counted: &mut HashMap<(&'static str, String), f64>,
    ) {
        let n = counted.entry((function, subject.clone())).or_default();
        *n += 1.0;
        let n = *n;
        self.set(function, &subject, t, n);
    }

    /// Records a value; a repeat of the last one is not a change.
    fn set(&mut self, function: &'static str, subject: &str, t: SimTime, value: f64) {
        let series = self.series.entry((function, subject.to_string())).or_default();
        match series.last_mut() {
            Some(last) if last.1 == value => {}
            Some(last) if last.0 == t => last.1 = value,
            _ => series.push((t, value)),
        }
    }

    /// The state function's value at `t` (after every change at `t`).
    pub fn value(&self, function: &str, subject: &str, t: SimTime) -> f64 {
        let Some(series) = self.series.get(&(state_key(function), subject.to_string())) else { return 0.0 };
        let after = series.partition_point(|(at, _)| *at <= t);
        after.checked_sub(1).map_or(0.0, |i| series[i].1)
    }

    /// The times the state function changes.
    pub fn changes(&self, function: &str, subject: &str) -> Vec<SimTime> {
        let series = self.series.get(&(state_key(function), subject.to_string()));
        series.map(|s| s.iter().map(|(t, _)| *t).collect()).unwrap_or_default()
    }

    /// When the milestone happened; a Deployment without `@rev` means its
    /// last revision in the run.
    pub fn milestone(&self, subject: &str, event: &str) -> Option<SimTime> {
        let subject = self.latest.get(subject).map_or(subject, String::as_str);
        self.milestones.get(&format!("{subject}:{event}")).copied()
    }

    /// The subjects matching `pattern` that a state function has a series
    /// for, or (`function` None) that some milestone is about.
    pub fn subjects(&self, pattern: &str, function: Option<&str>) -> BTreeSet<String> {
        match function {
            Some(f) => {
                let f = state_key(f);
                self.series.keys().filter(|(g, s)| *g == f && glob(pattern, s)).map(|(_, s)| s.clone()).collect()
            }
            // `deploy/*` means Deployments, not each of their revisions.
            None => {
                let revisions = !pattern.starts_with("deploy/") || pattern.contains('@');
                self.subjects.iter().filter(|s| glob(pattern, s) && (revisions || !s.contains('@'))).cloned().collect()
            }
        }
    }
}

impl RunView {
    /// Whether the run has anything about `subject`: a milestone, a state
    /// series, or (a Deployment) a revision.
    pub fn knows(&self, subject: &str) -> bool {
        self.subjects.contains(subject)
            || self.latest.contains_key(subject)
            || self.series.keys().any(|(_, s)| s == subject)
    }

    /// The subjects of the run of the same kind as `subject` (`pod/…`).
    pub fn alike(&self, subject: &str) -> BTreeSet<String> {
        let kind = subject.split_once('/').map_or(subject, |(k, _)| k);
        let named = |s: &&String| s.split_once('/').is_some_and(|(k, _)| k == kind);
        let mut out: BTreeSet<String> = self.subjects.iter().filter(named).cloned().collect();
        out.extend(self.series.keys().map(|(_, s)| s).filter(named).cloned());
        out
    }
}

/// The interned name of a state function.
fn state_key(function: &str) -> &'static str {
    super::functions::state_function(function).map_or("", |(f, _)| f)
}

/// `*` matches any run of characters other than `/`: so the pattern and
/// the subject have their `/` at the same places, and each segment is
/// matched alone by the milestones' linear glob (a pattern of many stars
/// once backtracked exponentially).
pub fn glob(pattern: &str, s: &str) -> bool {
    let (mut p, mut t) = (pattern.split('/'), s.split('/'));
    loop {
        match (p.next(), t.next()) {
            (None, None) => return true,
            (Some(ps), Some(ts)) if crate::milestones::pattern::glob(ps, ts) => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn a_star_stays_inside_one_path_segment() {
        assert!(glob("pod/*", "pod/web@rev1#1"));
        assert!(!glob("pod/*", "pod/web@rev1#1/app"));
        assert!(glob("pod/*/app", "pod/web@rev1#1/app"));
        assert!(glob("pod/web@rev2#*", "pod/web@rev2#10"));
        assert!(!glob("pod/web@rev2#*", "pod/web@rev1#1"));
        assert!(glob("svc/web", "svc/web"));
        assert!(!glob("svc/web", "svc/web2"));
        // A name with multi-byte characters (a node's, in a DaemonSet pod's name).
        assert!(glob("pod/*", "pod/agent@nöde-Ӑ#1"));
        assert!(!glob("pod/*", "pod/agent@nöde-Ӑ#1/app"));
        assert!(glob("pod/*a*b*", "pod/xaybz") && !glob("pod/*a*b*", "pod/xbya"));
        assert!(glob("*", "") && glob("pod/**", "pod/") && !glob("pod/*/", "pod/x"));
    }

    /// 45 stars took longer than 30 s: each star doubled the time.
    #[test]
    fn many_stars_match_at_once() {
        let many = format!("pod/{}", "*".repeat(2000));
        assert!(glob(&many, "pod/c28-probe"));
        assert!(!glob(&format!("{many}x"), &format!("pod/{}", "a".repeat(5000))));
    }
}

/// A DaemonSet's name and a node.
type DaemonNode = (Arc<str>, Arc<str>);

/// A DaemonSet's pods by node, not finished and not gone: for `max_pods_per_node`.
#[derive(Default)]
struct DaemonPods {
    /// The live pods' UIDs on each node.
    live: HashMap<DaemonNode, BTreeSet<Arc<str>>>,
}

impl DaemonPods {
    /// The pod written: its DaemonSet's name and the most pods on one of its nodes now.
    fn see(&mut self, pod: &crate::api::pod::ApiPod) -> Option<(Arc<str>, usize)> {
        let owner = pod.spec.owner.as_ref().filter(|o| o.kind == "DaemonSet")?;
        let node = crate::control::daemon::pods::target_node(pod)?;
        let set = self.live.entry((owner.name.clone(), Arc::from(node))).or_default();
        match pod.meta.removed || pod.status.phase.is_terminal() {
            true => set.remove(&pod.meta.uid),
            false => set.insert(pod.meta.uid.clone()),
        };
        let most = self.live.iter().filter(|((ds, _), _)| *ds == owner.name).map(|(_, s)| s.len()).max();
        Some((owner.name.clone(), most.unwrap_or(0)))
    }
}
