//! The container spec hash (pkg/kubelet/container/helpers.go `HashContainer`)
//! and the CrashLoopBackOff key built from it (kuberuntime/helpers.go
//! `GetStableKey`). Since 1.31 the hash covers only the container's name and
//! image (`pickFieldsToHash`): of the fields a pod update may change, only the
//! image changes it.

use crate::spec::ContainerSpec;

/// `HashContainer`: the runtime keeps it on the instance it created; a
/// running instance whose hash differs from the spec's is restarted
/// (`containerChanged`).
pub fn hash(c: &ContainerSpec) -> u32 {
    crate::rng::fnv1a_parts(&[c.name.as_bytes(), c.image.as_bytes()]) as u32
}

/// `GetStableKey`: `pod_namespace_uid_container_hash`, the backoff table's key.
/// A new image is a new key, so its container starts with a fresh backoff.
pub fn stable_key(pod: &str, namespace: &str, uid: &str, c: &ContainerSpec) -> String {
    format!("{pod}_{namespace}_{uid}_{}_{:08x}", c.name, hash(c))
}
