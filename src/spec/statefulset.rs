//! StatefulSets (apps/v1) as the simulator runs them: defaulted and
//! validated by `manifest::workloads::statefulset`, so the controller only
//! ever sees complete specs.

use super::{BindingMode, IntOrPercent, PodTemplate};
use k8s_openapi::api::apps::v1::StatefulSet;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `spec.podManagementPolicy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PodManagement {
    /// One pod at a time, each Running and Ready before the next.
    OrderedReady,
    /// Every pod at once, none waiting on another.
    Parallel,
}

/// `spec.updateStrategy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UpdateStrategy {
    /// `rolling`: `spec.updateStrategy.rollingUpdate`, `None` when not
    /// written with an explicit `type: RollingUpdate` (the defaults add one
    /// only when the type is empty).
    RollingUpdate { rolling: Option<Rolling> },
    /// Pods take the new template only when deleted.
    OnDelete,
}

/// `spec.updateStrategy.rollingUpdate`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rolling {
    /// Ordinals below `start + partition` keep the current revision.
    pub partition: u32,
    /// As stored: the API server drops it where `MaxUnavailableStatefulSet` is off.
    pub max_unavailable: Option<IntOrPercent>,
}

impl UpdateStrategy {
    /// The partition the controller reads (0 without a `rollingUpdate`).
    pub fn partition(&self) -> u32 {
        match self {
            UpdateStrategy::RollingUpdate { rolling: Some(r) } => r.partition,
            _ => 0,
        }
    }
}

/// One value of `spec.persistentVolumeClaimRetentionPolicy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Retention {
    Retain,
    Delete,
}

impl Retention {
    pub fn as_str(self) -> &'static str {
        match self {
            Retention::Retain => "Retain",
            Retention::Delete => "Delete",
        }
    }
}

/// One of `spec.volumeClaimTemplates`: each pod gets a claim
/// `<template>-<set>-<ordinal>` made from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimTemplate {
    pub name: Arc<str>,
    pub storage_class: Option<Arc<str>>,
    pub access_modes: Vec<Arc<str>>,
    pub storage: Arc<str>,
    pub volume_mode: Arc<str>,
    /// Its class's binding mode, resolved with the run's StorageClasses.
    pub binding: BindingMode,
}

/// A StatefulSet.
#[derive(Clone, Debug)]
pub struct StatefulSetSpec {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub replicas: u32,
    /// `spec.selector.matchLabels` (matchExpressions are not simulated).
    pub selector: BTreeMap<String, String>,
    pub template: PodTemplate,
    /// `spec.serviceName`: the pods' `subdomain` (may be empty since 1.33).
    pub service_name: String,
    pub pod_management: PodManagement,
    pub update_strategy: UpdateStrategy,
    pub min_ready_seconds: u32,
    pub revision_history_limit: i32,
    /// `spec.ordinals.start`.
    pub start: u32,
    pub claim_templates: Vec<ClaimTemplate>,
    pub when_deleted: Retention,
    pub when_scaled: Retention,
    /// The defaulted API object, for rendering and revisions.
    pub object: StatefulSet,
}

impl StatefulSetSpec {
    /// `kubectl scale statefulset/NAME --replicas=N`.
    pub fn with_replicas(&self, replicas: u32) -> StatefulSetSpec {
        let mut s = self.clone();
        s.replicas = replicas;
        s.object.spec.replicas = Some(replicas as i32);
        s
    }
}
