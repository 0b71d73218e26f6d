//! `kubectl describe pod` (k8s.io/kubectl/pkg/describe: `describePod`,
//! `describeContainers`, `describeVolumes`, `DescribeEvents`): the same
//! lines, written through its prefix writer (two spaces a level) and laid
//! out by Go's tabwriter as `tabbedString` sets it up.

use super::human_duration;
use super::tabwriter::go_tabwriter;
use k8s_openapi::api::core::v1::{
    Container, ContainerState, ContainerStatus, Event, Pod, Probe, ResourceRequirements, Toleration,
    TopologySpreadConstraint, Volume,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;
use std::collections::BTreeMap;
use std::fmt::Write;

/// `time.RFC1123Z`: `Thu, 01 Jan 2026 00:00:05 +0000`.
pub(super) fn rfc1123z(t: &Time) -> String {
    t.0.strftime("%a, %d %b %Y %H:%M:%S %z").to_string()
}

/// The prefix writer: `level` times two spaces, then the text.
pub(super) struct Writer(pub(super) String);

impl Writer {
    pub(super) fn line(&mut self, level: usize, text: &str) {
        self.0.push_str(&"  ".repeat(level));
        self.0.push_str(text);
        self.0.push('\n');
    }
}

/// `describePod` of `pod` at `now`, with the events about it.
pub fn describe_pod(pod: &Pod, events: &[Event], now: Timestamp) -> String {
    let mut w = Writer(String::new());
    let meta = &pod.metadata;
    let spec = pod.spec.clone().unwrap_or_default();
    let status = pod.status.clone().unwrap_or_default();
    w.line(0, &format!("Name:\t{}", meta.name.clone().unwrap_or_default()));
    w.line(0, &format!("Namespace:\t{}", meta.namespace.clone().unwrap_or_default()));
    if let Some(p) = spec.priority {
        w.line(0, &format!("Priority:\t{p}"));
    }
    if let Some(c) = spec.priority_class_name.as_deref().filter(|c| !c.is_empty()) {
        w.line(0, &format!("Priority Class Name:\t{c}"));
    }
    if let Some(sa) = spec.service_account_name.as_deref().filter(|s| !s.is_empty()) {
        w.line(0, &format!("Service Account:\t{sa}"));
    }
    match spec.node_name.as_deref().filter(|n| !n.is_empty()) {
        None => w.line(0, "Node:\t<none>"),
        Some(n) => w.line(0, &format!("Node:\t{n}/{}", status.host_ip.clone().unwrap_or_default())),
    }
    if let Some(t) = &status.start_time {
        w.line(0, &format!("Start Time:\t{}", rfc1123z(t)));
    }
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    let phase = status.phase.clone().unwrap_or_default();
    match (&meta.deletion_timestamp, phase.as_str()) {
        (Some(t), p) if p != "Failed" && p != "Succeeded" => {
            let lasts = human_duration(now.duration_since(t.0).as_millis() as i64);
            w.line(0, &format!("Status:\tTerminating (lasts {lasts})"));
            w.line(0, &format!("Termination Grace Period:\t{}s", meta.deletion_grace_period_seconds.unwrap_or(0)));
        }
        _ => w.line(0, &format!("Status:\t{phase}")),
    }
    if let Some(r) = status.reason.as_deref().filter(|r| !r.is_empty()) {
        w.line(0, &format!("Reason:\t{r}"));
    }
    if let Some(m) = status.message.as_deref().filter(|m| !m.is_empty()) {
        w.line(0, &format!("Message:\t{m}"));
    }
    w.line(0, &format!("IP:\t{}", status.pod_ip.clone().unwrap_or_default()));
    match status.pod_ips.as_deref().unwrap_or_default() {
        [] => w.line(0, "IPs:\t<none>"),
        ips => {
            w.line(0, "IPs:");
            for ip in ips {
                w.line(1, &format!("IP:\t{}", ip.ip));
            }
        }
    }
    if let Some(owner) = meta.owner_references.iter().flatten().find(|o| o.controller == Some(true)) {
        w.line(0, &format!("Controlled By:\t{}/{}", owner.kind, owner.name));
    }
    if let Some(n) = status.nominated_node_name.as_deref().filter(|n| !n.is_empty()) {
        w.line(0, &format!("NominatedNodeName:\t{n}"));
    }
    let inits = spec.init_containers.clone().unwrap_or_default();
    if !inits.is_empty() {
        containers(
            &mut w,
            "Init Containers",
            &inits,
            status.init_container_statuses.as_deref().unwrap_or_default(),
            "",
        );
    }
    containers(&mut w, "Containers", &spec.containers, status.container_statuses.as_deref().unwrap_or_default(), "");
    let conditions = status.conditions.clone().unwrap_or_default();
    if let Some(gates) = spec.readiness_gates.as_ref().filter(|g| !g.is_empty()) {
        w.line(0, "Readiness Gates:");
        w.line(1, "Type\tStatus");
        for g in gates {
            let s = conditions.iter().find(|c| c.type_ == g.condition_type).map_or("<none>", |c| c.status.as_str());
            w.line(1, &format!("{} \t{s} ", g.condition_type));
        }
    }
    if !conditions.is_empty() {
        w.line(0, "Conditions:");
        w.line(1, "Type\tStatus");
        for c in &conditions {
            w.line(1, &format!("{} \t{} ", c.type_, c.status));
        }
    }
    volumes(&mut w, spec.volumes.as_deref().unwrap_or_default(), "");
    w.line(0, &format!("QoS Class:\t{}", status.qos_class.clone().unwrap_or_default()));
    labels(&mut w, "Node-Selectors", spec.node_selector.as_ref());
    tolerations(&mut w, "Tolerations", spec.tolerations.clone().unwrap_or_default());
    topology_spread(&mut w, spec.topology_spread_constraints.clone().unwrap_or_default(), "");
    describe_events(&mut w, events, now);
    go_tabwriter(&w.0, 0, 2)
}

/// `printLabelsMultiline`: sorted `k=v`, one a line, or `<none>`.
pub(super) fn labels(w: &mut Writer, title: &str, labels: Option<&BTreeMap<String, String>>) {
    let labels = labels.filter(|l| !l.is_empty());
    let Some(labels) = labels else { return w.line(0, &format!("{title}:\t<none>")) };
    for (i, (k, v)) in labels.iter().enumerate() {
        match i {
            0 => w.line(0, &format!("{title}:\t{k}={v}")),
            _ => w.line(0, &format!("\t{k}={v}")),
        }
    }
}

/// `printAnnotationsMultiline`: sorted `key: value`, the last-applied
/// configuration left out, a long or multi-line value under its key.
pub(super) fn annotations(w: &mut Writer, title: &str, annotations: Option<&BTreeMap<String, String>>) {
    const MAX: usize = 140;
    let shown: Vec<(&String, &String)> = annotations
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.as_str() != "kubectl.kubernetes.io/last-applied-configuration")
        .collect();
    if shown.is_empty() {
        return w.line(0, &format!("{title}:\t<none>"));
    }
    for (i, (k, v)) in shown.iter().enumerate() {
        let lead = if i == 0 { format!("{title}:\t") } else { "\t".to_string() };
        let value = v.trim_end_matches('\n');
        if value.len() + k.len() + 2 > MAX || value.contains('\n') {
            w.line(0, &format!("{lead}{k}:"));
            for s in value.split('\n') {
                w.line(0, &format!("\t  {}", shorten(s, MAX - 2)));
            }
        } else {
            w.line(0, &format!("{lead}{k}: {value}"));
        }
    }
}

/// `shorten`: the first `max` bytes and `...` (cut at a character boundary,
/// where Go would cut inside a multi-byte character).
fn shorten(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// `describeContainers`: each container's basics, command, state,
/// resources, probes, environment and mounts. `space` is `"  "` in a pod
/// template (`DescribePodTemplate`), which indents the label by two and
/// each container's name by one more.
pub(super) fn containers(
    w: &mut Writer,
    label: &str,
    containers: &[Container],
    statuses: &[ContainerStatus],
    space: &str,
) {
    w.line(0, &format!("{space}{label}:{}", if containers.is_empty() { " <none>" } else { "" }));
    let name_indent = if space.is_empty() { "" } else { " " };
    for c in containers {
        let status = statuses.iter().find(|s| s.name == c.name);
        w.line(1, &format!("{name_indent}{}:", c.name));
        if let Some(s) = status {
            w.line(2, &format!("Container ID:\t{}", s.container_id.clone().unwrap_or_default()));
        }
        w.line(2, &format!("Image:\t{}", c.image.clone().unwrap_or_default()));
        if let Some(s) = status {
            w.line(2, &format!("Image ID:\t{}", s.image_id));
        }
        let ports = c.ports.as_deref().unwrap_or_default();
        let protocol =
            |p: &k8s_openapi::api::core::v1::ContainerPort| p.protocol.clone().unwrap_or_else(|| "TCP".into());
        let list: Vec<String> = ports.iter().map(|p| format!("{}/{}", p.container_port, protocol(p))).collect();
        let hosts: Vec<String> =
            ports.iter().map(|p| format!("{}/{}", p.host_port.unwrap_or(0), protocol(p))).collect();
        for (one, many, cells) in [("Port", "Ports", list), ("Host Port", "Host Ports", hosts)] {
            let joined = cells.join(", ");
            match (joined.contains(','), joined.is_empty()) {
                (true, _) => w.line(2, &format!("{many}:\t{joined}")),
                (false, true) => w.line(2, &format!("{one}:\t<none>")),
                (false, false) => w.line(2, &format!("{one}:\t{joined}")),
            }
        }
        for (title, words) in [("Command", &c.command), ("Args", &c.args)] {
            let Some(words) = words.as_ref().filter(|w| !w.is_empty()) else { continue };
            w.line(2, &format!("{title}:"));
            for s in words.iter().flat_map(|a| a.split('\n')) {
                w.line(3, s);
            }
        }
        if let Some(s) = status {
            state(w, "State", s.state.as_ref());
            if let Some(last) = s.last_state.as_ref().filter(|l| l.terminated.is_some()) {
                state(w, "Last State", Some(last));
            }
            w.line(2, &format!("Ready:\t{}", if s.ready { "True" } else { "False" }));
            w.line(2, &format!("Restart Count:\t{}", s.restart_count));
        }
        if let Some(r) = &c.resources {
            resources(w, r);
        }
        for (title, probe) in
            [("Liveness", &c.liveness_probe), ("Readiness", &c.readiness_probe), ("Startup", &c.startup_probe)]
        {
            if let Some(p) = probe {
                w.line(2, &format!("{title}:\t{}", describe_probe(p)));
            }
        }
        environment(w, c);
        let mut mounts = c.volume_mounts.clone().unwrap_or_default();
        mounts.sort_by(|a, b| a.mount_path.cmp(&b.mount_path));
        w.line(2, &format!("Mounts:{}", if mounts.is_empty() { "\t<none>" } else { "" }));
        for m in mounts {
            let mut flags = vec![if m.read_only == Some(true) { "ro".to_string() } else { "rw".to_string() }];
            if let Some(sub) = m.sub_path.as_deref().filter(|s| !s.is_empty()) {
                flags.push(format!("path={sub:?}"));
            }
            w.line(3, &format!("{} from {} ({})", m.mount_path, m.name, flags.join(",")));
        }
    }
}

/// `describeStatus`.
fn state(w: &mut Writer, name: &str, state: Option<&ContainerState>) {
    let state = state.cloned().unwrap_or_default();
    if let Some(r) = &state.running {
        w.line(2, &format!("{name}:\tRunning"));
        w.line(3, &format!("Started:\t{}", r.started_at.as_ref().map(rfc1123z).unwrap_or_default()));
    } else if let Some(t) = &state.terminated {
        w.line(2, &format!("{name}:\tTerminated"));
        if let Some(r) = t.reason.as_deref().filter(|r| !r.is_empty()) {
            w.line(3, &format!("Reason:\t{r}"));
        }
        if let Some(m) = t.message.as_deref().filter(|m| !m.is_empty()) {
            w.line(3, &format!("Message:\t{m}"));
        }
        w.line(3, &format!("Exit Code:\t{}", t.exit_code));
        if let Some(s) = t.signal.filter(|s| *s > 0) {
            w.line(3, &format!("Signal:\t{s}"));
        }
        w.line(3, &format!("Started:\t{}", t.started_at.as_ref().map(rfc1123z).unwrap_or_default()));
        w.line(3, &format!("Finished:\t{}", t.finished_at.as_ref().map(rfc1123z).unwrap_or_default()));
    } else {
        w.line(2, &format!("{name}:\tWaiting"));
        if let Some(r) = state.waiting.as_ref().and_then(|x| x.reason.as_deref()).filter(|r| !r.is_empty()) {
            w.line(3, &format!("Reason:\t{r}"));
        }
    }
}

/// `describeResources`: limits then requests, each by resource name.
fn resources(w: &mut Writer, r: &ResourceRequirements) {
    for (title, list) in [("Limits", &r.limits), ("Requests", &r.requests)] {
        let Some(list) = list.as_ref().filter(|l| !l.is_empty()) else { continue };
        w.line(2, &format!("{title}:"));
        for (name, q) in list {
            w.line(3, &format!("{name}:\t{}", q.0));
        }
    }
}

/// `DescribeProbe`.
pub fn describe_probe(p: &Probe) -> String {
    let attrs = format!(
        "delay={}s timeout={}s period={}s #success={} #failure={}",
        p.initial_delay_seconds.unwrap_or(0),
        p.timeout_seconds.unwrap_or(1),
        p.period_seconds.unwrap_or(10),
        p.success_threshold.unwrap_or(1),
        p.failure_threshold.unwrap_or(3)
    );
    let port = |p: &IntOrString| match p {
        IntOrString::Int(n) => n.to_string(),
        IntOrString::String(s) => s.clone(),
    };
    if let Some(e) = &p.exec {
        // Go's `%v` of a string slice: `[cat /tmp/healthy]`.
        return format!("exec [{}] {attrs}", e.command.clone().unwrap_or_default().join(" "));
    }
    if let Some(h) = &p.http_get {
        let scheme = h.scheme.clone().unwrap_or_else(|| "HTTP".into()).to_lowercase();
        let host = h.host.clone().unwrap_or_default();
        // `net.JoinHostPort` brackets an IPv6 host.
        let host = if host.contains(':') { format!("[{host}]") } else { host };
        return format!("http-get {scheme}://{host}:{}{} {attrs}", port(&h.port), h.path.clone().unwrap_or_default());
    }
    if let Some(t) = &p.tcp_socket {
        return format!("tcp-socket {}:{} {attrs}", t.host.clone().unwrap_or_default(), port(&t.port));
    }
    if let Some(g) = &p.grpc {
        return format!("grpc <pod>:{} {} {attrs}", g.port, g.service.clone().unwrap_or_default());
    }
    format!("unknown {attrs}")
}

/// `describeContainerEnvFrom` (when there is any) and `describeContainerEnvVars`.
fn environment(w: &mut Writer, c: &Container) {
    if let Some(from) = c.env_from.as_ref().filter(|f| !f.is_empty()) {
        w.line(2, "Environment Variables from:");
        for e in from {
            let (kind, name, optional) = match (&e.config_map_ref, &e.secret_ref) {
                (Some(r), _) => ("ConfigMap", r.name.clone(), r.optional == Some(true)),
                (_, Some(r)) => ("Secret", r.name.clone(), r.optional == Some(true)),
                _ => ("", String::new(), false),
            };
            match e.prefix.as_deref().filter(|p| !p.is_empty()) {
                None => w.line(3, &format!("{name}\t{kind}\tOptional: {optional}")),
                Some(p) => w.line(3, &format!("{name}\t{kind} with prefix '{p}'\tOptional: {optional}")),
            }
        }
    }
    let env = c.env.clone().unwrap_or_default();
    w.line(2, &format!("Environment:{}", if env.is_empty() { "\t<none>" } else { "" }));
    for e in env {
        let Some(from) = &e.value_from else {
            for (i, s) in e.value.clone().unwrap_or_default().split('\n').enumerate() {
                match i {
                    0 => w.line(3, &format!("{}:\t{s}", e.name)),
                    _ => w.line(3, &format!("\t{s}")),
                }
            }
            continue;
        };
        if let Some(r) = &from.secret_key_ref {
            let optional = r.optional == Some(true);
            w.line(
                3,
                &format!("{}:\t<set to the key '{}' in secret '{}'>\tOptional: {optional}", e.name, r.key, r.name),
            );
        } else if let Some(r) = &from.config_map_key_ref {
            let optional = r.optional == Some(true);
            w.line(
                3,
                &format!("{}:\t<set to the key '{}' of config map '{}'>\tOptional: {optional}", e.name, r.key, r.name),
            );
        } else if let Some(f) = &from.field_ref {
            let version = f.api_version.clone().unwrap_or_else(|| "v1".into());
            w.line(3, &format!("{}:\t ({version}:{})", e.name, f.field_path));
        } else if let Some(r) = &from.resource_field_ref {
            w.line(3, &format!("{}:\t ({})", e.name, r.resource));
        }
    }
}

/// `describeVolumes`, for the volume kinds podsim reads (`space` as in `containers`).
pub(super) fn volumes(w: &mut Writer, volumes: &[Volume], space: &str) {
    if volumes.is_empty() {
        return w.line(0, &format!("{space}Volumes:\t<none>"));
    }
    w.line(0, &format!("{space}Volumes:"));
    let name_indent = if space.is_empty() { "" } else { " " };
    for v in volumes {
        w.line(1, &format!("{name_indent}{}:", v.name));
        if let Some(s) = &v.secret {
            w.line(2, "Type:\tSecret (a volume populated by a Secret)");
            w.line(2, &format!("SecretName:\t{}", s.secret_name.clone().unwrap_or_default()));
            w.line(2, &format!("Optional:\t{}", s.optional == Some(true)));
        } else if let Some(c) = &v.config_map {
            w.line(2, "Type:\tConfigMap (a volume populated by a ConfigMap)");
            w.line(2, &format!("Name:\t{}", c.name));
            w.line(2, &format!("Optional:\t{}", c.optional == Some(true)));
        } else if let Some(c) = &v.persistent_volume_claim {
            w.line(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)");
            w.line(2, &format!("ClaimName:\t{}", c.claim_name));
            w.line(2, &format!("ReadOnly:\t{}", c.read_only == Some(true)));
        } else if let Some(e) = &v.empty_dir {
            w.line(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)");
            w.line(2, &format!("Medium:\t{}", e.medium.clone().unwrap_or_default()));
            let limit = e.size_limit.as_ref().map(|q| q.0.clone()).filter(|q| !q.is_empty() && q != "0");
            w.line(2, &format!("SizeLimit:\t{}", limit.unwrap_or_else(|| "<unset>".into())));
        } else if let Some(h) = &v.host_path {
            w.line(2, "Type:\tHostPath (bare host directory volume)");
            w.line(2, &format!("Path:\t{}", h.path));
            w.line(2, &format!("HostPathType:\t{}", h.type_.clone().unwrap_or_else(|| "<none>".into())));
        } else if let Some(p) = &v.projected {
            w.line(2, "Type:\tProjected (a volume that contains injected data from multiple sources)");
            for s in p.sources.iter().flatten() {
                if let Some(x) = &s.secret {
                    w.line(2, &format!("SecretName:\t{}", x.name));
                    w.line(2, &format!("Optional:\t{}", x.optional == Some(true)));
                } else if s.downward_api.is_some() {
                    w.line(2, "DownwardAPI:\ttrue");
                } else if let Some(x) = &s.config_map {
                    w.line(2, &format!("ConfigMapName:\t{}", x.name));
                    w.line(2, &format!("Optional:\t{}", x.optional == Some(true)));
                } else if let Some(t) = &s.service_account_token {
                    w.line(2, &format!("TokenExpirationSeconds:\t{}", t.expiration_seconds.unwrap_or(3600)));
                }
            }
        } else {
            w.line(1, "<unknown>");
        }
    }
}

/// `printPodTolerationsMultiline`: by key, `key=value:effect op=Exists for 300s`.
pub(super) fn tolerations(w: &mut Writer, title: &str, mut tolerations: Vec<Toleration>) {
    if tolerations.is_empty() {
        return w.line(0, &format!("{title}:\t<none>"));
    }
    tolerations.sort_by(|a, b| a.key.cmp(&b.key));
    for (i, t) in tolerations.iter().enumerate() {
        let mut s = String::new();
        let key = t.key.clone().unwrap_or_default();
        let value = t.value.clone().unwrap_or_default();
        let effect = t.effect.clone().unwrap_or_default();
        s.push_str(&key);
        if !value.is_empty() {
            let _ = write!(s, "={value}");
        }
        if !effect.is_empty() {
            let _ = write!(s, ":{effect}");
        }
        if t.operator.as_deref() == Some("Exists") && value.is_empty() {
            s.push_str(if key.is_empty() && effect.is_empty() { "op=Exists" } else { " op=Exists" });
        }
        if let Some(secs) = t.toleration_seconds {
            let _ = write!(s, " for {secs}s");
        }
        let lead = if i == 0 { format!("{title}:\t") } else { "\t".to_string() };
        w.line(0, &format!("{lead}{s}"));
    }
}

/// `describeTopologySpreadConstraints`: by topology key, nothing when there are none.
pub(super) fn topology_spread(w: &mut Writer, mut tscs: Vec<TopologySpreadConstraint>, space: &str) {
    tscs.sort_by(|a, b| a.topology_key.cmp(&b.topology_key));
    for (i, t) in tscs.iter().enumerate() {
        let lead = if i == 0 { format!("{space}Topology Spread Constraints:\t") } else { format!("{space}\t") };
        let mut s = format!("{}:{} when max skew {} is exceeded", t.topology_key, t.when_unsatisfiable, t.max_skew);
        if let Some(sel) = &t.label_selector {
            let _ = write!(s, " for selector {}", super::selector::format_label_selector(sel));
        }
        w.line(0, &format!("{lead}{s}"));
    }
}

/// `DescribeEvents`: sorted by last timestamp (`SortableEvents`: an
/// events.k8s.io event has none, so it sorts first), `x3 over 20s` for
/// repeats, the source's component.
pub(super) fn describe_events(w: &mut Writer, events: &[Event], now: Timestamp) {
    if events.is_empty() {
        return w.line(0, "Events:\t<none>");
    }
    let since = |t: Timestamp| human_duration(now.duration_since(t).as_millis() as i64);
    let last = |e: &Event| e.last_timestamp.as_ref().map_or(Timestamp::UNIX_EPOCH, |t| t.0);
    let mut sorted: Vec<&Event> = events.iter().collect();
    sorted.sort_by_key(|e| last(e));
    w.line(0, "Events:");
    w.line(1, "Type\tReason\tAge\tFrom\tMessage");
    w.line(1, "----\t------\t----\t----\t-------");
    for e in sorted {
        let first = match (&e.event_time, &e.first_timestamp) {
            (Some(t), _) => since(t.0),
            (None, Some(t)) => since(t.0),
            (None, None) => "<unknown>".into(),
        };
        let count = e.count.unwrap_or(0);
        let age = match (&e.series, count > 1) {
            (Some(s), _) => format!(
                "{} (x{} over {first})",
                s.last_observed_time.as_ref().map_or_else(|| first.clone(), |t| since(t.0)),
                s.count.unwrap_or(0)
            ),
            (None, true) => format!("{} (x{count} over {first})", since(last(e))),
            // A single event's age is its first sight.
            (None, false) => first,
        };
        let component = e.source.as_ref().and_then(|s| s.component.clone()).filter(|c| !c.is_empty());
        let source = component.or(e.reporting_component.clone()).unwrap_or_default();
        let message = e.message.clone().unwrap_or_default();
        let (type_, reason) = (e.type_.clone().unwrap_or_default(), e.reason.clone().unwrap_or_default());
        w.line(1, &format!("{type_}\t{reason}\t{age}\t{source}\t{}", message.trim()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{ExecAction, GRPCAction, HTTPGetAction, TCPSocketAction};

    fn probe() -> Probe {
        Probe { initial_delay_seconds: Some(5), period_seconds: Some(5), ..Default::default() }
    }

    /// `DescribeProbe`: the handler, then `delay= timeout= period= #success= #failure=`
    /// (the API's defaults where the probe gives none).
    #[test]
    fn probes_read_as_describe_prints_them() {
        let exec =
            Probe { exec: Some(ExecAction { command: Some(vec!["cat".into(), "/tmp/healthy".into()]) }), ..probe() };
        assert_eq!(
            describe_probe(&exec),
            "exec [cat /tmp/healthy] delay=5s timeout=1s period=5s #success=1 #failure=3"
        );
        let http = Probe {
            http_get: Some(HTTPGetAction {
                path: Some("/healthz".into()),
                port: IntOrString::String("http".into()),
                ..Default::default()
            }),
            ..probe()
        };
        assert_eq!(
            describe_probe(&http),
            "http-get http://:http/healthz delay=5s timeout=1s period=5s #success=1 #failure=3"
        );
        let tcp = Probe { tcp_socket: Some(TCPSocketAction { port: IntOrString::Int(8080), host: None }), ..probe() };
        assert_eq!(describe_probe(&tcp), "tcp-socket :8080 delay=5s timeout=1s period=5s #success=1 #failure=3");
        let grpc = Probe {
            grpc: Some(GRPCAction { port: 9090, service: Some(String::new()), ..Default::default() }),
            ..probe()
        };
        assert_eq!(describe_probe(&grpc), "grpc <pod>:9090  delay=5s timeout=1s period=5s #success=1 #failure=3");
    }

    /// `printAnnotationsMultiline`: a value too long for one line goes under
    /// its key, each of its lines cut at 138 bytes (`shorten`), never inside a character.
    #[test]
    fn long_annotations_go_under_their_key() {
        let mut w = Writer(String::new());
        let long = format!("{}é{}", "a".repeat(137), "b".repeat(10));
        annotations(&mut w, "Annotations", Some(&BTreeMap::from([("k".to_string(), long)])));
        assert_eq!(go_tabwriter(&w.0, 0, 2), format!("Annotations:  k:\n                {}...\n", "a".repeat(137)));
    }

    /// `printPodTolerationsMultiline`: by key; `op=Exists` alone for the toleration of everything.
    #[test]
    fn tolerations_read_as_describe_prints_them() {
        let mut w = Writer(String::new());
        let all = Toleration { operator: Some("Exists".into()), ..Default::default() };
        let cp = Toleration {
            key: Some("node-role.kubernetes.io/control-plane".into()),
            operator: Some("Exists".into()),
            effect: Some("NoSchedule".into()),
            ..Default::default()
        };
        tolerations(&mut w, "Tolerations", vec![cp, all]);
        assert_eq!(
            go_tabwriter(&w.0, 0, 2),
            "Tolerations:  op=Exists\n              node-role.kubernetes.io/control-plane:NoSchedule op=Exists\n"
        );
    }
}
