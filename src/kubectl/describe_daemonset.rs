//! `kubectl describe daemonset` (k8s.io/kubectl/pkg/describe
//! `describeDaemonSet`): the selectors, the five status numbers, the pods
//! counted by phase, the pod template and the events.

use super::describe::{Writer, annotations, describe_events, labels};
use super::describe_workloads::{pod_status_for_controller, pod_template};
use super::selector::{format_labels, selector_string};
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
    let [running, waiting, succeeded, failed] = pod_status_for_controller(meta, &spec.selector, pods);
    w.line(
        0,
        &format!("Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed"),
    );
    pod_template(&mut w, Some(&spec.template));
    describe_events(&mut w, events, now);
    go_tabwriter(&w.0, 0, 2)
}
