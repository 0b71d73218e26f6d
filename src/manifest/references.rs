//! The ConfigMaps and Secrets a pod references, read from its spec into
//! [`ConfigNeeds`]: what the kubelet reads before it starts a container
//! (`makeEnvironmentVariables`) and before it mounts a volume (the
//! configMap, secret and projected plugins' `SetUpAt`). A required reference
//! that no manifest satisfies is named in a note where it is written: the
//! run shows what a cluster without it does.

use super::Manifests;
use crate::api::config::ConfigObject;
use crate::error::Problem;
use crate::spec::{ConfigKind, ConfigNeeds, ConfigRef, EnvNeed, VolumeNeed, VolumeSource};
use k8s_openapi::api::core::v1::{Container, KeyToPath, PodSpec as ApiPodSpec};
use std::sync::Arc;

/// What a pod spec reads, its containers in the simulator's order (init
/// containers, then regular ones).
pub fn needs(spec: &ApiPodSpec) -> ConfigNeeds {
    let containers = spec.init_containers.iter().flatten().chain(&spec.containers);
    let env = containers.map(env_needs).collect();
    let volumes = spec.volumes.iter().flatten().filter_map(volume_need).collect();
    ConfigNeeds { env, volumes }
}

fn reference(kind: ConfigKind, name: &str, optional: Option<bool>) -> ConfigRef {
    ConfigRef { kind, name: Arc::from(name), optional: optional == Some(true) }
}

/// `makeEnvironmentVariables` reads every `envFrom` first, then `env`.
fn env_needs(c: &Container) -> Vec<EnvNeed> {
    use ConfigKind::{ConfigMap, Secret};
    let mut out = Vec::new();
    for e in c.env_from.iter().flatten() {
        if let Some(r) = &e.config_map_ref {
            out.push(EnvNeed::All(reference(ConfigMap, &r.name, r.optional)));
        }
        if let Some(r) = &e.secret_ref {
            out.push(EnvNeed::All(reference(Secret, &r.name, r.optional)));
        }
    }
    for e in c.env.iter().flatten() {
        let Some(from) = &e.value_from else { continue };
        if let Some(r) = &from.config_map_key_ref {
            out.push(EnvNeed::Key(reference(ConfigMap, &r.name, r.optional), Arc::from(r.key.as_str())));
        }
        if let Some(r) = &from.secret_key_ref {
            out.push(EnvNeed::Key(reference(Secret, &r.name, r.optional), Arc::from(r.key.as_str())));
        }
    }
    out
}

fn items(items: &Option<Vec<KeyToPath>>) -> Vec<Arc<str>> {
    items.iter().flatten().map(|i| Arc::from(i.key.as_str())).collect()
}

fn volume_need(v: &k8s_openapi::api::core::v1::Volume) -> Option<VolumeNeed> {
    use ConfigKind::{ConfigMap, Secret};
    let volume: Arc<str> = Arc::from(v.name.as_str());
    if let Some(cm) = &v.config_map {
        let object = reference(ConfigMap, &cm.name, cm.optional);
        return Some(VolumeNeed {
            volume,
            sources: vec![VolumeSource { object, items: items(&cm.items) }],
            projected: false,
        });
    }
    if let Some(s) = &v.secret {
        let object = reference(Secret, s.secret_name.as_deref().unwrap_or(""), s.optional);
        return Some(VolumeNeed {
            volume,
            sources: vec![VolumeSource { object, items: items(&s.items) }],
            projected: false,
        });
    }
    let projected = v.projected.as_ref()?;
    let mut sources = Vec::new();
    for source in projected.sources.iter().flatten() {
        if let Some(cm) = &source.config_map {
            sources.push(VolumeSource { object: reference(ConfigMap, &cm.name, cm.optional), items: items(&cm.items) });
        }
        if let Some(s) = &source.secret {
            sources.push(VolumeSource { object: reference(Secret, &s.name, s.optional), items: items(&s.items) });
        }
    }
    (!sources.is_empty()).then_some(VolumeNeed { volume, sources, projected: true })
}

/// Where each required reference of a pod spec is written, for notes.
fn fields(spec: &ApiPodSpec) -> Vec<(String, ConfigKind, String)> {
    let mut out = Vec::new();
    let mut add = |field: String, kind, name: &str, optional: Option<bool>| {
        if optional != Some(true) {
            out.push((field, kind, name.to_string()));
        }
    };
    use ConfigKind::{ConfigMap, Secret};
    let lists = [("initContainers", spec.init_containers.as_deref()), ("containers", Some(spec.containers.as_slice()))];
    for (list, containers) in lists {
        for (i, c) in containers.unwrap_or(&[]).iter().enumerate() {
            for (j, e) in c.env.iter().flatten().enumerate() {
                let Some(from) = &e.value_from else { continue };
                let at = format!("{list}[{i}].env[{j}].valueFrom");
                if let Some(r) = &from.config_map_key_ref {
                    add(format!("{at}.configMapKeyRef.name"), ConfigMap, &r.name, r.optional);
                }
                if let Some(r) = &from.secret_key_ref {
                    add(format!("{at}.secretKeyRef.name"), Secret, &r.name, r.optional);
                }
            }
            for (j, e) in c.env_from.iter().flatten().enumerate() {
                let at = format!("{list}[{i}].envFrom[{j}]");
                if let Some(r) = &e.config_map_ref {
                    add(format!("{at}.configMapRef.name"), ConfigMap, &r.name, r.optional);
                }
                if let Some(r) = &e.secret_ref {
                    add(format!("{at}.secretRef.name"), Secret, &r.name, r.optional);
                }
            }
        }
    }
    for (i, v) in spec.volumes.iter().flatten().enumerate() {
        let at = format!("volumes[{i}]");
        if let Some(cm) = &v.config_map {
            add(format!("{at}.configMap.name"), ConfigMap, &cm.name, cm.optional);
        }
        if let Some(s) = &v.secret {
            add(format!("{at}.secret.secretName"), Secret, s.secret_name.as_deref().unwrap_or(""), s.optional);
        }
        for (j, source) in v.projected.iter().flat_map(|p| p.sources.iter().flatten()).enumerate() {
            let at = format!("{at}.projected.sources[{j}]");
            if let Some(cm) = &source.config_map {
                add(format!("{at}.configMap.name"), ConfigMap, &cm.name, cm.optional);
            }
            if let Some(s) = &source.secret {
                add(format!("{at}.secret.name"), Secret, &s.name, s.optional);
            }
        }
    }
    out
}

/// A note for each required reference that no manifest creates in the pod's
/// namespace: the pod waits for it as in a cluster where it does not exist.
pub(super) fn missing_config(m: &Manifests) -> Vec<Problem> {
    let mut out = Vec::new();
    for (k, pod) in m.all_pod_specs().enumerate() {
        let Some(spec) = pod.object.spec.as_ref() else { continue };
        for (field, kind, name) in fields(spec) {
            if ConfigObject::always_present(kind, &name) || m.config.iter().any(|o| o.is(kind, &pod.namespace, &name)) {
                continue;
            }
            let effect = if field.starts_with("volumes") {
                "the pod stays ContainerCreating, with FailedMount events, until it exists"
            } else {
                "the container is not created (CreateContainerConfigError) until it exists"
            };
            let message = format!(
                "{} {name:?} is created by no manifest in namespace {}: podsim runs the pod as a cluster without it would: {effect}",
                kind.resource(),
                pod.namespace,
            );
            out.push(m.pod_spec_problem(k, &field, message).as_note());
        }
    }
    out
}

impl Manifests {
    /// Adds every ConfigMap and Secret the pods reference, with the keys
    /// they read: a pod recorded in a cluster ran with all of them there.
    pub fn assume_references_exist(&mut self) {
        let mut wanted: Vec<(String, ConfigRef, Vec<Arc<str>>)> = Vec::new();
        for pod in self.all_pod_specs() {
            let env = pod.config.env.iter().flatten().map(|n| match n {
                EnvNeed::All(r) => (r.clone(), Vec::new()),
                EnvNeed::Key(r, key) => (r.clone(), vec![key.clone()]),
            });
            let volumes =
                pod.config.volumes.iter().flat_map(|v| &v.sources).map(|s| (s.object.clone(), s.items.clone()));
            wanted.extend(env.chain(volumes).map(|(r, keys)| (pod.namespace.clone(), r, keys)));
        }
        for (namespace, r, keys) in wanted {
            let object = match self.config.iter_mut().find(|o| o.is(r.kind, &namespace, &r.name)) {
                Some(o) => o,
                None => {
                    self.config.push(ConfigObject {
                        kind: r.kind,
                        namespace: Arc::from(namespace.as_str()),
                        name: r.name.clone(),
                        keys: Default::default(),
                        values: Default::default(),
                    });
                    self.config.last_mut().expect("just pushed")
                }
            };
            object.keys.extend(keys.iter().map(|k| k.to_string()));
        }
    }
}
