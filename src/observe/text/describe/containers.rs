//! The containers of `kubectl describe pod`: spec fields (image, ports,
//! command, resources, probes) and status fields (state, last state, ready,
//! restarts).

use super::parse_time;
use crate::observe::text::lines::{split_key, value};
use k8s_openapi::api::core::v1::{
    Container, ContainerPort, ContainerState, ContainerStateRunning, ContainerStateTerminated, ContainerStateWaiting,
    ContainerStatus, ExecAction, GRPCAction, HTTPGetAction, Probe, ResourceRequirements, TCPSocketAction,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Field {
    Other,
    Command,
    Args,
    State,
    LastState,
    Limits,
    Requests,
}

#[derive(Default)]
pub(super) struct Ctr {
    line: u64,
    spec: Container,
    status: ContainerStatus,
    has_status: bool,
    ready_seen: bool,
    restarts_seen: bool,
    ports: Vec<(i32, String)>,
    host_ports: Vec<i32>,
    limits: BTreeMap<String, Quantity>,
    requests: BTreeMap<String, Quantity>,
}

impl Ctr {
    /// The container `name:` at `line`.
    pub(super) fn new(name: &str, line: u64) -> Ctr {
        let mut c = Ctr { line, ..Default::default() };
        c.spec.name = name.to_string();
        c.status.name = name.to_string();
        c
    }
}

/// `80/TCP, 443/TCP` → (port, protocol) pairs.
fn parse_ports(v: &str) -> Option<Vec<(i32, String)>> {
    value(v)
        .map(|v| {
            v.split(',')
                .map(|p| {
                    let p = p.trim();
                    let (n, proto) = p.split_once('/').unwrap_or((p, "TCP"));
                    let proto = proto.split_whitespace().next().unwrap_or("TCP");
                    Some((n.trim().parse().ok()?, proto.to_string()))
                })
                .collect()
        })
        .unwrap_or(Some(Vec::new()))
}

fn int_or_string(p: &str) -> Option<IntOrString> {
    if p.is_empty() {
        return None;
    }
    Some(p.parse::<i32>().map(IntOrString::Int).unwrap_or_else(|_| IntOrString::String(p.to_string())))
}

/// `host:port` or `[v6]:port`.
fn split_host_port(hp: &str) -> Option<(Option<String>, IntOrString)> {
    let (host, port) = match hp.strip_prefix('[') {
        Some(rest) => {
            let (h, p) = rest.split_once("]:")?;
            (h, p)
        }
        None => hp.rsplit_once(':')?,
    };
    Some((value(host), int_or_string(port)?))
}

/// A describe probe: `http-get http://:8080/healthz delay=30s timeout=1s
/// period=10s #success=1 #failure=3` (newer kubectl: `successThreshold=1
/// failureThreshold=3`), `tcp-socket :8080 …`, `exec [sh -c test -f /x] …`,
/// `grpc <pod>:9090 service …`. The exec command is split on spaces.
fn parse_probe(v: &str) -> Option<Probe> {
    let v = v.trim();
    let (head, attrs) = match v.find(" delay=") {
        Some(p) => (v.get(..p)?, v.get(p + 1..)?),
        None => (v, ""),
    };
    let mut probe = Probe::default();
    for a in attrs.split_whitespace() {
        let Some((k, val)) = a.split_once('=') else { continue };
        let n = val.trim_end_matches('s').parse::<i32>().ok();
        match k {
            "delay" => probe.initial_delay_seconds = n,
            "timeout" => probe.timeout_seconds = n,
            "period" => probe.period_seconds = n,
            "#success" | "successThreshold" => probe.success_threshold = n,
            "#failure" | "failureThreshold" => probe.failure_threshold = n,
            _ => {}
        }
    }
    let (kind, target) = head.split_once(' ').unwrap_or((head, ""));
    let target = target.trim();
    match kind {
        "http-get" => {
            let (scheme, rest) = target.split_once("://")?;
            let (hostport, path) = match rest.find('/') {
                Some(p) => (rest.get(..p)?, rest.get(p..)?),
                None => (rest, ""),
            };
            let (host, port) = split_host_port(hostport)?;
            probe.http_get = Some(HTTPGetAction {
                host,
                path: value(path),
                port,
                scheme: Some(scheme.to_ascii_uppercase()),
                ..Default::default()
            });
        }
        "tcp-socket" => {
            let (host, port) = split_host_port(target)?;
            probe.tcp_socket = Some(TCPSocketAction { host, port });
        }
        "exec" => {
            let inner = target.strip_prefix('[')?.strip_suffix(']')?;
            let mut words: Vec<String> = inner.split_whitespace().map(str::to_string).collect();
            // Go prints `[sh -c test -f /x]` for ["sh", "-c", "test -f /x"]: a shell's
            // script is one argument.
            if words.len() > 3
                && words.first().is_some_and(|w| w.ends_with("sh"))
                && words.get(1).is_some_and(|w| w == "-c")
            {
                let script = words.split_off(2).join(" ");
                words.push(script);
            }
            probe.exec = Some(ExecAction { command: Some(words) });
        }
        "grpc" => {
            let (addr, service) = target.split_once(' ').unwrap_or((target, ""));
            let port = addr.rsplit_once(':')?.1.parse().ok()?;
            probe.grpc = Some(GRPCAction { port, service: value(service), ..Default::default() });
        }
        "unknown" => {}
        _ => return None,
    }
    Some(probe)
}

fn new_state(v: &str) -> Option<ContainerState> {
    let mut s = ContainerState::default();
    match v.split_whitespace().next()? {
        "Running" => s.running = Some(ContainerStateRunning::default()),
        "Waiting" => s.waiting = Some(ContainerStateWaiting::default()),
        "Terminated" => s.terminated = Some(ContainerStateTerminated::default()),
        _ => return None,
    }
    Some(s)
}

/// The spec and status of each container (a status only when shown).
pub(super) fn split_containers(
    ctrs: Vec<Ctr>,
    warnings: &mut Vec<(u64, String)>,
) -> (Vec<Container>, Vec<ContainerStatus>) {
    let mut specs = Vec::new();
    let mut statuses = Vec::new();
    for mut c in ctrs {
        for (i, (port, protocol)) in c.ports.iter().enumerate() {
            let host_port = c.host_ports.get(i).copied().filter(|p| *p > 0);
            c.spec.ports.get_or_insert_with(Vec::new).push(ContainerPort {
                container_port: *port,
                host_port,
                protocol: Some(protocol.clone()),
                ..Default::default()
            });
        }
        if !c.limits.is_empty() || !c.requests.is_empty() {
            c.spec.resources = Some(ResourceRequirements {
                limits: (!c.limits.is_empty()).then_some(c.limits),
                requests: (!c.requests.is_empty()).then_some(c.requests),
                ..Default::default()
            });
        }
        if c.has_status {
            if !c.ready_seen || !c.restarts_seen {
                warnings.push((
                    c.line,
                    format!(
                        "container `{}`: `Ready:` or `Restart Count:` is not shown (an excerpt?): taken as \
                         not ready and 0 restarts",
                        c.spec.name
                    ),
                ));
            }
            c.status.image = c.spec.image.clone().unwrap_or_default();
            statuses.push(c.status);
        }
        specs.push(c.spec);
    }
    (specs, statuses)
}

/// A container's field line; returns the field its deeper lines belong to.
pub(super) fn container_field(c: &mut Ctr, line: u64, tt: &str, warnings: &mut Vec<(u64, String)>) -> Field {
    let Some((k, v)) = split_key(tt) else { return Field::Other };
    let mut warn = |m: String| warnings.push((line, m));
    match k {
        "Container ID" => c.status.container_id = value(v),
        "Image" => c.spec.image = value(v),
        "Image ID" => c.status.image_id = value(v).unwrap_or_default(),
        "Port" | "Ports" => match parse_ports(v) {
            Some(p) => c.ports = p,
            None => warn(format!("cannot read the ports `{v}`")),
        },
        "Host Port" | "Host Ports" => {
            c.host_ports = parse_ports(v).unwrap_or_default().into_iter().map(|(p, _)| p).collect();
        }
        "Command" => return Field::Command,
        "Args" => return Field::Args,
        "State" | "Last State" => {
            c.has_status |= k == "State";
            let state = new_state(v);
            if state.is_none() && value(v).is_some() {
                warn(format!("`{v}` is not a container state (Running, Waiting, Terminated)"));
            }
            if k == "State" {
                c.status.state = state;
                return Field::State;
            }
            c.status.last_state = state;
            return Field::LastState;
        }
        "Ready" => match v {
            "True" | "true" => (c.status.ready, c.ready_seen, c.has_status) = (true, true, true),
            "False" | "false" => (c.status.ready, c.ready_seen, c.has_status) = (false, true, true),
            _ => warn(format!("Ready `{v}` is not True or False")),
        },
        "Restart Count" => match v.parse() {
            Ok(n) => (c.status.restart_count, c.restarts_seen, c.has_status) = (n, true, true),
            Err(_) => warn(format!("Restart Count `{v}` is not a number")),
        },
        "Limits" => return Field::Limits,
        "Requests" => return Field::Requests,
        "Liveness" | "Readiness" | "Startup" => match parse_probe(v) {
            Some(p) => match k {
                "Liveness" => c.spec.liveness_probe = Some(p),
                "Readiness" => c.spec.readiness_probe = Some(p),
                _ => c.spec.startup_probe = Some(p),
            },
            None => warn(format!("cannot read the {k} probe `{v}`: left out")),
        },
        _ => {}
    }
    Field::Other
}

/// A line below a container field (command words, resources, state details).
pub(super) fn container_sub(c: &mut Ctr, field: Field, line: u64, tt: &str, warnings: &mut Vec<(u64, String)>) {
    match field {
        Field::Command => c.spec.command.get_or_insert_with(Vec::new).push(tt.to_string()),
        Field::Args => c.spec.args.get_or_insert_with(Vec::new).push(tt.to_string()),
        Field::Limits | Field::Requests => {
            if let Some((k, v)) = split_key(tt) {
                let map = if field == Field::Limits { &mut c.limits } else { &mut c.requests };
                map.insert(k.to_string(), Quantity(v.to_string()));
            }
        }
        Field::State | Field::LastState => {
            let Some((k, v)) = split_key(tt) else { return };
            let state = if field == Field::State { &mut c.status.state } else { &mut c.status.last_state };
            let Some(state) = state.as_mut() else { return };
            let time = |warnings: &mut Vec<(u64, String)>| {
                let t = parse_time(v);
                if t.is_none() {
                    warnings.push((
                        line,
                        format!("{k} `{v}` is not a time like `Thu, 17 Feb 2022 16:51:01 -0500`: left out"),
                    ));
                }
                t
            };
            if let Some(r) = state.running.as_mut() {
                if k == "Started" {
                    r.started_at = time(warnings);
                }
            } else if let Some(w) = state.waiting.as_mut() {
                match k {
                    "Reason" => w.reason = value(v),
                    "Message" => w.message = value(v),
                    _ => {}
                }
            } else if let Some(x) = state.terminated.as_mut() {
                match k {
                    "Reason" => x.reason = value(v),
                    "Message" => x.message = value(v),
                    "Exit Code" => match v.parse() {
                        Ok(n) => x.exit_code = n,
                        Err(_) => warnings.push((line, format!("Exit Code `{v}` is not a number"))),
                    },
                    "Signal" => x.signal = v.parse().ok(),
                    "Started" => x.started_at = time(warnings),
                    "Finished" => x.finished_at = time(warnings),
                    _ => {}
                }
            }
        }
        Field::Other => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::Span;
    use crate::observe::text::testing::*;

    #[test]
    fn trace_014_describe_init_containers() {
        let (records, problems) = read(trace!("014-init-container-sleep5-then-main-kodekloud/describe-blue.txt"));
        assert!(problems.is_empty(), "{:?}", messages(&problems));
        assert_eq!(records.len(), 9, "one Pod and eight events");
        let (_, pod) = pods(&records)[0];
        assert_eq!(pod.metadata.name.as_deref(), Some("blue"));
        let sp = spec(pod);
        assert_eq!(sp.service_account_name.as_deref(), Some("default"));
        let init = &sp.init_containers.as_ref().unwrap()[0];
        assert_eq!((init.name.as_str(), init.image.as_deref()), ("init-myservice", Some("busybox")));
        assert_eq!(init.command.as_deref(), Some(&["sh".to_string(), "-c".into(), "sleep 5".into()][..]));
        assert_eq!(sp.containers.len(), 1);
        assert_eq!(sp.containers[0].name, "green-container-1");
        let st = status(pod);
        assert_eq!(time(&st.start_time), "2025-08-23T20:08:39Z");
        let ics = &st.init_container_statuses.as_ref().unwrap()[0];
        assert_eq!((ics.name.as_str(), ics.ready, ics.restart_count), ("init-myservice", true, 0));
        let term = ics.state.as_ref().and_then(|s| s.terminated.as_ref()).unwrap();
        assert_eq!((term.reason.as_deref(), term.exit_code), (Some("Completed"), 0));
        assert_eq!(time(&term.started_at), "2025-08-23T20:08:40Z");
        assert_eq!(time(&term.finished_at), "2025-08-23T20:08:45Z");
        let cs = &st.container_statuses.as_ref().unwrap()[0];
        assert_eq!((cs.name.as_str(), cs.ready), ("green-container-1", true));
        let run = cs.state.as_ref().and_then(|s| s.running.as_ref()).unwrap();
        assert_eq!(time(&run.started_at), "2025-08-23T20:08:46Z");
        assert_eq!(st.conditions.as_ref().map(|c| c.len()), Some(5));
        let evs = events(&records);
        assert_eq!(evs.len(), 8);
        assert_eq!(evs[3].2.message, "Created container: init-myservice");
        assert!(
            evs.iter().all(|(_, pod, e)| *pod == Some("blue") && e.last_seen == Span { lo: 1_140_000, hi: 1_200_000 })
        );
    }

    #[test]
    fn describe_probes_last_state_and_two_pods() {
        let text = "\
$ kubectl describe pods -n shop
Name:         api-0
Namespace:    shop
Node:         <none>
Start Time:   Mon, 01 Jan 2024 00:00:00 UTC
Status:       Terminating (lasts 3m)
Termination Grace Period:  30s
IP:
Containers:
  api:
    Container ID:   containerd://abc
    Image:          api:1
    Image ID:       registry/api@sha256:1
    Ports:          8080/TCP, 9090/TCP
    Host Ports:     0/TCP, 9090/TCP
    Args:
      --port=8080
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
      Signal:       9
      Started:      Mon, 01 Jan 2024 01:00:00 +0530
      Finished:     Sun, 31 Dec 2023 19:31:00 +0000
    Ready:          False
    Restart Count:  3
    Liveness:       http-get https://[::1]:http/healthz delay=30s timeout=1s period=10s #success=1 #failure=3
    Readiness:      tcp-socket :8080 delay=0s timeout=1s period=5s successThreshold=1 failureThreshold=3
    Startup:        exec [sh -c test -f /tmp/started] delay=0s timeout=1s period=5s #success=1 #failure=10
Conditions:
  Type              Status
  Ready             False
Events:                      <none>

Name:         api-1
Namespace:    shop
Status:       Pending
Containers:
  api:
    Image:        api:1
    Liveness:     grpc <pod>:9090  delay=0s timeout=1s period=10s #success=1 #failure=3
    Readiness:    bogus probe
Events:  <none>
";
        let (records, problems) = read(text);
        let pods = pods(&records);
        assert_eq!((records.len(), pods.len()), (2, 2));
        let (line, p) = pods[0];
        assert_eq!(line, 2);
        assert_eq!(p.metadata.deletion_grace_period_seconds, Some(30));
        assert_eq!(spec(p).node_name, None);
        let st = status(p);
        assert_eq!((st.phase.as_deref(), st.pod_ip.as_deref()), (None, None), "Terminating hides the phase");
        assert_eq!(time(&st.start_time), "2024-01-01T00:00:00Z");
        let c = &spec(p).containers[0];
        let ports: Vec<(i32, Option<i32>)> =
            c.ports.iter().flatten().map(|p| (p.container_port, p.host_port)).collect();
        assert_eq!(ports, [(8080, None), (9090, Some(9090))]);
        assert_eq!(c.args.as_deref(), Some(&["--port=8080".to_string()][..]));
        let live = c.liveness_probe.as_ref().unwrap();
        let get = live.http_get.as_ref().unwrap();
        assert_eq!(get.host.as_deref(), Some("::1"));
        assert_eq!(get.port, IntOrString::String("http".into()));
        assert_eq!((get.path.as_deref(), get.scheme.as_deref()), (Some("/healthz"), Some("HTTPS")));
        assert_eq!(
            (live.initial_delay_seconds, live.period_seconds, live.failure_threshold),
            (Some(30), Some(10), Some(3))
        );
        let ready = c.readiness_probe.as_ref().unwrap();
        assert_eq!(ready.tcp_socket.as_ref().map(|t| (&t.host, &t.port)), Some((&None, &IntOrString::Int(8080))));
        assert_eq!(ready.success_threshold, Some(1));
        let startup = c.startup_probe.as_ref().unwrap();
        let words = startup.exec.as_ref().and_then(|e| e.command.clone()).unwrap_or_default();
        assert_eq!(words, ["sh", "-c", "test -f /tmp/started"]);
        assert_eq!(startup.failure_threshold, Some(10));
        let cs = &st.container_statuses.as_ref().unwrap()[0];
        assert_eq!((cs.ready, cs.restart_count), (false, 3));
        assert_eq!(
            cs.state.as_ref().and_then(|s| s.waiting.as_ref()).and_then(|w| w.reason.as_deref()),
            Some("CrashLoopBackOff")
        );
        let last = cs.last_state.as_ref().and_then(|s| s.terminated.as_ref()).unwrap();
        assert_eq!((last.exit_code, last.signal, last.reason.as_deref()), (1, Some(9), Some("Error")));
        assert_eq!(time(&last.started_at), "2023-12-31T19:30:00Z");
        assert_eq!(time(&last.finished_at), "2023-12-31T19:31:00Z");

        let (line, p) = pods[1];
        assert_eq!((line, p.metadata.name.as_deref()), (36, Some("api-1")));
        let c = &spec(p).containers[0];
        assert_eq!(
            c.liveness_probe.as_ref().and_then(|p| p.grpc.as_ref()).map(|g| (g.port, g.service.clone())),
            Some((9090, None))
        );
        assert!(c.readiness_probe.is_none());
        assert_eq!(status(p).container_statuses, None, "no status lines for this container");
        let m = messages(&problems);
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].starts_with("test.txt:43:1: cannot read the Readiness probe `bogus probe`"));
    }
}
