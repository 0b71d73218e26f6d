//! `kubectl describe statefulset` (k8s.io/kubectl/pkg/describe
//! `describeStatefulSet`, `describeVolumeClaimTemplates`): the replicas, the
//! update strategy, the pods counted by phase, the pod template, the claim
//! templates and the events.

use super::describe::{Writer, annotations, describe_events, labels, rfc1123z};
use super::describe_workloads::{pod_status_for_controller, pod_template};
use super::selector::selector_string;
use super::tabwriter::go_tabwriter;
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;
use std::collections::BTreeMap;

/// `describeStatefulSet` of `set`, with the pods of the run (those its
/// selector picks and it controls are counted by phase,
/// `getPodStatusForController`) and its events.
pub fn describe_stateful_set(set: &StatefulSet, pods: &[Pod], events: &[Event], now: Timestamp) -> String {
    let mut w = Writer(String::new());
    let meta = &set.metadata;
    let spec = &set.spec;
    let s = set.status.clone().unwrap_or_default();
    w.line(0, &format!("Name:\t{}", meta.name.clone().unwrap_or_default()));
    w.line(0, &format!("Namespace:\t{}", meta.namespace.clone().unwrap_or_default()));
    let created =
        meta.creation_timestamp.as_ref().map(rfc1123z).unwrap_or_else(|| "Mon, 01 Jan 0001 00:00:00 +0000".into());
    w.line(0, &format!("CreationTimestamp:\t{created}"));
    w.line(0, &format!("Selector:\t{}", selector_string(&spec.selector)));
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    w.line(0, &format!("Replicas:\t{} desired | {} total", spec.replicas.unwrap_or(1), s.replicas));
    let strategy = spec.update_strategy.clone().unwrap_or_default();
    w.line(0, &format!("Update Strategy:\t{}", strategy.type_.clone().unwrap_or_default()));
    // MaxUnavailable is printed only under a partition.
    if let Some(ru) = &strategy.rolling_update
        && let Some(partition) = ru.partition
    {
        w.line(1, &format!("Partition:\t{partition}"));
        if let Some(mu) = &ru.max_unavailable {
            let mu = match mu {
                IntOrString::Int(n) => n.to_string(),
                IntOrString::String(s) => s.clone(),
            };
            w.line(1, &format!("MaxUnavailable:\t{mu}"));
        }
    }
    let [running, waiting, succeeded, failed] = pod_status_for_controller(meta, &spec.selector, pods);
    w.line(
        0,
        &format!("Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed"),
    );
    pod_template(&mut w, Some(&spec.template));
    volume_claim_templates(&mut w, spec.volume_claim_templates.as_deref().unwrap_or_default());
    describe_events(&mut w, events, now);
    go_tabwriter(&w.0, 0, 2)
}

/// `describeVolumeClaimTemplates`: each template's name, class, labels and
/// annotations (both as `k=v`, none skipped), requested storage and access modes.
fn volume_claim_templates(w: &mut Writer, templates: &[PersistentVolumeClaim]) {
    if templates.is_empty() {
        return w.line(0, "Volume Claims:\t<none>");
    }
    w.line(0, "Volume Claims:");
    for pvc in templates {
        let meta = &pvc.metadata;
        let spec = pvc.spec.clone().unwrap_or_default();
        w.line(1, &format!("Name:\t{}", meta.name.clone().unwrap_or_default()));
        // `GetPersistentVolumeClaimClass`: the beta annotation before the field.
        let class = meta
            .annotations
            .as_ref()
            .and_then(|a| a.get("volume.beta.kubernetes.io/storage-class").cloned())
            .or(spec.storage_class_name.clone())
            .unwrap_or_default();
        w.line(1, &format!("StorageClass:\t{class}"));
        labels_with_indent(w, "Labels", meta.labels.as_ref());
        labels_with_indent(w, "Annotations", meta.annotations.as_ref());
        let capacity = spec.resources.as_ref().and_then(|r| r.requests.as_ref()).and_then(|r| r.get("storage"));
        w.line(1, &format!("Capacity:\t{}", capacity.map_or("<default>", |q| q.0.as_str())));
        // `%s` of a Go slice: `[ReadWriteOnce]`.
        w.line(1, &format!("Access Modes:\t[{}]", spec.access_modes.unwrap_or_default().join(" ")));
    }
}

/// `printLabelsMultilineWithIndent(w, "  ", title, "\t", …)`: sorted `k=v`,
/// the first after the title, the others under it, or `<none>`.
fn labels_with_indent(w: &mut Writer, title: &str, labels: Option<&BTreeMap<String, String>>) {
    let Some(labels) = labels.filter(|l| !l.is_empty()) else { return w.line(1, &format!("{title}:\t<none>")) };
    for (i, (k, v)) in labels.iter().enumerate() {
        match i {
            0 => w.line(1, &format!("{title}:\t{k}={v}")),
            _ => w.line(1, &format!("\t{k}={v}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::apps::v1::{RollingUpdateStatefulSetStrategy, StatefulSetSpec, StatefulSetUpdateStrategy};
    use k8s_openapi::api::core::v1::{PersistentVolumeClaimSpec, VolumeResourceRequirements};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn map(pairs: &[(&str, &str)]) -> Option<BTreeMap<String, String>> {
        Some(pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    /// What no scenario shows: `MaxUnavailable` under the partition (an
    /// IntOrString as written), a claim template's labels and annotations
    /// as `k=v` under one another, its class from the beta annotation before
    /// the field, `<default>` capacity and two access modes as Go prints a slice.
    #[test]
    fn strategy_and_claim_templates_read_as_kubectl_describes_them() {
        let claim = PersistentVolumeClaim {
            metadata: ObjectMeta {
                name: Some("data".into()),
                labels: map(&[("tier", "db"), ("app", "pg")]),
                annotations: map(&[("volume.beta.kubernetes.io/storage-class", "fast")]),
                ..Default::default()
            },
            spec: Some(PersistentVolumeClaimSpec {
                access_modes: Some(vec!["ReadWriteOnce".into(), "ReadOnlyMany".into()]),
                storage_class_name: Some("slow".into()),
                resources: Some(VolumeResourceRequirements::default()),
                ..Default::default()
            }),
            status: None,
        };
        let set = StatefulSet {
            metadata: ObjectMeta { name: Some("db".into()), namespace: Some("default".into()), ..Default::default() },
            spec: StatefulSetSpec {
                replicas: Some(2),
                update_strategy: Some(StatefulSetUpdateStrategy {
                    type_: Some("RollingUpdate".into()),
                    rolling_update: Some(RollingUpdateStatefulSetStrategy {
                        partition: Some(0),
                        max_unavailable: Some(IntOrString::String("50%".into())),
                    }),
                }),
                volume_claim_templates: Some(vec![claim]),
                ..Default::default()
            },
            status: None,
        };
        let text = describe_stateful_set(&set, &[], &[], Timestamp::UNIX_EPOCH);
        assert!(
            text.contains("Update Strategy:    RollingUpdate\n  Partition:        0\n  MaxUnavailable:   50%\n"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "Volume Claims:
  Name:          data
  StorageClass:  fast
  Labels:        app=pg
                 tier=db
  Annotations:   volume.beta.kubernetes.io/storage-class=fast
  Capacity:      <default>
  Access Modes:  [ReadWriteOnce ReadOnlyMany]
Events:          <none>
"
            ),
            "{text}"
        );
    }
}
