//! The container runtime (CRI) as the kubelet sees it: sandboxes, container
//! instances and their processes. It owns the truth about what runs; the
//! kubelet only learns it through PLEG relists (see `pleg`).

use super::netns::{Namespaces, NetnsId};
use crate::api::quantity::Quantity;
use crate::app::{Moments, OnSigterm, Plan};
use crate::ids::PodId;
use crate::time::{SimDuration, SimTime};
use foldhash::HashMap;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Index of a container instance in the runtime (never reused).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);

/// How an instance ended, for the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndCause {
    /// The process exited by itself.
    Exited,
    /// The kubelet stopped it: `why` (e.g. "liveness probe failed 3 times")
    /// and how: exited after SIGTERM, or SIGKILL at the deadline.
    Stopped { why: Arc<str>, sigkill: bool },
    /// A signal from outside the kubelet (a scenario `kill` action).
    Signalled { signal: &'static str },
    /// The kernel's OOM killer: its resident memory `rss` went above the
    /// `limit` of its cgroup.
    OomKilled { rss: Quantity, limit: Quantity },
    /// The machine stopped under it: containerd, started again, finds its
    /// task gone and reports exit code 255, reason `Unknown`.
    NodeLost,
}

/// A runtime container state (`kubecontainer.State`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstState {
    Created,
    Running { started: SimTime },
    Exited { started: SimTime, finished: SimTime, exit_code: i32, cause: EndCause },
}

/// A stop in progress (`StopContainer(timeout)`).
#[derive(Clone, Debug)]
pub struct Stopping {
    pub deadline: SimTime,
    pub why: Arc<str>,
}

/// One container instance.
#[derive(Clone, Debug)]
pub struct Instance {
    pub pod: PodId,
    /// Index in `spec.containers`.
    pub container: usize,
    pub name: Arc<str>,
    /// `containerd://<64 hex>`.
    pub container_id: Arc<str>,
    pub image: Arc<str>,
    pub image_id: Arc<str>,
    pub restart_count: u32,
    /// `HashContainer` of the spec it was created from.
    pub hash: u32,
    pub state: InstState,
    pub plan: Plan,
    pub stopping: Option<Stopping>,
    /// What the app has seen happen: its preStop hook started, SIGTERM.
    pub moments: Moments,
    /// A signal from outside, if the process dies of it.
    pub signalled: Option<&'static str>,
    /// Its cgroup's `memory.max`, set from the container's memory limit at
    /// `CreateContainer`.
    pub memory_limit: Option<Quantity>,
    /// Removed by the kubelet's container deletor; invisible to relists.
    pub removed: bool,
}

impl Instance {
    pub fn is_running(&self) -> bool {
        matches!(self.state, InstState::Running { .. })
    }
    pub fn started(&self) -> Option<SimTime> {
        match self.state {
            InstState::Running { started } | InstState::Exited { started, .. } => Some(started),
            InstState::Created => None,
        }
    }
    pub fn finished(&self) -> Option<SimTime> {
        match self.state {
            InstState::Exited { finished, .. } => Some(finished),
            _ => None,
        }
    }
    /// Time the process has been up at `now` (zero if not started).
    pub fn age(&self, now: SimTime) -> SimDuration {
        self.started().map_or(SimDuration::ZERO, |s| now.since(s))
    }
}

/// A ready pod sandbox (pause container + network namespace).
#[derive(Clone, Debug)]
pub struct Sandbox {
    /// Where connections reach it: its own IP, or the node's.
    pub ip: Arc<str>,
    /// Its own network namespace, or the node's for a hostNetwork pod.
    pub netns: NetnsId,
}

impl Sandbox {
    /// The IP `PodSandboxStatus` reports (`GetPodStatus`'s `IPs`): none in
    /// the node's namespace, whose IP the runtime does not own (containerd's
    /// `getIPs`); the kubelet writes the node's IP into the API status itself.
    pub fn reported_ip(&self) -> Option<&Arc<str>> {
        (self.netns != NetnsId::Node).then_some(&self.ip)
    }
}

/// What SIGTERM leads to, decided when the stop begins.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopOutcome {
    /// The process exits with `code` at this time (before the deadline).
    ExitsAt(SimTime, i32),
    /// Still running at the deadline: SIGKILL, exit 137.
    Sigkill(SimTime),
}

/// The runtime of one node.
#[derive(Debug, Default)]
pub struct Runtime {
    instances: Vec<Instance>,
    /// Per pod (by `PodId`), its instances, oldest first: a relist reads one
    /// pod's instances without scanning the node's.
    by_pod: Vec<Vec<InstId>>,
    /// Per pod, a count of the changes a relist can see (an instance created,
    /// started, exited or removed, the sandbox set): equal counts, equal reads.
    versions: Vec<u64>,
    /// Per pod (by `PodId`), its current sandbox.
    pub(super) sandboxes: Vec<Option<Sandbox>>,
    /// The pods whose sandbox was stopped: the runtime still lists it, not
    /// ready (`SANDBOX_NOTREADY`), until it is garbage-collected.
    stopped: BTreeSet<PodId>,
    /// The pods with a sandbox, by the sandbox's IP: a connection finds its
    /// pods here rather than by scanning every pod id of the cluster.
    pub(super) by_ip: HashMap<Arc<str>, BTreeSet<PodId>>,
    /// The network namespaces of the node's sandboxes: who bound which port.
    netns: Namespaces,
    /// Images present on the node.
    pub images: Vec<String>,
}

/// Exit code of a process killed by SIGKILL (128 + 9).
pub const SIGKILL_EXIT: i32 = 137;
/// containerd's exit code for a task it lost (`unknownExitCode`, restart.go).
pub const LOST_EXIT: i32 = 255;

impl Runtime {
    /// A node's runtime with `images` already present.
    pub fn new(images: Vec<String>) -> Runtime {
        Runtime { images, ..Runtime::default() }
    }

    pub fn inst(&self, id: InstId) -> &Instance {
        &self.instances[id.0 as usize]
    }
    /// An instance, to change what a relist does not read (the plan, the
    /// app's moments); its state changes through `start`, `exit` and `prune_dead`.
    pub fn inst_mut(&mut self, id: InstId) -> &mut Instance {
        &mut self.instances[id.0 as usize]
    }

    /// How many relist-visible changes `pod` has had (see `versions`).
    pub fn version(&self, pod: PodId) -> u64 {
        self.versions.get(pod.0 as usize).copied().unwrap_or(0)
    }

    fn changed(&mut self, pod: PodId) {
        let i = pod.0 as usize;
        if self.versions.len() <= i {
            self.versions.resize(i + 1, 0);
        }
        self.versions[i] += 1;
    }
    pub fn sandbox(&self, pod: PodId) -> Option<&Sandbox> {
        self.sandboxes.get(pod.0 as usize).and_then(Option::as_ref)
    }
    /// Whether `pod`'s sandbox was stopped (and no new one made since).
    pub fn sandbox_stopped(&self, pod: PodId) -> bool {
        self.stopped.contains(&pod)
    }
    /// `StopPodSandbox`: the network is torn down; the sandbox stays listed.
    pub fn stop_sandbox(&mut self, pod: PodId) {
        self.set_sandbox(pod, None);
        self.stopped.insert(pod);
    }
    pub fn set_sandbox(&mut self, pod: PodId, sandbox: Option<Sandbox>) {
        self.stopped.remove(&pod);
        let i = pod.0 as usize;
        if self.sandboxes.len() <= i {
            self.sandboxes.resize(i + 1, None);
        }
        if let Some(old) = self.sandboxes[i].take()
            && let Some(pods) = self.by_ip.get_mut(&old.ip)
        {
            pods.remove(&pod);
        }
        if let Some(s) = &sandbox {
            self.by_ip.entry(s.ip.clone()).or_default().insert(pod);
        }
        self.sandboxes[i] = sandbox;
        self.changed(pod);
    }

    /// The pods whose sandbox has `ip`, by id.
    pub fn pods_with_ip(&self, ip: &str) -> impl Iterator<Item = PodId> + '_ {
        self.by_ip.get(ip).into_iter().flatten().copied()
    }

    /// Instances of `pod` still known to the runtime, newest first
    /// (`containerStatusByCreated`).
    pub fn pod_instances(&self, pod: PodId) -> impl Iterator<Item = (InstId, &Instance)> {
        let ids = self.by_pod.get(pod.0 as usize).map_or(&[][..], Vec::as_slice);
        ids.iter().rev().map(|&id| (id, self.inst(id))).filter(|(_, i)| !i.removed)
    }

    /// The pods the runtime lists: with a sandbox (ready or stopped) or containers.
    pub fn pods(&self) -> impl Iterator<Item = PodId> + '_ {
        let n = self.sandboxes.len().max(self.by_pod.len());
        (0..n as u32).map(PodId).filter(|&p| {
            self.sandbox(p).is_some() || self.stopped.contains(&p) || self.pod_instances(p).next().is_some()
        })
    }

    pub fn has_image(&self, image: &str) -> bool {
        self.images.iter().any(|i| i == "*" || i == image)
    }

    /// `CreateContainer`.
    pub fn create(&mut self, inst: Instance) -> InstId {
        let (pod, id) = (inst.pod, InstId(self.instances.len() as u32));
        self.instances.push(inst);
        let i = pod.0 as usize;
        if self.by_pod.len() <= i {
            self.by_pod.resize(i + 1, Vec::new());
        }
        self.by_pod[i].push(id);
        self.changed(pod);
        id
    }

    /// `StartContainer`: the process starts now.
    pub fn start(&mut self, id: InstId, now: SimTime) {
        let inst = self.inst_mut(id);
        inst.state = InstState::Running { started: now };
        let pod = inst.pod;
        self.changed(pod);
    }

    /// The process starts listening: it binds its ports in its sandbox's
    /// network namespace. Returns the ports another process holds.
    pub fn listen(&mut self, id: InstId) -> Vec<u16> {
        let inst = &self.instances[id.0 as usize];
        let closed = inst.moments.sigterm && inst.plan.closes_on_sigterm();
        let Some(ns) = self.sandbox(inst.pod).map(|s| s.netns).filter(|_| !closed) else {
            return Vec::new();
        };
        self.netns.bind(ns, id, inst.plan.ports())
    }

    /// The process a connection to `port` of namespace `ns` reaches, if one listens there.
    pub fn server(&self, ns: NetnsId, port: u16) -> Option<InstId> {
        self.netns.server(ns, port)
    }

    /// SIGTERM reaches the process; one that stops listening on it frees its ports.
    pub fn sigterm(&mut self, id: InstId) {
        let inst = self.inst_mut(id);
        inst.moments.sigterm = true;
        if inst.plan.closes_on_sigterm() {
            self.netns.release(id);
        }
    }

    /// The process ends (by itself, after SIGTERM, or by SIGKILL); its ports are free.
    pub fn exit(&mut self, id: InstId, now: SimTime, exit_code: i32) -> bool {
        self.end(id, now, exit_code, None)
    }

    /// The kernel OOM-kills the container's cgroup: with `memory.oom.group`
    /// (cgroup v2, the kubelet's default `singleProcessOOMKill: false`) every
    /// process of it gets SIGKILL, its PID 1 too, whatever it was doing.
    pub fn oom_kill(&mut self, id: InstId, now: SimTime, rss: Quantity, limit: Quantity) -> bool {
        self.end(id, now, SIGKILL_EXIT, Some(EndCause::OomKilled { rss, limit }))
    }

    /// The machine stops and boots again at `now`: every process is gone,
    /// every sandbox is NOTREADY with its network namespace, the containers'
    /// records stay. containerd's `loadContainer` (internal/cri/server
    /// restart.go) finds a RUNNING container's task deleted and records it
    /// exited at its own start, `unknownExitCode` 255, reason `Unknown`.
    pub fn power_loss(&mut self, now: SimTime) {
        for i in 0..self.instances.len() {
            let id = InstId(i as u32);
            if self.inst(id).is_running() {
                self.inst_mut(id).stopping = None;
                self.end(id, now, LOST_EXIT, Some(EndCause::NodeLost));
            }
        }
        let with_sandbox: Vec<PodId> =
            (0..self.sandboxes.len() as u32).map(PodId).filter(|&p| self.sandbox(p).is_some()).collect();
        for pod in with_sandbox {
            self.stop_sandbox(pod);
        }
    }

    /// A running process ends with `exit_code`; `cause` when it is known
    /// already, else from what happened to it.
    fn end(&mut self, id: InstId, now: SimTime, exit_code: i32, cause: Option<EndCause>) -> bool {
        let inst = self.inst_mut(id);
        let InstState::Running { started } = inst.state else {
            return false;
        };
        let cause = match (cause, inst.stopping.take(), inst.signalled) {
            (Some(cause), _, _) => cause,
            (None, Some(s), _) => {
                EndCause::Stopped { why: s.why, sigkill: exit_code == SIGKILL_EXIT && now >= s.deadline }
            }
            (None, None, Some(signal)) => EndCause::Signalled { signal },
            (None, None, None) => EndCause::Exited,
        };
        inst.state = InstState::Exited { started, finished: now, exit_code, cause };
        let pod = inst.pod;
        self.netns.release(id);
        self.changed(pod);
        true
    }

    /// `StopContainer(timeout)`: SIGTERM now; the plan says whether the
    /// process exits before the deadline or is killed at it.
    pub fn stop(&mut self, id: InstId, now: SimTime, timeout: SimDuration, why: Arc<str>) -> StopOutcome {
        self.sigterm(id);
        let inst = self.inst_mut(id);
        let deadline = now + timeout;
        inst.stopping = Some(Stopping { deadline, why });
        let age = match inst.state {
            InstState::Running { started } => now.since(started),
            _ => SimDuration::ZERO,
        };
        match inst.plan.sigterm_at(age) {
            OnSigterm::Exit { after, code } if now + after < deadline => StopOutcome::ExitsAt(now + after, code),
            _ => StopOutcome::Sigkill(deadline),
        }
    }

    /// The kubelet's container deletor after a ContainerDied event: keep only
    /// the newest exited instance per container (`minDeadContainerInPod` = 1).
    pub fn prune_dead(&mut self, pod: PodId, container: usize) {
        let Some(ids) = self.by_pod.get(pod.0 as usize) else { return };
        let mut kept = false;
        let mut pruned = false;
        for id in ids.iter().rev() {
            let inst = &mut self.instances[id.0 as usize];
            if inst.container != container || inst.removed {
                continue;
            }
            if matches!(inst.state, InstState::Exited { .. }) {
                if kept {
                    inst.removed = true;
                    pruned = true;
                }
                kept = true;
            }
        }
        if pruned {
            self.changed(pod);
        }
    }
}
