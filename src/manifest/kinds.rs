//! What podsim does with each kind a manifest may hold: simulate it, read it
//! and say so once (a kind that does not change a pod's lifecycle), or
//! refuse it, saying why it matters, while the issue that models it has not
//! landed. A kind of no built-in group is a custom resource, read like the
//! others; an unknown kind of a built-in group is what kubectl says of it.

/// What becomes of one object.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Handling {
    /// Pod, Service, ReplicaSet, Deployment, StatefulSet, Namespace, ConfigMap, Secret,
    /// PersistentVolumeClaim, StorageClass, PodDisruptionBudget, Job, CronJob, DaemonSet: read by
    /// their own code.
    Simulated,
    /// Accepted and listed in the run's note.
    Read,
    /// It would change the lifecycle and podsim does not model it yet.
    Refused(&'static str),
    /// A built-in group has no such kind (`no matches for kind`).
    Unknown,
}

/// The API groups Kubernetes serves itself (the core group is "").
const BUILT_IN_GROUPS: [&str; 23] = [
    "",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "apiregistration.k8s.io",
    "apps",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "events.k8s.io",
    // Served no more, but still no custom resource's.
    "extensions",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "networking.k8s.io",
    "node.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "resource.k8s.io",
    "scheduling.k8s.io",
    "storage.k8s.io",
];

/// Kinds that are read and listed: none of them changes when a pod starts,
/// becomes ready or stops in podsim's model.
const READ: [(&str, &str); 28] = [
    ("", "ServiceAccount"),
    ("", "Endpoints"),
    ("", "PersistentVolume"),
    ("", "PodTemplate"),
    ("", "Event"),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("apps", "ControllerRevision"),
    ("autoscaling", "HorizontalPodAutoscaler"),
    ("certificates.k8s.io", "CertificateSigningRequest"),
    ("coordination.k8s.io", "Lease"),
    ("discovery.k8s.io", "EndpointSlice"),
    ("events.k8s.io", "Event"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    ("networking.k8s.io", "Ingress"),
    ("networking.k8s.io", "IngressClass"),
    ("networking.k8s.io", "NetworkPolicy"),
    ("node.k8s.io", "RuntimeClass"),
    ("rbac.authorization.k8s.io", "Role"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("scheduling.k8s.io", "PriorityClass"),
];

/// Kinds that would change the lifecycle, with why.
const REFUSED: [(&str, &str, &str); 5] = [
    (
        "",
        "ReplicationController",
        "a ReplicationController creates pods, and its controller is not modelled (a ReplicaSet or Deployment is)",
    ),
    (
        "",
        "LimitRange",
        "a LimitRange gives containers default requests and limits at admission (and so their QoS class), which is not modelled yet",
    ),
    ("", "ResourceQuota", "a ResourceQuota can refuse pods at admission, which is not modelled yet"),
    ("", "Node", "nodes come from the cluster profile (--cluster), not from the manifests"),
    ("", "Binding", "podsim's scheduler binds the pods"),
];

/// The group of an `apiVersion` (`apps/v1` → `apps`, `v1` → the core group).
pub fn group(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// What becomes of an object of `kind` in `api_version`.
pub fn handling(api_version: &str, kind: &str) -> Handling {
    let g = group(api_version);
    match (api_version, kind) {
        ("v1", "Pod" | "Service" | "Namespace" | "ConfigMap" | "Secret" | "PersistentVolumeClaim")
        | ("apps/v1", "ReplicaSet" | "Deployment" | "StatefulSet")
        | ("storage.k8s.io/v1", "StorageClass")
        | ("policy/v1", "PodDisruptionBudget")
        | ("batch/v1", "Job" | "CronJob")
        | ("apps/v1", "DaemonSet") => {
            return Handling::Simulated;
        }
        _ => {}
    }
    if let Some((_, _, why)) = REFUSED.iter().find(|(rg, rk, _)| *rg == g && *rk == kind) {
        return Handling::Refused(why);
    }
    if READ.iter().any(|(rg, rk)| *rg == g && *rk == kind) {
        return Handling::Read;
    }
    match BUILT_IN_GROUPS.contains(&g) {
        true => Handling::Unknown,
        // A custom resource: its CRD's controller is not podsim's to run.
        false => Handling::Read,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_simulated_read_refused_or_unknown() {
        assert_eq!(handling("v1", "Pod"), Handling::Simulated);
        assert_eq!(handling("apps/v1", "Deployment"), Handling::Simulated);
        assert_eq!(handling("v1", "ServiceAccount"), Handling::Read);
        assert_eq!(handling("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"), Handling::Read);
        assert_eq!(handling("autoscaling/v2", "HorizontalPodAutoscaler"), Handling::Read);
        assert_eq!(handling("monitoring.coreos.com/v1", "ServiceMonitor"), Handling::Read, "a custom resource");
        assert_eq!(handling("batch/v1", "Job"), Handling::Simulated);
        assert_eq!(handling("batch/v1", "CronJob"), Handling::Simulated);
        assert_eq!(handling("apps/v1", "StatefulSet"), Handling::Simulated);
        assert_eq!(handling("apps/v1", "DaemonSet"), Handling::Simulated);
        assert_eq!(handling("apps/v1", "Deploymnet"), Handling::Unknown);
        assert_eq!(handling("v1", "ConfigMapp"), Handling::Unknown);
        assert_eq!(group("networking.k8s.io/v1"), "networking.k8s.io");
        assert_eq!(group("v1"), "");
    }
}
