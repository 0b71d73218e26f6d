//! Where each component's messages go: its own events back to it, its
//! calls to the API server and its answers to clients, as the world's
//! events. A component names only its own message type (`engine::Outbox`).

use super::{Ev, NodeId};
use crate::control::deployment as deploy;
use crate::control::disruption as pdbc;
use crate::control::endpointslice as eps;
use crate::control::garbagecollector as gc;
use crate::control::replicaset as rs;
use crate::kubelet;
use crate::proxy;

/// The `run`-th run of the kubelet of `node`.
pub fn kubelet(node: NodeId, run: u32) -> impl FnMut(kubelet::Out) -> Ev {
    move |out| match out {
        kubelet::Out::Own(ev) => Ev::Kubelet(node, run, ev),
        kubelet::Out::PatchStatus { pod, node, status } => Ev::PatchStatus { pod, node, run, status },
        kubelet::Out::DeletePod { pod, uid } => Ev::DeletePod { pod, uid },
        kubelet::Out::Reached { req, silence } => Ev::Reached { req, silence },
        kubelet::Out::Reply { req, answer } => Ev::Reply { req, answer },
    }
}

/// The kube-proxy of `node`.
pub fn proxy(node: NodeId) -> impl FnMut(proxy::Ev) -> Ev {
    move |ev| Ev::Proxy(node, ev)
}

/// The EndpointSlice controller.
pub fn slices(out: eps::Out) -> Ev {
    match out {
        eps::Out::Own(ev) => Ev::SliceController(ev),
        eps::Out::Write(request) => Ev::SliceWrite(request),
    }
}

/// The ReplicaSet controller.
pub fn replicasets(out: rs::Out) -> Ev {
    match out {
        rs::Out::Own(ev) => Ev::RsController(ev),
        rs::Out::Write(write) => Ev::RsWrite(write),
    }
}

/// The Deployment controller.
pub fn deployments(out: deploy::Out) -> Ev {
    match out {
        deploy::Out::Own(ev) => Ev::DeploymentController(ev),
        deploy::Out::Write(write) => Ev::DeploymentWrite(write),
    }
}

/// The garbage collector.
pub fn collector(out: gc::Out) -> Ev {
    match out {
        gc::Out::Call(call) => Ev::CollectorCall(Box::new(call)),
    }
}

/// The disruption controller.
pub fn disruption(out: pdbc::Out) -> Ev {
    match out {
        pdbc::Out::Own(ev) => Ev::DisruptionController(ev),
        pdbc::Out::Write(write) => Ev::PdbWrite(write),
    }
}

/// The CronJob controller.
pub fn cronjobs(out: crate::control::cronjob::Out) -> Ev {
    match out {
        crate::control::cronjob::Out::Own(ev) => Ev::CronJobController(ev),
        crate::control::cronjob::Out::Write(write) => Ev::CronJobWrite(Box::new(write)),
    }
}

/// The DaemonSet controller.
pub fn daemon_sets(out: crate::control::daemon::Out) -> Ev {
    match out {
        crate::control::daemon::Out::Own(ev) => Ev::DaemonSetController(ev),
        crate::control::daemon::Out::Write(write) => Ev::DaemonSetWrite(Box::new(write)),
    }
}

/// The Job controller.
pub fn jobs(out: crate::control::job::Out) -> Ev {
    match out {
        crate::control::job::Out::Own(ev) => Ev::JobController(ev),
        crate::control::job::Out::Write(write) => Ev::JobWrite(Box::new(write)),
    }
}

/// The StatefulSet controller.
pub fn stateful_sets(out: crate::control::statefulset::Out) -> Ev {
    match out {
        crate::control::statefulset::Out::Own(ev) => Ev::StsController(ev),
        crate::control::statefulset::Out::Write(write) => Ev::StsWrite(write),
    }
}
