//! `kubectl describe daemonset` (k8s.io/kubectl/pkg/describe
//! `describeDaemonSet`): the selectors, the five status numbers, the pods
//! counted by phase, the pod template and the events.

use super::describe::{Writer, annotations, describe_events, labels};
use super::describe_workloads::pod_template;
use super::selector::{format_labels, matches, selector_string};
use super::tabwriter::go_tabwriter;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Event, Pod};
use k8s_openapi::jiff::Timestamp;

/// `describeDaemonSet` of `d`, with the pods of the run (those its selector
/// picks and it controls are counted by phase, `getPodStatusForController`)
/// and its events.
pub fn describe_daemon_set(d: &DaemonSet, pods: &[Pod], events: &[Event], now: Timestamp) -> String {
    let mut w = Writer(String::new());
    let meta = &d.metadata;
    let spec = &d.spec;
    let s = d.status.clone().unwrap_or_default();
    w.line(0, &format!("Name:\t{}", meta.name.clone().unwrap_or_default()));
    w.line(0, &format!("Namespace:\t{}", meta.namespace.clone().unwrap_or_default()));
    w.line(0, &format!("Selector:\t{}", selector_string(&spec.selector)));
    let node_selector = spec.template.spec.as_ref().and_then(|p| p.node_selector.as_ref());
    w.line(0, &format!("Node-Selector:\t{}", format_labels(node_selector)));
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    // No tab: these lines are not aligned with the others.
    w.line(0, &format!("Desired Number of Nodes Scheduled: {}", s.desired_number_scheduled));
    w.line(0, &format!("Current Number of Nodes Scheduled: {}", s.current_number_scheduled));
    w.line(0, &format!("Number of Nodes Scheduled with Up-to-date Pods: {}", s.updated_number_scheduled.unwrap_or(0)));
    w.line(0, &format!("Number of Nodes Scheduled with Available Pods: {}", s.number_available.unwrap_or(0)));
    w.line(0, &format!("Number of Nodes Misscheduled: {}", s.number_misscheduled));
    let [running, waiting, succeeded, failed] = pod_status(d, pods);
    w.line(
        0,
        &format!("Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed"),
    );
    pod_template(&mut w, Some(&spec.template));
    describe_events(&mut w, events, now);
    go_tabwriter(&w.0, 0, 2)
}

/// `getPodStatusForController`: the pods the selector picks whose
/// controller is `d`, by phase (Running, Pending as Waiting, Succeeded, Failed).
fn pod_status(d: &DaemonSet, pods: &[Pod]) -> [usize; 4] {
    let mut counts = [0; 4];
    for pod in pods {
        let meta = &pod.metadata;
        let controller = meta.owner_references.iter().flatten().find(|o| o.controller == Some(true));
        if meta.namespace != d.metadata.namespace
            || !matches(&d.spec.selector, meta.labels.as_ref())
            || controller.is_none_or(|c| Some(&c.uid) != d.metadata.uid.as_ref())
        {
            continue;
        }
        match pod.status.as_ref().and_then(|s| s.phase.as_deref()) {
            Some("Running") => counts[0] += 1,
            Some("Pending") => counts[1] += 1,
            Some("Succeeded") => counts[2] += 1,
            Some("Failed") => counts[3] += 1,
            _ => {}
        }
    }
    counts
}
