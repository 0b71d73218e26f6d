//! The ConfigMaps and Secrets a pod references. The kubelet refuses to
//! start a container whose environment names a missing one
//! (`CreateContainerConfigError`) and keeps a pod whose volume needs one
//! `ContainerCreating` (`FailedMount`), unless the reference is `optional`.
//! podsim does not model either yet: a reference no manifest satisfies is
//! said where it is written, never passed over.

use super::Manifests;
use crate::error::Problem;
use k8s_openapi::api::core::v1::{Container, PodSpec as ApiPodSpec};

/// A required reference: the field it is written in, the kind and the name.
struct Reference {
    field: String,
    kind: &'static str,
    name: String,
    volume: bool,
}

/// Every required (not `optional`) ConfigMap and Secret reference of a pod spec.
fn references(spec: &ApiPodSpec) -> Vec<Reference> {
    let mut out = Vec::new();
    let required = |optional: Option<bool>| optional != Some(true);
    let lists = [("initContainers", spec.init_containers.as_deref()), ("containers", Some(spec.containers.as_slice()))];
    for (list, containers) in lists {
        for (i, c) in containers.unwrap_or(&[]).iter().enumerate() {
            container_references(&format!("{list}[{i}]"), c, &required, &mut out);
        }
    }
    for (i, v) in spec.volumes.iter().flatten().enumerate() {
        let at = format!("volumes[{i}]");
        if let Some(cm) = v.config_map.as_ref().filter(|s| required(s.optional)) {
            out.push(Reference {
                field: format!("{at}.configMap.name"),
                kind: "ConfigMap",
                name: cm.name.clone(),
                volume: true,
            });
        }
        if let Some(s) = v.secret.as_ref().filter(|s| required(s.optional)) {
            let name = s.secret_name.clone().unwrap_or_default();
            out.push(Reference { field: format!("{at}.secret.secretName"), kind: "Secret", name, volume: true });
        }
        for (j, source) in v.projected.iter().flat_map(|p| p.sources.iter().flatten()).enumerate() {
            let at = format!("{at}.projected.sources[{j}]");
            if let Some(cm) = source.config_map.as_ref().filter(|s| required(s.optional)) {
                out.push(Reference {
                    field: format!("{at}.configMap.name"),
                    kind: "ConfigMap",
                    name: cm.name.clone(),
                    volume: true,
                });
            }
            if let Some(s) = source.secret.as_ref().filter(|s| required(s.optional)) {
                out.push(Reference {
                    field: format!("{at}.secret.name"),
                    kind: "Secret",
                    name: s.name.clone(),
                    volume: true,
                });
            }
        }
    }
    out
}

fn container_references(at: &str, c: &Container, required: &impl Fn(Option<bool>) -> bool, out: &mut Vec<Reference>) {
    for (j, e) in c.env.iter().flatten().enumerate() {
        let Some(from) = &e.value_from else { continue };
        let at = format!("{at}.env[{j}].valueFrom");
        if let Some(r) = from.config_map_key_ref.as_ref().filter(|r| required(r.optional)) {
            out.push(Reference {
                field: format!("{at}.configMapKeyRef.name"),
                kind: "ConfigMap",
                name: r.name.clone(),
                volume: false,
            });
        }
        if let Some(r) = from.secret_key_ref.as_ref().filter(|r| required(r.optional)) {
            out.push(Reference {
                field: format!("{at}.secretKeyRef.name"),
                kind: "Secret",
                name: r.name.clone(),
                volume: false,
            });
        }
    }
    for (j, e) in c.env_from.iter().flatten().enumerate() {
        let at = format!("{at}.envFrom[{j}]");
        if let Some(r) = e.config_map_ref.as_ref().filter(|r| required(r.optional)) {
            out.push(Reference {
                field: format!("{at}.configMapRef.name"),
                kind: "ConfigMap",
                name: r.name.clone(),
                volume: false,
            });
        }
        if let Some(r) = e.secret_ref.as_ref().filter(|r| required(r.optional)) {
            out.push(Reference {
                field: format!("{at}.secretRef.name"),
                kind: "Secret",
                name: r.name.clone(),
                volume: false,
            });
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
            let resource = r.kind.to_lowercase();
            let effect = match r.volume {
                true => "would keep the pod ContainerCreating (FailedMount)",
                false => "would not start this container (CreateContainerConfigError)",
            };
            let message = format!(
                "{resource} {:?} not found: no manifest creates it in namespace {}, and a cluster without it {effect}; \
                 podsim does not model {} references yet and runs the pod as if it existed",
                r.name, pod.namespace, r.kind
            );
            out.push(m.pod_spec_problem(k, &r.field, message).warn());
        }
    }
    out
}
