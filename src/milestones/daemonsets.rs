//! DaemonSet milestones (`Record::DaemonSet`), per template generation:
//! when `kubectl rollout status daemonset/NAME` would report it rolled out.

use super::found::Found;
use crate::api::daemonset::ApiDaemonSet;
use crate::kubectl::rollout_status::Verdict;
use crate::kubectl::rollout_status_daemonset::daemon_set_status;
use crate::time::SimTime;

/// `ds/<name>@gen<k>:rollout_complete`: the first version of template
/// generation `k` that kubectl reports "successfully rolled out".
pub fn see(t: SimTime, d: &ApiDaemonSet, found: &mut Found) {
    if d.meta.removed {
        return;
    }
    if matches!(daemon_set_status(d), Verdict::Done(_)) {
        found.first(format!("ds/{}@gen{}", d.spec.name, d.template_generation), "rollout_complete", t);
    }
}
