//! Feature gates that change what the kubelet does, with their default and
//! lock state per release (pkg/features/kube_features.go, as each release
//! tags it).

use super::Version;
use std::collections::BTreeMap;

/// The gates podsim's model consults.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Gate {
    /// KEP-5593: the kubelet config `crashLoopBackOff.maxContainerRestartPeriod`.
    KubeletCrashLoopBackOffMax,
    /// KEP-4603: CrashLoopBackOff starts at 1 s and caps at 60 s.
    ReduceDefaultCrashLoopBackOffDecay,
    /// A single-pod relist right after a sync that acted (PR #137362).
    PlegOnDemandRelist,
    /// The PodReadyToStartContainers condition.
    PodReadyToStartContainersCondition,
    /// Exec probes honour timeoutSeconds.
    ExecProbeTimeout,
    /// KEP-4781, when a kubelet restarts: on, the new process starts its
    /// containers' readiness and startup afresh (1.34 had no gate and did so).
    ChangeContainerStatusOnKubeletRestart,
}

/// Stage of a gate in one release.
#[derive(Copy, Clone, Debug)]
enum Stage {
    /// Does not exist in this release.
    Absent,
    /// Exists with this default and may be changed.
    Default(bool),
    /// Exists and is locked to this value.
    Locked(bool),
}

impl Gate {
    pub const ALL: [Gate; 6] = [
        Gate::KubeletCrashLoopBackOffMax,
        Gate::ReduceDefaultCrashLoopBackOffDecay,
        Gate::PlegOnDemandRelist,
        Gate::PodReadyToStartContainersCondition,
        Gate::ExecProbeTimeout,
        Gate::ChangeContainerStatusOnKubeletRestart,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Gate::KubeletCrashLoopBackOffMax => "KubeletCrashLoopBackOffMax",
            Gate::ReduceDefaultCrashLoopBackOffDecay => "ReduceDefaultCrashLoopBackOffDecay",
            Gate::PlegOnDemandRelist => "PLEGOnDemandRelist",
            Gate::PodReadyToStartContainersCondition => "PodReadyToStartContainersCondition",
            Gate::ExecProbeTimeout => "ExecProbeTimeout",
            Gate::ChangeContainerStatusOnKubeletRestart => "ChangeContainerStatusOnKubeletRestart",
        }
    }

    fn stage(self, v: Version) -> Stage {
        use Stage::*;
        use Version::*;
        match (self, v) {
            (Gate::KubeletCrashLoopBackOffMax, V1_34) => Default(false),
            (Gate::KubeletCrashLoopBackOffMax, _) => Default(true),
            (Gate::ReduceDefaultCrashLoopBackOffDecay, _) => Default(false),
            (Gate::PlegOnDemandRelist, V1_34 | V1_35) => Absent,
            (Gate::PlegOnDemandRelist, V1_36) => Default(false),
            (Gate::PlegOnDemandRelist, V1_37) => Locked(true),
            (Gate::PodReadyToStartContainersCondition, V1_37) => Locked(true),
            (Gate::PodReadyToStartContainersCondition, _) => Default(true),
            (Gate::ExecProbeTimeout, V1_34) => Default(true),
            (Gate::ExecProbeTimeout, _) => Locked(true),
            (Gate::ChangeContainerStatusOnKubeletRestart, V1_34) => Default(true),
            (Gate::ChangeContainerStatusOnKubeletRestart, _) => Default(false),
        }
    }
}

/// Gates known to the kubelet but whose "on" behaviour podsim does not model.
const UNMODELLED: &[&str] = &["EventedPLEG", "ContainerStopSignals", "RestartAllContainersOnContainerExits"];

/// The resolved gate values of one cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureGates {
    values: BTreeMap<&'static str, bool>,
}

impl FeatureGates {
    /// Defaults of `version` with `overrides` applied, rejecting what the
    /// kubelet would reject (unknown or locked gates) and what podsim cannot
    /// model.
    pub fn resolve(
        version: Version,
        overrides: &BTreeMap<String, bool>,
    ) -> Result<FeatureGates, Vec<(String, String)>> {
        let mut values = BTreeMap::new();
        for g in Gate::ALL {
            match g.stage(version) {
                Stage::Default(b) | Stage::Locked(b) => {
                    values.insert(g.name(), b);
                }
                Stage::Absent => {}
            }
        }
        let mut errors = Vec::new();
        for (name, &value) in overrides {
            let gate = Gate::ALL.iter().find(|g| g.name() == name);
            let problem = match gate.map(|g| (g, g.stage(version))) {
                Some((g, Stage::Default(_))) => {
                    values.insert(g.name(), value);
                    None
                }
                Some((_, Stage::Locked(locked))) if locked == value => None,
                Some((_, Stage::Locked(locked))) => {
                    Some(format!("cannot set feature gate {name} to {value}, feature is locked to {locked}"))
                }
                Some((_, Stage::Absent)) => {
                    Some(format!("unrecognized feature gate: {name} (not in Kubernetes {version})"))
                }
                None if UNMODELLED.contains(&name.as_str()) => {
                    if value {
                        Some(format!("podsim does not model feature gate {name} turned on"))
                    } else {
                        None
                    }
                }
                None => Some(format!("unrecognized feature gate: {name}")),
            };
            if let Some(p) = problem {
                errors.push((name.clone(), p));
            }
        }
        if errors.is_empty() { Ok(FeatureGates { values }) } else { Err(errors) }
    }

    pub fn enabled(&self, gate: Gate) -> bool {
        self.values.get(gate.name()).copied().unwrap_or(false)
    }

    /// Every gate podsim consults with its value, for the trace header.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, bool)> + '_ {
        self.values.iter().map(|(k, v)| (*k, *v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over(pairs: &[(&str, bool)]) -> BTreeMap<String, bool> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn defaults_follow_the_release() {
        let g34 = FeatureGates::resolve(Version::V1_34, &BTreeMap::new()).unwrap();
        let g37 = FeatureGates::resolve(Version::V1_37, &BTreeMap::new()).unwrap();
        assert!(!g34.enabled(Gate::KubeletCrashLoopBackOffMax));
        assert!(g37.enabled(Gate::KubeletCrashLoopBackOffMax));
        assert!(!g34.enabled(Gate::PlegOnDemandRelist));
        assert!(g37.enabled(Gate::PlegOnDemandRelist));
    }

    #[test]
    fn locked_unknown_and_absent_gates_are_rejected() {
        assert!(FeatureGates::resolve(Version::V1_37, &over(&[("PLEGOnDemandRelist", false)])).is_err());
        assert!(FeatureGates::resolve(Version::V1_37, &over(&[("NoSuchGate", true)])).is_err());
        assert!(FeatureGates::resolve(Version::V1_35, &over(&[("PLEGOnDemandRelist", true)])).is_err());
        assert!(FeatureGates::resolve(Version::V1_36, &over(&[("PLEGOnDemandRelist", true)])).is_ok());
        assert!(FeatureGates::resolve(Version::V1_36, &over(&[("EventedPLEG", true)])).is_err());
    }
}
