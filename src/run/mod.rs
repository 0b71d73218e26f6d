//! Running one simulation: inputs in, trace out.

mod clients;
mod inference;
mod limits;
mod statefulsets;

use crate::app::Behaviours;
use crate::cluster::{Cluster, Version};
use crate::error::{Error, Problem};
use crate::kubectl::rollout_status::Verdict;
use crate::manifest::Manifests;
use crate::manifest::files::read_filenames;
use crate::manifest::qualified_name_errors;
use crate::scenario::actions::{Action, NodeFault, OwnerKind, Timed};
use crate::scenario::traffic::Traffic;
use crate::scenario::{ActionOrigin, GateController, Scenario, Unreadable, parse_epoch, read_file, unreadable};
use crate::sim::{Action as SimAction, Applied, NodeId, PodId, PodRef, Scheduled, Setup, World};
use crate::spec::{BindingMode, ClaimSpec, PodSpec, StorageClass};
use crate::time::{SimDuration, SimTime};
use crate::trace::Record;
use crate::trace::render::Clock;
use crate::trace::{Keep, Trace};
use k8s_openapi::jiff::Timestamp;
use std::path::PathBuf;
use std::sync::Arc;

/// How long a run lasts when neither the scenario nor a flag says.
pub const DEFAULT_UNTIL: SimDuration = SimDuration::from_secs(600);

/// What the user asked for: a scenario file and/or flags that override it.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub scenario: Option<PathBuf>,
    /// As kubectl's `-f`: files, directories, `-` for the standard input.
    pub manifests: Vec<PathBuf>,
    /// `-R`: directories' subdirectories too.
    pub recursive: bool,
    /// kubectl's `--namespace`: where objects that name none go.
    pub namespace: Option<String>,
    pub app: Option<PathBuf>,
    pub cluster: Option<PathBuf>,
    pub kubernetes: Option<String>,
    pub seed: Option<u64>,
    pub until: Option<SimDuration>,
    pub rollout_timeout: Option<SimDuration>,
    /// `--max-events` and `--max-pods`: the events one run may handle and
    /// the pods it may create ([`crate::budget`]).
    pub max_events: Option<u64>,
    pub max_pods: Option<u64>,
    /// Actions from flags, added to the scenario's.
    pub actions: Vec<(Timed, ActionOrigin)>,
    /// Clients from flags, added to the scenario's.
    pub traffic: Vec<(Traffic, ActionOrigin)>,
}

/// Everything read and checked, ready to simulate.
pub struct Prepared {
    pub setup: Setup,
    pub seed: u64,
    pub until: SimDuration,
    /// `kubectl rollout status --timeout` after each rollout, when asked for.
    pub rollout_timeout: Option<SimDuration>,
    pub clock: Clock,
    pub warnings: Vec<Problem>,
}

/// Reads every input; flags override the scenario file.
pub fn prepare(inputs: &Inputs) -> Result<Prepared, Error> {
    let scenario = match &inputs.scenario {
        Some(path) => Scenario::load(path, &read_file(path)?)?,
        None => Scenario::default(),
    };
    let mut missing =
        scenario.missing_paths(inputs.manifests.is_empty(), inputs.app.is_none(), inputs.cluster.is_none());
    for (flag, path) in [("--app", &inputs.app), ("--cluster", &inputs.cluster)] {
        let Some(p) = path else { continue };
        let shown = format!("{:?}", p.display().to_string());
        let message = match unreadable(p, true) {
            None => continue,
            Some(Unreadable::Missing) => format!("the path {shown} does not exist"),
            Some(Unreadable::Directory) => format!("the path {shown} is a directory, not a file"),
        };
        missing.push(Problem::error(message).field(flag));
    }
    if !missing.is_empty() {
        return Err(Error::Input(missing));
    }
    let manifest_paths =
        if inputs.manifests.is_empty() { scenario.manifests.clone() } else { inputs.manifests.clone() };
    if manifest_paths.is_empty() {
        return Err(Error::input(Problem::error("no manifests: give a scenario file or -f MANIFEST")));
    }
    let files = read_filenames(&manifest_paths, inputs.recursive, &mut std::io::stdin().lock())?;
    let manifests = Manifests::load_in(&files, inputs.namespace.as_deref())?;
    let behaviours = match inputs.app.as_ref().or(scenario.app.as_ref()) {
        Some(p) => Behaviours::load(&read_file(p)?)?,
        None => Behaviours::default(),
    };
    let mut cluster = match inputs.cluster.as_ref().or(scenario.cluster.as_ref()) {
        Some(p) => Cluster::load(&read_file(p)?)?,
        None => Cluster::default(),
    };
    if let Some(v) = &inputs.kubernetes {
        let version = Version::parse(v).map_err(|e| Error::input(Problem::error(e).field("--kubernetes")))?;
        cluster = cluster.with_version(version).map_err(Error::input)?;
    }
    cluster.registry = cluster.registry.overridden_by(&scenario.registry).map_err(|problems| {
        // A scenario's registry is checked over its profile's (sizes need the bandwidth of either).
        let file = inputs.scenario.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default();
        let problems: Vec<Problem> =
            problems.into_iter().map(|(field, m)| Problem::error(m).field(format!("{file}{field}"))).collect();
        Error::Input(problems)
    })?;
    let epoch = parse_epoch(scenario.epoch.as_deref().unwrap_or(DEFAULT_EPOCH)).map_err(Error::input)?;
    let mut warnings = manifests.warnings.clone();
    warnings.extend(behaviours.warnings.iter().cloned());
    let mut actions = scenario.actions.clone();
    actions.extend(inputs.actions.iter().cloned());
    let mut traffic = scenario.traffic.clone();
    traffic.extend(inputs.traffic.iter().cloned());
    let scenario_parts = ScenarioParts { actions, gates: scenario.gates.clone(), traffic };
    let (mut setup, more) = setup(manifests, behaviours, cluster, epoch, scenario_parts)?;
    setup.max_events = inputs.max_events.or(scenario.max_events).unwrap_or(crate::budget::DEFAULT_MAX_EVENTS);
    setup.max_pods = inputs.max_pods.or(scenario.max_pods).unwrap_or(crate::budget::DEFAULT_MAX_PODS);
    limits::replicas_within_budget(&setup).map_err(Error::Input)?;
    warnings.extend(more);
    Ok(Prepared {
        setup,
        seed: inputs.seed.or(scenario.seed).unwrap_or(1),
        until: inputs.until.or(scenario.until).unwrap_or(DEFAULT_UNTIL),
        rollout_timeout: inputs.rollout_timeout.or(scenario.rollout_timeout),
        clock: Clock { epoch },
        warnings,
    })
}

/// The default start of simulated time: Kubernetes timestamps in the trace
/// are this plus whole seconds.
pub const DEFAULT_EPOCH: &str = "2026-01-01T00:00:00Z";

/// What a scenario adds to the manifests: timed actions and controllers.
#[derive(Clone, Debug, Default)]
pub struct ScenarioParts {
    pub actions: Vec<(Timed, ActionOrigin)>,
    pub gates: Vec<GateController>,
    pub traffic: Vec<(Traffic, ActionOrigin)>,
}

/// Checks the inputs against each other and builds a run setup.
pub fn setup(
    manifests: Manifests,
    behaviours: Behaviours,
    cluster: Cluster,
    epoch: Timestamp,
    scenario: ScenarioParts,
) -> Result<(Setup, Vec<Problem>), Error> {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let mut actions = Vec::new();
    // The apply files first: a later action may name a Deployment one creates.
    let mut applied: Vec<Manifests> = Vec::new();
    let mut resolved = Vec::new();
    for (timed, origin) in &scenario.actions {
        let Action::Apply { file } = &timed.action else { continue };
        match resolve_apply(&manifests, &applied, file, origin) {
            Ok((mut loaded, list)) => {
                // What the file's reading said (kinds read, not simulated).
                warnings.append(&mut loaded.warnings);
                applied.push(loaded);
                resolved.push(list);
            }
            Err(p) => {
                problems.push(p);
                resolved.push(Vec::new());
            }
        }
    }
    // Every Namespace any manifest creates exists when the objects do: the
    // run creates them all at its start.
    let known: Vec<String> =
        manifests.namespaces.iter().chain(applied.iter().flat_map(|a| &a.namespaces)).cloned().collect();
    let mut assumed = Vec::new();
    manifests.assumed_namespaces(&known, &mut assumed);
    for a in &applied {
        a.assumed_namespaces(&known, &mut assumed);
    }
    warnings.extend(crate::manifest::assumed_namespaces_note(&assumed));
    joining_nodes(&scenario.actions, &mut problems);
    let mut resolved = resolved.into_iter();
    for (timed, origin) in &scenario.actions {
        if let Action::Apply { .. } = &timed.action {
            let list = resolved.next().unwrap_or_default();
            actions.extend(list.into_iter().map(|action| Scheduled { at: timed.at, action }));
            continue;
        }
        match &timed.action {
            Action::Cordon { node, unschedulable } => {
                let field = if *unschedulable { "cordon" } else { "uncordon" };
                match known_node(&cluster, node, field, origin) {
                    Ok(i) => actions.push(Scheduled {
                        at: timed.at,
                        action: SimAction::Cordon {
                            node: cluster.nodes[i].name.clone(),
                            unschedulable: *unschedulable,
                        },
                    }),
                    Err(p) => problems.push(p),
                }
                continue;
            }
            Action::Node { node, fault } => {
                match known_node(&cluster, node, fault.key(), origin) {
                    Ok(i) => actions.push(Scheduled {
                        at: timed.at,
                        action: match fault {
                            NodeFault::Down { back: None } => SimAction::NodeDown { node: NodeId(i as u32) },
                            // Back after a while: it boots, as after a reboot.
                            NodeFault::Down { back: Some(down) } => {
                                SimAction::Reboot { node: NodeId(i as u32), down: *down }
                            }
                            NodeFault::RestartKubelet => SimAction::RestartKubelet { node: NodeId(i as u32) },
                            NodeFault::Reboot { down } => SimAction::Reboot { node: NodeId(i as u32), down: *down },
                            NodeFault::Join => SimAction::AddNode { node: NodeId(i as u32) },
                        },
                    }),
                    Err(p) => problems.push(p),
                }
                continue;
            }
            Action::Scale { deployment, replicas } => {
                match known_deployment(&manifests, &applied, deployment, "scale", origin) {
                    Ok(name) => actions.push(Scheduled {
                        at: timed.at,
                        action: SimAction::Scale { deployment: name, replicas: *replicas },
                    }),
                    Err(p) => problems.push(p),
                }
                continue;
            }
            Action::Undo { deployment, to_revision } => {
                match known_deployment(&manifests, &applied, deployment, "undo", origin) {
                    Ok(name) => actions.push(Scheduled {
                        at: timed.at,
                        action: SimAction::Undo { deployment: name, to_revision: *to_revision },
                    }),
                    Err(p) => problems.push(p),
                }
                continue;
            }
            Action::DeleteOwner { kind, name, cascade } => {
                match known_owner(&manifests, &applied, *kind, name, origin) {
                    Ok(name) => actions.push(Scheduled {
                        at: timed.at,
                        action: SimAction::DeleteOwner { kind: *kind, name, cascade: *cascade },
                    }),
                    Err(p) => problems.push(p),
                }
                continue;
            }
            Action::Drain(options) => {
                match known_node(&cluster, &options.node, "drain", origin) {
                    Ok(_) => {
                        actions.push(Scheduled { at: timed.at, action: SimAction::Drain(Arc::new(options.clone())) })
                    }
                    Err(p) => problems.push(p),
                }
                continue;
            }
            Action::Evict { pod, grace_period_seconds } if pod.ends_with('*') => {
                let prefix: Arc<str> = Arc::from(pod.trim_end_matches('*'));
                let action =
                    SimAction::Evict { pod: PodRef::Prefix(prefix), grace_period_seconds: *grace_period_seconds };
                actions.push(Scheduled { at: timed.at, action });
                continue;
            }
            Action::ScaleStatefulSet { name, replicas } => {
                match statefulsets::known(&manifests, &applied, name, origin) {
                    Ok(name) => actions.push(Scheduled {
                        at: timed.at,
                        action: SimAction::ScaleStatefulSet { name, replicas: *replicas },
                    }),
                    Err(p) => problems.push(p),
                }
                continue;
            }
            // A StatefulSet's pod: its name is known before it exists.
            Action::Delete { pod, grace_period_seconds } if statefulsets::owns(&manifests, &applied, pod) => {
                let name: Arc<str> = Arc::from(pod.as_str());
                let action = SimAction::DeleteNamed { name, grace_period_seconds: *grace_period_seconds };
                actions.push(Scheduled { at: timed.at, action });
                continue;
            }
            Action::Delete { pod, grace_period_seconds } if pod.ends_with('*') => {
                let prefix: Arc<str> = Arc::from(pod.trim_end_matches('*'));
                let action = SimAction::DeleteMatching { prefix, grace_period_seconds: *grace_period_seconds };
                actions.push(Scheduled { at: timed.at, action });
                continue;
            }
            // A StatefulSet's pod by name, or a controller's by prefix: found when the action runs.
            Action::Kill { pod, container, signal }
                if pod.ends_with('*') || statefulsets::owns(&manifests, &applied, pod) =>
            {
                let mut specs = manifests.all_pod_specs().chain(applied.iter().flat_map(Manifests::all_pod_specs));
                if !specs.any(|s| s.container_index(container).is_some()) {
                    let message = format!("no pod or pod template of the manifests has a container {container:?}");
                    problems.push(origin.problem("kill", message));
                    continue;
                }
                let action = SimAction::KillNamed {
                    pod: Arc::from(pod.as_str()),
                    container: Arc::from(container.as_str()),
                    signal: *signal,
                };
                actions.push(Scheduled { at: timed.at, action });
                continue;
            }
            Action::Patch { pod, patch } if pod.ends_with('*') => {
                // The pod is found when the action runs; some pod or template
                // must have the containers the patch names.
                let mut specs = manifests.all_pod_specs().chain(applied.iter().flat_map(Manifests::all_pod_specs));
                if specs.all(|s| patch.unknown_container(s).is_some()) {
                    let message = "no pod or pod template of the manifests has every container the patch names: \
                                   the API server would refuse it for any pod (\"pod updates may not add or remove containers\")";
                    problems.push(origin.problem("patch", message.into()));
                    continue;
                }
                let prefix: Arc<str> = Arc::from(pod.trim_end_matches('*'));
                let action = SimAction::PatchMatching { prefix, patch: Arc::new(patch.clone()) };
                actions.push(Scheduled { at: timed.at, action });
                continue;
            }
            _ => {}
        }
        match resolve_action(&manifests.pods, &timed.action, origin) {
            Ok((action, warning)) => {
                actions.push(Scheduled { at: timed.at, action });
                warnings.extend(warning);
            }
            Err(p) => problems.push(p),
        }
    }
    // Same-instant actions keep their written order.
    actions.sort_by_key(|a| a.at);
    // A condition's name is checked where the scenario is read (`Scenario::load`).
    for g in &scenario.gates {
        if !manifests.pods.iter().any(|p| p.readiness_gates.contains(&g.condition)) {
            let message = format!("no pod has a readiness gate {:?}: this controller has nothing to do", g.condition);
            warnings.push(Problem::error(message).field("gates").warn());
        }
    }
    let sets: Vec<&Manifests> = std::iter::once(&manifests).chain(&applied).collect();
    warnings.extend(crate::manifest::overlap::overlap_warnings(&sets));
    // Rollouts and applied ReplicaSets bring their own templates, and the
    // app file may describe their containers.
    let templates = applied.iter().flat_map(Manifests::all_pod_specs);
    let every_pod: Vec<&PodSpec> = manifests.all_pod_specs().chain(templates).collect();
    for name in behaviours.container_names() {
        if !every_pod.iter().any(|p| p.container_index(name).is_some()) {
            let known: Vec<&str> = every_pod.iter().flat_map(|p| p.containers.iter().map(|c| &*c.name)).collect();
            problems.push(behaviours.problem_at(
                name,
                format!("no container named {name:?} in the manifests (containers: {})", known.join(", ")),
            ));
        }
    }
    for (i, pod) in manifests.pods.iter().enumerate() {
        let node = pod.node_name.as_ref().and_then(|n| cluster.nodes.iter().find(|x| &*x.name == n.as_str()));
        if let Some(w) = node.and_then(|node| no_execute_warning(pod, node)) {
            warnings.push(manifests.problem(i, "spec.nodeName", w).warn());
        }
        if let Some(n) = pod.node_name.as_ref().filter(|_| node.is_none()) {
            let nodes: Vec<&str> = cluster.nodes.iter().map(|x| &*x.name).collect();
            let message = format!(
                "{n:?} is not a node of the cluster profile {:?} (nodes: {}): remove spec.nodeName to let the \
                 scheduler place the pod, or run with a profile (--cluster) whose nodes include {n:?}",
                cluster.name,
                nodes.join(", ")
            );
            problems.push(manifests.problem(i, "spec.nodeName", message));
        }
    }
    problems.extend(clients::check_cluster_ips(&manifests, &cluster));
    let clients = clients::resolve(&manifests, &cluster, &scenario.traffic).unwrap_or_else(|mut p| {
        problems.append(&mut p);
        Vec::new()
    });
    if !problems.is_empty() {
        return Err(Error::Input(problems));
    }
    let mut behaviours = behaviours;
    let every: Vec<&Manifests> = std::iter::once(&manifests).chain(&applied).collect();
    let classes: Vec<StorageClass> = every.iter().flat_map(|m| m.storage_classes.iter().cloned()).collect();
    let (notes, unanswered) = inference::infer_all(&every, &mut behaviours);
    warnings.extend(notes);
    warnings.extend(assumed_port_warnings(&manifests, &behaviours));
    warnings.extend(assumed_exec_warnings(&manifests, &behaviours, &unanswered));
    let epoch_ns = epoch.as_nanosecond().max(0) as u128;
    let setup = Setup {
        pods: manifests.pods.into_iter().map(Arc::new).collect(),
        behaviours: Arc::new(behaviours),
        cluster: Arc::new(cluster),
        epoch_ns,
        actions: Arc::new(actions),
        gates: scenario.gates,
        services: manifests.services.into_iter().map(Arc::new).collect(),
        replica_sets: manifests.replica_sets.into_iter().map(Arc::new).collect(),
        deployments: manifests.deployments.into_iter().map(Arc::new).collect(),
        config: Arc::new(manifests.config),
        claims: manifests.claims.iter().map(|c| Arc::new(with_binding(c, &classes))).collect(),
        clients: Arc::new(clients),
        pdbs: manifests.pdbs.into_iter().map(Arc::new).collect(),
        jobs: manifests.jobs.into_iter().map(Arc::new).collect(),
        cronjobs: manifests.cronjobs.into_iter().map(Arc::new).collect(),
        stateful_sets: manifests
            .stateful_sets
            .iter()
            .map(|s| Arc::new(statefulsets::with_bindings(s, &classes)))
            .collect(),
        daemon_sets: manifests.daemon_sets.into_iter().map(Arc::new).collect(),
        max_events: crate::budget::DEFAULT_MAX_EVENTS,
        max_pods: crate::budget::DEFAULT_MAX_PODS,
    };
    Ok((setup, warnings))
}

/// A pod created on a node with a NoExecute taint it does not tolerate: its
/// kubelet rejects it (the admission's TaintToleration); the taint-eviction
/// controller, which would also delete it, is not simulated.
fn no_execute_warning(pod: &PodSpec, node: &crate::cluster::Node) -> Option<String> {
    let tolerations = pod.object.spec.as_ref().and_then(|s| s.tolerations.as_deref()).unwrap_or(&[]);
    let taint = crate::control::scheduler::untolerated_taint(&node.taints, tolerations, |t| t.effect == "NoExecute")?;
    let value = taint.value.as_deref().map(|v| format!("={v}")).unwrap_or_default();
    Some(format!(
        "node {:?} has the taint {}{value}:NoExecute, which the pod does not tolerate: its kubelet rejects the pod \
         (TaintToleration); the taint-eviction controller, which also deletes such a pod, is not simulated",
        node.name, taint.key
    ))
}

/// An exec probe or hook whose command no behaviour answers exits 0 (the
/// default app's answer): say so where it is written, never silently.
fn assumed_exec_warnings(
    manifests: &Manifests,
    behaviours: &Behaviours,
    unanswered: &inference::Unanswered,
) -> Vec<Problem> {
    use crate::spec::{Handler, HookHandler, HookKind, ProbeKind};
    let mut out = Vec::new();
    for (k, pod) in manifests.all_pod_specs().enumerate() {
        for (c, container) in pod.containers.iter().enumerate() {
            let name = &container.name;
            let mut execs: Vec<(String, String, &[String])> = Vec::new();
            for kind in ProbeKind::ALL {
                if let Some(Handler::Exec { command }) = container.probe(kind).map(|p| &p.handler) {
                    execs.push((format!("{}Probe", kind.as_str()), format!("{} probe", kind.as_str()), command));
                }
            }
            for (kind, field) in [(HookKind::PostStart, "postStart"), (HookKind::PreStop, "preStop")] {
                if let Some(HookHandler::Exec { command }) = container.hook(kind) {
                    execs.push((format!("lifecycle.{field}"), format!("{field} hook"), command));
                }
            }
            for (field, what, command) in execs {
                let command = command.join(" ");
                if behaviours.answers_exec_of(container, &command) {
                    continue;
                }
                let why = match unanswered.get(&(name.to_string(), command.clone())) {
                    Some(why) => format!(" (its script is read, but {why})"),
                    None => String::new(),
                };
                let message = format!(
                    "exec {what} {command:?} of container {name}: no behaviour gives its exit code{why}, \
                     so podsim assumes exit 0 (an `exec` entry in the behaviour file says otherwise)"
                );
                let path = format!("{}.{field}.exec.command", pod.api_path(c));
                out.push(manifests.pod_spec_problem(k, &path, message).warn());
            }
        }
    }
    out
}

/// A container that declares no containerPort, and whose behaviour names no
/// `ports`, is assumed to listen on the ports its own probes and hooks
/// target that no container of the pod declares — once per pod, by the
/// first such container (`PodSpec::assumed_ports`): say so where the probe
/// or hook names the port.
fn assumed_port_warnings(manifests: &Manifests, behaviours: &Behaviours) -> Vec<Problem> {
    let mut out = Vec::new();
    for (k, pod) in manifests.all_pod_specs().enumerate() {
        for (c, container) in pod.containers.iter().enumerate() {
            let name = &container.name;
            let names_ports =
                |n: &str| pod.container_index(n).is_some_and(|i| behaviours.names_ports_of(&pod.containers[i]));
            for a in pod.assumed_ports(c, names_ports) {
                let what = if a.field.contains("Probe.") { "probe" } else { "hook" };
                let port = a.port;
                let head = format!(
                    "container {name:?} declares no containerPort, nor does any other container of the pod declare {port}"
                );
                let message = match a.bound_by == c {
                    true => format!(
                        "{head}: podsim assumes its process listens on {port}, where this {what} connects \
                         (a behaviour's `ports` says otherwise)"
                    ),
                    false => format!(
                        "{head}: podsim assumes the process of container {:?}, whose own probe or hook targets \
                         it first, listens on {port}; this {what} reaches it through the pod's network namespace \
                         (a behaviour's `ports` says otherwise)",
                        pod.containers[a.bound_by].name
                    ),
                };
                out.push(manifests.pod_spec_problem(k, &a.field, message).warn());
            }
        }
    }
    out
}

/// A Deployment the manifests or an `apply` file declare, by name.
fn known_deployment(
    manifests: &Manifests,
    applied: &[Manifests],
    name: &str,
    field: &str,
    origin: &ActionOrigin,
) -> Result<Arc<str>, Problem> {
    let every = || std::iter::once(manifests).chain(applied).flat_map(|m| &m.deployments);
    if every().any(|d| d.name == name) {
        return Ok(Arc::from(name));
    }
    let known = listed(every().map(|d| d.name.as_str()));
    Err(origin.problem(field, format!("no Deployment named {name:?} in the manifests (Deployments: {known})")))
}

/// The Deployment or ReplicaSet a `delete` names: one the manifests or an
/// apply file declare, or (for a ReplicaSet, with a trailing `*`) the
/// oldest live one whose name starts so, found when the action runs (a
/// Deployment's ReplicaSets have generated names).
fn known_owner(
    manifests: &Manifests,
    applied: &[Manifests],
    kind: OwnerKind,
    name: &str,
    origin: &ActionOrigin,
) -> Result<Arc<str>, Problem> {
    let all = || std::iter::once(manifests).chain(applied);
    let names: Vec<&str> = match kind {
        OwnerKind::Deployment => return known_deployment(manifests, applied, name, "delete", origin),
        OwnerKind::ReplicaSet => all().flat_map(|m| &m.replica_sets).map(|r| r.name.as_str()).collect(),
        OwnerKind::StatefulSet => all().flat_map(|m| &m.stateful_sets).map(|s| s.name.as_str()).collect(),
        OwnerKind::DaemonSet => all().flat_map(|m| &m.daemon_sets).map(|d| d.name.as_str()).collect(),
        OwnerKind::Job => all().flat_map(|m| &m.jobs).map(|j| j.name.as_str()).collect(),
        OwnerKind::CronJob => all().flat_map(|m| &m.cronjobs).map(|c| c.name.as_str()).collect(),
    };
    // A controller's objects are named by prefix: a Deployment's ReplicaSets, a CronJob's Jobs.
    let by_prefix = matches!(kind, OwnerKind::ReplicaSet | OwnerKind::Job) && name.ends_with('*');
    if by_prefix || names.contains(&name) {
        return Ok(Arc::from(name));
    }
    let (what, hint) = match kind {
        OwnerKind::ReplicaSet => ("ReplicaSet", "; a Deployment's are named by prefix, e.g. replicaset/web-*"),
        OwnerKind::Job => ("Job", "; a CronJob's are named by prefix, e.g. job/report-*"),
        OwnerKind::StatefulSet => ("StatefulSet", ""),
        OwnerKind::DaemonSet => ("DaemonSet", ""),
        OwnerKind::CronJob | OwnerKind::Deployment => ("CronJob", ""),
    };
    let message = format!("no {what} named {name:?} in the manifests ({what}s: {}){hint}", listed(names.into_iter()));
    Err(origin.problem("delete", message))
}

/// A node a scenario adds joins once, and nothing acts on it before it
/// has joined.
fn joining_nodes(actions: &[(Timed, ActionOrigin)], problems: &mut Vec<Problem>) {
    let mut joins: Vec<(&str, SimTime)> = Vec::new();
    for (timed, origin) in actions {
        if let Action::Node { node, fault: NodeFault::Join } = &timed.action {
            match joins.iter().find(|(n, _)| n == node) {
                Some((_, at)) => problems.push(
                    origin.problem("addNode", format!("node/{node} joins already at {at}: a node is added once")),
                ),
                None => joins.push((node, timed.at)),
            }
        }
    }
    for (timed, origin) in actions {
        let (node, field) = match &timed.action {
            Action::Cordon { node, unschedulable: true } => (node.as_str(), "cordon"),
            Action::Cordon { node, unschedulable: false } => (node.as_str(), "uncordon"),
            Action::Drain(options) => (options.node.as_str(), "drain"),
            Action::Node { fault: NodeFault::Join, .. } => continue,
            Action::Node { node, fault } => (node.as_str(), fault.key()),
            _ => continue,
        };
        if let Some((_, at)) = joins.iter().find(|(n, at)| *n == node && timed.at <= *at) {
            let message = format!("node/{node} joins at {at} (addNode): before then there is no node to {field}");
            problems.push(origin.problem(field, message));
        }
    }
}

/// Names for a message: each once, in order, or "none".
fn listed<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let mut once: Vec<&str> = Vec::new();
    for n in names {
        if !once.contains(&n) {
            once.push(n);
        }
    }
    if once.is_empty() { "none".into() } else { once.join(", ") }
}

/// The claim with the binding mode of its StorageClass (`BindingMode::of`),
/// and, naming none, the default class's name where the manifests declare
/// one, as the DefaultStorageClass admission plugin sets it (`admit`).
fn with_binding(c: &ClaimSpec, classes: &[StorageClass]) -> ClaimSpec {
    let storage_class = c.storage_class.clone().or_else(|| classes.iter().find(|k| k.default).map(|k| k.name.clone()));
    ClaimSpec { binding: BindingMode::of(c.storage_class.as_deref(), classes), storage_class, ..c.clone() }
}

/// The objects of an `apply` file: Deployments, created or given a new spec
/// (whose selector is immutable, `ValidateDeploymentUpdate`), and new
/// ReplicaSets. `applied` are the apply files before it.
fn resolve_apply(
    manifests: &Manifests,
    applied: &[Manifests],
    file: &std::path::Path,
    origin: &ActionOrigin,
) -> Result<(Manifests, Vec<SimAction>), Problem> {
    let source = crate::scenario::read_file(file).map_err(|e| origin.problem("apply", e.to_string()))?;
    let loaded = Manifests::read_in(&[source], manifests.namespace.as_deref())
        .map_err(|e| origin.problem("apply", e.to_string()))?;
    let objects = loaded.stateful_sets.len()
        + loaded.deployments.len()
        + loaded.replica_sets.len()
        + loaded.config.len()
        + loaded.pods.len()
        + loaded.services.len()
        + loaded.namespaces.len()
        + loaded.claims.len()
        + loaded.storage_classes.len()
        + loaded.jobs.len()
        + loaded.daemon_sets.len()
        + loaded.read.len();
    if objects == 0 && loaded.pdbs.is_empty() && loaded.cronjobs.is_empty() {
        return Err(origin.problem("apply", format!("{}: the file holds no object", file.display())));
    }
    if let Some(c) = loaded.cronjobs.first() {
        let message = format!(
            "{}: cronjob/{}: a CronJob comes with the run's manifests; applying one later is not simulated",
            file.display(),
            c.name
        );
        return Err(origin.problem("apply", message));
    }
    if let Some(b) = loaded.pdbs.first() {
        let message = format!(
            "{}: poddisruptionbudget/{}: a PodDisruptionBudget comes with the run's manifests; applying one later is not simulated",
            file.display(),
            b.name
        );
        return Err(origin.problem("apply", message));
    }
    let earlier = || std::iter::once(manifests).chain(applied);
    let name: Arc<str> = Arc::from(file.display().to_string());
    let mut out = Vec::new();
    for (i, d) in loaded.deployments.iter().enumerate() {
        let before = earlier().flat_map(|m| &m.deployments).find(|m| m.name == d.name && m.namespace == d.namespace);
        if let Some(before) = before.filter(|b| b.selector != d.selector) {
            let value = crate::manifest::workloads::go_map(Some(&d.selector));
            let message = format!(
                "Invalid value: v1.LabelSelector{{MatchLabels:{value}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}}: field is immutable (the Deployment {:?} has the selector {})",
                d.name,
                crate::manifest::workloads::go_map(Some(&before.selector)),
            );
            return Err(loaded.deployment_problem(i, "spec.selector", message));
        }
        out.push(SimAction::Apply { file: name.clone(), object: Applied::Deployment(Arc::new(d.clone())) });
    }
    for (i, r) in loaded.replica_sets.iter().enumerate() {
        if earlier().flat_map(|m| &m.replica_sets).any(|m| m.name == r.name && m.namespace == r.namespace) {
            let message = format!(
                "replicasets.apps {:?} already exists: an apply file's ReplicaSets are created; updating one is not simulated",
                r.name
            );
            return Err(loaded.replica_set_problem(i, "metadata.name", message));
        }
        out.push(SimAction::Apply { file: name.clone(), object: Applied::ReplicaSet(Arc::new(r.clone())) });
    }
    for (i, j) in loaded.jobs.iter().enumerate() {
        let before = earlier().flat_map(|m| &m.jobs).find(|m| m.name == j.name && m.namespace == j.namespace);
        if let Some(before) = before
            .filter(|b| b.object.spec.as_ref().map(|s| &s.template) != j.object.spec.as_ref().map(|s| &s.template))
        {
            let message = format!(
                "Invalid value: the Job {:?} exists with another template: field is immutable (only suspend, parallelism and a few scheduling fields may change)",
                before.name
            );
            return Err(loaded.job_problem(i, "spec.template", message));
        }
        out.push(SimAction::Apply { file: name.clone(), object: Applied::Job(Arc::new(j.clone())) });
    }
    for (i, d) in loaded.daemon_sets.iter().enumerate() {
        // `ValidateDaemonSetSpecUpdate`: the selector of apps/v1 is immutable.
        let before = earlier().flat_map(|m| &m.daemon_sets).find(|m| m.name == d.name && m.namespace == d.namespace);
        if let Some(before) = before.filter(|b| b.object.spec.selector != d.object.spec.selector) {
            let selector = crate::manifest::workloads::go_string(&d.object.spec.selector);
            let message =
                format!("Invalid value: {selector}: field is immutable (the DaemonSet {:?} exists)", before.name);
            return Err(loaded.daemon_set_problem(i, "spec.selector", message));
        }
        out.push(SimAction::Apply { file: name.clone(), object: Applied::DaemonSet(Arc::new(d.clone())) });
    }
    for c in &loaded.config {
        out.push(SimAction::Apply { file: name.clone(), object: Applied::Config(Arc::new(c.clone())) });
    }
    let classes: Vec<StorageClass> =
        earlier().chain([&loaded]).flat_map(|m| m.storage_classes.iter().cloned()).collect();
    for (i, set) in loaded.stateful_sets.iter().enumerate() {
        let before =
            earlier().flat_map(|m| &m.stateful_sets).rfind(|m| m.name == set.name && m.namespace == set.namespace);
        if let Some(message) = before.and_then(|b| statefulsets::forbidden_update(b, set)) {
            return Err(loaded.stateful_set_problem(i, "spec", message));
        }
        let object = Applied::StatefulSet(Arc::new(statefulsets::with_bindings(set, &classes)));
        out.push(SimAction::Apply { file: name.clone(), object });
    }
    for c in &loaded.claims {
        out.push(SimAction::Apply { file: name.clone(), object: Applied::Claim(Arc::new(with_binding(c, &classes))) });
    }
    // Pods and Services are created; one that exists already would be
    // updated, which apply does not simulate (a `patch` action patches a pod).
    for (i, p) in loaded.pods.iter().enumerate() {
        if earlier().flat_map(|m| &m.pods).any(|m| m.name == p.name && m.namespace == p.namespace) {
            let message = format!(
                "pods {:?} already exists: an apply file's Pods are created; updating one is not simulated (a `patch` action changes a pod)",
                p.name
            );
            return Err(loaded.problem(i, "metadata.name", message));
        }
        out.push(SimAction::Apply { file: name.clone(), object: Applied::Pod(Arc::new(p.clone())) });
    }
    for (i, s) in loaded.services.iter().enumerate() {
        if earlier().flat_map(|m| &m.services).any(|m| m.name == s.name && m.namespace == s.namespace) {
            let message = format!(
                "services {:?} already exists: an apply file's Services are created; updating one is not simulated",
                s.name
            );
            return Err(loaded.service_problem(i, "metadata.name", message));
        }
        out.push(SimAction::Apply { file: name.clone(), object: Applied::Service(Arc::new(s.clone())) });
    }
    Ok((loaded, out))
}

fn resolve_action(
    pods: &[PodSpec],
    action: &Action,
    origin: &ActionOrigin,
) -> Result<(SimAction, Option<Problem>), Problem> {
    let field = match action {
        Action::Delete { .. } => "delete",
        Action::SetCondition { .. } => "setCondition.pod",
        Action::Kill { .. } => "kill",
        Action::Apply { .. } => "apply",
        Action::Scale { .. } => "scale",
        Action::Undo { .. } => "undo",
        Action::Patch { .. } => "patch",
        Action::DeleteOwner { .. } => "delete",
        Action::Cordon { unschedulable: true, .. } => "cordon",
        Action::Cordon { .. } => "uncordon",
        Action::Evict { .. } => "evict",
        Action::Drain(_) => "drain",
        Action::Node { fault, .. } => fault.key(),
        Action::ScaleStatefulSet { .. } => "scale",
    };
    let name = action.pod().unwrap_or_default();
    let Some(index) = pods.iter().position(|p| p.name == name) else {
        let known: Vec<&str> = pods.iter().map(|p| p.name.as_str()).collect();
        return Err(
            origin.problem(field, format!("no pod named {name:?} in the manifests (pods: {})", known.join(", ")))
        );
    };
    let pod = PodId(index as u32);
    let spec = &pods[index];
    match action {
        Action::Delete { grace_period_seconds, .. } => {
            Ok((SimAction::Delete { pod, grace_period_seconds: *grace_period_seconds }, None))
        }
        Action::SetCondition { condition, status, .. } => {
            if let Some(e) = qualified_name_errors(condition).first() {
                return Err(origin.problem("setCondition.type", format!("{condition:?}: {e}")));
            }
            let owned = ["PodScheduled", "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady"];
            if owned.contains(&condition.as_str()) {
                let message = format!(
                    "{condition:?} is a condition the kubelet owns and rewrites at its next sync; set a readiness gate's condition instead"
                );
                return Err(origin.problem("setCondition.type", message));
            }
            let warning = (!spec.readiness_gates.contains(condition)).then(|| {
                origin
                    .problem(
                        "setCondition.type",
                        format!("pod {name:?} has no readiness gate {condition:?}: the condition is stored but changes nothing"),
                    )
                    .warn()
            });
            Ok((SimAction::SetCondition { pod, condition: Arc::from(condition.as_str()), status: *status }, warning))
        }
        Action::Kill { container, signal, .. } => match spec.container_index(container) {
            Some(c) => Ok((SimAction::Kill { pod, container: c, signal: *signal }, None)),
            None => {
                let known: Vec<&str> = spec.containers.iter().map(|c| &*c.name).collect();
                Err(origin.problem(
                    "kill",
                    format!("pod {name:?} has no container {container:?} (containers: {})", known.join(", ")),
                ))
            }
        },
        Action::Evict { grace_period_seconds, .. } => {
            Ok((SimAction::Evict { pod: PodRef::Id(pod), grace_period_seconds: *grace_period_seconds }, None))
        }
        Action::Patch { patch, .. } => match patch.unknown_container(spec) {
            None => Ok((SimAction::Patch { pod, patch: Arc::new(patch.clone()) }, None)),
            Some(message) => Err(origin.problem("patch", message)),
        },
        // `setup` resolves the Deployment actions before pods are looked up.
        Action::Apply { .. }
        | Action::Scale { .. }
        | Action::Undo { .. }
        | Action::DeleteOwner { .. }
        | Action::Drain(_)
        | Action::Cordon { .. }
        | Action::Node { .. }
        | Action::ScaleStatefulSet { .. } => Err(origin.problem(field, "this action names no pod".into())),
    }
}

/// The index of the profile's node an action names, or the problem.
fn known_node(cluster: &Cluster, node: &str, field: &str, origin: &ActionOrigin) -> Result<usize, Problem> {
    cluster.nodes.iter().position(|n| *n.name == *node).ok_or_else(|| {
        let known: Vec<&str> = cluster.nodes.iter().map(|n| &*n.name).collect();
        let message = format!("no node named {node:?} in the cluster profile (nodes: {})", known.join(", "));
        origin.problem(field, message)
    })
}

/// Simulates `setup` with `seed` until `until`.
pub fn simulate(setup: &Setup, seed: u64, until: SimTime) -> Trace {
    World::new(setup, seed).run(until)
}

/// The same run, `watch` told its simulated time now and then ([`World::run_watched`]).
pub fn simulate_watched(setup: &Setup, seed: u64, until: SimTime, watch: &mut dyn FnMut(SimTime)) -> Trace {
    World::new(setup, seed).run_watched(until, watch).0
}

/// The same run, its trace keeping only what milestones and state
/// functions read (`Keep::State`): one run of a sweep.
pub fn simulate_state(setup: &Setup, seed: u64, until: SimTime) -> Trace {
    World::keeping(setup, seed, Keep::State).run(until)
}

/// Adds what `kubectl rollout status deployment/NAME --timeout=T` (or
/// `daemonset/NAME`) printed, run right after each rollout (`apply`
/// action) of the setup.
pub fn add_rollout_status(trace: &mut Trace, setup: &Setup, timeout: SimDuration) {
    for a in setup.actions.iter() {
        let (kind, name, lines) = match &a.action {
            SimAction::Apply { object: Applied::Deployment(d), .. } => {
                ("deployment", &d.name, crate::kubectl::rollout_watch::watch(trace, &d.name, a.at, Some(timeout)))
            }
            SimAction::Apply { object: Applied::DaemonSet(d), .. } => {
                let lines = crate::kubectl::rollout_status_daemonset::watch(trace, &d.name, a.at, Some(timeout));
                ("daemonset", &d.name, lines)
            }
            // An apply after the run's end never ran: nothing to watch.
            SimAction::Apply { object: Applied::StatefulSet(set), .. }
                if trace.entries.last().is_some_and(|e| e.t >= a.at) =>
            {
                let lines = crate::kubectl::rollout_statefulset::watch(trace, &set.name, a.at, Some(timeout));
                ("statefulset", &set.name, lines)
            }
            _ => continue,
        };
        let command: Arc<str> = Arc::from(format!("kubectl rollout status {kind}/{name} --timeout={timeout}"));
        for (t, verdict) in lines {
            let exit = verdict.exit_code();
            let line = match verdict {
                Verdict::Waiting(l) | Verdict::Done(l) | Verdict::Failed(l) => l,
            };
            trace.insert(t, Record::Kubectl { command: command.clone(), line, exit });
        }
    }
}
