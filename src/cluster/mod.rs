//! Cluster profiles (`models/clusters/*.yaml`): the Kubernetes version and its
//! feature gates, the kubelet's configuration, the nodes, and every latency
//! the model uses, each a distribution.

mod features;
mod network;
pub mod registry;
mod version;

pub use features::{FeatureGates, Gate};
pub use network::{Cidr, EndpointSliceConfig, KubeProxyConfig, PerEndpoint};
pub use version::Version;

use crate::dist::Dist;
use crate::error::{Error, Problem, SourceFile};
use crate::source::parse_single;
use crate::time::SimDuration;
use k8s_openapi::api::core::v1::Taint;
use registry::{Registry, RegistryFile};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Latencies of the layers, as written in a profile (camelCase keys).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Latencies {
    /// Pod created → the scheduler's binding is stored.
    pub scheduling: Dist,
    /// API server change → a watcher (the kubelet) receives it.
    pub watch: Dist,
    /// A status PATCH from the kubelet, request to response.
    pub api_write: Dist,
    /// The fixed cost of one pod sync before its runtime actions (status
    /// generation, volume and runtime checks).
    pub pod_sync: Dist,
    /// `RunPodSandbox`, network setup included.
    pub sandbox_create: Dist,
    /// `StopPodSandbox`.
    pub sandbox_stop: Dist,
    /// Pulling an image the node does not have.
    pub image_pull: Dist,
    /// Pulling an image the node already has (pullPolicy Always: a manifest check).
    pub image_pull_cached: Dist,
    pub container_create: Dist,
    pub container_start: Dist,
    /// Extra time of an exec probe (`ExecSync` setup) before the command answers.
    pub exec_probe: Dist,
    /// One PLEG relist of the runtime.
    pub pleg_relist: Dist,
    /// The on-demand single-pod relist after a sync (1.37, or 1.36 with the gate).
    pub on_demand_relist: Dist,
    /// `SyncTerminatedPod`'s cleanup: volumes unmounted, the pod cgroup removed.
    pub pod_cleanup: Dist,
    /// A readiness-gate controller's status PATCH after it decided (beyond
    /// its own configured delay).
    pub controller_write: Dist,
    /// A packet from one node (or pod) to another, one way.
    pub network: Dist,
    /// A connection to a pod IP whose interface is gone: the neighbour
    /// lookup fails (3 ARP probes, 1 s apart) and the client gets
    /// `No route to host`.
    pub no_route_to_host: Dist,
    /// A claim's volume provisioned and the claim bound (the external
    /// provisioner and the PV controller), from when it may be.
    pub volume_provision: Dist,
}

impl Default for Latencies {
    fn default() -> Self {
        let u = |a: u64, b: u64| Dist::Uniform(SimDuration::from_millis(a), SimDuration::from_millis(b));
        Latencies {
            scheduling: u(5, 30),
            watch: u(2, 20),
            api_write: u(5, 25),
            pod_sync: u(2, 10),
            sandbox_create: u(400, 1200),
            sandbox_stop: u(100, 400),
            image_pull: u(2000, 8000),
            image_pull_cached: u(300, 1000),
            container_create: u(20, 80),
            container_start: u(50, 200),
            exec_probe: u(20, 80),
            pleg_relist: u(2, 15),
            on_demand_relist: u(1, 10),
            pod_cleanup: u(100, 1000),
            controller_write: u(5, 25),
            network: u(0, 1),
            no_route_to_host: Dist::Fixed(SimDuration::from_secs(3)),
            volume_provision: u(1000, 3000),
        }
    }
}

/// The kubelet configuration fields the model reads.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct KubeletConfig {
    /// `syncFrequency`: resync after a successful sync (jittered up to +50 %).
    pub sync_frequency: Dist,
    /// `crashLoopBackOff.maxContainerRestartPeriod` (KubeletCrashLoopBackOffMax).
    pub max_container_restart_period: Option<Dist>,
    /// `serializeImagePulls`: one image pull at a time per node (default true).
    pub serialize_image_pulls: bool,
    /// `maxParallelImagePulls`: with parallel pulls, at most this many at once.
    pub max_parallel_image_pulls: Option<i32>,
}

impl Default for KubeletConfig {
    fn default() -> Self {
        KubeletConfig {
            sync_frequency: Dist::Fixed(SimDuration::from_secs(60)),
            max_container_restart_period: None,
            serialize_image_pulls: true,
            max_parallel_image_pulls: None,
        }
    }
}

/// A node as written in a profile.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeFile {
    pub name: String,
    #[serde(default)]
    pub ip: Option<String>,
    /// Images already on the node (`"*"` for every image).
    #[serde(default)]
    pub images: Vec<String>,
    /// `spec.taints`, e.g. kind's `node-role.kubernetes.io/control-plane:NoSchedule`.
    #[serde(default)]
    pub taints: Vec<Taint>,
    /// `status.allocatable`: `{cpu: 4, memory: 16Gi, pods: 110}`.
    #[serde(default)]
    pub allocatable: AllocatableFile,
    /// `metadata.labels` besides the ones the kubelet sets itself
    /// (`kubernetes.io/hostname`, `kubernetes.io/os`, `kubernetes.io/arch`).
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
}

/// A node's `status.allocatable` as written; unset keys take the defaults.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllocatableFile {
    #[serde(default)]
    pub cpu: Option<serde_json::Value>,
    #[serde(default)]
    pub memory: Option<serde_json::Value>,
    #[serde(default)]
    pub pods: Option<i64>,
}

/// What the scheduler may place on a node: capacity less the kubelet's
/// reservations and hard eviction thresholds (`GetNodeAllocatableReservation`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Allocatable {
    pub milli_cpu: i64,
    pub memory: i64,
    /// `maxPods` (the kubelet's default 110).
    pub pods: i64,
}

impl Allocatable {
    /// podsim's node when a profile gives none: 4 CPUs, 16 GiB, 110 pods.
    pub const DEFAULT: Allocatable = Allocatable { milli_cpu: 4000, memory: 16 << 30, pods: 110 };
}

/// A profile's allocatable, or the problems of its fields (under `at`).
fn allocatable(f: &AllocatableFile, at: &str) -> Result<Allocatable, Vec<(String, String)>> {
    use crate::api::quantity::Quantity;
    let mut problems = Vec::new();
    let mut quantity = |v: &Option<serde_json::Value>, key: &str| -> Option<Quantity> {
        let text = match v.as_ref()? {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            other => {
                problems.push((format!("{at}.{key}"), format!("{other}: a quantity, e.g. 4 or 500m, 16Gi")));
                return None;
            }
        };
        match Quantity::parse(&text) {
            Ok(q) if q.is_negative() => {
                problems.push((format!("{at}.{key}"), "must be greater than or equal to 0".into()));
                None
            }
            Ok(q) => Some(q),
            Err(e) => {
                problems.push((format!("{at}.{key}"), format!("{text:?}: {e}")));
                None
            }
        }
    };
    let d = Allocatable::DEFAULT;
    let cpu = quantity(&f.cpu, "cpu").map_or(d.milli_cpu, |q| q.milli_value().min(i64::MAX as i128) as i64);
    let memory = quantity(&f.memory, "memory").map_or(d.memory, |q| q.value().min(i64::MAX as i128) as i64);
    let pods = f.pods.unwrap_or(d.pods);
    if pods < 0 {
        problems.push((format!("{at}.pods"), "must be greater than or equal to 0".into()));
    }
    match problems.is_empty() {
        true => Ok(Allocatable { milli_cpu: cpu, memory, pods }),
        false => Err(problems),
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ProfileFile {
    #[serde(default)]
    name: Option<String>,
    #[serde(default, deserialize_with = "version_text")]
    kubernetes: Option<String>,
    #[serde(default)]
    feature_gates: BTreeMap<String, bool>,
    #[serde(default)]
    kubelet: KubeletConfig,
    #[serde(default)]
    nodes: Option<Vec<NodeFile>>,
    #[serde(default)]
    latencies: Latencies,
    #[serde(default, rename = "serviceCIDR")]
    service_cidr: Option<String>,
    #[serde(default)]
    kube_proxy: KubeProxyConfig,
    #[serde(default)]
    endpoint_slice_controller: EndpointSliceConfig,
    #[serde(default)]
    registry: RegistryFile,
}

/// A node of the simulated cluster.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: Arc<str>,
    pub ip: Arc<str>,
    pub images: Vec<String>,
    pub taints: Vec<Taint>,
    pub allocatable: Allocatable,
    /// The profile's labels (the kubelet's own are in [`Node::label`]).
    pub labels: BTreeMap<String, String>,
}

impl Node {
    /// A label of the node: the profile's, or one the kubelet sets on
    /// registration (`kubernetes.io/hostname`, `kubernetes.io/os: linux`,
    /// `kubernetes.io/arch: amd64`; `initialNode` in kubelet_node_status.go).
    pub fn label(&self, key: &str) -> Option<&str> {
        match key {
            _ if self.labels.contains_key(key) => self.labels.get(key).map(String::as_str),
            "kubernetes.io/hostname" => Some(&self.name),
            "kubernetes.io/os" => Some("linux"),
            "kubernetes.io/arch" => Some("amd64"),
            _ => None,
        }
    }

    /// A node with no images or taints and the default allocatable, at 10.0.0.1.
    pub fn bare(name: &str) -> Node {
        Node {
            name: Arc::from(name),
            ip: Arc::from("10.0.0.1"),
            images: Vec::new(),
            taints: Vec::new(),
            allocatable: Allocatable::DEFAULT,
            labels: BTreeMap::new(),
        }
    }

    /// The profile puts `image` on the node before the run (`"*"`: every image).
    pub fn has_image(&self, image: &str) -> bool {
        self.images.iter().any(|i| i == "*" || i == image)
    }
}

/// A resolved cluster profile.
#[derive(Clone, Debug)]
pub struct Cluster {
    pub name: String,
    pub version: Version,
    pub gates: FeatureGates,
    pub kubelet: KubeletConfig,
    pub nodes: Vec<Node>,
    pub latencies: Latencies,
    /// kube-apiserver `--service-cluster-ip-range`.
    pub service_cidr: Cidr,
    pub kube_proxy: KubeProxyConfig,
    pub endpoint_slice: EndpointSliceConfig,
    /// The CrashLoopBackOff bounds this version and these gates give.
    pub backoff_initial: SimDuration,
    pub backoff_max: SimDuration,
    /// What the image registry answers for each image.
    pub registry: Registry,
    /// The profile as written, to re-resolve it for another version.
    file: ProfileFile,
}

impl Default for Cluster {
    fn default() -> Self {
        let file: ProfileFile = serde_json::from_value(serde_json::json!({})).unwrap_or_else(|_| unreachable!());
        resolve(file).unwrap_or_else(|_| unreachable!("the built-in profile is valid"))
    }
}

impl Cluster {
    /// Reads a profile file; unset fields take the built-in defaults
    /// (the values of `models/clusters/default.yaml`).
    pub fn load(file: &Arc<SourceFile>) -> Result<Cluster, Error> {
        let doc = parse_single(file)?;
        let parsed: ProfileFile = doc.decode().map_err(Error::input)?;
        resolve(parsed)
            .map_err(|problems| Error::Input(problems.into_iter().map(|(path, msg)| doc.problem(&path, msg)).collect()))
    }

    /// The same profile for another Kubernetes version: gate defaults and
    /// everything derived from them follow the version.
    pub fn with_version(&self, version: Version) -> Result<Cluster, Problem> {
        let file = ProfileFile { kubernetes: Some(version.to_string()), ..self.file.clone() };
        resolve(file).map_err(|e| {
            let text: Vec<String> = e.into_iter().map(|(path, m)| format!("{path}: {m}")).collect();
            Problem::error(format!("with Kubernetes {version}: {}", text.join("; ")))
        })
    }
}

/// `kubernetes: "1.37"`, or unquoted `1.37` (a YAML float; minors have two digits).
fn version_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Text {
        S(String),
        F(f64),
    }
    Ok(Option::<Text>::deserialize(d)?.map(|t| match t {
        Text::S(s) => s,
        Text::F(f) => format!("{f:.2}"),
    }))
}

/// The most nodes a profile may have: Kubernetes' tested limit for one cluster.
pub const MAX_NODES: usize = 5000;

fn resolve(f: ProfileFile) -> Result<Cluster, Vec<(String, String)>> {
    let file = f.clone();
    let mut problems = Vec::new();
    let version = match f.kubernetes.as_deref().map(Version::parse) {
        None => Version::DEFAULT,
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            problems.push(("kubernetes".to_string(), e));
            Version::DEFAULT
        }
    };
    let gates = match FeatureGates::resolve(version, &f.feature_gates) {
        Ok(g) => g,
        Err(errors) => {
            problems.extend(errors.into_iter().map(|(gate, m)| (format!("featureGates.{gate}"), m)));
            FeatureGates::resolve(version, &BTreeMap::new()).unwrap_or_else(|_| unreachable!())
        }
    };
    let node_files = f.nodes.unwrap_or_else(|| {
        vec![NodeFile {
            name: "node-1".into(),
            ip: None,
            images: Vec::new(),
            taints: Vec::new(),
            allocatable: AllocatableFile::default(),
            labels: BTreeMap::new(),
        }]
    });
    if node_files.is_empty() {
        problems.push(("nodes".to_string(), "a cluster needs at least one node".to_string()));
    }
    if node_files.len() > MAX_NODES {
        let message = format!(
            "{} nodes: podsim models clusters of at most {MAX_NODES} nodes, Kubernetes' own tested limit \
             (kubernetes.io/docs/setup/best-practices/cluster-large)",
            node_files.len()
        );
        problems.push(("nodes".to_string(), message));
        return Err(problems);
    }
    let mut nodes = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (i, n) in node_files.into_iter().enumerate() {
        if !names.insert(n.name.clone()) {
            problems.push((format!("nodes[{i}].name"), format!("Duplicate value: {:?}", n.name)));
        }
        // 10.0.0.10, 10.0.0.11, …, on into 10.0.1.0 past the 246th node.
        let ip = n.ip.unwrap_or_else(|| format!("10.0.{}.{}", (10 + i) / 256, (10 + i) % 256));
        for (j, t) in n.taints.iter().enumerate() {
            // validateNodeTaints
            if t.key.is_empty() {
                problems.push((format!("nodes[{i}].taints[{j}].key"), "Required value".to_string()));
            }
            if !["NoSchedule", "PreferNoSchedule", "NoExecute"].contains(&t.effect.as_str()) {
                problems.push((
                    format!("nodes[{i}].taints[{j}].effect"),
                    format!(
                        "Unsupported value: {:?}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                        t.effect
                    ),
                ));
            }
        }
        let allocatable = allocatable(&n.allocatable, &format!("nodes[{i}].allocatable")).unwrap_or_else(|e| {
            problems.extend(e);
            Allocatable::DEFAULT
        });
        nodes.push(Node {
            name: Arc::from(n.name),
            ip: Arc::from(ip),
            images: n.images,
            taints: n.taints,
            allocatable,
            labels: n.labels,
        });
    }
    let reduced = gates.enabled(Gate::ReduceDefaultCrashLoopBackOffDecay);
    let (mut initial, mut max) = if reduced {
        (SimDuration::from_secs(1), SimDuration::from_secs(60))
    } else {
        (SimDuration::from_secs(10), SimDuration::from_secs(300))
    };
    match (&f.kubelet.max_container_restart_period, gates.enabled(Gate::KubeletCrashLoopBackOffMax)) {
        (Some(Dist::Fixed(m)), true) if *m >= SimDuration::from_secs(1) && *m <= SimDuration::from_secs(300) => {
            max = *m;
            initial = initial.min(max);
        }
        (Some(Dist::Fixed(_)), true) => problems.push((
            "kubelet.maxContainerRestartPeriod".into(),
            "must be between 1s and 300s (crashLoopBackOff.maxContainerRestartPeriod)".into(),
        )),
        (Some(_), true) => {
            problems.push(("kubelet.maxContainerRestartPeriod".into(), "must be a fixed duration".into()))
        }
        (Some(_), false) => problems.push((
            "kubelet.maxContainerRestartPeriod".into(),
            format!("needs feature gate KubeletCrashLoopBackOffMax, which is off in Kubernetes {version}"),
        )),
        (None, _) => {}
    }
    // ValidateKubeletConfiguration's image pull rules.
    match f.kubelet.max_parallel_image_pulls {
        Some(n) if n < 1 => problems.push((
            "kubelet.maxParallelImagePulls".into(),
            format!("invalid configuration: maxParallelImagePulls {n} must be a positive number"),
        )),
        Some(n) if n > 1 && f.kubelet.serialize_image_pulls => problems.push((
            "kubelet.maxParallelImagePulls".into(),
            "invalid configuration: maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false".into(),
        )),
        _ => {}
    }
    let service_cidr = match f.service_cidr.as_deref().map(Cidr::parse) {
        None => Cidr::SERVICES,
        Some(Ok(c)) => c,
        Some(Err(e)) => {
            problems.push(("serviceCIDR".into(), e));
            Cidr::SERVICES
        }
    };
    let es = &f.endpoint_slice_controller;
    if !(1..=1000).contains(&es.max_endpoints_per_slice) {
        problems.push(("endpointSliceController.maxEndpointsPerSlice".into(), "must be between 1 and 1000".into()));
    }
    if !(1..=50).contains(&es.concurrent_service_endpoint_syncs) {
        problems
            .push(("endpointSliceController.concurrentServiceEndpointSyncs".into(), "must be between 1 and 50".into()));
    }
    let registry = Registry::new(&f.registry).unwrap_or_else(|e| {
        problems.extend(e);
        Registry::default()
    });
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Cluster {
        name: f.name.unwrap_or_else(|| "default".to_string()),
        version,
        gates,
        kubelet: f.kubelet,
        nodes,
        latencies: f.latencies,
        service_cidr,
        kube_proxy: f.kube_proxy,
        endpoint_slice: f.endpoint_slice_controller,
        backoff_initial: initial,
        backoff_max: max,
        registry,
        file,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `models/clusters/default.yaml` states podsim's built-in defaults.
    #[test]
    fn the_shipped_default_profile_is_the_built_in_one() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/models/clusters/default.yaml");
        let text = std::fs::read_to_string(path).unwrap();
        let file = Arc::new(SourceFile { name: path.into(), text });
        let loaded = Cluster::load(&file).unwrap();
        let built_in = Cluster::default();
        assert_eq!(format!("{:?}", loaded.latencies), format!("{:?}", built_in.latencies));
        assert_eq!(format!("{:?}", loaded.kubelet), format!("{:?}", built_in.kubelet));
        assert_eq!(format!("{:?}", loaded.kube_proxy), format!("{:?}", built_in.kube_proxy));
        assert_eq!(format!("{:?}", loaded.endpoint_slice), format!("{:?}", built_in.endpoint_slice));
        assert_eq!(loaded.service_cidr, built_in.service_cidr);
        assert_eq!(loaded.version, built_in.version);
        assert_eq!(loaded.gates, built_in.gates);
        assert_eq!(loaded.nodes.len(), 1);
        assert_eq!((&*loaded.nodes[0].name, &*loaded.nodes[0].ip), (&*built_in.nodes[0].name, &*built_in.nodes[0].ip));
        assert_eq!(loaded.nodes[0].allocatable, built_in.nodes[0].allocatable);
    }

    #[test]
    fn kind_is_1_35_on_one_node() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/models/clusters/kind.yaml");
        let file = Arc::new(SourceFile { name: path.into(), text: std::fs::read_to_string(path).unwrap() });
        let kind = Cluster::load(&file).unwrap();
        assert_eq!(kind.version, Version::V1_35);
        assert_eq!(&*kind.nodes[0].name, "kind-control-plane");
        assert!(kind.gates.enabled(Gate::KubeletCrashLoopBackOffMax));
    }
}
