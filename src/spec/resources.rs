//! What a pod asks of its node: `resource.PodRequests`
//! (k8s.io/component-helpers/resource), as the scheduler's NodeResourcesFit
//! counts it, and the non-zero form its scoring uses.

use crate::api::quantity::Quantity;
use k8s_openapi::api::core::v1::{Container, PodSpec};

/// CPU in millicores and memory in bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    pub milli_cpu: i64,
    pub memory: i64,
}

impl std::ops::Add for Resources {
    type Output = Resources;

    fn add(self, o: Resources) -> Resources {
        Resources { milli_cpu: self.milli_cpu + o.milli_cpu, memory: self.memory + o.memory }
    }
}

impl Resources {
    fn max(self, o: Resources) -> Resources {
        Resources { milli_cpu: self.milli_cpu.max(o.milli_cpu), memory: self.memory.max(o.memory) }
    }

    pub fn is_zero(&self) -> bool {
        self.milli_cpu == 0 && self.memory == 0
    }
}

/// The scheduler's requests of a pod: exact, and with the scoring defaults.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PodRequests {
    /// `PodRequests`: what NodeResourcesFit filters on.
    pub exact: Resources,
    /// `NonMissingContainerRequests`: a container without a cpu (memory)
    /// request counts `DefaultMilliCPURequest` 100m (`DefaultMemoryRequest`
    /// 200Mi); what LeastAllocated scores with.
    pub non_zero: Resources,
}

/// `schedutil.DefaultMilliCPURequest` and `DefaultMemoryRequest`.
pub const DEFAULT_MILLI_CPU: i64 = 100;
pub const DEFAULT_MEMORY: i64 = 200 * 1024 * 1024;

/// A container's requests as stored (a quantity that does not parse was
/// refused by validation; it counts 0 here).
fn requests(c: &Container, non_zero: bool) -> Resources {
    let map = c.resources.as_ref().and_then(|r| r.requests.as_ref());
    let get = |name: &str| map.and_then(|m| m.get(name)).map(|q| Quantity::parse(&q.0).ok());
    let cpu = match get("cpu") {
        Some(q) => q.map_or(0, |q| q.milli_value()),
        None if non_zero => DEFAULT_MILLI_CPU as i128,
        None => 0,
    };
    let memory = match get("memory") {
        Some(q) => q.map_or(0, |q| q.value()),
        None if non_zero => DEFAULT_MEMORY as i128,
        None => 0,
    };
    let clamp = |v: i128| v.clamp(0, i64::MAX as i128) as i64;
    Resources { milli_cpu: clamp(cpu), memory: clamp(memory) }
}

/// `AggregateContainerRequests`: the regular containers and the sidecars
/// summed; each run-to-completion init container with the sidecars started
/// before it; the larger of the two.
fn aggregate(spec: &PodSpec, non_zero: bool) -> Resources {
    let mut total = spec.containers.iter().fold(Resources::default(), |t, c| t + requests(c, non_zero));
    let mut sidecars = Resources::default();
    let mut init_max = Resources::default();
    for c in spec.init_containers.iter().flatten() {
        let r = requests(c, non_zero);
        if c.restart_policy.as_deref() == Some("Always") {
            total = total + r;
            sidecars = sidecars + r;
            init_max = init_max.max(sidecars);
        } else {
            init_max = init_max.max(r + sidecars);
        }
    }
    total.max(init_max)
}

/// `PodRequests` and its non-zero form for a pod's spec.
pub fn pod_requests(spec: &PodSpec) -> PodRequests {
    PodRequests { exact: aggregate(spec, false), non_zero: aggregate(spec, true) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: serde_json::Value) -> PodSpec {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn app_containers_sum_and_init_containers_take_the_max() {
        let s = spec(serde_json::json!({
            "initContainers": [
                {"name": "migrate", "resources": {"requests": {"cpu": "2", "memory": "64Mi"}}},
                {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m", "memory": "32Mi"}}},
                {"name": "late", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}},
            ],
            "containers": [
                {"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}}},
                {"name": "b", "resources": {"requests": {"cpu": "500m"}}},
            ],
        }));
        let r = pod_requests(&s);
        // Regular 750m + sidecar 100m = 850m; migrate's 2 CPUs win; late's 1 GiB + the sidecar's 32 MiB win.
        assert_eq!(r.exact, Resources { milli_cpu: 2000, memory: (1024 + 32) << 20 });
        // b has no memory request: 200 MiB in the non-zero form.
        assert_eq!(r.non_zero.memory, (1024 + 32) << 20);
        let plain = pod_requests(&spec(serde_json::json!({"containers": [{"name": "a"}]})));
        assert!(plain.exact.is_zero());
        assert_eq!(plain.non_zero, Resources { milli_cpu: DEFAULT_MILLI_CPU, memory: DEFAULT_MEMORY });
    }
}
