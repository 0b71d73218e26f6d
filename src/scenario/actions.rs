//! Scenario actions: what someone does to the cluster at a given time —
//! delete a pod, set a pod condition (a readiness gate), patch a pod's spec,
//! kill a container's process from outside. Written in the scenario file or
//! as `run` flags.
//!
//! ```yaml
//! actions:
//!   - {at: 60s, delete: pod/web, gracePeriodSeconds: 10}
//!   - {at: 30s, setCondition: {pod: web, type: example.com/lb, status: "True"}}
//!   - {at: 45s, kill: pod/web/app, signal: SIGTERM}
//!   - {at: 30s, apply: ../manifests/web-v2.yaml}   # kubectl apply of a changed Deployment
//!   - {at: 60s, apply: app-config.yaml}            # … or of a ConfigMap a pod waits for
//!   - {at: 90s, scale: deployment/web, replicas: 5}  (or statefulset/web)
//!   - {at: 2m, undo: deployment/web, toRevision: 1}  # toRevision 0 or absent: the previous one
//!   - {at: 40s, delete: pod/web-*}                  # the oldest pod whose name starts with web-
//!   - {at: 60s, delete: statefulset/web, cascade: foreground}  # any workload: deployment, replicaset,
//!                                                   # statefulset, daemonset, job, cronjob
//!   - {at: 20s, patch: pod/web, spec: {activeDeadlineSeconds: 30}}   # kubectl patch pod web -p '{"spec":…}'
//!   - {at: 50s, patch: pod/web, spec: {containers: [{name: app, image: busybox:1.37}]}}
//!   - {at: 55s, patch: pod/web-*, spec: {activeDeadlineSeconds: 30}}  # the oldest pod named web-…
//!   - {at: 30s, cordon: node/node-1}                # kubectl cordon node-1
//!   - {at: 90s, uncordon: node/node-1}
//!   - {at: 40s, evict: pod/web-*}                   # POST pods/NAME/eviction (scenario/drain.rs)
//!   - {at: 60s, drain: node/node-1, timeout: 2m}    # kubectl drain node-1 --timeout=2m0s
//!   - {at: 60s, nodeDown: node/node-2}              # the machine stops for good
//!   - {at: 60s, nodeDown: node/node-2, for: 10m}    # … and boots 10 minutes later
//!   - {at: 60s, restartKubelet: node/node-1}        # systemctl restart kubelet
//!   - {at: 60s, reboot: node/node-1, down: 90s}     # down, and booted 90 s later (default 30 s)
//!   - {at: 60s, addNode: node/node-4}               # a profile's node joins (absent until then)
//! ```

use crate::api::meta::Propagation;
use crate::api::pod_patch::PodPatch;
use crate::dist::Dist;
use crate::time::{SimDuration, SimTime, parse_duration};
use serde::Deserialize;

/// A process signal sent by a `kill` action.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Signal {
    /// The app's SIGTERM behaviour applies (exit 0 at once by default).
    Term,
    /// The process dies at once with exit code 137.
    Kill,
}

impl Signal {
    fn parse(s: &str) -> Result<Signal, String> {
        match s.trim_start_matches("SIG").to_ascii_uppercase().as_str() {
            "TERM" => Ok(Signal::Term),
            "KILL" => Ok(Signal::Kill),
            _ => Err(format!("{s:?}: the signal is SIGTERM or SIGKILL")),
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Signal::Term => "SIGTERM",
            Signal::Kill => "SIGKILL",
        }
    }
}

/// What an action does, with the pod named as written (resolved against the
/// manifests when the run is prepared).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// `kubectl delete pod NAME [--grace-period=N]`.
    Delete { pod: String, grace_period_seconds: Option<i64> },
    /// `kubectl patch pod NAME --subresource=status` setting one condition.
    SetCondition { pod: String, condition: String, status: bool },
    /// A signal to a container's process from outside the kubelet.
    Kill { pod: String, container: String, signal: Signal },
    /// `kubectl apply -f FILE`: Deployments (a new spec: a rollout when the
    /// template changed), new ReplicaSets, Pods and Services, ConfigMaps and
    /// Secrets. The path is relative to the scenario file until the
    /// scenario is loaded.
    Apply { file: std::path::PathBuf },
    /// `kubectl scale deployment/NAME --replicas=N`.
    Scale { deployment: String, replicas: u32 },
    /// `kubectl rollout undo deployment/NAME [--to-revision=N]` (0: the previous revision).
    Undo { deployment: String, to_revision: u64 },
    /// `kubectl patch pod NAME -p '{"spec":{…}}'`.
    Patch { pod: String, patch: PodPatch },
    /// `kubectl delete deployment|replicaset NAME [--cascade=…]`.
    DeleteOwner { kind: OwnerKind, name: String, cascade: Propagation },
    /// `kubectl cordon NODE` (`unschedulable`) or `kubectl uncordon NODE`.
    Cordon { node: String, unschedulable: bool },
    /// `POST pods/NAME/eviction` with `gracePeriodSeconds` (no kubectl command does only this).
    Evict { pod: String, grace_period_seconds: Option<i64> },
    /// `kubectl drain NODE [options]`.
    Drain(super::drain::DrainOptions),
    /// Something happens to a node's machine.
    Node { node: String, fault: NodeFault },
    /// `kubectl scale statefulset/NAME --replicas=N`.
    ScaleStatefulSet { name: String, replicas: u32 },
}

/// What happens to a node.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeFault {
    /// The machine stops (power lost, instance terminated): its kubelet,
    /// kube-proxy and containers with it; for good, or until it boots
    /// `back` later.
    Down { back: Option<SimDuration> },
    /// The kubelet process restarts (`systemctl restart kubelet`); the
    /// containers run on.
    RestartKubelet,
    /// The machine goes down and boots again `down` later.
    Reboot { down: SimDuration },
    /// A new machine joins the cluster (the profile declares it; it is
    /// absent until then): its kubelet registers the Node.
    Join,
}

/// A reboot's down time when none is given: a quick virtual machine's.
pub const REBOOT_DOWN: SimDuration = SimDuration::from_secs(30);

impl NodeFault {
    /// The scenario key (and, as `--node-down`, the flag).
    pub fn key(self) -> &'static str {
        match self {
            NodeFault::Down { .. } => "nodeDown",
            NodeFault::RestartKubelet => "restartKubelet",
            NodeFault::Reboot { .. } => "reboot",
            NodeFault::Join => "addNode",
        }
    }
}

/// The kinds a DELETE may cascade from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OwnerKind {
    ReplicaSet,
    Deployment,
    StatefulSet,
    DaemonSet,
    Job,
    CronJob,
}

impl OwnerKind {
    /// As kubectl names the resource.
    pub fn as_str(self) -> &'static str {
        match self {
            OwnerKind::ReplicaSet => "replicaset",
            OwnerKind::Deployment => "deployment",
            OwnerKind::StatefulSet => "statefulset",
            OwnerKind::DaemonSet => "daemonset",
            OwnerKind::Job => "job",
            OwnerKind::CronJob => "cronjob",
        }
    }
}

/// A workload (`deployment/web`, `deploy/web`, `rs/web`, `sts/web`,
/// `ds/agent`, `job/pi`, `cronjob/report`) → the kind and name; `None` for
/// anything else (a pod).
fn owner_name(s: &str) -> Option<Result<(OwnerKind, String), String>> {
    let (kind, name) = s.split_once('/')?;
    let kind = match kind {
        "deployment" | "deployments" | "deploy" => OwnerKind::Deployment,
        "replicaset" | "replicasets" | "rs" => OwnerKind::ReplicaSet,
        "statefulset" | "statefulsets" | "sts" => OwnerKind::StatefulSet,
        "daemonset" | "daemonsets" | "ds" => OwnerKind::DaemonSet,
        "job" | "jobs" => OwnerKind::Job,
        "cronjob" | "cronjobs" | "cj" => OwnerKind::CronJob,
        _ => return None,
    };
    Some(match name.is_empty() || name.contains('/') {
        true => Err(format!("{s:?}: name it as {}/NAME", kind.as_str())),
        false => Ok((kind, name.to_string())),
    })
}

/// `kubectl delete --cascade`: `background` (the default), `foreground` or `orphan`.
fn cascade(s: &str) -> Result<Propagation, String> {
    match s {
        "background" => Ok(Propagation::Background),
        "foreground" => Ok(Propagation::Foreground),
        "orphan" => Ok(Propagation::Orphan),
        _ => Err(format!("{s:?}: cascade is background, foreground or orphan")),
    }
}

impl Action {
    /// The pod the action is about (`None` for `apply`).
    pub fn pod(&self) -> Option<&str> {
        match self {
            Action::Delete { pod, .. }
            | Action::SetCondition { pod, .. }
            | Action::Kill { pod, .. }
            | Action::Evict { pod, .. }
            | Action::Patch { pod, .. } => Some(pod),
            Action::Apply { .. }
            | Action::Scale { .. }
            | Action::Undo { .. }
            | Action::DeleteOwner { .. }
            | Action::Drain(_)
            | Action::Cordon { .. }
            | Action::Node { .. }
            | Action::ScaleStatefulSet { .. } => None,
        }
    }
}

/// An action at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timed {
    pub at: SimTime,
    pub action: Action,
}

/// `node/node-1` or `node-1` → `node-1`.
pub(super) fn node_name(s: &str) -> Result<String, String> {
    let name = s.strip_prefix("node/").or_else(|| s.strip_prefix("nodes/")).unwrap_or(s);
    match name.is_empty() || name.contains('/') {
        true => Err(format!("{s:?}: expected node/NAME")),
        false => Ok(name.to_string()),
    }
}

/// `pod/web` or `web` → `web`.
pub(super) fn pod_name(s: &str) -> Result<String, String> {
    let name = s.strip_prefix("pod/").or_else(|| s.strip_prefix("pods/")).unwrap_or(s);
    if name.is_empty() || name.contains('/') {
        return Err(format!("{s:?}: name a pod as pod/NAME"));
    }
    Ok(name.to_string())
}

/// `deployment/web` (or `deploy/web`) → `web`.
fn deployment_name(s: &str) -> Result<String, String> {
    let name =
        s.strip_prefix("deployment/").or_else(|| s.strip_prefix("deploy/")).or_else(|| s.strip_prefix("deployments/"));
    match name {
        Some(n) if !n.is_empty() && !n.contains('/') => Ok(n.to_string()),
        _ => Err(format!("{s:?}: name a Deployment as deployment/NAME")),
    }
}

/// `statefulset/web` (or `sts/web`) → `web`.
fn stateful_set_name(s: &str) -> Option<String> {
    let name = s.strip_prefix("statefulset/").or_else(|| s.strip_prefix("sts/"));
    name.filter(|n| !n.is_empty() && !n.contains('/')).map(str::to_string)
}

/// `pod/web/app` → (`web`, `app`).
fn pod_container(s: &str) -> Result<(String, String), String> {
    let rest = s.strip_prefix("pod/").or_else(|| s.strip_prefix("pods/")).unwrap_or(s);
    match rest.split_once('/') {
        Some((pod, c)) if !pod.is_empty() && !c.is_empty() && !c.contains('/') => Ok((pod.into(), c.into())),
        _ => Err(format!("{s:?}: name a container as pod/NAME/CONTAINER")),
    }
}

fn condition_status(s: &str) -> Result<bool, String> {
    match s {
        "True" => Ok(true),
        "False" => Ok(false),
        _ => Err(format!("{s:?}: a condition status is \"True\" or \"False\"")),
    }
}

/// A flag's `key=value` options.
type Options<'a> = Vec<(&'a str, &'a str)>;

/// Splits `SUBJECT@TIME[,key=value…]` as the flags write it.
pub(super) fn flag_parts(s: &str) -> Result<(&str, SimTime, Options<'_>), String> {
    let (subject, rest) =
        s.rsplit_once('@').ok_or_else(|| format!("{s:?}: expected SUBJECT@TIME, e.g. pod/web@60s"))?;
    let mut parts = rest.split(',');
    let at = parse_duration(parts.next().unwrap_or(""))?;
    let options = parts
        .map(|p| p.split_once('=').ok_or_else(|| format!("{p:?}: expected key=value")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((subject, SimTime::ZERO + at, options))
}

pub(super) fn unknown_option(key: &str, known: &str) -> String {
    format!("unknown option {key:?} (known: {known})")
}

/// `--delete pod/web@60s[,grace-period=10]`, or a workload's
/// `--delete deployment/web@60s[,cascade=foreground]`.
pub fn parse_delete_flag(s: &str) -> Result<Timed, String> {
    let (subject, at, options) = flag_parts(s)?;
    if let Some(owner) = owner_name(subject) {
        let (kind, name) = owner?;
        let mut policy = Propagation::Background;
        for (k, v) in options {
            match k {
                "cascade" => policy = cascade(v)?,
                _ => return Err(unknown_option(k, "cascade")),
            }
        }
        return Ok(Timed { at, action: Action::DeleteOwner { kind, name, cascade: policy } });
    }
    let mut grace = None;
    for (k, v) in options {
        match k {
            "grace-period" => {
                grace = Some(v.parse::<i64>().map_err(|_| format!("{v:?}: grace-period is whole seconds"))?)
            }
            _ => return Err(unknown_option(k, "grace-period")),
        }
    }
    Ok(Timed { at, action: Action::Delete { pod: pod_name(subject)?, grace_period_seconds: grace } })
}

/// `--set-condition pod/web:example.com/lb=True@30s`.
pub fn parse_condition_flag(s: &str) -> Result<Timed, String> {
    let (subject, at, options) = flag_parts(s)?;
    if let Some((k, _)) = options.first() {
        return Err(unknown_option(k, "none"));
    }
    let (pod, cond) =
        subject.split_once(':').ok_or_else(|| format!("{subject:?}: expected pod/NAME:CONDITION=True|False"))?;
    let (condition, status) =
        cond.rsplit_once('=').ok_or_else(|| format!("{cond:?}: expected CONDITION=True or CONDITION=False"))?;
    let action =
        Action::SetCondition { pod: pod_name(pod)?, condition: condition.into(), status: condition_status(status)? };
    Ok(Timed { at, action })
}

/// `--kill pod/web/app@45s[,signal=SIGTERM]`.
pub fn parse_kill_flag(s: &str) -> Result<Timed, String> {
    let (subject, at, options) = flag_parts(s)?;
    let mut signal = Signal::Kill;
    for (k, v) in options {
        match k {
            "signal" => signal = Signal::parse(v)?,
            _ => return Err(unknown_option(k, "signal")),
        }
    }
    let (pod, container) = pod_container(subject)?;
    Ok(Timed { at, action: Action::Kill { pod, container, signal } })
}

/// `--cordon node/node-1@30s` (`unschedulable`) or `--uncordon node/node-1@90s`.
pub fn parse_cordon_flag(s: &str, unschedulable: bool) -> Result<Timed, String> {
    let (subject, at, options) = flag_parts(s)?;
    if let Some((k, _)) = options.first() {
        return Err(unknown_option(k, "none"));
    }
    Ok(Timed { at, action: Action::Cordon { node: node_name(subject)?, unschedulable } })
}

/// `--node-down node/node-2@60s[,for=10m]`, `--restart-kubelet node/node-1@60s`,
/// `--reboot node/node-1@60s[,down=90s]`.
pub fn parse_node_flag(s: &str, mut fault: NodeFault) -> Result<Timed, String> {
    let (subject, at, options) = flag_parts(s)?;
    for (k, v) in options {
        match (&mut fault, k) {
            (NodeFault::Reboot { down }, "down") => *down = parse_duration(v)?,
            (NodeFault::Reboot { .. }, _) => return Err(unknown_option(k, "down")),
            (NodeFault::Down { back }, "for") => *back = Some(parse_duration(v)?),
            (NodeFault::Down { .. }, _) => return Err(unknown_option(k, "for")),
            _ => return Err(unknown_option(k, "none")),
        }
    }
    Ok(Timed { at, action: Action::Node { node: node_name(subject)?, fault } })
}

/// `--patch 'pod/web:{"spec":{"activeDeadlineSeconds":30}}@20s'`: the JSON
/// `kubectl patch pod web -p` takes.
pub fn parse_patch_flag(s: &str) -> Result<Timed, String> {
    // The JSON may hold '@' (an image digest): a time comes after the last one.
    if s.rsplit_once('@').is_none_or(|(_, time)| time.contains(['}', '"'])) {
        return Err(format!(
            r#"{s:?}: expected POD:JSON@TIME, e.g. 'pod/web:{{"spec":{{"activeDeadlineSeconds":30}}}}@20s'"#
        ));
    }
    let (subject, at, options) = flag_parts(s)?;
    if let Some((k, _)) = options.first() {
        return Err(unknown_option(k, "none"));
    }
    let (pod, json) = subject
        .split_once(':')
        .ok_or_else(|| format!("{subject:?}: expected pod/NAME:{{\"spec\":{{…}}}}, the JSON of kubectl patch -p"))?;
    Ok(Timed { at, action: Action::Patch { pod: pod_name(pod)?, patch: PodPatch::from_json(json)? } })
}

/// One entry of a scenario's `actions:` list.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ActionEntry {
    at: Dist,
    #[serde(default)]
    delete: Option<String>,
    #[serde(default)]
    grace_period_seconds: Option<i64>,
    /// A Deployment's or ReplicaSet's `delete`: `kubectl delete --cascade`.
    #[serde(default)]
    cascade: Option<String>,
    #[serde(default)]
    set_condition: Option<ConditionEntry>,
    #[serde(default)]
    kill: Option<String>,
    #[serde(default)]
    signal: Option<String>,
    #[serde(default)]
    apply: Option<String>,
    #[serde(default)]
    scale: Option<String>,
    #[serde(default)]
    replicas: Option<u32>,
    #[serde(default)]
    undo: Option<String>,
    #[serde(default)]
    to_revision: Option<u64>,
    #[serde(default)]
    patch: Option<String>,
    /// A `patch` action's spec fields.
    #[serde(default)]
    spec: Option<serde_json::Value>,
    #[serde(default)]
    cordon: Option<String>,
    #[serde(default)]
    uncordon: Option<String>,
    #[serde(default)]
    evict: Option<String>,
    #[serde(default)]
    drain: Option<String>,
    /// A `drain`'s `--timeout`.
    #[serde(default)]
    timeout: Option<Dist>,
    #[serde(default)]
    ignore_daemonsets: Option<bool>,
    #[serde(default)]
    force: Option<bool>,
    #[serde(default)]
    delete_emptydir_data: Option<bool>,
    node_down: Option<String>,
    #[serde(default)]
    restart_kubelet: Option<String>,
    #[serde(default)]
    reboot: Option<String>,
    #[serde(default)]
    add_node: Option<String>,
    /// A `reboot`'s down time.
    #[serde(default)]
    down: Option<Dist>,
    /// How long a `nodeDown` lasts (for good without it).
    #[serde(default, rename = "for")]
    for_: Option<Dist>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionEntry {
    pod: String,
    #[serde(rename = "type")]
    condition: String,
    status: String,
}

impl ActionEntry {
    /// The action, or (field relative to the entry, message).
    pub fn resolve(&self) -> Result<Timed, (&'static str, String)> {
        let Dist::Fixed(at) = self.at else { return Err(("at", "must be a fixed duration".into())) };
        let at = SimTime::ZERO + at;
        let kinds = [
            self.delete.is_some(),
            self.set_condition.is_some(),
            self.kill.is_some(),
            self.apply.is_some(),
            self.scale.is_some(),
            self.undo.is_some(),
            self.patch.is_some(),
            self.cordon.is_some(),
            self.uncordon.is_some(),
            self.evict.is_some(),
            self.drain.is_some(),
            self.node_down.is_some(),
            self.restart_kubelet.is_some(),
            self.reboot.is_some(),
            self.add_node.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err((
                "",
                "an action has exactly one of `delete`, `setCondition`, `kill`, `apply`, `scale`, `undo`, `patch`, \
                 `cordon`, `uncordon`, `evict`, `drain`, `nodeDown`, `restartKubelet`, `reboot` and `addNode`"
                    .into(),
            ));
        }
        if self.spec.is_some() != self.patch.is_some() {
            return Err(("spec", "a `patch` action takes `spec`, and only it".into()));
        }
        if self.replicas.is_some() != self.scale.is_some() {
            return Err(("replicas", "a `scale` action takes `replicas`, and only it".into()));
        }
        if self.to_revision.is_some() && self.undo.is_none() {
            return Err(("toRevision", "only an `undo` action takes toRevision".into()));
        }
        if self.grace_period_seconds.is_some() && self.delete.is_none() && self.evict.is_none() && self.drain.is_none()
        {
            let message = "only a `delete`, `evict` or `drain` action takes gracePeriodSeconds";
            return Err(("gracePeriodSeconds", message.into()));
        }
        let drain_options = [
            (self.timeout.is_some(), "timeout"),
            (self.ignore_daemonsets.is_some(), "ignoreDaemonsets"),
            (self.force.is_some(), "force"),
            (self.delete_emptydir_data.is_some(), "deleteEmptydirData"),
        ];
        if let Some((_, key)) = drain_options.iter().find(|(set, _)| *set).filter(|_| self.drain.is_none()) {
            return Err((key, format!("only a `drain` action takes {key}")));
        }
        let owner = self.delete.as_deref().and_then(owner_name);
        if self.cascade.is_some() && owner.is_none() {
            let message = "only a `delete` of a workload (deployment/NAME, replicaset/NAME, statefulset/NAME, daemonset/NAME, job/NAME, cronjob/NAME) takes cascade";
            return Err(("cascade", message.into()));
        }
        if self.grace_period_seconds.is_some() && owner.is_some() {
            let message = "a workload is deleted at once (no graceful deletion): gracePeriodSeconds is for a pod";
            return Err(("gracePeriodSeconds", message.into()));
        }
        if self.down.is_some() && self.reboot.is_none() {
            return Err(("down", "only a `reboot` action takes down".into()));
        }
        if self.for_.is_some() && self.node_down.is_none() {
            return Err(("for", "only a `nodeDown` action takes for".into()));
        }
        if self.signal.is_some() && self.kill.is_none() {
            return Err(("signal", "only a `kill` action takes a signal".into()));
        }
        let action = if let Some(node) = &self.drain {
            let mut d = super::drain::DrainOptions::new(node_name(node).map_err(|e| ("drain", e))?);
            d.grace_period_seconds = self.grace_period_seconds;
            d.timeout = match self.timeout {
                Some(Dist::Fixed(t)) => Some(t),
                Some(_) => return Err(("timeout", "must be a fixed duration".into())),
                None => None,
            };
            d.ignore_daemonsets = self.ignore_daemonsets.unwrap_or(false);
            d.force = self.force.unwrap_or(false);
            d.delete_emptydir_data = self.delete_emptydir_data.unwrap_or(false);
            Action::Drain(d)
        } else if let Some(pod) = &self.evict {
            Action::Evict {
                pod: pod_name(pod).map_err(|e| ("evict", e))?,
                grace_period_seconds: self.grace_period_seconds,
            }
        } else if let Some(node) = &self.cordon {
            Action::Cordon { node: node_name(node).map_err(|e| ("cordon", e))?, unschedulable: true }
        } else if let Some(node) = &self.uncordon {
            Action::Cordon { node: node_name(node).map_err(|e| ("uncordon", e))?, unschedulable: false }
        } else if let Some(node) = &self.node_down {
            let back = match &self.for_ {
                None => None,
                Some(Dist::Fixed(d)) => Some(*d),
                Some(_) => return Err(("for", "must be a fixed duration".into())),
            };
            Action::Node { node: node_name(node).map_err(|e| ("nodeDown", e))?, fault: NodeFault::Down { back } }
        } else if let Some(node) = &self.restart_kubelet {
            let node = node_name(node).map_err(|e| ("restartKubelet", e))?;
            Action::Node { node, fault: NodeFault::RestartKubelet }
        } else if let Some(node) = &self.reboot {
            let node = node_name(node).map_err(|e| ("reboot", e))?;
            let down = match &self.down {
                None => REBOOT_DOWN,
                Some(Dist::Fixed(d)) => *d,
                Some(_) => return Err(("down", "must be a fixed duration".into())),
            };
            Action::Node { node, fault: NodeFault::Reboot { down } }
        } else if let Some(node) = &self.add_node {
            Action::Node { node: node_name(node).map_err(|e| ("addNode", e))?, fault: NodeFault::Join }
        } else if let (Some(pod), Some(spec)) = (&self.patch, &self.spec) {
            let pod = pod_name(pod).map_err(|e| ("patch", e))?;
            let patch = PodPatch::from_spec(spec).map_err(|(path, message)| match path.is_empty() {
                true => ("spec", message),
                false => ("spec", format!("{path}: {message}")),
            })?;
            Action::Patch { pod, patch }
        } else if let Some(file) = &self.apply {
            Action::Apply { file: file.into() }
        } else if let Some(name) = self.scale.as_deref().and_then(stateful_set_name) {
            Action::ScaleStatefulSet { name, replicas: self.replicas.unwrap_or_default() }
        } else if let Some(d) = &self.scale {
            Action::Scale {
                deployment: deployment_name(d).map_err(|e| ("scale", e))?,
                replicas: self.replicas.unwrap_or_default(),
            }
        } else if let Some(d) = &self.undo {
            Action::Undo {
                deployment: deployment_name(d).map_err(|e| ("undo", e))?,
                to_revision: self.to_revision.unwrap_or(0),
            }
        } else if let Some(owner) = owner {
            let (kind, name) = owner.map_err(|e| ("delete", e))?;
            let policy = self.cascade.as_deref().map_or(Ok(Propagation::Background), cascade);
            Action::DeleteOwner { kind, name, cascade: policy.map_err(|e| ("cascade", e))? }
        } else if let Some(pod) = &self.delete {
            Action::Delete {
                pod: pod_name(pod).map_err(|e| ("delete", e))?,
                grace_period_seconds: self.grace_period_seconds,
            }
        } else if let Some(c) = &self.set_condition {
            Action::SetCondition {
                pod: pod_name(&c.pod).map_err(|e| ("setCondition.pod", e))?,
                condition: c.condition.clone(),
                status: condition_status(&c.status).map_err(|e| ("setCondition.status", e))?,
            }
        } else {
            let (pod, container) = pod_container(self.kill.as_deref().unwrap_or("")).map_err(|e| ("kill", e))?;
            let signal = match &self.signal {
                Some(s) => Signal::parse(s).map_err(|e| ("signal", e))?,
                None => Signal::Kill,
            };
            Action::Kill { pod, container, signal }
        };
        Ok(Timed { at, action })
    }
}

/// `SimDuration` of a whole number of seconds, as the API takes grace periods.
pub fn grace_seconds(s: i64) -> SimDuration {
    SimDuration::from_secs(s.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags() {
        let d = parse_delete_flag("pod/web@60s,grace-period=5").unwrap();
        assert_eq!(d.at, SimTime::ZERO + SimDuration::from_secs(60));
        assert_eq!(d.action, Action::Delete { pod: "web".into(), grace_period_seconds: Some(5) });
        let c = parse_condition_flag("pod/web:example.com/lb=True@1m30s").unwrap();
        assert_eq!(
            c.action,
            Action::SetCondition { pod: "web".into(), condition: "example.com/lb".into(), status: true }
        );
        let k = parse_kill_flag("pod/web/app@45s,signal=TERM").unwrap();
        assert_eq!(k.action, Action::Kill { pod: "web".into(), container: "app".into(), signal: Signal::Term });
        assert!(parse_delete_flag("pod/web").unwrap_err().contains("SUBJECT@TIME"));
        assert!(parse_delete_flag("pod/web@60").unwrap_err().contains("unit"));
        assert!(parse_kill_flag("pod/web@4s").unwrap_err().contains("pod/NAME/CONTAINER"));
        assert!(parse_condition_flag("pod/web:x=maybe@4s").unwrap_err().contains("True"));
        assert!(parse_delete_flag("pod/web@6s,force=true").unwrap_err().contains("unknown option"));
        // The JSON may hold '@' (an image digest) and ',': the time is after the last '@'.
        let p = parse_patch_flag(r#"pod/web:{"spec":{"containers":[{"name":"app","image":"nginx@sha256:ab"}],"activeDeadlineSeconds":9}}@20s"#)
            .unwrap();
        assert_eq!(p.at, SimTime::ZERO + SimDuration::from_secs(20));
        let Action::Patch { pod, patch } = p.action else { panic!("a patch") };
        assert_eq!((pod.as_str(), patch.active_deadline_seconds), ("web", Some(Some(9))));
        assert_eq!(patch.images[0].image, "nginx@sha256:ab");
        assert!(parse_patch_flag("pod/web@20s").unwrap_err().contains("expected pod/NAME:"));
        let form = r#"expected POD:JSON@TIME, e.g. 'pod/web:{"spec":{"activeDeadlineSeconds":30}}@20s'"#;
        assert!(parse_patch_flag(r#"pod/web:{"spec":{"activeDeadlineSeconds":9}}"#).unwrap_err().ends_with(form));
        let digest = r#"pod/web:{"spec":{"containers":[{"name":"app","image":"nginx@sha256:ab"}]}}"#;
        assert!(parse_patch_flag(digest).unwrap_err().ends_with(form));
    }

    /// `kubectl delete deployment/web --cascade=…`, as a flag and as an entry.
    #[test]
    fn owner_deletes() {
        let d = parse_delete_flag("deploy/web@20s,cascade=foreground").unwrap();
        let want = |kind, cascade| Action::DeleteOwner { kind, name: "web".into(), cascade };
        assert_eq!(d.action, want(OwnerKind::Deployment, Propagation::Foreground));
        let r = parse_delete_flag("rs/web@20s").unwrap();
        assert_eq!(r.action, want(OwnerKind::ReplicaSet, Propagation::Background));
        assert!(parse_delete_flag("deployment/web@20s,grace-period=5").unwrap_err().contains("cascade"));
        assert!(parse_delete_flag("deployment/web@20s,cascade=all").unwrap_err().contains("orphan"));
        assert!(parse_delete_flag("deployment/@20s").unwrap_err().contains("deployment/NAME"));
        let entry = |yaml: &str| serde_saphyr::from_str::<ActionEntry>(yaml).unwrap().resolve();
        let o = entry("{at: 20s, delete: deployment/web, cascade: orphan}").unwrap();
        assert_eq!(o.action, want(OwnerKind::Deployment, Propagation::Orphan));
        assert_eq!(entry("{at: 20s, delete: pod/web, cascade: orphan}").unwrap_err().0, "cascade");
        assert_eq!(
            entry("{at: 20s, delete: deployment/web, gracePeriodSeconds: 5}").unwrap_err().0,
            "gracePeriodSeconds"
        );
        assert_eq!(entry("{at: 20s, delete: deployment/web, cascade: both}").unwrap_err().0, "cascade");
    }
}
