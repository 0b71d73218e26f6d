//! `kubectl describe pod` output: where a block starts and ends, whether it
//! is about a pod, and the Pod object it shows. Containers and events have
//! their own files.

mod containers;
pub(super) mod events;

use super::command::{Command, is_prompt, parse_command};
use super::get_events::EventsLayout;
use super::lines::{indent, is_elision, is_fence, split_key, starts_upper, value};
use super::table::parse_header;
use super::{Line, Reader};
use crate::observe::{EventRow, Observed};
use containers::{Ctr, Field, container_field, container_sub, split_containers};
use events::named_pod;
use k8s_openapi::api::core::v1::{HostIP, Pod, PodCondition, PodIP, PodReadinessGate, PodSpec, PodStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff;
use std::collections::BTreeMap;

impl Reader<'_> {
    /// describe's Events section pasted without its `Events:` line (from
    /// its column names or its first row on): read as that section.
    pub(super) fn events_block(&mut self, lines: &[Line], start: usize) -> usize {
        let Some(first) = lines.get(start) else { return start + 1 };
        let mut block = vec![Line { no: first.no, text: "Events:" }];
        block.extend(lines.get(start..).unwrap_or_default().iter().copied());
        // Index 0 of the block is the `Events:` line put in front.
        start + self.describe(&block, 0) - 1
    }

    pub(super) fn describe(&mut self, lines: &[Line], start: usize) -> usize {
        let end = describe_end(lines, start).clamp(start + 1, lines.len());
        let Some(block) = lines.get(start..end) else { return start + 1 };
        let Some(first) = block.first() else { return end };
        let base = indent(first.text);
        let tops: Vec<&str> = block
            .iter()
            .filter(|l| indent(l.text) <= base)
            .filter_map(|l| split_key(l.text.trim()).map(|(k, _)| k))
            .collect();
        let pod_keys = tops.iter().any(|k| POD_ONLY_KEYS.contains(k));
        let cmd_other =
            self.cmd.as_ref().is_some_and(|c| c.verb == "describe" && c.kinds.first().is_some_and(|k| k != "pod"));
        if tops.iter().any(|k| OTHER_RESOURCE_KEYS.contains(k)) || (cmd_other && !pod_keys) {
            return end; // describe output of another resource
        }
        self.read_any = true;
        let mut d = Describe::default();
        d.read(block, base);
        for (line, message) in std::mem::take(&mut d.warnings) {
            self.warn(line, message);
        }
        self.finish_describe(d, first.no);
        end
    }

    fn finish_describe(&mut self, mut d: Describe, first_line: u64) {
        // The pod's name: its `Name:` line, else the command, else its Scheduled event.
        let mut named_by = "";
        if d.name.is_none() {
            if let Some((name, ns)) = self.cmd.as_ref().and_then(Command::described_pod) {
                d.name = Some(name);
                d.namespace = d.namespace.or(ns);
            } else if let Some((ns, name, by)) = d.events.iter().find_map(|(_, e)| named_pod(e)) {
                d.name = Some(name);
                d.namespace = d.namespace.or(Some(ns));
                named_by = by;
            }
        }
        let pod = d.build();
        for (line, message) in std::mem::take(&mut d.warnings) {
            self.warn(line, message);
        }
        // An excerpt without `Name:` is an observation only when it shows some status.
        let has_content = pod.status.is_some() || (d.name_line.is_some() && pod.spec.is_some());
        if !has_content && d.events.is_empty() {
            self.warn(first_line, "this `kubectl describe` excerpt shows no pod status and no events: ignored");
            return;
        }
        match (&d.name, has_content || !d.events.is_empty()) {
            (None, true) => self.warn(
                first_line,
                "`kubectl describe` output without its `Name:` line (an excerpt?) and no `kubectl describe pod NAME` \
                 command above it: the pod is unnamed",
            ),
            (Some(name), true) if !named_by.is_empty() => self.warn(
                first_line,
                format!(
                    "`kubectl describe` output without its `Name:` line: the pod is taken to be `{name}` from \
                     {named_by}"
                ),
            ),
            _ => {}
        }
        if has_content {
            self.emit(d.name_line.unwrap_or(first_line), None, Observed::Pod(Box::new(pod)));
        }
        for (line, row) in std::mem::take(&mut d.events) {
            self.emit(line, None, Observed::EventRow { pod: d.name.clone(), row });
        }
    }
}

/// Top-level describe keys only other resources print.
const OTHER_RESOURCE_KEYS: &[&str] = &[
    "CreationTimestamp",
    "Replicas",
    "Selector",
    "Pod Template",
    "StrategyType",
    "Completions",
    "Parallelism",
    "Schedule",
    "Roles",
    "Capacity",
    "StorageClass",
    "Type",
    "Endpoints",
    "TargetPort",
    "Taints",
    "Unschedulable",
    "Addresses",
    "AddressType",
    "Update Strategy",
    "Pods Status",
    "Data",
    "Reclaim Policy",
    "Access Modes",
];

/// Top-level describe keys only pods print.
const POD_ONLY_KEYS: &[&str] =
    &["Start Time", "Node", "IP", "IPs", "Containers", "Init Containers", "QoS Class", "Status", "Conditions"];

/// The first line of a `kubectl describe` block.
pub(super) fn describe_start(t: &str) -> bool {
    let Some((k, v)) = split_key(t.trim()) else { return false };
    if k == "Name" {
        return !v.is_empty() && !v.contains(char::is_whitespace) && indent(t) <= 8;
    }
    indent(t) == 0
        && (matches!(
            k,
            "Namespace" | "Start Time" | "Init Containers" | "Containers" | "Conditions" | "Events" | "QoS Class"
        ) || (k == "Status" && (PHASES.contains(&v) || v.starts_with("Terminating"))))
}

const PHASES: &[&str] = &["Pending", "Running", "Succeeded", "Failed", "Unknown"];

/// A key of a container's describe fields, when met outside a describe block.
pub(super) fn is_fragment_key(t: &str) -> bool {
    split_key(t.trim()).is_some_and(|(k, _)| {
        matches!(
            k,
            "State"
                | "Last State"
                | "Ready"
                | "Restart Count"
                | "Exit Code"
                | "Liveness"
                | "Readiness"
                | "Startup"
                | "Container ID"
                | "Image ID"
        )
    })
}

/// The dashes under a table's column names: `----  ------  ----`.
fn is_rule(t: &str) -> bool {
    let toks: Vec<&str> = t.split_whitespace().collect();
    toks.len() >= 2 && toks.iter().all(|x| x.chars().all(|c| c == '-'))
}

/// The column names of describe's Events section (`Type Reason Age From
/// Message`, or kubectl < 1.14's `FirstSeen LastSeen Count From …`).
pub(super) fn is_events_header(t: &str) -> bool {
    let toks: Vec<&str> = t.split_whitespace().collect();
    toks == ["Type", "Reason", "Age", "From", "Message"]
        || (toks.len() >= 6 && toks[..3] == ["FirstSeen", "LastSeen", "Count"])
}

/// A top-level describe key line (`Status:   Running`).
fn top_key(t: &str) -> Option<(&str, &str)> {
    split_key(t.trim()).filter(|(k, _)| starts_upper(k))
}

/// The index after the last line of the describe block starting at `start`.
fn describe_end(lines: &[Line], start: usize) -> usize {
    let Some(first) = lines.get(start) else { return start + 1 };
    let base = indent(first.text);
    let events_open = |t: &str| top_key(t).is_some_and(|(k, v)| k == "Events" && value(v).is_none());
    let mut in_events = events_open(first.text);
    let mut j = start + 1;
    while let Some(l) = lines.get(j) {
        let t = l.text;
        let tt = t.trim();
        if tt.is_empty() {
            if in_events {
                return j;
            }
            // Blank lines inside the block: only when it goes on indented.
            let next = (j + 1..lines.len()).find(|&k| lines.get(k).is_some_and(|l| !l.text.trim().is_empty()));
            match next.and_then(|k| lines.get(k).map(|l| (k, l))) {
                Some((k, l)) if indent(l.text) > base && !is_prompt(l.text) && parse_command(l.text).is_none() => {
                    j = k;
                    continue;
                }
                _ => return j,
            }
        }
        if is_fence(tt) {
            return j;
        }
        // Deeper lines belong to the block, even `kubectl …` as a container's argument.
        if indent(t) > base || is_elision(tt) {
            j += 1;
            continue;
        }
        if is_prompt(t) || parse_command(t).is_some() || parse_header(t).is_some() {
            return j;
        }
        let key = top_key(t).map(|(k, _)| k);
        if in_events {
            // Events come last; an event message with a line break goes on at
            // the left margin (even `Error: …`).
            // A `--- t=10s ---` marker ends it; the `----  ------` rule under the header does not.
            if key == Some("Name") || (tt.starts_with("---") && !is_rule(tt)) {
                return j;
            }
            j += 1;
            continue;
        }
        match key {
            Some("Name") | None => return j,
            Some(_) => {
                in_events = events_open(t);
                j += 1;
            }
        }
    }
    j
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Section {
    Top,
    Skip,
    Labels,
    IPs,
    Containers { init: bool },
    Conditions,
    Gates,
    Events,
}

#[derive(Default)]
struct Describe {
    name: Option<String>,
    name_line: Option<u64>,
    namespace: Option<String>,
    labels: BTreeMap<String, String>,
    deletion_grace: Option<i64>,
    spec: PodSpec,
    status: PodStatus,
    init: Vec<Ctr>,
    containers: Vec<Ctr>,
    gates: Vec<PodReadinessGate>,
    events: Vec<(u64, EventRow)>,
    warnings: Vec<(u64, String)>,
}

/// A describe time (`Thu, 17 Feb 2022 16:51:01 -0500`, RFC 1123 with a
/// numeric zone) as the UTC instant; zone names other than UTC/GMT are
/// refused (`IST`, `CST` are ambiguous).
fn parse_time(s: &str) -> Option<Time> {
    let s = s.trim();
    let zone = s.rsplit(' ').next()?;
    let numeric = zone.len() == 5 && zone.starts_with(['+', '-']) && zone.chars().skip(1).all(|c| c.is_ascii_digit());
    if !numeric && !matches!(zone, "UTC" | "GMT" | "UT" | "Z") {
        return None;
    }
    let parser = jiff::fmt::rfc2822::DateTimeParser::new().relaxed_weekday(true);
    parser.parse_timestamp(s).ok().map(Time)
}

impl Describe {
    fn warn(&mut self, line: u64, message: impl Into<String>) {
        self.warnings.push((line, message.into()));
    }

    fn time(&mut self, line: u64, what: &str, v: &str) -> Option<Time> {
        let t = parse_time(v);
        if t.is_none() && value(v).is_some() {
            self.warn(line, format!("{what} `{v}` is not a time like `Thu, 17 Feb 2022 16:51:01 -0500`: left out"));
        }
        t
    }

    /// Reads the lines of one describe block, `base` the indent of its keys.
    fn read(&mut self, block: &[Line], base: usize) {
        let mut section = Section::Top;
        let (mut ctr_indent, mut field_indent): (Option<usize>, Option<usize>) = (None, None);
        let mut field = Field::Other;
        let mut layout = EventsLayout::Describe { from: None, message: None };
        for l in block {
            let (t, tt, ind) = (l.text, l.text.trim(), indent(l.text));
            if tt.is_empty() || is_elision(tt) {
                continue;
            }
            if ind <= base && section != Section::Events {
                let Some((k, v)) = top_key(t) else {
                    self.warn(l.no, format!("cannot read this line of `kubectl describe` output: `{tt}`"));
                    section = Section::Skip;
                    continue;
                };
                section = self.top(l.no, k, v);
                (ctr_indent, field_indent, field) = (None, None, Field::Other);
                if section == Section::Events {
                    layout = EventsLayout::Describe { from: None, message: None };
                }
                continue;
            }
            match section {
                Section::Top | Section::Skip => {}
                Section::Labels => {
                    if let Some((k, v)) = tt.split_once('=') {
                        self.labels.insert(k.to_string(), v.to_string());
                    }
                }
                Section::IPs => {
                    if let Some(ip) = split_key(tt).filter(|(k, _)| *k == "IP").and_then(|(_, v)| value(v)) {
                        self.status.pod_ips.get_or_insert_with(Vec::new).push(PodIP { ip });
                    }
                }
                Section::Conditions | Section::Gates => {
                    let toks: Vec<&str> = tt.split_whitespace().collect();
                    match toks.as_slice() {
                        ["Type", ..] => {}
                        [dash, ..] if dash.starts_with("--") => {}
                        [ty, status, ..] if section == Section::Conditions => {
                            self.status.conditions.get_or_insert_with(Vec::new).push(PodCondition {
                                type_: ty.to_string(),
                                status: status.to_string(),
                                ..Default::default()
                            });
                        }
                        [ty, ..] if section == Section::Gates => {
                            self.gates.push(PodReadinessGate { condition_type: ty.to_string() })
                        }
                        _ => self.warn(l.no, format!("cannot read this condition line: `{tt}`")),
                    }
                }
                Section::Containers { init } => {
                    if ctr_indent.is_none_or(|c| ind <= c) {
                        match tt.strip_suffix(':').filter(|n| !n.is_empty() && !n.contains(char::is_whitespace)) {
                            Some(name) => {
                                let c = Ctr::new(name, l.no);
                                if init {
                                    self.init.push(c)
                                } else {
                                    self.containers.push(c)
                                }
                                (ctr_indent, field_indent, field) = (Some(ind), None, Field::Other);
                            }
                            None => self.warn(l.no, format!("expected a container name (`name:`), found `{tt}`")),
                        }
                        continue;
                    }
                    let ctr = if init { self.init.last_mut() } else { self.containers.last_mut() };
                    let Some(ctr) = ctr else { continue };
                    let mut warnings = Vec::new();
                    if field_indent.is_none_or(|f| ind <= f) {
                        field_indent = Some(ind);
                        field = container_field(ctr, l.no, tt, &mut warnings);
                    } else {
                        container_sub(ctr, field, l.no, tt, &mut warnings);
                    }
                    self.warnings.append(&mut warnings);
                }
                Section::Events => self.event_line(l, &mut layout),
            }
        }
    }

    /// A top-level key: sets a field and returns the section it opens.
    fn top(&mut self, line: u64, k: &str, v: &str) -> Section {
        match k {
            "Name" => {
                self.name = value(v);
                self.name_line = Some(line);
            }
            "Namespace" => self.namespace = value(v),
            "Priority" => self.spec.priority = v.parse().ok(),
            "Priority Class Name" => self.spec.priority_class_name = value(v),
            "Runtime Class Name" => self.spec.runtime_class_name = value(v),
            "Service Account" => self.spec.service_account_name = value(v),
            "Node" => {
                if let Some(v) = value(v) {
                    let (node, host_ip) = v.split_once('/').unwrap_or((&v, ""));
                    self.spec.node_name = value(node);
                    if let Some(ip) = value(host_ip) {
                        self.status.host_ips = Some(vec![HostIP { ip: ip.clone() }]);
                        self.status.host_ip = Some(ip);
                    }
                }
            }
            "Start Time" => self.status.start_time = self.time(line, "Start Time", v),
            "Labels" => {
                if let Some((k, v)) = value(v).as_deref().and_then(|v| v.split_once('=')) {
                    self.labels.insert(k.to_string(), v.to_string());
                }
                return Section::Labels;
            }
            "Status" => {
                if PHASES.contains(&v) {
                    self.status.phase = Some(v.to_string());
                } else if !v.starts_with("Terminating") {
                    // `Terminating (lasts 3m)`: the phase is not shown.
                    self.warn(line, format!("`{v}` is not a pod phase: left out"));
                }
            }
            "Termination Grace Period" => self.deletion_grace = v.trim_end_matches('s').parse().ok(),
            "Reason" => self.status.reason = value(v),
            "Message" => self.status.message = value(v),
            "IP" => self.status.pod_ip = value(v),
            "IPs" => {
                if let Some(ip) = split_key(v).and_then(|(_, ip)| value(ip)) {
                    self.status.pod_ips.get_or_insert_with(Vec::new).push(PodIP { ip });
                }
                return Section::IPs;
            }
            "NominatedNodeName" => self.status.nominated_node_name = value(v),
            "QoS Class" => self.status.qos_class = value(v),
            "Init Containers" => return Section::Containers { init: true },
            "Containers" => return Section::Containers { init: false },
            "Conditions" => return Section::Conditions,
            "Readiness Gates" => return Section::Gates,
            "Events" => return if value(v).is_some() { Section::Skip } else { Section::Events },
            _ => return Section::Skip,
        }
        Section::Top
    }

    /// The Pod object; spec and status only when the block showed any.
    fn build(&mut self) -> Pod {
        let mut pod = Pod::default();
        pod.metadata.name = self.name.clone();
        pod.metadata.namespace = self.namespace.clone();
        pod.metadata.deletion_grace_period_seconds = self.deletion_grace;
        if !self.labels.is_empty() {
            pod.metadata.labels = Some(std::mem::take(&mut self.labels));
        }
        let mut spec = std::mem::take(&mut self.spec);
        let mut status = std::mem::take(&mut self.status);
        if !self.gates.is_empty() {
            spec.readiness_gates = Some(std::mem::take(&mut self.gates));
        }
        let mut warnings = Vec::new();
        let (init_specs, init_statuses) = split_containers(std::mem::take(&mut self.init), &mut warnings);
        let (specs, statuses) = split_containers(std::mem::take(&mut self.containers), &mut warnings);
        self.warnings.append(&mut warnings);
        let any_containers = !init_specs.is_empty() || !specs.is_empty();
        if !init_specs.is_empty() {
            spec.init_containers = Some(init_specs);
        }
        spec.containers = specs;
        if !init_statuses.is_empty() {
            status.init_container_statuses = Some(init_statuses);
        }
        if !statuses.is_empty() {
            status.container_statuses = Some(statuses);
        }
        if any_containers || spec != PodSpec::default() {
            pod.spec = Some(spec);
        }
        if status != PodStatus::default() {
            pod.status = Some(status);
        }
        pod
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Severity;
    use crate::observe::text::testing::*;

    #[test]
    fn trace_006_describe() {
        let (records, problems) = read(trace!("006-happy-path-nginx-containerd-describe-and-yaml/describe.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(records.len(), 6, "one Pod and five events");
        let pods = pods(&records);
        let (line, pod) = pods[0];
        assert_eq!(line, 1, "the Name: line");
        assert_eq!(pod.metadata.name.as_deref(), Some("nginx-deployment-67d4bdd6f5-w6kd7"));
        assert_eq!(pod.metadata.namespace.as_deref(), Some("default"));
        assert_eq!(pod.metadata.labels.as_ref().map(|l| l.len()), Some(2));
        assert_eq!(spec(pod).node_name.as_deref(), Some("kube-worker-1"));
        let st = status(pod);
        assert_eq!(st.phase.as_deref(), Some("Running"));
        assert_eq!(st.host_ip.as_deref(), Some("192.168.0.113"));
        assert_eq!(st.pod_ip.as_deref(), Some("10.88.0.3"));
        assert_eq!(st.pod_ips.as_ref().map(|v| v.len()), Some(2));
        assert_eq!(time(&st.start_time), "2022-02-17T21:51:01Z", "16:51:01 -0500 in UTC");
        assert_eq!(st.qos_class.as_deref(), Some("Guaranteed"));
        let conds: Vec<(&str, &str)> =
            st.conditions.iter().flatten().map(|c| (c.type_.as_str(), c.status.as_str())).collect();
        assert_eq!(
            conds,
            [("Initialized", "True"), ("Ready", "True"), ("ContainersReady", "True"), ("PodScheduled", "True")]
        );
        assert!(st.conditions.iter().flatten().all(|c| c.last_transition_time.is_none()));
        let c = &spec(pod).containers[0];
        assert_eq!((c.name.as_str(), c.image.as_deref()), ("nginx", Some("nginx")));
        let port = &c.ports.as_ref().unwrap()[0];
        assert_eq!((port.container_port, port.protocol.as_deref(), port.host_port), (80, Some("TCP"), None));
        let limits = c.resources.as_ref().and_then(|r| r.limits.as_ref()).unwrap();
        assert_eq!(limits.get("memory").map(|q| q.0.as_str()), Some("128Mi"));
        assert!(c.liveness_probe.is_none() && c.readiness_probe.is_none());
        let cs = &st.container_statuses.as_ref().unwrap()[0];
        assert_eq!(cs.name, "nginx");
        assert_eq!(
            cs.container_id.as_deref(),
            Some("containerd://5403af59a2b46ee5a23fb0ae4b1e077f7ca5c5fb7af16e1ab21c00e0e616462a")
        );
        assert!(cs.image_id.starts_with("docker.io/library/nginx@sha256:2834dc"));
        assert_eq!((cs.ready, cs.restart_count), (true, 0));
        let running = cs.state.as_ref().and_then(|s| s.running.as_ref()).unwrap();
        assert_eq!(time(&running.started_at), "2022-02-17T21:51:05Z");
        assert!(cs.last_state.is_none());

        let evs = events(&records);
        assert_eq!(evs.len(), 5);
        let reasons: Vec<&str> = evs.iter().map(|(_, _, e)| e.reason.as_str()).collect();
        assert_eq!(reasons, ["Scheduled", "Pulling", "Pulled", "Created", "Started"]);
        assert!(evs.iter().all(|(_, pod, _)| *pod == Some("nginx-deployment-67d4bdd6f5-w6kd7")));
        let (line, _, e) = evs[0];
        assert_eq!(line, 55);
        assert_eq!((e.warning, e.count, e.last_seen, e.first_seen), (false, 1, secs(34), secs(34)));
        assert_eq!(e.from, "default-scheduler");
        assert_eq!(e.message, "Successfully assigned default/nginx-deployment-67d4bdd6f5-w6kd7 to kube-worker-1");
        assert_eq!(evs[2].2.message, "Successfully pulled image \"nginx\" in 1.146417389s");
        assert_eq!(evs[2].2.last_seen, secs(30));
        // The Pod comes before its events.
        assert!(matches!(records[0].observed, Observed::Pod(_)));
    }

    #[test]
    fn trace_014_describe_purple_waiting() {
        let (records, problems) = read(trace!("014-init-container-sleep5-then-main-kodekloud/describe-purple.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(records.len(), 5);
        let (line, pod) = pods(&records)[0];
        assert_eq!(line, 2, "after the `k describe pod purple` line");
        let st = status(pod);
        assert_eq!(st.phase.as_deref(), Some("Pending"));
        let ics = st.init_container_statuses.as_ref().unwrap();
        assert_eq!(ics.len(), 2);
        assert_eq!(ics[1].container_id, None, "`Container ID:` printed empty");
        let waiting = ics[1].state.as_ref().and_then(|s| s.waiting.as_ref()).unwrap();
        assert_eq!(waiting.reason.as_deref(), Some("PodInitializing"));
    }

    #[test]
    fn trace_029_describe_excerpt_oom() {
        let (records, problems) = read(trace!("029-oomkilled-stress-describe-snippets/b2-describe-oom-demo.txt"));
        assert_eq!(records.len(), 2, "one (unnamed) Pod and one event");
        let (line, pod) = pods(&records)[0];
        assert_eq!(line, 1);
        assert_eq!(pod.metadata.name, None, "the excerpt has no Name: line");
        let st = status(pod);
        assert_eq!((st.phase.as_deref(), st.qos_class.as_deref()), (Some("Failed"), Some("Burstable")));
        let c = &spec(pod).containers[0];
        assert_eq!((c.name.as_str(), c.image.as_deref()), ("stress", Some("polinux/stress")));
        let res = c.resources.as_ref().unwrap();
        assert_eq!(res.limits.as_ref().and_then(|l| l.get("memory")).map(|q| q.0.as_str()), Some("100Mi"));
        assert_eq!(res.requests.as_ref().and_then(|l| l.get("memory")).map(|q| q.0.as_str()), Some("50Mi"));
        let cs = &st.container_statuses.as_ref().unwrap()[0];
        let term = cs.state.as_ref().and_then(|s| s.terminated.as_ref()).unwrap();
        assert_eq!((term.reason.as_deref(), term.exit_code), (Some("OOMKilled"), 137));
        assert_eq!(time(&term.started_at), "2026-10-07T22:28:20Z", "18:28:20 -0400");
        assert_eq!(time(&term.finished_at), "2026-10-07T22:28:20Z");
        let evs = events(&records);
        let (line, pod_name, e) = evs[0];
        assert_eq!((line, pod_name), (16, None));
        assert_eq!((e.reason.as_str(), e.last_seen, e.from.as_str()), ("Started", secs(62), "kubelet"));
        assert_eq!(e.message, "Container started", "the field-path prefix is dropped");
        let m = messages(&problems);
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(m.iter().any(|m| m.contains("the pod is unnamed")));
        assert!(m.iter().any(|m| m.contains("`Ready:` or `Restart Count:` is not shown")));
        assert!(problems.iter().all(|p| p.severity == Severity::Warning));
    }

    #[test]
    fn describe_bad_times_and_lines() {
        let text = "\
Name:         p
Status:       Running
Start Time:   Mon, 01 Jan 2024 00:00:00 CEST
Containers:
  c:
    State:          Running
      Started:      yesterday
    Ready:          maybe
    Restart Count:  2
this line is prose
";
        let (records, problems) = read(text);
        let (_, p) = pods(&records)[0];
        assert_eq!(status(p).start_time, None);
        let cs = &status(p).container_statuses.as_ref().unwrap()[0];
        assert_eq!(cs.state.as_ref().and_then(|s| s.running.as_ref()).map(|r| r.started_at.is_none()), Some(true));
        let m = messages(&problems);
        assert!(m.iter().any(|m| m.starts_with("test.txt:3:1: Start Time `Mon, 01 Jan 2024 00:00:00 CEST`")), "{m:?}");
        assert!(m.iter().any(|m| m.starts_with("test.txt:7:1: Started `yesterday`")), "{m:?}");
        assert!(m.iter().any(|m| m.starts_with("test.txt:8:1: Ready `maybe`")), "{m:?}");
    }

    #[test]
    fn times() {
        let t = |s: &str| parse_time(s).map(|t| t.0.to_string());
        assert_eq!(t("Thu, 17 Feb 2022 16:51:01 -0500").as_deref(), Some("2022-02-17T21:51:01Z"));
        assert_eq!(t("Fri, 17 Feb 2022 16:51:01 -0500").as_deref(), Some("2022-02-17T21:51:01Z"), "wrong weekday");
        assert_eq!(t("Thu, 17 Feb 2022 16:51:01 GMT").as_deref(), Some("2022-02-17T16:51:01Z"));
        assert_eq!(t("Thu, 17 Feb 2022 16:51:01 IST"), None);
        assert_eq!(t("Thu, 17 Feb 2022 16:51:01"), None);
        assert_eq!(t(""), None);
    }
}
