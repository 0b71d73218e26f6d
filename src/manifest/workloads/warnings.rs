//! The API server's warnings on creating a Deployment or a ReplicaSet
//! (`WarningsOnCreate` in pkg/registry/apps/{deployment,replicaset}/strategy.go).
//! Of `GetWarningsForPodTemplate`, only the ports block is reproduced, as for
//! Pods (`manifest::pod_warnings`).

use crate::manifest::names::dns1123_label_errors;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// The warnings (field path, text naming the field) of a valid object: its
/// name, a DNS subdomain, becomes the start of its pods' names and hostnames.
pub fn warnings_on_create(meta: &ObjectMeta) -> Vec<(String, String)> {
    let name = meta.name.as_deref().unwrap_or("");
    let msgs = dns1123_label_errors(name);
    if name.is_empty() || msgs.is_empty() {
        return Vec::new();
    }
    let text = format!(
        "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [{}]",
        msgs.join(" ")
    );
    vec![("metadata.name".to_string(), text)]
}
