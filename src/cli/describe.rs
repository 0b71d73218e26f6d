//! `podsim describe KIND/NAME`: what `kubectl describe` would print of a
//! run's pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
//! Service or EndpointSlice as it is at an instant, with the objects its
//! describer reads then (the ReplicaSets of a Deployment, the pods of a
//! ReplicaSet, StatefulSet or DaemonSet, the EndpointSlices of a Service)
//! and the events about it.

use super::args::DescribeArgs;
use super::get::{Object, at_instant, not_found, resource, simulated};
use super::problems;
use crate::error::{Error, Problem};
use crate::kubectl::printers::Kind;
use crate::kubectl::{
    describe, describe_daemonset, describe_job, describe_network, describe_statefulset, describe_workloads,
};
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::render::Clock;
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{Event, Pod, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use serde::de::DeserializeOwned;
use std::io::{self, Write};
use std::process::ExitCode;

/// kubectl's resource name when it knows no such kind.
fn unknown_kind(text: &str) -> String {
    let kind = text.split_once('/').map_or(text, |(k, _)| k);
    format!("the server doesn't have a resource type {:?}", kind.to_ascii_lowercase())
}

pub fn describe(args: DescribeArgs) -> ExitCode {
    let stderr = &mut io::stderr().lock();
    let bad = |stderr: &mut io::StderrLock, e: String| {
        problems::error(stderr, &Error::Input(vec![Problem::error(e)]));
        ExitCode::from(2)
    };
    let (kind, name) = match resource(&args.resource) {
        Err(_) => return bad(stderr, unknown_kind(&args.resource)),
        Ok((Kind::Event | Kind::Claim | Kind::Pdb | Kind::Node | Kind::ControllerRevision, _)) => {
            let e = format!(
                "resource {:?}: podsim describes pods, deployments, replicasets, statefulsets, daemonsets, jobs, cronjobs, services and endpointslices",
                args.resource
            );
            return bad(stderr, e);
        }
        Ok((_, None)) => {
            let e =
                format!("resource {:?}: podsim describes one object, as KIND/NAME (e.g. deploy/web)", args.resource);
            return bad(stderr, e);
        }
        Ok((kind, Some(name))) => (kind, name),
    };
    let Some((trace, clock, at, _)) = simulated(&args.inputs, args.at, stderr) else { return ExitCode::from(2) };
    let namespace = args.inputs.namespace.clone().unwrap_or_else(|| "default".into());
    let view = View { trace: &trace, clock: &clock, at, namespace: &namespace };
    let Some(object) = at_instant(&trace, kind, &clock, at).remove(&(namespace.clone(), name.clone())) else {
        let _ = writeln!(stderr, "{}", not_found(kind, Some(&name), &namespace, false));
        return ExitCode::from(1);
    };
    let now = clock.time(at).0;
    let text = match kind {
        Kind::Pod => view.typed::<Pod>(&object).map(|pod| {
            let events = view.events("Pod", &pod.metadata.uid);
            describe::describe_pod(&pod, &events, now)
        }),
        Kind::Deployment => view.typed::<Deployment>(&object).map(|d| {
            let events = view.events("Deployment", &d.metadata.uid);
            describe_workloads::describe_deployment(&d, &view.all::<ReplicaSet>(Kind::ReplicaSet), &events, now)
        }),
        Kind::ReplicaSet => view.typed::<ReplicaSet>(&object).map(|rs| {
            let events = view.events("ReplicaSet", &rs.metadata.uid);
            describe_workloads::describe_replica_set(&rs, &view.all::<Pod>(Kind::Pod), &events, now)
        }),
        Kind::Service => view.typed::<Service>(&object).map(|svc| {
            let events = view.events("Service", &svc.metadata.uid);
            // The Service describer lists the slices labelled with its name.
            let slices: Vec<EndpointSlice> = view
                .all::<EndpointSlice>(Kind::EndpointSlice)
                .into_iter()
                .filter(|s| s.metadata.labels.as_ref().and_then(|l| l.get("kubernetes.io/service-name")) == Some(&name))
                .collect();
            describe_network::describe_service(&svc, &slices, &events, now)
        }),
        Kind::EndpointSlice => view.typed::<EndpointSlice>(&object).map(|s| {
            let events = view.events("EndpointSlice", &s.metadata.uid);
            describe_network::describe_endpoint_slice(&s, &events, now)
        }),
        Kind::StatefulSet => view.typed::<StatefulSet>(&object).map(|s| {
            let events = view.events("StatefulSet", &s.metadata.uid);
            describe_statefulset::describe_stateful_set(&s, &view.all::<Pod>(Kind::Pod), &events, now)
        }),
        Kind::DaemonSet => view.typed::<DaemonSet>(&object).map(|d| {
            let events = view.events("DaemonSet", &d.metadata.uid);
            describe_daemonset::describe_daemon_set(&d, &view.all::<Pod>(Kind::Pod), &events, now)
        }),
        Kind::Job => view.typed::<Job>(&object).map(|j| {
            let events = view.events("Job", &j.metadata.uid);
            describe_job::describe_job(&j, &events, now)
        }),
        Kind::CronJob => view.typed::<CronJob>(&object).map(|c| {
            let events = view.events("CronJob", &c.metadata.uid);
            describe_job::describe_cron_job(&c, &events, now)
        }),
        Kind::Event | Kind::Claim | Kind::Pdb | Kind::Node | Kind::ControllerRevision => None,
    };
    // The objects are podsim's own renderings: one that does not read back is a bug, said as such.
    let Some(text) = text else {
        problems::fail(stderr, format_args!("podsim could not read back its own {} {name:?}", args.resource));
        return ExitCode::from(2);
    };
    problems::emit(&text, stderr)
}

/// The run as the describers see it at one instant, in one namespace.
struct View<'a> {
    trace: &'a Trace,
    clock: &'a Clock,
    at: SimTime,
    namespace: &'a str,
}

impl View<'_> {
    fn typed<T: DeserializeOwned>(&self, o: &Object) -> Option<T> {
        serde_json::from_value(o.json.clone()).ok()
    }

    /// Every object of `kind` in the namespace then, in the API's list order.
    fn all<T: DeserializeOwned>(&self, kind: Kind) -> Vec<T> {
        at_instant(self.trace, kind, self.clock, self.at)
            .into_values()
            .filter(|o| o.namespace == self.namespace)
            .filter_map(|o| self.typed(&o))
            .collect()
    }

    /// The events about the object (`searchEvents`: its kind and uid in the namespace).
    fn events(&self, kind: &str, uid: &Option<String>) -> Vec<Event> {
        self.all::<Event>(Kind::Event)
            .into_iter()
            .filter(|e| e.involved_object.kind.as_deref() == Some(kind) && e.involved_object.uid == *uid)
            .collect()
    }
}
