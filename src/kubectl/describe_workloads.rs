//! `kubectl describe deployment` and `kubectl describe replicaset`
//! (k8s.io/kubectl/pkg/describe: `describeDeployment`, `describeReplicaSet`,
//! `DescribePodTemplate`), sharing the pod describer's container, volume,
//! label and event printing as kubectl does.

use super::describe::{
    Writer, annotations, containers, describe_events, labels, rfc1123z, tolerations, topology_spread, volumes,
};
use super::selector::{format_label_selector, matches, selector_string};
use super::tabwriter::go_tabwriter;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{Event, Pod, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

/// `describeDeployment` of `d`, with the ReplicaSets of its namespace (the
/// old and new ones are picked from them as kubectl does) and its events.
pub fn describe_deployment(d: &Deployment, replica_sets: &[ReplicaSet], events: &[Event], now: Timestamp) -> String {
    let mut w = Writer(String::new());
    let meta = &d.metadata;
    let spec = &d.spec;
    let status = d.status.clone().unwrap_or_default();
    w.line(0, &format!("Name:\t{}", meta.name.clone().unwrap_or_default()));
    w.line(0, &format!("Namespace:\t{}", meta.namespace.clone().unwrap_or_default()));
    let created =
        meta.creation_timestamp.as_ref().map(rfc1123z).unwrap_or_else(|| "Mon, 01 Jan 0001 00:00:00 +0000".into());
    w.line(0, &format!("CreationTimestamp:\t{created}"));
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    w.line(0, &format!("Selector:\t{}", selector_string(&spec.selector)));
    w.line(
        0,
        &format!(
            "Replicas:\t{} desired | {} updated | {} total | {} available | {} unavailable",
            spec.replicas.unwrap_or(1),
            status.updated_replicas.unwrap_or(0),
            status.replicas.unwrap_or(0),
            status.available_replicas.unwrap_or(0),
            status.unavailable_replicas.unwrap_or(0)
        ),
    );
    let strategy = spec.strategy.clone().unwrap_or_default();
    w.line(0, &format!("StrategyType:\t{}", strategy.type_.clone().unwrap_or_default()));
    w.line(0, &format!("MinReadySeconds:\t{}", spec.min_ready_seconds.unwrap_or(0)));
    if let Some(ru) = &strategy.rolling_update {
        // IntOrString.String() of an unset value is the zero Int, "0".
        let text = |v: &Option<IntOrString>| match v {
            Some(IntOrString::Int(n)) => n.to_string(),
            Some(IntOrString::String(s)) => s.clone(),
            None => "0".into(),
        };
        w.line(
            0,
            &format!(
                "RollingUpdateStrategy:\t{} max unavailable, {} max surge",
                text(&ru.max_unavailable),
                text(&ru.max_surge)
            ),
        );
    }
    pod_template(&mut w, Some(&spec.template));
    conditions(&mut w, status.conditions.iter().flatten().map(|c| (&c.type_, &c.status, &c.reason)));
    let (old, new) = old_and_new(d, replica_sets);
    if !old.is_empty() || new.is_some() {
        w.line(0, &format!("OldReplicaSets:\t{}", replica_sets_by_labels(&old)));
        w.line(0, &format!("NewReplicaSet:\t{}", replica_sets_by_labels(new.as_slice())));
    }
    describe_events(&mut w, events, now);
    go_tabwriter(&w.0, 0, 2)
}

/// The Conditions table of a Deployment or ReplicaSet (`Type Status Reason`), when there are any.
fn conditions<'a>(
    w: &mut Writer,
    conditions: impl Iterator<Item = (&'a Option<String>, &'a Option<String>, &'a Option<String>)>,
) {
    let mut first = true;
    for (type_, status, reason) in conditions {
        if first {
            w.line(0, "Conditions:");
            w.line(1, "Type\tStatus\tReason");
            w.line(1, "----\t------\t------");
            first = false;
        }
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        w.line(1, &format!("{} \t{}\t{}", text(type_), text(status), text(reason)));
    }
}

/// `GetAllReplicaSetsInChunks` as the describer uses it: the ReplicaSets the
/// Deployment controls, by creation time then name (`findNewReplicaSet`
/// sorts the list in place); the new one is the oldest whose template equals
/// the Deployment's but for `pod-template-hash`, every other one is old
/// (`findOldReplicaSets`' second list, scaled-down ones included).
fn old_and_new<'a>(d: &Deployment, replica_sets: &'a [ReplicaSet]) -> (Vec<&'a ReplicaSet>, Option<&'a ReplicaSet>) {
    let spec = &d.spec;
    let uid = d.metadata.uid.as_deref();
    let mut owned: Vec<&ReplicaSet> = replica_sets
        .iter()
        .filter(|rs| rs.metadata.namespace == d.metadata.namespace)
        .filter(|rs| matches(&spec.selector, rs.metadata.labels.as_ref()))
        .filter(|rs| {
            rs.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|o| o.controller == Some(true) && Some(o.uid.as_str()) == uid)
        })
        .collect();
    owned.sort_by(|a, b| {
        (&a.metadata.creation_timestamp.as_ref().map(|t| t.0), &a.metadata.name)
            .cmp(&(&b.metadata.creation_timestamp.as_ref().map(|t| t.0), &b.metadata.name))
    });
    let wanted = template_ignoring_hash(Some(&spec.template));
    let new = owned.iter().copied().find(|rs| template_ignoring_hash(rs.spec.template.as_ref()) == wanted);
    let old = owned.into_iter().filter(|rs| new.is_none_or(|n| n.metadata.uid != rs.metadata.uid)).collect();
    (old, new)
}

/// `equalIgnoreHash`'s view of a template: without the `pod-template-hash`
/// label, and with empty lists and maps the same as absent ones
/// (`apiequality.Semantic.DeepEqual`).
fn template_ignoring_hash(t: Option<&PodTemplateSpec>) -> Value {
    let mut t = t.cloned().unwrap_or_default();
    if let Some(l) = t.metadata.as_mut().and_then(|m| m.labels.as_mut()) {
        l.remove("pod-template-hash");
    }
    prune(serde_json::to_value(&t).unwrap_or(Value::Null))
}

/// The value with nulls, empty arrays and empty objects left out, recursively.
fn prune(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.into_iter().map(|(k, v)| (k, prune(v))).filter(|(_, v)| !is_empty(v)).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(prune).collect()),
        other => other,
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// `printReplicaSetsByLabels`: `name (current/desired replicas created)`, or `<none>`.
fn replica_sets_by_labels(rss: &[&ReplicaSet]) -> String {
    let list: Vec<String> = rss
        .iter()
        .map(|rs| {
            let current = rs.status.as_ref().map_or(0, |s| s.replicas);
            let desired = rs.spec.replicas.unwrap_or(1);
            format!("{} ({current}/{desired} replicas created)", rs.metadata.name.clone().unwrap_or_default())
        })
        .collect();
    if list.is_empty() { "<none>".into() } else { list.join(", ") }
}

/// `describeReplicaSet` of `rs`, with the pods of its namespace (those it
/// controls and selects are counted by phase, as `getPodStatusForController`
/// does) and its events.
pub fn describe_replica_set(rs: &ReplicaSet, pods: &[Pod], events: &[Event], now: Timestamp) -> String {
    let mut w = Writer(String::new());
    let meta = &rs.metadata;
    let spec = &rs.spec;
    let status = rs.status.clone().unwrap_or_default();
    w.line(0, &format!("Name:\t{}", meta.name.clone().unwrap_or_default()));
    w.line(0, &format!("Namespace:\t{}", meta.namespace.clone().unwrap_or_default()));
    w.line(0, &format!("Selector:\t{}", format_label_selector(&spec.selector)));
    labels(&mut w, "Labels", meta.labels.as_ref());
    annotations(&mut w, "Annotations", meta.annotations.as_ref());
    // printController
    if let Some(owner) = meta.owner_references.iter().flatten().find(|o| o.controller == Some(true)) {
        w.line(0, &format!("Controlled By:\t{}/{}", owner.kind, owner.name));
    }
    w.line(0, &format!("Replicas:\t{} current / {} desired", status.replicas, spec.replicas.unwrap_or(1)));
    let [running, waiting, succeeded, failed] = pod_status_for_controller(meta, &spec.selector, pods);
    w.line(
        0,
        &format!("Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed"),
    );
    pod_template(&mut w, spec.template.as_ref());
    conditions(&mut w, status.conditions.iter().flatten().map(|c| (&c.type_, &c.status, &c.reason)));
    describe_events(&mut w, events, now);
    go_tabwriter(&w.0, 0, 2)
}

/// `getPodStatusForController`: the pods of `owner`'s namespace that
/// `selector` picks and whose controller is `owner`, counted as Running,
/// Pending (Waiting), Succeeded and Failed.
pub(super) fn pod_status_for_controller(owner: &ObjectMeta, selector: &LabelSelector, pods: &[Pod]) -> [usize; 4] {
    let mut counts = [0; 4];
    for pod in pods {
        let meta = &pod.metadata;
        let controller = meta.owner_references.iter().flatten().find(|o| o.controller == Some(true));
        if meta.namespace != owner.namespace
            || !matches(selector, meta.labels.as_ref())
            || controller.is_none_or(|c| Some(&c.uid) != owner.uid.as_ref())
        {
            continue;
        }
        match pod.status.as_ref().and_then(|s| s.phase.as_deref()) {
            Some("Running") => counts[0] += 1,
            Some("Pending") => counts[1] += 1,
            Some("Succeeded") => counts[2] += 1,
            Some("Failed") => counts[3] += 1,
            _ => {}
        }
    }
    counts
}

/// `DescribePodTemplate`: the template's labels, annotations (when any),
/// service account, containers without status, volumes, spread
/// constraints, priority class, node selector and tolerations, two spaces in.
pub(super) fn pod_template(w: &mut Writer, template: Option<&PodTemplateSpec>) {
    w.line(0, "Pod Template:");
    let Some(template) = template else {
        // kubectl writes `<unset>` without a newline.
        w.0.push_str("  <unset>");
        return;
    };
    let spec = template.spec.clone().unwrap_or_default();
    let meta = template.metadata.clone().unwrap_or_default();
    labels(w, "  Labels", meta.labels.as_ref());
    if meta.annotations.as_ref().is_some_and(|a| !a.is_empty()) {
        annotations(w, "  Annotations", meta.annotations.as_ref());
    }
    if let Some(sa) = spec.service_account_name.as_deref().filter(|s| !s.is_empty()) {
        w.line(1, &format!("Service Account:\t{sa}"));
    }
    if let Some(inits) = spec.init_containers.as_ref().filter(|c| !c.is_empty()) {
        containers(w, "Init Containers", inits, &[], "  ");
    }
    containers(w, "Containers", &spec.containers, &[], "  ");
    volumes(w, spec.volumes.as_deref().unwrap_or_default(), "  ");
    topology_spread(w, spec.topology_spread_constraints.clone().unwrap_or_default(), "  ");
    if let Some(p) = spec.priority_class_name.as_deref().filter(|p| !p.is_empty()) {
        w.line(1, &format!("Priority Class Name:\t{p}"));
    }
    labels(w, "  Node-Selectors", spec.node_selector.as_ref());
    tolerations(w, "  Tolerations", spec.tolerations.clone().unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::apps::v1::{
        DeploymentCondition, DeploymentSpec, DeploymentStatus, DeploymentStrategy, ReplicaSetSpec, ReplicaSetStatus,
        RollingUpdateDeployment,
    };
    use k8s_openapi::api::core::v1::{Container, PodSpec, PodStatus};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta, OwnerReference, Time};
    use std::collections::BTreeMap;

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_second(1_767_225_600 + secs).unwrap_or(Timestamp::UNIX_EPOCH)
    }

    fn app() -> BTreeMap<String, String> {
        BTreeMap::from([("app".to_string(), "web".to_string())])
    }

    fn template(image: &str, hash: Option<&str>) -> PodTemplateSpec {
        let mut labels = app();
        if let Some(h) = hash {
            labels.insert("pod-template-hash".into(), h.into());
        }
        PodTemplateSpec {
            metadata: Some(ObjectMeta { labels: Some(labels), ..Default::default() }),
            spec: Some(PodSpec {
                containers: vec![Container { name: "web".into(), image: Some(image.into()), ..Default::default() }],
                ..Default::default()
            }),
        }
    }

    fn owner(kind: &str, name: &str, uid: &str) -> Option<Vec<OwnerReference>> {
        Some(vec![OwnerReference {
            api_version: "apps/v1".into(),
            kind: kind.into(),
            name: name.into(),
            uid: uid.into(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        }])
    }

    fn rs(name: &str, image: &str, created: i64, replicas: i32) -> ReplicaSet {
        let hash = name.rsplit('-').next();
        let mut labels = app();
        labels.insert("pod-template-hash".into(), hash.unwrap_or_default().into());
        ReplicaSet {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                uid: Some(format!("uid-{name}")),
                creation_timestamp: Some(Time(at(created))),
                labels: Some(labels.clone()),
                owner_references: owner("Deployment", "web", "uid-web"),
                ..Default::default()
            },
            spec: ReplicaSetSpec {
                replicas: Some(replicas),
                selector: LabelSelector { match_labels: Some(labels), match_expressions: None },
                template: Some(template(image, hash)),
                ..Default::default()
            },
            status: Some(ReplicaSetStatus { replicas, ..Default::default() }),
        }
    }

    fn deployment() -> Deployment {
        Deployment {
            metadata: ObjectMeta {
                name: Some("web".into()),
                namespace: Some("default".into()),
                uid: Some("uid-web".into()),
                creation_timestamp: Some(Time(at(0))),
                annotations: Some(BTreeMap::from([("deployment.kubernetes.io/revision".into(), "2".into())])),
                ..Default::default()
            },
            spec: DeploymentSpec {
                replicas: Some(2),
                selector: LabelSelector { match_labels: Some(app()), match_expressions: None },
                strategy: Some(DeploymentStrategy {
                    type_: Some("RollingUpdate".into()),
                    rolling_update: Some(RollingUpdateDeployment {
                        max_surge: Some(IntOrString::String("25%".into())),
                        max_unavailable: Some(IntOrString::Int(0)),
                    }),
                }),
                template: template("nginx:1.28", None),
                ..Default::default()
            },
            status: Some(DeploymentStatus {
                replicas: Some(3),
                updated_replicas: Some(1),
                available_replicas: Some(2),
                unavailable_replicas: Some(1),
                conditions: Some(vec![
                    DeploymentCondition {
                        type_: Some("Available".into()),
                        status: Some("True".into()),
                        reason: Some("MinimumReplicasAvailable".into()),
                        ..Default::default()
                    },
                    DeploymentCondition {
                        type_: Some("Progressing".into()),
                        status: Some("False".into()),
                        reason: Some("ProgressDeadlineExceeded".into()),
                        ..Default::default()
                    },
                ]),
                ..Default::default()
            }),
        }
    }

    /// `describeDeployment`'s format strings through `tabbedString`: the
    /// Replicas and RollingUpdateStrategy lines, `DescribePodTemplate` two
    /// spaces in (the container name three), the Conditions table, the new
    /// ReplicaSet found by template (hash label ignored) and the old ones by
    /// creation time, a scaled-down one included; `Events: <none>`.
    #[test]
    fn deployment_reads_as_kubectl_describes_it() {
        let rss = [
            rs("web-new1", "nginx:1.28", 60, 1),
            rs("web-old2", "nginx:1.26", 30, 0),
            rs("web-old1", "nginx:1.27", 10, 2),
        ];
        let text = describe_deployment(&deployment(), &rss, &[], at(120));
        assert_eq!(
            text,
            "Name:                   web
Namespace:              default
CreationTimestamp:      Thu, 01 Jan 2026 00:00:00 +0000
Labels:                 <none>
Annotations:            deployment.kubernetes.io/revision: 2
Selector:               app=web
Replicas:               2 desired | 1 updated | 3 total | 2 available | 1 unavailable
StrategyType:           RollingUpdate
MinReadySeconds:        0
RollingUpdateStrategy:  0 max unavailable, 25% max surge
Pod Template:
  Labels:  app=web
  Containers:
   web:
    Image:         nginx:1.28
    Port:          <none>
    Host Port:     <none>
    Environment:   <none>
    Mounts:        <none>
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      True    MinimumReplicasAvailable
  Progressing    False   ProgressDeadlineExceeded
OldReplicaSets:  web-old1 (2/2 replicas created), web-old2 (0/0 replicas created)
NewReplicaSet:   web-new1 (1/1 replicas created)
Events:          <none>
"
        );
        // No ReplicaSet of its own: the two lines are left out; none new: `<none>`.
        let alone = describe_deployment(&deployment(), &[], &[], at(120));
        assert!(!alone.contains("ReplicaSet"), "{alone}");
        let old_only = describe_deployment(&deployment(), &rss[1..], &[], at(120));
        assert!(old_only.contains("NewReplicaSet:   <none>\n"), "{old_only}");
    }

    /// `describeReplicaSet`: `Controlled By`, `N current / N desired`, and
    /// Pods Status counting only the pods it controls, by phase.
    #[test]
    fn replica_set_reads_as_kubectl_describes_it() {
        let set = rs("web-abc", "nginx:1.28", 0, 3);
        let pod = |name: &str, phase: &str, owner_uid: &str| Pod {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                labels: set.spec.selector.match_labels.clone(),
                owner_references: owner("ReplicaSet", "web-abc", owner_uid),
                ..Default::default()
            },
            spec: None,
            status: Some(PodStatus { phase: Some(phase.into()), ..Default::default() }),
        };
        let pods = [
            pod("a", "Running", "uid-web-abc"),
            pod("b", "Pending", "uid-web-abc"),
            pod("c", "Failed", "uid-web-abc"),
            pod("d", "Running", "uid-other"),
        ];
        let text = describe_replica_set(&set, &pods, &[], at(10));
        let head: Vec<&str> = text.lines().take(9).collect();
        assert_eq!(
            head,
            [
                "Name:           web-abc",
                "Namespace:      default",
                "Selector:       app=web,pod-template-hash=abc",
                "Labels:         app=web",
                "                pod-template-hash=abc",
                "Annotations:    <none>",
                "Controlled By:  Deployment/web",
                "Replicas:       3 current / 3 desired",
                "Pods Status:    1 Running / 1 Waiting / 0 Succeeded / 1 Failed",
            ]
        );
        assert!(text.contains("Pod Template:\n  Labels:  app=web\n           pod-template-hash=abc\n"), "{text}");
        assert!(text.ends_with("  Tolerations:     <none>\nEvents:            <none>\n"), "{text}");
        // A ReplicaSet without a template: kubectl's `<unset>` with no newline.
        let mut bare = set.clone();
        bare.spec.template = None;
        assert!(describe_replica_set(&bare, &[], &[], at(10)).contains("Pod Template:\n  <unset>Events:"));
    }
}
