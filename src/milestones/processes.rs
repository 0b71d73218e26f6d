//! Container milestones from the process layer (`Record::Process`): what
//! happened to the process itself, before any API object shows it.

use super::found::Found;
use super::names::Names;
use crate::spec::HookKind;
use crate::time::SimTime;
use crate::trace::record::ProcessFact;

pub fn see(t: SimTime, pod: &str, container: &str, fact: &ProcessFact, names: &Names, found: &mut Found) {
    let pod = names.pod_named(pod);
    let event = match fact {
        ProcessFact::Started => "process_started",
        ProcessFact::Listening { .. } => "listening",
        ProcessFact::AddressInUse { .. } => "address_in_use",
        ProcessFact::Hook { kind, started, error } => match (kind, started, error) {
            (HookKind::PostStart, true, _) => "poststart_started",
            (HookKind::PostStart, false, None) => "poststart_returned",
            (HookKind::PostStart, false, Some(_)) => "poststart_failed",
            (HookKind::PreStop, true, _) => "prestop_started",
            (HookKind::PreStop, false, None) => "prestop_returned",
            (HookKind::PreStop, false, Some(_)) => "prestop_failed",
        },
        ProcessFact::Sigterm => "sigterm",
        ProcessFact::Sigkill => "sigkill",
        ProcessFact::OomKilled { .. } => "oom_killed",
        ProcessFact::Signal { signal } => {
            found.first(format_args!("{pod}/{container}"), format_args!("signal({signal})"), t);
            return;
        }
        ProcessFact::Exited { .. } => {
            found.last(format_args!("{pod}/{container}"), "last_exited", t);
            "exited"
        }
        ProcessFact::NodeStopped => "node_stopped",
    };
    found.first(format_args!("{pod}/{container}"), event, t);
}
