//! A StatefulSet in the API server (apps/v1): the spec as the user wrote it, the status as the
//! StatefulSet controller last wrote it (`updateStatefulSetStatus`).

use super::controllerrevision::NewRevision;
use super::meta::Meta;
use super::store::{Change, Object, Precondition, WithStatus, stored_fields};
use super::{ApiServer, uid};
use crate::ids::{RevisionId, StsId};
use crate::spec::statefulset::UpdateStrategy;
use crate::spec::{OwnerRef, PodTemplate, StatefulSetSpec};
use crate::time::SimTime;
use crate::trace::Trace;
use crate::trace::record::{Record, WatchKind};
use std::sync::Arc;

/// `history.ControllerRevisionHashLabel`: a StatefulSet revision's hash.
pub const REVISION_HASH_LABEL: &str = "controller.kubernetes.io/hash";

/// `status` (`StatefulSetStatus`): the counts `updateStatus` computes, the
/// revisions, and the generation they saw. `conditions` are never set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StsStatus {
    pub observed_generation: i64,
    pub replicas: u32,
    pub ready_replicas: u32,
    pub current_replicas: u32,
    pub updated_replicas: u32,
    pub available_replicas: u32,
    /// Names of ControllerRevisions (`<set>-<hash>`); empty before the first sync.
    pub current_revision: Arc<str>,
    pub update_revision: Arc<str>,
    pub collision_count: u32,
}

#[derive(Clone, Debug)]
pub struct ApiStatefulSet {
    pub id: StsId,
    /// `generation` is 1 on create, +1 on each change of the spec.
    pub meta: Meta,
    pub spec: Arc<StatefulSetSpec>,
    pub status: StsStatus,
}

impl Object for ApiStatefulSet {
    type Id = StsId;
    stored_fields!();
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn namespace(&self) -> &str {
        &self.spec.namespace
    }
    fn watch_record(kind: WatchKind, sts: Arc<Self>) -> Record {
        Record::StatefulSet { kind, sts }
    }
}

/// `statefulSetStatusStrategy`: the status and nothing else.
impl WithStatus for ApiStatefulSet {
    type Status<'a> = &'a mut StsStatus;
    fn status(&mut self) -> &mut StsStatus {
        &mut self.status
    }
}

impl ApiStatefulSet {
    /// The owner reference its pods and revisions carry.
    pub fn as_owner(&self) -> OwnerRef {
        OwnerRef { kind: "StatefulSet", name: Arc::from(self.spec.name.as_str()), uid: self.meta.uid.clone() }
    }

    /// `statefulset.apps/NAME`'s kubectl name.
    pub fn kubectl_name(&self) -> String {
        format!("statefulset/{}", self.spec.name)
    }
}

/// `dropStatefulSetDisabledFields` (pkg/registry/apps/statefulset/strategy.go):
/// with `MaxUnavailableStatefulSet` off, `rollingUpdate.maxUnavailable` is
/// dropped silently, unless the stored object (`old`) already uses it.
pub fn drop_disabled_fields(
    spec: Arc<StatefulSetSpec>,
    old: Option<&StatefulSetSpec>,
    gate: bool,
) -> Arc<StatefulSetSpec> {
    let uses = |s: &StatefulSetSpec| matches!(s.update_strategy, UpdateStrategy::RollingUpdate { rolling: Some(r) } if r.max_unavailable.is_some());
    if gate || !uses(&spec) || old.is_some_and(uses) {
        return spec;
    }
    let mut s = (*spec).clone();
    if let UpdateStrategy::RollingUpdate { rolling: Some(r) } = &mut s.update_strategy {
        r.max_unavailable = None;
    }
    let rolling = s.object.spec.update_strategy.as_mut().and_then(|u| u.rolling_update.as_mut());
    if let Some(r) = rolling {
        r.max_unavailable = None;
    }
    Arc::new(s)
}

impl ApiServer {
    pub fn stateful_sets(&self) -> &[ApiStatefulSet] {
        self.stateful_sets.all()
    }

    pub fn stateful_set(&self, id: StsId) -> &ApiStatefulSet {
        self.stateful_sets.get(id)
    }

    /// The live pod of that name (a GET by name).
    pub fn pod_named(&self, namespace: &str, name: &str) -> Option<crate::ids::PodId> {
        self.pods.named(namespace, name)
    }

    /// POST a StatefulSet: generation 1, an empty status.
    pub fn create_stateful_set(&mut self, spec: Arc<StatefulSetSpec>, now: SimTime, trace: &mut Trace) -> StsId {
        let uid = Arc::from(uid(&mut self.sts_uids));
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let status = StsStatus::default();
        self.stateful_sets.create(uid, c, |id, meta| ApiStatefulSet { id, meta, spec, status })
    }

    /// PUT a StatefulSet (`kubectl apply` or `scale`): any spec change bumps
    /// the generation (`statefulSetStrategy.PrepareForUpdate`); an identical one stores nothing.
    pub fn update_stateful_set(&mut self, id: StsId, spec: Arc<StatefulSetSpec>, now: SimTime, trace: &mut Trace) {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let _ = self.stateful_sets.write(id, Precondition::None, c, |s| {
            if s.spec.object.spec == spec.object.spec {
                return Change::None;
            }
            s.spec = spec;
            Change::NewGeneration
        });
    }

    /// `UpdateStatus`: nothing is stored when it is unchanged.
    pub fn update_stateful_set_status(&mut self, id: StsId, status: StsStatus, now: SimTime, trace: &mut Trace) {
        let c = &mut Self::commit(&mut self.resource_version, now, trace);
        let _ = self.stateful_sets.write_status(id, Precondition::None, c, |stored| {
            let changed = *stored != status;
            *stored = status;
            changed
        });
    }

    /// `newRevision` (stateful_set_utils.go): the set's template, its labels
    /// with `controller.kubernetes.io/hash`, the set's annotations.
    pub fn create_revision(
        &mut self,
        set: StsId,
        name: Arc<str>,
        revision: i64,
        template: Arc<PodTemplate>,
        now: SimTime,
        trace: &mut Trace,
    ) -> Option<RevisionId> {
        let s = self.stateful_sets.get(set);
        let hash = name.rsplit_once('-').map_or("", |(_, h)| h);
        let mut labels = template.labels.clone();
        labels.insert(REVISION_HASH_LABEL.into(), hash.into());
        let new = NewRevision {
            name: name.to_string(),
            namespace: s.spec.namespace.clone(),
            labels,
            annotations: s.spec.object.metadata.annotations.clone().unwrap_or_default(),
            owner: s.as_owner(),
            revision,
            template,
        };
        self.create_controller_revision(new, now, trace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SourceFile;
    use crate::manifest::workloads::read_stateful_set;
    use crate::source::parse_documents;

    fn set(extra: &str) -> Arc<StatefulSetSpec> {
        let text = format!(
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: web}}\nspec:\n  replicas: 3\n{extra}  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      containers: [{{name: web, image: nginx}}]\n"
        );
        let file = Arc::new(SourceFile { name: "s.yaml".into(), text });
        let doc = parse_documents(&file).unwrap().remove(0);
        Arc::new(read_stateful_set(&doc, doc.to_json(), "", &mut Vec::new()).unwrap())
    }

    /// Gate off: maxUnavailable is dropped from a new object, kept on one
    /// that already has it; gate on: kept.
    #[test]
    fn max_unavailable_is_dropped_where_the_gate_is_off() {
        let with = set("  updateStrategy: {rollingUpdate: {maxUnavailable: 2}}\n");
        let has = |s: &StatefulSetSpec| {
            let typed = matches!(s.update_strategy, UpdateStrategy::RollingUpdate { rolling: Some(r) } if r.max_unavailable.is_some());
            let object = s
                .object
                .spec
                .update_strategy
                .as_ref()
                .and_then(|u| u.rolling_update.as_ref())
                .and_then(|r| r.max_unavailable.as_ref());
            assert_eq!(typed, object.is_some(), "the typed spec and the object agree");
            typed
        };
        assert!(!has(&drop_disabled_fields(with.clone(), None, false)));
        assert!(has(&drop_disabled_fields(with.clone(), Some(&with), false)), "the stored object uses it");
        assert!(has(&drop_disabled_fields(with.clone(), None, true)));
        assert_eq!(drop_disabled_fields(with.clone(), None, false).update_strategy.partition(), 0);
    }
}
