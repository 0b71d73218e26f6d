//! ConfigMaps and Secrets as the kubelet reads them: which keys each holds.
//! Their values never change what a pod does in podsim, so only the keys
//! are kept.

use crate::spec::ConfigKind;
use std::collections::BTreeSet;
use std::sync::Arc;

/// One ConfigMap or Secret: `data` and `binaryData` keys (a Secret's
/// `stringData` is merged into `data` by the API server).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigObject {
    pub kind: ConfigKind,
    pub namespace: Arc<str>,
    pub name: Arc<str>,
    pub keys: BTreeSet<String>,
    /// The text values written in the manifest (a ConfigMap's `data`, a
    /// Secret's `stringData`): what a mounted file holds.
    pub values: std::collections::BTreeMap<String, String>,
}

/// The ConfigMap the root CA publisher (`kube-root-ca.crt`) keeps in every namespace.
pub const ROOT_CA: &str = "kube-root-ca.crt";

impl ConfigObject {
    pub fn is(&self, kind: ConfigKind, namespace: &str, name: &str) -> bool {
        self.kind == kind && &*self.namespace == namespace && &*self.name == name
    }

    /// Objects the control plane creates in every namespace (the root CA
    /// ConfigMap, key `ca.crt`), which manifests reference without creating.
    pub fn always_present(kind: ConfigKind, name: &str) -> bool {
        kind == ConfigKind::ConfigMap && name == ROOT_CA
    }

    /// The root CA ConfigMap of `namespace`.
    pub fn root_ca(namespace: &str) -> ConfigObject {
        ConfigObject {
            kind: ConfigKind::ConfigMap,
            namespace: Arc::from(namespace),
            name: Arc::from(ROOT_CA),
            keys: BTreeSet::from(["ca.crt".to_string()]),
            values: Default::default(),
        }
    }

    /// The object a manifest declares: the keys of `data` and `binaryData`
    /// (a ConfigMap) or `data` and `stringData` (a Secret).
    pub fn from_manifest(kind: ConfigKind, namespace: &str, name: &str, json: &serde_json::Value) -> ConfigObject {
        let fields: &[&str] = match kind {
            ConfigKind::ConfigMap => &["data", "binaryData"],
            ConfigKind::Secret => &["data", "stringData"],
        };
        let keys =
            fields.iter().filter_map(|f| json.get(*f).and_then(|v| v.as_object())).flat_map(|m| m.keys().cloned());
        let text = match kind {
            ConfigKind::ConfigMap => "data",
            ConfigKind::Secret => "stringData",
        };
        let values = json.get(text).and_then(|v| v.as_object()).into_iter().flatten();
        let values = values.filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect();
        ConfigObject { kind, namespace: Arc::from(namespace), name: Arc::from(name), keys: keys.collect(), values }
    }

    /// `kind/name` as kubectl names it: `configmap/app-config`.
    pub fn kubectl_name(&self) -> String {
        format!("{}/{}", self.kind.resource(), self.name)
    }
}
