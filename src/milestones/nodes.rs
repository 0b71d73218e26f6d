//! Node milestones (`Record::Node`): when the node lifecycle controller
//! marked a node not Ready, when it was Ready again, when it was tainted
//! `unreachable:NoExecute`, when it came back from a reboot, and when a
//! node added during the run joined.

use super::found::Found;
use crate::api::node::{ApiNode, NodeReady, UNREACHABLE};
use crate::time::SimTime;

pub fn see(t: SimTime, n: &ApiNode, found: &mut Found) {
    let subject = format!("node/{}", n.name);
    match n.ready {
        NodeReady::Unknown => found.first(&subject, "not_ready", t),
        // Ready after it was not: the kubelet posting again.
        NodeReady::True if n.ready_since == t => found.first(&subject, "ready", t),
        NodeReady::True => {}
    }
    if n.has_taint(UNREACHABLE, "NoExecute") {
        found.first(&subject, "no_execute", t);
    }
    if n.created == Some(t) {
        found.first(&subject, "joined", t);
    }
    if n.boots > 0 {
        found.first(&subject, format_args!("rebooted#{}", n.boots), t);
    }
}
