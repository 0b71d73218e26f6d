//! The state functions properties can read, and the two kinds of value.

/// A term's kind of value: they do not mix.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A number of things: endpoints, restarts, requests, replicas.
    Count,
    /// A time in the run (a milestone) or a duration.
    Time,
}

impl Ty {
    pub fn as_str(self) -> &'static str {
        match self {
            Ty::Count => "a count",
            Ty::Time => "a time",
        }
    }
}

/// Every state function: its name, the subject kinds it takes, and what it counts.
pub const FUNCTIONS: &[(&str, &[&str], &str)] = &[
    ("endpoints", &["svc"], "pods with an endpoint in the Service's EndpointSlices"),
    ("ready_endpoints", &["svc"], "pods whose endpoint is ready"),
    ("serving_endpoints", &["svc"], "pods whose endpoint is serving"),
    ("terminating_endpoints", &["svc"], "pods whose endpoint is terminating"),
    ("restarts", &["pod"], "restartCount summed over the pod's containers (pod/P/C: one container)"),
    ("image_pull_failures", &["pod"], "image pulls the registry refused so far (pod/P/C: one container)"),
    ("scheduling_failures", &["pod"], "FailedScheduling events so far: attempts that found no node"),
    ("requests", &["svc", "client"], "requests answered so far"),
    ("ok_requests", &["svc", "client"], "requests answered with HTTP 200–399 so far"),
    ("failed_requests", &["svc", "client"], "requests answered otherwise so far (5xx, refused, reset, timeout, …)"),
    ("replicas", &["deploy"], "the Deployment's status.replicas"),
    ("updated_replicas", &["deploy"], "status.updatedReplicas"),
    ("ready_replicas", &["deploy"], "status.readyReplicas"),
    ("available_replicas", &["deploy"], "status.availableReplicas"),
    ("active", &["job"], "the Job's status.active: pods running or being created"),
    ("succeeded_pods", &["job"], "status.succeeded (an Indexed Job: indexes completed)"),
    ("failed_pods", &["job"], "status.failed: failed pods counted"),
    ("ready_pods", &["job"], "status.ready"),
    ("terminating_pods", &["job"], "status.terminating"),
    ("replicas", &["deploy", "sts"], "the Deployment's or StatefulSet's status.replicas"),
    ("updated_replicas", &["deploy", "sts"], "status.updatedReplicas"),
    ("ready_replicas", &["deploy", "sts"], "status.readyReplicas"),
    ("available_replicas", &["deploy", "sts"], "status.availableReplicas"),
    (
        "ordinal_ready",
        &["sts"],
        "1 while the StatefulSet's pod of that ordinal is Running and Ready, else 0: ordinal_ready(sts/web, 2)",
    ),
    ("desired_scheduled", &["ds"], "the DaemonSet's status.desiredNumberScheduled: nodes that should run its pod"),
    ("current_scheduled", &["ds"], "status.currentNumberScheduled: those nodes with a pod"),
    ("number_ready", &["ds"], "status.numberReady: nodes whose oldest pod is Ready"),
    ("updated_scheduled", &["ds"], "status.updatedNumberScheduled: nodes whose oldest pod runs the current template"),
    ("number_available", &["ds"], "status.numberAvailable"),
    ("number_unavailable", &["ds"], "status.numberUnavailable: desired nodes without an available pod"),
    ("misscheduled", &["ds"], "status.numberMisscheduled: pods on nodes that should not run one"),
    ("max_pods_per_node", &["ds"], "the most pods of the DaemonSet, not finished and not gone, on one node"),
];

/// The state functions that take an ordinal after the subject.
pub const WITH_ORDINAL: [&str; 1] = ["ordinal_ready"];

/// The state function `name`, with the subject kinds it takes.
pub fn state_function(name: &str) -> Option<(&'static str, &'static [&'static str])> {
    FUNCTIONS.iter().find(|(n, ..)| *n == name).map(|(n, kinds, _)| (*n, *kinds))
}
