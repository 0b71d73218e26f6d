//! NodeResourcesFit's `fitsRequest` (pkg/scheduler/framework/plugins/
//! noderesources/fit.go): what a node lacks for a pod's requests. The
//! scheduler's filter reports every shortfall; the kubelet's admission
//! (`AdmissionCheck`) the first.

use crate::cluster::Allocatable;
use crate::spec::resources::Resources;

/// A resource `fitsRequest` checks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Resource {
    Pods,
    Cpu,
    Memory,
}

impl Resource {
    pub fn as_str(self) -> &'static str {
        match self {
            Resource::Pods => "pods",
            Resource::Cpu => "cpu",
            Resource::Memory => "memory",
        }
    }
}

/// `InsufficientResource`: millicores for cpu, bytes for memory, a count for pods.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Insufficient {
    pub resource: Resource,
    pub requested: i64,
    pub used: i64,
    pub capacity: i64,
}

impl Insufficient {
    /// The filter's reason: `Too many pods`, `Insufficient cpu`, `Insufficient memory`.
    pub fn reason(&self) -> &'static str {
        match self.resource {
            Resource::Pods => "Too many pods",
            Resource::Cpu => "Insufficient cpu",
            Resource::Memory => "Insufficient memory",
        }
    }

    /// `Unresolvable`: the request exceeds the node's whole allocatable, so
    /// no eviction could make room (set for cpu and memory, PR #131345).
    pub fn unresolvable(&self) -> bool {
        self.resource != Resource::Pods && self.requested > self.capacity
    }
}

/// Every shortfall, in `fitsRequest`'s order: pods, cpu, memory. A resource
/// the pod does not request never falls short; one more pod always counts.
pub fn fits_request(requested: Resources, used: Resources, pods: i64, allocatable: &Allocatable) -> Vec<Insufficient> {
    let mut out = Vec::new();
    if pods + 1 > allocatable.pods {
        out.push(Insufficient { resource: Resource::Pods, requested: 1, used: pods, capacity: allocatable.pods });
    }
    let checks = [
        (Resource::Cpu, requested.milli_cpu, used.milli_cpu, allocatable.milli_cpu),
        (Resource::Memory, requested.memory, used.memory, allocatable.memory),
    ];
    for (resource, requested, used, capacity) in checks {
        if requested > 0 && requested > capacity - used {
            out.push(Insufficient { resource, requested, used, capacity });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shortfall_in_order() {
        let a = Allocatable { milli_cpu: 4000, memory: 8 << 30, pods: 2 };
        let want = Resources { milli_cpu: 1000, memory: 1 << 30 };
        assert!(fits_request(want, Resources { milli_cpu: 3000, memory: 7 << 30 }, 1, &a).is_empty());
        let short = fits_request(want, Resources { milli_cpu: 3500, memory: 15 << 29 }, 2, &a);
        let reasons: Vec<&str> = short.iter().map(Insufficient::reason).collect();
        assert_eq!(reasons, ["Too many pods", "Insufficient cpu", "Insufficient memory"]);
        assert!(short.iter().all(|s| !s.unresolvable()));
        let huge = fits_request(Resources { milli_cpu: 5000, memory: 0 }, Resources::default(), 0, &a);
        assert_eq!(huge, [Insufficient { resource: Resource::Cpu, requested: 5000, used: 0, capacity: 4000 }]);
        assert!(huge[0].unresolvable());
    }
}
