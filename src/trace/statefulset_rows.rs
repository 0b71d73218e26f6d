//! Timeline rows for StatefulSets: created, scaled or given a new template
//! or partition; each status the controller writes; the READY column of
//! `kubectl get statefulsets` when it changes.

use super::table::{Row, RowType};
use crate::api::statefulset::ApiStatefulSet;
use crate::kubectl::printers::stateful_set_ready;
use crate::spec::statefulset::{PodManagement, UpdateStrategy};
use crate::time::SimTime;
use crate::trace::record::WatchKind;
use foldhash::HashMap;
use std::sync::Arc;

/// The last version of each StatefulSet the rows have shown, by UID.
#[derive(Default)]
pub struct StatefulSetRows {
    sets: HashMap<Arc<str>, Arc<ApiStatefulSet>>,
}

impl StatefulSetRows {
    pub fn set(&mut self, t: SimTime, kind: WatchKind, s: &Arc<ApiStatefulSet>, out: &mut Vec<Row>) {
        let object = s.kubectl_name();
        let mut push = |what: String, why: String| {
            let kind = if why.starts_with("kubectl get") { RowType::Kubectl } else { RowType::Workload };
            out.push(Row { t, namespace: None, kind, object: object.clone(), what, why })
        };
        if kind == WatchKind::Deleted {
            self.sets.remove(&s.meta.uid);
            return push("deleted".into(), String::new());
        }
        let old = self.sets.insert(s.meta.uid.clone(), s.clone());
        let spec = &s.spec;
        let Some(old) = old else {
            let policy = match spec.pod_management {
                PodManagement::OrderedReady => "OrderedReady",
                PodManagement::Parallel => "Parallel",
            };
            let strategy = match spec.update_strategy {
                UpdateStrategy::OnDelete => "OnDelete".to_string(),
                UpdateStrategy::RollingUpdate { .. } => {
                    format!("RollingUpdate, partition {}", spec.update_strategy.partition())
                }
            };
            let why = format!("podManagementPolicy {policy}, updateStrategy {strategy}");
            push(format!("created, {} replicas", spec.replicas), why);
            return push(format!("READY {}", stateful_set_ready(s)), "kubectl get statefulsets".into());
        };
        let deleting = super::workload_rows::deleting(&old.meta, &s.meta);
        // A DELETE that finalizers hold bumps the generation too (`BeforeDelete`).
        let deleted_only = deleting.is_some() && old.spec.object.spec == s.spec.object.spec;
        if let Some((what, why)) = deleting {
            push(what, why);
        }
        if old.meta.generation != s.meta.generation && !deleted_only {
            let o = &old.spec;
            let mut changed = Vec::new();
            if o.replicas != spec.replicas {
                changed.push(format!("replicas {} → {}", o.replicas, spec.replicas));
            }
            if o.template != spec.template {
                changed.push("new pod template".to_string());
            }
            if o.update_strategy.partition() != spec.update_strategy.partition() {
                let (a, b) = (o.update_strategy.partition(), spec.update_strategy.partition());
                changed.push(format!("partition {a} → {b}"));
            }
            if changed.is_empty() {
                changed.push("spec changed".into());
            }
            push(changed.join(", "), format!("generation {}", s.meta.generation));
        }
        let (a, b) = (&old.status, &s.status);
        if a != b {
            let what = format!(
                "replicas={} ready={} current={} updated={} available={}",
                b.replicas, b.ready_replicas, b.current_replicas, b.updated_replicas, b.available_replicas
            );
            let why = match b.current_revision == b.update_revision {
                true => format!("revision {}, observedGeneration {}", b.update_revision, b.observed_generation),
                false => format!(
                    "currentRevision {}, updateRevision {}, observedGeneration {}",
                    b.current_revision, b.update_revision, b.observed_generation
                ),
            };
            if (a.replicas, a.ready_replicas, a.current_replicas, a.updated_replicas, a.available_replicas)
                != (b.replicas, b.ready_replicas, b.current_replicas, b.updated_replicas, b.available_replicas)
                || a.current_revision != b.current_revision
                || a.update_revision != b.update_revision
            {
                push(what, why);
            }
        }
        if stateful_set_ready(&old) != stateful_set_ready(s) {
            push(format!("READY {}", stateful_set_ready(s)), "kubectl get statefulsets".into());
        }
    }
}
