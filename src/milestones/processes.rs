//! Container milestones from the process layer (`Record::Process`): what
//! happened to the process itself, before any API object shows it.

use super::found::Found;
use super::names::{Names, milestone};
use crate::spec::HookKind;
use crate::time::SimTime;
use crate::trace::record::ProcessFact;

pub fn see(t: SimTime, pod: &str, container: &str, fact: &ProcessFact, names: &Names, found: &mut Found) {
    let subject = format!("{}/{container}", names.pod_named(pod));
    let at = |event: &str| milestone(&subject, event);
    let event = match fact {
        ProcessFact::Started => "process_started".to_string(),
        ProcessFact::Listening { .. } => "listening".into(),
        ProcessFact::Hook { kind, started, error } => {
            let hook = match kind {
                HookKind::PostStart => "poststart",
                HookKind::PreStop => "prestop",
            };
            let how = match (started, error) {
                (true, _) => "started",
                (false, None) => "returned",
                (false, Some(_)) => "failed",
            };
            format!("{hook}_{how}")
        }
        ProcessFact::Sigterm => "sigterm".into(),
        ProcessFact::Sigkill => "sigkill".into(),
        ProcessFact::Signal { signal } => format!("signal({signal})"),
        ProcessFact::Exited { .. } => {
            found.last(at("last_exited"), t);
            "exited".into()
        }
    };
    found.first(at(&event), t);
}
