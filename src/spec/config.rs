//! What a pod needs from ConfigMaps and Secrets before its containers can
//! start: the environment of each container and the volumes built from them.

use std::sync::Arc;

/// The two kinds a pod can reference for its configuration.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

    /// The resource the kubelet's watch-based managers name in a NotFound
    /// error: `corev1.Resource("configmap")` and `corev1.Resource("secret")`.
    pub fn resource(self) -> &'static str {
        match self {
            ConfigKind::ConfigMap => "configmap",
            ConfigKind::Secret => "secret",
        }
    }
}

/// A reference to one ConfigMap or Secret of the pod's namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigRef {
    pub kind: ConfigKind,
    pub name: Arc<str>,
    /// `optional: true`: a missing object (or key) is skipped, not an error.
    pub optional: bool,
}

/// One entry of a container's environment that reads an object, in the
/// order `makeEnvironmentVariables` reads them (every `envFrom`, then `env`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvNeed {
    /// `envFrom[].configMapRef` / `secretRef`: every key.
    All(ConfigRef),
    /// `env[].valueFrom.configMapKeyRef` / `secretKeyRef`: one key.
    Key(ConfigRef, Arc<str>),
}

/// One source of a volume: the object and the keys its `items` name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumeSource {
    pub object: ConfigRef,
    pub items: Vec<Arc<str>>,
}

/// A `configMap`, `secret` or `projected` volume of the pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumeNeed {
    /// The pod's name for the volume, as `FailedMount` events give it.
    pub volume: Arc<str>,
    pub sources: Vec<VolumeSource>,
    /// `projected`: every source's error is collected (`collectData`);
    /// otherwise the one source's error is the volume's.
    pub projected: bool,
}

/// Everything a pod reads from ConfigMaps and Secrets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigNeeds {
    /// Per container (the pod spec's container index), its environment's references.
    pub env: Vec<Vec<EnvNeed>>,
    pub volumes: Vec<VolumeNeed>,
}

impl ConfigNeeds {
    pub fn env_of(&self, container: usize) -> &[EnvNeed] {
        self.env.get(container).map_or(&[], Vec::as_slice)
    }
}
