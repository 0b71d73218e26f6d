//! Manifests: multi-document YAML or JSON (and `kind: List`), decoded into the
//! real API types, defaulted and validated as the API server would, then
//! turned into the simulator's typed [`PodSpec`] and [`ServiceSpec`].

mod build;
mod claims;
mod defaults;
mod disruption;
pub mod field;
pub mod files;
pub mod kinds;
mod names;
pub mod overlap;
mod pod_update;
mod pod_warnings;
mod quantities;
mod references;
mod resources;
mod server_written;

pub use names::qualified_name_errors;
pub use pod_update::validate_pod_update;
mod service;
mod strict;
mod unsupported;
mod validation;
pub mod workloads;

use crate::api::config::ConfigObject;
use crate::error::{Error, Problem, SourceFile};
use crate::source::{Doc, decode_value, parse_documents};
use crate::spec::{ClaimSpec, ConfigKind, StorageClass};
use crate::spec::{DeploymentSpec, PodSpec, ReplicaSetSpec, ServiceSpec};
use k8s_openapi::api::core::v1::Pod;
use kinds::Handling;
use serde_json::Value;
use std::sync::Arc;

/// Everything the manifests declare that podsim simulates, plus warnings.
#[derive(Debug, Default)]
pub struct Manifests {
    pub pods: Vec<PodSpec>,
    pub services: Vec<ServiceSpec>,
    pub replica_sets: Vec<ReplicaSetSpec>,
    pub deployments: Vec<DeploymentSpec>,
    pub warnings: Vec<Problem>,
    /// The objects read but not simulated, as `(kind, name)`.
    pub read: Vec<(String, String)>,
    /// The ConfigMaps and Secrets among them, with their keys.
    pub config: Vec<ConfigObject>,
    /// The Namespaces the manifests create.
    pub namespaces: Vec<String>,
    /// The PersistentVolumeClaims, their binding mode resolved by the run.
    pub claims: Vec<ClaimSpec>,
    pub storage_classes: Vec<StorageClass>,
    /// The PodDisruptionBudgets.
    pub pdbs: Vec<crate::spec::PdbSpec>,
    pub jobs: Vec<crate::spec::JobSpec>,
    pub cronjobs: Vec<crate::spec::CronJobSpec>,
    pub daemon_sets: Vec<crate::spec::DaemonSetSpec>,
    /// The `--namespace` they were read in, if one was given.
    pub namespace: Option<String>,
    /// Where each pod was written (document and `items[i]` prefix).
    origins: Vec<(Doc, String)>,
    /// Where each service was written.
    service_origins: Vec<(Doc, String)>,
    /// Where each ReplicaSet and each Deployment was written.
    replica_set_origins: Vec<(Doc, String)>,
    deployment_origins: Vec<(Doc, String)>,
    job_origins: Vec<(Doc, String)>,
    cronjob_origins: Vec<(Doc, String)>,
    /// The StatefulSets.
    pub stateful_sets: Vec<crate::spec::StatefulSetSpec>,
    stateful_set_origins: Vec<(Doc, String)>,
    daemon_set_origins: Vec<(Doc, String)>,
}

impl Manifests {
    /// Every pod the run can have: the manifests' Pods and the templates of
    /// their ReplicaSets, Deployments and Jobs.
    pub fn all_pod_specs(&self) -> impl Iterator<Item = &PodSpec> {
        let templates =
            self.replica_sets.iter().map(|r| &r.template).chain(self.deployments.iter().map(|d| &d.template));
        let templates = templates.chain(self.jobs.iter().map(|j| &j.template));
        let templates = templates.chain(self.cronjobs.iter().map(|c| &c.job.template));
        let templates = templates.chain(self.stateful_sets.iter().map(|s| &s.template));
        let templates = templates.chain(self.daemon_sets.iter().map(|d| &d.template));
        self.pods.iter().chain(templates.map(|t| &t.pod))
    }

    /// Where the `k`-th pod spec of `all_pod_specs` is written, and the
    /// path of its pod spec there.
    fn pod_spec_origin(&self, k: usize) -> (&(Doc, String), &'static str) {
        let (pods, sets, deployments) = (self.pods.len(), self.replica_sets.len(), self.deployments.len());
        match k {
            k if k < pods => (&self.origins[k], "spec"),
            k if k < pods + sets => (&self.replica_set_origins[k - pods], "spec.template.spec"),
            k if k < pods + sets + deployments => (&self.deployment_origins[k - pods - sets], "spec.template.spec"),
            k if k < pods + sets + deployments + self.jobs.len() => {
                (&self.job_origins[k - pods - sets - deployments], "spec.template.spec")
            }
            k if k < pods + sets + deployments + self.jobs.len() + self.cronjobs.len() => (
                &self.cronjob_origins[k - pods - sets - deployments - self.jobs.len()],
                "spec.jobTemplate.spec.template.spec",
            ),
            k if k < pods + sets + deployments + self.jobs.len() + self.cronjobs.len() + self.stateful_sets.len() => (
                &self.stateful_set_origins[k - pods - sets - deployments - self.jobs.len() - self.cronjobs.len()],
                "spec.template.spec",
            ),
            k => (
                &self.daemon_set_origins
                    [k - pods - sets - deployments - self.jobs.len() - self.cronjobs.len() - self.stateful_sets.len()],
                "spec.template.spec",
            ),
        }
    }

    /// A problem about field `path` of the `pod`-th pod, located in its file.
    pub fn problem(&self, pod: usize, path: &str, message: impl Into<String>) -> Problem {
        let (doc, prefix) = &self.origins[pod];
        doc.problem(&join(prefix, path), message)
    }

    /// A problem about field `path` (relative to the pod spec: `containers[0]`)
    /// of the `k`-th pod spec of `all_pod_specs`, located in its file.
    pub fn pod_spec_problem(&self, k: usize, path: &str, message: impl Into<String>) -> Problem {
        let ((doc, prefix), spec) = self.pod_spec_origin(k);
        doc.problem(&join(prefix, &format!("{spec}.{path}")), message)
    }

    /// The object the `k`-th pod spec of `all_pod_specs` belongs to, as
    /// kubectl names it: `pod/web`, `replicaset/web`, `deployment/web`.
    pub fn pod_spec_owner(&self, k: usize) -> String {
        let (pods, sets, deployments) = (self.pods.len(), self.replica_sets.len(), self.deployments.len());
        match k {
            k if k < pods => format!("pod/{}", self.pods[k].name),
            k if k < pods + sets => format!("replicaset/{}", self.replica_sets[k - pods].name),
            k if k < pods + sets + deployments => format!("deployment/{}", self.deployments[k - pods - sets].name),
            k if k < pods + sets + deployments + self.jobs.len() => {
                format!("job/{}", self.jobs[k - pods - sets - deployments].name)
            }
            k if k < pods + sets + deployments + self.jobs.len() + self.cronjobs.len() => {
                format!("cronjob/{}", self.cronjobs[k - pods - sets - deployments - self.jobs.len()].name)
            }
            k if k < pods + sets + deployments + self.jobs.len() + self.cronjobs.len() + self.stateful_sets.len() => {
                format!(
                    "statefulset/{}",
                    self.stateful_sets[k - pods - sets - deployments - self.jobs.len() - self.cronjobs.len()].name
                )
            }
            k => format!(
                "daemonset/{}",
                self.daemon_sets
                    [k - pods - sets - deployments - self.jobs.len() - self.cronjobs.len() - self.stateful_sets.len()]
                .name
            ),
        }
    }

    /// A problem about field `path` of the `i`-th Job, located in its file.
    pub fn job_problem(&self, i: usize, path: &str, message: impl Into<String>) -> Problem {
        let (doc, prefix) = &self.job_origins[i];
        doc.problem(&join(prefix, path), message)
    }

    /// A problem about field `path` of the `i`-th DaemonSet, located in its file.
    pub fn daemon_set_problem(&self, i: usize, path: &str, message: impl Into<String>) -> Problem {
        let (doc, prefix) = &self.daemon_set_origins[i];
        doc.problem(&join(prefix, path), message)
    }

    /// A problem about field `path` of the `service`-th service, located in its file.
    pub fn service_problem(&self, service: usize, path: &str, message: impl Into<String>) -> Problem {
        let (doc, prefix) = &self.service_origins[service];
        doc.problem(&join(prefix, path), message)
    }

    /// A problem about field `path` of the `i`-th ReplicaSet, located in its file.
    pub fn replica_set_problem(&self, i: usize, path: &str, message: impl Into<String>) -> Problem {
        let (doc, prefix) = &self.replica_set_origins[i];
        doc.problem(&join(prefix, path), message)
    }

    /// A problem about field `path` of the `i`-th Deployment, located in its file.
    pub fn deployment_problem(&self, i: usize, path: &str, message: impl Into<String>) -> Problem {
        let (doc, prefix) = &self.deployment_origins[i];
        doc.problem(&join(prefix, path), message)
    }

    /// A problem about field `path` of the `i`-th StatefulSet, located in its file.
    pub fn stateful_set_problem(&self, i: usize, path: &str, message: impl Into<String>) -> Problem {
        let (doc, prefix) = &self.stateful_set_origins[i];
        doc.problem(&join(prefix, path), message)
    }

    /// Reads every object of every file; all problems are reported together.
    pub fn load(files: &[Arc<SourceFile>]) -> Result<Manifests, Error> {
        Manifests::load_in(files, None)
    }

    /// As [`load`](Self::load), with kubectl's `--namespace`: the namespace
    /// of every object that names none, and the only one an object may name.
    pub fn load_in(files: &[Arc<SourceFile>], namespace: Option<&str>) -> Result<Manifests, Error> {
        let out = Manifests::read_in(files, namespace)?;
        let workloads = out.replica_sets.len()
            + out.deployments.len()
            + out.jobs.len()
            + out.cronjobs.len()
            + out.stateful_sets.len()
            + out.daemon_sets.len();
        if out.pods.is_empty() && workloads == 0 {
            let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
            let message = format!(
                "the manifests declare no Pod: podsim needs one to simulate, or a workload that makes pods (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob); read: {}",
                if names.is_empty() { "no file".to_string() } else { names.join(", ") }
            );
            let mut problems = vec![Problem::error(message)];
            problems.extend(out.warnings);
            return Err(Error::Input(problems));
        }
        Ok(out)
    }

    /// As [`load_in`](Self::load_in), for objects applied to a running
    /// cluster: they need not declare a pod.
    pub fn read_in(files: &[Arc<SourceFile>], namespace: Option<&str>) -> Result<Manifests, Error> {
        let mut out = Manifests { namespace: namespace.map(str::to_string), ..Manifests::default() };
        let mut problems = Vec::new();
        for file in files {
            let docs = match parse_documents(file) {
                Ok(d) => d,
                Err(Error::Input(mut p)) => {
                    problems.append(&mut p);
                    continue;
                }
                Err(e) => return Err(e),
            };
            for doc in &docs {
                read_document(doc, namespace, &mut out, &mut problems);
            }
        }
        problems.extend(out.target_port_warnings());
        problems.extend(references::missing_config(&out));
        problems.extend(claims::missing_claims(&out));
        if let Some(note) = read_note(&out.read) {
            problems.push(note);
        }
        if problems.iter().any(Problem::is_error) {
            problems.extend(out.warnings);
            return Err(Error::Input(problems));
        }
        out.warnings.extend(problems);
        Ok(out)
    }
}

fn read_document(doc: &Doc, namespace: Option<&str>, out: &mut Manifests, problems: &mut Vec<Problem>) {
    let json = doc.to_json();
    if json.get("kind").and_then(Value::as_str) == Some("List") {
        match json.get("items") {
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let prefix = format!("items[{i}]");
                    if let Some(item) = in_namespace(doc, item.clone(), &prefix, namespace, problems) {
                        read_object(doc, item, &prefix, out, problems);
                    }
                }
            }
            _ => problems.push(doc.problem("items", "Required value: a List needs `items`")),
        }
    } else if let Some(json) = in_namespace(doc, json, "", namespace, problems) {
        read_object(doc, json, "", out, problems);
    }
}

/// The namespaces every cluster has.
pub const BUILT_IN_NAMESPACES: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

/// kubectl's `--namespace` on one object podsim simulates: it goes there
/// when it names no namespace, and may name no other
/// (`EnforceNamespace`). `None` after an error.
fn in_namespace(
    doc: &Doc,
    mut json: Value,
    prefix: &str,
    namespace: Option<&str>,
    problems: &mut Vec<Problem>,
) -> Option<Value> {
    let Some(ns) = namespace else { return Some(json) };
    let api_version = json.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = json.get("kind").and_then(Value::as_str).unwrap_or("");
    if kinds::handling(api_version, kind) != Handling::Simulated || matches!(kind, "Namespace" | "StorageClass") {
        return Some(json);
    }
    let Some(meta) = json.get_mut("metadata").and_then(Value::as_object_mut) else { return Some(json) };
    match meta.get("namespace").and_then(Value::as_str) {
        None | Some("") => {
            meta.insert("namespace".into(), Value::String(ns.to_string()));
        }
        Some(own) if own != ns => {
            let message = format!(
                "the namespace from the provided object {own:?} does not match the namespace {ns:?}. \
                 You must pass '--namespace={own}' to perform this operation."
            );
            problems.push(doc.problem(&join(prefix, "metadata.namespace"), message));
            return None;
        }
        Some(_) => {}
    }
    Some(json)
}

/// Joins a prefix (`items[2]`) and a field path (`spec.containers[0]`).
pub(crate) fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}.{path}"),
    }
}

fn read_object(doc: &Doc, json: Value, prefix: &str, out: &mut Manifests, problems: &mut Vec<Problem>) {
    let api_version = json.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = json.get("kind").and_then(Value::as_str).unwrap_or("");
    match (api_version, kind) {
        (_, "") => problems.push(doc.problem(&join(prefix, "kind"), "Object 'Kind' is missing")),
        ("", _) => problems.push(doc.problem(&join(prefix, "apiVersion"), "Object 'apiVersion' is missing")),
        ("v1", "PersistentVolumeClaim") => claims::read_claim(doc, &json, prefix, out, problems),
        ("storage.k8s.io/v1", "StorageClass") => claims::read_storage_class(doc, &json, prefix, out, problems),
        ("policy/v1", "PodDisruptionBudget") => disruption::read_pdb(doc, json, prefix, out, problems),
        ("v1", "ConfigMap" | "Secret") => {
            let meta = json.get("metadata");
            let name = meta.and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("");
            let ns = meta.and_then(|m| m.get("namespace")).and_then(Value::as_str).filter(|n| !n.is_empty());
            let kind = if kind == "Secret" { ConfigKind::Secret } else { ConfigKind::ConfigMap };
            if name.is_empty() {
                problems.push(
                    doc.problem(&join(prefix, "metadata.name"), "Required value: name or generateName is required"),
                );
            } else {
                out.config.push(ConfigObject::from_manifest(kind, ns.unwrap_or("default"), name, &json));
            }
        }
        ("v1", "Namespace") => {
            let name = json.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
            // The same Namespace in several files is one (`kubectl apply`
            // leaves it unchanged).
            if name.is_empty() {
                problems.push(doc.problem(&join(prefix, "metadata.name"), "Required value: name is required"));
            } else if !out.namespaces.iter().any(|n| n == name) {
                out.namespaces.push(name.to_string());
            }
        }
        ("v1", "Pod") => {
            if let Some(pod) = read_pod(doc, json, prefix, problems) {
                if out.pods.iter().any(|p| p.name == pod.name && p.namespace == pod.namespace) {
                    problems.push(
                        doc.problem(&join(prefix, "metadata.name"), format!("pods {:?} already exists", pod.name)),
                    );
                } else {
                    out.pods.push(pod);
                    out.origins.push((doc.clone(), prefix.to_string()));
                }
            }
        }
        ("v1", "Service") => {
            if let Some(service) = service::read_service(doc, json, prefix, problems) {
                if out.services.iter().any(|s| s.name == service.name && s.namespace == service.namespace) {
                    problems.push(doc.problem(
                        &join(prefix, "metadata.name"),
                        format!("services {:?} already exists", service.name),
                    ));
                } else {
                    out.services.push(service);
                    out.service_origins.push((doc.clone(), prefix.to_string()));
                }
            }
        }
        // Validated as the API server would, so a user sees what a cluster
        // would refuse; the controllers that run them are not simulated yet.
        ("apps/v1", "ReplicaSet") => {
            if let Some(rs) = workloads::read_replica_set(doc, json, prefix, problems) {
                if out.replica_sets.iter().any(|r| r.name == rs.name && r.namespace == rs.namespace) {
                    let message = format!("replicasets.apps {:?} already exists", rs.name);
                    problems.push(doc.problem(&join(prefix, "metadata.name"), message));
                } else {
                    out.replica_sets.push(rs);
                    out.replica_set_origins.push((doc.clone(), prefix.to_string()));
                }
            }
        }
        ("apps/v1", "Deployment") => {
            if let Some(d) = workloads::read_deployment(doc, json, prefix, problems) {
                if out.deployments.iter().any(|x| x.name == d.name && x.namespace == d.namespace) {
                    let message = format!("deployments.apps {:?} already exists", d.name);
                    problems.push(doc.problem(&join(prefix, "metadata.name"), message));
                } else {
                    out.deployments.push(d);
                    out.deployment_origins.push((doc.clone(), prefix.to_string()));
                }
            }
        }
        ("batch/v1", "Job") => {
            if let Some(j) = workloads::read_job(doc, json, prefix, problems) {
                if out.jobs.iter().any(|x| x.name == j.name && x.namespace == j.namespace) {
                    let message = format!("jobs.batch {:?} already exists", j.name);
                    problems.push(doc.problem(&join(prefix, "metadata.name"), message));
                } else {
                    out.jobs.push(j);
                    out.job_origins.push((doc.clone(), prefix.to_string()));
                }
            }
        }
        ("batch/v1", "CronJob") => {
            if let Some(c) = workloads::read_cronjob(doc, json, prefix, problems) {
                if out.cronjobs.iter().any(|x| x.name == c.name && x.namespace == c.namespace) {
                    let message = format!("cronjobs.batch {:?} already exists", c.name);
                    problems.push(doc.problem(&join(prefix, "metadata.name"), message));
                } else {
                    out.cronjobs.push(c);
                    out.cronjob_origins.push((doc.clone(), prefix.to_string()));
                }
            }
        }
        ("apps/v1", "StatefulSet") => {
            if let Some(set) = workloads::read_stateful_set(doc, json, prefix, problems) {
                if out.stateful_sets.iter().any(|x| x.name == set.name && x.namespace == set.namespace) {
                    let message = format!("statefulsets.apps {:?} already exists", set.name);
                    problems.push(doc.problem(&join(prefix, "metadata.name"), message));
                } else {
                    out.stateful_sets.push(set);
                    out.stateful_set_origins.push((doc.clone(), prefix.to_string()));
                }
            }
        }
        ("apps/v1", "DaemonSet") => {
            if let Some(d) = workloads::read_daemon_set(doc, json, prefix, problems) {
                if out.daemon_sets.iter().any(|x| x.name == d.name && x.namespace == d.namespace) {
                    let message = format!("daemonsets.apps {:?} already exists", d.name);
                    problems.push(doc.problem(&join(prefix, "metadata.name"), message));
                } else {
                    out.daemon_sets.push(d);
                    out.daemon_set_origins.push((doc.clone(), prefix.to_string()));
                }
            }
        }
        (_, "Pod" | "Service") => problems.push(doc.problem(
            &join(prefix, "apiVersion"),
            format!("no matches for kind {kind:?} in version {api_version:?} ({kind}s are apiVersion v1)"),
        )),
        _ => match kinds::handling(api_version, kind) {
            Handling::Read => {
                let meta = json.get("metadata");
                let name = meta.and_then(|m| m.get("name").or_else(|| m.get("generateName")));
                let name = name.and_then(Value::as_str).unwrap_or("").to_string();
                out.read.push((kind.to_string(), name));
            }
            Handling::Refused(why) => problems.push(doc.problem(
                &join(prefix, "kind"),
                format!("podsim does not simulate kind {kind} ({api_version}) yet: {why}"),
            )),
            // kubectl's words: the API server serves no such kind in that group.
            Handling::Unknown | Handling::Simulated => problems.push(
                doc.problem(&join(prefix, "kind"), format!("no matches for kind {kind:?} in version {api_version:?}")),
            ),
        },
    }
}

impl Manifests {
    /// The namespaces of the simulated objects that neither every cluster
    /// has nor a manifest creates (`known`), in the order they come: the
    /// run assumes they exist, as after `kubectl create namespace`.
    pub fn assumed_namespaces<'a>(&'a self, known: &[String], out: &mut Vec<&'a str>) {
        let namespaces = self.pods.iter().map(|p| p.namespace.as_str());
        let namespaces = namespaces.chain(self.services.iter().map(|s| s.namespace.as_str()));
        let namespaces = namespaces.chain(self.replica_sets.iter().map(|r| r.namespace.as_str()));
        let namespaces = namespaces.chain(self.jobs.iter().map(|j| j.namespace.as_str()));
        let namespaces = namespaces.chain(self.cronjobs.iter().map(|c| c.namespace.as_str()));
        let namespaces = namespaces.chain(self.deployments.iter().map(|d| d.namespace.as_str()));
        let namespaces = namespaces.chain(self.stateful_sets.iter().map(|s| s.namespace.as_str()));
        for ns in namespaces.chain(self.daemon_sets.iter().map(|d| d.namespace.as_str())) {
            let exists = BUILT_IN_NAMESPACES.contains(&ns) || known.iter().any(|k| k == ns);
            if !exists && !out.contains(&ns) {
                out.push(ns);
            }
        }
    }
}

/// What a run assumes of the namespaces no manifest creates, said once:
/// `NamespaceLifecycle` would refuse their objects in a cluster without them.
pub fn assumed_namespaces_note(assumed: &[&str]) -> Option<Problem> {
    let (first, names) = (assumed.first()?, assumed.join(", "));
    Some(Problem::note(format!(
        "assumed to exist, as no manifest creates them: namespace {names} (a cluster without them refuses their objects: namespaces {first:?} not found)"
    )))
}

/// The objects read but not simulated, said once, each kind with its
/// names in the order they came.
fn read_note(read: &[(String, String)]) -> Option<Problem> {
    let mut kinds: Vec<(&str, Vec<&str>)> = Vec::new();
    for (kind, name) in read {
        match kinds.iter_mut().find(|(k, _)| k == kind) {
            Some((_, names)) => names.push(name),
            None => kinds.push((kind, vec![name])),
        }
    }
    let listed: Vec<String> = kinds.iter().map(|(k, names)| format!("{k} {}", names.join(", "))).collect();
    (!listed.is_empty()).then(|| {
        Problem::note(format!(
            "read, not simulated (they do not change how pods start, serve or stop here): {}",
            listed.join("; ")
        ))
    })
}

fn read_pod(doc: &Doc, json: Value, prefix: &str, problems: &mut Vec<Problem>) -> Option<PodSpec> {
    let mut pod: Pod = match decode_value(doc, json.clone(), prefix) {
        Ok(p) => p,
        Err(e) => {
            problems.push(e);
            return None;
        }
    };
    let located = |path: &str, message: String| doc.problem(&join(prefix, path), message);
    let unknown = strict::unknown_fields(&json, &pod);
    for path in &unknown {
        let full = join(prefix, path);
        problems.push(
            Problem::error(format!("strict decoding error: unknown field {full:?}"))
                .in_file(&doc.file, Some(doc.locate_key(&full))),
        );
    }
    if !unknown.is_empty() {
        return None;
    }
    let no_spec = Default::default();
    let undecodable = quantities::undecodable(pod.spec.as_ref().unwrap_or(&no_spec), "spec", "Pod");
    if !undecodable.is_empty() {
        problems.extend(undecodable.into_iter().map(|(at, message)| located(&at, message)));
        return None;
    }
    defaults::apply_defaults(&mut pod);
    let errors = validation::validate_pod(&pod);
    let negative = pod.spec.as_ref().map(|s| quantities::negative(s, "spec")).unwrap_or_default();
    let had_errors = !errors.is_empty() || !negative.is_empty();
    for e in errors {
        problems.push(located(&e.path, e.body).field(join(prefix, &e.path)));
    }
    for (at, e) in negative {
        problems.push(located(&at, e.body).field(join(prefix, &e.path)));
    }
    for (path, severity, message) in unsupported::check(&pod) {
        let mut p = located(&path, message);
        p.severity = severity;
        problems.push(p);
    }
    if had_errors || problems.iter().any(Problem::is_error) {
        return None;
    }
    for (path, text) in pod.spec.as_ref().map(|s| pod_warnings::port_warnings(s, "spec")).unwrap_or_default() {
        // the text is the API server's, field path included
        let mut p = located(&path, text);
        p.field = None;
        p.severity = crate::error::Severity::Warning;
        problems.push(p);
    }
    let (spec, warnings) = build::pod_spec(pod);
    for (path, message) in warnings {
        let mut p = located(&path, message);
        p.severity = crate::error::Severity::Warning;
        problems.push(p);
    }
    Some(spec)
}
