//! `podsim get`: what `kubectl get` would print of a run — the objects at an
//! instant, or every watch event — from the trace's API records.

use super::args::{GetArgs, GetOutput};
use super::problems;
use super::run::inputs;
use crate::cluster::Cluster;
use crate::error::{Error, Problem};
use crate::kubectl::printers::{self, Kind};
use crate::kubectl::tabwriter::TabWriter;
use crate::run::simulate_watched;
use crate::time::SimTime;
use crate::trace::record::{Record, WatchKind};
use crate::trace::render::{self, Clock};
use crate::trace::{Trace, render_network, render_workloads};
use k8s_openapi::jiff::Timestamp;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Arc;

/// `KIND[/NAME]` with kubectl's names and short names.
pub(super) fn resource(text: &str) -> Result<(Kind, Option<String>), String> {
    let (kind, name) = match text.split_once('/') {
        Some((k, n)) => (k, Some(n.to_string())),
        None => (text, None),
    };
    let kind = match kind.to_ascii_lowercase().as_str() {
        "pods" | "pod" | "po" => Kind::Pod,
        "deployments" | "deployment" | "deploy" | "deployments.apps" => Kind::Deployment,
        "replicasets" | "replicaset" | "rs" | "replicasets.apps" => Kind::ReplicaSet,
        "services" | "service" | "svc" => Kind::Service,
        "endpointslices" | "endpointslice" | "endpointslices.discovery.k8s.io" => Kind::EndpointSlice,
        "events" | "event" | "ev" => Kind::Event,
        "persistentvolumeclaims" | "persistentvolumeclaim" | "pvc" => Kind::Claim,
        "poddisruptionbudgets" | "poddisruptionbudget" | "pdb" | "poddisruptionbudgets.policy" => Kind::Pdb,
        "nodes" | "node" | "no" => Kind::Node,
        "jobs" | "job" | "jobs.batch" => Kind::Job,
        "cronjobs" | "cronjob" | "cj" | "cronjobs.batch" => Kind::CronJob,
        "statefulsets" | "statefulset" | "sts" | "statefulsets.apps" => Kind::StatefulSet,
        "daemonsets" | "daemonset" | "ds" | "daemonsets.apps" => Kind::DaemonSet,
        "controllerrevisions" | "controllerrevision" | "controllerrevisions.apps" => Kind::ControllerRevision,
        other => {
            return Err(format!(
                "the server doesn't have a resource type {other:?} (podsim prints pods, deployments, replicasets, statefulsets, daemonsets, controllerrevisions, jobs, cronjobs, services, endpointslices, events, persistentvolumeclaims, poddisruptionbudgets and nodes)"
            ));
        }
    };
    Ok((kind, name.filter(|n| !n.is_empty())))
}

/// One object of the trace as the API server returns it, with its kind's row.
pub(super) struct Object {
    pub(super) namespace: String,
    pub(super) name: String,
    pub(super) json: Value,
}

/// The object a record writes, rendered, if it is of `kind` (`None` for others).
fn object(
    record: &Record,
    kind: Kind,
    clock: &Clock,
    services: &BTreeMap<crate::ids::ServiceId, std::sync::Arc<crate::api::service::ApiService>>,
) -> Option<(WatchKind, Object)> {
    let (watch, json, namespace, name) = match (record, kind) {
        (Record::Pod { kind, pod }, Kind::Pod) => (
            *kind,
            serde_json::to_value(render::pod(pod, clock)).ok()?,
            pod.spec.namespace.clone(),
            pod.spec.name.clone(),
        ),
        (Record::Deployment { kind, deployment }, Kind::Deployment) => {
            let d = render_workloads::deployment(deployment, clock);
            (*kind, serde_json::to_value(&d).ok()?, deployment.spec.namespace.clone(), deployment.spec.name.clone())
        }
        (Record::ReplicaSet { kind, rs }, Kind::ReplicaSet) => {
            let r = render_workloads::replica_set(rs, clock);
            (*kind, serde_json::to_value(&r).ok()?, rs.spec.namespace.to_string(), rs.spec.name.to_string())
        }
        (Record::Service { kind, svc }, Kind::Service) => {
            let s = render_network::service(svc, clock);
            (*kind, serde_json::to_value(&s).ok()?, svc.spec.namespace.clone(), svc.spec.name.clone())
        }
        // Each write of an Event (created, or its count raised by the correlator).
        (Record::Event(ev), Kind::Event) => (
            WatchKind::Modified,
            serde_json::to_value(render::event(ev, clock)).ok()?,
            ev.namespace.to_string(),
            ev.name.clone(),
        ),
        (Record::Claim { kind, claim }, Kind::Claim) => {
            let c = render::claim(claim, clock);
            (*kind, serde_json::to_value(&c).ok()?, claim.spec.namespace.to_string(), claim.spec.name.to_string())
        }
        (Record::Node { kind, node }, Kind::Node) => {
            (*kind, serde_json::to_value(render::node(node, clock)).ok()?, String::new(), node.name.to_string())
        }
        (Record::Pdb { kind, pdb }, Kind::Pdb) => {
            let b = crate::trace::render_disruption::pdb(pdb, clock);
            (*kind, serde_json::to_value(&b).ok()?, pdb.spec.namespace.to_string(), pdb.spec.name.to_string())
        }
        (Record::Job { kind, job }, Kind::Job) => {
            let j = crate::trace::render_jobs::job(job, clock);
            (*kind, serde_json::to_value(&j).ok()?, job.spec.namespace.clone(), job.spec.name.clone())
        }
        (Record::CronJob { kind, cronjob }, Kind::CronJob) => {
            let c = crate::trace::render_jobs::cronjob(cronjob, clock);
            (*kind, serde_json::to_value(&c).ok()?, cronjob.spec.namespace.clone(), cronjob.spec.name.clone())
        }
        (Record::StatefulSet { kind, sts }, Kind::StatefulSet) => {
            let o = crate::trace::render_statefulset::stateful_set(sts, clock);
            (*kind, serde_json::to_value(&o).ok()?, sts.spec.namespace.clone(), sts.spec.name.clone())
        }
        (Record::DaemonSet { kind, ds }, Kind::DaemonSet) => {
            let d = crate::trace::render_daemonsets::daemon_set(ds, clock);
            (*kind, serde_json::to_value(&d).ok()?, ds.spec.namespace.clone(), ds.spec.name.clone())
        }
        (Record::ControllerRevision { kind, revision }, Kind::ControllerRevision) => {
            let r = crate::trace::render_controllerrevision::controller_revision(revision, clock);
            (*kind, serde_json::to_value(&r).ok()?, revision.namespace.to_string(), revision.name.to_string())
        }
        (Record::Slice { kind, slice }, Kind::EndpointSlice) => {
            let s = render_network::endpoint_slice(slice, services.get(&slice.service)?, clock);
            (*kind, serde_json::to_value(&s).ok()?, slice.namespace.to_string(), slice.name.to_string())
        }
        _ => return None,
    };
    Some((watch, Object { namespace, name, json }))
}

/// The row kubectl prints for `o` at `now`.
fn row(kind: Kind, o: &Object, now: Timestamp, wide: bool) -> Option<Vec<String>> {
    let v = o.json.clone();
    Some(match kind {
        Kind::Pod => printers::pod_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::Deployment => printers::deployment_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::ReplicaSet => printers::replica_set_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::Service => printers::service_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::EndpointSlice => printers::endpoint_slice_row(&serde_json::from_value(v).ok()?, now),
        Kind::Event => printers::event_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::Claim => printers::claim_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::Pdb => printers::pdb_row(&serde_json::from_value(v).ok()?, now),
        Kind::Node => printers::node_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::Job => printers::job_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::CronJob => printers::cronjob_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::StatefulSet => printers::stateful_set_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::DaemonSet => printers::daemon_set_row(&serde_json::from_value(v).ok()?, now, wide),
        Kind::ControllerRevision => printers::controller_revision_row(&serde_json::from_value(v).ok()?, now),
    })
}

/// What the command prints: the rows, laid out by kubectl's tabwriter.
struct Printer {
    kind: Kind,
    wide: bool,
    all_namespaces: bool,
    /// Several kinds asked for: names print as `KIND/NAME`, as kubectl's
    /// `--show-kind` (which it turns on then).
    show_kind: bool,
    tabs: TabWriter,
    headed: bool,
}

impl Printer {
    fn rows(&mut self, objects: &[&Object], now: Timestamp) -> String {
        let mut rows = Vec::new();
        if !self.headed {
            let mut header = printers::header(self.kind, self.wide);
            if self.all_namespaces {
                header.insert(0, "NAMESPACE".into());
            }
            rows.push(header);
            self.headed = true;
        }
        // The NAME column, where a kind has one at this width (events only with -o wide).
        let name = printers::header(self.kind, self.wide).iter().position(|h| h == "NAME");
        for o in objects {
            let Some(mut r) = row(self.kind, o, now, self.wide) else { continue };
            if let (true, Some(i)) = (self.show_kind, name) {
                r[i] = format!("{}/{}", printers::qualified_kind(self.kind), r[i]);
            }
            if self.all_namespaces {
                r.insert(0, o.namespace.clone());
            }
            rows.push(r);
        }
        self.tabs.flush(&rows)
    }
}

pub fn get(args: GetArgs) -> ExitCode {
    let stderr = &mut io::stderr().lock();
    let bad = |stderr: &mut io::StderrLock, e: String| {
        problems::error(stderr, &Error::Input(vec![Problem::error(e)]));
        ExitCode::from(2)
    };
    let mut asked = Vec::new();
    for text in args.resource.split(',') {
        match resource(text) {
            Ok(r) => asked.push(r),
            Err(e) => return bad(stderr, format!("resource {text:?}: {e}")),
        }
    }
    let several = asked.len() > 1;
    if several && asked.iter().any(|(_, n)| n.is_some()) {
        return bad(stderr, format!("resource {:?}: give KIND,KIND,… or one KIND/NAME", args.resource));
    }
    if args.watch && matches!(args.output, Some(GetOutput::Yaml | GetOutput::Json)) {
        return bad(stderr, "-w prints the table: -o yaml and -o json print the objects at one instant (--at)".into());
    }
    // kubectl's watch takes one kind (`watch()`, multipleGVKsRequested).
    if args.watch && several {
        let message =
            "watch is only supported on individual resources and resource collections - more than 1 resource was found";
        problems::fail(stderr, message);
        return ExitCode::from(1);
    }
    let Some((trace, clock, at, cluster)) = simulated(&args.inputs, args.at, stderr) else { return ExitCode::from(2) };
    let namespace = args.inputs.namespace.clone().unwrap_or_else(|| "default".into());
    let clock = &clock;
    let wide = args.output == Some(GetOutput::Wide);
    let printer = |kind| Printer {
        kind,
        wide,
        // Nodes are cluster-scoped: no NAMESPACE column.
        all_namespaces: args.all_namespaces && kind != Kind::Node,
        show_kind: several,
        tabs: TabWriter::default(),
        headed: false,
    };
    if args.watch {
        let (kind, name) = asked[0].clone();
        let wanted = |o: &Object| {
            let scoped = args.all_namespaces || o.namespace == namespace || kind == Kind::Node;
            scoped && name.as_ref().is_none_or(|n| *n == o.name)
        };
        let listed = match kind {
            Kind::Node => profile_nodes(&cluster, &trace, clock).into_values().collect(),
            _ => Vec::new(),
        };
        return problems::emit(&watch(&trace, kind, clock, &listed, &wanted, &mut printer(kind)), stderr);
    }
    // Each kind's objects at the instant, in the order asked.
    let mut found: Vec<(Kind, Vec<Object>)> = Vec::new();
    for (kind, name) in &asked {
        let wanted = |o: &Object| {
            let scoped = args.all_namespaces || o.namespace == namespace || *kind == Kind::Node;
            scoped && name.as_ref().is_none_or(|n| *n == o.name)
        };
        let mut all = match kind {
            Kind::Node => profile_nodes(&cluster, &trace, clock),
            _ => BTreeMap::new(),
        };
        all.extend(at_instant(&trace, *kind, clock, at));
        let objects: Vec<Object> = all.into_values().filter(|o| wanted(o)).collect();
        // kubectl exits 1 for an object that is not there, 0 for an empty list.
        if objects.is_empty() && name.is_some() {
            let _ = writeln!(stderr, "{}", not_found(*kind, name.as_deref(), &namespace, args.all_namespaces));
            return ExitCode::from(1);
        }
        found.push((*kind, objects));
    }
    let out = match args.output {
        Some(GetOutput::Yaml | GetOutput::Json) => {
            let all: Vec<&Object> = found.iter().flat_map(|(_, o)| o).collect();
            let value = match (asked[0].1.is_some(), all.as_slice()) {
                (true, [one]) => one.json.clone(),
                _ => {
                    serde_json::json!({"apiVersion": "v1", "items": all.iter().map(|o| o.json.clone()).collect::<Vec<_>>(), "kind": "List", "metadata": {"resourceVersion": ""}})
                }
            };
            let text = match args.output {
                Some(GetOutput::Yaml) => serde_saphyr::to_string(&value).unwrap_or_default(),
                _ => serde_json::to_string_pretty(&value).unwrap_or_default(),
            };
            if text.ends_with('\n') { text } else { text + "\n" }
        }
        _ if found.iter().all(|(_, o)| o.is_empty()) => {
            let _ = writeln!(stderr, "{}", not_found(asked[0].0, None, &namespace, args.all_namespaces));
            String::new()
        }
        // A table per kind, its own widths, a blank line between (`GetOptions.Run`).
        _ => {
            let tables: Vec<String> = (found.iter().filter(|(_, o)| !o.is_empty()))
                .map(|(kind, objects)| printer(*kind).rows(&objects.iter().collect::<Vec<_>>(), clock.time(at).0))
                .collect();
            tables.join("\n")
        }
    };
    problems::emit(&out, stderr)
}

/// The run the inputs describe, its clock, the instant asked for (`--at`,
/// at most the run's end; the end by default), and its cluster.
pub(super) fn simulated(
    args: &super::args::RunInputs,
    at: Option<crate::time::SimDuration>,
    stderr: &mut impl Write,
) -> Option<(Trace, Clock, SimTime, Arc<Cluster>)> {
    let inputs = inputs(args, stderr)?;
    let prepared = problems::prepared(&inputs, stderr)?;
    let end = SimTime::ZERO + prepared.until;
    let trace = simulate_watched(&prepared.setup, prepared.seed, end, &mut super::sweeping::one_run(end));
    let at = at.map_or(end, |t| (SimTime::ZERO + t).min(end));
    // A run stopped by its budget still answers for the instants before it stopped.
    if let Some(e) = trace.exhausted.filter(|e| at >= e.at) {
        problems::exhausted(stderr, &e, prepared.until);
        return None;
    }
    Some((trace, prepared.clock, at, prepared.setup.cluster.clone()))
}

/// The profile's nodes as the run starts: they exist before it, so the
/// trace records only their changes (but a node that joins during the run,
/// which the trace records as added).
fn profile_nodes(cluster: &Cluster, trace: &Trace, clock: &Clock) -> BTreeMap<(String, String), Object> {
    let joined: Vec<&str> = (trace.entries.iter())
        .filter_map(|e| match &e.record {
            Record::Node { kind: WatchKind::Added, node } => Some(&*node.name),
            _ => None,
        })
        .collect();
    let node = |n| {
        let api = crate::api::node::ApiNode::of(n);
        let json = serde_json::to_value(render::node(&api, clock)).unwrap_or_default();
        ((String::new(), n.name.to_string()), Object { namespace: String::new(), name: n.name.to_string(), json })
    };
    cluster.nodes.iter().filter(|n| !joined.contains(&&*n.name)).map(node).collect()
}

/// kubectl's words when nothing matches.
pub(super) fn not_found(kind: Kind, name: Option<&str>, namespace: &str, all: bool) -> String {
    let resource = match kind {
        Kind::Pod => "pods",
        Kind::Deployment => "deployments.apps",
        Kind::ReplicaSet => "replicasets.apps",
        Kind::Job => "jobs.batch",
        Kind::CronJob => "cronjobs.batch",
        Kind::DaemonSet => "daemonsets.apps",
        Kind::ControllerRevision => "controllerrevisions.apps",
        Kind::Service => "services",
        Kind::EndpointSlice => "endpointslices.discovery.k8s.io",
        Kind::Event => "events",
        Kind::Claim => "persistentvolumeclaims",
        Kind::Pdb => "poddisruptionbudgets.policy",
        Kind::Node => "nodes",
        Kind::StatefulSet => "statefulsets.apps",
    };
    match (name, all) {
        (Some(n), _) => format!("Error from server (NotFound): {resource} {n:?} not found"),
        // A cluster-scoped kind is in no namespace.
        (None, true) | (None, false) if kind == Kind::Node => "No resources found".into(),
        (None, true) => "No resources found".into(),
        (None, false) => format!("No resources found in {namespace} namespace."),
    }
}

/// Every object of `kind` as it is at `at`, by namespace and name (the API's list order).
pub(super) fn at_instant(trace: &Trace, kind: Kind, clock: &Clock, at: SimTime) -> BTreeMap<(String, String), Object> {
    let mut services = BTreeMap::new();
    let mut objects = BTreeMap::new();
    for e in trace.entries.iter().take_while(|e| e.t <= at) {
        if let Record::Service { svc, .. } = &e.record {
            services.insert(svc.id, svc.clone());
        }
        let Some((watch, o)) = object(&e.record, kind, clock, &services) else { continue };
        let key = (o.namespace.clone(), o.name.clone());
        match watch {
            WatchKind::Deleted => {
                objects.remove(&key);
            }
            _ => {
                objects.insert(key, o);
            }
        }
    }
    objects
}

/// `kubectl get -w` from before the run: the objects `listed` at its start
/// (the profile's nodes), then a row per watch event, each at its instant.
fn watch(
    trace: &Trace,
    kind: Kind,
    clock: &Clock,
    listed: &[Object],
    wanted: &dyn Fn(&Object) -> bool,
    printer: &mut Printer,
) -> String {
    let mut services = BTreeMap::new();
    let mut out = String::new();
    let first: Vec<&Object> = listed.iter().filter(|o| wanted(o)).collect();
    if !first.is_empty() {
        out.push_str(&printer.rows(&first, clock.time(SimTime::ZERO).0));
    }
    for e in &trace.entries {
        if let Record::Service { svc, .. } = &e.record {
            services.insert(svc.id, svc.clone());
        }
        let Some((_, o)) = object(&e.record, kind, clock, &services) else { continue };
        if wanted(&o) {
            out.push_str(&printer.rows(&[&o], clock.time(e.t).0));
        }
    }
    out
}
