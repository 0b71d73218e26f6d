//! A shrunk counterexample's draws in words: which component, what it
//! delayed, by how much, and how that compares with the nominal value, so a
//! reader need not know podsim's stream names to see what went wrong.
//!
//! Everything comes from the draw's key: the component from its stream
//! (`kubelet/kind-worker/loop`, `kube-proxy/kind-worker`, `watch/…`), the
//! step and the object from its label (`rng::Label`).

use crate::rng::draws::{Draw, Drawn};
use crate::rng::{Label, What};
use crate::time::SimDuration;

/// `the kubelet on kind-worker started pod/web/app 1.4s after creating it
/// (nominal 500ms): 900ms later than usual`.
pub fn words(d: &Draw) -> String {
    let stream = &*d.key.stream;
    let l = &d.key.label;
    match &d.value {
        Drawn::Millis { drawn, nominal, .. } => {
            let (drawn, nominal) = (SimDuration::from_millis(*drawn), SimDuration::from_millis(*nominal));
            let how = match drawn.cmp(&nominal) {
                std::cmp::Ordering::Greater => format!("{} later than usual", drawn.saturating_sub(nominal)),
                std::cmp::Ordering::Less => format!("{} earlier than usual", nominal.saturating_sub(drawn)),
                std::cmp::Ordering::Equal => "as usual".to_string(),
            };
            format!("{} (nominal {nominal}): {how}", phrase(stream, l, &drawn.to_string()))
        }
        Drawn::Fraction { drawn, nominal } => {
            let how = if drawn > nominal { "later than usual" } else { "earlier than usual" };
            let at = format!("at {drawn:.3} of its jitter range");
            format!("{} (nominal {nominal}): {how}", phrase(stream, l, &at))
        }
    }
}

/// What the draw timed, with the drawn value `d` in its place.
fn phrase(stream: &str, l: &Label, d: &str) -> String {
    let who = component(stream, l);
    let (s, x) = (&*l.subject, &*l.detail);
    match l.what {
        What::Phase => format!("{who} first ran its {x} {d} into the run"),
        What::PodSync => format!("{who} spent {d} on a sync of {s} before acting"),
        What::SandboxCreate => format!("{who} created the sandbox of {s} in {d}"),
        What::SandboxStop => format!("{who} stopped the sandbox of {s} in {d}"),
        What::PodCleanup => format!("{who} cleaned up {s} in {d}"),
        What::ImagePull => format!("{who} pulled {x} for {s} in {d}"),
        What::ContainerCreate => format!("{who} created {s} in {d}"),
        What::ContainerStart => format!("{who} started {s} {d} after creating it"),
        What::Resync => format!("{who} resynced {s} {d} after its sync"),
        What::ResyncJitter => format!("{who} resynced {s} {d}"),
        What::OnDemandRelist => format!("{who} relisted {s} {d} after its sync"),
        What::PlegRelist => format!("{who} took {d} for a PLEG relist"),
        What::StatusPatch => format!("{who} took {d} to PATCH the status of {s}"),
        What::FinalDelete => format!("{who} took {d} for the final DELETE of {s}"),
        What::ExecOverhead => format!("{who} spent {d} of runtime overhead on the {x} of {s}"),
        What::HookOverhead => format!("{who} spent {d} of runtime overhead on the {x} of {s}"),
        What::NoRouteToHost => format!("{who} answered no route to host for {s} after {d}"),
        What::Listen => format!("{s} listened {d} after it started"),
        What::Exit => format!("{s} exited by itself {d} after it started"),
        What::SigtermExit => format!("{s} exited {d} after SIGTERM"),
        What::AddressInUseExit => format!("{s} exited {d} after finding its port taken"),
        What::AnswerChange => format!("{s} changed its answer to {x} {d} after it started"),
        What::AnswerLatency => format!("{s} took {d} to answer {x}"),
        What::RelayTimeout => format!("{s} gave up relaying {x} after {d}"),
        What::MemoryChange => format!("{s} changed its resident memory {d} after it started"),
        What::RequestThere => format!("{who} took {d} to carry {x} of {s} to its endpoint"),
        What::RequestBack => format!("{who} took {d} to carry the answer to {x} of {s} back"),
        What::ClientInterval => format!("{s} sent {x} {d} after the one before"),
        // The detail is the kind of a Service's slices, or the node of a
        // kubelet's watch (named in `who`).
        What::Watch => match x {
            "EndpointSlice" => format!("{who} saw an EndpointSlice of {s} change {d} after it was written"),
            _ => format!("{who} saw {s} change {d} after it was written"),
        },
        What::Scheduling => format!("{who} tried to place {s} {d} after it was queued"),
        What::ApiWrite => format!("{who} took {d} to {x} for {s}"),
        What::EndpointBatch => format!("{who} synced {s} {d} after {x}"),
        What::GateWatch => format!("{who} saw {s} change {d} after it was written ({x})"),
        What::GateDelay => format!("{who} waited {d} before setting {x} on {s}"),
        What::GateWrite => format!("{who} took {d} to write {x} on {s}"),
        What::VolumeProvision => format!("{who} took {d} to provision {s}"),
        What::LeaseRenew => format!("{who} renewed the node lease of {s} {d} late"),
        What::TaintingPass => format!("{who} tainted {s} {d} after it was queued"),
        What::ProxySync => format!("{who} took {d} to write its rules"),
        What::ProxyMinSyncPeriod => format!("{who} waited {d} before it could sync again"),
    }
}

/// The component a stream belongs to; a watch's by its informer, and the
/// kubelets' shared watch by the node in its label.
fn component(stream: &str, l: &Label) -> String {
    let parts: Vec<&str> = stream.split('/').collect();
    let node_in_detail = || l.detail.strip_prefix("node/").map(str::to_string);
    match parts.as_slice() {
        ["kubelet", node, ..] => format!("the kubelet on {node}"),
        ["kube-proxy", node] => format!("kube-proxy on {node}"),
        ["network"] => "the network".to_string(),
        ["scheduler"] => "the scheduler".to_string(),
        ["kube-controller-manager", c] => controller(c),
        ["controllers", "readiness-gate"] => "the readiness-gate controller".to_string(),
        ["persistentvolumeclaims"] => "the volume provisioner".to_string(),
        ["client", name] => format!("client {name}"),
        ["apiserver", "watch"] | ["watch", "kubelet", ..] => match node_in_detail() {
            Some(node) => format!("the kubelet on {node}"),
            None => "a kubelet".to_string(),
        },
        ["watch", "kube-proxy", node, ..] => format!("kube-proxy on {node}"),
        ["watch", "kube-controller-manager", c, _] => controller(c),
        ["watch", "kube-controller-manager", _] => controller("endpointslice"),
        _ => stream.to_string(),
    }
}

/// kube-controller-manager's controllers, as their docs name them.
fn controller(name: &str) -> String {
    match name {
        "deployment" => "the Deployment controller".to_string(),
        "replicaset" => "the ReplicaSet controller".to_string(),
        "endpointslice" => "the EndpointSlice controller".to_string(),
        "garbagecollector" => "the garbage collector".to_string(),
        "nodelifecycle" => "the node lifecycle controller".to_string(),
        "tainteviction" => "the taint-eviction controller".to_string(),
        other => format!("the {other} controller"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::draws::DrawKey;
    use std::sync::Arc;

    fn millis(stream: &str, label: Label, drawn: u64, nominal: u64) -> String {
        let key = DrawKey { stream: Arc::from(stream), label, index: 1 };
        words(&Draw { key, value: Drawn::Millis { drawn, nominal, dist: "uniform(0s, 1s)".into() } })
    }

    #[test]
    fn each_component_is_named_with_what_it_delayed_and_by_how_much() {
        let l = Label::new(What::ProxySync, "node/node-2");
        assert_eq!(
            millis("kube-proxy/node-2", l, 1400, 500),
            "kube-proxy on node-2 took 1.4s to write its rules (nominal 500ms): 900ms later than usual"
        );
        let l = Label::new(What::Phase, "node/kind-worker").with("PLEG relist");
        assert_eq!(
            millis("kubelet/kind-worker/loop", l, 151, 500),
            "the kubelet on kind-worker first ran its PLEG relist 151ms into the run (nominal 500ms): \
             349ms earlier than usual"
        );
        let l = Label::new(What::ContainerStart, "pod/web@rev2#3/web");
        assert_eq!(
            millis("kubelet/kind-worker/loop", l, 510, 510),
            "the kubelet on kind-worker started pod/web@rev2#3/web 510ms after creating it (nominal 510ms): as usual"
        );
    }

    #[test]
    fn a_watch_is_named_by_its_informer() {
        let l = Label::new(What::Watch, "pod/web@rev1#2");
        assert_eq!(
            millis("watch/kube-controller-manager/replicaset/pods", l, 6, 4),
            "the ReplicaSet controller saw pod/web@rev1#2 change 6ms after it was written (nominal 4ms): \
             2ms later than usual"
        );
        let l = Label::new(What::Watch, "svc/web").with("EndpointSlice");
        assert!(
            millis("watch/kube-proxy/kind-worker/endpointslices", l, 3, 4).starts_with(
                "kube-proxy on kind-worker saw an EndpointSlice of svc/web change 3ms after it was written"
            )
        );
        let l = Label::new(What::Watch, "pod/web").with("node/kind-worker");
        assert!(millis("apiserver/watch", l, 3, 4).starts_with("the kubelet on kind-worker saw pod/web change"));
    }

    #[test]
    fn a_jitter_is_a_fraction_of_its_range() {
        let key = DrawKey {
            stream: Arc::from("kubelet/kind-worker/loop"),
            label: Label::new(What::ResyncJitter, "pod/web"),
            index: 2,
        };
        let d = Draw { key, value: Drawn::Fraction { drawn: 0.295, nominal: 0.5 } };
        assert_eq!(
            words(&d),
            "the kubelet on kind-worker resynced pod/web at 0.295 of its jitter range (nominal 0.5): earlier than usual"
        );
    }
}
