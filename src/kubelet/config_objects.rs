//! The kubelet's ConfigMap and Secret managers (`pkg/kubelet/configmap`,
//! `pkg/kubelet/secret`: watch-based, `manager.NewWatchBasedManager`) and
//! what reads them: a container's environment (`makeEnvironmentVariables`)
//! and the configMap, secret and projected volume plugins (`SetUpAt`).
//! An object the kubelet's watch has not delivered does not exist for it.

use crate::api::config::ConfigObject;
use crate::spec::{ConfigRef, EnvNeed, VolumeNeed, VolumeSource};

/// The objects the kubelet's watches have delivered.
#[derive(Clone, Debug, Default)]
pub struct ObjectCache {
    objects: Vec<ConfigObject>,
}

impl ObjectCache {
    pub fn new(objects: &[ConfigObject]) -> ObjectCache {
        ObjectCache { objects: objects.to_vec() }
    }

    /// The watch delivered an object (created, or its keys changed).
    pub fn seen(&mut self, object: ConfigObject) {
        match self.objects.iter_mut().find(|o| o.is(object.kind, &object.namespace, &object.name)) {
            Some(o) => *o = object,
            None => self.objects.push(object),
        }
    }

    /// `getPullSecretsForPod`: the pod's `imagePullSecrets` the secret
    /// manager has, and the names of those it has not.
    pub fn pull_secrets<'a>(&self, names: &'a [String], namespace: &str) -> (usize, Vec<&'a str>) {
        let (found, missing): (Vec<&String>, Vec<&String>) = (names.iter())
            .partition(|n| self.objects.iter().any(|o| o.is(crate::spec::ConfigKind::Secret, namespace, n)));
        (found.len(), missing.into_iter().map(String::as_str).collect())
    }

    /// `GetObject`: the object, or the NotFound error the manager returns
    /// (`apierrors.NewNotFound(gr, name)`: `configmap "app-config" not found`).
    fn get(&self, r: &ConfigRef, namespace: &str) -> Result<Option<&ConfigObject>, String> {
        if ConfigObject::always_present(r.kind, &r.name) {
            return Ok(None);
        }
        match self.objects.iter().find(|o| o.is(r.kind, namespace, &r.name)) {
            Some(o) => Ok(Some(o)),
            None => Err(format!("{} {:?} not found", r.kind.resource(), &*r.name)),
        }
    }
}

/// `makeEnvironmentVariables`: the first reference that fails, in the order
/// it reads them; an `optional` one that is missing (or lacks its key) is
/// skipped.
pub fn make_environment(needs: &[EnvNeed], namespace: &str, cache: &ObjectCache) -> Result<(), String> {
    for need in needs {
        let (r, key) = match need {
            EnvNeed::All(r) => (r, None),
            EnvNeed::Key(r, key) => (r, Some(key)),
        };
        let object = match cache.get(r, namespace) {
            Ok(o) => o,
            Err(_) if r.optional => continue,
            Err(e) => return Err(e),
        };
        let (Some(key), Some(object)) = (key, object) else { continue };
        if !object.keys.contains(&**key) && !r.optional {
            return Err(format!("couldn't find key {key} in {} {namespace}/{}", r.kind.as_str(), r.name));
        }
    }
    Ok(())
}

/// `SetUpAt` of the volume's plugin: the configMap and secret plugins
/// return their source's error; the projected plugin collects every
/// source's (`collectData`, `utilerrors.NewAggregate`).
pub fn set_up(need: &VolumeNeed, namespace: &str, cache: &ObjectCache) -> Result<(), String> {
    let errors: Vec<String> = need.sources.iter().filter_map(|s| source_error(s, namespace, cache)).collect();
    match errors.len() {
        0 => Ok(()),
        1 => Err(errors.into_iter().next().expect("one error")),
        _ if need.projected => Err(format!("[{}]", errors.join(", "))),
        _ => Err(errors.into_iter().next().expect("an error")),
    }
}

/// One source: the object (unless optional), then each `items` key
/// (`MakePayload` of the configmap and secret plugins).
fn source_error(s: &VolumeSource, namespace: &str, cache: &ObjectCache) -> Option<String> {
    let object = match cache.get(&s.object, namespace) {
        Ok(o) => o?,
        Err(_) if s.object.optional => return None,
        Err(e) => return Some(e),
    };
    let missing = s.items.iter().find(|k| !object.keys.contains(&***k))?;
    match s.object.optional {
        true => None,
        false => Some(match s.object.kind {
            crate::spec::ConfigKind::ConfigMap => format!("configmap references non-existent config key: {missing}"),
            crate::spec::ConfigKind::Secret => format!("references non-existent secret key: {missing}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ConfigKind;
    use std::collections::BTreeSet;
    use std::sync::Arc;

    fn object(kind: ConfigKind, name: &str, keys: &[&str]) -> ConfigObject {
        ConfigObject {
            kind,
            namespace: Arc::from("default"),
            name: Arc::from(name),
            keys: keys.iter().map(|k| k.to_string()).collect::<BTreeSet<_>>(),
            values: Default::default(),
        }
    }
    fn r(kind: ConfigKind, name: &str, optional: bool) -> ConfigRef {
        ConfigRef { kind, name: Arc::from(name), optional }
    }

    #[test]
    fn environment_errors_are_the_kubelets() {
        let cache = ObjectCache::new(&[object(ConfigKind::ConfigMap, "app-config", &["MODE"])]);
        let missing = [EnvNeed::All(r(ConfigKind::ConfigMap, "other", false))];
        assert_eq!(make_environment(&missing, "default", &cache), Err("configmap \"other\" not found".into()));
        let secret = [EnvNeed::Key(r(ConfigKind::Secret, "db", false), Arc::from("password"))];
        assert_eq!(make_environment(&secret, "default", &cache), Err("secret \"db\" not found".into()));
        let key = [EnvNeed::Key(r(ConfigKind::ConfigMap, "app-config", false), Arc::from("LOG_LEVEL"))];
        assert_eq!(
            make_environment(&key, "default", &cache),
            Err("couldn't find key LOG_LEVEL in ConfigMap default/app-config".into())
        );
        let optional = [
            EnvNeed::Key(r(ConfigKind::ConfigMap, "app-config", true), Arc::from("LOG_LEVEL")),
            EnvNeed::All(r(ConfigKind::Secret, "db", true)),
            EnvNeed::Key(r(ConfigKind::ConfigMap, "app-config", false), Arc::from("MODE")),
        ];
        assert_eq!(make_environment(&optional, "default", &cache), Ok(()));
    }

    #[test]
    fn volume_errors_are_the_plugins() {
        let cache = ObjectCache::new(&[object(ConfigKind::Secret, "tls", &["tls.crt"])]);
        let source = |kind, name, items: &[&str]| VolumeSource {
            object: r(kind, name, false),
            items: items.iter().map(|k| Arc::from(*k)).collect(),
        };
        let one = |s| VolumeNeed { volume: Arc::from("v"), sources: vec![s], projected: false };
        assert_eq!(
            set_up(&one(source(ConfigKind::ConfigMap, "app-config", &[])), "default", &cache),
            Err("configmap \"app-config\" not found".into())
        );
        assert_eq!(
            set_up(&one(source(ConfigKind::Secret, "tls", &["tls.key"])), "default", &cache),
            Err("references non-existent secret key: tls.key".into())
        );
        assert_eq!(set_up(&one(source(ConfigKind::Secret, "tls", &["tls.crt"])), "default", &cache), Ok(()));
        let projected = VolumeNeed {
            volume: Arc::from("all"),
            sources: vec![source(ConfigKind::ConfigMap, "a", &[]), source(ConfigKind::Secret, "b", &[])],
            projected: true,
        };
        assert_eq!(
            set_up(&projected, "default", &cache),
            Err("[configmap \"a\" not found, secret \"b\" not found]".into())
        );
        let root_ca = one(source(ConfigKind::ConfigMap, "kube-root-ca.crt", &["ca.crt"]));
        assert_eq!(set_up(&root_ca, "default", &cache), Ok(()));
    }
}
