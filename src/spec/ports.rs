//! Which ports a container's process binds when its behaviour does not say.
//!
//! `containerPort` is informational to Kubernetes: the pod has one network
//! namespace, and a probe or hook dials the pod IP whatever the container.
//! podsim takes the declared TCP containerPorts as what a process binds; a
//! container that declares none but whose own probes or hooks target a port
//! no container of the pod declares is assumed to listen there (the
//! Kubernetes docs' `liveness-http` pod declares no port). The pod has one
//! such port once: the first container in spec order (the first started)
//! whose probe or hook targets it is assumed to bind it, and the others'
//! probes reach it through the shared namespace — podsim's guess must not
//! make a second process fail with EADDRINUSE.

use super::{ContainerSpec, Handler, HookHandler, HookKind, PodSpec, PortRef, ProbeKind, Role};

/// A port a container's probe or hook targets that no container declares,
/// the first field of the container that targets it, and who is assumed to
/// bind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssumedPort {
    pub port: u16,
    /// Relative to the pod spec: `containers[0].livenessProbe.httpGet.port`.
    pub field: String,
    /// The container assumed to listen there: this one, or an earlier one
    /// whose own probe or hook targets the port.
    pub bound_by: usize,
}

impl PodSpec {
    /// The ports container `c`'s process binds when its behaviour names no
    /// `ports`: its declared TCP containerPorts, else the assumed ports it
    /// binds itself. `names_ports(name)`: that container's behaviour names
    /// its `ports` for every instance, so nothing is assumed of it.
    pub fn default_ports(&self, c: usize, names_ports: impl Fn(&str) -> bool) -> Vec<u16> {
        // A port declared twice (a warning, not an error) is bound once.
        let mut declared: Vec<u16> = Vec::new();
        for p in self.containers[c].declared_tcp_ports() {
            if !declared.contains(&p) {
                declared.push(p);
            }
        }
        if !declared.is_empty() {
            return declared;
        }
        self.assumed_ports(c, names_ports).into_iter().filter(|a| a.bound_by == c).map(|a| a.port).collect()
    }

    /// For a container that declares no TCP containerPort (and whose
    /// behaviour does not name its ports): the ports its own probes
    /// (httpGet, tcpSocket, grpc) and httpGet hooks target that no container
    /// of the pod declares, in the order they are written, each with the
    /// first such container in spec order, which is assumed to bind it.
    pub fn assumed_ports(&self, c: usize, names_ports: impl Fn(&str) -> bool) -> Vec<AssumedPort> {
        let assumes = |i: usize| {
            let o = &self.containers[i];
            o.declared_tcp_ports().next().is_none() && !names_ports(&o.name)
        };
        if !assumes(c) {
            return Vec::new();
        }
        let declared = |port: u16| self.containers.iter().any(|o| o.declared_tcp_ports().any(|p| p == port));
        let mut out: Vec<AssumedPort> = Vec::new();
        for (field, port) in targets(&self.containers[c]) {
            if declared(port) || out.iter().any(|a| a.port == port) {
                continue;
            }
            let first = (0..c).find(|&i| assumes(i) && targets(&self.containers[i]).iter().any(|(_, p)| *p == port));
            let field = format!("{}.{field}", self.api_path(c));
            out.push(AssumedPort { port, field, bound_by: first.unwrap_or(c) });
        }
        out
    }

    /// `containers[i]` or `initContainers[i]`: where container `c` is written.
    pub fn api_path(&self, c: usize) -> String {
        let role = self.containers[c].role;
        let list = if role.is_init() { "initContainers" } else { "containers" };
        let i = self.containers[..c].iter().filter(|o| o.role.is_init() == role.is_init()).count();
        format!("{list}[{i}]")
    }
}

/// The numeric ports a container's probes and httpGet hooks dial, with the
/// field (relative to the container) of each. A named port cannot resolve
/// in a container that declares none, so it dials nothing.
fn targets(c: &ContainerSpec) -> Vec<(String, u16)> {
    let mut out = Vec::new();
    if c.role == Role::Init {
        return out;
    }
    for kind in ProbeKind::ALL {
        let field = match kind {
            ProbeKind::Startup => "startupProbe",
            ProbeKind::Readiness => "readinessProbe",
            ProbeKind::Liveness => "livenessProbe",
        };
        let target = c.probe(kind).and_then(|p| match &p.handler {
            Handler::HttpGet { port: PortRef::Number(n), .. } => Some(("httpGet", *n)),
            Handler::TcpSocket { port: PortRef::Number(n) } => Some(("tcpSocket", *n)),
            Handler::Grpc { port, .. } => Some(("grpc", *port)),
            _ => None,
        });
        if let Some((handler, port)) = target {
            out.push((format!("{field}.{handler}.port"), port));
        }
    }
    for kind in [HookKind::PostStart, HookKind::PreStop] {
        if let Some(HookHandler::HttpGet { port: PortRef::Number(n), .. }) = c.hook(kind) {
            let field = if kind == HookKind::PostStart { "postStart" } else { "preStop" };
            out.push((format!("lifecycle.{field}.httpGet.port"), *n));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::error::SourceFile;
    use crate::manifest::Manifests;
    use std::sync::Arc;

    fn pod(yaml: &str) -> crate::spec::PodSpec {
        let file = Arc::new(SourceFile { name: "pod.yaml".into(), text: yaml.into() });
        Manifests::load(&[file]).unwrap().pods.remove(0)
    }

    #[test]
    fn the_docs_liveness_pod_is_assumed_to_listen_on_its_probe_port() {
        let p = pod(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: liveness-http}\nspec:\n  containers:\n  - name: liveness\n    image: registry.k8s.io/e2e-test-images/agnhost:2.40\n    args: [liveness]\n    livenessProbe:\n      httpGet: {path: /healthz, port: 8080}\n      initialDelaySeconds: 3\n      periodSeconds: 3\n",
        );
        let assumed = p.assumed_ports(0, |_| false);
        assert_eq!(assumed.len(), 1);
        assert_eq!((assumed[0].port, assumed[0].field.as_str()), (8080, "containers[0].livenessProbe.httpGet.port"));
        assert_eq!(p.default_ports(0, |_| false), vec![8080]);
        // A behaviour that names its ports: nothing is assumed.
        assert_eq!((p.default_ports(0, |_| true), p.assumed_ports(0, |_| true)), (vec![], vec![]));
    }

    #[test]
    fn a_port_another_container_declares_is_that_containers() {
        // The app's probe is rewritten to the sidecar's port (a service mesh):
        // the app is not assumed to listen there; its own declared port stays.
        let p = pod(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: mesh}\nspec:\n  initContainers:\n  - name: proxy\n    image: proxy\n    restartPolicy: Always\n    ports: [{containerPort: 15020}, {containerPort: 53, protocol: UDP}]\n  containers:\n  - name: app\n    image: app\n    readinessProbe:\n      httpGet: {path: /app-health/app/readyz, port: 15020}\n    livenessProbe:\n      tcpSocket: {port: 9000}\n    lifecycle:\n      preStop:\n        httpGet: {path: /drain, port: 9000}\n",
        );
        let app = p.container_index("app").unwrap();
        assert_eq!(p.api_path(app), "containers[0]");
        assert_eq!(p.api_path(0), "initContainers[0]");
        assert_eq!(p.default_ports(0, |_| false), vec![15020]);
        let assumed: Vec<(u16, String)> =
            p.assumed_ports(app, |_| false).into_iter().map(|a| (a.port, a.field)).collect();
        assert_eq!(assumed, vec![(9000, "containers[0].livenessProbe.tcpSocket.port".to_string())]);
    }

    #[test]
    fn a_container_that_declares_a_port_binds_only_its_declared_ports() {
        let p = pod(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: web\n    image: nginx\n    ports: [{containerPort: 80}]\n    readinessProbe:\n      httpGet: {path: /, port: 8080}\n",
        );
        assert_eq!((p.default_ports(0, |_| false), p.assumed_ports(0, |_| false)), (vec![80], vec![]));
    }

    #[test]
    fn a_port_declared_twice_is_bound_once() {
        let p = pod(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: web\n    image: nginx\n    ports: [{containerPort: 80}, {containerPort: 443}, {containerPort: 80}]\n",
        );
        assert_eq!(p.default_ports(0, |_| false), vec![80, 443]);
    }

    #[test]
    fn two_containers_probing_one_undeclared_port_share_one_assumed_listener() {
        // The reviewer's pod: app and watcher declare no port; both probe 8080.
        let p = pod(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: two}\nspec:\n  containers:\n  - name: app\n    image: myapp:1\n    readinessProbe:\n      httpGet: {path: /ready, port: 8080}\n  - name: watcher\n    image: watcher:1\n    livenessProbe:\n      httpGet: {path: /healthz, port: 8080}\n    readinessProbe:\n      tcpSocket: {port: 9090}\n",
        );
        let none = |_: &str| false;
        assert_eq!(p.default_ports(0, none), vec![8080]);
        // watcher binds only its own 9090; its 8080 probe reaches app.
        assert_eq!(p.default_ports(1, none), vec![9090]);
        let watcher: Vec<(u16, usize)> = p.assumed_ports(1, none).into_iter().map(|a| (a.port, a.bound_by)).collect();
        assert_eq!(watcher, vec![(9090, 1), (8080, 0)]);
        // If app's behaviour names its ports, watcher is the one assumed on 8080.
        let app_says = |n: &str| n == "app";
        assert_eq!(p.default_ports(1, app_says), vec![9090, 8080]);
    }
}
