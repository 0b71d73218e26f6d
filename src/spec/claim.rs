//! PersistentVolumeClaims as the scheduler and the volume binding read them.

use std::sync::Arc;

/// `volumeBindingMode` of the claim's StorageClass.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BindingMode {
    /// The PV controller binds (provisions) the claim as soon as it exists;
    /// the scheduler waits for it (`pod has unbound immediate
    /// PersistentVolumeClaims`).
    Immediate,
    /// The scheduler picks the node first, then its PreBind has the claim
    /// provisioned there and waits for it to be bound.
    WaitForFirstConsumer,
}

/// A PersistentVolumeClaim of the manifests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimSpec {
    pub name: Arc<str>,
    pub namespace: Arc<str>,
    /// `spec.storageClassName`; `None` takes the cluster's default class.
    pub storage_class: Option<Arc<str>>,
    pub binding: BindingMode,
    /// `spec.accessModes`, as written (`ReadWriteOnce`, …).
    pub access_modes: Vec<Arc<str>>,
    /// `spec.resources.requests.storage`, as written (`1Gi`): the size of
    /// the volume a provisioner makes for it.
    pub storage: Arc<str>,
    /// `spec.volumeMode`, defaulted to `Filesystem` (`SetDefaults_PersistentVolumeClaimSpec`).
    pub volume_mode: Arc<str>,
}

/// A StorageClass of the manifests: its name, binding mode and whether it is
/// the default (`storageclass.kubernetes.io/is-default-class: "true"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageClass {
    pub name: Arc<str>,
    pub binding: BindingMode,
    pub default: bool,
}

impl BindingMode {
    /// The class a claim names, else the default one the manifests declare,
    /// else `WaitForFirstConsumer`: the mode of the default class of kind,
    /// GKE, EKS and AKS. A class's own default is `Immediate`
    /// (`SetDefaults_StorageClass`).
    pub fn of(class: Option<&str>, classes: &[StorageClass]) -> BindingMode {
        let found = match class {
            Some(name) => classes.iter().find(|c| &*c.name == name),
            None => classes.iter().find(|c| c.default),
        };
        found.map_or(BindingMode::WaitForFirstConsumer, |c| c.binding)
    }
}
