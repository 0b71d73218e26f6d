//! Timeline rows for workloads: each ReplicaSet and Deployment when it is
//! created, scaled, given a new template or revision, when the columns of
//! `kubectl get rs,deploy` change, and each Deployment condition as it
//! changes (`kubectl describe deploy`).

use super::record::{Record, WatchKind};
use super::table::{Row, RowType};
use crate::api::deployment::{ApiDeployment, Condition, ConditionStatus, ConditionType, Reason};
use crate::api::meta::{FOREGROUND, Meta, ORPHAN};
use crate::api::replicaset::ApiReplicaSet;
use crate::control::deployment::fenceposts::max_unavailable;
use crate::control::deployment::hash::equal_ignore_hash;
use crate::control::deployment::revisions::{DESIRED_REPLICAS, MAX_REPLICAS, REVISION, REVISION_HISTORY};
use crate::spec::{DeploymentSpec, IntOrPercent, Strategy};
use crate::time::SimTime;
use foldhash::HashMap;
use std::sync::Arc;

/// What the rows so far have shown: the last version of each object, by UID.
#[derive(Default)]
pub struct WorkloadRows {
    replica_sets: HashMap<Arc<str>, Arc<ApiReplicaSet>>,
    deployments: HashMap<Arc<str>, Arc<ApiDeployment>>,
    jobs: HashMap<Arc<str>, Arc<crate::api::job::ApiJob>>,
    cronjobs: HashMap<Arc<str>, Arc<crate::api::cronjob::ApiCronJob>>,
    stateful_sets: super::statefulset_rows::StatefulSetRows,
    daemon_sets: HashMap<Arc<str>, Arc<crate::api::daemonset::ApiDaemonSet>>,
    /// Each ControllerRevision seen, by UID: whether it had an owner.
    revisions: HashMap<Arc<str>, bool>,
    /// The StatefulSets and DaemonSets deleted (or being deleted), by UID:
    /// their revisions go with them.
    deleted_owners: foldhash::HashSet<Arc<str>>,
}

impl WorkloadRows {
    pub fn rows(&mut self, t: SimTime, record: &Record, out: &mut Vec<Row>) {
        // kubectl get's rows are kubectl's; the rest are the workload's.
        let mut push = |object: String, what: String, why: String| {
            let kind = if why.starts_with("kubectl get") { RowType::Kubectl } else { RowType::Workload };
            out.push(Row { t, namespace: None, kind, object, what, why })
        };
        match record {
            Record::ReplicaSet { kind, rs } => {
                let object = format!("replicaset/{}", rs.spec.name);
                if *kind == WatchKind::Deleted {
                    self.replica_sets.remove(&rs.meta.uid);
                    push(object, "deleted".into(), String::new());
                    return;
                }
                let old = self.replica_sets.insert(rs.meta.uid.clone(), rs.clone());
                self.replica_set_rows(old.as_deref(), rs, &mut |what, why| push(object.clone(), what, why));
            }
            Record::Deployment { kind, deployment: d } => {
                let object = format!("deployment/{}", d.spec.name);
                if *kind == WatchKind::Deleted {
                    self.deployments.remove(&d.meta.uid);
                    push(object, "deleted".into(), String::new());
                    return;
                }
                let old = self.deployments.insert(d.meta.uid.clone(), d.clone());
                self.deployment_rows(t, old.as_deref(), d, &mut |what, why| push(object.clone(), what, why));
            }
            Record::Job { kind, job } => {
                let object = format!("job/{}", job.spec.name);
                if *kind == WatchKind::Deleted {
                    self.jobs.remove(&job.meta.uid);
                    push(object, "deleted".into(), String::new());
                    return;
                }
                let old = self.jobs.insert(job.meta.uid.clone(), job.clone());
                super::job_rows::job_rows(old.as_deref(), job, &mut |what, why| push(object.clone(), what, why));
            }
            Record::CronJob { kind, cronjob: c } => {
                let object = format!("cronjob/{}", c.spec.name);
                if *kind == WatchKind::Deleted {
                    self.cronjobs.remove(&c.meta.uid);
                    push(object, "deleted".into(), String::new());
                    return;
                }
                let old = self.cronjobs.insert(c.meta.uid.clone(), c.clone());
                super::job_rows::cronjob_rows(old.as_deref(), c, &mut |what, why| push(object.clone(), what, why));
            }
            Record::StatefulSet { kind, sts } => {
                if *kind == WatchKind::Deleted || sts.meta.deletion.is_some() {
                    self.deleted_owners.insert(sts.meta.uid.clone());
                }
                self.stateful_sets.set(t, *kind, sts, out)
            }
            Record::ControllerRevision { kind, revision: r } => {
                let owner = r.owner.as_ref().map(|o| (format!("{}/{}", o.kind.to_lowercase(), o.name), o.uid.clone()));
                let old = self.revisions.insert(r.meta.uid.clone(), r.owner.is_some());
                let (what, why) = match (kind, owner) {
                    (WatchKind::Added, Some((o, _))) => {
                        (format!("created, revision {}", r.revision), format!("the template of {o}"))
                    }
                    (WatchKind::Modified, None) if old == Some(true) => {
                        ("orphaned".to_string(), "its owner was deleted with --cascade=orphan".to_string())
                    }
                    (WatchKind::Modified, Some((o, _))) => {
                        (format!("renumbered, revision {}", r.revision), format!("{o} went back to this template"))
                    }
                    (WatchKind::Deleted, Some((o, uid))) if self.deleted_owners.contains(&uid) => {
                        ("deleted".to_string(), format!("by the garbage collector: {o} was deleted"))
                    }
                    (WatchKind::Deleted, Some((o, _))) => {
                        ("deleted".to_string(), format!("older than {o}'s revisionHistoryLimit"))
                    }
                    (WatchKind::Deleted, None) => ("deleted".to_string(), String::new()),
                    (_, _) => (format!("revision {}", r.revision), String::new()),
                };
                push(format!("controllerrevision/{}", r.name), what, why);
            }
            Record::DaemonSet { kind, ds } => {
                if *kind == WatchKind::Deleted || ds.meta.deletion.is_some() {
                    self.deleted_owners.insert(ds.meta.uid.clone());
                }
                let object = format!("daemonset/{}", ds.spec.name);
                if *kind == WatchKind::Deleted {
                    self.daemon_sets.remove(&ds.meta.uid);
                    push(object, "deleted".into(), String::new());
                    return;
                }
                let old = self.daemon_sets.insert(ds.meta.uid.clone(), ds.clone());
                super::daemonset_rows::daemon_set_rows(old.as_deref(), ds, &mut |what, why| {
                    push(object.clone(), what, why)
                });
            }
            _ => {}
        }
    }

    fn replica_set_rows(&self, old: Option<&ApiReplicaSet>, rs: &ApiReplicaSet, push: &mut dyn FnMut(String, String)) {
        let s = &rs.spec;
        let revision = s.annotations.get(REVISION);
        let Some(old) = old else {
            let mut what = format!("created, {}", replicas(s.replicas));
            if let Some(r) = revision {
                what += &format!(", revision {r}");
            }
            let why = match &s.owner {
                Some(o) => {
                    let hash = s.labels.get("pod-template-hash").map(|h| format!(" (pod-template-hash {h})"));
                    format!("owned by {}/{}{}", o.kind.to_lowercase(), o.name, hash.unwrap_or_default())
                }
                None => "no owner".into(),
            };
            push(what, why);
            return;
        };
        if let Some((what, why)) = super::changes::owner_change(old.spec.owner.as_ref(), s.owner.as_ref()) {
            push(what, why);
        }
        if let Some((what, why)) = deleting(&old.meta, &rs.meta) {
            push(what, why);
        }
        if revision != old.spec.annotations.get(REVISION)
            && let Some(r) = revision
        {
            let why = match s.annotations.get(REVISION_HISTORY) {
                Some(h) => format!("its template is its Deployment's again (earlier revisions {h})"),
                None => String::new(),
            };
            push(format!("revision {r}"), why);
        }
        if s.replicas != old.spec.replicas {
            push(format!("scaled {} → {}", old.spec.replicas, s.replicas), self.scale_why(rs));
        }
        if s.min_ready_seconds != old.spec.min_ready_seconds {
            let what = format!("minReadySeconds {} → {}", old.spec.min_ready_seconds, s.min_ready_seconds);
            push(what, "copied from its Deployment".into());
        }
        let (c, o) = (&rs.status.counts, &old.status.counts);
        if (c.replicas, c.ready_replicas, c.available_replicas) != (o.replicas, o.ready_replicas, o.available_replicas)
        {
            let what = format!(
                "DESIRED {}, CURRENT {}, READY {}, available {}",
                s.replicas, c.replicas, c.ready_replicas, c.available_replicas
            );
            push(what, "kubectl get rs, plus availableReplicas".into());
        }
    }

    /// Who scaled a ReplicaSet: its Deployment, with the replica counts it
    /// annotates (`desired-replicas`, and `max-replicas` with the surge).
    fn scale_why(&self, rs: &ApiReplicaSet) -> String {
        let s = &rs.spec;
        let Some(owner) = &s.owner else { return String::new() };
        let deployment = self.deployments.get(&owner.uid);
        // `FindNewReplicaSet`: the new one is the one with the Deployment's template.
        let role = match deployment {
            Some(d) if equal_ignore_hash(&s.template, &d.spec.template) => "new ReplicaSet of ",
            Some(_) => "old ReplicaSet of ",
            None => "by ",
        };
        let mut why = format!("{role}{}/{}", owner.kind.to_lowercase(), owner.name);
        if let (Some(desired), Some(max)) = (s.annotations.get(DESIRED_REPLICAS), s.annotations.get(MAX_REPLICAS)) {
            why += &format!(" (desired-replicas {desired}, max-replicas {max})");
        }
        why
    }

    fn deployment_rows(
        &self,
        t: SimTime,
        old: Option<&ApiDeployment>,
        d: &ApiDeployment,
        push: &mut dyn FnMut(String, String),
    ) {
        let spec = &d.spec;
        let revision = d.annotations.get(REVISION);
        let Some(old) = old else {
            push(format!("created, {}", replicas(spec.replicas)), deployment_settings(spec));
            if let Some(r) = revision {
                push(format!("revision {r}"), self.revision_why(d, r));
            }
            return;
        };
        let deleting = deleting(&old.meta, &d.meta);
        // A first DELETE moves the generation too (`markAsDeleting`).
        if d.meta.generation != old.meta.generation && (deleting.is_none() || !Arc::ptr_eq(&old.spec, &d.spec)) {
            let (what, why) = spec_change(old, d);
            push(what, why);
        }
        if let Some((what, why)) = deleting {
            push(what, why);
        }
        if revision != old.annotations.get(REVISION)
            && let Some(r) = revision
        {
            push(format!("revision {r}"), self.revision_why(d, r));
        }
        let (s, o) = (&d.status, &old.status);
        if (s.ready_replicas, s.updated_replicas, s.available_replicas)
            != (o.ready_replicas, o.updated_replicas, o.available_replicas)
        {
            let what = format!(
                "READY {}/{}, UP-TO-DATE {}, AVAILABLE {}",
                s.ready_replicas, spec.replicas, s.updated_replicas, s.available_replicas
            );
            push(what, "kubectl get deploy".into());
        }
        for c in &s.conditions {
            let before = o.conditions.iter().find(|b| b.kind == c.kind);
            if before.is_some_and(|b| (b.status, b.reason, &b.message) == (c.status, c.reason, &c.message)) {
                continue;
            }
            let what = format!("{}={} {}", c.kind.as_str(), c.status.as_str(), c.reason.as_str());
            push(what, condition_why(t, c, before, d));
        }
        for b in &o.conditions {
            if !s.conditions.iter().any(|c| c.kind == b.kind) {
                let why = if b.kind == ConditionType::Progressing && spec.progress_deadline_seconds.is_none() {
                    "no progressDeadlineSeconds: progress is not tracked".into()
                } else {
                    String::new()
                };
                push(format!("{} removed", b.kind.as_str()), why);
            }
        }
    }

    /// The ReplicaSet a Deployment's revision names, as the rows have seen it.
    fn revision_why(&self, d: &ApiDeployment, revision: &str) -> String {
        let owned = |rs: &&Arc<ApiReplicaSet>| rs.spec.owner.as_ref().is_some_and(|o| o.uid == d.meta.uid);
        let Some(rs) = self
            .replica_sets
            .values()
            .filter(owned)
            .find(|rs| rs.spec.annotations.get(REVISION).is_some_and(|r| r == revision))
        else {
            return String::new();
        };
        match rs.spec.annotations.get(REVISION_HISTORY) {
            Some(h) => format!("its new ReplicaSet is replicaset/{} again (earlier revisions {h})", rs.spec.name),
            None => format!("its new ReplicaSet is replicaset/{}", rs.spec.name),
        }
    }
}

fn replicas(n: u32) -> String {
    if n == 1 { "1 replica".into() } else { format!("{n} replicas") }
}

/// The settings that explain a Deployment's later rows.
fn deployment_settings(s: &DeploymentSpec) -> String {
    let mut parts = vec![strategy_text(s.strategy)];
    if s.min_ready_seconds > 0 {
        parts.push(format!("minReadySeconds {}", s.min_ready_seconds));
    }
    parts.push(match s.progress_deadline_seconds {
        Some(p) => format!("progressDeadlineSeconds {p}"),
        None => "no progress deadline".into(),
    });
    if s.paused {
        parts.push("paused".into());
    }
    parts.join(", ")
}

fn strategy_text(s: Strategy) -> String {
    let n = |v: IntOrPercent| match v {
        IntOrPercent::Int(n) => n.to_string(),
        IntOrPercent::Percent(p) => format!("{p}%"),
    };
    match s {
        Strategy::Recreate => "Recreate".into(),
        Strategy::RollingUpdate { max_surge, max_unavailable } => {
            format!("RollingUpdate (maxSurge {}, maxUnavailable {})", n(max_surge), n(max_unavailable))
        }
    }
}

/// A new generation: a scale (only `replicas` changed), or what else changed.
fn spec_change(old: &ApiDeployment, d: &ApiDeployment) -> (String, String) {
    let (a, b) = (&*old.spec, &*d.spec);
    let generation = d.meta.generation;
    let mut changed = Vec::new();
    if a.template != b.template {
        let images = image_changes(a, b);
        changed.push(if images.is_empty() {
            "new pod template".into()
        } else {
            format!("new pod template ({images})")
        });
    }
    if a.paused != b.paused {
        changed.push(if b.paused { "paused".into() } else { "resumed".into() });
    }
    if a.strategy != b.strategy {
        changed.push(format!("strategy {}", strategy_text(b.strategy)));
    }
    if a.min_ready_seconds != b.min_ready_seconds {
        changed.push(format!("minReadySeconds {} → {}", a.min_ready_seconds, b.min_ready_seconds));
    }
    if a.progress_deadline_seconds != b.progress_deadline_seconds {
        let p = |v: Option<u32>| v.map_or("none".to_string(), |v| v.to_string());
        changed.push(format!(
            "progressDeadlineSeconds {} → {}",
            p(a.progress_deadline_seconds),
            p(b.progress_deadline_seconds)
        ));
    }
    if a.revision_history_limit != b.revision_history_limit {
        changed.push(format!("revisionHistoryLimit {} → {}", a.revision_history_limit, b.revision_history_limit));
    }
    let user_annotations = |d: &ApiDeployment| {
        let mut m = d.annotations.clone();
        m.remove(REVISION);
        m
    };
    if user_annotations(old) != user_annotations(d) {
        changed.push("annotations (copied to the new ReplicaSet)".into());
    }
    if a.replicas != b.replicas {
        let scaled = format!("scaled {} → {}", a.replicas, b.replicas);
        if changed.is_empty() {
            return (format!("{scaled} (generation {generation})"), "same template: no new ReplicaSet".into());
        }
        changed.insert(0, format!("replicas {} → {}", a.replicas, b.replicas));
    }
    (format!("spec changed (generation {generation})"), changed.join("; "))
}

/// A DELETE that finalizers hold: the object stays, deleting, until the
/// garbage collector has done what its finalizer asks.
pub(super) fn deleting(old: &Meta, new: &Meta) -> Option<(String, String)> {
    if new.deletion.is_none() || old.deletion.is_some() && old.finalizers == new.finalizers {
        return None;
    }
    let has = |f: &str| new.finalizers.iter().any(|x| **x == *f);
    let why = if has(FOREGROUND) {
        "deleted in the foreground: it stays until the garbage collector has deleted its dependents"
    } else if has(ORPHAN) {
        "deleted with --cascade=orphan: it stays until the garbage collector has removed the references to it"
    } else {
        "a finalizer holds it"
    };
    let list: Vec<&str> = new.finalizers.iter().map(|f| &**f).collect();
    Some((format!("deleting (finalizers {})", list.join(", ")), why.into()))
}

/// `web: nginx:1.27 → nginx:1.28` for each container whose image changed.
fn image_changes(a: &DeploymentSpec, b: &DeploymentSpec) -> String {
    let containers =
        |s: &DeploymentSpec| s.template.object.spec.as_ref().map(|p| p.containers.clone()).unwrap_or_default();
    let before = containers(a);
    containers(b)
        .iter()
        .filter_map(|c| {
            let old = before.iter().find(|o| o.name == c.name)?;
            (old.image != c.image).then(|| {
                format!("{}: {} → {}", c.name, old.image.as_deref().unwrap_or(""), c.image.as_deref().unwrap_or(""))
            })
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The condition's message, and the numbers behind it.
fn condition_why(t: SimTime, c: &Condition, before: Option<&Condition>, d: &ApiDeployment) -> String {
    let (spec, s) = (&d.spec, &d.status);
    match (c.kind, c.reason) {
        (ConditionType::Available, _) => {
            let unavailable = max_unavailable(spec.strategy, spec.replicas);
            let needed = spec.replicas.saturating_sub(unavailable);
            format!(
                "{} ({} available, {needed} needed: {} replicas − maxUnavailable {unavailable})",
                c.message, s.available_replicas, spec.replicas
            )
        }
        (ConditionType::Progressing, Reason::ProgressDeadlineExceeded) => {
            let since = before.filter(|b| b.status == ConditionStatus::True).map(|b| b.last_update);
            match (since, spec.progress_deadline_seconds) {
                (Some(at), Some(p)) => {
                    format!("{} (no progress since {at}, {} ago; progressDeadlineSeconds {p})", c.message, t.since(at))
                }
                _ => c.message.clone(),
            }
        }
        _ => c.message.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::deployment::DeploymentStatus;
    use crate::api::meta::Meta;
    use crate::api::replicaset::{OwnerRef, RsSpec, RsStatus};
    use crate::error::SourceFile;
    use crate::ids::{DeploymentId, RsId};
    use crate::manifest::workloads::read_deployment;
    use crate::source::parse_documents;
    use std::collections::BTreeMap;

    fn t(ms: u64) -> SimTime {
        SimTime::from_millis(ms)
    }

    fn spec(replicas: u32, image: &str) -> Arc<DeploymentSpec> {
        let yaml = format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  replicas: {replicas}\n  progressDeadlineSeconds: 60\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      containers: [{{name: web, image: \"{image}\"}}]\n"
        );
        let file = Arc::new(SourceFile { name: "d.yaml".into(), text: yaml });
        let doc = parse_documents(&file).unwrap().remove(0);
        Arc::new(read_deployment(&doc, doc.to_json(), "", &mut Vec::new()).unwrap())
    }

    fn deployment(spec: Arc<DeploymentSpec>) -> ApiDeployment {
        ApiDeployment {
            id: DeploymentId(0),
            meta: Meta::new("d-uid".into(), SimTime::ZERO, 1),
            spec,
            annotations: BTreeMap::new(),
            status: DeploymentStatus::default(),
        }
    }

    fn replica_set(d: &DeploymentSpec, replicas: u32, max: u32) -> ApiReplicaSet {
        let mut labels = d.template.labels.clone();
        labels.insert("pod-template-hash".into(), "7c5ddbdf54".into());
        let annotations = BTreeMap::from([
            (REVISION.to_string(), "1".to_string()),
            (DESIRED_REPLICAS.to_string(), d.replicas.to_string()),
            (MAX_REPLICAS.to_string(), max.to_string()),
        ]);
        ApiReplicaSet {
            id: RsId(0),
            meta: Meta::new("rs-uid".into(), SimTime::ZERO, 2),
            spec: Arc::new(RsSpec {
                name: "web-7c5ddbdf54".into(),
                namespace: "default".into(),
                labels,
                annotations,
                owner: Some(OwnerRef { kind: "Deployment", name: "web".into(), uid: "d-uid".into() }),
                replicas,
                selector: d.selector.clone(),
                template: Arc::new(d.template.clone()),
                min_ready_seconds: 0,
            }),
            status: RsStatus::default(),
        }
    }

    fn row(ms: u64, object: &str, what: &str, why: &str) -> Row {
        let kind = if why.starts_with("kubectl get") { RowType::Kubectl } else { RowType::Workload };
        Row { t: t(ms), namespace: None, kind, object: object.into(), what: what.into(), why: why.into() }
    }

    /// Feeds records in order and returns every row.
    fn feed(records: Vec<(u64, Record)>) -> Vec<Row> {
        let mut rows = WorkloadRows::default();
        let mut out = Vec::new();
        for (ms, r) in records {
            rows.rows(t(ms), &r, &mut out);
        }
        out
    }

    fn rs_record(kind: WatchKind, rs: &ApiReplicaSet) -> Record {
        Record::ReplicaSet { kind, rs: Arc::new(rs.clone()) }
    }

    fn d_record(kind: WatchKind, d: &ApiDeployment) -> Record {
        Record::Deployment { kind, deployment: Arc::new(d.clone()) }
    }

    #[test]
    fn replica_set_created_scaled_and_catching_up() {
        use WatchKind::*;
        let mut d = deployment(spec(1, "nginx:1.27"));
        d.annotations.insert(REVISION.into(), "1".into());
        let mut rs = replica_set(&d.spec, 1, 2);
        let mut records = vec![(0, d_record(Added, &d)), (5, rs_record(Added, &rs))];
        // The ReplicaSet controller creates the pod; it turns Ready.
        rs.status.counts.replicas = 1;
        records.push((20, rs_record(Modified, &rs)));
        rs.status.counts.ready_replicas = 1;
        rs.status.counts.available_replicas = 1;
        records.push((3000, rs_record(Modified, &rs)));
        // The Deployment is scaled to 3: its controller scales the ReplicaSet.
        let mut scaled = replica_set(&spec(3, "nginx:1.27"), 3, 4);
        scaled.status = rs.status.clone();
        records.push((5000, rs_record(Modified, &scaled)));
        // Status catches up: two more pods, then they turn Ready one by one;
        // a write that only moves fullyLabeledReplicas shows nothing.
        scaled.status.counts.replicas = 3;
        records.push((5020, rs_record(Modified, &scaled)));
        scaled.status.counts.fully_labeled_replicas = 3;
        records.push((5030, rs_record(Modified, &scaled)));
        scaled.status.counts.ready_replicas = 2;
        scaled.status.counts.available_replicas = 2;
        records.push((8000, rs_record(Modified, &scaled)));
        scaled.status.counts.ready_replicas = 3;
        scaled.status.counts.available_replicas = 3;
        records.push((8500, rs_record(Modified, &scaled)));
        records.push((9000, rs_record(Deleted, &scaled)));
        let rows: Vec<Row> = feed(records).into_iter().filter(|r| r.object.starts_with("replicaset/")).collect();
        let rs = "replicaset/web-7c5ddbdf54";
        let kubectl = "kubectl get rs, plus availableReplicas";
        assert_eq!(
            rows,
            vec![
                row(5, rs, "created, 1 replica, revision 1", "owned by deployment/web (pod-template-hash 7c5ddbdf54)"),
                row(20, rs, "DESIRED 1, CURRENT 1, READY 0, available 0", kubectl),
                row(3000, rs, "DESIRED 1, CURRENT 1, READY 1, available 1", kubectl),
                row(5000, rs, "scaled 1 → 3", "new ReplicaSet of deployment/web (desired-replicas 3, max-replicas 4)"),
                row(5020, rs, "DESIRED 3, CURRENT 3, READY 1, available 1", kubectl),
                row(8000, rs, "DESIRED 3, CURRENT 3, READY 2, available 2", kubectl),
                row(8500, rs, "DESIRED 3, CURRENT 3, READY 3, available 3", kubectl),
                row(9000, rs, "deleted", ""),
            ]
        );
    }

    #[test]
    fn deployment_progressing_until_the_deadline() {
        use ConditionStatus::{False, True};
        use ConditionType::{Available, Progressing};
        use WatchKind::*;
        let mut d = deployment(spec(3, "nginx:1.27"));
        let mut records = vec![(0, d_record(Added, &d))];
        // The controller creates the ReplicaSet, then writes the revision
        // and the first status.
        let rs = replica_set(&d.spec, 3, 4);
        records.push((10, rs_record(Added, &rs)));
        d.annotations.insert(REVISION.into(), "1".into());
        d.status.observed_generation = 1;
        d.status.conditions = vec![
            Condition::new(
                Available,
                False,
                Reason::MinimumReplicasUnavailable,
                "Deployment does not have minimum availability.".into(),
                t(12),
            ),
            Condition::new(
                Progressing,
                True,
                Reason::NewReplicaSetCreated,
                "Created new replica set \"web-7c5ddbdf54\"".into(),
                t(12),
            ),
        ];
        records.push((12, d_record(Modified, &d)));
        // Pods are created and one turns Ready: progress.
        d.status.replicas = 3;
        d.status.updated_replicas = 3;
        d.status.ready_replicas = 1;
        d.status.available_replicas = 1;
        d.status.unavailable_replicas = 2;
        let mut updated = Condition::new(
            Progressing,
            True,
            Reason::ReplicaSetUpdated,
            "ReplicaSet \"web-7c5ddbdf54\" is progressing.".into(),
            t(4000),
        );
        updated.last_transition = t(12);
        d.status.conditions[1] = updated.clone();
        records.push((4000, d_record(Modified, &d)));
        // Only lastUpdateTime moves: no row.
        updated.last_update = t(5000);
        d.status.conditions[1] = updated;
        records.push((5000, d_record(Modified, &d)));
        // The other two never turn Ready: 60 s later the deadline passes.
        d.status.conditions[1] = Condition::new(
            Progressing,
            False,
            Reason::ProgressDeadlineExceeded,
            "ReplicaSet \"web-7c5ddbdf54\" has timed out progressing.".into(),
            t(66000),
        );
        records.push((66000, d_record(Modified, &d)));
        let rows: Vec<Row> = feed(records).into_iter().filter(|r| r.object.starts_with("deployment/")).collect();
        let web = "deployment/web";
        assert_eq!(
            rows,
            vec![
                row(
                    0,
                    web,
                    "created, 3 replicas",
                    "RollingUpdate (maxSurge 25%, maxUnavailable 25%), progressDeadlineSeconds 60"
                ),
                row(12, web, "revision 1", "its new ReplicaSet is replicaset/web-7c5ddbdf54"),
                row(
                    12,
                    web,
                    "Available=False MinimumReplicasUnavailable",
                    "Deployment does not have minimum availability. (0 available, 3 needed: 3 replicas − maxUnavailable 0)"
                ),
                row(12, web, "Progressing=True NewReplicaSetCreated", "Created new replica set \"web-7c5ddbdf54\""),
                row(4000, web, "READY 1/3, UP-TO-DATE 3, AVAILABLE 1", "kubectl get deploy"),
                row(4000, web, "Progressing=True ReplicaSetUpdated", "ReplicaSet \"web-7c5ddbdf54\" is progressing."),
                row(
                    66000,
                    web,
                    "Progressing=False ProgressDeadlineExceeded",
                    "ReplicaSet \"web-7c5ddbdf54\" has timed out progressing. (no progress since 5.000s, 1m1s ago; progressDeadlineSeconds 60)"
                ),
            ]
        );
    }

    #[test]
    fn deployment_spec_changes() {
        use WatchKind::*;
        let mut d = deployment(spec(3, "nginx:1.27"));
        let mut records = vec![(0, d_record(Added, &d))];
        d.meta.generation = 2;
        d.spec = spec(5, "nginx:1.27");
        records.push((1000, d_record(Modified, &d)));
        d.meta.generation = 3;
        d.spec = spec(5, "nginx:1.28");
        records.push((2000, d_record(Modified, &d)));
        // The controller's revision annotation does not move the generation.
        d.annotations.insert(REVISION.into(), "2".into());
        records.push((2010, d_record(Modified, &d)));
        d.meta.generation = 4;
        d.spec = spec(2, "nginx:1.29");
        records.push((3000, d_record(Modified, &d)));
        records.push((4000, d_record(Deleted, &d)));
        let web = "deployment/web";
        assert_eq!(
            feed(records)[1..],
            [
                row(1000, web, "scaled 3 → 5 (generation 2)", "same template: no new ReplicaSet"),
                row(2000, web, "spec changed (generation 3)", "new pod template (web: nginx:1.27 → nginx:1.28)"),
                row(2010, web, "revision 2", ""),
                row(
                    3000,
                    web,
                    "spec changed (generation 4)",
                    "replicas 5 → 2; new pod template (web: nginx:1.28 → nginx:1.29)"
                ),
                row(4000, web, "deleted", ""),
            ]
        );
    }

    #[test]
    fn rollback_to_an_old_replica_set() {
        use WatchKind::*;
        let mut d = deployment(spec(3, "nginx:1.28"));
        d.annotations.insert(REVISION.into(), "2".into());
        let mut old = replica_set(&spec(3, "nginx:1.27"), 0, 4);
        let mut new = replica_set(&d.spec, 3, 4);
        new.meta.uid = "rs2-uid".into();
        Arc::make_mut(&mut new.spec).name = "web-5f6c9b8d47".into();
        Arc::make_mut(&mut new.spec).annotations.insert(REVISION.into(), "2".into());
        let mut records = vec![(0, d_record(Added, &d)), (0, rs_record(Added, &old)), (0, rs_record(Added, &new))];
        // `kubectl rollout undo`: the old template is the Deployment's again.
        d.meta.generation = 2;
        d.spec = spec(3, "nginx:1.27");
        records.push((1000, d_record(Modified, &d)));
        Arc::make_mut(&mut old.spec).annotations.insert(REVISION.into(), "3".into());
        Arc::make_mut(&mut old.spec).annotations.insert(REVISION_HISTORY.into(), "1".into());
        records.push((1010, rs_record(Modified, &old)));
        d.annotations.insert(REVISION.into(), "3".into());
        records.push((1012, d_record(Modified, &d)));
        Arc::make_mut(&mut old.spec).replicas = 1;
        records.push((1020, rs_record(Modified, &old)));
        Arc::make_mut(&mut new.spec).replicas = 2;
        records.push((3000, rs_record(Modified, &new)));
        let (web, a, b) = ("deployment/web", "replicaset/web-7c5ddbdf54", "replicaset/web-5f6c9b8d47");
        assert_eq!(
            feed(records)[4..],
            [
                row(1000, web, "spec changed (generation 2)", "new pod template (web: nginx:1.28 → nginx:1.27)"),
                row(1010, a, "revision 3", "its template is its Deployment's again (earlier revisions 1)"),
                row(
                    1012,
                    web,
                    "revision 3",
                    "its new ReplicaSet is replicaset/web-7c5ddbdf54 again (earlier revisions 1)"
                ),
                row(1020, a, "scaled 0 → 1", "new ReplicaSet of deployment/web (desired-replicas 3, max-replicas 4)"),
                row(3000, b, "scaled 3 → 2", "old ReplicaSet of deployment/web (desired-replicas 3, max-replicas 4)"),
            ]
        );
    }
}
