//! The ConfigMaps and Secrets a pod references. The kubelet refuses to
//! start a container whose environment names a missing one
//! (`CreateContainerConfigError`) and keeps a pod whose volume needs one
//! `ContainerCreating` (`FailedMount`), unless the reference is `optional`.
//! podsim does not model either yet: a reference no manifest satisfies is
//! said where it is written, never passed over.

use super::Manifests;
use crate::error::Problem;
use k8s_openapi::api::core::v1::{Container, PodSpec as ApiPodSpec};

/// The two kinds a pod can reference for its configuration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConfigKind {
    ConfigMap,
    Secret,
}

impl ConfigKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigKind::ConfigMap => "ConfigMap",
            ConfigKind::Secret => "Secret",
        }
    }
}

/// How the pod uses what it references.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Use {
    Env,
    Volume,
}

/// A required reference: the field it is written in, the kind and the name.
struct Reference {
    field: String,
    kind: ConfigKind,
    name: String,
    used: Use,
}

/// The required references found so far.
#[derive(Default)]
struct Found(Vec<Reference>);

impl Found {
    /// The reference at `field`, unless it is `optional`.
    fn add(&mut self, field: String, kind: ConfigKind, name: &str, optional: Option<bool>, used: Use) {
        if optional != Some(true) {
            self.0.push(Reference { field, kind, name: name.to_string(), used });
        }
    }
}

/// Every required (not `optional`) ConfigMap and Secret reference of a pod spec.
fn references(spec: &ApiPodSpec) -> Vec<Reference> {
    use ConfigKind::{ConfigMap, Secret};
    let mut found = Found::default();
    let lists = [("initContainers", spec.init_containers.as_deref()), ("containers", Some(spec.containers.as_slice()))];
    for (list, containers) in lists {
        for (i, c) in containers.unwrap_or(&[]).iter().enumerate() {
            container_references(&format!("{list}[{i}]"), c, &mut found);
        }
    }
    for (i, v) in spec.volumes.iter().flatten().enumerate() {
        let at = format!("volumes[{i}]");
        if let Some(cm) = &v.config_map {
            found.add(format!("{at}.configMap.name"), ConfigMap, &cm.name, cm.optional, Use::Volume);
        }
        if let Some(s) = &v.secret {
            let name = s.secret_name.as_deref().unwrap_or("");
            found.add(format!("{at}.secret.secretName"), Secret, name, s.optional, Use::Volume);
        }
        for (j, source) in v.projected.iter().flat_map(|p| p.sources.iter().flatten()).enumerate() {
            let at = format!("{at}.projected.sources[{j}]");
            if let Some(cm) = &source.config_map {
                found.add(format!("{at}.configMap.name"), ConfigMap, &cm.name, cm.optional, Use::Volume);
            }
            if let Some(s) = &source.secret {
                found.add(format!("{at}.secret.name"), Secret, &s.name, s.optional, Use::Volume);
            }
        }
    }
    found.0
}

fn container_references(at: &str, c: &Container, found: &mut Found) {
    use ConfigKind::{ConfigMap, Secret};
    for (j, e) in c.env.iter().flatten().enumerate() {
        let Some(from) = &e.value_from else { continue };
        let at = format!("{at}.env[{j}].valueFrom");
        if let Some(r) = &from.config_map_key_ref {
            found.add(format!("{at}.configMapKeyRef.name"), ConfigMap, &r.name, r.optional, Use::Env);
        }
        if let Some(r) = &from.secret_key_ref {
            found.add(format!("{at}.secretKeyRef.name"), Secret, &r.name, r.optional, Use::Env);
        }
    }
    for (j, e) in c.env_from.iter().flatten().enumerate() {
        let at = format!("{at}.envFrom[{j}]");
        if let Some(r) = &e.config_map_ref {
            found.add(format!("{at}.configMapRef.name"), ConfigMap, &r.name, r.optional, Use::Env);
        }
        if let Some(r) = &e.secret_ref {
            found.add(format!("{at}.secretRef.name"), Secret, &r.name, r.optional, Use::Env);
        }
    }
}

/// A warning for each required reference no manifest of the pod's
/// namespace satisfies.
pub(super) fn missing_config(m: &Manifests) -> Vec<Problem> {
    let mut out = Vec::new();
    for (k, pod) in m.all_pod_specs().enumerate() {
        let Some(spec) = pod.object.spec.as_ref() else { continue };
        for r in references(spec) {
            let found =
                m.config.iter().any(|(kind, ns, name)| *kind == r.kind && *ns == pod.namespace && *name == r.name);
            if found {
                continue;
            }
            let resource = r.kind.as_str().to_lowercase();
            let effect = match r.used {
                Use::Volume => "would keep the pod ContainerCreating (FailedMount)",
                Use::Env => "would not start this container (CreateContainerConfigError)",
            };
            let message = format!(
                "{resource} {:?} not found: no manifest creates it in namespace {}, and a cluster without it {effect}; \
                 podsim does not model {} references yet and runs the pod as if it existed",
                r.name,
                pod.namespace,
                r.kind.as_str()
            );
            out.push(m.pod_spec_problem(k, &r.field, message).warn());
        }
    }
    out
}
